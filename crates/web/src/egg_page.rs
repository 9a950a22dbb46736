//! `eggs/{slug}/index.html`: everything an admin needs to choose and import one egg.
//!
//! Sections, in order: the head (icon, name, description, facts, upstream links), the other
//! eggs for the same game (compare.rs), how to import it, the docker images with what their
//! registries say (images.rs), the startup
//! command(s) with each `{{VARIABLE}}` linked to its row, the variables with their rules in plain words, the configuration files, the install
//! script (collapsed, with line numbers), the changes of its last versions upstream
//! (`history.rs`), the README, and the problems found in it.

use eggcat_wire::Severity;
use serde_json::Value;

use crate::html::Html;
use crate::layout::{self, Assets, Data, Here, Nav};
use crate::model::{EggDoc, Meta, Status, clip, egg_str, startup_commands};
use crate::readme::{Renderer, Upstream};
use crate::{egg_page_parts as parts, history};
use eggcat_wire::SummaryItem;

/// The description is shown whole up to this many characters (a 2 MB description would make
/// the page unusable); the egg document keeps all of it.
const DESCRIPTION_CHARS: usize = 5_000;

/// What an egg page shows besides the egg's own document: the other eggs for its game and its
/// history.
#[derive(Clone, Copy)]
pub(crate) struct Related<'a> {
    pub(crate) siblings: &'a eggcat_catalog::games::Others<'a>,
    pub(crate) history: &'a eggcat_catalog::games::Loaded,
}

/// The page of one egg.
pub(crate) fn render(
    doc: &EggDoc,
    item: &SummaryItem,
    related: Related<'_>,
    warnings: &[(usize, &str)],
    assets: &Assets,
    base: &str,
    readmes: &mut Renderer,
) -> String {
    let m = &doc.meta;
    let egg = &doc.egg;
    let path = eggcat_wire::paths::egg_page(&m.slug);
    let here = Here::Page(&path);
    let mut h = Html::with_capacity(16 * 1024);
    layout::start(
        &mut h,
        &format!("{} – eggcat", m.name),
        &meta_description(&m.name, &item.description),
        here,
        assets,
        Nav::Egg,
    );

    head(&mut h, doc, item, here);
    facts(&mut h, doc, item);
    crate::compare::section(&mut h, here, doc, related.siblings);

    section(&mut h, "import", "How to import");
    parts::import(&mut h, m, base);
    h.lit("</section>");

    crate::images::egg_section(&mut h, m);
    crate::downloads::egg_section(&mut h, m);

    let variables = egg
        .get("variables")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let envs: Vec<&str> = variables
        .iter()
        .map(|v| egg_str(v, "env_variable"))
        .collect();
    startup(&mut h, egg, &envs);

    section(&mut h, "variables", "Variables");
    parts::variables(&mut h, &variables);
    h.lit("</section>");

    section(&mut h, "config", "Configuration");
    parts::config(&mut h, egg.get("config"));
    h.lit("</section>");

    section(&mut h, "install", "Install script");
    parts::install(&mut h, egg.pointer("/scripts/installation"));
    h.lit("</section>");

    history::section(&mut h, here, related.history, &m.slug);

    if let Some(md) = doc.readme.as_deref().filter(|r| !r.trim().is_empty()) {
        section(&mut h, "readme", "README");
        let html = readmes.render(md, &Upstream::from_meta(m));
        h.lit("<div class=\"readme\">")
            .sanitized(&html)
            .lit("</div></section>");
    }

    problems(&mut h, here, m, warnings);
    h.lit("</article>");
    let doc_path = eggcat_wire::paths::egg(&m.slug);
    let label = format!("{}.json", m.slug);
    layout::end(
        &mut h,
        here,
        None,
        Some(Data {
            label: &label,
            path: &doc_path,
        }),
    );
    h.finish()
}

/// The page's header: the icon, the name and the description (clipped).
fn head(h: &mut Html, doc: &EggDoc, item: &SummaryItem, here: Here<'_>) {
    let m = &doc.meta;
    let egg = &doc.egg;
    h.lit("<article class=\"egg\"><header class=\"egg-head\">");
    if let Some(icon) = &item.icon {
        let src = here.link(icon);
        h.open(
            "img",
            &[
                ("class", Some("icon big")),
                ("src", Some(&src)),
                ("alt", Some("")),
                ("width", Some("96")),
                ("height", Some("96")),
            ],
        );
    }
    h.lit("<div>").el("h1", &[], &m.name);
    let description = egg_str(egg, "description");
    if !description.is_empty() {
        h.el(
            "p",
            &[("class", Some("desc full"))],
            &clip(description, DESCRIPTION_CHARS),
        );
    }
    h.lit("</div></header>");
}

/// The startup command(s), each `{{VARIABLE}}` linked to its row in the variables' table.
fn startup(h: &mut Html, egg: &Value, envs: &[&str]) {
    section(h, "startup", "Startup");
    for (label, command) in startup_commands(egg) {
        // Focusable: a command longer than the screen scrolls inside its box, by keyboard too.
        h.el("h3", &[], &label)
            .lit("<pre class=\"cmd\" tabindex=\"0\"><code>");
        parts::linked_command(h, &command, envs);
        h.lit("</code></pre>");
    }
    h.lit("</section>");
}

/// The page's `<meta name="description">`: the egg's one-line description, else its name.
fn meta_description(name: &str, description: &str) -> String {
    if description.is_empty() {
        format!(
            "{name}: an egg for Pelican and Pterodactyl, its variables, startup command and install script."
        )
    } else {
        format!("{name}: {description}")
    }
}

/// `<section aria-labelledby><h2>`.
fn section(h: &mut Html, id: &'static str, title: &str) {
    let hid = format!("h-{id}");
    h.open(
        "section",
        &[("id", Some(id)), ("aria-labelledby", Some(&hid))],
    )
    .el("h2", &[("id", Some(&hid))], title);
}

/// Author, category, source, tags, update time and the upstream links.
fn facts(h: &mut Html, doc: &EggDoc, item: &SummaryItem) {
    let m = &doc.meta;
    h.lit("<dl class=\"facts\">");
    let author = egg_str(&doc.egg, "author");
    if !author.is_empty() {
        h.lit("<dt>Author</dt>").el("dd", &[], author);
    }
    h.lit("<dt>Category</dt>").el("dd", &[], &m.category);
    h.lit("<dt>Source</dt>")
        .el("dd", &[], &format!("{} ({}/{})", m.source, m.owner, m.repo));
    h.lit("<dt>Format</dt>").el("dd", &[], &m.format);
    if !item.tags.is_empty() {
        h.lit("<dt>Tags</dt>").el("dd", &[], &item.tags.join(", "));
    }
    updated(h, item);
    h.lit("<dt>Upstream</dt><dd class=\"links\">");
    let links = upstream_links(m);
    if links.is_empty() {
        // A local path or a host without web URLs: the file and the version it was read at
        // (a commit, or for a plain folder the digest of its content), named as text.
        let at = format!("{}/{}: {} ({})", m.owner, m.repo, m.path, short(&m.commit));
        h.path(&at);
    }
    for (label, href) in links {
        h.open(
            "a",
            &[("href", Some(&href)), ("rel", Some("noopener noreferrer"))],
        )
        .path(&label)
        .lit("</a> ");
    }
    h.lit("</dd></dl>");
}

/// "Updated": the date upstream last changed the file, or, where the history does not know
/// it, which date it is instead (`eggcat_catalog::games::Updated`).
fn updated(h: &mut Html, item: &SummaryItem) {
    let at = eggcat_wire::rfc3339(item.updated_at);
    h.lit("<dt>Updated</dt><dd>").el(
        "time",
        &[("datetime", Some(&at))],
        at.get(..10).unwrap_or(&at),
    );
    match item.updated_from.as_str() {
        "before" => {
            h.lit(" or before <span class=\"muted\">(older than the history eggcat reads)</span>");
        }
        "indexed" => {
            h.lit(" <span class=\"muted\">(first read by eggcat; no upstream history)</span>");
        }
        _ => {}
    }
    h.lit("</dd>");
}

/// (label, URL) of the repository, the file at its commit and the commit. GitHub URLs when the
/// raw URL is GitHub's; otherwise the raw file alone.
pub(crate) fn upstream_links(m: &Meta) -> Vec<(String, String)> {
    if m.raw_url.starts_with("https://raw.githubusercontent.com/") {
        let repo = format!("https://github.com/{}/{}", m.owner, m.repo);
        vec![
            (format!("{}/{}", m.owner, m.repo), repo.clone()),
            (
                m.path.clone(),
                format!("{repo}/blob/{}/{}", m.commit, m.path),
            ),
            (
                format!("commit {}", short(&m.commit)),
                format!("{repo}/commit/{}", m.commit),
            ),
        ]
    } else if m.raw_url.starts_with("https://") || m.raw_url.starts_with("http://") {
        vec![(m.path.clone(), m.raw_url.clone())]
    } else {
        Vec::new()
    }
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// The build report's warnings about the egg's file, with their place in the report (the page
/// links to `status/#w-{place}`): all an egg page takes of the report.
pub(crate) fn file_warnings<'a>(status: &'a Status, m: &Meta) -> Vec<(usize, &'a str)> {
    let source = format!("{}/{}", m.owner, m.repo);
    status
        .warnings
        .iter()
        .enumerate()
        .filter(|(_, w)| w.source == source && w.path == m.path)
        .map(|(i, w)| (i, w.message.as_str()))
        .collect()
}

/// `meta.diagnostics` and the build report's warnings about this file.
fn problems(h: &mut Html, here: Here<'_>, m: &Meta, warnings: &[(usize, &str)]) {
    if m.diagnostics.is_empty() && warnings.is_empty() {
        return;
    }
    section(h, "problems", "Problems found");
    if !m.diagnostics.is_empty() {
        h.lit("<ul class=\"diags\">");
        for d in &m.diagnostics {
            let class = match d.severity {
                Severity::Error => "sev error",
                Severity::Warning => "sev warning",
                Severity::Note => "sev note",
            };
            h.lit("<li>")
                .el("span", &[("class", Some(class))], d.severity.as_str())
                .lit(" ");
            h.code(&d.code).lit(": ").text_code(&d.message);
            if !d.pointer.is_empty() || d.line.is_some() {
                let at = match (d.line, d.column) {
                    (Some(l), Some(c)) => format!(" at {} (line {l}, column {c})", d.pointer),
                    (Some(l), None) => format!(" at {} (line {l})", d.pointer),
                    _ => format!(" at {}", d.pointer),
                };
                h.el("span", &[("class", Some("muted"))], &at);
            }
            if let Some(help) = &d.help {
                // A check's help names keys and values between backticks, as its message does.
                h.open("p", &[("class", Some("help"))])
                    .text_code(help)
                    .close("p");
            }
            h.lit("</li>");
        }
        h.lit("</ul>");
    }
    if !warnings.is_empty() {
        h.lit("<p>From the build report:</p><ul>");
        for (i, msg) in warnings {
            let href = format!("{}#w-{i}", here.link(eggcat_wire::paths::STATUS_PAGE));
            h.lit("<li>")
                .open("a", &[("href", Some(&href))])
                .text_code(msg)
                .lit("</a></li>");
        }
        h.lit("</ul>");
    }
    h.lit("</section>");
}
