//! `feed.atom`: the 50 newest egg versions across the catalog (RFC 4287), one entry per
//! upstream commit that changed an egg, not one per rebuild.
//!
//! An entry is a version of an egg's history (`history.rs`): `updated` is the commit's date; the
//! title is "{egg name}: {commit subject}"; the content is the change list as HTML; the link is
//! the version's anchor on the egg page. Its id is a `urn:uuid:` of the repository, the commit
//! and the file's path in it ([`eggcat_catalog::history::feed_id`]), so that it stays the same
//! when the egg's slug or the catalog's address changes. Each egg gives at most the versions
//! its page shows, so every entry's link lands on its anchor.
//!
//! An egg with no version in the history eggcat reads (its file is older than it) gives one
//! entry, dated by the commit just before that history (`since`: the file last changed then or
//! earlier), so it never ranks above a version made later; its id names the file's content,
//! so it is the same entry until the file changes (and then a version replaces it). An egg
//! with no upstream date at all (a plain-folder source, a history that could not be read) has
//! no entry: the feed would have to date it by when eggcat read it, a build's time. The feed's
//! own `updated` is the newest entry's, not the build's, so an unchanged catalog gives a
//! byte-identical feed.

use std::collections::BTreeMap;

use eggcat_catalog::history::feed_id;
use eggcat_wire::paths;
use eggcat_wire::{Version, VersionEvent};

use crate::history::{anchor, event_words, full_stop, no_changes_words, short, web_url};
use crate::html::{Html, escape};
use eggcat_catalog::games::unix_ms;
use eggcat_wire::SummaryItem;

/// How many entries the feed carries.
pub(crate) const ENTRIES: usize = 50;

/// One entry before it is written.
struct Entry<'a> {
    /// When, in Unix ms: the commit's date, or for an egg older than the history the date of
    /// the commit before it.
    at: u64,
    id: String,
    /// The egg page, or the version's anchor on it.
    link: String,
    item: &'a SummaryItem,
    version: Option<&'a Version>,
}

/// The feed. `versions` holds each egg's newest versions by slug (as the page shows them);
/// `sha256` each egg's file hash by slug; `base` is the site's absolute address without a
/// trailing slash.
pub(crate) fn render(
    items: &[SummaryItem],
    versions: &BTreeMap<String, Vec<Version>>,
    sha256: &BTreeMap<String, String>,
    base: &str,
) -> String {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for item in items {
        let page = format!("{base}/{}", paths::page_url(&paths::egg_page(&item.slug)));
        let source = format!("{}/{}", item.owner, item.repo);
        // `earliest` (in a document of an older eggcat) is no change anyone made at that
        // commit: only where the history it fetched stopped.
        let changes = versions
            .get(&item.slug)
            .into_iter()
            .flatten()
            .filter(|v| v.event != VersionEvent::Earliest)
            .filter_map(|v| Some((unix_ms(&v.date)?, v)));
        let before = entries.len();
        entries.extend(changes.map(|(at, v)| Entry {
            at,
            id: feed_id(&[&source, &v.commit, &v.path]),
            link: format!("{page}#{}", anchor(&v.commit)),
            item,
            version: Some(v),
        }));
        if entries.len() == before && item.updated_from == "before" {
            let content = sha256.get(&item.slug).map_or("", String::as_str);
            entries.push(Entry {
                at: item.updated_at,
                id: feed_id(&[&source, "unchanged", &item.path, content]),
                link: page,
                item,
                version: None,
            });
        }
    }
    // Newest first; one commit that changed many eggs gives entries of the same time, put in
    // the order of their links, then ids, so the feed does not depend on the order of `items`.
    entries.sort_by(|a, b| {
        b.at.cmp(&a.at)
            .then_with(|| a.link.cmp(&b.link))
            .then_with(|| a.id.cmp(&b.id))
    });
    entries.truncate(ENTRIES);
    let updated = entries.first().map(|e| e.at).unwrap_or(0);
    let b = escape(base);
    let mut out = String::with_capacity(ENTRIES * 1200 + 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    out.push_str("<title>eggcat: new egg versions</title>\n");
    out.push_str(&format!("<id>{b}/feed.atom</id>\n<link rel=\"self\" href=\"{b}/feed.atom\"/>\n<link href=\"{b}/\"/>\n"));
    out.push_str(&format!(
        "<updated>{}</updated>\n<author><name>eggcat</name></author>\n",
        eggcat_wire::rfc3339(updated)
    ));
    for e in entries {
        entry(&mut out, &e);
    }
    out.push_str("</feed>\n");
    out
}

/// One `<entry>`.
fn entry(out: &mut String, e: &Entry<'_>) {
    let i = e.item;
    let title = match e.version {
        Some(v) => format!("{}: {}", i.name, v.subject),
        None => i.name.clone(),
    };
    out.push_str("<entry>\n");
    out.push_str(&format!(
        "<title>{}</title>\n<id>{}</id>\n<link href=\"{}\"/>\n",
        xml(&title),
        xml(&e.id),
        xml(&e.link)
    ));
    out.push_str(&format!(
        "<updated>{}</updated>\n",
        eggcat_wire::rfc3339(e.at)
    ));
    out.push_str(&format!("<category term=\"{}\"/>\n", xml(&i.category)));
    match e.version {
        Some(v) => out.push_str(&format!(
            "<content type=\"html\">{}</content>\n</entry>\n",
            xml(&content(v))
        )),
        None => out.push_str(&format!(
            "<summary>{}</summary>\n</entry>\n",
            xml(&format!(
                "{} ({}/{}, {}). Older than the history eggcat reads: last changed on {} or before.",
                i.description.trim_end_matches('.'),
                i.owner,
                i.repo,
                i.format,
                eggcat_wire::rfc3339(e.at).get(..10).unwrap_or_default()
            ))
        )),
    }
}

/// A version's entry content, as HTML: what the commit did, the commit, and the change list
/// with the breaking changes marked and why (the script diff itself stays on the page: 50 of
/// them would make the feed megabytes).
fn content(v: &Version) -> String {
    let mut h = Html::with_capacity(1024);
    h.lit("<p>").text(event_words(v));
    if v.event == VersionEvent::Renamed {
        h.lit(" ")
            .code(v.renamed_from.as_deref().unwrap_or("another path"));
    }
    h.lit(", commit ");
    match web_url(v.url.as_deref()) {
        Some(url) => {
            h.open("a", &[("href", Some(url))])
                .text(short(&v.commit))
                .lit("</a>");
        }
        None => {
            h.code(short(&v.commit));
        }
    }
    h.lit(".</p>");
    if let Some(error) = &v.error {
        h.lit("<p>This version could not be read: ")
            .text_code(&full_stop(error))
            .lit("</p>");
    } else if v.changes.is_empty() {
        if let Some(words) = no_changes_words(v) {
            h.lit("<p>").lit(words).lit("</p>");
        }
    } else {
        h.lit("<ul>");
        for c in &v.changes {
            h.lit("<li>");
            if c.breaking {
                h.lit("<strong>Can break servers:</strong> ");
            }
            h.text_code(&c.text);
            if let Some(why) = &c.why {
                h.lit(" (").text_code(why).lit(")");
            }
            h.lit("</li>");
        }
        h.lit("</ul>");
    }
    h.finish()
}

/// Escaped text without the control characters XML 1.0 forbids.
fn xml(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    escape(&clean)
}
