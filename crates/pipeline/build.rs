//! The fingerprint of the code that derives anything from an upstream file (parsing, the checks,
//! the import files, the pages, the history documents): the crates named in [`DERIVING`], found
//! by package name through `cargo metadata` (no sibling path written down here), plus the
//! workspace's `Cargo.lock` (dependency versions). `DERIVATION_CODE` in `src/derivation.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The packages whose code derives the catalog's files from upstream files. `eggcat-wire` shapes
/// every published document (its serde attributes, its paths); the server's own answers
/// (`/readyz`, ...) live in `eggcat-server`, outside this list, so changing them reuses files.
const DERIVING: &[&str] = &[
    "eggcat-wire",
    "eggcat-egg",
    "eggcat-validate",
    "eggcat-panels",
    "eggcat-diff",
    "eggcat-catalog",
    "eggcat-web",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let cargo = std::env::var_os("CARGO").expect("cargo sets CARGO");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(manifest.join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    let mut roots: Vec<(String, PathBuf)> = Vec::new();
    for name in DERIVING {
        let package = meta["packages"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == *name))
            .unwrap_or_else(|| panic!("{name} is not a workspace package"));
        let path = Path::new(package["manifest_path"].as_str().expect("a manifest path"));
        roots.push((
            name.to_string(),
            path.parent().expect("a crate folder").to_path_buf(),
        ));
    }
    let workspace = Path::new(meta["workspace_root"].as_str().expect("a workspace root"));
    roots.push(("Cargo.lock".to_owned(), workspace.join("Cargo.lock")));
    for (_, root) in &roots {
        println!("cargo::rerun-if-changed={}", root.display());
    }
    let named: Vec<(&str, &Path)> = roots
        .iter()
        .map(|(n, p)| (n.as_str(), p.as_path()))
        .collect();
    let code = eggcat_fingerprint::trees(&named).expect("the deriving crates are readable");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let text = format!(
        "/// The fingerprint of the deriving code (written by build.rs).\npub(crate) const DERIVATION_CODE: &str = \"{code}\";\n"
    );
    std::fs::write(out.join("derivation.rs"), text).expect("OUT_DIR is writable");
}
