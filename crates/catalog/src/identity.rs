//! Each egg's stable UUID: the one every import file of the egg carries, so that importing it
//! again updates the panel's egg instead of adding a second one.
//!
//! Rule: an egg keeps its upstream `uuid` when that is a UUID and no egg before it (in the
//! catalog's (owner, repo, path) order) kept the same one, compared ignoring case as the panels'
//! MySQL collation does. Any other egg gets a UUIDv5 derived from `owner/repo/path`, which stays
//! the same across rebuilds as long as the file does not move.

use std::collections::HashMap;

/// The UUID chosen for one egg, and why it is not upstream's when it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The UUID the import files carry.
    pub(crate) uuid: String,
    /// Set when upstream's UUID was a UUID already kept by another egg: a sentence for the report.
    pub(crate) collision: Option<String>,
}

/// One [`Identity`] per egg, in the order given. `origins[i]` is `owner/repo/path` of egg `i`,
/// `upstream[i]` its upstream `uuid` field when it is a string.
pub(crate) fn assign(origins: &[&str], upstream: &[Option<&str>]) -> Vec<Identity> {
    let mut kept: HashMap<String, usize> = HashMap::new();
    origins
        .iter()
        .zip(upstream)
        .enumerate()
        .map(|(i, (origin, up))| {
            let derived = || eggcat_panels::stable_uuid(origin);
            let Some(up) = up.filter(|u| eggcat_panels::is_uuid(u)) else {
                return Identity {
                    uuid: derived(),
                    collision: None,
                };
            };
            match kept.get(&up.to_ascii_lowercase()) {
                None => {
                    kept.insert(up.to_ascii_lowercase(), i);
                    Identity {
                        uuid: up.to_owned(),
                        collision: None,
                    }
                }
                Some(&first) => {
                    let uuid = derived();
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
            }
        })
        .collect()
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
}
