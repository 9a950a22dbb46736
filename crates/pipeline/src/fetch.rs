//! Asking upstream and fetching: every source on a few threads (git is mostly waiting on the
//! network and on git itself), results in configuration order.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use eggcat_catalog::Fetched;
use eggcat_upstream::Source;

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
    on_threads(&options.sources, |source| {
        let previous = commits.get(&source.key()).map(String::as_str);
        let fetched = eggcat_upstream::fetch(source, mirrors, previous, options.limits);
        let summary = match &fetched {
            Fetched::Scanned { scan, .. } => FetchProgress::Parsed {
                eggs: scan.eggs.len(),
                skipped: scan.skipped.len(),
            },
            Fetched::Unchanged => FetchProgress::Unchanged,
            Fetched::Failed { error, .. } => FetchProgress::Failed(error.clone()),
        };
        progress(Progress {
            source,
            fetched: summary,
        });
        fetched
    })
}

/// Runs `fetch` for every source on a few threads; results in configuration order.
fn on_threads<F>(sources: &[Source], fetch: F) -> Vec<Fetched>
where
    F: Fn(&Source) -> Fetched + Sync,
{
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Fetched>>> =
        Mutex::new((0..sources.len()).map(|_| None).collect());
    thread::scope(|scope| {
        for _ in 0..PARALLEL_FETCHES.min(sources.len()) {
            // Parsing deeply nested YAML recurses; give the workers room.
            thread::Builder::new()
                .stack_size(16 * 1024 * 1024)
                .spawn_scoped(scope, || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(source) = sources.get(i) else { break };
                        let fetched = fetch(source);
                        results
                            .lock()
                            .expect("no worker panics while holding the lock")[i] = Some(fetched);
                    }
                })
                .expect("spawning a fetch worker");
        }
    });
    results
        .into_inner()
        .expect("workers are done")
        .into_iter()
        .map(|r| r.expect("every source was fetched"))
        .collect()
}
