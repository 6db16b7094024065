"""One key, one encoding, across languages: filters built here answer the
same through the approxset CLI (the Rust library's load and lookups), and
filters the CLI builds are byte for byte the ones Python builds.

The CLI hashes each line's bytes (``--raw-keys``: as they are, less the
LF), so an ``int`` key goes to it as its 8 little-endian bytes, the
encoding of the Rust ``u64``/``i64`` keys; ints whose bytes hold an LF are
left out of the files, and so is the empty key (the CLI skips empty lines).
"""

import json
import subprocess

import pytest

import approxset
from conftest import build

VARIANTS = list(approxset.VARIANTS)


def encoded(key):
    if isinstance(key, str):
        return key.encode()
    if isinstance(key, int):
        return key.to_bytes(8, "little", signed=key < 0)
    return bytes(key)


def line_safe_ints(count, start):
    """``count`` ints (negative and above 2**63 included) whose 8 bytes hold no LF."""
    out, i = [], start
    while len(out) < count:
        for k in (i * 2654435761, -i * 40503 - 1, 2**64 - 1 - i * 97):
            if b"\n" not in encoded(k):
                out.append(k)
        i += 1
    return out[:count]


MEMBERS = [f"member-{i}" for i in range(500)] + ["é", "日本語"] + line_safe_ints(300, 1)
OTHERS = [f"other-{i}" for i in range(2000)] + line_safe_ints(2000, 10_000)


def lines(keys):
    return b"".join(encoded(k) + b"\n" for k in keys)


def cli_query(cli, path, keys):
    out = subprocess.run(
        [cli, "query", "--filter", path, "--raw-keys", "--json"],
        input=lines(keys),
        capture_output=True,
        check=True,
    ).stdout
    return [answer["present"] for answer in json.loads(out)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_python_filters_answer_the_same_through_the_cli(cli, tmp_path, variant):
    f = build(variant, MEMBERS, fp=0.01, seed=7)
    path = tmp_path / "py.bin"
    f.save(path)
    assert cli_query(cli, path, MEMBERS) == [True] * len(MEMBERS)
    # Non-members too: the same answers, false positives included.
    assert cli_query(cli, path, OTHERS) == f.contains_many(OTHERS)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("hash_fn", ["siphash64", "siphash", "xxh3"])
def test_cli_filters_are_the_python_filters_byte_for_byte(cli, tmp_path, variant, hash_fn):
    keys_file = tmp_path / "keys.txt"
    keys_file.write_bytes(lines(MEMBERS))
    out = tmp_path / "cli.bin"
    subprocess.run(
        [
            cli, "build", "--variant", variant, "--seed", "7", "--fp", "0.01",
            "--hash", hash_fn, "--input", keys_file, "--raw-keys", "--output", out,
        ],
        capture_output=True,
        check=True,
    )
    from_cli = approxset.load(out)
    assert all(k in from_cli for k in MEMBERS)
    assert from_cli.variant == variant and from_cli.hash == hash_fn
    mine = build(variant, MEMBERS, fp=0.01, seed=7, hash=hash_fn)
    assert bytes(mine) == out.read_bytes()


def test_a_file_the_cli_adds_to_keeps_python_keys(cli, tmp_path):
    f = approxset.Filter("counting", 1000, 0.01, seed=3)
    f.update(MEMBERS)
    path = tmp_path / "f.bin"
    f.save(path)
    subprocess.run(
        [cli, "remove", "--filter", path, "--raw-keys"],
        input=lines(MEMBERS[:100]),
        capture_output=True,
        check=True,
    )
    g = approxset.load(path)
    assert len(g) == len(MEMBERS) - 100
    assert all(k in g for k in MEMBERS[100:])
    f.update([])
    for k in MEMBERS[:100]:
        f.remove(k)
    assert bytes(f) == path.read_bytes()
