//! The limits of one source (docs/operations.md: `fetch_timeout`, `max_source_bytes`, 16 MiB per
//! file) and the transports git may speak (ARCHITECTURE.md: "Git never prompts and speaks only
//! accepted transports"), each with the error the build report shows.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use eggcat_upstream::{HistoryDepth, Limits, Location};
use eggcat_wire::MAX_FILE_SIZE;

use crate::support::*;

/// A server on 127.0.0.1 that accepts connections and gives each to `answer`, one thread each;
/// its base URL. The threads end with the test process.
fn server(answer: fn(std::net::TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    url
}

#[test]
fn a_server_that_never_answers_is_cut_at_the_time_limit() {
    let url = server(|mut stream| {
        // Reads the request and holds the connection open, silent, until the client goes.
        let mut buf = [0; 1024];
        while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
    });
    let tmp = tempfile::tempdir().unwrap();
    let limits = Limits {
        timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let started = Instant::now();
    let (_, error) = failed(fetch_tree(
        &source(&format!("{url}/o/eggs.git"), None),
        &tmp.path().join("mirrors"),
        None,
        limits,
    ));
    assert_eq!(error, "git ls-remote did not finish within 1 s");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_server_asking_for_credentials_is_refused_at_once_without_a_prompt() {
    let url = server(|mut stream| {
        let mut buf = [0; 4096];
        let _ = stream.read(&mut buf);
        let _ = stream.write_all(
            b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"eggs\"\r\n\
              Content-Length: 0\r\nConnection: close\r\n\r\n",
        );
    });
    let tmp = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let (_, error) = failed(fetch_tree(
        &source(&format!("{url}/o/eggs.git"), None),
        &tmp.path().join("mirrors"),
        None,
        limits(),
    ));
    // The empty askpass answered, git tried no terminal (without one it would say it cannot
    // read a username), and the server refused: failed, not timed out waiting for a person.
    assert!(
        error.starts_with(&format!(
            "git ls-remote failed: Authentication failed for '{url}/o/eggs.git"
        )),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_refused_connection_says_why() {
    // A port nothing listens on: git says it cannot connect, then why, on the next line.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let tmp = tempfile::tempdir().unwrap();
    let (_, error) = failed(fetch_tree(
        &source(&format!("git://127.0.0.1:{port}/o/eggs.git"), None),
        &tmp.path().join("mirrors"),
        None,
        limits(),
    ));
    assert!(
        error.starts_with("git ls-remote failed: unable to connect to 127.0.0.1: ")
            && error.ends_with("errno=Connection refused"),
        "{error}"
    );
}

#[test]
fn only_the_accepted_transports_are_spoken_even_when_a_source_skips_validation() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("pwned");
    for (url, transport) in [
        (format!("ext::sh -c touch% {}", marker.display()), "ext"),
        ("ssh://127.0.0.1:1/o/eggs.git".to_owned(), "ssh"),
        ("fd::3".to_owned(), "fd"),
    ] {
        // `Source::resolve` refuses these; git itself must refuse them too.
        let mut src = source("https://example.invalid/o/eggs", None);
        src.location = Location::Git(url.clone());
        let (_, error) = failed(fetch_tree(
            &src,
            &tmp.path().join("mirrors"),
            None,
            limits(),
        ));
        assert!(
            error.starts_with("git ls-remote failed: ")
                && error.contains(&format!("transport '{transport}' not allowed")),
            "{url}: {error}"
        );
    }
    assert!(!marker.exists(), "git ran a command given as a URL");
}

#[test]
fn a_fetch_past_the_size_limit_is_killed_and_the_mirror_keeps_its_last_good_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let up = fetched_once(tmp.path());
    // 16 MiB that no compression shrinks: git takes far longer than the 100 ms between two
    // checks of the mirror's growth to write it.
    up.repo.write("assets/noise.bin", noise(16 << 20, 7));
    up.repo.commit("noise");
    let small = Limits {
        max_bytes: 1 << 20,
        ..limits()
    };
    let (branch, error) = failed(fetch_tree(&up.src, &up.mirrors, Some(&up.good), small));
    assert_eq!(branch.as_deref(), Some("main"));
    assert_eq!(error, "fetch is larger than the limit of 1048576 bytes");
    let mirror = mirror(&up.mirrors, &up.src);
    assert_eq!(mirrored(&mirror, "main"), up.good);
    // Killed, git left its locks: they go with it, or no fetch into this mirror could ever
    // succeed again.
    assert!(
        !mirror.join("shallow.lock").exists(),
        "a killed fetch's lock stays"
    );
    // The noise taken back upstream, the next small change is fetched under the same limit.
    git(&up.repo.dir, &["reset", "-q", "--hard", &up.good]);
    let next = up.repo.write("egg-a.json", egg("A2", 0)).commit("a2");
    let tree = read(fetch_tree(&up.src, &up.mirrors, Some(&up.good), small));
    assert_eq!(tree.commit, next);
}

#[test]
fn a_file_over_16_mib_is_listed_and_never_read_nor_are_its_old_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    let huge = |name: &str| egg(name, MAX_FILE_SIZE as usize + 1);
    repo.write("egg-a.json", huge("A"));
    let first = repo.commit("a, too large");
    repo.write("egg-a.json", egg("A", 0))
        .write("egg-big.json", huge("Big"));
    let second = repo.commit("a fits, big does not");
    let src = source(&repo.url(), None);
    let tree = read(fetch_tree(
        &src,
        &tmp.path().join("mirrors"),
        None,
        limits(),
    ));
    let big = tree
        .entries
        .iter()
        .find(|e| e.path == "egg-big.json")
        .unwrap();
    assert_eq!(
        (big.size, big.content.as_deref()),
        (huge("Big").len() as u64, None)
    );
    assert_eq!(content(&tree, "egg-a.json"), Some(egg("A", 0).as_bytes()));
    let history = read_history(&src, &tree, &["egg-a.json"], limits());
    let (old, new) = (
        repo.blob(&first, "egg-a.json"),
        repo.blob(&second, "egg-a.json"),
    );
    assert_eq!(
        history.blobs.get(&new).map(Vec::as_slice),
        Some(egg("A", 0).as_bytes())
    );
    assert!(!history.blobs.contains_key(&old));
    assert_eq!(
        history.unread.get(&old),
        Some(&format!(
            "the file is {} bytes, over the 16 MiB an egg file may have",
            huge("A").len()
        ))
    );
}

#[test]
fn the_fetch_is_as_deep_as_the_window_and_one_commit_more() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    for i in 0..8 {
        repo.write("egg-a.json", egg(&format!("A{i}"), 0))
            .commit(&format!("a{i}"));
    }
    let mirrors = tmp.path().join("mirrors");
    let src = source(&repo.url(), None);
    let limits = Limits {
        history: HistoryDepth::Commits(3),
        ..limits()
    };
    read(fetch_tree(&src, &mirrors, None, limits));
    let mirror = mirror(&mirrors, &src);
    assert_eq!(
        git(&mirror, &["rev-list", "--count", "refs/heads/main"]),
        "4"
    );
    assert!(mirror.join("shallow").exists());
}
