//! Stage 3, identify: each egg's upstream JSON read back as a value (for the panels'
//! conversions, the compat indexes and the uuid rules), its uuid (rules in [`crate::identity`])
//! and the catalog-wide finding of a uuid shared by several eggs (E017).

use serde_json::Value;

use super::EggRecord;
use crate::identity;
use crate::wire::Problem;

/// Sets `readable`, `upstream_uuid`, `uuid`, `collision` and `shared` of every record (in catalog order: the
/// first egg to hold an upstream uuid keeps it). Each egg is read as a value here, on every
/// core, for its upstream uuid, and not kept: [`super::derive`] reads it again egg by egg, so
/// that the whole catalog's values are never in memory at once. Returns a warning for each egg
/// whose parsed JSON cannot be read back as a value: not expected (the scan wrote it from a
/// value, and a kept egg from a document that parsed), but reported rather than hidden. Such an
/// egg is listed, with a derived uuid and no import files.
pub(super) fn identify(eggs: &mut [EggRecord]) -> Vec<(usize, Problem)> {
    let read: Vec<Result<Option<String>, String>> = crate::par::map(eggs, |r| {
        let value = serde_json::from_str::<Value>(r.egg.egg.get()).map_err(|e| e.to_string())?;
        Ok(value.get("uuid").and_then(Value::as_str).map(str::to_owned))
    });
    let mut unreadable = Vec::new();
    for (r, read) in eggs.iter_mut().zip(&read) {
        r.readable = read.is_ok();
        if let Err(e) = read {
            unreadable.push((r.source, r.egg.path.clone(), e.clone()));
        }
    }
    let origins: Vec<&str> = eggs.iter().map(|r| r.origin.as_str()).collect();
    let upstream: Vec<Option<&str>> = read.iter().map(|r| r.as_ref().ok()?.as_deref()).collect();
    let identities = identity::assign(&origins, &upstream);
    let catalog: Vec<eggcat_validate::CatalogEgg<'_>> = origins
        .iter()
        .zip(&upstream)
        .map(|(path, uuid)| eggcat_validate::CatalogEgg {
            path,
            uuid: *uuid,
            text: None,
        })
        .collect();
    let shared = eggcat_validate::check_catalog(&catalog);
    for (((r, id), shared), upstream) in eggs.iter_mut().zip(identities).zip(shared).zip(&upstream)
    {
        r.upstream_uuid = upstream.unwrap_or("").to_owned();
        r.uuid = id.uuid;
        r.collision = id.collision;
        r.shared = shared;
    }
    unreadable
        .into_iter()
        .map(|(source, path, error)| {
            let message = format!(
                "the parsed egg cannot be read back as JSON ({error}): listed with a derived uuid and no import files"
            );
            (source, Problem { path, message })
        })
        .collect()
}
