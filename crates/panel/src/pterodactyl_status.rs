//! `eggcat panel status` for a Pterodactyl panel: for every egg, the catalog egg it comes from
//! and whether it is the catalog's current `pterodactyl.json`, from what Pterodactyl's
//! application API returns (`pterodactyl::Client::pterodactyl_eggs`) and the served catalog's
//! files.
//!
//! Matching: Pterodactyl's API gives no `update_url` and its Import Egg gives every egg a new
//! uuid, so an egg is matched by its name and author, as Pterodactyl's own `EggSeeder` finds
//! the egg a seed file updates. The catalog's index (`_index.json`, display names) names the
//! candidates (the egg's name, or it with ` (Pterodactyl)`); each candidate's `pterodactyl.json`
//! decides (its `name` and `author` equal the egg's). Several candidates are common (upstream
//! keeps a Pelican egg and its Pterodactyl twin under one name and author): then content
//! decides (`pterodactyl_api::choose`): the nearest candidate, by the fields the egg differs
//! from it in; candidates as near and the same egg in every compared field are one (`sameAs`);
//! candidates as near that differ from each other make the state `ambiguous`, with each
//! candidate and its differing fields. A candidate without a `pterodactyl.json` whose egg
//! document has the name and author makes the egg `unknown`.
//!
//! Versions: the catalog publishes no older `pterodactyl.json` and the API no `update_url` or
//! hash, so an egg that differs from the current file may be an older version or edited on the
//! panel, and which cannot be told: `differs` lists each field with both values
//! (`eggcat_panels::pterodactyl_api`), and `since` the versions upstream committed after the
//! egg was last saved on the panel (its `updated_at`), by date only.

use std::collections::{BTreeMap, BTreeSet};

use eggcat_panels::pterodactyl_api::{self, Choice, choose, differences, from_api, from_file};
use eggcat_panels::standing::FieldEdit;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::pterodactyl::PteroEgg;
use crate::status::Catalog;
use crate::{Client, PanelError};

/// The states, as `--json` and the table name them.
pub const STATES: [&str; 5] = [
    "up-to-date",
    "differs",
    "ambiguous",
    "not-from-this-catalog",
    "unknown",
];

/// A catalog egg's `pterodactyl.json`, as the catalog answered.
enum File {
    Ok(Value),
    /// 404 (the catalog wrote none for this egg) or 410 (removed since the index was read).
    None,
}

/// The report of one run on a Pterodactyl panel: `{"panel", "panelKind", "catalog", "counts",
/// "eggs"}` (docs/guides/panel-status.md, `schemas/panel-status-pterodactyl.schema.json`).
pub async fn status(panel: &Client, catalog: &Catalog) -> Result<Value, PanelError> {
    let in_flight = panel.config.in_flight;
    let eggs = panel.pterodactyl_eggs().await?;
    // The catalog's display names, each with its slugs.
    let index = match catalog.json("/api/v1/eggs/_index.json").await? {
        Some(Ok(v)) => v,
        _ => {
            return Err(PanelError::Transport(format!(
                "the catalog at {} has no readable /api/v1/eggs/_index.json",
                catalog.url()
            )));
        }
    };
    let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for item in index.as_array().into_iter().flatten() {
        if let (Some(name), Some(slug)) = (item["name"].as_str(), item["slug"].as_str()) {
            by_name.entry(name).or_default().push(slug);
        }
    }
    let candidates = |egg: &PteroEgg| -> Vec<String> {
        let mut slugs: Vec<String> = pterodactyl_api::index_names(&egg.name)
            .iter()
            .flat_map(|n| by_name.get(n.as_str()).into_iter().flatten())
            .map(|s| (*s).to_owned())
            .collect();
        slugs.sort();
        slugs.dedup();
        slugs
    };
    // Each candidate's pterodactyl.json, once, at most `in_flight` at once.
    let wanted: BTreeSet<String> = eggs.iter().flat_map(&candidates).collect();
    let files = fetch(catalog, in_flight, &wanted, |s| {
        format!("/api/v1/eggs/{s}/pterodactyl.json")
    })
    .await?;
    let mut out = Vec::new();
    let mut documents: BTreeMap<String, File> = BTreeMap::new();
    let mut histories: BTreeMap<String, File> = BTreeMap::new();
    for egg in &eggs {
        let mut item = json!({"id": egg.id, "uuid": egg.uuid, "name": egg.name,
            "author": egg.author, "nest": {"id": egg.nest.id, "name": egg.nest.name}});
        let slugs = candidates(egg);
        let same = |f: &Value| f["name"] == egg.name.as_str() && f["author"] == egg.author.as_str();
        let matching: Vec<(&String, &Value)> = slugs
            .iter()
            .filter_map(|s| match &files[s] {
                File::Ok(f) if same(f) => Some((s, f)),
                _ => None,
            })
            .collect();
        if matching.is_empty() {
            // A candidate the catalog wrote no pterodactyl.json for: its egg document says
            // whether it has this name and author.
            let missing: BTreeSet<String> = slugs
                .iter()
                .filter(|s| matches!(files[*s], File::None))
                .filter(|s| !documents.contains_key(*s))
                .cloned()
                .collect();
            documents.extend(
                fetch(catalog, in_flight, &missing, |s| {
                    format!("/api/v1/eggs/{s}.json")
                })
                .await?,
            );
            let without_file: Vec<&String> = slugs
                .iter()
                .filter(|s| matches!(files[*s], File::None))
                .filter(|s| matches!(&documents[*s], File::Ok(d) if same(&d["egg"])))
                .collect();
            if let Some(slug) = without_file.first() {
                item["state"] = json!("unknown");
                item["slug"] = json!(slug);
                item["why"] = json!(format!(
                    "the catalog's egg {slug} has this name and author, but the catalog publishes no pterodactyl.json for it{}",
                    match &documents[*slug] {
                        File::Ok(d) => problems(d),
                        File::None => String::new(),
                    }
                ));
            } else {
                item["state"] = json!("not-from-this-catalog");
                item["why"] = json!(not_found_why(egg, &slugs, &files));
            }
            out.push(item);
            continue;
        }
        let panel_fields = match from_api(&egg.attributes) {
            Ok(v) => v,
            Err(why) => {
                item["state"] = json!("unknown");
                item["why"] = json!(why);
                if let [(slug, _)] = matching[..] {
                    item["slug"] = json!(slug);
                }
                out.push(item);
                continue;
            }
        };
        let compared: Vec<(&str, Vec<FieldEdit>)> = matching
            .iter()
            .map(|(s, f)| (s.as_str(), differences(&from_file(f), &panel_fields)))
            .collect();
        let (slug, differs, by_content, same_as) = match choose(compared) {
            Choice::One {
                slug,
                differs,
                by_content,
                same_as,
            } => (slug, differs, by_content, same_as),
            Choice::Ambiguous(listed) => {
                item["state"] = json!("ambiguous");
                item["candidates"] = listed
                    .iter()
                    .map(|(s, d)| {
                        json!({"slug": s, "differs": d.iter().map(|e| e.field.clone()).collect::<Vec<_>>()})
                    })
                    .collect();
                let slugs: Vec<&str> = listed.iter().map(|(s, _)| *s).collect();
                item["why"] = json!(format!(
                    "{} catalog eggs have this name and author ({}), and the egg is as near to two of them that differ from each other: it is one of them, edited or at an older version, and which cannot be told",
                    slugs.len(),
                    slugs.join(", ")
                ));
                out.push(item);
                continue;
            }
        };
        let url = format!("{}/api/v1/eggs/{slug}/pterodactyl.json", catalog.url());
        item["slug"] = json!(slug);
        item["matchedBy"] = json!(if by_content { "content" } else { "name-author" });
        if !same_as.is_empty() {
            item["sameAs"] = json!(same_as);
        }
        item["importFile"] = json!(url);
        if differs.is_empty() {
            item["state"] = json!("up-to-date");
            out.push(item);
            continue;
        }
        item["state"] = json!("differs");
        item["differs"] = differs
            .iter()
            .map(|e| json!({"field": e.field, "catalog": e.base, "panel": e.panel}))
            .collect();
        item["why"] = json!(
            "Pterodactyl's API gives no update_url and the catalog publishes no older pterodactyl.json, so whether the panel has an older version or edited the egg cannot be told: `differs` is every field Update Egg with the current file would change"
        );
        let deleted: Vec<&str> = differs
            .iter()
            .filter(|e| e.base.is_none() && e.field.matches('.').count() == 1)
            .filter_map(|e| e.field.strip_prefix("variables."))
            .collect();
        item["updateDeletesVariables"] = json!(deleted);
        item["update"] = json!(format!(
            "download {url}, then in the panel: Admin → Nests → {} → {} ({}/admin/nests/egg/{}) → Egg File: choose it → Update Egg. That updates this egg in place (its id, uuid and servers stay; variables are matched by env_variable{}); Import Egg would make a second egg instead",
            egg.nest.name,
            egg.name,
            panel.url(),
            egg.id,
            if deleted.is_empty() {
                String::new()
            } else {
                format!(
                    ", and {} the file lacks would be deleted with every server's value of {}",
                    deleted.join(", "),
                    if deleted.len() == 1 { "it" } else { "them" }
                )
            }
        ));
        // The versions upstream committed after the egg was last saved on the panel.
        if !histories.contains_key(slug) {
            let one = BTreeSet::from([slug.to_owned()]);
            histories.extend(
                fetch(catalog, in_flight, &one, |s| {
                    format!("/api/v1/eggs/{s}/history.json")
                })
                .await?,
            );
        }
        if let (File::Ok(history), Some(saved)) =
            (&histories[slug], utc(&egg.attributes["updated_at"]))
        {
            let since: Vec<Value> = history["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|v| utc(&v["date"]).is_some_and(|d| d > saved))
                .map(|v| {
                    json!({"commit": v["commit"], "date": v["date"], "subject": v["subject"],
                        "breaking": v["breaking"].as_bool().unwrap_or(false),
                        "changes": v["changes"].as_array().into_iter().flatten().map(|c| json!({
                            "kind": c["kind"], "text": c["text"],
                            "breaking": c["breaking"].as_bool().unwrap_or(false)})).collect::<Vec<_>>()})
                })
                .collect();
            let resets: Vec<Value> = since
                .iter()
                .flat_map(|v| v["changes"].as_array().cloned().unwrap_or_default())
                .filter(|c| {
                    matches!(
                        c["kind"].as_str(),
                        Some("variable_removed" | "variable_renamed")
                    )
                })
                .map(|c| c["text"].clone())
                .collect();
            item["since"] = json!(since);
            item["resetsServerValues"] = json!(resets);
        }
        out.push(item);
    }
    let mut counts = serde_json::Map::new();
    for state in STATES {
        let n = out.iter().filter(|e| e["state"] == state).count();
        counts.insert(state.to_owned(), json!(n));
    }
    Ok(json!({
        "panel": panel.url(),
        "panelKind": "pterodactyl",
        "catalog": catalog.url(),
        "counts": counts,
        "eggs": out,
    }))
}

/// The exit code for a report: 0 when nothing needs doing (every egg up to date or not from
/// this catalog); 1 when some egg differs from the catalog's current file; 3 when some egg is
/// ambiguous or unknown (and none differs). 2 is an error (the caller's).
pub fn exit_code(report: &Value) -> u8 {
    let n = |s: &str| report["counts"][s].as_u64().unwrap_or(0);
    if n("differs") > 0 {
        1
    } else if n("ambiguous") + n("unknown") > 0 {
        3
    } else {
        0
    }
}

/// The catalog's JSON document at `path(slug)` for each slug, at most `in_flight` at once: a
/// 404 or 410 is [`File::None`]; anything else but JSON is the run's error.
async fn fetch(
    catalog: &Catalog,
    in_flight: usize,
    slugs: &BTreeSet<String>,
    path: impl Fn(&str) -> String,
) -> Result<BTreeMap<String, File>, PanelError> {
    let got: Vec<_> = futures_util::stream::iter(slugs.iter().map(|s| {
        let p = path(s);
        async move { (s.clone(), catalog.json(&p).await) }
    }))
    .buffered(in_flight)
    .collect()
    .await;
    let mut out = BTreeMap::new();
    for (slug, answer) in got {
        let file = match answer? {
            Some(Ok(v)) => File::Ok(v),
            Some(Err(())) | None => File::None,
        };
        out.insert(slug, file);
    }
    Ok(out)
}

/// Why no catalog egg matched: the candidates by name and who their author is.
fn not_found_why(egg: &PteroEgg, slugs: &[String], files: &BTreeMap<String, File>) -> String {
    let others: Vec<String> = slugs
        .iter()
        .filter_map(|s| match &files[s] {
            File::Ok(f) if f["name"] == egg.name.as_str() => Some(format!(
                "{s} by {}",
                f["author"].as_str().unwrap_or("no author")
            )),
            _ => None,
        })
        .collect();
    if others.is_empty() {
        format!("no egg of the catalog is named {:?}", egg.name)
    } else {
        format!(
            "no egg of the catalog has the name {:?} and the author {:?} (by that name: {})",
            egg.name,
            egg.author,
            others.join(", ")
        )
    }
}

/// What an egg document's `meta.import.pterodactyl` says of its file, as a clause.
fn problems(doc: &Value) -> String {
    let p: Vec<&str> = doc["meta"]["import"]["pterodactyl"]["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if p.is_empty() {
        String::new()
    } else {
        format!(" ({})", p.join("; "))
    }
}

/// A time in UTC as `YYYY-MM-DDTHH:MM:SS`, which sorts as the time: the panel's
/// (`BaseTransformer::formatTimestamp`, `+00:00`) and the catalog's (`Z`, milliseconds). `None`
/// for anything else (no comparison then).
fn utc(v: &Value) -> Option<&str> {
    let s = v.as_str()?;
    let (head, rest) = (s.get(..19)?, s.get(19..)?);
    let rest = rest
        .strip_prefix('.')
        .map_or(rest, |r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
    let bytes = head.as_bytes();
    let shape = bytes.len() == 19
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b'T'
        && bytes[13] == b':'
        && bytes[16] == b':';
    (shape && matches!(rest, "Z" | "+00:00")).then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_utc_compare_as_text() {
        let at = |s: &str| utc(&json!(s)).map(str::to_owned);
        assert_eq!(
            at("2026-10-06T00:00:00.000Z").as_deref(),
            Some("2026-10-06T00:00:00")
        );
        assert_eq!(
            at("2026-11-29T01:32:01+00:00").as_deref(),
            Some("2026-11-29T01:32:01")
        );
        assert_eq!(at("2026-11-29T01:32:01+02:00"), None);
        assert_eq!(at("yesterday"), None);
        assert!(at("2026-10-06T00:00:00.000Z") < at("2026-11-29T01:32:01+00:00"));
    }

    #[test]
    fn the_exit_code_says_what_to_do() {
        let report = |c: Value| json!({"counts": c});
        assert_eq!(
            exit_code(&report(
                json!({"up-to-date": 3, "not-from-this-catalog": 1})
            )),
            0
        );
        assert_eq!(exit_code(&report(json!({"differs": 1, "ambiguous": 1}))), 1);
        assert_eq!(exit_code(&report(json!({"ambiguous": 1}))), 3);
    }
}
