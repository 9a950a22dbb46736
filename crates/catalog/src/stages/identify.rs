//! Stage 3, identify: each egg's upstream JSON read back as a value (for the panels'
//! conversions, the compat indexes and the uuid rules), its uuid (rules in [`crate::identity`])
//! and the catalog-wide finding of a uuid shared by several eggs (E017).

use serde_json::Value;

use super::EggRecord;
use crate::identity;
use crate::wire::Problem;

/// Sets `value`, `uuid`, `collision` and `shared` of every record (in catalog order: the first
/// egg to hold an upstream uuid keeps it). Returns a warning for each egg whose parsed JSON
/// cannot be read back as a value: not expected (the scan wrote it from a value, and a kept egg
/// from a document that parsed), but reported rather than hidden. Such an egg is listed, with a
/// derived uuid and no import files.
pub(super) fn identify(eggs: &mut [EggRecord]) -> Vec<(usize, Problem)> {
    let mut unreadable = Vec::new();
    for r in eggs.iter_mut() {
        match serde_json::from_str::<Value>(r.egg.egg.get()) {
            Ok(value) => r.value = Some(value),
            Err(e) => unreadable.push((r.source, r.egg.path.clone(), e.to_string())),
        }
    }
    let origins: Vec<&str> = eggs.iter().map(|r| r.origin.as_str()).collect();
    let upstream: Vec<Option<&str>> = eggs.iter().map(upstream_uuid).collect();
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
    for ((r, id), shared) in eggs.iter_mut().zip(identities).zip(shared) {
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

/// The egg's upstream `uuid` field, when it is a string.
fn upstream_uuid(r: &EggRecord) -> Option<&str> {
    r.value.as_ref()?.get("uuid").and_then(Value::as_str)
}
