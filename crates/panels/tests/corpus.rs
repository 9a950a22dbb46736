//! Every egg of the real corpus (`../shared/upstream`) through the panels, step by step:
//! Pelican imports our `pelican.yaml` / `pelican.json` by URL, its daily update check exports
//! the egg it made and compares with our file (Up-to-date), and after the upstream egg changes
//! it compares with our new file (Found update); `pterodactyl.json` passes Pterodactyl's import
//! checks and converts back to `pelican.json` except the losses it names; and, with PHP
//! installed, Symfony's own YAML parser and PHP's `json_decode` read our files back to exactly
//! the values the panel's export has.

use std::io::Write;
use std::path::{Path, PathBuf};

use eggcat_panels::{Target, pelican, php, pterodactyl, variants};
use serde_json::Value;

/// The real corpus (`../shared/upstream`, beside the checkout) for a test that needs it: the one
/// place that decides between running, skipping and failing. A plain clone has no `../shared`,
/// so the test is skipped (`None`) with one line on stderr naming it; in strict mode
/// (`EGGCAT_CORPUS=require`, which CI's `.ci/run` sets) a missing corpus fails the test instead,
/// so that a CI run without the corpus can never pass for one that covered it.
fn corpus() -> Option<PathBuf> {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/upstream"
    ));
    let strict = match std::env::var("EGGCAT_CORPUS") {
        Ok(v) if v == "require" => true,
        Ok(v) if !v.is_empty() => panic!("EGGCAT_CORPUS is `{v}`: set it to `require` or unset it"),
        _ => false,
    };
    if dir.is_dir() {
        return Some(dir.to_path_buf());
    }
    assert!(
        !strict,
        "EGGCAT_CORPUS=require but the real corpus is missing: {} is not a folder",
        dir.display()
    );
    skip_test("needs ../shared/upstream (the real corpus)");
    None
}

/// Says, on one line, that the running test is skipped and why. Written to stderr directly: the
/// test harness captures `eprintln!` of a passing test, and a skip nobody sees would pass for
/// coverage.
fn skip_test(why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let _ = writeln!(std::io::stderr().lock(), "skipped: {test}: {why}");
}

/// Every egg file of the corpus with its parsed upstream value (files eggcat skips are skipped).
fn eggs(dir: &Path) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Some(syntax) = eggcat_egg::SyntaxKind::from_file_name(&name)
                && name.contains("egg-")
            {
                let bytes = std::fs::read(&path).unwrap();
                if let Ok(parsed) = eggcat_egg::parse(&bytes, syntax) {
                    let rel = path.strip_prefix(dir).unwrap().display().to_string();
                    out.push((rel, parsed.value));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn target(rel: &str) -> (String, [String; 3]) {
    let base = format!(
        "https://eggcat.example/api/v1/eggs/{}",
        rel.replace('/', "-")
    );
    (
        eggcat_panels::stable_uuid(rel),
        [
            format!("{base}/pelican.yaml"),
            format!("{base}/pelican.json"),
            format!("{base}/pterodactyl.json"),
        ],
    )
}

fn with<T>(rel: &str, f: impl FnOnce(&Target<'_>) -> T) -> T {
    let (uuid, [y, j, p]) = target(rel);
    f(&Target {
        uuid: &uuid,
        pelican_yaml_url: &y,
        pelican_json_url: &j,
        pterodactyl_url: &p,
        exported_at: "2026-01-01T00:00:00+00:00",
    })
}

/// The update check's comparison: both sides parsed, `exported_at` dropped, compared as PHP
/// arrays (`md5(json_encode(...))`).
fn same_for_the_check(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = php::normalize(v);
        if let Some(m) = v.as_object_mut() {
            m.shift_remove("exported_at");
        }
        v
    };
    strip(a) == strip(b)
}

/// What the panel's daily check says for an egg imported from `file` (parsed), against
/// `published` (the file at the update URL now, parsed). `yaml`: the URL ends in .yaml.
fn check(file: &Value, published: &Value, yaml: bool) -> &'static str {
    let local = pelican::import(file).expect("the panel imported the file");
    let mut export = pelican::export(&local, "2026-02-02T00:00:00+00:00");
    if yaml {
        export = pelican::yaml_export(&export);
    }
    if same_for_the_check(&export, published) {
        "Up-to-date"
    } else {
        "Found update"
    }
}

fn parse_yaml(bytes: &[u8]) -> Value {
    eggcat_egg::parse(bytes, eggcat_egg::SyntaxKind::Yaml)
        .expect("our YAML parses")
        .value
}

#[test]
fn pelican_update_check_and_pterodactyl_round_trip_on_every_corpus_egg() {
    let Some(dir) = corpus() else {
        return;
    };
    let eggs = eggs(&dir);
    assert!(eggs.len() > 600, "the corpus has {} eggs", eggs.len());
    let (mut pelican_ok, mut ptero_ok, mut round_trips, mut refused) = (0, 0, 0, 0);
    for (rel, upstream) in &eggs {
        let v = with(rel, |t| variants(upstream, t));
        let (Some(yaml), Some(json), Some(ptdl)) =
            (&v.pelican_yaml, &v.pelican_json, &v.pterodactyl_json)
        else {
            // Pelican's own import throws on this egg: no file, and the reason is given.
            assert!(
                !v.pelican.importable && !v.pelican.problems.is_empty(),
                "{rel}"
            );
            assert!(
                v.pelican_yaml.is_none() && v.pterodactyl_json.is_none(),
                "{rel}"
            );
            eprintln!("not convertible: {rel}: {}", v.pelican.problems.join("; "));
            refused += 1;
            continue;
        };
        pelican_ok += usize::from(v.pelican.importable);
        ptero_ok += usize::from(v.pterodactyl.importable);

        // Imported by URL, checked the next day: up to date, in both formats.
        let yaml_file = parse_yaml(yaml);
        let json_file: Value = serde_json::from_slice(json).unwrap();
        assert_eq!(
            check(&yaml_file, &yaml_file, true),
            "Up-to-date",
            "{rel} (yaml)"
        );
        assert_eq!(
            check(&json_file, &json_file, false),
            "Up-to-date",
            "{rel} (json)"
        );
        let (_, [yaml_url, json_url, _]) = target(rel);
        assert_eq!(yaml_file["meta"]["update_url"], yaml_url.as_str());
        assert_eq!(json_file["meta"]["update_url"], json_url.as_str());
        assert_eq!(yaml_file["uuid"], target(rel).0.as_str());

        // The upstream install script changes, eggcat rebuilds: the check finds the update.
        let mut changed = upstream.clone();
        let script = &mut changed["scripts"]["installation"]["script"];
        *script = Value::String(format!("{}\necho changed", script.as_str().unwrap_or("")));
        let v2 = with(rel, |t| variants(&changed, t));
        let new_yaml = parse_yaml(v2.pelican_yaml.as_ref().unwrap());
        let new_json: Value = serde_json::from_slice(v2.pelican_json.as_ref().unwrap()).unwrap();
        assert_eq!(check(&yaml_file, &new_yaml, true), "Found update", "{rel}");
        assert_eq!(check(&json_file, &new_json, false), "Found update", "{rel}");

        // pterodactyl.json: Pterodactyl's parser takes it; Pelican converts it back to
        // pelican.json except what the losses name.
        let ptdl: Value = serde_json::from_slice(ptdl).unwrap();
        assert_eq!(ptdl["meta"]["version"], "PTDL_v2");
        assert!(
            ptdl["startup"].is_string() || !v.pterodactyl.importable,
            "{rel}"
        );
        if v.pterodactyl.importable {
            assert!(pterodactyl::problems(&ptdl, ptdl.to_string().len()).is_empty());
        }
        let back = pterodactyl::back_to_pelican(&ptdl).expect("Pelican imports pterodactyl.json");
        let mut back = pelican::export(&back, "x");
        let mut want = pelican::export(&pelican::import(&json_file).unwrap(), "x");
        for v in [&mut back, &mut want] {
            v["meta"]["update_url"] = Value::Null;
        }
        let losses = v.pterodactyl.losses.join(" ");
        if losses.contains("icon") {
            want["icon"] = Value::Null;
        }
        if losses.contains("tags") {
            want["tags"] = serde_json::json!([]);
        }
        if losses.contains("`sort`") {
            for var in want["variables"].as_array_mut().unwrap() {
                var["sort"] = Value::Null;
            }
        }
        if losses.contains("empty `rules`") {
            for var in want["variables"].as_array_mut().unwrap() {
                if var["rules"] == serde_json::json!([]) {
                    var["rules"] = serde_json::json!([""]);
                }
            }
        }
        if losses.contains("startup command") {
            let chosen = ptdl["startup"].clone();
            want["startup_commands"] = serde_json::json!({ "Default": chosen });
        }
        assert!(
            same_for_the_check(&php::normalize(&back), &php::normalize(&want)),
            "{rel}: pterodactyl.json does not convert back to pelican.json\nback: {back}\nwant: {want}"
        );
        round_trips += 1;
    }
    eprintln!(
        "{} corpus eggs: Pelican importable {pelican_ok}, Pterodactyl importable {ptero_ok}, round trips {round_trips}, not convertible {refused}",
        eggs.len()
    );
    // The update check and the round trip held for every egg Pelican can import at all.
    assert_eq!(round_trips + refused, eggs.len());
    assert!(refused * 100 < eggs.len(), "{refused} eggs not convertible");
}

/// The real parsers: Symfony's `Yaml::parse` and PHP's `json_decode`, batched in one PHP
/// process over every corpus egg.
#[test]
fn symfony_and_php_read_our_files_back_to_the_panels_values() {
    let Some(dir) = corpus() else {
        return;
    };
    let require = std::env::var("EGGCAT_PHP").is_ok_and(|v| v == "require");
    let autoload = Path::new("/usr/share/php/Symfony/Component/Yaml/autoload.php");
    let php_ok = std::process::Command::new("php")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !php_ok || !autoload.exists() {
        assert!(
            !require,
            "EGGCAT_PHP=require but php-cli or php-symfony-yaml is missing"
        );
        skip_test(
            "needs php-cli and php-symfony-yaml (apt-get install php-cli php-symfony-yaml; EGGCAT_PHP=require fails instead)",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for (rel, upstream) in eggs(&dir) {
        let (v, values) = with(&rel, |t| {
            (
                variants(&upstream, t),
                eggcat_panels::pelican_values(&upstream, t),
            )
        });
        let (Some(yaml), Some(json), Some((want_yaml, want_json))) =
            (v.pelican_yaml, v.pelican_json, values)
        else {
            continue;
        };
        let base = tmp.path().join(format!("{n:04}"));
        std::fs::write(base.with_extension("yaml"), yaml).unwrap();
        std::fs::write(base.with_extension("json"), json).unwrap();
        std::fs::write(
            base.with_extension("want-yaml"),
            serde_json::to_vec(&want_yaml).unwrap(),
        )
        .unwrap();
        std::fs::write(
            base.with_extension("want-json"),
            serde_json::to_vec(&want_json).unwrap(),
        )
        .unwrap();
        std::fs::write(base.with_extension("name"), &rel).unwrap();
        n += 1;
    }
    let script = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/php/compare.php"
    ));
    let out = std::process::Command::new("php")
        .arg(script)
        .arg(tmp.path())
        .arg(autoload)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "PHP found differences:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&format!("compared {n} eggs")), "{stdout}");
    eprintln!("{}", stdout.trim());
}
