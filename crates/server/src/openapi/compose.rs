//! How the served document is made (for the tests only: the binary serves the committed file,
//! [`super::document`]). One file is committed, `openapi.served.json`, the document as served:
//! written by hand but for its generated schemas, which `schemars` makes from the published
//! types and the server's answers. Its hand-written part ([`base`]: everything but the schemas
//! not named in [`WRITTEN`]) with the schemas generated again must give the file back byte for
//! byte; `EGGCAT_BLESS=1 cargo test -p eggcat-server openapi` writes it so (after a change of a
//! type, or a merge of two branches that each changed the document).

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

use super::document;
use crate::answers::{Health, Ready, ServedReport};
use eggcat_wire::{EggDocument, History, IndexItem, ProblemDocument, Removed, SummaryItem};

/// The committed document, as this test binary was compiled with it.
const COMMITTED: &str = include_str!("../../openapi.served.json");

/// The schemas written by hand in the committed document: what has no type of its own. Every
/// other schema of the document is generated, and one no root generates any more is dropped
/// when the document is written again.
const WRITTEN: &[&str] = &[
    "CompatIndex",
    "Egg",
    "EggIndex",
    "EggNames",
    "EggVariable",
    "GoneProblem",
    "OpenApiDocument",
    "PanelEgg",
    "Problem",
    "RemovedList",
    "Summary",
];

/// The hand-written part of the committed document `committed`: it without the schemas not
/// named in [`WRITTEN`].
fn base_of(committed: &str) -> Result<String, ComposeError> {
    let mut document: Value =
        serde_json::from_str(committed).map_err(|e| ComposeError::Base(e.to_string()))?;
    let schemas = document
        .pointer_mut(SCHEMAS_POINTER)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| ComposeError::Base("no components.schemas object".to_owned()))?;
    schemas.retain(|name, _| WRITTEN.contains(&name.as_str()));
    Ok(document.to_string())
}

/// The hand-written part of the committed document.
fn base() -> String {
    base_of(COMMITTED).unwrap_or_else(|e| panic!("the OpenAPI: {e}"))
}

/// Where OpenAPI keeps its schemas, as a JSON pointer (a `$ref` to one is `#` and this).
const SCHEMAS_POINTER: &str = "/components/schemas";

/// One root of the generated schemas: the name the hand-written part refers to it by, and the
/// function that puts the type's schema (and the schemas it reaches) into a generator.
struct Root {
    /// The schema name (`#/components/schemas/{name}`).
    name: &'static str,
    /// Adds the type's schema to the generator's definitions.
    add: fn(&mut SchemaGenerator) -> std::borrow::Cow<'static, str>,
}

/// A [`Root`] for `T`.
const fn root<T: JsonSchema>(name: &'static str) -> Root {
    Root {
        name,
        add: |generator| {
            generator.subschema_for::<T>();
            T::schema_name()
        },
    }
}

/// The types whose schemas the hand-written part refers to; every schema they reach is
/// generated with them.
const ROOTS: &[Root] = &[
    root::<IndexItem>("EggListItem"),
    root::<EggDocument>("EggDetail"),
    root::<ServedReport>("BuildReport"),
    root::<Removed>("RemovedEgg"),
    root::<SummaryItem>("SummaryItem"),
    root::<History>("EggHistory"),
    root::<ProblemDocument>("ProblemDocument"),
    root::<Health>("Health"),
    root::<Ready>("Ready"),
];

/// The document composed, as bytes: pretty JSON with a final newline, the committed file's form.
fn composed() -> Vec<u8> {
    let document = compose(&base(), ROOTS).unwrap_or_else(|e| panic!("the OpenAPI: {e}"));
    let mut bytes = serde_json::to_vec_pretty(&document).expect("a Value always serializes");
    bytes.push(b'\n');
    bytes
}

/// Why the document could not be composed (each a bug of this crate, which the tests catch).
#[derive(Debug, PartialEq, Eq)]
enum ComposeError {
    /// The committed document is not JSON, or has no `components.schemas` object.
    Base(String),
    /// A type's schema name is not the one [`ROOTS`] expects.
    RootName { expected: String, generated: String },
    /// A schema is both written by hand and generated.
    Twice(String),
    /// A `$ref` names no schema or object of the document.
    Dangling { reference: String, at: String },
}

impl std::fmt::Display for ComposeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComposeError::Base(why) => write!(f, "openapi.served.json: {why}"),
            ComposeError::RootName {
                expected,
                generated,
            } => write!(
                f,
                "the root schema {expected} is generated as {generated} (its type's schemars name changed)"
            ),
            ComposeError::Twice(name) => {
                write!(f, "schema {name} is both written by hand and generated")
            }
            ComposeError::Dangling { reference, at } => {
                write!(f, "{at}: $ref {reference} names nothing in the document")
            }
        }
    }
}

/// The generated schemas of `roots`, by name, transformed as [`close_and_tidy`] says.
fn generated(roots: &[Root]) -> Result<Map<String, Value>, ComposeError> {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = SCHEMAS_POINTER.into();
            s.meta_schema = None;
        })
        .for_serialize()
        .with_transform(RecursiveTransform(close_and_tidy))
        .into_generator();
    for root in roots {
        let generated = (root.add)(&mut generator);
        if generated != root.name {
            return Err(ComposeError::RootName {
                expected: root.name.to_owned(),
                generated: generated.into_owned(),
            });
        }
    }
    Ok(generator.take_definitions(true))
}

/// The whole document: the hand-written part `base` with the schemas of `roots` added, every schema
/// sorted by name, every `$ref` checked.
fn compose(base: &str, roots: &[Root]) -> Result<Value, ComposeError> {
    let mut document: Value =
        serde_json::from_str(base).map_err(|e| ComposeError::Base(e.to_string()))?;
    let schemas = document
        .pointer_mut(SCHEMAS_POINTER)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| ComposeError::Base("no components.schemas object".to_owned()))?;
    let mut all: Vec<(String, Value)> = std::mem::take(schemas).into_iter().collect();
    for (name, schema) in generated(roots)? {
        if all.iter().any(|(n, _)| *n == name) {
            return Err(ComposeError::Twice(name));
        }
        all.push((name, schema));
    }
    all.sort_by(|a, b| a.0.cmp(&b.0));
    schemas.extend(all);
    check_refs(&document, &document, "#")?;
    Ok(document)
}

/// Fails on the first `$ref` under `value` (at JSON pointer `at`) that does not resolve in
/// `document`. Only local references are written here, so any other is dangling too.
fn check_refs(document: &Value, value: &Value, at: &str) -> Result<(), ComposeError> {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                if key == "$ref" {
                    let reference = v.as_str().unwrap_or_default();
                    let resolves = reference
                        .strip_prefix('#')
                        .and_then(|pointer| document.pointer(pointer))
                        .is_some();
                    if !resolves {
                        return Err(ComposeError::Dangling {
                            reference: reference.to_owned(),
                            at: here,
                        });
                    }
                } else {
                    check_refs(document, v, &here)?;
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                check_refs(document, v, &format!("{at}/{i}"))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// What every generated (sub)schema goes through, for a document that says what the server
/// writes:
/// - an object with `properties` lists all its members (`additionalProperties: false`), as the
///   hand-written schemas always did: the contract test then catches a member the types do not
///   declare;
/// - a member serde leaves out when it is `None` (not in `required`) is never `null`: the type
///   `["string", "null"]` loses its `null`, and `anyOf: [X, {"type": "null"}]` becomes `X`;
/// - no `default`: it says what a reader assumes for a missing member, and the server writes
///   every member it has;
/// - schemars' Rust integer formats (`uint`, `uint32`, `uint64`, ...) are left out: they are no
///   formats of OpenAPI's registry, and `minimum: 0` already says what a client needs.
fn close_and_tidy(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    object.remove("default");
    if object
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| f.starts_with("uint") || f.starts_with("int"))
    {
        object.remove("format");
    }
    let Some(properties) = object.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let optional: Vec<String> = properties
        .keys()
        .filter(|k| !required.contains(k))
        .cloned()
        .collect();
    object
        .entry("additionalProperties")
        .or_insert(Value::Bool(false));
    let properties = object
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .expect("checked above");
    for name in optional {
        if let Some(Value::Object(member)) = properties.get_mut(&name) {
            drop_null(member);
        }
    }
}

/// `member` without `null` among its types (see [`close_and_tidy`]).
fn drop_null(member: &mut Map<String, Value>) {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(types)) = member.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = &types[..] {
            let only = only.clone();
            member.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Array(any_of)) = member.get("anyOf")
        && any_of.len() == 2
        && any_of.iter().any(is_null)
    {
        let kept = any_of
            .iter()
            .find(|v| !is_null(v))
            .cloned()
            .expect("one of the two is not null");
        member.remove("anyOf");
        if let Value::Object(kept) = kept {
            for (k, v) in kept {
                member.entry(k).or_insert(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> Value {
        serde_json::from_slice(document()).expect("the served document is JSON")
    }

    fn schemas(document: &Value) -> &Map<String, Value> {
        document["components"]["schemas"]
            .as_object()
            .expect("components.schemas")
    }

    /// The names every `$ref` under `value` gives a schema, with where it is written.
    fn refs(value: &Value, at: &str, into: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v.as_str()) {
                        ("$ref", Some(r)) => into.push((r.to_owned(), at.to_owned())),
                        _ => refs(v, &format!("{at}/{k}"), into),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, at, into)),
            _ => {}
        }
    }

    #[test]
    fn the_document_is_the_hand_written_part_with_every_root_generated() {
        let document = served();
        let base: Value = serde_json::from_str(&base()).unwrap();
        let written = schemas(&base);
        let all = schemas(&document);
        for root in ROOTS {
            assert!(
                !written.contains_key(root.name),
                "{} written by hand",
                root.name
            );
            assert!(all.contains_key(root.name), "{} not generated", root.name);
        }
        for (name, schema) in written {
            assert_eq!(&all[name], schema, "{name} is served as written");
        }
        let names: Vec<&String> = all.keys().collect();
        assert!(names.is_sorted(), "{names:?}");
        // Everything but the schemas is served as written.
        for key in ["openapi", "info", "servers", "tags", "paths"] {
            assert_eq!(document[key], base[key], "{key}");
        }
        for key in ["responses", "parameters", "headers"] {
            assert_eq!(
                document["components"][key], base["components"][key],
                "{key}"
            );
        }
    }

    /// The served document is the one committed beside the crate (`openapi.served.json`): a
    /// change to the published contract, from a field of a `wire` type, a schema attribute or
    /// the hand-written part, shows in that file's diff and is committed on purpose (the
    /// schemas generated from the types that write the documents would otherwise change with
    /// them, and the contract test check the documents against themselves). After a deliberate
    /// change: `EGGCAT_BLESS=1 cargo test -p eggcat-server openapi`, then review and commit.
    #[test]
    fn the_served_document_is_the_committed_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.served.json");
        let composed = composed();
        if std::env::var_os("EGGCAT_BLESS").is_some() {
            std::fs::write(&path, &composed).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        if committed != composed {
            let (served, committed) = (
                String::from_utf8_lossy(&composed),
                String::from_utf8_lossy(&committed),
            );
            let first = served
                .lines()
                .zip(committed.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(served.lines().count().min(committed.lines().count()));
            panic!(
                "the served OpenAPI differs from {} from line {}: served `{}`, committed `{}`; if the \
                 change is meant, run `EGGCAT_BLESS=1 cargo test -p eggcat-server openapi` and commit the file",
                path.display(),
                first + 1,
                served.lines().nth(first).unwrap_or("(end)").trim(),
                committed.lines().nth(first).unwrap_or("(end)").trim(),
            );
        }
    }

    /// A schema in the committed file that is neither written by hand nor generated any more (a
    /// type gone from the roots, or left by a merge) is not kept: composing drops it, so the
    /// committed file differs until it is written again.
    #[test]
    fn a_schema_no_longer_generated_is_dropped() {
        let mut committed: Value = serde_json::from_str(COMMITTED).unwrap();
        committed["components"]["schemas"]["Gone"] = serde_json::json!({"type": "string"});
        let hand: Value = serde_json::from_str(&base_of(&committed.to_string()).unwrap()).unwrap();
        let written: Vec<&String> = schemas(&hand).keys().collect();
        assert_eq!(
            written, WRITTEN,
            "only the hand-written schemas, in the file's order"
        );
        let again = compose(&hand.to_string(), ROOTS).unwrap();
        assert!(!schemas(&again).contains_key("Gone"));
        assert_eq!(again, served());
    }

    #[test]
    fn composing_twice_gives_the_same_bytes() {
        let again = serde_json::to_vec_pretty(&compose(&base(), ROOTS).unwrap()).unwrap();
        assert_eq!(&composed()[..composed().len() - 1], &again[..]);
    }

    /// Every schema the hand-written part refers to exists, and so does every schema the
    /// generated ones refer to: the served document has no dangling `$ref`, and every generated
    /// schema is reached from a path (none is generated for nothing).
    #[test]
    fn every_ref_resolves_and_every_schema_is_reached_from_a_path() {
        let document = served();
        let all = schemas(&document);
        let mut found = Vec::new();
        refs(&document, "#", &mut found);
        assert!(found.len() > 500, "{} references", found.len());
        for (reference, at) in &found {
            let pointer = reference.strip_prefix('#').unwrap_or_default();
            assert!(
                document.pointer(pointer).is_some(),
                "{at}: {reference} names nothing in the document"
            );
            if let Some(name) = reference.strip_prefix("#/components/schemas/") {
                assert!(all.contains_key(name), "{at}: {reference} names no schema");
            }
        }
        // Reached from `paths`, through the responses and schemas they name.
        let mut reached: Vec<String> = Vec::new();
        let mut queue = vec![document["paths"].clone()];
        while let Some(value) = queue.pop() {
            let mut here = Vec::new();
            refs(&value, "", &mut here);
            for (reference, _) in here {
                if reached.contains(&reference) {
                    continue;
                }
                let target = document
                    .pointer(reference.trim_start_matches('#'))
                    .unwrap_or_else(|| panic!("{reference} resolves"));
                queue.push(target.clone());
                reached.push(reference);
            }
        }
        for name in all.keys() {
            let reference = format!("#/components/schemas/{name}");
            assert!(
                reached.contains(&reference),
                "{name} is reached from no path"
            );
        }
    }

    #[test]
    fn a_dangling_ref_or_a_schema_written_twice_fails_composition() {
        // A root left out of the generated ones: the hand-written `Health` response refers to
        // a schema no one makes.
        let without_health: Vec<Root> = ROOTS
            .iter()
            .filter(|r| r.name != "Health")
            .map(|r| Root {
                name: r.name,
                add: r.add,
            })
            .collect();
        match compose(&base(), &without_health) {
            Err(ComposeError::Dangling { reference, .. }) => {
                assert_eq!(reference, "#/components/schemas/Health");
            }
            other => panic!("{other:?}"),
        }
        // A schema written by hand that a type also generates.
        let mut hand: Value = serde_json::from_str(&base()).unwrap();
        hand["components"]["schemas"]["Severity"] = serde_json::json!({"type": "string"});
        assert_eq!(
            compose(&hand.to_string(), ROOTS),
            Err(ComposeError::Twice("Severity".to_owned()))
        );
        // A root whose type's schema name changed.
        let renamed = [root::<Health>("Healthz")];
        assert!(matches!(
            compose(&base(), &renamed),
            Err(ComposeError::RootName { .. })
        ));
    }

    /// Each member of a generated object has a schema that says what it holds (a type, a
    /// `$ref`, values, or alternatives), but for the two a change carries as any JSON value.
    #[test]
    fn every_member_of_a_generated_object_has_a_schema_that_says_something() {
        let document = served();
        let base: Value = serde_json::from_str(&base()).unwrap();
        let written = schemas(&base);
        let says = ["type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"];
        let mut any_value = Vec::new();
        for (name, schema) in schemas(&document) {
            if written.contains_key(name) {
                continue;
            }
            for (member, s) in schema["properties"].as_object().into_iter().flatten() {
                if !says.iter().any(|k| s.get(k).is_some()) {
                    any_value.push(format!("{name}.{member}"));
                }
            }
        }
        assert_eq!(any_value, ["EggChange.old", "EggChange.new"]);
    }

    /// The descriptions a client reads are plain text, not rustdoc: no intra-doc link
    /// (`[`Meta::slug`]`) names a Rust item the reader cannot see.
    #[test]
    fn generated_descriptions_have_no_rustdoc_links() {
        fn walk(value: &Value, at: &str, into: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    for (k, v) in map {
                        if let ("description", Some(text)) = (k.as_str(), v.as_str())
                            && text.contains("[`")
                        {
                            into.push(format!("{at}: {text}"));
                        }
                        walk(v, &format!("{at}/{k}"), into);
                    }
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, at, into)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        walk(&served()["components"]["schemas"], "", &mut found);
        assert!(found.is_empty(), "{found:#?}");
    }

    /// A member serde leaves out when it is `None` is optional and never null; a member that is
    /// always written holds null where the type says so (`readme`, `reference`).
    #[test]
    fn optional_members_are_never_null_and_nullable_ones_are_required() {
        let document = served();
        let all = schemas(&document);
        let image = &all["ImageInfo"];
        assert_eq!(image["properties"]["digest"]["type"], "string");
        assert_eq!(
            image["properties"]["reference"]["type"],
            serde_json::json!(["string", "null"])
        );
        let required = image["required"].as_array().unwrap();
        assert!(required.contains(&Value::from("reference")));
        assert!(!required.contains(&Value::from("digest")));
        let detail = &all["EggDetail"];
        assert_eq!(
            detail["properties"]["readme"]["type"],
            serde_json::json!(["string", "null"])
        );
        assert_eq!(
            detail["properties"]["egg"]["$ref"],
            "#/components/schemas/Egg"
        );
        assert_eq!(detail["additionalProperties"], false);
    }
}
