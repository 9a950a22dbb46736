//! Test fixtures: real git repositories in temp dirs, real git servers on 127.0.0.1 (git daemon
//! and git http-backend behind a small CGI host), and helpers to run a build.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use eggcat_catalog::wire::Report;
use eggcat_pipeline::{BuildOptions, PipelineError, Rebuilt, rebuild};
use eggcat_store::{SnapshotFiles, Store};
use eggcat_upstream::{Limits, Source, SourceSpec};

// `git` under a fixed identity and date, work-tree repositories used as upstreams, the real
// corpus (`../shared/upstream/pelican-eggs`, or a skip with one line, a failure under
// `EGGCAT_CORPUS=require`) and the one line of a skipped test: the workspace's test kit, shared
// with the other crates' tests.
pub(crate) use eggcat_testkit::{Repo, git, pelican_eggs as shared_upstream, skip_test, strict};

/// Skips a test that needs root (to mount a tmpfs or a read-only bind, or to run eggcat as
/// another user) with one line saying `why`; in strict mode (`EGGCAT_ROOT_TESTS=require`, which
/// CI's `.ci/run` sets: CI runs as root) it fails instead, so that a CI run without the
/// capability can never pass for one that made these faults for real.
pub(crate) fn skip_root_test(why: &str) {
    assert!(
        !strict("EGGCAT_ROOT_TESTS"),
        "EGGCAT_ROOT_TESTS=require but the test cannot run: {why}"
    );
    skip_test(why);
}

/// Copies a folder of the shared data into a new git repository and commits it.
pub(crate) fn repo_from(src: &Path, dst: &Path) -> Repo {
    copy_dir(src, dst);
    let repo = Repo::init(dst, "main");
    repo.commit("snapshot");
    repo
}

pub(crate) fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), to).unwrap();
        }
    }
}

/// The ten shared repositories as git repositories under `dir/repos` (one commit each), as
/// sources in repository order.
pub(crate) fn shared_sources(shared: &Path, dir: &Path) -> Vec<Source> {
    let mut sources = Vec::new();
    for e in std::fs::read_dir(shared).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        let repo = repo_from(&shared.join(&name), &dir.join("repos").join(&name));
        sources.push(source(&repo.url(), "pelican-eggs", &name));
    }
    sources.sort_by(|a, b| a.repo.cmp(&b.repo));
    sources
}

/// The bundled demo (`demo/upstream.bundle`, a git bundle) as `demo/eggcat.toml` configures it.
pub(crate) fn demo_source() -> Source {
    let spec = SourceSpec {
        url: "upstream.bundle".into(),
        label: Some("demo".into()),
        owner: Some("eggcat".into()),
        repo: Some("demo-eggs".into()),
        branch: Some("main".into()),
        raw_url: None,
    };
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo");
    Source::resolve(&spec, &demo).unwrap()
}

/// The fetch limits `demo/eggcat.toml` sets: its `history_depth`.
pub(crate) fn demo_limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(60),
        history: eggcat_upstream::HistoryDepth::Commits(8),
        ..Limits::default()
    }
}

/// A source with owner/label set, from a URL.
pub(crate) fn source(url: &str, owner: &str, repo: &str) -> Source {
    let spec = SourceSpec {
        url: url.into(),
        owner: Some(owner.into()),
        repo: Some(repo.into()),
        label: Some("test".into()),
        ..SourceSpec::default()
    };
    Source::resolve(&spec, Path::new("/")).unwrap()
}

/// A clock that starts at a fixed time and advances 1 s per reading.
pub(crate) struct Clock(AtomicU64);

impl Clock {
    pub(crate) fn new(start_ms: u64) -> Clock {
        Clock(AtomicU64::new(start_ms))
    }

    pub(crate) fn now(&self) -> u64 {
        self.0.fetch_add(1000, Ordering::SeqCst)
    }
}

/// Builds with the library, a fixed clock and default limits.
/// The public address test builds are made for.
pub(crate) const TEST_BASE_URL: &str = "https://eggcat.example";

/// Saves `files` (a whole published tree, its status document among them) as the current
/// snapshot of `data_dir`, as a build writes one: precompressed forms and manifest included.
pub(crate) fn save_files(data_dir: &Path, files: std::collections::BTreeMap<String, Vec<u8>>) {
    let report: Report = serde_json::from_slice(&files["api/v1/_status.json"]).unwrap();
    let catalog = eggcat_catalog::Catalog {
        files,
        report,
        state: Default::default(),
    };
    Store::new(data_dir)
        .save(&catalog, &std::collections::HashSet::new())
        .unwrap();
}

/// Makes `app` serve the current snapshot of `data_dir` from disk, as `eggcat serve` does.
pub(crate) fn install_current(app: &std::sync::Arc<eggcat_server::App>, data_dir: &Path) {
    let served = Store::new(data_dir).served().expect("a current snapshot");
    app.install(&served).unwrap();
}

pub(crate) fn build(data_dir: &Path, sources: Vec<Source>, clock: &Clock) -> Outcome {
    try_build(data_dir, sources, clock).expect("build publishes")
}

pub(crate) fn try_build(
    data_dir: &Path,
    sources: Vec<Source>,
    clock: &Clock,
) -> Result<Outcome, PipelineError> {
    let limits = Limits {
        timeout: Duration::from_secs(60),
        ..Limits::default()
    };
    try_build_with(data_dir, sources, clock, limits)
}

/// [`try_build`] with other fetch limits (a history depth, ...).
pub(crate) fn try_build_with(
    data_dir: &Path,
    sources: Vec<Source>,
    clock: &Clock,
    limits: Limits,
) -> Result<Outcome, PipelineError> {
    // Tests never touch the internet: image checks are off unless a test turns them on against
    // its own registry (`rebuild_with`).
    let options = BuildOptions {
        sources,
        limits,
        base_url: TEST_BASE_URL.to_owned(),
        images: eggcat_images::Options::off(),
    };
    rebuild_with(data_dir, &options, clock)
}

/// What a rebuild left current, read back from disk as the tests inspect it: the build writes
/// its files into the snapshot as it makes them and keeps none in memory.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The build report (of the build that made the snapshot, when nothing changed).
    pub(crate) report: Report,
    /// The snapshot's folder.
    pub(crate) snapshot_dir: PathBuf,
    /// Its files, each checked against its manifest.
    pub(crate) snapshot: SnapshotFiles,
}

/// One rebuild with `options`: the published snapshot, or the current one when nothing changed.
pub(crate) fn rebuild_with(
    data_dir: &Path,
    options: &BuildOptions,
    clock: &Clock,
) -> Result<Outcome, PipelineError> {
    let store = Store::new(data_dir);
    match rebuild(&store, options, &|| clock.now(), &|_| {})? {
        Rebuilt::Built(outcome) => Ok(Outcome {
            report: outcome.report,
            ..current(&store, outcome.snapshot_dir)
        }),
        Rebuilt::Unchanged { snapshot_dir } => Ok(current(&store, snapshot_dir)),
    }
}

/// The current snapshot as an [`Outcome`]: what a rebuild that changed nothing leaves.
fn current(store: &Store, snapshot_dir: PathBuf) -> Outcome {
    let snapshot = store.read_current().unwrap().expect("a current snapshot");
    let report = serde_json::from_slice(&snapshot.files["api/v1/_status.json"]).unwrap();
    Outcome {
        report,
        snapshot_dir,
        snapshot,
    }
}

/// The egg document of `slug` in a build, parsed.
pub(crate) fn egg_doc(outcome: &Outcome, slug: &str) -> serde_json::Value {
    let bytes = outcome
        .snapshot
        .files
        .get(&format!("api/v1/eggs/{slug}.json"))
        .unwrap_or_else(|| panic!("no egg {slug}"));
    serde_json::from_slice(bytes).unwrap()
}

/// Skipped entries as (path, message).
pub(crate) fn skipped(report: &Report) -> Vec<(String, String)> {
    report
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.message.clone()))
        .collect()
}

/// A free port on 127.0.0.1.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "server on port {port} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `git daemon` serving every repository below `base` on 127.0.0.1 (git:// URLs).
pub(crate) struct GitDaemon {
    child: Child,
    pub(crate) port: u16,
}

impl GitDaemon {
    pub(crate) fn start(base: &Path) -> GitDaemon {
        let port = free_port();
        // `git-daemon` itself, not `git daemon`: `git` runs it as a child of its own, which
        // killing `git` on drop left running after the tests (found in `ps` after a suite run).
        let exec_path = Command::new("git")
            .arg("--exec-path")
            .output()
            .expect("git runs");
        let exec_path = String::from_utf8(exec_path.stdout).expect("a UTF-8 path");
        let child = Command::new(Path::new(exec_path.trim()).join("git-daemon"))
            .args([
                "--export-all",
                "--reuseaddr",
                "--informative-errors",
                "--listen=127.0.0.1",
            ])
            .arg(format!("--port={port}"))
            .arg(format!("--base-path={}", base.display()))
            .arg(base)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon starts");
        wait_for_port(port);
        GitDaemon { child, port }
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `git http-backend` behind a minimal CGI host on 127.0.0.1 (smart HTTP, protocol v2 when the
/// client asks for it).
pub(crate) struct GitHttp {
    pub(crate) port: u16,
}

impl GitHttp {
    pub(crate) fn start(root: &Path) -> GitHttp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let root = root.to_path_buf();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let root = root.clone();
                std::thread::spawn(move || {
                    let _ = cgi(stream, &root);
                });
            }
        });
        GitHttp { port }
    }
}

/// One HTTP/1.1 exchange, answered by `git http-backend`, then the connection is closed.
fn cgi(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if let Some(len) = header("content-length") {
        let mut buf = vec![0; len.parse().unwrap_or(0)];
        reader.read_exact(&mut buf)?;
        body = buf;
    } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut cmd = Command::new("git");
    cmd.arg("http-backend")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("SERVER_PROTOCOL", "HTTP/1.1")
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(ct) = header("content-type") {
        cmd.env("CONTENT_TYPE", ct);
    }
    if let Some(ce) = header("content-encoding") {
        cmd.env("HTTP_CONTENT_ENCODING", ce);
    }
    if let Some(proto) = header("git-protocol") {
        cmd.env("GIT_PROTOCOL", proto);
    }
    let mut child = cmd.spawn()?;
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let out = child.wait_with_output()?;
    let _ = writer.join();
    let split = out
        .stdout
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| {
            out.stdout
                .windows(2)
                .position(|w| w == b"\n\n")
                .map(|i| (i, 2))
        })
        .unwrap_or((out.stdout.len(), 0));
    let head = String::from_utf8_lossy(&out.stdout[..split.0]).into_owned();
    let payload = &out.stdout[(split.0 + split.1).min(out.stdout.len())..];
    let mut status = "200 OK".to_owned();
    let mut response = Vec::new();
    for h in head.lines().map(str::trim).filter(|h| !h.is_empty()) {
        match h.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_owned(),
            _ => response.extend_from_slice(format!("{h}\r\n").as_bytes()),
        }
    }
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        payload.len()
    )?;
    stream.write_all(&response)?;
    stream.write_all(b"\r\n")?;
    stream.write_all(payload)?;
    stream.flush()
}

/// A minimal PTDL_v2 egg.
pub(crate) fn egg_json(name: &str) -> String {
    format!(
        r#"{{
    "_comment": "DO NOT EDIT: FILE GENERATED AUTOMATICALLY BY PTERODACTYL PANEL",
    "meta": {{ "version": "PTDL_v2", "update_url": null }},
    "name": "{name}",
    "author": "test@eggcat.invalid",
    "startup": "./server --port {{{{SERVER_PORT}}}}",
    "variables": []
}}
"#
    )
}

/// A minimal PLCN_v3 egg in the panel's YAML style.
pub(crate) fn egg_yaml(name: &str) -> String {
    format!(
        "_comment: 'DO NOT EDIT: FILE GENERATED AUTOMATICALLY BY PANEL'\nmeta:\n  version: PLCN_v3\n  update_url: null\nname: '{name}'\ntags: {{  }}\nvariables: []\n"
    )
}

/// The files that report on one build (its id and times): the only files two builds of the same
/// upstreams may differ in.
pub(crate) fn is_build_report(path: &str) -> bool {
    path == "api/v1/_status.json" || path == "status/index.html"
}

/// Every egg-like file of the shared data (`shared`: one folder per repository): (repository,
/// path inside it), the issue templates under `.github/` included.
pub(crate) fn shared_egg_files(shared: &Path) -> std::collections::BTreeSet<(String, String)> {
    fn walk(
        dir: &Path,
        rel: &str,
        repo: &str,
        out: &mut std::collections::BTreeSet<(String, String)>,
    ) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &path, repo, out);
            } else if eggcat_catalog::is_egg_file_name(&name) {
                out.insert((repo.to_owned(), path));
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(shared).unwrap() {
        let e = e.unwrap();
        let repo = e.file_name().into_string().unwrap();
        walk(&e.path(), "", &repo, &mut out);
    }
    out
}

/// `eggcat serve` (the binary) of `config` on 127.0.0.1:`port`, rebuilding every `refresh`;
/// killed when dropped (a failed assertion must not leave it running).
pub(crate) struct Serve(std::process::Child);

impl Serve {
    pub(crate) fn start(config: &Path, port: u16, refresh: &str) -> Serve {
        Serve(
            std::process::Command::new(env!("CARGO_BIN_EXE_eggcat"))
                .args(["serve", "--refresh", refresh, "--listen"])
                .arg(format!("127.0.0.1:{port}"))
                .arg("--config")
                .arg(config)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        )
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How long a test waits for what a server or a build should soon do (the machine may be busy).
pub(crate) const WAIT: Duration = Duration::from_secs(60);

/// Waits until `done` holds, at most `limit` (then fails, naming `what`).
pub(crate) fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "never: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
