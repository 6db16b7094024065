"""The Python API: keys, errors, variants, combining, saving, batches."""

import pickle
import threading

import pytest

import approxset
from conftest import binomial_upper, build, variant_info

VARIANTS = list(approxset.VARIANTS)
INFO = variant_info()
INSERTABLE = [v for v in VARIANTS if not INFO[v]["static"]]
DELETABLE = [v for v in VARIANTS if INFO[v]["deletable"]]
MERGEABLE = [v for v in VARIANTS if INFO[v]["mergeable"]]


def test_the_variant_list_is_the_libraries():
    assert VARIANTS[:8] == [
        "classic",
        "partitioned",
        "counting",
        "cuckoo",
        "scalable",
        "blocked",
        "split-block",
        "fuse",
    ]
    assert DELETABLE == ["counting", "cuckoo", "quotient"]
    assert MERGEABLE == ["classic", "partitioned", "blocked", "split-block", "quotient"]
    assert [v for v in VARIANTS if INFO[v]["static"]] == ["fuse", "ribbon"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", [0, 1, 10, 1000])
def test_every_key_added_is_found(variant, n):
    keys = [f"k{i}" for i in range(n)] + [i * 7919 for i in range(n)]
    f = build(variant, keys)
    assert all(k in f for k in keys)
    assert f.contains_many(keys) == [True] * len(keys)
    assert f.variant == variant
    if not INFO[variant]["static"]:
        assert len(f) == len(keys)


def test_one_key_one_encoding():
    f = approxset.Filter("classic", 100, seed=3)
    f.add("é")
    # str is its UTF-8; bytes, bytearray and memoryview are their bytes.
    for same in ("é", "é".encode(), bytearray("é".encode()), memoryview("é".encode())):
        assert same in f
    f.add(258)
    assert (258).to_bytes(8, "little") in f
    f.add(-2)
    assert (-2).to_bytes(8, "little", signed=True) in f
    # The u64 and i64 encodings agree, so -1 and 2**64 - 1 are one key.
    f.add(2**64 - 1)
    assert -1 in f
    f.add(True)
    assert 1 in f, "a bool is the int it equals"


@pytest.mark.parametrize("hash_name", ["siphash64", "siphash", "xxh3"])
def test_an_int_is_the_key_of_its_8_bytes_on_every_path(hash_name):
    # An exact int takes a path of its own in add and in (keys.rs,
    # digest_of); it must hash the bytes every other path hashes.
    ints = [0, 1, 258, -2, -(2**63), 2**63 - 1, 2**63, 2**64 - 2, 12345678901234]
    as_bytes = [k.to_bytes(8, "little", signed=k < 0) for k in ints]
    by_int, by_bytes, by_batch = (
        approxset.Filter("classic", 100, seed=5, hash=hash_name) for _ in range(3)
    )
    for k, b in zip(ints, as_bytes):
        by_int.add(k)
        by_bytes.add(b)
    by_batch.add_many(ints)
    assert by_int == by_bytes, "add(int) sets the bits of add(its 8 bytes)"
    assert by_int == by_batch, "add(int) sets the bits of add_many([int])"
    assert all(k in by_bytes for k in ints)
    assert all(b in by_int for b in as_bytes)
    # -2 and 2**64 - 2, -2**63 and 2**63 are one key each: counted twice.
    c = approxset.Filter("counting", 100, seed=5, hash=hash_name)
    for k in ints:
        c.add(k)
    assert [c.count(b) for b in as_bytes] == [as_bytes.count(b) for b in as_bytes]


def test_bad_keys_are_clear_errors():
    f = approxset.Filter("classic", 100, seed=3)
    for key in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(OverflowError, match="64-bit"):
            f.add(key)
        with pytest.raises(OverflowError):
            key in f  # noqa: B015
    f.add(2**64 - 1)
    f.add(-(2**63))
    for key in (1.5, None, object(), ("a",)):
        with pytest.raises(TypeError, match="a key is str"):
            f.add(key)
    with pytest.raises(UnicodeEncodeError):
        f.add("\ud800")
    with pytest.raises(TypeError, match="iterable of keys"):
        f.update("abc")
    assert len(f) == 2, "the failed adds added nothing"


@pytest.mark.parametrize(
    "args, match",
    [
        (("classic", 0, 0.01), "invalid capacity"),
        (("classic", 100, 0.0), "fp"),
        (("classic", 100, 1.0), "fp"),
        (("classic", 100, float("nan")), "fp"),
        (("nonesuch", 100, 0.01), "unknown variant"),
        (("classic", 10**18, 0.01), "."),
    ],
)
def test_bad_parameters_are_parameter_errors(args, match):
    with pytest.raises(approxset.ParameterError, match=match) as e:
        approxset.Filter(*args)
    assert isinstance(e.value, ValueError)
    assert isinstance(e.value, approxset.Error)


def test_options_are_checked():
    with pytest.raises(approxset.ParameterError, match="16 bytes"):
        approxset.Filter("classic", 10, key=b"short")
    with pytest.raises(approxset.ParameterError, match="seed or key"):
        approxset.Filter("classic", 10, seed=1, key=bytes(16))
    with pytest.raises(approxset.ParameterError, match="hash function"):
        approxset.Filter("classic", 10, hash="md5")
    with pytest.raises(approxset.ParameterError):
        approxset.Filter("classic", 10**6, max_bytes=100)
    f = approxset.Filter("classic", 10, key=bytes(range(16)), hash="xxh3")
    assert f.key == bytes(range(16)) and f.hash == "xxh3"
    g = approxset.Filter("classic", 10, seed=9)
    assert approxset.Filter("classic", 10, key=g.key).key == g.key


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: approxset.Filter("classic", 10, sed=1), r"unexpected keyword argument 'sed'"),
        (lambda: approxset.Filter("classic", 10, fp_rate=0.1), r"unexpected keyword argument 'fp_rate'"),
        (
            lambda: approxset.Filter.from_keys("fuse", ["a"], capacity=3),
            r"from_keys\(\) got an unexpected keyword argument 'capacity'",
        ),
        (lambda: approxset.Filter("classic", 10, 0.01, 5), "positional"),
        (lambda: approxset.Filter("classic", 10, key="0123456789abcdef"), "^key must be bytes, not str"),
        (lambda: approxset.Filter.from_keys("blocked", ["a"], hash=3), "^hash must be a str, not int"),
    ],
)
def test_unknown_or_mistyped_options_are_type_errors_naming_them(call, match):
    with pytest.raises(TypeError, match=match) as e:
        call()
    assert not isinstance(e.value, approxset.Error)


def test_options_given_as_none_are_the_defaults():
    f = approxset.Filter("classic", 10, None, seed=None, key=None, hash=None, max_bytes=None)
    assert f.fp == 0.01 and f.hash == "siphash64"
    g = approxset.Filter.from_keys("fuse", ["a"], seed=4, key=None, hash=None, max_bytes=None)
    assert g == approxset.Filter.from_keys("fuse", ["a"], seed=4)


def test_the_static_variant_takes_no_adds():
    f = approxset.Filter.from_keys("fuse", ["a", "b"], 0.01, seed=1)
    assert "a" in f and "b" in f
    with pytest.raises(approxset.UnsupportedError, match="static"):
        f.add("c")
    with pytest.raises(approxset.UnsupportedError):
        f.update(["c"])
    with pytest.raises(approxset.UnsupportedError):
        approxset.Filter("fuse", 10)
    assert isinstance(approxset.UnsupportedError("x"), TypeError)
    assert "c" not in f or True  # a false positive is allowed, no error is


def test_a_ribbon_filter_is_sized_for_the_rate_itself():
    keys = [f"key-{i}" for i in range(20_000)]
    f = approxset.Filter.from_keys("ribbon", keys + keys[:100], fp=0.003, seed=1)
    assert f.variant == "ribbon"
    assert len(f) == 20_000
    assert f.contains_many(keys) == [True] * len(keys)
    # Near log2(1/0.003) = 8.38 bits per key, not the 16 of a power of two.
    assert f.info()["memory_bytes"] * 8 / len(keys) < 9.2
    # 200,000 fresh keys at 0.3 %: 600 expected, sd 24.
    hits = sum(f.contains_many([f"other-{i}" for i in range(200_000)]))
    assert 450 < hits < 750
    with pytest.raises(approxset.UnsupportedError, match="static"):
        f.add("c")
    with pytest.raises(approxset.UnsupportedError):
        approxset.Filter("ribbon", 10)


@pytest.mark.parametrize("variant", DELETABLE)
def test_remove_and_discard(variant):
    f = approxset.Filter(variant, 100, seed=1)
    f.add("a")
    f.add("a")
    f.remove("a")
    assert "a" in f, "one copy left"
    assert f.discard("a") is True
    assert "a" not in f
    with pytest.raises(KeyError):
        f.remove("a")
    assert f.discard("a") is False
    assert len(f) == 0


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v not in DELETABLE])
def test_remove_on_others_is_unsupported(variant):
    f = build(variant, ["a"])
    for op in (f.remove, f.discard):
        with pytest.raises(
            approxset.UnsupportedError, match=r"cannot remove keys: Filter\.\w+ is for the counting"
        ):
            op("a")
    assert "a" in f


@pytest.mark.parametrize("variant", [v for v in MERGEABLE if v != "quotient"])
def test_union_is_the_filter_of_all_keys(variant):
    a = approxset.Filter(variant, 1000, seed=5)
    b = approxset.Filter(variant, 1000, seed=5)
    both = approxset.Filter(variant, 1000, seed=5)
    a.update(range(0, 500))
    b.update(range(500, 1000))
    both.update(range(1000))
    assert bytes(a | b) == bytes(both)
    inter = a & b
    assert len(inter) == 500
    a |= b
    assert bytes(a) == bytes(both)
    a |= a  # with itself: a copy, no deadlock
    assert all(k in a for k in range(1000))
    other = approxset.Filter(variant, 1000, seed=6)
    before = bytes(a)
    with pytest.raises(approxset.ParameterError, match="key"):
        a |= other
    assert bytes(a) == before, "a failed union changes nothing"
    with pytest.raises(TypeError):
        a | {1, 2}  # noqa: B018


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v not in MERGEABLE])
def test_union_of_others_is_unsupported(variant):
    a = build(variant, ["x"], seed=5)
    b = build(variant, ["y"], seed=5)
    with pytest.raises(approxset.UnsupportedError, match="union"):
        a | b  # noqa: B018
    with pytest.raises(approxset.UnsupportedError, match="intersection"):
        a &= b
    assert "x" in a


def test_union_of_different_variants_is_refused():
    a = approxset.Filter("classic", 100, seed=1)
    with pytest.raises(approxset.ParameterError, match="variant"):
        a | approxset.Filter("blocked", 100, seed=1)  # noqa: B018


@pytest.mark.parametrize("variant", VARIANTS)
def test_bytes_pickle_save_load_round_trip(variant, tmp_path):
    keys = [f"k{i}" for i in range(100)] + list(range(100))
    f = build(variant, keys, seed=11)
    data = bytes(f)
    for g in (
        approxset.from_bytes(data),
        approxset.Filter.from_bytes(bytearray(data)),
        approxset.from_bytes(memoryview(data)),
        pickle.loads(pickle.dumps(f)),
        f.copy(),
    ):
        assert bytes(g) == data
        assert g.variant == variant and len(g) == len(f)
        assert all(k in g for k in keys)
    path = tmp_path / "f.bin"
    f.save(path)
    assert path.read_bytes() == data
    assert bytes(approxset.load(path)) == data
    assert bytes(approxset.load(str(path))) == data


def test_damaged_bytes_and_files_are_clear_errors(tmp_path):
    data = bytes(build("classic", ["a", "b"]))
    for bad in (b"", data[:10], data[:-1], data + b"x", b"XXXX" + data[4:]):
        with pytest.raises(approxset.CorruptFilterError):
            approxset.from_bytes(bad)
    flipped = bytearray(data)
    flipped[-20] ^= 1
    with pytest.raises(approxset.CorruptFilterError, match="checksum|corrupt"):
        approxset.from_bytes(bytes(flipped))
    with pytest.raises(FileNotFoundError):
        approxset.load(tmp_path / "missing.bin")
    with pytest.raises(OSError):
        build("classic", ["a"]).save(tmp_path / "no" / "such" / "dir.bin")
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    with pytest.raises(approxset.ParameterError):
        approxset.load(path, max_bytes=10)
    with pytest.raises(TypeError):
        approxset.from_bytes(42)


def test_a_full_cuckoo_filter_refuses_and_keeps_its_keys():
    f = approxset.Filter("cuckoo", 10, 0.01, seed=1)
    added = []
    with pytest.raises(approxset.FullError):
        for i in range(10_000):
            f.add(i)
            added.append(i)
    assert all(k in f for k in added)
    assert len(f) == len(added)
    g = approxset.Filter("cuckoo", 10, 0.01, seed=1)
    with pytest.raises(approxset.FullError):
        g.add_many(list(range(10_000)))
    assert len(g) == len(added), "the keys before the failing one stay added"


def test_info_design_compare_are_plain_data():
    f = approxset.Filter("blocked", 1000, 0.01, seed=1)
    f.update(range(10))
    info = f.info()
    assert info["variant"] == "blocked" and info["len"] == 10
    assert info["capacity"] == 1000 and info["mergeable"] and not info["deletable"]
    assert isinstance(info["parameters"], dict) and info["parameters"]["bits"] > 0
    assert 9 <= info["estimated_items"] <= 11
    rows = approxset.design(10**6, 0.01)
    assert [r["variant"] for r in rows] == VARIANTS
    classic = rows[0]
    assert classic["hashes"] == 7 and 9.5 < classic["bits_per_key"] < 9.7
    assert approxset.design(100, 0.01, ["cuckoo"])[0]["variant"] == "cuckoo"
    with pytest.raises(approxset.ParameterError):
        approxset.design(0, 0.01)
    with pytest.raises(approxset.ParameterError):
        approxset.design(10, 2.0)
    out = approxset.compare(2000, 0.01, queries=20_000, variants=["classic", "fuse"])
    assert [r["variant"] for r in out] == ["classic", "fuse"]
    for r in out:
        assert r["false_negatives"] == 0
        assert r["measured_fp"] * 20_000 <= binomial_upper(20_000, 0.01)


def test_help_reads_well():
    doc = approxset.Filter.__doc__
    assert "no false negatives" in doc and "Filter.from_keys" in doc
    assert "Removes one copy" in approxset.Filter.remove.__doc__
    assert approxset.Filter.__module__ == "approxset"
    assert "(variant, capacity, fp=0.01" in approxset.Filter.__text_signature__


def test_batches_release_the_gil_and_agree_with_one_at_a_time():
    f = approxset.Filter("blocked", 100_000, seed=2)
    keys = [f"k{i}" for i in range(50_000)]
    threads = [
        threading.Thread(target=f.add_many, args=(keys[i::4],)) for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(f) == len(keys)
    assert f.contains_many(keys) == [True] * len(keys)
    others = [f"o{i}" for i in range(20_000)]
    assert f.contains_many(others) == [k in f for k in others]
    # A generator that looks into the filter it feeds does not deadlock.
    g = approxset.Filter("classic", 100, seed=2)
    g.update(str(i) for i in range(10) if str(i) not in g)
    assert len(g) == 10


@pytest.mark.parametrize("variant", ["cuckoo", "quotient"])
def test_one_key_calls_race_batches_that_move_entries(variant):
    # A one-key call skips the filter's lock only while no batch call is
    # under way. Here one thread's batches (GIL released) fill a cuckoo
    # filter to 95 %, kicking entries from bucket to bucket, or grow and
    # shift a quotient filter, while this thread looks up keys already in
    # (a lookup beside a move without the lock can miss its key) and
    # adds, counts and removes keys of its own.
    f = approxset.Filter(variant, 100_000, seed=3)
    mine = [f"m{i}" for i in range(50_000)]
    f.add_many(mine)
    batch_keys = [f"b{i}" for i in range(45_000 if variant == "cuckoo" else 600_000)]
    done = threading.Event()

    def batches():
        for i in range(0, len(batch_keys), 5_000):
            f.add_many(batch_keys[i : i + 5_000])
            f.contains_many(mine[:5_000])
        done.set()

    t = threading.Thread(target=batches)
    t.start()
    missed, n = [], 0
    while not done.is_set():
        k = mine[n % len(mine)]
        if k not in f or f.count(k) < 1:
            missed.append(k)
        n += 1
    t.join()
    assert missed == []
    for i in range(1_000):
        k = f"s{i}"
        f.add(k)
        assert k in f and f.count(k) >= 1 and not f.add_if_absent(k)
        if i % 2:
            f.remove(k)
    assert len(f) == len(mine) + len(batch_keys) + 500
    assert all(f.contains_many(batch_keys)) and all(f.contains_many(mine))


@pytest.mark.parametrize("variant", DELETABLE)
def test_count_and_add_if_absent(variant):
    f = approxset.Filter(variant, 1000, seed=1)
    assert f.count("a") == 0
    assert f.add_if_absent("a") is True
    assert f.add_if_absent("a") is False, "already (maybe) present: not added"
    assert len(f) == 1 and f.count("a") >= 1
    f.add("a")
    assert f.count("a") >= 2
    f.remove("a")
    f.remove("a")
    assert f.count("a") == 0 and "a" not in f


def test_a_saturated_key_cannot_be_removed():
    f = approxset.Filter("counting", 1000, seed=1)
    for _ in range(15):
        f.add("hot")
    assert f.count("hot") == 15
    before = bytes(f)
    with pytest.raises(approxset.SaturatedError, match="saturated"):
        f.remove("hot")
    assert f.discard("hot") is False
    assert bytes(f) == before and "hot" in f


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v not in DELETABLE])
def test_count_on_others_is_unsupported(variant):
    f = build(variant, ["a"])
    with pytest.raises(
        approxset.UnsupportedError, match=r"key in f.*Filter\.count is for the counting, cuckoo and quotient"
    ):
        f.count("a")
    if not INFO[variant]["static"]:
        assert f.add_if_absent("a") is False
        assert f.add_if_absent("b") in (True, False)
        assert "b" in f


def test_crossed_unions_in_two_threads_do_not_deadlock():
    a = approxset.Filter("classic", 1000, seed=1)
    b = approxset.Filter("classic", 1000, seed=1)
    a.add("a")
    b.add("b")

    def merge(x, y):
        for _ in range(200):
            x |= y

    threads = [threading.Thread(target=merge, args=pair) for pair in ((a, b), (b, a))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "a" in b and "b" in a


def test_python_terms_version_equality_and_design_fields():
    assert approxset.__version__ == approxset._approxset.__version__
    assert approxset.__version__.count(".") == 2
    for variant in VARIANTS:
        f = build(variant, ["a", "b"])
        assert f == f.copy() and f == approxset.from_bytes(bytes(f))
        assert not (f != f.copy())
        assert f != build(variant, ["a", "c"]), "other keys, other bytes"
        assert f != build(variant, ["a", "b"], seed=2), "another hash key"
        assert f != bytes(f)
    with pytest.raises(TypeError, match="unhashable"):
        hash(approxset.Filter("classic", 10))
    rows = {r["variant"]: r for r in approxset.design(10**6, 0.01)}
    for variant, row in rows.items():
        if variant in ("cuckoo", "fuse"):
            assert row["fingerprint_bits"] == row["hashes"] >= 8
        elif variant in ("quotient", "ribbon"):
            # The remainder bits of the first table; the lower columns.
            assert row["fingerprint_bits"] == row["hashes"] >= 4
        else:
            assert "fingerprint_bits" not in row
    # Messages name the Python API, never Rust functions.
    for call in (
        lambda: approxset.Filter("fuse", 10),
        lambda: approxset.Filter.from_keys("fuse", ["a"]).add("b"),
    ):
        with pytest.raises(approxset.UnsupportedError, match="Filter.from_keys") as e:
            call()
        assert "build_from" not in str(e.value) and "load_membership" not in str(e.value)
    with pytest.raises(approxset.ParameterError, match="invalid fp:"):
        approxset.Filter("classic", 10, 2.0)
    with pytest.raises(approxset.ParameterError, match="invalid n:"):
        approxset.design(0, 0.01)
def test_quotient_filter_grows_removes_and_merges():
    f = approxset.Filter("quotient", 100, 0.01, seed=1)
    f.update(range(10_000))
    assert all(k in f for k in range(10_000))
    assert len(f) == 10_000
    for k in range(0, 10_000, 2):
        f.remove(k)
    assert all(k in f for k in range(1, 10_000, 2))
    # At most 1 %: 100 expected among 10,000 absent keys, 5.3 sd above.
    assert sum(k in f for k in range(10**6, 10**6 + 10_000)) <= 100 + 5.3 * 9.95
    g = approxset.Filter("quotient", 100, 0.01, seed=1)
    g.update(range(20_000, 21_000))
    h = f | g
    assert all(k in h for k in range(1, 10_000, 2))
    assert all(k in h for k in range(20_000, 21_000))
    assert len(h) == len(f) + len(g)
    with pytest.raises(approxset.UnsupportedError, match="intersection"):
        f & g  # noqa: B018
