//! `eggcat build`: one rebuild (`eggcat_pipeline::rebuild`), then what follows it
//! (`eggcat_pipeline::after::after_build`: `--out`, then publishing to `[publish]`), and a
//! summary.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use eggcat_catalog::wire::{Report, SourceStatus};
use eggcat_pipeline::after::{self, OutError};
use eggcat_pipeline::{BuildOptions, FetchProgress, Progress, Rebuilt, rebuild};
use eggcat_store::Store;

use crate::config::Config;
use crate::words::{count, noun};

/// What a failed build's error line starts with (`serve` takes it off the lines of its builds).
pub(crate) const FAILED: &str = "build failed";

/// What a build with `config` is asked to do.
pub(crate) fn options(config: &Config) -> BuildOptions {
    BuildOptions {
        sources: config.sources.clone(),
        limits: config.limits,
        base_url: config.base_url(),
        images: config.images.clone(),
    }
}

/// Runs one build with `config`; with `out`, also writes the current tree there.
pub(crate) fn run(config: &Config, out: Option<&Path>) -> Result<()> {
    let store = Store::new(&config.data_dir);
    let options = options(config);
    let total = config.sources.len();
    let terminal = std::io::stderr().is_terminal();
    let done = Mutex::new(0usize);
    let show = |Progress { source, fetched }: Progress<'_>| {
        let mut done = done.lock().expect("progress lock");
        *done += 1;
        let failed = matches!(fetched, FetchProgress::Failed(_));
        let what = match fetched {
            FetchProgress::Parsed { eggs, skipped } => format!(
                "{} parsed, {} skipped",
                count(eggs, "egg", "eggs"),
                count(skipped, "file", "files")
            ),
            FetchProgress::Unchanged => "unchanged".to_owned(),
            FetchProgress::Failed(error) => error,
        };
        if terminal {
            eprint!(
                "\r\x1b[2K[{done}/{total}] {}/{}: {what}",
                source.owner, source.repo
            );
            if *done == total {
                eprintln!();
            }
        } else if failed {
            tracing::warn!(source = %source.url, "{what}");
        } else {
            tracing::info!(source = %source.url, "{what}");
        }
    };
    let rebuilt = rebuild(&store, &options, &crate::now_ms, &show).context(FAILED)?;
    let (report, snapshot_dir, verb, snapshot) = match rebuilt {
        // "built": the catalog its users get, made current (publishing is the upload,
        // `eggcat publish`'s and `[publish]`'s word alone).
        // `--out` reads it back from the snapshot just made current: its files with their
        // precompressed forms, which the store wrote.
        Rebuilt::Built(outcome) => (
            outcome.report,
            outcome.snapshot_dir,
            "built",
            "the snapshot just made current",
        ),
        // Nothing changed: the current snapshot stays. Its report is what the summary describes,
        // and its tree is what `--out` gets (it may be missing or stale there); without `--out`
        // nothing more than the report is read.
        Rebuilt::Unchanged { snapshot_dir } => (
            after::kept_report(&snapshot_dir)?,
            snapshot_dir,
            "nothing changed upstream: kept",
            "the current snapshot",
        ),
    };
    // `--out` (with the static-host rules: nginx, Caddy, CloudFront, in `out/.eggcat/`), then
    // the upload; a failed upload is logged and leaves the build a success: the next build
    // retries.
    let rules = eggcat_publish::rules::RulesOptions {
        cache_control: config.cache_control.clone(),
    };
    let follow = after::Follow {
        out: out.map(|out| (out, &rules)),
        publish: config.publish.as_ref(),
    };
    let followed = after::after_build(&store, &follow, &crate::cmd::publish::log_progress);
    if let Some(Err(e)) = followed.out {
        return Err(out_error(e, snapshot));
    }
    print_summary(&report, &snapshot_dir, out, verb)?;
    if let (Some(target), Some(upload)) = (config.publish.as_ref(), followed.upload) {
        crate::cmd::publish::log_upload(target, upload);
    }
    Ok(())
}

/// Why `--out` could not be written; `snapshot` names the current snapshot.
fn out_error(e: OutError, snapshot: &str) -> anyhow::Error {
    match e {
        OutError::NoSnapshot => anyhow::anyhow!("{snapshot} is gone"),
        OutError::Read(e) => anyhow::Error::new(e).context(format!("cannot read {snapshot}")),
        e => e.into(),
    }
}

/// The summary on stdout; `verb` says what happened to the snapshot ("built", or "kept"
/// when nothing changed: the report is then the one of the build that made it). Its last line names the build report with a path that works from any
/// folder: in the `--out` tree when there is one (what a static host serves), else in the
/// current snapshot.
fn print_summary(report: &Report, snapshot: &Path, out: Option<&Path>, verb: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(
        o,
        "{verb} {} ({}, {}) as {}",
        count(report.eggs, "egg", "eggs"),
        count(report.skipped.len(), "skipped file", "skipped files"),
        count(report.warnings.len(), "warning", "warnings"),
        absolute(snapshot).display()
    )?;
    if let Some(out) = out {
        writeln!(o, "wrote the published tree to {}", absolute(out).display())?;
    }
    for s in &report.sources {
        let status = match (s.status, s.changed) {
            (SourceStatus::Ok, true) => "ok".to_owned(),
            (SourceStatus::Ok, false) => "ok (unchanged)".to_owned(),
            (SourceStatus::Failed, _) => format!(
                "FAILED: {}{}",
                s.error.as_deref().unwrap_or("unknown error"),
                // The "no eggs found" error already says the previous eggs were kept.
                if s.kept_previous
                    && !s
                        .error
                        .as_deref()
                        .unwrap_or("")
                        .ends_with(eggcat_catalog::KEPT_PREVIOUS_EGGS)
                {
                    " (previous eggs kept)"
                } else {
                    ""
                }
            ),
        };
        writeln!(
            o,
            "  {:<40} {:>4} {:<4}  {status}",
            format!("{}/{}", s.owner, s.repo),
            s.eggs,
            noun(s.eggs, "egg", "eggs")
        )?;
    }
    print_images(&mut o, report)?;
    print_downloads(&mut o, report)?;
    let report_path = absolute(out.unwrap_or(snapshot)).join(eggcat_catalog::paths::STATUS);
    writeln!(
        o,
        "build report (sources, skipped files, warnings): {}",
        report_path.display()
    )?;
    Ok(())
}

/// What the registries said of the catalog's images, and the first missing ones with their eggs
/// (the report lists them all).
fn print_images(o: &mut impl Write, report: &Report) -> Result<()> {
    let images = &report.images;
    if images.present + images.missing + images.unknown == 0 {
        return Ok(());
    }
    writeln!(
        o,
        "  images: {} present, {} missing, {} unknown",
        images.present, images.missing, images.unknown
    )?;
    for m in images.missing_images.iter().take(10) {
        writeln!(o, "    missing: {} ({})", m.reference, m.eggs.join(", "))?;
    }
    if images.missing_images.len() > 10 {
        writeln!(o, "    … and {} more", images.missing_images.len() - 10)?;
    }
    Ok(())
}

/// What the hosts said of the install scripts' downloads, and the first missing ones with
/// their eggs (the report lists them all).
fn print_downloads(o: &mut impl Write, report: &Report) -> Result<()> {
    let d = &report.downloads;
    if d.present + d.missing + d.unknown + d.not_checkable == 0 {
        return Ok(());
    }
    writeln!(
        o,
        "  install downloads: {} present, {} missing, {} unknown, {} not checkable",
        d.present, d.missing, d.unknown, d.not_checkable
    )?;
    for m in d.missing_downloads.iter().take(10) {
        writeln!(o, "    missing: {} ({})", m.url, m.eggs.join(", "))?;
    }
    if d.missing_downloads.len() > 10 {
        writeln!(o, "    … and {} more", d.missing_downloads.len() - 10)?;
    }
    Ok(())
}

/// `path` as a full path that works from any folder: resolved on disk (it exists: the build just
/// wrote it), so that `demo/../target/...` reads `target/...`; else made absolute against the
/// working directory; else as it is.
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
