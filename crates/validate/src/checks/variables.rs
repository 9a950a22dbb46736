//! The egg's variables: each an object with a `name`, an `env_variable` the panels accept and
//! that no other variable of the egg uses, `rules` in Laravel's vocabulary with well-formed
//! arguments and regexes, and a `default_value` its own rules accept.
//!
//! Names: Pelican wants `alpha_dash`, 1 to 255 characters, not one of its reserved names (its
//! importer renames a reserved one with a `SERVER_` prefix, so that is a warning); Pterodactyl
//! wants `^\w{1,191}$` and refuses its own, shorter, reserved list. A PTDL egg meets both.

use std::collections::HashMap;

use eggcat_egg::panel::{
    PELICAN_MAX, PTERODACTYL_MAX, chars, is_alpha_dash, is_laravel_boolean, is_reserved_env_name,
};
use serde_json::{Map, Value};

use crate::default_value::check_value;
use crate::php_regex::{PhpRegexError, parse_php_regex};
use crate::rules::{Rule, RuleError, parse_rule, split_rules};
use crate::span::child;
use crate::vocab::{Code, Family, Finding, kind, missing, wrong_type};

pub(crate) fn check_variables(doc: &Map<String, Value>, fam: Family, out: &mut Vec<Finding>) {
    let items = match doc.get("variables") {
        None | Some(Value::Null) => return,
        Some(Value::Array(items)) => items,
        // Symfony YAML writes an empty list as `{  }`.
        Some(Value::Object(map)) if map.is_empty() => return,
        Some(v) => {
            out.push(wrong_type("/variables", "an array", v));
            return;
        }
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    // Each field that is no column: where it first appears, who refuses it, in how many.
    let mut no_columns: std::collections::BTreeMap<String, (String, &str, usize)> =
        std::collections::BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        let at = child("/variables", &i.to_string());
        let Value::Object(var) = item else {
            out.push(Finding::new(
                Code::WrongType,
                at,
                format!("variable {i} is {}, not an object", kind(item)),
            ));
            continue;
        };
        check_name_field(var, &at, fam, out);
        for key in var.keys() {
            if let Some(who) = no_column(key, fam) {
                let entry = no_columns
                    .entry(key.clone())
                    .or_insert((child(&at, key), who, 0));
                entry.2 += 1;
            }
        }
        if let Some(Value::String(name)) = var.get("name") {
            match names.get(name) {
                Some(first) => out.push(
                    Finding::new(
                        Code::DuplicateVariableName,
                        child(&at, "name"),
                        format!("`{name}` is also the name of variable {first}; Pelican refuses the egg"),
                    )
                    .help("Pelican's database keeps one variable of a name per egg (a unique index), so the import fails: rename one"),
                ),
                None => {
                    names.insert(name.clone(), i);
                }
            }
        }
        if let Some(env) = check_env_variable(var, &at, fam, out) {
            match seen.get(&env) {
                Some(first) => out.push(
                    Finding::new(
                        Code::DuplicateEnvVariable,
                        child(&at, "env_variable"),
                        format!(
                            "env_variable `{env}` is also the env_variable of variable {first}"
                        ),
                    )
                    .help("each variable needs its own env_variable; remove or rename one"),
                ),
                None => {
                    seen.insert(env, i);
                }
            }
        }
        for flag in ["user_viewable", "user_editable"] {
            if let Some(v) = var.get(flag)
                && !is_laravel_boolean(v)
            {
                out.push(wrong_type(&child(&at, flag), "a boolean", v));
            }
        }
        let rules = check_rules(var, &at, fam, out);
        check_default(var, &at, fam, &rules, out);
    }
    for (key, (pointer, who, n)) in no_columns {
        let (whose, help) = if n == 1 {
            (
                "a variable".to_owned(),
                format!("remove `{key}` from the variable"),
            )
        } else {
            (
                format!("{n} variables"),
                format!("remove `{key}` from every variable (the first is underlined)"),
            )
        };
        out.push(
            Finding::new(
                Code::NoSuchColumn,
                pointer,
                format!("`{key}` (in {whose}) is not a column of the panel's variables: {who}"),
            )
            .help(help),
        );
    }
}

/// Who refuses a variable field the importers would write to a column that does not exist
/// (the import fails), or `None` for a column. A PTDL egg goes to both panels; Pterodactyl has
/// no `sort`.
fn no_column(key: &str, fam: Family) -> Option<&'static str> {
    use eggcat_egg::panel::{PTERODACTYL_VARIABLE_COLUMNS, is_pelican_variable_column};
    if !is_pelican_variable_column(key) {
        Some("both panels refuse the egg (an unknown column)")
    } else if fam == Family::Ptdl && !PTERODACTYL_VARIABLE_COLUMNS.contains(&key) {
        Some("Pterodactyl refuses the egg (its variables have no such column; Pelican added it)")
    } else {
        None
    }
}

fn check_name_field(var: &Map<String, Value>, at: &str, fam: Family, out: &mut Vec<Finding>) {
    let max = if fam == Family::Ptdl {
        PTERODACTYL_MAX
    } else {
        PELICAN_MAX
    };
    match var.get("name") {
        Some(Value::String(n)) if n.is_empty() || n.chars().count() > max => {
            out.push(Finding::new(
                Code::MissingField,
                child(at, "name"),
                format!("the variable's `name` must be 1 to {max} characters long"),
            ))
        }
        Some(Value::String(_)) => {}
        None | Some(Value::Null) => out.push(missing(
            at,
            "name",
            "the panels require a name for every variable",
        )),
        Some(v) => out.push(wrong_type(&child(at, "name"), "a string", v)),
    }
    if let Some(d) = var.get("description")
        && !matches!(d, Value::String(_) | Value::Null)
    {
        out.push(wrong_type(&child(at, "description"), "a string", d));
    }
}

/// Checks `env_variable`; returns it when it is a string, for the uniqueness check.
fn check_env_variable(
    var: &Map<String, Value>,
    at: &str,
    fam: Family,
    out: &mut Vec<Finding>,
) -> Option<String> {
    let p = child(at, "env_variable");
    let env = match var.get("env_variable") {
        Some(Value::String(e)) => e,
        None | Some(Value::Null) => {
            out.push(missing(
                at,
                "env_variable",
                "the panels require one for every variable",
            ));
            return None;
        }
        Some(v) => {
            out.push(wrong_type(&p, "a string", v));
            return None;
        }
    };
    if !is_alpha_dash(env) || chars(env) > PELICAN_MAX {
        out.push(
            Finding::new(Code::InvalidEnvName, &p, format!("env_variable `{env}` is not a valid name: letters, digits, `_` and `-` only, 1 to {PELICAN_MAX} of them"))
                .help("use an upper-case name such as `SERVER_JARFILE`"),
        );
    } else if fam == Family::Ptdl && !eggcat_egg::panel::is_pterodactyl_env_name(env) {
        out.push(
            Finding::new(Code::InvalidEnvName, &p, format!("env_variable `{env}` is refused by Pterodactyl, which allows letters, digits and `_` only, 1 to {PTERODACTYL_MAX} of them"))
                .help("replace `-` with `_`"),
        );
    }
    if fam == Family::Ptdl
        && eggcat_egg::panel::PTERODACTYL_RESERVED_ENV_NAMES.contains(&env.as_str())
    {
        out.push(
            Finding::new(Code::ReservedByPterodactyl, &p, format!("env_variable `{env}` is reserved by Pterodactyl, which refuses the egg"))
                .help("the panel sets this variable itself; use it in the startup command without declaring it"),
        );
    } else if is_reserved_env_name(&env.to_uppercase()) {
        out.push(
            Finding::new(Code::ReservedByPelican, &p, format!("env_variable `{env}` is reserved by Pelican, which renames it `SERVER_{env}` on import"))
                .help("the panel sets this variable itself; pick another name or drop the variable"),
        );
    }
    Some(env.clone())
}

/// Parses the variable's rules, reporting what is wrong; returns the rules that parsed.
fn check_rules(
    var: &Map<String, Value>,
    at: &str,
    fam: Family,
    out: &mut Vec<Finding>,
) -> Vec<Rule> {
    let p = child(at, "rules");
    // (pointer of the piece, text)
    let pieces: Vec<(String, String)> = match var.get("rules") {
        Some(Value::String(s)) if s.trim().is_empty() && fam == Family::Ptdl => {
            out.push(
                Finding::new(
                    Code::MissingField,
                    &p,
                    "`rules` is empty; Pterodactyl refuses the egg (`rules: required|string`)",
                )
                .help("give the variable at least one rule, such as `nullable|string`"),
            );
            return Vec::new();
        }
        Some(Value::String(s)) => split_rules(s)
            .into_iter()
            .map(|r| (p.clone(), r.to_owned()))
            .collect(),
        Some(v @ Value::Array(items)) => {
            // Pterodactyl refuses a list; Pelican imports it, so its rules still judge the
            // default (Laravel's validator on the real corpus agrees only so).
            if fam == Family::Ptdl {
                out.push(wrong_type(&p, "a string (Pterodactyl's format)", v));
            }
            let mut pieces = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => pieces.push((child(&p, &i.to_string()), s.clone())),
                    v => out.push(wrong_type(&child(&p, &i.to_string()), "a string", v)),
                }
            }
            pieces
        }
        Some(Value::Object(m)) if m.is_empty() && fam == Family::Plcn => Vec::new(),
        None | Some(Value::Null) if fam == Family::Plcn => Vec::new(),
        None | Some(Value::Null) => {
            out.push(missing(
                at,
                "rules",
                "Pterodactyl requires a rules string (it may be empty)",
            ));
            return Vec::new();
        }
        Some(v) => {
            let expected = if fam == Family::Ptdl {
                "a string (Pterodactyl's format)"
            } else {
                "a string or an array"
            };
            out.push(wrong_type(&p, expected, v));
            return Vec::new();
        }
    };
    let mut rules = Vec::new();
    for (pointer, text) in pieces {
        match parse_rule(&text) {
            Ok(Some(rule)) => {
                if matches!(rule.name, "regex" | "not_regex") {
                    check_regex(&pointer, &text, &rule.args[0], out);
                }
                for f in out.iter_mut().rev().take_while(|f| f.pointer == pointer && f.needle.is_none()) {
                    f.needle = Some(text.clone());
                }
                rules.push(rule);
            }
            Ok(None) => {}
            Err(e @ RuleError::Unknown(_)) => out.push(
                Finding::new(Code::UnknownRule, pointer, e.to_string())
                    .needle(text.as_str())
                    .help("Laravel throws on an unknown rule when a server is saved: use one of Laravel's validation rules"),
            ),
            Err(e @ RuleError::Malformed { missing: true, .. }) => out.push(
                Finding::new(Code::RuleMissingArguments, pointer, e.to_string()).needle(text.as_str()).help("Laravel throws when a rule lacks its parameters, so saving a server fails"),
            ),
            Err(e @ RuleError::NoValues(_)) => out.push(
                Finding::new(Code::RuleMissingArguments, pointer, e.to_string()).needle(text.as_str()).help("Laravel does not throw, but no value passes, so no server can be saved: list the allowed values, as in `in:a,b`"),
            ),
            Err(e @ RuleError::Malformed { .. }) => out.push(Finding::new(Code::MisreadRuleArgument, pointer, e.to_string()).needle(text.as_str())),
        }
    }
    rules
}

fn check_regex(pointer: &str, text: &str, arg: &str, out: &mut Vec<Finding>) {
    let compiled = parse_php_regex(arg).and_then(|r| r.compile());
    match compiled {
        Ok(_) => {}
        Err(PhpRegexError::Unchecked(what)) => out.push(Finding::new(
            Code::UncheckedRegex,
            pointer,
            format!("regex `{arg}` uses {what}: the panel accepts it, but eggcat cannot judge a value against it"),
        )),
        Err(e) => {
            let mut f = Finding::new(Code::BadRegex, pointer, format!("rule `{text}`: {e}"));
            if matches!(e, PhpRegexError::Delimiter(_)) && !arg.starts_with(|c: char| c.is_alphanumeric()) {
                f = f.help("a `|` inside a regex splits the rules string: write the rules as an array (Pelican) or avoid `|` in the pattern");
            }
            if let PhpRegexError::DelimiterInPattern { delimiter, .. } = e {
                f = f.help(format!("escape the `{delimiter}` inside the pattern as `\\{delimiter}`, or use a delimiter the pattern does not contain, such as `#`"));
            }
            out.push(f);
        }
    }
}

fn check_default(
    var: &Map<String, Value>,
    at: &str,
    fam: Family,
    rules: &[Rule],
    out: &mut Vec<Finding>,
) {
    let p = child(at, "default_value");
    let value = match var.get("default_value") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => {
            out.push(missing(
                at,
                "default_value",
                "both panels store it in a column that cannot be empty: use \"\" for no default",
            ));
            return;
        }
        // Pelican's importer turns a boolean default into "true"/"false"; Pterodactyl stores
        // only strings.
        Some(Value::Bool(b)) if fam == Family::Plcn => b.to_string(),
        // Both panels validate `default_value` as `string` when the variable is saved, so a
        // number is refused, even the one Pelican's own YAML export writes for `"100"` (the
        // panels' code, run by crates/panels/tests/differential.rs). Judged as text below.
        Some(Value::Number(n)) => {
            out.push(
                wrong_type(
                    &p,
                    "text (both panels validate it as `string`)",
                    &Value::Number(n.clone()),
                )
                .help(format!("quote it: `\"{n}\"`")),
            );
            n.to_string()
        }
        Some(v) => {
            out.push(wrong_type(&p, "a string", v));
            return;
        }
    };
    for (_, why) in check_value(&value, rules) {
        if value.trim().is_empty() {
            out.push(
                Finding::new(Code::EmptyRequiredDefault, &p, format!("the default value is empty and the variable {}", why.trim_start_matches("is empty but the variable ")))
                    .help("fine when the admin must choose a value (a token, a password); otherwise give a default"),
            );
            continue;
        }
        let shown = if value.chars().count() > 60 {
            format!("{}…", value.chars().take(60).collect::<String>())
        } else {
            value.clone()
        };
        out.push(
            Finding::new(Code::DefaultBreaksRules, &p, format!("default value `{shown}` {why}"))
                .help("a new server gets this value; the panel refuses to save it until someone changes it"),
        );
    }
}
