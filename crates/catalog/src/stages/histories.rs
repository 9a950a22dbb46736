//! Stage 5, histories: each egg's history document (`api/v1/eggs/{slug}/history.json`) and the
//! `pelican.json` of each older version it names (`versions/{sha256}/pelican.json`). Made from
//! its source's history when the source was scanned in this build; else the previous
//! snapshot's document for the egg and those files (its slug put right if it changed, the
//! hashes and files dropped when the egg's identity changed); else one that says there is none.
//! Each document and file goes to the build's sink as soon as it is made, and the sources'
//! histories (every version of every egg file read from git) are let go once all are made. The
//! document of an egg that has a page is also handed on typed, with the key of the bytes put
//! (`games::Documents::history`), so that the pages do not decode what the build wrote.

use std::collections::HashMap;

use super::{EggRecord, MergedSource, Previous, to_json};
use crate::Sink;
use crate::games::{Loaded, Updated};
use crate::history::{self, EggRef, SourceHistory};
use crate::paths;
use crate::reuse::{Key, Reuse};
use crate::wire::{History, Version};

/// Puts the history document of every record, made on every core, then drops the sources'
/// histories; returns when upstream last changed each record's egg, as its document says, and,
/// for a record that reads as a value (it has a page), the document as put with the key of its
/// bytes.
pub(super) fn documents(
    sources: &mut [MergedSource],
    eggs: &[EggRecord],
    previous: &Previous,
    base_url: &str,
    (reuse, sink): (&Reuse<'_>, Sink<'_>),
) -> Vec<(Updated, Option<(Loaded, Key)>)> {
    // Where the previous catalog published each (source, path): a kept egg's old document.
    let previous_slug: HashMap<(&str, &str), &str> = previous
        .published
        .iter()
        .map(|(slug, (origin, path))| ((origin.as_str(), path.as_str()), slug.as_str()))
        .collect();
    let read_only: &[MergedSource] = sources;
    let updated = crate::par::map(eggs, |r| {
        let (document, updated, loaded) = document(
            &read_only[r.source],
            r,
            &previous_slug,
            base_url,
            (reuse, sink),
        );
        let shown = r.readable.then(|| {
            let key = crate::games::history_key(Some(&document));
            (loaded, key)
        });
        sink(paths::history(&r.slug), document);
        (updated, shown)
    });
    for source in sources {
        source.history = None;
    }
    updated
}

/// The history document of one record of `m`, when it says upstream last changed the egg, and
/// the document as the pages show it; the older versions' files it names are put into `sink`.
fn document(
    m: &MergedSource,
    r: &EggRecord,
    previous_slug: &HashMap<(&str, &str), &str>,
    base_url: &str,
    (reuse, sink): (&Reuse<'_>, Sink<'_>),
) -> (Vec<u8>, Updated, Loaded) {
    let indexed_at = r.first.indexed_at;
    let made = |doc: History| {
        let updated = Updated::of_document(&doc, indexed_at);
        (to_json(&doc), updated, Loaded::Doc(doc))
    };
    let made_with_files = |(doc, files): (History, Vec<history::File>)| {
        for (path, bytes) in files {
            sink(path, bytes);
        }
        made(doc)
    };
    let source = m.name();
    let at = EggRef {
        slug: &r.slug,
        source: &source,
        branch: m.state.as_ref().map_or("", |st| st.branch.as_str()),
        path: &r.egg.path,
        uuid: &r.uuid,
        base_url,
        tip: r.facts.as_ref().and_then(|f| {
            let md5 = f.update_check_md5.as_ref()?;
            Some((r.egg.sha256.as_str(), md5))
        }),
    };
    if let Some(h) = &m.history {
        return made_with_files(history::document(h, at));
    }
    let old = previous_slug.get(&(source.as_str(), r.egg.path.as_str()));
    let kept = old.and_then(|old| Some((*old, reuse.read(&paths::history(old))?)));
    // The previous snapshot's document, read back (a snapshot of an older eggcat may hold one
    // that is not a history: it is kept as it is, and dates the egg by `indexedAt`).
    let Some((old, bytes)) = kept else {
        return made_with_files(history::document(&no_history(), at));
    };
    match (old == r.slug, serde_json::from_slice::<History>(&bytes)) {
        (true, Ok(mut doc)) => {
            if carry_files(&mut doc, at, false, (reuse, sink)) {
                return made(doc);
            }
            let updated = Updated::of_document(&doc, indexed_at);
            (bytes, updated, Loaded::Doc(doc))
        }
        // Not a history: what the pages say of it (its `note`) is read from the previous
        // snapshot's bytes, kept as they are.
        (true, Err(_)) => {
            let loaded = Loaded::of(Some(&bytes));
            (bytes, Updated::Indexed(indexed_at), loaded)
        }
        (false, Ok(mut doc)) => {
            doc.slug = r.slug.clone();
            carry_files(&mut doc, at, true, (reuse, sink));
            made(doc)
        }
        (false, Err(_)) => made_with_files(history::document(&no_history(), at)),
    }
}

/// Makes a history document kept from the previous snapshot (`doc`, its slug already the egg's
/// now) right for the egg as `at` gives it, and puts the older versions' files it names again,
/// read from the previous snapshot; returns whether `doc` changed. The hashes and files are
/// made with the egg's identity (slug, uuid), which can change while its source is not read
/// (another egg takes its slug, `renamed`, or its uuid): then, or when the versions with the
/// tip's content do not name the tip's hashes and file, every version's are dropped (no blob to
/// convert them again is at hand) and those versions take the tip's. A file the previous
/// snapshot cannot give back is no longer named.
fn carry_files(
    doc: &mut History,
    at: EggRef<'_>,
    renamed: bool,
    (reuse, sink): (&Reuse<'_>, Sink<'_>),
) -> bool {
    let tip_url = at.tip_url();
    let is_tip = |v: &Version| {
        at.tip
            .is_some_and(|(sha256, _)| v.sha256.as_deref() == Some(sha256))
    };
    let tip_md5 = at.tip.map(|(_, md5)| md5);
    let same_identity = !renamed
        && doc.versions.iter().filter(|v| is_tip(v)).all(|v| {
            v.pelican_update_check_md5.as_ref() == tip_md5
                && v.pelican_json.as_deref() == Some(&tip_url)
        });
    let mut changed = false;
    // Versions of one content name one file, put once.
    let mut put = std::collections::HashSet::new();
    for v in &mut doc.versions {
        if !same_identity {
            let now = tip_md5
                .filter(|_| is_tip(v))
                .map(|md5| (md5.clone(), tip_url.clone()))
                .unzip();
            let was = (v.pelican_update_check_md5.take(), v.pelican_json.take());
            changed |= was != now;
            (v.pelican_update_check_md5, v.pelican_json) = now;
            continue;
        }
        let (Some(url), Some(sha256)) = (&v.pelican_json, &v.sha256) else {
            continue;
        };
        if *url == tip_url {
            continue;
        }
        let (path, own_url) = at.version_file(sha256);
        if *url == own_url && put.contains(&path) {
            continue;
        }
        match reuse.read(&path).filter(|_| *url == own_url) {
            Some(bytes) => {
                put.insert(path.clone());
                sink(path, bytes);
            }
            None => {
                v.pelican_json = None;
                changed = true;
            }
        }
    }
    changed
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
