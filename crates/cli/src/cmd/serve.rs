//! `eggcat serve`: serve the current snapshot, build one first if there is none, rebuild every
//! `refresh` (jittered, one at a time, missed ticks not replayed), shut down gracefully on
//! SIGINT or SIGTERM.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use eggcat_catalog::wire::SourceStatus;
use eggcat_pipeline::{BuildOptions, Rebuilt, rebuild};
use eggcat_server::{App, AppOptions, ServeOptions, Server};
use eggcat_store::Store;

use crate::config::Config;

pub(crate) fn run(config: Config) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let result = runtime.block_on(main(config));
    // A build still running in the background is abandoned: snapshots are published atomically,
    // so an interrupted build leaves the current catalog intact.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn main(config: Config) -> Result<()> {
    let app = App::new(&AppOptions {
        cache_control: config.cache_control.clone(),
    })?;
    let defaults = ServeOptions::default();
    let options = ServeOptions {
        max_connections: config.max_connections,
        workers: config.workers.unwrap_or(defaults.workers),
        ..defaults
    };
    let server = Server::start(&config.listen, Arc::clone(&app), options)
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    tracing::info!(
        config = %config.origin, data_dir = %config.data_dir.display(),
        "listening on http://{}", server.local_addr()
    );

    let store = Store::new(&config.data_dir);
    let loaded = {
        let (store, app) = (store.clone(), Arc::clone(&app));
        tokio::task::spawn_blocking(move || load_current(&store, &app))
            .await
            .unwrap_or(false)
    };
    let builder = tokio::spawn(rebuild_loop(store, config, app, !loaded));
    shutdown_signal().await;
    builder.abort();
    tokio::task::spawn_blocking(move || server.stop())
        .await
        .context("stopping the server")?;
    tracing::info!("stopped");
    Ok(())
}

/// Serves the snapshot already published in `data_dir`, if any; false when there is none, or
/// when it is damaged (what of it is intact is served, and a build starts at once to repair it).
fn load_current(store: &Store, app: &App) -> bool {
    match store.read_current() {
        Ok(Some(files)) => match (files.damaged.is_empty(), app.install(files)) {
            (intact, Ok(())) => intact,
            (_, Err(e)) => {
                tracing::error!(error = %e, "the current snapshot cannot be served: building a new one");
                false
            }
        },
        Ok(None) => {
            tracing::info!("no published catalog yet: building one");
            false
        }
        Err(e) => {
            tracing::error!(error = %e, "the current snapshot cannot be read: building a new one");
            false
        }
    }
}

async fn rebuild_loop(store: Store, config: Config, app: Arc<App>, build_now: bool) {
    let options = BuildOptions {
        sources: config.sources.clone(),
        limits: config.limits,
        base_url: config.base_url(),
    };
    let publish = config.publish.as_ref();
    if build_now {
        rebuild_once(&store, &options, &app, publish).await;
    }
    // Until there is a first catalog, retry sooner than `refresh`: 10 s, 20 s, 40 s, ...
    let mut retry = Duration::from_secs(10);
    loop {
        // Sleeping after each build (not on a fixed schedule) means missed ticks are never
        // replayed and builds never overlap; the jitter keeps a fleet of mirrors from fetching
        // upstream at the same instant.
        let wait = if app.is_ready() {
            config.refresh
        } else {
            retry.min(config.refresh)
        };
        retry = retry.saturating_mul(2);
        tokio::time::sleep(jittered(wait)).await;
        rebuild_once(&store, &options, &app, publish).await;
    }
}

async fn rebuild_once(
    store: &Store,
    options: &BuildOptions,
    app: &Arc<App>,
    publish: Option<&eggcat_publish::Target>,
) {
    let published = store.clone();
    let (store, options, app_) = (store.clone(), options.clone(), Arc::clone(app));
    let started = Instant::now();
    let result = tokio::task::spawn_blocking(move || -> Result<_, String> {
        let rebuilt =
            rebuild(&store, &options, &crate::now_ms, &|_| {}).map_err(|e| e.to_string())?;
        let report = match rebuilt {
            Rebuilt::Published(outcome) => {
                // The documents just published, as they are in memory: no need to read them back.
                app_.install(outcome.snapshot).map_err(|e| e.to_string())?;
                Some(outcome.report)
            }
            // Nothing changed: the loaded snapshot is the current one; keep serving it.
            Rebuilt::Unchanged { .. } => None,
        };
        app_.rebuild_succeeded(crate::now_ms());
        Ok(report)
    })
    .await;
    let took_ms = started.elapsed().as_millis();
    match result {
        Ok(Ok(Some(report))) => {
            let failed: Vec<String> = report
                .sources
                .iter()
                .filter(|s| s.status == SourceStatus::Failed)
                .map(|s| format!("{}/{}", s.owner, s.repo))
                .collect();
            tracing::info!(
                build = %report.build_id, eggs = report.eggs, skipped = report.skipped.len(),
                warnings = report.warnings.len(), failed_sources = ?failed, took_ms,
                "build published"
            );
            crate::cmd::publish::after_build(publish, &published).await;
        }
        Ok(Ok(None)) => {
            tracing::info!(
                took_ms,
                "nothing changed upstream: kept the current snapshot"
            );
            // A publish that failed after an earlier build is retried.
            crate::cmd::publish::after_build(publish, &published).await;
        }
        Ok(Err(error)) => app.rebuild_failed(&error, crate::now_ms()),
        Err(join) => app.rebuild_failed(&format!("build crashed: {join}"), crate::now_ms()),
    }
}

/// `period` plus or minus up to 10%.
fn jittered(period: Duration) -> Duration {
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let spread = period.as_millis() as u64 / 5;
    let offset = if spread == 0 { 0 } else { random % spread };
    (period + Duration::from_millis(offset)).saturating_sub(Duration::from_millis(spread / 2))
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
