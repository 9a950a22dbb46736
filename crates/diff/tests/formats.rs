//! Format-only differences are not changes: the same egg written as PTDL or PLCN, JSON or YAML,
//! with rules as text or list, config as JSON text or nested data, keys in any order, CRLF or
//! LF line ends, gives an empty diff. Each difference is tested alone on the same base egg, then
//! all at once on two files written by hand (`tests/data/paper.*`).

use eggcat_diff::{Change, diff, load};
use serde_json::{Map, Value, json};

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("fixture exists");
    load(name, &bytes).expect("fixture is an egg")
}

/// The PTDL_v2 JSON fixture: startup string, JSON text config, rules as text, CRLF.
fn base() -> Value {
    fixture("paper.ptdl.json")
}

fn assert_no_changes(old: &Value, new: &Value) {
    let changes: Vec<Change> = diff(old, new);
    assert!(changes.is_empty(), "expected no changes, got {changes:#?}");
    let back = diff(new, old);
    assert!(
        back.is_empty(),
        "expected no changes backwards, got {back:#?}"
    );
}

/// Every object's keys in reverse order, at every depth.
fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reversed(v)))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// Every string with `from` replaced by `to`, at every depth.
fn replaced(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace(from, to)),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), replaced(v, from, to)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|i| replaced(i, from, to)).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_same_egg_as_ptdl_json_and_plcn_yaml_has_no_changes() {
    assert_no_changes(&base(), &fixture("paper.plcn.yaml"));
}

#[test]
fn startup_string_and_startup_commands_map_are_one_command() {
    let old = base();
    let mut new = old.clone();
    let command = new["startup"].take();
    new.as_object_mut().expect("object").remove("startup");
    new["startup_commands"] = json!({ "Default": command });
    new["meta"]["version"] = json!("PLCN_v3");
    assert_no_changes(&old, &new);
    // A PLCN command of another name is still the one command PTDL carries.
    new["startup_commands"] = json!({ "Paper": command });
    assert_no_changes(&old, &new);
}

#[test]
fn legacy_images_list_and_docker_images_map_are_one_set_of_images() {
    let mut old = base();
    old["docker_images"] = json!({"quay.io/x/java:17": "quay.io/x/java:17"});
    let mut legacy = old.clone();
    legacy
        .as_object_mut()
        .expect("object")
        .remove("docker_images");
    legacy["images"] = json!(["quay.io/x/java:17"]);
    legacy["meta"]["version"] = json!("PTDL_v1");
    assert_no_changes(&old, &legacy);
    let mut single = legacy.clone();
    single.as_object_mut().expect("object").remove("images");
    single["image"] = json!("quay.io/x/java:17");
    assert_no_changes(&old, &single);
}

#[test]
fn rules_as_text_and_as_list_are_the_same_rules() {
    let old = base();
    let mut new = old.clone();
    for v in new["variables"].as_array_mut().expect("list") {
        let text = v["rules"].as_str().expect("text rules").to_owned();
        v["rules"] = json!(text.split('|').collect::<Vec<_>>());
    }
    assert_no_changes(&old, &new);
    // Order and empty pieces do not count either (Laravel skips an empty rule).
    let mut shuffled = old.clone();
    shuffled["variables"][1]["rules"] = json!("max:64|required||string");
    assert_no_changes(&old, &shuffled);
}

// Rules are read by eggcat-validate's grammar, as Laravel reads them: `int` is `integer`,
// `alphaDash` is `alpha_dash`; a rule that reads otherwise is a change.
#[test]
fn rules_laravel_reads_the_same_are_the_same_rules() {
    let mut old = base();
    old["variables"][1]["rules"] = json!("required|integer|alpha_dash|max:64");
    let mut new = old.clone();
    new["variables"][1]["rules"] = json!("Required|int|alphaDash|max:64");
    assert_no_changes(&old, &new);
    new["variables"][1]["rules"] = json!("required|int|alpha_dash|max:65");
    assert!(!diff(&old, &new).is_empty());
}

#[test]
fn config_as_json_text_and_as_nested_data_is_the_same_config() {
    let old = base();
    let mut new = old.clone();
    for key in ["files", "startup", "logs"] {
        let text = new["config"][key].as_str().expect("JSON text").to_owned();
        new["config"][key] = serde_json::from_str(&text).expect("valid JSON");
    }
    assert_no_changes(&old, &new);
    // An install section value written as data is read the same way.
    let mut empty_logs = old.clone();
    empty_logs["config"]["logs"] = json!([]);
    assert_no_changes(&old, &empty_logs);
}

#[test]
fn key_order_does_not_count() {
    let old = base();
    assert_no_changes(&old, &reversed(&old));
    let yaml = fixture("paper.plcn.yaml");
    assert_no_changes(&yaml, &reversed(&yaml));
}

#[test]
fn crlf_and_lf_are_the_same_text() {
    let old = base();
    assert!(
        serde_json::to_string(&old)
            .expect("json")
            .contains("\\r\\n"),
        "the base has CRLF to remove"
    );
    assert_no_changes(&old, &replaced(&old, "\r\n", "\n"));
}

#[test]
fn ready_text_as_a_string_and_as_a_list_of_one_is_the_same() {
    let old = base();
    let mut new = old.clone();
    new["config"]["startup"] = json!({"done": [")! For help, type "]});
    assert_no_changes(&old, &new);
}

#[test]
fn placeholders_in_old_and_new_spelling_are_the_same() {
    let old = base();
    let mut new = old.clone();
    new["config"]["files"] = json!({"server.properties": {"parser": "properties", "find": {
        "server-ip": "0.0.0.0",
        "server-port": "{{server.allocations.default.port}}",
        "motd": "{{env.MOTD}}",
    }}});
    assert_no_changes(&old, &new);
}

#[test]
fn a_description_word_wrapped_by_pelicans_yaml_export_is_the_same() {
    let mut old = base();
    old["description"] = json!("one two three four five six seven eight nine ten");
    let mut new = old.clone();
    new["description"] = json!("one two three four five\nsix seven eight nine ten");
    assert_no_changes(&old, &new);
}

#[test]
fn flags_as_numbers_or_text_and_as_booleans_are_the_same() {
    let old = base();
    let mut new = old.clone();
    new["variables"][0]["user_viewable"] = json!(1);
    new["variables"][0]["user_editable"] = json!("1");
    new["variables"][2]["user_editable"] = json!(0);
    assert_no_changes(&old, &new);
}
