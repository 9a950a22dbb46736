//! The step after [`super::identify`]: the eggs grouped by the game they serve (rules in
//! [`crate::games`]), from each egg's display name and upstream uuid. An egg whose upstream file
//! cannot be read back as a value is in no game (it has no page either).

use super::EggRecord;
use crate::games::{Groups, Member};

/// The games of the catalog's eggs.
pub(super) fn games(eggs: &[EggRecord]) -> Groups {
    let members: Vec<Member<'_>> = eggs
        .iter()
        .filter(|r| r.readable)
        .map(|r| Member {
            slug: &r.slug,
            name: &r.egg.name,
            uuid: &r.upstream_uuid,
        })
        .collect();
    Groups::new(&members)
}
