"""One filter built across a Dask cluster: each partition of a bag builds a
filter with the same variant, size and seed; the partial filters travel
back pickled (as their bytes) and are merged by union. The result is byte
for byte the filter one process builds from the same keys.

    pip install ./crates/approxset-py "dask[distributed]"
    python crates/approxset-py/examples/dask_union.py

Only the variants whose filters union merge this way (``approxset.variants()``
says which: classic, partitioned, blocked, split-block); the counting,
cuckoo, scalable and fuse filters raise ``approxset.UnsupportedError`` at
the merge.
"""

import time

import dask.bag as db
from dask.distributed import Client, LocalCluster

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


def key_bag(n=KEYS, npartitions=PARTITIONS):
    """The keys as a Dask bag, made on the workers (not shipped from here)."""
    return db.range(n, npartitions=npartitions).map(user_key)


def distributed_filter(bag, variant, capacity, fp=FP, seed=SEED):
    """The filter of every key of ``bag``, built one partition per task and
    merged by union (a tree reduction)."""

    def per_partition(part):
        f = approxset.Filter(variant, capacity, fp, seed=seed)
        f.add_many(list(part))
        return f

    def merge(filters):
        filters = list(filters)
        merged = filters[0].copy()
        for f in filters[1:]:
            merged |= f
        return merged

    return bag.reduction(per_partition, merge, split_every=4).compute()


def main():
    all_keys = keys()
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1) as cluster, Client(
        cluster
    ):
        bag = key_bag()
        for variant in ("blocked", "classic"):
            start = time.perf_counter()
            merged = distributed_filter(bag, variant, KEYS)
            took = time.perf_counter() - start
            single = approxset.Filter(variant, KEYS, FP, seed=SEED)
            single.add_many(all_keys)
            same = bytes(merged) == bytes(single)
            missing = KEYS - sum(merged.contains_many(all_keys))
            print(
                f"{variant}: {KEYS} keys in {PARTITIONS} partitions, merged in {took:.2f} s; "
                f"byte-for-byte the single-process filter: {same}; keys not found: {missing}"
            )
            assert same and missing == 0
        try:
            distributed_filter(bag, "counting", KEYS)
        except approxset.UnsupportedError as e:
            print(f"counting: {e}")


if __name__ == "__main__":
    main()
