//! `eggcat validate [PATH...]`: runs every egg check on files and folders and prints the
//! diagnostics like a compiler does. Folders are walked for the files the catalog would index
//! (`eggcat_catalog::is_egg_file_name`, skipping dot-folders such as `.github`); a file named
//! on the command line is always checked. The checks themselves live in `eggcat-validate`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::ValueEnum;
use eggcat_catalog::ImageFindings;
use eggcat_catalog::images::ImageReference;
use eggcat_catalog::wire::ImageStatus;
use eggcat_validate::{
    Diagnostic, RegistryAnswer, Summary, check_file, check_registry_answers, render_github,
    render_human, render_json,
};

/// Check egg files and report what a panel would refuse or what would break.
///
/// Exit status: 0 when there is no error, 1 when there are errors (or warnings with
/// `--deny warnings`), 2 on a usage or IO error. `--help` lists every check (from
/// `eggcat_validate::Code::ALL`), so that the help stands without the repository's docs.
#[derive(Debug, clap::Args)]
#[command(after_help = short_help(), after_long_help = long_help())]
pub(crate) struct Args {
    /// Files or folders to check (default: the current folder). Folders are searched for
    /// egg files (`*egg-*.json|yaml|yml`, not under a dot-folder); a named file is always
    /// checked.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format: `human` (rustc-like), `json` (one object per diagnostic and line), or
    /// `github` (GitHub Actions annotations).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Fail (exit 1) on warnings too.
    #[arg(long, value_enum, value_name = "LEVEL")]
    deny: Option<Deny>,
    /// Colour the human output: `auto` (only on a terminal, and not when NO_COLOR is set),
    /// `always`, `never`.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Also ask each image's registry whether the image exists (E062 missing, an error; E063
    /// could not be checked, a note). Without it, nothing goes to the network.
    #[arg(long)]
    images: bool,
    /// Let --images (and --downloads) ask internal addresses (loopback, link-local, private,
    /// unique-local): a registry or file server on this machine or network. Off, they are
    /// `unknown` without being asked, as in a build without `[images] allow_internal`.
    #[arg(long)]
    allow_internal: bool,
    /// Also ask the host of each URL the install scripts fetch whether it exists (E064
    /// missing, an error; E065 could not be checked, a note): fixed URLs, and those the
    /// egg's default values make whole.
    #[arg(long)]
    downloads: bool,
    /// With --images or --downloads: resolve HOST to ADDRESS instead of asking the system's
    /// resolver, as curl's --resolve (`ADDRESS` `hang`: the lookup never answers); repeatable.
    #[arg(long, value_name = "HOST=ADDRESS")]
    resolve: Vec<String>,
    /// With --images or --downloads: a PEM file of certificate authorities trusted besides the
    /// system's.
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
}

const EXIT_HELP: &str =
    "Exit status: 0 no errors; 1 errors, or warnings with --deny warnings; 2 a usage or IO error.";

/// After `-h`: the exit status and the families of checks.
fn short_help() -> String {
    format!(
        "{EXIT_HELP}\n\nChecks: E001-E009 the file (encoding, syntax, size), E010-E017 the egg's \
         fields, E020-E025 variable names and fields, E030-E036 variable rules and defaults, E040-E042 \
         startup, E050-E053 config, E060-E063 docker images (E062-E063 with --images), E070-E072 install script. \
         `eggcat validate --help` lists every check."
    )
}

/// After `--help`: the exit status and every check with its severity, from the checks' own
/// table, so that it is never out of date. Each diagnostic carries its own `help` line on how
/// to fix it.
fn long_help() -> String {
    let mut text = format!("{EXIT_HELP}\n\nChecks (code, severity, what it finds):\n");
    for c in eggcat_validate::Code::ALL {
        text.push_str(&format!(
            "  {}  {:<7}  {}\n",
            c.as_str(),
            c.severity().as_str(),
            c.summary()
        ));
    }
    text.push_str(
        "\nEvery diagnostic says where (file, line, column) and how to fix it (its `help` line).",
    );
    text
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Deny {
    Warnings,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// Runs the command; the exit code follows the contract above.
pub(crate) fn main(args: Args) -> ExitCode {
    super::exit_code(run(&args))
}

/// What the registries say of every valid image the files name (`--images`): each distinct
/// reference asked once, with the default limits, and no cache.
fn ask_registries(files: &[(String, Vec<u8>)], options: &eggcat_images::Options) -> ImageFindings {
    let mut references = Vec::new();
    for (path, bytes) in files {
        let syntax = eggcat_egg::SyntaxKind::from_file_name(path).unwrap_or_else(|| {
            match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{' | b'[') => eggcat_egg::SyntaxKind::Json,
                _ => eggcat_egg::SyntaxKind::Yaml,
            }
        });
        if let Ok(parsed) = eggcat_egg::parse(bytes, syntax) {
            references.extend(eggcat_catalog::images::references(&parsed.value));
        }
    }
    eggcat_images::check(&references, options, None, &crate::now_ms)
}

/// What the hosts say of every download URL the files' install scripts fetch that can be
/// asked (`--downloads`): each distinct URL asked once, with the default limits, no cache.
fn ask_hosts(
    files: &[(String, Vec<u8>)],
    options: &eggcat_images::Options,
) -> eggcat_images::DownloadFindings {
    let mut urls = Vec::new();
    for (path, bytes) in files {
        let syntax = eggcat_egg::SyntaxKind::from_file_name(path).unwrap_or_else(|| {
            match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{' | b'[') => eggcat_egg::SyntaxKind::Json,
                _ => eggcat_egg::SyntaxKind::Yaml,
            }
        });
        if let Ok(parsed) = eggcat_egg::parse(bytes, syntax) {
            urls.extend(eggcat_catalog::downloads::urls(&parsed.value));
        }
    }
    eggcat_images::check_downloads(&urls, &urls, options, None, &crate::now_ms)
}

/// E064/E065 on the downloads of one file, from the hosts' findings.
fn download_diagnostics(
    path: &str,
    bytes: &[u8],
    findings: &eggcat_images::DownloadFindings,
) -> Vec<Diagnostic> {
    let answer = |url: &str| {
        let f = findings.get(url)?;
        let detail = f.detail.clone().unwrap_or_default();
        Some(match f.status {
            ImageStatus::Present => RegistryAnswer::Present,
            ImageStatus::Missing => RegistryAnswer::Missing(detail),
            ImageStatus::Unknown => RegistryAnswer::Unknown(detail),
        })
    };
    eggcat_validate::check_download_answers(path, bytes, &answer)
}

/// E062/E063 on the images of one file, from the registries' findings.
fn registry_diagnostics(path: &str, bytes: &[u8], findings: &ImageFindings) -> Vec<Diagnostic> {
    let answer = |image: &str| {
        let reference = ImageReference::parse(image).ok()?.to_string();
        let f = findings.get(&reference)?;
        let detail = f.detail.clone().unwrap_or_default();
        Some(match f.status {
            ImageStatus::Present => RegistryAnswer::Present,
            ImageStatus::Missing => RegistryAnswer::Missing(detail),
            ImageStatus::Unknown => RegistryAnswer::Unknown(detail),
        })
    };
    check_registry_answers(path, bytes, &answer)
}

fn run(args: &Args) -> Result<ExitCode> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut files = Vec::new();
    for path in &paths {
        let meta =
            std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        if meta.is_dir() {
            walk(path, &mut files).with_context(|| format!("cannot walk {}", path.display()))?;
        } else {
            files.push(path.clone());
        }
    }
    files.sort();
    files.dedup();
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut summary = Summary::default();
    let mut read = Vec::with_capacity(files.len());
    for file in &files {
        let bytes =
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        read.push((file.display().to_string(), bytes));
    }
    let mut options = eggcat_images::Options {
        allow_internal: args.allow_internal,
        ca_file: args.ca_file.clone(),
        ..eggcat_images::Options::default()
    };
    for r in &args.resolve {
        let (host, to) = r
            .split_once('=')
            .with_context(|| format!("--resolve `{r}`: write it HOST=ADDRESS"))?;
        let resolution = if to == "hang" {
            eggcat_images::Resolution::Hang
        } else {
            eggcat_images::Resolution::Address(to.parse().with_context(|| {
                format!("--resolve `{r}`: `{to}` is neither an IP address nor `hang`")
            })?)
        };
        options
            .resolve
            .insert(host.to_ascii_lowercase(), resolution);
    }
    let answers = args.images.then(|| ask_registries(&read, &options));
    let hosts = args.downloads.then(|| ask_hosts(&read, &options));
    for (shown, bytes) in &read {
        let mut diags: Vec<Diagnostic> = check_file(shown, bytes);
        if let Some(findings) = &answers {
            diags.extend(registry_diagnostics(shown, bytes, findings));
        }
        if let Some(findings) = &hosts {
            diags.extend(download_diagnostics(shown, bytes, findings));
        }
        if answers.is_some() || hosts.is_some() {
            diags.sort_by_key(|d| (d.line.unwrap_or(0), d.column.unwrap_or(0)));
        }
        let (shown, bytes) = (shown.as_str(), bytes.as_slice());
        summary.add(&diags);
        let text = match args.format {
            Format::Human => render_human(shown, &String::from_utf8_lossy(bytes), &diags, color),
            Format::Json => render_json(shown, &diags),
            Format::Github => render_github(shown, &diags),
        };
        out.write_all(text.as_bytes())?;
    }
    if args.format == Format::Human {
        let line = summary.line(files.len());
        let line = if color && summary.errors > 0 {
            format!("\x1b[1m{line}\x1b[0m")
        } else {
            line
        };
        writeln!(out, "{line}")?;
    } else {
        // Machine formats keep stdout for diagnostics; the summary goes to stderr.
        eprintln!("{}", summary.line(files.len()));
    }
    out.flush()?;
    let failed = summary.errors > 0 || (args.deny == Some(Deny::Warnings) && summary.warnings > 0);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The egg files under `dir`, skipping dot-folders (`.git`, `.github` templates) as the catalog
/// does. Symlinks are not followed, so a link loop cannot trap the walk.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !name.starts_with('.') {
                walk(&entry.path(), files)?;
            }
        } else if kind.is_file() && eggcat_catalog::is_egg_file_name(&name) {
            files.push(entry.path());
        }
    }
    Ok(())
}
