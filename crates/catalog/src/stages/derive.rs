//! Stage 4, derive: each egg's import files for the panels, taken from the previous snapshot when
//! they stand (made from the same inputs under the same derivation: `crate::reuse::Reuse`), else converted anew (rules in
//! [`crate::imports`] and `eggcat_panels`), and what its document says of its images, on every
//! core. Each egg's files go to the build's sink as soon as they are made.

use std::collections::HashMap;

use serde_json::Value;

use super::{EggFacts, EggRecord};
use crate::ImageFindings;
use crate::Sink;
use crate::games::{EggFields, icon};
use crate::imports::{self, EggToConvert};
use crate::reuse::Reuse;
use crate::wire::Imports;

/// What the stage is given besides the eggs.
pub(super) struct Inputs<'a> {
    /// Each egg's `meta.import` in the previous snapshot, by slug.
    pub(super) previous: &'a HashMap<String, Imports>,
    pub(super) base_url: &'a str,
    pub(super) images: &'a ImageFindings,
    pub(super) downloads: &'a crate::DownloadFindings,
    /// Decides whether the previous snapshot's import files of an egg stand.
    pub(super) reuse: &'a Reuse<'a>,
}

/// Sets `facts` of every record and puts its import files. An unreadable egg (see
/// [`super::identify`]) gets no import files and no images.
pub(super) fn derive(eggs: &mut [EggRecord], inputs: &Inputs<'_>, sink: Sink<'_>) {
    let facts = crate::par::map(eggs, |r| {
        // The egg is read as a value again, here and for this egg only (see identify).
        let value = r
            .readable
            .then(|| serde_json::from_str::<Value>(r.egg.egg.get()).ok())
            .flatten();
        let Some(value) = value else {
            return EggFacts::default();
        };
        let egg = EggToConvert {
            egg: &value,
            slug: &r.slug,
            uuid: &r.uuid,
            sha256: &r.egg.sha256,
            indexed_at: r.first.indexed_at,
            previous: inputs.previous.get(&r.slug),
        };
        let made = imports::convert(&egg, inputs.base_url, inputs.reuse);
        let update_check_md5 = imports::published_md5(&made, &r.slug);
        for (path, bytes) in made.files {
            sink(path, bytes);
        }
        let icon = icon::put(&r.slug, &value, sink);
        let (images, runs_on) = crate::images::meta_images(&value, inputs.images);
        let downloads = crate::downloads::meta_downloads(&value, inputs.downloads);
        let description = value.get("description").and_then(Value::as_str);
        EggFacts {
            import: made.meta,
            images,
            runs_on,
            downloads,
            description: description.unwrap_or("").to_owned(),
            fields: EggFields::of(&value),
            icon,
            update_check_md5,
        }
    });
    for (r, facts) in eggs.iter_mut().zip(facts) {
        r.facts = Some(facts);
    }
}
