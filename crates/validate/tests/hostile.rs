//! Hostile input: what the catalog refuses (byte-order mark, invalid UTF-8, deep nesting, an
//! alias bomb, duplicate keys, a document that is not an object) gives one diagnostic with a
//! position and no panic; huge files (50 MB, one 10 MB line, 100 000 variables) finish with a
//! bounded number of diagnostics. `bench/validate.sh` measures their time and memory.

use eggcat_validate::{MAX_DIAGNOSTICS, Severity, check_file, render_human};

fn codes(path: &str, bytes: &[u8]) -> Vec<String> {
    let diags = check_file(path, bytes);
    for d in &diags {
        if d.code != "E009" {
            assert!(d.line.is_some(), "{path}: {d:?} has no position");
        }
    }
    // Rendering must not panic either, whatever the bytes.
    let _ = render_human(path, &String::from_utf8_lossy(bytes), &diags, true);
    diags.into_iter().map(|d| d.code).collect()
}

/// A valid egg whose `description` is `description` and with `variables` variables, as
/// pretty (`newlines`) or one-line JSON.
fn egg(description: &str, variables: usize, newlines: bool) -> Vec<u8> {
    let vars: Vec<serde_json::Value> = (0..variables)
        .map(|i| {
            serde_json::json!({
                "name": format!("Variable {i}"), "description": "", "env_variable": format!("VAR_{i}"),
                "default_value": "x", "user_viewable": true, "user_editable": true, "rules": "required|numeric",
            })
        })
        .collect();
    let doc = serde_json::json!({
        "meta": {"version": "PTDL_v2"}, "name": "Huge", "author": "a@example.com",
        "description": description,
        "docker_images": {"a": "alpine:3"},
        "startup": "run",
        "config": {"files": "{}", "startup": "{\"done\": \"x\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": "", "container": "alpine:3", "entrypoint": "ash"}},
        "variables": vars,
    });
    if newlines {
        serde_json::to_vec_pretty(&doc).expect("serializes")
    } else {
        serde_json::to_vec(&doc).expect("serializes")
    }
}

#[test]
fn refused_files_give_one_positioned_diagnostic() {
    assert_eq!(codes("egg-a.json", b"\xef\xbb\xbf{}"), ["E001"]);
    assert_eq!(codes("egg-a.yaml", b"name: \"\xff\"\n"), ["E002"]);
    assert_eq!(codes("egg-a.json", b"{\"a\": }"), ["E003"]);
    assert_eq!(codes("egg-a.yaml", b"a: 1\na: 2\n"), ["E004"]);
    let nest = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert_eq!(codes("egg-a.json", nest(100_000).as_bytes()), ["E006"]);
    assert_eq!(codes("egg-a.yaml", nest(100_000).as_bytes()), ["E006"]);
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    assert_eq!(codes("egg-a.yaml", bomb.as_bytes()), ["E006"]);
    assert_eq!(codes("egg-a.json", b"[1, 2]"), ["E007"]);
    assert_eq!(codes("egg-a.yaml", b"just text"), ["E007"]);
    assert_eq!(codes("egg-a.json", b""), ["E003"]);
}

#[test]
fn duplicate_json_keys_are_a_warning_on_the_second_key() {
    let mut text = String::from_utf8(egg("d", 0, true)).expect("utf-8");
    text = text.replacen(
        "\"name\": \"Huge\",",
        "\"name\": \"Huge\",\n  \"name\": \"Again\",",
        1,
    );
    let diags = check_file("egg-a.json", text.as_bytes());
    let dup = diags
        .iter()
        .find(|d| d.code == "E005")
        .expect("E005 reported");
    assert_eq!(dup.severity, Severity::Warning);
    assert_eq!(
        dup.line,
        Some(
            text.lines()
                .position(|l| l.contains("Again"))
                .map(|i| i as u32 + 1)
                .expect("line")
        )
    );
}

#[test]
fn a_50_mb_file_is_checked_whole() {
    let bytes = egg(&"x".repeat(50 << 20), 1, true);
    // PTDL over Pterodactyl's 1000 KB upload limit; the one variable's default breaks
    // `numeric`, and nothing uses it.
    assert_eq!(codes("egg-a.json", &bytes), ["E008", "E041", "E034"]);
}

#[test]
fn a_10_mb_line_with_many_findings_stays_bounded() {
    let bytes = egg(&"y".repeat(10 << 20), 20_000, false);
    assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 0, "one line");
    let diags = check_file("egg-a.json", &bytes);
    assert_eq!(diags.len(), MAX_DIAGNOSTICS + 1);
    assert_eq!(diags[MAX_DIAGNOSTICS].code, "E009");
    assert!(diags[..MAX_DIAGNOSTICS].iter().all(|d| d.line == Some(1)));
}

#[test]
fn a_100_000_variable_egg_finishes() {
    let bytes = egg("d", 100_000, true);
    let diags = check_file("egg-a.json", &bytes);
    assert_eq!(diags.len(), MAX_DIAGNOSTICS + 1);
    // Each variable's default breaks `numeric` (E034) and nothing uses it (E041); the file is
    // also over Pterodactyl's upload limit (E008). The warnings are kept first.
    assert!(
        diags[..MAX_DIAGNOSTICS]
            .iter()
            .all(|d| d.code == "E034" || d.code == "E041")
    );
    assert_eq!(
        diags[MAX_DIAGNOSTICS].message,
        format!(
            "{} more diagnostics left out; fix these first",
            200_001 - MAX_DIAGNOSTICS
        )
    );
}
