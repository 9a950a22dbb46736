#!/usr/bin/env bash
# Measures how `eggcat build` and `eggcat serve` scale from the real catalog to one 10 times
# larger (issue 28).
#
# The catalogs: 1x is the shared upstream snapshot (ten real egg repositories under
# ../shared/upstream/pelican-eggs, made into local git repositories by bench/lib.sh). 10x is
# those ten plus nine renamed copies of each (`<repo>-copy2` .. `<repo>-copy10`: 100 sources,
# each its own git repository and `[[source]]`). Copy k of an egg differs from the original in
# two fields, edited in place in the file's text so that nothing else changes: ` copy k` is
# appended to its `name`, and its `uuid` (when it has one) becomes a UUIDv5 of (k, the old
# uuid), so that a Pelican egg and its Pterodactyl twin still share one. Both are needed for a
# catalog that is really 10 times larger and not 10 times as many eggs of each game: eggcat
# groups eggs for one game by name and by uuid, and copies under the same name or uuid would
# make groups of 10 and pages comparing every pair. Each edited file is parsed again (JSON, and
# YAML with PyYAML) and must equal the original with those two fields changed; a file that
# cannot be edited that way is copied unchanged (the count is printed).
#
# For each of 1x and 10x, one config (its own data_dir, its own listen address, 127.0.0.1:18090
# and :18091, refresh 24h, registries not asked) serves for build and serve alike, so that serve
# finds a snapshot made by this eggcat with this configuration and does not rebuild it at start
# (docs/operations.md; its log and /readyz's build id and egg count are checked). Both catalogs
# are built first, then served side by side. Measured:
#   build        the first build into an empty data_dir under /usr/bin/time: wall time and
#                peak RSS (its "maximum resident set size", git's children included as the
#                largest of them); every source must be `ok` at its repository's HEAD;
#   snapshot     the files of data_dir/current/ (state.json, manifest.json and precompressed
#                forms, `X.br`, `X.gz`, `X.zst` beside `X`, not counted) and the bytes of all
#                its files, every coding included, each per egg (eggs from api/v1/_status.json);
#   no change    a rebuild with nothing changed upstream, three times: the median wall time;
#   serve start  the time from launching `eggcat serve` to its first 200 from /readyz, polled
#                with curl every 10 ms (resolution about 20 ms: curl's own start is included),
#                1x first, then 10x while the 1x server idles;
#   load         wrk (one thread, 64 connections, 1 s warm-up, then 5 s) on one egg document
#                of median size (the same slug at both scales) and on api/v1/eggs/_index.json,
#                three rounds, each loading 1x then 10x (so that a change of the shared
#                machine's load falls on both): the median requests/s of each;
#   memory       after the load, RssAnon (and VmHWM, information) of /proc/PID/status.
# For the load, wrk runs on CPU 0 and the servers are moved to the other CPUs (taskset -a -p,
# once ready: start to ready is measured unpinned); PIN=0 leaves them all unpinned.
#
# Targets (two cores, release build): serve RssAnon after load <= 48 MiB at 1x, and at 10x
# <= 1.5x the 1x figure; start to ready <= 0.5 s at 1x, <= 2 s at 10x; snapshot files per egg
# <= 8 at both and flat (10x within 10 % of 1x); bytes per egg flat (within 10 %); first build
# peak RSS <= 200 MiB at 1x, <= 400 MiB at 10x; no-change rebuild <= 150 ms at 1x; requests/s
# of the egg document at 10x >= 0.8x the 1x figure (a document of the same size: the server's
# lookup must not slow down with the catalog). The index's requests/s, the build's wall time,
# the no-change rebuild at 10x and VmHWM are printed as information: the index is 10 times
# larger at 10x, so its rate is expected to fall (bench/serve.sh judges requests/s against
# nginx). The egg count at 10x must be exactly 10 times the 1x count (the copies all parsed).
#
# Exits 1 when a target is missed or a figure is missing (empty or not a number: a figure
# that could not be measured is FAIL, never 0), and when the run did not measure what it names
# (a failed build, a source not `ok`, serve rebuilding at start or serving another build, a
# socket error or a non-2xx answer under load); 0 only when every row passes.
#
# Run from anywhere:  bash bench/scale.sh        (KEEP_TMP=1 keeps the temp dir and logs)
# EGGCAT_BIN=/path/to/eggcat measures that binary instead of building this tree's release one.
# SCALE=N makes an N-times catalog instead of 10x (a quick check: SCALE=2). Any target can be
# tightened or loosened with its variable (TARGET_RSS_ANON_MIB=1 fails on purpose);
# SCALE_DROP_FIGURE=NAME.SCALE blanks one figure before judging (e.g. rss_anon_mib.10x; the
# names are the keys of FIG below), to see that a missing figure fails. DURATION (s) and ROUNDS
# set the load.
# Needs: cargo, git, curl, python3 with PyYAML, wrk, /usr/bin/time (wrk and time installed
# with apt-get when missing, as root). Takes about 4 minutes with the current server, plus cargo
# (3 min 46 s on two cores with other jobs running: the 10x catalog about 10 s to make, 26 s to
# build, 89 s for serve to be ready; the load 72 s). Nothing else should run meanwhile.
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

SCALE=${SCALE:-10}
if [[ ! "$SCALE" =~ ^[0-9]+$ ]] || ((SCALE < 2)); then
    die "SCALE must be an integer of at least 2, not '$SCALE'"
fi
NX="${SCALE}x"
# 1x and SCALE are served side by side, each on its own address.
declare -A ADDR_OF=([1x]=127.0.0.1:18090 ["${SCALE}x"]=127.0.0.1:18091)
READY_TIMEOUT_S=${READY_TIMEOUT_S:-300}
NOCHANGE_RUNS=3
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}

TARGET_RSS_ANON_MIB=${TARGET_RSS_ANON_MIB:-48}
TARGET_RSS_ANON_RATIO=${TARGET_RSS_ANON_RATIO:-1.5}
TARGET_READY_1X_MS=${TARGET_READY_1X_MS:-500}
TARGET_READY_NX_MS=${TARGET_READY_NX_MS:-2000}
TARGET_FILES_PER_EGG=${TARGET_FILES_PER_EGG:-8}
TARGET_FLAT_PCT=${TARGET_FLAT_PCT:-10}
TARGET_BUILD_RSS_1X_MIB=${TARGET_BUILD_RSS_1X_MIB:-200}
TARGET_BUILD_RSS_NX_MIB=${TARGET_BUILD_RSS_NX_MIB:-400}
TARGET_NOCHANGE_MS=${TARGET_NOCHANGE_MS:-150}
TARGET_RPS_RATIO=${TARGET_RPS_RATIO:-0.8}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-bench-scale.XXXXXX")
declare -A SERVE_PID=()

# shellcheck disable=SC2317 # called by the trap
cleanup() {
    local label
    for label in "${!SERVE_PID[@]}"; do
        stop_serve "$label"
    done
    if [[ "${KEEP_TMP:-0}" == 1 ]]; then
        say "keeping $TMP"
    else
        rm -rf "$TMP"
    fi
}

# Stops the `eggcat serve` this script started for LABEL, by its pid.
stop_serve() {
    local pid=${SERVE_PID[$1]:-}
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    SERVE_PID[$1]=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_need_tools time git cargo python3 curl wrk
python3 -c 'import yaml' 2>/dev/null || die "python3 cannot import yaml (PyYAML): apt-get install -y python3-yaml"
for addr in "${ADDR_OF[@]}"; do
    if (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; then
        die "something already listens on $addr; stop it first"
    fi
done
if [[ -n "${EGGCAT_BIN:-}" ]]; then
    [[ -x "$EGGCAT_BIN" ]] || die "EGGCAT_BIN=$EGGCAT_BIN is not an executable"
    BIN=$EGGCAT_BIN
else
    bench_build_binary
fi
# A copy, so that a cargo build meanwhile does not swap the binary between the two scales.
cp "$BIN" "$TMP/eggcat"
BIN="$TMP/eggcat"
say "measuring $BIN"

NCPU=$(nproc)
if [[ "${PIN:-1}" == 1 && $NCPU -ge 2 ]] && command -v taskset >/dev/null; then
    LOAD_PIN=(taskset -c 0)
    SERVER_CPUS="1-$((NCPU - 1))"
else
    LOAD_PIN=()
    SERVER_CPUS=""
fi

# Every figure, keyed NAME.SCALE (NAME.1x, NAME.10x); judged by the rows at the end.
declare -A FIG=()

# --- The two catalogs --------------------------------------------------------------------------

# make_copies: bench/lib.sh (bench/search.sh makes the same 10x catalog).

# Writes the config of one scale: its data_dir, its listen address, a refresh far away, no
# registry asked, and one [[source]] per repository named.
# Usage: write_config CONFIG_FILE DATA_DIR LISTEN REPO...
write_config() {
    local conf=$1 data_dir=$2 listen=$3 name
    shift 3
    {
        printf '# Written by bench/scale.sh: %d local git repositories.\n' "$#"
        printf 'data_dir = "%s"\n' "$data_dir"
        printf 'listen = "%s"\n' "$listen"
        printf 'refresh = "24h"\n'
        printf '\n[images]\nenabled = false\n'
        for name in "$@"; do
            printf '\n[[source]]\nurl = "file://%s"\nlabel = "pelican"\nowner = "pelican-eggs"\nrepo = "%s"\nbranch = "main"\n' \
                "$TMP/repos/$name" "$name"
        done
    } >"$conf"
}

# --- Measuring one scale -----------------------------------------------------------------------

# Runs `eggcat build` under /usr/bin/time; sets MS (wall ms) and KIB (peak RSS KiB).
# Usage: timed_build CONFIG WHAT
timed_build() {
    local conf=$1 what=$2 secs kib
    if ! /usr/bin/time -f '%e %M' -o "$TMP/time.out" "$BIN" build --config "$conf" >"$TMP/build.log" 2>&1; then
        tail -n 30 "$TMP/build.log" >&2
        die "eggcat build failed: $what (last lines above)"
    fi
    read -r secs kib <"$TMP/time.out" || true
    [[ "${secs:-}" =~ ^[0-9.]+$ && "${kib:-}" =~ ^[0-9]+$ ]] ||
        die "could not read /usr/bin/time's output: $(cat "$TMP/time.out")"
    MS=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
    KIB=$kib
}

# Checks that the current snapshot of DATA_DIR holds every repository named, `ok` at its HEAD,
# and prints "EGGS BUILD_ID" (bench_check_sources, shared with bench/build.sh).
# Usage: check_snapshot DATA_DIR REPO...
check_snapshot() {
    bench_check_sources "$1" "$TMP/repos" "${@:2}"
}

# Prints "FILES BYTES" of the current snapshot of DATA_DIR (see the header for what counts).
count_snapshot() {
    python3 - "$1/current" <<'PY'
import os, sys

root = os.path.realpath(sys.argv[1])
files = size = 0
for folder, _, names in os.walk(root):
    present = set(names)
    for name in names:
        size += os.lstat(os.path.join(folder, name)).st_size
        if folder == root and name in ("state.json", "manifest.json"):
            continue
        base, ext = os.path.splitext(name)
        if ext in (".br", ".gz", ".zst") and base in present:
            continue
        files += 1
print(files, size)
PY
}

# Runs wrk on URL (1 s warm-up, then DURATION s) and prints its requests/s; fails on a socket
# error or a non-2xx answer.
load() {
    local url=$1 out="$TMP/wrk.out" rps
    if ! "${LOAD_PIN[@]}" wrk -t1 -c64 -d1s "$url" >"$out" 2>&1 ||
        ! "${LOAD_PIN[@]}" wrk -t1 -c64 -d"${DURATION}s" "$url" >"$out" 2>&1; then
        cat "$out" >&2
        die "wrk failed against $url (output above)"
    fi
    if grep -q -E 'Socket errors|Non-2xx' "$out"; then
        cat "$out" >&2
        die "wrk against $url: socket errors or non-2xx answers (above): the figure would measure something else"
    fi
    rps=$(awk '$1 == "Requests/sec:" { printf "%d", $2 + 0.5 }' "$out")
    [[ -n "$rps" ]] || {
        cat "$out" >&2
        die "could not read requests/s from wrk's output (above)"
    }
    echo "$rps"
}

# Prints a field (kB) of /proc/PID/status.
proc_kib() {
    awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null || true
}

# Builds one scale, counts its snapshot, and rebuilds it with no change; sets its figures in FIG,
# and EGGS[LABEL] and BUILD_ID[LABEL] as the snapshot shows them after the rebuilds.
# Usage: build_scale LABEL REPO...
build_scale() {
    local label=$1 data="$TMP/data-$1" conf="$TMP/eggcat-$1.toml"
    local i info eggs files bytes walls=()
    shift
    write_config "$conf" "$data" "${ADDR_OF[$label]}" "$@"

    say "$label: first build of $# repositories"
    timed_build "$conf" "first build, $label"
    FIG[build_ms.$label]=$MS
    FIG[build_rss_mib.$label]=$(awk -v k="$KIB" 'BEGIN { printf "%.1f", k / 1024 }')
    info=$(check_snapshot "$data" "$@" 2>&1) || die "$label: the first build's snapshot is not what it was for: $info"
    read -r eggs _ <<<"$info"
    FIG[eggs.$label]=$eggs
    read -r files bytes < <(count_snapshot "$data")
    FIG[files.$label]=$files
    FIG[bytes_mib.$label]=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
    FIG[files_per_egg.$label]=$(awk -v f="$files" -v e="$eggs" 'BEGIN { printf "%.2f", f / e }')
    FIG[kib_per_egg.$label]=$(awk -v b="$bytes" -v e="$eggs" 'BEGIN { printf "%.1f", b / 1024 / e }')

    for i in $(seq 1 "$NOCHANGE_RUNS"); do
        say "$label: rebuild with no upstream change ($i/$NOCHANGE_RUNS)"
        timed_build "$conf" "no-change rebuild $i, $label"
        walls+=("$MS")
    done
    FIG[nochange_ms.$label]=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    info=$(check_snapshot "$data" "$@" 2>&1) || die "$label: the snapshot after the rebuilds is not what it was for: $info"
    read -r "EGGS[$label]" "BUILD_ID[$label]" <<<"$info"
}

# Starts `eggcat serve` on the snapshot build_scale made for LABEL and waits for /readyz's first
# 200, polled every 10 ms; sets FIG[ready_ms.LABEL] (left unset when serve dies or is not ready
# within READY_TIMEOUT_S, and then SERVE_PID[LABEL] is empty too). The server is then checked
# (no rebuild at start, /readyz showing the build just made) and pinned for the load.
serve_start() {
    local label=$1 conf="$TMP/eggcat-$1.toml" log="$TMP/serve-$1.log" addr=${ADDR_OF[$1]} t0 t1 code body pid
    say "$label: eggcat serve, waiting for /readyz"
    t0=$EPOCHREALTIME
    "$BIN" serve --config "$conf" >"$log" 2>&1 &
    pid=$!
    SERVE_PID[$label]=$pid
    while :; do
        code=$(curl -s -o "$TMP/readyz.json" -w '%{http_code}' --max-time 1 "http://$addr/readyz" || true)
        if [[ "$code" == 200 ]]; then
            t1=$EPOCHREALTIME
            break
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 20 "$log" >&2 || true
            say "$label: eggcat serve exited before it was ready (log above): its figures are missing"
            stop_serve "$label"
            return 0
        fi
        if awk -v a="$t0" -v b="$EPOCHREALTIME" -v t="$READY_TIMEOUT_S" 'BEGIN { exit !(b - a > t) }'; then
            say "$label: eggcat serve was not ready within ${READY_TIMEOUT_S}s: its figures are missing"
            stop_serve "$label"
            return 0
        fi
        sleep 0.01
    done
    FIG[ready_ms.$label]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 + 0.5 }')
    check_no_rebuild "$label"
    body=$(cat "$TMP/readyz.json")
    python3 - "${BUILD_ID[$label]}" "${EGGS[$label]}" "$body" <<'PY' || die "$label: /readyz does not show the snapshot just built: $body"
import json, sys

build_id, eggs, body = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
sys.exit(0 if body.get("build") == build_id and body.get("eggs") == eggs and body.get("status") == "ready" else 1)
PY
    if [[ -n "$SERVER_CPUS" ]] && ! taskset -a -p -c "$SERVER_CPUS" "$pid" >/dev/null; then
        say "$label: could not pin eggcat serve to CPUs $SERVER_CPUS; running unpinned"
    fi
}

# Fails when LABEL's serve log says it started a build: its figures would measure that build
# (docs/operations.md, "Upgrades and configuration changes rebuild at start").
check_no_rebuild() {
    local log="$TMP/serve-$1.log"
    if grep -q -E 'rebuilding it now|building a new one|build failed' "$log"; then
        cat "$log" >&2
        die "$1: eggcat serve started a build (log above): its figures would measure that build"
    fi
}

# Loads every server that is ready: ROUNDS rounds, each running wrk on the egg document and on
# the index of 1x, then of SCALE, so that a change of the machine's load meanwhile falls on both;
# sets the medians of requests/s in FIG.
load_rounds() {
    local round label path case
    local -A runs=()
    local -A paths=([egg]="/api/v1/eggs/$EGG_SLUG.json" [index]=/api/v1/eggs/_index.json)
    for label in 1x "$NX"; do
        [[ -n "${SERVE_PID[$label]:-}" ]] || continue
        FIG[egg_bytes.$label]=$(curl -s -o /dev/null -w '%{size_download}' "http://${ADDR_OF[$label]}${paths[egg]}")
        FIG[index_kib.$label]=$(curl -s -o /dev/null -w '%{size_download}' "http://${ADDR_OF[$label]}${paths[index]}" |
            awk '{ printf "%.1f", $1 / 1024 }')
    done
    for round in $(seq 1 "$ROUNDS"); do
        for label in 1x "$NX"; do
            [[ -n "${SERVE_PID[$label]:-}" ]] || continue
            for case in egg index; do
                path=${paths[$case]}
                say "round $round/$ROUNDS: wrk on $label $path"
                runs[$case.$label]+="$(load "http://${ADDR_OF[$label]}$path") "
                kill -0 "${SERVE_PID[$label]}" 2>/dev/null || die "$label: eggcat serve died under load"
            done
        done
    done
    for label in 1x "$NX"; do
        for case in egg index; do
            [[ -n "${runs[$case.$label]:-}" ]] || continue
            # shellcheck disable=SC2086 # the recorded numbers are split on purpose
            FIG[rps_$case.$label]=$(printf '%s\n' ${runs[$case.$label]} | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
        done
    done
}

# Reads the memory of LABEL's server after the load, then stops it.
read_memory() {
    local label=$1 pid=${SERVE_PID[$1]:-}
    [[ -n "$pid" ]] || return 0
    FIG[rss_anon_mib.$label]=$(proc_kib "$pid" RssAnon | awk 'NF { printf "%.1f", $1 / 1024 }')
    FIG[hwm_mib.$label]=$(proc_kib "$pid" VmHWM | awk 'NF { printf "%.1f", $1 / 1024 }')
    check_no_rebuild "$label"
}

# Sets EGG_SLUG: an egg document of median size in DATA_DIR's current snapshot.
pick_egg() {
    EGG_SLUG=$(python3 - "$1/current/api/v1/eggs" <<'PY'
import json, os, sys

eggs = sys.argv[1]
with open(os.path.join(eggs, "_index.json"), encoding="utf-8") as f:
    index = json.load(f)
items = index if isinstance(index, list) else index.get("eggs", [])
docs = sorted((os.path.getsize(os.path.join(eggs, item["slug"] + ".json")), item["slug"]) for item in items)
print(docs[len(docs) // 2][1])
PY
    ) || die "could not pick an egg document of median size"
}

# --- The run ----------------------------------------------------------------------------------

say "making git repositories from $SHARED/pelican-eggs"
bench_make_repos
say "making $((SCALE - 1)) renamed copies of each ($(((SCALE - 1) * ${#BENCH_REPO_NAMES[@]})) repositories)"
make_copies

declare -A EGGS=() BUILD_ID=()
EGG_SLUG=""
build_scale 1x "${BENCH_REPO_NAMES[@]}"
build_scale "$NX" "${BENCH_REPO_NAMES[@]}" "${COPY_NAMES[@]}"
pick_egg "$TMP/data-1x"
serve_start 1x
serve_start "$NX"
load_rounds
read_memory 1x
read_memory "$NX"
stop_serve 1x
stop_serve "$NX"

# --- The report -------------------------------------------------------------------------------

if [[ -n "${SCALE_DROP_FIGURE:-}" ]]; then
    say "SCALE_DROP_FIGURE: blanking the figure $SCALE_DROP_FIGURE before judging"
    FIG[$SCALE_DROP_FIGURE]=""
fi

# True when $1 is a number (a figure that was measured).
is_num() {
    [[ "${1:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]]
}

# True when A <= B (decimals).
le() {
    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# True when B is within TARGET_FLAT_PCT percent of A.
flat() {
    awk -v a="$1" -v b="$2" -v p="$TARGET_FLAT_PCT" 'BEGIN { d = b / a - 1; if (d < 0) d = -d; exit !(a > 0 && d * 100 <= p) }'
}

# Prints the verdict on the figure NAME, given its 1x figure A and its SCALE figure B (numbers):
# PASS, FAIL with the parts missed, or info for a figure that is printed only.
judge() {
    local name=$1 a=$2 b=$3 failed=()
    case "$name" in
        eggs) [[ "$b" == $((a * SCALE)) ]] || failed+=("$NX is not $SCALE x 1x") ;;
        build_rss_mib)
            le "$a" "$TARGET_BUILD_RSS_1X_MIB" || failed+=(1x)
            le "$b" "$TARGET_BUILD_RSS_NX_MIB" || failed+=("$NX")
            ;;
        nochange_ms) le "$a" "$TARGET_NOCHANGE_MS" || failed+=(1x) ;;
        files_per_egg)
            le "$a" "$TARGET_FILES_PER_EGG" || failed+=(1x)
            le "$b" "$TARGET_FILES_PER_EGG" || failed+=("$NX")
            flat "$a" "$b" || failed+=("not flat")
            ;;
        kib_per_egg) flat "$a" "$b" || failed+=("not flat") ;;
        ready_ms)
            le "$a" "$TARGET_READY_1X_MS" || failed+=(1x)
            le "$b" "$TARGET_READY_NX_MS" || failed+=("$NX")
            ;;
        rss_anon_mib)
            le "$a" "$TARGET_RSS_ANON_MIB" || failed+=(1x)
            le "$b" "$(awk -v a="$a" -v r="$TARGET_RSS_ANON_RATIO" 'BEGIN { print a * r }')" || failed+=("$NX")
            ;;
        rps_egg) le "$(awk -v a="$a" -v r="$TARGET_RPS_RATIO" 'BEGIN { print a * r }')" "$b" || failed+=("$NX below") ;;
        build_ms | files | bytes_mib | hwm_mib | egg_bytes | index_kib | rps_index)
            echo info
            return
            ;;
        *)
            echo "FAIL (no judge for $name)"
            return
            ;;
    esac
    if ((${#failed[@]} == 0)); then echo PASS; else echo "FAIL (${failed[*]})"; fi
}

FAILS=0
ROW_FMT='%-40s %10s %10s  %-26s %s\n'
# Prints one row: the figures NAME.1x and NAME.SCALE, the target, and judge's verdict; a
# figure that is missing or not a number FAILs the row whatever the judge.
row() {
    local title=$1 name=$2 target=$3 a b result
    a=${FIG[$name.1x]:-}
    b=${FIG[$name.$NX]:-}
    if ! is_num "$a" || ! is_num "$b"; then
        result="FAIL (figure missing)"
    else
        result=$(judge "$name" "$a" "$b")
    fi
    [[ "$result" == FAIL* ]] && FAILS=$((FAILS + 1))
    # shellcheck disable=SC2059 # the format is a constant
    printf "$ROW_FMT" "$title" "${a:-missing}" "${b:-missing}" "$target" "$result"
}

echo
echo "eggcat at 1x and $NX ($BIN): ${#BENCH_REPO_NAMES[@]} and $((SCALE * ${#BENCH_REPO_NAMES[@]})) repositories;" \
    "copies: $COPIES_EDITED egg files edited, $COPIES_KEPT copied unchanged; egg document '$EGG_SLUG';" \
    "$NCPU cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
# shellcheck disable=SC2059 # the format is a constant
{
    printf "$ROW_FMT" measure 1x "$NX" target result
    printf "$ROW_FMT" ------- -- "${NX//?/-}" ------ ------
}
row "eggs" eggs "$SCALE x the 1x count"
row "first build, wall ms" build_ms "-"
row "first build, peak RSS MiB" build_rss_mib "<= $TARGET_BUILD_RSS_1X_MIB / <= $TARGET_BUILD_RSS_NX_MIB"
row "no-change rebuild, ms (median of $NOCHANGE_RUNS)" nochange_ms "<= $TARGET_NOCHANGE_MS at 1x"
row "snapshot files (see header)" files "-"
row "snapshot MiB, all codings" bytes_mib "-"
row "snapshot files per egg" files_per_egg "<= $TARGET_FILES_PER_EGG, flat (+-$TARGET_FLAT_PCT %)"
row "snapshot KiB per egg, all codings" kib_per_egg "flat (+-$TARGET_FLAT_PCT %)"
row "serve start to ready, ms" ready_ms "<= $TARGET_READY_1X_MS / <= $TARGET_READY_NX_MS"
row "serve RssAnon after load, MiB" rss_anon_mib "<= $TARGET_RSS_ANON_MIB / <= ${TARGET_RSS_ANON_RATIO}x 1x"
row "serve peak RSS (VmHWM), MiB" hwm_mib "-"
row "egg document, bytes" egg_bytes "-"
row "egg document, requests/s" rps_egg "$NX >= ${TARGET_RPS_RATIO}x 1x"
row "index (_index.json), KiB" index_kib "-"
row "index, requests/s" rps_index "-"
echo
echo "Wall times by /usr/bin/time (10 ms resolution); start to ready polled every 10 ms with curl"
echo "(about 20 ms resolution); requests/s: wrk -t1 -c64 ${DURATION}s after a 1 s warm-up$( ((${#LOAD_PIN[@]})) && echo ", wrk on CPU 0, serve on CPUs $SERVER_CPUS")."
echo "info rows are not judged (the index is $SCALE times larger at $NX); a missing figure FAILs its row."
if ((FAILS > 0)); then
    echo
    echo "$FAILS row(s) FAIL"
    exit 1
fi
exit 0
