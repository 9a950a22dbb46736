//! The eggs of one catalog that serve the same game (siblings), found by the build (its `games`
//! step, after `identify`) and handed to the pages as [`Groups`].
//!
//! Two eggs are siblings when their names match once a ` (Pterodactyl)` suffix, case and
//! punctuation are set aside ([`name_key`]), or when their upstream eggs carry the same `uuid`
//! (the `uuid` of the upstream egg, the document's `egg`, not `meta.uuid`, which eggcat makes up for an
//! egg without one and which is therefore unique). Siblings of siblings are siblings: a group is
//! the transitive closure of both relations. The upstream keeps a Pelican egg and its
//! Pterodactyl twin side by side under one name, and a second repository may carry the same
//! game under another spelling or with the uuid of the egg it was copied from.
//!
//! The groups depend only on the eggs (name and uuid): sorted by slug within a group, and each
//! group keyed by its first slug ([`Groups::key`]), so the same catalog gives the same groups.

use std::collections::BTreeMap;

use super::doc::{Doc, egg_str};
use crate::paths;

/// What grouping needs of one egg.
#[derive(Debug, Clone, Copy)]
pub struct Member<'a> {
    /// Its slug.
    pub slug: &'a str,
    /// `meta.name`, the display name (` (Pterodactyl)` added to a twin).
    pub name: &'a str,
    /// The upstream egg's `uuid`, or "" when it has none.
    pub uuid: &'a str,
}

/// The sibling groups of a catalog.
#[derive(Debug, Default)]
pub struct Groups {
    /// Slug to the index of its group in `groups`.
    of: BTreeMap<String, usize>,
    /// Each group's slugs, sorted; groups sorted by their first slug.
    groups: Vec<Vec<String>>,
}

impl Groups {
    /// The groups of `members` (slugs unique; a repeated slug is read once).
    pub fn new(members: &[Member<'_>]) -> Groups {
        let mut slugs: Vec<&str> = members.iter().map(|m| m.slug).collect();
        slugs.sort_unstable();
        slugs.dedup();
        let index = |slug: &str| slugs.binary_search(&slug).expect("every member is listed");
        let mut parent: Vec<usize> = (0..slugs.len()).collect();

        // Eggs sharing a name key, then eggs sharing a uuid, are joined to the first of them.
        let mut firsts: BTreeMap<(u8, String), usize> = BTreeMap::new();
        for m in members {
            let at = index(m.slug);
            let name = name_key(m.name);
            let uuid = m.uuid.trim().to_lowercase();
            for key in [(0, name), (1, uuid)] {
                if key.1.is_empty() {
                    continue;
                }
                match firsts.get(&key) {
                    Some(&first) => union(&mut parent, first, at),
                    None => {
                        firsts.insert(key, at);
                    }
                }
            }
        }

        let mut by_root: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for (i, slug) in slugs.iter().enumerate() {
            let root = find(&mut parent, i);
            by_root.entry(root).or_default().push((*slug).to_owned());
        }
        // Slugs were visited in order, so each group is sorted; sort the groups by first slug.
        let mut groups: Vec<Vec<String>> = by_root.into_values().collect();
        groups.sort_unstable();
        let mut of = BTreeMap::new();
        for (g, members) in groups.iter().enumerate() {
            for slug in members {
                of.insert(slug.clone(), g);
            }
        }
        Groups { of, groups }
    }

    /// The groups of the eggs of `slugs` whose egg documents `read` gives (by published path)
    /// and decode with their egg: for a published tree made elsewhere than by the build (tests,
    /// tools). A document that does not decode is in no group.
    pub fn of_documents<'s>(
        slugs: impl IntoIterator<Item = &'s str>,
        read: &dyn Fn(&str) -> Option<Vec<u8>>,
    ) -> Groups {
        let read: Vec<(String, String, String)> = slugs
            .into_iter()
            .filter_map(|slug| {
                let doc = Doc::decode(&read(&paths::egg(slug))?)?;
                let uuid = egg_str(&doc.egg, "uuid").to_owned();
                Some((doc.meta.slug, doc.meta.name, uuid))
            })
            .collect();
        let members: Vec<Member<'_>> = read
            .iter()
            .map(|(slug, name, uuid)| Member { slug, name, uuid })
            .collect();
        Groups::new(&members)
    }

    /// Every slug of the egg's group, itself included, sorted; empty for an unknown slug.
    pub fn group(&self, slug: &str) -> &[String] {
        self.of
            .get(slug)
            .map(|&g| self.groups[g].as_slice())
            .unwrap_or(&[])
    }

    /// Every group, sorted by first slug.
    pub fn all(&self) -> &[Vec<String>] {
        &self.groups
    }

    /// The group's key: its first slug (the summary's `game`). An egg alone is its own group.
    pub fn key<'a>(&'a self, slug: &'a str) -> &'a str {
        self.group(slug).first().map_or(slug, String::as_str)
    }
}

/// The name as the grouping compares it: a trailing ` (Pterodactyl)` (any case) dropped, then
/// only letters and digits kept, lowercase. Spaces go with the punctuation, so that
/// "Counter-Strike", "Counter Strike" and "CounterStrike" meet; a name with neither letters nor
/// digits has no key and joins no group by name.
pub fn name_key(name: &str) -> String {
    let trimmed = name.trim_end();
    let cut = trimmed.len().saturating_sub("(pterodactyl)".len());
    let base = match trimmed.get(cut..) {
        Some(tail) if tail.eq_ignore_ascii_case("(pterodactyl)") => &trimmed[..cut],
        _ => trimmed,
    };
    base.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Joins two sets under the smaller root, so roots do not depend on the order of joining.
fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[high] = low;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m<'a>(slug: &'a str, name: &'a str, uuid: &'a str) -> Member<'a> {
        Member { slug, name, uuid }
    }

    fn groups(g: &Groups) -> Vec<Vec<&str>> {
        g.groups
            .iter()
            .map(|x| x.iter().map(String::as_str).collect())
            .collect()
    }

    #[test]
    fn seven_days_to_die_in_three_places_is_one_game() {
        let eggs = [
            m("games-steamcmd-7-days-to-die", "7 Days To Die", "u-pelican"),
            m(
                "games-steamcmd-pterodactyl-7-days-to-die",
                "7 Days To Die (Pterodactyl)",
                "u-pelican",
            ),
            m("game-eggs-7-days-to-die", "7 Days to Die", "u-other"),
            m("games-steamcmd-ark", "ARK: Survival Evolved", ""),
        ];
        let g = Groups::new(&eggs);
        assert_eq!(
            groups(&g),
            [
                vec![
                    "game-eggs-7-days-to-die",
                    "games-steamcmd-7-days-to-die",
                    "games-steamcmd-pterodactyl-7-days-to-die"
                ],
                vec!["games-steamcmd-ark"],
            ]
        );
        assert_eq!(
            g.group("games-steamcmd-7-days-to-die"),
            [
                "game-eggs-7-days-to-die",
                "games-steamcmd-7-days-to-die",
                "games-steamcmd-pterodactyl-7-days-to-die"
            ]
        );
        assert_eq!(
            g.key("games-steamcmd-pterodactyl-7-days-to-die"),
            "game-eggs-7-days-to-die"
        );
        assert_eq!(g.key("games-steamcmd-ark"), "games-steamcmd-ark");
        assert_eq!(g.group("games-steamcmd-ark"), ["games-steamcmd-ark"]);
    }

    #[test]
    fn a_shared_upstream_uuid_joins_different_names_and_closes_transitively() {
        // FTB's two eggs (real corpus: `FTB-modpacks.ch Server` and `FTB Server` share a uuid),
        // each with its Pterodactyl twin: four eggs, one game.
        let eggs = [
            m(
                "a-ftb",
                "FTB Server",
                "E60A9DE8-a0b1-4d97-b4e2-6568f048668d",
            ),
            m("a-pterodactyl-ftb", "FTB Server (Pterodactyl)", ""),
            m(
                "b-ftb",
                "FTB-modpacks.ch Server",
                "e60a9de8-a0b1-4d97-b4e2-6568f048668d ",
            ),
            m(
                "b-pterodactyl-ftb",
                "FTB-modpacks.ch Server (Pterodactyl)",
                "",
            ),
        ];
        let g = Groups::new(&eggs);
        assert_eq!(groups(&g).len(), 1, "{:?}", groups(&g));
        assert_eq!(g.group("b-pterodactyl-ftb").len(), 4);
    }

    #[test]
    fn case_punctuation_and_spaces_do_not_separate() {
        assert_eq!(name_key("Counter-Strike: Source"), "counterstrikesource");
        assert_eq!(name_key("counter strike source"), "counterstrikesource");
        assert_eq!(name_key("alt:V (PTERODACTYL) "), "altv");
        assert_eq!(name_key("Cube 2: Sauerbraten"), "cube2sauerbraten");
        assert_eq!(name_key("Éclair"), "éclair");
        // Only a trailing mark is the twin's; one inside the name is part of it.
        assert_eq!(name_key("(Pterodactyl) Panel"), "pterodactylpanel");
        assert_eq!(name_key("?!"), "");
        let g = Groups::new(&[
            m("x-cs", "Counter-Strike: Source", ""),
            m("y-cs", "counter strike source", ""),
        ]);
        assert_eq!(g.group("x-cs"), ["x-cs", "y-cs"]);
    }

    #[test]
    fn no_false_merges() {
        let g = Groups::new(&[
            m("a-minecraft", "Minecraft", "u1"),
            m("a-bedrock", "Minecraft Bedrock", "u2"),
            m("a-bedrock-ptero", "Minecraft Bedrock (Pterodactyl)", "u3"),
            // Names without letters or digits have no key: they do not form a group.
            m("q1", "???", ""),
            m("q2", "!!!", ""),
            // An empty uuid joins nothing.
            m("e1", "One", ""),
            m("e2", "Two", " "),
        ]);
        assert_eq!(
            groups(&g),
            [
                vec!["a-bedrock", "a-bedrock-ptero"],
                vec!["a-minecraft"],
                vec!["e1"],
                vec!["e2"],
                vec!["q1"],
                vec!["q2"],
            ]
        );
    }

    #[test]
    fn the_order_of_the_eggs_does_not_change_the_groups() {
        let mut eggs = vec![
            m("d", "Game", ""),
            m("c", "Other", "u"),
            m("b", "Game (Pterodactyl)", "u"),
            m("a", "Alone", ""),
        ];
        let first = groups(&Groups::new(&eggs))
            .into_iter()
            .map(|g| g.join(","))
            .collect::<Vec<_>>();
        eggs.reverse();
        let second = groups(&Groups::new(&eggs))
            .into_iter()
            .map(|g| g.join(","))
            .collect::<Vec<_>>();
        assert_eq!(first, ["a", "b,c,d"]);
        assert_eq!(first, second);
    }
}
