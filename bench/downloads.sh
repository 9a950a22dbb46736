#!/usr/bin/env bash
# Download checks on the shared corpus with every host unreachable (issue 38, "Done when": a
# build with every host unreachable, and a resolver that hangs, stays within the budget and
# takes seconds, not the budget, when each host fails at once).
#
# The shared corpus (../shared/upstream/pelican-eggs, ten repositories as one plain-folder
# source) built from an empty data_dir, three ways:
#
#   off      [images] enabled = false: no registry, no download host asked
#   offline  checks on; names resolve through the system, which on this machine (no network)
#            fails each lookup at once
#   hang     checks on; `[images] resolve` sends every host the corpus names (download hosts
#            and registries) to `hang`: each lookup waits for the request's timeout, as behind a
#            resolver that holds lookups (the worst case for a build)
#
# Prints the wall time of each build, the time of the image and download steps (their log
# lines), the downloads asked, the hosts that failed and the requests their failure spared, and
# the answers (none may be missing). PASS when, in `hang`, the download step took at most two
# timeouts plus 2 s (each host fails once, at the same time) and every build stayed within the
# budget; exits 1 otherwise, or when a figure could not be read.
#
# Run from anywhere:  bash bench/downloads.sh   (EGGCAT_BIN=path to skip the release build;
# BUDGET=60s TIMEOUT=5s)
set -euo pipefail

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
script_dir=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$script_dir/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/upstream/pelican-eggs}
BUDGET=${BUDGET:-60s}
TIMEOUT=${TIMEOUT:-5s}
[[ -d $CORPUS ]] || die "no corpus at $CORPUS"
if [[ -n ${EGGCAT_BIN:-} ]]; then
    [[ -x $EGGCAT_BIN ]] || die "EGGCAT_BIN=$EGGCAT_BIN is not an executable"
    BIN=$EGGCAT_BIN
else
    BIN="$ROOT/target/release/eggcat"
    bench_build_binary
fi
secs() { python3 -c "
import re; m={'ms':1,'s':1000,'m':60000,'h':3600000}
print(sum(int(v)*m[u] for v,u in re.findall(r'(\d+)\s*(ms|s|m|h)', '$1')))"; }
budget_ms=$(secs "$BUDGET")
timeout_ms=$(secs "$TIMEOUT")

# Every host the corpus's eggs name: their scripts' URLs and their images' registries.
hosts=$(python3 - "$CORPUS" <<'PY'
import json, os, re, sys
hosts = {"ghcr.io", "registry-1.docker.io", "auth.docker.io", "quay.io"}
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if "egg-" in f:
            text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
            hosts.update(h.lower() for h in re.findall(r"https?://([A-Za-z0-9.-]+\.[A-Za-z]{2,})", text))
print(" ".join(sorted(hosts)))
PY
)
resolve=$(for h in $hosts; do printf '"%s" = "hang", ' "$h"; done)

config() { # IMAGES_TABLE
    printf 'data_dir = "%s"\n\n[images]\n%s\n\n[[source]]\nurl = "%s"\nowner = "bench"\nrepo = "corpus"\n' \
        "$TMP/data" "$1" "$CORPUS" >"$TMP/eggcat.toml"
}

# One build from an empty data_dir; prints "wall_ms image_ms download_ms asked hosts_failed
# spared present missing unknown not_checkable".
build() {
    rm -rf "$TMP/data"
    local start end log="$TMP/build.log"
    start=$(date +%s%N)
    RUST_LOG=info "$BIN" build --config "$TMP/eggcat.toml" >/dev/null 2>"$log" || { tail -5 "$log" >&2; die "build failed"; }
    end=$(date +%s%N)
    python3 - "$TMP/data/current/api/v1/_status.json" "$(((end - start) / 1000000))" "$log" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))["downloads"]
log = open(sys.argv[3], encoding="utf-8", errors="replace").read()
def last(pattern):
    found = re.findall(pattern, log)
    return found[-1] if found else "-"
image_ms = last(r"image checks done.*?ms=(\d+)")
download_ms = last(r"download checks done.*?ms=(\d+)")
asked = last(r"download checks done.*?asked=(\d+)")
failed = re.findall(r'host failed once in this check check="?downloads.*?unknown_without_asking=(\d+)', log)
print(sys.argv[2], image_ms, download_ms, asked, len(failed), sum(map(int, failed)),
      d["present"], d["missing"], d["unknown"], d["notCheckable"])
PY
}

say "eggcat: $BIN; corpus $CORPUS; $(wc -w <<<"$hosts") hosts; budget $BUDGET, timeout $TIMEOUT"
printf 'scenario\twall_ms\timage_ms\tdownload_ms\tasked\thosts_failed\tspared\tpresent\tmissing\tunknown\tnot_checkable\n'
verdict=PASS
for scenario in off offline hang; do
    case $scenario in
    off) config 'enabled = false' ;;
    offline) config "budget = \"$BUDGET\"
timeout = \"$TIMEOUT\"" ;;
    hang) config "budget = \"$BUDGET\"
timeout = \"$TIMEOUT\"
resolve = { ${resolve%, } }" ;;
    esac
    read -r wall image dl asked failed spared p m u nc < <(build) || true
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "${wall:-missing}" "${image:--}" "${dl:--}" \
        "${asked:--}" "${failed:--}" "${spared:--}" "${p:-missing}" "${m:-missing}" "${u:-missing}" "${nc:-missing}"
    for f in "${wall:-}" "${p:-}" "${m:-}" "${u:-}"; do
        bench_is_num "$f" || die "$scenario: a figure is missing: FAIL"
    done
    ((m == 0)) || { say "$scenario: $m downloads missing with every host unreachable"; verdict=FAIL; }
    if [[ $scenario != off ]]; then
        bench_is_num "${dl:-}" || die "$scenario: the download step's time is missing: FAIL"
        ((u > 0)) || { say "$scenario: no download unknown: the hosts were not asked"; verdict=FAIL; }
    fi
    if [[ $scenario == hang ]]; then
        ((dl <= 2 * timeout_ms + 2000)) || { say "hang: the download step took $dl ms, more than two timeouts"; verdict=FAIL; }
        ((image + dl <= budget_ms + 1000)) || { say "hang: the checks took more than the budget"; verdict=FAIL; }
    fi
done
printf '\n%s\n' "$verdict"
[[ $verdict == PASS ]]
