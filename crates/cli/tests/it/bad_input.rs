//! Hostile and broken upstream files: each is reported with a precise reason, and every other egg
//! is still indexed.

use crate::support::*;

const GOOD: usize = 6;

fn hostile_repo(root: &std::path::Path) -> Repo {
    let repo = Repo::init(root.join("hostile"), "main");
    // The good ones, including awkward paths and two files that want one slug.
    repo.write("ok/egg-fine.json", egg_json("Fine"))
        .write("with space/c#/egg-zürich.json", egg_json("Zürich"))
        .write("twins/a/egg-twin.json", egg_json("Twin A"))
        .write("twins/b/egg-twin.json", egg_json("Twin B"))
        .write(
            "dups/egg-dup-keys.json",
            r#"{"meta":{"version":"PTDL_v2"},"name":"First","name":"Dup"}"#,
        )
        .write("ok/egg-yaml-ok.yaml", egg_yaml("Yaml Ok"));
    // The bad ones.
    repo.write(
        "bad/egg-malformed.json",
        "{\"meta\": {\"version\": \"PTDL_v2\"}, \"name\": ",
    )
    .write("bad/egg-malformed.yaml", "meta: [unclosed\nname: x\n")
    .write("bad/egg-array.json", "[1, 2]")
    .write("bad/egg-scalar.yaml", "just a string\n")
    .write("bad/egg-no-version.json", r#"{"name":"x","meta":{}}"#)
    .write(
        "bad/egg-unknown-version.json",
        r#"{"name":"x","meta":{"version":"EGG_v9"}}"#,
    )
    .write("bad/egg-no-name.json", r#"{"meta":{"version":"PTDL_v2"}}"#)
    .write(
        "bad/egg-deep.json",
        format!("{}{}", "[".repeat(200), "]".repeat(200)),
    )
    .write("bad/egg-bomb.yaml", alias_bomb())
    .write(
        "bad/egg-dup.yaml",
        "meta:\n  version: PLCN_v3\nname: a\nname: b\n",
    )
    .write(
        "bad/egg-latin1.json",
        b"{\"meta\":{\"version\":\"PTDL_v2\"},\"name\":\"caf\xe9\"}".as_slice(),
    )
    .write("bad/egg-bom.json", format!("\u{feff}{}", egg_json("Bom")))
    .write("bad/egg-huge.json", vec![b' '; 16 * 1024 * 1024 + 1]);
    std::os::unix::fs::symlink("/etc/passwd", repo.dir.join("bad/egg-link.json")).unwrap();
    write_not_utf8(&repo.dir.join("bad"), &egg_json("Latin"));
    let commit = repo.commit("files");
    // A submodule entry (a gitlink), added without cloning anything.
    git(
        &repo.dir,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{commit},vendored"),
        ],
    );
    git(&repo.dir, &["commit", "-q", "-m", "submodule"]);
    repo
}

/// `egg-\xff.json` in `dir`: a file name that is not UTF-8, with `content`.
fn write_not_utf8(dir: &std::path::Path, content: &str) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"egg-\xff.json");
    std::fs::write(dir.join(name), content).unwrap();
}

/// What the report says of a file whose path is not UTF-8.
const NOT_UTF8: &str =
    "the file's path is not UTF-8 (shown with U+FFFD for each byte that is not): not read";

fn alias_bomb() -> String {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        let refs = vec![format!("*a{p}"); 10].join(", ");
        bomb.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    bomb
}

/// A plain folder read without git: a file whose name is not UTF-8 is reported and skipped, the
/// folder's other eggs indexed (the source failed whole: the lossy name could not be opened).
#[test]
fn a_file_name_that_is_not_utf8_is_skipped_in_a_plain_folder_too() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("plain");
    std::fs::create_dir_all(folder.join("d")).unwrap();
    std::fs::write(folder.join("d/egg-ok.json"), egg_json("Ok")).unwrap();
    write_not_utf8(&folder.join("d"), &egg_json("Latin"));
    let out = build(
        &tmp.path().join("data"),
        vec![source(folder.to_str().unwrap(), "o", "plain")],
        &Clock::new(0),
    );
    assert_eq!(out.report.eggs, 1, "{:#?}", out.report);
    assert_eq!(
        skipped(&out.report),
        [("d/egg-\u{fffd}.json".to_owned(), NOT_UTF8.to_owned())]
    );
}

#[test]
fn every_bad_file_is_reported_and_every_good_egg_indexed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = hostile_repo(tmp.path());
    let out = build(
        &tmp.path().join("data"),
        vec![source(&repo.url(), "o", "hostile")],
        &Clock::new(0),
    );
    assert_eq!(out.report.eggs, GOOD, "{:#?}", out.report);

    let skipped = skipped(&out.report);
    let reason = |path: &str| {
        skipped
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, r)| r.as_str())
            .unwrap_or_else(|| panic!("{path} not reported: {skipped:#?}"))
    };
    assert!(
        reason("bad/egg-malformed.json")
            .starts_with("invalid JSON: EOF while parsing a value at line 1")
    );
    assert!(reason("bad/egg-malformed.yaml").starts_with("invalid YAML: "));
    assert_eq!(
        reason("bad/egg-array.json"),
        "document is an array, not an object"
    );
    assert_eq!(
        reason("bad/egg-scalar.yaml"),
        "document is a string, not an object"
    );
    assert_eq!(
        reason("bad/egg-no-version.json"),
        "no format version: `meta.version` is missing or not a string"
    );
    assert_eq!(
        reason("bad/egg-unknown-version.json"),
        "unknown format version `EGG_v9` (expected PTDL_vN or PLCN_vN)"
    );
    assert_eq!(
        reason("bad/egg-no-name.json"),
        "no name: `name` is missing, not a string, or blank"
    );
    assert_eq!(
        reason("bad/egg-deep.json"),
        "invalid JSON: nesting deeper than 127 levels (line 1, column 128)"
    );
    assert!(
        reason("bad/egg-bomb.yaml").starts_with("invalid YAML: "),
        "{}",
        reason("bad/egg-bomb.yaml")
    );
    assert!(
        reason("bad/egg-dup.yaml")
            .to_lowercase()
            .contains("duplicate"),
        "{}",
        reason("bad/egg-dup.yaml")
    );
    assert_eq!(
        reason("bad/egg-latin1.json"),
        "file is not valid UTF-8 (first bad byte at offset 41)"
    );
    assert_eq!(
        reason("bad/egg-bom.json"),
        "file starts with a byte-order mark (U+FEFF); save it as UTF-8 without BOM"
    );
    assert_eq!(
        reason("bad/egg-huge.json"),
        "file is 16777217 bytes, over the limit of 16777216 bytes (16 MiB)"
    );
    assert_eq!(reason("bad/egg-link.json"), "symbolic link: not followed");
    assert_eq!(reason("vendored"), "submodule: not followed");
    assert_eq!(reason("bad/egg-\u{fffd}.json"), NOT_UTF8);
    assert_eq!(skipped.len(), 16, "{skipped:#?}");

    // Duplicate JSON keys: indexed as the panel would import it, with a warning.
    let dup = egg_doc(&out, "hostile-dup-keys");
    assert_eq!(
        dup["egg"].to_string(),
        r#"{"meta":{"version":"PTDL_v2"},"name":"Dup"}"#
    );
    assert_eq!(out.report.warnings.len(), 1);
    assert_eq!(out.report.warnings[0].path, "dups/egg-dup-keys.json");
    assert!(
        out.report.warnings[0]
            .message
            .starts_with("duplicate key `name`")
    );

    // Awkward paths: indexed, with the raw URL percent-encoded segment by segment.
    let zurich = egg_doc(&out, "hostile-z-rich");
    assert_eq!(zurich["meta"]["path"], "with space/c#/egg-zürich.json");
    assert!(
        zurich["meta"]["rawUrl"]
            .as_str()
            .unwrap()
            .ends_with("/with%20space/c%23/egg-z%C3%BCrich.json")
    );
    assert_eq!(zurich["meta"]["category"], "with space");

    // Two files that want one slug both get one.
    assert_eq!(
        egg_doc(&out, "hostile-twins-a-twin")["egg"]["name"],
        "Twin A"
    );
    assert_eq!(
        egg_doc(&out, "hostile-twins-b-twin")["egg"]["name"],
        "Twin B"
    );
}
