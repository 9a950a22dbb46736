//! The images step of a rebuild: which references the catalog names, what their registries say
//! (`eggcat-images`, with its cache in `data_dir`), and that answer as part of the rebuild's
//! inputs. A rebuild with every source unchanged upstream still asks about the current
//! snapshot's images (the references its `state.json` lists), so an image that disappears
//! changes the catalog with no upstream commit; when every answer is the one the snapshot was
//! built with, no snapshot is made.

use eggcat_catalog::wire::State;
use eggcat_catalog::{DownloadFindings, Fetched, ImageFindings, Previous, SourceInput};
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

/// The download URLs of the current snapshot, from its state, on the same terms as
/// [`current_references`].
pub(crate) fn current_downloads(state: Option<&State>, fetched: &[Fetched]) -> Option<Vec<String>> {
    let state = state?;
    if !fetched.iter().all(|f| matches!(f, Fetched::Unchanged)) {
        return None;
    }
    let mut urls = Vec::new();
    for source in &state.sources {
        urls.extend(source.downloads.as_ref()?.iter().cloned());
    }
    urls.sort();
    urls.dedup();
    Some(urls)
}

/// What the hosts say of the download `urls` (issue 38), with what is left of the budget after
/// `spent` on images: one budget for both. The answers go into the images' cache file.
pub(crate) fn ask_downloads(
    store: &Store,
    options: &eggcat_images::Options,
    urls: &[String],
    spent: std::time::Duration,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> DownloadFindings {
    let options = eggcat_images::Options {
        budget: options.budget.saturating_sub(spent),
        ..options.clone()
    };
    eggcat_images::check_downloads(urls, urls, &options, Some(&store.images_file()), now_ms)
}

/// What the registries say of `references` and the hosts of `urls`, the downloads on what is
/// left of the budget.
/// Gives the image findings, and the fingerprint of both for the inputs key.
pub(crate) fn ask_both(
    store: &Store,
    options: &eggcat_images::Options,
    (references, urls): (Vec<String>, Vec<String>),
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> (ImageFindings, String) {
    let asking = std::time::Instant::now();
    let findings = ask(store, options, &references, now_ms);
    let downloads = ask_downloads(store, options, &urls, asking.elapsed(), now_ms);
    let fingerprint = fingerprint(&findings, &downloads);
    (findings, fingerprint)
}

/// The image references and download URLs of the current snapshot, when every source is
/// unchanged upstream and its state lists both ([`current_references`], [`current_downloads`]).
pub(crate) fn current(
    state: Option<&State>,
    fetched: &[Fetched],
) -> Option<(Vec<String>, Vec<String>)> {
    current_references(state, fetched).zip(current_downloads(state, fetched))
}

/// The inputs key of a build with these findings.
pub(crate) fn inputs(
    derivation: &str,
    infos: &[eggcat_catalog::SourceInfo],
    (images, downloads): (&ImageFindings, &DownloadFindings),
) -> String {
    crate::derivation::inputs(derivation, infos, &fingerprint(images, downloads))
}

/// [`ask_for_build`], then what the hosts say of every download the catalog built from
/// `sources` and `previous` fetches, on what is left of the budget: one budget for both.
pub(crate) fn both_for_build(
    store: &Store,
    options: &eggcat_images::Options,
    (sources, previous): (&[SourceInput], &Previous),
    earlier: Option<(ImageFindings, std::time::Duration)>,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> (ImageFindings, DownloadFindings) {
    let asking = std::time::Instant::now();
    let spent_before = earlier.as_ref().map(|(_, s)| *s).unwrap_or_default();
    let findings = ask_for_build(store, options, (sources, previous), earlier, now_ms);
    let urls = eggcat_catalog::input_downloads(sources, previous);
    let spent = spent_before + asking.elapsed();
    let downloads = ask_downloads(store, options, &urls, spent, now_ms);
    (findings, downloads)
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
    let references = eggcat_catalog::input_references(sources, previous);
    ask_rest(store, options, &references, earlier, now_ms)
}

/// [`ask_for_build`] once the catalog's `references` are known.
fn ask_rest(
    store: &Store,
    options: &eggcat_images::Options,
    references: &[String],
    earlier: Option<(ImageFindings, std::time::Duration)>,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> ImageFindings {
    let Some((mut known, spent)) = earlier else {
        return ask(store, options, references, now_ms);
    };
    let rest: Vec<String> = references
        .iter()
        .filter(|r| !known.contains_key(*r))
        .cloned()
        .collect();
    if rest.is_empty() {
        return known;
    }
    let options = eggcat_images::Options {
        budget: options.budget.saturating_sub(spent),
        ..options.clone()
    };
    // The cache keeps the answers of the whole catalog, those learned earlier included: asked
    // about `rest` alone, it would drop them, and the next build would ask them all again.
    let file = store.images_file();
    let more = eggcat_images::check_part(&rest, references, &options, Some(&file), now_ms);
    known.extend(more);
    known
}

/// The findings as one text for the inputs key: every field the documents show, so that an
/// answer that changes any of them makes the rebuild save a new snapshot.
pub(crate) fn fingerprint(findings: &ImageFindings, downloads: &DownloadFindings) -> String {
    let images = serde_json::to_string(findings).expect("findings serialize");
    if downloads.is_empty() {
        return images;
    }
    let downloads = serde_json::to_string(downloads).expect("findings serialize");
    format!("{images}\n{downloads}")
}

#[cfg(test)]
mod tests {
    use eggcat_catalog::ImageFinding;
    use eggcat_catalog::wire::ImageStatus;

    use super::*;

    const NOW: u64 = 3_600_000;

    /// An answer the registry gave at 1 s: fresh for a day, so nothing is asked.
    fn present(reference: &str) -> (String, serde_json::Value) {
        let entry = serde_json::json!({
            "status": "present",
            "digest": format!("sha256:{}", "ab".repeat(32)),
            "platforms": ["linux/amd64"],
            "since": 1_000,
            "checkedAt": 1_000,
        });
        (reference.to_owned(), entry)
    }

    /// Regression: the second check of a build (the references its new eggs add) kept in
    /// `images.json` only the references it asked about, so every answer of the first check
    /// was forgotten and the next build asked every registry again.
    #[test]
    fn the_second_check_of_a_build_keeps_the_answers_of_the_first_in_the_cache() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::new(dir.path());
        let (a, b) = (
            "127.0.0.1:9/test/a:v1".to_owned(),
            "127.0.0.1:9/test/b:v1".to_owned(),
        );
        let file = store.images_file();
        let cache: serde_json::Map<_, _> = [present(&a), present(&b)].into_iter().collect();
        let cache = serde_json::json!({ "references": cache });
        std::fs::create_dir_all(file.parent().expect("a folder")).expect("the data folder");
        std::fs::write(&file, cache.to_string()).expect("the cache is written");
        // What the first check (the current snapshot's images) found of `a`.
        let first = ImageFinding {
            status: ImageStatus::Present,
            digest: Some(format!("sha256:{}", "ab".repeat(32))),
            platforms: vec!["linux/amd64".to_owned()],
            since_ms: Some(1_000),
            detail: None,
        };
        let earlier = [(a.clone(), first.clone())].into_iter().collect();
        let earlier = Some((earlier, std::time::Duration::from_millis(5)));
        let options = eggcat_images::Options::default();
        let all = ask_rest(&store, &options, &[a.clone(), b.clone()], earlier, &|| NOW);
        let expected: ImageFindings = [(a.clone(), first.clone()), (b.clone(), first)]
            .into_iter()
            .collect();
        assert_eq!(all, expected, "`b` from the cache, without asking");
        let kept: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).expect("the cache is there"))
                .expect("the cache is JSON");
        let kept: Vec<&String> = kept["references"]
            .as_object()
            .expect("references")
            .keys()
            .collect();
        assert_eq!(kept, [&a, &b], "both answers kept for the next build");
    }
}
