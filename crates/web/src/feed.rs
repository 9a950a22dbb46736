//! `feed.atom`: the 50 most recently added or updated eggs (RFC 4287).
//!
//! An entry's id is the egg page's URL, so an updated egg is the same entry with a new
//! `updated` time; the feed's own `updated` is the newest entry's, not the build's, so an
//! unchanged catalog gives a byte-identical feed.

use crate::html::escape;
use crate::summary::SummaryItem;

/// How many entries the feed carries.
pub(crate) const ENTRIES: usize = 50;

/// The feed. `base` is the site's absolute address without a trailing slash.
pub(crate) fn render(items: &[SummaryItem], base: &str) -> String {
    let mut recent: Vec<&SummaryItem> = items.iter().collect();
    recent.sort_by(|a, b| {
        b.indexed_at
            .cmp(&a.indexed_at)
            .then_with(|| a.slug.cmp(&b.slug))
    });
    recent.truncate(ENTRIES);
    let updated = recent.first().map(|i| i.indexed_at).unwrap_or(0);
    let b = escape(base);
    let mut out = String::with_capacity(ENTRIES * 600 + 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    out.push_str("<title>eggcat: recently added and updated eggs</title>\n");
    out.push_str(&format!("<id>{b}/feed.atom</id>\n<link rel=\"self\" href=\"{b}/feed.atom\"/>\n<link href=\"{b}/\"/>\n"));
    out.push_str(&format!(
        "<updated>{}</updated>\n<author><name>eggcat</name></author>\n",
        eggcat_catalog::rfc3339(updated)
    ));
    for i in recent {
        let url = format!("{b}/eggs/{}/", escape(&i.slug));
        out.push_str("<entry>\n");
        out.push_str(&format!(
            "<title>{}</title>\n<id>{url}</id>\n<link href=\"{url}\"/>\n",
            xml(&i.name)
        ));
        out.push_str(&format!(
            "<updated>{}</updated>\n",
            eggcat_catalog::rfc3339(i.indexed_at)
        ));
        out.push_str(&format!("<category term=\"{}\"/>\n", xml(&i.category)));
        out.push_str(&format!(
            "<summary>{}</summary>\n</entry>\n",
            xml(&format!(
                "{} ({}/{}, {})",
                i.description, i.owner, i.repo, i.format
            ))
        ));
    }
    out.push_str("</feed>\n");
    out
}

/// Escaped text without the control characters XML 1.0 forbids.
fn xml(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    escape(&clean)
}
