//! The registry client: the few requests of the OCI distribution API (v1.1) an image check
//! needs, over the reqwest eggcat already builds for `object_store` (rustls, the platform's
//! certificates). Per reference: `HEAD /v2/<name>/manifests/<tag or digest>` (Docker Hub does
//! not count `HEAD` against its anonymous pull limit); on `401` with a `Bearer` challenge, an
//! anonymous token for `repository:<name>:pull` from the challenge's realm, then the request
//! again (the token is kept per repository, the challenge per registry, so later references ask
//! for their token first). Only a digest not read before is fetched (`GET` the manifest, and for
//! a single-platform image its config blob) to learn its platforms.
//!
//! Why not the `oci-client` crate: measured on this workspace it adds about 30 crates (oci-spec
//! with derive_builder, getset and strum, a second sha2, chrono's serde, http-auth) and 155 s
//! to a debug build on 2 cores, where this file adds none; and its `fetch_manifest_digest`
//! answers a `404` to `HEAD` with a second request by `GET` (a pull on Docker Hub's count), and
//! its errors do not carry `Retry-After`, which this check must honour (docs/operations.md).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;

use eggcat_wire::ImageReference;
use reqwest::header::{ACCEPT, HeaderMap, RETRY_AFTER, WWW_AUTHENTICATE};
use reqwest::{Method, Response, StatusCode};
use sha2::{Digest, Sha256};
use tokio::time::Instant;

use crate::ImagesError;
use crate::challenge::{Challenge, bearer, retry_after_ms};
use crate::manifest::{self, Manifest};
use crate::resolve::{Internal, Resolver, refused_literal};

/// Manifests and config blobs larger than this are not read (the OCI distribution spec lets
/// registries refuse manifests over 4 MiB).
const MAX_BODY: usize = 4 << 20;

/// What the registry said of one reference.
#[derive(Debug)]
pub(crate) enum Answer {
    /// It has the manifest. `platforms` is empty when they could not be read (`detail` says
    /// why); the reference is then asked again at the next build.
    Present {
        digest: String,
        platforms: Vec<String>,
        detail: Option<String>,
    },
    /// It says the name or tag does not exist.
    Missing(String),
    /// No answer that tells.
    Unknown(ImagesError),
}

/// One client for one check: its HTTP connections, the registries' challenges and the tokens.
#[derive(Debug)]
pub(crate) struct Client {
    http: reqwest::Client,
    /// Whether internal addresses may be asked.
    allow_internal: bool,
    /// Most time one request may take.
    timeout: Duration,
    /// When the check's budget ends: no request runs past it.
    deadline: Instant,
    /// The bearer challenge of each registry that sent one.
    challenges: Mutex<HashMap<String, Challenge>>,
    /// The anonymous token of each `registry/repository`.
    tokens: Mutex<HashMap<String, String>>,
    /// The platforms of each manifest digest read (loaded from the cache, filled as read).
    pub(crate) digests: Mutex<BTreeMap<String, Vec<String>>>,
}

impl Client {
    /// A client whose requests take at most `options.timeout` each and end by `deadline`.
    pub(crate) fn new(
        options: &crate::Options,
        deadline: Instant,
        digests: BTreeMap<String, Vec<String>>,
    ) -> Result<Client, ImagesError> {
        let http = http_client(options, "image checks", true)?;
        Ok(Client {
            http,
            allow_internal: options.allow_internal,
            timeout: options.timeout,
            deadline,
            challenges: Mutex::default(),
            tokens: Mutex::default(),
            digests: Mutex::new(digests),
        })
    }

    /// Asks the registry of `r` whether it has the image, and (for a digest not read before)
    /// for which platforms.
    pub(crate) async fn ask(&self, r: &ImageReference) -> Answer {
        let path = format!("manifests/{}", r.manifest_reference());
        let head = match self.send(Method::HEAD, r, &path).await {
            Ok(head) => head,
            Err(e) => return Answer::Unknown(e),
        };
        match head.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => {
                return Answer::Missing("the registry has no such name or tag (404)".to_owned());
            }
            status => return Answer::Unknown(refusal(&r.registry, status, head.headers())),
        }
        let header = head
            .headers()
            .get("docker-content-digest")
            .and_then(|v| v.to_str().ok())
            .filter(|d| manifest::is_sha256(d))
            .map(str::to_owned);
        // A registry that does not name the digest, or names it in another form than the
        // catalog publishes (another algorithm, upper case, anything odd): the manifest's own
        // bytes do.
        let (digest, body) = match header {
            Some(d) => (d, None),
            None => match self.get(r, &path).await {
                Ok(body) => (format!("sha256:{:x}", Sha256::digest(&body)), Some(body)),
                Err(e) => return present_without_platforms(String::new(), &e),
            },
        };
        if let Some(platforms) = lock(&self.digests).get(&digest) {
            return Answer::Present {
                digest,
                platforms: platforms.clone(),
                detail: None,
            };
        }
        match self.platforms(r, &digest, body).await {
            Ok(platforms) => {
                lock(&self.digests).insert(digest.clone(), platforms.clone());
                Answer::Present {
                    digest,
                    platforms,
                    detail: None,
                }
            }
            Err(e) => present_without_platforms(digest, &e),
        }
    }

    /// The platforms of the manifest `digest` (its bytes, when already read).
    async fn platforms(
        &self,
        r: &ImageReference,
        digest: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Vec<String>, ImagesError> {
        let body = match body {
            Some(b) => b,
            None => self.get(r, &format!("manifests/{digest}")).await?,
        };
        let platforms = match manifest::read(&body) {
            Some(Manifest::Index(platforms)) => platforms,
            Some(Manifest::Platform(p)) => vec![p],
            Some(Manifest::Image { config }) => {
                let blob = self.get(r, &format!("blobs/{config}")).await?;
                manifest::config_platform(&blob).into_iter().collect()
            }
            None => Vec::new(),
        };
        if platforms.is_empty() {
            return Err(ImagesError::Manifest);
        }
        Ok(platforms)
    }

    /// `GET` of a path under the repository; its body, when the answer is `200`.
    async fn get(&self, r: &ImageReference, path: &str) -> Result<Vec<u8>, ImagesError> {
        let response = self.send(Method::GET, r, path).await?;
        if response.status() != StatusCode::OK {
            return Err(refusal(&r.registry, response.status(), response.headers()));
        }
        read_capped(response).await
    }

    /// Sends a request for `path` under `r`'s repository, with the repository's token when
    /// there is one or the registry is known to want one; on a `401` with a bearer challenge,
    /// fetches a token and sends it once more.
    async fn send(
        &self,
        method: Method,
        r: &ImageReference,
        path: &str,
    ) -> Result<Response, ImagesError> {
        let url = format!("{}/v2/{}/{path}", base_url(&r.registry), r.repository);
        let key = format!("{}/{}", r.registry, r.repository);
        let mut token = lock(&self.tokens).get(&key).cloned();
        if token.is_none() {
            let known = lock(&self.challenges).get(&r.registry).cloned();
            if let Some(challenge) = known {
                token = Some(self.token(&challenge, r, &key).await?);
            }
        }
        let response = self.request(method.clone(), &url, token.as_deref()).await?;
        if response.status() != StatusCode::UNAUTHORIZED || token.is_some() {
            return Ok(response);
        }
        let Some(challenge) = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer)
        else {
            return Ok(response);
        };
        lock(&self.challenges).insert(r.registry.clone(), challenge.clone());
        let token = self.token(&challenge, r, &key).await?;
        self.request(method, &url, Some(&token)).await
    }

    /// An anonymous pull token for `r`'s repository from the challenge's realm.
    async fn token(
        &self,
        challenge: &Challenge,
        r: &ImageReference,
        key: &str,
    ) -> Result<String, ImagesError> {
        let mut url = reqwest::Url::parse(&challenge.realm).map_err(|_| {
            ImagesError::Token(format!("the realm `{}` is not a URL", challenge.realm))
        })?;
        if let Some(why) = refused_literal(&url, self.allow_internal) {
            return Err(ImagesError::Internal(format!("the token service: {why}")));
        }
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("scope", &format!("repository:{}:pull", r.repository));
            if let Some(service) = &challenge.service {
                query.append_pair("service", service);
            }
        }
        let response = self
            .http
            .get(url)
            .timeout(self.remaining()?)
            .send()
            .await
            .map_err(|e| self.failed(&e))?;
        if response.status() != StatusCode::OK {
            return Err(ImagesError::Token(format!(
                "the token service answered {}",
                response.status().as_u16()
            )));
        }
        let body = read_capped(response).await?;
        let doc: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|_| ImagesError::Token("the token service's answer is not JSON".into()))?;
        let token = ["token", "access_token"]
            .iter()
            .find_map(|k| doc.get(*k).and_then(serde_json::Value::as_str))
            .filter(|t| !t.is_empty())
            .ok_or_else(|| ImagesError::Token("the token service's answer has no token".into()))?
            .to_owned();
        lock(&self.tokens).insert(key.to_owned(), token.clone());
        Ok(token)
    }

    async fn request(
        &self,
        method: Method,
        url: &str,
        token: Option<&str>,
    ) -> Result<Response, ImagesError> {
        let parsed = reqwest::Url::parse(url).map_err(|e| ImagesError::Network(e.to_string()))?;
        if let Some(why) = refused_literal(&parsed, self.allow_internal) {
            return Err(ImagesError::Internal(why));
        }
        let mut request = self
            .http
            .request(method, parsed)
            .header(ACCEPT, manifest::ACCEPT)
            .timeout(self.remaining()?);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.map_err(|e| self.failed(&e))
    }

    /// The time a request may take now: the per-request timeout, cut at the deadline.
    fn remaining(&self) -> Result<Duration, ImagesError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ImagesError::Budget);
        }
        Ok(left.min(self.timeout))
    }

    fn failed(&self, e: &reqwest::Error) -> ImagesError {
        if let Some(internal) = find_internal(e) {
            ImagesError::Internal(internal)
        } else if e.is_timeout() && Instant::now() >= self.deadline {
            ImagesError::Budget
        } else if let Some(redirect) = redirect_failure(e) {
            redirect
        } else if e.is_timeout() {
            if Instant::now() >= self.deadline {
                ImagesError::Budget
            } else {
                ImagesError::Timeout {
                    seconds: self.timeout.as_secs(),
                }
            }
        } else {
            ImagesError::Network(chain(e))
        }
    }
}

/// The HTTP client of a check: its `User-Agent` names eggcat and `purpose`; names resolve
/// through [`Resolver`] (the overrides, and no internal address unless allowed), every redirect
/// is checked the same way (when `follow`; else redirects are answers, followed by the caller),
/// and the extra CA file is trusted besides the system's roots.
pub(crate) fn http_client(
    options: &crate::Options,
    purpose: &str,
    follow: bool,
) -> Result<reqwest::Client, ImagesError> {
    let allow_internal = options.allow_internal;
    let redirects = reqwest::redirect::Policy::custom(move |attempt| {
        if !follow {
            return attempt.stop();
        }
        if attempt.previous().len() >= 5 {
            return attempt.error("more than 5 redirects");
        }
        match refused_literal(attempt.url(), allow_internal) {
            Some(why) => attempt.error(Internal(format!("a redirect to {why}"))),
            None => attempt.follow(),
        }
    });
    let mut builder = reqwest::Client::builder()
        .user_agent(format!("eggcat/{} ({purpose})", env!("CARGO_PKG_VERSION")))
        .connect_timeout(options.timeout)
        .redirect(redirects)
        .dns_resolver(std::sync::Arc::new(Resolver {
            overrides: options.resolve.clone(),
            allow_internal,
        }));
    if let Some(file) = &options.ca_file {
        let pem = std::fs::read(file).map_err(|e| {
            ImagesError::Client(format!("cannot read the CA file {}: {e}", file.display()))
        })?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
            ImagesError::Client(format!(
                "{} is not a PEM CA file: {}",
                file.display(),
                chain(&e)
            ))
        })?;
        builder = builder.tls_certs_merge(certs);
    }
    builder.build().map_err(|e| ImagesError::Client(chain(&e)))
}

/// The failure of a request whose redirects could not be followed (a loop, too many, one to an
/// address refused is [`find_internal`]'s): it belongs to that URL, so it must not end its
/// host's turn (`run.rs`).
pub(crate) fn redirect_failure(e: &reqwest::Error) -> Option<ImagesError> {
    e.is_redirect()
        .then(|| ImagesError::Redirect(format!("cannot follow its redirects: {}", chain(e))))
}

/// The refusal of an internal address somewhere in an error's causes.
pub(crate) fn find_internal(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(i) = c.downcast_ref::<Internal>() {
            return Some(i.0.clone());
        }
        cause = c.source();
    }
    None
}

/// The image exists (its manifest answered) but its platforms could not be read.
fn present_without_platforms(digest: String, e: &ImagesError) -> Answer {
    Answer::Present {
        digest,
        platforms: Vec::new(),
        detail: Some(format!("platforms not known: {e}")),
    }
}

/// The error of `registry`'s answer that is neither `200` nor `404`: a refusal, a wait, a
/// failure.
fn refusal(registry: &str, status: StatusCode, headers: &HeaderMap) -> ImagesError {
    let wait = headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| retry_after_ms(v, wall_ms()));
    match (status.as_u16(), wait) {
        (429 | 503, Some(wait_ms)) => ImagesError::RetryAfter {
            host: registry.to_owned(),
            status: status.as_u16(),
            wait_ms,
        },
        (401 | 403, _) => ImagesError::Refused,
        (s, _) => ImagesError::Status(s),
    }
}

/// `http://` for a registry on this machine (as Docker treats `127.0.0.0/8` as insecure by
/// default), `https://` for any other.
fn base_url(registry: &str) -> String {
    let host = match registry.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => registry,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match registry {
        "docker.io" => "https://registry-1.docker.io".to_owned(),
        _ if loopback => format!("http://{registry}"),
        _ => format!("https://{registry}"),
    }
}

/// The body, refused past [`MAX_BODY`].
async fn read_capped(mut response: Response) -> Result<Vec<u8>, ImagesError> {
    if response
        .content_length()
        .is_some_and(|n| n > MAX_BODY as u64)
    {
        return Err(ImagesError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| ImagesError::Network(chain(&e)))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(ImagesError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An error's innermost cause, the one that says what happened ("Connection refused (os error
/// 111)", "failed to lookup address information: …"), without the layers above it (reqwest's
/// "error sending request for url (…)", hyper's "client error (Connect)").
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut last = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        last = c.to_string();
        cause = c.source();
    }
    last
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The wall clock in Unix ms, for `Retry-After` dates.
pub(crate) fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registries_on_this_machine_are_asked_over_plain_http() {
        assert_eq!(base_url("127.0.0.1:5000"), "http://127.0.0.1:5000");
        assert_eq!(base_url("localhost:5000"), "http://localhost:5000");
        assert_eq!(base_url("[::1]:5000"), "http://[::1]:5000");
        assert_eq!(base_url("ghcr.io"), "https://ghcr.io");
        assert_eq!(base_url("127.evil.example"), "https://127.evil.example");
        assert_eq!(base_url("docker.io"), "https://registry-1.docker.io");
    }
}
