//! One rebuild: fetch every source (in parallel), build the catalog, publish it, prune.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use eggcat_catalog::wire::{Report, SourceStatus};
use eggcat_catalog::{BuildContext, Catalog, Fetched, SourceInfo, SourceInput, build};
use eggcat_upstream::{Limits, Source};

use crate::snapshot::{SnapshotFiles, Store, remove_all};
use crate::{StoreError, io_error};

/// Sources fetched at once. Fetching is mostly waiting on git and the network.
const PARALLEL_FETCHES: usize = 4;

/// Snapshots kept, the current one included.
const KEEP_SNAPSHOTS: usize = 3;

/// What a rebuild needs.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The sources, in configuration order.
    pub sources: Vec<Source>,
    /// Per-source fetch limits.
    pub limits: Limits,
    /// The public address of the catalog (see `BuildContext::base_url`).
    pub base_url: String,
}

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

/// A published rebuild.
#[derive(Debug)]
pub struct Outcome {
    /// The build report.
    pub report: Report,
    /// The folder of the new current snapshot.
    pub snapshot_dir: std::path::PathBuf,
    /// The published documents, with the snapshot's id.
    pub snapshot: SnapshotFiles,
}

/// Fetches every source, builds the catalog, publishes it as the new current snapshot and prunes
/// old ones. `now_ms` is the clock (Unix milliseconds).
pub fn rebuild(
    store: &Store,
    options: &BuildOptions,
    now_ms: &(dyn Fn() -> u64 + Sync),
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Outcome, StoreError> {
    let data_dir = store.data_dir();
    std::fs::create_dir_all(data_dir).map_err(io_error("create", data_dir))?;
    let lock_path = data_dir.join(".lock");
    let lock = File::create(&lock_path).map_err(io_error("open", &lock_path))?;
    lock_within(&lock, Duration::from_secs(2))
        .map_err(|()| StoreError::Locked(data_dir.display().to_string()))?;

    let started_at_ms = now_ms();
    let (previous, previous_dir) = match store.load_previous() {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(error = %e, "previous snapshot unreadable: building without it");
            Default::default()
        }
    };
    // Import files and pages of unchanged eggs are taken from the previous snapshot, but only
    // when the same code and options made them.
    let derivation = derivation(&options.base_url);
    let reusable = previous_dir
        .clone()
        .filter(|_| previous.derivation == derivation);
    let read_previous = |path: &str| {
        let dir = reusable.as_ref()?;
        std::fs::read(dir.join(path)).ok()
    };
    // The snapshots this build's publishing would prune are removed while it builds: they are
    // neither read nor written by it (the one it reads from is spared), and the list is made
    // before it writes anything, so its own folder cannot be on it. A build that ends up
    // publishing nothing has then pruned one snapshot early; the next one keeps as many.
    let doomed = store
        .prunable(KEEP_SNAPSHOTS - 1, previous_dir.as_deref())
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, "could not list old snapshots to prune");
            Vec::new()
        });
    let build_and_publish = || -> Result<(Catalog, String, PathBuf), StoreError> {
        let mirrors = store.mirrors_dir();
        let fetched = fetch_all(&options.sources, |source| {
            let key = source.key();
            // Eggs parsed under older rules, or checked by other code, are parsed and checked
            // again, even from an unchanged upstream.
            let previous_commit = previous
                .sources
                .get(&key)
                .filter(|_| {
                    previous.rules == eggcat_catalog::RULES_VERSION
                        && previous.derivation == derivation
                })
                .map(|p| p.commit.as_str());
            let fetched = eggcat_upstream::fetch(source, &mirrors, previous_commit, options.limits);
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
        });

        let inputs: Vec<SourceInput> = options
            .sources
            .iter()
            .zip(fetched)
            .map(|(source, fetched)| SourceInput {
                info: source_info(source),
                fetched,
            })
            .collect();
        let ctx = BuildContext {
            base_url: options.base_url.clone(),
            build_id: build_id(started_at_ms),
            started_at_ms,
            now_ms: now_ms(),
            derivation,
        };
        let mut catalog = build(inputs, previous, &ctx, &read_previous);
        // The web pages, feed and search summary are files of the same snapshot, rendered from its
        // documents, so every host of the tree shows them and a rebuild swaps them with the rest.
        let site = eggcat_web::SiteOptions {
            base_url: &options.base_url,
        };
        let pages = eggcat_web::render(&catalog.files, &site, &read_previous);
        catalog.files.extend(pages);

        let failures: Vec<&str> = catalog
            .report
            .sources
            .iter()
            .filter(|s| s.status == SourceStatus::Failed)
            .filter_map(|s| s.error.as_deref())
            .collect();
        if !catalog.report.sources.is_empty()
            && failures.len() == catalog.report.sources.len()
            && catalog.report.eggs == 0
        {
            return Err(StoreError::NothingToPublish(failures.join("; ")));
        }
        let (id, snapshot_dir) = store.publish(&catalog)?;
        Ok((catalog, id, snapshot_dir))
    };
    let published = thread::scope(|scope| {
        let pruning = scope.spawn(|| remove_all(&doomed));
        let published = build_and_publish();
        if let Err(e) = pruning.join().expect("removing folders does not panic") {
            tracing::warn!(error = %e, "could not prune old snapshots");
        }
        published
    });
    let (catalog, id, snapshot_dir) = published?;
    drop(lock);
    Ok(Outcome {
        report: catalog.report,
        snapshot_dir,
        snapshot: SnapshotFiles {
            id,
            files: catalog.files,
        },
    })
}

/// A fingerprint of the code that derives anything from an upstream file (the sources of the
/// `egg`, `validate`, `panels`, `catalog` and `web` crates, the web assets and `Cargo.lock`,
/// hashed by `build.rs`), with the `base_url` the files carry. A snapshot made under another
/// derivation is never a source of reused parses, diagnostics or files, so an upgrade of eggcat
/// or a new `base_url` makes them all anew.
fn derivation(base_url: &str) -> String {
    format!("{DERIVATION_CODE} {base_url}")
}

include!(concat!(env!("OUT_DIR"), "/derivation.rs"));

/// Takes the build lock, waiting a little: a child process forked by another thread may hold a
/// copy of a just-released lock until it execs.
fn lock_within(lock: &File, patience: Duration) -> Result<(), ()> {
    let deadline = std::time::Instant::now() + patience;
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(_) if std::time::Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(10))
            }
            Err(_) => return Err(()),
        }
    }
}

/// Runs `fetch` for every source on a few threads; results in configuration order.
fn fetch_all<F>(sources: &[Source], fetch: F) -> Vec<Fetched>
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

fn source_info(source: &Source) -> SourceInfo {
    SourceInfo {
        key: source.key(),
        url: source.url.clone(),
        label: source.label.clone(),
        owner: source.owner.clone(),
        repo: source.repo.clone(),
        raw_url: source.raw_url.clone(),
    }
}

/// `20261121T100157.123Z`: the start time, sortable, safe as a folder name.
fn build_id(started_at_ms: u64) -> String {
    eggcat_catalog::rfc3339(started_at_ms).replace(['-', ':'], "")
}
