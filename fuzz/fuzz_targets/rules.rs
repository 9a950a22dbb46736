//! The rules-string parser (`split_rules`, `parse_rule`) and the `regex:` rule's PHP pattern
//! (`parse_php_regex`, then `compile` with PCRE2 and `preg_match`) on any text: no panic, and
//! a pattern that compiles is matched against the text itself and the whole input in bounded
//! time (PHP's backtrack limit holds), since the checks match every default against its rules.
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
            && matches!(rule.name, "regex" | "not_regex")
            && let Some(arg) = rule.args.first()
        {
            patterns.push(arg.clone());
        }
    }
    for arg in &patterns {
        let Ok(Ok(compiled)) = parse_php_regex(arg).map(|r| r.compile()) else {
            continue;
        };
        let _ = compiled.preg_match(arg);
        let _ = compiled.preg_match(rules);
    }
});
