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
