#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ (cargo-fuzz, libFuzzer) for DURATION each and prints, per
# target: the time run, executions, executions per second, corpus size, and crashes found.
# Then runs bench/schemathesis.sh (the running server from outside) when that script exists.
#
# Usage:  bash bench/fuzz.sh DURATION [TARGET...]      DURATION: 30, 30s, 5m, 1h
#   FUZZ_JOBS=N    targets run at once (default 1; the machine has 2 cores)
#   FUZZ_BUILD=0   skip building (the binaries under fuzz/target are current)
#   FUZZ_SEEDS=small   seed without ../shared (the demo, the test cases, the hostile inputs)
#   FUZZ_SCHEMATHESIS=0   do not run bench/schemathesis.sh
#
# Works on the stable toolchain: cargo-fuzz passes `-Z` flags (the sanitizer, sancov) to rustc,
# which stable accepts with RUSTC_BOOTSTRAP=1. cargo-fuzz is installed from crates.io
# (`cargo install cargo-fuzz --locked`, into ~/.cargo/bin) when missing. The seed corpora are
# written by fuzz/seed.py under fuzz/corpus/ (not committed); what a run adds stays there for
# the next run. A crash input is written to fuzz/artifacts/TARGET/ and the exit status is 1.
# A target that stopped before DURATION without a finding (its run ended early: it fuzzed less
# than asked, which a passing run must not hide) also makes the exit status 1.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:?usage: bench/fuzz.sh DURATION [TARGET...]}
shift
case $duration in
    *h) seconds=$((${duration%h} * 3600)) ;;
    *m) seconds=$((${duration%m} * 60)) ;;
    *s) seconds=${duration%s} ;;
    *) seconds=$duration ;;
esac
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "bad DURATION: $duration" >&2; exit 2; }

export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "==> installing cargo-fuzz from crates.io" >&2
    cargo install cargo-fuzz --locked --quiet
fi

targets=("$@")
if ((${#targets[@]} == 0)); then
    mapfile -t targets < <(cd fuzz && cargo fuzz list)
fi

if [[ ${FUZZ_SEEDS:-} == small ]]; then
    python3 fuzz/seed.py --no-shared >/dev/null
else
    python3 fuzz/seed.py >/dev/null
fi
if [[ ${FUZZ_BUILD:-1} != 0 ]]; then
    echo "==> building ${#targets[@]} targets" >&2
    start=$SECONDS
    (cd fuzz && cargo fuzz build)
    echo "==> built in $((SECONDS - start)) s" >&2
fi

logs=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-fuzz.XXXXXX")
trap 'rm -rf "$logs"' EXIT
touch "$logs/started"
bin=target/x86_64-unknown-linux-gnu/release

# One target for `seconds`: libFuzzer stops at the first crash, leak, timeout (10 s for one
# input: a hang) or out-of-memory (2 GiB resident, or one allocation over 1 GiB). The binary
# built above is run directly (`cargo fuzz run` would build again and set ASAN_OPTIONS itself).
run() {
    local t=$1
    mkdir -p "fuzz/artifacts/$t" "fuzz/corpus/$t"
    local status=0 began=$SECONDS
    (cd fuzz && ASAN_OPTIONS=detect_odr_violation=0 "$bin/$t" "corpus/$t" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="artifacts/$t/") \
        >"$logs/$t.log" 2>&1 || status=$?
    # Findings only: libFuzzer also writes a `slow-unit-*` file for an input slower than its
    # report threshold (`-report_slow_units`), which is not a failure by itself.
    local found
    found=$(find "fuzz/artifacts/$t" -type f -newer "$logs/started" \
        \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    echo "$status $found $((SECONDS - began))" >"$logs/$t.status"
}

running=0
for t in "${targets[@]}"; do
    run "$t" &
    running=$((running + 1))
    if ((running >= ${FUZZ_JOBS:-1})); then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

failed=0
printf '%-10s %8s %12s %9s %8s %8s\n' target seconds executions exec/s corpus crashes
for t in "${targets[@]}"; do
    log="$logs/$t.log"
    read -r status crashes ran <"$logs/$t.status"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
    printf '%-10s %8s %12s %9s %8s %8s\n' "$t" "$ran" "${execs:-?}" "${rate:-?}" "$corpus" "$crashes"
    if [[ $status != 0 || $crashes != 0 ]]; then
        failed=1
        echo "--- $t: exit status $status; the end of its log:" >&2
        grep -v '^#\|^INFO\|^stat::' "$log" | tail -40 >&2
        find "fuzz/artifacts/$t" -type f -newer "$logs/started" >&2
    elif ((ran < seconds)); then
        failed=1
        echo "--- $t: ran $ran s, not the $seconds s asked; the end of its log:" >&2
        grep -v '^#\|^INFO\|^stat::' "$log" | tail -20 >&2
    fi
done

if [[ -f bench/schemathesis.sh && ${FUZZ_SCHEMATHESIS:-1} != 0 ]]; then
    echo "==> bench/schemathesis.sh" >&2
    bash bench/schemathesis.sh || failed=1
fi
exit "$failed"
