#!/usr/bin/env bash
# The multi-core figures of `docs/design.md`, "Deletion from many threads",
# in one run from bench binaries built beforehand, so that a machine lent
# for a few minutes only runs them:
#
#   cargo bench -p approxset-benches --bench shared --bench shared_floor --no-run
#   benches/scaling.sh OUT_DIR
#
# - the `shared` mix (`benches/shared.rs`) for the counting, cuckoo and
#   quotient filters at T = 1, 2, 4, … up to the cores present: the
#   `sharded`, `private` and `plain` rows;
# - the floor (`benches/shared_floor.rs`) bare, as a counting filter with
#   no lock (`WORK=1 CHECK=1 CAS=1`), and at the cuckoo and quotient
#   filters' size with one thread's time brought up to their shards'
#   (`WORDS=170000 K=2`, `WORK=4` and `WORK=12`).
#
# Writes OUT_DIR/shared.txt and OUT_DIR/floor.txt (criterion's output) and
# OUT_DIR/summary.txt: per row, ns per iteration and the throughput over
# T = 1's (T·t₁/t_T; `private-T` over `plain-1`). About 4 minutes on 16
# cores. Runs from the repository root; never in CI.
set -euo pipefail

out=${1:?usage: benches/scaling.sh OUT_DIR}
mkdir -p "$out"

# The newest binary named `$1-…` whose benchmarks include group `$2` (a
# test binary of the same name, `tests/shared.rs`, lists no such group).
bin() {
    local b
    for b in $(ls -t target/release/deps/"$1"-* 2>/dev/null | grep -v '\.d$'); do
        if [ -x "$b" ] && "$b" --list 2>/dev/null | grep "^$2" >/dev/null; then
            echo "$b"
            return
        fi
    done
    echo "no bench binary target/release/deps/$1-*: build with cargo bench --no-run first" >&2
    exit 1
}
shared=$(bin shared shared-mix/)
floor=$(bin shared_floor shared-floor/)
short=(--bench --warm-up-time 0.5 --measurement-time 1.5 --sample-size 10)

nproc | sed 's/^/cores: /' >"$out/summary.txt"
"$shared" "${short[@]}" 'shared-mix/.*/(sharded|private|plain)/' >"$out/shared.txt" 2>&1
: >"$out/floor.txt"
for knobs in "" \
    "APPROXSET_FLOOR_WORK=1 APPROXSET_FLOOR_CHECK=1 APPROXSET_FLOOR_CAS=1" \
    "APPROXSET_FLOOR_WORDS=170000 APPROXSET_FLOOR_K=2 APPROXSET_FLOOR_WORK=4" \
    "APPROXSET_FLOOR_WORDS=170000 APPROXSET_FLOOR_K=2 APPROXSET_FLOOR_WORK=12"; do
    echo "knobs: ${knobs:-none}" >>"$out/floor.txt"
    env $knobs "$floor" "${short[@]}" 'atomic-mix' >>"$out/floor.txt" 2>&1
done

# Criterion's median (the middle of `time: [low median high]`) in ns,
# under the row name before it; then each row over its T = 1 row.
summarise() {
    awk '
        /^knobs: / { knobs = substr($0, 8); next }
        /^shared-/ { name = $1 }
        /time:/ && name != "" {
            for (i = 1; i <= NF; i++) if ($i == "time:") break
            v = $(i + 3); u = $(i + 4)
            if (u == "µs") v *= 1000; else if (u == "ms") v *= 1e6; else if (u == "ps") v /= 1000
            row = (knobs == "" ? name : name " [" knobs "]")
            t[row] = v; order[++n] = row; name = ""
        }
        END {
            for (j = 1; j <= n; j++) {
                row = order[j]
                split(row, parts, " ")
                name = parts[1]
                k = split(name, p, "/")
                threads = p[k]
                base = name
                sub("/[0-9]+$", "/1", base)
                if (p[k - 1] == "private") sub("/private/1$", "/plain/1", base)
                base = base substr(row, length(name) + 1)
                ratio = (base in t) ? sprintf("%.2f", threads * t[base] / t[row]) : "-"
                printf "%-60s %10.1f ns  %s\n", row, t[row], ratio
            }
        }'
}
summarise <"$out/shared.txt" >>"$out/summary.txt"
summarise <"$out/floor.txt" >>"$out/summary.txt"
cat "$out/summary.txt"
