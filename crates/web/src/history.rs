//! The egg page's "Changes" section, from the egg's history document
//! (`api/v1/eggs/{slug}/history.json`, [`eggcat_wire::History`]).
//!
//! The section shows the newest `PAGE_VERSIONS` versions (`eggcat_catalog::games`), each with its date, commit subject,
//! a link to the upstream commit (or the short id), what the commit did to the file, and each
//! change in plain words (`Change::text`), the ones that can break servers marked in words and
//! with why; the install script's diff is collapsed, and so are the full values of a change
//! whose line had to cut them ([`full_values`]). Every string of the document comes from
//! upstream (commit subjects, paths, the eggs' values inside the texts) and is written as
//! escaped text. The feed (`feed.rs`) takes its entries from the same versions and links to
//! each one's anchor here ([`anchor`]).

use eggcat_catalog::games::Loaded;
use eggcat_diff::ScriptDiff;
use eggcat_wire::{History, Version, VersionEvent};

use crate::html::Html;
use crate::layout::Here;
use crate::words::count;

/// The anchor of a version on its egg's page: `v-{commit}`.
pub(crate) fn anchor(commit: &str) -> String {
    format!("v-{commit}")
}

/// What the commit did to the file, in words (the renamed-from path is written by the caller,
/// as code).
pub(crate) fn event_words(v: &Version) -> &'static str {
    match v.event {
        VersionEvent::Added => "file added",
        VersionEvent::Changed => "changed",
        VersionEvent::Renamed => "renamed from",
        VersionEvent::Removed => "file removed (a later commit added it back)",
        VersionEvent::Restored => "file added back",
        // Only in documents of an older eggcat, kept for an egg whose source failed since.
        VersionEvent::Earliest => "earliest version fetched (older history was not fetched)",
    }
}

/// The commit's short id, as git shows it.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// A link target that is a web address; anything else (a `javascript:` URL from a broken
/// document) is not linked.
pub(crate) fn web_url(url: Option<&str>) -> Option<&str> {
    url.filter(|u| u.starts_with("https://") || u.starts_with("http://"))
}

/// The "Changes" section of the page of egg `slug`.
pub(crate) fn section(h: &mut Html, here: Here<'_>, history: &Loaded, slug: &str) {
    h.lit(
        "<section id=\"changes\" aria-labelledby=\"h-changes\"><h2 id=\"h-changes\">Changes</h2>",
    );
    let doc_href = here.link(&eggcat_wire::paths::history(slug));
    let doc = match history {
        Loaded::Doc(doc) if !doc.versions.is_empty() => doc,
        // Older than the history read: that is known, not missing.
        Loaded::Doc(History {
            note: Some(note),
            since: Some(_),
            ..
        }) => {
            h.lit("<p>")
                .text_code(&sentence(note))
                .lit(" ")
                .open("a", &[("href", Some(&doc_href))])
                .lit("The history document (JSON)</a></p></section>");
            return;
        }
        Loaded::Doc(History { note, .. }) | Loaded::Unreadable { note } => {
            no_history(h, note.as_deref());
            if matches!(history, Loaded::Doc(_)) {
                h.lit("<p>")
                    .open("a", &[("href", Some(&doc_href))])
                    .lit("The history document (JSON)</a></p>");
            }
            h.lit("</section>");
            return;
        }
        Loaded::Missing => {
            no_history(h, None);
            h.lit("</section>");
            return;
        }
    };
    let shown = history.recent();
    h.lit("<p>")
        .text(&count(doc.versions.len(), "version", "versions"));
    if doc.versions.len() > shown.len() {
        h.lit(" in upstream git; the newest ")
            .num(shown.len())
            .lit(" here, newest first. ");
    } else {
        h.lit(" in upstream git, newest first. ");
    }
    h.open("a", &[("href", Some(&doc_href))])
        .lit("Full history (JSON)</a></p>");
    if !doc.complete {
        h.lit("<p class=\"note\">")
            .text_code(&sentence(doc.note.as_deref().unwrap_or(
                "the history does not reach back to the file's first version",
            )))
            .lit("</p>");
    }
    h.lit("<ol class=\"versions\">");
    for (i, v) in shown.iter().enumerate() {
        // The version the changes are counted from, when it is not simply the next one listed
        // (a version that could not be read lies between them).
        let next = doc.versions.get(i + 1).map(|n| n.commit.as_str());
        version(h, v, next);
    }
    h.lit("</ol></section>");
}

/// "No history available", and why when the document says.
fn no_history(h: &mut Html, note: Option<&str>) {
    h.lit("<p>No history available");
    if let Some(note) = note.map(|n| n.trim().trim_end_matches('.')) {
        h.lit(" (").text_code(note).lit(")");
    }
    h.lit(".</p>");
}

/// A note of the history document (written lowercase and without a full stop, as error
/// messages are) as a sentence of its own.
pub(crate) fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let first: String = chars
        .next()
        .map(char::to_uppercase)
        .into_iter()
        .flatten()
        .collect();
    full_stop(&format!("{first}{}", chars.as_str()))
}

/// `text` ending with a full stop (or the `!` or `?` it has).
pub(crate) fn full_stop(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// One version: its heading, date, commit, event, and its changes.
fn version(h: &mut Html, v: &Version, next: Option<&str>) {
    let id = anchor(&v.commit);
    h.open("li", &[("class", Some("version")), ("id", Some(&id))]);
    let subject = if v.subject.trim().is_empty() {
        "(no commit message)"
    } else {
        v.subject.as_str()
    };
    h.el("h3", &[], subject);
    h.lit("<p class=\"vmeta\">");
    h.el(
        "time",
        &[("datetime", Some(&v.date))],
        v.date.get(..10).unwrap_or(&v.date),
    );
    h.lit(" · ");
    match web_url(v.url.as_deref()) {
        Some(url) => {
            h.open(
                "a",
                &[("href", Some(url)), ("rel", Some("noopener noreferrer"))],
            )
            .lit("commit ")
            .code(short(&v.commit))
            .lit("</a>");
        }
        None => {
            h.lit("commit ").code(short(&v.commit));
        }
    }
    h.lit(" · ").text(event_words(v));
    if v.event == VersionEvent::Renamed {
        h.lit(" ")
            .code(v.renamed_from.as_deref().unwrap_or("another path"));
    }
    if let Some(with) = v.compared_with.as_deref().filter(|c| Some(*c) != next) {
        h.lit(" · compared with ").code(short(with));
    }
    if v.breaking {
        h.lit(" · <strong class=\"brk\">can break servers</strong>");
    }
    h.lit("</p>");
    if let Some(error) = &v.error {
        h.lit("<p class=\"bad\">This version could not be read: ")
            .text_code(&full_stop(error))
            .lit("</p>");
    } else if v.changes.is_empty() {
        if let Some(words) = no_changes_words(v) {
            h.lit("<p class=\"muted\">").lit(words).lit("</p>");
        }
    } else {
        h.lit("<ul class=\"changes\">");
        for c in &v.changes {
            h.open("li", &[("class", c.breaking.then_some("brk-change"))]);
            if c.breaking {
                h.lit("<strong class=\"brk\">Can break servers:</strong> ");
            }
            h.text_code(&c.text);
            if let Some(why) = &c.why {
                h.lit("<span class=\"why\">").text_code(why).lit("</span>");
            }
            if let Some(d) = &c.script {
                script_diff(h, d, "The script diff");
            }
            full_values(h, c);
            h.lit("</li>");
        }
        h.lit("</ul>");
    }
    h.lit("</li>");
}

/// What a version that changed the file but shows no change says, on the egg page and in the
/// feed: nothing a panel would see, or, without a readable version before it (the one at the
/// window's base, or before it in the window, could not be read), that it is not known.
pub(crate) fn no_changes_words(v: &Version) -> Option<&'static str> {
    if !matches!(v.event, VersionEvent::Changed | VersionEvent::Renamed) {
        None
    } else if v.compared_with.is_some() {
        Some("No change a panel would see (format or layout only).")
    } else {
        Some("What changed is not known: the version before it could not be read.")
    }
}

/// The values of a change whose line shows them cut (over
/// [`eggcat_diff::SHOWN_CHARS`] characters, or over several lines), collapsed: texts of several
/// lines as a line diff, like the install script's; other values before and after, whole (as
/// the history document keeps them: up to 2,000 characters of a text).
fn full_values(h: &mut Html, c: &eggcat_diff::Change) {
    let shown = |v: &Option<serde_json::Value>| -> Option<String> {
        match v.as_ref()? {
            serde_json::Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    };
    let (old, new) = (shown(&c.old), shown(&c.new));
    let long = |s: &Option<String>| {
        s.as_ref()
            .is_some_and(|s| s.contains('\n') || s.chars().count() > eggcat_diff::SHOWN_CHARS)
    };
    if c.script.is_some() || !(long(&old) || long(&new)) {
        return;
    }
    if let (Some(a), Some(b)) = (&old, &new)
        && (a.contains('\n') || b.contains('\n'))
    {
        script_diff(
            h,
            &eggcat_diff::text_diff(a, b),
            "The full values as a line diff",
        );
        return;
    }
    h.lit("<details class=\"values\"><summary>The full values</summary><dl>");
    for (label, value) in [("Before", &old), ("After", &new)] {
        if let Some(v) = value {
            h.lit("<dt>")
                .text(label)
                .lit(" (")
                .text(&count(v.chars().count(), "character", "characters"))
                .lit(")</dt><dd><pre tabindex=\"0\"><code>")
                .text(v)
                .lit("</code></pre></dd>");
        }
    }
    h.lit("</dl></details>");
}

/// A unified diff (the install script's, or a long text's), collapsed; each line marked by its
/// first character, and shaded (the `+`/`-` carry the meaning, the colour only helps).
fn script_diff(h: &mut Html, d: &ScriptDiff, title: &'static str) {
    h.lit("<details class=\"diff\"><summary>")
        .lit(title)
        .lit(" (")
        .text(&count(d.added, "line added", "lines added"))
        .lit(", ")
        .num(d.removed)
        .lit(" removed)</summary><pre tabindex=\"0\"><code>");
    for (i, line) in d.unified.lines().enumerate() {
        // Between lines only: a newline after the last would draw an empty line.
        if i > 0 {
            h.lit("\n");
        }
        let class = match line.as_bytes().first() {
            Some(b'+') => "<span class=\"add\">",
            Some(b'-') => "<span class=\"del\">",
            Some(b'@') => "<span class=\"hunk\">",
            _ => "<span>",
        };
        h.lit(class).text(line).lit("</span>");
    }
    h.lit("</code></pre>");
    if let Some(note) = &d.note {
        h.lit("<p class=\"muted\">").text_code(note).lit("</p>");
    }
    h.lit("</details>");
}
