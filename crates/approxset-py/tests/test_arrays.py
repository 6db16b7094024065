"""Batches from NumPy and Arrow arrays: the same keys as the Python values
they hold, answered as a NumPy bool array."""

import pytest

import approxset

np = pytest.importorskip("numpy")


@pytest.fixture
def f():
    f = approxset.Filter("blocked", 10_000, 0.01, seed=4)
    f.update([1, 2, -3, 2**64 - 1, "a", "日本", b"raw"])
    return f


def test_integer_arrays_are_int_keys(f):
    for dtype in (np.int64, np.int32, np.int8, np.uint64, np.uint16):
        arr = np.array([1, 2, 99], dtype=dtype)
        out = f.contains_many(arr)
        assert out.dtype == np.bool_ and out.tolist() == [True, True, 99 in f]
    assert f.contains_many(np.array([-3, -1], dtype=np.int64)).tolist() == [True, True]
    assert f.contains_many(np.array([2**64 - 1], dtype=np.uint64)).tolist() == [True]
    # Not contiguous, not native order: the values count, not the layout.
    assert f.contains_many(np.array([1, 7, 2, 8], dtype=">i8")[::2]).tolist() == [True, True]
    g = approxset.Filter("blocked", 10_000, 0.01, seed=4)
    g.add_many(np.arange(1000, dtype=np.uint32))
    assert all(k in g for k in range(1000))
    assert g.contains_many(np.arange(1000)).all()


def test_string_arrays_are_str_and_bytes_keys(f):
    assert f.contains_many(np.array(["a", "日本", "zz"])).tolist()[:2] == [True, True]
    assert f.contains_many(np.array([b"raw", b"a"])).tolist() == [True, True]
    assert f.contains_many(np.array(["a", b"raw", 2], dtype=object)).tolist() == [True] * 3
    empty = f.contains_many(np.array([], dtype=np.int64))
    assert empty.dtype == np.bool_ and empty.size == 0
    out = f.contains_many(np.array(["a"]))
    out[0] = False  # a writable array of its own


def test_bad_arrays_are_clear_errors(f):
    with pytest.raises(ValueError, match="one-dimensional"):
        f.contains_many(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(TypeError, match="boolean"):
        f.add_many(np.array([True]))
    with pytest.raises(TypeError, match="dtype kind"):
        f.add_many(np.array([1.5]))
    with pytest.raises(TypeError, match="a key is str"):
        f.add_many(np.array([1.5], dtype=object))


def test_arrow_arrays():
    pa = pytest.importorskip("pyarrow")
    f = approxset.Filter("classic", 10_000, 0.01, seed=4)
    keys = [f"k{i}" for i in range(1000)]
    f.add_many(pa.array(keys))
    assert all(k in f for k in keys)
    for arr in (
        pa.array(keys),
        pa.array(keys, type=pa.large_string()),
        pa.array([k.encode() for k in keys], type=pa.binary()),
        pa.array(["x"] + keys)[1:],  # a slice: offsets from its start
        pa.chunked_array([keys[:500], keys[500:]]),
    ):
        out = f.contains_many(arr)
        assert out.dtype == np.bool_ and out.all() and len(out) == 1000
    others = [f"o{i}" for i in range(1000)]
    assert f.contains_many(pa.array(others)).tolist() == [k in f for k in others]
    with pytest.raises(ValueError, match="null"):
        f.contains_many(pa.array(["a", None]))
    with pytest.raises(TypeError, match="string or binary"):
        f.contains_many(pa.array([1.5]))
