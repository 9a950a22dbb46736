//! Each egg's stable UUID: the one every import file of the egg carries, so that importing it
//! again updates the panel's egg instead of adding a second one.
//!
//! Rule: an egg keeps its upstream `uuid` when that is a UUID and no egg before it (in the
//! catalog's (owner, repo, path) order) has the same one, kept or derived, compared ignoring case
//! as the panels' MySQL collation does. Any other egg gets a UUIDv5 derived from
//! `owner/repo/path`, which stays the same across rebuilds as long as the file does not move;
//! when an egg before it has that one too (the same repository configured twice, on two
//! branches; an upstream egg that carries another's derived uuid), from `owner/repo/path#2`,
//! `#3`, ..., the first no egg before it has. No two eggs of a catalog share a uuid.

use std::collections::HashMap;

/// The UUID chosen for one egg, and why it is not the one it would have had alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The UUID the import files carry.
    pub(crate) uuid: String,
    /// Set when upstream's UUID, or the one derived from the egg's origin, was already another
    /// egg's: a sentence for the report.
    pub(crate) collision: Option<String>,
}

/// One [`Identity`] per egg, in the order given. `origins[i]` is `owner/repo/path` of egg `i`,
/// `upstream[i]` its upstream `uuid` field when it is a string.
pub(crate) fn assign(origins: &[&str], upstream: &[Option<&str>]) -> Vec<Identity> {
    // Every uuid given so far (lowercase), with the egg that has it.
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(origins.len());
    for (i, (origin, up)) in origins.iter().zip(upstream).enumerate() {
        let up = up.filter(|u| eggcat_panels::is_uuid(u));
        let identity = match up.map(|u| (u, taken.get(&u.to_ascii_lowercase()))) {
            Some((up, None)) => Identity {
                uuid: up.to_owned(),
                collision: None,
            },
            Some((up, Some(&first))) => {
                let uuid = derived(origin, &taken);
                let note = format!(
                    "uuid {up} is also the uuid of {}, which keeps it: the import files of this \
                     egg carry the derived uuid {uuid}, so both import as separate eggs",
                    origins[first]
                );
                Identity {
                    uuid,
                    collision: Some(note),
                }
            }
            None => {
                let own = eggcat_panels::stable_uuid(origin);
                let uuid = derived(origin, &taken);
                let collision = (uuid != own).then(|| {
                    format!(
                        "the uuid derived from this egg's origin, {own}, is also the uuid of {}: \
                         the import files of this egg carry {uuid}, so both import as separate eggs",
                        origins[taken[&own]]
                    )
                });
                Identity { uuid, collision }
            }
        };
        taken.insert(identity.uuid.to_ascii_lowercase(), i);
        out.push(identity);
    }
    out
}

/// The uuid derived from `origin`, or from `origin#2`, `#3`, ... when it is `taken`.
fn derived(origin: &str, taken: &HashMap<String, usize>) -> String {
    let free = |uuid: &String| !taken.contains_key(&uuid.to_ascii_lowercase());
    std::iter::once(eggcat_panels::stable_uuid(origin))
        .chain((2..).map(|n| eggcat_panels::stable_uuid(&format!("{origin}#{n}"))))
        .find(free)
        .expect("an unbounded sequence of uuids has one no egg has")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_keeps_upstream_later_twins_and_non_uuids_get_derived_ones() {
        let origins = ["o/r/a.json", "o/r/b.json", "o/r/c.json", "o/r/d.json"];
        let u = "8f2d6a4e-1c3b-4f5a-9e7d-0b1c2d3e4f5a";
        let upper = u.to_ascii_uppercase();
        let ids = assign(&origins, &[Some(u), Some(&upper), Some("not-a-uuid"), None]);
        assert_eq!(ids[0].uuid, u);
        assert_eq!(ids[0].collision, None);
        assert_eq!(ids[1].uuid, eggcat_panels::stable_uuid("o/r/b.json"));
        let note = ids[1].collision.as_deref().unwrap();
        assert!(note.contains("o/r/a.json"), "{note}");
        assert_eq!(ids[2].uuid, eggcat_panels::stable_uuid("o/r/c.json"));
        assert_eq!(ids[2].collision, None);
        assert_eq!(ids[3].uuid, eggcat_panels::stable_uuid("o/r/d.json"));
        // Derived UUIDs are stable and distinct per origin.
        assert_eq!(assign(&origins, &[None; 4])[3], ids[3]);
        assert_ne!(ids[2].uuid, ids[3].uuid);
    }

    #[test]
    fn no_two_eggs_share_a_uuid_even_where_derived_ones_would() {
        // The same repository configured twice (two branches): the same origins.
        let ids = assign(&["o/r/a.json", "o/r/a.json", "o/r/a.json"], &[None; 3]);
        let own = eggcat_panels::stable_uuid("o/r/a.json");
        assert_eq!(
            ids[0],
            Identity {
                uuid: own.clone(),
                collision: None
            }
        );
        assert_eq!(ids[1].uuid, eggcat_panels::stable_uuid("o/r/a.json#2"));
        assert_eq!(ids[2].uuid, eggcat_panels::stable_uuid("o/r/a.json#3"));
        let note = ids[2].collision.as_deref().unwrap();
        assert!(note.contains(&own) && note.contains("o/r/a.json"), "{note}");
        // An upstream egg carrying another egg's derived uuid, after it and before it.
        let copied = [Some(own.as_str()), None];
        let ids = assign(
            &["o/r/a.json", "o/s/copy.json"],
            &[None, Some(own.as_str())],
        );
        assert_eq!(ids[0].uuid, own);
        assert_eq!(ids[1].uuid, eggcat_panels::stable_uuid("o/s/copy.json"));
        assert!(ids[1].collision.is_some());
        let ids = assign(&["o/a/copy.json", "o/r/a.json"], &copied);
        assert_eq!(ids[0].uuid, own);
        assert_eq!(ids[1].uuid, eggcat_panels::stable_uuid("o/r/a.json#2"));
        assert!(ids[1].collision.is_some());
    }
}
