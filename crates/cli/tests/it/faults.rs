//! Faults, first part: `eggcat build` killed with SIGKILL at random points, in a first build and
//! in a rebuild, on the ten shared repositories. After each kill the current snapshot (when there
//! is one; a rebuild always has one) must be complete: intact by its manifest, and every slug of
//! its index with its document, import files, history and page. And the next build must succeed
//! and leave a complete snapshot with no half-written folder beside it.
//!
//! The suite runs four points from a fixed seed on four of the repositories; `bench/faults.sh` runs
//! [`kill_points_bench`] with 100 (or `EGGCAT_KILL_POINTS`) and prints the figures.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use eggcat_catalog::paths;
use eggcat_store::Store;

use crate::support::*;

/// The figures of a run of kill points.
#[derive(Debug, Default)]
pub(crate) struct KillFigures {
    /// Kill points tried, and how many of them were in a first build (the rest in a rebuild).
    tried: usize,
    first_builds: usize,
    /// Points after which the snapshot was complete and the next build succeeded.
    survived: usize,
    /// Points where the build had already finished when the kill came (still checked).
    finished_before_kill: usize,
    /// Points where the killed build had already made its new snapshot current.
    published_before_kill: usize,
    /// The earliest and latest kill, after the build started, in ms.
    min_ms: u64,
    max_ms: u64,
    /// How long one full first build and one rebuild took, in ms (the ranges points are drawn
    /// from).
    first_build_ms: u64,
    rebuild_ms: u64,
    /// What went wrong, one line per failed point.
    failures: Vec<String>,
}

/// A small deterministic generator (xorshift64*), so that a seed names a run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// The `eggcat` binary the kills are run on: `EGGCAT_BIN` (the bench passes the release
/// binary), else the one cargo built for the tests.
fn binary() -> PathBuf {
    std::env::var_os("EGGCAT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_eggcat")))
}

/// Kill points with the shared repositories (`only` these, or all ten) as git sources, in a
/// folder of its own.
pub(crate) fn kill_points(
    shared: &Path,
    only: Option<&[&str]>,
    points: usize,
    seed: u64,
) -> KillFigures {
    let tmp = tempfile::tempdir().unwrap();
    let sources = match only {
        None => shared_sources(shared, tmp.path()),
        Some(names) => names
            .iter()
            .map(|name| {
                let repo = repo_from(&shared.join(name), &tmp.path().join("repos").join(name));
                source(&repo.url(), "pelican-eggs", name)
            })
            .collect(),
    };
    let config = tmp.path().join("eggcat.toml");
    let mut text = String::from("data_dir = \"data\"\n[images]\nenabled = false\n");
    for s in &sources {
        text.push_str(&format!(
            "\n[[source]]\nurl = \"{}\"\nowner = \"{}\"\nrepo = \"{}\"\nlabel = \"pelican\"\n",
            s.url, s.owner, s.repo
        ));
    }
    std::fs::write(&config, text).unwrap();
    let data = tmp.path().join("data");
    let repos: Vec<Repo> = sources
        .iter()
        .map(|s| Repo {
            dir: tmp.path().join("repos").join(&s.repo),
        })
        .collect();

    let mut figures = KillFigures {
        min_ms: u64::MAX,
        ..KillFigures::default()
    };
    // The ranges kill points are drawn from: one whole first build, one whole rebuild.
    let started = Instant::now();
    let first = run_build(&config);
    assert!(first.status.success(), "first build: {}", stderr_of(&first));
    figures.first_build_ms = started.elapsed().as_millis() as u64;
    change_upstream(&repos, 0);
    let started = Instant::now();
    let rebuild = run_build(&config);
    assert!(rebuild.status.success(), "rebuild: {}", stderr_of(&rebuild));
    figures.rebuild_ms = started.elapsed().as_millis() as u64;

    let mut rng = Rng(seed | 1);
    for point in 0..points {
        let first_build = point % 2 == 0;
        let range = if first_build {
            std::fs::remove_dir_all(&data).unwrap();
            figures.first_builds += 1;
            figures.first_build_ms
        } else {
            change_upstream(&repos, point + 1);
            figures.rebuild_ms
        };
        let before = current_id(&data);
        let delay = rng.below(range);
        figures.tried += 1;
        figures.min_ms = figures.min_ms.min(delay);
        figures.max_ms = figures.max_ms.max(delay);
        let kind = if first_build {
            "first build"
        } else {
            "rebuild"
        };
        match one_point(&config, &data, delay, first_build, before.as_deref()) {
            Ok(Killed {
                finished,
                published,
            }) => {
                figures.survived += 1;
                figures.finished_before_kill += usize::from(finished);
                figures.published_before_kill += usize::from(published);
            }
            Err(e) => figures
                .failures
                .push(format!("point {point} ({kind}, killed at {delay} ms): {e}")),
        }
    }
    figures
}

/// What a kill found.
struct Killed {
    /// The build had ended before the kill.
    finished: bool,
    /// A new snapshot was current after the kill.
    published: bool,
}

/// Starts a build, kills it after `delay_ms`, checks the snapshot, runs the next build to its
/// end and checks again.
fn one_point(
    config: &Path,
    data: &Path,
    delay_ms: u64,
    first_build: bool,
    before: Option<&str>,
) -> Result<Killed, String> {
    let mut child = Command::new(binary())
        .args(["build", "--config"])
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(delay_ms));
    let finished = child.try_wait().unwrap().is_some();
    // `Child::kill` is SIGKILL on Unix.
    let _ = child.kill();
    let _ = child.wait();
    let after = current_id(data);
    if !first_build && after.is_none() {
        return Err("no current snapshot after killing a rebuild".to_owned());
    }
    if after.is_some() {
        complete(data).map_err(|e| format!("after the kill: {e}"))?;
    }
    let next = run_build(config);
    if !next.status.success() {
        return Err(format!("the next build failed: {}", stderr_of(&next)));
    }
    complete(data).map_err(|e| format!("after the next build: {e}"))?;
    let leftovers = leftovers(data);
    if !leftovers.is_empty() {
        return Err(format!("left behind after the next build: {leftovers:?}"));
    }
    Ok(Killed {
        finished,
        published: after.is_some() && after.as_deref() != before,
    })
}

/// Adds an egg to one of the repositories, so that a rebuild has work to do.
fn change_upstream(repos: &[Repo], n: usize) {
    let repo = &repos[n % repos.len()];
    repo.write(
        &format!("faults/egg-fault-{n}.json"),
        egg_json(&format!("Fault {n}")),
    );
    repo.commit("a change");
}

fn run_build(config: &Path) -> std::process::Output {
    Command::new(binary())
        .args(["build", "--config"])
        .arg(config)
        .output()
        .unwrap()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_owned()
}

/// The id (folder name) of the current snapshot.
pub(crate) fn current_id(data: &Path) -> Option<String> {
    let dir = Store::new(data).current_dir()?;
    Some(dir.file_name()?.to_string_lossy().into_owned())
}

/// Half-written snapshot folders and temporary links left in `data`.
pub(crate) fn leftovers(data: &Path) -> Vec<String> {
    let names = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut left: Vec<String> = names(&data.join("snapshots"))
        .into_iter()
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    left.extend(
        names(data)
            .into_iter()
            .filter(|n| n.starts_with(".current-")),
    );
    left
}

/// Whether the current snapshot of `data` is complete: every file as its manifest says, and
/// every slug of the index with its document, import files, history and page.
pub(crate) fn complete(data: &Path) -> Result<(), String> {
    let store = Store::new(data);
    let dir = store.current_dir().ok_or("no current snapshot")?;
    let damaged = store.check(&dir);
    if !damaged.is_empty() {
        return Err(format!("damaged: {damaged:?}"));
    }
    let snapshot = store
        .read_current()
        .map_err(|e| e.to_string())?
        .ok_or("no current snapshot")?;
    if !snapshot.damaged.is_empty() {
        return Err(format!("damaged: {:?}", snapshot.damaged));
    }
    let files = &snapshot.files;
    let index: Vec<serde_json::Value> =
        serde_json::from_slice(&files[paths::INDEX]).map_err(|e| format!("index: {e}"))?;
    if index.is_empty() {
        return Err("an empty index".to_owned());
    }
    for item in &index {
        let slug = item["slug"]
            .as_str()
            .ok_or("an index entry without a slug")?;
        let doc = files
            .get(&paths::egg(slug))
            .ok_or_else(|| format!("{slug}: no document"))?;
        let doc: serde_json::Value =
            serde_json::from_slice(doc).map_err(|e| format!("{slug}: document: {e}"))?;
        let mut needed = vec![paths::egg_page(slug), paths::history(slug)];
        for panel in doc["meta"]["import"].as_object().into_iter().flatten() {
            for format in ["json", "yaml"] {
                if let Some(url) = panel.1[format].as_str() {
                    let at = url
                        .find("/api/v1/")
                        .ok_or_else(|| format!("{slug}: {url}"))?;
                    needed.push(url[at + 1..].to_owned());
                }
            }
        }
        if let Some(missing) = needed.iter().find(|p| !files.contains_key(*p)) {
            return Err(format!("{slug}: {missing} missing"));
        }
    }
    Ok(())
}

/// Prints the figures as `bench/faults.sh` shows them (to stdout itself, which the harness does
/// not capture: they are the bench's output).
fn print(figures: &KillFigures, seed: u64) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "kill points: {} tried ({} in a first build, {} in a rebuild), {} survived, seed {seed}",
        figures.tried,
        figures.first_builds,
        figures.tried - figures.first_builds,
        figures.survived
    );
    let _ = writeln!(
        out,
        "kill times: {} ms to {} ms after the build started (a whole first build took {} ms, a rebuild {} ms)",
        figures.min_ms, figures.max_ms, figures.first_build_ms, figures.rebuild_ms
    );
    let _ = writeln!(
        out,
        "killed after the new snapshot was current: {}; after the build had ended: {}",
        figures.published_before_kill, figures.finished_before_kill
    );
    for failure in &figures.failures {
        let _ = writeln!(out, "FAILED {failure}");
    }
}

#[test]
fn sigkill_at_a_few_points_leaves_a_complete_snapshot_and_the_next_build_succeeds() {
    let Some(shared) = shared_upstream() else {
        return;
    };
    // Four of the ten repositories (the smaller ones, 57 eggs), to keep the suite quick; the
    // bench runs all ten.
    let only = ["chatbots", "database", "storage", "voice"];
    let seed = 18;
    let figures = kill_points(shared.as_path(), Some(&only), 4, seed);
    print(&figures, seed);
    assert_eq!(figures.tried, 4);
    assert!(figures.failures.is_empty(), "{:?}", figures.failures);
    assert_eq!(figures.survived, figures.tried);
}

/// `bench/faults.sh`: `EGGCAT_KILL_POINTS` points (100) from `EGGCAT_KILL_SEED` (the time).
#[test]
#[ignore = "run by bench/faults.sh"]
fn kill_points_bench() {
    let shared = shared_upstream().expect("bench/faults.sh needs ../shared/upstream");
    let points = std::env::var("EGGCAT_KILL_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let seed = std::env::var("EGGCAT_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        });
    let figures = kill_points(shared.as_path(), None, points, seed);
    print(&figures, seed);
    assert!(
        figures.failures.is_empty(),
        "{} failed",
        figures.failures.len()
    );
}
