#!/usr/bin/env bash
# Measures `eggcat build` on the shared upstream snapshot (ten real egg repositories).
#
# What it measures, each with /usr/bin/time (wall seconds, peak resident memory):
#   1. first build from fresh clones into an empty data_dir (one run);
#   2. rebuild with no upstream change (5 runs: median and max);
#   3. rebuild after one new commit in games-steamcmd, a different egg description edit
#      each time (5 runs: median and max).
# The ten folders under ../shared/upstream/pelican-eggs are turned into local git
# repositories (one commit each) in a temp dir and listed as file:// sources.
#
# Run from anywhere:  bash bench/build.sh        (KEEP_TMP=1 keeps the temp dir)
# Needs: cargo, git, /usr/bin/time (installed with apt-get when missing, as root).
# Prints a table with PASS/FAIL against the targets; time rows are judged on the median,
# the memory row on the peak over all runs. Exits 0 even on FAIL: it is a measurement.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

TARGET_FIRST_MS=2000
TARGET_NOCHANGE_MS=300
TARGET_ONECOMMIT_MS=500
TARGET_RSS_MIB=150
RUNS=5

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

bench_need_tools time git cargo
bench_build_binary

say "making git repositories from $SHARED/pelican-eggs"
bench_make_repos
CONF="$TMP/eggcat.toml"
DATA="$TMP/data"
bench_write_config "$CONF" "$DATA"

# Runs one `eggcat build` under /usr/bin/time; sets MS (wall ms) and KIB (peak RSS KiB).
timed_build() {
    local what=$1 secs kib
    if ! /usr/bin/time -f '%e %M' -o "$TMP/time.out" \
        "$BIN" build --config "$CONF" >"$TMP/build.log" 2>&1; then
        tail -n 30 "$TMP/build.log" >&2
        die "eggcat build failed during '$what' (last lines above; rerun with KEEP_TMP=1 to keep $TMP/build.log)"
    fi
    read -r secs kib <"$TMP/time.out" || true
    if [[ ! "${secs:-}" =~ ^[0-9.]+$ || ! "${kib:-}" =~ ^[0-9]+$ ]]; then
        die "could not read /usr/bin/time output: $(cat "$TMP/time.out")"
    fi
    MS=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
    KIB=$kib
    if ((KIB > PEAK_KIB)); then PEAK_KIB=$KIB; fi
}

# Makes one commit in games-steamcmd that changes an egg's description (a README line when
# no JSON egg has a top-level description), different for each N.
commit_change() {
    local n=$1 repo="$TMP/repos/games-steamcmd" file
    [[ -d "$repo" ]] || die "no games-steamcmd repository under $TMP/repos"
    file=$(grep -rl --include='*egg-*.json' '^    "description": "' "$repo" | sort | head -n 1 || true)
    if [[ -n "$file" ]]; then
        sed -i "0,/^    \"description\": \"/s//    \"description\": \"[bench change $n] /" "$file"
    else
        printf '\nbench change %s\n' "$n" >>"$repo/README.md"
    fi
    if git -C "$repo" diff --quiet; then
        die "change $n did not modify anything in $repo"
    fi
    bench_git -C "$repo" commit -q -am "bench change $n" >/dev/null || die "git commit failed in $repo"
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
ROW_FMT='%-30s %4s %10s %8s %13s %10s   %s\n'

# Prints one table row: name, target in ms, then "ms:kib" samples. Judged on the median.
row() {
    local name=$1 target_ms=$2 sample med max peak=0 verdict=PASS
    shift 2
    local -a walls=()
    for sample in "$@"; do
        walls+=("${sample%:*}")
        if ((${sample#*:} > peak)); then peak=${sample#*:}; fi
    done
    read -r med max < <(median_max "${walls[@]}")
    if ((med > target_ms)); then
        verdict=FAIL
        FAILS=$((FAILS + 1))
    fi
    # shellcheck disable=SC2059 # the format is a constant
    printf "$ROW_FMT" "$name" "${#walls[@]}" "$med" "$max" "$(mib "$peak")" "$target_ms ms" "$verdict"
}

PEAK_KIB=0
FIRST=() NOCHANGE=() COMMIT=()

say "first build (fresh clones, empty data_dir)"
timed_build "first build"
FIRST+=("$MS:$KIB")

for i in $(seq 1 "$RUNS"); do
    say "rebuild without upstream change ($i/$RUNS)"
    timed_build "no-change rebuild $i"
    NOCHANGE+=("$MS:$KIB")
done

for i in $(seq 1 "$RUNS"); do
    say "rebuild after one commit in games-steamcmd ($i/$RUNS)"
    commit_change "$i"
    timed_build "one-commit rebuild $i"
    COMMIT+=("$MS:$KIB")
done

EGGS=$(find "$SHARED/pelican-eggs" -type f -name '*egg-*' -not -path '*/.github/*' | wc -l)
echo
echo "eggcat build: ${#BENCH_REPO_NAMES[@]} repositories, $EGGS egg files, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
# shellcheck disable=SC2059 # the format is a constant
{
    printf "$ROW_FMT" scenario runs "median ms" "max ms" "peak RSS MiB" target result
    printf "$ROW_FMT" -------- ---- --------- ------ ------------ ------ ------
}
row "first build (fresh clones)" "$TARGET_FIRST_MS" "${FIRST[@]}"
row "rebuild, no upstream change" "$TARGET_NOCHANGE_MS" "${NOCHANGE[@]}"
row "rebuild after one commit" "$TARGET_ONECOMMIT_MS" "${COMMIT[@]}"
RSS_VERDICT=PASS
if ((PEAK_KIB > TARGET_RSS_MIB * 1024)); then
    RSS_VERDICT=FAIL
    FAILS=$((FAILS + 1))
fi
# shellcheck disable=SC2059 # the format is a constant
printf "$ROW_FMT" "peak RSS, all runs" $((1 + 2 * RUNS)) - - "$(mib "$PEAK_KIB")" "$TARGET_RSS_MIB MiB" "$RSS_VERDICT"
echo
echo "Time rows are judged on the median (wall time from /usr/bin/time, 10 ms resolution)."
if ((FAILS > 0)); then
    echo "FAIL: $FAILS of 4 targets missed."
else
    echo "PASS: all 4 targets met."
fi
exit 0
