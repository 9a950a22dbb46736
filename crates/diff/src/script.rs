//! The install section: container, entrypoint, and the install script as a unified line diff
//! with its counts.
//!
//! Bounded for hostile or huge scripts: the lines the two scripts share at the start and the end
//! are set aside first, and the rest is aligned by a longest-common-subsequence table only when
//! it has at most [`MAX_TABLE`] cells; past that the middle is shown as replaced whole and the
//! diff says so. The printed diff stops after [`MAX_DIFF_LINES`] lines, and each printed line
//! after [`MAX_LINE_CHARS`] characters, each cut with a note; the counts stay exact.
//!
//! None of the install section reaches a server that is already installed: the panel runs the
//! script only when a server is installed or reinstalled, so none of these changes is breaking.

use crate::general::opt;
use crate::model::Model;
use crate::{Change, Kind, Make, ScriptDiff};

/// Lines of unified diff kept in a [`ScriptDiff`]; the rest is cut with a note.
pub const MAX_DIFF_LINES: usize = 400;

/// Characters of one script line kept in the diff; the rest is cut with `…`.
pub const MAX_LINE_CHARS: usize = 300;

/// Largest table (changed old lines × changed new lines) aligned line by line: 4 M one-byte
/// cells, about 4 MiB and a few milliseconds.
const MAX_TABLE: usize = 4_000_000;

/// Lines of context around each change, as `diff -u`.
const CONTEXT: usize = 3;

/// Container, entrypoint and script changes.
pub(crate) fn install(a: &Model, b: &Model, out: &mut Vec<Change>) {
    let path = |k: &'static str| ["scripts", "installation", k];
    if a.container != b.container {
        out.push(Change::new(
            Kind::InstallContainerChanged,
            &path("container"),
            opt(&a.container),
            opt(&b.container),
        ));
    }
    if a.entrypoint != b.entrypoint {
        out.push(Change::new(
            Kind::InstallEntrypointChanged,
            &path("entrypoint"),
            opt(&a.entrypoint),
            opt(&b.entrypoint),
        ));
    }
    if a.script != b.script {
        let d = line_diff(&a.script, &b.script);
        let mut c = Change::new(Kind::InstallScriptChanged, &path("script"), None, None);
        c.text = format!(
            "install script changed: {} line{} added, {} removed",
            d.added,
            if d.added == 1 { "" } else { "s" },
            d.removed
        );
        c.script = Some(d);
        out.push(c);
    }
}

/// One line of the edit script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Del,
    Add,
}

/// The unified diff of two texts, line by line.
pub(crate) fn line_diff(old: &str, new: &str) -> ScriptDiff {
    let (x, y): (Vec<&str>, Vec<&str>) = (lines(old), lines(new));
    let head = x.iter().zip(&y).take_while(|(p, q)| p == q).count();
    let tail = x[head..]
        .iter()
        .rev()
        .zip(y[head..].iter().rev())
        .take_while(|(p, q)| p == q)
        .count();
    let (mx, my) = (&x[head..x.len() - tail], &y[head..y.len() - tail]);
    let mut note = None;
    let middle = if mx.len().saturating_mul(my.len()) <= MAX_TABLE {
        align(mx, my)
    } else {
        note = Some(format!(
            "the scripts differ in too many lines ({} and {}) to align line by line: the changed part is shown as removed, then added",
            mx.len(),
            my.len()
        ));
        [vec![Op::Del; mx.len()], vec![Op::Add; my.len()]].concat()
    };
    let ops: Vec<Op> = [vec![Op::Keep; head], middle, vec![Op::Keep; tail]].concat();
    let added = ops.iter().filter(|o| **o == Op::Add).count();
    let removed = ops.iter().filter(|o| **o == Op::Del).count();
    let (unified, cut) = unified(&x, &y, &ops);
    if cut > 0 {
        let more = format!("{cut} more lines of diff not shown");
        note = Some(match note {
            Some(n) => format!("{n}; {more}"),
            None => more,
        });
    }
    ScriptDiff {
        added,
        removed,
        unified,
        note,
    }
}

/// The lines of a text; an empty text has none (so adding a script adds all its lines).
fn lines(s: &str) -> Vec<&str> {
    if s.is_empty() {
        Vec::new()
    } else {
        s.split('\n').collect()
    }
}

/// The shortest edit script from `x` to `y` by a longest-common-subsequence table (one byte a
/// cell: the LCS length of the suffixes, saturated, is not needed, only the direction).
fn align(x: &[&str], y: &[&str]) -> Vec<Op> {
    let (n, m) = (x.len(), y.len());
    // lengths[i][j] = LCS of x[i..] and y[j..], two rows at a time; dirs remembers the choice.
    let mut dirs = vec![Op::Keep; n * m];
    let mut next = vec![0u32; m + 1];
    for i in (0..n).rev() {
        let mut row = vec![0u32; m + 1];
        for j in (0..m).rev() {
            let (len, dir) = if x[i] == y[j] {
                (next[j + 1] + 1, Op::Keep)
            } else if next[j] >= row[j + 1] {
                (next[j], Op::Del)
            } else {
                (row[j + 1], Op::Add)
            };
            row[j] = len;
            dirs[i * m + j] = dir;
        }
        next = row;
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::with_capacity(n + m));
    while i < n && j < m {
        let op = dirs[i * m + j];
        ops.push(op);
        match op {
            Op::Keep => (i, j) = (i + 1, j + 1),
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    ops.extend(std::iter::repeat_n(Op::Del, n - i));
    ops.extend(std::iter::repeat_n(Op::Add, m - j));
    ops
}

/// The hunks of `ops` over `x` and `y`, cut after [`MAX_DIFF_LINES`] lines; the second value
/// is how many lines were cut.
fn unified(x: &[&str], y: &[&str], ops: &[Op]) -> (String, usize) {
    // Positions (in ops) of the changes, grouped into hunks whose context overlaps.
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Keep).collect();
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &k in &changed {
        let (start, end) = (k.saturating_sub(CONTEXT), (k + CONTEXT + 1).min(ops.len()));
        match hunks.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => hunks.push((start, end)),
        }
    }
    // Line numbers in x and y at each position of ops.
    let mut at = Vec::with_capacity(ops.len() + 1);
    let (mut i, mut j) = (0usize, 0usize);
    for op in ops {
        at.push((i, j));
        match op {
            Op::Keep => (i, j) = (i + 1, j + 1),
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    at.push((i, j));
    let mut out: Vec<String> = Vec::new();
    for (start, end) in hunks {
        let (i0, j0) = at[start];
        let (i1, j1) = at[end];
        let range = |from: usize, len: usize| match len {
            0 => format!("{from},0"),
            1 => format!("{}", from + 1),
            _ => format!("{},{len}", from + 1),
        };
        out.push(format!(
            "@@ -{} +{} @@",
            range(i0, i1 - i0),
            range(j0, j1 - j0)
        ));
        for k in start..end {
            let (i, j) = at[k];
            out.push(match ops[k] {
                Op::Keep => format!(" {}", clip(x[i])),
                Op::Del => format!("-{}", clip(x[i])),
                Op::Add => format!("+{}", clip(y[j])),
            });
        }
    }
    let cut = out.len().saturating_sub(MAX_DIFF_LINES);
    out.truncate(MAX_DIFF_LINES);
    let mut text = out.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    (text, cut)
}

/// A line cut to [`MAX_LINE_CHARS`] characters.
fn clip(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}
