"""A filter built across a Dask LocalCluster (2 worker processes): 10**6
keys in 8 partitions, merged by union, byte for byte the single-process
filter (examples/dask_union.py)."""

import importlib.util
import pathlib

import pytest

import approxset

dask = pytest.importorskip("dask")
db = pytest.importorskip("dask.bag")
distributed = pytest.importorskip("dask.distributed")

INFO = approxset.variants()
MERGEABLE = [v["name"] for v in INFO if v["mergeable"]]
NOT_MERGEABLE = [v["name"] for v in INFO if not v["mergeable"] and not v["static"]]

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "dask_union.py"
spec = importlib.util.spec_from_file_location("dask_union", EXAMPLE)
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def keys():
    return example.keys(10**6)


@pytest.fixture(scope="module")
def bag(client, keys):
    return example.key_bag(len(keys), npartitions=8)


@pytest.mark.parametrize("variant", MERGEABLE)
def test_the_merged_filter_is_the_single_process_filter(bag, keys, variant):
    assert set(MERGEABLE) >= {"classic", "partitioned", "blocked", "split-block"}
    assert bag.npartitions == 8
    merged = example.distributed_filter(bag, variant, len(keys))
    single = approxset.Filter(variant, len(keys), example.FP, seed=example.SEED)
    single.add_many(keys)
    assert bytes(merged) == bytes(single)
    assert all(merged.contains_many(keys))
    assert len(merged) == len(keys)


@pytest.mark.parametrize("variant", NOT_MERGEABLE)
def test_variants_that_do_not_union_refuse_at_the_merge(client, variant):
    # The refusal needs no million keys.
    small = example.key_bag(10_000, npartitions=8)
    with pytest.raises(approxset.UnsupportedError, match="union"):
        example.distributed_filter(small, variant, 10_000)
