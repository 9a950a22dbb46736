//! The three-way merge `eggcat panel update` makes of a panel's egg (issue 37, §3): the
//! version the panel came from as the base, the catalog's current file as theirs, the panel's
//! export as ours, per field (top-level keys; each key of `config`, `meta`, `docker_images` and
//! `startup_commands` its own field; `tags` and `features` as sets, where what either side
//! added is in and what either removed is out, never a conflict) and per variable (by
//! `env_variable`, each of its fields). A field only the admin changed keeps the
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
            "tags" | "features" if lists_of_text([b.get(&key), o.get(&key), t.get(&key)]) => {
                set(&key, b.get(&key), o.get(&key), t.get(&key), &mut m)
            }
            "config" | "meta" | "docker_images" | "startup_commands"
                if [b.get(&key), o.get(&key), t.get(&key)]
                    .iter()
                    .all(|v| v.is_none_or(|v| v.is_object() || v.is_null())) =>
            {
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
                // Nothing left: as theirs has it (`null`, or absent where upstream removed it).
                if merged.is_empty() && t.get(&key).is_none_or(Value::is_null) {
                    t.get(&key).cloned()
                } else {
                    Some(Value::Object(merged))
                }
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

/// Whether every side that has the field holds a list of texts, or nothing (`null`).
fn lists_of_text(sides: [Option<&Value>; 3]) -> bool {
    sides.iter().all(|v| {
        v.is_none_or(|v| {
            v.is_null() || v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
        })
    })
}

/// A list of texts taken as a set (`tags`, `features`), three ways: what either side added is
/// in, what either side removed is out; theirs' order, then what only ours added. Never a
/// conflict: an admin's added tag and upstream's added tag are both kept. `null` is the empty
/// set; nothing left is as theirs has it (`null`, or absent where upstream removed the field).
fn set(
    field: &str,
    b: Option<&Value>,
    o: Option<&Value>,
    t: Option<&Value>,
    m: &mut Merged,
) -> Option<Value> {
    fn items(v: Option<&Value>) -> Vec<&str> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }
    let (bs, os, ts) = (items(b), items(o), items(t));
    let ours_removed = |x: &&str| bs.contains(x) && !os.contains(x);
    let mut out: Vec<&str> = Vec::new();
    for x in ts.iter().filter(|x| !ours_removed(x)) {
        if !out.contains(x) {
            out.push(x);
        }
    }
    for x in os.iter().filter(|x| !bs.contains(x)) {
        if !out.contains(x) {
            out.push(x);
        }
    }
    let changed = |side: &[&str]| {
        let mut a = side.to_vec();
        let mut c = bs.clone();
        a.sort_unstable();
        c.sort_unstable();
        a != c
    };
    if changed(&os) {
        m.kept_ours.push(field.to_owned());
    }
    if changed(&ts) {
        m.took_theirs.push(field.to_owned());
    }
    if out.is_empty() && t.is_none_or(Value::is_null) {
        return t.cloned();
    }
    Some(Value::Array(out.into_iter().map(Value::from).collect()))
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
    fn an_added_image_and_tag_survive_upstream_changing_others() {
        let mut base = egg(json!(["a"]), "stop", vec![var("A", "1", "s")]);
        base["docker_images"] = json!({"Java 17": "j:17", "Java 21": "j:21"});
        base["features"] = Value::Null;
        // The admin added an image, a tag and a feature; upstream moved Java 21 on, dropped
        // Java 17, and added a tag of its own.
        let mut ours = base.clone();
        ours["docker_images"]["Local"] = json!("ghcr.io/me/local:1");
        ours["tags"] = json!(["a", "modrinth_plugins"]);
        ours["features"] = json!(["eula"]);
        let mut theirs = base.clone();
        theirs["docker_images"] = json!({"Java 21": "j:21b"});
        theirs["tags"] = json!(["a", "upstream"]);
        let m = merge(&base, &ours, &theirs, None);
        assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        assert_eq!(
            m.file["docker_images"],
            json!({"Java 21": "j:21b", "Local": "ghcr.io/me/local:1"})
        );
        assert_eq!(m.file["tags"], json!(["a", "upstream", "modrinth_plugins"]));
        assert_eq!(m.file["features"], json!(["eula"]));
        assert_eq!(
            m.kept_ours,
            ["tags", "docker_images.Local", "features"],
            "{m:?}"
        );
        assert_eq!(
            m.took_theirs,
            ["tags", "docker_images.Java 21", "docker_images.Java 17"]
        );
        // A tag the admin removed stays removed; one upstream removed goes.
        let mut ours = base.clone();
        ours["tags"] = json!([]);
        let m = merge(&base, &ours, &base, None);
        assert_eq!(m.file["tags"], json!([]));
        // Nothing anywhere stays null.
        let m = merge(&base, &base, &base, None);
        assert_eq!(m.file["features"], Value::Null);
        // Upstream dropped the images and the tags, which the admin left alone: gone.
        let mut theirs = base.clone();
        let t = theirs.as_object_mut().unwrap();
        t.remove("docker_images");
        t.remove("tags");
        let m = merge(&base, &base, &theirs, None);
        assert!(m.file.get("docker_images").is_none(), "{:?}", m.file);
        assert!(m.file.get("tags").is_none(), "{:?}", m.file);
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
