"""approxset against rbloom and pybloom-live, in one run (not in CI).

    pip install ./crates/approxset-py rbloom pybloom-live numpy pyarrow
    python crates/approxset-py/bench/bench.py [--n 1000000] [--repeat 3]

10**6 string keys and 10**6 int keys at p = 1 %: one-at-a-time ``add`` and
``in`` (a Python loop, as a user writes it) for approxset, rbloom and
pybloom-live; approxset's ``add_many``/``contains_many`` over a list, a
NumPy array and (strings) an Arrow array; memory per key and the measured
false-positive rate over 10**6 non-members. Each figure is the median of
``--repeat`` timings in ns per key, taken round robin (each repeat times
every filter once); the ratios are against rbloom measured in the same run
(> 1: faster than rbloom). One warm-up pass precedes the timings, so that
no filter pays for the first touch of the keys.
"""

import argparse
import statistics
import sys
import time

import numpy as np

import approxset

try:
    import rbloom
except ImportError:  # pragma: no cover
    rbloom = None
try:
    import pybloom_live
except ImportError:  # pragma: no cover
    pybloom_live = None
try:
    import pyarrow
except ImportError:  # pragma: no cover
    pyarrow = None


def median_ns(make_run, repeat, n):
    """Median ns per key of ``repeat`` runs; ``make_run()`` prepares one
    run (untimed) and returns the callable to time."""
    times = []
    for _ in range(repeat):
        run = make_run()
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e9 / n)
    return statistics.median(times)


def loop_add(f, keys):
    add = f.add
    for k in keys:
        add(k)


def loop_in(f, keys):
    c = 0
    for k in keys:
        if k in f:
            c += 1
    return c


def keys_of(kind, n):
    if kind == "str":
        members = [f"member-{i}" for i in range(n)]
        others = [f"nonmember-{i}" for i in range(n)]
    else:
        rng = np.random.default_rng(7)
        both = rng.choice(2**62, size=2 * n, replace=False).astype(np.int64)
        members, others = both[:n].tolist(), both[n:].tolist()
    return members, others


def forms(kind, keys):
    """The batch inputs: a list, a NumPy array, an Arrow array (str)."""
    out = {"list": keys, "numpy": np.array(keys) if kind == "str" else np.array(keys, dtype=np.int64)}
    if kind == "str" and pyarrow is not None:
        out["arrow"] = pyarrow.array(keys)
    return out


def run(kind, n, p, repeat, variants, hash_fn):
    members, others = keys_of(kind, n)
    filters = {}
    for v in variants:
        filters[f"approxset {v}"] = (
            lambda v=v: approxset.Filter(v, n, p, seed=1, hash=hash_fn),
            lambda f: f.info()["memory_bytes"],
        )
    if rbloom:
        filters["rbloom"] = (lambda: rbloom.Bloom(n, p), lambda f: f.size_in_bits / 8)
    if pybloom_live:
        filters["pybloom-live"] = (
            lambda: pybloom_live.BloomFilter(capacity=n, error_rate=p),
            lambda f: f.num_bits / 8,
        )
    # Warm-up: every filter once over the keys (string hashes cached, the
    # CPU at speed).
    for make, _ in filters.values():
        f = make()
        loop_add(f, members)
        loop_in(f, others)

    # Round robin: each repeat times every filter once, so that a burst of
    # load on the shared machine falls on all of them alike.
    full = {}
    for name, (make, _) in filters.items():
        f = make()
        loop_add(f, members)
        assert loop_in(f, members) == n, f"{name}: a false negative"
        full[name] = f
    samples = {name: {"add": [], "in_hit": [], "in_miss": []} for name in filters}
    member_forms, other_forms = forms(kind, members), forms(kind, others)
    batch_samples = {
        (v, form): {"add_many": [], "contains_many": []} for v in variants for form in member_forms
    }
    for v in variants:
        for form in member_forms:
            assert all(full[f"approxset {v}"].contains_many(member_forms[form]))
    for _ in range(repeat):
        for name, (make, _) in filters.items():
            s = samples[name]
            s["add"].append(median_ns(lambda: (lambda f=make(): lambda: loop_add(f, members))(), 1, n))
            s["in_hit"].append(median_ns(lambda: lambda: loop_in(full[name], members), 1, n))
            s["in_miss"].append(median_ns(lambda: lambda: loop_in(full[name], others), 1, n))
        for (v, form), b in batch_samples.items():
            make = filters[f"approxset {v}"][0]
            b["add_many"].append(
                median_ns(lambda: (lambda f=make(): lambda: f.add_many(member_forms[form]))(), 1, n)
            )
            b["contains_many"].append(
                median_ns(lambda: lambda: full[f"approxset {v}"].contains_many(other_forms[form]), 1, n)
            )
    rows = {}
    for name, (make, size) in filters.items():
        f = full[name]
        rows[name] = {k: statistics.median(v) for k, v in samples[name].items()}
        rows[name]["fp"] = loop_in(f, others) / n
        rows[name]["bits_per_key"] = size(f) * 8 / n
    batches = {
        key: {k: statistics.median(v) for k, v in b.items()} for key, b in batch_samples.items()
    }
    return rows, batches


def report(kind, rows, batches):
    print(f"\n{kind} keys: one at a time (ns per key)")
    print(f"{'':24} {'add':>7} {'in hit':>7} {'in miss':>7} {'bits/key':>8} {'FP':>8}")
    for name, r in rows.items():
        print(
            f"{name:24} {r['add']:7.1f} {r['in_hit']:7.1f} {r['in_miss']:7.1f}"
            f" {r['bits_per_key']:8.2f} {r['fp']:8.4%}"
        )
    ref = rows.get("rbloom")
    if ref:
        print(f"ratios against rbloom ({kind}; > 1 is faster)")
        for name, r in rows.items():
            if name != "rbloom":
                print(
                    f"{name:24} add {ref['add'] / r['add']:5.2f}x  in-hit {ref['in_hit'] / r['in_hit']:5.2f}x"
                    f"  in-miss {ref['in_miss'] / r['in_miss']:5.2f}x"
                )
    print(f"{kind} keys: batches (ns per key), ratio against rbloom's loop (add; in miss)")
    for (v, form), b in batches.items():
        line = f"approxset {v:12} {form:6} add_many {b['add_many']:6.1f}  contains_many {b['contains_many']:6.1f}"
        if ref:
            line += (
                f"   {ref['add'] / b['add_many']:5.2f}x  {ref['in_miss'] / b['contains_many']:5.2f}x"
            )
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10**6)
    ap.add_argument("--fp", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--variants", default="blocked,classic")
    ap.add_argument("--hash", default="xxh3", help="approxset's hash function (siphash or xxh3)")
    ap.add_argument("--kinds", default="str,int")
    args = ap.parse_args()
    print(
        f"python {sys.version.split()[0]}, n = {args.n}, p = {args.fp}, "
        f"median of {args.repeat}, approxset hash {args.hash}"
    )
    for kind in args.kinds.split(","):
        rows, batches = run(kind, args.n, args.fp, args.repeat, args.variants.split(","), args.hash)
        report(kind, rows, batches)


if __name__ == "__main__":
    main()
