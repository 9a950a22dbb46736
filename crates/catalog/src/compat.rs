//! The panel-compatible egg indexes: `api/v1/compat/pelican.json` and `pterodactyl.json`, in the
//! shape of the pelican-eggs site's `content/pelican.json`, so that Pelican's
//! `PANEL_EGG_INDEX_URL` can point at eggcat.
//!
//! What the panel reads (Pelican `app/Console/Commands/Egg/UpdateEggIndexCommand.php`):
//! `nests[].nest_type`, `nests[].Eggs[].egg.name` and `nests[].Eggs[].download_url`; it keys its
//! cache by `nest_type` (a second nest of the same name would replace the first) and by
//! `download_url`, and its import dialog (`ImportEggAction::importEggsFromGitHub`) shows one tab
//! per nest with a searchable checkbox list of the names.
//!
//! Grouping: one nest per upstream repository, named like the pelican-eggs site names them
//! ("Games Steamcmd"), with the owner added when two sources share a repository name. A dozen
//! tabs of up to a few hundred searchable names each keeps the dialog usable; one tab per
//! category (the first folder) would make hundreds of tabs.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

/// One egg as the compat indexes list it.
#[derive(Debug, Clone)]
pub(crate) struct CompatEgg<'a> {
    pub(crate) owner: &'a str,
    pub(crate) repo: &'a str,
    /// The display name (unique enough to tell twins apart in the dialog).
    pub(crate) name: &'a str,
    pub(crate) slug: String,
    /// The upstream egg's `description`, or empty.
    pub(crate) description: &'a str,
    /// Absolute URL of the import file this index lists.
    pub(crate) download_url: String,
}

#[derive(Serialize)]
struct Index<'a> {
    panel_type: &'a str,
    nests: Vec<Nest<'a>>,
}

#[derive(Serialize)]
struct Nest<'a> {
    nest_type: String,
    #[serde(rename = "Eggs")]
    eggs: Vec<Entry<'a>>,
}

#[derive(Serialize)]
struct Entry<'a> {
    egg: EntryEgg<'a>,
    download_url: &'a str,
    /// Always empty, as on the pelican-eggs site: no panel reads it, and READMEs would make the
    /// index many times larger. The egg's document has the README.
    readme: &'a str,
}

#[derive(Serialize)]
struct EntryEgg<'a> {
    name: &'a str,
    meta: EntryMeta<'a>,
    description: &'a str,
}

#[derive(Serialize)]
struct EntryMeta<'a> {
    /// The format of the file `download_url` points at.
    version: &'a str,
}

/// The index for `panel_type` ("Pelican" or "Pterodactyl"), listing `eggs` whose files are in
/// `format`. Nests sorted by name, eggs by name then slug.
pub(crate) fn index(panel_type: &str, format: &str, eggs: &[CompatEgg<'_>]) -> Vec<u8> {
    let names = nest_names(eggs);
    let mut nests: BTreeMap<&str, Vec<&CompatEgg<'_>>> = BTreeMap::new();
    for egg in eggs {
        nests
            .entry(names[&(egg.owner, egg.repo)].as_str())
            .or_default()
            .push(egg);
    }
    let nests = nests
        .into_iter()
        .map(|(name, mut members)| {
            members.sort_by(|a, b| (a.name, &a.slug).cmp(&(b.name, &b.slug)));
            Nest {
                nest_type: name.to_owned(),
                eggs: members
                    .into_iter()
                    .map(|e| Entry {
                        egg: EntryEgg {
                            name: e.name,
                            meta: EntryMeta { version: format },
                            description: e.description,
                        },
                        download_url: &e.download_url,
                        readme: "",
                    })
                    .collect(),
            }
        })
        .collect();
    let index = Index { panel_type, nests };
    serde_json::to_vec(&index).expect("the compat index always serializes")
}

/// The nest name of each (owner, repo): the humanized repository name, plus ` (owner)` for the
/// repositories whose name another owner's repository shares.
fn nest_names<'a>(eggs: &[CompatEgg<'a>]) -> HashMap<(&'a str, &'a str), String> {
    let mut owners: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for e in eggs {
        let list = owners.entry(humanize(e.repo)).or_default();
        if !list.contains(&e.owner) {
            list.push(e.owner);
        }
    }
    eggs.iter()
        .map(|e| {
            let name = humanize(e.repo);
            let shared = owners[&name].len() > 1;
            let label = if shared {
                format!("{name} ({})", e.owner)
            } else {
                name
            };
            ((e.owner, e.repo), label)
        })
        .collect()
}

/// `games-steamcmd` -> `Games Steamcmd`, as the pelican-eggs site names its nests.
fn humanize(repo: &str) -> String {
    repo.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn egg<'a>(owner: &'a str, repo: &'a str, name: &'a str, slug: &'a str) -> CompatEgg<'a> {
        CompatEgg {
            owner,
            repo,
            name,
            slug: slug.to_owned(),
            description: "d",
            download_url: format!("https://e.example/api/v1/eggs/{slug}/pelican.json"),
        }
    }

    #[test]
    fn one_nest_per_repository_sorted_with_owners_where_names_clash() {
        let eggs = [
            egg(
                "pelican-eggs",
                "games-steamcmd",
                "Rust",
                "games-steamcmd-rust",
            ),
            egg(
                "pelican-eggs",
                "games-steamcmd",
                "Ark",
                "games-steamcmd-ark",
            ),
            egg("pelican-eggs", "minecraft", "Paper", "minecraft-paper"),
            egg("someone", "minecraft", "Paper", "someone-minecraft-paper"),
        ];
        let json: serde_json::Value =
            serde_json::from_slice(&index("Pelican", "PLCN_v3", &eggs)).unwrap();
        assert_eq!(json["panel_type"], "Pelican");
        let nests: Vec<&str> = json["nests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["nest_type"].as_str().unwrap())
            .collect();
        assert_eq!(
            nests,
            [
                "Games Steamcmd",
                "Minecraft (pelican-eggs)",
                "Minecraft (someone)"
            ]
        );
        let first = &json["nests"][0]["Eggs"];
        assert_eq!(first[0]["egg"]["name"], "Ark");
        assert_eq!(first[0]["egg"]["meta"]["version"], "PLCN_v3");
        assert_eq!(first[0]["egg"]["description"], "d");
        assert_eq!(first[0]["readme"], "");
        assert_eq!(
            first[1]["download_url"],
            "https://e.example/api/v1/eggs/games-steamcmd-rust/pelican.json"
        );
    }

    #[test]
    fn humanized_like_the_site() {
        assert_eq!(humanize("games-steamcmd"), "Games Steamcmd");
        assert_eq!(humanize("game_eggs"), "Game Eggs");
        assert_eq!(humanize("voice"), "Voice");
    }
}
