//! How an error reaches the user: one line, `eggcat: error: ` then what happened, where, and
//! what to do, each cause said once (docs/errors.md has the conventions).
//!
//! The library crates' errors name their cause in their own message ("write PATH: No space left
//! on device") and also return it as `source()`, so that a log line made with `%e` is complete.
//! anyhow's `{:#}` prints every link of the chain, which said that cause twice. This printer walks
//! the chain and leaves out a link whose text the link above already ends with.
//!
//! An operating-system error at the root of the chain (disk full, read-only file system, no
//! permission) gets what to do appended, since the OS's own words say only what happened.

/// `e` and its causes on one line, joined by `: `, a cause repeated by its parent left out, line
/// breaks (git's multi-line stderr) folded into spaces.
pub(crate) fn one_line(e: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut above = String::new();
    for link in e.chain() {
        let text = link.to_string();
        if !above.is_empty() && above.ends_with(text.as_str()) {
            above = text;
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&fold(&text));
        above = text;
    }
    let hint = e
        .chain()
        .find_map(|c| c.downcast_ref::<std::io::Error>().and_then(hint));
    if let Some(hint) = hint.filter(|h| !out.contains(h)) {
        out.push_str("; ");
        out.push_str(hint);
    }
    out
}

/// What to do about an OS error, for the kinds a user can cause and fix.
fn hint(e: &std::io::Error) -> Option<&'static str> {
    use std::io::ErrorKind as K;
    Some(match e.kind() {
        K::StorageFull | K::QuotaExceeded => {
            "free some space on that file system, or choose a folder on another one"
        }
        K::ReadOnlyFilesystem => {
            "that file system is mounted read-only: remount it read-write, or choose a writable folder"
        }
        K::PermissionDenied => {
            "eggcat's user may not write there: give that user the folder (chown), or choose \
             another folder (as root, check `lsattr` for the immutable flag)"
        }
        K::NotADirectory => "a file is where a folder should be: move it, or choose another path",
        _ => return None,
    })
}

/// Line breaks and the indentation after them become one space.
fn fold(text: &str) -> String {
    text.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Like the store's error: the cause in the message and as `source()`.
    #[derive(Debug)]
    struct WriteFailed {
        path: String,
        source: std::io::Error,
    }

    impl std::fmt::Display for WriteFailed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "write {}: {}", self.path, self.source)
        }
    }

    impl std::error::Error for WriteFailed {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    /// An OS error with no hint, so that only the chain is compared.
    fn not_found() -> std::io::Error {
        std::io::Error::from_raw_os_error(2)
    }

    #[test]
    fn a_cause_already_in_its_parents_message_is_said_once() {
        let e = anyhow::Error::new(WriteFailed {
            path: "site/a.tmp".into(),
            source: not_found(),
        })
        .context("cannot write site");
        let io = not_found().to_string();
        assert_eq!(
            one_line(&e),
            format!("cannot write site: write site/a.tmp: {io}")
        );
    }

    #[test]
    fn a_cause_not_in_its_parents_message_is_kept() {
        let e = anyhow::Error::new(not_found()).context("cannot write site");
        assert_eq!(one_line(&e), format!("cannot write site: {}", not_found()));
        // Twice the same context at two levels is two facts, not a repeated cause: "a: a".
        let e = anyhow::anyhow!("a").context("b").context("a");
        assert_eq!(one_line(&e), "a: b: a");
    }

    #[test]
    fn an_os_error_a_user_can_fix_gets_what_to_do_once() {
        let full = std::io::Error::from_raw_os_error(28);
        let e = anyhow::Error::new(WriteFailed {
            path: "site/a.tmp".into(),
            source: full,
        });
        assert_eq!(
            one_line(&e),
            format!(
                "write site/a.tmp: {}; free some space on that file system, or choose a folder \
                 on another one",
                std::io::Error::from_raw_os_error(28)
            )
        );
    }

    #[test]
    fn line_breaks_are_folded() {
        let e = anyhow::anyhow!("git fetch failed: fatal: no\n  such ref\n").context("source x");
        assert_eq!(
            one_line(&e),
            "source x: git fetch failed: fatal: no such ref"
        );
    }
}
