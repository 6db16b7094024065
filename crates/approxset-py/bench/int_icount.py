"""Instructions per key of one-at-a-time Python `int` keys, against rbloom.

Run each case twice under callgrind, with 1 and 2 loops over 200,000 keys;
the difference of the two totals divided by 200,000 is the per-key figure
(the build and the interpreter's start cancel out):

    valgrind --tool=callgrind --callgrind-out-file=cg.1 \
        python int_icount.py approxset classic hit 1
    valgrind --tool=callgrind --callgrind-out-file=cg.2 \
        python int_icount.py approxset classic hit 2

`which` is `approxset` or `rbloom`; `op` is `add`, `hit` or `miss`.
"""

import sys

import numpy as np

from bench import loop_add, loop_in

which, variant, op, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
n, m = 10**6, 2 * 10**5
rng = np.random.default_rng(7)
both = rng.choice(2**62, size=2 * m, replace=False).astype(np.int64)
members, others = both[:m].tolist(), both[m:].tolist()


def make():
    if which == "rbloom":
        import rbloom

        return rbloom.Bloom(n, 0.01)
    import approxset

    return approxset.Filter(variant, n, 0.01, seed=1, hash="xxh3")


f = make()
loop_add(f, members)
g = make()
for _ in range(reps):
    if op == "add":
        loop_add(g, members)
    elif op == "hit":
        loop_in(f, members)
    else:
        loop_in(f, others)
