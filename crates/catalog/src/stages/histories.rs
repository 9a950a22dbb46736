//! Stage 5, histories: each egg's history document (`api/v1/eggs/{slug}/history.json`). Made
//! from its source's history when the source was scanned in this build; else the previous
//! snapshot's document for the egg (its slug put right if it changed); else one that says there
//! is none. Each document goes to the build's sink as soon as it is made, and the sources'
//! histories (every version of every egg file read from git) are let go once all are made. The
//! document of an egg that has a page is also handed on typed, with the key of the bytes put
//! (`games::Documents::history`), so that the pages do not decode what the build wrote.

use std::collections::HashMap;

use super::{EggRecord, MergedSource, Previous, to_json};
use crate::Sink;
use crate::games::{Loaded, Updated};
use crate::history::{self, SourceHistory};
use crate::paths;
use crate::reuse::{Key, Reuse};
use crate::wire::History;

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
        let (document, updated, loaded) =
            document(&read_only[r.source], r, &previous_slug, base_url, reuse);
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
/// the document as the pages show it.
fn document(
    m: &MergedSource,
    r: &EggRecord,
    previous_slug: &HashMap<(&str, &str), &str>,
    base_url: &str,
    reuse: &Reuse<'_>,
) -> (Vec<u8>, Updated, Loaded) {
    let indexed_at = r.first.indexed_at;
    let made = |doc: History| {
        let updated = Updated::of_document(&doc, indexed_at);
        (to_json(&doc), updated, Loaded::Doc(doc))
    };
    let source = m.name();
    let at = history::EggRef {
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
        return made(history::document(h, at));
    }
    let old = previous_slug.get(&(source.as_str(), r.egg.path.as_str()));
    let kept = old.and_then(|old| Some((*old, reuse.read(&paths::history(old))?)));
    // The previous snapshot's document, read back (a snapshot of an older eggcat may hold one
    // that is not a history: it is kept as it is, and dates the egg by `indexedAt`).
    let Some((old, bytes)) = kept else {
        return made(history::document(&no_history(), at));
    };
    match (old == r.slug, serde_json::from_slice::<History>(&bytes)) {
        (true, Ok(doc)) => {
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
            made(doc)
        }
        (false, Err(_)) => made(history::document(&no_history(), at)),
    }
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
