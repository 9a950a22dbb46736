#!/usr/bin/env bash
# Soak: `eggcat serve` under constant load while upstream moves and the catalog rebuilds.
#
# The ten shared repositories (made into local git repositories in a temp dir) are served by
# `eggcat serve --refresh 10s`: a rebuild every 10 s. While it runs, for MINUTES (default 10):
#   - upstream: a commit every 3 s in a random repository (an egg's description changed, an egg
#     added, an egg removed: `soak.py mutate`);
#   - load: wrk (16 connections, one per thread, so that each answer is known by its path)
#     over a mix of the index, summary, status, both compat indexes, the web pages, feed,
#     OpenAPI, and 200 eggs' documents, import files and pages, plus three 404 paths; a third of
#     the requests ask for gzip, br or zstd, one in ten is conditional (`soak.lua`), and every
#     path that answered 404 or 410 is named;
#   - the checker (`soak.py check`): rounds of status, summary, eight listed eggs' document,
#     import file and page, status again; in a round that one build answered whole, every listed
#     egg must answer 200 with the name and `indexedAt` the summary gives (no response mixes two builds);
#   - memory: VmRSS of the server every 5 s, against its value once the first build is served.
#
# Pass (exit 0): no socket error, no status outside 200/304/404/410, and a 404 or 410 only
# where one is expected: every path that answered one is listed with why (`soak.py judge`), and
# a path the first build made (a document or page of an egg its summary listed, an import
# file the egg's document names) whose egg was not removed upstream, or not yet at the second
# it answered, should exist and FAILs the run (a rebuild that loses import files); 404 is
# expected of the three 404 paths and of import files the egg's document does not name (no file
# is written for an egg Pelican cannot import), 404 or 410 of the paths of an egg removed during
# the run. Also: each path answered, before the load, as the catalog says it should;
# no mixed round, no checker error, every rebuild the server logged succeeded, and resident
# memory at most 1.3x its first value at every sample. Exits 1 on any of these, and when a
# figure is missing (no request, no rebuild, no conclusive checker round, no upstream commit).
# Prints the figures either way.
#
# Run: bash bench/soak.sh [MINUTES]   (KEEP_TMP=1 keeps the temp dir and logs)
# Needs: cargo, git, curl, python3, wrk (installed with apt-get when missing, as root).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

MINUTES=${1:-10}
SECONDS_TOTAL=$(python3 -c "print(int(float('$MINUTES') * 60))")
ADDR=127.0.0.1:18090
BASE=http://$ADDR
MAX_RATIO=1.3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-bench-soak.XXXXXX")
PIDS=()

# shellcheck disable=SC2317 # called by the trap
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [[ "${KEEP_TMP:-0}" == 1 ]]; then say "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

bench_need_tools wrk curl python3 git cargo
bench_build_binary
bench_make_repos
bench_write_config "$TMP/eggcat.toml" "$TMP/data"
sed -i "s/^listen = .*/listen = \"$ADDR\"/" "$TMP/eggcat.toml"

say "eggcat serve --refresh 10s (first build)"
"$BIN" serve --config "$TMP/eggcat.toml" --refresh 10s >"$TMP/serve.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 1 300); do
    curl -sf "$BASE/readyz" >/dev/null 2>&1 && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$TMP/serve.log" >&2; die "eggcat serve exited"; }
    sleep 0.2
done
curl -sf "$BASE/readyz" >/dev/null || die "not ready after 60 s"
# One pass over every path first (soak.py paths), so that the baseline holds what serving
# them allocates; the baseline is sampled right after, before the first rebuild.
python3 "$(dirname "$0")/soak.py" paths "$BASE" "$TMP/paths.txt" >"$TMP/paths.out"

python3 "$(dirname "$0")/soak.py" memory "$SERVER" 5 >"$TMP/memory.json" &
PIDS+=($!)
MEMORY=$!
python3 "$(dirname "$0")/soak.py" mutate "$TMP/repos" 3 >"$TMP/mutate.json" 2>"$TMP/mutate.err" &
PIDS+=($!)
MUTATE=$!
python3 "$(dirname "$0")/soak.py" check "$BASE" 0.5 >"$TMP/check.json" 2>"$TMP/check.err" &
PIDS+=($!)
CHECK=$!

say "load for $MINUTES min (wrk -t16 -c16; a commit every 3 s, a rebuild every 10 s)"
LOAD_START=$(date +%s)
SOAK_PATHS="$TMP/paths.txt" wrk -t16 -c16 -d"${SECONDS_TOTAL}s" --timeout 5s --latency \
    -s "$(dirname "$0")/soak.lua" "$BASE" >"$TMP/wrk.out" 2>&1 || {
    cat "$TMP/wrk.out" >&2
    die "wrk failed"
}
for pid in "$MUTATE" "$CHECK" "$MEMORY"; do kill -TERM "$pid" 2>/dev/null || true; done
wait "$MUTATE" "$CHECK" "$MEMORY" 2>/dev/null || true
kill -0 "$SERVER" 2>/dev/null || die "eggcat serve died during the soak (log: $TMP/serve.log)"

export TMP MAX_RATIO MINUTES
status=0
python3 - <<'EOF' || status=1
import json, os, re, sys
tmp = os.environ["TMP"]
wrk = open(f"{tmp}/wrk.out").read()
statuses = json.loads(re.search(r"^statuses (\{.*\})$", wrk, re.M).group(1))
warm = json.loads(open(f"{tmp}/paths.out").read())
lat = dict((k, int(v)) for k, v in re.findall(r"(p50|p90|p99|p999|max)=(\d+)", wrk))
errs = dict((k, int(v)) for k, v in re.findall(r"(connect|read|write|timeout)=(\d+)", wrk))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))
total = sum(statuses.values())
mem = json.load(open(f"{tmp}/memory.json"))
mut = json.load(open(f"{tmp}/mutate.json"))
chk = json.load(open(f"{tmp}/check.json"))
log = open(f"{tmp}/serve.log").read()
published = log.count("rebuild made current")
unchanged = log.count("nothing changed upstream")
failed = [l for l in log.splitlines() if " ERROR " in l or "failed_sources=[\"" in l]
unexpected = {k: v for k, v in statuses.items() if k not in ("200", "304", "404", "410")}
ratio = mem["max_ratio"]
limit = float(os.environ["MAX_RATIO"])
rows = [
    ("minutes", os.environ["MINUTES"], ""),
    ("paths loaded", warm["paths"], f"of {warm['eggs']} eggs; answered unlike the catalog before the load: {len(warm['unlike_catalog'])}"),
    ("requests (wrk)", total, f"{rps:.0f}/s"),
    ("statuses", json.dumps(statuses, sort_keys=True), "unexpected: " + (json.dumps(unexpected) if unexpected else "none")),
    ("socket errors", sum(errs.values()), json.dumps(errs)),
    ("latency p50 / p99 / p99.9 / max", f"{lat['p50']/1000:.2f} / {lat['p99']/1000:.2f} / {lat['p999']/1000:.2f} / {lat['max']/1000:.2f} ms", ""),
    ("upstream commits", mut["commits"], f"changed {mut['changed']}, added {mut['added']}, removed {mut['removed']}"),
    ("rebuilds", published + unchanged, f"made current {published}, nothing changed {unchanged}"),
    ("rebuild errors in the server log", len(failed), failed[0][:160] if failed else ""),
    ("checker rounds", chk["rounds"], f"consistent {chk['consistent']}, straddled a swap {chk['straddled']}, mixed {chk['mixed']}, errors {chk['errors']}, requests {chk['requests']}"),
    ("mixed examples", len(chk["examples"]), " | ".join(chk["examples"])[:600]),
    ("resident memory", f"{mem['baseline_kib']//1024} MiB first, max {mem['max_kib']//1024} MiB at {mem['max_at_s']:.0f} s, last {mem['last_kib']//1024} MiB", f"max ratio {ratio:.2f} (limit {limit})"),
    ("memory samples", len(mem["samples"]), "every 5 s"),
]
for name, value, note in rows:
    print(f"{name:<34} {value!s:<44} {note}")
for line in warm["unlike_catalog"]:
    print(f"  before the load: {line}")
fails = []
if warm["unlike_catalog"]: fails.append("paths answered unlike the catalog before the load")
if total == 0: fails.append("no request answered")
if unexpected: fails.append("unexpected statuses")
if sum(errs.values()): fails.append("socket errors")
if failed: fails.append("rebuild errors")
if published == 0: fails.append("no rebuild made current")
if chk["mixed"] or chk["errors"]: fails.append("checker: mixed rounds or errors")
if chk["consistent"] == 0: fails.append("checker: no conclusive round")
if mut["commits"] == 0: fails.append("no upstream commit")
if ratio > limit: fails.append(f"memory ratio {ratio:.2f} > {limit}")
print("FAIL: " + ", ".join(fails) if fails else "PASS")
sys.exit(1 if fails else 0)
EOF
echo
echo "paths that answered 404 or 410 under the load (seconds from its start):"
if ! python3 "$(dirname "$0")/soak.py" judge "$TMP/paths.txt.json" "$TMP/mutate.json" "$TMP/wrk.out" "$LOAD_START" >"$TMP/judge.out"; then
    status=1
fi
cat "$TMP/judge.out"
if ((status != 0)); then
    echo "soak: FAIL (above)"
    exit 1
fi
echo "soak: PASS"
exit 0
