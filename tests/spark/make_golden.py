"""Writes tests/golden/spark/: filters built by a real Spark (PySpark in
local mode) and Spark's own answers for members and non-members, which
tests/spark.rs compares key by key with approxset's SparkBloomFilter.

Run (PySpark 4.x and a JDK): python tests/spark/make_golden.py

Each NAME.bin is the bytes of Spark's BloomFilter.writeTo; NAME.txt has one
probe per line: `L <long> <0|1>` or `S <utf-8 hex> <0|1>` (the answer of
Spark's mightContainLong / mightContainString), `B <hex> <0|1>` for
mightContainBinary."""

import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "crates" / "approxset-py" / "tests"))

import spark_probe  # noqa: E402

OUT = ROOT / "tests" / "golden" / "spark"


def long_keys(rng, n, base):
    """Half random longs, half a run from ``base`` (members and
    non-members take different bases)."""
    return [rng.randrange(-(2**63), 2**63) for _ in range(n // 2)] + [
        base + i * 7919 for i in range(n - n // 2)
    ]


def string_keys(rng, n, tag):
    # Lengths 0..12 and multi-byte characters: every tail length of the
    # Murmur3 variant, negative tail bytes included.
    alphabet = "abcXYZ0é€ж𝄞"
    return [
        tag + "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 9))) + str(i)
        for i in range(n)
    ]


def write(name, data, lines):
    (OUT / f"{name}.bin").write_bytes(data)
    (OUT / f"{name}.txt").write_text("\n".join(lines) + "\n")
    print(name, len(data), "bytes,", len(lines), "probes")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = random.Random(35)
    spark, probe = spark_probe.start("approxset-golden", cores=1)
    print("spark", spark.version)

    # Version 2, as df.stat.bloomFilter writes it by default.
    members = long_keys(rng, 2000, -1_000_000)
    df = spark.createDataFrame([(k,) for k in members], "id long")
    data = spark_probe.stat_bloom_filter(df, "id", 2000, 0.03)
    probes = members + long_keys(rng, 2000, 1 << 40)
    answers = spark_probe.might_contain_longs(probe, data, probes)
    write("v2_longs", data, [f"L {k} {int(a)}" for k, a in zip(probes, answers)])

    members = string_keys(rng, 2000, "m")
    df = spark.createDataFrame([(k,) for k in members], "s string")
    data = spark_probe.stat_bloom_filter(df, "s", 2000, 0.03)
    probes = members + string_keys(rng, 2000, "n")
    answers = spark_probe.might_contain_strings(probe, data, probes)
    write("v2_strings", data, [f"S {k.encode().hex()} {int(a)}" for k, a in zip(probes, answers)])

    # Version 1 (what Spark 2.x and 3.x write; Spark 4 on request), and
    # version 2 with a nonzero seed, through BloomFilter.create.
    for name, version, seed in [("v1", 1, 0), ("v2_seeded", 2, -123456789)]:
        members = long_keys(rng, 1500, -1_000_000)
        data = bytes(probe.buildLongs(version, 1500, 12_000, seed, spark_probe.pack_longs(members)))
        probes = members + long_keys(rng, 1500, 1 << 40)
        answers = spark_probe.might_contain_longs(probe, data, probes)
        write(f"{name}_longs", data, [f"L {k} {int(a)}" for k, a in zip(probes, answers)])

        members = string_keys(rng, 1500, "m")
        data = bytes(probe.buildStrings(version, 1500, 12_000, seed, "\n".join(members)))
        probes = members + string_keys(rng, 1500, "n")
        answers = spark_probe.might_contain_strings(probe, data, probes)
        write(f"{name}_strings", data, [f"S {k.encode().hex()} {int(a)}" for k, a in zip(probes, answers)])

    # Binary keys: one key per filter (Spark has no bulk binary put here),
    # probed with itself and with a few others, tail bytes >= 0x80.
    lines = []
    for version in (1, 2):
        key = bytes([0x80, 0xFF, 0x01, 0x7F, 0xC3])
        data = bytes(probe.buildBinary(version, 1, 256, 0, key))
        (OUT / f"v{version}_binary.bin").write_bytes(data)
        lines = []
        for p in [key, key[:4], key + b"\x00", bytes(range(rng.randrange(1, 9)))]:
            lines.append(f"B {p.hex()} {int(probe.mightContainBinary(data, p))}")
        (OUT / f"v{version}_binary.txt").write_text("\n".join(lines) + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
