//! Stage 1, merge: each source's fetch outcome with what the previous catalog holds of it. A
//! scanned source gives its new eggs (an unchanged file keeps its [`FirstRead`]); an unchanged one,
//! a failed one, or one that suddenly has no eggs keeps its previous eggs.

use std::collections::{BTreeSet, HashMap};

use super::{
    Fetched, FirstRead, KEPT_PREVIOUS_EGGS, MergedSource, Previous, PreviousSource, SourceInfo,
    SourceInput,
};
use crate::history::SourceHistory;
use crate::scan::{ParsedEgg, SourceScan};
use crate::wire::{Problem, SourceReport, SourceState, SourceStatus};

/// An egg as merging leaves it: its source (an index into the merged sources), the parsed file,
/// and when and where its content was first read.
pub(super) type SourceEgg = (usize, ParsedEgg, FirstRead);

/// Merges every source, in configuration order, taking each one's previous eggs out of
/// `previous`.
pub(super) fn merge(
    inputs: Vec<SourceInput>,
    previous: &mut Previous,
    now_ms: u64,
) -> (Vec<MergedSource>, Vec<SourceEgg>) {
    let mut sources = Vec::with_capacity(inputs.len());
    let mut eggs = Vec::new();
    for (i, input) in inputs.into_iter().enumerate() {
        let prev = previous.sources.remove(&input.info.key);
        let (source, its_eggs) = merge_one(input.info, input.fetched, prev, now_ms);
        eggs.extend(its_eggs.into_iter().map(|(egg, first)| (i, egg, first)));
        sources.push(source);
    }
    (sources, eggs)
}

/// One source: what its fetch gave, decided against what the previous catalog holds of it.
fn merge_one(
    info: SourceInfo,
    fetched: Fetched,
    prev: Option<PreviousSource>,
    now_ms: u64,
) -> (MergedSource, Vec<(ParsedEgg, FirstRead)>) {
    let mut report = new_report(&info);
    let (mut source, eggs) = match (fetched, prev) {
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
        ) => scanned(
            info,
            (branch, commit),
            scan,
            history,
            prev.as_ref(),
            now_ms,
            report,
        ),
        (Fetched::Unchanged, Some(prev)) => {
            let (skipped, warnings) = (prev.skipped.clone(), prev.warnings.clone());
            kept(info, prev, skipped, warnings, report)
        }
        (Fetched::Unchanged, None) => {
            report.status = SourceStatus::Failed;
            report.error = Some("unchanged upstream but no previous catalog to reuse".to_owned());
            (empty(info, report), Vec::new())
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
                    (empty(info, report), Vec::new())
                }
            }
        }
    };
    if let Some(state) = &source.state {
        source.report.branch = Some(state.branch.clone());
        source.report.commit = Some(state.commit.clone());
    }
    source.report.eggs = eggs.len();
    (source, eggs)
}

/// A source scanned in this build: its eggs, each keeping the [`FirstRead`] of the previous
/// catalog when its file is the same (else read now, at `commit`).
fn scanned(
    info: SourceInfo,
    (branch, commit): (String, String),
    scan: SourceScan,
    history: Box<SourceHistory>,
    prev: Option<&PreviousSource>,
    now_ms: u64,
    mut report: SourceReport,
) -> (MergedSource, Vec<(ParsedEgg, FirstRead)>) {
    let earlier: HashMap<&str, (&str, &FirstRead)> = prev
        .iter()
        .flat_map(|p| p.eggs.iter())
        .map(|(e, first)| (e.path.as_str(), (e.sha256.as_str(), first)))
        .collect();
    let eggs: Vec<(ParsedEgg, FirstRead)> = scan
        .eggs
        .into_iter()
        .map(|e| {
            let first = match earlier.get(e.path.as_str()) {
                Some(&(sha, first)) if sha == e.sha256 => first.clone(),
                _ => FirstRead {
                    indexed_at: now_ms,
                    commit: commit.clone(),
                },
            };
            (e, first)
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
        images: None,
        downloads: None,
    };
    let source = MergedSource {
        info,
        history: Some(history),
        state: Some(state),
        report,
        skipped: scan.skipped,
        warnings: scan.warnings,
    };
    (source, eggs)
}

/// The previous eggs of a source, carried into this build, with the problems to report.
fn kept(
    info: SourceInfo,
    prev: PreviousSource,
    skipped: Vec<Problem>,
    warnings: Vec<Problem>,
    report: SourceReport,
) -> (MergedSource, Vec<(ParsedEgg, FirstRead)>) {
    let state = SourceState {
        key: info.key.clone(),
        branch: prev.branch,
        commit: prev.commit,
        eggs: Vec::new(),
        skipped: prev.skipped,
        warnings: prev.warnings,
        images: None,
        downloads: None,
    };
    let source = MergedSource {
        info,
        history: None,
        state: Some(state),
        report,
        skipped,
        warnings,
    };
    (source, prev.eggs)
}

/// A source with no eggs and nothing to remember (failed, with no previous eggs).
fn empty(info: SourceInfo, report: SourceReport) -> MergedSource {
    MergedSource {
        info,
        history: None,
        state: None,
        report,
        skipped: Vec::new(),
        warnings: Vec::new(),
    }
}

fn new_report(info: &SourceInfo) -> SourceReport {
    SourceReport {
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
    }
}

/// Every download URL that can be asked the catalog built from `inputs` and `previous` may
/// fetch: as [`input_references`], from each egg's install script.
pub fn input_downloads(inputs: &[SourceInput], previous: &Previous) -> Vec<String> {
    of_input_eggs(inputs, previous, |e| &e.downloads)
}

/// Every reference the catalog built from `inputs` and `previous` may name: the images of each
/// scanned source's eggs, and of the previous eggs of every other source (unchanged or kept),
/// sorted, each once. What the pipeline asks the registries about before the build.
pub fn input_references(inputs: &[SourceInput], previous: &Previous) -> Vec<String> {
    of_input_eggs(inputs, previous, |e| &e.images)
}

/// What `of` gives of the eggs the catalog built from `inputs` and `previous` holds, sorted,
/// each once.
fn of_input_eggs(
    inputs: &[SourceInput],
    previous: &Previous,
    of: impl Fn(&crate::scan::ParsedEgg) -> &[String],
) -> Vec<String> {
    let mut set = BTreeSet::new();
    for input in inputs {
        match &input.fetched {
            Fetched::Scanned { scan, .. } if !scan.eggs.is_empty() => {
                set.extend(scan.eggs.iter().flat_map(|e| of(e).iter().cloned()));
            }
            // Unchanged, failed, or suddenly without eggs: the previous eggs are the catalog's.
            _ => {
                if let Some(p) = previous.sources.get(&input.info.key) {
                    set.extend(p.eggs.iter().flat_map(|(e, _)| of(e).iter().cloned()));
                }
            }
        }
    }
    set.into_iter().collect()
}
