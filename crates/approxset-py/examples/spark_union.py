"""One filter built across a Spark job: each partition of an RDD builds a
filter with approxset (same variant, size and seed) in ``mapPartitions``;
the partial filters travel back pickled (as their bytes) and are merged by
union in ``treeReduce``. The result is byte for byte the filter one process
builds from the same keys.

    pip install ./crates/approxset-py pyspark      # and a Java 17 runtime
    python crates/approxset-py/examples/spark_union.py

Only the variants whose filters union merge this way (``approxset.variants()``
says which: classic, partitioned, blocked, split-block), and Spark's own
format (``Filter("spark", …)``, which Spark's ``BloomFilter.readFrom``
reads); for the counting, cuckoo, scalable, sliding and fuse filters
``distributed_filter`` raises ``approxset.UnsupportedError`` before any
task runs.
"""

import os
import sys
import time

import approxset

KEYS = 10**6
PARTITIONS = 8
FP = 0.01
SEED = 42  # every partition's filter gets the same hash key


def user_key(i):
    """The i-th key: ``user-<i>``."""
    return f"user-{i}"


def keys(n=KEYS):
    """Every key, in one process (the single-process build)."""
    return [user_key(i) for i in range(n)]


def key_rdd(sc, n=KEYS, partitions=PARTITIONS):
    """The keys as an RDD, made on the executors (not shipped from here)."""
    return sc.range(n, numSlices=partitions).map(user_key)


def new_filter(variant, capacity, fp=FP, seed=SEED):
    """An empty filter of ``variant`` (``"spark"``: Spark's format)."""
    if variant == "spark":
        return approxset.Filter("spark", capacity=capacity, fp=fp)
    return approxset.Filter(variant, capacity, fp, seed=seed)


def mergeable(variant):
    """Whether filters of ``variant`` built apart merge by union."""
    if variant == "spark":
        return True
    return {v["name"]: v["mergeable"] for v in approxset.variants()}[variant]


def distributed_filter(rdd, variant, capacity, fp=FP, seed=SEED, depth=2):
    """The filter of every key of ``rdd``: one per partition
    (``mapPartitions``), merged by union (``treeReduce``)."""
    if not mergeable(variant):
        raise approxset.UnsupportedError(
            f"the {variant} filter does not merge by union: build it in one process, "
            "or choose classic, partitioned, blocked, split-block or spark"
        )

    def per_partition(part):
        f = new_filter(variant, capacity, fp, seed)
        f.update(part)
        yield f

    def merge(a, b):
        merged = a.copy()
        merged |= b
        return merged

    return rdd.mapPartitions(per_partition).treeReduce(merge, depth=depth)


def main():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    all_keys = keys()
    rdd = key_rdd(spark.sparkContext)
    for variant in ("blocked", "classic", "spark"):
        start = time.perf_counter()
        merged = distributed_filter(rdd, variant, KEYS)
        took = time.perf_counter() - start
        single = new_filter(variant, KEYS)
        single.update(all_keys)
        same = bytes(merged) == bytes(single)
        missing = KEYS - sum(merged.contains_many(all_keys))
        print(
            f"{variant}: {KEYS} keys in {PARTITIONS} partitions, merged in {took:.2f} s; "
            f"byte-for-byte the single-process filter: {same}; keys not found: {missing}"
        )
        assert same and missing == 0
    try:
        distributed_filter(rdd, "counting", KEYS)
    except approxset.UnsupportedError as e:
        print(f"counting: {e}")
    spark.stop()


if __name__ == "__main__":
    main()
