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
# Exits 0 even on FAIL: it is a measurement.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

TARGET_CORPUS_MS=1000
TARGET_HOSTILE_MS=2000
TARGET_RSS_MIB=512
RUNS=5

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

# Runs `eggcat validate` with the given arguments under /usr/bin/time; sets MS and KIB.
# stdout goes to $TMP/out.jsonl. Exit status 1 (errors found) is expected.
measure() {
    local rc=0
    /usr/bin/time -f '%e %M' -o "$TMP/time" "$BIN" validate --format json "$@" >"$TMP/out.jsonl" 2>"$TMP/err" || rc=$?
    [[ $rc -le 1 ]] || { cat "$TMP/err" >&2; die "eggcat validate exited with $rc"; }
    # /usr/bin/time writes "Command exited with non-zero status 1" first when errors are found.
    read -r secs KIB < <(tail -n 1 "$TMP/time")
    MS=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
}

mib() {
    awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

verdict() { # value target
    if [[ $1 -le $2 ]]; then echo PASS; else echo FAIL; fi
}

say "validating $SHARED/pelican-eggs ($RUNS runs)"
WALLS=()
PEAK=0
for _ in $(seq "$RUNS"); do
    measure "$SHARED/pelican-eggs"
    WALLS+=("$MS")
    [[ $KIB -gt $PEAK ]] && PEAK=$KIB
done
cp "$TMP/out.jsonl" "$TMP/corpus.jsonl"
read -r MED MAX < <(printf '%s\n' "${WALLS[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d\n", v[int((NR + 1) / 2)], v[NR] }')

echo "Diagnostics per code on the ten repositories ($(grep -c . "$TMP/corpus.jsonl" || true) in all; $(tail -n 1 "$TMP/err")):"
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
printf "$ROW_FMT" scenario "median ms" "max ms" "peak RSS MiB" target result
printf "$ROW_FMT" -------- --------- ------ ------------ ------ ------
printf "$ROW_FMT" "ten repositories ($RUNS runs)" "$MED" "$MAX" "$(mib "$PEAK")" "$TARGET_CORPUS_MS ms" "$(verdict "$MED" "$TARGET_CORPUS_MS")"
for f in egg-50mb.json egg-one-line.json egg-100k-variables.json; do
    measure "$TMP/hostile/$f"
    ok=$(verdict "$MS" "$TARGET_HOSTILE_MS")
    [[ $(( KIB / 1024 )) -le $TARGET_RSS_MIB ]] || ok=FAIL
    printf "$ROW_FMT" "$f ($(du -m "$TMP/hostile/$f" | cut -f1) MB)" "$MS" "$MS" "$(mib "$KIB")" "$TARGET_HOSTILE_MS ms" "$ok"
done
echo "Wall time from /usr/bin/time (10 ms resolution); hostile rows also need peak RSS <= $TARGET_RSS_MIB MiB."
