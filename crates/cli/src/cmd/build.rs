//! `eggcat build`: fetch, build and publish once, then print a summary.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};
use eggcat_catalog::wire::{Report, SourceStatus};
use eggcat_store::{BuildOptions, FetchProgress, Progress, Store, rebuild, write_tree};

use crate::config::Config;

/// Runs one build with `config`; with `out`, also writes the published tree there.
pub(crate) fn run(config: &Config, out: Option<&Path>) -> Result<()> {
    let store = Store::new(&config.data_dir);
    let options = BuildOptions {
        sources: config.sources.clone(),
        limits: config.limits,
        base_url: config.base_url(),
    };
    let total = config.sources.len();
    let terminal = std::io::stderr().is_terminal();
    let done = Mutex::new(0usize);
    let show = |Progress { source, fetched }: Progress<'_>| {
        let mut done = done.lock().expect("progress lock");
        *done += 1;
        let failed = matches!(fetched, FetchProgress::Failed(_));
        let what = match fetched {
            FetchProgress::Parsed { eggs, skipped } => {
                format!("{eggs} eggs parsed, {skipped} skipped")
            }
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
    let outcome = rebuild(&store, &options, &crate::now_ms, &show).context("build failed")?;
    if let Some(out) = out {
        write_tree(&outcome.snapshot.files, out)
            .with_context(|| format!("cannot write {}", out.display()))?;
        // The static-host rules (nginx, Caddy, CloudFront) go in `out/.eggcat/`.
        let rules = eggcat_publish::rules::RulesOptions {
            cache_control: config.cache_control.clone(),
        };
        eggcat_publish::rules::write(out, &outcome.snapshot.files, &rules)
            .with_context(|| format!("cannot write the static-host rules in {}", out.display()))?;
    }
    print_summary(&outcome.report, &outcome.snapshot_dir, out)?;
    if config.publish.is_some() {
        // A failed publish is logged and leaves the build a success: the next build retries.
        crate::cmd::publish::block_on(crate::cmd::publish::after_build(
            config.publish.as_ref(),
            &store,
        ))?;
    }
    Ok(())
}

fn print_summary(report: &Report, snapshot: &Path, out: Option<&Path>) -> Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(
        o,
        "published {} eggs ({} skipped files, {} warnings) as {}",
        report.eggs,
        report.skipped.len(),
        report.warnings.len(),
        snapshot.display()
    )?;
    if let Some(out) = out {
        writeln!(o, "wrote the published tree to {}", out.display())?;
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
            "  {:<40} {:>4} eggs  {status}",
            format!("{}/{}", s.owner, s.repo),
            s.eggs
        )?;
    }
    if !report.skipped.is_empty() || !report.warnings.is_empty() {
        writeln!(
            o,
            "details of skipped files and warnings: api/v1/_status.json"
        )?;
    }
    Ok(())
}
