//! Scanning one source: from the entries of an upstream tree to parsed eggs, READMEs, and the
//! files that were skipped with the reason why.
//!
//! Architecture invariant: one bad file never fails a scan. Every file whose name looks like an
//! egg is either an egg in the output or a skipped entry ([`Problem`]) with a reason.

use std::collections::{BTreeMap, HashMap};

use eggcat_egg::SyntaxKind;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::name::display_name;
use crate::wire::{Diagnostic, Problem};
pub use eggcat_wire::{EntryKind, MAX_FILE_SIZE, TreeEntry};

/// An egg that parsed, with everything the catalog keeps of it.
#[derive(Debug, Clone)]
pub struct ParsedEgg {
    /// Path inside the repository.
    pub path: String,
    /// The display name (see [`display_name`]).
    pub name: String,
    /// `meta.version` of the egg.
    pub format: String,
    /// Hex SHA-256 of the upstream file's bytes.
    pub sha256: String,
    /// The egg as compact JSON, keys in document order.
    pub egg: Box<RawValue>,
    /// The README of the egg's folder.
    pub readme: Option<String>,
    /// What `eggcat validate` finds in the file (positions in the upstream file).
    pub diagnostics: Vec<Diagnostic>,
    /// The normalized references of the images it names ([`crate::images::references`]): what
    /// the registries are asked about.
    pub images: Vec<String>,
    /// The install downloads that can be asked ([`crate::downloads::urls`]): what their hosts
    /// are asked about.
    pub downloads: Vec<String>,
}

/// The result of scanning one source.
#[derive(Debug, Clone, Default)]
pub struct SourceScan {
    /// The eggs, in path order.
    pub eggs: Vec<ParsedEgg>,
    /// Files that look like eggs but are not indexed, with the reason, in path order.
    pub skipped: Vec<Problem>,
    /// Things that did not stop a file from being indexed but need a maintainer's eye.
    pub warnings: Vec<Problem>,
}

/// Whether a file name is an egg's: it contains `egg-` and ends in `.json`, `.yaml` or `.yml`
/// (any case).
pub fn is_egg_file_name(file_name: &str) -> bool {
    file_name.contains("egg-") && SyntaxKind::from_file_name(file_name).is_some()
}

/// The indices of the entries whose content [`scan`] needs: egg files and the READMEs of their
/// folders, regular files within [`MAX_FILE_SIZE`].
pub fn needs_content(entries: &[TreeEntry]) -> Vec<usize> {
    let egg_folders: std::collections::HashSet<&str> = entries
        .iter()
        .filter(|e| is_egg_location(&e.path))
        .map(|e| split(&e.path).0)
        .collect();
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EntryKind::File && e.size <= MAX_FILE_SIZE)
        .filter(|(_, e)| {
            let (folder, file) = split(&e.path);
            is_egg_location(&e.path) || (is_readme_name(file) && egg_folders.contains(folder))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Parses every egg file of one source. `entries` must hold the contents [`needs_content`] asked
/// for; an entry missing its content is skipped with a reason.
pub fn scan(entries: &[TreeEntry]) -> SourceScan {
    let mut out = SourceScan::default();
    let readmes = ReadmeIndex::new(entries);
    let mut readme_texts: HashMap<&str, Option<String>> = HashMap::new();

    let mut sorted: Vec<&TreeEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    // The egg files are parsed and checked on every core; the loop below takes the results in
    // path order.
    let egg_files: Vec<&TreeEntry> = sorted
        .iter()
        .copied()
        .filter(|e| {
            e.kind != EntryKind::Submodule
                && is_egg_file_name(split(&e.path).1)
                && hidden_folder(&e.path).is_none()
        })
        .collect();
    let mut parsed = crate::par::map(&egg_files, |e| parse_egg(e)).into_iter();
    for entry in sorted {
        let (folder, file) = split(&entry.path);
        if entry.kind == EntryKind::Submodule {
            out.skipped
                .push(problem(&entry.path, "submodule: not followed"));
            continue;
        }
        if !is_egg_file_name(file) {
            continue;
        }
        if let Some(hidden) = hidden_folder(&entry.path) {
            let reason = format!("in the hidden folder `{hidden}`: not an egg location");
            out.skipped.push(problem(&entry.path, &reason));
            continue;
        }
        match parsed.next().expect("one result for each egg file") {
            Ok((mut egg, warnings)) => {
                out.warnings
                    .extend(warnings.iter().map(|w| problem(&entry.path, w)));
                egg.readme = readme_texts
                    .entry(folder)
                    .or_insert_with(|| readmes.read(folder, &mut out.warnings))
                    .clone();
                out.eggs.push(egg);
            }
            Err(reason) => out.skipped.push(problem(&entry.path, &reason.to_string())),
        }
    }
    out
}

/// Why a file that looks like an egg is skipped; its text is the report's message.
#[derive(Debug, thiserror::Error)]
enum Skip {
    #[error("symbolic link: not followed")]
    Symlink,
    #[error("the file's path is not UTF-8 (shown with U+FFFD for each byte that is not): not read")]
    NotUtf8,
    #[error("file is {0} bytes, over the limit of {MAX_FILE_SIZE} bytes (16 MiB)")]
    TooLarge(u64),
    #[error("file content was not read")]
    NotRead,
    #[error("not a JSON or YAML file name")]
    NotJsonOrYaml,
    /// The parser's message, whole.
    #[error("{0}")]
    Parse(eggcat_egg::ParseError),
    #[error("{0}")]
    NotAnEgg(eggcat_egg::ShapeError),
}

fn parse_egg(entry: &TreeEntry) -> Result<(ParsedEgg, Vec<String>), Skip> {
    match entry.kind {
        EntryKind::Symlink => return Err(Skip::Symlink),
        EntryKind::NotUtf8 => return Err(Skip::NotUtf8),
        EntryKind::File | EntryKind::Submodule => {}
    }
    if entry.size > MAX_FILE_SIZE {
        return Err(Skip::TooLarge(entry.size));
    }
    let bytes = entry.content.as_deref().ok_or(Skip::NotRead)?;
    let (_, file) = split(&entry.path);
    let syntax = SyntaxKind::from_file_name(file).ok_or(Skip::NotJsonOrYaml)?;
    // One parse, with the positions the checks place their findings at.
    let (parsed, spans) = eggcat_egg::parse_with_spans(bytes, syntax).map_err(Skip::Parse)?;
    let info = eggcat_egg::inspect(&parsed.value).map_err(Skip::NotAnEgg)?;
    let compact = serde_json::to_string(&parsed.value).expect("a JSON value always serializes");
    let egg = RawValue::from_string(compact).expect("serde_json output is valid JSON");
    let egg = ParsedEgg {
        path: entry.path.clone(),
        name: display_name(&info.name, file),
        format: info.format,
        sha256: hex_sha256(bytes),
        egg,
        readme: None,
        // Every egg is checked, and a finding never stops it from being published.
        diagnostics: eggcat_validate::check_parsed(bytes, syntax, &parsed, &spans),
        images: crate::images::references(&parsed.value),
        downloads: crate::downloads::urls(&parsed.value),
    };
    Ok((egg, parsed.warnings))
}

/// Lower-case hex SHA-256.
pub(crate) fn hex_sha256(bytes: &[u8]) -> String {
    crate::hex(&Sha256::digest(bytes))
}

fn problem(path: &str, message: &str) -> Problem {
    Problem {
        path: path.to_owned(),
        message: message.to_owned(),
    }
}

/// READMEs by folder: every regular file named `README.md` in any case.
struct ReadmeIndex<'a> {
    by_folder: BTreeMap<&'a str, Vec<&'a TreeEntry>>,
}

impl<'a> ReadmeIndex<'a> {
    fn new(entries: &'a [TreeEntry]) -> Self {
        let mut by_folder: BTreeMap<&str, Vec<&TreeEntry>> = BTreeMap::new();
        for e in entries.iter().filter(|e| e.kind == EntryKind::File) {
            let (folder, file) = split(&e.path);
            if is_readme_name(file) {
                by_folder.entry(folder).or_default().push(e);
            }
        }
        ReadmeIndex { by_folder }
    }

    /// The README text of `folder`: exactly `README.md` when present, else the first other
    /// spelling in byte order. Invalid UTF-8 is replaced (U+FFFD) with a warning; a leading
    /// byte-order mark is dropped.
    fn read(&self, folder: &str, warnings: &mut Vec<Problem>) -> Option<String> {
        let candidates = self.by_folder.get(folder)?;
        let chosen = candidates
            .iter()
            .min_by_key(|e| (split(&e.path).1 != "README.md", split(&e.path).1))?;
        if chosen.size > MAX_FILE_SIZE {
            warnings.push(problem(
                &chosen.path,
                &format!(
                    "README is {} bytes, over the 16 MiB limit: ignored",
                    chosen.size
                ),
            ));
            return None;
        }
        let bytes = chosen.content.as_deref()?;
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        match String::from_utf8_lossy(bytes) {
            std::borrow::Cow::Borrowed(text) => Some(text.to_owned()),
            std::borrow::Cow::Owned(text) => {
                warnings.push(problem(
                    &chosen.path,
                    "README is not valid UTF-8: invalid bytes replaced with U+FFFD",
                ));
                Some(text)
            }
        }
    }
}

/// An egg file name outside a hidden folder.
fn is_egg_location(path: &str) -> bool {
    is_egg_file_name(split(path).1) && !in_hidden_folder(path)
}

fn is_readme_name(file: &str) -> bool {
    file.eq_ignore_ascii_case("readme.md")
}

/// (folder, file name); the folder of a file at the root is "".
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

fn hidden_folder(path: &str) -> Option<&str> {
    let (folder, _) = split(path);
    folder.split('/').find(|f| f.starts_with('.'))
}

fn in_hidden_folder(path: &str) -> bool {
    hidden_folder(path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const EGG: &str = r#"{"meta":{"version":"PTDL_v2"},"name":"Paper"}"#;

    fn file(path: &str, content: &str) -> TreeEntry {
        TreeEntry {
            path: path.into(),
            kind: EntryKind::File,
            size: content.len() as u64,
            content: Some(content.as_bytes().to_vec()),
        }
    }

    fn reasons(scan: &SourceScan) -> Vec<(String, String)> {
        scan.skipped
            .iter()
            .map(|p| (p.path.clone(), p.message.clone()))
            .collect()
    }

    #[test]
    fn egg_file_names() {
        assert!(is_egg_file_name("egg-paper.json"));
        assert!(is_egg_file_name("pterodactyl-egg-paper.YAML"));
        assert!(is_egg_file_name("egg-x.yml"));
        assert!(!is_egg_file_name("egg-x.txt"));
        assert!(!is_egg_file_name("paper.json"));
        assert!(!is_egg_file_name("Egg-paper.json"));
    }

    #[test]
    fn needs_content_selects_eggs_and_their_readmes_only() {
        let mut entries = vec![
            file("a/egg-x.json", EGG),
            file("a/README.md", "a"),
            file("b/README.md", "b"),
            file(".github/egg-request.yml", "x"),
            file("LICENSE", "mit"),
        ];
        entries.push(TreeEntry {
            path: "c/egg-big.json".into(),
            kind: EntryKind::File,
            size: MAX_FILE_SIZE + 1,
            content: None,
        });
        entries.push(TreeEntry {
            path: "c/egg-link.json".into(),
            kind: EntryKind::Symlink,
            size: 5,
            content: None,
        });
        assert_eq!(needs_content(&entries), [0, 1]);
    }

    #[test]
    fn every_rejected_candidate_is_reported_with_its_reason() {
        let entries = vec![
            file("ok/egg-ok.json", EGG),
            file(".github/ISSUE_TEMPLATE/egg-request.yml", "name: x"),
            file("bad/egg-broken.json", "{"),
            file("bad/egg-array.json", "[]"),
            TreeEntry {
                path: "bad/egg-link.json".into(),
                kind: EntryKind::Symlink,
                size: 9,
                content: None,
            },
            TreeEntry {
                path: "sub".into(),
                kind: EntryKind::Submodule,
                size: 0,
                content: None,
            },
            TreeEntry {
                path: "bad/egg-huge.json".into(),
                kind: EntryKind::File,
                size: MAX_FILE_SIZE + 1,
                content: None,
            },
        ];
        let scan = scan(&entries);
        assert_eq!(scan.eggs.len(), 1);
        let r = reasons(&scan);
        assert_eq!(r.len(), 6, "{r:#?}");
        assert_eq!(
            r[0],
            (
                ".github/ISSUE_TEMPLATE/egg-request.yml".into(),
                "in the hidden folder `.github`: not an egg location".into()
            )
        );
        assert_eq!(r[1].0, "bad/egg-array.json");
        assert_eq!(r[1].1, "document is an array, not an object");
        assert_eq!(r[2].0, "bad/egg-broken.json");
        assert!(
            r[2].1
                .starts_with("invalid JSON: EOF while parsing an object"),
            "{}",
            r[2].1
        );
        assert_eq!(
            r[3],
            (
                "bad/egg-huge.json".into(),
                format!(
                    "file is {} bytes, over the limit of 16777216 bytes (16 MiB)",
                    MAX_FILE_SIZE + 1
                )
            )
        );
        assert_eq!(
            r[4],
            (
                "bad/egg-link.json".into(),
                "symbolic link: not followed".into()
            )
        );
        assert_eq!(r[5], ("sub".into(), "submodule: not followed".into()));
    }

    #[test]
    fn readme_prefers_the_exact_name_and_replaces_invalid_utf8() {
        let mut entries = vec![
            file("a/egg-x.json", EGG),
            file("a/readme.md", "lower"),
            file("a/README.md", "exact"),
            file("b/egg-y.json", EGG),
            file("b/README.MD", "x"),
            file("c/egg-z.json", EGG),
        ];
        entries[4].content = Some(b"caf\xe9".to_vec());
        let scan = scan(&entries);
        let readme: Vec<Option<&str>> = scan.eggs.iter().map(|e| e.readme.as_deref()).collect();
        assert_eq!(readme, [Some("exact"), Some("caf\u{fffd}"), None]);
        assert_eq!(scan.warnings.len(), 1);
        assert_eq!(scan.warnings[0].path, "b/README.MD");
    }

    #[test]
    fn egg_is_compact_and_faithful() {
        let text = "{\n  \"name\": \"Pa/per é\",\n  \"meta\": {\"version\": \"PLCN_v3\", \"update_url\": null},\n  \"z\": [1, 2.5]\n}\n";
        let scan = scan(&[file("egg-x.json", text)]);
        let egg = &scan.eggs[0];
        assert_eq!(
            egg.egg.get(),
            r#"{"name":"Pa/per é","meta":{"version":"PLCN_v3","update_url":null},"z":[1,2.5]}"#
        );
        assert_eq!(egg.format, "PLCN_v3");
        assert_eq!(egg.sha256, hex_sha256(text.as_bytes()));
        assert_eq!(egg.sha256.len(), 64);
    }
}
