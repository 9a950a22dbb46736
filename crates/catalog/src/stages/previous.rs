//! The previous catalog read back from a snapshot: its `state.json` and the egg documents it
//! names. The catalog decodes its own documents; the caller only reads bytes (the store knows
//! where a snapshot is, not what is in it).

use super::{FirstRead, Previous, PreviousSource};
use crate::paths;
use crate::scan::ParsedEgg;
use crate::wire::{EggDocument, SHARED_UUID, State};

/// Why a snapshot cannot serve as the previous catalog.
#[derive(Debug, thiserror::Error)]
pub enum PreviousError {
    /// `state.json` is not a [`State`].
    #[error("state.json: {0}")]
    State(serde_json::Error),
    /// A document the state names cannot be read.
    #[error("{path}: {source}")]
    Read {
        /// Its published path.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A document the state names is not an egg document.
    #[error("{path}: {source}")]
    Document {
        /// Its published path.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
}

impl Previous {
    /// Decodes `state.json` alone: enough to ask upstream whether anything changed.
    pub fn decode_state(state: &[u8]) -> Result<State, PreviousError> {
        serde_json::from_slice(state).map_err(PreviousError::State)
    }

    /// The previous catalog of a snapshot whose `state.json` is `state`, reading the egg
    /// documents it names with `read` (by published path).
    pub fn decode(
        state: State,
        read: &dyn Fn(&str) -> std::io::Result<Vec<u8>>,
    ) -> Result<Previous, PreviousError> {
        let mut previous = Previous {
            removed: state.removed,
            derivation: state.derivation,
            keys: state.reuse,
            ..Previous::default()
        };
        for source in state.sources {
            let mut eggs = Vec::with_capacity(source.eggs.len());
            for slug in &source.eggs {
                eggs.push(previous.read_egg(slug, read)?);
            }
            let prev = PreviousSource {
                branch: source.branch,
                commit: source.commit,
                eggs,
                skipped: source.skipped,
                warnings: source.warnings,
            };
            previous.sources.insert(source.key, prev);
        }
        Ok(previous)
    }

    /// Reads the document of `slug`, records what it published and its `meta.import`, and gives the egg
    /// back as the build parsed it.
    fn read_egg(
        &mut self,
        slug: &str,
        read: &dyn Fn(&str) -> std::io::Result<Vec<u8>>,
    ) -> Result<(ParsedEgg, FirstRead), PreviousError> {
        let path = paths::egg(slug);
        let bytes = read(&path).map_err(|source| PreviousError::Read {
            path: path.clone(),
            source,
        })?;
        let doc: EggDocument = serde_json::from_slice(&bytes)
            .map_err(|source| PreviousError::Document { path, source })?;
        let meta = doc.meta;
        let origin = format!("{}/{}", meta.owner, meta.repo);
        self.published
            .insert(slug.to_owned(), (origin, meta.path.clone()));
        self.imports.insert(slug.to_owned(), meta.import);
        // The references its document shows; a document of an older eggcat shows none, and its
        // egg says them.
        let mut images: Vec<String> = meta
            .images
            .iter()
            .filter_map(|i| i.reference.clone())
            .collect();
        if meta.images.is_empty() {
            images = serde_json::from_str(doc.egg.get())
                .map(|egg| crate::images::references(&egg))
                .unwrap_or_default();
        }
        images.sort();
        images.dedup();
        // As the images: the URLs `meta.downloads` says were asked, or, in a document of an
        // eggcat before them, read from the egg again.
        let mut downloads: Vec<String> = meta
            .downloads
            .iter()
            .filter_map(|d| d.checked.clone())
            .collect();
        if meta.downloads.is_empty() {
            downloads = serde_json::from_str(doc.egg.get())
                .map(|egg| crate::downloads::urls(&egg))
                .unwrap_or_default();
        }
        downloads.sort();
        downloads.dedup();
        let egg = ParsedEgg {
            images,
            downloads,
            path: meta.path,
            name: meta.name,
            format: meta.format,
            sha256: meta.sha256,
            egg: doc.egg,
            readme: doc.readme,
            // The file's own findings; the catalog-wide ones are found again by the build.
            diagnostics: meta
                .diagnostics
                .into_iter()
                .filter(|d| d.code != SHARED_UUID)
                .collect(),
        };
        let first = FirstRead {
            indexed_at: meta.indexed_at,
            commit: meta.commit,
        };
        Ok((egg, first))
    }
}
