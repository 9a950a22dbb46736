//! `eggcat diff OLD NEW`: what changed between two egg files, in a panel admin's terms, for a
//! maintainer reviewing a pull request or an admin deciding whether to update. The diff itself
//! lives in `eggcat-diff`; this file reads the two files (bounded by the catalog's 16 MiB
//! limit, checked before reading), prints, and turns the result into an exit status.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use eggcat_diff::{Change, MAX_FILE_BYTES, Summary, diff, load, render_human};
use serde_json::Value;

/// Show what changed between two egg files (any formats: PTDL or PLCN, JSON or YAML).
///
/// Exit status: 0 when the command ran (whatever it found), 1 with --breaking when a change can
/// break servers made from OLD, 2 when a file cannot be read or is not an egg. Breaking: a
/// removed or renamed variable, a removed or changed image, a changed or removed startup
/// command, a changed stop command, "server ready" text or config file, a default its rules
/// refuse, rules the old default fails.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The egg before.
    #[arg(value_name = "OLD")]
    old: std::path::PathBuf,
    /// The egg after.
    #[arg(value_name = "NEW")]
    new: std::path::PathBuf,
    /// Output format: `human` (one line per change, breaking ones marked `!`) or `json` (an
    /// object with the counts and the list of changes).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Exit 1 when some change can break existing servers.
    #[arg(long)]
    breaking: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// Runs the command; the exit code follows the contract above.
pub(crate) fn main(args: Args) -> ExitCode {
    super::exit_code(run(&args))
}

fn run(args: &Args) -> Result<ExitCode> {
    let old = read(&args.old)?;
    let new = read(&args.new)?;
    let changes = diff(&old, &new);
    let text = match args.format {
        Format::Human => render_human(&changes),
        Format::Json => json(&changes)?,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(if args.breaking && eggcat_diff::any_breaking(&changes) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One egg file, or a one-line reason naming the file.
fn read(path: &Path) -> Result<Value> {
    let shown = path.display();
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {shown}"))?
        .len();
    if size > MAX_FILE_BYTES {
        bail!("{shown}: file is {size} bytes, over the 16 MiB an egg file may have");
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {shown}"))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    load(&name, &bytes).with_context(|| format!("{shown} cannot be diffed"))
}

/// `{"changes": n, "breaking": b, "list": [...]}`, pretty, one trailing newline.
fn json(changes: &[Change]) -> Result<String> {
    let summary = Summary::of(changes);
    let doc = serde_json::json!({
        "changes": summary.changes,
        "breaking": summary.breaking,
        "list": changes,
    });
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    Ok(text)
}
