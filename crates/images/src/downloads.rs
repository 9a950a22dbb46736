//! Download health (issue 38): whether each fixed URL the catalog's install scripts fetch still
//! answers, asked through the image checks' machinery (the same options, cache file, budget,
//! per-host concurrency, `Retry-After`, failing hosts and internal-address rule; `run.rs`).
//!
//! Per URL: `HEAD`, redirects followed (each checked like the first); where a host refuses
//! `HEAD` (`400`, `403`, `405`, `501`), a `GET` of the first byte only (`Range: bytes=0-0`, the
//! body never read). `present` only on a `2xx` (or `416`: the file exists, it is empty) after
//! redirects, `missing` only on `404` or `410`, `unknown` for everything else (a timeout, the
//! network down, `5xx`, `429`, `401`), so that an outage never shows as missing.
//!
//! GitHub: `api.github.com` allows 60 anonymous requests an hour, so the questions it answers
//! the same way on `github.com` are asked there (does a repository exist, does it have a
//! latest release, its releases and tags pages; `releases/latest` of a repository without a
//! release leads to its releases page, which answers `200`, and is `missing` as the API's `404`
//! is); any other API URL is asked of the API, with the token in `EGGCAT_GITHUB_TOKEN` when
//! set (read from the environment at each check, never written anywhere). A git repository
//! (`….git`) is asked for its refs (`/info/refs?service=git-upload-pack`), which is what `git
//! clone` asks first. A host's failures are worded as a host's, never as a registry's ("cannot
//! reach `files.example.com`: …", "the host answered 503").

use std::path::Path;

use eggcat_wire::{ImageFinding, ImageStatus};
use reqwest::Method;
use reqwest::header::{LOCATION, RANGE, RETRY_AFTER};
use tokio::time::Instant;

use crate::cache::Cache;
use crate::challenge::retry_after_ms;
use crate::client::{Answer, chain, find_internal, http_client};
use crate::resolve::refused_literal;
use crate::run::{Down, Outcome, Run};
use crate::{ImagesError, Options, millis, unknown};

/// What the hosts said, by URL.
pub type DownloadFindings = std::collections::BTreeMap<String, ImageFinding>;

/// The environment variable a GitHub token for `api.github.com` is read from.
pub const GITHUB_TOKEN_VAR: &str = "EGGCAT_GITHUB_TOKEN";

/// What the hosts say of `urls` (fixed `http(s)` URLs): one finding each. `catalog` is every
/// URL the catalog names, whose answers the cache keeps (the others are dropped); `cache` is
/// the image checks' file, whose `downloads` part is read and written. Never fails.
pub fn check_downloads(
    urls: &[String],
    catalog: &[String],
    options: &Options,
    cache: Option<&Path>,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> DownloadFindings {
    let mut urls = urls.to_vec();
    urls.sort();
    urls.dedup();
    if !options.enabled {
        let off = unknown("not checked: checks are off (`[images] enabled = false`)");
        return urls.into_iter().map(|u| (u, off.clone())).collect();
    }
    let mut stored = cache.map(Cache::load).unwrap_or_default();
    let now = now_ms();
    let mut findings = DownloadFindings::new();
    let mut ask: Vec<(Option<u64>, String, String)> = Vec::new();
    for url in &urls {
        let entry = stored.downloads.get(url);
        match reqwest::Url::parse(url) {
            Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {
                let host = host_of(&parsed);
                if options.skip.contains(&host) {
                    let why = format!("not checked: `{host}` is in `[images] skip`");
                    findings.insert(url.clone(), unknown(&why));
                } else if let Some(e) = entry.filter(|e| e.fresh_download(now, millis(options.ttl)))
                {
                    findings.insert(url.clone(), e.finding());
                } else {
                    ask.push((entry.map(|e| e.checked_at), url.clone(), host));
                }
            }
            _ => {
                findings.insert(url.clone(), unknown("not checked: not an http(s) URL"));
            }
        }
    }
    ask.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let items: Vec<(String, String, String)> = ask
        .into_iter()
        .map(|(_, url, host)| (url.clone(), host, url))
        .collect();
    let asked = items.len();
    let started = std::time::Instant::now();
    let outcomes = ask_all(&items, options, &mut stored, now_ms);
    crate::settle(outcomes, &mut stored.downloads, now_ms(), &mut findings);
    let count = |s: ImageStatus| findings.values().filter(|f| f.status == s).count();
    tracing::info!(
        downloads = findings.len(),
        asked,
        present = count(ImageStatus::Present),
        missing = count(ImageStatus::Missing),
        unknown = count(ImageStatus::Unknown),
        ms = started.elapsed().as_millis() as u64,
        "download checks done"
    );
    if let Some(file) = cache {
        let mut keep: Vec<String> = catalog.iter().chain(&urls).cloned().collect();
        keep.sort();
        keep.dedup();
        stored
            .downloads
            .retain(|u, _| keep.binary_search(u).is_ok());
        if let Err(e) = stored.save(file) {
            tracing::warn!(error = %e, "could not keep the download answers: the next build asks again");
        }
    }
    findings
}

fn ask_all(
    items: &[(String, String, String)],
    options: &Options,
    stored: &mut Cache,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> Vec<(String, Outcome)> {
    if items.is_empty() {
        return Vec::new();
    }
    let wait_until = std::sync::Mutex::new(std::mem::take(&mut stored.wait_until));
    let token = std::env::var(GITHUB_TOKEN_VAR)
        .ok()
        .filter(|t| !t.is_empty());
    let outcomes = crate::block_on_without_waiting(async {
        let deadline = Instant::now() + options.budget;
        let http = match http_client(options, "download checks", false) {
            Ok(c) => c,
            Err(e) => {
                let why = e.to_string();
                return items
                    .iter()
                    .map(|(u, _, _)| {
                        let e = ImagesError::Client(why.clone());
                        (u.clone(), Outcome::Asked(Answer::Unknown(e)))
                    })
                    .collect();
            }
        };
        let asker = Asker {
            http,
            allow_internal: options.allow_internal,
            timeout: options.timeout,
            deadline,
            token,
        };
        let down = Down::default();
        let run = Run {
            concurrency: options.concurrency,
            deadline,
            wait_until: &wait_until,
            down: &down,
            now_ms,
        };
        let outcomes = run.ask_all(items, |url| Box::pin(asker.ask(url))).await;
        down.log("downloads");
        outcomes
    });
    stored.wait_until = wait_until
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    outcomes.unwrap_or_else(|e| {
        items
            .iter()
            .map(|(u, _, _)| {
                let e = ImagesError::Client(e.to_string());
                (u.clone(), Outcome::Asked(Answer::Unknown(e)))
            })
            .collect()
    })
}

/// The host (and port, when not the scheme's) a URL's requests are counted under.
fn host_of(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

/// The URL asked for `url`: GitHub API questions `github.com` answers alike go there, and a git
/// repository is asked for its refs.
pub fn asked_url(url: &str) -> String {
    if let Some(rest) = url.strip_prefix("https://api.github.com/repos/") {
        let parts: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
        let web = match parts.as_slice() {
            [o, r] => Some(format!("https://github.com/{o}/{r}")),
            [o, r, "releases"] => Some(format!("https://github.com/{o}/{r}/releases")),
            [o, r, "releases", "latest"] => {
                Some(format!("https://github.com/{o}/{r}/releases/latest"))
            }
            [o, r, "tags"] => Some(format!("https://github.com/{o}/{r}/tags")),
            _ => None,
        };
        if let Some(web) = web.filter(|_| !rest.contains(['?', '#'])) {
            return web;
        }
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if query.is_empty() && path.ends_with(".git") && !path.ends_with("/.git") {
        return format!("{path}/info/refs?service=git-upload-pack");
    }
    url.to_owned()
}

/// Most redirects followed for one URL.
const MAX_REDIRECTS: usize = 5;

/// What one request answered.
enum Hop {
    /// A status that is not a redirect (or one without a `Location`).
    Status(u16),
    /// A redirect, to this `Location`.
    Location(String),
}

/// Where a redirect from `at` to `location` leads, when it may be followed: an `http(s)` URL
/// whose host is not an internal address written out (a name is checked when it resolves).
fn next_hop(
    at: &reqwest::Url,
    location: &str,
    allow_internal: bool,
) -> Result<reqwest::Url, ImagesError> {
    let next = at.join(location).map_err(|e| {
        ImagesError::Redirect(format!("a redirect to `{location}`, not a URL: {e}"))
    })?;
    if !matches!(next.scheme(), "http" | "https") {
        return Err(ImagesError::Redirect(format!(
            "a redirect to `{next}`, not an http(s) URL"
        )));
    }
    if let Some(why) = refused_literal(&next, allow_internal) {
        return Err(ImagesError::Internal(format!("a redirect to {why}")));
    }
    Ok(next)
}

struct Asker {
    http: reqwest::Client,
    allow_internal: bool,
    timeout: std::time::Duration,
    deadline: Instant,
    token: Option<String>,
}

impl Asker {
    async fn ask(&self, url: &str) -> Answer {
        let target = asked_url(url);
        let via = (target != url).then(|| format!(" (asked as {target})"));
        let answer = match self.send(Method::HEAD, &target).await {
            Ok((s, _)) if [400, 403, 405, 501].contains(&s) => {
                self.send(Method::GET, &target).await
            }
            other => other,
        };
        match answer {
            Ok((s, last)) if (200..300).contains(&s) && no_release(&target, &last) => {
                Answer::Missing(format!(
                    "the repository has no release: `releases/latest` leads to its releases page{}",
                    via.unwrap_or_default()
                ))
            }
            Ok((s, _)) if (200..300).contains(&s) || s == 416 => Answer::Present {
                digest: String::new(),
                platforms: Vec::new(),
                detail: via.map(|v| format!("answered {s}{v}")),
            },
            Ok((s @ (404 | 410), _)) => {
                Answer::Missing(format!("the host answered {s}{}", via.unwrap_or_default()))
            }
            Ok((s, _)) => Answer::Unknown(ImagesError::HostStatus(s)),
            Err(e) => Answer::Unknown(e),
        }
    }

    /// One request; its final status after redirects, followed here (at most
    /// [`MAX_REDIRECTS`]), each hop checked as the first, and the URL that gave it. A failure
    /// past the first hop is the URL's (`ImagesError::Redirect`), never its host's: a redirect
    /// loop, or a host it leads to that is down, must not make the host's other URLs `unknown`
    /// without asking (`run.rs`).
    async fn send(&self, method: Method, url: &str) -> Result<(u16, reqwest::Url), ImagesError> {
        let mut at = reqwest::Url::parse(url)
            .map_err(|e| ImagesError::Redirect(format!("`{url}` is not a URL: {e}")))?;
        for hop in 0..=MAX_REDIRECTS {
            let next = match self.send_one(method.clone(), &at).await {
                Ok(Hop::Status(s)) => return Ok((s, at)),
                Ok(Hop::Location(location)) => next_hop(&at, &location, self.allow_internal),
                Err(e) if hop == 0 => return Err(e),
                Err(e @ (ImagesError::Budget | ImagesError::Internal(_))) => return Err(e),
                Err(e) => Err(ImagesError::Redirect(format!(
                    "a redirect to `{}` failed: {e}",
                    host_of(&at)
                ))),
            };
            at = next?;
        }
        Err(ImagesError::Redirect(format!(
            "cannot follow its redirects: more than {MAX_REDIRECTS}"
        )))
    }

    /// One request, no redirect followed: its status, or where it redirects to.
    async fn send_one(&self, method: Method, url: &reqwest::Url) -> Result<Hop, ImagesError> {
        if let Some(why) = refused_literal(url, self.allow_internal) {
            return Err(ImagesError::Internal(why));
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ImagesError::Budget);
        }
        let mut request = self
            .http
            .request(method.clone(), url.clone())
            .timeout(left.min(self.timeout));
        if method == Method::GET {
            request = request.header(RANGE, "bytes=0-0");
        }
        if let Some(token) = self
            .token
            .as_deref()
            .filter(|_| url.scheme() == "https" && url.host_str() == Some("api.github.com"))
        {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|e| self.failed(url, &e))?;
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(LOCATION)
        {
            let location = location.to_str().unwrap_or_default().to_owned();
            return Ok(Hop::Location(location));
        }
        if matches!(status.as_u16(), 429 | 503) {
            let wait = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry_after_ms(v, crate::client::wall_ms()));
            if let Some(wait_ms) = wait {
                return Err(ImagesError::RetryAfter {
                    host: host_of(url),
                    status: status.as_u16(),
                    wait_ms,
                });
            }
        }
        // The body is never read: dropping the response closes what a GET started.
        drop(response);
        Ok(Hop::Status(status.as_u16()))
    }

    /// The error of a request to `url` that got no answer.
    fn failed(&self, url: &reqwest::Url, e: &reqwest::Error) -> ImagesError {
        if let Some(internal) = find_internal(e) {
            ImagesError::Internal(internal)
        } else if e.is_timeout() && Instant::now() >= self.deadline {
            ImagesError::Budget
        } else if e.is_timeout() {
            ImagesError::Timeout {
                seconds: self.timeout.as_secs(),
            }
        } else {
            ImagesError::Unreachable {
                host: host_of(url),
                reason: chain(e),
            }
        }
    }
}

/// Whether the answer to `asked`, which ended at `last` after its redirects, says a GitHub
/// repository has no release: github.com sends `/O/R/releases/latest` to the latest release's
/// page (`/O/R/releases/tag/T`) when there is one, and to the releases page (`/O/R/releases`,
/// which answers `200`) when there is none, where the API answers `404`. A renamed repository
/// redirects first, so `last` is any repository's releases page.
fn no_release(asked: &str, last: &reqwest::Url) -> bool {
    let on_github = |u: &reqwest::Url| u.host_str() == Some("github.com");
    let segments = |u: &reqwest::Url| -> Vec<String> {
        u.path()
            .trim_matches('/')
            .split('/')
            .map(str::to_owned)
            .collect()
    };
    let Ok(asked) = reqwest::Url::parse(asked) else {
        return false;
    };
    on_github(&asked)
        && on_github(last)
        && matches!(segments(&asked).as_slice(), [_, _, r, l] if r == "releases" && l == "latest")
        && matches!(segments(last).as_slice(), [_, _, r] if r == "releases")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A redirect to an internal address is refused before it is asked. Tested here, not on a
    /// server: with internal addresses refused, the first hop must be a server on an address
    /// that is not internal, and a test can only listen on loopback (no root, no network
    /// namespace, no internet); the refusal of a *name* that resolves inside is the resolver's,
    /// which every hop goes through and the loopback tests show (`tests_downloads.rs`).
    #[test]
    fn a_redirect_is_followed_only_to_an_http_url_outside() {
        let at = reqwest::Url::parse("https://files.example.com/a/b.zip").unwrap();
        let next = |location: &str, allow: bool| next_hop(&at, location, allow);
        assert_eq!(
            next("/c.zip", false).unwrap().as_str(),
            "https://files.example.com/c.zip"
        );
        assert_eq!(
            next("https://cdn.example.net/x", false).unwrap().as_str(),
            "https://cdn.example.net/x"
        );
        for (location, why) in [
            (
                "http://169.254.169.254/latest/meta-data/",
                "a redirect to 169.254.169.254 is an internal address: not asked",
            ),
            (
                "http://localhost:8080/",
                "a redirect to `localhost` is an internal address: not asked",
            ),
            (
                "http://[::ffff:10.0.0.1]/",
                "a redirect to ::ffff:10.0.0.1 is an internal address: not asked",
            ),
        ] {
            match next(location, false) {
                Err(ImagesError::Internal(got)) => assert_eq!(got, why, "{location}"),
                other => panic!("{location}: {other:?}"),
            }
            assert!(next(location, true).is_ok(), "allowed: {location}");
        }
        assert!(matches!(
            next("file:///etc/passwd", true),
            Err(ImagesError::Redirect(_))
        ));
    }

    /// Only github.com's `releases/latest` that ends on a releases page is "no release"; the
    /// loopback test (`tests_downloads.rs`) shows the chain on nginx.
    #[test]
    fn a_latest_release_that_leads_to_the_releases_page_is_no_release() {
        let url = |u: &str| reqwest::Url::parse(u).unwrap();
        let latest = "https://github.com/o/r/releases/latest";
        for (asked, last, none) in [
            (latest, "https://github.com/o/r/releases", true),
            (latest, "https://github.com/o/r/releases/", true),
            (latest, "https://github.com/o2/r2/releases", true),
            (latest, "https://github.com/o/r/releases/tag/v1.0", false),
            (latest, "https://github.com/o/r", false),
            (
                "https://github.com/o/r/releases",
                "https://github.com/o/r/releases",
                false,
            ),
            (
                "https://github.com/o/r/releases/latest/download/x.zip",
                "https://github.com/o/r/releases",
                false,
            ),
            (
                "https://example.org/o/r/releases/latest",
                "https://example.org/o/r/releases",
                false,
            ),
        ] {
            assert_eq!(no_release(asked, &url(last)), none, "{asked} -> {last}");
        }
    }

    #[test]
    fn github_api_questions_go_to_the_web_and_git_repositories_to_their_refs() {
        for (from, to) in [
            (
                "https://api.github.com/repos/o/r/releases/latest",
                "https://github.com/o/r/releases/latest",
            ),
            (
                "https://api.github.com/repos/o/r/releases",
                "https://github.com/o/r/releases",
            ),
            ("https://api.github.com/repos/o/r", "https://github.com/o/r"),
            (
                "https://api.github.com/repos/o/r/contents/a.json",
                "https://api.github.com/repos/o/r/contents/a.json",
            ),
            (
                "https://github.com/o/r.git",
                "https://github.com/o/r.git/info/refs?service=git-upload-pack",
            ),
            ("https://example.org/a.zip", "https://example.org/a.zip"),
        ] {
            assert_eq!(asked_url(from), to, "{from}");
        }
    }
}
