//! A fingerprint of source trees, for build scripts: what makes "the code that derives the
//! catalog's files changed" one cache key. `crates/pipeline/build.rs` hashes the folders of the
//! crates that derive files (found by package name through `cargo metadata`, no sibling path
//! written down) and the workspace's `Cargo.lock`; a snapshot made under another fingerprint is
//! never a source of reused parses, diagnostics or files.
//!
//! FNV-1a over every file's path (relative to its root) and bytes, in path order: a cache key,
//! not a security measure.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Folders of a crate that are not what it derives with (its tests, build output).
const SKIPPED: &[&str] = &["tests", "benches", "target", "node_modules"];

/// The fingerprint of every file under each of `roots` (a root may be one file), as 16 hex
/// digits. The same bytes at the same relative paths give the same fingerprint, wherever the
/// roots are; any changed, added, removed or renamed file changes it.
pub fn trees(roots: &[(&str, &Path)]) -> io::Result<String> {
    let mut hash = Fnv::new();
    for (name, root) in roots {
        let mut files = Vec::new();
        collect(root, root, &mut files)?;
        files.sort();
        for (rel, path) in files {
            hash.write(name.as_bytes());
            hash.write(&[0]);
            hash.write(rel.as_bytes());
            hash.write(&[0]);
            let bytes = fs::read(&path)?;
            hash.write(&(bytes.len() as u64).to_le_bytes());
            hash.write(&bytes);
        }
    }
    Ok(format!("{:016x}", hash.0))
}

/// Every file under `dir`, as (path relative to `root` with `/`, full path); the folders in
/// [`SKIPPED`] and hidden ones are left out.
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> io::Result<()> {
    if dir.is_file() {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        out.push((name.unwrap_or_default(), dir.to_path_buf()));
        return Ok(());
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_dir() {
            if !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                collect(root, &path, out)?;
            }
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((rel, path));
        }
    }
    Ok(())
}

/// 64-bit FNV-1a.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::trees;
    use std::fs;
    use std::path::Path;

    /// A crate-like tree: `src/lib.rs`, `src/rules.rs`, `tests/it.rs`.
    fn tree(root: &Path, rules: &str) {
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join("tests")).unwrap();
        fs::write(root.join("src/lib.rs"), "mod rules;").unwrap();
        fs::write(root.join("src/rules.rs"), rules).unwrap();
        fs::write(root.join("tests/it.rs"), "#[test] fn t() {}").unwrap();
    }

    fn of(root: &Path) -> String {
        trees(&[("eggcat-catalog", root)]).unwrap()
    }

    #[test]
    fn a_changed_rule_changes_the_fingerprint_and_the_place_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        tree(&a, "pub const LIMIT: u32 = 16;");
        tree(&b, "pub const LIMIT: u32 = 16;");
        assert_eq!(of(&a), of(&b), "same sources elsewhere, same key");
        fs::write(b.join("src/rules.rs"), "pub const LIMIT: u32 = 17;").unwrap();
        assert_ne!(of(&a), of(&b), "a changed rule invalidates");
        fs::write(b.join("src/rules.rs"), "pub const LIMIT: u32 = 16;").unwrap();
        assert_eq!(of(&a), of(&b));
        fs::write(b.join("src/extra.rs"), "").unwrap();
        assert_ne!(of(&a), of(&b), "an added file invalidates");
        fs::remove_file(b.join("src/extra.rs")).unwrap();
        fs::rename(b.join("src/rules.rs"), b.join("src/rule.rs")).unwrap();
        assert_ne!(of(&a), of(&b), "a renamed file invalidates");
    }

    #[test]
    fn tests_do_not_count_and_the_crate_name_does() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        tree(&a, "x");
        tree(&b, "x");
        fs::write(b.join("tests/it.rs"), "#[test] fn u() {}").unwrap();
        assert_eq!(of(&a), of(&b), "a test is not deriving code");
        let other = trees(&[("eggcat-web", &a)]).unwrap();
        assert_ne!(
            of(&a),
            other,
            "the same files in another crate are other code"
        );
        // Two roots are not one root with both trees' files.
        let both = trees(&[("eggcat-catalog", &a), ("eggcat-web", &b)]).unwrap();
        assert_ne!(both, of(&a));
    }
}
