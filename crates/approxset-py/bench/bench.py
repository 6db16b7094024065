"""approxset against rbloom and pybloom-live, in one run (not in CI).

    pip install ./crates/approxset-py rbloom pybloom-live numpy
    python crates/approxset-py/bench/bench.py [--n 1000000] [--repeat 3]

10**6 string keys and 10**6 int keys at p = 1 %: one-at-a-time ``add`` and
``in``, approxset's ``add_many``/``contains_many`` against rbloom's per-key
loop, memory per key and the measured false-positive rate over 10**6
non-members. Each timing is the median of ``--repeat`` runs; the ratios
are against rbloom measured in the same run.
"""

import argparse
import statistics
import sys
import time

import approxset
import numpy as np

try:
    import rbloom
except ImportError:  # pragma: no cover
    rbloom = None
try:
    import pybloom_live
except ImportError:  # pragma: no cover
    pybloom_live = None


def timed(fn, repeat):
    """Median seconds of ``repeat`` calls of ``fn`` (each on a fresh state)."""
    times = []
    for _ in range(repeat):
        setup = fn()
        start = time.perf_counter()
        setup()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def run(kind, n, p, repeat, variants, hash_fn):
    if kind == "str":
        members = [f"member-{i}" for i in range(n)]
        others = [f"nonmember-{i}" for i in range(n)]
        members_arr = np.array(members)
        others_arr = np.array(others)
    else:
        rng = np.random.default_rng(7)
        both = rng.choice(2**62, size=2 * n, replace=False).astype(np.int64)
        members_arr, others_arr = both[:n], both[n:]
        members = members_arr.tolist()
        others = others_arr.tolist()

    rows = []

    def record(name, make, add_one, contains_one, add_many=None, contains_many=None, size=None):
        def fresh_add():
            f = make()
            return lambda: add_one(f, members)

        add_t = timed(fresh_add, repeat)
        f = make()
        add_one(f, members)

        def q_hit():
            return lambda: contains_one(f, members)

        def q_miss():
            return lambda: contains_one(f, others)

        hit_t = timed(q_hit, repeat)
        miss_t = timed(q_miss, repeat)
        fp = sum(1 for k in others if k in f) / len(others)
        assert all(k in f for k in members), f"{name}: a false negative"
        row = {
            "name": name,
            "add": add_t,
            "in_hit": hit_t,
            "in_miss": miss_t,
            "fp": fp,
            "bits_per_key": size(f) * 8 / n if size else float("nan"),
        }
        if add_many:
            row["add_many"] = timed(lambda: (lambda g=make(): (lambda: add_many(g)))(), repeat)
            row["contains_many"] = timed(lambda: (lambda: contains_many(f)), repeat)
        rows.append(row)

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

    for v in variants:
        record(
            f"approxset {v}",
            lambda v=v: approxset.Filter(v, n, p, seed=1, hash=hash_fn),
            loop_add,
            loop_in,
            add_many=lambda g: g.add_many(members_arr),
            contains_many=lambda f: f.contains_many(others_arr),
            size=lambda f: f.info()["memory_bytes"],
        )
        # The list (not array) batch paths.
        if v == variants[0]:
            record(
                f"approxset {v} (lists)",
                lambda v=v: approxset.Filter(v, n, p, seed=1, hash=hash_fn),
                loop_add,
                loop_in,
                add_many=lambda g: g.add_many(members),
                contains_many=lambda f: f.contains_many(others),
                size=lambda f: f.info()["memory_bytes"],
            )
    if rbloom:
        record(
            "rbloom",
            lambda: rbloom.Bloom(n, p),
            loop_add,
            loop_in,
            size=lambda f: f.size_in_bits / 8,
        )
    if pybloom_live:
        record(
            "pybloom-live",
            lambda: pybloom_live.BloomFilter(capacity=n, error_rate=p),
            loop_add,
            loop_in,
            size=lambda f: f.num_bits / 8,
        )
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10**6)
    ap.add_argument("--fp", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--variants", default="blocked,classic,split-block")
    ap.add_argument("--hash", default="xxh3", help="approxset's hash function (siphash or xxh3)")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, n = {args.n}, p = {args.fp}, median of {args.repeat}")
    for kind in ("str", "int"):
        rows = run(kind, args.n, args.fp, args.repeat, args.variants.split(","), args.hash)
        ref = next((r for r in rows if r["name"] == "rbloom"), None)
        print(f"\n{kind} keys                     add ns   in-hit ns  in-miss ns  many-add ns  many-in ns  bits/key  FP")
        for r in rows:
            ns = lambda t: t[0] * 1e9 / args.n  # noqa: E731
            many_add = f"{ns(r['add_many']):11.1f}" if "add_many" in r else " " * 11
            many_in = f"{ns(r['contains_many']):10.1f}" if "contains_many" in r else " " * 10
            print(
                f"{r['name']:28} {ns(r['add']):7.1f} {ns(r['in_hit']):10.1f} {ns(r['in_miss']):10.1f}"
                f"  {many_add}  {many_in}  {r['bits_per_key']:8.2f}  {r['fp']:.4%}"
            )
        if ref:
            print(f"\nratios against rbloom ({kind}; > 1 is faster than rbloom)")
            for r in rows:
                if r is ref:
                    continue
                line = (
                    f"{r['name']:28} add {ref['add'][0] / r['add'][0]:5.2f}x"
                    f"  in-hit {ref['in_hit'][0] / r['in_hit'][0]:5.2f}x"
                    f"  in-miss {ref['in_miss'][0] / r['in_miss'][0]:5.2f}x"
                )
                if "contains_many" in r:
                    line += f"  contains_many vs rbloom in-miss loop {ref['in_miss'][0] / r['contains_many'][0]:5.2f}x"
                    line += f"  add_many vs rbloom add loop {ref['add'][0] / r['add_many'][0]:5.2f}x"
                print(line)


if __name__ == "__main__":
    main()
