# shellcheck shell=bash
# Shared helpers of the bench/ scripts; sourced, not run.
#
# It locates the repository and the shared upstream snapshot, installs missing tools, builds
# the release binary, and turns the ten snapshot folders into real git repositories (one commit
# each) with an eggcat config that lists them, the way a real deployment would fetch them; it
# checks that a snapshot shows the build it was for, and that a figure is a number.
# The caller must set `set -euo pipefail` and define TMP (a scratch directory it owns).
#
# Every script that judges figures exits 1 when a target is missed or a figure is missing
# (empty or not a number: a figure that could not be measured FAILs, never reads as 0), so
# that a run that printed FAIL can never pass for one that met its targets.

BENCH_REPO_NAMES=()

# Prints an error and exits.
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# Prints a progress line to stderr, so that stdout holds only the figures.
say() {
    printf '==> %s\n' "$*" >&2
}

# Sets ROOT, SHARED and BIN; exits if the shared snapshot is missing.
bench_locate() {
    local script_dir
    script_dir=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
    ROOT=$(cd "$script_dir/.." && pwd)
    SHARED="$(dirname "$ROOT")/shared/upstream"
    BIN="$ROOT/target/release/eggcat"
    if [[ ! -d "$SHARED/pelican-eggs" ]]; then
        die "shared upstream snapshot not found at $SHARED/pelican-eggs (expected ../shared/upstream beside the repository)"
    fi
}

# Installs the Debian packages nginx, wrk and time when one of the given commands is missing.
# Usage: bench_need_tools CMD...
bench_need_tools() {
    local missing=() cmd
    for cmd in "$@"; do
        case "$cmd" in
            time) [[ -x /usr/bin/time ]] || missing+=("$cmd") ;;
            nginx) command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || missing+=("$cmd") ;;
            *) command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd") ;;
        esac
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    for cmd in "${missing[@]}"; do
        case "$cmd" in
            nginx | wrk | time) ;;
            *) die "required tool '$cmd' is not installed (and is not one this script installs)" ;;
        esac
    done
    if [[ $(id -u) -ne 0 ]]; then
        die "missing tools: ${missing[*]}; install them with: apt-get install -y nginx wrk time"
    fi
    say "installing missing tools (${missing[*]}) with apt-get"
    if ! { apt-get update && apt-get install -y nginx wrk time; } >"$TMP/apt.log" 2>&1; then
        tail -n 20 "$TMP/apt.log" >&2
        die "apt-get install failed (log above)"
    fi
}

# Builds the release binary; exits with cargo's output on failure. With EGGCAT_BIN set, builds
# nothing and measures that binary instead (an older eggcat, or one built already).
bench_build_binary() {
    if [[ -n "${EGGCAT_BIN:-}" ]]; then
        [[ -x "$EGGCAT_BIN" ]] || die "EGGCAT_BIN=$EGGCAT_BIN is not an executable"
        BIN=$EGGCAT_BIN
        say "measuring $BIN (EGGCAT_BIN)"
        return 0
    fi
    say "building eggcat (cargo build --release -p eggcat)"
    if ! (cd "$ROOT" && cargo build --release -p eggcat) >"$TMP/cargo.log" 2>&1; then
        tail -n 40 "$TMP/cargo.log" >&2
        die "cargo build --release -p eggcat failed (last lines above)"
    fi
    [[ -x "$BIN" ]] || die "cargo succeeded but $BIN does not exist"
}

# Runs git with a fixed identity, so that commits work on a machine without git config.
bench_git() {
    git -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false "$@"
}

# Copies every folder under $SHARED/pelican-eggs into $TMP/repos/<repo> and commits it on
# branch main. Sets BENCH_REPO_NAMES.
bench_make_repos() {
    local src name dest
    mkdir -p "$TMP/repos"
    BENCH_REPO_NAMES=()
    for src in "$SHARED"/pelican-eggs/*/; do
        name=$(basename "$src")
        dest="$TMP/repos/$name"
        mkdir -p "$dest"
        cp -a "$src." "$dest/"
        if ! {
            git -C "$dest" init -q -b main &&
                git -C "$dest" add -A &&
                bench_git -C "$dest" commit -q -m snapshot
        } >"$TMP/git.log" 2>&1; then
            cat "$TMP/git.log" >&2
            die "could not make a git repository of $src"
        fi
        BENCH_REPO_NAMES+=("$name")
    done
    if [[ ${#BENCH_REPO_NAMES[@]} -ne 10 ]]; then
        say "warning: expected 10 upstream repositories, found ${#BENCH_REPO_NAMES[@]}"
    fi
    [[ ${#BENCH_REPO_NAMES[@]} -gt 0 ]] || die "no repositories under $SHARED/pelican-eggs"
}

# Writes an eggcat config listing the repositories made by bench_make_repos.
# Usage: bench_write_config CONFIG_FILE DATA_DIR
bench_write_config() {
    local conf=$1 data_dir=$2 name
    {
        printf '# Written by bench/lib.sh: the shared upstream snapshot as local git repositories.\n'
        printf 'data_dir = "%s"\n' "$data_dir"
        printf 'listen = "127.0.0.1:18080"\n'
        # The figures are eggcat's own work: no registry is asked (bench/images.sh measures that).
        printf '\n[images]\nenabled = false\n'
        for name in "${BENCH_REPO_NAMES[@]}"; do
            printf '\n[[source]]\n'
            printf 'url = "file://%s"\n' "$TMP/repos/$name"
            printf 'label = "pelican"\n'
            printf 'owner = "pelican-eggs"\n'
            printf 'repo = "%s"\n' "$name"
            printf 'branch = "main"\n'
        done
    } >"$conf"
}

# Checks that the current snapshot of DATA_DIR shows a build of the repositories named, each a
# git repository under REPOS_DIR: the build report lists exactly them, each read with status
# `ok` at its repository's HEAD commit (a source that failed fast would make a quick build that
# built nothing), and the catalog has eggs. Prints "EGGS BUILD_ID"; on a mismatch, says why on
# stderr and returns 1.
# Usage: bench_check_sources DATA_DIR REPOS_DIR REPO...
bench_check_sources() {
    python3 - "$@" <<'PY'
import json, os, subprocess, sys

data, repos, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(os.path.join(data, "current", "api/v1/_status.json"), encoding="utf-8") as f:
    status = json.load(f)
seen = sorted(s["repo"] for s in status["sources"])
if seen != sorted(names):
    sys.exit(f"the report lists {len(seen)} sources, not the {len(names)} repositories: "
             f"missing {sorted(set(names) - set(seen))}, not asked for {sorted(set(seen) - set(names))}")
for s in status["sources"]:
    head = subprocess.run(["git", "-C", os.path.join(repos, s["repo"]), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    if s["status"] != "ok" or s["commit"] != head:
        sys.exit(f"{s['repo']}: status {s['status']} at {s['commit']} (HEAD {head}): {s.get('error')}")
if not status["eggs"]:
    sys.exit("the catalog has no egg")
print(status["eggs"], status["buildId"])
PY
}

# True when $1 is a figure: a number (digits, at most one decimal point). An empty value, `?`
# or `inf` is a figure that was not measured.
bench_is_num() {
    [[ "${1:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]]
}

# Dies unless each variable named is a whole number of at least 1 (a count or a target), naming
# the one that is not.
bench_need_counts() {
    local name
    for name in "$@"; do
        [[ "${!name:-}" =~ ^[1-9][0-9]*$ ]] || die "$name is a whole number of at least 1, not '${!name:-}'"
    done
}

# The 10x catalog of bench/scale.sh (SCALE times the shared repositories; scale.sh's header
# says how the copies differ), also made by bench/search.sh. Needs SCALE and bench_make_repos.
# Copies the shared repositories SCALE-1 times under new names, edits each copy's eggs (see the
# header) and makes a git repository of each. Sets COPY_NAMES.
make_copies() {
    local k name dest args=() out
    COPY_NAMES=()
    for k in $(seq 2 "$SCALE"); do
        for name in "${BENCH_REPO_NAMES[@]}"; do
            dest="$TMP/repos/$name-copy$k"
            mkdir -p "$dest"
            cp -a "$SHARED/pelican-eggs/$name/." "$dest/"
            args+=("$dest:$k")
            COPY_NAMES+=("$name-copy$k")
        done
    done
    out=$(python3 - "${args[@]}" <<'PY'
import json, os, re, sys, uuid

import yaml

EGG = re.compile(r"egg-.*\.(json|ya?ml)$")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def new_uuid(old, k):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"eggcat-bench-scale/{k}/{old}"))


def wanted(doc, k):
    """The egg of copy k: the name with " copy k", the uuid (when a string) a UUIDv5 of it."""
    want = dict(doc, name=f"{doc['name']} copy {k}")
    if isinstance(doc.get("uuid"), str):
        want["uuid"] = new_uuid(doc["uuid"], k)
    return want


def top_level_strings(text):
    """(key, start, end) of each string value of a top-level member of a JSON object."""
    depth, i, key = 0, 0, None
    while i < len(text):
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            if m is None:
                return
            if depth == 1 and key is None and re.match(r"\s*:", text[m.end():]):
                key = json.loads(m.group())
            elif depth == 1 and key is not None:
                yield key, m.start(), m.end()
                key = None
            i = m.end()
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        elif c == "," and depth == 1:
            key = None
        i += 1


def edit_json(text, k):
    doc = json.loads(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        return None
    want = wanted(doc, k)
    spans = {key: (s, e) for key, s, e in top_level_strings(text) if key in ("name", "uuid")}
    for key, (s, e) in sorted(spans.items(), key=lambda item: -item[1][0]):
        text = text[:s] + json.dumps(want[key], ensure_ascii=False) + text[e:]
    return text if json.loads(text) == want else None


def edit_yaml(text, k):
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        return None
    want = wanted(doc, k)
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = re.fullmatch(r"name: (.*?)\s*", line)
        if m:
            v = m.group(1)
            if len(v) > 1 and v[0] in "'\"" and v[-1] == v[0]:
                lines[i] = f"name: {v[:-1]} copy {k}{v[0]}"
            elif v and v[0] not in "|>&*!#%@`'\"" and " #" not in v:
                lines[i] = f"name: {v} copy {k}"
            else:
                return None
            break
    if "uuid" in want:
        for i, line in enumerate(lines):
            if re.fullmatch(r"uuid: ['\"]?[0-9A-Fa-f-]+['\"]?\s*", line):
                lines[i] = f"uuid: {want['uuid']}"
                break
    text = "\n".join(lines)
    return text if yaml.safe_load(text) == want else None


edited = kept = 0
for arg in sys.argv[1:]:
    root, k = arg.rsplit(":", 1)
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".github")]
        for name in files:
            if not EGG.search(name):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                new = (edit_json if name.endswith(".json") else edit_yaml)(text, int(k))
            except (ValueError, yaml.YAMLError):
                new = None
            if new is None:
                kept += 1
                continue
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            edited += 1
print(edited, kept)
PY
    ) || die "editing the copies' eggs failed"
    read -r COPIES_EDITED COPIES_KEPT <<<"$out"
    for name in "${COPY_NAMES[@]}"; do
        dest="$TMP/repos/$name"
        if ! {
            git -C "$dest" init -q -b main &&
                git -C "$dest" add -A &&
                bench_git -C "$dest" commit -q -m "snapshot, copy"
        } >"$TMP/git.log" 2>&1; then
            cat "$TMP/git.log" >&2
            die "could not make a git repository of $dest"
        fi
    done
}
