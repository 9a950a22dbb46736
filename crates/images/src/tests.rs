//! Tests of a check as a whole, against what a registry that never answers leaves it: the
//! budget ends it, without waiting for anything, and what the budget cut keeps its last answer.
//! The answers of a real registry are tested in `eggcat`'s `it` (`images.rs`).

use std::net::TcpListener;
use std::time::{Duration, Instant};

use super::*;

/// A port of 127.0.0.1 that accepts connections and never answers: a registry that hangs.
fn black_hole() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

fn present(since: u64, checked_at: u64) -> Entry {
    Entry {
        status: ImageStatus::Present,
        digest: Some(format!("sha256:{}", "0f".repeat(32))),
        platforms: vec!["linux/amd64".to_owned(), "linux/arm64/v8".to_owned()],
        detail: None,
        since,
        checked_at,
    }
}

/// Regression: a runtime dropped at the end of a check waited for its blocking tasks, among
/// them reqwest's DNS lookups, so a lookup that hung held the build past its budget.
#[test]
fn a_check_does_not_wait_for_blocking_tasks_left_running() {
    let started = Instant::now();
    let output = block_on_without_waiting(async {
        // A lookup that hangs, as `getaddrinfo` does on a silent DNS server.
        drop(tokio::task::spawn_blocking(|| {
            std::thread::sleep(Duration::from_secs(5));
        }));
        7
    });
    assert_eq!(output.expect("a runtime"), 7);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "waited {took:?}");
}

/// Regression: the request the budget's deadline cut came back as an answer, `unknown`
/// ("the time budget ran out"), and replaced the last answer the registry gave in the cache
/// and the documents.
#[test]
fn a_request_the_budget_cuts_leaves_the_last_answer_standing() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("images.json");
    let hangs = format!("127.0.0.1:{}/test/hangs:v1", black_hole());
    let mut cache = Cache::default();
    cache
        .references
        .insert(hangs.clone(), present(1_000, 2_000));
    cache.save(&file).expect("the cache is written");
    let options = Options {
        ttl: Duration::from_secs(1),
        timeout: Duration::from_secs(30),
        budget: Duration::from_secs(1),
        concurrency: 1,
        allow_internal: true,
        ..Options::default()
    };
    let started = Instant::now();
    // Past the TTL: the reference is asked, and its registry does not answer before the
    // budget ends.
    let findings = check(std::slice::from_ref(&hangs), &options, Some(&file), &|| {
        3_600_000
    });
    let took = started.elapsed();
    assert!(took < Duration::from_millis(2_500), "took {took:?}");
    let kept = present(1_000, 2_000);
    assert_eq!(findings[&hangs], kept.finding());
    assert_eq!(
        Cache::load(&file).references[&hangs],
        kept,
        "the cache keeps it, with when it was last asked: it is asked first next time"
    );
}

/// The cache keeps the answers of the whole catalog a part of it was checked for, and drops
/// those of references the catalog no longer names.
#[test]
fn a_check_of_part_of_the_catalog_keeps_the_answers_of_the_rest() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("images.json");
    let [a, b, gone] = ["a", "b", "gone"].map(|n| format!("127.0.0.1:9/test/{n}:v1"));
    let mut cache = Cache::default();
    for r in [&a, &b, &gone] {
        cache.references.insert(r.clone(), present(1_000, 2_000));
    }
    cache.save(&file).expect("the cache is written");
    // Every answer fresh: nothing is asked.
    let findings = check_part(
        std::slice::from_ref(&b),
        &[a.clone(), b.clone()],
        &Options::default(),
        Some(&file),
        &|| 3_000,
    );
    assert_eq!(findings.keys().collect::<Vec<_>>(), [&b]);
    let kept = Cache::load(&file);
    assert_eq!(kept.references.keys().collect::<Vec<_>>(), [&a, &b]);
}

/// Issue 38: a registry whose name lookup hangs, and one that accepts connections and never
/// answers, each fail once per check: the first request's timeout ends every other request of
/// the same host at once (in flight or waiting), with that first reason, instead of each
/// waiting its own timeout. Twenty references each at four at a time and a 2 s timeout would
/// take 10 s a host without it; the check takes one timeout.
#[test]
fn a_host_that_fails_fails_once_per_check() {
    let port = black_hole();
    let mut references: Vec<String> = (0..20)
        .map(|i| format!("registry.hangs.example/test/r{i}:v1"))
        .collect();
    references.extend((0..20).map(|i| format!("127.0.0.1:{port}/test/r{i}:v1")));
    let options = Options {
        timeout: Duration::from_secs(2),
        budget: Duration::from_secs(30),
        concurrency: 4,
        allow_internal: true,
        resolve: [("registry.hangs.example".to_owned(), Resolution::Hang)]
            .into_iter()
            .collect(),
        ..Options::default()
    };
    let started = Instant::now();
    let findings = check(&references, &options, None, &|| 1_000);
    let took = started.elapsed();
    assert!(took < Duration::from_millis(3_500), "took {took:?}");
    assert_eq!(findings.len(), 40);
    for host in ["registry.hangs.example", &format!("127.0.0.1:{port}")] {
        let of_host: Vec<&ImageFinding> = findings
            .iter()
            .filter(|(r, _)| r.starts_with(host))
            .map(|(_, f)| f)
            .collect();
        assert!(of_host.iter().all(|f| f.status == ImageStatus::Unknown));
        let spared = of_host
            .iter()
            .filter(|f| {
                f.detail.as_deref().is_some_and(|d| {
                    d.starts_with(&format!(
                        "not asked: `{host}` failed earlier in this check: "
                    )) && d.ends_with("no answer within 2 s")
                })
            })
            .count();
        assert!(spared >= 16, "{host}: {spared} spared: {of_host:#?}");
    }
}

/// Issue 38: an internal address is never asked unless the configuration allows it: written
/// in the reference, or what a name resolves to.
#[test]
fn internal_addresses_are_refused_unless_allowed() {
    let port = black_hole();
    let written = format!("127.0.0.1:{port}/test/a:v1");
    let resolved = "metadata.internal.example/test/b:v1".to_owned();
    let options = Options {
        timeout: Duration::from_secs(5),
        resolve: [(
            "metadata.internal.example".to_owned(),
            Resolution::Address("169.254.169.254".parse().expect("an address")),
        )]
        .into_iter()
        .collect(),
        ..Options::default()
    };
    let started = Instant::now();
    let findings = check(
        &[written.clone(), resolved.clone()],
        &options,
        None,
        &|| 1_000,
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "refused without asking"
    );
    assert_eq!(findings[&written].status, ImageStatus::Unknown);
    assert_eq!(
        findings[&written].detail.as_deref(),
        Some("127.0.0.1 is an internal address: not asked")
    );
    assert_eq!(findings[&resolved].status, ImageStatus::Unknown);
    assert_eq!(
        findings[&resolved].detail.as_deref(),
        Some(
            "`metadata.internal.example` resolves to an internal address (169.254.169.254): not asked"
        )
    );
    // Allowed: the black hole is asked (and times out).
    let allowed = Options {
        timeout: Duration::from_secs(1),
        allow_internal: true,
        ..options
    };
    let findings = check(std::slice::from_ref(&written), &allowed, None, &|| 1_000);
    assert_eq!(
        findings[&written].detail.as_deref(),
        Some("no answer within 1 s")
    );
}
