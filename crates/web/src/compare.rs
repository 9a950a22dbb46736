//! Eggs for the same game ([`crate::siblings`]) shown against each other: the egg page's
//! "Other eggs for this game" section, each sibling with a one-line difference, and the page
//! `eggs/{slug}/compare/{other}/` that sets the two eggs side by side and lists every change
//! from `slug` to `other` in a panel admin's terms (`eggcat_diff::diff`, the changes
//! `eggcat diff` prints), breaking ones marked, the install script's diff collapsed.
//!
//! The direction is the egg page's: "from this egg to that one" is what would change for the
//! servers made from this egg if the panel held the other egg in its place.

use eggcat_catalog::paths;
use eggcat_diff::{Change, Kind};
use serde_json::Value;

use crate::html::Html;
use crate::layout::{self, Assets, Here, Nav};
use crate::model::{EggDoc, Meta, PanelImport, docker_images, egg_str, startup_commands};
use crate::words::count;

/// One sibling as the egg page lists it.
pub(crate) struct Sibling<'a> {
    pub(crate) meta: &'a Meta,
    /// The changes from the page's egg to this one.
    pub(crate) changes: &'a [Change],
}

/// The eggs for the same game as the egg page shows them.
pub(crate) enum Others<'a> {
    /// Each other egg, compared with this one (none: the egg is alone).
    Compared(Vec<Sibling<'a>>),
    /// The game has this many eggs, too many to compare each with every other
    /// (`sibling_pages::MAX_COMPARED`).
    TooMany(usize),
}

/// The egg page's section: every sibling with its source, a one-line difference, a link to its
/// page and one to the comparison. Nothing when the egg has no sibling. `slug` is the egg of
/// the page, published at `here`.
pub(crate) fn section(h: &mut Html, here: Here<'_>, slug: &str, others: &Others<'_>) {
    let siblings = match others {
        Others::Compared(s) if s.is_empty() => return,
        Others::Compared(s) => s,
        Others::TooMany(n) => {
            h.lit("<section id=\"others\" aria-labelledby=\"h-others\">")
                .lit("<h2 id=\"h-others\">Other eggs for this game</h2><p>")
                .text(&count(*n, "egg serves", "eggs serve"))
                .lit(" this game in the catalog: too many to compare each with every other. The catalog's search finds them.</p></section>");
            return;
        }
    };
    h.lit("<section id=\"others\" aria-labelledby=\"h-others\">")
        .lit("<h2 id=\"h-others\">Other eggs for this game</h2><p class=\"muted\">")
        .text(&count(
            siblings.len() + 1,
            "egg serves",
            "eggs serve",
        ))
        .lit(" this game in the catalog. Each line says what would change from this egg to the other.</p>")
        .lit("<ul class=\"siblings\">");
    for s in siblings {
        let m = s.meta;
        let page = here.link(&paths::egg_page(&m.slug));
        let compare = here.link(&paths::compare_page(slug, &m.slug));
        h.lit("<li><h3>")
            .el("a", &[("href", Some(&page))], &m.name)
            .lit("</h3><p class=\"muted\">")
            .text(&format!("{} · ", m.source))
            .code(&format!("{}/{}", m.owner, m.repo))
            .text(&format!(" · {}", m.format))
            .lit("</p><p>")
            .text(&one_line(s.changes))
            .lit("</p>")
            .open("a", &[("href", Some(&compare))])
            .lit("Compare side by side<span class=\"vh\"> with ")
            .text(&m.name)
            .lit("</span></a></li>");
    }
    h.lit("</ul></section>");
}

/// The difference in one line: the number of changes, how many can break servers, and what
/// they touch ("3 changes: another docker image, 2 variables added").
pub(crate) fn one_line(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "The same egg: they differ only in format.".to_owned();
    }
    let breaking = changes.iter().filter(|c| c.breaking).count();
    let mut head = count(changes.len(), "change", "changes");
    if breaking > 0 {
        head.push_str(&format!(
            " ({} can break servers)",
            if breaking == changes.len() && breaking > 1 {
                "all".to_owned()
            } else {
                breaking.to_string()
            }
        ));
    }
    format!("{head}: {}.", parts(changes).join(", "))
}

/// What the changes touch, in the diff's order, one phrase per part of the egg.
fn parts(changes: &[Change]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    let n = |kinds: &[Kind]| changes.iter().filter(|c| kinds.contains(&c.kind)).count();
    // Variables count once per variable, whatever number of their fields changed.
    let changed_vars = {
        let mut v: Vec<&str> = changes
            .iter()
            .filter(|c| c.kind == Kind::VariableChanged)
            .filter_map(|c| c.path.get(1).map(String::as_str))
            .collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    for c in changes {
        use Kind::*;
        let phrase = match c.kind {
            NameChanged => "another name".to_owned(),
            DescriptionChanged => "another description".to_owned(),
            AuthorChanged => "another author".to_owned(),
            UuidChanged => "another uuid".to_owned(),
            UpdateUrlChanged => "another update URL".to_owned(),
            IconChanged => "another icon".to_owned(),
            TagAdded | TagRemoved => "other tags".to_owned(),
            ImageAdded | ImageRemoved | ImageChanged | ImageRenamed => {
                match n(&[ImageAdded, ImageRemoved, ImageChanged, ImageRenamed]) {
                    1 => "another docker image".to_owned(),
                    _ => "other docker images".to_owned(),
                }
            }
            StartupAdded | StartupRemoved | StartupChanged | StartupRenamed => {
                match n(&[StartupAdded, StartupRemoved, StartupChanged, StartupRenamed]) {
                    1 => "another startup command".to_owned(),
                    _ => "other startup commands".to_owned(),
                }
            }
            StopChanged => "another stop command".to_owned(),
            ReadyTextChanged => "another \"server ready\" text".to_owned(),
            StartupConfigChanged | LogsChanged => "other console settings".to_owned(),
            ConfigFileAdded | ConfigFileRemoved | ConfigFileChanged | ConfigKeyAdded
            | ConfigKeyRemoved | ConfigKeyChanged => "other config file settings".to_owned(),
            InstallContainerChanged => "another install container".to_owned(),
            InstallEntrypointChanged => "another install entrypoint".to_owned(),
            InstallScriptChanged => "another install script".to_owned(),
            FeatureAdded | FeatureRemoved => "other features".to_owned(),
            DenylistAdded | DenylistRemoved => "another file denylist".to_owned(),
            VariableAdded => format!(
                "{} added",
                count(n(&[VariableAdded]), "variable", "variables")
            ),
            VariableRemoved => format!(
                "{} removed",
                count(n(&[VariableRemoved]), "variable", "variables")
            ),
            VariableRenamed => format!(
                "{} renamed",
                count(n(&[VariableRenamed]), "variable", "variables")
            ),
            VariableChanged => format!("{} changed", count(changed_vars, "variable", "variables")),
        };
        push(phrase);
    }
    out
}

/// What a comparison page shows of one of its two eggs: the upstream egg (as published, byte
/// for byte) and these members of `meta`. The page is a function of the two (and of the
/// assets), so a page of the previous snapshot still holds when both eggs show the same,
/// whatever else of their documents changed (`indexedAt`, `meta.commit`, the findings). The test
/// `comparison_pages_show_nothing_of_a_document_but_what_shown_holds` keeps this list whole.
#[derive(Debug, PartialEq)]
pub(crate) struct Shown<'a> {
    egg: &'a str,
    slug: &'a str,
    name: &'a str,
    source: &'a str,
    owner: &'a str,
    repo: &'a str,
    path: &'a str,
    format: &'a str,
    import: &'a eggcat_catalog::wire::Imports,
}

/// The members of `meta` that [`Shown`] holds, by their published names.
#[cfg(test)]
const SHOWN_META: &[&str] = &[
    "slug", "name", "source", "owner", "repo", "path", "format", "import",
];

/// What a comparison page shows of the egg of `doc`.
pub(crate) fn shown(doc: &eggcat_catalog::wire::EggDocument) -> Shown<'_> {
    let m = &doc.meta;
    Shown {
        egg: doc.egg.get(),
        slug: &m.slug,
        name: &m.name,
        source: &m.source,
        owner: &m.owner,
        repo: &m.repo,
        path: &m.path,
        format: &m.format,
        import: &m.import,
    }
}

/// The page `eggs/{a}/compare/{b}/`: the two eggs side by side, then every change from `a` to
/// `b`.
pub(crate) fn page(a: &EggDoc, b: &EggDoc, changes: &[Change], assets: &Assets) -> String {
    let (ma, mb) = (&a.meta, &b.meta);
    let path = paths::compare_page(&ma.slug, &mb.slug);
    let here = Here::Page(&path);
    let mut h = Html::with_capacity(16 * 1024);
    let (name_a, name_b) = names(ma, mb);
    layout::start(
        &mut h,
        &format!("{name_a} compared with {name_b} – eggcat"),
        &format!(
            "{} ({}/{}) and {} ({}/{}), two eggs for the same game, side by side: images, \
             startup, variables, install, and every change from one to the other.",
            ma.name, ma.owner, ma.repo, mb.name, mb.owner, mb.repo
        ),
        here,
        assets,
        Nav::Egg,
    );
    let page_a = here.link(&paths::egg_page(&ma.slug));
    let page_b = here.link(&paths::egg_page(&mb.slug));
    let back = here.link(&paths::compare_page(&mb.slug, &ma.slug));
    h.lit("<article class=\"compare\"><h1>")
        .text(&name_a)
        .lit(" <span class=\"muted\">compared with</span> ")
        .text(&name_b)
        .lit("</h1><p class=\"lede\">Two eggs for the same game: ")
        .el("a", &[("href", Some(&page_a))], &ma.name)
        .lit(" (")
        .code(&format!("{}/{}", ma.owner, ma.repo))
        .lit(") and ")
        .el("a", &[("href", Some(&page_b))], &mb.name)
        .lit(" (")
        .code(&format!("{}/{}", mb.owner, mb.repo))
        .lit("). ")
        .el(
            "a",
            &[("href", Some(&back))],
            "The same comparison the other way round",
        )
        .lit(".</p>");

    h.lit("<section id=\"facts\" aria-labelledby=\"h-facts\"><h2 id=\"h-facts\">Side by side</h2>");
    facts(&mut h, a, b);
    h.lit("</section><section id=\"variables\" aria-labelledby=\"h-variables\"><h2 id=\"h-variables\">Variables</h2>");
    variables(&mut h, a, b);
    h.lit("</section>");

    h.lit("<section id=\"changes\" aria-labelledby=\"h-changes\"><h2 id=\"h-changes\">From ")
        .text(&name_a)
        .lit(" to ")
        .text(&name_b)
        .lit("</h2><p>What would change for servers made from the first egg if the panel held the second in its place: ")
        .text(&one_line(changes))
        .lit("</p>");
    change_list(&mut h, changes);
    h.lit("</section></article>");
    layout::end(&mut h, here, None, None);
    h.finish()
}

/// The facts, one row per fact, one column per egg.
fn facts(h: &mut Html, a: &EggDoc, b: &EggDoc) {
    grid_head(h, &a.meta, &b.meta);
    let row = |h: &mut Html, label: &str, cell: &dyn Fn(&mut Html, &EggDoc)| {
        h.lit("<div class=\"cmp-row\">").el("h3", &[], label);
        cells(h, a, b, cell);
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
        let images = docker_images(&d.egg);
        list(h, &images, "none");
    });
    row(h, "Startup", &|h, d| {
        let commands = startup_commands(&d.egg);
        list(h, &commands, "none");
    });
    row(h, "Stop command", &|h, d| {
        maybe_code(h, config_text(&d.egg, "stop"));
    });
    row(h, "Ready when the console shows", &|h, d| {
        maybe_code(h, ready_text(&d.egg));
    });
    row(h, "Install container", &|h, d| {
        maybe_code(
            h,
            d.egg
                .pointer("/scripts/installation/container")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        );
    });
    row(h, "Variables", &|h, d| {
        let n = d
            .egg
            .get("variables")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        h.text(&count(n, "variable", "variables"));
    });
    row(h, "Pelican import", &|h, d| {
        import(h, &d.meta.import.pelican);
    });
    row(h, "Pterodactyl import", &|h, d| {
        import(h, &d.meta.import.pterodactyl);
    });
    h.lit("</div>");
}

/// The two eggs' names as the page's title and headings say them: their names, told apart by
/// their repositories when they share a name ("Paper (pelican-eggs/minecraft) compared with
/// Paper (pterodactyl/game-eggs)", not "Paper compared with Paper"), or by their paths when
/// they share a repository too.
fn names(a: &Meta, b: &Meta) -> (String, String) {
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

/// Opens the grid with its header line: the two eggs' names over their columns. The line is
/// for the eye only (hidden from screen readers), since every cell names its egg itself
/// (visibly on a phone, where the columns stack).
fn grid_head(h: &mut Html, a: &Meta, b: &Meta) {
    h.lit("<div class=\"cmp\"><div class=\"cmp-head\" aria-hidden=\"true\"><span></span>")
        .el("span", &[], &a.name)
        .el("span", &[], &b.name)
        .lit("</div>");
}

/// The two cells of a row (which the caller opened with its heading), each naming its egg.
fn cells(h: &mut Html, a: &EggDoc, b: &EggDoc, cell: &dyn Fn(&mut Html, &EggDoc)) {
    for doc in [a, b] {
        h.lit("<div>")
            .el(
                "span",
                &[("class", Some("who"))],
                &format!("{}:", doc.meta.name),
            )
            .lit(" ");
        cell(h, doc);
        h.lit("</div>");
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

fn maybe_code(h: &mut Html, s: String) {
    if s.is_empty() {
        h.lit("<span class=\"muted\">none</span>");
    } else {
        h.code(&s);
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

/// The variables of both eggs by `env_variable` (first egg's order, then the second's own):
/// each egg's default, or that it does not have the variable.
fn variables(h: &mut Html, a: &EggDoc, b: &EggDoc) {
    let vars = |d: &EggDoc| -> Vec<Value> {
        d.egg
            .get("variables")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (va, vb) = (vars(a), vars(b));
    let mut envs: Vec<&str> = Vec::new();
    for v in va.iter().chain(&vb) {
        let env = egg_str(v, "env_variable");
        if !envs.contains(&env) {
            envs.push(env);
        }
    }
    if envs.is_empty() {
        h.lit("<p>Neither egg has variables.</p>");
        return;
    }
    grid_head(h, &a.meta, &b.meta);
    for env in envs {
        let find = |list: &[Value]| {
            list.iter()
                .rev()
                .find(|v| egg_str(v, "env_variable") == env)
                .cloned()
        };
        let (x, y) = (find(&va), find(&vb));
        let name = x.as_ref().or(y.as_ref()).map_or("", |v| egg_str(v, "name"));
        h.lit("<div class=\"cmp-row\"><h3>").code(env);
        if !name.is_empty() {
            h.lit(" ").el("span", &[("class", Some("muted"))], name);
        }
        h.lit("</h3>");
        cells(h, a, b, &|h, d| {
            // The first column is egg `a`'s (the two documents are distinct).
            let v = if std::ptr::eq(d, a) { &x } else { &y };
            match v {
                None => {
                    h.lit("<span class=\"muted\">not in this egg</span>");
                }
                Some(v) => match v.get("default_value") {
                    Some(Value::String(s)) if !s.is_empty() => {
                        h.code(s);
                    }
                    Some(Value::Number(n)) => {
                        h.code(&n.to_string());
                    }
                    _ => {
                        h.lit("<span class=\"muted\">empty default</span>");
                    }
                },
            }
        });
    }
    h.lit("</div>");
}

/// Every change, breaking ones marked with why, the script's diff collapsed.
fn change_list(h: &mut Html, changes: &[Change]) {
    if changes.is_empty() {
        return;
    }
    h.lit("<ul class=\"changes\">");
    for c in changes {
        h.lit(if c.breaking {
            "<li class=\"breaking\"><span class=\"sev error\">can break servers</span> "
        } else {
            "<li>"
        })
        .text_code(&c.text);
        if let Some(why) = &c.why {
            h.el("p", &[("class", Some("help"))], why);
        }
        if let Some(d) = &c.script {
            h.lit("<details><summary>The script's diff (")
                .text(&format!(
                    "{}, {}",
                    count(d.added, "line added", "lines added"),
                    count(d.removed, "line removed", "lines removed")
                ))
                .lit(")</summary><pre class=\"diff\" tabindex=\"0\"><code>")
                .text(&d.unified)
                .lit("</code></pre>");
            if let Some(note) = &d.note {
                h.el("p", &[("class", Some("muted"))], note);
            }
            h.lit("</details>");
        }
        h.lit("</li>");
    }
    h.lit("</ul>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn egg(image: &str, vars: &[&str]) -> Value {
        json!({
            "meta": {"version": "PTDL_v2"}, "name": "Game",
            "docker_images": {"Debian": image},
            "startup": "./run", "config": {"stop": "stop"},
            "variables": vars.iter().map(|e| json!({
                "name": e, "env_variable": e, "default_value": "1",
                "user_viewable": true, "user_editable": true, "rules": "required|string"
            })).collect::<Vec<_>>()
        })
    }

    /// Every member of an egg document but the egg and the members of [`SHOWN_META`] changed
    /// (each string, number and list of `meta`, and the README): the comparison page is the
    /// same byte for byte, and so is what [`shown`] says of it. One shown member changed: what
    /// `shown` says differs.
    #[test]
    fn comparison_pages_show_nothing_of_a_document_but_what_shown_holds() {
        let doc = |name: &str, image: &str| {
            json!({"egg": egg(image, &["A"]), "readme": "# r", "meta": {
                "slug": name, "name": name, "category": "c", "source": "s", "owner": "o",
                "repo": "r", "branch": "main", "path": "p/egg.json", "rawUrl": "https://x/p",
                "indexedAt": 1, "format": "PTDL_v2", "sha256": "00", "commit": "c1", "uuid": "u",
                "import": {"pelican": {"json": "https://x/a.json", "importable": true,
                                       "problems": [], "losses": []},
                           "pterodactyl": {"json": null, "importable": false,
                                           "problems": ["no"], "losses": []}},
                "diagnostics": [{"code": "E001", "severity": "error", "message": "m", "pointer": ""}]}})
        };
        let (a, b) = (doc("a", "img:1"), doc("b", "img:2"));
        let mut other = a.clone();
        other["readme"] = json!("# other");
        let meta = other["meta"].as_object_mut().unwrap();
        let mut changed = 0;
        for (key, value) in meta.iter_mut() {
            if SHOWN_META.contains(&key.as_str()) {
                continue;
            }
            *value = match value.take() {
                Value::String(s) => json!(format!("{s}-changed")),
                Value::Number(n) => json!(n.as_u64().unwrap() + 1),
                Value::Array(list) => {
                    assert!(!list.is_empty(), "{key}: give it a member to take away");
                    json!([])
                }
                v => panic!("{key}: {v} is not a string, number or list"),
            };
            changed += 1;
        }
        assert!(changed >= 8, "{changed}");
        let decode = |v: &Value| {
            let wire: eggcat_catalog::wire::EggDocument =
                serde_json::from_value(v.clone()).unwrap();
            let bytes = serde_json::to_vec(&wire).unwrap();
            (wire, crate::model::EggDoc::decode(&bytes).unwrap())
        };
        let ((wa, da), (wb, db), (wo, dother)) = (decode(&a), decode(&b), decode(&other));
        let assets = Assets {
            css: "assets/x.css".into(),
            js: "assets/x.js".into(),
        };
        let changes = eggcat_diff::diff(&da.egg, &db.egg);
        assert_eq!(
            page(&da, &db, &changes, &assets),
            page(&dother, &db, &changes, &assets)
        );
        assert_eq!(
            page(&db, &da, &changes, &assets),
            page(&db, &dother, &changes, &assets)
        );
        assert_eq!(shown(&wa), shown(&wo));
        assert_ne!(shown(&wa), shown(&wb));
        let mut renamed = a.clone();
        renamed["meta"]["owner"] = json!("someone");
        assert_ne!(shown(&wa), shown(&decode(&renamed).0));
    }

    #[test]
    fn one_line_counts_and_names_the_parts() {
        let a = egg("img:1", &["A"]);
        let b = egg("img:2", &["A", "B", "C"]);
        let changes = eggcat_diff::diff(&a, &b);
        assert_eq!(
            one_line(&changes),
            "3 changes (1 can break servers): another docker image, 2 variables added."
        );
        let back = eggcat_diff::diff(&b, &a);
        assert_eq!(
            one_line(&back),
            "3 changes (all can break servers): another docker image, 2 variables removed."
        );
        assert_eq!(
            one_line(&eggcat_diff::diff(&a, &a)),
            "The same egg: they differ only in format."
        );
    }
}
