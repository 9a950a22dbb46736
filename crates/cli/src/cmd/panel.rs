//! `eggcat panel status`: where each egg of a Pelican panel stands against a served eggcat
//! catalog (`eggcat_panel::status`); a table for people (colour only on a terminal) or
//! `--json`, and an exit code for cron and monitoring (docs/guides/panel-status.md).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use eggcat_panel::status::{Catalog, status};
use eggcat_panel::{Client, Config, Key};
use serde_json::Value;

/// Check a Pelican panel's eggs against an eggcat catalog.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// For every egg on the panel: the catalog egg it comes from and whether it is up to date,
    /// behind (and what changed since), edited locally, both, the same egg in another order,
    /// removed upstream, not from this catalog, or unknown (and why).
    ///
    /// Exit status: 0 nothing to update; 1 some egg is behind or removed upstream; 2 an error
    /// (the panel or the catalog cannot be read, the key is refused); 3 some egg's state is
    /// unknown (none behind).
    Status(StatusArgs),
}

#[derive(Debug, clap::Args)]
struct StatusArgs {
    /// The panel's address (https://panel.example.org; plain http only to a loopback address).
    #[arg(long, value_name = "URL")]
    panel: String,
    /// The eggcat catalog's address (what `eggcat serve` or a static host serves).
    #[arg(long, value_name = "URL")]
    catalog: String,
    /// The environment variable holding the panel's application API key (default
    /// EGGCAT_PANEL_KEY when --key-file is not given).
    #[arg(long, value_name = "VAR", conflicts_with = "key_file")]
    key_env: Option<String>,
    /// A file whose first line is the panel's application API key.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// A PEM file of the CA the panel's (and the catalog's) certificate comes from.
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
    /// Most time one request may take, e.g. 30s.
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    timeout: String,
    /// Print the report as JSON (docs/guides/panel-status.md gives every field).
    #[arg(long)]
    json: bool,
}

pub(crate) fn main(args: Args) -> ExitCode {
    super::exit_code(match args.command {
        Sub::Status(a) => run_status(a),
    })
}

fn run_status(a: StatusArgs) -> Result<ExitCode> {
    let key = match (&a.key_env, &a.key_file) {
        (_, Some(file)) => Key::from_file(file)?,
        (Some(var), None) => Key::from_env(var)?,
        (None, None) => Key::from_env("EGGCAT_PANEL_KEY")?,
    };
    let timeout: Duration = humantime::parse_duration(&a.timeout)
        .with_context(|| format!("--timeout {:?} is not a duration (30s, 2m)", a.timeout))?;
    if timeout.is_zero() {
        bail!("--timeout must be more than 0");
    }
    let mut config = Config::new(&a.panel, key);
    config.timeout = timeout;
    config.ca_file.clone_from(&a.ca_file);
    let in_flight = config.in_flight;
    let client = Client::new(config)?;
    let catalog = Catalog::new(&a.catalog, a.ca_file.as_deref(), timeout, in_flight)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(status(&client, &catalog))?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", table(&report, std::io::stdout().is_terminal()))?;
    }
    Ok(ExitCode::from(eggcat_panel::status::exit_code(&report)))
}

/// The report for people: one line per egg (state, id, name, catalog egg), then what each
/// egg that needs it has: the versions since with their changes (`!` marks a breaking one),
/// the changes that reset servers' values, the local edits, the reason or why.
fn table(report: &Value, colour: bool) -> String {
    let paint = |state: &str| -> String {
        let code = match state {
            "up-to-date" | "same-egg-other-order" => "32",
            "behind" | "behind-and-edited" | "removed-upstream" => "33",
            "unknown" => "31",
            _ => "0",
        };
        if colour {
            format!("\x1b[{code}m{state:<22}\x1b[0m")
        } else {
            format!("{state:<22}")
        }
    };
    let mut s = String::new();
    s.push_str(&format!(
        "{:<22} {:>5}  {:<32} {}\n",
        "STATE", "ID", "NAME", "CATALOG EGG"
    ));
    let eggs = report["eggs"].as_array().cloned().unwrap_or_default();
    for e in &eggs {
        let state = e["state"].as_str().unwrap_or("");
        let slug = match (e["slug"].as_str(), e["matchedBy"].as_str()) {
            (Some(s), Some(by)) => format!("{s} (by {by})"),
            _ => "-".to_owned(),
        };
        s.push_str(&format!(
            "{} {:>5}  {:<32} {slug}\n",
            paint(state),
            e["id"],
            e["name"].as_str().unwrap_or("")
        ));
    }
    for e in &eggs {
        let mut lines = Vec::new();
        if let Some(has) = e.get("has") {
            lines.push(format!(
                "has the version of {} ({})",
                has["date"].as_str().unwrap_or("?"),
                has["subject"].as_str().unwrap_or("")
            ));
        }
        for v in e["since"].as_array().into_iter().flatten() {
            lines.push(format!(
                "since: {} {}{}",
                v["date"].as_str().unwrap_or("?"),
                v["subject"].as_str().unwrap_or(""),
                if v["breaking"] == true {
                    " (breaking)"
                } else {
                    ""
                }
            ));
            for c in v["changes"].as_array().into_iter().flatten() {
                let mark = if c["breaking"] == true { "!" } else { " " };
                lines.push(format!("  {mark} {}", c["text"].as_str().unwrap_or("")));
            }
        }
        for r in e["resetsServerValues"].as_array().into_iter().flatten() {
            lines.push(format!(
                "resets every server's value: {}",
                r.as_str().unwrap_or("")
            ));
        }
        for ed in e["edits"].as_array().into_iter().flatten() {
            lines.push(format!(
                "edited: {} (catalog {}, panel {})",
                ed["field"].as_str().unwrap_or(""),
                ed["catalog"],
                ed["panel"]
            ));
        }
        if e["baseKnown"] == false {
            lines.push("compared with the current version only (older versions' files are not published): edits may include upstream's changes since".to_owned());
        }
        for key in ["reason", "why"] {
            if let Some(t) = e[key].as_str() {
                lines.push(t.to_owned());
            }
        }
        if !lines.is_empty() {
            s.push_str(&format!(
                "\n{} (id {}):\n",
                e["name"].as_str().unwrap_or(""),
                e["id"]
            ));
            for l in lines {
                s.push_str(&format!("  {l}\n"));
            }
        }
    }
    let counts = report["counts"].as_object().cloned().unwrap_or_default();
    let summary: Vec<String> = counts
        .iter()
        .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    s.push_str(&format!(
        "\n{} eggs: {}\n",
        eggs.len(),
        if summary.is_empty() {
            "none".to_owned()
        } else {
            summary.join(", ")
        }
    ));
    s
}
