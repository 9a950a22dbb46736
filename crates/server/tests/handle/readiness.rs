//! Health, readiness, the status document's date, failed rebuilds and the metrics
//! (docs/api.md, "Health and readiness", "Rebuilds, readiness and failures", "Metrics").

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::StatusCode;

use crate::documents::assert_common_headers;
use crate::support::*;

#[test]
fn before_the_first_catalog_health_openapi_and_metrics_answer_and_the_rest_is_503() {
    let app = app();
    let r = send(&app, "GET", "/healthz", &[]);
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.body().as_ref(), br#"{"status":"ok"}"#);
    assert_eq!(header(&r, "content-type"), "application/json");
    assert_eq!(header(&r, "cache-control"), "no-store");
    assert!(r.headers().get("etag").is_none());
    for path in [
        "/readyz",
        "/api/v1/eggs",
        "/api/v1/eggs/paper.json",
        "/api/v1/_status.json",
        "/",
        "/eggs/paper/",
    ] {
        let r = send(&app, "GET", path, &[]);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(header(&r, "retry-after"), "5");
        assert_eq!(
            problem(&r, path)["detail"],
            "the first catalog is still being built; try again shortly"
        );
        assert_common_headers(&r);
    }
    let r = send(&app, "GET", "/api/v1/openapi.json", &[]);
    assert_eq!(r.status(), StatusCode::OK);
    let doc: serde_json::Value = serde_json::from_slice(r.body()).unwrap();
    assert_eq!(doc["info"]["version"], eggcat_wire::INTERFACE_VERSION);
    let r = send(&app, "GET", "/metrics", &[]);
    assert_eq!(
        header(&r, "content-type"),
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = std::str::from_utf8(r.body()).unwrap();
    assert!(text.contains("eggcat_catalog_eggs 0\n"), "{text}");
    assert!(
        !text.contains("eggcat_catalog_build_timestamp_seconds "),
        "{text}"
    );
}

#[test]
fn once_a_catalog_is_served_readyz_names_its_build_and_eggs() {
    let site = Site::new("a");
    let r = site.get("/readyz", &[]);
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.body().as_ref(),
        br#"{"status":"ready","build":"build-a","eggs":2}"#
    );
    assert_eq!(header(&r, "cache-control"), "no-store");
    assert!(r.headers().get("etag").is_none());
    assert!(site.app.is_ready());
}

#[test]
fn a_failed_rebuild_degrades_readyz_and_dates_the_status_and_nothing_else_changes() {
    let site = Site::new("a");
    let index = site.get("/api/v1/eggs", &[]);
    // 2023-11-14T22:15:00Z, after the build's 22:13:20.
    let failed_at_ms = 1_700_000_100_000;
    site.app
        .rebuild_failed("cannot write /data: disk full", failed_at_ms);
    let ready: serde_json::Value = serde_json::from_slice(site.get("/readyz", &[]).body()).unwrap();
    assert_eq!(ready["status"], "degraded");
    assert_eq!(ready["problems"][0]["code"], "rebuild_failed");
    assert_eq!(
        ready["problems"][0]["detail"],
        "serving the last good catalog: cannot write /data: disk full"
    );
    let status = site.get("/api/v1/_status.json", &[]);
    let doc: serde_json::Value = serde_json::from_slice(status.body()).unwrap();
    assert_eq!(doc["buildId"], "build-a");
    assert_eq!(doc["lastRebuild"]["outcome"], "failed");
    assert_eq!(doc["lastRebuild"]["at"], "2023-11-14T22:15:00.000Z");
    assert_eq!(doc["lastRebuild"]["error"], "cannot write /data: disk full");
    assert_eq!(
        header(&status, "last-modified"),
        "Tue, 14 Nov 2023 22:15:00 GMT"
    );
    assert_eq!(header(&status, "etag"), etag_of(status.body(), None));
    // A client polling the status with the build's date sees the failure; the other documents
    // are the same representation as before.
    let since = [("if-modified-since", LAST_MODIFIED)];
    assert_eq!(
        site.get("/api/v1/_status.json", &since).status(),
        StatusCode::OK
    );
    let again = site.get("/api/v1/eggs", &since);
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(header(&again, "etag"), header(&index, "etag"));
    let metrics = site.get("/metrics", &[]);
    let text = std::str::from_utf8(metrics.body()).unwrap();
    assert!(
        text.contains("eggcat_builds_total{outcome=\"failed\"} 1\n"),
        "{text}"
    );
    assert!(text.contains("eggcat_last_build_success 0\n"), "{text}");
    // A later rebuild that succeeds without a new catalog (nothing changed upstream): the
    // status document is the build's again, dated at the recovery, so the client that saw the
    // failure sees it gone.
    site.app.rebuild_succeeded(failed_at_ms + 60_000);
    let r = site.get("/readyz", &[]);
    assert_eq!(
        r.body().as_ref(),
        br#"{"status":"ready","build":"build-a","eggs":2}"#
    );
    let since_failure = [("if-modified-since", "Tue, 14 Nov 2023 22:15:00 GMT")];
    let status = site.get("/api/v1/_status.json", &since_failure);
    assert_eq!(status.status(), StatusCode::OK);
    let doc: serde_json::Value = serde_json::from_slice(status.body()).unwrap();
    assert_eq!(doc["buildId"], "build-a");
    assert!(doc.get("lastRebuild").is_none(), "{doc}");
    assert_eq!(
        header(&status, "last-modified"),
        "Tue, 14 Nov 2023 22:16:00 GMT"
    );
}

#[test]
fn the_status_document_is_never_dated_before_the_server_started() {
    let before = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let site = Site::new("a");
    let date = |path: &str| {
        let r = site.get(path, &[]);
        httpdate::parse_http_date(header(&r, "last-modified")).unwrap()
    };
    // The build finished in 2023; the server started now.
    assert_eq!(
        date("/api/v1/eggs"),
        UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    );
    assert!(date("/api/v1/_status.json") >= UNIX_EPOCH + Duration::from_secs(before));
    assert!(date("/api/v1/openapi.json") >= UNIX_EPOCH + Duration::from_secs(before));
}

#[test]
fn metrics_count_each_answer_by_route_and_status_and_describe_the_catalog() {
    let site = Site::new("a");
    for (path, method) in [
        ("/api/v1/eggs/paper.json", "GET"),
        ("/api/v1/eggs/paper", "HEAD"),
        ("/api/v1/eggs?fields=name", "GET"),
        ("/api/v1/eggs?fields=x", "GET"),
        ("/api/v1//eggs", "GET"),
        ("/eggs/gone/", "GET"),
        ("/nope", "GET"),
        ("/api/v1/eggs", "POST"),
        ("/api/v1/eggs", "OPTIONS"),
    ] {
        site.send(method, path, &[]);
    }
    let metrics = site.get("/metrics", &[]);
    let text = std::str::from_utf8(metrics.body()).unwrap();
    for line in [
        "eggcat_http_requests_total{route=\"egg\",status=\"200\"} 2",
        "eggcat_http_requests_total{route=\"names\",status=\"200\"} 1",
        "eggcat_http_requests_total{route=\"index\",status=\"400\"} 1",
        "eggcat_http_requests_total{route=\"unmatched\",status=\"400\"} 1",
        "eggcat_http_requests_total{route=\"file\",status=\"410\"} 1",
        "eggcat_http_requests_total{route=\"file\",status=\"404\"} 1",
        "eggcat_http_requests_total{route=\"index\",status=\"405\"} 1",
        "eggcat_http_requests_total{route=\"preflight\",status=\"204\"} 1",
        "eggcat_http_request_duration_seconds_count 9",
        "eggcat_catalog_eggs 2",
        "eggcat_catalog_build_timestamp_seconds 1700000000",
        "eggcat_snapshot_damaged_files 0",
    ] {
        assert!(
            text.contains(&format!("{line}\n")),
            "{line} not in:\n{text}"
        );
    }
}
