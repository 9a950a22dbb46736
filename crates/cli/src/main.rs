//! The `eggcat` binary: a thin command line over the library crates. The only place that uses
//! `anyhow` and prints.

mod cmd;
mod config;
mod errors;
mod words;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::{Parser, Subcommand};

/// mimalloc, not the system allocator: `serve` swaps whole catalogs in and out of memory every
/// rebuild, and glibc's malloc kept the freed pages of each swap (resident memory grew from
/// 130 MiB after the first build to 250 MiB after eight rebuilds in two minutes of
/// bench/soak.sh). mimalloc returns freed pages to the system. See docs/operations.md, "Memory".
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// eggcat: a catalog of Pterodactyl and Pelican eggs, built from upstream git repositories and
/// served as static JSON (API v1, interface version 2.0.0).
#[derive(Debug, Parser)]
#[command(name = "eggcat", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Fetch every source, build the catalog, and make it the current snapshot.
    Build {
        /// Configuration file (TOML). Default: ./eggcat.toml if present, else the built-in list
        /// of upstream repositories.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Also write the published tree (api/v1/...) into DIR, for a static host or CDN.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Do not upload to object storage even when `[publish]` is configured (`serve` runs
        /// its builds so, and uploads once it serves the new catalog).
        #[arg(long)]
        no_publish: bool,
        /// The public address of the catalog (overrides `base_url`; `serve` passes its own to
        /// the builds it runs).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
    },
    /// Serve the current snapshot over HTTP, building one first if there is none, and rebuild
    /// it periodically.
    Serve {
        /// Configuration file (TOML), as for `build`.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Address to listen on (overrides `listen`; default 127.0.0.1:8080).
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
        /// Time between rebuilds, e.g. 90s, 30m, 6h (overrides `refresh`; default 3h).
        #[arg(long, value_name = "DURATION")]
        refresh: Option<String>,
    },
    /// Check egg files for what a panel would refuse or what would break (`validate --help`
    /// lists every check).
    Validate(cmd::validate::Args),
    /// Show what changed between two egg files, and whether it can break servers (`!` marks
    /// a change that can).
    Diff(cmd::diff::Args),
    /// Upload the current snapshot to S3-compatible object storage (`[publish]` or --to).
    Publish(cmd::publish::Args),
    /// Check a Pelican panel's eggs against an eggcat catalog (`panel status --help`).
    Panel(cmd::panel::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    init_logging();
    let result = match cli.command {
        Command::Build {
            config,
            out,
            no_publish,
            base_url,
        } => config::Config::load(config.as_deref()).and_then(|mut c| {
            if let Some(url) = base_url {
                c.set_base_url(&url)?;
            }
            c.check_data_dir()?;
            if no_publish {
                c.publish = None;
            }
            cmd::build::run(&c, out.as_deref())
        }),
        Command::Serve {
            config,
            listen,
            refresh,
        } => config::Config::load(config.as_deref()).and_then(|mut c| {
            if let Some(listen) = listen {
                c.listen = listen;
            }
            if let Some(refresh) = refresh {
                c.refresh = config::parse_duration("--refresh", &refresh)?;
            }
            c.check_data_dir()?;
            cmd::serve::run(c)
        }),
        Command::Validate(args) => return cmd::validate::main(args),
        Command::Diff(args) => return cmd::diff::main(args),
        Command::Publish(args) => cmd::publish::run(args),
        Command::Panel(args) => return cmd::panel::main(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("eggcat: error: {}", errors::one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// A command line clap refuses, on one line like every other error (clap draws several, with
/// blank lines between): `eggcat: error: <what>; tip: <suggestion>; Usage: ...; For more
/// information, try '--help'.`, exit code 2. Help and version are printed as clap prints them.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let line = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("; ");
    eprintln!("eggcat: error: {line}");
    ExitCode::from(2)
}

/// Logs go to stderr; `EGGCAT_LOG` sets the level (error, warn, info, debug, trace).
fn init_logging() {
    let level = std::env::var("EGGCAT_LOG")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(tracing::Level::INFO);
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

/// The clock: Unix time in milliseconds.
pub(crate) fn now_ms() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
