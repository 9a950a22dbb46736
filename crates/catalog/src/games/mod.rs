//! The catalog's games: its eggs grouped by the game they serve ([`Groups`], found by the build
//! after `identify`), and, one game at a time, what its egg pages show of it ([`Siblings`]: the
//! game's documents as the build hands them on, split into versions, and the changes from each egg to the eggs
//! its page compares it with, as [`Others`]). The pages only render these facts.

pub mod aliases;
mod doc;
mod groups;
mod history;
pub mod icon;
mod name_forms;
mod others;
mod siblings;
mod summary;
mod updated;

pub use doc::{
    Doc, Documents, clip, docker_images, egg_str, egg_strings, one_line, startup_commands,
};
pub use groups::{Groups, Member, name_key};
pub use history::{Loaded, PAGE_VERSIONS, history_key};
pub use others::{Compared, LISTED, Others, Sibling, Version};
pub use siblings::{
    EggDocuments, HistoryDocuments, MAX_COMPARED, Shown, Siblings, SnapshotFiles, decoded,
    document_key, histories_decoded,
};
pub use summary::{DESCRIPTION_CHARS, EggFields, item, summary, summary_of_documents};
pub use updated::{Updated, unix_ms};
