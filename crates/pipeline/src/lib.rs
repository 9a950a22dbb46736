//! The application layer: one rebuild, in one place (ask upstream, fetch what changed, build
//! the catalog, render the pages, save them as a snapshot made current, prune old ones), what
//! follows a build ([`after`]: the `--out` tree with its static-host rules, and publishing, the
//! upload to a bucket), and when `eggcat serve` rebuilds ([`schedule`]). The stages are
//! functions of this crate; the disk (`eggcat-store`), upstream (`eggcat-upstream`), the catalog
//! (`eggcat-catalog`), the pages (`eggcat-web`) and the bucket (`eggcat-publish`) are called,
//! never the other way round. The binary reads the configuration, calls these, and prints.
//!
//! A rebuild that finds nothing changed (every source at the commit the current snapshot was
//! built from, the same deriving code and options, the same sources configured, and no source
//! failed in that build) saves nothing: it returns [`Rebuilt::Unchanged`] and the current
//! snapshot, its `_status.json` included, stays as it is.
//!
//! One worker pool: the per-egg work (parsing, checks, conversions, history documents) runs on
//! `eggcat-catalog`'s pool, one call at a time; upstream's blocking git commands run on a few
//! threads of their own before and after it ([`fetch`]).

pub mod after;
mod derivation;
mod fetch;
mod images;
mod previous;
pub mod schedule;

use std::path::PathBuf;

use eggcat_catalog::reuse::Reuse;
use eggcat_catalog::wire::{Report, SourceStatus};
use eggcat_catalog::{BuildContext, Previous, SourceInfo, SourceInput, build_into};
use eggcat_store::{Store, StoreError, remove_all};
use eggcat_upstream::{Limits, Source};

pub use fetch::{FetchProgress, Progress};

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
    /// How the images' registries are asked (`[images]`).
    pub images: eggcat_images::Options,
}

/// What a rebuild did.
#[derive(Debug)]
pub enum Rebuilt {
    /// A new snapshot was built and made current.
    Built(Box<Outcome>),
    /// Nothing changed upstream or in the deriving code: no snapshot was made, the current one
    /// (in this folder) stays.
    Unchanged {
        /// The folder of the current snapshot.
        snapshot_dir: PathBuf,
    },
}

/// A rebuild that made a new snapshot current.
#[derive(Debug)]
pub struct Outcome {
    /// The build report.
    pub report: Report,
    /// The folder of the new current snapshot.
    pub snapshot_dir: PathBuf,
    /// The snapshot's id (its folder's name).
    pub id: String,
}

/// Why a rebuild failed as a whole. A failing source is not an error: it is in the report and
/// keeps its previous eggs.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Reading or writing snapshots failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No source could be fetched and there is no previous catalog: a snapshot would be empty.
    /// (The message says "nothing to publish", as it always has: nothing to show users.)
    #[error("nothing to publish: no source could be fetched ({0})")]
    NothingFetched(String),
    /// Eggs of a game had no egg document handed on for their pages (a bug: the build groups
    /// only the eggs it writes a document for): their pages would be missing, so nothing is
    /// made current.
    #[error(
        "{count} eggs of the new snapshot have no egg document for their pages (the first: `{first}`): nothing made current, the current catalog stays"
    )]
    Unreadable {
        /// How many.
        count: usize,
        /// The first one's slug.
        first: String,
    },
}

/// Asks every source for its tip; when nothing changed, returns [`Rebuilt::Unchanged`]; else
/// fetches what changed, builds the catalog, saves it as the new current snapshot and prunes
/// old ones. `now_ms` is the clock (Unix milliseconds).
pub fn rebuild(
    store: &Store,
    options: &BuildOptions,
    now_ms: &(dyn Fn() -> u64 + Sync),
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Rebuilt, PipelineError> {
    let lock = store.lock()?;
    let clock = Stages::start();
    let started_at_ms = now_ms();
    let infos: Vec<SourceInfo> = options.sources.iter().map(source_info).collect();
    let derivation = derivation::derivation(&options.base_url, options.limits.history);
    let loaded = previous::load(store, &derivation);
    let fetched = fetch::fetch_all(options, &store.mirrors_dir(), &loaded.commits, progress);
    clock.lap("fetch");
    // All unchanged upstream: only the checks' answers (or the configuration, the code) count.
    let mut earlier = None;
    if let Some(current) = images::current(loaded.state(), &fetched) {
        let asking = std::time::Instant::now();
        let (findings, fingerprint) = images::ask_both(store, &options.images, current, now_ms);
        clock.lap("images");
        let inputs = derivation::inputs(&derivation, &infos, &fingerprint);
        if let Some(snapshot_dir) = loaded.unchanged(&fetched, &inputs) {
            return Ok(Rebuilt::Unchanged { snapshot_dir });
        }
        earlier = Some((findings, asking.elapsed()));
    }
    let (previous, reads, other) = loaded.decode(store);
    clock.lap("previous");
    // Read from another snapshot than the one upstream was asked against (the current one is
    // damaged): ask again against the commits of the one read.
    let fetched = if other {
        let commits = previous::commits(&previous, &derivation);
        fetch::fetch_all(options, &store.mirrors_dir(), &commits, progress)
    } else {
        fetched
    };
    // The snapshots this build's saving would prune are removed while it builds: they are
    // neither read nor written by it (the one it reads from is spared), and the list is made
    // before it writes anything, so its own folder cannot be on it. A build that ends up
    // saving nothing has then pruned one snapshot early; the next one keeps as many.
    let doomed = store
        .prunable(KEEP_SNAPSHOTS - 1, reads.dir())
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, "could not list old snapshots to prune");
            Vec::new()
        });
    let inputs_of = |(info, fetched)| SourceInput { info, fetched };
    let sources: Vec<SourceInput> = infos.iter().cloned().zip(fetched).map(inputs_of).collect();
    let (findings, downloads) = images::both_for_build(
        store,
        &options.images,
        (&sources, &previous),
        earlier,
        now_ms,
    );
    clock.lap("images");
    let inputs = images::inputs(&derivation, &infos, (&findings, &downloads));
    let ctx = BuildContext {
        base_url: options.base_url.clone(),
        build_id: build_id(started_at_ms),
        started_at_ms,
        now_ms: now_ms(),
        derivation,
        images: findings,
        downloads,
    };
    let previous = (previous, reads);
    let outcome = std::thread::scope(|scope| {
        let pruning = scope.spawn(|| remove_all(&doomed));
        let outcome = build_and_save(store, options, sources, previous, &ctx, inputs, &clock);
        if let Err(e) = pruning.join().expect("removing folders does not panic") {
            tracing::warn!(error = %e, "could not prune old snapshots");
        }
        clock.lap("prune");
        outcome
    })?;
    drop(lock);
    Ok(Rebuilt::Built(Box::new(outcome)))
}

/// Builds the catalog from the sources' outcomes and the previous catalog (with the reader of
/// the folder it was read from), renders the pages, and saves the snapshot and makes it current,
/// unless every source failed and no egg is left. `inputs` goes into the state when no source failed. Every file goes into
/// the snapshot being staged as soon as it is made: the build holds its records and the files
/// in flight, never the whole catalog.
fn build_and_save(
    store: &Store,
    options: &BuildOptions,
    sources: Vec<SourceInput>,
    (mut previous, reads): (Previous, previous::Reads),
    ctx: &BuildContext,
    inputs: String,
    clock: &Stages,
) -> Result<Outcome, PipelineError> {
    // Import files and pages that stand (`Reuse`: made from the same inputs, by the same code
    // and options) are taken from the previous snapshot, and so are the history documents of
    // the eggs it keeps; each file read is checked against that snapshot's manifest, and a
    // damaged one is made anew. Nothing is read from a snapshot another derivation made.
    let reusable = previous.derivation == ctx.derivation;
    let keys = std::mem::take(&mut previous.keys);
    let keys = if reusable { keys } else { Default::default() };
    let reuse = Reuse::new(keys, |path: &str| {
        reusable.then(|| reads.read(path).ok()).flatten()
    });
    let current = store.current_dir();
    let verified = |path: &str| reads.read_intact(path, current.as_deref());
    let staging = store.stage(&ctx.build_id, &verified)?;
    let sink = |path: String, bytes: Vec<u8>| staging.put(&path, bytes);
    let mut built = build_into(sources, previous, ctx, &reuse, &sink);
    clock.lap("build");
    // The web pages, feed and search summary are files of the same snapshot, rendered from its
    // documents (as the build hands them on, typed: nothing it wrote is decoded again), so every host of the tree shows them
    // and a rebuild swaps them with the rest.
    let site = eggcat_web::SiteOptions {
        base_url: &options.base_url,
    };
    let documents = |slug: &str| built.documents.get(slug);
    let histories = |slug: &str| built.documents.history(slug);
    let facts = eggcat_web::Facts {
        games: &built.games,
        report: &built.report,
        removed: &built.state.removed,
        summary: &built.summary,
        documents: &documents,
        histories: &histories,
    };
    let rendered = eggcat_web::render_into(&facts, &site, &reuse, &sink);
    clock.lap("render");
    if every_source_ok(&built.report) {
        built.state.inputs = inputs;
    }
    built.state.reuse = reuse.made();
    // An error drops the staging, which removes its folder: the current snapshot stays.
    refuse_empty(&built.report)?;
    if let Some(first) = rendered.unreadable.first() {
        // A file the staging could not write (a full disk) is the cause: say it.
        if let Some(e) = staging.take_failure() {
            return Err(e.into());
        }
        return Err(PipelineError::Unreadable {
            count: rendered.unreadable.len(),
            first: first.clone(),
        });
    }
    let (id, snapshot_dir) = staging.finish(&built.state)?;
    clock.lap("save");
    Ok(Outcome {
        report: built.report,
        snapshot_dir,
        id,
    })
}

/// Fails when every source failed and no egg is left: saving would empty the catalog.
fn refuse_empty(report: &Report) -> Result<(), PipelineError> {
    // Each reason names its source: the URL is free of credentials (a source with them is
    // refused when the configuration is read).
    let failures: Vec<String> = report
        .sources
        .iter()
        .filter(|s| s.status == SourceStatus::Failed)
        .filter_map(|s| Some(format!("source `{}`: {}", s.url, s.error.as_deref()?)))
        .collect();
    if !report.sources.is_empty() && failures.len() == report.sources.len() && report.eggs == 0 {
        return Err(PipelineError::NothingFetched(failures.join("; ")));
    }
    Ok(())
}

fn every_source_ok(report: &Report) -> bool {
    report.sources.iter().all(|s| s.status == SourceStatus::Ok)
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

/// The time each stage of a rebuild took, logged at debug level (`EGGCAT_LOG=debug`): where a
/// rebuild's time goes, without a profiler.
struct Stages(std::sync::Mutex<std::time::Instant>);

impl Stages {
    fn start() -> Stages {
        Stages(std::sync::Mutex::new(std::time::Instant::now()))
    }

    /// Logs the time since the previous lap as `stage`'s.
    fn lap(&self, stage: &str) {
        let mut last = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = std::time::Instant::now();
        tracing::debug!(
            stage,
            ms = (now - *last).as_secs_f64() * 1000.0,
            rss_anon_kib = rss_anon_kib(),
            "rebuild stage done"
        );
        *last = now;
    }
}

/// This process's anonymous resident memory (`RssAnon` of `/proc/self/status`), in KiB: what
/// the stage log shows of where a build's memory goes. 0 where it cannot be read.
fn rss_anon_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// `20261121T100157.123Z`: the start time, sortable, safe as a folder name.
fn build_id(started_at_ms: u64) -> String {
    eggcat_catalog::rfc3339(started_at_ms).replace(['-', ':'], "")
}
