//! The pure build: every source's scan (or failure) plus the previous catalog in, the complete
//! set of published documents out.
//!
//! It runs as named stages over ONE record per egg ([`EggRecord`]), each stage in its own module
//! and each readable in a screen:
//!
//! 1. [`merge`]: each source with what the previous catalog holds of it (kept eggs of a failed
//!    source or of one that suddenly has no eggs, `indexedAt` of unchanged files);
//! 2. [`order`]: every egg once, in (owner, repo, path) order, with its slug;
//! 3. [`identify`]: the upstream egg parsed, its uuid (upstream's or derived), shared uuids (E017);
//!    then [`games`]: the eggs grouped by the game they serve (for the pages);
//! 4. [`derive`]: its import files, reused from the previous snapshot or converted anew;
//! 5. [`histories`]: its history document, made anew or kept from the previous snapshot;
//! 6. [`assemble`]: the egg documents, the index, names, compat indexes, removals, the report
//!    and the state the next build reads.
//!
//! Every published file goes to a [`Sink`] the caller gives as soon as it is made (the store
//! writes it into the snapshot being staged), and the build keeps only what later stages read:
//! its memory is the records and the files in flight, not the catalog's files (`build_into`;
//! [`build`] collects them in memory, for tests and small callers). Reading the previous
//! snapshot's files and writing the new one's are the caller's IO, through the two functions it
//! gives: the build stays a function of its inputs.
//!
//! Architecture invariant: nothing upstream can empty the catalog. A source that failed to fetch,
//! or that suddenly has no eggs where it had some, keeps its eggs from the previous catalog, and
//! the report says so.

mod assemble;
mod derive;
mod games;
mod histories;
mod identify;
mod merge;
mod order;
mod previous;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use crate::games::{EggFields, Groups, Updated};
use crate::history::SourceHistory;
use crate::reuse::Reuse;
use crate::scan::{ParsedEgg, SourceScan};
use crate::wire::{
    Diagnostic, ImageInfo, Imports, Key, Problem, Removed, Report, SourceReport, SourceState,
    State, SummaryItem,
};
use crate::{Catalog, Sink};

pub use merge::{input_downloads, input_references};
pub use previous::PreviousError;

/// A configured source, as the catalog sees it.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    /// Identity of the source across builds (URL and configured branch).
    pub key: String,
    /// The configured URL or path, for the report.
    pub url: String,
    /// Becomes `source` of its eggs.
    pub label: String,
    /// Owner of the repository.
    pub owner: String,
    /// Name of the repository.
    pub repo: String,
    /// `rawUrl` template with `{owner}`, `{repo}`, `{branch}`, `{path}`.
    pub raw_url: String,
}

/// What fetching a source gave.
#[derive(Debug)]
pub enum Fetched {
    /// Fetched and scanned at `commit`.
    Scanned {
        /// The branch read.
        branch: String,
        /// The commit read.
        commit: String,
        /// Its eggs and problems.
        scan: SourceScan,
        /// The history of its egg files, from upstream git.
        history: Box<SourceHistory>,
    },
    /// The tip commit is the one of the previous catalog: reuse its eggs without re-parsing.
    Unchanged,
    /// Fetching failed.
    Failed {
        /// The branch, when it was resolved before the failure.
        branch: Option<String>,
        /// Why, for the report.
        error: String,
    },
}

/// One source and what fetching it gave.
#[derive(Debug)]
pub struct SourceInput {
    /// The source.
    pub info: SourceInfo,
    /// The outcome of fetching it.
    pub fetched: Fetched,
}

/// What the previous catalog holds of one source.
#[derive(Debug, Clone)]
pub struct PreviousSource {
    /// The branch its eggs were read from.
    pub branch: String,
    /// The commit its eggs were read at.
    pub commit: String,
    /// Its eggs, each with when and at which commit its content was first read.
    pub eggs: Vec<(ParsedEgg, FirstRead)>,
    /// Files skipped at that commit.
    pub skipped: Vec<Problem>,
    /// Warnings at that commit.
    pub warnings: Vec<Problem>,
}

/// The previous catalog, by source key ([`Previous::decode`] reads it from a snapshot).
#[derive(Debug, Clone, Default)]
pub struct Previous {
    /// Keyed by [`SourceInfo::key`].
    pub sources: HashMap<String, PreviousSource>,
    /// Every slug it published, with its `owner/repo` and path (what a removal notice names).
    pub published: BTreeMap<String, (String, String)>,
    /// The slugs it listed as removed.
    pub removed: Vec<Removed>,
    /// What derived its eggs, import files and pages ([`BuildContext::derivation`]).
    pub derivation: String,
    /// Each of its eggs' `meta.import`, by slug: what names the import files of an egg whose
    /// files stand ([`Reuse`]).
    pub imports: HashMap<String, Imports>,
    /// The key of each output it made (`state.json` `reuse`): the record [`Reuse`] decides by,
    /// given by the caller under the same derivation only.
    pub keys: BTreeMap<String, Key>,
}

/// When the catalog first read an egg file's current content (`indexedAt`), and at which
/// upstream commit (`meta.commit`): both are kept while the file stays byte-identical, so that a
/// commit elsewhere in the repository changes none of the egg's documents (the file at that
/// commit is the one published: same `sha256`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstRead {
    /// Unix ms.
    pub indexed_at: u64,
    /// The commit's full id.
    pub commit: String,
}

/// The build's identity, the times it runs at (the clock is read by the caller), and where the
/// catalog will be reachable.
#[derive(Debug, Clone)]
pub struct BuildContext {
    /// The public address of the catalog (absolute http(s) URL, no trailing slash): the base of
    /// every absolute URL the build writes.
    pub base_url: String,
    /// Identifies the build.
    pub build_id: String,
    /// When the build started (Unix ms).
    pub started_at_ms: u64,
    /// Now (Unix ms): `indexedAt` of new content and the report's `finishedAt`.
    pub now_ms: u64,
    /// What derives eggs, import files and pages from upstream files: a fingerprint of that code
    /// and the options it uses (`base_url`). Nothing of a previous snapshot with another
    /// derivation is reused.
    pub derivation: String,
    /// What the registries said of the catalog's images (asked by `eggcat-images`, by the
    /// caller): an input like the sources, shown in `meta.images` and the report. An image
    /// without a finding is `unknown`.
    pub images: crate::ImageFindings,
    /// What the hosts said of the catalog's install-script downloads, by URL asked (issue 38):
    /// an input like the images' findings, shown in `meta.downloads` and the report. A URL
    /// without a finding is `unknown`.
    pub downloads: crate::DownloadFindings,
}

/// What a build says of the catalog whose files it put ([`build_into`]).
#[derive(Debug)]
pub struct Built {
    /// The build report (also put as [`crate::paths::STATUS`]).
    pub report: Report,
    /// What the next build needs to reuse this one.
    pub state: State,
    /// The catalog's games: its eggs grouped by the game they serve ([`games`]).
    pub games: Groups,
    /// `_summary.json` as put: one item per egg whose upstream file reads as a value, sorted
    /// by slug.
    pub summary: Vec<SummaryItem>,
    /// The egg and history documents it put of the eggs in a game, typed: what the pages are
    /// made from (`games::Siblings`), instead of decoding them again.
    pub documents: crate::games::Documents,
}

/// One source after [`merge`]: everything of it but its eggs, which become [`EggRecord`]s.
#[derive(Debug)]
struct MergedSource {
    info: SourceInfo,
    /// The history of its eggs when they come from this build's scan; `None` for kept eggs,
    /// whose history documents are the previous snapshot's.
    history: Option<Box<SourceHistory>>,
    /// What the next build remembers of it; `None` for a source with no eggs and no commit.
    state: Option<SourceState>,
    report: SourceReport,
    skipped: Vec<Problem>,
    warnings: Vec<Problem>,
}

impl MergedSource {
    /// `owner/repo`, as the report and the compat indexes name a source.
    fn name(&self) -> String {
        format!("{}/{}", self.info.owner, self.info.repo)
    }
}

/// One egg of the catalog, filled in stage by stage. Each field says which stage sets it.
#[derive(Debug)]
struct EggRecord {
    /// [`merge`]: the index of its source in the build's sources.
    source: usize,
    /// [`merge`]: the parsed upstream file.
    egg: ParsedEgg,
    /// [`merge`]: when and at which commit this content was first read.
    first: FirstRead,
    /// [`order`]: `owner/repo/path`.
    origin: String,
    /// [`order`]: its slug.
    slug: String,
    /// [`identify`]: whether the upstream egg can be read back as a JSON value (see
    /// [`identify`]).
    readable: bool,
    /// [`identify`]: the upstream egg's `uuid`, or "" when it has none (what [`games`] groups
    /// by, with the name).
    upstream_uuid: String,
    /// [`identify`]: the uuid its import files carry.
    uuid: String,
    /// [`identify`]: why upstream's uuid was not kept, when another egg kept it first.
    collision: Option<String>,
    /// [`identify`]: catalog-wide findings (E017, a uuid shared with other eggs).
    shared: Vec<Diagnostic>,
    /// [`derive`]: what its document says that is read from the egg's value.
    facts: Option<EggFacts>,
    /// [`histories`]: when upstream last changed it, as its history document says.
    updated: Option<Updated>,
    /// [`histories`]: its history document as put, with the key of its bytes, when it reads as
    /// a value (it has a page); [`assemble`] moves it into `Built::documents`.
    history: Option<(crate::games::Loaded, crate::reuse::Key)>,
}

/// What [`derive`] reads from an egg's value for its document, so that no later stage needs the
/// value (`Default`: an unreadable egg's).
#[derive(Debug, Default)]
struct EggFacts {
    /// `meta.import`: its import files (put by [`derive`]) and the panels' verdicts.
    import: Imports,
    /// `meta.images`.
    images: Vec<ImageInfo>,
    /// `meta.runsOn`.
    runs_on: Vec<String>,
    /// `meta.downloads`.
    downloads: Vec<crate::wire::DownloadInfo>,
    /// Its `description`, or "": for the compat indexes.
    description: String,
    /// What its summary item reads from the egg.
    fields: EggFields,
    /// Its icon's published path, when it has one that passed the checks (the file is put).
    icon: Option<String>,
    /// The update-check hashes of its `pelican.json` files ([`crate::imports::published_md5`]):
    /// the history's version with this file's bytes takes them instead of converting again.
    update_check_md5: Option<crate::wire::UpdateCheckMd5>,
}

/// Builds the catalog from every source's outcome and the previous catalog, in memory: every
/// file [`build_into`] puts, collected, and the state with the key of every output made.
pub fn build(
    inputs: Vec<SourceInput>,
    previous: Previous,
    ctx: &BuildContext,
    reuse: &Reuse<'_>,
) -> Catalog {
    let files = Mutex::new(BTreeMap::new());
    let sink = |path: String, bytes: Vec<u8>| {
        let mut files = files.lock().unwrap_or_else(PoisonError::into_inner);
        files.insert(path, bytes);
    };
    let Built {
        report, mut state, ..
    } = build_into(inputs, previous, ctx, reuse, &sink);
    state.reuse = reuse.made();
    Catalog {
        files: files.into_inner().unwrap_or_else(PoisonError::into_inner),
        report,
        state,
    }
}

/// Builds the catalog from every source's outcome and the previous catalog, putting each of its
/// files into `sink` as it is made. An egg's import files that stand ([`Reuse`]: the previous
/// snapshot made them from the same inputs under the same derivation) are read from there
/// instead of being converted again; so are the history documents of eggs kept from the
/// previous catalog (`reuse` reads the previous snapshot's files).
pub fn build_into(
    inputs: Vec<SourceInput>,
    mut previous: Previous,
    ctx: &BuildContext,
    reuse: &Reuse<'_>,
    sink: Sink<'_>,
) -> Built {
    let (mut sources, eggs) = merge::merge(inputs, &mut previous, ctx.now_ms);
    let mut eggs = order::order(&sources, eggs);
    let unreadable = identify::identify(&mut eggs);
    let games = games::games(&eggs);
    let imports = std::mem::take(&mut previous.imports);
    let derive_inputs = derive::Inputs {
        previous: &imports,
        base_url: &ctx.base_url,
        images: &ctx.images,
        downloads: &ctx.downloads,
        reuse,
    };
    derive::derive(&mut eggs, &derive_inputs, sink);
    drop(imports);
    let updated =
        histories::documents(&mut sources, &eggs, &previous, &ctx.base_url, (reuse, sink));
    for (r, (updated, history)) in eggs.iter_mut().zip(updated) {
        r.updated = Some(updated);
        r.history = history;
    }
    let parts = assemble::Parts {
        sources,
        eggs,
        unreadable,
        games: &games,
    };
    let (report, state, summary, documents) = assemble::assemble(parts, &previous, ctx, sink);
    Built {
        report,
        state,
        games,
        summary,
        documents,
    }
}

/// How the error of a source that suddenly has no eggs ends (the report already says the
/// previous eggs were kept).
pub const KEPT_PREVIOUS_EGGS: &str = "kept the previous eggs";

fn to_json<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("catalog documents always serialize")
}
