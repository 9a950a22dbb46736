#!/usr/bin/env bash
# Measures `eggcat publish` of the shared upstream snapshot (ten real egg repositories) to a
# local S3 server (moto), each run under /usr/bin/time (wall seconds, peak resident memory):
#   1. first publish into an empty bucket (objects, bytes, time);
#   2. publish again with nothing changed (time, objects uploaded: 0);
#   3. publish after one egg's description changed in games-steamcmd and a rebuild (objects
#      uploaded: the egg, and every document of that repository, since each carries the
#      repository's commit, plus the lists).
#
# No target: it prints its figures. Exits 1 when a figure is missing (a time or peak memory
# /usr/bin/time did not give, a publish whose summary line does not say what it uploaded),
# never printing one as 0.
#
# Run from anywhere:  bash bench/publish.sh      (KEEP_TMP=1 keeps the temp dir)
# Needs: cargo, git, /usr/bin/time, and moto: set EGGCAT_MOTO to a moto_server binary, or have
# target/venv-moto/bin/moto_server, which .ci/install puts there.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

MOTO=${EGGCAT_MOTO:-$ROOT/target/venv-moto/bin/moto_server}
[[ -x "$MOTO" ]] || die "moto_server not found at $MOTO (set EGGCAT_MOTO; see the header of this script)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-bench-publish.XXXXXX")
MOTO_PID=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [[ -n "$MOTO_PID" ]]; then
        kill "$MOTO_PID" 2>/dev/null || true
        wait "$MOTO_PID" 2>/dev/null || true
    fi
    if [[ "${KEEP_TMP:-0}" == 1 ]]; then
        say "keeping $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT

bench_need_tools time git cargo curl
bench_build_binary

say "making git repositories from $SHARED/pelican-eggs"
bench_make_repos
# build.toml builds only; eggcat.toml adds the [publish] table (the same data_dir).
BUILD_CONF="$TMP/build.toml"
CONF="$TMP/eggcat.toml"
bench_write_config "$BUILD_CONF" "$TMP/data"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
say "starting moto on 127.0.0.1:$PORT"
"$MOTO" -H 127.0.0.1 -p "$PORT" >"$TMP/moto.log" 2>&1 &
MOTO_PID=$!
for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break
    sleep 0.1
done
curl -sf -X PUT "http://127.0.0.1:$PORT/eggcat" >/dev/null || die "cannot create the bucket on moto"
{
    cat "$BUILD_CONF"
    printf '\n[publish]\nurl = "s3://eggcat/bench"\n'
    printf 'endpoint = "http://127.0.0.1:%s"\npath_style = true\n' "$PORT"
} >"$CONF"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench

say "building the catalog"
"$BIN" build --config "$BUILD_CONF" >"$TMP/build.log" 2>&1 || {
    tail -n 30 "$TMP/build.log" >&2
    die "eggcat build failed"
}

PEAK_KIB=0
# Runs one `eggcat publish` under /usr/bin/time with ARGS; sets MS, KIB and LINE (the summary).
timed_publish() {
    local secs kib
    if ! /usr/bin/time -f '%e %M' -o "$TMP/time.out" \
        "$BIN" publish --config "$CONF" "$@" >"$TMP/publish.out" 2>"$TMP/publish.err"; then
        tail -n 20 "$TMP/publish.err" >&2
        die "eggcat publish $* failed"
    fi
    read -r secs kib <"$TMP/time.out" || true
    if ! bench_is_num "${secs:-}" || ! bench_is_num "${kib:-}"; then
        die "eggcat publish $*: could not read /usr/bin/time's output: $(cat "$TMP/time.out")"
    fi
    MS=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
    KIB=$kib
    if ((KIB > PEAK_KIB)); then PEAK_KIB=$KIB; fi
    LINE=$(tail -n 1 "$TMP/publish.out")
    [[ "$LINE" =~ :\ [0-9]+\ uploaded\ \([^\)]*\),\ [0-9]+\ unchanged ]] ||
        die "eggcat publish $*: its last line does not say what it uploaded: $LINE"
}
# "published snapshot ID to URL: N uploaded (B), M unchanged, D deleted in T s"
uploaded() { sed -E 's/.*: ([0-9]+) uploaded.*/\1/' <<<"$LINE"; }
bytes() { sed -E 's/.* uploaded \(([^)]*)\).*/\1/' <<<"$LINE"; }
unchanged() { sed -E 's/.* ([0-9]+) unchanged.*/\1/' <<<"$LINE"; }

say "first publish (empty prefix)"
timed_publish
FIRST="$(uploaded) objects, $(bytes), ${MS} ms"
say "$LINE"

say "publish with nothing changed"
timed_publish
NOCHANGE="${MS} ms, $(uploaded) uploaded, $(unchanged) unchanged"
say "$LINE"

say "one egg changed in games-steamcmd: rebuild, then publish"
repo="$TMP/repos/games-steamcmd"
file=$(grep -rl --include='*egg-*.json' '^    "description": "' "$repo" | sort | head -n 1 || true)
[[ -n "$file" ]] || die "no JSON egg with a description in $repo"
sed -i '0,/^    "description": "/s//    "description": "[bench change] /' "$file"
bench_git -C "$repo" commit -q -am "bench change" >/dev/null
# Built without [publish], so that the publish below is the one measured.
"$BIN" build --config "$BUILD_CONF" >"$TMP/build.log" 2>&1 || die "rebuild failed"
timed_publish
ONE="$(uploaded) objects ($(bytes)), ${MS} ms"
say "$LINE"

printf '\neggcat publish, ten shared repositories, local moto (S3) on 127.0.0.1\n'
printf '  %-28s %s\n' "first publish:" "$FIRST"
printf '  %-28s %s\n' "no-change publish:" "$NOCHANGE"
printf '  %-28s %s\n' "one egg changed:" "$ONE"
printf '  %-28s %s MiB\n' "peak memory (max RSS):" "$((PEAK_KIB / 1024))"
