//! The rules-string parser (`split_rules`, `parse_rule`) and the `regex:` rule's PHP pattern
//! (`parse_php_regex`, `to_rust`) on any text: no panic, and a pattern `to_rust` accepts is one
//! Rust's `regex` crate compiles (or refuses only for its size limit), since the checks rely on
//! that.
#![no_main]

use eggcat_validate::{parse_php_regex, parse_rule, split_rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(rules) = std::str::from_utf8(data) else {
        return;
    };
    let mut patterns = vec![rules.to_owned()];
    for piece in split_rules(rules) {
        if let Ok(Some(rule)) = parse_rule(piece)
            && rule.name == "regex"
            && let Some(arg) = rule.args.first()
        {
            patterns.push(arg.clone());
        }
    }
    for arg in &patterns {
        let Ok(Ok(rust)) = parse_php_regex(arg).map(|r| r.to_rust()) else {
            continue;
        };
        match regex::RegexBuilder::new(&rust).size_limit(1 << 20).build() {
            Ok(re) => {
                let _ = re.is_match(arg);
            }
            Err(regex::Error::CompiledTooBig(_)) => {}
            Err(e) => panic!("to_rust gave {rust:?}, which regex refuses: {e}"),
        }
    }
});
