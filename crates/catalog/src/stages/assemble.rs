//! Stage 6, assemble: the published documents of every egg (its document, import files and
//! history), then the catalog-wide ones (index, names, compat indexes, removals, the build
//! report) and the state the next build reads.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;

use super::{BuildContext, EggRecord, MergedSource, Previous, to_json};
use crate::Sink;
use crate::games::{Documents, Groups};
use crate::name::sort_names;
use crate::raw_url::render_raw_url;
use crate::reuse::Key;
use crate::rfc3339;
use crate::wire::{
    DiagnosticCounts, IndexItem, Meta, Problem, Removed, Report, SourceProblem, State, SummaryItem,
};
use crate::{INTERFACE_VERSION, compat, paths};
use eggcat_panels::{Database, PerDatabase};

/// What the earlier stages made.
pub(super) struct Parts<'g> {
    pub(super) sources: Vec<MergedSource>,
    pub(super) eggs: Vec<EggRecord>,
    /// Warnings of [`super::identify`], by source index.
    pub(super) unreadable: Vec<(usize, Problem)>,
    /// The catalog's games ([`super::games`]).
    pub(super) games: &'g Groups,
}

/// What the egg documents add up to, for the catalog-wide documents.
#[derive(Default)]
struct Listed<'e> {
    index: Vec<IndexItem>,
    counts: DiagnosticCounts,
    /// Catalog-wide warnings (uuid collisions, unreadable eggs), recomputed every build.
    warnings: Vec<SourceProblem>,
    /// The compat index entries of Pelican on each database, and of Pterodactyl.
    compat_pelican: PerDatabase<Vec<compat::CompatEgg<'e>>>,
    compat_pterodactyl: Vec<compat::CompatEgg<'e>>,
    /// The slugs of each source, by source index.
    slugs_by_source: Vec<Vec<String>>,
    /// The image references of each source's eggs, by source index.
    images_by_source: Vec<std::collections::BTreeSet<String>>,
    /// The catalog's images, for the report.
    images: crate::images::Tally,
    /// The download URLs each source's eggs fetch that can be asked, for the state.
    downloads_by_source: Vec<std::collections::BTreeSet<String>>,
    /// The catalog's downloads, for the report.
    downloads: crate::downloads::Tally,
    /// The summary item of each egg whose upstream file reads as a value, in catalog order.
    summary: Vec<SummaryItem>,
    /// The `meta` of each such egg's document and the key of its bytes, by slug: what
    /// [`Documents`] holds with the egg and its README.
    written: BTreeMap<String, (Meta, Key)>,
}

/// Puts every egg's document and the catalog-wide documents, `_summary.json` included; returns
/// the report, the state, the summary's items and the egg documents of the eggs that have pages,
/// typed.
pub(super) fn assemble(
    parts: Parts<'_>,
    previous: &Previous,
    ctx: &BuildContext,
    sink: Sink<'_>,
) -> (Report, State, Vec<SummaryItem>, Documents) {
    let Parts {
        sources,
        mut eggs,
        unreadable,
        games,
    } = parts;
    let mut listed = egg_documents(&sources, &mut eggs, games, sink);
    let summary = crate::games::summary(std::mem::take(&mut listed.summary), sink);
    let mut written = std::mem::take(&mut listed.written);
    listed
        .warnings
        .extend(unreadable.into_iter().map(|(s, p)| tag(&sources[s], p)));
    for (db, eggs) in listed.compat_pelican.iter() {
        sink(
            paths::compat_pelican(db).to_owned(),
            compat::index("Pelican", "PLCN_v3", eggs),
        );
    }
    sink(
        paths::COMPAT_PTERODACTYL.to_owned(),
        compat::index("Pterodactyl", "PTDL_v2", &listed.compat_pterodactyl),
    );
    listed.index.sort_by(|a, b| a.slug.cmp(&b.slug));
    let names = sort_names(listed.index.iter().map(|i| i.name.as_str()));
    sink(paths::NAMES.to_owned(), to_json(&names));
    sink(paths::INDEX.to_owned(), to_json(&listed.index));
    let removed = removed(previous, &listed.index, &rfc3339(ctx.now_ms));
    sink(paths::REMOVED.to_owned(), to_json(&removed));
    let (report, state) = report_and_state(&sources, listed, removed, ctx);
    sink(paths::STATUS.to_owned(), to_json(&report));
    // The eggs' texts are moved, not copied, into the documents handed on.
    let mut documents = Documents::default();
    for r in eggs {
        if let Some((meta, key)) = written.remove(&r.slug) {
            let history = r
                .history
                .expect("the histories stage ran for an egg with a page");
            documents.insert(r.slug, (r.egg.egg, meta, r.egg.readme), key, history);
        }
    }
    (report, state, summary, documents)
}

/// Puts each egg's document, in catalog order, and makes its summary item.
fn egg_documents<'e>(
    sources: &'e [MergedSource],
    eggs: &'e mut [EggRecord],
    games: &Groups,
    sink: Sink<'_>,
) -> Listed<'e> {
    let mut listed = Listed {
        slugs_by_source: vec![Vec::new(); sources.len()],
        images_by_source: vec![Default::default(); sources.len()],
        downloads_by_source: vec![Default::default(); sources.len()],
        ..Listed::default()
    };
    for r in eggs.iter_mut() {
        let facts = r.facts.as_mut().expect("the derive stage ran");
        let import = std::mem::take(&mut facts.import);
        let (images, runs_on) = (
            std::mem::take(&mut facts.images),
            std::mem::take(&mut facts.runs_on),
        );
        let downloads = std::mem::take(&mut facts.downloads);
        let (fields, icon) = (std::mem::take(&mut facts.fields), facts.icon.take());
        let r: &'e EggRecord = r;
        let source = &sources[r.source];
        if let Some(note) = &r.collision {
            let problem = Problem {
                path: r.egg.path.clone(),
                message: note.clone(),
            };
            listed.warnings.push(tag(source, problem));
        }
        let mut meta = meta(source, r);
        meta.diagnostics.extend(r.shared.iter().cloned());
        (meta.images, meta.runs_on) = (images, runs_on);
        listed.images.add(&r.slug, &meta.images);
        let refs = meta.images.iter().filter_map(|i| i.reference.clone());
        listed.images_by_source[r.source].extend(refs);
        meta.downloads = downloads;
        listed.downloads.add(&r.slug, &meta.downloads);
        let urls = meta.downloads.iter().filter_map(|d| d.checked.clone());
        listed.downloads_by_source[r.source].extend(urls);
        listed.counts.add(&source.name(), &meta.diagnostics);
        meta.import = import;
        let description = r.facts.as_ref().map_or("", |f| f.description.as_str());
        let entry = |url: &str| compat::CompatEgg {
            owner: &source.info.owner,
            repo: &source.info.repo,
            name: &r.egg.name,
            slug: r.slug.clone(),
            description,
            download_url: url.to_owned(),
        };
        // The JSON files: Pelican's update check can find them up to date for every egg it
        // imports, which its YAML export does not allow; one index per database, whose
        // `download_url`s are that database's files (docs/panels.md).
        if let Some(files) = &meta.import.pelican.databases {
            for db in Database::ALL {
                listed.compat_pelican.get_mut(db).push(entry(files.get(db)));
            }
        }
        if meta.import.pterodactyl.importable
            && let Some(url) = &meta.import.pterodactyl.json
        {
            listed.compat_pterodactyl.push(entry(url));
        }
        let doc = EggDocumentRef {
            egg: &r.egg.egg,
            meta: &meta,
            readme: r.egg.readme.as_deref(),
        };
        let bytes = to_json(&doc);
        // An egg that does not read as a value has no page, and no summary item.
        if r.readable {
            let key = crate::games::document_key(&bytes);
            listed.written.insert(r.slug.clone(), (meta.clone(), key));
            let updated = r.updated.expect("the histories stage ran");
            let item = crate::games::item(&meta, fields, icon, updated, games);
            listed.summary.push(item);
        }
        sink(paths::egg(&r.slug), bytes);
        listed.slugs_by_source[r.source].push(r.slug.clone());
        listed.index.push(IndexItem {
            slug: r.slug.clone(),
            name: meta.name,
            category: meta.category,
            repo: meta.repo,
            source: meta.source,
        });
    }
    listed
}

/// `meta` of an egg document, without its `import` (set by the caller).
fn meta(source: &MergedSource, r: &EggRecord) -> Meta {
    let (info, egg) = (&source.info, &r.egg);
    let state = source
        .state
        .as_ref()
        .expect("a source with eggs has a state");
    let category = match egg.path.split_once('/') {
        Some((first, _)) => first.to_owned(),
        None => info.repo.clone(),
    };
    Meta {
        slug: r.slug.clone(),
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
        indexed_at: r.first.indexed_at,
        format: egg.format.clone(),
        sha256: egg.sha256.clone(),
        commit: r.first.commit.clone(),
        uuid: r.uuid.clone(),
        import: Default::default(),
        diagnostics: egg.diagnostics.clone(),
        images: Vec::new(),
        runs_on: Vec::new(),
        downloads: Vec::new(),
    }
}

/// The build report (sources in configuration order) and the state the next build reads.
fn report_and_state(
    sources: &[MergedSource],
    listed: Listed<'_>,
    removed: Vec<Removed>,
    ctx: &BuildContext,
) -> (Report, State) {
    let mut report = Report {
        interface_version: INTERFACE_VERSION.to_owned(),
        build_id: ctx.build_id.clone(),
        started_at: rfc3339(ctx.started_at_ms),
        finished_at: rfc3339(ctx.now_ms),
        eggs: listed.index.len(),
        sources: Vec::new(),
        skipped: Vec::new(),
        warnings: Vec::new(),
        diagnostics: listed.counts,
        images: listed.images.report(),
        downloads: listed.downloads.report(),
    };
    let mut state = State {
        removed,
        derivation: ctx.derivation.clone(),
        ..State::default()
    };
    let per_source = listed
        .slugs_by_source
        .into_iter()
        .zip(listed.images_by_source)
        .zip(listed.downloads_by_source);
    for (source, ((mut slugs, images), downloads)) in sources.iter().zip(per_source) {
        report
            .skipped
            .extend(source.skipped.iter().map(|p| tag(source, p.clone())));
        report
            .warnings
            .extend(source.warnings.iter().map(|p| tag(source, p.clone())));
        report.sources.push(source.report.clone());
        if let Some(mut s) = source.state.clone() {
            slugs.sort();
            s.eggs = slugs;
            s.images = Some(images.into_iter().collect());
            s.downloads = Some(downloads.into_iter().collect());
            state.sources.push(s);
        }
    }
    report.warnings.extend(listed.warnings);
    report
        .warnings
        .sort_by(|a, b| (&a.source, &a.path).cmp(&(&b.source, &b.path)));
    (report, state)
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

/// A problem of `source`, as the report lists it.
fn tag(source: &MergedSource, p: Problem) -> SourceProblem {
    SourceProblem {
        source: source.name(),
        path: p.path,
        message: p.message,
    }
}

/// [`crate::wire::EggDocument`] by reference, so rendering copies no egg. Same fields, same order.
#[derive(Serialize)]
struct EggDocumentRef<'a> {
    egg: &'a RawValue,
    meta: &'a Meta,
    readme: Option<&'a str>,
}
