//! The client of a Pterodactyl panel's application API, as far as `eggcat panel status` needs
//! it: its nests (`GET /api/application/nests`, paginated) and each nest's eggs with their
//! variables and, for an egg that copies another's, what it copies (`GET
//! /api/application/nests/{nest}/eggs?include=variables,config,script`), as Pterodactyl answers
//! them (routes, `NestTransformer`, `EggTransformer`, `EggVariableTransformer`, the `{"object",
//! "attributes"}` envelope; `../shared/panels-src/pterodactyl-api/`). And which panel a URL is
//! ([`detect`]): Pelican lists its eggs at `/api/application/eggs`, a route Pterodactyl does
//! not have; Pterodactyl lists nests, which Pelican does not have.
//!
//! The same safety as the Pelican client ([`Client`]: https, time limits, bounded requests, the
//! key never shown, each refusal an error of its own, never an answer). Pterodactyl has no
//! export and no import over its API: the eggs are read, never written.

use futures_util::StreamExt;
use serde_json::Value;

use crate::{Client, PanelError};

/// The routes, with what each does and the key permission Pterodactyl's request classes ask
/// for it (`GetNestsRequest`: nests read; `GetEggsRequest`: eggs read; `AdminAcl`), as the
/// key form names it.
const NESTS: (&str, &str) = ("list the nests", "Nests: Read");
const EGGS: (&str, &str) = ("list a nest's eggs", "Eggs: Read");
/// Pelican's egg list, the probe of [`detect`] (`GetEggsRequest`: eggs read).
const PELICAN_EGGS: (&str, &str) = ("list the eggs", "Eggs: Read");

/// The most pages of nests read (50 nests a page): a panel that says it has more is not
/// believed.
const MAX_PAGES: u64 = 1000;

/// Which panel answers at a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pelican,
    Pterodactyl,
}

/// A nest, as `NestTransformer` gives it (the fields `status` shows).
#[derive(Debug, Clone, PartialEq)]
pub struct Nest {
    pub id: u64,
    pub name: String,
}

/// One egg of a Pterodactyl panel.
#[derive(Debug, Clone, PartialEq)]
pub struct PteroEgg {
    pub id: u64,
    pub uuid: String,
    pub name: String,
    pub author: String,
    pub nest: Nest,
    /// Every attribute, as the panel sent them, with `relationships` (the includes).
    pub attributes: Value,
}

/// Which panel answers at the client's URL: `GET /api/application/eggs` is Pelican's list of
/// eggs (200) and no route of Pterodactyl's (404, answered before the key is read); `GET
/// /api/application/nests` is Pterodactyl's list of nests and no route of Pelican's. A refused
/// key, a panel asking to slow down or failing, is the error it is, never a guess.
pub async fn detect(client: &Client) -> Result<Kind, PanelError> {
    match client.get("/api/application/eggs", PELICAN_EGGS).await {
        Ok(body) => {
            list(&body, "the list of eggs")?;
            Ok(Kind::Pelican)
        }
        Err(PanelError::NotFound { .. }) => {
            match client.get("/api/application/nests", NESTS).await {
                Ok(body) => {
                    list(&body, "the list of nests")?;
                    Ok(Kind::Pterodactyl)
                }
                Err(PanelError::NotFound { code, detail, .. }) => Err(PanelError::NotFound {
                    what: "application API for eggs (neither Pelican's /api/application/eggs nor Pterodactyl's /api/application/nests; is the URL the panel's?)".to_owned(),
                    code,
                    detail,
                }),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

impl Client {
    /// Every nest of a Pterodactyl panel, page after page.
    pub async fn nests(&self) -> Result<Vec<Nest>, PanelError> {
        let mut out = Vec::new();
        let mut page = 1;
        loop {
            let body = self
                .get(&format!("/api/application/nests?page={page}"), NESTS)
                .await?;
            let what = format!("page {page} of the nests");
            let v = list(&body, &what)?;
            for item in v["data"].as_array().into_iter().flatten() {
                let a = &item["attributes"];
                match (
                    item["object"].as_str(),
                    a["id"].as_u64(),
                    a["name"].as_str(),
                ) {
                    (Some("nest"), Some(id), Some(name)) => out.push(Nest {
                        id,
                        name: name.to_owned(),
                    }),
                    _ => {
                        return Err(PanelError::Malformed {
                            what,
                            why: format!("an item is no nest with an id and a name: {item}"),
                        });
                    }
                }
            }
            let pages = v["meta"]["pagination"]["total_pages"].as_u64().unwrap_or(1);
            if page >= pages.min(MAX_PAGES) {
                return Ok(out);
            }
            page += 1;
        }
    }

    /// The eggs of `nest`, each with its variables and what it copies from another egg.
    pub async fn nest_eggs(&self, nest: &Nest) -> Result<Vec<PteroEgg>, PanelError> {
        let path = format!(
            "/api/application/nests/{}/eggs?include=variables,config,script",
            nest.id
        );
        let body = self.get(&path, EGGS).await.map_err(|e| match e {
            // The nest went between the two requests (or the panel is no Pterodactyl).
            PanelError::NotFound { code, detail, .. } => PanelError::NotFound {
                what: format!("nest {} ({}) any more", nest.id, nest.name),
                code,
                detail,
            },
            e => e,
        })?;
        let what = format!("the eggs of nest {} ({})", nest.id, nest.name);
        let v = list(&body, &what)?;
        v["data"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| {
                let a = &item["attributes"];
                match (
                    item["object"].as_str(),
                    a["id"].as_u64(),
                    a["uuid"].as_str(),
                    a["name"].as_str(),
                    a["author"].as_str(),
                ) {
                    (Some("egg"), Some(id), Some(uuid), Some(name), Some(author)) => Ok(PteroEgg {
                        id,
                        uuid: uuid.to_owned(),
                        name: name.to_owned(),
                        author: author.to_owned(),
                        nest: nest.clone(),
                        attributes: a.clone(),
                    }),
                    _ => Err(PanelError::Malformed {
                        what: what.clone(),
                        why: format!(
                            "an item is no egg with an id, a uuid, a name and an author: {item}"
                        ),
                    }),
                }
            })
            .collect()
    }

    /// Every egg of a Pterodactyl panel: its nests, then each nest's eggs (at most `in_flight`
    /// requests at once), by nest and id.
    pub async fn pterodactyl_eggs(&self) -> Result<Vec<PteroEgg>, PanelError> {
        let nests = self.nests().await?;
        let lists: Vec<Result<Vec<PteroEgg>, PanelError>> =
            futures_util::stream::iter(nests.iter().map(|n| self.nest_eggs(n)))
                .buffered(self.config.in_flight)
                .collect()
                .await;
        let mut out = Vec::new();
        for list in lists {
            out.extend(list?);
        }
        Ok(out)
    }
}

/// `body` as a Fractal list (`{"object": "list", "data": [...]}`), or why it is not one.
fn list(body: &[u8], what: &str) -> Result<Value, PanelError> {
    let malformed = |why: String| PanelError::Malformed {
        what: what.to_owned(),
        why,
    };
    let v: Value = serde_json::from_slice(body).map_err(|e| malformed(format!("not JSON: {e}")))?;
    if v["object"] != "list" || !v["data"].is_array() {
        return Err(malformed(format!(
            "not a list (`object` is {}, `data` {})",
            v["object"],
            if v["data"].is_array() {
                "a list"
            } else {
                "no list"
            }
        )));
    }
    Ok(v)
}
