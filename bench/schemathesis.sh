#!/usr/bin/env bash
# schemathesis against `eggcat serve` of the demo, with the server's own /api/v1/openapi.json:
# every operation, all four phases (examples, coverage, fuzzing, stateful, the last following the
# OpenAPI links from the index to the slug operations), all checks (no 5xx, status, content
# type, headers and body conforming to the schema, negative data rejected, ...).
#
# Usage: bench/schemathesis.sh [EXAMPLES]   (examples per operation, default 50)
# Prints: requests (answered by the server, from its own /metrics), operations tested, 5xx
# answers, failures; exits non-zero on any failure or any 5xx.
#
# schemathesis (PyPI, 4.32.x) is expected in a virtualenv in cargo's target folder,
# ${CARGO_TARGET_DIR:-target}/venv-schemathesis, which `.ci/install` makes. The binary is the
# debug build (`cargo build -p eggcat`): this is a conformance run, not a speed measurement.
#
# One setting differs from schemathesis's defaults, in the config file written below:
# `positive_data_acceptance` also accepts 412. A schema-valid conditional request whose
# precondition does not hold (an `If-Match` naming other tags, an empty `If-Match`, which is a
# list of no tags, or an `If-Unmodified-Since` before the document's date) must be answered 412
# (RFC 9110 section 13.1.1; nginx answers the same), and every operation that takes those
# headers documents its 412. Without it, each of those requests counts as "valid data rejected".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

EXAMPLES=${1:-50}
[[ $EXAMPLES =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [EXAMPLES per operation, default 50]" >&2; exit 2; }
TARGET=${CARGO_TARGET_DIR:-target}
[[ $TARGET == /* ]] || TARGET="$ROOT/$TARGET"
ST="$TARGET/venv-schemathesis/bin/schemathesis"
[[ -x $ST ]] || { echo "error: $ST is missing: run bash .ci/install" >&2; exit 1; }

TMP=$(mktemp -d)
SERVER_PID=
cleanup() {
    [[ -z $SERVER_PID ]] || kill "$SERVER_PID" 2>/dev/null || true
    [[ -z $SERVER_PID ]] || wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

echo "==> building eggcat (debug)" >&2
cargo build -q -p eggcat
BIN="$TARGET/debug/eggcat"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/eggcat.toml" <<EOF
data_dir = "$TMP/data"
listen = "127.0.0.1:$PORT"
history_depth = 8
[[source]]
url = "$ROOT/demo/upstream.bundle"
label = "demo"
owner = "eggcat"
repo = "demo-eggs"
branch = "main"
EOF
cat >"$TMP/schemathesis.toml" <<'EOF'
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "412", "429", "5xx"]
EOF

EGGCAT_LOG=warn "$BIN" serve --config "$TMP/eggcat.toml" >"$TMP/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 300); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz") == 200 ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/serve.log" >&2; echo "error: eggcat serve exited" >&2; exit 1; }
    sleep 0.1
done

# What the server answered before the run (the readiness polls above, 503 until the first build)
# is taken off the counts after it.
curl -s "http://127.0.0.1:$PORT/metrics" >"$TMP/metrics-before.txt"

echo "==> schemathesis $("$ST" --version | awk '{print $NF}'), $EXAMPLES examples per operation" >&2
start=$SECONDS
status=0
(cd "$TMP" && "$ST" --config-file "$TMP/schemathesis.toml" run \
    "http://127.0.0.1:$PORT/api/v1/openapi.json" \
    --checks all --max-examples "$EXAMPLES" --no-color \
    --report ndjson --report-ndjson-path "$TMP/events.ndjson") >"$TMP/run.txt" 2>&1 || status=$?
took=$((SECONDS - start))

# The server's own count of what it answered during the run, by status: the counters after it
# minus those before (the read of the counters before is the one request of this script counted).
curl -s "http://127.0.0.1:$PORT/metrics" >"$TMP/metrics.txt"
count() {
    awk '
        /^eggcat_http_requests_total\{/ {
            n = $NF; total += n
            if (match($0, /status="5[0-9][0-9]"/)) errors += n
        }
        END { printf "%d %d\n", total, errors }' "$1"
}
read -r after_requests after_errors < <(count "$TMP/metrics.txt")
read -r before_requests before_errors < <(count "$TMP/metrics-before.txt")
requests=$((after_requests - before_requests - 1))
server_errors=$((after_errors - before_errors))
operations=$(sed -n 's/^ *Tested: \([0-9]*\).*/\1/p' "$TMP/run.txt" | head -1)
failures=$(python3 - "$TMP/events.ndjson" <<'EOF'
import json, sys
# A failure: a check that failed, counted once per (operation, code, message), as schemathesis
# counts unique failures.
seen = set()
for line in open(sys.argv[1]):
    finished = json.loads(line).get("ScenarioFinished")
    if not finished:
        continue
    for checks in (finished["recorder"].get("checks") or {}).values():
        for check in checks:
            if check.get("status") == "failure":
                f = (check.get("failure_info") or {}).get("failure") or {}
                seen.add((f.get("operation"), f.get("code"), f.get("message")))
print(len(seen))
EOF
)

if [[ $status -ne 0 || $failures -ne 0 ]]; then
    sed -n '/FAILURES/,$p' "$TMP/run.txt" | head -200 >&2
fi
if [[ $server_errors -ne 0 ]]; then
    echo "5xx answers, by route (eggcat's /metrics):" >&2
    grep -E '^eggcat_http_requests_total\{.*status="5' "$TMP/metrics-before.txt" "$TMP/metrics.txt" >&2 || true
fi
printf 'schemathesis: %s examples per operation, %s s\n' "$EXAMPLES" "$took"
printf 'requests:   %s (answered by eggcat serve during the run, from its /metrics)\n' "$requests"
printf 'operations: %s\n' "${operations:-0}"
printf '5xx:        %s\n' "$server_errors"
printf 'failures:   %s\n' "$failures"
grep -E '^\s+[0-9]+ generated' "$TMP/run.txt" | sed 's/^ */test cases: /' || true
# A count that could not be read (empty) or no request answered is a failure, never a 0.
if [[ $status -ne 0 || ! $failures =~ ^[0-9]+$ || $failures -ne 0 || $server_errors -ne 0 || -z $operations ]] ||
    ((requests <= 0)); then
    echo "FAIL (schemathesis exit status $status)"
    exit 1
fi
echo "PASS"
