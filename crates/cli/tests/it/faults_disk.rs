//! Faults, second part: the disk. A full disk during a build and during `--out` (a small tmpfs
//! mounted by the test: it runs as root on CI, where `EGGCAT_ROOT_TESTS=require` makes a mount
//! that fails a failure; elsewhere it is skipped with one line), a data dir
//! made read-only under a running `eggcat serve`, and a current snapshot damaged by hand (a
//! truncated document, a missing import file). Each time: a clear error, the last good catalog
//! served and intact, nothing left behind, and the next build repairs what was damaged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::faults::{complete, current_id, leftovers};
use crate::support::*;

/// A mount made by the test, unmounted when dropped.
struct Mount(PathBuf);

impl Mount {
    /// A tmpfs of `size` (`4m`) at `dir`, or `None` (with one line saying the test is skipped,
    /// or a failure in strict mode) when this process cannot mount.
    fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        std::fs::create_dir_all(dir).unwrap();
        let options = format!("size={size}");
        mount(&["-t", "tmpfs", "-o", &options, "tmpfs"], dir).then(|| Mount(dir.to_path_buf()))
    }

    /// `dir` mounted over itself read-only, or `None` (skipped) when this process cannot mount.
    fn read_only(dir: &Path) -> Option<Mount> {
        let dir_str = dir.to_str().unwrap();
        if !mount(&["--bind", dir_str], dir) {
            return None;
        }
        let guard = Mount(dir.to_path_buf());
        mount(&["-o", "remount,bind,ro", dir_str], dir).then_some(guard)
    }
}

impl Drop for Mount {
    /// Unmounts lazily: a server still serving from the mount holds its snapshot's folder open
    /// (the pin that keeps a served snapshot from being pruned), which a plain `umount` refuses
    /// as busy.
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("--lazy").arg(&self.0).status();
    }
}

fn mount(args: &[&str], at: &Path) -> bool {
    let out = Command::new("mount").args(args).arg(at).output();
    let refused = match &out {
        Ok(out) if out.status.success() => return true,
        Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        Err(e) => format!("mount does not run: {e}"),
    };
    skip_root_test(&format!(
        "cannot mount (needs root, as on CI): mount {}: {refused}",
        args.join(" ")
    ));
    false
}

/// Fills the file system of `dir` with one file, until a write fails.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).unwrap();
    let chunk = vec![0u8; 4096];
    while file.write_all(&chunk).is_ok() {}
    let _ = file.flush();
    path
}

fn eggcat() -> Command {
    Command::new(env!("CARGO_BIN_EXE_eggcat"))
}

/// An upstream of `n` eggs and a config with `data_dir` set.
fn setup(dir: &Path, n: usize, data_dir: &Path) -> (Repo, PathBuf) {
    let repo = Repo::init(dir.join("eggs"), "main");
    for i in 0..n {
        repo.write(
            &format!("games/g{i}/egg-game-{i}.json"),
            egg_json(&format!("Game {i}")),
        );
    }
    repo.commit("eggs");
    let config = dir.join("eggcat.toml");
    let text = format!(
        "data_dir = \"{}\"\n[images]\nenabled = false\n[[source]]\nurl = \"{}\"\nowner = \"o\"\nrepo = \"eggs\"\n",
        data_dir.display(),
        repo.url()
    );
    std::fs::write(&config, text).unwrap();
    (repo, config)
}

fn build(config: &Path, out: Option<&Path>) -> std::process::Output {
    let mut cmd = eggcat();
    cmd.args(["build", "--config"]).arg(config);
    if let Some(out) = out {
        cmd.arg("--out").arg(out);
    }
    cmd.output().unwrap()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_owned()
}

/// Every file under `dir` (not the filler) with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = format!("{prefix}{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &format!("{name}/"), out);
            } else if name != "filler" {
                out.insert(name, std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

#[test]
fn a_full_disk_fails_a_build_clearly_and_keeps_the_last_catalog_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let Some(_mount) = Mount::tmpfs(&data, "8m") else {
        return;
    };
    let (repo, config) = setup(tmp.path(), 40, &data);
    let first = build(&config, None);
    assert!(first.status.success(), "{}", stderr_of(&first));
    let before = current_id(&data).unwrap();
    let filler = fill(&data);
    repo.write("games/g0/egg-game-0.json", egg_json("Game 0 changed"));
    repo.commit("a change");

    let full = build(&config, None);
    let stderr = stderr_of(&full);
    assert!(!full.status.success(), "a build on a full disk fails");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("eggcat: error: build failed:")
            && last.contains("No space left on device"),
        "one clear last line: {stderr}"
    );
    assert_eq!(current_id(&data).as_deref(), Some(before.as_str()));
    complete(&data).expect("the last catalog is intact");
    assert_eq!(
        leftovers(&data),
        Vec::<String>::new(),
        "nothing left behind"
    );

    // With room again, the next build publishes the change.
    std::fs::remove_file(filler).unwrap();
    let next = build(&config, None);
    assert!(next.status.success(), "{}", stderr_of(&next));
    assert_ne!(current_id(&data).unwrap(), before);
    complete(&data).unwrap();
    let current = data.join("current").join("api/v1/eggs/eggs-game-0.json");
    let doc = std::fs::read_to_string(current).unwrap();
    assert!(doc.contains("Game 0 changed"), "{doc}");
}

#[test]
fn a_full_disk_during_out_fails_clearly_and_leaves_out_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // Room for the tree with its precompressed forms, twice (a new tree is written beside the
    // old one before it replaces it).
    let Some(_mount) = Mount::tmpfs(&out, "16m") else {
        return;
    };
    let (repo, config) = setup(tmp.path(), 40, &tmp.path().join("data"));
    let first = build(&config, Some(&out));
    assert!(first.status.success(), "{}", stderr_of(&first));
    let before = tree(&out);
    let filler = fill(&out);
    for i in 0..40 {
        let name = format!("Game {i} with a longer name, so that every file changes");
        repo.write(&format!("games/g{i}/egg-game-{i}.json"), egg_json(&name));
    }
    repo.commit("every egg changes");

    let full = build(&config, Some(&out));
    let stderr = stderr_of(&full);
    assert!(!full.status.success());
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains("No space left on device") && last.contains(&*out.to_string_lossy()),
        "one clear last line naming the folder: {stderr}"
    );
    assert!(
        tree(&out) == before,
        "the --out tree is the previous catalog, whole, with no temporary file"
    );

    std::fs::remove_file(filler).unwrap();
    let next = build(&config, Some(&out));
    assert!(next.status.success(), "{}", stderr_of(&next));
    let doc = std::fs::read_to_string(out.join("api/v1/eggs/eggs-game-3.json")).unwrap();
    assert!(doc.contains("Game 3 with a longer name"));
}

/// `eggcat serve` on `config`, its log in `log`.
fn serve(config: &Path, port: u16, log: &Path) -> Child {
    eggcat()
        .args(["serve", "--refresh", "1s", "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--config")
        .arg(config)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// The status and body of a GET of `path`, or `None` when nothing answers.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .ok()?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).ok()?;
    let status = answer.get(9..12)?.parse().ok()?;
    let body = answer.split_once("\r\n\r\n")?.1.to_owned();
    Some((status, body))
}

/// Kills the server when dropped (a failed assertion must not leave it running).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_on_a_read_only_data_dir_keeps_serving_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (repo, config) = setup(tmp.path(), 3, &data);
    let first = build(&config, None);
    assert!(first.status.success(), "{}", stderr_of(&first));
    let Some(read_only) = Mount::read_only(&data) else {
        return;
    };
    repo.write("games/g9/egg-game-9.json", egg_json("Game 9"));
    repo.commit("a new egg");
    let (port, log) = (free_port(), tmp.path().join("serve.log"));
    let _server = Server(serve(&config, port, &log));

    wait_until("/readyz says the rebuild failed", WAIT, || {
        get(port, "/readyz").is_some_and(|(_, b)| b.contains("\"rebuild_failed\""))
    });
    let (status, ready) = get(port, "/readyz").unwrap();
    assert_eq!(status, 200, "still serving: {ready}");
    assert!(ready.contains("\"status\":\"degraded\""), "{ready}");
    assert!(ready.contains("Read-only file system"), "{ready}");
    let (_, metrics) = get(port, "/metrics").unwrap();
    assert!(metrics.contains("eggcat_last_build_success 0"), "{metrics}");
    assert_eq!(get(port, "/api/v1/eggs/eggs-game-1.json").unwrap().0, 200);
    assert_eq!(get(port, "/api/v1/eggs/eggs-game-9.json").unwrap().0, 404);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("rebuild failed"), "{logged}");

    // Writable again: the next rebuild publishes, and the server is ready again.
    drop(read_only);
    wait_until("the new egg is served", WAIT, || {
        get(port, "/api/v1/eggs/eggs-game-9.json").is_some_and(|(s, _)| s == 200)
    });
    wait_until("/readyz is ready again", WAIT, || {
        get(port, "/readyz").is_some_and(|(_, b)| b.contains("\"status\":\"ready\""))
    });
    complete(&data).unwrap();
}

#[test]
fn serve_on_a_damaged_snapshot_serves_the_rest_says_so_and_the_next_build_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (repo, config) = setup(tmp.path(), 3, &data);
    let first = build(&config, None);
    assert!(first.status.success(), "{}", stderr_of(&first));
    let current = data.join("current");
    let egg = "api/v1/eggs/eggs-game-0.json";
    let import = "api/v1/eggs/eggs-game-1/pelican.yaml";
    let egg_bytes = std::fs::read(current.join(egg)).unwrap();
    std::fs::write(current.join(egg), &egg_bytes[..egg_bytes.len() / 2]).unwrap();
    std::fs::remove_file(current.join(import)).unwrap();
    // The upstream is away: the build the server starts at once fails, and the damage stays in
    // view until it is back.
    let away = tmp.path().join("away");
    std::fs::rename(&repo.dir, &away).unwrap();
    let (port, log) = (free_port(), tmp.path().join("serve.log"));
    let _server = Server(serve(&config, port, &log));

    // The catalog is served a moment after the server listens, and its files are checked
    // against the manifest in the background right after.
    wait_until("the damage is found", WAIT, || {
        get(port, "/readyz").is_some_and(|(s, b)| s == 200 && b.contains(egg) && b.contains(import))
    });
    let (status, ready) = get(port, "/readyz").unwrap();
    assert_eq!(status, 200, "{ready}");
    assert!(ready.contains("\"status\":\"degraded\""), "{ready}");
    assert!(ready.contains("\"code\":\"snapshot_damaged\""), "{ready}");
    assert!(ready.contains(egg) && ready.contains(import), "{ready}");
    let (_, metrics) = get(port, "/metrics").unwrap();
    assert!(
        metrics.contains("eggcat_snapshot_damaged_files 2"),
        "{metrics}"
    );
    // The damaged files are not served half; the rest is.
    assert_eq!(get(port, &format!("/{egg}")).unwrap().0, 404);
    assert_eq!(get(port, &format!("/{import}")).unwrap().0, 404);
    let intact = get(port, "/api/v1/eggs/eggs-game-2.json").unwrap();
    assert_eq!(intact.0, 200);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("damaged file in the current snapshot") && logged.contains(egg),
        "{logged}"
    );

    std::fs::rename(&away, &repo.dir).unwrap();
    wait_until("the repaired document is served", WAIT, || {
        get(port, &format!("/{egg}")).is_some_and(|(s, _)| s == 200)
    });
    wait_until("/readyz is ready again", WAIT, || {
        get(port, "/readyz").is_some_and(|(_, b)| b.contains("\"status\":\"ready\""))
    });
    // Made anew (for the server's address, so not byte for byte the file that was damaged).
    let (_, body) = get(port, &format!("/{egg}")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc["egg"]["name"], "Game 0");
    assert_eq!(get(port, &format!("/{import}")).unwrap().0, 200);
    let (_, metrics) = get(port, "/metrics").unwrap();
    assert!(
        metrics.contains("eggcat_snapshot_damaged_files 0"),
        "{metrics}"
    );
    complete(&data).unwrap();
}

/// Without `base_url`, the public address is `http://` + the listen address after `--listen`
/// (issue 41): a snapshot built for the default 8080 is rebuilt at start, and then every link a
/// served document or page carries names the port `serve` listens on, not 8080.
#[test]
fn serve_links_to_its_listen_address_when_no_base_url_is_set() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (_repo, config) = setup(tmp.path(), 3, &data);
    let first = build(&config, None);
    assert!(first.status.success(), "{}", stderr_of(&first));
    let (port, log) = (free_port(), tmp.path().join("serve.log"));
    assert_ne!(port, 8080);
    let _server = Server(serve(&config, port, &log));
    let base = format!("http://127.0.0.1:{port}/");
    let host = format!("127.0.0.1:{port}/");
    let egg = "/api/v1/eggs/eggs-game-1.json";
    wait_until(
        "the snapshot is rebuilt for the listen address",
        WAIT,
        || get(port, egg).is_some_and(|(s, b)| s == 200 && b.contains(&base)),
    );
    for path in [
        egg,
        "/api/v1/eggs/eggs-game-1/pelican.json",
        "/api/v1/eggs/eggs-game-1/pterodactyl.json",
        "/api/v1/compat/pelican.json",
        "/feed.atom",
        "/",
        "/eggs/eggs-game-1/",
    ] {
        let (status, body) = get(port, path).unwrap();
        assert_eq!(status, 200, "{path}");
        // The pages break a URL for wrapping (`http:/<wbr>/...`): the host and port stay whole.
        let named = if path.ends_with('/') { &host } else { &base };
        assert!(body.contains(named), "{path} names no {named}:\n{body}");
        assert!(!body.contains(":8080"), "{path} still names 8080:\n{body}");
    }
}
