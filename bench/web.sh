#!/usr/bin/env bash
# The web catalog's budgets on the ten shared repositories (issue 8), made git repositories
# with a history (issue 17: the first two JSON eggs of each get 12 commits, each changing their
# docker images and every tenth line of their install script, so that their pages show 10
# versions with script diffs), printed as figures:
#   - the catalog page's first load, compressed (HTML + CSS + JS + _summary.json; gzip -9, the
#     weakest encoding eggcat serves; brotli is smaller),
#   - each keystroke of the search in Chromium (performance.now around the synchronous filter
#     and the forced layout of the new list, every prefix of a set of queries; max and p95),
#   - egg pages compressed without their README (and without the icon, a separate file), and
#     the same for the pages whose Changes section lists more than one version,
#   - the time render() adds to a build (release, best of 5).
# A figure counts only if it measured what it names, else its line is FAIL (never read as 0):
# the keystrokes only if the list followed the queries within the timing (no egg for "zzz",
# some for "minecraft", fewer than all for "valheim"); the egg pages' max only if every egg of
# the index has its page. Exits 1 on any FAIL.
# Needs: cargo, git, node with tests/browser/node_modules (npm ci), Chromium, python3, gzip.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
bench_locate
TMP=$(mktemp -d)
SERVER_PID=""
cleanup() { [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

echo "==> release build (eggcat, render_tree)" >&2
(cd "$ROOT" && cargo build -q --release -p eggcat && cargo build -q --release -p eggcat-web --example render_tree)

echo "==> git repositories with a history" >&2
bench_make_repos
for name in "${BENCH_REPO_NAMES[@]}"; do
    repo="$TMP/repos/$name"
    mapfile -t eggs < <(cd "$repo" && grep -rl --include='*egg-*.json' '"docker_images"' . | sort | head -n 2)
    for egg in "${eggs[@]}"; do
        for i in $(seq 1 12); do
            python3 - "$repo/$egg" "$i" <<'EOF'
import json, sys
path, n = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    egg = json.load(f)
images = egg.get("docker_images") or {}
if isinstance(images, dict):
    egg["docker_images"] = {k: f"{str(v).split('@')[0]}-h{n}" for k, v in images.items()}
install = (egg.get("scripts") or {}).get("installation") or {}
lines = str(install.get("script") or "").split("\n")
install["script"] = "\n".join(l + f" # edit {n}" if i % 10 == 0 else l for i, l in enumerate(lines))
with open(path, "w", encoding="utf-8") as f:
    json.dump(egg, f, indent=4, ensure_ascii=False)
    f.write("\n")
EOF
            bench_git -C "$repo" commit -q -am "history edit $i of $(basename "$egg")" >/dev/null
        done
    done
done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bench_write_config "$TMP/eggcat.toml" "$TMP/data"
sed -i "/^data_dir = /a base_url = \"http://127.0.0.1:$PORT\"" "$TMP/eggcat.toml"
if ! "$ROOT/target/release/eggcat" build --config "$TMP/eggcat.toml" --out "$TMP/out" >"$TMP/build.log" 2>&1; then
    tail -n 30 "$TMP/build.log" >&2
    echo "error: eggcat build failed (last lines above): no figure to measure" >&2
    exit 1
fi
RENDER=$("$ROOT/target/release/examples/render_tree" "$TMP/out" "http://127.0.0.1:$PORT" 2>&1 | sed -n 's/.*render_ms=\([0-9.]*\).*/\1/p')

gz() { gzip -9 -c "$1" | wc -c; }
OUT="$TMP/out"
HTML=$(gz "$OUT/index.html"); CSS=$(gz "$OUT"/assets/*.css); JS=$(gz "$OUT"/assets/*.js)
SUM=$(gz "$OUT/api/v1/eggs/_summary.json")
TOTAL=$((HTML + CSS + JS + SUM))
EGGS=$(python3 - "$OUT" <<'PY'
import gzip, os, re, sys
root = sys.argv[1] + "/eggs"
sizes, versioned = [], []
for slug in os.listdir(root):
    if not os.path.isdir(os.path.join(root, slug)):
        continue  # eggs/index.html, the list of every egg
    page = open(os.path.join(root, slug, "index.html"), "rb").read()
    page = re.sub(rb'<section id="readme".*?</section>', b"", page, flags=re.S)
    sizes.append(len(gzip.compress(page, 9)))
    if page.count(b'<li class="version"') > 1:
        versioned.append(sizes[-1])
sizes.sort()
versioned = sorted(versioned) or [0]
print(f"{sizes[len(sizes)//2]} {sizes[-1]} {len(sizes)} {versioned[len(versioned)//2]} {versioned[-1]} {len(versioned)}")
PY
)
read -r EGG_MEDIAN EGG_MAX EGG_COUNT HIST_MEDIAN HIST_MAX HIST_COUNT <<<"$EGGS"
# The max is only a max if every egg of the index has its page.
INDEXED=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/api/v1/eggs/_index.json")

(cd "$OUT" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
SERVER_PID=$!
sleep 1
KEYS=$(cd "$ROOT/tests/browser" && BASE="http://127.0.0.1:$PORT" node -e '
const { chromium } = require("playwright-core");
(async () => {
  const b = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/lib/chromium/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  const page = await b.newPage();
  await page.goto(process.env.BASE + "/");
  await page.waitForSelector("#search:not(.pending)");
  const { times, shown, total } = await page.evaluate(() => {
    const q = document.getElementById("q");
    const list = document.getElementById("eggs");
    const out = [], shown = {};
    const total = list.children.length;
    for (const query of ["minecraft", "rust server", "steamcmd", "ghcr.io/parkervcp/yolks:java_21", "discord bot", "zzz", "a", "valheim", "voice"]) {
      for (let i = 1; i <= query.length; i++) {
        const t0 = performance.now();
        q.value = query.slice(0, i);
        q.dispatchEvent(new Event("input"));
        document.body.offsetHeight; // the layout of the new list, forced, is part of the cost
        out.push(performance.now() - t0);
      }
      // What the list shows right after the last keystroke: the filter ran inside the timing.
      shown[query] = list.children.length;
      q.value = ""; q.dispatchEvent(new Event("input"));
    }
    return { times: out, shown, total };
  });
  // A keystroke that did not filter (a handler that defers its work, a missing list) would be
  // timed as almost nothing: the figures count only if the list followed the queries.
  if (!(total > 0 && shown["zzz"] === 0 && shown["minecraft"] > 0 && shown["valheim"] < total)) {
    console.log("filter-did-not-run " + JSON.stringify({ total, shown }));
  } else {
    times.sort((a, b) => a - b);
    const p95 = times[Math.floor(times.length * 0.95)];
    console.log(times.length + " " + times[times.length - 1].toFixed(2) + " " + p95.toFixed(2));
  }
  await b.close();
})();')
read -r KEY_N KEY_MAX KEY_P95 <<<"$KEYS"
KEY_NOTE=""
if [[ "$KEY_N" == filter-did-not-run ]]; then
    # The times are not kept: they did not time a filter.
    KEY_NOTE=" (the list did not follow the queries: ${KEYS#filter-did-not-run })"
    KEY_N="" KEY_MAX="" KEY_P95=""
fi

# PASS when the figure is a number within its budget; a missing or unreadable figure is a FAIL
# (never read as 0).
STATUS=0
pass() {
    if [[ "$1" =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then
        echo PASS
    else
        [[ "$1" =~ ^[0-9]+([.][0-9]+)?$ ]] || echo -n "(figure missing) "
        echo FAIL
        STATUS=1
    fi
}
# Each verdict is computed in this shell (not in a $(...) subshell) so that a FAIL sets STATUS.
pass "$TOTAL" 153600 >"$TMP/v"; V1=$(cat "$TMP/v")
pass "${KEY_MAX:-}" 16 >"$TMP/v"; V2=$(cat "$TMP/v")
if [[ "${EGG_COUNT:-}" == "$INDEXED" ]]; then
    pass "${EGG_MAX:-}" 61440 >"$TMP/v"; V3=$(cat "$TMP/v")
else
    # A page missing from the measure could be the largest one.
    V3="(pages of ${EGG_COUNT:-0} of $INDEXED indexed eggs) FAIL"; STATUS=1
fi
pass "${RENDER:-}" 500 >"$TMP/v"; V4=$(cat "$TMP/v")
printf 'catalog first load (gzip -9): html %s + css %s + js %s + summary %s = %s bytes (budget 153600) %s\n' \
    "$HTML" "$CSS" "$JS" "$SUM" "$TOTAL" "$V1"
printf 'keystroke filter in Chromium: %s keystrokes, max %s ms, p95 %s ms (budget 16)%s %s\n' \
    "${KEY_N:-?}" "${KEY_MAX:-?}" "${KEY_P95:-?}" "$KEY_NOTE" "$V2"
printf 'egg page without README (gzip -9), %s pages: median %s, max %s bytes (budget 61440) %s\n' \
    "${EGG_COUNT:-?}" "${EGG_MEDIAN:-?}" "${EGG_MAX:-?}" "$V3"
printf '  of them with more than one version in Changes, %s pages: median %s, max %s bytes\n' \
    "${HIST_COUNT:-?}" "${HIST_MEDIAN:-?}" "${HIST_MAX:-?}"
printf 'render() of every page, release, best of 5: %s ms (budget 500) %s\n' "${RENDER:-?}" "$V4"
exit $STATUS
