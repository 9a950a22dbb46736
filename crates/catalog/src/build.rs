//! The pure build: every source's scan (or failure) plus the previous catalog in, the complete
//! set of published documents out.
//!
//! Architecture invariant: nothing upstream can empty the catalog. A source that failed to fetch,
//! or that suddenly has no eggs where it had some, keeps its eggs from the previous catalog, and
//! the report says so.

use crate::text::rfc3339;
use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::history::SourceHistory;
use crate::name::sort_names;
use crate::raw_url::render_raw_url;
use crate::scan::{ParsedEgg, SourceScan};
use crate::slug::{SlugKey, assign_slugs};
use crate::wire::{
    DiagnosticCounts, Imports, IndexItem, Meta, Problem, Removed, Report, SourceProblem,
    SourceReport, SourceState, SourceStatus, State,
};
use crate::{INTERFACE_VERSION, compat, history, identity, imports, paths};

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
    /// Its eggs with their `indexedAt`.
    pub eggs: Vec<(ParsedEgg, u64)>,
    /// Files skipped at that commit.
    pub skipped: Vec<Problem>,
    /// Warnings at that commit.
    pub warnings: Vec<Problem>,
}

/// The previous catalog, by source key.
#[derive(Debug, Clone, Default)]
pub struct Previous {
    /// The rules version its eggs were parsed with ([`crate::RULES_VERSION`] or older).
    pub rules: u32,
    /// Keyed by [`SourceInfo::key`].
    pub sources: HashMap<String, PreviousSource>,
    /// Every slug it published, with its `owner/repo` and path (what a removal notice names).
    pub published: BTreeMap<String, (String, String)>,
    /// The slugs it listed as removed.
    pub removed: Vec<Removed>,
    /// What derived its import files and pages ([`BuildContext::derivation`]).
    pub derivation: String,
    /// What each of its eggs derived, by slug: reused by a build of the same derivation for an
    /// egg whose inputs are the same (see [`Derived`]).
    pub derived: HashMap<String, Derived>,
}

/// What an earlier build derived from one egg: its import files are a function of the egg
/// (`sha256`), its slug, uuid and `indexedAt` (the files' `exported_at`), and the derivation.
#[derive(Debug, Clone)]
pub struct Derived {
    /// Hex SHA-256 of the upstream file the files were made from.
    pub sha256: String,
    /// The uuid they carry.
    pub uuid: String,
    /// The `indexedAt` they were made with.
    pub indexed_at: u64,
    /// Its `meta.import`, which names the files.
    pub import: Imports,
}

/// Reads a file of the previous snapshot by its published path; `None` when it cannot. The
/// caller gives one that reads nothing when the previous snapshot was made under another
/// derivation. Reading is the caller's IO: the build stays a function of what it is given.
pub type PreviousFiles<'a> = &'a (dyn Fn(&str) -> Option<Vec<u8>> + Sync);

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
    /// What derives import files and pages from eggs: a fingerprint of that code and the
    /// options it uses (`base_url`). Files of a previous snapshot with another derivation are
    /// never reused.
    pub derivation: String,
}

/// A complete catalog, ready to publish.
#[derive(Debug)]
pub struct Catalog {
    /// Every published document, by path under the output root.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The build report (also in `files` as [`paths::STATUS`]).
    pub report: Report,
    /// What the next build needs to reuse this one.
    pub state: State,
}

/// One source after merging with the previous catalog.
struct Merged {
    eggs: Vec<(ParsedEgg, u64)>,
    /// The history of `eggs` when they come from this build's scan; `None` for kept eggs,
    /// whose history documents are the previous snapshot's.
    history: Option<Box<SourceHistory>>,
    state: Option<SourceState>,
    report: SourceReport,
    skipped: Vec<Problem>,
    warnings: Vec<Problem>,
}

impl Merged {
    /// A source with no eggs and nothing to remember (failed, with no previous eggs).
    fn empty(report: SourceReport) -> Merged {
        Merged {
            eggs: Vec::new(),
            history: None,
            state: None,
            report,
            skipped: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// Builds the catalog from every source's outcome and the previous catalog. An egg whose import
/// files the previous snapshot already holds, made from the same inputs under the same
/// derivation, gets those files (read through `previous_files`) instead of being converted again.
pub fn build(
    inputs: Vec<SourceInput>,
    mut previous: Previous,
    ctx: &BuildContext,
    previous_files: PreviousFiles<'_>,
) -> Catalog {
    let merged: Vec<(SourceInfo, Merged)> = inputs
        .into_iter()
        .map(|input| {
            let prev = previous.sources.remove(&input.info.key);
            let m = merge(&input.info, input.fetched, prev, ctx.now_ms);
            (input.info, m)
        })
        .collect();

    // Every egg with its source, in (owner, repo, path) order so that slugs and the output do not
    // depend on the configuration order.
    let mut eggs: Vec<(usize, &ParsedEgg, u64)> = merged
        .iter()
        .enumerate()
        .flat_map(|(s, (_, m))| m.eggs.iter().map(move |(e, at)| (s, e, *at)))
        .collect();
    eggs.sort_by(|&(sa, a, _), &(sb, b, _)| {
        let (ia, ib) = (&merged[sa].0, &merged[sb].0);
        (&ia.owner, &ia.repo, &a.path, sa).cmp(&(&ib.owner, &ib.repo, &b.path, sb))
    });
    let slug_keys: Vec<SlugKey<'_>> = eggs
        .iter()
        .map(|&(s, e, _)| SlugKey {
            owner: &merged[s].0.owner,
            repo: &merged[s].0.repo,
            path: &e.path,
        })
        .collect();
    let slugs = assign_slugs(&slug_keys);

    // Parsed once here for the panels' conversions, the compat indexes and the uuid checks.
    let values: Vec<Value> = eggs
        .iter()
        .map(|(_, e, _)| serde_json::from_str(e.egg.get()).unwrap_or(Value::Null))
        .collect();
    let origins: Vec<String> = eggs
        .iter()
        .map(|&(s, e, _)| format!("{}/{}/{}", merged[s].0.owner, merged[s].0.repo, e.path))
        .collect();
    let upstream_uuids: Vec<Option<&str>> = values
        .iter()
        .map(|v| v.get("uuid").and_then(Value::as_str))
        .collect();
    let identities = identity::assign(&origins, &upstream_uuids);
    let shared_uuids = eggcat_validate::check_catalog(
        &origins
            .iter()
            .zip(&upstream_uuids)
            .map(|(path, uuid)| eggcat_validate::CatalogEgg {
                path,
                uuid: *uuid,
                text: None,
            })
            .collect::<Vec<_>>(),
    );

    let reusable = if previous.derivation == ctx.derivation {
        std::mem::take(&mut previous.derived)
    } else {
        HashMap::new()
    };
    let converted = imports::convert_all(
        eggs.iter()
            .zip(&slugs)
            .zip(&values)
            .zip(&identities)
            .map(
                |((((_, egg, indexed_at), slug), value), id)| imports::EggToConvert {
                    egg: value,
                    slug,
                    uuid: &id.uuid,
                    sha256: &egg.sha256,
                    indexed_at: *indexed_at,
                    previous: reusable.get(slug),
                },
            )
            .collect(),
        &ctx.base_url,
        previous_files,
    );

    let mut files = BTreeMap::new();
    let histories = histories(&merged, &eggs, &slugs, &previous, previous_files);
    files.extend(slugs.iter().map(|slug| paths::history(slug)).zip(histories));
    let mut index = Vec::with_capacity(eggs.len());
    let mut slugs_by_source: Vec<Vec<String>> = vec![Vec::new(); merged.len()];
    let mut counts = DiagnosticCounts::default();
    let mut collisions = Vec::new();
    let (mut pelican, mut pterodactyl) = (Vec::new(), Vec::new());
    for (i, (((s, egg, indexed_at), slug), imports)) in
        eggs.iter().zip(slugs).zip(converted).enumerate()
    {
        let (info, m) = &merged[*s];
        let state = m.state.as_ref().expect("a source with eggs has a state");
        let mut meta = meta(info, state, egg, &slug, *indexed_at);
        let id = &identities[i];
        meta.uuid = id.uuid.clone();
        if let Some(note) = &id.collision {
            collisions.push(SourceProblem {
                source: format!("{}/{}", info.owner, info.repo),
                path: egg.path.clone(),
                message: note.clone(),
            });
        }
        meta.diagnostics.extend(shared_uuids[i].iter().cloned());
        counts.add(&format!("{}/{}", info.owner, info.repo), &meta.diagnostics);
        files.extend(imports.files);
        meta.import = imports.meta;
        let listed = |url: &Option<String>| compat::CompatEgg {
            owner: &info.owner,
            repo: &info.repo,
            name: &egg.name,
            slug: slug.clone(),
            description: values[i]
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
            download_url: url.clone().unwrap_or_default(),
        };
        // The JSON file: Pelican's update check can find it up to date for every egg it
        // imports, which its YAML export does not allow (docs/panels.md).
        if meta.import.pelican.json.is_some() {
            pelican.push(listed(&meta.import.pelican.json));
        }
        if meta.import.pterodactyl.importable && meta.import.pterodactyl.json.is_some() {
            pterodactyl.push(listed(&meta.import.pterodactyl.json));
        }
        let doc = EggDocumentRef {
            egg: &egg.egg,
            meta: &meta,
            readme: egg.readme.as_deref(),
        };
        files.insert(paths::egg(&slug), to_json(&doc));
        index.push(IndexItem {
            slug: slug.clone(),
            name: meta.name,
            category: meta.category,
            repo: meta.repo,
            source: meta.source,
        });
        slugs_by_source[*s].push(slug);
    }
    files.insert(
        paths::COMPAT_PELICAN.to_owned(),
        compat::index("Pelican", "PLCN_v3", &pelican),
    );
    files.insert(
        paths::COMPAT_PTERODACTYL.to_owned(),
        compat::index("Pterodactyl", "PTDL_v2", &pterodactyl),
    );
    index.sort_by(|a, b| a.slug.cmp(&b.slug));
    let names = sort_names(index.iter().map(|i| i.name.as_str()));
    files.insert(paths::NAMES.to_owned(), to_json(&names));
    files.insert(paths::INDEX.to_owned(), to_json(&index));
    let removed = removed(&previous, &index, &rfc3339(ctx.now_ms));
    files.insert(paths::REMOVED.to_owned(), to_json(&removed));

    let mut report = Report {
        interface_version: INTERFACE_VERSION.to_owned(),
        build_id: ctx.build_id.clone(),
        started_at: rfc3339(ctx.started_at_ms),
        finished_at: rfc3339(ctx.now_ms),
        eggs: index.len(),
        sources: Vec::new(),
        skipped: Vec::new(),
        warnings: Vec::new(),
        diagnostics: counts,
    };
    let mut state = State {
        rules: crate::RULES_VERSION,
        removed,
        derivation: ctx.derivation.clone(),
        ..State::default()
    };
    for ((info, m), mut slugs) in merged.into_iter().zip(slugs_by_source) {
        let source = format!("{}/{}", info.owner, info.repo);
        let tag = |p: Problem| SourceProblem {
            source: source.clone(),
            path: p.path,
            message: p.message,
        };
        report.skipped.extend(m.skipped.into_iter().map(tag));
        report.warnings.extend(m.warnings.into_iter().map(tag));
        report.sources.push(m.report);
        if let Some(mut s) = m.state {
            slugs.sort();
            s.eggs = slugs;
            state.sources.push(s);
        }
    }
    // Catalog-wide findings, recomputed every build (so not kept in the sources' state).
    report.warnings.extend(collisions);
    report
        .warnings
        .sort_by(|a, b| (&a.source, &a.path).cmp(&(&b.source, &b.path)));
    files.insert(paths::STATUS.to_owned(), to_json(&report));
    Catalog {
        files,
        report,
        state,
    }
}

/// The history document of every egg, in order: made from its source's history when the source
/// was scanned in this build, else the previous snapshot's document for the egg (its slug put
/// right if it changed), else one that says there is none.
fn histories(
    merged: &[(SourceInfo, Merged)],
    eggs: &[(usize, &ParsedEgg, u64)],
    slugs: &[String],
    previous: &Previous,
    previous_files: PreviousFiles<'_>,
) -> Vec<Vec<u8>> {
    let previous_slug: HashMap<(&str, &str), &str> = previous
        .published
        .iter()
        .map(|(slug, (origin, path))| ((origin.as_str(), path.as_str()), slug.as_str()))
        .collect();
    let work: Vec<(usize, &ParsedEgg, &String)> = eggs
        .iter()
        .zip(slugs)
        .map(|(&(s, egg, _), slug)| (s, egg, slug))
        .collect();
    crate::par::map(&work, |&(s, egg, slug)| {
        let (info, m) = &merged[s];
        let source = format!("{}/{}", info.owner, info.repo);
        let branch = m.state.as_ref().map_or("", |st| st.branch.as_str());
        let at = history::EggRef {
            slug,
            source: &source,
            branch,
            path: &egg.path,
        };
        if let Some(h) = &m.history {
            return to_json(&history::document(h, at));
        }
        let old = previous_slug.get(&(source.as_str(), egg.path.as_str()));
        let kept = old.and_then(|old| Some((*old, previous_files(&paths::history(old))?)));
        match kept {
            Some((old, bytes)) if old == slug => bytes,
            Some((_, bytes)) => match serde_json::from_slice::<crate::wire::History>(&bytes) {
                Ok(mut doc) => {
                    doc.slug = slug.clone();
                    to_json(&doc)
                }
                Err(_) => to_json(&history::document(&no_history(), at)),
            },
            None => to_json(&history::document(&no_history(), at)),
        }
    })
}

/// The history of eggs kept from a previous catalog that has no history document for them.
fn no_history() -> SourceHistory {
    SourceHistory {
        unavailable: Some(
            "the source was not read in this build and the previous catalog has no history of this egg"
                .to_owned(),
        ),
        ..SourceHistory::default()
    }
}

/// The slugs of the previous catalog (published or already removed) that this one lacks. A slug
/// keeps the time it was first found missing; a slug that is back leaves the list.
fn removed(previous: &Previous, index: &[IndexItem], now: &str) -> Vec<Removed> {
    let present = |slug: &str| {
        index
            .binary_search_by(|i| i.slug.as_str().cmp(slug))
            .is_ok()
    };
    let mut out: BTreeMap<&str, Removed> = previous
        .removed
        .iter()
        .filter(|r| !present(&r.slug))
        .map(|r| (r.slug.as_str(), r.clone()))
        .collect();
    for (slug, (source, path)) in &previous.published {
        if !present(slug) && !out.contains_key(slug.as_str()) {
            let gone = Removed {
                slug: slug.clone(),
                removed_at: now.to_owned(),
                source: source.clone(),
                path: path.clone(),
            };
            out.insert(slug, gone);
        }
    }
    out.into_values().collect()
}

fn merge(info: &SourceInfo, fetched: Fetched, prev: Option<PreviousSource>, now_ms: u64) -> Merged {
    let mut report = SourceReport {
        url: info.url.clone(),
        label: info.label.clone(),
        owner: info.owner.clone(),
        repo: info.repo.clone(),
        branch: None,
        commit: None,
        status: SourceStatus::Ok,
        changed: false,
        eggs: 0,
        error: None,
        kept_previous: false,
    };
    let mut merged = match (fetched, prev) {
        (Fetched::Scanned { scan, .. }, Some(prev))
            if scan.eggs.is_empty() && !prev.eggs.is_empty() =>
        {
            report.status = SourceStatus::Failed;
            report.error = Some(format!(
                "no eggs found where the previous build had {}: {KEPT_PREVIOUS_EGGS}",
                prev.eggs.len()
            ));
            report.kept_previous = true;
            kept(info, prev, scan.skipped, scan.warnings, report)
        }
        (
            Fetched::Scanned {
                branch,
                commit,
                scan,
                history,
            },
            prev,
        ) => {
            let earlier: HashMap<&str, (&str, u64)> = prev
                .iter()
                .flat_map(|p| {
                    p.eggs
                        .iter()
                        .map(|(e, at)| (e.path.as_str(), (e.sha256.as_str(), *at)))
                })
                .collect();
            let eggs: Vec<(ParsedEgg, u64)> = scan
                .eggs
                .into_iter()
                .map(|e| {
                    let at = match earlier.get(e.path.as_str()) {
                        Some(&(sha, at)) if sha == e.sha256 => at,
                        _ => now_ms,
                    };
                    (e, at)
                })
                .collect();
            report.changed = true;
            let state = SourceState {
                key: info.key.clone(),
                branch,
                commit,
                eggs: Vec::new(),
                skipped: scan.skipped.clone(),
                warnings: scan.warnings.clone(),
            };
            Merged {
                eggs,
                history: Some(history),
                state: Some(state),
                report,
                skipped: scan.skipped,
                warnings: scan.warnings,
            }
        }
        (Fetched::Unchanged, Some(prev)) => {
            let (skipped, warnings) = (prev.skipped.clone(), prev.warnings.clone());
            kept(info, prev, skipped, warnings, report)
        }
        (Fetched::Unchanged, None) => {
            report.status = SourceStatus::Failed;
            report.error = Some("unchanged upstream but no previous catalog to reuse".to_owned());
            Merged::empty(report)
        }
        (Fetched::Failed { branch, error }, prev) => {
            report.status = SourceStatus::Failed;
            report.error = Some(error);
            match prev {
                Some(prev) => {
                    report.kept_previous = !prev.eggs.is_empty();
                    let (skipped, warnings) = (prev.skipped.clone(), prev.warnings.clone());
                    kept(info, prev, skipped, warnings, report)
                }
                None => {
                    report.branch = branch;
                    Merged::empty(report)
                }
            }
        }
    };
    if let Some(state) = &merged.state {
        merged.report.branch = Some(state.branch.clone());
        merged.report.commit = Some(state.commit.clone());
    }
    merged.report.eggs = merged.eggs.len();
    merged
}

/// The previous eggs of a source, carried into this build.
fn kept(
    info: &SourceInfo,
    prev: PreviousSource,
    skipped: Vec<Problem>,
    warnings: Vec<Problem>,
    report: SourceReport,
) -> Merged {
    let state = SourceState {
        key: info.key.clone(),
        branch: prev.branch,
        commit: prev.commit,
        eggs: Vec::new(),
        skipped: prev.skipped,
        warnings: prev.warnings,
    };
    Merged {
        eggs: prev.eggs,
        history: None,
        state: Some(state),
        report,
        skipped,
        warnings,
    }
}

fn meta(
    info: &SourceInfo,
    state: &SourceState,
    egg: &ParsedEgg,
    slug: &str,
    indexed_at: u64,
) -> Meta {
    let category = match egg.path.split_once('/') {
        Some((first, _)) => first.to_owned(),
        None => info.repo.clone(),
    };
    Meta {
        slug: slug.to_owned(),
        name: egg.name.clone(),
        category,
        source: info.label.clone(),
        owner: info.owner.clone(),
        repo: info.repo.clone(),
        branch: state.branch.clone(),
        path: egg.path.clone(),
        raw_url: render_raw_url(
            &info.raw_url,
            &info.owner,
            &info.repo,
            &state.branch,
            &egg.path,
        ),
        indexed_at,
        format: egg.format.clone(),
        sha256: egg.sha256.clone(),
        commit: state.commit.clone(),
        uuid: String::new(),
        import: Default::default(),
        diagnostics: egg.diagnostics.clone(),
    }
}

/// [`crate::wire::EggDocument`] by reference, so rendering copies no egg. Same fields, same order.
#[derive(Serialize)]
struct EggDocumentRef<'a> {
    egg: &'a RawValue,
    meta: &'a Meta,
    readme: Option<&'a str>,
}

/// How the error of a source that suddenly has no eggs ends (the report already says the
/// previous eggs were kept).
pub const KEPT_PREVIOUS_EGGS: &str = "kept the previous eggs";

fn to_json<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("catalog documents always serialize")
}
