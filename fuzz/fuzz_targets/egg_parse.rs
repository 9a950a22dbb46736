//! Egg file parsing (`eggcat_egg::parse`), JSON and YAML: no panic, no hang, memory bounded
//! (libFuzzer's `-rss_limit_mb` and `-timeout`, set by bench/fuzz.sh), and a file that parses
//! gives the same egg when printed as JSON (as the catalog republishes it) and parsed again.
//!
//! The first byte picks the syntax (even: JSON, odd: YAML), the rest is the file.
#![no_main]

use eggcat_egg::{SyntaxKind, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let syntax = if pick % 2 == 0 {
        SyntaxKind::Json
    } else {
        SyntaxKind::Yaml
    };
    let Ok(parsed) = parse(file, syntax) else {
        return;
    };
    for printed in [
        serde_json::to_vec(&parsed.value).expect("a parsed value prints"),
        serde_json::to_vec_pretty(&parsed.value).expect("a parsed value prints"),
    ] {
        let again = parse(&printed, SyntaxKind::Json).unwrap_or_else(|e| {
            panic!(
                "printed egg does not parse again: {e}\n{}",
                String::from_utf8_lossy(&printed)
            )
        });
        assert_eq!(
            again.value, parsed.value,
            "printed and parsed again, the egg changed"
        );
        assert!(again.warnings.is_empty(), "printed egg has duplicate keys");
    }
});
