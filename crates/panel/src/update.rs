//! `eggcat panel update`: brings a Pelican panel's eggs up to date and keeps the panel's own
//! edits (issue 37, §3). For each egg `status` finds behind (edited or not): a three-way merge
//! (`eggcat_panels::merge`) with the version the panel came from as the base, the catalog's
//! current import file (for the panel's database order) as theirs, the panel's export as ours;
//! the result keeps the panel egg's `uuid`, so that Pelican's import updates that egg in place.
//!
//! Safe by default: an egg with a conflict is left as it is unless a side is chosen; an update
//! that carries a breaking change or takes away a variable the panel's egg has (the database
//! deletes every server's value of it) is left unless the admin consented for that egg, and
//! says which servers use the egg (`servers`, from `status`; how many in its `why`); before
//! any write the panel's export is saved ([`crate::backups`]); the write is Pelican's own import
//! endpoint; afterwards the egg is exported again and compared with what was meant. A refused
//! key or a panel asking to slow down stops the writes there: the eggs before are done, that
//! one and the rest are untouched, and the report says which. Nothing is deleted on the panel.

pub use eggcat_panels::merge::Side;
use eggcat_panels::merge::merge;
use eggcat_panels::standing;
use serde_json::{Value, json};

use crate::backups::Backups;
use crate::status::{Catalog, status};
use crate::{Client, PanelError};

/// What the admin asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Show what each egg would become; write nothing.
    pub dry_run: bool,
    /// The side a conflict takes (`--ours`, `--theirs`); without one an egg with a conflict is
    /// left as it is.
    pub prefer: Option<Side>,
    /// The eggs (id or slug) whose breaking update, or update that takes variables away, the
    /// admin consented to (`--accept-breaking EGG`); `all` for every egg.
    pub accept_breaking: Vec<String>,
    /// Only these eggs (id or slug); every egg when empty.
    pub only: Vec<String>,
}

/// The outcomes, as `--json` and the table name them.
pub const OUTCOMES: [&str; 7] = [
    "updated",
    "would-update",
    "conflict",
    "needs-consent",
    "left",
    "failed",
    "not-tried",
];

fn names(item: &Value, list: &[String]) -> bool {
    list.iter().any(|x| {
        x == "all"
            || item["id"].as_u64().is_some_and(|id| x == &id.to_string())
            || item["slug"].as_str() == Some(x.as_str())
    })
}

/// Why `status`'s state leaves an egg as it is.
fn left_because(item: &Value) -> String {
    match item["state"].as_str().unwrap_or("") {
        "up-to-date" => "up to date".to_owned(),
        "same-egg-other-order" => "up to date in substance (another order)".to_owned(),
        "edited-locally" if item["baseKnown"] == false => {
            "edited, and the version it came from is not certain (the catalog's history does not reach back to the egg's first version, or publishes no older version's file): left as it is".to_owned()
        }
        "edited-locally" => {
            "the current version with local edits: nothing to take from upstream, the edits stay"
                .to_owned()
        }
        "removed-upstream" => {
            "removed upstream: the catalog has no newer file (the egg stays on the panel)"
                .to_owned()
        }
        "not-from-this-catalog" => "not from this catalog".to_owned(),
        other => format!(
            "{other}: {}",
            item["why"].as_str().unwrap_or("nothing to update from")
        ),
    }
}

/// A run's error that stops the writes (the key, the panel's limit), as opposed to one egg's.
fn stops_the_run(e: &PanelError) -> bool {
    matches!(
        e,
        PanelError::Unauthenticated { .. }
            | PanelError::Forbidden { .. }
            | PanelError::RateLimited { .. }
    )
}

/// The report of one run: `{"panel", "catalog", "dryRun", "counts", "eggs"}`
/// (docs/guides/panel-status.md gives every field).
pub async fn update(
    panel: &Client,
    catalog: &Catalog,
    backups: &Backups,
    options: &Options,
) -> Result<Value, PanelError> {
    let report = status(panel, catalog).await?;
    let mut out = Vec::new();
    let mut stopped: Option<String> = None;
    for item in report["eggs"].as_array().into_iter().flatten() {
        if !options.only.is_empty() && !names(item, &options.only) {
            continue;
        }
        let id = item["id"].as_u64().unwrap_or(0);
        let mut e = json!({"id": id, "name": item["name"], "state": item["state"]});
        if let Some(slug) = item.get("slug") {
            e["slug"] = slug.clone();
        }
        let state = item["state"].as_str().unwrap_or("");
        if !matches!(state, "behind" | "behind-and-edited") {
            e["outcome"] = json!("left");
            e["why"] = json!(left_because(item));
            out.push(e);
            continue;
        }
        if let Some(why) = &stopped {
            e["outcome"] = json!("not-tried");
            e["why"] = json!(why);
            out.push(e);
            continue;
        }
        match one(panel, catalog, backups, options, item, &mut e).await {
            Ok(()) => {}
            Err(err) => {
                let run = stops_the_run(&err);
                e["outcome"] = json!("failed");
                e["why"] = json!(err.to_string());
                if run {
                    stopped = Some(format!("not tried: the writes stopped at egg {id} ({err})"));
                }
            }
        }
        out.push(e);
    }
    let mut counts = serde_json::Map::new();
    for outcome in OUTCOMES {
        let n = out.iter().filter(|e| e["outcome"] == outcome).count();
        counts.insert(outcome.to_owned(), json!(n));
    }
    Ok(json!({
        "panel": panel.url(),
        "catalog": catalog.url(),
        "dryRun": options.dry_run,
        "backups": backups.dir(),
        "counts": counts,
        "eggs": out,
    }))
}

/// One behind egg: merge, consent, save, write, check. Sets `e`'s outcome; an `Err` is a
/// failure before the write (or of the write itself, told apart by a fresh export).
async fn one(
    panel: &Client,
    catalog: &Catalog,
    backups: &Backups,
    options: &Options,
    item: &Value,
    e: &mut Value,
) -> Result<(), PanelError> {
    let id = item["id"].as_u64().unwrap_or(0);
    let slug = item["slug"].as_str().unwrap_or("");
    let file_name = item["importFile"].as_str().unwrap_or("pelican.json");
    // An edited egg whose base is not certain is left before anything is asked of the panel or
    // the catalog for it (both rate-limited).
    if item["state"] != "behind" && item["baseKnown"] == false {
        e["outcome"] = json!("left");
        e["why"] = json!(
            "the version its edits were made on is not certain (the catalog's history does not reach back to the egg's first version, or an older version's file could not be read): a merge from a guessed base could keep upstream's old values as edits"
        );
        return Ok(());
    }
    let (raw, ours) = panel.export_raw(id).await?;
    let theirs = match catalog
        .json(&format!("/api/v1/eggs/{slug}/{file_name}"))
        .await?
    {
        Some(Ok(v)) => v,
        _ => {
            e["outcome"] = json!("left");
            e["why"] = json!(format!("the catalog has no {file_name} for {slug} now"));
            return Ok(());
        }
    };
    // Named by the egg's `pelican.yaml` or the former `pelican-postgresql.json`: the same egg;
    // the update points it at the file for its database, as `status` compares it.
    let exported = ours.clone();
    let ours = crate::status::same_egg_url(
        ours,
        catalog.url(),
        slug,
        Some(&theirs["meta"]["update_url"]),
    );
    // The base: an unedited egg is its version's file (its export is that file, the premise
    // of Pelican's own check); an edited one needs the file of the version it came from.
    let base = if item["state"] == "behind" {
        ours.clone()
    } else {
        match item["has"]["pelicanJson"].as_str() {
            Some(url) => match catalog.json(&crate::status::catalog_path(url)).await? {
                // In SQLite's order, naming `pelican.json`: the URL is the panel's file's, as
                // `status` compared it.
                Some(Ok(mut v)) => {
                    v["meta"]["update_url"] = theirs["meta"]["update_url"].clone();
                    v
                }
                _ => {
                    e["outcome"] = json!("left");
                    e["why"] = json!(format!(
                        "the file of the version it came from ({url}) cannot be read from the catalog"
                    ));
                    return Ok(());
                }
            },
            None => {
                e["outcome"] = json!("left");
                e["why"] = json!(
                    "the catalog publishes no file of the version it came from: without that base a merge would take the local edits for upstream's or the other way round"
                );
                return Ok(());
            }
        }
    };
    let merged = merge(&base, &ours, &theirs, options.prefer);
    let mut file = merged.file;
    // The panel's egg, updated in place: its uuid, whatever the catalog's is.
    file["uuid"] = ours["uuid"].clone();
    e["tookUpstream"] = json!(merged.took_theirs);
    e["keptLocal"] = json!(merged.kept_ours);
    e["conflicts"] = merged
        .conflicts
        .iter()
        .map(|c| json!({"field": c.field, "base": c.base, "panel": c.ours, "catalog": c.theirs}))
        .collect();
    if !merged.conflicts.is_empty() && options.prefer.is_none() {
        e["outcome"] = json!("conflict");
        e["why"] = json!(
            "the panel and upstream changed the same field differently: left as it is (choose a side with --ours or --theirs)"
        );
        return Ok(());
    }
    // What needs consent: breaking versions since, and variables the update takes away.
    let breaking: Vec<Value> = item["since"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|v| v["changes"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["breaking"] == true)
        .map(|c| c["text"].clone())
        .collect();
    let env = |v: &Value| v["env_variable"].as_str().unwrap_or("").to_owned();
    let kept: Vec<String> = file["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .map(env)
        .collect();
    let removed: Vec<String> = ours["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .map(env)
        .filter(|name| !kept.contains(name))
        .collect();
    e["breaking"] = json!(breaking);
    e["removesVariables"] = json!(removed);
    let touches = !breaking.is_empty() || !removed.is_empty();
    if touches {
        // The servers it touches (`status`'s, from the list of eggs; null when the key may not
        // read servers).
        e["servers"] = item.get("servers").cloned().unwrap_or(Value::Null);
    }
    if touches && !names(item, &options.accept_breaking) {
        let removes = format!(
            "removes {} (every server's value of it is deleted with it)",
            removed.join(", ")
        );
        e["outcome"] = json!("needs-consent");
        e["why"] = json!(format!(
            "the update {}; {}; run again with --accept-breaking {slug} to write it",
            match (breaking.is_empty(), removed.is_empty()) {
                (false, false) => format!("carries breaking changes and {removes}"),
                (false, true) => "carries breaking changes".to_owned(),
                _ => removes,
            },
            crate::servers_in_words(&e["servers"])
        ));
        return Ok(());
    }
    if options.dry_run {
        e["outcome"] = json!("would-update");
        e["file"] = file;
        return Ok(());
    }
    let saved = backups.save(id, &raw)?;
    e["backup"] = json!(saved.path);
    if let Err(err) = panel.import(&file).await {
        // Whether the panel wrote it anyway (a time-out after the write): its export says.
        let now = panel.export(id).await.ok();
        let written = now
            .as_ref()
            .is_some_and(|now| standing::edits(&file, now).is_empty());
        let untouched = now
            .as_ref()
            .is_some_and(|now| standing::edits(&exported, now).is_empty());
        e["outcome"] = json!(if written { "updated" } else { "failed" });
        e["why"] = json!(if written {
            format!("the import answered with an error ({err}), but the panel holds the merged egg")
        } else if untouched {
            format!("{err}; the egg is as it was")
        } else {
            format!(
                "{err}; the panel's egg could not be read back: check it, `eggcat panel restore --egg {id}` puts the saved export back"
            )
        });
        if stops_the_run(&err) && !written {
            return Err(err);
        }
        return Ok(());
    }
    // What the panel holds now, against what was meant. The import was accepted: a failure
    // to read the egg back does not make it unwritten.
    let after = match panel.export(id).await {
        Ok(after) => after,
        Err(err) => {
            e["outcome"] = json!("updated");
            e["why"] = json!(format!(
                "the panel accepted the import, but reading the egg back to check it failed ({err}): `eggcat panel status` tells what it holds"
            ));
            return Ok(());
        }
    };
    let differs = standing::edits(&file, &after);
    if differs.is_empty() {
        e["outcome"] = json!("updated");
    } else {
        e["outcome"] = json!("failed");
        e["why"] = json!(format!(
            "the panel holds something else than was written ({}): `eggcat panel restore --egg {id}` puts the saved export back",
            differs
                .iter()
                .map(|d| d.field.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}

/// The exit code for a report: 0 when every egg that was behind is up to date now (or would
/// be, with `--dry-run`); 1 when some egg was left behind (a conflict, consent needed, no base);
/// 2 when a write failed or was not tried (the caller's 2 for an error too).
pub fn exit_code(report: &Value) -> u8 {
    let n = |s: &str| report["counts"][s].as_u64().unwrap_or(0);
    if n("failed") + n("not-tried") > 0 {
        2
    } else if n("conflict") + n("needs-consent") > 0
        || report["eggs"].as_array().into_iter().flatten().any(|e| {
            e["outcome"] == "left"
                && matches!(e["state"].as_str(), Some("behind" | "behind-and-edited"))
        })
    {
        1
    } else {
        0
    }
}

/// `eggcat panel restore`: puts the saved export `saved` back through Pelican's import, then
/// exports again and checks the panel holds it (`exported_at` aside; order aside, as a
/// PostgreSQL panel returns its rows in its own order). The panel's export before the restore
/// is saved first, like any other write.
pub async fn restore(
    panel: &Client,
    backups: &Backups,
    saved: &crate::backups::Saved,
) -> Result<Value, PanelError> {
    let bytes = std::fs::read(&saved.path)
        .map_err(|e| PanelError::Config(format!("cannot read {}: {e}", saved.path.display())))?;
    let file: Value = serde_json::from_slice(&bytes).map_err(|e| {
        PanelError::Config(format!(
            "{} is not a saved export (not JSON: {e})",
            saved.path.display()
        ))
    })?;
    let before = match panel.export_raw(saved.egg).await {
        Ok((raw, _)) => Some(backups.save(saved.egg, &raw)?),
        // The egg was deleted since: the import makes it again (a new id, the same uuid).
        Err(PanelError::NotFound { .. }) => None,
        Err(e) => return Err(e),
    };
    let id = panel.import(&file).await?;
    let after = panel.export(id).await?;
    let differs = standing::edits(&file, &after);
    Ok(json!({
        "panel": panel.url(),
        "egg": id,
        "restored": saved.path,
        "savedBefore": before.map(|b| b.path),
        "holds": differs.is_empty(),
        "differs": differs.iter().map(|d| d.field.clone()).collect::<Vec<_>>(),
    }))
}
