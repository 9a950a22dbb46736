//! Asking upstream and fetching, in three steps so that there is one worker pool: the git
//! commands of every source on a few threads of their own (git is mostly waiting on the network
//! and on git itself), then each source's scan on the catalog's pool (every core, one source at
//! a time), then the git commands of every source's history on the few threads again. Git is
//! `eggcat-upstream`'s; what is worth reading is the catalog's rule, passed to it from here
//! (`needs_content` for the tree, `history::wanted_blobs` for the history).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use eggcat_catalog::{Fetched, SourceScan};
use eggcat_upstream::{Source, Tree};

use crate::BuildOptions;

/// Sources fetched at once.
const PARALLEL_FETCHES: usize = 4;

/// A source done during a rebuild, for progress display.
#[derive(Debug, Clone)]
pub struct Progress<'a> {
    /// The source.
    pub source: &'a Source,
    /// What fetching it gave.
    pub fetched: FetchProgress,
}

/// How a source's fetch ended, for progress display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchProgress {
    /// Fetched and parsed.
    Parsed {
        /// Eggs parsed.
        eggs: usize,
        /// Files skipped.
        skipped: usize,
    },
    /// The tip commit is the previous catalog's: nothing fetched or parsed.
    Unchanged,
    /// The fetch failed, with the reason.
    Failed(String),
}

/// Fetches every source of `options` into its mirror under `mirrors`: a source whose tip is its
/// commit in `commits` (by source key) is [`Fetched::Unchanged`] after one `git ls-remote`.
pub(crate) fn fetch_all(
    options: &BuildOptions,
    mirrors: &Path,
    commits: &HashMap<String, String>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<Fetched> {
    let limits = options.limits;
    // Each source is shown as soon as its outcome is known: unchanged or failed after the git
    // step, parsed after its scan.
    let trees = on_threads(&options.sources, |source, _| {
        let previous = commits.get(&source.key()).map(String::as_str);
        let tree = eggcat_upstream::fetch_tree(
            source,
            mirrors,
            previous,
            limits,
            &eggcat_catalog::needs_content,
        );
        let shown = match &tree {
            Tree::Read(_) => None,
            Tree::Unchanged => Some(FetchProgress::Unchanged),
            Tree::Failed { error, .. } => Some(FetchProgress::Failed(error.clone())),
        };
        if let Some(fetched) = shown {
            progress(Progress { source, fetched });
        }
        tree
    });
    let scanned = scan_all(&options.sources, trees, progress);
    let histories = on_threads(&options.sources, |source, i| match &scanned[i] {
        (Tree::Read(tree), Some(scan)) => {
            let paths: Vec<&str> = scan.eggs.iter().map(|e| e.path.as_str()).collect();
            let choose = |commits: &[_], base: Option<&_>| {
                eggcat_catalog::history::wanted_blobs(commits, base, &paths)
            };
            Some(eggcat_upstream::read_history(source, tree, &choose, limits))
        }
        _ => None,
    });
    let fetched = scanned
        .into_iter()
        .zip(histories)
        .map(|(scanned, history)| match scanned {
            (Tree::Read(tree), Some(scan)) => Fetched::Scanned {
                branch: tree.branch,
                commit: tree.commit,
                scan,
                history: Box::new(history.expect("a history for every scanned source")),
            },
            (Tree::Failed { branch, error }, _) => Fetched::Failed { branch, error },
            _ => Fetched::Unchanged,
        });
    fetched.collect()
}

/// Each read tree's scan, one source at a time: each spreads its eggs over every core (the
/// catalog's pool). Run from a thread with room on its stack: a source with a single egg file is
/// parsed on the calling thread, and parsing deeply nested YAML recurses.
fn scan_all(
    sources: &[Source],
    trees: Vec<Tree>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<(Tree, Option<SourceScan>)> {
    let scan = |(tree, source)| match tree {
        Tree::Read(read) => {
            let scan = eggcat_catalog::scan(&read.entries);
            let fetched = FetchProgress::Parsed {
                eggs: scan.eggs.len(),
                skipped: scan.skipped.len(),
            };
            progress(Progress { source, fetched });
            (Tree::Read(read), Some(scan))
        }
        other => (other, None),
    };
    thread::scope(|scope| {
        thread::Builder::new()
            .stack_size(16 * 1024 * 1024)
            .spawn_scoped(scope, || trees.into_iter().zip(sources).map(scan).collect())
            .expect("spawning the scanning thread")
            .join()
            .expect("scanning does not panic")
    })
}

/// Runs `work(source, index)` for every source on a few threads; results in configuration
/// order. No per-egg work runs here: these threads wait on git.
fn on_threads<R: Send, F>(sources: &[Source], work: F) -> Vec<R>
where
    F: Fn(&Source, usize) -> R + Sync,
{
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..sources.len()).map(|_| None).collect());
    thread::scope(|scope| {
        for _ in 0..PARALLEL_FETCHES.min(sources.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(source) = sources.get(i) else { break };
                    let result = work(source, i);
                    results
                        .lock()
                        .expect("no worker panics while holding the lock")[i] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("workers are done")
        .into_iter()
        .map(|r| r.expect("every source was done"))
        .collect()
}
