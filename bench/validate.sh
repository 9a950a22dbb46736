#!/usr/bin/env bash
# Measures `eggcat validate` on the shared upstream snapshot (ten real egg repositories) and on
# generated hostile files.
#
# What it prints:
#   1. the count of diagnostics per code over the ten repositories (`--format json`);
#   2. the wall time and peak RSS of that run (5 runs: median and max; target <= 1 s);
#   3. wall time and peak RSS for a 50 MB egg, an egg on one 10 MB line with 20 000 bad
#      variables, and a 100 000-variable egg (one run each; targets: 2 s, 512 MiB).
#
# Run from anywhere:  bash bench/validate.sh        (KEEP_TMP=1 keeps the temp dir)
# Needs: cargo, python3, /usr/bin/time (installed with apt-get when missing, as root).
# Exits 1 when a target is missed or a figure is missing (a time or peak memory that
# /usr/bin/time did not give FAILs its row, never reads as 0 ms), and when the run on the ten
# repositories found no diagnostic (it would not have read them); 0 only when every row passes.
# TARGET_CORPUS_MS, TARGET_HOSTILE_MS and TARGET_RSS_MIB set the targets (TARGET_CORPUS_MS=1
# fails on purpose); RUNS the runs on the ten repositories.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

TARGET_CORPUS_MS=${TARGET_CORPUS_MS:-1000}
TARGET_HOSTILE_MS=${TARGET_HOSTILE_MS:-2000}
TARGET_RSS_MIB=${TARGET_RSS_MIB:-512}
RUNS=${RUNS:-5}
bench_need_counts TARGET_CORPUS_MS TARGET_HOSTILE_MS TARGET_RSS_MIB RUNS

TMP=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-bench-validate.XXXXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [[ "${KEEP_TMP:-0}" == 1 ]]; then
        say "keeping $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT

bench_need_tools time cargo python3
bench_build_binary

# Runs `eggcat validate` with the given arguments under /usr/bin/time; sets MS and KIB, each
# empty when /usr/bin/time did not give it (a missing figure, which FAILs its row).
# stdout goes to $TMP/out.jsonl. Exit status 1 (errors found) is expected.
measure() {
    local rc=0 secs kib
    /usr/bin/time -f '%e %M' -o "$TMP/time" "$BIN" validate --format json "$@" >"$TMP/out.jsonl" 2>"$TMP/err" || rc=$?
    [[ $rc -le 1 ]] || { cat "$TMP/err" >&2; die "eggcat validate exited with $rc"; }
    # /usr/bin/time writes "Command exited with non-zero status 1" first when errors are found.
    read -r secs kib < <(tail -n 1 "$TMP/time") || true
    MS="" KIB=""
    if bench_is_num "${secs:-}" && bench_is_num "${kib:-}"; then
        MS=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
        KIB=$kib
    else
        say "could not read /usr/bin/time's output for validate $*: $(cat "$TMP/time")"
    fi
}

mib() {
    if bench_is_num "${1:-}"; then awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; else echo missing; fi
}

FAILS=0
# Prints PASS when every VALUE is at most its TARGET, FAIL otherwise, and "FAIL (figure
# missing)" when a value is not a number; counts a FAIL in FAILS.
# Usage: verdict VALUE TARGET [VALUE TARGET]...
verdict() {
    local result=PASS
    while (($# >= 2)); do
        if ! bench_is_num "$1"; then
            result="FAIL (figure missing)"
            break
        fi
        awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }' || result=FAIL
        shift 2
    done
    [[ "$result" == PASS ]] || FAILS=$((FAILS + 1))
    RESULT=$result
}

say "validating $SHARED/pelican-eggs ($RUNS runs)"
WALLS=()
PEAK=0
MISSING=0
for _ in $(seq "$RUNS"); do
    measure "$SHARED/pelican-eggs"
    if [[ -z "$MS" ]]; then
        MISSING=$((MISSING + 1))
        continue
    fi
    WALLS+=("$MS")
    ((KIB > PEAK)) && PEAK=$KIB
done
cp "$TMP/out.jsonl" "$TMP/corpus.jsonl"
# One run without its figures leaves the row without them: a median of the others would hide it.
MED="" MAX=""
if ((MISSING == 0)); then
    read -r MED MAX < <(printf '%s\n' "${WALLS[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d\n", v[int((NR + 1) / 2)], v[NR] }')
else
    PEAK=""
fi
DIAGNOSTICS=$(grep -c . "$TMP/corpus.jsonl" || true)

echo "Diagnostics per code on the ten repositories ($DIAGNOSTICS in all; $(tail -n 1 "$TMP/err")):"
python3 - "$TMP/corpus.jsonl" <<'PY'
import collections, json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
counts = collections.Counter((r["code"], r["severity"]) for r in rows)
files = collections.defaultdict(set)
for r in rows:
    files[r["code"]].add(r["path"])
print(f"  {'code':<6} {'severity':<8} {'count':>6} {'files':>6}")
for (code, severity), n in sorted(counts.items()):
    print(f"  {code:<6} {severity:<8} {n:>6} {len(files[code]):>6}")
PY

say "generating hostile files"
python3 - "$TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def egg(description, n):
    return {
        "meta": {"version": "PTDL_v2"}, "name": "Huge", "author": "a@example.com",
        "description": description, "docker_images": {"a": "alpine:3"}, "startup": "run",
        "config": {"files": "{}", "startup": "{\"done\": \"x\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": "", "container": "alpine:3", "entrypoint": "ash"}},
        "variables": [{"name": f"Variable {i}", "description": "", "env_variable": f"VAR_{i}",
                       "default_value": "x", "user_viewable": True, "user_editable": True,
                       "rules": "required|numeric"} for i in range(n)],
    }
for name, doc, indent in [
    ("egg-50mb.json", egg("x" * (50 << 20), 1), 2),
    ("egg-one-line.json", egg("y" * (10 << 20), 20000), None),
    ("egg-100k-variables.json", egg("d", 100000), 2),
]:
    os.makedirs(os.path.join(tmp, "hostile"), exist_ok=True)
    with open(os.path.join(tmp, "hostile", name), "w") as f:
        json.dump(doc, f, indent=indent)
PY

ROW_FMT="%-40s %10s %10s %14s %10s %8s\n"
echo
# shellcheck disable=SC2059 # the format is a constant
{
    printf "$ROW_FMT" scenario "median ms" "max ms" "peak RSS MiB" target result
    printf "$ROW_FMT" -------- --------- ------ ------------ ------ ------
}
verdict "$MED" "$TARGET_CORPUS_MS"
# A run on the ten repositories that reports nothing did not read them (they hold errors).
if [[ "$RESULT" == PASS ]] && ((DIAGNOSTICS == 0)); then
    RESULT="FAIL (no diagnostic)"
    FAILS=$((FAILS + 1))
fi
# shellcheck disable=SC2059 # the format is a constant
printf "$ROW_FMT" "ten repositories ($RUNS runs)" "${MED:-missing}" "${MAX:-missing}" "$(mib "$PEAK")" "$TARGET_CORPUS_MS ms" "$RESULT"
for f in egg-50mb.json egg-one-line.json egg-100k-variables.json; do
    measure "$TMP/hostile/$f"
    verdict "$MS" "$TARGET_HOSTILE_MS" "$KIB" $((TARGET_RSS_MIB * 1024))
    # shellcheck disable=SC2059 # the format is a constant
    printf "$ROW_FMT" "$f ($(du -m "$TMP/hostile/$f" | cut -f1) MB)" "${MS:-missing}" "${MS:-missing}" "$(mib "$KIB")" "$TARGET_HOSTILE_MS ms" "$RESULT"
done
echo "Wall time from /usr/bin/time (10 ms resolution); hostile rows also need peak RSS <= $TARGET_RSS_MIB MiB."
if ((FAILS > 0)); then
    echo "FAIL: $FAILS of 4 rows missed their target or lack a figure."
    exit 1
fi
echo "PASS: all 4 rows met their targets."
exit 0
