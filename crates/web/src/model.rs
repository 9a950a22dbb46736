//! The catalog documents as the pages read them: the types of `eggcat_wire`, the one
//! source of every published document's shape, and the egg documents as the catalog reads them
//! back (`eggcat_catalog::games::Doc`, the upstream egg parsed once per page set), with the
//! catalog's readers of an egg's fields.

pub(crate) use eggcat_catalog::games::Doc as EggDoc;
pub(crate) use eggcat_catalog::games::{clip, docker_images, egg_str, startup_commands};
pub(crate) use eggcat_wire::{Meta, PanelImport, Removed, Report as Status, SourceProblem};
