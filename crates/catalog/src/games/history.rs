//! An egg's history document (`api/v1/eggs/{slug}/history.json`, [`History`]) as the pages
//! show it: the document, or why there is none; handed on by the build that wrote it
//! (`super::Documents::history`) or, for a tree made elsewhere, decoded ([`Loaded::of`]).

use crate::reuse::{Inputs, Key};
use crate::wire::{History, Version};

/// How many versions the page shows; the rest are in the history document it links. The feed
/// carries at most these per egg too, so that every entry's link has its anchor on the page.
pub const PAGE_VERSIONS: usize = 10;

/// An egg's history as the pages read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded {
    /// The document, parsed.
    Doc(History),
    /// No history document for the egg (a catalog built without history, an older snapshot).
    Missing,
    /// A document that is not a history: its `note`, when it has one that can be read.
    Unreadable { note: Option<String> },
}

impl Loaded {
    /// The history an egg's `history.json` of `bytes` holds (`None`: it has none).
    pub fn of(bytes: Option<&[u8]>) -> Loaded {
        let Some(bytes) = bytes else {
            return Loaded::Missing;
        };
        match serde_json::from_slice::<History>(bytes) {
            Ok(h) => Loaded::Doc(h),
            Err(_) => Loaded::Unreadable {
                // A document of a newer or broken shape may still say why in words.
                note: serde_json::from_slice::<serde_json::Value>(bytes)
                    .ok()
                    .and_then(|v| v.get("note")?.as_str().map(str::to_owned)),
            },
        }
    }

    /// The versions the page shows (newest first, at most [`PAGE_VERSIONS`]); none when there
    /// is no readable history.
    pub fn recent(&self) -> &[Version] {
        match self {
            Loaded::Doc(h) => &h.versions[..h.versions.len().min(PAGE_VERSIONS)],
            _ => &[],
        }
    }
}

/// The key of a history document's bytes (`None`: the egg has none), as a page's key holds it.
pub fn history_key(bytes: Option<&[u8]>) -> Key {
    Inputs::new("history document").file("bytes", bytes).key()
}
