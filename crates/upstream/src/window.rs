//! The window of a source's history: which first-parent commits eggcat reads the changes of
//! (`history_depth` of them, or those since `history_since`), and the commit just before them.
//!
//! `git fetch --depth` counts commits along every parent: through a merge whose branch started
//! long ago it reaches far older commits of the first-parent line, so a fetch 100 deep could
//! hold 450 first-parent commits of one repository and 100 of another. The window is therefore
//! cut here, on the first-parent log, so that it is the same for a repository whatever its
//! merge habits. The commit before the window (the base) is fetched too but is no version: the
//! oldest commit of the window is compared with it, and a file that did not change in the
//! window is "older than the history eggcat reads".

use std::collections::BTreeSet;

use eggcat_wire::Base;

use crate::depth::HistoryDepth;

/// `commits` (the first-parent line from the tip, newest first: id and committer time) cut to
/// the window that `depth` asks for, and the commit just before it, when the line has one.
///
/// A commit whose parent was not fetched (the mirror's shallow boundary, in `shallow`) cannot be
/// in the window: git shows it as adding every file, so what it changed is unknown. It is the
/// base instead.
pub(crate) fn cut(
    mut commits: Vec<(String, i64)>,
    shallow: &BTreeSet<String>,
    depth: HistoryDepth,
) -> (Vec<(String, i64)>, Option<Base>) {
    let mut len = match depth {
        HistoryDepth::Commits(n) => usize::try_from(n).unwrap_or(usize::MAX).min(commits.len()),
        // Back along the first-parent line to the first commit older than the date.
        HistoryDepth::Since(unix) => {
            let since = i64::try_from(unix).unwrap_or(i64::MAX);
            commits
                .iter()
                .position(|(_, time)| *time < since)
                .unwrap_or(commits.len())
        }
    };
    if len > 0 && shallow.contains(&commits[len - 1].0) {
        len -= 1;
    }
    let base = commits.get(len).map(|(id, time)| Base {
        id: id.clone(),
        time: *time,
    });
    commits.truncate(len);
    (commits, base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(n: usize) -> Vec<(String, i64)> {
        (0..n)
            .map(|i| (format!("c{i}"), 1000 - i as i64 * 10))
            .collect()
    }

    fn ids(commits: &[(String, i64)]) -> Vec<&str> {
        commits.iter().map(|c| c.0.as_str()).collect()
    }

    #[test]
    fn a_depth_is_that_many_first_parent_commits_and_the_next_is_the_base() {
        let (window, base) = cut(log(5), &BTreeSet::new(), HistoryDepth::Commits(3));
        assert_eq!(ids(&window), ["c0", "c1", "c2"]);
        assert_eq!(base.map(|b| b.id), Some("c3".to_owned()));
        // The whole branch: no base, the root commit's additions are real.
        let (window, base) = cut(log(2), &BTreeSet::new(), HistoryDepth::Commits(3));
        assert_eq!(ids(&window), ["c0", "c1"]);
        assert!(base.is_none());
    }

    #[test]
    fn a_commit_whose_parent_was_not_fetched_is_the_base() {
        let shallow = BTreeSet::from(["c2".to_owned()]);
        let (window, base) = cut(log(3), &shallow, HistoryDepth::Commits(10));
        assert_eq!(ids(&window), ["c0", "c1"]);
        assert_eq!(base.map(|b| b.id), Some("c2".to_owned()));
    }

    #[test]
    fn a_date_keeps_the_commits_since_then() {
        let (window, base) = cut(log(6), &BTreeSet::new(), HistoryDepth::Since(975));
        assert_eq!(ids(&window), ["c0", "c1", "c2"]);
        assert_eq!(base.map(|b| (b.id, b.time)), Some(("c3".to_owned(), 970)));
        // A tip older than the date: no window, the tip is the base.
        let (window, base) = cut(log(2), &BTreeSet::new(), HistoryDepth::Since(5000));
        assert!(window.is_empty());
        assert_eq!(base.map(|b| b.id), Some("c0".to_owned()));
    }
}
