#!/usr/bin/env bash
# Attacks `eggcat serve` at `max_connections` with clients that hold their connections without
# making progress, and measures how soon a new client is answered meanwhile (issue 41).
#
# 1. `eggcat serve` on the catalog of the ten shared upstream repositories, `max_connections` =
#    MAX_CONNECTIONS (8). The large index is its search summary, `_summary.json` (436 KB with
#    the 621 eggs of the shared snapshot, more than the socket buffers hold between a server and
#    a client that does not read).
# 2. Four phases, each with ATTACKERS (64) clients of a kind, from the loopback addresses
#    127.0.0.2 to 127.0.0.9 in turn, each opening its connection again as soon as the server
#    closes it (or, for the reconnecting kind, after a second anyway):
#    - pipeliners: send PIPELINED (16) requests for the large index and never read an answer;
#    - slow heads: send a request line and `Host`, then one byte every 300 ms, never ending
#      the head;
#    - reconnecting: send a request line and nothing more, and reconnect every second;
#    - all together: ATTACKERS in all, a third of each kind.
#    In each phase, after 2 s of attack, a probe opens a new connection every 100 ms for
#    PROBE_SECONDS (31: at least 300 samples) and asks for /healthz; the time from connect to
#    the whole answer is recorded (a failed or unanswered probe counts as infinitely slow). And
#    an honest slow client reads the index at RATE (50,000) bytes a second during the attack
#    (5 KB every 100 ms; curl's --limit-rate was tried and lets bursts through: 436 KB in
#    0.4 s); its body must be the index, whole, and its time at least size / RATE.
# Prints per phase: the attackers' connections opened, the probes' count, median, p99 and max,
# and the honest client's bytes and time. Exits 1 when a phase's p99 is over LIMIT_MS (1000),
# when there are fewer than 300 probes, when the honest client's body is not the whole index,
# or when a figure is missing (an attacker kind that opened no connection, the server gone).
#
# Loopback only; about 3 minutes after the build. Run from anywhere:
#   bash bench/attack.sh     (EGGCAT_BIN=path to skip the release build)
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

ATTACKERS=${ATTACKERS:-64}
PIPELINED=${PIPELINED:-16}
PROBE_SECONDS=${PROBE_SECONDS:-31}
LIMIT_MS=${LIMIT_MS:-1000}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-8}
RATE=${RATE:-50000}
bench_need_counts ATTACKERS PIPELINED PROBE_SECONDS LIMIT_MS MAX_CONNECTIONS RATE
[[ $ATTACKERS -le 64 ]] || die "ATTACKERS is at most 64 (bounded on purpose), not $ATTACKERS"
ulimit -n 4096 2>/dev/null || true

if [[ -z ${EGGCAT_BIN:-} ]]; then
    bench_build_binary
    EGGCAT_BIN=$BIN
fi
say "building the catalog of the shared upstream repositories"
bench_make_repos
bench_write_config "$TMP/eggcat.toml" "$TMP/data"
"$EGGCAT_BIN" build --config "$TMP/eggcat.toml" 2>"$TMP/build.log" || die "the build failed (log: $TMP/build.log)"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -i "s/^listen = .*/listen = \"127.0.0.1:$PORT\"\nmax_connections = $MAX_CONNECTIONS/" "$TMP/eggcat.toml"
say "serving on 127.0.0.1:$PORT (max_connections $MAX_CONNECTIONS)"
"$EGGCAT_BIN" serve --config "$TMP/eggcat.toml" 2>"$TMP/serve.log" &
SERVER_PID=$!
for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null || die "the server never became ready (log: $TMP/serve.log)"
INDEX=/api/v1/eggs/_summary.json
curl -fs -o "$TMP/index.json" "http://127.0.0.1:$PORT$INDEX" || die "cannot read the index"
INDEX_BYTES=$(stat -c %s "$TMP/index.json")
INDEX_SHA=$(sha256sum "$TMP/index.json" | cut -d' ' -f1)
say "the index is $INDEX_BYTES bytes"

cat >"$TMP/attack.py" <<'PY'
import asyncio, socket, sys, time

PORT, KIND, N, SECONDS, PIPELINED = (int(sys.argv[1]), sys.argv[2], int(sys.argv[3]),
    float(sys.argv[4]), int(sys.argv[5]))
INDEX = b"GET /api/v1/eggs/_summary.json HTTP/1.1\r\nHost: x\r\n\r\n"

def source(i):
    return (f"127.0.0.{2 + i % 8}", 0)

def established(w):
    """Whether the server has not closed the connection (TCP_INFO's state is ESTABLISHED)."""
    try:
        return w.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] == 1
    except OSError:
        return False

async def attacker(i, kind, stop):
    opened = 0
    while time.monotonic() < stop:
        try:
            r, w = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", PORT, local_addr=source(i)), 30)
        except Exception:
            await asyncio.sleep(0.05)
            continue
        opened += 1
        w.transport.pause_reading()  # never reads a byte of an answer
        if kind == "pipeliners":
            w.write(INDEX * PIPELINED)
        elif kind == "slow-heads":
            w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        else:
            w.write(b"GET /healthz HTTP/1.1\r\n")
        held = time.monotonic()
        while time.monotonic() < stop and established(w):
            if kind == "reconnecting" and time.monotonic() - held > 1:
                break
            await asyncio.sleep(0.3 if kind == "slow-heads" else 0.05)
            if kind == "slow-heads" and established(w):
                w.write(b"X")
        w.transport.abort()
    return opened

async def main():
    stop = time.monotonic() + SECONDS
    kinds = ["pipeliners", "slow-heads", "reconnecting"] if KIND == "all" else [KIND]
    # All together: N in all, split over the kinds.
    count = {k: N // len(kinds) + (1 if j < N % len(kinds) else 0) for j, k in enumerate(kinds)}
    tasks = {k: [asyncio.create_task(attacker(i, k, stop)) for i in range(count[k])] for k in kinds}
    for k, ts in tasks.items():
        each = await asyncio.gather(*ts)
        print(f"{k}: {count[k]} attackers opened {sum(each)} connections ({sum(1 for n in each if n)} of them at least one)")
        if sum(each) == 0:
            print(f"{k}: no connection opened: FAIL (figure missing)")
            sys.exit(1)

asyncio.run(main())
PY

cat >"$TMP/honest.py" <<'PY'
import hashlib, socket, sys, time

PORT, PATH, RATE, OUT = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
started = time.monotonic()
s = socket.create_connection(("127.0.0.1", PORT), timeout=60)
s.sendall(f"GET {PATH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
data = b""
while True:
    # RATE bytes a second: 5 KB at a time, each read waiting until the rate allows it.
    wait = started + len(data) / RATE - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    try:
        chunk = s.recv(RATE // 10)
    except OSError as e:
        print(f"error {e}")
        break
    if not chunk:
        break
    data += chunk
head, _, body = data.partition(b"\r\n\r\n")
status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.1 ") else "none"
with open(OUT, "w") as f:
    f.write(f"{status} {time.monotonic() - started:.1f} {len(body)} {hashlib.sha256(body).hexdigest()}\n")
PY

cat >"$TMP/probe.py" <<'PY'
import asyncio, sys, time

PORT, SECONDS, LIMIT_MS, NAME = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]

async def probe():
    started = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", PORT), 20)
        w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = await asyncio.wait_for(r.read(), 20)
        w.close()
        if not data.startswith(b"HTTP/1.1 200"):
            return None
        return time.monotonic() - started
    except Exception:
        return None

async def main():
    # One every 100 ms by the clock, so that a busy machine delays probes but never drops one.
    tasks = []
    start = time.monotonic()
    for i in range(int(SECONDS * 10)):
        await asyncio.sleep(max(0.0, start + i / 10 - time.monotonic()))
        tasks.append(asyncio.create_task(probe()))
    times = await asyncio.gather(*tasks)
    ok = sorted(t for t in times if t is not None)
    failed = len(times) - len(ok)
    ranked = ok + [float("inf")] * failed
    p = lambda q: ranked[min(len(ranked) - 1, int(q * len(ranked)))]
    ms = lambda t: f"{t * 1000:.0f} ms" if t != float("inf") else "never"
    verdict = "PASS" if len(times) >= 300 and p(0.99) * 1000 <= LIMIT_MS else "FAIL"
    print(f"{NAME}: {len(times)} probes, {failed} failed; median {ms(p(0.5))}, "
          f"p99 {ms(p(0.99))}, max {ms(ranked[-1])}: {verdict}")
    sys.exit(0 if verdict == "PASS" else 1)

asyncio.run(main())
PY

status=0
for kind in pipeliners slow-heads reconnecting all; do
    count=$ATTACKERS
    [[ $kind == all ]] && count="$ATTACKERS in all"
    say "attack: $kind ($count), probes for $PROBE_SECONDS s and an honest client at $RATE bytes/s"
    seconds=$((PROBE_SECONDS + 4))
    python3 "$TMP/attack.py" "$PORT" "$kind" "$ATTACKERS" "$seconds" "$PIPELINED" >"$TMP/attack-$kind.txt" 2>"$TMP/attack-$kind.err" &
    attack=$!
    sleep 2
    python3 "$TMP/honest.py" "$PORT" "$INDEX" "$RATE" "$TMP/honest-$kind.txt" &
    honest=$!
    python3 "$TMP/probe.py" "$PORT" "$PROBE_SECONDS" "$LIMIT_MS" "new clients during $kind ($count)" || status=1
    wait "$attack" || status=1
    sed 's/^/    /' "$TMP/attack-$kind.txt"
    wait "$honest" || true
    read -r code took got sha <"$TMP/honest-$kind.txt" || true
    slowest=$((INDEX_BYTES / RATE))
    if [[ ${code:-} == 200 && ${got:-} == "$INDEX_BYTES" && ${sha:-} == "$INDEX_SHA" ]] &&
        bench_is_num "${took:-}" && [[ ${took%.*} -ge $((slowest - 1)) ]]; then
        echo "    honest client at $RATE bytes/s: the whole index ($got of $INDEX_BYTES bytes, same SHA-256) in ${took:-?} s: PASS"
    else
        echo "    honest client at $RATE bytes/s: status ${code:-none}, ${got:-0} of $INDEX_BYTES bytes in ${took:-?} s: FAIL"
        status=1
    fi
done
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "server: gone (log: $TMP/serve.log): FAIL"
    status=1
fi
echo "limit: every phase p99 <= $LIMIT_MS ms over >= 300 probes, the honest client's index whole: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit "$status"
