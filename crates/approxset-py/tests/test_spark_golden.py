"""``approxset.from_spark`` on filters a real Spark 4.3.0 wrote
(tests/golden/spark, made by tests/spark/make_golden.py): every answer is
Spark's, and ``to_spark`` gives Spark's bytes back. Needs no Spark."""

import pathlib

import pytest

import approxset

GOLDEN = pathlib.Path(__file__).resolve().parents[3] / "tests" / "golden" / "spark"
NAMES = sorted(p.stem for p in GOLDEN.glob("*.bin"))


def probes(name):
    for line in (GOLDEN / f"{name}.txt").read_text().splitlines():
        kind, key, answer = line.split(" ")
        if kind == "L":
            key = int(key)
        elif kind == "S":
            key = bytes.fromhex(key).decode()
        else:
            key = bytes.fromhex(key)
        yield key, answer == "1"


@pytest.mark.parametrize("name", NAMES)
def test_golden_answers(name):
    data = (GOLDEN / f"{name}.bin").read_bytes()
    f = approxset.from_spark(data)
    assert f.to_spark() == data and bytes(f) == data
    assert f.version == (1 if name.startswith("v1") else 2)
    keys, want = zip(*probes(name))
    assert f.contains_many(keys) == list(want)
    assert [k in f for k in keys] == list(want)


def test_every_golden_file_is_there():
    assert len(NAMES) == 8, NAMES
