//! The codes, the checks and the documentation agree: every code of the table ([`Code`]) is
//! emitted by some check, run on real inputs, and documented in `docs/validate.md`, both in
//! the table of "The checks" with its severity and in the detailed sections; and the reverse,
//! a code the documentation names that is not in the table fails. A check cannot emit a code
//! outside the table: findings are built from a `Code`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use eggcat_validate::{
    CatalogEgg, Code, RegistryAnswer, check_catalog, check_download_answers, check_file,
    check_registry_answers,
};

fn docs() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/validate.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn table() -> BTreeMap<String, String> {
    Code::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.severity().as_str().to_owned()))
        .collect()
}

/// The rows of the table under `## The checks`: code -> severity.
fn documented_rows(docs: &str) -> BTreeMap<String, String> {
    let section = docs
        .split("\n## The checks\n")
        .nth(1)
        .expect("docs/validate.md has a section `## The checks`");
    let mut rows = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        let Some(row) = line.strip_prefix('|') else {
            break;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if cells[0] == "code" || cells[0].starts_with("---") {
            continue;
        }
        let previous = rows.insert(cells[0].to_owned(), cells[1].to_owned());
        assert!(previous.is_none(), "{} has two rows", cells[0]);
    }
    rows
}

/// Every word of the text that looks like a code: `E` and three digits, not inside a longer
/// word.
fn code_words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices('E') {
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let digits = &text[i + 1..];
        if digits.len() >= 3
            && digits.as_bytes()[..3].iter().all(u8::is_ascii_digit)
            && !word(text[..i].chars().next_back())
            && !word(digits[3..].chars().next())
        {
            out.insert(text[i..i + 4].to_owned());
        }
    }
    out
}

#[test]
fn the_table_of_the_docs_is_the_table_of_the_code() {
    let docs = docs();
    let documented = documented_rows(&docs);
    let table = table();
    for (code, severity) in &table {
        assert_eq!(
            documented.get(code),
            Some(severity),
            "{code} ({severity}) has no row in docs/validate.md's table, or another severity"
        );
    }
    for code in documented.keys() {
        assert!(
            table.contains_key(code),
            "docs/validate.md documents {code}, which no check has"
        );
    }
}

#[test]
fn every_code_is_explained_in_the_docs_and_the_docs_name_no_other() {
    let docs = docs();
    for code in Code::ALL {
        assert!(
            docs.contains(&format!("**{code}**")),
            "{code} has no entry (**{code}**) in the sections of docs/validate.md"
        );
    }
    let table = table();
    for word in code_words(&docs) {
        assert!(
            table.contains_key(&word),
            "docs/validate.md names {word}, which no check has"
        );
    }
}

/// A PTDL egg with `variables` variables whose default breaks `numeric` and that nothing uses,
/// and a `description` of `padding` bytes.
fn generated_egg(variables: usize, padding: usize) -> Vec<u8> {
    let vars: Vec<serde_json::Value> = (0..variables)
        .map(|i| {
            serde_json::json!({
                "name": format!("Variable {i}"), "description": "", "env_variable": format!("VAR_{i}"),
                "default_value": "x", "user_viewable": true, "user_editable": true,
                "rules": "required|numeric",
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "meta": {"version": "PTDL_v2"}, "name": "Generated", "author": "a@example.com",
        "description": "x".repeat(padding),
        "docker_images": {"a": "alpine:3"},
        "startup": "run",
        "config": {"files": "{}", "startup": "{\"done\": \"x\"}", "logs": "{}", "stop": "stop"},
        "variables": vars,
    }))
    .expect("serializes")
}

#[test]
fn every_code_is_emitted_by_a_check() {
    let mut emitted = BTreeSet::new();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for entry in std::fs::read_dir(&data).expect("tests/data exists") {
        let dir = entry.expect("readable entry").path();
        for input in ["egg.json", "egg.yaml"] {
            let path = dir.join(input);
            if let Ok(bytes) = std::fs::read(&path) {
                let shown = path.display().to_string();
                emitted.extend(check_file(&shown, &bytes).into_iter().map(|d| d.code));
            }
        }
    }
    // What needs generated input: a file over Pterodactyl's 1000 KB (E008), one with more
    // findings than the cap (E009), and two eggs of one uuid (E017).
    let big = check_file("egg-big.json", &generated_egg(1, 1_100_000));
    let many = check_file("egg-many.json", &generated_egg(150, 0));
    emitted.extend(big.into_iter().chain(many).map(|d| d.code));
    let egg = |path| CatalogEgg {
        path,
        uuid: Some("6dfb0986-d542-47a4-aea6-c89255926d64"),
        text: None,
    };
    for diags in check_catalog(&[egg("a/egg-a.json"), egg("b/egg-b.json")]) {
        emitted.extend(diags.into_iter().map(|d| d.code));
    }
    // What the registries answer (`--images`): given answers, as the catalog's IO crate gives.
    let answer = |image: &str| {
        Some(if image.starts_with("alpine") {
            RegistryAnswer::Missing("manifest unknown".to_owned())
        } else {
            RegistryAnswer::Unknown("timed out".to_owned())
        })
    };
    let mut egg: serde_json::Value =
        serde_json::from_slice(&generated_egg(1, 0)).expect("generated JSON");
    egg["scripts"] = serde_json::json!({"installation": {"container": "debian:12", "entrypoint": "bash", "script": "true"}});
    let bytes = serde_json::to_vec(&egg).expect("serializes");
    let asked = check_registry_answers("egg-images.json", &bytes, &answer);
    emitted.extend(asked.into_iter().map(|d| d.code));
    // What the hosts answer (`--downloads`).
    egg["scripts"]["installation"]["script"] =
        serde_json::json!("curl -o a https://h.example/a.zip\nwget https://h.example/b.zip");
    let bytes = serde_json::to_vec(&egg).expect("serializes");
    let hosts = |url: &str| {
        Some(if url.ends_with("a.zip") {
            RegistryAnswer::Missing("the host answered 404".to_owned())
        } else {
            RegistryAnswer::Unknown("no answer within 10 s".to_owned())
        })
    };
    let asked = check_download_answers("egg-downloads.json", &bytes, &hosts);
    emitted.extend(asked.into_iter().map(|d| d.code));
    let all: BTreeSet<String> = Code::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    let never: Vec<&String> = all.difference(&emitted).collect();
    assert!(never.is_empty(), "no check emitted {never:?}");
    let unknown: Vec<&String> = emitted.difference(&all).collect();
    assert!(
        unknown.is_empty(),
        "checks emitted codes not in the table: {unknown:?}"
    );
}
