//! Image health against a real registry on loopback (issue 24): Debian's `docker-registry`, fed
//! by `skopeo` with images this test makes offline (`registry.rs`). What a registry says reaches
//! the egg documents, the pages, the report and `/metrics`; the cache spares requests (no second
//! `GET` for a digest already read; nothing asked within the TTL); a deleted tag shows within
//! one rebuild without any upstream commit; `Retry-After` is honoured; timeouts, refused
//! connections and a stopped registry are `unknown`, never `missing`; registries that hang do
//! not hold a check past its budget; no registry has more than `concurrency` requests in flight;
//! the token flow works with the registry configured for `auth: token`; `eggcat validate
//! --images` reports a missing image with E062.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::Outcome;
use eggcat_catalog::wire::ImageStatus;
use eggcat_images::{ImageFindings, Options};
use eggcat_pipeline::BuildOptions;
use eggcat_upstream::Limits;
use serde_json::Value;

use crate::registry::{Mode, Proxy, Registry, TokenIssuer, black_hole, oci_layout, registry_tools};
use crate::support::*;

/// A PTDL_v2 egg with these runtime images (label, reference) and install container.
fn image_egg(name: &str, images: &[(&str, &str)], install: &str) -> String {
    let images: serde_json::Map<String, Value> = images
        .iter()
        .map(|(label, image)| ((*label).to_owned(), Value::from(*image)))
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "meta": {"version": "PTDL_v2", "update_url": null},
        "name": name,
        "author": "test@eggcat.invalid",
        "docker_images": images,
        "startup": "./run",
        "config": {"files": "{}", "startup": "{\"done\": \"ready\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": "#!/bin/bash\ntrue", "container": install, "entrypoint": "bash"}},
        "variables": [],
    }))
    .unwrap()
}

fn options(repo: &Repo, images: Options) -> BuildOptions {
    BuildOptions {
        sources: vec![source(&repo.url(), "o", "eggs")],
        limits: Limits::default(),
        base_url: TEST_BASE_URL.to_owned(),
        images,
    }
}

/// The tests' registries are on loopback: allowed, as `[images] allow_internal = true` does.
fn ttl(seconds: u64) -> Options {
    Options {
        ttl: Duration::from_secs(seconds),
        allow_internal: true,
        ..Options::default()
    }
}

/// `meta.images` of an egg as (status, platforms) pairs, and its `meta.runsOn`.
fn images_of(out: &Outcome, slug: &str) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let meta = &egg_doc(out, slug)["meta"];
    let images = meta["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let platforms = i["platforms"].as_array().unwrap();
            (
                i["status"].as_str().unwrap().to_owned(),
                platforms
                    .iter()
                    .map(|p| p.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();
    let runs_on = serde_json::from_value(meta["runsOn"].clone()).unwrap();
    (images, runs_on)
}

fn page(out: &Outcome, path: &str) -> String {
    String::from_utf8(out.snapshot.files[path].clone()).unwrap()
}

fn summary_item(out: &Outcome, slug: &str) -> Value {
    let items: Vec<Value> =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_summary.json"]).unwrap();
    items.into_iter().find(|i| i["slug"] == slug).unwrap()
}

/// `/metrics` of a server that loaded `data`'s current snapshot.
fn metrics(data: &Path) -> String {
    let store = eggcat_store::Store::new(data);
    let app = eggcat_server::App::new(&eggcat_server::AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap();
    install_current(&app, store.data_dir());
    let r = crate::http::get(&app, "/metrics", &[]);
    String::from_utf8(r.body().to_vec()).unwrap()
}

#[test]
fn what_the_registry_says_reaches_the_documents_pages_report_and_metrics() {
    if !registry_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let registry = Registry::start(None);
    let proxy = Proxy::start(registry.port);
    let single = oci_layout(&tmp.path().join("single"), &["linux/amd64"], "s");
    let multi = oci_layout(
        &tmp.path().join("multi"),
        &["linux/amd64", "linux/arm64/v8"],
        "m",
    );
    registry.push(&single, "test/single:v1");
    registry.push(&multi, "test/multi:v1");
    let host = proxy.host();
    let (single, multi) = (
        format!("{host}/test/single:v1"),
        format!("{host}/test/multi:v1"),
    );
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write(
        "a/egg-arm.json",
        image_egg("Arm", &[("Multi", &multi)], &multi),
    )
    .write(
        "b/egg-amd.json",
        image_egg("Amd", &[("Single", &single), ("Multi", &multi)], &single),
    )
    .write(
        "c/egg-gone.json",
        image_egg("Gone", &[("Gone", &format!("{host}/test/none:v1"))], &multi),
    );
    repo.commit("eggs");
    let data = tmp.path().join("data");
    let clock = Clock::new(1_767_225_600_000);

    let first = rebuild_with(&data, &options(&repo, ttl(3600)), &clock).unwrap();
    let (arm, arm_runs) = images_of(&first, "eggs-arm");
    assert_eq!(
        arm,
        [
            (
                "present".into(),
                vec!["linux/amd64".into(), "linux/arm64/v8".into()]
            ),
            (
                "present".into(),
                vec!["linux/amd64".into(), "linux/arm64/v8".into()]
            ),
        ]
    );
    assert_eq!(arm_runs, ["linux/amd64", "linux/arm64"]);
    let (amd, amd_runs) = images_of(&first, "eggs-amd");
    assert_eq!(amd[0], ("present".into(), vec!["linux/amd64".into()]));
    assert_eq!(
        amd_runs,
        ["linux/amd64"],
        "its install container is amd64 only"
    );
    let (gone, gone_runs) = images_of(&first, "eggs-gone");
    assert_eq!(gone[0], ("missing".into(), vec![]));
    assert!(gone_runs.is_empty());
    let meta = &egg_doc(&first, "eggs-arm")["meta"]["images"][0];
    assert!(meta["digest"].as_str().unwrap().starts_with("sha256:"));
    // When the registry first said so, by the build's clock.
    assert!(
        meta["since"]
            .as_str()
            .unwrap()
            .starts_with("2026-01-01T00:00:0")
    );
    let images = &first.report.images;
    assert_eq!((images.present, images.missing, images.unknown), (2, 1, 0));
    assert_eq!(
        images.missing_images[0].reference,
        format!("{host}/test/none:v1")
    );
    assert_eq!(images.missing_images[0].eggs, ["eggs-gone"]);
    // One HEAD per reference; a GET only for each digest not read before (the index, the
    // single manifest and its config blob).
    assert_eq!(proxy.count("HEAD", "/manifests/"), 3);
    assert_eq!(proxy.count("GET", "/manifests/sha256:"), 2);
    assert_eq!(proxy.count("GET", "/blobs/"), 1);
    assert_eq!(proxy.count("GET", "/manifests/v1"), 0);

    // Within the TTL nothing is asked, and nothing is published.
    let again = rebuild_with(&data, &options(&repo, ttl(3600)), &clock).unwrap();
    assert_eq!(again.snapshot.id, first.snapshot.id, "nothing changed");
    assert_eq!(proxy.count("HEAD", "/manifests/"), 3, "the answers hold");

    // Past the TTL every reference is asked again by HEAD; no digest is fetched twice.
    let past = rebuild_with(&data, &options(&repo, ttl(1)), &clock).unwrap();
    assert_eq!(proxy.count("HEAD", "/manifests/"), 6);
    assert_eq!(proxy.count("GET", "/manifests/"), 2);
    assert_eq!(proxy.count("GET", "/blobs/"), 1);
    assert_eq!(past.snapshot.id, first.snapshot.id, "the same answers");

    // The tag is deleted in the registry; upstream has no new commit.
    registry.delete("test/single:v1");
    let deleted = rebuild_with(&data, &options(&repo, ttl(1)), &clock).unwrap();
    assert_ne!(deleted.snapshot.id, first.snapshot.id, "a new snapshot");
    assert!(
        deleted.report.sources.iter().all(|s| !s.changed),
        "without any upstream commit"
    );
    let (amd, amd_runs) = images_of(&deleted, "eggs-amd");
    assert_eq!(amd[0].0, "missing");
    assert!(amd_runs.is_empty(), "its install container is gone too");
    let images = &deleted.report.images;
    assert_eq!((images.present, images.missing, images.unknown), (1, 2, 0));
    let missing: Vec<&str> = images
        .missing_images
        .iter()
        .map(|m| m.reference.as_str())
        .collect();
    assert_eq!(missing, [format!("{host}/test/none:v1"), single.clone()]);
    assert_eq!(images.missing_images[1].eggs, ["eggs-amd"]);
    // The egg page warns, the card marks it, the status page lists it, /metrics counts it.
    let egg_page = page(&deleted, "eggs/eggs-amd/index.html");
    assert!(egg_page.contains("class=\"image-warning\""), "{egg_page}");
    assert!(egg_page.contains("<span class=\"st missing\">missing</span>"));
    // Image names are written with break opportunities after their slashes.
    assert!(egg_page.contains("single:v1"));
    assert_eq!(summary_item(&deleted, "eggs-amd")["missingImages"], 2);
    assert_eq!(summary_item(&deleted, "eggs-arm")["missingImages"], 0);
    assert_eq!(
        summary_item(&deleted, "eggs-arm")["runsOn"],
        serde_json::json!(["linux/amd64", "linux/arm64"])
    );
    let status_page = page(&deleted, "status/index.html");
    assert!(status_page.contains("single:v1") && status_page.contains("eggs-amd"));
    let text = metrics(&data);
    for line in [
        "eggcat_images{status=\"present\"} 1",
        "eggcat_images{status=\"missing\"} 2",
        "eggcat_images{status=\"unknown\"} 0",
    ] {
        assert!(text.contains(line), "{line} not in\n{text}");
    }
}

#[test]
fn an_outage_is_unknown_never_missing() {
    if !registry_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut registry = Registry::start(None);
    registry.push(
        &oci_layout(&tmp.path().join("one"), &["linux/amd64"], "o"),
        "test/one:v1",
    );
    let host = registry.host();
    let hangs = format!("127.0.0.1:{}/test/hangs:v1", black_hole());
    let refused = format!("127.0.0.1:{}/test/refused:v1", free_port());
    let (one, none) = (
        format!("{host}/test/one:v1"),
        format!("{host}/test/none:v1"),
    );
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write(
        "a/egg-a.json",
        image_egg("A", &[("One", &one), ("None", &none)], &one),
    )
    .write(
        "b/egg-b.json",
        image_egg("B", &[("Hangs", &hangs)], &refused),
    );
    repo.commit("eggs");
    let data = tmp.path().join("data");
    let clock = Clock::new(1_767_225_600_000);
    let quick = Options {
        ttl: Duration::from_secs(1),
        timeout: Duration::from_secs(1),
        budget: Duration::from_secs(3),
        allow_internal: true,
        ..Options::default()
    };
    let first = rebuild_with(&data, &options(&repo, quick.clone()), &clock).unwrap();
    let (a, _) = images_of(&first, "eggs-a");
    let (b, _) = images_of(&first, "eggs-b");
    assert_eq!(a[0].0, "present");
    assert_eq!(a[1].0, "missing");
    assert_eq!(b[0].0, "unknown", "a registry that hangs");
    assert_eq!(b[1].0, "unknown", "a registry that refuses connections");
    let hang = &egg_doc(&first, "eggs-b")["meta"]["images"][0]["detail"];
    assert!(
        hang.as_str().unwrap().contains("no answer within 1 s")
            || hang.as_str().unwrap().contains("budget"),
        "{hang}"
    );

    // Every registry unreachable now: what was present or missing becomes unknown, never
    // missing; what was unknown stays so.
    registry.stop();
    let down = rebuild_with(&data, &options(&repo, quick), &clock).unwrap();
    let (a, _) = images_of(&down, "eggs-a");
    assert_eq!(a[0].0, "unknown");
    assert_eq!(
        a[1].0, "unknown",
        "a missing image is not missing because of an outage"
    );
    let images = &down.report.images;
    assert_eq!((images.present, images.missing, images.unknown), (0, 0, 4));
}

/// The budget is the most a check takes, however many references are left: twenty registries
/// that accept connections and never answer, with a 10 s timeout, would hold the check ten
/// seconds; the budget ends it at two, and none of them is `missing`. (One registry would
/// not do: a host that times out fails once per check, and its other references are then
/// unknown at once: `eggcat-images`' `a_host_that_fails_fails_once_per_check`.)
#[test]
fn registries_that_hang_do_not_hold_a_check_past_its_budget() {
    let references: Vec<String> = (0..20)
        .map(|i| format!("127.0.0.1:{}/test/hangs{i:02}:v1", black_hole()))
        .collect();
    let options = Options {
        concurrency: 1,
        timeout: Duration::from_secs(10),
        budget: Duration::from_secs(2),
        allow_internal: true,
        ..Options::default()
    };
    let started = Instant::now();
    let findings = eggcat_images::check(&references, &options, None, &|| 1_767_225_600_000);
    let took = started.elapsed();
    assert!(
        took < options.budget + Duration::from_millis(1_500),
        "the check took {took:?} with a budget of {:?}",
        options.budget
    );
    assert_eq!(findings.len(), references.len());
    for f in findings.values() {
        assert_eq!(f.status, ImageStatus::Unknown, "{f:?}");
        assert_eq!(
            f.detail.as_deref(),
            Some("not asked yet: the checks' time budget (`[images] budget`) ran out"),
            "the deadline cut every request"
        );
    }
}

/// `concurrency` bounds the requests in flight per registry: two registries (two proxies in
/// front of one), answering slowly, each see at most that many at once, and (the proxies can
/// tell) that many.
#[test]
fn each_registry_has_at_most_concurrency_requests_in_flight() {
    if !registry_tools() {
        return;
    }
    let registry = Registry::start(None);
    let proxies = [Proxy::start(registry.port), Proxy::start(registry.port)];
    let mut references = Vec::new();
    for proxy in &proxies {
        proxy.set(Mode::Slow { millis: 150 });
        references.extend((0..6).map(|i| format!("{}/test/none{i}:v1", proxy.host())));
    }
    let options = Options {
        concurrency: 2,
        allow_internal: true,
        ..Options::default()
    };
    let findings = eggcat_images::check(&references, &options, None, &|| 1_767_225_600_000);
    let statuses: Vec<ImageStatus> = findings.values().map(|f| f.status).collect();
    assert_eq!(statuses, [ImageStatus::Missing; 12]);
    for proxy in &proxies {
        assert_eq!(proxy.count("HEAD", "/manifests/"), 6);
        assert_eq!(
            proxy.peak(),
            2,
            "requests in flight at once at {}",
            proxy.host()
        );
    }
}

#[test]
fn retry_after_is_honoured() {
    if !registry_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let registry = Registry::start(None);
    let proxy = Proxy::start(registry.port);
    registry.push(
        &oci_layout(&tmp.path().join("one"), &["linux/arm64"], "r"),
        "test/one:v1",
    );
    let one = format!("{}/test/one:v1", proxy.host());
    let cache = tmp.path().join("images.json");
    let check = |options: &Options| {
        eggcat_images::check(std::slice::from_ref(&one), options, Some(&cache), &|| {
            1_767_225_600_000
        })
    };
    let status = |f: &ImageFindings| f[&one].status;

    // A short wait within the budget is waited out, then the reference is asked again.
    proxy.set(Mode::TooMany {
        times: 1,
        seconds: 1,
    });
    let findings = check(&ttl(1));
    assert_eq!(status(&findings), ImageStatus::Present);
    let seen = proxy.seen.lock().unwrap().clone();
    assert_eq!(seen[0].2, 429);
    assert_eq!((seen[1].0.as_str(), seen[1].2), ("HEAD", 200), "{seen:?}");

    // A wait longer than the budget: unknown, and the registry is not asked again before it
    // ends, not even by the next check.
    let _ = std::fs::remove_file(&cache);
    proxy.set(Mode::TooMany {
        times: 1,
        seconds: 3600,
    });
    let asked = proxy.seen.lock().unwrap().len();
    let findings = check(&ttl(1));
    assert_eq!(status(&findings), ImageStatus::Unknown);
    assert!(
        findings[&one].detail.as_deref().unwrap().contains("wait"),
        "{:?}",
        findings[&one].detail
    );
    assert_eq!(proxy.seen.lock().unwrap().len(), asked + 1, "one request");
    let findings = check(&ttl(1));
    assert_eq!(status(&findings), ImageStatus::Unknown);
    assert_eq!(
        proxy.seen.lock().unwrap().len(),
        asked + 1,
        "not asked again before Retry-After"
    );
}

#[test]
fn the_anonymous_token_flow_of_a_registry_with_token_auth() {
    if !registry_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let issuer = TokenIssuer::start();
    let registry = Registry::start(Some(&issuer));
    registry.push(
        &oci_layout(
            &tmp.path().join("multi"),
            &["linux/amd64", "linux/arm64"],
            "t",
        ),
        "private/multi:v2",
    );
    let host = registry.host();
    let (multi, none) = (
        format!("{host}/private/multi:v2"),
        format!("{host}/private/none:v2"),
    );
    let pushed = issuer.requests.lock().unwrap().len();
    let findings = eggcat_images::check(
        &[multi.clone(), none.clone()],
        &Options {
            allow_internal: true,
            ..Options::default()
        },
        None,
        &|| 1_767_225_600_000,
    );
    assert_eq!(findings[&multi].status, ImageStatus::Present);
    assert_eq!(findings[&multi].platforms, ["linux/amd64", "linux/arm64"]);
    assert_eq!(findings[&none].status, ImageStatus::Missing);
    let asked: Vec<String> = issuer.requests.lock().unwrap()[pushed..].to_vec();
    assert!(
        asked
            .iter()
            .any(|q| q.contains("scope=repository%3Aprivate%2Fmulti%3Apull")),
        "{asked:?}"
    );
    assert!(
        asked
            .iter()
            .all(|q| q.contains("service=eggcat-test-registry"))
    );
}

#[test]
fn validate_images_reports_a_missing_image_with_a_code() {
    if !registry_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let registry = Registry::start(None);
    registry.push(
        &oci_layout(&tmp.path().join("one"), &["linux/amd64"], "v"),
        "test/one:v1",
    );
    let host = registry.host();
    let egg = tmp.path().join("egg-x.json");
    std::fs::write(
        &egg,
        image_egg(
            "X",
            &[("Gone", &format!("{host}/test/gone:v1"))],
            &format!("{host}/test/one:v1"),
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_eggcat"))
            .arg("validate")
            .args(args)
            .arg(&egg)
            .output()
            .unwrap()
    };
    // A registry on this machine: refused as an internal address unless allowed.
    let refused = run(&["--images", "--format", "json", "--color", "never"]);
    let refused_out = String::from_utf8_lossy(&refused.stdout);
    assert!(
        refused_out.contains("is an internal address: not asked"),
        "{refused_out}"
    );
    let out = run(&[
        "--images",
        "--allow-internal",
        "--format",
        "json",
        "--color",
        "never",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let e062: Vec<&Value> = lines.iter().filter(|d| d["code"] == "E062").collect();
    assert_eq!(e062.len(), 1, "{stdout}");
    assert_eq!(e062[0]["pointer"], "/docker_images/Gone");
    assert!(
        e062[0]["message"]
            .as_str()
            .unwrap()
            .contains("test/gone:v1")
    );
    // Without --images, nothing is asked: the file is fine.
    let out = run(&["--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
