#!/usr/bin/env bash
# Measures what `history_depth` costs on a merge-heavy repository, against a linear one holding
# the same egg edits (issue 25). `git fetch --depth=N` counts commits along every parent: through
# pull requests merged from branches started long before, it fetches old commits of the
# first-parent line and the branches' own commits besides the N newest first-parent commits.
# eggcat fetches N + 1 deep (the window and the commit before it) and cuts the window on the
# first-parent line, so the window is the same whatever the merge habits; what changes is what
# the fetch brings. Two generated repositories of EGGS eggs (JSON, about 2 KB each) and
# COMMITS first-parent commits each:
#   - merges: each first-parent commit merges a pull request of 1 to 4 commits, its branch
#     started 5 to 80 commits back, each commit editing one egg's description;
#   - linear: the same edits, one commit per pull request (a squash merge).
# For each, RUNS times (median): the fetch alone (git fetch --depth=DEPTH+1 over file:// into an
# empty bare mirror) and a first `eggcat build` with `history_depth = DEPTH`. Then, from the
# last build: the commits the mirror holds, how many of them are first-parent commits, its
# size, the versions listed, and a check that every version is a commit of the window (the
# newest DEPTH first-parent commits) that changed its file: the window does not depend on the
# merges (FAIL otherwise, exit 1).
#
# With BASELINE_BIN=/path/to/an/older/eggcat (one that read the log as deep as the fetch went),
# one more build per repository with it, and its line: how many of the versions it listed are
# outside the window or did not touch their file (an old eggcat listed the oldest commit fetched
# as every older egg's version); not judged: that is what issue 25 changed.
#
# Run from anywhere:  bash bench/depth.sh     EGGCAT_BIN=/path/to/eggcat to use another binary
# (default: target/release/eggcat, built when missing); DEPTH, COMMITS, EGGS, RUNS to change
# the sizes; KEEP_TMP=1 keeps the temp dir. A measurement: no target, exits 0 unless the check
# fails or lacks its figures (no version listed, or the check's counts missing: nothing would
# have been checked), which exits 1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEPTH=${DEPTH:-100}
COMMITS=${COMMITS:-1500}
EGGS=${EGGS:-200}
RUNS=${RUNS:-3}
BIN=${EGGCAT_BIN:-$ROOT/target/release/eggcat}

say() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-bench-depth.XXXXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [[ "${KEEP_TMP:-0}" == 1 ]]; then say "keeping $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

for tool in git python3 /usr/bin/time; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
if [[ -z "${EGGCAT_BIN:-}" && ! -x "$BIN" ]]; then
    say "building eggcat (cargo build --release -p eggcat)"
    (cd "$ROOT" && cargo build --release -p eggcat) >"$TMP/cargo.log" 2>&1 ||
        { tail -n 40 "$TMP/cargo.log" >&2; die "cargo build failed"; }
fi
[[ -x "$BIN" ]] || die "no eggcat binary at $BIN"

# The fast-import stream of one repository: KIND (merges or linear), COMMITS, EGGS.
stream() {
    python3 - "$1" "$COMMITS" "$EGGS" <<'EOF'
import json, random, sys
kind, commits, eggs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(25)
# The branches' ages from a generator of their own, so that both kinds make the same edits.
forks = random.Random(26)
w = lambda text: sys.stdout.buffer.write(text.encode())
T0 = 1_700_000_000

def egg(i, n):
    return json.dumps({
        "meta": {"version": "PTDL_v2", "update_url": None},
        "name": f"Game {i:03}", "author": "bench@eggcat.invalid",
        "description": f"Game {i:03}: a dedicated server, as its maintainers tuned it over the years (edit {n}).",
        "docker_images": {"Java 21": "ghcr.io/pterodactyl/yolks:java_21"},
        "startup": "java -Xms128M -XX:+UseG1GC -jar server.jar nogui",
        "config": {"files": "{}", "startup": "{\"done\": \"Done\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": "#!/bin/bash\n" + "echo step\n" * 40, "container": "debian", "entrypoint": "bash"}},
        "variables": [{"name": f"Var {v}", "description": "A setting.", "env_variable": f"VAR_{v}",
                       "default_value": "1", "user_viewable": True, "user_editable": True,
                       "rules": "required|string"} for v in range(6)],
    }, indent=4) + "\n"

def path(i):
    return f"games/g{i:03}/egg-g{i:03}.json"

def data(text):
    w(f"data {len(text.encode())}\n{text}\n")

def header(ref, mark, time, msg):
    w(f"commit {ref}\nmark :{mark}\ncommitter bench <bench@eggcat.invalid> {time} +0000\n")
    data(msg)

edits = [0] * eggs
header("refs/heads/main", 1, T0, "Import")
for i in range(eggs):
    w(f"M 100644 inline {path(i)}\n")
    data(egg(i, 0))
mark = 1
main = [1]  # the mark of each first-parent commit
for k in range(1, commits):
    time = T0 + k * 3600
    changes = []
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(eggs)
        edits[i] += 1
        changes.append((i, edits[i]))
    if kind == "merges":
        fork = main[max(0, len(main) - forks.randint(5, 80))]
        parent = fork
        for n, (i, e) in enumerate(changes):
            mark += 1
            header(f"refs/heads/pr/{k}", mark, time - 600 + n, f"Edit game {i:03}")
            w(f"from :{parent}\nM 100644 inline {path(i)}\n")
            data(egg(i, e))
            parent = mark
        mark += 1
        header("refs/heads/main", mark, time, f"Merge pull request #{k}")
        w(f"from :{main[-1]}\nmerge :{parent}\n")
    else:
        mark += 1
        header("refs/heads/main", mark, time, f"Pull request #{k}")
        w(f"from :{main[-1]}\n")
    for i, e in changes:
        w(f"M 100644 inline {path(i)}\n")
        data(egg(i, edits[i]))
    main.append(mark)
EOF
}

ms() { python3 -c 'import sys,time; print(int(time.time()*1000))'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

check_window() { # REPO DATA
    python3 - "$1" "$2" "$DEPTH" <<'EOF'
import json, os, subprocess, sys
repo, data, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
git = lambda *a: subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True, text=True).stdout
window = set(git("rev-list", "--first-parent", f"--max-count={depth}", "main").split())
current = os.path.realpath(os.path.join(data, "current"))
eggs = os.path.join(current, "api/v1/eggs")
versions = bad = older = 0
for slug in os.listdir(eggs):
    h = os.path.join(eggs, slug, "history.json")
    if not os.path.isfile(h):
        continue
    doc = json.load(open(h))
    older += not doc["versions"]
    for v in doc["versions"]:
        versions += 1
        parent = subprocess.run(["git", "-C", repo, "rev-parse", "-q", "--verify", v["commit"] + "^1"],
                                capture_output=True, text=True).stdout.strip()
        # The root commit (an older eggcat read that far) added every file it has.
        touched = (git("diff", "--name-only", parent, v["commit"]) if parent
                   else git("ls-tree", "-r", "--name-only", v["commit"])).split("\n")
        if v["commit"] not in window or v["path"] not in touched:
            bad += 1
print(versions, older, bad)
EOF
}

printf 'repository\tfirst-parent commits\tdepth\tfetch ms (median of %s)\tcommits fetched\tfirst-parent commits fetched\tmirror KiB\tbuild ms (median)\tversions listed\teggs older than the window\twindow check\n' "$RUNS"
status=0
for kind in linear merges; do
    repo="$TMP/$kind"
    say "generating the $kind repository ($COMMITS first-parent commits, $EGGS eggs)"
    git init -q --bare "$repo"
    stream "$kind" | git -C "$repo" fast-import --quiet
    fetches=() builds=()
    for run in $(seq 1 "$RUNS"); do
        mirror="$TMP/mirror-$kind"
        rm -rf "$mirror" && git init -q --bare "$mirror"
        t0=$(ms)
        git -C "$mirror" fetch -q --depth=$((DEPTH + 1)) --no-tags "file://$repo" +refs/heads/main:refs/heads/main
        fetches+=($(($(ms) - t0)))
        data="$TMP/data-$kind"
        rm -rf "$data"
        printf 'data_dir = "%s"\nhistory_depth = %s\n[[source]]\nurl = "file://%s"\nowner = "bench"\nrepo = "%s"\nbranch = "main"\n' \
            "$data" "$DEPTH" "$repo" "$kind" >"$TMP/$kind.toml"
        t0=$(ms)
        "$BIN" build --config "$TMP/$kind.toml" >/dev/null 2>"$TMP/build.log" ||
            { cat "$TMP/build.log" >&2; die "eggcat build failed"; }
        builds+=($(($(ms) - t0)))
        say "$kind run $run: fetch ${fetches[-1]} ms, build ${builds[-1]} ms"
    done
    fetched=$(git -C "$mirror" rev-list --count main)
    reached=$(git -C "$mirror" rev-list --first-parent --count main)
    kib=$(du -sk "$mirror" | cut -f1)
    read -r versions older bad < <(check_window "$repo" "$data") || true
    verdict=PASS
    if [[ ! "${versions:-}" =~ ^[0-9]+$ || ! "${bad:-}" =~ ^[0-9]+$ ]] || ((versions == 0)); then
        verdict="FAIL (figure missing: no version checked)" status=1
    elif ((bad > 0)); then
        verdict="FAIL ($bad versions outside the window or not touching their file)" status=1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$COMMITS" "$DEPTH" \
        "$(printf '%s\n' "${fetches[@]}" | median)" "$fetched" "$reached" "$kib" \
        "$(printf '%s\n' "${builds[@]}" | median)" "$versions" "$older" "$verdict"
    if [[ -n "${BASELINE_BIN:-}" ]]; then
        rm -rf "$data"
        t0=$(ms)
        "$BASELINE_BIN" build --config "$TMP/$kind.toml" >/dev/null 2>"$TMP/build.log" ||
            { cat "$TMP/build.log" >&2; die "the baseline build failed"; }
        took=$(($(ms) - t0))
        read -r versions older bad < <(check_window "$repo" "$data")
        printf '%s (baseline)\t%s\t%s\t\t\t\t\t%s\t%s\t%s\t%s outside the window or not touching their file\n' "$kind" "$COMMITS" \
            "$DEPTH" "$took" "$versions" "$older" "$bad"
    fi
done
exit "$status"
