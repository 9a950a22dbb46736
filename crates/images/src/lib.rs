//! Image health: asks each container registry whether the catalog's image references exist and
//! for which platforms, and keeps the answers in `data_dir` (issue 24).
//!
//! An IO crate above the pure ones: the pipeline gives it the catalog's normalized references
//! and hands its [`ImageFindings`] to `catalog::build` as an input, so the documents and pages
//! show them and a changed answer (a tag deleted, with no upstream commit) changes them through
//! the same rules as any other input. `eggcat validate --images` asks through it too, without a
//! cache.
//!
//! An answer is `present` (with its digest and platforms), `missing` (the registry said the
//! name or tag does not exist: `404`) or `unknown` (anything else: timeout, network down, `5xx`,
//! `429`, a refused token). Never is anything but the registry's `404` reported as missing. A
//! definite answer is kept for `ttl`; unknown ones are asked again at the next build. Requests
//! are bounded per registry (`concurrency`), each by `timeout`, and all by `budget`: past it the
//! check returns what it has, and the references it did not reach keep their last answer.

mod cache;
mod challenge;
mod client;
mod downloads;
mod manifest;
mod resolve;
mod run;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_downloads;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use eggcat_wire::ImageReference;
use eggcat_wire::ImageStatus;
pub use eggcat_wire::{ImageFinding, ImageFindings};

use crate::cache::{Cache, Entry};
use crate::client::{Answer, Client};
pub use crate::downloads::{DownloadFindings, GITHUB_TOKEN_VAR, asked_url, check_downloads};
pub use crate::resolve::{Resolution, is_internal};
use crate::run::{Down, Outcome, Run};

/// How images are checked (`[images]` of the configuration; docs/operations.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Whether registries are asked at all; when not, every image is `unknown` ("image checks
    /// are off").
    pub enabled: bool,
    /// How long a definite answer (present, missing) holds before the reference is asked again.
    pub ttl: Duration,
    /// Requests at a time per registry.
    pub concurrency: usize,
    /// Most time one request may take.
    pub timeout: Duration,
    /// Most time one check may take, all registries together.
    pub budget: Duration,
    /// Registries (host, with its port when it has one: `docker.io`, `ghcr.io`) never asked:
    /// their images are `unknown`.
    pub skip: Vec<String>,
    /// Host names resolved as given here instead of by the system's resolver (as curl's
    /// `--resolve`), lower case.
    pub resolve: BTreeMap<String, Resolution>,
    /// Whether internal addresses (loopback, link-local, private, unique-local) may be asked.
    /// Off by default: the eggs decide what is asked (`resolve.rs`).
    pub allow_internal: bool,
    /// A PEM file of certificate authorities trusted besides the system's.
    pub ca_file: Option<PathBuf>,
}

impl Default for Options {
    /// On, 24 h, 4 at a time, 10 s a request, 60 s in all, no registry skipped.
    fn default() -> Options {
        Options {
            enabled: true,
            ttl: Duration::from_secs(24 * 3600),
            concurrency: 4,
            timeout: Duration::from_secs(10),
            budget: Duration::from_secs(60),
            skip: Vec::new(),
            resolve: BTreeMap::new(),
            allow_internal: false,
            ca_file: None,
        }
    }
}

impl Options {
    /// Checks off: what tests and offline tools use.
    pub fn off() -> Options {
        Options {
            enabled: false,
            ..Options::default()
        }
    }
}

/// Why a reference has no definite answer; the `Display` is the `detail` the catalog shows.
#[derive(Debug, thiserror::Error)]
pub enum ImagesError {
    /// The request took longer than `timeout`.
    #[error("no answer within {seconds} s")]
    Timeout {
        /// The timeout.
        seconds: u64,
    },
    /// The registry could not be reached (DNS, connection refused, TLS, cut connection).
    #[error("cannot reach the registry: {0}")]
    Network(String),
    /// A download's host could not be reached (DNS, connection refused, TLS, cut
    /// connection): [`ImagesError::Network`] of a host that is no registry, named.
    #[error("cannot reach `{host}`: {reason}")]
    Unreachable {
        /// The host (and port, when not the scheme's).
        host: String,
        /// What failed.
        reason: String,
    },
    /// An answer that is neither `200` nor `404` (nor one of the others here).
    #[error("the registry answered {0}")]
    Status(u16),
    /// A download's host answered neither a `2xx` nor `404`/`410` (nor one of the others here).
    #[error("the host answered {0}")]
    HostStatus(u16),
    /// `401`/`403` with a token, or without a way to get one.
    #[error(
        "the registry refused anonymous access (a private image, or a name that does not exist)"
    )]
    Refused,
    /// The token service did not give a token.
    #[error("cannot get an anonymous token: {0}")]
    Token(String),
    /// `429`/`503` with `Retry-After`.
    #[error("`{host}` answered {status} and asked to wait {} s", wait_ms / 1000)]
    RetryAfter {
        /// The registry or host (and port, when not the scheme's).
        host: String,
        /// The status.
        status: u16,
        /// How long it asked to wait.
        wait_ms: u64,
    },
    /// The registry or host asked to wait past this check's budget (an earlier
    /// `Retry-After`).
    #[error("not asked: `{host}` asked to wait until {}", eggcat_wire::rfc3339(*until_ms))]
    Waiting {
        /// The registry or host.
        host: String,
        /// Until when (Unix ms).
        until_ms: u64,
    },
    /// Its host failed earlier in this check (a name that does not resolve, a refused
    /// connection, a timeout): not asked again in the same check.
    #[error("not asked: `{host}` failed earlier in this check: {first}")]
    HostDown {
        /// The host (and port).
        host: String,
        /// The first failure's reason.
        first: String,
    },
    /// The host is, or resolves to, an internal address the configuration does not allow.
    #[error("{0}")]
    Internal(String),
    /// A redirect could not be followed (a loop, too many, or a host it leads to that cannot
    /// be reached), or a download's URL cannot be asked at all: an answer about the URL, not
    /// about its host, whose other references are still asked.
    #[error("{0}")]
    Redirect(String),
    /// The check's time budget ran out before this reference or URL was asked.
    #[error("not asked yet: the checks' time budget (`[images] budget`) ran out")]
    Budget,
    /// A manifest or config blob that does not say its platforms.
    #[error("the manifest does not name its platforms")]
    Manifest,
    /// A manifest or blob over 4 MiB.
    #[error("the manifest is larger than 4 MiB")]
    TooLarge,
    /// The HTTP client could not be made (the TLS setup).
    #[error("cannot start the HTTP client: {0}")]
    Client(String),
    /// The cache file could not be written (logged; the answers are still used).
    #[error("cannot write {path}: {source}")]
    Cache {
        /// The file or folder.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// What the registries say of `references` (normalized, as `catalog::images::references` gives
/// them): one finding for each. `cache`, the file of earlier answers (`data_dir/images.json`),
/// is read and written when given; without it every reference is asked. `now_ms` is the clock
/// (Unix ms). Never fails: what cannot be learned is `unknown`.
pub fn check(
    references: &[String],
    options: &Options,
    cache: Option<&Path>,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> ImageFindings {
    check_part(references, references, options, cache, now_ms)
}

/// [`check`] of part of a catalog: asks about `references` only, while the cache keeps the
/// answers of every reference `catalog` names (and drops the others). A build that checks its
/// images in two steps (those of the current snapshot, then those its new eggs add) checks the
/// second step's with the whole catalog here; with only those, the cache would forget every
/// answer of the first and the next build would ask them all again.
pub fn check_part(
    references: &[String],
    catalog: &[String],
    options: &Options,
    cache: Option<&Path>,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> ImageFindings {
    let mut references = references.to_vec();
    references.sort();
    references.dedup();
    if !options.enabled {
        let off = unknown("not checked: image checks are off (`[images] enabled = false`)");
        return references.into_iter().map(|r| (r, off.clone())).collect();
    }
    let mut stored = cache.map(Cache::load).unwrap_or_default();
    let now = now_ms();
    let mut findings = ImageFindings::new();
    let mut ask = Vec::new();
    for text in &references {
        let entry = stored.references.get(text);
        match ImageReference::parse(text) {
            Err(why) => {
                findings.insert(
                    text.clone(),
                    unknown(&format!("not a valid reference: {why}")),
                );
            }
            Ok(r) if options.skip.contains(&r.registry) => {
                let why = format!("not checked: `{}` is in `[images] skip`", r.registry);
                findings.insert(text.clone(), unknown(&why));
            }
            Ok(_) if entry.is_some_and(|e| e.fresh(now, millis(options.ttl))) => {
                let entry = entry.expect("fresh entries exist");
                findings.insert(text.clone(), entry.finding());
            }
            Ok(r) => ask.push((entry.map(|e| e.checked_at), text.clone(), r)),
        }
    }
    // Never asked first, then the longest unasked: a budget too short for the whole catalog
    // reaches every reference over a few builds.
    ask.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let ask: Vec<(String, ImageReference)> = ask.into_iter().map(|(_, t, r)| (t, r)).collect();
    let asked = ask.len();
    let started = std::time::Instant::now();
    let outcomes = ask_all(ask, options, &mut stored, now_ms);
    settle(outcomes, &mut stored.references, now_ms(), &mut findings);
    log_summary(&findings, asked, started.elapsed());
    if let Some(file) = cache {
        let mut keep: Vec<String> = catalog.iter().chain(&references).cloned().collect();
        keep.sort();
        keep.dedup();
        stored.retain(&keep, now);
        if let Err(e) = stored.save(file) {
            tracing::warn!(error = %e, "could not keep the image answers: the next build asks again");
        }
    }
    findings
}

/// Runs the requests on a runtime of this thread; the answers, and the waits registries asked
/// for, go into `stored`.
fn ask_all(
    ask: Vec<(String, ImageReference)>,
    options: &Options,
    stored: &mut Cache,
    now_ms: &(dyn Fn() -> u64 + Sync),
) -> Vec<(String, Outcome)> {
    if ask.is_empty() {
        return Vec::new();
    }
    let wait_until = Mutex::new(std::mem::take(&mut stored.wait_until));
    let names: Vec<String> = ask.iter().map(|(text, _)| text.clone()).collect();
    let outcomes = block_on_without_waiting(async {
        let deadline = tokio::time::Instant::now() + options.budget;
        let client = match Client::new(options, deadline, stored.digests.clone()) {
            Ok(c) => c,
            Err(e) => return failed_all(ask.into_iter().map(|(t, _)| t), &e.to_string()),
        };
        let down = Down::default();
        let run = Run {
            concurrency: options.concurrency,
            deadline,
            wait_until: &wait_until,
            down: &down,
            now_ms,
        };
        let items: Vec<(String, String, ImageReference)> = ask
            .into_iter()
            .map(|(text, r)| (text, r.registry.clone(), r))
            .collect();
        let outcomes = run.ask_all(&items, |r| Box::pin(client.ask(r))).await;
        down.log("images");
        stored.digests = client
            .digests
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        outcomes
    });
    stored.wait_until = wait_until
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    outcomes.unwrap_or_else(|e| failed_all(names.into_iter(), &e.to_string()))
}

/// Runs `future` to its end on a runtime of this thread, then leaves that runtime without
/// waiting for its blocking tasks. Dropping a runtime waits for them, and reqwest resolves
/// host names on one (`getaddrinfo`, which a silent DNS server holds for as long as its
/// resolver's timeouts say): the check would then end when the lookup does, past its budget.
/// A lookup still running ends on its own thread, and nothing waits for its answer.
fn block_on_without_waiting<T>(future: impl std::future::Future<Output = T>) -> std::io::Result<T> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let output = runtime.block_on(future);
    runtime.shutdown_background();
    Ok(output)
}

/// Every reference unknown for one reason: the runtime or the HTTP client could not start.
fn failed_all(references: impl Iterator<Item = String>, why: &str) -> Vec<(String, Outcome)> {
    let unknown = |text| {
        let e = ImagesError::Client(why.to_owned());
        (text, Outcome::Asked(Answer::Unknown(e)))
    };
    references.map(unknown).collect()
}

/// Each outcome of a run (`outcomes`, by reference or URL) into `stored`, the cache's part
/// for that kind, and its finding into `findings`. An answer replaces the entry; a question not
/// asked leaves the last answer standing (it is the latest the host gave), or is `unknown` with
/// why when there was none.
fn settle(
    outcomes: Vec<(String, Outcome)>,
    stored: &mut BTreeMap<String, Entry>,
    now: u64,
    findings: &mut ImageFindings,
) {
    for (key, outcome) in outcomes {
        let previous = stored.get(&key);
        let finding = match outcome {
            Outcome::Asked(answer) => {
                let entry = entry(answer, previous, now);
                let finding = entry.finding();
                stored.insert(key.clone(), entry);
                finding
            }
            Outcome::NotAsked(why) => match previous {
                Some(e) => e.finding(),
                None => unknown(&why.to_string()),
            },
        };
        findings.insert(key, finding);
    }
}

/// The cache entry of an answer given at `now`; `since` carries over when the answer is the
/// previous one.
fn entry(answer: Answer, previous: Option<&Entry>, now: u64) -> Entry {
    let mut entry = match answer {
        Answer::Present {
            digest,
            platforms,
            detail,
        } => Entry {
            status: ImageStatus::Present,
            digest: Some(digest).filter(|d| !d.is_empty()),
            platforms,
            detail,
            since: now,
            checked_at: now,
        },
        Answer::Missing(why) => Entry {
            status: ImageStatus::Missing,
            digest: None,
            platforms: Vec::new(),
            detail: Some(why),
            since: now,
            checked_at: now,
        },
        Answer::Unknown(e) => Entry {
            status: ImageStatus::Unknown,
            digest: None,
            platforms: Vec::new(),
            detail: Some(e.to_string()),
            since: now,
            checked_at: now,
        },
    };
    if let Some(p) = previous.filter(|p| p.same_answer(&entry)) {
        entry.since = p.since;
    }
    entry
}

fn unknown(detail: &str) -> ImageFinding {
    ImageFinding {
        status: ImageStatus::Unknown,
        digest: None,
        platforms: Vec::new(),
        since_ms: None,
        detail: Some(detail.to_owned()),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn log_summary(findings: &ImageFindings, asked: usize, took: Duration) {
    let count = |s: ImageStatus| findings.values().filter(|f| f.status == s).count();
    tracing::info!(
        images = findings.len(),
        asked,
        present = count(ImageStatus::Present),
        missing = count(ImageStatus::Missing),
        unknown = count(ImageStatus::Unknown),
        ms = took.as_millis() as u64,
        "image checks done"
    );
}
