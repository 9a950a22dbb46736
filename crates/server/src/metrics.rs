//! Prometheus metrics (text exposition format 0.0.4): requests by route and status, a latency
//! histogram, the catalog's size, its images by what their registries said, and the last
//! build's time and outcome.
//!
//! Every counter is a fixed atomic: recording a request takes no lock and allocates nothing.

use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use http::StatusCode;

/// The route label of a request in `eggcat_http_requests_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Label {
    Index,
    Names,
    Egg,
    Status,
    OpenApi,
    Healthz,
    Readyz,
    Metrics,
    Preflight,
    Unmatched,
    File,
}

/// Label values, indexed by [`Label`].
const ROUTES: [&str; 11] = [
    "index",
    "names",
    "egg",
    "status",
    "openapi",
    "healthz",
    "readyz",
    "metrics",
    "preflight",
    "unmatched",
    "file",
];

/// The statuses this server answers with; anything else (hyper's own 431, ...) never reaches the
/// handler.
const STATUSES: [u16; 10] = [200, 204, 304, 308, 400, 404, 405, 410, 412, 503];

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 10] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.05, 0.25,
];

/// What the metrics say of the catalog being served.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Catalog {
    /// Eggs in it.
    pub(crate) eggs: usize,
    /// When it was built (Unix s).
    pub(crate) built: u64,
    /// Its distinct image references present, missing and unknown.
    pub(crate) images: [usize; 3],
    /// Its distinct download URLs present, missing, unknown and not checkable.
    pub(crate) downloads: [usize; 4],
    /// Bytes of its bodies held in memory ([`crate::bodies`]).
    pub(crate) cached: u64,
}

/// All metrics of one server.
#[derive(Debug)]
pub(crate) struct Metrics {
    requests: [[AtomicU64; STATUSES.len()]; ROUTES.len()],
    buckets: [AtomicU64; BUCKETS.len()],
    latency_count: AtomicU64,
    latency_sum_ns: AtomicU64,
    builds_ok: AtomicU64,
    builds_failed: AtomicU64,
    last_build: Mutex<Option<(u64, bool)>>,
    damaged_files: AtomicU64,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        Metrics {
            requests: Default::default(),
            buckets: Default::default(),
            latency_count: AtomicU64::new(0),
            latency_sum_ns: AtomicU64::new(0),
            builds_ok: AtomicU64::new(0),
            builds_failed: AtomicU64::new(0),
            last_build: Mutex::new(None),
            damaged_files: AtomicU64::new(0),
        }
    }

    /// Records how many files of the snapshot being served were found damaged when it loaded.
    pub(crate) fn set_damaged(&self, files: usize) {
        self.damaged_files.store(files as u64, Relaxed);
    }

    /// Counts one answered request.
    pub(crate) fn record(&self, label: Label, status: StatusCode, took: Duration) {
        if let Some(s) = STATUSES.iter().position(|&c| c == status.as_u16()) {
            self.requests[label as usize][s].fetch_add(1, Relaxed);
        }
        let secs = took.as_secs_f64();
        if let Some(b) = BUCKETS.iter().position(|&le| secs <= le) {
            self.buckets[b].fetch_add(1, Relaxed);
        }
        self.latency_count.fetch_add(1, Relaxed);
        self.latency_sum_ns
            .fetch_add(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX), Relaxed);
    }

    /// Records the outcome of a build run by this process, at `unix_ms`.
    pub(crate) fn record_build(&self, unix_ms: u64, ok: bool) {
        if ok {
            &self.builds_ok
        } else {
            &self.builds_failed
        }
        .fetch_add(1, Relaxed);
        *self.last_build.lock().expect("metrics lock") = Some((unix_ms, ok));
    }

    /// The exposition text; `catalog` is the catalog being served, if any.
    pub(crate) fn render(&self, catalog: Option<Catalog>) -> String {
        let mut o = String::with_capacity(4096);
        o.push_str(
            "# HELP eggcat_http_requests_total HTTP requests answered, by route and status.\n",
        );
        o.push_str("# TYPE eggcat_http_requests_total counter\n");
        for (r, route) in ROUTES.iter().enumerate() {
            for (s, status) in STATUSES.iter().enumerate() {
                let n = self.requests[r][s].load(Relaxed);
                if n > 0 {
                    let _ = writeln!(
                        o,
                        "eggcat_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                    );
                }
            }
        }
        o.push_str("# HELP eggcat_http_request_duration_seconds Time to answer a request, in the handler.\n");
        o.push_str("# TYPE eggcat_http_request_duration_seconds histogram\n");
        let mut cumulative = 0;
        for (b, le) in BUCKETS.iter().enumerate() {
            cumulative += self.buckets[b].load(Relaxed);
            let _ = writeln!(
                o,
                "eggcat_http_request_duration_seconds_bucket{{le=\"{le}\"}} {cumulative}"
            );
        }
        let count = self.latency_count.load(Relaxed);
        let _ = writeln!(
            o,
            "eggcat_http_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let sum = self.latency_sum_ns.load(Relaxed) as f64 / 1e9;
        let _ = writeln!(o, "eggcat_http_request_duration_seconds_sum {sum}");
        let _ = writeln!(o, "eggcat_http_request_duration_seconds_count {count}");
        o.push_str("# HELP eggcat_catalog_eggs Eggs in the catalog being served.\n# TYPE eggcat_catalog_eggs gauge\n");
        let _ = writeln!(o, "eggcat_catalog_eggs {}", catalog.map_or(0, |c| c.eggs));
        if let Some(c) = catalog {
            o.push_str("# HELP eggcat_catalog_build_timestamp_seconds When the catalog being served was built.\n");
            o.push_str("# TYPE eggcat_catalog_build_timestamp_seconds gauge\n");
            let _ = writeln!(o, "eggcat_catalog_build_timestamp_seconds {}", c.built);
            o.push_str("# HELP eggcat_images The catalog's distinct image references, by what their registry said when it was built.\n# TYPE eggcat_images gauge\n");
            for (status, n) in ["present", "missing", "unknown"].iter().zip(c.images) {
                let _ = writeln!(o, "eggcat_images{{status=\"{status}\"}} {n}");
            }
            o.push_str("# HELP eggcat_downloads The catalog's distinct install-script download URLs, by what their host said when it was built (not_checkable: built from variables, not asked).\n# TYPE eggcat_downloads gauge\n");
            for (status, n) in ["present", "missing", "unknown", "not_checkable"]
                .iter()
                .zip(c.downloads)
            {
                let _ = writeln!(o, "eggcat_downloads{{status=\"{status}\"}} {n}");
            }
            o.push_str("# HELP eggcat_body_cache_bytes Bytes of the served snapshot's bodies held in memory (at most 16 MiB).\n# TYPE eggcat_body_cache_bytes gauge\n");
            let _ = writeln!(o, "eggcat_body_cache_bytes {}", c.cached);
        }
        o.push_str("# HELP eggcat_snapshot_damaged_files Files of the served snapshot that did not match its manifest when it was loaded (not served).\n# TYPE eggcat_snapshot_damaged_files gauge\n");
        let _ = writeln!(
            o,
            "eggcat_snapshot_damaged_files {}",
            self.damaged_files.load(Relaxed)
        );
        o.push_str("# HELP eggcat_builds_total Builds run by this process, by outcome.\n# TYPE eggcat_builds_total counter\n");
        let _ = writeln!(
            o,
            "eggcat_builds_total{{outcome=\"ok\"}} {}",
            self.builds_ok.load(Relaxed)
        );
        let _ = writeln!(
            o,
            "eggcat_builds_total{{outcome=\"failed\"}} {}",
            self.builds_failed.load(Relaxed)
        );
        if let Some((at, ok)) = *self.last_build.lock().expect("metrics lock") {
            o.push_str(
                "# HELP eggcat_last_build_timestamp_seconds When the last build run by this process ended.\n",
            );
            o.push_str("# TYPE eggcat_last_build_timestamp_seconds gauge\n");
            let _ = writeln!(
                o,
                "eggcat_last_build_timestamp_seconds {}",
                at as f64 / 1000.0
            );
            o.push_str("# HELP eggcat_last_build_success Whether the last build succeeded (1) or failed (0).\n");
            o.push_str("# TYPE eggcat_last_build_success gauge\n");
            let _ = writeln!(o, "eggcat_last_build_success {}", u8::from(ok));
        }
        o
    }
}
