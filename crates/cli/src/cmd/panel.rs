//! `eggcat panel status`: where each egg of a Pelican panel stands against a served eggcat
//! catalog (`eggcat_panel::status`), or of a Pterodactyl panel (`pterodactyl.rs`,
//! `eggcat_panel::pterodactyl_status`); `eggcat panel update`: brings the behind eggs up to date
//! keeping the panel's edits (`eggcat_panel::update`); `eggcat panel restore`: puts a saved
//! export back. Each prints a table for people (colour only on a terminal) or `--json`, and
//! exits with a code for cron and monitoring (docs/guides/panel-status.md).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use eggcat_panel::backups::Backups;
use eggcat_panel::pterodactyl::{Kind, detect};
use eggcat_panel::status::{Catalog, status};
use eggcat_panel::update::{Options, Side, restore, update};
use eggcat_panel::{Client, Config, Key};
use serde_json::Value;

mod pterodactyl;

use pterodactyl::PanelKind;

/// Check a Pelican (or Pterodactyl) panel's eggs against an eggcat catalog.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// For every egg on the panel: the catalog egg it comes from and whether it is up to date,
    /// behind (and what changed since), edited locally, both, the same egg in another order,
    /// removed upstream, not from this catalog, or unknown (and why). On a Pterodactyl panel:
    /// up to date, differs (the fields, and the file to upload with Update Egg), ambiguous, not
    /// from this catalog, or unknown.
    ///
    /// Exit status: 0 nothing to update; 1 some egg is behind or removed upstream (Pterodactyl:
    /// differs); 2 an error (the panel or the catalog cannot be read, the key is refused); 3
    /// some egg's state is unknown (or ambiguous) and none is behind.
    Status(StatusArgs),
    /// Brings the eggs that are behind up to date and keeps the panel's own edits: a three-way
    /// merge per field and per variable (the version the panel came from, the catalog's current
    /// file, the panel's export). A conflict leaves that egg as it is unless --ours or --theirs
    /// is given; an update with a breaking change, or that removes a variable (every server's
    /// value of it goes), needs --accept-breaking naming the egg. Before any write the panel's
    /// export is saved under the data folder (`panel restore` puts it back); the write is
    /// Pelican's own import; afterwards the egg is exported again and checked. Nothing is
    /// deleted on the panel.
    ///
    /// Exit status: 0 every behind egg is up to date now (or would be, with --dry-run); 1 some
    /// egg was left behind (a conflict, consent needed, no base); 2 an error, or a write that
    /// failed or was not tried.
    Update(UpdateArgs),
    /// Puts an export that `panel update` saved back on the panel (the newest of the egg, or
    /// the one --at names; --list shows them), saving the panel's current export first.
    ///
    /// Exit status: 0 the panel holds the saved export again; 1 it holds something else; 2 an
    /// error.
    Restore(RestoreArgs),
}

/// How to reach the panel.
#[derive(Debug, clap::Args)]
struct PanelArgs {
    /// The panel's address (https://panel.example.org; plain http only to a loopback address).
    #[arg(long, value_name = "URL")]
    panel: String,
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

#[derive(Debug, clap::Args)]
struct StatusArgs {
    #[command(flatten)]
    panel: PanelArgs,
    /// The eggcat catalog's address (what `eggcat serve` or a static host serves).
    #[arg(long, value_name = "URL")]
    catalog: String,
    /// Which panel --panel is: found from its answers (auto), or named.
    #[arg(long, value_name = "KIND", value_enum, default_value = "auto")]
    panel_kind: PanelKind,
}

#[derive(Debug, clap::Args)]
struct UpdateArgs {
    #[command(flatten)]
    panel: PanelArgs,
    /// The eggcat catalog's address (what `eggcat serve` or a static host serves).
    #[arg(long, value_name = "URL")]
    catalog: String,
    /// Where the panel's exports are saved before a write (default: the `data_dir` of
    /// eggcat.toml in this folder, else ./eggcat-data).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Show what each egg would become; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// In a conflict, keep the panel's value.
    #[arg(long, conflicts_with = "theirs")]
    ours: bool,
    /// In a conflict, take upstream's value.
    #[arg(long)]
    theirs: bool,
    /// Consent to a breaking update, or one that removes variables, of this egg (its id or
    /// catalog slug; `all` for every egg). Repeatable.
    #[arg(long, value_name = "EGG")]
    accept_breaking: Vec<String>,
    /// Only this egg (its id or catalog slug). Repeatable; every egg when not given.
    #[arg(long, value_name = "EGG")]
    egg: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct RestoreArgs {
    #[command(flatten)]
    panel: PanelArgs,
    /// Where `panel update` saved the exports (as for `panel update`).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The egg's id on the panel.
    #[arg(long, value_name = "ID", required_unless_present = "list")]
    egg: Option<u64>,
    /// The saved export to put back, by its time as --list shows it (default: the newest).
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    /// List the saved exports (of --egg, or of every egg) and write nothing.
    #[arg(long)]
    list: bool,
}

pub(crate) fn main(args: Args) -> ExitCode {
    super::exit_code(match args.command {
        Sub::Status(a) => run_status(a),
        Sub::Update(a) => run_update(a),
        Sub::Restore(a) => run_restore(a),
    })
}

/// The panel's client and the time limit, from the arguments.
fn connect(a: &PanelArgs) -> Result<(Client, Duration, usize)> {
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
    Ok((Client::new(config)?, timeout, in_flight))
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// `--data-dir`, else the configuration's `data_dir`.
fn data_dir(given: Option<&PathBuf>) -> Result<PathBuf> {
    match given {
        Some(dir) => Ok(dir.clone()),
        None => Ok(crate::config::Config::load(None)?.data_dir),
    }
}

fn run_status(a: StatusArgs) -> Result<ExitCode> {
    let (client, timeout, in_flight) = connect(&a.panel)?;
    let catalog = Catalog::new(&a.catalog, a.panel.ca_file.as_deref(), timeout, in_flight)?;
    let rt = runtime()?;
    let pterodactyl = match a.panel_kind {
        PanelKind::Auto => rt.block_on(detect(&client))? == Kind::Pterodactyl,
        PanelKind::Pelican => false,
        PanelKind::Pterodactyl => true,
    };
    let (report, code) = if pterodactyl {
        let report = rt.block_on(eggcat_panel::pterodactyl_status::status(&client, &catalog))?;
        let code = eggcat_panel::pterodactyl_status::exit_code(&report);
        (report, code)
    } else {
        let report = rt.block_on(status(&client, &catalog))?;
        let code = eggcat_panel::status::exit_code(&report);
        (report, code)
    };
    let mut out = std::io::stdout().lock();
    let colour = std::io::stdout().is_terminal();
    if a.panel.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else if pterodactyl {
        write!(out, "{}", pterodactyl::table(&report, colour))?;
    } else {
        write!(out, "{}", table(&report, colour))?;
    }
    Ok(ExitCode::from(code))
}

fn run_update(a: UpdateArgs) -> Result<ExitCode> {
    let (client, timeout, in_flight) = connect(&a.panel)?;
    let catalog = Catalog::new(&a.catalog, a.panel.ca_file.as_deref(), timeout, in_flight)?;
    let backups = Backups::new(&data_dir(a.data_dir.as_ref())?, client.url());
    let options = Options {
        dry_run: a.dry_run,
        prefer: match (a.ours, a.theirs) {
            (true, _) => Some(Side::Ours),
            (_, true) => Some(Side::Theirs),
            _ => None,
        },
        accept_breaking: a.accept_breaking,
        only: a.egg,
    };
    let rt = runtime()?;
    pelican_only(&rt, &client, "update")?;
    let report = rt.block_on(update(&client, &catalog, &backups, &options))?;
    let mut out = std::io::stdout().lock();
    if a.panel.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(
            out,
            "{}",
            update_table(&report, std::io::stdout().is_terminal())
        )?;
    }
    Ok(ExitCode::from(eggcat_panel::update::exit_code(&report)))
}

/// Refuses a Pterodactyl panel for a command that writes: its application API has no export
/// and no import (docs/guides/panel-status.md, section 9).
fn pelican_only(rt: &tokio::runtime::Runtime, client: &Client, what: &str) -> Result<()> {
    if rt.block_on(detect(client))? == Kind::Pterodactyl {
        bail!(
            "{} is a Pterodactyl panel, whose application API has no export and no import: eggcat cannot {what} its eggs; `eggcat panel status` names, for each egg that differs, the catalog file to upload with the egg's Update Egg",
            client.url()
        );
    }
    Ok(())
}

fn run_restore(a: RestoreArgs) -> Result<ExitCode> {
    let (client, _, _) = connect(&a.panel)?;
    let backups = Backups::new(&data_dir(a.data_dir.as_ref())?, client.url());
    let saved = backups.list(a.egg)?;
    let mut out = std::io::stdout().lock();
    if a.list {
        if a.panel.json {
            let list: Vec<Value> = saved
                .iter()
                .map(|s| serde_json::json!({"egg": s.egg, "time": s.time, "path": s.path}))
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        } else if saved.is_empty() {
            writeln!(out, "no saved exports in {}", backups.dir().display())?;
        } else {
            for s in &saved {
                writeln!(out, "egg {:>5}  {}  {}", s.egg, s.time, s.path.display())?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let rt = runtime()?;
    pelican_only(&rt, &client, "restore")?;
    let egg = a.egg.context("--egg names the egg to restore")?;
    let chosen = match &a.at {
        Some(at) => saved.iter().find(|s| &s.time == at).with_context(|| {
            format!("egg {egg} has no saved export of {at} (`panel restore --list --egg {egg}` shows them)")
        })?,
        None => saved.last().with_context(|| {
            format!(
                "egg {egg} has no saved export in {}",
                backups.dir().display()
            )
        })?,
    };
    let report = rt.block_on(restore(&client, &backups, chosen))?;
    if a.panel.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else if report["holds"] == true {
        writeln!(
            out,
            "restored egg {} from {} (the export before: {})",
            report["egg"],
            chosen.path.display(),
            report["savedBefore"]
                .as_str()
                .unwrap_or("none, the egg was gone")
        )?;
    } else {
        writeln!(
            out,
            "egg {} was imported from {}, but the panel holds something else: {}",
            report["egg"],
            chosen.path.display(),
            report["differs"]
        )?;
    }
    Ok(ExitCode::from(if report["holds"] == true { 0 } else { 1 }))
}

/// The update's report for people: one line per egg (outcome, state, id, name), then what was
/// taken, kept, in conflict or needs consent, the servers an update that breaks or removes
/// touches, and why an egg was left or failed.
fn update_table(report: &Value, colour: bool) -> String {
    let paint = |outcome: &str| -> String {
        let code = match outcome {
            "updated" | "would-update" => "32",
            "conflict" | "needs-consent" => "33",
            "failed" | "not-tried" => "31",
            _ => "0",
        };
        if colour {
            format!("\x1b[{code}m{outcome:<14}\x1b[0m")
        } else {
            format!("{outcome:<14}")
        }
    };
    let mut s = format!(
        "{:<14} {:<20} {:>5}  {}\n",
        "OUTCOME", "STATE", "ID", "NAME"
    );
    let eggs = report["eggs"].as_array().cloned().unwrap_or_default();
    for e in &eggs {
        s.push_str(&format!(
            "{} {:<20} {:>5}  {}\n",
            paint(e["outcome"].as_str().unwrap_or("")),
            e["state"].as_str().unwrap_or(""),
            e["id"],
            e["name"].as_str().unwrap_or("")
        ));
    }
    for e in &eggs {
        if e["outcome"] == "left" {
            continue;
        }
        let mut lines = Vec::new();
        let list = |key: &str| -> Vec<String> {
            e[key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                .collect()
        };
        for (key, label) in [
            ("tookUpstream", "from upstream"),
            ("keptLocal", "kept, the panel's edit"),
            ("breaking", "breaking"),
            ("removesVariables", "removes the variable"),
        ] {
            for x in list(key) {
                lines.push(format!("{label}: {x}"));
            }
        }
        // A needs-consent egg's `why` names its servers already.
        if let Some(servers) = e.get("servers")
            && e["outcome"] != "needs-consent"
        {
            lines.push(eggcat_panel::servers_in_words(servers));
        }
        for c in e["conflicts"].as_array().into_iter().flatten() {
            lines.push(format!(
                "conflict: {} (was {}, panel {}, upstream {})",
                c["field"].as_str().unwrap_or(""),
                c["base"],
                c["panel"],
                c["catalog"]
            ));
        }
        if let Some(b) = e["backup"].as_str() {
            lines.push(format!("saved before: {b}"));
        }
        if let Some(w) = e["why"].as_str() {
            lines.push(w.to_owned());
        }
        s.push_str(&format!(
            "\n{} (id {}):\n",
            e["name"].as_str().unwrap_or(""),
            e["id"]
        ));
        for l in lines {
            s.push_str(&format!("  {l}\n"));
        }
    }
    let summary: Vec<String> = report["counts"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    s.push_str(&format!(
        "\n{} eggs{}: {}\n",
        eggs.len(),
        if report["dryRun"] == true {
            " (dry run: nothing written)"
        } else {
            ""
        },
        if summary.is_empty() {
            "none".to_owned()
        } else {
            summary.join(", ")
        }
    ));
    s
}

/// The report for people: one line per egg (state, id, name, catalog egg), then what each
/// egg that needs it has: the versions since with their changes (`!` marks a breaking one),
/// the changes that reset servers' values and how many servers use the egg (which, or why
/// that is not known), the local edits, the reason or why.
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
        if let Some(servers) = e.get("servers") {
            lines.push(eggcat_panel::servers_in_words(servers));
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
            lines.push("the version these edits were made on is not certain (the catalog's history does not reach back to the egg's first version, or an older version's file could not be read): the edits may include upstream's changes since, and `panel update` leaves the egg".to_owned());
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
    if let Some(why) = report["serversWhy"].as_str() {
        s.push_str(&format!("{why}\n"));
    }
    s
}
