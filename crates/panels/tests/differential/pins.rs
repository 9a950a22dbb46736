//! The panels' source (`../shared/panels-src`) is the one at the pinned commits: every file the
//! folder holds is, byte for byte, the file of that path at its panel's commit, and nothing is
//! missing or added. `panels-src.txt` beside this file lists the commits and git's object id of
//! each file there; the commits must also be the ones `../shared/panels-src/README.md` names.
//! Without this, a folder updated, patched or half copied would make the differential test
//! prove its agreement against some other panel than the one docs/panels.md names.

use std::collections::BTreeMap;
use std::path::Path;

use sha1::{Digest, Sha1};

/// The manifest: `pin FOLDER REPOSITORY COMMIT` lines and `BLOB PATH` lines.
const MANIFEST: &str = include_str!("panels-src.txt");

/// What in `panels_src` is not as the manifest says, one line each (empty when it is).
pub(crate) fn mismatches(panels_src: &Path) -> Vec<String> {
    let mut pins = Vec::new();
    let mut want = BTreeMap::new();
    for line in MANIFEST.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split(' ').collect();
        match fields.as_slice() {
            ["pin", folder, repository, commit] => pins.push((*folder, *repository, *commit)),
            [blob, ..] if blob.len() == 40 => {
                let path = &line[41..];
                want.insert(path.to_owned(), (*blob).to_owned());
            }
            _ => panic!("panels-src.txt: a line that is neither a pin nor a file: {line}"),
        }
    }
    let mut problems = readme_pins(panels_src, &pins);
    let mut have = BTreeMap::new();
    for (folder, _, _) in &pins {
        files(&panels_src.join(folder), folder, &mut have);
    }
    for (path, blob) in &want {
        match have.remove(path) {
            None => problems.push(format!("{path}: missing")),
            Some(got) if &got != blob => problems.push(format!(
                "{path}: not the file at the pinned commit (git object {got}, pinned {blob})"
            )),
            Some(_) => {}
        }
    }
    for path in have.keys() {
        problems.push(format!(
            "{path}: not in the pinned file list (panels-src.txt)"
        ));
    }
    problems
}

/// The pins the README's table names, against the manifest's.
fn readme_pins(panels_src: &Path, pins: &[(&str, &str, &str)]) -> Vec<String> {
    let readme = panels_src.join("README.md");
    let Ok(text) = std::fs::read_to_string(&readme) else {
        return vec![format!(
            "{}: missing (it names the pinned commits)",
            readme.display()
        )];
    };
    let mut problems = Vec::new();
    for (folder, repository, commit) in pins {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| `{folder}/` |")));
        match row {
            Some(row) if row.contains(repository) && row.contains(commit) => {}
            Some(row) => problems.push(format!(
                "README.md pins {folder}/ otherwise than panels-src.txt ({repository} at {commit}): {row}"
            )),
            None => problems.push(format!("README.md has no row for {folder}/")),
        }
    }
    problems
}

/// Every file under `dir`, keyed by its path from panels-src (`prefix/...`), with git's object
/// id of its bytes (`sha1("blob LEN\0" + bytes)`, what `git hash-object` prints).
fn files(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let entry = entry.expect("a folder entry of panels-src");
        let path = entry.path();
        let name = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        if path.is_dir() {
            files(&path, &name, out);
        } else {
            let bytes = std::fs::read(&path).expect("a file of panels-src");
            let mut hash = Sha1::new();
            hash.update(format!("blob {}\0", bytes.len()).as_bytes());
            hash.update(&bytes);
            let id: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
            out.insert(name, id);
        }
    }
}
