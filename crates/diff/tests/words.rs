//! The one-line texts read right where issue 25 found them wrong: long values cut around their
//! first difference (never two identical sides), an empty list in words, numbers quoted on
//! both sides or neither, a PTDL_v1 image (its own label) removed or relabelled, and a stop
//! signal whose case alone changed, which is no breaking change.

use eggcat_diff::{Change, Kind, diff, load};
use serde_json::{Value, json};

fn base() -> Value {
    let path = format!("{}/tests/data/paper.ptdl.json", env!("CARGO_MANIFEST_DIR"));
    load("paper.ptdl.json", &std::fs::read(path).expect("fixture")).expect("an egg")
}

fn only(changes: &[Change]) -> &Change {
    assert_eq!(changes.len(), 1, "{changes:#?}");
    &changes[0]
}

/// The two values shown in a "changed from X to Y" text.
fn sides(text: &str) -> (String, String) {
    let (_, rest) = text.split_once("changed from ").expect("a change of value");
    let (a, b) = rest.split_once(" to ").expect("two sides");
    (a.to_owned(), b.to_owned())
}

/// A long startup command, a long description and a long default, each changed past the first
/// 60 characters: the text shows the part that differs, with the lengths, and its two sides
/// differ.
#[test]
fn long_values_changed_late_show_where_they_differ() {
    let jvm = "java -Xms128M -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxGCPauseMillis=200 -XX:+UnlockExperimentalVMOptions";
    let cases: [(&str, Value, Value); 3] = [
        (
            "startup",
            json!(format!("{jvm} -jar {{{{SERVER_JARFILE}}}} nogui")),
            json!(format!("{jvm} -jar {{{{SERVER_JARFILE}}}} --nogui")),
        ),
        (
            "description",
            json!(format!(
                "{jvm}: the flags the server runs with, tuned for 8 GB."
            )),
            json!(format!(
                "{jvm}: the flags the server runs with, tuned for 16 GB."
            )),
        ),
        (
            "default",
            json!(format!("{jvm} a")),
            json!(format!("{jvm} b")),
        ),
    ];
    for (field, old_value, new_value) in cases {
        let (mut old, mut new) = (base(), base());
        match field {
            "default" => {
                old["variables"][0]["default_value"] = old_value.clone();
                new["variables"][0]["default_value"] = new_value.clone();
            }
            key => {
                old[key] = old_value.clone();
                new[key] = new_value.clone();
            }
        }
        let c = diff(&old, &new)
            .into_iter()
            .find(|c| c.old.is_some() && c.new.is_some())
            .expect("a change of value");
        let (a, b) = sides(&c.text);
        assert_ne!(a, b, "{field}: {}", c.text);
        let len = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
        assert!(
            a.ends_with(&format!("({} characters)", len(&old_value))),
            "{field}: {a}"
        );
        assert!(
            a.starts_with("`…"),
            "{field}: cut around the difference: {a}"
        );
        assert!(a.chars().count() < 100, "{field}: {a}");
    }
}

/// Random pairs of long texts differing anywhere: the two sides never read the same.
#[test]
fn the_two_sides_of_a_change_never_read_the_same() {
    let mut seed = 0x2545_f491_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet: Vec<char> = "ab \n⏎é\"1".chars().collect();
    for _ in 0..2000 {
        let len = (next() % 150) as usize;
        let old: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let mut chars: Vec<char> = old.chars().collect();
        let at = (next() as usize) % (chars.len() + 1);
        match next() % 3 {
            0 if at < chars.len() => chars[at] = if chars[at] == 'a' { 'b' } else { 'a' },
            1 if at < chars.len() => {
                chars.remove(at);
            }
            _ => chars.insert(at, '\n'),
        }
        let new: String = chars.into_iter().collect();
        if old == new {
            continue;
        }
        let (mut a, mut b) = (base(), base());
        a["startup"] = json!(old);
        b["startup"] = json!(new);
        let changes = diff(&a, &b);
        let c = only(&changes);
        if c.kind != Kind::StartupChanged {
            continue;
        }
        let (x, y) = sides(&c.text);
        assert_ne!(x, y, "{old:?} -> {new:?}: {}", c.text);
    }
}

#[test]
fn an_empty_list_is_said_in_words() {
    let mut old = base();
    old["config"]["startup"] = json!({"done": []});
    let mut new = base();
    new["config"]["startup"] = json!({"done": [], "userInteraction": []});
    let c = only(&diff(&new, &old)).clone();
    assert_eq!(
        c.text,
        "startup setting `userInteraction` removed (was an empty list)"
    );
}

/// Two texts are shown as texts: a version number is not quoted on one side only. A text and
/// a number are still told apart.
#[test]
fn numbers_are_quoted_on_both_sides_or_neither() {
    let (mut old, mut new) = (base(), base());
    old["variables"][0]["default_value"] = json!("1.6");
    new["variables"][0]["default_value"] = json!("1.6.2");
    let c = only(&diff(&old, &new)).clone();
    assert_eq!(
        c.text,
        "variable `SERVER_JARFILE`: default changed from `1.6` to `1.6.2`"
    );
    let mut typed = base();
    typed["config"]["files"] = json!({"a.yml": {"parser": "yaml", "find": {"port": "25565"}}});
    let mut number = typed.clone();
    number["config"]["files"]["a.yml"]["find"]["port"] = json!(25565);
    let c = only(&diff(&typed, &number)).clone();
    assert!(
        c.text.ends_with("changed from `\"25565\"` to `25565`"),
        "{}",
        c.text
    );
}

/// A PTDL_v1 egg lists images without labels (each is its own): relabelled in PTDL_v2, it is a
/// rename of the label; removed, it is named once.
#[test]
fn a_ptdl_v1_image_relabelled_or_removed() {
    let mut v1 = base();
    v1["meta"]["version"] = json!("PTDL_v1");
    let object = v1.as_object_mut().expect("an object");
    object.remove("docker_images");
    object.insert(
        "images".into(),
        json!([
            "ghcr.io/pterodactyl/yolks:java_17",
            "ghcr.io/pterodactyl/yolks:java_21"
        ]),
    );
    let mut v2 = base();
    v2["docker_images"] = json!({"Java 17": "ghcr.io/pterodactyl/yolks:java_17"});
    let changes = diff(&v1, &v2);
    let texts: Vec<&str> = changes.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "docker image label `ghcr.io/pterodactyl/yolks:java_17` renamed to `Java 17`",
            "docker image `ghcr.io/pterodactyl/yolks:java_21` removed",
        ]
    );
}

/// `^c` to `^C`: the panels send the signal upper-cased, so servers stop the same way; the
/// stored text changed, so it is listed, not as breaking. Another signal is breaking.
#[test]
fn a_stop_signal_changed_in_case_only_is_not_breaking() {
    let (mut old, mut new) = (base(), base());
    old["config"]["stop"] = json!("^c");
    new["config"]["stop"] = json!("^C");
    let c = only(&diff(&old, &new)).clone();
    assert_eq!(c.kind, Kind::StopChanged);
    assert!(!c.breaking && c.why.is_none(), "{c:#?}");
    assert!(c.text.contains("the same signal"), "{}", c.text);
    new["config"]["stop"] = json!("^SIGKILL");
    assert!(only(&diff(&old, &new)).breaking);
    old["config"]["stop"] = json!("stop");
    new["config"]["stop"] = json!("STOP");
    assert!(
        only(&diff(&old, &new)).breaking,
        "a command is sent as written"
    );
}
