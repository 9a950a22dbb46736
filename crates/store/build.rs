//! Fingerprints the code that derives anything from an upstream file (parsing, the checks, the
//! import files, the pages), so that a rebuild reuses what the previous snapshot derived (an
//! unchanged source's parsed eggs and diagnostics, an unchanged egg's import files and page)
//! only when the same code made it (see `derivation` in `src/rebuild.rs`). It hashes every file
//! under the folders below and `Cargo.lock` (dependency versions), in path order, with FNV-1a: a
//! cache key, not a security measure.

use std::fs;
use std::path::{Path, PathBuf};

/// What the derived files depend on, relative to this crate.
const INPUTS: &[&str] = &[
    "../egg/src",
    "../validate/src",
    "../panels/src",
    "../catalog/src",
    "../web/src",
    "../web/assets",
    "../../Cargo.lock",
];

fn main() {
    let mut files = Vec::new();
    for input in INPUTS {
        println!("cargo::rerun-if-changed={input}");
        collect(Path::new(input), &mut files);
    }
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let name = path.to_string_lossy();
        for b in name.as_bytes().iter().chain([0u8].iter()).chain(&bytes) {
            hash = (hash ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let code = format!(
        "/// The fingerprint of the deriving code (written by build.rs).\nconst DERIVATION_CODE: &str = \"{hash:016x}\";\n"
    );
    fs::write(out.join("derivation.rs"), code).expect("OUT_DIR is writable");
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let entries = fs::read_dir(path).unwrap_or_else(|e| panic!("list {}: {e}", path.display()));
        for entry in entries.flatten() {
            collect(&entry.path(), out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}
