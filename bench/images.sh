#!/usr/bin/env bash
# Image checks with every registry unreachable (issue 24, "Done when": a build with every
# registry unreachable takes no longer than the budget and changes no status to missing).
#
# A plain-folder upstream of 60 eggs names 200 distinct image references (the shared corpus
# names 184) on five registries that cannot answer, all on this machine so that nothing
# reaches the internet: three that accept connections and never answer (a registry that hangs,
# the worst case: every request waits for its timeout), one whose port refuses connections, one
# whose name does not resolve. Each scenario runs RUNS times from an empty data_dir:
#
#   off      [images] enabled = false: the build without registries, for comparison
#   budget   [images] with BUDGET (default 10s) and TIMEOUT (default 3s), the registries down
#   again    a second build in the same data_dir (unknown answers are asked again)
#
# and prints the wall time of each build, the time the image step took (its log line), the
# answers (every reference must be unknown, none missing), and PASS when every build with
# images took at most the budget more than the median build without them. Exits 1 otherwise,
# and when a figure is missing (a build whose time or answers could not be read, or with no
# reference unknown: the registries were not asked), never read as 0.
#
# Run from anywhere:  bash bench/images.sh   (EGGCAT_BIN=path to skip the release build;
# BUDGET=60s TIMEOUT=10s for the defaults, RUNS=3)
set -euo pipefail

TMP=$(mktemp -d)
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
script_dir=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$script_dir/.." && pwd)
BUDGET=${BUDGET:-10s}
TIMEOUT=${TIMEOUT:-3s}
RUNS=${RUNS:-3}
if [[ -n ${EGGCAT_BIN:-} ]]; then
    [[ -x $EGGCAT_BIN ]] || die "EGGCAT_BIN=$EGGCAT_BIN is not an executable"
    BIN=$EGGCAT_BIN
else
    BIN="$ROOT/target/release/eggcat"
    bench_build_binary
fi

# Registries that hang: a listener that accepts and never answers, one per port.
hang_ports=()
for _ in 1 2 3; do
    python3 - "$TMP/port.$$" <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1024)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    c, _ = s.accept()
    held.append(c)
PY
    PIDS+=($!)
    for _ in $(seq 50); do [[ -s $TMP/port.$$ ]] && break; sleep 0.1; done
    hang_ports+=("$(cat "$TMP/port.$$")")
    rm -f "$TMP/port.$$"
done
refused=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
registries=("127.0.0.1:${hang_ports[0]}" "127.0.0.1:${hang_ports[1]}" "127.0.0.1:${hang_ports[2]}"
    "127.0.0.1:$refused" "registry.invalid")

# 60 eggs, each with three runtime images and an install container: 200 distinct references.
mkdir -p "$TMP/up"
n=0
for e in $(seq 0 59); do
    images=""
    for k in 0 1 2; do
        r=${registries[$(((e * 3 + k) % 5))]}
        images+="\"v$k\": \"$r/eggs/egg-$e:v$k\","
    done
    install="${registries[$((e % 5))]}/installers/i-$((e % 4)):1"
    cat >"$TMP/up/egg-e$e.json" <<EOF
{"meta": {"version": "PTDL_v2"}, "name": "Egg $e", "author": "a@example.com",
 "docker_images": {${images%,}}, "startup": "./run",
 "config": {"files": "{}", "startup": "{\"done\": \"ok\"}", "logs": "{}", "stop": "stop"},
 "scripts": {"installation": {"script": "true", "container": "$install", "entrypoint": "bash"}},
 "variables": []}
EOF
    n=$((n + 1))
done

config() { # DATA_DIR IMAGES_TABLE
    printf 'data_dir = "%s"\n\n[images]\n%s\n\n[[source]]\nurl = "%s"\nowner = "bench"\nrepo = "images"\n' \
        "$1" "$2" "$TMP/up" >"$TMP/eggcat.toml"
}

# Runs one build; prints "wall_ms image_ms present missing unknown".
build() {
    local start end log="$TMP/build.log"
    start=$(date +%s%N)
    "$BIN" build --config "$TMP/eggcat.toml" >/dev/null 2>"$log" || { cat "$log" >&2; die "build failed"; }
    end=$(date +%s%N)
    local image_ms
    image_ms=$({ grep -o 'image checks done.*' "$log" || true; } | { grep -o 'ms=[0-9]*' || true; } | tail -1 | cut -d= -f2)
    python3 - "$1/current/api/v1/_status.json" "$(((end - start) / 1000000))" "${image_ms:--}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["images"]
print(sys.argv[2], sys.argv[3], r["present"], r["missing"], r["unknown"])
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Dies (FAIL) unless the build's figures were read: a build run in `< <(build ...)` cannot stop
# this script itself, and an empty figure would read as 0 in arithmetic.
figures_read() {
    local f
    for f in "${wall:-}" "${p:-}" "${m:-}" "${u:-}"; do
        bench_is_num "$f" || die "$1: a figure is missing (wall '${wall:-}', present '${p:-}', missing '${m:-}', unknown '${u:-}'): FAIL"
    done
}

budget_ms=$(python3 -c "
import re,sys
t='$BUDGET'; m={'ms':1,'s':1000,'m':60000,'h':3600000}
print(sum(int(v)*m[u] for v,u in re.findall(r'(\d+)\s*(ms|s|m|h)', t)))")
say "eggcat: $BIN; $n eggs, budget $BUDGET, timeout $TIMEOUT, $RUNS runs each"
printf 'scenario\trun\twall_ms\timage_ms\tpresent\tmissing\tunknown\n'
off=()
for i in $(seq "$RUNS"); do
    rm -rf "$TMP/data"
    config "$TMP/data" 'enabled = false'
    read -r wall image p m u < <(build "$TMP/data") || true
    printf 'off\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "${wall:-missing}" "${image:--}" "${p:-missing}" "${m:-missing}" "${u:-missing}"
    figures_read "off $i"
    off+=("$wall")
done
base=$(printf '%s\n' "${off[@]}" | median)
worst=0
not_unknown=0
for i in $(seq "$RUNS"); do
    rm -rf "$TMP/data"
    config "$TMP/data" "budget = \"$BUDGET\"
timeout = \"$TIMEOUT\""
    for scenario in budget again; do
        read -r wall image p m u < <(build "$TMP/data") || true
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$i" "${wall:-missing}" "${image:--}" "${p:-missing}" "${m:-missing}" "${u:-missing}"
        figures_read "$scenario $i"
        ((u > 0)) || die "$scenario $i: no image reference unknown with every registry down: the registries were not asked (FAIL)"
        ((wall - base > worst)) && worst=$((wall - base))
        not_unknown=$((not_unknown + m + p))
    done
done
verdict=PASS
((worst <= budget_ms + 1000)) || verdict=FAIL
((not_unknown == 0)) || verdict=FAIL
printf '\nmedian build without images: %s ms; most a build with every registry down took beyond it: %s ms (budget %s ms): %s\n' \
    "$base" "$worst" "$budget_ms" "$verdict"
printf 'answers other than unknown with every registry down: %s\n' "$not_unknown"
[[ $verdict == PASS ]]
