//! The detailed sections of an egg page: import, startup command, variables, configuration
//! files, install script.

use serde_json::Value;

use crate::html::Html;
use crate::model::{Meta, PanelImport, egg_str};
use crate::words::count;
use eggcat_wire::Database;

/// The import URLs with copy buttons and the steps in each panel; the upstream file and the
/// egg document always.
pub(crate) fn import(h: &mut Html, m: &Meta, base: &str) {
    let pelican = Some(&m.import.pelican).filter(|p| has_files(p));
    let ptero = Some(&m.import.pterodactyl).filter(|p| has_files(p));
    if let Some(p) = pelican {
        h.lit("<h3>Pelican</h3>");
        panel_state(h, p);
        pelican_urls(h, p);
        h.lit(
            "<p class=\"how\">In Pelican: Admin → Eggs → Import → URL, paste the JSON URL for the \
             panel's database, Import. The panel's daily update check then watches eggcat's file.</p>",
        );
        // Issue 37: which version a panel has, what it changed locally, what changed since.
        h.lit("<p class=\"how\">To see whether a panel has this version, what changed since the one it has and what its admins changed, run ")
            .text_code(&format!("`eggcat panel status --panel https://your-panel --catalog {base}`"))
            .lit("; ")
            .text_code(&format!("`eggcat panel update --panel https://your-panel --catalog {base} --dry-run`"))
            .lit(" shows how it would update the panel's eggs keeping their local edits (the guide: docs/guides/panel-status.md in eggcat).</p>");
    }
    if let Some(p) = ptero {
        h.lit("<h3>Pterodactyl</h3>");
        panel_state(h, p);
        if let Some(u) = &p.json {
            url_row(h, "Egg file (JSON)", u);
        }
        h.lit("<p class=\"how\">In Pterodactyl: download the file, then Admin → Nests → a nest → ")
            .lit("Import Egg, choose the file.</p>");
    }
    h.lit("<h3>Source files</h3>");
    if m.raw_url.starts_with("https://") || m.raw_url.starts_with("http://") {
        url_row(h, "Upstream file", &m.raw_url);
    }
    url_row(
        h,
        "Egg document (JSON API)",
        &format!("{base}/{}", eggcat_wire::paths::egg(&m.slug)),
    );
}

/// Pelican's import URLs: a JSON file per database (Pelican's update check sees the order its
/// database gives the variables, docs/panels.md) and the YAML file. The admin picks the panel's
/// database once (SQLite, Pelican's default, preselected; the script remembers the choice and
/// shows only that database's rows); without the script every URL is listed, each named.
fn pelican_urls(h: &mut Html, p: &PanelImport) {
    let Some(files) = &p.databases else {
        // An egg with only a YAML file (no JSON settled): the file as it is.
        if let Some(u) = &p.yaml {
            url_row(h, "Import URL (YAML)", u);
        }
        return;
    };
    h.lit("<fieldset class=\"db\" data-db-choice hidden><legend>The panel's database</legend>");
    for db in Database::ALL {
        let id = format!("db-{}", db.key());
        // A radio and its label are kept on one line (a narrow screen wraps between choices).
        h.open("span", &[("class", Some("opt"))])
            .open(
                "input",
                &[
                    ("type", Some("radio")),
                    ("name", Some("db")),
                    ("id", Some(&id)),
                    ("value", Some(db.key())),
                    ("checked", (db == Database::Sqlite).then_some("")),
                ],
            )
            .el("label", &[("for", Some(&id))], db.label())
            .close("span");
    }
    h.lit("<p class=\"hint\">It is <code>DB_CONNECTION</code> in the panel's <code>.env</code>: ")
        .lit("<code>sqlite</code> or unset, <code>mariadb</code> or <code>mysql</code>, <code>pgsql</code>.</p>")
        .lit("</fieldset>");
    // JSON first: Pelican's update check can find it up to date for every egg it imports,
    // which its own YAML export does not allow (docs/panels.md).
    for db in Database::ALL {
        let label = format!("Import URL (JSON, {})", db.label());
        db_row(h, db, &label, files.get(db));
    }
    if let Some(u) = &p.yaml {
        db_row(h, Database::Sqlite, "Import URL (YAML, SQLite)", u);
        if p.yaml_up_to_date == Some(false) {
            h.lit("<p class=\"warn\" data-db=\"sqlite\">Pelican's update check never finds ")
                .lit(
                    "this YAML file up to date: Pelican's own YAML export writes one of its texts ",
                )
                .lit("as a number. Import the JSON URL instead.</p>");
        }
    }
}

/// A [`url_row`] that belongs to one database's choice.
fn db_row(h: &mut Html, db: Database, label: &str, url: &str) {
    h.open("div", &[("data-db", Some(db.key()))]);
    url_row(h, label, url);
    h.close("div");
}

fn panel_state(h: &mut Html, p: &PanelImport) {
    if p.importable {
        h.lit("<p class=\"ok\">The panel's import rules accept this egg.</p>");
    } else {
        h.lit("<p class=\"bad\">The panel would refuse this egg:</p>");
    }
    if !p.problems.is_empty() {
        h.lit("<ul>");
        for x in &p.problems {
            h.lit("<li>").text_code(x).lit("</li>");
        }
        h.lit("</ul>");
    }
    if !p.losses.is_empty() {
        h.lit("<p>Not carried over to this panel:</p><ul>");
        for x in &p.losses {
            h.lit("<li>").text_code(x).lit("</li>");
        }
        h.lit("</ul>");
    }
}

/// A label, the URL as a link and a copy button (the script enables it).
fn url_row(h: &mut Html, label: &str, url: &str) {
    h.lit("<div class=\"url\">")
        .el("span", &[("class", Some("label"))], label)
        .open("a", &[("href", Some(url)), ("class", Some("u"))])
        .path(url)
        .close("a")
        .open(
            "button",
            &[
                ("type", Some("button")),
                ("class", Some("copy")),
                ("data-copy", Some(url)),
                ("hidden", Some("")),
            ],
        )
        .lit("Copy<span class=\"vh\"> ")
        .text(label)
        .lit("</span></button></div>");
}

/// A startup command, each `{{NAME}}` that names a variable linked to its block. The command
/// wraps only at its spaces: each word (a `{{...}}` counts as part of its word, whatever it
/// holds) is kept on one line, since browsers would also break after `-` or `}}`.
pub(crate) fn linked_command(h: &mut Html, command: &str, envs: &[&str]) {
    let mut word = String::new();
    let mut rest = command;
    while let Some(ch) = rest.chars().next() {
        if rest.starts_with("{{")
            && let Some(len) = rest.find("}}")
        {
            word.push_str(&rest[..len + 2]);
            rest = &rest[len + 2..];
            continue;
        }
        rest = &rest[ch.len_utf8()..];
        if ch.is_whitespace() {
            command_word(h, &word, envs);
            word.clear();
            let mut buf = [0; 4];
            h.text(ch.encode_utf8(&mut buf));
        } else {
            word.push(ch);
        }
    }
    command_word(h, &word, envs);
}

/// One word of a command, on one line, its `{{NAME}}`s linked.
fn command_word(h: &mut Html, word: &str, envs: &[&str]) {
    if word.is_empty() {
        return;
    }
    let whole = word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !whole {
        h.lit("<span class=\"nw\">");
    }
    let mut rest = word;
    while let Some(i) = rest.find("{{") {
        let Some(len) = rest[i..].find("}}") else {
            break;
        };
        h.text(&rest[..i]);
        let token = &rest[i..i + len + 2];
        let name = token[2..token.len() - 2].trim();
        if envs.contains(&name) {
            let href = format!("#var-{name}");
            h.el("a", &[("href", Some(&href)), ("class", Some("var"))], token);
        } else {
            h.el(
                "span",
                &[("class", Some("pv")), ("title", Some("set by the panel"))],
                token,
            );
        }
        rest = &rest[i + len + 2..];
    }
    h.text(rest);
    if !whole {
        h.lit("</span>");
    }
}

/// The variables, one block each: the name and description, then the environment variable,
/// default, what users may do and the rules as a list of terms. Blocks, not a table: a row of
/// five columns squeezed to a phone's width breaks words and identifiers inside themselves.
pub(crate) fn variables(h: &mut Html, variables: &[Value]) {
    if variables.is_empty() {
        h.lit("<p>This egg has no variables.</p>");
        return;
    }
    h.lit("<ul class=\"vars\">");
    for v in variables {
        let env = egg_str(v, "env_variable");
        let id = format!("var-{env}");
        h.open("li", &[("id", Some(&id)), ("class", Some("variable"))])
            .el("h3", &[], egg_str(v, "name"));
        let desc = egg_str(v, "description");
        if !desc.is_empty() {
            h.el("p", &[("class", Some("muted"))], desc);
        }
        h.lit("<dl><div><dt>Environment variable</dt><dd>")
            .code(env)
            .lit("</dd></div><div><dt>Default</dt><dd>");
        match v.get("default_value") {
            Some(Value::String(s)) if !s.is_empty() => {
                h.code(s);
            }
            Some(Value::Number(n)) => {
                h.code(&n.to_string());
            }
            _ => {
                h.lit("<span class=\"muted\">empty</span>");
            }
        }
        let see = v
            .get("user_viewable")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let edit = v
            .get("user_editable")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let access = match (see, edit) {
            (true, true) => "can see and edit",
            (true, false) => "can see",
            (false, true) => "can edit, cannot see",
            (false, false) => "hidden (admins only)",
        };
        h.lit("</dd></div><div><dt>Users</dt>")
            .el("dd", &[], access)
            .lit("</div><div><dt>Rules</dt>")
            .el(
                "dd",
                &[],
                &rule_words(v.get("rules").unwrap_or(&Value::Null)),
            )
            .lit("</div></dl></li>");
    }
    h.lit("</ul>");
}

/// The configuration files (a JSON string in PTDL_v2, an object in later formats), the "server
/// is ready" text and the stop command.
pub(crate) fn config(h: &mut Html, config: Option<&Value>) {
    let parse = |key: &str| -> Value {
        match config.and_then(|c| c.get(key)) {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::String(s.clone())),
            Some(v) => v.clone(),
            None => Value::Null,
        }
    };
    let files = parse("files");
    match files.as_object().filter(|o| !o.is_empty()) {
        Some(files) => {
            // In a box of its own that scrolls: a long file name never widens the page.
            h.lit("<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"h-config\">")
                .lit("<table class=\"files\"><thead><tr><th scope=\"col\">File</th><th scope=\"col\">Parser</th>")
                .lit("<th scope=\"col\">Settings the panel writes</th></tr></thead><tbody>");
            for (file, spec) in files {
                h.lit("<tr>").lit("<td>").code(file).lit("</td>");
                h.el("td", &[], egg_str(spec, "parser"));
                let keys: Vec<&str> = spec
                    .get("find")
                    .and_then(Value::as_object)
                    .map(|f| f.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                // The keys are identifiers (`server.properties`' `server-port`, a JSON path):
                // code, so none wraps inside itself.
                h.lit("<td>");
                for (i, key) in keys.iter().enumerate() {
                    if i > 0 {
                        h.lit(", ");
                    }
                    h.code(key);
                }
                h.lit("</td></tr>");
            }
            h.lit("</tbody></table></div>");
        }
        None => {
            h.lit("<p>No configuration files are edited by the panel.</p>");
        }
    }
    h.lit("<dl class=\"facts\">");
    let startup = parse("startup");
    if let Some(done) = startup.get("done") {
        let text = match done {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        h.lit("<dt>Ready when the console shows</dt><dd>")
            .code(&text)
            .lit("</dd>");
    }
    if let Some(Value::String(stop)) = config.and_then(|c| c.get("stop")) {
        h.lit("<dt>Stop command</dt><dd>").code(stop).lit("</dd>");
    }
    h.lit("</dl>");
}

/// Container, entrypoint and the script with line numbers, collapsed.
pub(crate) fn install(h: &mut Html, install: Option<&Value>) {
    let Some(install) = install else {
        h.lit("<p>No install script.</p>");
        return;
    };
    // An image reference and a command are identifiers: code, which breaks only after a `/`.
    h.lit("<dl class=\"facts\"><dt>Container</dt><dd>")
        .code(egg_str(install, "container"))
        .lit("</dd><dt>Entrypoint</dt><dd>")
        .code(egg_str(install, "entrypoint"))
        .lit("</dd></dl>");
    let script = egg_str(install, "script").replace("\r\n", "\n");
    let lines: Vec<&str> = script.trim_end().split('\n').collect();
    h.lit("<details><summary>The script (")
        .text(&count(lines.len(), "line", "lines"))
        .lit(")</summary><ol class=\"code\">");
    for line in lines {
        h.lit("<li><code>").text(line).lit("</code></li>");
    }
    h.lit("</ol></details>");
}

/// Whether a panel entry has anything to show.
fn has_files(p: &PanelImport) -> bool {
    p.json.is_some() || p.yaml.is_some()
}

/// The words for a variable's rules.
fn rule_words(rules: &Value) -> String {
    crate::rules::describe(&crate::rules::split(rules)).join(", ")
}
