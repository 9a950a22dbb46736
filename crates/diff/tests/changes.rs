//! Every kind of change is found, with its path, values, breaking verdict and plain words. The
//! base egg is `tests/data/paper.ptdl.json`; each test changes one part of it.

use eggcat_diff::{Change, Kind, any_breaking, diff, load};
use serde_json::{Value, json};

fn base() -> Value {
    let path = format!("{}/tests/data/paper.ptdl.json", env!("CARGO_MANIFEST_DIR"));
    load("paper.ptdl.json", &std::fs::read(path).expect("fixture")).expect("an egg")
}

/// The base as PLCN_v3 with named startup commands, for the tests that need several.
fn plcn(commands: Value) -> Value {
    let mut egg = base();
    let object = egg.as_object_mut().expect("object");
    object.remove("startup");
    object.insert("startup_commands".into(), commands);
    egg["meta"]["version"] = json!("PLCN_v3");
    egg
}

/// Each change as `kind path... [!]`, `!` when breaking: short enough to compare whole lists.
fn lines(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| {
            let kind = serde_json::to_value(c.kind).expect("kind serializes");
            let mark = if c.breaking { " !" } else { "" };
            format!(
                "{} {}{mark}",
                kind.as_str().expect("a name"),
                c.path.join("/")
            )
        })
        .collect()
}

fn one(changes: &[Change]) -> &Change {
    assert_eq!(changes.len(), 1, "{changes:#?}");
    &changes[0]
}

#[test]
fn identity_changes_break_nothing() {
    let old = base();
    let mut new = old.clone();
    new["name"] = json!("Paper MC");
    new["description"] = json!("Another text.");
    new["author"] = json!("someone@example.com");
    new["meta"]["update_url"] = json!("https://example.invalid/egg.json");
    new["tags"] = json!(["minecraft"]);
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "name_changed name",
            "description_changed description",
            "author_changed author",
            "update_url_changed meta/update_url",
            "tag_added tags/minecraft",
        ]
    );
    assert_eq!(changes[0].text, "name changed from `Paper` to `Paper MC`");
    assert_eq!(
        changes[3].text,
        "update URL set to `https://example.invalid/egg.json`"
    );
    assert!(!any_breaking(&changes));
}

#[test]
fn docker_images_added_removed_changed_and_renamed() {
    let old = base();
    let mut new = old.clone();
    new["docker_images"] = json!({
        "Java 17": "ghcr.io/pterodactyl/yolks:java_17_new",
        "Java 21 (LTS)": "ghcr.io/pterodactyl/yolks:java_21",
        "Java 25": "ghcr.io/pterodactyl/yolks:java_25",
    });
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "image_changed docker_images/Java 17 !",
            "image_renamed docker_images/Java 21",
            "image_added docker_images/Java 25",
        ]
    );
    assert_eq!(changes[1].new, Some(json!("Java 21 (LTS)")));
    assert_eq!(
        changes[1].text,
        "docker image label `Java 21` renamed to `Java 21 (LTS)`"
    );
    new["docker_images"] = json!({"Java 17": "ghcr.io/pterodactyl/yolks:java_17"});
    let removed = diff(&old, &new);
    assert_eq!(lines(&removed), ["image_removed docker_images/Java 21 !"]);
    assert_eq!(
        removed[0].text,
        "docker image `Java 21` removed (was `ghcr.io/pterodactyl/yolks:java_21`)"
    );
}

#[test]
fn startup_commands_changed_renamed_added_removed() {
    let old = plcn(json!({"Default": "java -jar a.jar", "Aikar": "java -XX:+UseG1GC -jar a.jar"}));
    let new = plcn(
        json!({"Default": "java -jar b.jar", "Aikar flags": "java -XX:+UseG1GC -jar a.jar", "Debug": "java -Ddebug -jar a.jar"}),
    );
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "startup_changed startup_commands/Default !",
            "startup_renamed startup_commands/Aikar",
            "startup_added startup_commands/Debug",
        ]
    );
    assert_eq!(
        changes[0].text,
        "startup command `Default` changed from `java -jar a.jar` to `java -jar b.jar`"
    );
    let gone = diff(&new, &plcn(json!({"Default": "java -jar b.jar"})));
    assert_eq!(
        lines(&gone),
        [
            "startup_removed startup_commands/Aikar flags !",
            "startup_removed startup_commands/Debug !",
        ]
    );
}

#[test]
fn stop_ready_text_and_startup_settings() {
    let old = base();
    let mut new = old.clone();
    new["config"]["stop"] = json!("^C");
    new["config"]["startup"] = json!({"done": ["Done (", "For help"], "strip_ansi": true});
    new["config"]["logs"] = json!({"custom": false, "location": "logs/latest.log"});
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "stop_changed config/stop !",
            "ready_text_changed config/startup/done !",
            "startup_config_changed config/startup/strip_ansi",
            "logs_changed config/logs",
        ]
    );
    assert_eq!(changes[0].text, "stop command changed from `stop` to `^C`");
    assert_eq!(changes[1].new, Some(json!(["Done (", "For help"])));
}

#[test]
fn config_files_per_file_and_key() {
    let old = base();
    let mut new = old.clone();
    new["config"]["files"] = json!({
        "server.properties": {"parser": "file", "find": {
            "server-ip": "0.0.0.0",
            "server-port": "25565",
            "query.port": "{{server.allocations.default.port}}",
        }},
        "bukkit.yml": {"parser": "yaml", "find": {"settings.connection-throttle": -1}},
    });
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "config_file_added config/files/bukkit.yml",
            "config_file_changed config/files/server.properties/parser !",
            "config_key_removed config/files/server.properties/find/motd",
            "config_key_added config/files/server.properties/find/query.port",
            "config_key_changed config/files/server.properties/find/server-port !",
        ]
    );
    assert_eq!(
        changes[4].text,
        "config file `server.properties`: `server-port` changed from `{{server.allocations.default.port}}` to `25565`"
    );
    let gone = diff(&new, &old);
    assert!(lines(&gone).contains(&"config_file_removed config/files/bukkit.yml".to_owned()));
}

#[test]
fn install_section_changes_break_nothing_and_the_script_is_a_unified_diff() {
    let old = base();
    let mut new = old.clone();
    new["scripts"]["installation"]["container"] = json!("ghcr.io/pterodactyl/installers:alpine");
    new["scripts"]["installation"]["entrypoint"] = json!("ash");
    new["scripts"]["installation"]["script"] = json!(
        "#!/bin/ash\n# Paper install\ncd /mnt/server\ncurl -o server.jar https://example.invalid/paper.jar\necho build ${BUILD_NUMBER}\n"
    );
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "install_container_changed scripts/installation/container",
            "install_entrypoint_changed scripts/installation/entrypoint",
            "install_script_changed scripts/installation/script",
        ]
    );
    let script = changes[2].script.as_ref().expect("a script diff");
    assert_eq!((script.added, script.removed), (1, 1));
    assert_eq!(
        script.unified,
        "@@ -1,4 +1,4 @@\n-#!/bin/bash\n+#!/bin/ash\n # Paper install\n cd /mnt/server\n curl -o server.jar https://example.invalid/paper.jar\n"
    );
    assert_eq!(
        changes[2].text,
        "install script changed: 1 line added, 1 removed"
    );
    assert!(!any_breaking(&changes));
}

#[test]
fn features_and_denylist_as_sets() {
    let old = base();
    let mut new = old.clone();
    new["features"] = json!(["java_version", "pid_limit"]);
    new["file_denylist"] = json!(["server.jar", "eula.txt"]);
    assert_eq!(
        lines(&diff(&old, &new)),
        [
            "feature_removed features/eula",
            "feature_added features/pid_limit",
            "denylist_added file_denylist/eula.txt",
        ]
    );
}

#[test]
fn variables_added_removed_and_renamed() {
    let old = base();
    let mut new = old.clone();
    let vars = new["variables"].as_array_mut().expect("list");
    // MOTD renamed, nothing else changed: a rename.
    vars[1]["env_variable"] = json!("SERVER_MOTD");
    // BUILD_NUMBER renamed and its default changed: removed and added.
    vars[2]["env_variable"] = json!("PAPER_BUILD");
    vars[2]["default_value"] = json!("123");
    vars.push(json!({"name": "Version", "description": "", "env_variable": "MC_VERSION",
        "default_value": "latest", "user_viewable": true, "user_editable": true, "rules": "required|string"}));
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "variable_renamed variables/MOTD !",
            "variable_removed variables/BUILD_NUMBER !",
            "variable_added variables/PAPER_BUILD",
            "variable_added variables/MC_VERSION",
        ]
    );
    assert_eq!(changes[0].text, "variable `MOTD` renamed to `SERVER_MOTD`");
    assert_eq!(
        changes[1].text,
        "variable `BUILD_NUMBER` removed (\"Build Number\", default `latest`)"
    );
    assert_eq!(
        changes[3].new.as_ref().expect("the variable")["rules"],
        json!(["required", "string"])
    );
}

#[test]
fn variable_fields() {
    let old = base();
    let mut new = old.clone();
    let v = &mut new["variables"][1];
    v["name"] = json!("MOTD");
    v["description"] = json!("Shown in the list of servers.");
    v["default_value"] = json!("Welcome");
    v["rules"] = json!("required|string|max:32");
    v["user_viewable"] = json!(false);
    v["user_editable"] = json!(false);
    let changes = diff(&old, &new);
    assert_eq!(
        lines(&changes),
        [
            "variable_changed variables/MOTD/name",
            "variable_changed variables/MOTD/description",
            "variable_changed variables/MOTD/default_value",
            "variable_changed variables/MOTD/rules",
            "variable_changed variables/MOTD/user_viewable",
            "variable_changed variables/MOTD/user_editable",
        ]
    );
    let texts: Vec<&str> = changes.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts[3],
        "variable `MOTD`: rules changed from `required|string|max:64` to `required|string|max:32`"
    );
    assert_eq!(texts[4], "variable `MOTD` is now hidden from users");
    assert_eq!(texts[5], "variable `MOTD` can no longer be edited by users");
}

#[test]
fn a_default_its_rules_refuse_is_breaking() {
    let old = base();
    let mut new = old.clone();
    new["variables"][1]["default_value"] = json!("x".repeat(70));
    let c = diff(&old, &new);
    let c = one(&c);
    assert!(c.breaking);
    let why = c.why.as_deref().expect("a reason");
    assert!(why.contains("over the maximum 64"), "{why}");
    // A new default that passes the rules breaks nothing.
    new["variables"][1]["default_value"] = json!("Hello");
    assert!(!one(&diff(&old, &new)).breaking);
}

#[test]
fn stricter_rules_the_old_default_fails_are_breaking() {
    let old = base();
    let mut new = old.clone();
    // The default `A Minecraft Server` has 18 characters.
    new["variables"][1]["rules"] = json!("required|string|max:10");
    let c = diff(&old, &new);
    let c = one(&c);
    assert!(c.breaking, "{c:#?}");
    assert!(c.why.as_deref().expect("why").contains("old default"));
    new["variables"][1]["rules"] = json!("required|string|max:100");
    assert!(!one(&diff(&old, &new)).breaking);
}

#[test]
fn an_added_variable_whose_default_fails_its_rules_is_breaking() {
    let old = base();
    let mut new = old.clone();
    new["variables"]
        .as_array_mut()
        .expect("list")
        .push(json!({"name": "Token", "description": "",
        "env_variable": "TOKEN", "default_value": "", "user_viewable": true, "user_editable": true,
        "rules": "required|string"}));
    let c = diff(&old, &new);
    assert!(one(&c).breaking, "{c:#?}");
}

#[test]
fn changes_serialize_for_a_history_document_and_read_back() {
    let old = base();
    let mut new = old.clone();
    new["docker_images"] = json!({"Java 17": "ghcr.io/pterodactyl/yolks:java_17"});
    new["scripts"]["installation"]["script"] = json!("echo hi\n");
    let changes = diff(&old, &new);
    let text = serde_json::to_string(&changes).expect("serializes");
    assert!(text.contains(r#""kind":"image_removed","path":["docker_images","Java 21"],"old":"ghcr.io/pterodactyl/yolks:java_21","breaking":true"#), "{text}");
    let back: Vec<Change> = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back, changes);
    assert_eq!(changes[1].kind, Kind::InstallScriptChanged);
}

#[test]
fn the_same_eggs_give_the_same_list() {
    let old = base();
    let mut new = old.clone();
    new["variables"] = json!([]);
    new["docker_images"] = json!({});
    new["config"]["files"] = json!({});
    let first = diff(&old, &new);
    // Two images, one config file and three variables removed.
    assert_eq!(first.len(), 2 + 1 + 3, "{first:#?}");
    for _ in 0..3 {
        assert_eq!(diff(&old, &new), first);
    }
}
