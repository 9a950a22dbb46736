//! The inputs the fuzz target `egg_parse` (fuzz/fuzz_targets/egg_parse.rs) found failing, kept
//! as regression tests: each file of tests/fuzz/egg_parse/ is one input in the target's own
//! shape (the first byte picks the syntax: even JSON, odd YAML), named after the bug it pinned.
//! Each must hold the target's property (a file that parses gives the same egg printed as JSON
//! and parsed again); an `alias-bomb-*` file must be refused by the node budget.

use eggcat_egg::{SyntaxKind, parse};

#[test]
fn fuzz_inputs_hold_the_targets_property() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/egg_parse");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz/egg_parse is committed") {
        let path = entry.expect("a readable entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let data = std::fs::read(&path).expect("a readable file");
        let Some((&pick, file)) = data.split_first() else {
            continue;
        };
        let syntax = if pick % 2 == 0 {
            SyntaxKind::Json
        } else {
            SyntaxKind::Yaml
        };
        let parsed = parse(file, syntax);
        if name.starts_with("alias-bomb-") {
            let e = parsed.expect_err(name);
            assert!(e.to_string().contains("limit on nodes"), "{name}: {e}");
        } else if let Ok(parsed) = parsed {
            let printed = serde_json::to_vec(&parsed.value).expect("a value prints");
            let again = parse(&printed, SyntaxKind::Json).expect(name);
            assert_eq!(again.value, parsed.value, "{name}");
        }
        seen += 1;
    }
    assert!(
        seen >= 1,
        "the regression inputs are missing from {}",
        dir.display()
    );
}
