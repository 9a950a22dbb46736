//! Stage 4, derive: each egg's import files for the panels, taken from the previous snapshot when
//! it made them from the same inputs under the same derivation, else converted anew (rules in
//! [`crate::imports`] and `eggcat_panels`), on every core.

use std::collections::HashMap;

use super::{Derived, EggRecord, PreviousFiles};
use crate::imports::{self, EggImports, EggToConvert};

/// Sets `imports` of every record. `reusable` is what the previous snapshot derived, by slug,
/// when it was made under this build's derivation (else empty). An egg with no value (see
/// [`super::identify`]) gets no import files.
pub(super) fn derive(
    eggs: &mut [EggRecord],
    reusable: &HashMap<String, Derived>,
    base_url: &str,
    previous_files: PreviousFiles<'_>,
) {
    let work: Vec<EggToConvert<'_>> = eggs
        .iter()
        .filter_map(|r| {
            Some(EggToConvert {
                egg: r.value.as_ref()?,
                slug: &r.slug,
                uuid: &r.uuid,
                sha256: &r.egg.sha256,
                indexed_at: r.first.indexed_at,
                previous: reusable.get(&r.slug),
            })
        })
        .collect();
    let mut converted = imports::convert_all(work, base_url, previous_files).into_iter();
    for r in eggs.iter_mut() {
        r.imports = Some(match r.value {
            Some(_) => converted
                .next()
                .expect("one conversion per egg with a value"),
            None => EggImports::none(),
        });
    }
}
