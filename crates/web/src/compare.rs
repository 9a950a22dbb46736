//! Eggs for the same game (`eggcat_catalog::games`) shown against each other: the egg page's
//! section "Other eggs for this game" (id [`paths::OTHERS_SECTION`], where the comparison pages
//! of earlier eggcats, `eggs/{slug}/compare/{other}/`, now redirect).
//!
//! A game's eggs come in versions (`eggcat_catalog::games::Siblings`): eggs that run servers the same way, in which
//! `eggcat_diff` finds no change but to their identity (name, description, author, uuid,
//! update URL, icon, tags; an egg and its Pterodactyl twin, a repository's copy of another's
//! egg), are one version. The section lists the other eggs of this egg's version, each with
//! its source, a one-line difference and, collapsed, every change from this egg to it; then
//! each other version: its first egg with its source, the other eggs of that version, a
//! one-line difference and, collapsed, the two eggs side by side (side_by_side.rs) with every
//! change from this egg to that one. The changes are a panel admin's (`eggcat_diff::diff`, as
//! `eggcat diff` prints them), breaking ones marked with why, the install script's diff
//! collapsed.
//!
//! The direction is the egg page's: "from this egg to that one" is what would change for the
//! servers made from this egg if the panel held the other egg in its place.
//!
//! The section is bounded whatever the size of the game: at most `games::LISTED` eggs of a version
//! named, the others counted, and at most `games::MAX_COMPARED - 1` other versions compared,
//! so that the pages of a game of n eggs weigh O(n) in all, not O(n²) (docs/web.md, "Eggs for
//! the same game").

use eggcat_diff::{Change, Kind};
use eggcat_wire::paths;

use crate::html::Html;
use crate::layout::Here;
use eggcat_catalog::games::{Others, Sibling, Version};

use crate::model::{EggDoc, Meta};
use crate::side_by_side;
use crate::words::count;

/// The egg page's section: nothing when the egg has no sibling. `this` is the egg of the page,
/// published at `here`.
pub(crate) fn section(h: &mut Html, here: Here<'_>, this: &EggDoc, others: &Others<'_>) {
    let c = match others {
        Others::Alone => return,
        Others::Compared(c) => c,
        Others::TooMany(n) => {
            h.lit("<section id=\"others\" aria-labelledby=\"h-others\">")
                .lit("<h2 id=\"h-others\">Other eggs for this game</h2><p>")
                .text(&count(*n, "egg serves", "eggs serve"))
                .lit(" this game in the catalog, in too many versions to compare each with every other. The catalog's search finds them.</p></section>");
            return;
        }
    };
    h.lit("<section id=\"others\" aria-labelledby=\"h-others\">")
        .lit("<h2 id=\"h-others\">Other eggs for this game</h2><p class=\"muted\">")
        .text(&count(c.eggs, "egg serves", "eggs serve"))
        .lit(" this game in the catalog");
    if c.versions < c.eggs {
        h.text(&format!(", in {}", count(c.versions, "version", "versions")))
            .lit(" (eggs that run servers the same way are one version: they differ at most in format, repository or identity, such as name, uuid or tags)");
    }
    h.lit(". Each line says what would change from this egg to the other.</p>");
    for s in &c.same {
        same(h, here, this, s);
    }
    for v in &c.others {
        version(h, here, this, v);
    }
    let unlisted = c.same_total - c.same.len();
    if unlisted > 0 {
        h.lit("<p>")
            .text(&format!(
                "And {} of this egg's version, which the catalog's search finds.",
                count(unlisted, "other egg", "other eggs")
            ))
            .lit("</p>");
    }
    h.lit("</section>");
}

/// The head of another egg's block: its name linked to its page, its source, repository and
/// format. The blocks are headings and paragraphs, not the cards of a list (`.siblings`): a
/// card's padding and the stylesheet's `.siblings li`, which would also frame every item of the
/// change lists inside, leave a phone too narrow for a uuid.
fn card(h: &mut Html, here: Here<'_>, m: &Meta) {
    let page = here.link(&paths::egg_page(&m.slug));
    h.lit("<h3>")
        .el("a", &[("href", Some(&page))], &m.name)
        .lit("</h3><p class=\"muted\">")
        .text(&format!("{} · ", m.source))
        .code(&format!("{}/{}", m.owner, m.repo))
        .text(&format!(" · {}", m.format))
        .lit("</p>");
}

/// Another egg of this egg's version: its card, the one-line difference and, collapsed, every
/// change (to its identity: it runs servers the same way).
fn same(h: &mut Html, here: Here<'_>, this: &EggDoc, s: &Sibling<'_>) {
    card(h, here, s.meta);
    h.lit("<p>").text(&one_line(s.changes));
    if !s.changes.is_empty() {
        h.lit(" It runs servers the same way as this egg.</p>")
            .lit("<details><summary>Every change<span class=\"vh\"> from this egg to ")
            .text(&side_by_side::names(&this.meta, s.meta).1)
            .lit("</span></summary>");
        change_list(h, s.changes);
        h.lit("</details>");
    } else {
        h.lit("</p>");
    }
}

/// Another version: its first egg's card, its other eggs, the one-line difference and,
/// collapsed, the two eggs side by side with every change from this egg to it.
fn version(h: &mut Html, here: Here<'_>, this: &EggDoc, v: &Version<'_>) {
    let names = side_by_side::names(&this.meta, &v.doc.meta);
    card(h, here, &v.doc.meta);
    if v.more_total > 0 {
        h.lit("<p class=\"muted\">The same version: ");
        for (i, m) in v.more.iter().enumerate() {
            if i > 0 {
                h.lit(", ");
            }
            let page = here.link(&paths::egg_page(&m.slug));
            h.el("a", &[("href", Some(&page))], &m.name)
                .lit(" (")
                .code(&format!("{}/{}", m.owner, m.repo))
                .lit(")");
        }
        let rest = v.more_total - v.more.len();
        if rest > 0 {
            h.text(&format!(" and {rest} more"));
        }
        h.lit(".</p>");
    }
    h.lit("<p>")
        .text(&one_line(v.changes))
        .lit("</p><details><summary>Side by side, and every change<span class=\"vh\"> from this egg to ")
        .text(&names.1)
        .lit("</span></summary>");
    side_by_side::grids(h, this, v.doc, &names);
    h.lit("<h4>From this egg to ")
        .text(&names.1)
        .lit("</h4><p>What would change for servers made from this egg if the panel held the other in its place.</p>");
    change_list(h, v.changes);
    h.lit("</details>");
}

/// The difference in one line: the number of changes, how many can break servers, and what
/// they touch ("3 changes: another docker image, 2 variables added").
pub(crate) fn one_line(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "The same egg: they differ only in format or where they are published.".to_owned();
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
    use serde_json::{Value, json};

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
            "The same egg: they differ only in format or where they are published."
        );
    }
}
