//! `feed.atom`: the 50 newest egg versions across the catalog (RFC 4287), one entry per
//! upstream commit that changed an egg, not one per rebuild.
//!
//! An entry is a version of an egg's history (`history.rs`): its id is the version's anchor on
//! the egg page (`{base}/eggs/{slug}/#v-{commit}`), stable for as long as upstream keeps the
//! commit; `updated` is the commit's date; the title is "{egg name}: {commit subject}"; the
//! content is the change list as HTML. Each egg gives at most the versions its page shows, so
//! every entry's link lands on its anchor. An egg without versions (a plain-folder source like
//! the demo, a history that failed or is missing) gives one entry as before history existed:
//! id the egg page's URL, `updated` its `indexedAt`. The feed's own `updated` is the newest
//! entry's, not the build's, so an unchanged catalog gives a byte-identical feed.

use std::collections::BTreeMap;
use std::time::UNIX_EPOCH;

use eggcat_catalog::paths;
use eggcat_catalog::wire::{Version, VersionEvent};

use crate::history::{anchor, event_words, full_stop, short, web_url};
use crate::html::{Html, escape};
use crate::summary::SummaryItem;

/// How many entries the feed carries.
pub(crate) const ENTRIES: usize = 50;

/// One entry before it is written.
struct Entry<'a> {
    /// When, in Unix ms: the commit's date, or the egg's `indexedAt`.
    at: u64,
    id: String,
    item: &'a SummaryItem,
    version: Option<&'a Version>,
}

/// The feed. `versions` holds each egg's newest versions by slug (as the page shows them);
/// `base` is the site's absolute address without a trailing slash.
pub(crate) fn render(
    items: &[SummaryItem],
    versions: &BTreeMap<String, Vec<Version>>,
    base: &str,
) -> String {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for item in items {
        let page = format!("{base}/{}", paths::page_url(&paths::egg_page(&item.slug)));
        // The oldest version fetched (`earliest`) is no change anyone made at that commit: the
        // commit is only where the fetched history stops, so it is no entry.
        let changes: Vec<&Version> = versions
            .get(&item.slug)
            .into_iter()
            .flatten()
            .filter(|v| v.event != VersionEvent::Earliest)
            .collect();
        match Some(changes).filter(|v| !v.is_empty()) {
            Some(list) => entries.extend(list.into_iter().map(|v| Entry {
                at: unix_ms(&v.date).unwrap_or(item.indexed_at),
                id: format!("{page}#{}", anchor(&v.commit)),
                item,
                version: Some(v),
            })),
            None => entries.push(Entry {
                at: item.indexed_at,
                id: page,
                item,
                version: None,
            }),
        }
    }
    // Newest first; one commit that changed many eggs gives entries of the same time, put in
    // the order of their ids so the feed does not depend on the order of `items`.
    entries.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.id.cmp(&b.id)));
    entries.truncate(ENTRIES);
    let updated = entries.first().map(|e| e.at).unwrap_or(0);
    let b = escape(base);
    let mut out = String::with_capacity(ENTRIES * 1200 + 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    out.push_str("<title>eggcat: new egg versions</title>\n");
    out.push_str(&format!("<id>{b}/feed.atom</id>\n<link rel=\"self\" href=\"{b}/feed.atom\"/>\n<link href=\"{b}/\"/>\n"));
    out.push_str(&format!(
        "<updated>{}</updated>\n<author><name>eggcat</name></author>\n",
        eggcat_catalog::rfc3339(updated)
    ));
    for e in entries {
        let i = e.item;
        let id = xml(&e.id);
        let title = match e.version {
            Some(v) => format!("{}: {}", i.name, v.subject),
            None => i.name.clone(),
        };
        out.push_str("<entry>\n");
        out.push_str(&format!(
            "<title>{}</title>\n<id>{id}</id>\n<link href=\"{id}\"/>\n",
            xml(&title)
        ));
        out.push_str(&format!(
            "<updated>{}</updated>\n",
            eggcat_catalog::rfc3339(e.at)
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
                    "{} ({}/{}, {})",
                    i.description, i.owner, i.repo, i.format
                ))
            )),
        }
    }
    out.push_str("</feed>\n");
    out
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
        if matches!(v.event, VersionEvent::Changed | VersionEvent::Renamed) {
            h.lit("<p>No change a panel would see (format or layout only).</p>");
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

/// An RFC 3339 UTC date (`2026-01-01T00:00:00Z`, fractions allowed) in Unix ms.
fn unix_ms(date: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339_weak(date).ok()?;
    u64::try_from(t.duration_since(UNIX_EPOCH).ok()?.as_millis()).ok()
}

/// Escaped text without the control characters XML 1.0 forbids.
fn xml(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    escape(&clean)
}

#[cfg(test)]
mod tests {
    use super::unix_ms;

    #[test]
    fn commit_dates_read_as_unix_ms() {
        assert_eq!(unix_ms("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(unix_ms("2026-01-01T00:00:00.250Z"), Some(1_767_225_600_250));
        assert_eq!(unix_ms("yesterday"), None);
    }
}
