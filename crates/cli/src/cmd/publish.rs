//! `eggcat publish`: upload the current snapshot to an S3-compatible bucket
//! (`eggcat_pipeline::after::publish`), and the `[publish]` table of the config file. After
//! `eggcat build` and `eggcat serve`'s rebuilds the pipeline uploads
//! (`eggcat_pipeline::after::after_build`) and [`log_upload`] says how it went: a failed publish
//! there is logged and retried at the next build, and never touches the local catalog.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use anyhow::{Result, bail};
use eggcat_pipeline::after::{self, UploadError};
use eggcat_publish::{Event, Options, Summary, Target};
use eggcat_store::Store;

use crate::config::Config;

/// `eggcat publish`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Configuration file (TOML), as for `build`; its `[publish]` table says where to.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Publish to this s3://bucket/prefix instead of `[publish] url`.
    #[arg(long, value_name = "URL")]
    to: Option<String>,
    /// List and compare, upload and delete nothing.
    #[arg(long)]
    dry_run: bool,
    /// Upload every object, even those the bucket already holds.
    #[arg(long)]
    force: bool,
}

/// Runs `eggcat publish`.
pub(crate) fn run(args: Args) -> Result<()> {
    let config = Config::load(args.config.as_deref())?;
    let target = match (args.to, config.publish.clone()) {
        (Some(url), Some(mut t)) => {
            t.url = url;
            t
        }
        (Some(url), None) => Target::new(url),
        (None, Some(t)) => t,
        (None, None) => bail!(
            "no publish target: add a `[publish]` table with `url` to {} or pass --to s3://bucket/prefix",
            config.origin
        ),
    };
    target.bucket_and_prefix()?;
    let store = Store::new(&config.data_dir);
    let options = Options {
        force: args.force,
        dry_run: args.dry_run,
    };
    let terminal = std::io::stderr().is_terminal();
    let summary = match publish(&store, &target, options, terminal) {
        Ok(summary) => summary,
        Err(UploadError::NoSnapshot) => bail!(
            "nothing to publish: no catalog in {} yet (run `eggcat build` first)",
            config.data_dir.display()
        ),
        Err(UploadError::Read(e)) => {
            return Err(anyhow::Error::new(e).context(format!(
                "cannot read the catalog in {}",
                config.data_dir.display()
            )));
        }
        Err(e) => return Err(failed(e, &target)),
    };
    print_summary(&summary)?;
    Ok(())
}

/// Logs the upload that followed a build (`eggcat_pipeline::after::after_build`) to `target`:
/// failures are logged, not returned: the build succeeded, and the next build publishes again.
pub(crate) fn log_upload(target: &Target, result: Result<Summary, UploadError>) {
    match result {
        Ok(s) => tracing::info!(
            target = %s.target, snapshot = %s.snapshot, uploaded = s.uploaded, skipped = s.skipped,
            deleted = s.deleted, bytes = s.bytes, took_ms = s.took.as_millis(), "published"
        ),
        Err(UploadError::NoSnapshot) => {}
        Err(UploadError::Read(e)) => {
            tracing::error!(error = %e, "publish skipped: cannot read the catalog");
        }
        Err(e) => {
            let e = failed(e, target);
            tracing::error!(target = %target.url, "publish failed (retried at the next build): {}", crate::errors::one_line(&e))
        }
    }
}

/// An upload's progress at debug level: the upload that follows a build, or `eggcat publish`
/// off a terminal.
pub(crate) fn log_progress(event: Event<'_>) {
    match event {
        Event::Planned {
            uploads,
            skipped,
            deletes,
        } => tracing::debug!(uploads, skipped, deletes, "publish planned"),
        Event::Uploaded { key, bytes } => tracing::debug!(key, bytes, "uploaded"),
        Event::Deleted { key } => tracing::debug!(key, "deleted"),
    }
}

/// A failed upload, as the user reads it.
fn failed(e: UploadError, target: &Target) -> anyhow::Error {
    match e {
        UploadError::Runtime(e) => anyhow::Error::new(e).context("cannot start the runtime"),
        e => anyhow::Error::new(e).context(format!("publish to {} failed", target.url)),
    }
}

/// Publishes the current snapshot (`eggcat_pipeline::after::publish`), showing its progress on
/// a terminal and at debug level otherwise.
fn publish(
    store: &Store,
    target: &Target,
    options: Options,
    terminal: bool,
) -> Result<Summary, UploadError> {
    let (total, done, bytes) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicU64::new(0));
    // Whether the terminal's last line is an unfinished progress line, which must be ended
    // before anything else is printed (the summary, or the error line).
    let open_line = AtomicBool::new(false);
    let show = |event: Event<'_>| match event {
        Event::Planned { uploads, .. } => {
            total.store(uploads, Ordering::Relaxed);
            log_progress(event);
        }
        Event::Uploaded { key, bytes: b } => {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            let sum = bytes.fetch_add(b, Ordering::Relaxed) + b;
            if terminal {
                let total = total.load(Ordering::Relaxed);
                eprint!(
                    "\r\x1b[2K[{n}/{total}] {} uploaded: {key}",
                    human_bytes(sum)
                );
                if n == total {
                    eprintln!();
                }
                open_line.store(n != total, Ordering::Relaxed);
            } else {
                log_progress(event);
            }
        }
        Event::Deleted { .. } => log_progress(event),
    };
    let result = after::publish(store, target, options, &show);
    // A failure part way leaves the progress line open; nothing uploaded leaves none.
    if open_line.load(Ordering::Relaxed) {
        eprintln!();
    }
    result
}

fn print_summary(s: &Summary) -> Result<()> {
    let mut o = std::io::stdout().lock();
    let verb = if s.dry_run {
        "would publish"
    } else {
        "published"
    };
    writeln!(
        o,
        "{verb} snapshot {} to {}: {} uploaded ({}), {} unchanged, {} deleted in {:.1} s",
        s.snapshot,
        s.target,
        s.uploaded,
        human_bytes(s.bytes),
        s.skipped,
        s.deleted,
        s.took.as_secs_f64()
    )?;
    Ok(())
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / f64::from(1 << 20)),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / f64::from(1 << 10)),
        n => format!("{n} B"),
    }
}
