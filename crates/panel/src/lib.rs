//! The client of a Pelican panel's application API that `eggcat panel` uses (issue 37): list the
//! panel's eggs with the servers that use each (`GET /api/application/eggs?include=servers`, one
//! request) and export each (`GET /api/application/eggs/{id}/export?format=json`), as Pelican
//! answers them (its routes, `EggTransformer` with its includes and the `{"object",
//! "attributes"}` envelope, `app/Exceptions/Handler.php`'s error bodies;
//! `../shared/panels-src/pelican-api/`).
//!
//! IO, above the pure crates: what the answers mean for the catalog (`eggcat_panels::standing`)
//! is not decided here. Safe by default: https only (plain http to a loopback address only, for
//! tests and a panel on the same host), certificates verified against the platform's roots and,
//! when given, the panel's own CA; a time limit on every request; at most `in_flight` requests
//! at once; the key read from an environment variable or a file, sent only as the bearer token
//! and never shown (its `Debug` says `<redacted>`, no error message holds it). A refused key is
//! told apart from a panel that fails: 401, 403 (with the permission the route needs, from
//! Pelican's `AdminAcl`, and Pelican's own words), 429 (with `Retry-After`), 5xx, a time-out,
//! each its own [`PanelError`], never an answer.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod backups;
pub mod pterodactyl;
pub mod pterodactyl_status;
pub mod status;
pub mod update;

use futures_util::StreamExt;
use serde_json::Value;

/// The application API key, kept out of every `Debug` and message.
#[derive(Clone)]
pub struct Key(String);

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(<redacted>)")
    }
}

impl Key {
    /// The key in the environment variable `var`.
    pub fn from_env(var: &str) -> Result<Key, PanelError> {
        let value = std::env::var(var)
            .map_err(|_| PanelError::Config(format!("the environment variable {var} is not set (it holds the panel's application API key)")))?;
        Key::new(value, &format!("the environment variable {var}"))
    }

    /// The key in the file at `path` (its first line; surrounding spaces and the line break
    /// aside).
    pub fn from_file(path: &Path) -> Result<Key, PanelError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            PanelError::Config(format!("cannot read the key file {}: {e}", path.display()))
        })?;
        let first = text.lines().next().unwrap_or("").to_owned();
        Key::new(first, &format!("the key file {}", path.display()))
    }

    fn new(value: String, from: &str) -> Result<Key, PanelError> {
        let value = value.trim().to_owned();
        if value.is_empty() {
            return Err(PanelError::Config(format!(
                "{from} is empty: it should hold the panel's application API key"
            )));
        }
        if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(PanelError::Config(format!(
                "{from} does not hold one key (it has spaces or control characters)"
            )));
        }
        Ok(Key(value))
    }
}

/// Where the panel is and how to talk to it.
#[derive(Debug, Clone)]
pub struct Config {
    /// The panel's address (`https://panel.example.org`), without `/api/...`.
    pub url: String,
    pub key: Key,
    /// A PEM file of the CA the panel's certificate comes from, trusted besides the platform's.
    pub ca_file: Option<PathBuf>,
    /// Most time one request may take, connecting included.
    pub timeout: Duration,
    /// Requests at once, at most.
    pub in_flight: usize,
    /// The longest wait a panel's `429` may ask (`Retry-After`) that the client waits out and
    /// then sends the request again (at most [`RETRIES`] times); a longer one, or none, is an
    /// error. Zero: never wait.
    pub wait_limit: Duration,
}

/// How many times one request is sent again after a `429` that asked to wait.
pub const RETRIES: usize = 10;

impl Config {
    /// A config with the defaults: 30 s a request, 4 requests at once, a `429`'s wait of up to
    /// 60 s waited out (Pelican's default limit is 256 requests a minute per user: a panel with
    /// more eggs than that answers `429` part way, and its `Retry-After` is at most a minute).
    pub fn new(url: &str, key: Key) -> Config {
        Config {
            url: url.trim_end_matches('/').to_owned(),
            key,
            ca_file: None,
            timeout: Duration::from_secs(30),
            in_flight: 4,
            wait_limit: Duration::from_secs(60),
        }
    }
}

/// What went wrong, in words an admin can act on. Never holds the key.
#[derive(Debug, thiserror::Error)]
pub enum PanelError {
    #[error("{0}")]
    Config(String),
    #[error(
        "the panel refused the key (401 {code}: {detail}): check the key, or create an application API key in the panel's admin area"
    )]
    Unauthenticated { code: String, detail: String },
    #[error(
        "the key may not {needs} (403 {code}: {detail}): give the application API key the permission \"{permission}\" in the panel (AdminAcl)"
    )]
    Forbidden {
        /// What the route does (`list the eggs`, `export an egg`, `import an egg`).
        needs: String,
        /// The permission it needs, as Pelican's key form names it (`Eggs: Read`).
        permission: String,
        code: String,
        detail: String,
    },
    #[error("the panel has no {what} (404 {code}: {detail})")]
    NotFound {
        what: String,
        code: String,
        detail: String,
    },
    #[error("the panel asks to slow down (429 {detail}){}", retry_after.map(|s| format!(": try again in {s} s")).unwrap_or_default())]
    RateLimited {
        detail: String,
        retry_after: Option<u64>,
    },
    #[error("the panel failed ({status} {code}: {detail})")]
    Server {
        status: u16,
        code: String,
        detail: String,
    },
    #[error("the panel answered {status} to {what} ({code}: {detail})")]
    Unexpected {
        what: String,
        status: u16,
        code: String,
        detail: String,
    },
    #[error("the panel did not answer within {0:?}")]
    Timeout(Duration),
    #[error("cannot reach the panel: {0}")]
    Transport(String),
    #[error("the panel's answer to {what} is not an answer of its application API: {why}")]
    Malformed { what: String, why: String },
}

/// One egg as the panel lists it (`EggTransformer`'s attributes that `status` needs).
#[derive(Debug, Clone, PartialEq)]
pub struct PanelEgg {
    pub id: u64,
    pub uuid: String,
    pub name: String,
    /// The servers that use it, as far as the key may tell.
    pub servers: Servers,
    /// Every attribute, as the panel sent them (the `relationships` of the include too).
    pub attributes: Value,
}

/// The servers that use an egg, from the `servers` include of the list of eggs.
#[derive(Debug, Clone, PartialEq)]
pub enum Servers {
    /// Every server of the egg (none is a known zero).
    Known(Vec<PanelServer>),
    /// Not known: the key may not read servers. Pelican's `EggTransformer::includeServers`
    /// asks `BaseTransformer::authorize` for the `server` resource (`AdminAcl::READ` of an
    /// application key, root admin for an account key) and answers a null resource without it
    /// (`{"object": "null_resource", "attributes": null}`), never an error and never a list.
    NotPermitted,
}

/// The permission a key needs for the servers of an egg to be known, as the panel's key form
/// names it (the `server` resource of `AdminAcl`, read).
pub const SERVERS_READ: &str = "Servers: Read";

/// One server that uses an egg (`ServerTransformer`'s attributes that eggcat shows).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PanelServer {
    pub id: u64,
    pub uuid: String,
    pub name: String,
}

impl Servers {
    /// The servers as the reports give them: `[{"id", "uuid", "name"}]`, or `null` when not
    /// known.
    pub fn to_json(&self) -> Value {
        match self {
            Servers::Known(list) => list
                .iter()
                .map(|s| serde_json::json!({"id": s.id, "uuid": s.uuid, "name": s.name}))
                .collect(),
            Servers::NotPermitted => Value::Null,
        }
    }
}

/// How many servers use an egg and which, in the reports' words, from a report's `servers`
/// (`[{"id", "uuid", "name"}]`, or `null` when not known): "3 servers use this egg: A (id 4),
/// ..." (the first ten named), "no server uses this egg", or that they are not known and why.
pub fn servers_in_words(servers: &Value) -> String {
    const NAMED: usize = 10;
    let Some(list) = servers.as_array() else {
        return format!(
            "the servers that use this egg are not known (the key may not read servers: \"{SERVERS_READ}\")"
        );
    };
    let mut names: Vec<String> = list
        .iter()
        .take(NAMED)
        .map(|s| format!("{} (id {})", s["name"].as_str().unwrap_or(""), s["id"]))
        .collect();
    if list.len() > NAMED {
        names.push(format!("and {} more", list.len() - NAMED));
    }
    match list.len() {
        0 => "no server uses this egg".to_owned(),
        1 => format!("1 server uses this egg: {}", names.join(", ")),
        n => format!("{n} servers use this egg: {}", names.join(", ")),
    }
}

/// Why the servers of the eggs are not known, in the reports' words (naming the permission).
pub fn servers_not_known_why() -> String {
    format!(
        "the servers that use each egg are not known: the key may not read servers (Pelican answers the list of eggs without them); give the application API key the permission \"{SERVERS_READ}\" to see them"
    )
}

/// A client of one panel.
#[derive(Debug)]
pub struct Client {
    http: reqwest::Client,
    config: Config,
}

/// The routes `eggcat panel` uses, with what each does and the key permission Pelican's request
/// classes ask for it (`app/Http/Requests/Api/Application/Eggs/*`: `AdminAcl::READ` on `egg`).
const LIST: (&str, &str) = ("list the eggs", "Eggs: Read");
const EXPORT: (&str, &str) = ("export an egg", "Eggs: Read");
/// `ImportEggRequest`: `AdminAcl::WRITE` on `egg`.
const IMPORT: (&str, &str) = ("import an egg", "Eggs: Write");

impl Client {
    /// A client for `config`: refuses a URL that is not https (plain http only to a loopback
    /// address), and a CA file that is not PEM.
    pub fn new(config: Config) -> Result<Client, PanelError> {
        check_url(&config.url)?;
        if config.in_flight == 0 {
            return Err(PanelError::Config(
                "at least one request must be allowed in flight".to_owned(),
            ));
        }
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!(
                "eggcat/",
                env!("CARGO_PKG_VERSION"),
                " (eggcat panel)"
            ))
            .connect_timeout(config.timeout)
            .timeout(config.timeout)
            // A panel that redirects is not followed: the key would go with the request.
            .redirect(reqwest::redirect::Policy::none());
        if let Some(path) = &config.ca_file {
            let pem = std::fs::read(path).map_err(|e| {
                PanelError::Config(format!("cannot read the CA file {}: {e}", path.display()))
            })?;
            let not_pem = |why: String| {
                PanelError::Config(format!(
                    "the CA file {} is not a PEM certificate: {why}",
                    path.display()
                ))
            };
            let certs =
                reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| not_pem(e.to_string()))?;
            if certs.is_empty() || !pem.windows(27).any(|w| w == b"-----BEGIN CERTIFICATE-----") {
                return Err(not_pem("no `BEGIN CERTIFICATE` block".to_owned()));
            }
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        let http = builder
            .build()
            .map_err(|e| PanelError::Config(format!("cannot make an HTTPS client: {e}")))?;
        Ok(Client { http, config })
    }

    /// The panel's address, as configured (no key in it).
    pub fn url(&self) -> &str {
        &self.config.url
    }

    /// Every egg on the panel, each with the servers that use it (the `servers` include, in the
    /// same request).
    pub async fn eggs(&self) -> Result<Vec<PanelEgg>, PanelError> {
        let body = self
            .get("/api/application/eggs?include=servers", LIST)
            .await?;
        let what = || "the list of eggs".to_owned();
        let list: Value = serde_json::from_slice(&body).map_err(|e| PanelError::Malformed {
            what: what(),
            why: format!("not JSON: {e}"),
        })?;
        if list["object"] != "list" {
            return Err(PanelError::Malformed {
                what: what(),
                why: format!("`object` is {}, not \"list\"", list["object"]),
            });
        }
        list["data"]
            .as_array()
            .ok_or_else(|| PanelError::Malformed {
                what: what(),
                why: "no `data` list".to_owned(),
            })?
            .iter()
            .map(|item| {
                let a = &item["attributes"];
                match (
                    item["object"].as_str(),
                    a["id"].as_u64(),
                    a["uuid"].as_str(),
                    a["name"].as_str(),
                ) {
                    (Some("egg"), Some(id), Some(uuid), Some(name)) => Ok(PanelEgg {
                        id,
                        uuid: uuid.to_owned(),
                        name: name.to_owned(),
                        servers: servers(&a["relationships"]["servers"]).map_err(|why| {
                            PanelError::Malformed {
                                what: what(),
                                why: format!("egg {id}: {why}"),
                            }
                        })?,
                        attributes: a.clone(),
                    }),
                    _ => Err(PanelError::Malformed {
                        what: what(),
                        why: format!("an item is no egg with an id, a uuid and a name: {item}"),
                    }),
                }
            })
            .collect()
    }

    /// The panel's JSON export of egg `id` (`EggExporterService`), decoded.
    pub async fn export(&self, id: u64) -> Result<Value, PanelError> {
        let body = self
            .get(
                &format!("/api/application/eggs/{id}/export?format=json"),
                EXPORT,
            )
            .await?;
        serde_json::from_slice(&body).map_err(|e| PanelError::Malformed {
            what: format!("the export of egg {id}"),
            why: format!("not JSON: {e}"),
        })
    }

    /// The panel's JSON export of egg `id` as it sent it (what a backup keeps), and decoded.
    pub async fn export_raw(&self, id: u64) -> Result<(Vec<u8>, Value), PanelError> {
        let body = self
            .get(
                &format!("/api/application/eggs/{id}/export?format=json"),
                EXPORT,
            )
            .await?;
        let value = serde_json::from_slice(&body).map_err(|e| PanelError::Malformed {
            what: format!("the export of egg {id}"),
            why: format!("not JSON: {e}"),
        })?;
        Ok((body, value))
    }

    /// Imports `file` through Pelican's own import endpoint (`POST
    /// /api/application/eggs/import`, `EggImporterService::fromContent`), which updates the egg
    /// with the file's `uuid` in place (or makes one). The body is YAML, as the endpoint reads
    /// it unless told otherwise (`eggcat_panels::yaml::dump`, held to Symfony's parser: it reads
    /// back exactly `file`). The id of the egg the panel then holds.
    pub async fn import(&self, file: &Value) -> Result<u64, PanelError> {
        let body = eggcat_panels::yaml::dump(file);
        let answer = self
            .send(
                self.http
                    .post(format!("{}/api/application/eggs/import", self.config.url))
                    .header("Content-Type", "application/yaml")
                    .body(body),
                IMPORT,
                201,
            )
            .await?;
        let v: Value = serde_json::from_slice(&answer).map_err(|e| PanelError::Malformed {
            what: "the answer to an import".to_owned(),
            why: format!("not JSON: {e}"),
        })?;
        v["attributes"]["id"]
            .as_u64()
            .ok_or_else(|| PanelError::Malformed {
                what: "the answer to an import".to_owned(),
                why: format!("no egg with an id: {v}"),
            })
    }

    /// The exports of `ids`, at most `in_flight` at once, in the order of `ids`; each its own
    /// result (one egg's failure is not another's).
    pub async fn exports(&self, ids: &[u64]) -> Vec<Result<Value, PanelError>> {
        futures_util::stream::iter(ids.iter().map(|&id| self.export(id)))
            .buffered(self.config.in_flight)
            .collect()
            .await
    }

    async fn get(&self, path: &str, route: (&str, &str)) -> Result<Vec<u8>, PanelError> {
        let url = format!("{}{path}", self.config.url);
        self.send(self.http.get(&url), route, 200).await
    }

    /// Sends `request` with the key, and reads the answer: its body when the status is `ok`,
    /// else the error it means.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        (needs, permission): (&str, &str),
        ok: u16,
    ) -> Result<Vec<u8>, PanelError> {
        let request = request
            .header("Accept", "application/json")
            .bearer_auth(&self.config.key.0);
        let mut retries = 0;
        let (status, retry_after, response) = loop {
            // A request with a body of bytes can always be cloned.
            let attempt = request
                .try_clone()
                .expect("a request that can be sent again");
            let response = attempt.send().await.map_err(|e| self.transport(&e))?;
            let status = response.status().as_u16();
            let retry_after: Option<u64> = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok());
            // A throttled request never reached the controller (the throttle is middleware
            // before it), so sending it again, an import too, does it once.
            match retry_after {
                Some(wait)
                    if status == 429
                        && retries < RETRIES
                        && !self.config.wait_limit.is_zero()
                        && Duration::from_secs(wait) <= self.config.wait_limit =>
                {
                    retries += 1;
                    tokio::time::sleep(Duration::from_secs(wait.max(1))).await;
                }
                _ => break (status, retry_after, response),
            }
        };
        let body = response
            .bytes()
            .await
            .map_err(|e| self.transport(&e))?
            .to_vec();
        if status == ok {
            return Ok(body);
        }
        let (code, detail) = pelican_error(&body);
        Err(match status {
            401 => PanelError::Unauthenticated { code, detail },
            403 => PanelError::Forbidden {
                needs: needs.to_owned(),
                permission: permission.to_owned(),
                code,
                detail,
            },
            404 => PanelError::NotFound {
                what: if needs == EXPORT.0 {
                    "such egg".to_owned()
                } else {
                    "application API here (is the URL the panel's?)".to_owned()
                },
                code,
                detail,
            },
            429 => PanelError::RateLimited {
                detail,
                retry_after,
            },
            500..=599 => PanelError::Server {
                status,
                code,
                detail,
            },
            _ => PanelError::Unexpected {
                what: needs.to_owned(),
                status,
                code,
                detail,
            },
        })
    }

    fn transport(&self, e: &reqwest::Error) -> PanelError {
        if e.is_timeout() {
            return PanelError::Timeout(self.config.timeout);
        }
        // The URL is the panel's (no key in it); the chain names the cause.
        let mut text = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        PanelError::Transport(text)
    }
}

/// The `servers` include of one egg (PanelSerializer's envelope): a list of `server` items, or
/// the null resource a key without server read gets. Anything else (no include at all, an item
/// without an id, a uuid and a name) is no answer of Pelican's, and says why.
fn servers(include: &Value) -> Result<Servers, String> {
    match include["object"].as_str() {
        Some("null_resource") => Ok(Servers::NotPermitted),
        Some("list") => {
            let items = include["data"]
                .as_array()
                .ok_or("the servers include has no `data` list")?;
            let mut list = items
                .iter()
                .map(|item| {
                    let a = &item["attributes"];
                    match (
                        item["object"].as_str(),
                        a["id"].as_u64(),
                        a["uuid"].as_str(),
                        a["name"].as_str(),
                    ) {
                        (Some("server"), Some(id), Some(uuid), Some(name)) => Ok(PanelServer {
                            id,
                            uuid: uuid.to_owned(),
                            name: name.to_owned(),
                        }),
                        _ => Err(format!(
                            "a server is no server with an id, a uuid and a name: {item}"
                        )),
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            list.sort_by_key(|s| s.id);
            Ok(Servers::Known(list))
        }
        _ => Err(format!(
            "no servers include (`relationships.servers`), which Pelican sends when asked: {include}"
        )),
    }
}

/// The first error of Pelican's error body (`{"errors": [{"code", "status", "detail"}]}`), or
/// the start of what came instead.
fn pelican_error(body: &[u8]) -> (String, String) {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    match parsed.as_ref().map(|v| &v["errors"][0]) {
        Some(e) if e["code"].is_string() => (
            e["code"].as_str().unwrap_or_default().to_owned(),
            e["detail"].as_str().unwrap_or_default().to_owned(),
        ),
        _ => {
            let text = String::from_utf8_lossy(body);
            let start: String = text.chars().take(200).collect();
            ("no Pelican error body".to_owned(), start)
        }
    }
}

/// https, or http to a loopback address; no credentials, query or fragment in it.
pub(crate) fn check_url(url: &str) -> Result<(), PanelError> {
    // The URL as shown: without what might be a secret typed into it (credentials, a query).
    let shown = {
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
        let rest = rest.split(['?', '#']).next().unwrap_or(rest);
        if scheme.is_empty() {
            rest.to_owned()
        } else {
            format!("{scheme}://{rest}")
        }
    };
    let bad = |why: &str| Err(PanelError::Config(format!("the panel URL {shown:?} {why}")));
    let Some((scheme, rest)) = url.split_once("://") else {
        return bad("is not an absolute URL (https://panel.example.org)");
    };
    let authority = rest.split('/').next().unwrap_or("");
    if authority.is_empty() {
        return bad("has no host");
    }
    if authority.contains('@') || url.contains('?') || url.contains('#') {
        return bad(
            "must not hold credentials, a query or a fragment (the key goes in --key-env or --key-file)",
        );
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.split(':').next().unwrap_or(""),
    };
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        "http" => bad(
            "is plain http: the key and the eggs would cross the network unencrypted; use https (plain http only to a loopback address)",
        ),
        _ => bad("is neither https nor http"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_only_but_loopback() {
        for ok in [
            "https://panel.example.org",
            "https://panel.example.org:8443/sub",
            "http://127.0.0.1:8080",
            "http://[::1]:80",
            "http://localhost",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        // What might be a key typed into the URL is never repeated.
        for secret in [
            "https://ptla_secret:pw@panel.example.org",
            "https://panel.example.org/?key=ptla_secret",
        ] {
            let said = check_url(secret).unwrap_err().to_string();
            assert!(!said.contains("ptla_secret"), "{said}");
            assert!(said.contains("panel.example.org"), "{said}");
        }
        for bad in [
            "http://panel.example.org",
            "http://10.0.0.1",
            "ftp://panel.example.org",
            "panel.example.org",
            "https://user:pw@panel.example.org",
            "https://panel.example.org/?x=1",
            "https://",
        ] {
            assert!(
                matches!(check_url(bad), Err(PanelError::Config(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_key_is_never_shown() {
        let key = Key::new("ptla_secretsecret".to_owned(), "test").unwrap();
        assert_eq!(format!("{key:?}"), "Key(<redacted>)");
        let config = Config::new("https://panel.example.org", key);
        assert!(!format!("{config:?}").contains("secret"));
        assert!(Key::new("  ".to_owned(), "the file k").is_err());
        assert!(Key::new("two words".to_owned(), "the file k").is_err());
    }
}
