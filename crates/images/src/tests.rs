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
