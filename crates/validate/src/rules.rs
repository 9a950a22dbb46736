//! Laravel's validation rules, as the panels apply them to a variable's value: the one grammar
//! of a rules string in eggcat. `split_rules` splits it, [`read_rule`] reads one rule's name
//! and arguments, [`parse_rule`] checks the arguments too, [`measures_numbers`] says how sizes
//! are measured; the vocabulary holds every rule name Laravel accepts with the arguments each
//! needs. The checks, the egg page's words for a variable (`eggcat-web`) and `eggcat diff`
//! all read rules through it; a value is judged against them in `default_value.rs`.
//!
//! Laravel reads a rule name by turning it into StudlyCase and calling `validate<Name>`; PHP
//! method names ignore case, so `alpha_dash`, `alphaDash` and `alpha-dash` are one rule, and
//! `int` and `bool` are aliases of `integer` and `boolean` (`ValidationRuleParser::normalizeRule`,
//! present in every Laravel version both panels run). Arguments are split with `str_getcsv`,
//! except for `regex` and `not_regex`, which take everything after the first colon.

/// One parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The canonical snake_case name (`alpha_dash`, `integer` for `int`).
    pub name: &'static str,
    /// The arguments after the colon.
    pub args: Vec<String>,
}

/// Why a rule is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// Laravel has no rule of this name: validating a value throws. The message names the
    /// closest rule when the name looks like a typo of one ("did you mean `string`?").
    #[error("unknown validation rule `{0}`{hint}", hint = did_you_mean(.0))]
    Unknown(String),
    /// The rule's arguments are missing, too many, or not numbers.
    #[error("rule `{rule}` {reason}")]
    Malformed {
        /// The rule as written.
        rule: String,
        /// What is wrong with its arguments.
        reason: String,
        /// Arguments are missing (Laravel throws); otherwise they are extra or not numbers
        /// (Laravel ignores or misreads them).
        missing: bool,
    },
    /// A rule that lists the values it accepts lists none: Laravel does not throw, the rule
    /// refuses every value (`validateIn` looks the value up in an empty list).
    #[error("rule `{0}` lists no values, so it refuses every value")]
    NoValues(String),
}

/// How many arguments a rule takes, and of what kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Args {
    None,
    /// Any number, including none (`email:rfc,dns`, `array:keys`).
    Optional,
    /// Exactly one number.
    Number,
    /// Exactly two numbers.
    TwoNumbers,
    /// One or two numbers (`decimal`).
    OneOrTwoNumbers,
    /// At least one argument of any kind.
    AtLeastOne,
    /// The values it accepts (`in:a,b`); with none, Laravel refuses every value.
    Values,
    /// At least two (`required_if:field,value`).
    AtLeastTwo,
    /// One pattern (`regex`).
    Pattern,
    /// One argument: a field name or a number (`gt`, `after`, `same`).
    One,
}

/// Every rule Laravel 10 to 12 accepts as a string, with its arguments. `enum` is not one:
/// Laravel's `Enum` rule is an object (`Rule::enum(...)`), and `enum:...` in a string throws
/// like any unknown name.
const VOCABULARY: &[(&str, Args)] = &[
    ("accepted", Args::None),
    ("accepted_if", Args::AtLeastTwo),
    ("active_url", Args::None),
    ("after", Args::One),
    ("after_or_equal", Args::One),
    ("alpha", Args::Optional),
    ("alpha_dash", Args::Optional),
    ("alpha_num", Args::Optional),
    ("array", Args::Optional),
    ("ascii", Args::None),
    ("bail", Args::None),
    ("before", Args::One),
    ("before_or_equal", Args::One),
    ("between", Args::TwoNumbers),
    ("boolean", Args::Optional),
    ("confirmed", Args::Optional),
    ("contains", Args::AtLeastOne),
    ("current_password", Args::Optional),
    ("date", Args::None),
    ("date_equals", Args::One),
    ("date_format", Args::AtLeastOne),
    ("decimal", Args::OneOrTwoNumbers),
    ("declined", Args::None),
    ("declined_if", Args::AtLeastTwo),
    ("different", Args::One),
    ("digits", Args::Number),
    ("digits_between", Args::TwoNumbers),
    ("dimensions", Args::AtLeastOne),
    ("distinct", Args::Optional),
    ("doesnt_contain", Args::Optional),
    ("doesnt_end_with", Args::AtLeastOne),
    ("doesnt_start_with", Args::AtLeastOne),
    ("email", Args::Optional),
    ("encoding", Args::One),
    ("ends_with", Args::AtLeastOne),
    ("exclude", Args::None),
    ("exclude_if", Args::AtLeastTwo),
    ("exclude_unless", Args::AtLeastTwo),
    ("exclude_with", Args::One),
    ("exclude_without", Args::One),
    ("exists", Args::AtLeastOne),
    ("extensions", Args::AtLeastOne),
    ("file", Args::None),
    ("filled", Args::None),
    ("gt", Args::One),
    ("gte", Args::One),
    ("hex_color", Args::None),
    ("image", Args::Optional),
    ("in", Args::Values),
    ("in_array", Args::One),
    ("in_array_keys", Args::Values),
    ("integer", Args::Optional),
    ("ip", Args::None),
    ("ipv4", Args::None),
    ("ipv6", Args::None),
    ("json", Args::None),
    ("list", Args::None),
    ("lowercase", Args::None),
    ("lt", Args::One),
    ("lte", Args::One),
    ("mac_address", Args::None),
    ("max", Args::Number),
    ("max_digits", Args::Number),
    ("mimes", Args::AtLeastOne),
    ("mimetypes", Args::AtLeastOne),
    ("min", Args::Number),
    ("min_digits", Args::Number),
    ("missing", Args::None),
    ("missing_if", Args::AtLeastTwo),
    ("missing_unless", Args::AtLeastTwo),
    ("missing_with", Args::AtLeastOne),
    ("missing_with_all", Args::AtLeastOne),
    ("multiple_of", Args::Number),
    ("not_in", Args::AtLeastOne),
    ("not_regex", Args::Pattern),
    ("nullable", Args::None),
    ("numeric", Args::Optional),
    ("present", Args::None),
    ("present_if", Args::AtLeastTwo),
    ("present_unless", Args::AtLeastTwo),
    ("present_with", Args::AtLeastOne),
    ("present_with_all", Args::AtLeastOne),
    ("prohibited", Args::None),
    ("prohibited_if", Args::AtLeastTwo),
    ("prohibited_if_accepted", Args::One),
    ("prohibited_if_declined", Args::One),
    ("prohibited_unless", Args::AtLeastTwo),
    ("prohibits", Args::AtLeastOne),
    ("regex", Args::Pattern),
    ("required", Args::None),
    ("required_array_keys", Args::AtLeastOne),
    ("required_if", Args::AtLeastTwo),
    ("required_if_accepted", Args::One),
    ("required_if_declined", Args::One),
    ("required_unless", Args::AtLeastTwo),
    ("required_with", Args::AtLeastOne),
    ("required_with_all", Args::AtLeastOne),
    ("required_without", Args::AtLeastOne),
    ("required_without_all", Args::AtLeastOne),
    ("same", Args::One),
    ("size", Args::Number),
    ("sometimes", Args::None),
    ("starts_with", Args::AtLeastOne),
    ("string", Args::None),
    ("timezone", Args::Optional),
    ("ulid", Args::None),
    ("unique", Args::AtLeastOne),
    ("uppercase", Args::None),
    ("url", Args::Optional),
    ("uuid", Args::Optional),
];

/// Splits a rules string on `|`, as both panels do (Pelican's importer with `explode`,
/// Laravel's parser for Pterodactyl). Empty pieces are kept: Laravel skips them, and so do we.
pub fn split_rules(rules: &str) -> Vec<&str> {
    rules.split('|').collect()
}

/// Reads one rule as Laravel reads it before it looks at the arguments: the name (its
/// canonical form) and the arguments split. An empty rule is `Ok(None)`: Laravel skips it; a
/// name Laravel has no rule of is [`RuleError::Unknown`]. The egg page's words and `eggcat
/// diff` read rules so; the checks go on with [`parse_rule`].
pub fn read_rule(text: &str) -> Result<Option<Rule>, RuleError> {
    let (name, arg) = match text.split_once(':') {
        Some((n, a)) => (n.trim(), Some(a)),
        None => (text.trim(), None),
    };
    if name.is_empty() {
        return Ok(None);
    }
    let key = normalize(name);
    let canonical = match key.as_str() {
        "int" => "integer",
        "bool" => "boolean",
        k => VOCABULARY
            .iter()
            .find(|(n, _)| n.chars().filter(|&c| c != '_').eq(k.chars()))
            .map(|(n, _)| *n)
            .ok_or_else(|| RuleError::Unknown(name.to_owned()))?,
    };
    let args: Vec<String> = match (kind(canonical), arg) {
        (_, None) => Vec::new(),
        (Args::Pattern, Some(a)) => vec![a.to_owned()],
        (_, Some(a)) => csv(a),
    };
    Ok(Some(Rule {
        name: canonical,
        args,
    }))
}

/// Parses one rule and checks its arguments as Laravel would use them. An empty rule is
/// `Ok(None)`: Laravel skips it.
pub fn parse_rule(text: &str) -> Result<Option<Rule>, RuleError> {
    let Some(Rule {
        name: canonical,
        args,
    }) = read_rule(text)?
    else {
        return Ok(None);
    };
    let kind = kind(canonical);
    let needed = match kind {
        Args::Number
        | Args::One
        | Args::Pattern
        | Args::AtLeastOne
        | Args::Values
        | Args::OneOrTwoNumbers => 1,
        Args::TwoNumbers | Args::AtLeastTwo => 2,
        Args::None | Args::Optional => 0,
    };
    let malformed = |reason: &str| RuleError::Malformed {
        rule: text.to_owned(),
        reason: reason.to_owned(),
        missing: args.len() < needed,
    };
    let numbers = args.iter().all(|a| is_number(a));
    match kind {
        Args::None if !args.is_empty() => Err(malformed("takes no arguments")),
        Args::Number if args.len() != 1 || !numbers => {
            Err(malformed("needs one number, as in `max:64`"))
        }
        Args::TwoNumbers if args.len() != 2 || !numbers => {
            Err(malformed("needs two numbers, as in `between:1,10`"))
        }
        Args::OneOrTwoNumbers if !(1..=2).contains(&args.len()) || !numbers => {
            Err(malformed("needs one or two numbers"))
        }
        Args::AtLeastOne | Args::One | Args::Pattern if args.is_empty() => {
            Err(malformed("needs an argument"))
        }
        Args::Values if args.is_empty() => Err(RuleError::NoValues(text.to_owned())),
        Args::AtLeastTwo if args.len() < 2 => Err(malformed("needs at least two arguments")),
        Args::One if args.len() != 1 => Err(malformed("takes exactly one argument")),
        _ => Ok(Some(Rule {
            name: canonical,
            args,
        })),
    }
}

/// Whether Laravel measures a numeric value by its number rather than its length under these
/// rules (`min`, `max`, `size`, `between`, `gt`...): when one of them is in its
/// `numericRules`, `numeric`, `integer` (or `int`) and, since Laravel 10, `decimal`.
pub fn measures_numbers(rules: &[Rule]) -> bool {
    rules
        .iter()
        .any(|r| matches!(r.name, "numeric" | "integer" | "decimal"))
}

/// The kind of arguments a rule of the vocabulary takes.
fn kind(canonical: &str) -> Args {
    VOCABULARY
        .iter()
        .find(|(n, _)| *n == canonical)
        .map(|(_, a)| *a)
        .unwrap_or(Args::Optional)
}

/// `: did you mean `rule`?` for a name that is a likely typo of a rule Laravel accepts (or of
/// `int` and `bool`), else nothing. Names are compared the way Laravel reads them
/// ([`normalize`]), so `alphaDsh` suggests `alpha_dash`; a likely typo is at most one edit
/// (insertion, deletion, substitution, or swap of two neighbours) per three characters.
fn did_you_mean(name: &str) -> String {
    let typed = normalize(name);
    let most = (typed.chars().count() / 3).max(1);
    VOCABULARY
        .iter()
        .map(|(n, _)| *n)
        .chain(["int", "bool"])
        .map(|n| (strsim::osa_distance(&typed, &normalize(n)), n))
        .filter(|&(d, _)| d <= most)
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| format!(": did you mean `{n}`?"))
        .unwrap_or_default()
}

/// Laravel's view of a name: StudlyCase, compared as PHP compares method names (ignoring
/// case), so underscores, dashes and spaces vanish and case does not matter.
fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// PHP's `str_getcsv` with its defaults, enough for rule arguments: commas separate, double
/// quotes group.
fn csv(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().expect("never empty").push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

/// PHP's `is_numeric`: optional whitespace, a sign, digits with an optional fraction, an
/// optional exponent, trailing whitespace.
pub(crate) fn is_number(text: &str) -> bool {
    let t = text.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Result<Option<Rule>, RuleError> {
        parse_rule(text)
    }

    #[test]
    fn names_are_read_the_way_laravel_reads_them() {
        assert_eq!(rule("alphaDash").unwrap().unwrap().name, "alpha_dash");
        assert_eq!(rule("notIn:a,b").unwrap().unwrap().name, "not_in");
        assert_eq!(rule("int").unwrap().unwrap().name, "integer");
        assert_eq!(rule("bool").unwrap().unwrap().name, "boolean");
        assert_eq!(rule(" required ").unwrap().unwrap().name, "required");
        assert_eq!(rule(""), Ok(None));
        assert_eq!(rule("requird"), Err(RuleError::Unknown("requird".into())));
        assert_eq!(rule("float"), Err(RuleError::Unknown("float".into())));
    }

    #[test]
    fn an_unknown_rule_names_the_rule_it_is_likely_a_typo_of() {
        let message = |text: &str| rule(text).unwrap_err().to_string();
        assert_eq!(
            message("strin"),
            "unknown validation rule `strin`: did you mean `string`?"
        );
        assert_eq!(
            message("requird"),
            "unknown validation rule `requird`: did you mean `required`?"
        );
        assert_eq!(
            message("alphaDsh"),
            "unknown validation rule `alphaDsh`: did you mean `alpha_dash`?"
        );
        assert_eq!(
            message("nullabel:x"),
            "unknown validation rule `nullabel`: did you mean `nullable`?"
        );
        // Nothing close: no guess.
        assert_eq!(message("float"), "unknown validation rule `float`");
        assert_eq!(message("enum:A"), "unknown validation rule `enum`");
    }

    #[test]
    fn arguments_are_checked() {
        assert_eq!(rule("in:a,\"b,c\"").unwrap().unwrap().args, ["a", "b,c"]);
        assert_eq!(rule("regex:/^a,b$/").unwrap().unwrap().args, ["/^a,b$/"]);
        assert_eq!(rule("between:1,10").unwrap().unwrap().args, ["1", "10"]);
        for bad in [
            "max",
            "max:x",
            "max:1,2",
            "between:1",
            "required:1",
            "digits_between:a,b",
        ] {
            assert!(
                matches!(rule(bad), Err(RuleError::Malformed { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn rules_of_laravel_12() {
        for (text, name) in [
            ("doesnt_contain:a,b", "doesnt_contain"),
            ("doesnt_contain", "doesnt_contain"),
            ("in_array_keys:a", "in_array_keys"),
            ("encoding:UTF-8", "encoding"),
            ("prohibited_if_accepted:other", "prohibited_if_accepted"),
            ("prohibitedIfDeclined:other", "prohibited_if_declined"),
        ] {
            assert_eq!(rule(text).unwrap().unwrap().name, name, "{text}");
        }
        for missing in [
            "encoding",
            "prohibited_if_accepted",
            "prohibited_if_declined",
        ] {
            assert!(
                matches!(
                    rule(missing),
                    Err(RuleError::Malformed { missing: true, .. })
                ),
                "{missing}"
            );
        }
        // `Rule::enum(...)` is an object; `enum:` in a rules string is an unknown rule.
        assert_eq!(
            rule("enum:App\\Enums\\Status"),
            Err(RuleError::Unknown("enum".into()))
        );
    }

    // Regression: a bare `in` was reported as Laravel throwing; `validateIn` does not check
    // its parameter count, it refuses every value.
    #[test]
    fn bare_in_refuses_every_value() {
        assert_eq!(rule("in"), Err(RuleError::NoValues("in".into())));
        assert_eq!(
            rule("in_array_keys"),
            Err(RuleError::NoValues("in_array_keys".into()))
        );
        assert_eq!(rule("in:a").unwrap().unwrap().args, ["a"]);
    }

    #[test]
    fn php_is_numeric() {
        for yes in ["1", "-1.5", " 2", "2 ", ".5", "5.", "1e3", "+0", "1E-2"] {
            assert!(is_number(yes), "{yes}");
        }
        for no in ["", "abc", "1a", ".", "1e", "0x1A", "1 2", "--1"] {
            assert!(!is_number(no), "{no}");
        }
    }
}
