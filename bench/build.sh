#!/usr/bin/env bash
# Measures `eggcat build` on the shared upstream snapshot (ten real egg repositories).
#
# What it measures, each with /usr/bin/time (wall seconds, peak resident memory):
#   1. first build from fresh clones into an empty data_dir (3 runs, the data_dir removed
#      before each: median and max);
#   2. rebuild with no upstream change (5 runs: median and max);
#   3. rebuild after one new commit in games-steamcmd, a different egg description edit
#      each time (5 runs: median and max).
# The ten folders under ../shared/upstream/pelican-eggs are turned into local git
# repositories (one commit each) in a temp dir and listed as file:// sources.
#
# After every build, outside the timing, the current snapshot must show what that build was
# for, or its row FAILs whatever its time: every source read with status `ok` at its
# repository's HEAD commit (a source that failed fast would make a quick build that built
# nothing); after a one-commit rebuild, also the edited egg's document carrying the new
# description.
#
# Run from anywhere:  bash bench/build.sh        (KEEP_TMP=1 keeps the temp dir)
# EGGCAT_BIN=/path/to/eggcat measures that binary instead of building this tree's release one
# (an older eggcat, to compare two under the same load: the figures of a shared machine move
# with its load more than with a change).
# Needs: cargo, git, python3, /usr/bin/time (installed with apt-get when missing, as root).
# Prints a table with PASS/FAIL against the targets; time rows are judged on the median,
# the memory row on the peak over all runs. Exits 1 when a target is missed, when a figure is
# missing (a time or memory figure /usr/bin/time did not give: never read as 0), or when a
# snapshot does not show what its build was for (the times would measure something else);
# 0 only when every row passes. Each target can be set with its variable (TARGET_FIRST_MS,
# TARGET_NOCHANGE_MS, TARGET_ONECOMMIT_MS, TARGET_RSS_MIB: TARGET_RSS_MIB=1 fails on purpose);
# RUNS and FIRST_RUNS set the runs.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

TARGET_FIRST_MS=${TARGET_FIRST_MS:-2000}
TARGET_NOCHANGE_MS=${TARGET_NOCHANGE_MS:-300}
TARGET_ONECOMMIT_MS=${TARGET_ONECOMMIT_MS:-500}
TARGET_RSS_MIB=${TARGET_RSS_MIB:-150}
RUNS=${RUNS:-5}
FIRST_RUNS=${FIRST_RUNS:-3}
for n in "$TARGET_FIRST_MS" "$TARGET_NOCHANGE_MS" "$TARGET_ONECOMMIT_MS" "$TARGET_RSS_MIB" "$RUNS" "$FIRST_RUNS"; do
    [[ "$n" =~ ^[0-9]+$ ]] || die "targets and run counts are whole numbers, not '$n'"
done
((RUNS > 0 && FIRST_RUNS > 0)) || die "RUNS and FIRST_RUNS must be at least 1"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-bench-build.XXXXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [[ "${KEEP_TMP:-0}" == 1 ]]; then
        say "keeping $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT

bench_need_tools time git cargo python3
if [[ -n "${EGGCAT_BIN:-}" ]]; then
    [[ -x "$EGGCAT_BIN" ]] || die "EGGCAT_BIN=$EGGCAT_BIN is not an executable"
    BIN=$EGGCAT_BIN
    say "measuring $BIN"
else
    bench_build_binary
fi

say "making git repositories from $SHARED/pelican-eggs"
bench_make_repos
CONF="$TMP/eggcat.toml"
DATA="$TMP/data"
bench_write_config "$CONF" "$DATA"

# Runs one `eggcat build` under /usr/bin/time; sets MS (wall ms), KIB (peak RSS KiB) and CPU
# (user + system ms, git's children included).
timed_build() {
    local what=$1 secs kib user sys
    if ! /usr/bin/time -f '%e %M %U %S' -o "$TMP/time.out" \
        "$BIN" build --config "$CONF" >"$TMP/build.log" 2>&1; then
        tail -n 30 "$TMP/build.log" >&2
        die "eggcat build failed during '$what' (last lines above; rerun with KEEP_TMP=1 to keep $TMP/build.log)"
    fi
    read -r secs kib user sys <"$TMP/time.out" || true
    if [[ ! "${secs:-}" =~ ^[0-9.]+$ || ! "${kib:-}" =~ ^[0-9]+$ || ! "${user:-}" =~ ^[0-9.]+$ || ! "${sys:-}" =~ ^[0-9.]+$ ]]; then
        die "could not read /usr/bin/time output: $(cat "$TMP/time.out")"
    fi
    MS=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
    KIB=$kib
    CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 + 0.5 }')
    if ((KIB > PEAK_KIB)); then PEAK_KIB=$KIB; fi
}

# The egg file whose description commit_change edits: the first JSON egg of games-steamcmd, by
# path, with a top-level description. Sets CHANGED_FILE (path inside the repository).
pick_changed_file() {
    local repo="$TMP/repos/games-steamcmd" file
    [[ -d "$repo" ]] || die "no games-steamcmd repository under $TMP/repos"
    file=$(grep -rl --include='*egg-*.json' '^    "description": "' "$repo" | sort | head -n 1 || true)
    [[ -n "$file" ]] || die "no JSON egg with a top-level description in $repo: nothing to change"
    CHANGED_FILE=${file#"$repo/"}
}

# Makes one commit in games-steamcmd that prefixes the description of CHANGED_FILE with
# "[bench change N] ", different for each N.
commit_change() {
    local n=$1 repo="$TMP/repos/games-steamcmd"
    sed -i "0,/^    \"description\": \"/s//    \"description\": \"[bench change $n] /" "$repo/$CHANGED_FILE"
    if git -C "$repo" diff --quiet; then
        die "change $n did not modify anything in $repo"
    fi
    bench_git -C "$repo" commit -q -am "bench change $n" >/dev/null || die "git commit failed in $repo"
}

# Checks, outside the timing, that the current snapshot shows what the build of row NAME was for:
# every source `ok` at its repository's HEAD; with MARK, the document of games-steamcmd's
# CHANGED_FILE has a description starting with MARK. A failed check FAILs the row.
# Usage: verify_snapshot NAME [MARK]
verify_snapshot() {
    local name=$1 mark=${2:-} why
    if ! why=$(bench_check_sources "$DATA" "$TMP/repos" "${BENCH_REPO_NAMES[@]}" 2>&1 >/dev/null); then
        ROW_BAD[$name]=1
        CHECK_FAILS+=("$name: $why")
        return
    fi
    [[ -n "$mark" ]] || return 0
    if ! why=$(python3 - "$DATA/current" "$CHANGED_FILE" "$mark" 2>&1 <<'PY'
import json, os, sys

snapshot, changed_file, mark = sys.argv[1:4]
def load(rel):
    with open(os.path.join(snapshot, rel), encoding="utf-8") as f:
        return json.load(f)
docs = [load(f"api/v1/eggs/{item['slug']}.json") for item in load("api/v1/eggs/_index.json")]
doc = [d for d in docs if d["meta"]["repo"] == "games-steamcmd" and d["meta"]["path"] == changed_file]
if len(doc) != 1:
    sys.exit(f"{len(doc)} documents for games-steamcmd {changed_file}, expected 1")
description = doc[0]["egg"].get("description") or ""
if not description.startswith(mark):
    sys.exit(f"the document of {changed_file} does not show the commit: description {description[:60]!r}")
PY
    ); then
        ROW_BAD[$name]=1
        CHECK_FAILS+=("$name: $why")
    fi
}

# Prints "median max" of the integers given as arguments.
median_max() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d\n", v[int((NR + 1) / 2)], v[NR] }'
}

# Prints KiB as MiB with one decimal.
mib() {
    awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

FAILS=0
ROW_FMT='%-30s %4s %10s %8s %11s %13s %10s   %s\n'

# Prints one table row: name, target in ms, then "ms:kib:cpu" samples. Judged on the median
# wall time (the CPU column, user + system time, says how much of it was eggcat's and git's own
# work, which the load of a shared machine moves less), and
# FAIL whatever the time when a snapshot of the row did not show what its build was for.
row() {
    local name=$1 target_ms=$2 sample med max cpu_med ms kib cpu peak=0 verdict=PASS
    shift 2
    local -a walls=() cpus=()
    for sample in "$@"; do
        IFS=: read -r ms kib cpu <<<"$sample"
        walls+=("$ms")
        cpus+=("$cpu")
        if ((kib > peak)); then peak=$kib; fi
    done
    med="" max="" cpu_med=""
    if ((${#walls[@]} > 0)); then
        read -r med max < <(median_max "${walls[@]}")
        read -r cpu_med _ < <(median_max "${cpus[@]}")
    fi
    if ! bench_is_num "$med" || ! bench_is_num "$cpu_med"; then
        verdict="FAIL (figure missing)"
        FAILS=$((FAILS + 1))
    elif ((med > target_ms)) || [[ -n "${ROW_BAD[$name]:-}" ]]; then
        verdict=FAIL
        FAILS=$((FAILS + 1))
    fi
    # shellcheck disable=SC2059 # the format is a constant
    printf "$ROW_FMT" "$name" "${#walls[@]}" "${med:-missing}" "${max:-missing}" "${cpu_med:-missing}" "$(mib "$peak")" "$target_ms ms" "$verdict"
}

PEAK_KIB=0
FIRST=() NOCHANGE=() COMMIT=()
ROW_FIRST="first build (fresh clones)"
ROW_NOCHANGE="rebuild, no upstream change"
ROW_COMMIT="rebuild after one commit"
declare -A ROW_BAD=()
CHECK_FAILS=()
pick_changed_file

for i in $(seq 1 "$FIRST_RUNS"); do
    say "first build (fresh clones, empty data_dir) ($i/$FIRST_RUNS)"
    rm -rf "$DATA"
    timed_build "first build $i"
    FIRST+=("$MS:$KIB:$CPU")
    verify_snapshot "$ROW_FIRST"
done

for i in $(seq 1 "$RUNS"); do
    say "rebuild without upstream change ($i/$RUNS)"
    timed_build "no-change rebuild $i"
    NOCHANGE+=("$MS:$KIB:$CPU")
    verify_snapshot "$ROW_NOCHANGE"
done

for i in $(seq 1 "$RUNS"); do
    say "rebuild after one commit in games-steamcmd ($i/$RUNS)"
    commit_change "$i"
    timed_build "one-commit rebuild $i"
    COMMIT+=("$MS:$KIB:$CPU")
    verify_snapshot "$ROW_COMMIT" "[bench change $i] "
done

EGGS=$(find "$SHARED/pelican-eggs" -type f -name '*egg-*' -not -path '*/.github/*' | wc -l)
echo
echo "eggcat build ($BIN): ${#BENCH_REPO_NAMES[@]} repositories, $EGGS egg files, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
# shellcheck disable=SC2059 # the format is a constant
{
    printf "$ROW_FMT" scenario runs "median ms" "max ms" "cpu ms" "peak RSS MiB" target result
    printf "$ROW_FMT" -------- ---- --------- ------ ------ ------------ ------ ------
}
row "$ROW_FIRST" "$TARGET_FIRST_MS" "${FIRST[@]}"
row "$ROW_NOCHANGE" "$TARGET_NOCHANGE_MS" "${NOCHANGE[@]}"
row "$ROW_COMMIT" "$TARGET_ONECOMMIT_MS" "${COMMIT[@]}"
RSS_VERDICT=PASS
if ! bench_is_num "$PEAK_KIB" || ((PEAK_KIB == 0)); then
    RSS_VERDICT="FAIL (figure missing)"
    FAILS=$((FAILS + 1))
elif ((PEAK_KIB > TARGET_RSS_MIB * 1024)); then
    RSS_VERDICT=FAIL
    FAILS=$((FAILS + 1))
fi
# shellcheck disable=SC2059 # the format is a constant
printf "$ROW_FMT" "peak RSS, all runs" $((FIRST_RUNS + 2 * RUNS)) - - - "$(mib "$PEAK_KIB")" "$TARGET_RSS_MIB MiB" "$RSS_VERDICT"
echo
echo "Time rows are judged on the median (wall time from /usr/bin/time, 10 ms resolution); cpu ms is"
echo "the median user + system time of eggcat and its git children, not judged."
echo "Every snapshot was checked after its build: every source ok at its HEAD; after each one-commit"
echo "rebuild, the edited egg's document ($CHANGED_FILE) with the new description."
if ((${#CHECK_FAILS[@]} > 0)); then
    echo
    echo "FAILED CHECKS (the snapshot did not show what its build was for):"
    printf '  %s\n' "${CHECK_FAILS[@]}"
fi
if ((FAILS > 0)); then
    echo "FAIL: $FAILS of 4 rows missed their target, lack a figure or failed a check."
    exit 1
fi
echo "PASS: all 4 targets met."
exit 0
