//! The variables, matched by `env_variable`. A variable only in the old egg and one only in the
//! new egg that agree on everything else are a rename. Then each field of a matched variable:
//! name, description, default, rules, viewable, editable (`sort` and `field_type` are display
//! details and are not compared, nor is the order of the list).
//!
//! Whether a default passes its rules is judged by `eggcat validate`'s own check (E034, E035:
//! the rules Laravel applies to a value without a database), run on a one-variable egg.

use eggcat_validate::{Code, Diagnostic, check_text, read_rule};
use serde_json::{Value, json};

use crate::general::{opt, prose_eq};
use crate::model::{Model, Variable};
use crate::{Change, Kind, Make};

/// Every change in the variables: removed and renamed (old order), added (new order), then the
/// changed fields of each variable kept (new order).
pub(crate) fn changes(a: &Model, b: &Model, out: &mut Vec<Change>) {
    let in_b = |env: &str| b.variables.iter().find(|v| v.env == env);
    let in_a = |env: &str| a.variables.iter().find(|v| v.env == env);
    let mut fresh: Vec<&Variable> = b
        .variables
        .iter()
        .filter(|v| in_a(&v.env).is_none())
        .collect();
    for old in a.variables.iter().filter(|v| in_b(&v.env).is_none()) {
        let path = ["variables", old.env.as_str()];
        match fresh.iter().position(|v| v.same_but_env(old)) {
            Some(k) => {
                let new = fresh.remove(k);
                out.push(
                    Change::new(Kind::VariableRenamed, &path, opt(&old.env), opt(&new.env))
                        .breaking(format!("the panel sees a new variable: servers lose the value they had for `{}` and get the default", old.env)),
                );
            }
            None => out.push(
                Change::new(Kind::VariableRemoved, &path, Some(whole(old)), None).breaking(
                    "the panel deletes the variable and every server's value for it; commands and config files that still name it get nothing",
                ),
            ),
        }
    }
    for new in fresh {
        let mut c = Change::new(
            Kind::VariableAdded,
            &["variables", new.env.as_str()],
            None,
            Some(whole(new)),
        );
        if let Some(why) = refused(&new.default, new) {
            c = c.breaking(format!(
                "servers get the default, which its own rules refuse ({why}): saving their startup settings fails until someone changes it"
            ));
        }
        out.push(c);
    }
    for new in &b.variables {
        if let Some(old) = in_a(&new.env) {
            fields(old, new, out);
        }
    }
}

/// The changed fields of one variable.
fn fields(old: &Variable, new: &Variable, out: &mut Vec<Change>) {
    let path = |f: &'static str| ["variables", new.env.as_str(), f];
    let text = |s: &str| Some(Value::String(s.to_owned()));
    if !prose_eq(&old.name, &new.name) {
        out.push(Change::new(
            Kind::VariableChanged,
            &path("name"),
            text(&old.name),
            text(&new.name),
        ));
    }
    if !prose_eq(&old.description, &new.description) {
        out.push(Change::new(
            Kind::VariableChanged,
            &path("description"),
            text(&old.description),
            text(&new.description),
        ));
    }
    let rules_changed = as_read(&old.rules) != as_read(&new.rules);
    let default_changed = old.default != new.default;
    if default_changed || rules_changed {
        // A value that fails the new rules: the new default (what servers without a value of
        // their own get), or the old default (what existing servers most likely hold).
        // Only when the old default passed the old rules: a default that was already refused
        // is not made worse by the change.
        let was_fine = refused(&old.default, old).is_none();
        let newly_refused = |value: &str| was_fine.then(|| refused(value, new)).flatten();
        if default_changed {
            let mut c = Change::new(
                Kind::VariableChanged,
                &path("default_value"),
                text(&old.default),
                text(&new.default),
            );
            if let Some(why) = newly_refused(&new.default) {
                c = c.breaking(format!(
                    "the new default is refused by the variable's rules ({why}): a server given it cannot save its startup settings until someone changes it"
                ));
            }
            out.push(c);
        }
        if rules_changed {
            let mut c = Change::new(
                Kind::VariableChanged,
                &path("rules"),
                Some(json!(old.rules)),
                Some(json!(new.rules)),
            );
            if let Some(why) = newly_refused(&old.default) {
                c = c.breaking(format!(
                    "the old default, which servers may still hold, fails the new rules ({why}): saving their startup settings fails"
                ));
            }
            out.push(c);
        }
    }
    for (field, x, y) in [
        ("user_viewable", old.viewable, new.viewable),
        ("user_editable", old.editable, new.editable),
    ] {
        if x != y {
            out.push(Change::new(
                Kind::VariableChanged,
                &path(field),
                Some(json!(x)),
                Some(json!(y)),
            ));
        }
    }
}

/// The rules as Laravel reads them, in any order (it applies them all): each rule's canonical
/// name and arguments by `eggcat-validate`'s grammar, so `int` and `integer` are one rule; a
/// rule Laravel does not know, as written.
fn as_read(rules: &[String]) -> Vec<String> {
    let mut read: Vec<String> = rules
        .iter()
        .map(|text| match read_rule(text) {
            Ok(Some(rule)) => format!("{:?}", (rule.name, rule.args)),
            _ => text.clone(),
        })
        .collect();
    read.sort();
    read
}

/// The variable as one value, for an added or removed variable.
fn whole(v: &Variable) -> Value {
    json!({
        "name": v.name,
        "description": v.description,
        "env_variable": v.env,
        "default_value": v.default,
        "user_viewable": v.viewable,
        "user_editable": v.editable,
        "rules": v.rules,
    })
}

/// Why `var`'s rules refuse `value`, or `None` when they accept it (or cannot judge it).
fn refused(value: &str, var: &Variable) -> Option<String> {
    let egg = json!({
        "meta": { "version": "PLCN_v3" },
        "name": "diff",
        "variables": [{
            "name": var.name,
            "description": var.description,
            "env_variable": var.env,
            "default_value": value,
            "user_viewable": var.viewable,
            "user_editable": var.editable,
            "rules": var.rules,
        }],
    });
    let bytes = serde_json::to_vec(&egg).expect("a JSON value serializes");
    let found: Vec<Diagnostic> = check_text(&bytes, eggcat_egg::SyntaxKind::Json);
    let judged = [Code::DefaultBreaksRules, Code::EmptyRequiredDefault].map(Code::as_str);
    let why: Vec<String> = found
        .into_iter()
        .filter(|d| judged.contains(&d.code.as_str()))
        .map(|d| d.message)
        .collect();
    (!why.is_empty()).then(|| why.join("; "))
}
