//! `eggcat serve`: serve the current snapshot, and rebuild it when `eggcat_pipeline::schedule`
//! says (at once when there is none or another derivation made it, then every `refresh`,
//! jittered, one at a time, missed ticks not replayed; sooner while there is none; at once when
//! damage is found), each rebuild in a child `eggcat build` process; shut down gracefully on
//! SIGINT or SIGTERM.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use eggcat_catalog::wire::{Report, SourceStatus};
use eggcat_pipeline::after;
use eggcat_pipeline::schedule::{self, Schedule};
use eggcat_server::{App, AppOptions, ServeOptions, Server};
use eggcat_store::Store;

use crate::config::Config;

pub(crate) fn run(config: Config) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let result = runtime.block_on(main(config));
    // A build still running in the background is abandoned: snapshots are made current
    // atomically, so an interrupted build leaves the current catalog intact.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn main(config: Config) -> Result<()> {
    let app = App::new(&AppOptions {
        cache_control: config.cache_control.clone(),
    })
    .with_context(|| format!("invalid config {}", config.origin))?;
    let defaults = ServeOptions::default();
    let options = ServeOptions {
        max_connections: config.max_connections,
        workers: config.workers.unwrap_or(defaults.workers),
        ..defaults
    };
    let server = Server::start(&config.listen, Arc::clone(&app), options)
        .map_err(|e| cannot_listen(&config.listen, &e))?;
    tracing::info!(
        config = %config.origin, data_dir = %config.data_dir.display(),
        "listening on http://{}", server.local_addr()
    );

    let store = Store::new(&config.data_dir);
    let loader = Loader::start()?;
    let loaded = {
        let (store, app) = (store.clone(), Arc::clone(&app));
        loader
            .run(move || load_current(&store, &app))
            .await
            .unwrap_or(false)
    };
    // A snapshot another eggcat made, or this one with another base_url or history_depth, is
    // served at once and rebuilt now rather than at the next refresh (hours away by default).
    let stale = if loaded {
        let (store, options) = (store.clone(), super::build::options(&config));
        loader
            .run(move || schedule::stale_reason(&store, &options))
            .await
            .flatten()
    } else {
        None
    };
    if let Some(why) = stale {
        tracing::info!("serving the current snapshot and rebuilding it now: {why}");
    }
    // The builds run with the base URL this server derives (after `--listen`), which the
    // stale check above compared with the snapshot's.
    let build = BuildCommand::new(config.path.clone(), config.base_url());
    let builder = tokio::spawn(rebuild_loop(
        store,
        config,
        app,
        (loader, build.clone()),
        schedule::build_at_start(loaded, stale),
    ));
    shutdown_signal().await;
    builder.abort();
    // A build in progress is stopped: snapshots are made current atomically, so the current one
    // stays as it was.
    build.stop();
    tokio::task::spawn_blocking(move || server.stop())
        .await
        .context("stopping the server")?;
    tracing::info!("stopped");
    Ok(())
}

/// Why `listen` cannot be bound, and what to do, on one line. The OS error is worded here, not
/// left as a cause: "permission denied" on a port means something else than on a file.
fn cannot_listen(listen: &str, e: &std::io::Error) -> anyhow::Error {
    use std::io::ErrorKind as K;
    let port = listen.rsplit(':').next().unwrap_or(listen);
    let what = match e.kind() {
        K::AddrInUse => format!(
            "the address is already in use: stop the program listening there (`ss -ltnp 'sport = \
             :{port}'` names it), or choose another address with --listen or `listen`"
        ),
        K::PermissionDenied => format!(
            "{e}: ports below 1024 need root or CAP_NET_BIND_SERVICE; choose a higher port with \
             --listen or `listen`"
        ),
        K::AddrNotAvailable => format!(
            "{e}: that IP address is not one of this machine's; choose another with --listen or \
             `listen` (0.0.0.0 listens on all)"
        ),
        _ => format!("{e}: set --listen or `listen` to an address such as 127.0.0.1:8080"),
    };
    anyhow::anyhow!("cannot listen on {listen}: {what}")
}

/// Serves the current snapshot of `data_dir`, if any; false when there is none, or
/// when it is damaged (what of it is intact is served, and a build starts at once to repair it;
/// damage found later, as its files are checked, wakes the rebuild loop the same way).
fn load_current(store: &Store, app: &Arc<App>) -> bool {
    match store.served() {
        Some(served) => match app.install(&served) {
            Ok(damaged) => damaged == 0,
            Err(e) => {
                tracing::error!(error = %e, "the current snapshot cannot be served: building a new one");
                false
            }
        },
        None => {
            tracing::info!("no current catalog yet: building one");
            false
        }
    }
}

/// One long-lived thread for the blocking half of loading a catalog: the start's load, and each
/// rebuild's build and load. Not tokio's blocking pool, whose threads come and go (10 s idle):
/// the allocator keeps a heap per thread, and a snapshot allocated by a thread that has exited
/// waits to be reclaimed when it is freed. On one thread, each swap's new documents reuse the
/// pages of the ones it freed (bench/soak.sh, docs/operations.md "Memory").
#[derive(Debug)]
struct Loader {
    jobs: mpsc::Sender<Box<dyn FnOnce() + Send>>,
}

impl Loader {
    fn start() -> Result<Loader> {
        let (jobs, queue) = mpsc::channel::<Box<dyn FnOnce() + Send>>();
        std::thread::Builder::new()
            .name("eggcat-loader".into())
            .spawn(move || {
                for job in queue {
                    // A job that panics drops its answer (the caller sees it crashed); the
                    // thread goes on with the next.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .context("cannot start the loader thread")?;
        Ok(Loader { jobs })
    }

    /// Runs `job` on the loader thread; `None` when it panicked.
    async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job = move || {
            let _ = answer.send(job());
        };
        self.jobs.send(Box::new(job)).ok()?;
        answered.await.ok()
    }
}

/// Rebuilds on `config.refresh`'s schedule (`eggcat_pipeline::schedule`), each wait cut short
/// when damage is found in the snapshot served.
async fn rebuild_loop(
    store: Store,
    config: Config,
    app: Arc<App>,
    (loader, build): (Loader, BuildCommand),
    build_now: bool,
) {
    let publish = config.publish.as_ref();
    let (store, loader, build, app) = (&store, &loader, &build, &app);
    let wait = |wait: Duration| async move {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = app.damage_found() => {
                tracing::info!("building now to repair the damaged files");
            }
        }
    };
    schedule::run(
        Schedule::new(config.refresh),
        build_now,
        || app.is_ready(),
        wait,
        || rebuild_once(store, loader, build, app, publish),
    )
    .await;
}

/// `eggcat build` as a child process of `serve`: this same executable, with the same
/// configuration file. A build allocates its whole working set (parsed eggs, rendered pages,
/// history) and frees it at once; in a process of its own that memory goes back to the system
/// when it exits, whatever the allocator keeps, and a build that crashes or is killed for memory
/// takes nothing down with it. The server then reads the snapshot the build made current, as at
/// start (docs/operations.md, "Memory").
#[derive(Debug, Clone)]
struct BuildCommand {
    config: Option<PathBuf>,
    /// The public address, passed as `--base-url`: the child reads only the configuration
    /// file, not this server's `--listen`.
    base_url: String,
    /// The build running now, to stop it at shutdown.
    running: Arc<Mutex<Option<Child>>>,
}

impl BuildCommand {
    fn new(config: Option<PathBuf>, base_url: String) -> BuildCommand {
        BuildCommand {
            config,
            base_url,
            running: Arc::default(),
        }
    }

    /// Kills the build running now, if any.
    fn stop(&self) {
        if let Some(child) = self.running.lock().expect("build lock").as_mut() {
            let _ = child.kill();
        }
    }

    /// Runs one build to its end. Its log lines are passed on to this process's stderr as they
    /// come; on failure, the error is the build's own `eggcat: error:` line.
    fn run(&self) -> Result<(), String> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find the eggcat executable to build with: {e}"))?;
        let mut command = Command::new(&exe);
        // The server uploads once it serves the new catalog, as it did before builds ran apart.
        command.args(["build", "--no-publish", "--base-url", &self.base_url]);
        if let Some(config) = &self.config {
            command.arg("--config").arg(config);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {} build: {e}", exe.display()))?;
        let stderr = child.stderr.take();
        *self.running.lock().expect("build lock") = Some(child);
        let mut error = None;
        if let Some(stderr) = stderr {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                // The error line is not passed on: the server logs the failure in its own line
                // (`App::rebuild_failed`), which says it kept the last good catalog.
                match line.strip_prefix("eggcat: error: ") {
                    Some(e) => {
                        let cause = e.strip_prefix(crate::cmd::build::FAILED);
                        let cause = cause.and_then(|c| c.strip_prefix(": ")).unwrap_or(e);
                        error = Some(cause.to_owned());
                    }
                    None => eprintln!("{line}"),
                }
            }
        }
        let mut child = self
            .running
            .lock()
            .expect("build lock")
            .take()
            .ok_or("the build was stopped")?;
        let status = child
            .wait()
            .map_err(|e| format!("cannot wait for the build: {e}"))?;
        if status.success() {
            return Ok(());
        }
        Err(error.unwrap_or_else(|| format!("the build process ended with {status}")))
    }
}

async fn rebuild_once(
    store: &Store,
    loader: &Loader,
    build: &BuildCommand,
    app: &Arc<App>,
    publish: Option<&eggcat_publish::Target>,
) {
    let (store_, build, app_) = (store.clone(), build.clone(), Arc::clone(app));
    let target = publish.cloned();
    let started = Instant::now();
    // Whether the rebuild got as far as its install, so that a crash says what crashed.
    let reached = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reached_ = Arc::clone(&reached);
    // The sequence is the pipeline's (`after::rebuild`); this says how the server installs a
    // snapshot and what is logged.
    let done = loader
        .run(move || {
            let follow = after::Follow {
                out: None,
                publish: target.as_ref(),
            };
            let server = Installer(&app_);
            let mut installed = |result: &Result<after::Installed, String>| {
                reached_.store(true, std::sync::atomic::Ordering::SeqCst);
                log_rebuild(&app_, result, started.elapsed().as_millis());
            };
            let log = &crate::cmd::publish::log_progress;
            let followed = after::rebuild(
                &store_,
                || build.run(),
                &server,
                &follow,
                &mut installed,
                log,
            );
            if let (Some(target), Some(upload)) = (&target, followed.and_then(|f| f.upload)) {
                crate::cmd::publish::log_upload(target, upload);
            }
        })
        .await;
    if done.is_none() {
        if reached.load(std::sync::atomic::Ordering::SeqCst) {
            tracing::error!("publish failed (retried at the next build): the upload crashed");
        } else {
            app.rebuild_failed("the build's load crashed", crate::now_ms());
        }
    }
}

/// The server as the pipeline's rebuild installs a snapshot into it.
struct Installer<'a>(&'a Arc<App>);

impl after::Install for Installer<'_> {
    fn serving(&self) -> Option<String> {
        self.0.snapshot().map(|s| s.id.clone())
    }

    fn install(&self, files: &eggcat_store::Served) -> Result<Report, String> {
        self.0.install(files).map_err(|e| e.to_string())?;
        self.0
            .snapshot()
            .and_then(|s| {
                let status = s.read(eggcat_catalog::paths::STATUS)?.ok()?;
                serde_json::from_slice(&status).ok()
            })
            .ok_or_else(|| "the build's status document is unreadable".to_owned())
    }
}

/// Says how a rebuild ended, in the log and in `_status.json`'s `lastRebuild`.
fn log_rebuild(app: &App, result: &Result<after::Installed, String>, took_ms: u128) {
    match result {
        Ok(after::Installed::New(report)) => {
            app.rebuild_succeeded(crate::now_ms());
            let failed: Vec<String> = report
                .sources
                .iter()
                .filter(|s| s.status == SourceStatus::Failed)
                .map(|s| format!("{}/{}", s.owner, s.repo))
                .collect();
            tracing::info!(
                build = %report.build_id, eggs = report.eggs, skipped = report.skipped.len(),
                warnings = report.warnings.len(), failed_sources = ?failed, took_ms,
                "rebuild made current"
            );
        }
        Ok(after::Installed::Unchanged) => {
            // Nothing changed: the snapshot being served is the current one; keep serving it.
            app.rebuild_succeeded(crate::now_ms());
            tracing::info!(
                took_ms,
                "nothing changed upstream: kept the current snapshot"
            );
        }
        Err(error) => app.rebuild_failed(error, crate::now_ms()),
    }
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for SIGTERM");
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
    tracing::info!("shutting down: finishing in-flight requests");
}
