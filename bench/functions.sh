#!/usr/bin/env bash
# Lists the longest functions of the non-test code: every `fn` under crates/*/src, measured from
# its `fn` line to its closing brace (both counted), longest first, with file:line.
#
# Test code is left out: files under a tests/ folder, files declared by `#[cfg(test)] mod name;`,
# and any item marked `#[cfg(test)]` (the `mod tests { ... }` of a source file, a test-only fn). Braces are counted by a small
# lexer that skips comments, string literals (raw strings included) and char literals, so a `{`
# inside a format string or a rendered config does not shift a function's end.
#
# What it prints: the N longest functions (default 15) as `lines  file:line  name`, then the count
# of functions measured and how many are over the limit (default 120 lines), PASS when none is.
# Doc comments and attributes above the `fn` line are not counted; a nested `fn` is measured on
# its own and still counts in its parent's lines.
#
# Run from anywhere:  bash bench/functions.sh [N] [LIMIT]
# Exits 1 when a function is over the limit, or when no function was measured (no sources
# found, or the lexer failed: a count of 0 over the limit would mean nothing); 0 otherwise.
# `bash bench/functions.sh 15 50` fails on purpose.
set -euo pipefail

TOP=${1:-15}
LIMIT=${2:-120}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

# Non-test sources: crates/*/src, minus any tests/ folder below it and any file a
# `#[cfg(test)] mod name;` declares (name.rs or name/mod.rs in the declaring module's folder).
declare -A TEST_FILES=()
while IFS=: read -r file name; do
    case "$file" in
        */mod.rs | */lib.rs | */main.rs) dir=$(dirname "$file") ;;
        *) dir=${file%.rs} ;;
    esac
    TEST_FILES["$dir/$name.rs"]=1
    TEST_FILES["$dir/$name/mod.rs"]=1
done < <(grep -rn -A1 --include='*.rs' '^[[:space:]]*#\[cfg(test)\]' crates/*/src |
    sed -nE 's/^(.*\.rs)-[0-9]+-[[:space:]]*(pub(\([^)]*\))? )?mod ([A-Za-z_][A-Za-z0-9_]*);.*/\1:\4/p')
FILES=()
while IFS= read -r file; do
    [[ -n ${TEST_FILES[$file]:-} ]] || FILES+=("$file")
done < <(find crates/*/src -name '*.rs' -not -path '*/tests/*' | sort)

awk '
# One record per function: "lines<TAB>file:line<TAB>name".
function emit(i) {
    printf "%d\t%s:%d\t%s\n", NR_END - fn_line[i] + 1, FILENAME, fn_line[i], fn_name[i]
}
FNR == 1 {
    depth = 0; nfn = 0; in_block = 0; in_str = 0; raw_hashes = -1
    skip_next = 0; skip_depth = -1; pending_skip = 0
}
{
    line = $0
    # A `#[cfg(test)]` attribute marks the next item as test code, skipped whole.
    if (!in_str && !in_block && skip_depth < 0 && line ~ /^[ \t]*#\[cfg\(test\)\]/) {
        pending_skip = 1
    }
    # A function starts on a line holding `fn name` outside strings and comments.
    if (!in_str && !in_block && match(line, /(^|[^A-Za-z0-9_])fn [A-Za-z_][A-Za-z0-9_]*/)) {
        name = substr(line, RSTART, RLENGTH); sub(/^.*fn /, "", name)
        if (skip_depth < 0 && !pending_skip && line !~ /^[ \t]*\/\//) {
            nfn++; fn_line[nfn] = FNR; fn_name[nfn] = name; fn_depth[nfn] = depth; fn_open[nfn] = 0
        }
    }
    n = length(line)
    for (i = 1; i <= n; i++) {
        c = substr(line, i, 1)
        if (in_block) {
            if (c == "*" && substr(line, i + 1, 1) == "/") { in_block = 0; i++ }
            continue
        }
        if (in_str) {
            if (raw_hashes >= 0) {
                close_seq = "\"" sprintf("%*s", raw_hashes, ""); gsub(/ /, "#", close_seq)
                if (substr(line, i, length(close_seq)) == close_seq) {
                    in_str = 0; i += length(close_seq) - 1; raw_hashes = -1
                }
            } else if (c == "\\") {
                i++
            } else if (c == "\"") {
                in_str = 0
            }
            continue
        }
        if (c == "/" && substr(line, i + 1, 1) == "/") break
        if (c == "/" && substr(line, i + 1, 1) == "*") { in_block = 1; i++; continue }
        if (c == "r" && (i == 1 || substr(line, i - 1, 1) !~ /[A-Za-z0-9_]/) && match(substr(line, i + 1), /^#*"/)) {
            raw_hashes = RLENGTH - 1; in_str = 1; i += RLENGTH; continue
        }
        if (c == "\"") { in_str = 1; raw_hashes = -1; continue }
        if (c == "\x27") {
            # A char literal (x, \n or \u{7b} between single quotes) is skipped; a lifetime (\x27a)
            # is not a literal.
            if (substr(line, i + 1, 1) == "\\") {
                j = index(substr(line, i + 2), "\x27"); if (j > 0) i = i + 1 + j
            } else if (substr(line, i + 2, 1) == "\x27") {
                i += 2
            }
            continue
        }
        if (c == "{") {
            depth++
            if (pending_skip) { skip_depth = depth - 1; pending_skip = 0 }
            if (nfn > 0 && !fn_open[nfn] && depth == fn_depth[nfn] + 1) fn_open[nfn] = 1
        } else if (c == "}") {
            depth--
            while (nfn > 0 && fn_open[nfn] && depth == fn_depth[nfn]) {
                NR_END = FNR; emit(nfn); nfn--
            }
            if (skip_depth >= 0 && depth == skip_depth) skip_depth = -1
        } else if (c == ";") {
            # A declaration without a body (a trait method) ends at its semicolon.
            if (nfn > 0 && !fn_open[nfn] && depth == fn_depth[nfn]) nfn--
            if (pending_skip && depth >= 0) pending_skip = 0
        }
    }
}
' "${FILES[@]}" | sort -t$'\t' -k1,1nr -k2,2 >"${TMPDIR:-/tmp}/functions.$$"

total=$(wc -l <"${TMPDIR:-/tmp}/functions.$$")
over=$(awk -F'\t' -v limit="$LIMIT" '$1 > limit' "${TMPDIR:-/tmp}/functions.$$" | wc -l)
printf 'lines\tfile:line\tfunction\n'
head -n "$TOP" "${TMPDIR:-/tmp}/functions.$$"
rm -f "${TMPDIR:-/tmp}/functions.$$"
if ((total == 0)); then
    printf 'functions measured: 0 (%d files read): FAIL (figure missing)\n' "${#FILES[@]}"
    exit 1
fi
verdict=PASS
[[ $over -eq 0 ]] || verdict=FAIL
printf 'functions measured: %d; over %d lines: %d (target 0) %s\n' "$total" "$LIMIT" "$over" "$verdict"
[[ $verdict == PASS ]] || exit 1
exit 0
