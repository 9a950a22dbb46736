#!/usr/bin/env bash
# Holds 10,000 idle connections open against `eggcat serve`, then sends a burst of clients past
# `max_connections`, and measures how soon new clients are answered meanwhile.
#
# 1. `eggcat serve` on the demo catalog (demo/upstream), `max_connections` as configured
#    (MAX_CONNECTIONS, default 1024, the default of the config), `ulimit -n` raised for it and for
#    the client.
# 2. IDLE (10,000) connections opened and held without sending a byte, each opened again as soon
#    as the server closes it (as a slowloris attacker does); after 10 s of that, and for
#    PROBE_SECONDS (20) more, one new client every 100 ms asks for the index (a new connection
#    each), and the time from connect to the whole answer is recorded.
# 3. BURST (3,000) connections at once for 10 s with wrk, each asking for an egg document and
#    closing (`Connection: close`), then opening again: past `max_connections` on purpose.
# Prints, for the probes and for the burst: answered, failed, and the latency median, p99 and
# max. Exits 1 when a probe fails or takes more than LIMIT_SECONDS (5, the time
# docs/operations.md promises); when the burst has a socket error of any kind (connect, read,
# write, or a timeout of LIMIT_SECONDS: a read error is a connection closed before its answer,
# which the cap must not do to a client that sends its request at once) or an answer other than
# 200; and when a figure is missing or zero: no probe sent, not every idle connection opened at
# least once, no request answered in the burst, a latency wrk did not print, the server's
# memory unreadable (it died). 0 only when all of it passes.
#
# Run from anywhere:  bash bench/connections.sh     (EGGCAT_BIN=path to skip the release build)
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate

TMP=$(mktemp -d)
SERVER_PID=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    [[ -n ${KEEP_TMP:-} ]] || rm -rf "$TMP"
}
trap cleanup EXIT

IDLE=${IDLE:-10000}
BURST=${BURST:-3000}
PROBE_SECONDS=${PROBE_SECONDS:-20}
LIMIT_SECONDS=${LIMIT_SECONDS:-5}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-1024}
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[[ $(ulimit -n) -ge $((IDLE + 100)) ]] || die "ulimit -n is $(ulimit -n): need at least $((IDLE + 100))"

if [[ -z ${EGGCAT_BIN:-} ]]; then
    bench_build_binary
    EGGCAT_BIN=$BIN
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/eggcat.toml" <<TOML
data_dir = "$TMP/data"
listen = "127.0.0.1:$PORT"
max_connections = $MAX_CONNECTIONS

[[source]]
url = "$ROOT/demo/upstream"
owner = "eggcat"
repo = "demo-eggs"
TOML
say "serving the demo catalog on 127.0.0.1:$PORT (max_connections $MAX_CONNECTIONS)"
"$EGGCAT_BIN" serve --config "$TMP/eggcat.toml" 2>"$TMP/serve.log" &
SERVER_PID=$!
for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null || die "the server never became ready (log: $TMP/serve.log)"
EGG=$(curl -fs "http://127.0.0.1:$PORT/api/v1/eggs/_index.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["slug"])')

cat >"$TMP/clients.py" <<'PY'
import asyncio, sys, time

PORT, IDLE, BURST, PROBE_SECONDS, LIMIT, EGG = (int(sys.argv[1]), int(sys.argv[2]),
    int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6])

async def fetch(path):
    """Seconds from connect to the whole answer, or None."""
    started = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", PORT), 30)
        w.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = await asyncio.wait_for(r.read(), 30)
        w.close()
        if not data.startswith(b"HTTP/1.1 200"):
            return None
        return time.monotonic() - started
    except Exception:
        return None

async def hold(stop):
    """Keeps one idle connection open until `stop`: reopened as soon as the server closes it
    (as an attacker would), never sending a byte. Returns how many times it was opened."""
    opened = 0
    while time.monotonic() < stop:
        try:
            r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", PORT), 30)
        except Exception:
            await asyncio.sleep(0.05)
            continue
        opened += 1
        try:
            await asyncio.wait_for(r.read(1), max(0.01, stop - time.monotonic()))
        except Exception:
            pass
        w.close()
    return opened

def figures(name, times):
    if not times:
        print(f"{name}: no client sent: FAIL (figure missing)")
        return 1, float("inf")
    ok = sorted(t for t in times if t is not None)
    failed = len(times) - len(ok)
    if not ok:
        print(f"{name}: 0 of {len(times)} answered")
        return failed, float("inf")
    p = lambda q: ok[min(len(ok) - 1, int(q * len(ok)))]
    print(f"{name}: {len(ok)} of {len(times)} answered, {failed} failed; "
          f"latency median {p(0.5)*1000:.1f} ms, p99 {p(0.99)*1000:.1f} ms, max {ok[-1]*1000:.1f} ms")
    return failed, ok[-1]

async def main(mode):
    if mode == "hold":
        stop = time.monotonic() + 10 + PROBE_SECONDS
        each = await asyncio.gather(*(hold(stop) for _ in range(IDLE)))
        held = sum(1 for n in each if n > 0)
        print(f"idle connections: {held} of {IDLE} kept open (each opened again when closed) for "
              f"{10 + PROBE_SECONDS:.0f} s: {sum(each)} opened in all, not a byte sent")
        # The probes measure the server under IDLE silent connections only if they were there.
        if held < IDLE:
            print(f"idle connections: {IDLE - held} never opened: FAIL")
            sys.exit(1)
        return
    if mode == "probe":
        # After 10 s of idle connections, one new client every 100 ms.
        await asyncio.sleep(10)
        probes, tasks = [], []
        async def probe():
            probes.append(await fetch("/api/v1/eggs/_index.json"))
        stop = time.monotonic() + PROBE_SECONDS
        while time.monotonic() < stop:
            tasks.append(asyncio.create_task(probe()))
            await asyncio.sleep(0.1)
        await asyncio.gather(*tasks)
        failed, worst = figures(f"new clients during the idle connections ({PROBE_SECONDS:.0f} s, one every 100 ms)", probes)
    else:
        burst = await asyncio.gather(*(fetch(f"/api/v1/eggs/{EGG}.json") for _ in range(BURST)))
        failed, worst = figures(f"burst of {BURST} clients at once", burst)
    sys.exit(1 if failed > 0 or worst > LIMIT else 0)

asyncio.run(main(sys.argv[7]))
PY
say "holding $IDLE idle connections while probing, each from a process of its own"
args=("$PORT" "$IDLE" "$BURST" "$PROBE_SECONDS" "$LIMIT_SECONDS" "$EGG")
python3 "$TMP/clients.py" "${args[@]}" hold &
HOLD_PID=$!
status=0
python3 "$TMP/clients.py" "${args[@]}" probe || status=1
wait "$HOLD_PID" || status=1
say "a burst of $BURST connections at once, with wrk"
# Each connection sends one request and closes (Connection: close), then opens again: BURST
# clients at any instant, past max_connections, for 10 s.
wrk -t2 -c"$BURST" -d10s --timeout "${LIMIT_SECONDS}s" --latency -H 'Connection: close' \
    "http://127.0.0.1:$PORT/api/v1/eggs/$EGG.json" >"$TMP/wrk.txt" 2>&1 || status=1
python3 - "$TMP/wrk.txt" "$BURST" <<'PYW' || status=1
import re, sys
text = open(sys.argv[1]).read()
requests = re.search(r"(\d+) requests in", text)
errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
lat = {q: v for q, v in re.findall(r"^\s+(50|99)%\s+(\S+)", text, re.M)}
mx = re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", text)
# wrk prints its "Socket errors" line only when there was one.
e = [int(x) for x in errors.groups()] if errors else [0, 0, 0, 0]
bad = (int(non2xx.group(1)) if non2xx else 0)
answered = int(requests.group(1)) if requests else 0
print(f"burst of {sys.argv[2]} connections at once for 10 s (one request each, wrk): "
      f"{requests.group(1) if requests else '?'} answered; socket errors connect {e[0]}, read {e[1]}, "
      f"write {e[2]}, timeout {e[3]}; non-2xx {bad}; latency median {lat.get('50')}, p99 {lat.get('99')}, max {mx.group(1) if mx else '?'}")
fails = []
if sum(e): fails.append("socket errors")
if bad: fails.append("answers other than 200")
if answered == 0: fails.append("no request answered (figure missing)")
if None in (lat.get("50"), lat.get("99"), mx): fails.append("latency figures missing")
if fails:
    print("burst: FAIL: " + ", ".join(fails))
sys.exit(1 if fails else 0)
PYW
rss=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER_PID/status" 2>/dev/null || true)
if bench_is_num "$rss"; then
    echo "server: peak resident memory $((rss / 1024)) MiB; binary $EGGCAT_BIN; max_connections $MAX_CONNECTIONS"
else
    echo "server: no memory figure (the server is gone; log: $TMP/serve.log): FAIL"
    status=1
fi
echo "limit: every client answered within $LIMIT_SECONDS s, no socket error, every figure there: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit "$status"
