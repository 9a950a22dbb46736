//! When an egg was last updated, as the egg page ("Updated"), the catalog's "Recently updated"
//! sort (`_summary.json` `updatedAt`) and the feed say it: the date upstream last changed the
//! file, from its history, and which kind of date it is where the history does not know that.
//!
//! `indexedAt` (when eggcat first read the file's current content) was shown before: after a
//! first build it is the build's time for every egg, which says nothing of upstream. A commit
//! that changed the file gives the date; a file older than the history eggcat reads last
//! changed at the commit before the history (`since`) or earlier; only a source without
//! history (a plain folder) or a history that could not be read falls back on `indexedAt`, and
//! says so.

use std::time::UNIX_EPOCH;

use crate::wire::{History, VersionEvent};

use super::history::Loaded;

/// The date an egg was last updated, and how it is known (Unix ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Updated {
    /// The date of the newest upstream commit that changed the file.
    Upstream(u64),
    /// The file is older than the history eggcat reads: it last changed at this date or before
    /// (the date of the commit just before the history).
    Before(u64),
    /// No upstream date known: when eggcat first read the file's current content.
    Indexed(u64),
}

impl Updated {
    /// The date for an egg with `history`, first read by eggcat at `indexed_at`.
    pub fn of(history: &Loaded, indexed_at: u64) -> Updated {
        match history {
            Loaded::Doc(doc) => Updated::of_document(doc, indexed_at),
            _ => Updated::Indexed(indexed_at),
        }
    }

    /// The date for an egg whose history document is `doc`, first read at `indexed_at`.
    pub fn of_document(doc: &History, indexed_at: u64) -> Updated {
        let newest = doc.versions.first();
        if let Some(at) = newest
            .filter(|v| v.event != VersionEvent::Earliest)
            .and_then(|v| unix_ms(&v.date))
        {
            return Updated::Upstream(at);
        }
        // A document of an older eggcat marks the oldest commit it fetched as `earliest`.
        let bound = doc
            .since
            .as_ref()
            .map(|s| s.date.as_str())
            .or(newest.map(|v| v.date.as_str()));
        match bound.and_then(unix_ms) {
            Some(at) => Updated::Before(at),
            None => Updated::Indexed(indexed_at),
        }
    }

    /// The date, Unix ms.
    pub fn at(self) -> u64 {
        match self {
            Updated::Upstream(at) | Updated::Before(at) | Updated::Indexed(at) => at,
        }
    }

    /// How the date is known, as `_summary.json` `updatedFrom` says it.
    pub fn from(self) -> &'static str {
        match self {
            Updated::Upstream(_) => "upstream",
            Updated::Before(_) => "before",
            Updated::Indexed(_) => "indexed",
        }
    }
}

/// An RFC 3339 UTC date (`2026-01-01T00:00:00Z`, fractions allowed) in Unix ms.
pub fn unix_ms(date: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339_weak(date).ok()?;
    u64::try_from(t.duration_since(UNIX_EPOCH).ok()?.as_millis()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{History, Since};

    fn doc(versions: serde_json::Value, since: Option<&str>) -> Loaded {
        let mut h: History = serde_json::from_value(serde_json::json!({
            "slug": "s", "source": "o/r", "branch": "main", "path": "egg-a.json",
            "complete": false, "versions": versions,
        }))
        .expect("a history");
        h.since = since.map(|d| Since {
            commit: "c0".to_owned(),
            date: d.to_owned(),
        });
        Loaded::Doc(h)
    }

    fn version(event: &str, date: &str) -> serde_json::Value {
        serde_json::json!({"commit": "c1", "date": date, "subject": "s", "path": "egg-a.json",
            "event": event, "breaking": false, "changes": []})
    }

    #[test]
    fn the_newest_change_else_the_history_start_else_indexed() {
        let changed = doc(
            serde_json::json!([version("changed", "2026-01-02T00:00:00Z")]),
            Some("2025-01-01T00:00:00Z"),
        );
        assert_eq!(
            Updated::of(&changed, 5),
            Updated::Upstream(1_767_312_000_000)
        );
        let older = doc(serde_json::json!([]), Some("2026-01-01T00:00:00Z"));
        assert_eq!(Updated::of(&older, 5), Updated::Before(1_767_225_600_000));
        let kept = doc(
            serde_json::json!([version("earliest", "2026-01-01T00:00:00Z")]),
            None,
        );
        assert_eq!(Updated::of(&kept, 5), Updated::Before(1_767_225_600_000));
        assert_eq!(
            Updated::of(&doc(serde_json::json!([]), None), 5),
            Updated::Indexed(5)
        );
        assert_eq!(Updated::of(&Loaded::Missing, 7).from(), "indexed");
    }

    #[test]
    fn commit_dates_read_as_unix_ms() {
        assert_eq!(unix_ms("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(unix_ms("2026-01-01T00:00:00.250Z"), Some(1_767_225_600_250));
        assert_eq!(unix_ms("yesterday"), None);
    }
}
