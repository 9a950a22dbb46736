//! The web catalog in a real browser: `node --test tests/browser/` (Playwright driving the
//! system Chromium, axe-core) against the real `eggcat serve` and against nginx with the
//! generated rules serving an `eggcat build --out` tree. The catalog is the bundled demo
//! (demo/upstream.bundle, always there) plus a hostile egg and an egg with four versions in git made
//! here (they live only in this test), plus the ten shared repositories when
//! `../shared/upstream` is beside the checkout (required under `EGGCAT_CORPUS=require`, as CI
//! sets it: then a missing corpus fails the test instead of leaving its part out).
//!
//! Skips with a message when node, Chromium, nginx or tests/browser/node_modules are missing,
//! unless `EGGCAT_BROWSER_TESTS=require` (CI), which turns every missing piece into a failure.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

const CHROMIUM: &str = "/usr/lib/chromium/chromium";
const NGINX: &str = "/usr/sbin/nginx";

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn required() -> bool {
    std::env::var("EGGCAT_BROWSER_TESTS").is_ok_and(|v| v == "require")
}

/// Skips (or, when required, fails) with `why`.
fn missing(why: &str) {
    assert!(!required(), "EGGCAT_BROWSER_TESTS=require but {why}");
    eprintln!(
        "SKIPPED: browser tests: {why} (set EGGCAT_BROWSER_TESTS=require to make this a failure)"
    );
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The hostile egg's repository: HTML in the name, script everywhere in the README, an SVG
/// icon with script, a 2 MB description.
fn hostile_repo(dir: &Path) -> Repo {
    let svg = "<svg xmlns='http://www.w3.org/2000/svg' onload='window.pwned=1'><script>window.pwned=1</script></svg>";
    let icon = format!(
        "data:image/svg+xml;base64,{}",
        base64_encode(svg.as_bytes())
    );
    let description = format!(
        "Hostile <img src=x onerror=window.pwned=1> {}",
        "x".repeat(2 * 1024 * 1024)
    );
    let egg = serde_json::json!({
        "_comment": "hostile",
        "meta": {"version": "PTDL_v2", "update_url": null},
        "name": "<script>window.pwned=1</script>Hostile <b>egg</b>",
        "author": "\"><script>window.pwned=1</script>",
        "description": description,
        "image": icon,
        "docker_images": {"<img src=x onerror=window.pwned=1>": "ghcr.io/x/y:\"><script>"},
        "startup": "./run {{SERVER_PORT}} {{EVIL}} </code><script>window.pwned=1</script>",
        "config": {"files": "{}", "startup": "{}", "logs": "{}", "stop": "<script>"},
        "scripts": {"installation": {"container": "debian", "entrypoint": "bash", "script": "echo '<script>window.pwned=1</script>'"}},
        "variables": [{"name": "<i>Evil</i>", "description": "<script>", "env_variable": "EVIL",
            "default_value": "\"><img src=x onerror=window.pwned=1>", "user_viewable": true,
            "user_editable": true, "rules": "required|regex:/<script>/"}]
    });
    let readme = "# Hostile\n\n<script>window.pwned=1</script>\n\n<img src=\"https://evil.example/track.png\" onerror=\"window.pwned=1\">\n\n\
        [click me](javascript:window.pwned=1) [data](data:text/html,<script>x</script>)\n\n\
        <a href=\"javascript:window.pwned=1\" onclick=\"window.pwned=1\">click me too</a>\n\n\
        <iframe src=\"https://evil.example/\"></iframe><form action=\"https://evil.example/\"><input name=a></form>\n\n\
        <style>body{display:none}</style><div style=\"position:fixed\">styled</div>\n\n![pixel](https://evil.example/p.gif) [relative](docs/x.md)\n";
    let repo = Repo::init(dir, "main");
    repo.write(
        "evil/egg-evil.json",
        serde_json::to_vec_pretty(&egg).unwrap(),
    )
    .write("evil/README.md", readme);
    repo.commit("hostile");
    repo
}

/// An egg's repository with a history: the egg added, then its docker image and startup
/// command changed (both can break servers), then its install script, then the file moved to
/// another folder, one commit a day in February 2026. The egg page's Changes section lists the
/// four versions; the feed has them among its newest entries (the other git sources' commits
/// are of 2026-01-01, `support::git`'s date, and the demo's of 2025).
fn history_repo(dir: &Path) -> Repo {
    // 2026-02-01T12:00:00Z, and a day.
    const FEB_1: i64 = 1_769_947_200;
    const DAY: i64 = 86_400;
    let egg = |image: &str, startup: &str, script: &str| {
        let egg = serde_json::json!({
            "_comment": "DO NOT EDIT: FILE GENERATED AUTOMATICALLY BY PTERODACTYL PANEL - PTERODACTYL.IO",
            "meta": {"version": "PTDL_v2", "update_url": null},
            "name": "Paper history", "author": "eggs@example.com",
            "description": "A Paper server whose egg changed a few times.",
            "features": null,
            "docker_images": {"Java": image},
            "file_denylist": [],
            "startup": startup,
            "config": {"files": "{}", "startup": "{\"done\": \")! For help, type \"}", "logs": "{}", "stop": "stop"},
            "scripts": {"installation": {"container": "ghcr.io/pterodactyl/installers:alpine", "entrypoint": "ash", "script": script}},
            "variables": [{"name": "Server jar", "description": "The jar to run.", "env_variable": "SERVER_JARFILE",
                "default_value": "server.jar", "user_viewable": true, "user_editable": true,
                "rules": "required|regex:/^([\\w\\d._-]+)(\\.jar)$/", "field_type": "text"}]
        });
        serde_json::to_vec_pretty(&egg).unwrap()
    };
    let script_1 = "#!/bin/ash\ncd /mnt/server\ncurl -o server.jar https://example.invalid/paper.jar\necho done\n";
    let script_2 = "#!/bin/ash\ncd /mnt/server\ncurl -sSL -o server.jar https://example.invalid/paper.jar\necho done\n";
    let repo = Repo::init(dir, "main");
    repo.write(
        "paper/egg-paper.json",
        egg(
            "ghcr.io/pterodactyl/yolks:java_17",
            "java -jar {{SERVER_JARFILE}}",
            script_1,
        ),
    );
    repo.commit_at("add Paper", FEB_1);
    repo.write(
        "paper/egg-paper.json",
        egg(
            "ghcr.io/pterodactyl/yolks:java_21",
            "java -Xms128M -jar {{SERVER_JARFILE}} nogui",
            script_1,
        ),
    );
    repo.commit_at("Paper: Java 21 and a new startup command", FEB_1 + DAY);
    repo.write(
        "paper/egg-paper.json",
        egg(
            "ghcr.io/pterodactyl/yolks:java_21",
            "java -Xms128M -jar {{SERVER_JARFILE}} nogui",
            script_2,
        ),
    );
    repo.commit_at(
        "Paper: the install script downloads quietly",
        FEB_1 + 2 * DAY,
    );
    git(&repo.dir, &["mv", "paper", "minecraft"]);
    repo.commit_at("move Paper under minecraft/", FEB_1 + 3 * DAY);
    repo
}

fn base64_encode(bytes: &[u8]) -> String {
    const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Status code of `GET path` on 127.0.0.1:port, or None when nothing answers yet.
fn status_of(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

fn wait_ok(port: u16, path: &str) {
    // A debug build compresses every file of the real catalog before it serves: minutes.
    let deadline = Instant::now() + Duration::from_secs(300);
    while status_of(port, path) != Some(200) {
        assert!(
            Instant::now() < deadline,
            "{path} on port {port} never answered 200"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `eggcat build --config CONFIG --out OUT`, which must succeed.
fn build_out(config: &Path, out: &Path) {
    let built = Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .arg("build")
        .arg("--config")
        .arg(config)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "build: {}",
        String::from_utf8_lossy(&built.stderr)
    );
}

/// Writes `data_dir/images.json` as `eggcat-images` keeps the registries' answers, fresh, for
/// every image reference of the catalog in `out`: install containers on amd64 and arm64, the
/// runtime images in turn on both or on amd64 alone, and the first runtime image missing. So
/// some eggs run on arm64 and others not, and one card marks a missing image; and every install
/// download the eggs' scripts fetch, the first missing.
fn seed_image_answers(out: &Path, file: &Path) {
    let mut runtime = std::collections::BTreeSet::new();
    let mut install = std::collections::BTreeSet::new();
    let mut downloads = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(out.join("api/v1/eggs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('_') || !name.ends_with(".json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for download in doc["meta"]["downloads"].as_array().into_iter().flatten() {
            if let Some(url) = download["checked"].as_str() {
                downloads.insert(url.to_owned());
            }
        }
        for image in doc["meta"]["images"].as_array().unwrap() {
            if let Some(reference) = image["reference"].as_str() {
                match image["use"].as_str() {
                    Some("install") => install.insert(reference.to_owned()),
                    _ => runtime.insert(reference.to_owned()),
                };
            }
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let both = serde_json::json!(["linux/amd64", "linux/arm64/v8"]);
    let mut references = serde_json::Map::new();
    for (n, reference) in runtime.iter().filter(|r| !install.contains(*r)).enumerate() {
        let answer = match n {
            0 => {
                serde_json::json!({"status": "missing", "detail": "the registry has no such name or tag (404)"})
            }
            n if n % 2 == 1 => {
                serde_json::json!({"status": "present", "digest": format!("sha256:{n:064x}"), "platforms": both})
            }
            n => {
                serde_json::json!({"status": "present", "digest": format!("sha256:{n:064x}"), "platforms": ["linux/amd64"]})
            }
        };
        references.insert(reference.clone(), answer);
    }
    for (n, reference) in install.iter().enumerate() {
        let digest = format!("sha256:{:064x}", 1_000_000 + n);
        references.insert(
            reference.clone(),
            serde_json::json!({"status": "present", "digest": digest, "platforms": both}),
        );
    }
    for answer in references.values_mut() {
        answer["since"] = now.into();
        answer["checkedAt"] = now.into();
    }
    // The install downloads too (issue 38): the first missing, the others present, so that one
    // card marks a missing download and the build asks no host on the internet.
    let mut download_answers = serde_json::Map::new();
    for (n, url) in downloads.iter().enumerate() {
        let mut answer = match n {
            0 => serde_json::json!({"status": "missing", "detail": "the host answered 404"}),
            _ => serde_json::json!({"status": "present"}),
        };
        answer["since"] = now.into();
        answer["checkedAt"] = now.into();
        download_answers.insert(url.clone(), answer);
    }
    let cache = serde_json::json!({"references": references, "downloads": download_answers});
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, serde_json::to_vec(&cache).unwrap()).unwrap();
}

#[test]
fn the_web_catalog_in_chromium() {
    let browser_dir = workspace().join("tests/browser");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    for (ok, what) in [
        (node_ok, "node is not installed"),
        (
            Path::new(CHROMIUM).exists(),
            "Chromium is not installed (/usr/lib/chromium/chromium)",
        ),
        (Path::new(NGINX).exists(), "nginx is not installed"),
        (
            browser_dir.join("node_modules/playwright-core").is_dir(),
            "tests/browser/node_modules is missing (npm ci in tests/browser)",
        ),
    ] {
        if !ok {
            return missing(what);
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut config = format!("data_dir = \"data\"\nbase_url = \"http://127.0.0.1:{port}\"\n");
    // The bundled demo, as `eggcat serve --config demo/eggcat.toml` reads it: a git bundle (at
    // the default depth here, which the other sources share: its whole history).
    let demo = workspace()
        .join("demo/upstream.bundle")
        .canonicalize()
        .unwrap();
    config.push_str(&format!(
        "[[source]]\nurl = \"{}\"\nlabel = \"demo\"\nowner = \"eggcat\"\nrepo = \"demo-eggs\"\nbranch = \"main\"\n",
        demo.display()
    ));
    // The real corpus when it is beside the checkout (looked for here, not through
    // `shared_upstream`: without it these tests still run, on the demo). In strict mode
    // (`EGGCAT_CORPUS=require`) a missing corpus fails the test, and catalog.test.js, which
    // inherits the variable, checks that the catalog it is given holds the corpus.
    let shared = workspace().join("../shared/upstream/pelican-eggs");
    let mut names: Vec<String> = match std::fs::read_dir(&shared) {
        Ok(dir) => dir
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect(),
        Err(_) => {
            assert!(
                !strict("EGGCAT_CORPUS"),
                "EGGCAT_CORPUS=require but the real corpus is missing: {} is not a folder \
                 (the browser tests' corpus part)",
                shared.display()
            );
            skip_test(&format!(
                "the corpus part: {} is missing; running on the demo catalog only",
                shared.display()
            ));
            Vec::new()
        }
    };
    names.sort();
    for name in &names {
        let repo = repo_from(&shared.join(name), &tmp.path().join("repos").join(name));
        config.push_str(&format!(
            "[[source]]\nurl = \"{}\"\nlabel = \"pelican\"\nowner = \"pelican-eggs\"\nrepo = \"{name}\"\n",
            repo.url()
        ));
    }
    let hostile = hostile_repo(&tmp.path().join("repos/hostile"));
    config.push_str(&format!(
        "[[source]]\nurl = \"{}\"\nlabel = \"hostile\"\nowner = \"hostile\"\nrepo = \"hostile-eggs\"\n",
        hostile.url()
    ));
    let history = history_repo(&tmp.path().join("repos/history"));
    config.push_str(&format!(
        "[[source]]\nurl = \"{}\"\nlabel = \"history\"\nowner = \"history\"\nrepo = \"history-eggs\"\n",
        history.url()
    ));
    let config_path = tmp.path().join("eggcat.toml");
    let out_dir = tmp.path().join("out");
    // First with image checks off, to learn the catalog's image references; then with them on,
    // every answer given by the registries' cache in `data_dir` (seeded below), so that
    // nothing is asked and the "Runs on" filter and the missing-image marks have answers.
    std::fs::write(&config_path, format!("{config}[images]\nenabled = false\n")).unwrap();
    build_out(&config_path, &out_dir);
    seed_image_answers(&out_dir, &tmp.path().join("data/images.json"));
    std::fs::write(&config_path, format!("{config}[images]\nttl = \"24h\"\n")).unwrap();
    build_out(&config_path, &out_dir);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("api/v1/_status.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["images"]["unknown"], 0,
        "every answer came from the seeded cache: no registry was asked"
    );
    assert_eq!(
        report["downloads"]["unknown"], 0,
        "every download's answer came from the seeded cache: no host was asked"
    );
    assert!(
        out_dir.join("index.html").is_file(),
        "the build wrote no web catalog page"
    );
    let index: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(out_dir.join("api/v1/eggs/_index.json")).unwrap())
            .unwrap();
    let hostile_slug = index
        .iter()
        .find(|i| i["repo"] == "hostile-eggs")
        .and_then(|i| i["slug"].as_str())
        .expect("the hostile egg is indexed")
        .to_owned();
    let history_slug = index
        .iter()
        .find(|i| i["repo"] == "history-eggs")
        .and_then(|i| i["slug"].as_str())
        .expect("the egg with a history is indexed")
        .to_owned();

    let _serve = Killed(
        Command::new(env!("CARGO_BIN_EXE_eggcat"))
            .arg("serve")
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .arg("--config")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_ok(port, "/");

    // nginx serving the `--out` tree with the rules the build wrote beside it, as
    // docs/deploy.md tells a host to (one process, so that the kill at the end stops it whole).
    let nginx = crate::hosts::start_nginx(&out_dir, &tmp.path().join("nginx"))
        .expect("nginx is installed (checked above)");
    let nginx_port = nginx.port;

    let shots = workspace().join("target/browser-screenshots");
    let node = || {
        Command::new("node")
            .arg("--test")
            .arg("--test-concurrency=1")
            .current_dir(&browser_dir)
            .env(
                "EGGCAT_URLS",
                format!("http://127.0.0.1:{port},http://127.0.0.1:{nginx_port}"),
            )
            .env("EGGCAT_HOSTILE", &hostile_slug)
            .env("EGGCAT_HISTORY", &history_slug)
            .env("EGGCAT_SCREENSHOTS", &shots)
            .env("EGGCAT_CORPUS_REPOS", names.join(","))
            .env("CHROMIUM", CHROMIUM)
            .output()
            .unwrap()
    };
    // A second run only after a failed first, whose report is printed: under a full test run on
    // two cores Chromium has now and then stalled for Playwright's 30 s on one step (a load
    // event, a click), on either host and in a different subtest each time (3 of 7 full runs on
    // 2026-11-26); a failure in both runs fails the test.
    let mut run = node();
    if !run.status.success() {
        eprintln!(
            "browser tests: the first run failed, running them once more; its report:\n{}",
            String::from_utf8_lossy(&run.stdout)
        );
        run = node();
    }
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "node --test failed twice; the second run:\n{report}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    eprintln!("browser tests passed; screenshots in {}", shots.display());
}
