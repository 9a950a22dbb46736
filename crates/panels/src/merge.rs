//! The three-way merge `eggcat panel update` makes of a panel's egg (issue 37, §3): the
//! version the panel came from as the base, the catalog's current file as theirs, the panel's
//! export as ours, per field (top-level keys; `config.*` and `meta.*` each their own) and per
//! variable (by `env_variable`, each of its fields). A field only the admin changed keeps the
//! admin's value; a field only upstream changed takes upstream's; both changed it differently
//! is a conflict, which keeps the panel's value unless a side is chosen. A variable one side
//! removed is removed when the other left it as it was, else a conflict.
//!
//! Pure: reading the three files and writing the result is the caller's. `exported_at` is not
//! merged (the import ignores it); the result has theirs' key and variable order, with what
//! only ours has after it.

use serde_json::{Map, Value};

/// Which side wins a conflict, when the admin chose one (`--ours`, `--theirs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Ours,
    Theirs,
}

/// A field both sides changed, each differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// As [`crate::standing::FieldEdit::field`] names it (`tags`, `config.stop`,
    /// `variables.SERVER_JARFILE.default_value`, `variables.SERVER_JARFILE`).
    pub field: String,
    pub base: Option<Value>,
    pub ours: Option<Value>,
    pub theirs: Option<Value>,
}

/// The merged file and what made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub file: Value,
    /// The conflicts, each resolved by the side chosen, or by keeping ours when none was.
    pub conflicts: Vec<Conflict>,
    /// The fields where the admin's value was kept over the base (the local edits kept).
    pub kept_ours: Vec<String>,
    /// The fields where upstream's change was taken.
    pub took_theirs: Vec<String>,
}

/// Merges `ours` (the panel's export) and `theirs` (the catalog's current file) from `base`
/// (the file of the version the panel came from).
pub fn merge(base: &Value, ours: &Value, theirs: &Value, prefer: Option<Side>) -> Merged {
    let mut m = Merged {
        file: Value::Null,
        conflicts: Vec::new(),
        kept_ours: Vec::new(),
        took_theirs: Vec::new(),
    };
    let empty = Map::new();
    let obj = |v: &Value| v.as_object().cloned().unwrap_or_default();
    let (b, o, t) = (obj(base), obj(ours), obj(theirs));
    let mut out = Map::new();
    for key in keys(&t, &o, &b) {
        if key == "exported_at" {
            if let Some(v) = o.get(&key).or(t.get(&key)) {
                out.insert(key, v.clone());
            }
            continue;
        }
        let value = match key.as_str() {
            "variables" => Some(Value::Array(variables(
                b.get(&key),
                o.get(&key),
                t.get(&key),
                prefer,
                &mut m,
            ))),
            "config" | "meta" => {
                fn sub<'a>(
                    v: Option<&'a Value>,
                    empty: &'a Map<String, Value>,
                ) -> &'a Map<String, Value> {
                    v.and_then(Value::as_object).unwrap_or(empty)
                }
                let (bs, os, ts) = (
                    sub(b.get(&key), &empty),
                    sub(o.get(&key), &empty),
                    sub(t.get(&key), &empty),
                );
                let mut merged = Map::new();
                for k in keys(ts, os, bs) {
                    if let Some(v) = unit(
                        &format!("{key}.{k}"),
                        bs.get(&k),
                        os.get(&k),
                        ts.get(&k),
                        prefer,
                        &mut m,
                    ) {
                        merged.insert(k, v);
                    }
                }
                Some(Value::Object(merged))
            }
            _ => unit(&key, b.get(&key), o.get(&key), t.get(&key), prefer, &mut m),
        };
        if let Some(v) = value {
            out.insert(key, v);
        }
    }
    m.file = Value::Object(out);
    m
}

/// The keys of `t`, then those only `o` has, then those only `b` has, each once.
fn keys(t: &Map<String, Value>, o: &Map<String, Value>, b: &Map<String, Value>) -> Vec<String> {
    let mut out: Vec<String> = t.keys().cloned().collect();
    for k in o.keys().chain(b.keys()) {
        if !out.contains(k) {
            out.push(k.clone());
        }
    }
    out
}

/// One field, three ways; `None` is absent.
fn unit(
    field: &str,
    b: Option<&Value>,
    o: Option<&Value>,
    t: Option<&Value>,
    prefer: Option<Side>,
    m: &mut Merged,
) -> Option<Value> {
    if o == t {
        return o.cloned();
    }
    if o == b {
        m.took_theirs.push(field.to_owned());
        return t.cloned();
    }
    if t == b {
        m.kept_ours.push(field.to_owned());
        return o.cloned();
    }
    m.conflicts.push(Conflict {
        field: field.to_owned(),
        base: b.cloned(),
        ours: o.cloned(),
        theirs: t.cloned(),
    });
    match prefer {
        Some(Side::Theirs) => t.cloned(),
        _ => o.cloned(),
    }
}

fn env(v: &Value) -> &str {
    v["env_variable"].as_str().unwrap_or("")
}

/// The variables, by `env_variable`: theirs' order, then those only ours has.
fn variables(
    b: Option<&Value>,
    o: Option<&Value>,
    t: Option<&Value>,
    prefer: Option<Side>,
    m: &mut Merged,
) -> Vec<Value> {
    let list = |v: Option<&Value>| -> Vec<Value> {
        v.and_then(Value::as_array).cloned().unwrap_or_default()
    };
    let (b, o, t) = (list(b), list(o), list(t));
    let find = |l: &[Value], name: &str| l.iter().find(|v| env(v) == name).cloned();
    let mut names: Vec<String> = Vec::new();
    for v in t.iter().chain(o.iter()).chain(b.iter()) {
        if !names.iter().any(|n| n == env(v)) {
            names.push(env(v).to_owned());
        }
    }
    let mut out = Vec::new();
    for name in names {
        let field = format!("variables.{name}");
        let (bv, ov, tv) = (find(&b, &name), find(&o, &name), find(&t, &name));
        match (&bv, &ov, &tv) {
            (_, Some(ov), Some(tv)) => {
                // On both sides: field by field (from the base's, or from nothing when added on
                // both).
                let empty = Map::new();
                let (bm, om, tm) = (
                    bv.as_ref().and_then(Value::as_object).unwrap_or(&empty),
                    ov.as_object().unwrap_or(&empty),
                    tv.as_object().unwrap_or(&empty),
                );
                let mut merged = Map::new();
                for k in keys(tm, om, bm) {
                    if let Some(v) = unit(
                        &format!("{field}.{k}"),
                        bm.get(&k),
                        om.get(&k),
                        tm.get(&k),
                        prefer,
                        m,
                    ) {
                        merged.insert(k, v);
                    }
                }
                out.push(Value::Object(merged));
            }
            // One side has it: whole, three ways (removed where the other left it as it was).
            _ => {
                if let Some(v) = unit(&field, bv.as_ref(), ov.as_ref(), tv.as_ref(), prefer, m) {
                    out.push(v);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn var(env: &str, default: &str, rules: &str) -> Value {
        json!({"name": env, "env_variable": env, "default_value": default, "rules": [rules], "sort": 1})
    }

    fn egg(tags: Value, stop: &str, vars: Vec<Value>) -> Value {
        json!({"name": "Game", "tags": tags, "description": "d",
            "config": {"stop": stop, "logs": "{}"}, "variables": vars})
    }

    #[test]
    fn an_edit_on_one_side_is_taken_and_kept() {
        let base = egg(
            json!([]),
            "stop",
            vec![var("A", "1", "string"), var("B", "x", "string")],
        );
        // The admin added a tag and changed A's default; upstream changed the stop command
        // and B's rules, and added C.
        let ours = egg(
            json!(["modrinth_plugins"]),
            "stop",
            vec![var("A", "2", "string"), var("B", "x", "string")],
        );
        let theirs = egg(
            json!([]),
            "^C",
            vec![
                var("A", "1", "string"),
                var("B", "x", "max:20"),
                var("C", "c", "string"),
            ],
        );
        let m = merge(&base, &ours, &theirs, None);
        assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        let want = egg(
            json!(["modrinth_plugins"]),
            "^C",
            vec![
                var("A", "2", "string"),
                var("B", "x", "max:20"),
                var("C", "c", "string"),
            ],
        );
        assert_eq!(m.file, want);
        assert_eq!(m.kept_ours, ["tags", "variables.A.default_value"]);
        assert_eq!(
            m.took_theirs,
            ["config.stop", "variables.B.rules", "variables.C"]
        );
    }

    #[test]
    fn both_changed_is_a_conflict_kept_ours_unless_a_side_is_chosen() {
        let base = egg(json!([]), "stop", vec![var("A", "1", "string")]);
        let ours = egg(json!([]), "end", vec![var("A", "1", "string")]);
        let theirs = egg(json!([]), "^C", vec![var("A", "1", "string")]);
        let m = merge(&base, &ours, &theirs, None);
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.conflicts[0].field, "config.stop");
        assert_eq!(m.file["config"]["stop"], "end");
        let m = merge(&base, &ours, &theirs, Some(Side::Theirs));
        assert_eq!(m.file["config"]["stop"], "^C");
        let m = merge(&base, &ours, &theirs, Some(Side::Ours));
        assert_eq!(m.file["config"]["stop"], "end");
    }

    #[test]
    fn a_removed_variable_goes_unless_the_other_side_edited_it() {
        let base = egg(
            json!([]),
            "stop",
            vec![var("A", "1", "string"), var("B", "x", "string")],
        );
        // Upstream removed B, which the admin left alone; the admin removed A, which upstream
        // left alone.
        let ours = egg(json!([]), "stop", vec![var("B", "x", "string")]);
        let theirs = egg(json!([]), "stop", vec![var("A", "1", "string")]);
        let m = merge(&base, &ours, &theirs, None);
        assert!(m.conflicts.is_empty());
        assert_eq!(m.file["variables"], json!([]));
        // Upstream removed B, which the admin edited: a conflict, B kept.
        let ours = egg(
            json!([]),
            "stop",
            vec![var("A", "1", "string"), var("B", "y", "string")],
        );
        let m = merge(&base, &ours, &theirs, None);
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.conflicts[0].field, "variables.B");
        assert_eq!(m.conflicts[0].theirs, None);
        assert_eq!(m.file["variables"][1]["default_value"], "y");
        let m = merge(&base, &ours, &theirs, Some(Side::Theirs));
        assert_eq!(m.file["variables"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn unchanged_sides_give_theirs_and_order_is_theirs() {
        let base = egg(
            json!([]),
            "stop",
            vec![var("A", "1", "s"), var("B", "2", "s")],
        );
        let mut theirs = base.clone();
        theirs["variables"].as_array_mut().unwrap().reverse();
        let m = merge(&base, &base, &theirs, None);
        assert_eq!(m.file, theirs);
        assert!(m.conflicts.is_empty() && m.kept_ours.is_empty());
    }
}
