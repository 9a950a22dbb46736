//! `eggcat panel status`: for every egg on a Pelican panel, the catalog egg it comes from and
//! where it stands (`eggcat_panels::standing`), read from a served eggcat catalog (its
//! `history.json` and import files) and the panel's exports.
//!
//! Matching: by the export's `meta.update_url` when it points into the catalog
//! (`{catalog}/api/v1/eggs/{slug}/pelican*.json`), else by `uuid`: the catalog publishes no uuid
//! list, so the egg documents (`{slug}.json`, whose `meta.uuid` is the uuid of the import files)
//! are read, once per run and only when some egg needs it, at most `in_flight` at once.
//!
//! Versions: an unedited egg of any version is told by its hash (`pelicanUpdateCheckMd5` in
//! `history.json`). An egg that matches no version's hash is edited, and is compared with the
//! current file and with the older versions' files the catalog publishes (`pelicanJson`), the
//! nearest taken as the version the edits were made on. A catalog without older files leaves
//! the current file only: an egg edited on an older version then reads "edited locally" with
//! upstream's changes since among its edits, and `baseKnown: false` says so.
//!
//! Servers: the list of eggs comes with the servers that use each (the `servers` include), and
//! an egg behind says which (`servers`, beside `resetsServerValues`: whose values an update
//! that removes or renames a variable deletes). A key that may not read servers gets no list
//! from Pelican: the report then says the servers are not known and why (`serversKnown:
//! false`, `serversWhy` naming the permission), and each egg's `servers` is `null`, never an
//! empty list.

use std::collections::BTreeMap;
use std::path::Path;

use eggcat_panels::standing::{self, FieldEdit, Standing, VersionFile};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::{Client, PanelError, Servers};

/// The states, as `--json` and the table name them.
pub const STATES: [&str; 8] = [
    "up-to-date",
    "behind",
    "edited-locally",
    "behind-and-edited",
    "same-egg-other-order",
    "removed-upstream",
    "not-from-this-catalog",
    "unknown",
];

/// A served eggcat catalog, read over HTTP(S) (no key: it is public).
#[derive(Debug)]
pub struct Catalog {
    http: reqwest::Client,
    base: String,
    in_flight: usize,
}

enum Got {
    Ok(Vec<u8>),
    Gone,
    Missing,
}

impl Catalog {
    /// The catalog at `base` (`https://eggs.example.org`): https, or plain http to loopback.
    pub fn new(
        base: &str,
        ca_file: Option<&Path>,
        timeout: std::time::Duration,
        in_flight: usize,
    ) -> Result<Catalog, PanelError> {
        let base = base.trim_end_matches('/').to_owned();
        crate::check_url(&base).map_err(|e| {
            PanelError::Config(
                e.to_string()
                    .replacen("the panel URL", "the catalog URL", 1),
            )
        })?;
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!(
                "eggcat/",
                env!("CARGO_PKG_VERSION"),
                " (eggcat panel)"
            ))
            .connect_timeout(timeout)
            .timeout(timeout)
            // The catalog redirects the former pelican-postgresql.json to pelican.json.
            .redirect(reqwest::redirect::Policy::limited(3));
        if let Some(path) = ca_file {
            let pem = std::fs::read(path).map_err(|e| {
                PanelError::Config(format!("cannot read the CA file {}: {e}", path.display()))
            })?;
            for cert in reqwest::Certificate::from_pem_bundle(&pem)
                .map_err(|e| PanelError::Config(format!("the CA file is not PEM: {e}")))?
            {
                builder = builder.add_root_certificate(cert);
            }
        }
        let http = builder
            .build()
            .map_err(|e| PanelError::Config(format!("cannot make an HTTPS client: {e}")))?;
        Ok(Catalog {
            http,
            base,
            in_flight: in_flight.max(1),
        })
    }

    /// The catalog's address.
    pub fn url(&self) -> &str {
        &self.base
    }

    async fn get(&self, path: &str) -> Result<Got, PanelError> {
        let url = format!("{}{path}", self.base);
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .map_err(|e| PanelError::Transport(format!("the catalog at {url}: {e}")))?;
        let status = response.status().as_u16();
        match status {
            200 => Ok(Got::Ok(
                response
                    .bytes()
                    .await
                    .map_err(|e| PanelError::Transport(format!("the catalog at {url}: {e}")))?
                    .to_vec(),
            )),
            410 => Ok(Got::Gone),
            404 => Ok(Got::Missing),
            _ => Err(PanelError::Transport(format!(
                "the catalog answered {status} to {url}"
            ))),
        }
    }

    /// A JSON document of the catalog: `Some(Ok)`, `Some(Err(()))` for 410 Gone, `None` for 404;
    /// a body that is not JSON is an error, never a state.
    pub(crate) async fn json(&self, path: &str) -> Result<Option<Result<Value, ()>>, PanelError> {
        Ok(match self.get(path).await? {
            Got::Ok(body) => Some(Ok(serde_json::from_slice(&body).map_err(|e| {
                PanelError::Malformed {
                    what: format!("the catalog's {path}"),
                    why: format!("not JSON: {e}"),
                }
            })?)),
            Got::Gone => Some(Err(())),
            Got::Missing => None,
        })
    }

    /// Every slug of the catalog by the uuid its import files carry.
    async fn uuids(&self) -> Result<BTreeMap<String, String>, PanelError> {
        let index = match self.json("/api/v1/eggs/_index.json").await? {
            Some(Ok(v)) => v,
            _ => {
                return Err(PanelError::Transport(format!(
                    "the catalog at {} has no readable /api/v1/eggs/_index.json",
                    self.base
                )));
            }
        };
        let slugs: Vec<String> = index
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["slug"].as_str().map(str::to_owned))
            .collect();
        let docs: Vec<_> = futures_util::stream::iter(
            slugs
                .iter()
                .map(|s| async move { (s, self.json(&format!("/api/v1/eggs/{s}.json")).await) }),
        )
        .buffered(self.in_flight)
        .collect()
        .await;
        let mut out = BTreeMap::new();
        for (slug, doc) in docs {
            if let Some(Ok(doc)) = doc?
                && let Some(uuid) = doc["meta"]["uuid"].as_str()
            {
                out.insert(uuid.to_ascii_lowercase(), slug.clone());
            }
        }
        Ok(out)
    }
}

/// The report of one run: `{"panel", "catalog", "counts", "eggs"}` (docs/guides/panel-status.md
/// and `schemas/panel-status.schema.json` give every field).
pub async fn status(panel: &Client, catalog: &Catalog) -> Result<Value, PanelError> {
    let eggs = panel.eggs().await?;
    let ids: Vec<u64> = eggs.iter().map(|e| e.id).collect();
    let exports = panel.exports(&ids).await;
    let mut uuids: Option<BTreeMap<String, String>> = None;
    let mut out = Vec::new();
    for (egg, export) in eggs.iter().zip(exports) {
        let mut item = json!({"id": egg.id, "uuid": egg.uuid, "name": egg.name});
        let export = match export {
            Ok(v) => v,
            // A refused key, or a panel asking to slow down, is the run's error, never an
            // egg's state.
            Err(
                e @ (PanelError::Unauthenticated { .. }
                | PanelError::Forbidden { .. }
                | PanelError::RateLimited { .. }),
            ) => {
                return Err(e);
            }
            Err(e) => {
                item["state"] = json!("unknown");
                item["why"] = json!(format!("the panel's export failed: {e}"));
                out.push(item);
                continue;
            }
        };
        let update_url = export["meta"]["update_url"].as_str().unwrap_or("");
        let (slug, database, matched_by) = match standing::from_catalog(update_url, catalog.url()) {
            Some(from) => {
                let db = if from.file == "pelican-mariadb.json" {
                    "mariadb"
                } else {
                    "sqlite"
                };
                (from.slug, db, "update_url")
            }
            None => {
                if uuids.is_none() {
                    uuids = Some(catalog.uuids().await?);
                }
                let by_uuid = uuids
                    .as_ref()
                    .and_then(|m| m.get(&egg.uuid.to_ascii_lowercase()).cloned());
                match by_uuid {
                    Some(slug) => (slug, "sqlite", "uuid"),
                    None => {
                        item["state"] = json!("not-from-this-catalog");
                        item["why"] = json!(if update_url.is_empty() {
                            "no update_url, and no egg of the catalog has its uuid".to_owned()
                        } else {
                            format!(
                                "its update_url ({update_url}) is not this catalog's, and no egg of the catalog has its uuid"
                            )
                        });
                        out.push(item);
                        continue;
                    }
                }
            }
        };
        item["slug"] = json!(slug);
        item["matchedBy"] = json!(matched_by);
        let history = match catalog
            .json(&format!("/api/v1/eggs/{slug}/history.json"))
            .await?
        {
            Some(Ok(h)) => h,
            Some(Err(())) => {
                item["state"] = json!("removed-upstream");
                item["why"] = json!(format!(
                    "the catalog answers 410 Gone for {slug} (its file was deleted or moved upstream)"
                ));
                out.push(item);
                continue;
            }
            None => {
                item["state"] = json!("not-from-this-catalog");
                item["why"] = json!(format!("the catalog has no egg {slug}"));
                out.push(item);
                continue;
            }
        };
        let versions: Vec<&Value> = history["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .collect();
        // An egg found by uuid names no file: MariaDB's order when its export has the hash
        // of a version of MariaDB's file, SQLite's (PostgreSQL's) otherwise.
        let database = if matched_by == "uuid" {
            let hash = eggcat_panels::update_check_md5(export.to_string().as_bytes());
            if hash.is_some()
                && versions
                    .iter()
                    .any(|v| v["pelicanUpdateCheckMd5"]["mariadb"].as_str() == hash.as_deref())
            {
                "mariadb"
            } else {
                database
            }
        } else {
            database
        };
        let file_name = if database == "mariadb" {
            "pelican-mariadb.json"
        } else {
            "pelican.json"
        };
        let current = match catalog
            .json(&format!("/api/v1/eggs/{slug}/{file_name}"))
            .await?
        {
            Some(Ok(v)) => Some(v),
            _ => None,
        };
        // The versions to compare with, newest first. The current file comes first, its hash
        // made from its bytes: an egg unchanged within the history's window has no version in
        // `history.json`, and the newest version may have no hash. Then every older version
        // with a hash. `at[n]` is version n's index in `history.json`, where it has one (an
        // older version always does).
        let current_md5 = current
            .as_ref()
            .and_then(|c| eggcat_panels::update_check_md5(c.to_string().as_bytes()));
        let mut files: Vec<VersionFile> = vec![VersionFile {
            md5: current_md5.clone(),
            file: current,
        }];
        let mut at: Vec<Option<usize>> = vec![versions.iter().position(|v| {
            current_md5.is_some()
                && v["pelicanUpdateCheckMd5"][database].as_str() == current_md5.as_deref()
        })];
        for (i, v) in versions.iter().enumerate() {
            if let Some(md5) = v["pelicanUpdateCheckMd5"][database].as_str()
                && Some(md5) != current_md5.as_deref()
                && at[0].is_none_or(|c| i > c)
            {
                files.push(VersionFile {
                    md5: Some(md5.to_owned()),
                    file: None,
                });
                at.push(Some(i));
            }
        }
        // An egg imported from the egg's `pelican.yaml`, or the former `pelican-postgresql.json`
        // (now a redirect to `pelican.json`), names that file: the same egg, compared as if it
        // named the file of its database.
        let current_url = files[0]
            .file
            .as_ref()
            .map(|f| f["meta"]["update_url"].clone());
        let export = same_egg_url(export, catalog.url(), &slug, current_url.as_ref());
        // An egg that matches no version's hash is edited: the older versions' files, where the
        // catalog publishes them (`pelicanJson`), tell which version it came from. The one
        // found is certain only when the history reaches back to the egg's first version and
        // every older file could be read: an egg older than the history read would otherwise
        // be taken for the nearest version the catalog knows, upstream's old values for edits.
        let hash = eggcat_panels::update_check_md5(export.to_string().as_bytes());
        let mut base_known = history["complete"] == true;
        if !files.iter().any(|f| f.md5.is_some() && f.md5 == hash) {
            let mut urls: Vec<(usize, String)> = Vec::new();
            for (n, i) in at.iter().enumerate().skip(1) {
                match i.and_then(|i| versions[i]["pelicanJson"].as_str()) {
                    Some(url) => urls.push((n, catalog_path(url))),
                    None => base_known = false,
                }
            }
            let got: Vec<_> = futures_util::stream::iter(
                urls.iter()
                    .map(|(n, path)| async move { (*n, catalog.json(path).await) }),
            )
            .buffered(catalog.in_flight)
            .collect()
            .await;
            // An older version's file is published in SQLite's order, naming `pelican.json`;
            // the panel's file for MariaDB names `pelican-mariadb.json` (and differs in order
            // only, which the comparison ignores): the URL the panel's file has, not an edit.
            for (n, file) in got {
                if let Some(Ok(mut file)) = file? {
                    if let Some(url) = &current_url {
                        file["meta"]["update_url"] = url.clone();
                    }
                    files[n].file = Some(file);
                } else {
                    base_known = false;
                }
            }
        }
        item["importFile"] = json!(file_name);
        let result = standing::standing(&export, &files);
        let version = |n: usize| -> Value {
            let v = versions[at[n].expect("an older version is in history.json")];
            let mut out =
                json!({"commit": v["commit"], "date": v["date"], "subject": v["subject"]});
            if v["pelicanJson"].is_string() {
                out["pelicanJson"] = v["pelicanJson"].clone();
            }
            out
        };
        // The versions since version `n` (of `files`), with their changes.
        let since = |n: usize| -> (Value, Vec<Value>) {
            let list: Vec<Value> = versions[..at[n].expect("an older version is in history.json")]
                .iter()
                .map(|v| {
                    json!({"commit": v["commit"], "date": v["date"], "subject": v["subject"],
                        "breaking": v["breaking"].as_bool().unwrap_or(false),
                        "changes": v["changes"].as_array().into_iter().flatten().map(|c| json!({
                            "kind": c["kind"], "text": c["text"],
                            "breaking": c["breaking"].as_bool().unwrap_or(false)})).collect::<Vec<_>>()})
                })
                .collect();
            let resets: Vec<Value> = list
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
            (Value::Array(list), resets)
        };
        let servers = || egg.servers.to_json();
        let edits_json = |edits: &[FieldEdit]| -> Value {
            edits
                .iter()
                .map(|e| json!({"field": e.field, "catalog": e.base, "panel": e.panel}))
                .collect()
        };
        match result {
            Standing::UpToDate => item["state"] = json!("up-to-date"),
            Standing::Behind { has } => {
                let (list, resets) = since(has);
                item["state"] = json!("behind");
                item["has"] = version(has);
                item["since"] = list;
                item["resetsServerValues"] = json!(resets);
                item["servers"] = servers();
            }
            Standing::EditedLocally { edits } => {
                item["state"] = json!("edited-locally");
                item["edits"] = edits_json(&edits);
                item["baseKnown"] = json!(base_known);
            }
            Standing::BehindAndEdited { base, edits } => {
                let (list, resets) = since(base);
                item["state"] = json!("behind-and-edited");
                item["has"] = version(base);
                item["since"] = list;
                item["resetsServerValues"] = json!(resets);
                item["servers"] = servers();
                item["edits"] = edits_json(&edits);
                item["baseKnown"] = json!(base_known);
            }
            Standing::OtherOrder { has, reason } => {
                item["state"] = json!(if has == 0 {
                    "same-egg-other-order"
                } else {
                    "behind"
                });
                item["reason"] = json!(reason);
                if has > 0 {
                    let (list, resets) = since(has);
                    item["has"] = version(has);
                    item["since"] = list;
                    item["resetsServerValues"] = json!(resets);
                    item["servers"] = servers();
                }
            }
            Standing::Unknown { why } => {
                item["state"] = json!("unknown");
                item["why"] = json!(why);
            }
        }
        out.push(item);
    }
    let mut counts = serde_json::Map::new();
    for state in STATES {
        let n = out.iter().filter(|e| e["state"] == state).count();
        counts.insert(state.to_owned(), json!(n));
    }
    let mut report = json!({"panel": panel.url(), "catalog": catalog.url()});
    let known = !eggs.iter().any(|e| e.servers == Servers::NotPermitted);
    report["serversKnown"] = json!(known);
    if !known {
        report["serversWhy"] = json!(crate::servers_not_known_why());
    }
    report["counts"] = Value::Object(counts);
    report["eggs"] = Value::Array(out);
    Ok(report)
}

/// `export` with its `meta.update_url` set to `file_url` (the catalog's file for the panel's
/// database) when it names the egg's `pelican.yaml` or the former `pelican-postgresql.json` in
/// the catalog at `catalog`: a URL of the same egg's files, no edit of the admin's.
pub(crate) fn same_egg_url(
    mut export: Value,
    catalog: &str,
    slug: &str,
    file_url: Option<&Value>,
) -> Value {
    let url = export["meta"]["update_url"].as_str().unwrap_or("");
    if let (Some(from), Some(file_url)) = (standing::from_catalog(url, catalog), file_url)
        && from.slug == slug
        && matches!(
            from.file.as_str(),
            "pelican.yaml" | "pelican-postgresql.json"
        )
        && file_url.is_string()
    {
        export["meta"]["update_url"] = file_url.clone();
    }
    export
}

/// The path in the catalog of a URL `history.json` gives (absolute under the catalog's
/// `base_url`, which may differ from the address the catalog is read at, or a path).
pub(crate) fn catalog_path(url: &str) -> String {
    match url.find("/api/v1/") {
        Some(at) => url[at..].to_owned(),
        None => url.to_owned(),
    }
}

/// The exit code for a report: 0 when nothing needs doing (every egg up to date, in substance
/// or exactly, edited locally on the current version, or not from this catalog); 1 when some
/// egg is behind (edited or not) or removed upstream; 3 when some egg's state is unknown (and
/// none is behind). 2 is an error (the caller's).
pub fn exit_code(report: &Value) -> u8 {
    let n = |s: &str| report["counts"][s].as_u64().unwrap_or(0);
    if n("behind") + n("behind-and-edited") + n("removed-upstream") > 0 {
        1
    } else if n("unknown") > 0 {
        3
    } else {
        0
    }
}
