//! The `eggcat` binary as a user runs it.

use std::process::Command;

use crate::support::*;

fn eggcat() -> Command {
    Command::new(env!("CARGO_BIN_EXE_eggcat"))
}

/// An `eggcat.toml` in `dir` with `repo` as its one source and `data` as its data_dir.
fn config_for(dir: &std::path::Path, repo: &Repo) -> std::path::PathBuf {
    let config = dir.join("eggcat.toml");
    let text = format!(
        "data_dir = \"data\"\n[images]\nenabled = false\n[[source]]\nurl = \"{}\"\nowner = \"o\"\n",
        repo.url()
    );
    std::fs::write(&config, text).unwrap();
    config
}

/// An upstream of one egg (`games/egg-a.json`, one commit) in `dir/eggs`, and its config.
fn one_egg(dir: &std::path::Path) -> (Repo, std::path::PathBuf) {
    let repo = Repo::init(dir.join("eggs"), "main");
    repo.write("games/egg-a.json", egg_json("A"));
    repo.commit("one egg");
    let config = config_for(dir, &repo);
    (repo, config)
}

/// `eggcat serve --listen 127.0.0.1:<port> --config <config>` and `extra` arguments, in the
/// background.
fn spawn_serve(
    config: &std::path::Path,
    port: u16,
    extra: &[&str],
    stderr: std::process::Stdio,
) -> std::process::Child {
    eggcat()
        .arg("serve")
        .args(extra)
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--config")
        .arg(config)
        .stdout(std::process::Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// `eggcat build --config <config>`.
fn build_with(config: &std::path::Path) -> std::process::Output {
    eggcat()
        .arg("build")
        .arg("--config")
        .arg(config)
        .output()
        .unwrap()
}

#[test]
fn help_explains_every_option() {
    let out = eggcat().args(["build", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for option in ["--config <FILE>", "--out <DIR>", "eggcat.toml"] {
        assert!(text.contains(option), "{option} missing from:\n{text}");
    }
    let out = eggcat().args(["serve", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for option in ["--config <FILE>", "--listen <ADDR>", "--refresh <DURATION>"] {
        assert!(text.contains(option), "{option} missing from:\n{text}");
    }
}

#[test]
fn build_publishes_writes_out_and_summarizes() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("games/egg-a.json", egg_json("A"))
        .write(".github/egg-request.yml", "name: x\n");
    repo.commit("one egg");
    let config = config_for(tmp.path(), &repo);
    let site = tmp.path().join("site");
    let build_out = || {
        let mut cmd = eggcat();
        cmd.arg("build")
            .arg("--config")
            .arg(&config)
            .arg("--out")
            .arg(&site);
        cmd.output().unwrap()
    };
    let out = build_out();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("built 1 egg (1 skipped file, 0 warnings) as "),
        "{stdout}"
    );
    assert!(stdout.contains("o/eggs"), "{stdout}");
    assert!(stdout.contains("ok"), "{stdout}");
    for path in [
        "api/v1/eggs/_index.json",
        "api/v1/eggs/_names.json",
        "api/v1/eggs/eggs-a.json",
        "api/v1/_status.json",
    ] {
        assert!(site.join(path).is_file(), "{path}");
    }
    // Stale files of any kind under the tree's folders are removed on the next build; the
    // owner's own files beside the tree are not.
    std::fs::write(site.join("api/v1/eggs/gone.json"), "{}").unwrap();
    std::fs::create_dir_all(site.join("api/v1/eggs/gone")).unwrap();
    std::fs::write(site.join("api/v1/eggs/gone/pelican.yaml"), "x").unwrap();
    std::fs::write(site.join("robots.txt"), "User-agent: *").unwrap();
    std::fs::create_dir_all(site.join("mine")).unwrap();
    std::fs::write(site.join("mine/notes.txt"), "keep").unwrap();
    let snapshot = data_current(&tmp.path().join("data"));
    let out = build_out();
    assert!(out.status.success());
    // Nothing changed upstream: no new snapshot, but `--out` is written all the same.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("nothing changed upstream: kept 1 egg (1 skipped file, 0 warnings) as "),
        "{stdout}"
    );
    assert_eq!(data_current(&tmp.path().join("data")), snapshot);
    assert!(!site.join("api/v1/eggs/gone.json").exists());
    assert!(!site.join("api/v1/eggs/gone").exists());
    assert!(site.join("robots.txt").is_file());
    assert!(site.join("mine/notes.txt").is_file());
    assert!(
        data_current(&tmp.path().join("data"))
            .join("state.json")
            .is_file()
    );
    // A missing `--out` tree is written again by a build that changes nothing else.
    std::fs::remove_dir_all(&site).unwrap();
    assert!(build_out().status.success());
    assert!(site.join("api/v1/eggs/eggs-a.json").is_file());
    assert!(site.join(".eggcat/nginx.conf").is_file());
}

fn data_current(data: &std::path::Path) -> std::path::PathBuf {
    eggcat_store::Store::new(data).current_dir().unwrap()
}

#[test]
fn invalid_config_is_one_clear_line_and_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("eggcat.toml");
    std::fs::write(&config, "[[source]]\nurl = \"ssh://git@github.com/a/b\"\n").unwrap();
    let out = build_with(&config);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("eggcat: error: invalid config"),
        "{stderr}"
    );
    assert!(stderr.contains("unsupported URL"), "{stderr}");
}

#[test]
fn nothing_to_publish_is_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("eggcat.toml");
    std::fs::write(
        &config,
        "[[source]]\nurl = \"file:///nonexistent/eggcat/x\"\nowner = \"o\"\n",
    )
    .unwrap();
    let out = build_with(&config);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap();
    assert!(
        last.starts_with("eggcat: error: build failed: nothing to publish"),
        "{stderr}"
    );
}

#[test]
fn a_killed_build_leaves_the_previous_snapshot_current_and_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    for i in 0..300 {
        repo.write(
            &format!("games/g{i}/egg-game-{i}.json"),
            egg_json(&format!("Game {i}")),
        );
    }
    repo.commit("many eggs");
    let config = config_for(tmp.path(), &repo);
    assert!(build_with(&config).status.success());
    let data = tmp.path().join("data");
    let store = eggcat_store::Store::new(&data);
    let before = store.read_current().unwrap().unwrap();
    for delay_ms in [5u64, 20, 40, 60, 80, 120, 160] {
        // Each time, a change that forces a real rebuild, killed part-way.
        repo.write(
            "games/g0/egg-game-0.json",
            egg_json(&format!("Game 0 at {delay_ms}")),
        );
        repo.commit("change");
        let mut child = eggcat()
            .arg("build")
            .arg("--config")
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let now = store
            .read_current()
            .unwrap()
            .expect("a current snapshot always exists");
        // Whichever snapshot is current is complete: every egg of its index has its document.
        let index: Vec<serde_json::Value> =
            serde_json::from_slice(&now.files["api/v1/eggs/_index.json"]).unwrap();
        assert_eq!(index.len(), 300);
        for item in index {
            let doc = &now.files[&format!("api/v1/eggs/{}.json", item["slug"].as_str().unwrap())];
            serde_json::from_slice::<serde_json::Value>(doc).unwrap();
        }
    }
    let egg_documents = before
        .files
        .keys()
        .filter(|p| {
            p.strip_prefix("api/v1/eggs/")
                .is_some_and(|f| !f.contains('/') && !f.starts_with('_'))
        })
        .count();
    assert_eq!(egg_documents, 300);
}

/// `GET path` over a fresh connection; the status code, or `None` when nothing answers.
fn status_of(port: u16, path: &str) -> Option<u16> {
    answer_of(port, path)?.get(9..12)?.parse().ok()
}

/// The whole answer (status line, headers, body) to a GET of `path`.
fn answer_of(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .ok()?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

#[test]
fn serve_builds_when_there_is_no_catalog_then_becomes_ready_and_stops_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, config) = one_egg(tmp.path());
    let port = free_port();
    let mut child = spawn_serve(&config, port, &[], std::process::Stdio::piped());
    let started = std::time::Instant::now();
    let mut seen = Vec::new();
    loop {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "never ready: {seen:?}"
        );
        match status_of(port, "/readyz") {
            Some(200) => break,
            Some(s) => seen.push(s),
            None => {}
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        seen.iter().all(|&s| s == 503),
        "before ready, /readyz says 503: {seen:?}"
    );
    assert_eq!(status_of(port, "/api/v1/eggs/eggs-a.json"), Some(200));
    assert_eq!(status_of(port, "/healthz"), Some(200));
    // The build is counted once its result is handled, which is when it is logged: stop after.
    wait_until("the build is counted", WAIT, || {
        answer_of(port, "/metrics")
            .is_some_and(|m| m.contains("eggcat_builds_total{outcome=\"ok\"} 1"))
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = child.wait().unwrap();
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut log).unwrap();
    assert!(status.success(), "exit {status:?}\n{log}");
    assert!(log.contains("rebuild made current"), "{log}");
    assert!(log.contains("shutting down"), "{log}");
}

/// The builds `serve` on `port` has run, by its metrics.
fn builds_run(port: u16) -> Option<u64> {
    let metrics = answer_of(port, "/metrics")?;
    let count = |outcome: &str| -> u64 {
        let line = format!("eggcat_builds_total{{outcome=\"{outcome}\"}} ");
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&line)?.trim().parse().ok())
            .unwrap_or(0)
    };
    Some(count("ok") + count("failed"))
}

/// An upgraded eggcat, or another `base_url` or `history_depth`, serves the snapshot it finds
/// at once and rebuilds it right away instead of at the next refresh (3 h by default); a
/// snapshot made by this eggcat with this configuration is only served.
#[test]
fn serve_rebuilds_at_start_a_snapshot_another_configuration_made() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, config) = one_egg(tmp.path());
    let port = free_port();
    let listen = format!("base_url = \"http://127.0.0.1:{port}\"\n");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{listen}{text}")).unwrap();
    assert!(build_with(&config).status.success());
    let data = tmp.path().join("data");
    let first = data_current(&data);

    // The same eggcat and configuration: served as it is, no build at start.
    let mut child = spawn_serve(&config, port, &[], std::process::Stdio::null());
    wait_until("the snapshot is served", WAIT, || {
        status_of(port, "/readyz") == Some(200)
    });
    std::thread::sleep(std::time::Duration::from_secs(2));
    let builds = builds_run(port);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(builds, Some(0), "no build at start for a current snapshot");
    assert_eq!(data_current(&data), first);

    // Another base_url (as another history_depth or another eggcat would): the old snapshot is
    // served at once, and a new one is built and served without waiting for the refresh.
    let other = std::fs::read_to_string(&config)
        .unwrap()
        .replace(&listen, "base_url = \"https://eggs.example\"\n");
    std::fs::write(&config, other).unwrap();
    let mut child = spawn_serve(&config, port, &[], std::process::Stdio::piped());
    wait_until("a build at start is counted", WAIT, || {
        builds_run(port).is_some_and(|n| n >= 1)
    });
    wait_until("the new snapshot is served", WAIT, || {
        answer_of(port, "/api/v1/eggs/eggs-a.json")
            .is_some_and(|doc| doc.contains("https://eggs.example/"))
    });
    let _ = child.kill();
    let _ = child.wait();
    let mut log = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut log).unwrap();
    assert_ne!(data_current(&data), first);
    assert!(
        log.contains("serving the current snapshot and rebuilding it now: it was made by another version of eggcat or with another base_url or history_depth"),
        "{log}"
    );
}

#[test]
fn serve_keeps_the_last_good_catalog_when_a_rebuild_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, config) = one_egg(tmp.path());
    assert!(build_with(&config).status.success());
    // The upstream disappears; the server rebuilds every second.
    std::fs::rename(&repo.dir, tmp.path().join("gone")).unwrap();
    let port = free_port();
    let mut child = spawn_serve(
        &config,
        port,
        &["--refresh", "1s"],
        std::process::Stdio::null(),
    );
    // A rebuild (every second) finds the source gone and publishes the kept egg.
    let data = tmp.path().join("data");
    let status = || -> Option<serde_json::Value> {
        let path = data_current(&data).join("api/v1/_status.json");
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    };
    wait_until("a rebuild reports the failed source", WAIT, || {
        status().is_some_and(|s| s["sources"][0]["status"] == "failed")
    });
    let status = status().unwrap();
    assert_eq!(status["sources"][0]["keptPrevious"], true);
    wait_until("the rebuilt catalog is served", WAIT, || {
        answer_of(port, "/api/v1/_status.json").is_some_and(|a| a.contains("\"keptPrevious\":true"))
    });
    let egg = status_of(port, "/api/v1/eggs/eggs-a.json");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(egg, Some(200), "the kept egg is still served");
}
