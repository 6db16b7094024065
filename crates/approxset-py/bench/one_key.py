"""`in` over Python ints one at a time, approxset against rbloom in one
process (not in CI): the loop of ``bench.py``, 10**6 keys at 1 % (or
N), 2 * 10**5 members and as many non-members (with fewer than that
many keys, each of the N members and N non-members repeated to make up
the 2 * 10**5), medians over REPEAT rounds that time both filters in
turn.

    python one_key.py LABEL VARIANT REPEAT [N]

Used to time throwaway builds of the extension against each other (run
each build's wheel with ``PYTHONPATH`` set to its unpacked directory):
docs/guide.md, "One-key calls without the lock".
"""
import statistics
import sys
import time

import numpy as np
import rbloom
import approxset

from bench import loop_in

n = int(sys.argv[4]) if len(sys.argv) > 4 else 10**6
if n < 1:
    sys.exit("N: at least 1 key")
m = min(2 * 10**5, n)
rng = np.random.default_rng(7)
allk = rng.choice(2**62, size=n + m, replace=False).astype(np.int64).tolist()
members = allk[:m] * (2 * 10**5 // m)
others = allk[n:] * (2 * 10**5 // m)
r = rbloom.Bloom(n, 0.01)
a = approxset.Filter(sys.argv[2], n, 0.01, seed=1, hash="xxh3")
for k in allk[:n]:
    r.add(k); a.add(k)
res = {}
for rep in range(int(sys.argv[3])):
    for name, f in (("rbloom", r), ("ours", a)):
        for kind, ks in (("hit", members), ("miss", others)):
            t = time.perf_counter(); loop_in(f, ks); dt = (time.perf_counter() - t) / len(ks) * 1e9
            res.setdefault((name, kind), []).append(dt)
for kind in ("hit", "miss"):
    rb, us = statistics.median(res[("rbloom", kind)]), statistics.median(res[("ours", kind)])
    print(f"{sys.argv[1]} {sys.argv[2]} {kind}: rbloom {rb:.1f} ns, ours {us:.1f} ns, rbloom/ours {rb/us:.2f}")
