"""Batch calls: add_many's promise (every key before the failing one is in
the filter), foreign array-likes (an error, never an abort, a panic or a
wrong count), bounded memory, and integer-like keys."""

import json
import subprocess
import sys
import textwrap

import pytest

import approxset
from approxset import _approxset

np = pytest.importorskip("numpy")

CHUNK = _approxset._CHUNK_KEYS
BEFORE = (0, 1, CHUNK - 1, CHUNK, CHUNK + 1)


def keys_of(n):
    return [f"k{i}" for i in range(n)]


def assert_holds_exactly(f, keys):
    """``f`` took exactly ``keys``: each is in it, and it counts no more."""
    assert len(f) == len(keys)
    assert all(f.contains_many(keys))


def fresh():
    return approxset.Filter("classic", 4 * CHUNK, 0.01, seed=5)


@pytest.mark.parametrize("n", BEFORE)
def test_a_bad_key_keeps_every_key_before_it(n):
    good = keys_of(n)
    for container in (list, tuple, iter):
        f = fresh()
        with pytest.raises(TypeError, match="a key is"):
            f.add_many(container(good + [None, "after"]))
        assert_holds_exactly(f, good)


@pytest.mark.parametrize("n", BEFORE)
def test_an_iterator_that_raises_keeps_every_key_before_it(n):
    def keys():
        yield from keys_of(n)
        raise RuntimeError("the source failed")

    f = fresh()
    with pytest.raises(RuntimeError, match="the source failed"):
        f.add_many(keys())
    assert_holds_exactly(f, keys_of(n))


def test_a_short_list_with_a_bad_key():
    f = fresh()
    with pytest.raises(TypeError):
        f.add_many(["a", "b", None])
    assert_holds_exactly(f, ["a", "b"])


def test_long_keys_make_short_chunks_and_keep_the_promise():
    # 100 kB keys: a chunk holds about 42 of them (4 MiB), so the bad key at
    # 100 falls in the third chunk.
    good = [bytes([i + 1]) * 100_000 for i in range(100)]
    f = fresh()
    with pytest.raises(TypeError):
        f.add_many(good + [1.5])
    assert_holds_exactly(f, good)
    arr = np.array(good + [b"x"], dtype="S100000")
    g = fresh()
    g.add_many(arr)
    assert_holds_exactly(g, good + [b"x"])
    pa = pytest.importorskip("pyarrow")
    h = fresh()
    with pytest.raises(ValueError, match=r"null \(the key at index 100\)"):
        h.add_many(pa.array(good + [None, b"after"], type=pa.large_binary()))
    assert_holds_exactly(h, good)


@pytest.mark.parametrize("n", BEFORE)
def test_a_bad_code_point_in_a_str_array_keeps_every_key_before_it(n):
    good = keys_of(n)
    arr = np.array(good + ["x", "after"], dtype="U8")
    units = arr.view(np.uint32)
    units[n * 8] = 0x110000  # not a code point
    f = fresh()
    with pytest.raises(ValueError, match=rf"code point 0x110000.*index {n}\)"):
        f.add_many(arr)
    assert_holds_exactly(f, good)
    with pytest.raises(ValueError, match="code point"):
        f.contains_many(arr)


@pytest.mark.parametrize("n", BEFORE)
def test_a_null_in_an_arrow_array_keeps_every_key_before_it(n):
    pa = pytest.importorskip("pyarrow")
    good = keys_of(n)
    f = fresh()
    with pytest.raises(ValueError, match=rf"null \(the key at index {n}\)"):
        f.add_many(pa.array(good + [None, "after"]))
    assert_holds_exactly(f, good)
    g = fresh()
    chunked = pa.chunked_array(
        [good[: n // 2], good[n // 2 :] + [None, "after"]], type=pa.string()
    )
    with pytest.raises(ValueError, match=rf"index {n}\)"):
        g.add_many(chunked)
    assert_holds_exactly(g, good)


def test_a_full_cuckoo_filter_keeps_every_key_before_the_failing_one():
    one = approxset.Filter("cuckoo", 3 * CHUNK, 0.01, seed=3)
    keys = list(range(10 * CHUNK))
    added = 0
    with pytest.raises(approxset.FullError):
        for k in keys:
            one.add(k)
            added += 1
    for container in (list, iter, lambda ks: np.array(ks, dtype=np.int64)):
        batch = approxset.Filter("cuckoo", 3 * CHUNK, 0.01, seed=3)
        with pytest.raises(approxset.FullError):
            batch.add_many(container(keys))
        assert len(batch) == added, "the failing key is not added"
        assert bytes(batch) == bytes(one), "the keys before it are, as one at a time"


def test_add_many_on_the_static_filter_reads_nothing():
    f = approxset.Filter.from_keys("fuse", ["a"], seed=1)
    read = []

    def keys():
        read.append(1)
        yield "b"

    with pytest.raises(approxset.UnsupportedError, match="static"):
        f.add_many(keys())
    with pytest.raises(approxset.UnsupportedError):
        f.add_many([])
    assert read == []


def test_batches_agree_with_one_at_a_time_across_chunks():
    n = 2 * CHUNK + 7
    ints = np.arange(-CHUNK, n - CHUNK, dtype=np.int64)
    for arr in (ints, ints.astype(">i4"), ints.astype(np.int16), ints[::-3]):
        f = fresh()
        f.add_many(arr)
        g = fresh()
        for k in arr.tolist():
            g.add(k)
        assert bytes(f) == bytes(g)
        assert len(f.contains_many(arr)) == len(arr)
    strs = np.array(keys_of(n) + ["日本", ""])
    f = fresh()
    f.add_many(strs)
    g = fresh()
    g.add_many(strs.tolist())
    assert bytes(f) == bytes(g)
    other = np.array([f"o{i}" for i in range(n)])
    assert f.contains_many(other).tolist() == [k in f for k in other.tolist()]


def test_from_keys_is_the_filter_of_its_keys_whatever_the_input():
    keys = keys_of(CHUNK + 3)
    for variant in ("classic", "cuckoo", "scalable", "fuse"):
        want = bytes(approxset.Filter.from_keys(variant, keys, seed=9))
        for source in (tuple(keys), iter(keys), np.array(keys), np.array(keys, dtype=object)):
            assert bytes(approxset.Filter.from_keys(variant, source, seed=9)) == want
    with pytest.raises(TypeError):
        approxset.Filter.from_keys("fuse", keys + [None], seed=9)
    with pytest.raises(approxset.ParameterError, match="fp"):
        approxset.Filter.from_keys("fuse", iter(()), fp=2.0)


# Each case runs in a child process, so that an abort (what a trusted
# __len__ of 2**40 once caused) fails the test instead of killing the run.
FOREIGN = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import approxset

    class Dtype:
        def __init__(self, kind, itemsize=8):
            self.kind, self.itemsize = kind, itemsize

    class NoBuffer:
        ndim = 1
        def __init__(self, kind, n, data):
            self.dtype, self.n, self.data = Dtype(kind), n, data
        def __len__(self):
            return self.n
        def tobytes(self):
            return self.data
        def __iter__(self):
            return iter(())

    class Lying(bytearray):
        # A real buffer of bytes, with a length and tobytes that lie.
        ndim = 1
        def __init__(self, data, kind, n, told):
            super().__init__(data)
            self.dtype, self.n, self.told = Dtype(kind, 1), n, told
        def __len__(self):
            return self.n
        def tobytes(self):
            return self.told

    class ArrowLike:
        null_count = 0
        def __init__(self, n, offsets, data, offset=0):
            self.type, self.n, self.bufs, self.offset = "string", n, [None, offsets, data], offset
        def __len__(self):
            return self.n
        def buffers(self):
            return self.bufs

    def outcome(call):
        try:
            out = call()
        except BaseException as e:
            return [type(e).__name__, str(e)]
        return ["ok", len(out) if out is not None else None]

    offsets = np.array([0, 1, 3], dtype=np.int32).tobytes()
    cases = {}
    for n in (2**40, 2**61, 3):
        for kind in ("i", "u", "S", "U"):
            for told in (b"", b"x" * 64):
                cases[f"nobuffer {n} {kind} {len(told)}"] = NoBuffer(kind, n, told)
        for told in (b"", b"x" * 64):
            cases[f"lying u {n} {len(told)}"] = Lying(b"abc", "u", n, told)
            cases[f"lying i {n} {len(told)}"] = Lying(b"abc", "i", n, told)
            cases[f"lying U {n} {len(told)}"] = Lying(b"abcd", "U", n, told)
        cases[f"arrow {n}"] = ArrowLike(n, offsets, b"abc")
    cases["arrow past data"] = ArrowLike(2, offsets, b"ab")
    cases["arrow offset"] = ArrowLike(2, offsets, b"abc", offset=1)
    cases["arrow backwards"] = ArrowLike(2, np.array([0, 3, 1], dtype=np.int32).tobytes(), b"abc")
    result = {}
    for name, obj in cases.items():
        f = approxset.Filter("classic", 100, seed=1)
        result[name] = {
            "contains_many": outcome(lambda: f.contains_many(obj)),
            "add_many": outcome(lambda: f.add_many(obj)),
            "from_keys": outcome(lambda: approxset.Filter.from_keys("classic", obj)),
            "from_keys fuse": outcome(lambda: approxset.Filter.from_keys("fuse", obj)),
        }
    json.dump(result, sys.stdout)
    """
)


def test_foreign_array_likes_are_errors_or_read_from_their_buffer():
    done = subprocess.run(
        [sys.executable, "-c", FOREIGN], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    for name, calls in result.items():
        for call, (kind, detail) in calls.items():
            where = f"{name}: {call} gave {kind} {detail}"
            assert kind != "PanicException", where
            if name.startswith("nobuffer"):
                assert kind == "TypeError" and "buffer protocol" in detail, where
            elif name.startswith(("lying i", "lying U")):
                assert kind == "TypeError" and "dtype kind" in detail, where
            elif name.startswith("lying u"):
                # Three uint8 keys, read from the buffer: its length, not
                # __len__ or tobytes, counts.
                assert kind == "ok", where
                if call == "contains_many":
                    assert detail == 3, where
            elif name in ("arrow past data", "arrow backwards"):
                assert kind == "ValueError" and "offsets do not fit" in detail, where
            else:
                # A length or offset past the offsets buffer.
                assert name.startswith("arrow "), name
                assert kind == "ValueError" and "buffers are shorter" in detail, where


# Peak memory of one batch call on 10**7 int64 keys (76 MiB), in a fresh
# process: Python allocations by tracemalloc, everything else by the peak
# resident size (VmHWM) against the resident size before the call.
MEMORY = textwrap.dedent(
    """
    import json, sys, tracemalloc
    import numpy as np
    import approxset

    def status(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024

    call = sys.argv[1]
    keys = np.arange(10**7, dtype=np.int64)
    f = approxset.Filter("classic", 1000, 0.01, seed=1)
    f.add_many(keys[:10])
    before = status("VmRSS")
    tracemalloc.start()
    if call == "contains_many":
        out = f.contains_many(keys)
        assert out.dtype == np.bool_ and len(out) == len(keys) and out[:10].all()
    elif call == "add_many":
        f.add_many(keys)
        assert len(f) == len(keys) + 10
    else:
        f = approxset.Filter.from_keys(call, keys, seed=1)
        assert 123456 in f
    python = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    json.dump(
        {"rss": status("VmHWM") - before, "python": python, "filter": f.info()["memory_bytes"]},
        sys.stdout,
    )
    """
)

MIB = 1 << 20


def peak(call):
    done = subprocess.run(
        [sys.executable, "-c", MEMORY, call], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_batches_of_ten_million_keys_take_bounded_memory():
    # The answers take one byte a key (10 MB), written in place.
    got = peak("contains_many")
    assert got["python"] < 10**7 + 4 * MIB, got
    assert got["rss"] < 10**7 + 16 * MIB, got
    got = peak("add_many")
    assert got["python"] < 4 * MIB, got
    assert got["rss"] < 16 * MIB, got
    # A filter built from the keys: the filter itself, and a chunk.
    got = peak("classic")
    assert got["python"] < 4 * MIB, got
    assert got["rss"] < got["filter"] + 16 * MIB, got


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_static_filter_keeps_sixteen_bytes_a_key_until_built():
    # The fuse construction needs every key's digest at once (16 bytes a
    # key), and the library's construction takes about 21 bytes a key more
    # (measured: 369 MB in all for 10**7 keys).
    got = peak("fuse")
    assert got["python"] < 4 * MIB, got
    assert got["rss"] < (16 + 24) * 10**7 + 32 * MIB, got


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: approxset.Filter("classic", -5), "capacity"),
        (lambda: approxset.Filter("classic", 10**20), "capacity"),
        (lambda: approxset.Filter("classic", 100, 10**400), "fp"),
        (lambda: approxset.Filter("classic", 100, seed=-1), "seed"),
        (lambda: approxset.Filter("classic", 100, seed=2**64), "seed"),
        (lambda: approxset.Filter("classic", 100, max_bytes=-1), "max_bytes"),
        (lambda: approxset.Filter.from_keys("fuse", ["a"], seed=-1), "seed"),
        (lambda: approxset.Filter.from_keys("fuse", ["a"], max_bytes=2**70), "max_bytes"),
        (lambda: approxset.Filter.from_keys("fuse", ["a"], fp=-(10**400)), "fp"),
        (lambda: approxset.design(-1, 0.01), "n"),
        (lambda: approxset.design(10**20, 0.01), "n"),
        (lambda: approxset.compare(n=-1), "n"),
        (lambda: approxset.compare(100, queries=-1), "queries"),
        (lambda: approxset.compare(100, seed=-1), "seed"),
        (lambda: approxset.load("nonesuch", max_bytes=-1), "max_bytes"),
    ],
)
def test_sizes_out_of_range_are_parameter_errors_naming_the_argument(call, name):
    with pytest.raises(approxset.ParameterError, match=rf"^{name} must be"):
        call()


def test_sizes_of_another_type_are_type_errors():
    with pytest.raises(TypeError, match="capacity must be an int"):
        approxset.Filter("classic", "10")
    with pytest.raises(TypeError, match="fp must be a float"):
        approxset.Filter("classic", 10, "0.1")
    f = approxset.Filter("classic", np.int64(10), np.float32(0.5), seed=np.uint64(3))
    assert f.capacity == 10


def test_numpy_scalars_are_the_keys_of_their_values():
    arr = np.array([5, -2, 2**62], dtype=np.int64)
    same = [
        (np.int64(5), 5, arr[0]),
        (np.int8(-2), -2, arr[1]),
        (np.uint64(2**64 - 1), -1, np.uint64(2**64 - 1)),
        (np.bytes_(b"ab"), b"ab", np.array([b"ab"])[0]),
        (np.str_("é"), "é", np.array(["é"])[0]),
    ]
    for keys in same:
        filters = []
        for k in keys:
            f = approxset.Filter("classic", 100, seed=8)
            f.add(k)
            assert all(other in f for other in keys)
            filters.append(bytes(f))
        assert len(set(filters)) == 1, keys
    f = approxset.Filter("classic", 100, seed=8)
    f.add_many(arr)
    g = approxset.Filter("classic", 100, seed=8)
    for k in arr:
        g.add(k)
    assert bytes(f) == bytes(g)
    with pytest.raises(TypeError, match="a key is"):
        f.add(np.float64(1.0))
    with pytest.raises(TypeError, match="a key is"):
        f.add(np.True_)
