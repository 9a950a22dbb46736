//! Two eggs for the same game side by side, as the egg page's "Other eggs for this game"
//! (compare.rs) sets each other version of the game next to the page's egg: the facts an admin
//! chooses an egg by (source and path, format, docker images, startup commands, stop command,
//! "ready" console text, install container, number of variables, whether each panel can import
//! it), then the variables by `env_variable` with each egg's default.
//!
//! Each row is a line of the stylesheet's `.cmp` grid (the label and one column per egg on a
//! wide screen, stacked on a phone, where each cell names its egg). A row whose two cells
//! differ says so in words ("differs" after its label), so that the differences stand out
//! without colour and to a screen reader.

use serde_json::Value;

use crate::html::Html;
use crate::model::{EggDoc, Meta, PanelImport, docker_images, egg_str, startup_commands};
use crate::words::count;

/// The two eggs' names as a comparison says them: their names, told apart by their
/// repositories when they share a name ("Paper (pelican-eggs/minecraft)" and "Paper
/// (pterodactyl/game-eggs)", not "Paper" twice), or by their paths when they share a
/// repository too.
pub(crate) fn names(a: &Meta, b: &Meta) -> (String, String) {
    if a.name != b.name {
        (a.name.clone(), b.name.clone())
    } else if (&a.owner, &a.repo) != (&b.owner, &b.repo) {
        let with = |m: &Meta| format!("{} ({}/{})", m.name, m.owner, m.repo);
        (with(a), with(b))
    } else {
        let with = |m: &Meta| format!("{} ({})", m.name, m.path);
        (with(a), with(b))
    }
}

/// The facts, then the variables, each under an `h4` (the caller's heading is an `h3`).
/// `names` are the two eggs' names as [`names`] tells them apart.
pub(crate) fn grids(h: &mut Html, a: &EggDoc, b: &EggDoc, names: &(String, String)) {
    h.lit("<h4>Side by side</h4>");
    facts(h, a, b, names);
    h.lit("<h4>Variables</h4>");
    variables(h, a, b, names);
}

/// The facts, one row per fact.
fn facts(h: &mut Html, a: &EggDoc, b: &EggDoc, names: &(String, String)) {
    head(h, names);
    let row = |h: &mut Html, label: &str, cell: &dyn Fn(&mut Html, &EggDoc)| {
        let mut l = Html::default();
        l.text(label);
        let (mut x, mut y) = (Html::default(), Html::default());
        cell(&mut x, a);
        cell(&mut y, b);
        self::row(h, &l, names, [x, y]);
    };
    row(h, "Source", &|h, d| {
        h.text(&format!("{} · ", d.meta.source))
            .code(&format!("{}/{}", d.meta.owner, d.meta.repo))
            .lit("<br>")
            .code(&d.meta.path);
    });
    row(h, "Format", &|h, d| {
        h.text(&d.meta.format);
    });
    row(h, "Docker images", &|h, d| {
        list(h, &docker_images(&d.egg), "none");
    });
    row(h, "Startup", &|h, d| {
        list(h, &startup_commands(&d.egg), "none");
    });
    row(h, "Stop command", &|h, d| {
        maybe_code(h, &config_text(&d.egg, "stop"));
    });
    row(h, "Ready when the console shows", &|h, d| {
        maybe_code(h, &ready_text(&d.egg));
    });
    row(h, "Install container", &|h, d| {
        let container = d
            .egg
            .pointer("/scripts/installation/container")
            .and_then(Value::as_str)
            .unwrap_or("");
        maybe_code(h, container);
    });
    row(h, "Variables", &|h, d| {
        h.text(&count(variables_of(d).len(), "variable", "variables"));
    });
    row(h, "Pelican import", &|h, d| {
        import(h, &d.meta.import.pelican);
    });
    row(h, "Pterodactyl import", &|h, d| {
        import(h, &d.meta.import.pterodactyl);
    });
    h.lit("</div>");
}

/// The variables of both eggs by `env_variable` (the first egg's order, then the second's own):
/// each egg's default, or that it does not have the variable.
fn variables<'a>(h: &mut Html, a: &'a EggDoc, b: &'a EggDoc, names: &(String, String)) {
    let (va, vb) = (variables_of(a), variables_of(b));
    let mut envs: Vec<&str> = Vec::new();
    for v in va.iter().chain(vb) {
        let env = egg_str(v, "env_variable");
        if !envs.contains(&env) {
            envs.push(env);
        }
    }
    if envs.is_empty() {
        h.lit("<p>Neither egg has variables.</p>");
        return;
    }
    head(h, names);
    for env in envs {
        // The last variable of a name is the one a panel keeps.
        let find = |list: &'a [Value]| {
            list.iter()
                .rev()
                .find(|v| egg_str(v, "env_variable") == env)
        };
        let (x, y) = (find(va), find(vb));
        let name = x.or(y).map_or("", |v| egg_str(v, "name"));
        let mut label = Html::default();
        label.code(env);
        if !name.is_empty() {
            label.lit(" ").el("span", &[("class", Some("muted"))], name);
        }
        let cell = |v: Option<&Value>| {
            let mut c = Html::default();
            default(&mut c, v);
            c
        };
        row(h, &label, names, [cell(x), cell(y)]);
    }
    h.lit("</div>");
}

/// One variable's default, "empty default", or that the egg does not have it.
fn default(h: &mut Html, variable: Option<&Value>) {
    match variable.map(|v| v.get("default_value")) {
        None => {
            h.lit("<span class=\"muted\">not in this egg</span>");
        }
        Some(Some(Value::String(s))) if !s.is_empty() => {
            h.code(s);
        }
        Some(Some(Value::Number(n))) => {
            h.code(&n.to_string());
        }
        Some(_) => {
            h.lit("<span class=\"muted\">empty default</span>");
        }
    }
}

/// The egg's variables (none when `variables` is not a list).
fn variables_of(d: &EggDoc) -> &[Value] {
    d.egg
        .get("variables")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Opens a grid with its header line: the two eggs' names over their columns. The line is for
/// the eye only (hidden from screen readers), since every cell names its egg itself (visibly
/// on a phone, where the columns stack).
fn head(h: &mut Html, names: &(String, String)) {
    h.lit("<div class=\"cmp\"><div class=\"cmp-head\" aria-hidden=\"true\"><span></span>")
        .el("span", &[], &names.0)
        .el("span", &[], &names.1)
        .lit("</div>");
}

/// One row: its label, "differs" when the two cells do, and the cells, each naming its egg.
fn row(h: &mut Html, label: &Html, names: &(String, String), cells: [Html; 2]) {
    h.lit("<div class=\"cmp-row\"><strong>").append(label);
    if cells[0] != cells[1] {
        h.lit(" <span class=\"sev warning\">differs</span>");
    }
    h.lit("</strong>");
    for (name, cell) in [&names.0, &names.1].into_iter().zip(&cells) {
        h.lit("<div>")
            .el("span", &[("class", Some("who"))], &format!("{name}:"))
            .lit(" ")
            .append(cell)
            .lit("</div>");
    }
    h.lit("</div>");
}

/// (label, value) pairs as a list of code, the label after the value when it differs.
fn list(h: &mut Html, items: &[(String, String)], none: &str) {
    if items.is_empty() {
        h.el("span", &[("class", Some("muted"))], none);
        return;
    }
    h.lit("<ul class=\"plain\">");
    for (label, value) in items {
        h.lit("<li>").code(value);
        if label != value {
            h.lit(" ").el("span", &[("class", Some("muted"))], label);
        }
        h.lit("</li>");
    }
    h.lit("</ul>");
}

fn maybe_code(h: &mut Html, s: &str) {
    if s.is_empty() {
        h.lit("<span class=\"muted\">none</span>");
    } else {
        h.code(s);
    }
}

/// A `config` key as text (`stop`), whether `config` holds it directly.
fn config_text(egg: &Value, key: &str) -> String {
    match egg.get("config").and_then(|c| c.get(key)) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// `config.startup.done`, from JSON text (PTDL_v2) or nested data.
fn ready_text(egg: &Value) -> String {
    let startup = match egg.get("config").and_then(|c| c.get("startup")) {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    match startup.get("done") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(" or "),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Whether a panel can import the egg, as `meta.import` says ("not known" when the build made
/// no file for that panel and gave no reason).
fn import(h: &mut Html, p: &PanelImport) {
    match p {
        p if p.importable => {
            h.lit("<span class=\"ok\">importable</span>");
        }
        p if p.json.is_some() || p.yaml.is_some() || !p.problems.is_empty() => {
            h.lit("<span class=\"bad\">refused</span>");
            if let Some(first) = p.problems.first() {
                h.lit(": ").text_code(first);
            }
        }
        _ => {
            h.lit("<span class=\"muted\">not known</span>");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, owner: &str, egg: Value) -> EggDoc {
        let doc = serde_json::json!({"egg": egg, "meta": {
            "slug": "s", "name": name, "category": "c", "source": "s", "owner": owner,
            "repo": "r", "branch": "main", "path": "p/egg.json", "rawUrl": "", "indexedAt": 1,
            "format": "PTDL_v2", "sha256": "00", "commit": "c1", "uuid": "u"}});
        EggDoc::decode(&serde_json::to_vec(&doc).unwrap()).unwrap()
    }

    /// The rows that differ say so, the others do not; a variable one egg lacks is said so in
    /// its cell, and the row differs.
    #[test]
    fn rows_that_differ_are_marked_in_words() {
        let egg = |image: &str, vars: &[&str]| {
            serde_json::json!({"name": "Game", "docker_images": {"Java": image},
                "startup": "./run", "config": {"stop": "stop"},
                "variables": vars.iter().map(|e| serde_json::json!({
                    "name": e, "env_variable": e, "default_value": "1"})).collect::<Vec<_>>()})
        };
        let a = doc("Game", "o", egg("img:1", &["PORT"]));
        let b = doc("Game", "p", egg("img:2", &["PORT", "EXTRA"]));
        let names = names(&a.meta, &b.meta);
        assert_eq!(names, ("Game (o/r)".to_owned(), "Game (p/r)".to_owned()));
        let mut h = Html::default();
        grids(&mut h, &a, &b, &names);
        let out = h.finish();
        let marked = |label: &str| {
            out.contains(&format!(
                "<strong>{label} <span class=\"sev warning\">differs</span></strong>"
            ))
        };
        for label in [
            "Source",
            "Docker images",
            "Variables",
            "<code>EXTRA</code> <span class=\"muted\">EXTRA</span>",
        ] {
            assert!(marked(label), "{label}: {out}");
        }
        for label in [
            "Format",
            "Startup",
            "Stop command",
            "<code>PORT</code> <span class=\"muted\">PORT</span>",
        ] {
            assert!(
                out.contains(&format!("<strong>{label}</strong>")),
                "{label}: {out}"
            );
        }
        assert!(out.contains("<span class=\"who\">Game (p/r):</span> <code>1</code>"));
        assert!(out.contains(
            "<span class=\"who\">Game (o/r):</span> <span class=\"muted\">not in this egg</span>"
        ));
    }
}
