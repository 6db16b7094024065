"""Apache Spark's BloomFilter both ways, against a live local Spark (one
session for the module): filters Spark builds (``df.stat.bloomFilter``,
version 2; ``BloomFilter.create(Version.V1, …)``) read by
``approxset.from_spark`` answer as Spark's ``mightContain``, and filters
built here (``approxset.Filter("spark", …)``) are read by Spark's
``BloomFilter.readFrom`` and answer as they do here, key by key over 10**5
members and 10**5 non-members, longs and strings.

Spark's answers come in bulk from a small Java helper (spark_probe.py)."""

import importlib.util
import pathlib
import pickle

import pytest

import approxset

spark_probe = pytest.importorskip("spark_probe")
why = spark_probe.available()
if why:
    pytest.skip(why, allow_module_level=True)

N = 100_000


def long_members(n=N):
    return [i * 2_654_435_761 - 5_000_000_000 for i in range(n)]


def long_others(n=N):
    return [i * 2_654_435_761 - 5_000_000_000 + 1 for i in range(n)]


def string_members(n=N):
    # Every tail length (the keys' UTF-8 lengths vary), non-ASCII bytes.
    return [f"k-{i}-ж" for i in range(n)]


def string_others(n=N):
    return [f"x-{i}-€" for i in range(n)]


# The same keys, made by Spark.
LONG_SQL = "id * 2654435761 - 5000000000 AS v"
STRING_SQL = "concat('k-', id, '-ж') AS s"


@pytest.fixture(scope="module")
def spark():
    session, probe = spark_probe.start("approxset-test-spark", cores=2)
    yield session, probe
    session.stop()


def spark_built(session, sql, column, fpp):
    df = session.range(N).selectExpr(sql)
    return spark_probe.stat_bloom_filter(df, column, N, fpp)


@pytest.mark.parametrize("fpp", [0.03, 0.001])
def test_spark_longs_read_here(spark, fpp):
    session, probe = spark
    data = spark_built(session, LONG_SQL, "v", fpp)
    assert data[:4] == b"\x00\x00\x00\x02"
    f = approxset.from_spark(data)
    assert f.version == 2 and f.to_spark() == data
    keys = long_members() + long_others()
    theirs = spark_probe.might_contain_longs(probe, data, keys)
    ours = f.contains_many(keys)
    assert ours == theirs
    assert all(ours[:N])
    # Not a filter that says yes to everything: about fpp of the others.
    assert sum(ours[N:]) < 2 * fpp * N + 100


def test_spark_strings_read_here(spark):
    session, probe = spark
    data = spark_built(session, STRING_SQL, "s", 0.01)
    f = approxset.from_spark(data)
    keys = string_members() + string_others()
    theirs = spark_probe.might_contain_strings(probe, data, keys)
    ours = f.contains_many(keys)
    assert ours == theirs
    assert all(ours[:N]) and sum(ours[N:]) < 0.02 * N
    # Strings as their UTF-8 bytes: the same answers.
    assert f.contains_many(k.encode() for k in keys[:1000]) == ours[:1000]


def test_built_here_read_by_spark(spark):
    session, probe = spark
    for members, others, check in [
        (long_members(), long_others(), spark_probe.might_contain_longs),
        (string_members(), string_others(), spark_probe.might_contain_strings),
    ]:
        f = approxset.Filter("spark", capacity=N, fp=0.01)
        assert isinstance(f, approxset.SparkFilter)
        f.update(members)
        data = f.to_spark()
        keys = members + others
        theirs = check(probe, data, keys)
        assert all(theirs[:N])
        assert theirs == f.contains_many(keys)


def test_built_here_is_byte_identical_to_spark(spark):
    session, probe = spark
    for sql, column, members in [
        (LONG_SQL, "v", long_members()),
        (STRING_SQL, "s", string_members()),
    ]:
        data = spark_built(session, sql, column, 0.02)
        f = approxset.Filter("spark", capacity=N, fp=0.02)
        f.update(members)
        assert f.to_spark() == data


def test_version_1_both_ways(spark):
    session, probe = spark
    members, others = long_members(20_000), long_others(20_000)
    data = bytes(probe.buildLongs(1, 20_000, 200_000, 0, spark_probe.pack_longs(members)))
    f = approxset.from_spark(data)
    assert f.version == 1
    assert f.contains_many(members + others) == spark_probe.might_contain_longs(
        probe, data, members + others
    )
    mine = approxset.SparkFilter(20_000, 0.01, version=1)
    mine.update(members)
    theirs = spark_probe.might_contain_longs(probe, mine.to_spark(), members + others)
    assert theirs == mine.contains_many(members + others)
    assert all(theirs[:20_000])


def test_keys_and_errors():
    f = approxset.Filter("spark", capacity=100, fp=0.01)
    f.add(7)
    f.add(b"\x80\xff")
    f.add("ключ")
    assert 7 in f and b"\x80\xff" in f and "ключ" in f and "ключ".encode() in f
    assert pickle.loads(pickle.dumps(f)) == f
    assert (f | f.copy()) == f
    with pytest.raises(TypeError):
        f.add(True)
    with pytest.raises(TypeError):
        _ = 1.5 in f
    with pytest.raises(OverflowError):
        f.add(2**63)
    with pytest.raises(approxset.ParameterError):
        approxset.Filter("spark", capacity=0)
    with pytest.raises(approxset.ParameterError):
        approxset.SparkFilter(10, 0.01, version=3)
    data = f.to_spark()
    for bad in [b"", data[:-1], data + b"\x00", b"\x00\x00\x00\x03" + data[4:]]:
        with pytest.raises(approxset.CorruptFilterError):
            approxset.from_spark(bad)
    forged = bytearray(data)
    forged[12:16] = (2**31 - 1).to_bytes(4, "big")
    with pytest.raises(approxset.CorruptFilterError):
        approxset.from_spark(bytes(forged))
    other = approxset.Filter("spark", capacity=1000, fp=0.01)
    with pytest.raises(approxset.ParameterError):
        f.union_update(other)
    # The extension's filters are untouched by the "spark" dispatch.
    g = approxset.Filter("classic", 100, 0.01, seed=1)
    assert isinstance(g, approxset.Filter) and not isinstance(f, approxset.Filter)


# The PySpark build (examples/spark_union.py): partitions build filters in
# mapPartitions, merged by union in treeReduce, byte for byte the
# single-process filter.

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "spark_union.py"
_spec = importlib.util.spec_from_file_location("spark_union", EXAMPLE)
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

INFO = approxset.variants()
MERGEABLE = [v["name"] for v in INFO if v["mergeable"]] + ["spark"]
NOT_MERGEABLE = [v["name"] for v in INFO if not v["mergeable"]]
UNION_KEYS = 200_000


@pytest.fixture(scope="module")
def union_keys():
    return example.keys(UNION_KEYS)


@pytest.mark.parametrize("variant", MERGEABLE)
def test_spark_union_is_the_single_process_filter(spark, union_keys, variant):
    session, _ = spark
    assert set(MERGEABLE) >= {"classic", "partitioned", "blocked", "split-block", "spark"}
    rdd = example.key_rdd(session.sparkContext, UNION_KEYS, partitions=8)
    merged = example.distributed_filter(rdd, variant, UNION_KEYS)
    single = example.new_filter(variant, UNION_KEYS)
    single.update(union_keys)
    assert bytes(merged) == bytes(single)
    assert all(merged.contains_many(union_keys))


@pytest.mark.parametrize("variant", NOT_MERGEABLE)
def test_spark_union_refuses_the_others(spark, variant):
    session, _ = spark
    rdd = example.key_rdd(session.sparkContext, 1000, partitions=4)
    with pytest.raises(approxset.UnsupportedError, match="does not merge by union"):
        example.distributed_filter(rdd, variant, 1000)
