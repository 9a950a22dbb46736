//! The application: the catalog being served, and the request pipeline, top to bottom in
//! [`App::handle`]: path, method, query, readiness, document, encoding, conditional, headers.
//!
//! Architecture invariant: the catalog is swapped whole ([`ArcSwapOption`]). A request loads the
//! current snapshot once and answers from it alone, so it never sees a mix of two builds.

use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwapOption;
use bytes::Bytes;
use eggcat_store::{Damaged, Served};
use eggcat_wire::{Report, paths};
use http::header::{self, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;

use crate::answers::{
    Health, HealthStatus, LastRebuild, Ready, ReadyProblem, ReadyProblemCode, ReadyStatus,
    RebuildOutcome, ServedReport,
};
use crate::conditional::{self, Conditions, Outcome};
use crate::encoding::{Coding, choose};
use crate::error::ServerError;
use crate::metrics::{Label, Metrics};
use crate::problem::Problem;
use crate::routes::{Route, no_egg, not_found, route};
use crate::sendfile::{FileBody, SENDFILE_MIN};
use crate::snapshot::{Doc, Held, Snapshot};

/// The response body type.
pub type Body = Full<Bytes>;

/// Settings of the HTTP layer.
#[derive(Debug, Clone)]
pub struct AppOptions {
    /// `Cache-Control` of documents.
    pub cache_control: String,
}

/// The server's state.
#[derive(Debug)]
pub struct App {
    catalog: ArcSwapOption<Snapshot>,
    /// The snapshot as its build made it, before a failed rebuild's note was added to its status.
    as_built: ArcSwapOption<Snapshot>,
    metrics: Metrics,
    /// What `/readyz` reports as degraded: set when a catalog is installed and after a rebuild.
    problems: std::sync::Mutex<Problems>,
    cache_control: HeaderValue,
    openapi: Held,
    /// Woken when a file of the snapshot being served is found damaged: a build repairs it.
    repair: tokio::sync::Notify,
    /// The snapshots to check against their manifests, on one long-lived thread (its memory is
    /// reused from one snapshot to the next); started by the first [`App::install`].
    checker: std::sync::Mutex<Option<std::sync::mpsc::Sender<Arc<Snapshot>>>>,
    started_at: SystemTime,
    started_header: HeaderValue,
}

/// What is wrong with a server that still serves.
#[derive(Debug, Default)]
struct Problems {
    /// The damaged files of the snapshot being served, found when it was loaded.
    damaged: Vec<Damaged>,
    /// The error of the last rebuild, when it failed.
    rebuild_failed: Option<String>,
}

impl Problems {
    /// The problems as `/readyz` lists them.
    fn listed(&self) -> Vec<ReadyProblem> {
        let mut listed = Vec::new();
        if !self.damaged.is_empty() {
            let shown: Vec<String> = self
                .damaged
                .iter()
                .take(5)
                .map(|d| format!("{} ({})", d.path, d.problem))
                .collect();
            let more = self.damaged.len().saturating_sub(shown.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            listed.push(ReadyProblem {
                code: ReadyProblemCode::SnapshotDamaged,
                detail: format!(
                    "{} damaged file(s) not served until the next build: {}{more}",
                    self.damaged.len(),
                    shown.join(", ")
                ),
            });
        }
        if let Some(error) = &self.rebuild_failed {
            listed.push(ReadyProblem {
                code: ReadyProblemCode::RebuildFailed,
                detail: format!("serving the last good catalog: {error}"),
            });
        }
        listed
    }
}

const ALLOW: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");
const JSON: HeaderValue = HeaderValue::from_static("application/json");
const PROBLEM: HeaderValue = HeaderValue::from_static("application/problem+json");
const VARY: HeaderValue = HeaderValue::from_static("Accept-Encoding");
const ANY: HeaderValue = HeaderValue::from_static("*");
const EXPOSE: HeaderValue = HeaderValue::from_static("ETag, Content-Length, Content-Encoding");
const CLOSE: HeaderValue = HeaderValue::from_static("close");
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");
const CSP: HeaderValue = HeaderValue::from_static(paths::CONTENT_SECURITY_POLICY);
const REFERRER: HeaderValue = HeaderValue::from_static("strict-origin-when-cross-origin");

impl App {
    /// A server with no catalog yet (not ready).
    pub fn new(options: &AppOptions) -> Result<Arc<App>, ServerError> {
        let cache_control = HeaderValue::from_str(&options.cache_control)
            .map_err(|_| ServerError::CacheControl(options.cache_control.clone()))?;
        // Whole seconds, as `Last-Modified` carries them, so that `If-Modified-Since` with the
        // value sent matches.
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let started_at = UNIX_EPOCH + std::time::Duration::from_secs(since_epoch.as_secs());
        Ok(Arc::new(App {
            catalog: ArcSwapOption::empty(),
            as_built: ArcSwapOption::empty(),
            metrics: Metrics::new(),
            problems: std::sync::Mutex::default(),
            cache_control,
            openapi: Held::new(crate::openapi::document().to_vec(), "application/json"),
            repair: tokio::sync::Notify::new(),
            checker: std::sync::Mutex::default(),
            started_header: HeaderValue::from_str(&httpdate::fmt_http_date(started_at))
                .expect("dates are ASCII"),
            started_at,
        }))
    }

    /// Serves the snapshot `served` from now on: reads its manifest, not its files (see
    /// [`Snapshot::open`]), and then checks every file against the manifest on the server's one
    /// checking thread. A damaged file is left out (answered 404) and reported in `/readyz`,
    /// `/metrics` and the log, and [`App::damage_found`] wakes; returns how many were found
    /// while opening.
    pub fn install(self: &Arc<Self>, served: &Served) -> Result<usize, ServerError> {
        let (snapshot, damaged) = Snapshot::open(served)?;
        let count = damaged.len();
        let snapshot = self.serve(snapshot, damaged);
        let mut checker = self.checker.lock().expect("checker lock");
        if checker.is_none() {
            *checker = start_checker(Arc::downgrade(self));
        }
        if let Some(to_check) = checker.as_ref() {
            let _ = to_check.send(snapshot);
        }
        Ok(count)
    }

    /// Whether the snapshot `id` is the one installed now, as its build made it.
    fn serving(&self, id: &str) -> bool {
        self.as_built.load().as_ref().is_some_and(|s| s.id == id)
    }

    /// Records files of the snapshot `id` found damaged (when it is still the one served): they
    /// answer 404, `/readyz` says `degraded`, and a build is asked for.
    fn found_damaged(&self, id: &str, found: Vec<Damaged>) {
        if found.is_empty() || !self.serving(id) {
            return;
        }
        let mut problems = self.problems.lock().expect("problems lock");
        for d in found {
            if problems.damaged.iter().any(|known| known.path == d.path) {
                continue;
            }
            tracing::error!(build = %id, path = %d.path, problem = %d.problem, "damaged file in the current snapshot: answered 404 until the next build");
            problems.damaged.push(d);
        }
        self.metrics.set_damaged(problems.damaged.len());
        drop(problems);
        self.repair.notify_one();
    }

    /// Waits until a file of the snapshot being served is found damaged (`serve` then builds
    /// at once, to repair it).
    pub async fn damage_found(&self) {
        self.repair.notified().await;
    }

    /// Serves `snapshot` from now on; `damaged` are the files of its tree left out (the caller
    /// of [`App::install`] learns how many, and builds). Returns it.
    fn serve(&self, snapshot: Snapshot, damaged: Vec<Damaged>) -> Arc<Snapshot> {
        let snapshot = Arc::new(snapshot);
        if !damaged.is_empty() {
            tracing::error!(
                build = %snapshot.id,
                damaged = damaged.len(),
                "serving a damaged catalog: its damaged files answer 404 until the next build"
            );
        }
        self.metrics.set_damaged(damaged.len());
        {
            let mut problems = self.problems.lock().expect("problems lock");
            problems.damaged = damaged;
            // A new catalog's status document says nothing of an earlier failed rebuild.
            problems.rebuild_failed = None;
        }
        let (files, [br, gzip, identity]) = snapshot.payload();
        tracing::info!(
            build = %snapshot.id,
            eggs = snapshot.eggs,
            files,
            identity_bytes = identity,
            br_bytes = br,
            gzip_bytes = gzip,
            "serving catalog"
        );
        self.as_built.store(Some(Arc::clone(&snapshot)));
        // The status document may have said "failed" (with the failure's time) before a restart:
        // its date never goes back past this server's start.
        let served = if snapshot.built_at < self.started_at {
            Arc::new(snapshot.with_status_dated(self.started_at))
        } else {
            Arc::clone(&snapshot)
        };
        self.catalog.store(Some(served));
        snapshot
    }

    /// Records a successful rebuild run by this process (for `/metrics`). After a failed one
    /// that left the catalog as it was (nothing changed upstream), the status document loses its
    /// `lastRebuild` and takes this time as its `Last-Modified`, so that clients polling with
    /// `If-Modified-Since` learn of the recovery as they learnt of the failure.
    pub fn rebuild_succeeded(&self, at_unix_ms: u64) {
        self.metrics.record_build(at_unix_ms, true);
        let failed = self
            .problems
            .lock()
            .expect("problems lock")
            .rebuild_failed
            .take();
        if let (Some(_), Some(as_built)) = (failed, self.as_built.load_full()) {
            let at = UNIX_EPOCH + std::time::Duration::from_secs(at_unix_ms / 1000);
            self.catalog
                .store(Some(Arc::new(as_built.with_status_dated(at))));
        }
    }

    /// Records a failed rebuild: the last good catalog stays, and its status document gains a
    /// `lastRebuild` member saying what failed and when (and takes that time as its
    /// `Last-Modified`, so that clients polling with `If-Modified-Since` see it too).
    pub fn rebuild_failed(&self, error: &str, at_unix_ms: u64) {
        self.metrics.record_build(at_unix_ms, false);
        self.problems.lock().expect("problems lock").rebuild_failed = Some(error.to_owned());
        let Some(as_built) = self.as_built.load_full() else {
            tracing::error!(%error, "build failed: no catalog to serve yet");
            return;
        };
        tracing::error!(%error, "rebuild failed: still serving the last good catalog");
        let Some(Ok(status)) = as_built.read(eggcat_wire::paths::STATUS) else {
            return;
        };
        let Ok(report) = serde_json::from_slice::<Report>(&status) else {
            return;
        };
        let served = ServedReport {
            report,
            last_rebuild: Some(LastRebuild {
                outcome: RebuildOutcome::Failed,
                at: eggcat_wire::rfc3339(at_unix_ms),
                error: error.to_owned(),
            }),
        };
        let body = serde_json::to_vec(&served).expect("a report serializes");
        let at = UNIX_EPOCH + std::time::Duration::from_secs(at_unix_ms / 1000);
        self.catalog
            .store(Some(Arc::new(as_built.with_status(body, at))));
    }

    /// Whether a catalog is loaded.
    pub fn is_ready(&self) -> bool {
        self.catalog.load().is_some()
    }

    /// The snapshot being served.
    pub fn snapshot(&self) -> Option<Arc<Snapshot>> {
        self.catalog.load_full()
    }

    /// Answers one request. Never fails: every error is a problem+json response.
    pub fn handle<B>(&self, req: &Request<B>) -> Response<Body> {
        let started = Instant::now();
        let (label, response) = self.respond(req);
        self.metrics
            .record(label, response.status(), started.elapsed());
        response
    }

    fn respond<B>(&self, req: &Request<B>) -> (Label, Response<Body>) {
        // A client asking for a tunnel may send the tunnel's bytes right after its request: the
        // connection is closed after the answer, so that they are never read as requests.
        if req.method() == Method::CONNECT {
            let problem = Problem::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method CONNECT is not allowed: this server is no proxy, and this API is read-only (GET, HEAD, OPTIONS)",
            );
            let mut r = problem_response(&problem, &instance(req.uri()));
            r.headers_mut().insert(header::CONNECTION, CLOSE);
            return (Label::Unmatched, r);
        }
        let path = req.uri().path();
        // `OPTIONS *` asks about the server as a whole (RFC 9110 section 9.3.7).
        if path == "*" && req.method() == Method::OPTIONS {
            return (Label::Preflight, preflight());
        }
        let route = match route(path) {
            Ok(route) => route,
            Err(problem) => {
                let head = req.method() == Method::HEAD;
                return (
                    Label::Unmatched,
                    finish(problem_response(&problem, path), head),
                );
            }
        };
        let label = route_label(&route);
        // The method before the query: a preflight or a POST is answered for the path, whatever
        // its `fields`.
        let head = match *req.method() {
            Method::GET => false,
            Method::HEAD => true,
            Method::OPTIONS => return (Label::Preflight, preflight()),
            _ => {
                let problem = Problem::new(
                    StatusCode::METHOD_NOT_ALLOWED,
                    format!(
                        "method {} is not allowed: this API is read-only (GET, HEAD, OPTIONS)",
                        req.method()
                    ),
                );
                return (label, problem_response(&problem, path));
            }
        };
        let route = match route.with_query(req.uri().query()) {
            Ok(route) => route,
            // A HEAD gets the problem's headers without its body (found by fuzzing).
            Err(problem) => return (label, finish(problem_response(&problem, path), head)),
        };
        let label = route_label(&route);
        let response = match &route {
            Route::Healthz => small_json(
                StatusCode::OK,
                &Health {
                    status: HealthStatus::Ok,
                },
            ),
            Route::Readyz => self.readyz(path),
            Route::Metrics => {
                let catalog = self
                    .catalog
                    .load()
                    .as_deref()
                    .map(|s| crate::metrics::Catalog {
                        eggs: s.eggs,
                        built: unix_ms(s.built_at) / 1000,
                        images: s.images,
                        downloads: s.downloads,
                        cached: s.cached(),
                    });
                let mut r = Response::new(Full::new(Bytes::from(self.metrics.render(catalog))));
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
                );
                r.headers_mut().insert(header::CACHE_CONTROL, NO_STORE);
                r
            }
            Route::OpenApi => self.document(
                req,
                None,
                &self.openapi.doc(),
                self.started_at,
                &self.started_header,
            ),
            catalog_route => self.catalog_answer(req, catalog_route, path),
        };
        (label, finish(response, head))
    }

    /// `/readyz`: ready, or degraded with what is wrong, once a catalog is served.
    fn readyz(&self, path: &str) -> Response<Body> {
        let Some(s) = self.catalog.load_full() else {
            return not_ready(path);
        };
        let problems = self.problems.lock().expect("problems lock").listed();
        let status = if problems.is_empty() {
            ReadyStatus::Ready
        } else {
            ReadyStatus::Degraded
        };
        let ready = Ready {
            status,
            build: s.id.clone(),
            eggs: s.eggs,
            problems,
        };
        small_json(StatusCode::OK, &ready)
    }

    /// A route answered from the catalog being served: an egg document, a file or a list.
    fn catalog_answer<B>(&self, req: &Request<B>, route: &Route, path: &str) -> Response<Body> {
        let Some(snapshot) = self.catalog.load_full() else {
            return not_ready(path);
        };
        let doc = match route {
            Route::Egg(slug) => snapshot.get(&paths::egg(slug)),
            Route::File { path: file, .. } => snapshot.get(file),
            list => snapshot.get(list.list().expect("the other routes are handled above")),
        };
        let mut response = match doc {
            Some(doc) => {
                let (at, header) = doc
                    .modified()
                    .unwrap_or((snapshot.built_at, &snapshot.last_modified));
                self.document(req, Some(&snapshot), &doc, at, header)
            }
            None => {
                let response = missing(&snapshot, route, req.uri());
                // A browser's path that names nothing gets the catalog's own 404 page; the
                // API's keep their problem document (paths::is_api_path, of the decoded path:
                // `/%61pi/v1/x` is the API's too). The page is looked up only then: the API's
                // 404s, the frequent ones, look nothing more up.
                let page = (response.status() == StatusCode::NOT_FOUND
                    && matches!(route, Route::File { path: file, .. }
                        if !paths::is_api_path(&format!("/{file}"))))
                .then(|| snapshot.get(paths::NOT_FOUND_PAGE))
                .flatten();
                match page {
                    Some(page) => self
                        .not_found_page(req, &snapshot, &page)
                        .unwrap_or(response),
                    None => response,
                }
            }
        };
        // A 304 carries the Cache-Control its 200 would (RFC 9110, section 15.4.5).
        if let Route::File { path: file, .. } = route
            && paths::is_immutable(file)
            && (response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED)
        {
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, IMMUTABLE);
        }
        response
    }

    /// A document of `snapshot` (none: one the server holds), in the coding the client
    /// prefers; 304 when the client's copy is current, 412 when a precondition fails, 404 when
    /// its file is found damaged.
    fn document<B>(
        &self,
        req: &Request<B>,
        snapshot: Option<&Snapshot>,
        doc: &Doc<'_>,
        modified: SystemTime,
        last_modified: &HeaderValue,
    ) -> Response<Body> {
        let headers = req.headers();
        let accept = conditional::list(headers, &header::ACCEPT_ENCODING);
        let accept = accept.as_deref().and_then(|v| std::str::from_utf8(v).ok());
        let coding = choose(accept, doc.available());
        let etag = doc.etag(coding);
        let outcome = Conditions::from_headers(headers).evaluate(etag.as_bytes(), modified);
        let mut response = match outcome {
            Outcome::Failed => {
                let problem = Problem::new(
                    StatusCode::PRECONDITION_FAILED,
                    format!(
                        "If-Match or If-Unmodified-Since does not hold for this document (ETag {}, Last-Modified {})",
                        String::from_utf8_lossy(etag.as_bytes()),
                        String::from_utf8_lossy(last_modified.as_bytes()),
                    ),
                );
                return problem_response(&problem, req.uri().path());
            }
            Outcome::NotModified => {
                let mut r = Response::new(Full::new(Bytes::new()));
                *r.status_mut() = StatusCode::NOT_MODIFIED;
                r
            }
            Outcome::Send => {
                let body = match doc.body(coding) {
                    Ok(body) => body,
                    Err(damaged) => return self.damaged(snapshot, damaged, req.uri().path()),
                };
                // A large body goes from its file (crate::sendfile), when it has one.
                let file = (body.len() >= SENDFILE_MIN)
                    .then(|| doc.file(coding))
                    .flatten()
                    .map(|path| FileBody {
                        body: body.clone(),
                        path,
                    });
                let mut r = Response::new(Full::new(body));
                if let Some(file) = file {
                    r.extensions_mut().insert(file);
                }
                r.headers_mut()
                    .insert(header::CONTENT_TYPE, doc.content_type());
                if coding != Coding::Identity {
                    r.headers_mut().insert(
                        header::CONTENT_ENCODING,
                        HeaderValue::from_static(coding.token()),
                    );
                }
                r
            }
        };
        let h = response.headers_mut();
        if doc.content_type().as_bytes().starts_with(b"text/html") {
            h.insert(header::CONTENT_SECURITY_POLICY, CSP);
            h.insert(header::REFERRER_POLICY, REFERRER);
        }
        h.insert(header::ETAG, etag);
        h.insert(header::LAST_MODIFIED, last_modified.clone());
        h.insert(header::CACHE_CONTROL, self.cache_control.clone());
        response
    }
}

impl App {
    /// The answer for a file of `snapshot` found damaged as it was read: recorded (see
    /// [`App::found_damaged`]), and a 404, never part of the file.
    fn damaged(&self, snapshot: Option<&Snapshot>, damaged: Damaged, path: &str) -> Response<Body> {
        let detail = format!(
            "this file of the catalog is damaged on the server ({}) and is not served until the next build",
            damaged.problem
        );
        if let Some(snapshot) = snapshot {
            self.found_damaged(&snapshot.id, vec![damaged]);
        }
        problem_response(&Problem::new(StatusCode::NOT_FOUND, detail), path)
    }

    /// The HTML 404 page, status 404, in the coding the client prefers. Like the problem
    /// documents it is not cached (`no-store`: the page asked for may exist after the next
    /// build) and has no validators: a 404 is not a representation of the page asked for.
    /// `None` when the page's own file is found damaged.
    fn not_found_page<B>(
        &self,
        req: &Request<B>,
        snapshot: &Snapshot,
        page: &Doc<'_>,
    ) -> Option<Response<Body>> {
        let accept = conditional::list(req.headers(), &header::ACCEPT_ENCODING);
        let accept = accept.as_deref().and_then(|v| std::str::from_utf8(v).ok());
        let coding = choose(accept, page.available());
        let body = match page.body(coding) {
            Ok(body) => body,
            Err(damaged) => {
                self.found_damaged(&snapshot.id, vec![damaged]);
                return None;
            }
        };
        let mut r = Response::new(Full::new(body));
        *r.status_mut() = StatusCode::NOT_FOUND;
        let h = r.headers_mut();
        h.insert(header::CONTENT_TYPE, page.content_type());
        if coding != Coding::Identity {
            h.insert(
                header::CONTENT_ENCODING,
                HeaderValue::from_static(coding.token()),
            );
        }
        h.insert(header::CONTENT_SECURITY_POLICY, CSP);
        h.insert(header::REFERRER_POLICY, REFERRER);
        h.insert(header::CACHE_CONTROL, NO_STORE);
        Some(r)
    }
}

/// Starts the thread that checks each snapshot [`App::install`] opens against its manifest
/// ([`Snapshot::verify`]), stopping a check when its snapshot is no longer served. It ends with
/// the app (its channel closes); `None` when it cannot start: each file is then still checked on
/// its first read.
fn start_checker(app: std::sync::Weak<App>) -> Option<std::sync::mpsc::Sender<Arc<Snapshot>>> {
    let (to_check, queue) = std::sync::mpsc::channel::<Arc<Snapshot>>();
    let check = move || {
        for snapshot in queue {
            let Some(app) = app.upgrade() else { break };
            let found = snapshot.verify(|| app.serving(&snapshot.id));
            app.found_damaged(&snapshot.id, found);
        }
    };
    match std::thread::Builder::new()
        .name("eggcat-check".into())
        .spawn(check)
    {
        Ok(_) => Some(to_check),
        Err(e) => {
            tracing::warn!(error = %e, "cannot start the thread that checks the snapshot's files: each is checked on its first read");
            None
        }
    }
}

/// `Cache-Control` of the files named by their content ([`paths::is_immutable`]).
const IMMUTABLE: HeaderValue = HeaderValue::from_static(paths::IMMUTABLE_CACHE_CONTROL);

fn route_label(route: &Route) -> Label {
    match route {
        // Until its query is read, `/api/v1/eggs` counts as the index.
        Route::Eggs | Route::Index => Label::Index,
        Route::Names => Label::Names,
        Route::Egg(_) => Label::Egg,
        Route::Status => Label::Status,
        Route::OpenApi => Label::OpenApi,
        Route::Healthz => Label::Healthz,
        Route::Readyz => Label::Readyz,
        Route::Metrics => Label::Metrics,
        Route::File { .. } => Label::File,
    }
}

/// The answer for a catalog route with no document: `410 Gone` for a removed egg's paths, a
/// redirect from a path of an earlier eggcat to what replaced it ([`crate::routes::moved`]) or
/// from a folder's path without its `/` to the folder, else 404.
fn missing(snapshot: &Snapshot, route: &Route, uri: &http::Uri) -> Response<Body> {
    let path = uri.path();
    let slug = match route {
        Route::Egg(slug) => Some(slug.as_ref()),
        Route::File { slug, .. } => slug.as_deref(),
        _ => None,
    };
    if let Some(gone) = slug.and_then(|s| snapshot.removed(s)) {
        let problem = Problem::new(
            StatusCode::GONE,
            eggcat_wire::Removed::detail(&gone.slug, &gone.removed_at, &gone.path, &gone.source),
        )
        .with_gone(gone.clone());
        return problem_response(&problem, path);
    }
    match route {
        Route::Egg(slug) => problem_response(&no_egg(slug), path),
        Route::File { path: file, .. } => {
            // A path of an earlier eggcat: a comparison page of two eggs (its comparisons live
            // on the egg's page now) or an egg's `pelican-postgresql.json` (now `pelican.json`),
            // moved for an egg of the catalog; for a slug no egg has, a 404 (as the static
            // hosts' rules answer: they can tell whether the egg's document is there).
            if let Some(location) = crate::routes::moved(path) {
                return match slug {
                    Some(s) if snapshot.has(&eggcat_wire::paths::egg(s)) => redirect(&location),
                    Some(s) => problem_response(&no_egg(s), path),
                    None => problem_response(&not_found(path), path),
                };
            }
            // `/eggs/x` names the folder `/eggs/x/`: send the client there, as static hosts do.
            let folder = format!("{file}/index.html");
            if !file.ends_with("index.html") && snapshot.has(&folder) {
                let target = match uri.query() {
                    Some(q) => format!("{path}/?{q}"),
                    None => format!("{path}/"),
                };
                return redirect(&target);
            }
            problem_response(&not_found(path), path)
        }
        _ => problem_response(
            &Problem::new(StatusCode::NOT_FOUND, "document missing from the catalog"),
            path,
        ),
    }
}

/// A permanent redirect that keeps the method (308).
fn redirect(target: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::PERMANENT_REDIRECT;
    let location = HeaderValue::from_str(target).unwrap_or_else(|_| HeaderValue::from_static("/"));
    r.headers_mut().insert(header::LOCATION, location);
    r.headers_mut().insert(header::CACHE_CONTROL, NO_STORE);
    r
}

/// Headers every answer carries; for HEAD, the body is dropped and its length kept (a 304 has
/// neither, RFC 9110 section 8.6).
fn finish(mut response: Response<Body>, head: bool) -> Response<Body> {
    let h = response.headers_mut();
    h.insert(header::VARY, VARY);
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY);
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSE);
    h.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
    if head {
        if response.status() != StatusCode::NOT_MODIFIED {
            let len = hyper::body::Body::size_hint(response.body())
                .exact()
                .unwrap_or(0);
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
        }
        *response.body_mut() = Full::new(Bytes::new());
        response.extensions_mut().remove::<FileBody>();
    }
    response
}

/// The `400` the HTTP layer gives an HTTP/1.1 request without a `Host` header or with several
/// (RFC 9112, section 3.2: a server MUST; hyper does not check it), answered before the handler
/// and, like hyper's own `400`s, not counted. `None` for every other request.
pub(crate) fn host_problem<B>(req: &Request<B>) -> Option<Response<Body>> {
    if req.version() != http::Version::HTTP_11 {
        return None;
    }
    let detail = match req.headers().get_all(header::HOST).iter().count() {
        1 => return None,
        0 => "an HTTP/1.1 request must have a `Host` header",
        _ => "an HTTP/1.1 request must have one `Host` header, not several",
    };
    let problem = Problem::new(StatusCode::BAD_REQUEST, detail);
    let head = req.method() == Method::HEAD;
    Some(finish(problem_response(&problem, req.uri().path()), head))
}

fn problem_response(problem: &Problem, path: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(problem.body(path))));
    *r.status_mut() = problem.status;
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, PROBLEM);
    h.insert(header::CACHE_CONTROL, NO_STORE);
    if problem.status == StatusCode::METHOD_NOT_ALLOWED {
        h.insert(header::ALLOW, ALLOW);
    }
    if problem.status == StatusCode::SERVICE_UNAVAILABLE {
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    finish(r, false)
}

fn not_ready(path: &str) -> Response<Body> {
    let problem = Problem::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "the first catalog is still being built; try again shortly",
    );
    problem_response(&problem, path)
}

fn small_json(status: StatusCode, body: &impl serde::Serialize) -> Response<Body> {
    let body = serde_json::to_vec(body).expect("a wire type serializes");
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, JSON);
    r.headers_mut().insert(header::CACHE_CONTROL, NO_STORE);
    r
}

/// The `400` for a request head the framing check refused ([`crate::framing`]), target as sent;
/// the connection closes after it. Answered before the handler and, like hyper's own `400`s, not
/// counted.
pub(crate) fn refused(detail: &str, target: &str) -> Response<Body> {
    let problem = Problem::new(StatusCode::BAD_REQUEST, detail);
    let instance = target
        .parse::<http::Uri>()
        .map_or_else(|_| "/".to_owned(), |uri| instance(&uri));
    let mut r = problem_response(&problem, &instance);
    r.headers_mut().insert(header::CONNECTION, CLOSE);
    r
}

/// The `instance` of a problem about a request to `uri`: its path (origin or absolute form),
/// `*` as it is, and for the authority form of `CONNECT` the network-path reference
/// `//host:port` (RFC 3986, section 4.2), never empty.
fn instance(uri: &http::Uri) -> String {
    match (uri.path(), uri.authority()) {
        (path, _) if path.starts_with('/') || path == "*" => path.to_owned(),
        (_, Some(authority)) => format!("//{authority}"),
        _ => "/".to_owned(),
    }
}

/// CORS preflight (and plain OPTIONS): what a browser may do here.
fn preflight() -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    h.insert(header::ALLOW, ALLOW);
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW);
    // `*` allows any request header: this API takes no credentials, so the wildcard applies.
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, ANY);
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("86400"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    finish(r, false)
}

fn unix_ms(t: SystemTime) -> u64 {
    u64::try_from(t.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()).unwrap_or(u64::MAX)
}
