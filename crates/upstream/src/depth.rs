//! How much of a source's history is read ([`HistoryDepth`]): what `git fetch` asks for
//! (`git.rs`), where the window is cut (`window.rs`) and what the history notes say of it.

use std::time::Duration;

/// How much of a source's history is read: the newest commits of the branch's first-parent line
/// (a merged pull request is one), or those since a time. The eggs' histories reach as far back;
/// the commit before them is fetched too, to see what the oldest one changed (`window.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryDepth {
    /// The newest `n` first-parent commits (1: the tip's own change alone).
    Commits(u32),
    /// The first-parent commits since this time (Unix seconds); none when the tip is older.
    Since(u64),
}

impl HistoryDepth {
    /// The default depth: 100 commits.
    pub const DEFAULT_COMMITS: u32 = 100;

    /// The window in words, for the history notes ("the newest 100 commits of the branch").
    pub(crate) fn describe(self) -> String {
        match self {
            HistoryDepth::Commits(1) => "the newest commit of the branch".to_owned(),
            HistoryDepth::Commits(n) => format!("the newest {n} commits of the branch"),
            HistoryDepth::Since(unix) => format!(
                "the branch's commits since {}",
                humantime::format_rfc3339_seconds(
                    std::time::UNIX_EPOCH + Duration::from_secs(unix)
                )
            ),
        }
    }
}

impl Default for HistoryDepth {
    fn default() -> Self {
        HistoryDepth::Commits(Self::DEFAULT_COMMITS)
    }
}

#[cfg(test)]
mod tests {
    use super::HistoryDepth;

    /// The window in the history notes' words: "the newest commit", never "a depth of 1
    /// commits".
    #[test]
    fn the_window_is_said_in_words() {
        assert_eq!(
            HistoryDepth::Commits(1).describe(),
            "the newest commit of the branch"
        );
        assert_eq!(
            HistoryDepth::Commits(100).describe(),
            "the newest 100 commits of the branch"
        );
        assert_eq!(
            HistoryDepth::Since(1_704_067_200).describe(),
            "the branch's commits since 2024-01-01T00:00:00Z"
        );
    }
}
