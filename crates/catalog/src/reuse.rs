//! The build's one reuse rule: an output of the previous snapshot stands when it was made from
//! the same inputs, and nothing else decides it.
//!
//! Every output a build may take from the previous snapshot instead of making it again (an
//! egg's import files, an egg page) is named, and made from [`Inputs`]: each thing it is made
//! from, labelled, hashed into a [`Key`]. The snapshot records the key of every output it made
//! (`state.json`, `reuse`); the next build, under the same derivation (the same deriving code
//! and options: the pipeline gives an empty record otherwise), asks [`Reuse::stands`] with the
//! key of what it would make the output from, and takes the previous file only when the keys
//! are equal. An input added to an output is a part added to its [`Inputs`]: its key changes,
//! and no file made without it stands.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;
use sha2::{Digest, Sha256};

pub use crate::wire::Key;

/// Bytes of SHA-256 a key keeps: 128 bits, far from any chance collision among a catalog's
/// outputs.
const KEY_BYTES: usize = 16;

/// What one output is made from, being hashed: each part with its label and length, so that no
/// two different lists of parts hash alike.
#[derive(Clone)]
pub struct Inputs(Sha256);

impl Inputs {
    /// The inputs of an output of kind `output` (an egg page, an egg's import files): outputs
    /// of different kinds never share a key.
    pub fn new(output: &str) -> Inputs {
        Inputs(Sha256::new()).part("output", output.as_bytes())
    }

    /// Adds the part `label`, the bytes `bytes`.
    pub fn part(mut self, label: &str, bytes: &[u8]) -> Inputs {
        for piece in [label.as_bytes(), bytes] {
            self.0.update((piece.len() as u64).to_le_bytes());
            self.0.update(piece);
        }
        self
    }

    /// Adds the part `label`: a file's bytes, or that there is none.
    pub fn file(self, label: &str, bytes: Option<&[u8]>) -> Inputs {
        match bytes {
            Some(bytes) => self.part(label, bytes),
            None => self.part(&format!("{label}: none"), b""),
        }
    }

    /// Adds the part `label`, the value `value` as JSON.
    pub fn value<T: Serialize + ?Sized>(self, label: &str, value: &T) -> Inputs {
        let json = serde_json::to_vec(value).expect("an input serializes");
        self.part(label, &json)
    }

    /// The key of these inputs.
    pub fn key(self) -> Key {
        Key::from_digest(&self.0.finalize()[..KEY_BYTES])
    }
}

impl std::fmt::Debug for Inputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Inputs")
    }
}

/// Reads a file of the previous snapshot, as a [`crate::PreviousFiles`] does.
type ReadFile<'a> = dyn Fn(&str) -> Option<Vec<u8>> + Sync + 'a;

/// The one reuse rule, over the previous snapshot's record of keys and its files.
pub struct Reuse<'a> {
    /// The key of each output of the previous snapshot, by name; empty when it was made under
    /// another derivation, or when there is none.
    previous: BTreeMap<String, Key>,
    /// Reads the previous snapshot's files (as a [`crate::PreviousFiles`] does).
    files: Box<ReadFile<'a>>,
    /// The key of each output this build makes, by name: the next build's `previous`.
    made: Mutex<BTreeMap<String, Key>>,
}

impl<'a> Reuse<'a> {
    /// The rule over the previous snapshot's keys `previous` (give none when it was made under
    /// another derivation) and its files `files`.
    pub fn new(
        previous: BTreeMap<String, Key>,
        files: impl Fn(&str) -> Option<Vec<u8>> + Sync + 'a,
    ) -> Reuse<'a> {
        Reuse {
            previous,
            files: Box::new(files),
            made: Mutex::new(BTreeMap::new()),
        }
    }

    /// The rule with no previous snapshot: nothing stands.
    pub fn none() -> Reuse<'static> {
        Reuse::new(BTreeMap::new(), |_: &str| None)
    }

    /// Whether the previous snapshot's output `name` was made from inputs of key `key`. Either
    /// way, records that this build makes `name` from `key`.
    pub fn stands(&self, name: &str, key: &Key) -> bool {
        self.made
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), key.clone());
        self.previous.get(name) == Some(key)
    }

    /// The previous snapshot's file at `path`, when that output (named by its path) was made
    /// from inputs of key `key` and it can be read.
    pub fn file(&self, path: &str, key: &Key) -> Option<Vec<u8>> {
        if self.stands(path, key) {
            (self.files)(path)
        } else {
            None
        }
    }

    /// Reads the previous snapshot's file at `path`, whatever made it: for an output that
    /// [`Reuse::stands`] said stands, made of several files.
    pub fn read(&self, path: &str) -> Option<Vec<u8>> {
        (self.files)(path)
    }

    /// The key of every output this build made so far, by name: what its snapshot records.
    pub fn made(&self) -> BTreeMap<String, Key> {
        self.made
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl std::fmt::Debug for Reuse<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reuse")
            .field("previous", &self.previous.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(parts: &[(&str, &str)]) -> Key {
        parts
            .iter()
            .fold(Inputs::new("page"), |i, (l, b)| i.part(l, b.as_bytes()))
            .key()
    }

    #[test]
    fn a_key_changes_with_every_part_its_label_and_the_output_kind() {
        let base = key(&[("doc", "a"), ("history", "b")]);
        assert_eq!(base, key(&[("doc", "a"), ("history", "b")]));
        // An input added to an output changes its key.
        assert_ne!(
            base,
            key(&[("doc", "a"), ("history", "b"), ("warnings", "")])
        );
        assert_ne!(base, key(&[("doc", "a"), ("history", "c")]));
        assert_ne!(base, key(&[("doc", "a"), ("story", "b")]));
        // Parts are framed: moving bytes from one to the next is another key.
        assert_ne!(
            key(&[("x", "ab"), ("y", "c")]),
            key(&[("x", "a"), ("y", "bc")])
        );
        let other = Inputs::new("import files")
            .part("doc", b"a")
            .part("history", b"b");
        assert_ne!(base, other.key());
        let file = |bytes: Option<&[u8]>| Inputs::new("page").file("history", bytes).key();
        assert_ne!(file(None), file(Some(b"")));
        assert_eq!(base.as_str().len(), 2 * KEY_BYTES);
    }

    #[test]
    fn a_previous_output_stands_only_under_its_own_key_and_every_key_is_recorded() {
        let read = |path: &str| Some(format!("previous {path}").into_bytes());
        let (same, changed) = (key(&[("doc", "a")]), key(&[("doc", "b")]));
        let previous = BTreeMap::from([
            ("p1".to_owned(), same.clone()),
            ("p2".to_owned(), same.clone()),
        ]);
        let reuse = Reuse::new(previous, read);
        assert_eq!(reuse.file("p1", &same), Some(b"previous p1".to_vec()));
        assert_eq!(reuse.file("p2", &changed), None);
        // An output the previous snapshot did not record never stands.
        assert!(!reuse.stands("p3", &same));
        let made = reuse.made();
        assert_eq!(made.len(), 3);
        assert_eq!(made["p2"], changed);
        // Without the previous record (another derivation), nothing stands.
        let none = Reuse::new(BTreeMap::new(), read);
        assert_eq!(none.file("p1", &same), None);
        assert!(!Reuse::none().stands("p1", &same));
    }
}
