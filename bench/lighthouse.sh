#!/usr/bin/env bash
# Lighthouse 12 (npm lighthouse@12.8.2 from tests/browser, its default mobile preset: a
# mid-range phone, simulated slow 4G and 4x CPU slowdown) on the catalog page and one egg page
# (the egg with the most variables), served by `eggcat serve` on 127.0.0.1 from a release build.
# The catalog is the ten shared repositories (../shared/upstream/pelican-eggs), or the bundled
# demo when they are absent. Prints per page and run the four category scores and the
# cumulative layout shift, and PASS/FAIL per page on the median run (by performance) against
# the targets: performance, accessibility, best practices and SEO 100, CLS under 0.1. A
# missing figure is a failure. No network: Debian's Chromium with the flags below.
# Needs: cargo, node with tests/browser/node_modules (npm ci), Chromium, python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED="$(dirname "$ROOT")/shared/upstream/pelican-eggs"
LH="$ROOT/tests/browser/node_modules/.bin/lighthouse"
RUNS=${RUNS:-3}
[[ -x "$LH" ]] || { echo "error: $LH missing (npm ci --prefix tests/browser)" >&2; exit 1; }
export CHROME_PATH=${CHROME_PATH:-/usr/lib/chromium/chromium}
TMP=$(mktemp -d)
SERVER_PID=""
cleanup() { [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

echo "==> release build (eggcat)" >&2
(cd "$ROOT" && cargo build -q --release -p eggcat)
EGGCAT="${CARGO_TARGET_DIR:-$ROOT/target}/release/eggcat"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
{
    echo "data_dir = \"$TMP/data\""
    echo "base_url = \"http://127.0.0.1:$PORT\""
    if [[ -d "$SHARED" ]]; then
        for r in "$SHARED"/*/; do
            n=$(basename "$r")
            printf '[[source]]\nurl = "%s"\nlabel = "pelican"\nowner = "pelican-eggs"\nrepo = "%s"\nbranch = "main"\n' "${r%/}" "$n"
        done
    else
        printf '[[source]]\nurl = "%s"\nlabel = "demo"\nowner = "eggcat"\nrepo = "demo-eggs"\nbranch = "main"\n' "$ROOT/demo/upstream.bundle"
    fi
} > "$TMP/eggcat.toml"
if [[ -d "$SHARED" ]]; then CATALOG="the ten shared repositories"; else CATALOG="the demo catalog ($SHARED is absent)"; fi
echo "==> build: $CATALOG" >&2
"$EGGCAT" build --config "$TMP/eggcat.toml" --out "$TMP/out" >/dev/null 2>&1
EGG=$(python3 - "$TMP/out" <<'PY'
import json, os, sys
root = os.path.join(sys.argv[1], "api/v1/eggs")
best, most = None, -1
for e in sorted(json.load(open(os.path.join(root, "_index.json"))), key=lambda e: e["slug"]):
    doc = json.load(open(os.path.join(root, e["slug"] + ".json")))
    n = len(doc["egg"].get("variables") or [])
    if n > most:
        best, most = e["slug"], n
print(best)
PY
)
"$EGGCAT" serve --config "$TMP/eggcat.toml" --listen "127.0.0.1:$PORT" >/dev/null 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 600); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz" && break
    sleep 0.1
done

FLAGS="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run"
STATUS=0
for page in "/" "/eggs/$EGG/"; do
    for run in $(seq 1 "$RUNS"); do
        "$LH" "http://127.0.0.1:$PORT$page" --quiet --chrome-flags="$FLAGS" \
            --only-categories=performance,accessibility,best-practices,seo \
            --output=json --output-path="$TMP/lh-$run.json" >/dev/null 2>"$TMP/lh-$run.err" || true
    done
    python3 - "$page" "$TMP" "$RUNS" <<'PY' || STATUS=1
import json, sys
page, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = []
for run in range(1, runs + 1):
    try:
        r = json.load(open(f"{tmp}/lh-{run}.json"))
        cats = r["categories"]
        def score(k):
            s = cats.get(k, {}).get("score")
            return None if s is None else round(s * 100)
        row = {k: score(k) for k in ("performance", "accessibility", "best-practices", "seo")}
        row["cls"] = r["audits"].get("cumulative-layout-shift", {}).get("numericValue")
        row["dom"] = r["audits"].get("dom-size", {}).get("numericValue")
        row["lcp"] = r["audits"].get("largest-contentful-paint", {}).get("numericValue")
        row["tbt"] = r["audits"].get("total-blocking-time", {}).get("numericValue")
    except Exception as e:
        row = {"error": str(e)}
    rows.append(row)
def fmt(v, f="{}"):
    return "missing" if v is None else f.format(v)
for i, row in enumerate(rows, 1):
    if "error" in row:
        print(f"{page} run {i}: no report ({row['error']})")
        continue
    print(f"{page} run {i}: performance {fmt(row['performance'])}, accessibility {fmt(row['accessibility'])}, "
          f"best practices {fmt(row['best-practices'])}, SEO {fmt(row['seo'])}, CLS {fmt(row['cls'], '{:.3f}')} "
          f"(LCP {fmt(row['lcp'], '{:.0f}')} ms, TBT {fmt(row['tbt'], '{:.0f}')} ms, DOM {fmt(row['dom'], '{:.0f}')} elements)")
good = [r for r in rows if "error" not in r and r.get("performance") is not None]
if not good:
    print(f"{page}: FAIL (no Lighthouse report)")
    sys.exit(1)
good.sort(key=lambda r: r["performance"])
m = good[len(good) // 2]
missing = [k for k in ("performance", "accessibility", "best-practices", "seo", "cls") if m.get(k) is None]
ok = not missing and all(m[k] == 100 for k in ("performance", "accessibility", "best-practices", "seo")) and m["cls"] < 0.1
print(f"{page} median of {len(good)}: performance {fmt(m['performance'])}, accessibility {fmt(m['accessibility'])}, "
      f"best practices {fmt(m['best-practices'])}, SEO {fmt(m['seo'])}, CLS {fmt(m['cls'], '{:.3f}')} "
      f"(targets 100, 100, 100, 100, < 0.1) {'PASS' if ok else 'FAIL'}" + (f" (missing: {', '.join(missing)})" if missing else ""))
sys.exit(0 if ok else 1)
PY
done
echo "catalog: $CATALOG; egg page: /eggs/$EGG/"
exit $STATUS
