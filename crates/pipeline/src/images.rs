//! The images step of a rebuild: which references the catalog names, what their registries say
//! (`eggcat-images`, with its cache in `data_dir`), and that answer as part of the rebuild's
//! inputs. A rebuild with every source unchanged upstream still asks about the current
//! snapshot's images (the references its `state.json` lists), so an image that disappears
//! changes the catalog with no upstream commit; when every answer is the one the snapshot was
//! built with, nothing is published.

use eggcat_catalog::wire::State;
use eggcat_catalog::{Fetched, ImageFindings, Previous, SourceInput};
use eggcat_store::Store;

/// The references of the current snapshot, from its state, when every source is unchanged
/// upstream (the only case where nothing may have changed) and the state lists them for every
/// source; else `None`.
pub(crate) fn current_references(
    state: Option<&State>,
    fetched: &[Fetched],
) -> Option<Vec<String>> {
    let state = state?;
    if !fetched.iter().all(|f| matches!(f, Fetched::Unchanged)) {
        return None;
    }
    let mut references = Vec::new();
    for source in &state.sources {
        references.extend(source.images.as_ref()?.iter().cloned());
    }
    references.sort();
    references.dedup();
    Some(references)
}

/// What the registries say of `references`.
pub(crate) fn ask(
    store: &Store,
    options: &eggcat_images::Options,
    references: &[String],
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> ImageFindings {
    eggcat_images::check(references, options, Some(&store.images_file()), now_ms)
}

/// What the registries say of every image the catalog built from `sources` and `previous`
/// names. `earlier` holds what this rebuild already learned (before it knew it had to build):
/// those references are not asked again, and the budget is what is left of it, so that a
/// rebuild never waits on registries longer than the budget in all.
pub(crate) fn ask_for_build(
    store: &Store,
    options: &eggcat_images::Options,
    (sources, previous): (&[SourceInput], &Previous),
    earlier: Option<(ImageFindings, std::time::Duration)>,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> ImageFindings {
    let references = eggcat_catalog::images::input_references(sources, previous);
    let Some((mut known, spent)) = earlier else {
        return ask(store, options, &references, now_ms);
    };
    let rest: Vec<String> = references
        .into_iter()
        .filter(|r| !known.contains_key(r))
        .collect();
    if rest.is_empty() {
        return known;
    }
    let options = eggcat_images::Options {
        budget: options.budget.saturating_sub(spent),
        ..options.clone()
    };
    known.extend(ask(store, &options, &rest, now_ms));
    known
}

/// The findings as one text for the inputs key: every field the documents show, so that an
/// answer that changes any of them makes the rebuild publish.
pub(crate) fn fingerprint(findings: &ImageFindings) -> String {
    serde_json::to_string(findings).expect("findings serialize")
}
