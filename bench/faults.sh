#!/usr/bin/env bash
# Kills `eggcat build` with SIGKILL at random points, on the ten shared repositories (made into
# local git repositories, one commit each, as crates/cli/tests/it/support.rs makes them), and
# prints the figures: points tried (half in a first build, half in a rebuild after an upstream
# commit), points survived, and the range of kill times after the build started.
#
# A point survives when, after the kill, the current snapshot (a rebuild always has one) is
# complete (every file as its manifest says; every slug of the index with its document, import
# files, history and page) and the next build succeeds, leaves a complete snapshot, and leaves no
# half-written folder. The points are drawn uniformly over the time one whole first build, or
# one whole rebuild, took on this machine just before.
#
# The work is done by the test `faults::kill_points_bench` (crates/cli/tests/it/faults.rs; the
# suite runs four points of the same code), on a copy of the binary taken before the run.
#
# Run from anywhere:  bash bench/faults.sh
#   POINTS=100         kill points (default 100)
#   SEED=N             the random seed (default: the time; printed, so a run can be repeated)
#   EGGCAT_BIN=path    the binary to kill (default: the release binary, built first)
# Exits non-zero when any point fails (each failure printed as `FAILED ...`).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

TMP=$(mktemp -d)
cleanup() { [[ -n ${KEEP_TMP:-} ]] || rm -rf "$TMP"; }
trap cleanup EXIT

POINTS=${POINTS:-100}
SEED=${SEED:-$(date +%s)}
if [[ -z ${EGGCAT_BIN:-} ]]; then
    bench_build_binary
    EGGCAT_BIN=$BIN
fi
[[ -x $EGGCAT_BIN ]] || die "no binary at $EGGCAT_BIN"
# A copy: a cargo build of the tree during the run must not change the binary being killed.
cp "$EGGCAT_BIN" "$TMP/eggcat"

say "building the test binary"
# Run directly, not through `cargo test`, which would hold the build directory's lock for the
# whole run.
TEST_BIN=$(cd "$ROOT" && cargo test -p eggcat --test it --no-run --message-format=json 2>"$TMP/cargo.log" |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "it" and m.get("executable"):
        print(m["executable"])') || { tail -n 40 "$TMP/cargo.log" >&2; die "cargo test --no-run failed"; }
[[ -x $TEST_BIN ]] || die "no test binary found"
cp "$TEST_BIN" "$TMP/it"

say "$POINTS kill points, seed $SEED, binary $EGGCAT_BIN"
started=$(date +%s)
status=0
(cd "$ROOT/crates/cli" && EGGCAT_BIN="$TMP/eggcat" EGGCAT_KILL_POINTS=$POINTS EGGCAT_KILL_SEED=$SEED \
    "$TMP/it" --ignored --exact faults::kill_points_bench --nocapture) >"$TMP/run.log" 2>&1 || status=$?
grep -E '^(kill |killed |FAILED )' "$TMP/run.log" || true
echo "binary: $EGGCAT_BIN; run took $(($(date +%s) - started)) s"
if [[ $status -ne 0 ]]; then
    tail -n 20 "$TMP/run.log" >&2
    echo "FAIL: some kill points did not survive" >&2
    exit 1
fi
echo "PASS"
