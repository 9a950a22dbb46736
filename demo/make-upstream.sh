#!/usr/bin/env bash
# Makes the demo upstream, demo/upstream.bundle: a git repository of the commits that
# demo/history/commits lists (each a real kind of egg version: an image added, a variable
# renamed, a breaking startup change, a format-only export, a rename, a merged pull request),
# from plain files: the eggs as they are now (demo/upstream/) and their older versions
# (demo/history/NN/). Checks that the last commit's tree is demo/upstream/ exactly.
#
# Same files, same commits: names, e-mails and dates are fixed, so the commit ids do not
# depend on who runs it or when (crates/cli/tests/it/demo.rs checks that the bundle in the
# repository is what this script makes). Run it after editing the demo's eggs or history:
#
#   bash demo/make-upstream.sh                 # writes demo/upstream.bundle
#   bash demo/make-upstream.sh OUT.bundle      # writes OUT.bundle instead
#
# Prints the tip commit's id.
set -euo pipefail

DEMO=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$DEMO/upstream.bundle}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/eggcat-demo-upstream.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
REPO=$WORK/repo

export LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME="eggcat demo" GIT_AUTHOR_EMAIL="demo@eggcat.invalid"
export GIT_COMMITTER_NAME="eggcat demo" GIT_COMMITTER_EMAIL="demo@eggcat.invalid"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -C "$REPO" -c commit.gpgsign=false -c core.autocrlf=false -c core.fileMode=true "$@"; }

git init -q -b main "$REPO"

# The commit being gathered: its date and subject, and the branch it merges, if any.
date="" subject="" branch="" branch_date="" branch_subject=""

# Commits what the work tree holds now, at `date`, with `subject`.
commit_now() {
    g add -A
    GIT_AUTHOR_DATE=$1 GIT_COMMITTER_DATE=$1 g commit -q --allow-empty -m "$2"
}

# Ends the commit being gathered: a plain commit, or a branch's commit and its merge.
finish() {
    [[ -n "$date" ]] || return 0
    if [[ -n "$branch" ]]; then
        commit_now "$branch_date" "$branch_subject"
        g checkout -q main
        GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
            g merge -q --no-ff -m "$subject" "$branch"
    else
        commit_now "$date" "$subject"
    fi
    date="" subject="" branch=""
}

put() { # SOURCE DEST
    mkdir -p "$(dirname "$REPO/$2")"
    cp "$1" "$REPO/$2"
}

while read -r op a b rest || [[ -n "$op" ]]; do
    case "$op" in
        "" | \#*) ;;
        commit)
            finish
            date=$a subject="$b${rest:+ $rest}"
            ;;
        branch)
            branch=$a branch_date=$b branch_subject=$rest
            g checkout -q -b "$branch"
            ;;
        tip) put "$DEMO/upstream/$a" "${b:-$a}" ;;
        old) put "$DEMO/history/$a/$b" "$b" ;;
        rm) g rm -q "$a" ;;
        *)
            echo "make-upstream.sh: unknown line: $op $a $b $rest" >&2
            exit 1
            ;;
    esac
done <"$DEMO/history/commits"
finish

# The last tree is demo/upstream/, file for file.
(cd "$DEMO/upstream" && find . -type f | sed 's|^\./||' | sort) >"$WORK/want"
g ls-files | sort >"$WORK/have"
if ! diff -u "$WORK/want" "$WORK/have" >&2; then
    echo "make-upstream.sh: the last commit's files are not demo/upstream/'s" >&2
    exit 1
fi
while read -r f; do
    cmp -s "$DEMO/upstream/$f" "$REPO/$f" || {
        echo "make-upstream.sh: $f differs from demo/upstream/$f at the last commit" >&2
        exit 1
    }
done <"$WORK/want"

g bundle create -q "$WORK/out.bundle" main
mv "$WORK/out.bundle" "$OUT"
g rev-parse main
