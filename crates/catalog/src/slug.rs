//! Slugs: the stable, URL-safe identifier of an egg, derived from where its file lives.
//!
//! Candidate 1 is `kebab(repo-stem)`. Eggs whose candidate 1 collides take candidate 2, which adds
//! every folder of the path; still colliding, candidate 3 adds the owner in front; still
//! colliding, `-2`, `-3`, ... are appended in (owner, repo, path) order. The rules are in
//! docs/catalog-format.md; the examples in the tests come from real upstream repositories.

use std::collections::{HashMap, HashSet};

pub use eggcat_wire::kebab;

/// Where an egg file lives: everything a slug is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SlugKey<'a> {
    /// Owner of the upstream repository.
    pub owner: &'a str,
    /// Name of the upstream repository.
    pub repo: &'a str,
    /// Path of the egg file inside the repository, `/`-separated.
    pub path: &'a str,
}

/// The file name without its extension and without its first `egg-` that starts the name or
/// follows `-`, `_` or `.`: `pterodactyl-egg-paper.json` gives `pterodactyl-paper`.
pub fn stem(file_name: &str) -> String {
    let base = file_name.rsplit_once('.').map_or(file_name, |(b, _)| b);
    let at = base
        .match_indices("egg-")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || matches!(base.as_bytes()[i - 1], b'-' | b'_' | b'.'));
    match at {
        Some(i) => format!("{}{}", &base[..i], &base[i + 4..]),
        None => base.to_owned(),
    }
}

/// One slug per key, in the order of `keys`. Unique, non-empty, made of `a-z0-9-` only.
pub fn assign_slugs(keys: &[SlugKey<'_>]) -> Vec<String> {
    let candidates: [fn(&SlugKey<'_>) -> String; 3] = [candidate_1, candidate_2, candidate_3];
    let mut slugs: Vec<Option<String>> = vec![None; keys.len()];
    let mut taken: HashSet<String> = HashSet::new();
    let mut pending: Vec<usize> = (0..keys.len()).collect();

    for candidate in candidates {
        let proposed: Vec<(usize, String)> = pending
            .iter()
            .map(|&i| (i, non_empty(candidate(&keys[i]))))
            .collect();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for (_, slug) in &proposed {
            *counts.entry(slug.as_str()).or_default() += 1;
        }
        let mut still = Vec::new();
        for (i, slug) in &proposed {
            if counts[slug.as_str()] == 1 && !taken.contains(slug) {
                taken.insert(slug.clone());
                slugs[*i] = Some(slug.clone());
            } else {
                still.push(*i);
            }
        }
        pending = still;
    }

    // Still colliding after candidate 3: number them in (owner, repo, path) order. The first
    // keeps the plain candidate when it is free.
    pending.sort_by_key(|&i| keys[i]);
    for i in pending {
        let base = non_empty(candidate_3(&keys[i]));
        let slug = std::iter::once(base.clone())
            .chain((2..).map(|n| format!("{base}-{n}")))
            .find(|s| !taken.contains(s))
            .expect("an unbounded sequence of distinct names has a free one");
        taken.insert(slug.clone());
        slugs[i] = Some(slug);
    }
    slugs
        .into_iter()
        .map(|s| s.expect("every key was given a slug above"))
        .collect()
}

fn split(path: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    (parts, file)
}

fn candidate_1(key: &SlugKey<'_>) -> String {
    let (_, file) = split(key.path);
    kebab(&format!("{}-{}", key.repo, stem(file)))
}

fn candidate_2(key: &SlugKey<'_>) -> String {
    let (folders, file) = split(key.path);
    let mut parts = vec![key.repo.to_owned()];
    parts.extend(folders.iter().map(|f| (*f).to_owned()));
    parts.push(stem(file));
    kebab(&parts.join("-"))
}

fn candidate_3(key: &SlugKey<'_>) -> String {
    kebab(&format!("{}-{}", key.owner, candidate_2(key)))
}

fn non_empty(slug: String) -> String {
    if slug.is_empty() {
        "egg".to_owned()
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(repo: &'a str, path: &'a str) -> SlugKey<'a> {
        SlugKey {
            owner: "pelican-eggs",
            repo,
            path,
        }
    }

    #[test]
    fn stem_removes_the_first_egg_prefix_at_a_word_start() {
        assert_eq!(stem("egg-rust.yaml"), "rust");
        assert_eq!(stem("pterodactyl-egg-paper.json"), "pterodactyl-paper");
        assert_eq!(
            stem("egg-pterodactyl-the-isle.json"),
            "pterodactyl-the-isle"
        );
        assert_eq!(stem("my_egg-x.yml"), "my_x");
        assert_eq!(stem("v1.egg-x.json"), "v1.x");
        // `egg-` inside a word is not a prefix: `nutmegg-` stays.
        assert_eq!(stem("nutmegg-x.json"), "nutmegg-x");
        assert_eq!(stem("egg-egg-x.json"), "egg-x");
    }

    #[test]
    fn kebab_keeps_only_lowercase_ascii_letters_and_digits() {
        assert_eq!(kebab("Games-SteamCMD_rust"), "games-steamcmd-rust");
        assert_eq!(kebab("  --Zürich #1 -- "), "z-rich-1");
        assert_eq!(kebab("___"), "");
    }

    #[test]
    fn examples_from_the_catalog_rules() {
        let keys = [
            key("games-steamcmd", "rust/vanilla/egg-rust.yaml"),
            key("minecraft", "java/paper/pterodactyl-egg-paper.json"),
            key(
                "games-steamcmd",
                "the_isle/evrima/egg-pterodactyl-the-isle.json",
            ),
            key(
                "games-steamcmd",
                "the_isle/evrima/pterodactyl-egg-the-isle.json",
            ),
        ];
        assert_eq!(
            assign_slugs(&keys),
            [
                "games-steamcmd-rust",
                "minecraft-pterodactyl-paper",
                "pelican-eggs-games-steamcmd-the-isle-evrima-pterodactyl-the-isle",
                "pelican-eggs-games-steamcmd-the-isle-evrima-pterodactyl-the-isle-2",
            ]
        );
    }

    #[test]
    fn candidate_2_tells_folders_apart() {
        let keys = [
            key("minecraft", "java/paper/egg-paper.json"),
            key("minecraft", "bedrock/paper/egg-paper.json"),
            key("minecraft", "java/egg-vanilla.json"),
        ];
        assert_eq!(
            assign_slugs(&keys),
            [
                "minecraft-java-paper-paper",
                "minecraft-bedrock-paper-paper",
                "minecraft-vanilla"
            ]
        );
    }

    #[test]
    fn candidate_3_tells_owners_apart() {
        let keys = [
            SlugKey {
                owner: "a",
                repo: "eggs",
                path: "x/egg-y.json",
            },
            SlugKey {
                owner: "b",
                repo: "eggs",
                path: "x/egg-y.json",
            },
        ];
        assert_eq!(assign_slugs(&keys), ["a-eggs-x-y", "b-eggs-x-y"]);
    }

    #[test]
    fn a_later_candidate_never_takes_a_slug_already_given() {
        // `r-a-b` is candidate 1 of the third key and candidate 2 of the first two.
        let keys = [
            key("r", "a/egg-b.json"),
            key("r", "c/egg-b.json"),
            key("r", "egg-a-b.json"),
        ];
        let slugs = assign_slugs(&keys);
        assert_eq!(slugs[2], "r-a-b");
        assert_eq!(slugs[1], "r-c-b");
        assert_eq!(slugs[0], "pelican-eggs-r-a-b");
    }

    #[test]
    fn numbered_suffixes_skip_slugs_in_use_and_follow_path_order() {
        let keys = [
            key("r", "x/egg-y.yml"),
            key("r", "x/egg-y.json"),
            key("pelican", "egg-eggs-r-x-y-2.json"),
        ];
        let slugs = assign_slugs(&keys);
        assert_eq!(slugs[2], "pelican-eggs-r-x-y-2");
        assert_eq!(slugs[1], "pelican-eggs-r-x-y");
        assert_eq!(slugs[0], "pelican-eggs-r-x-y-3");
    }

    #[test]
    fn an_empty_slug_becomes_egg() {
        let keys = [SlugKey {
            owner: "_",
            repo: "__",
            path: "egg-.json",
        }];
        assert_eq!(assign_slugs(&keys), ["egg"]);
    }
}
