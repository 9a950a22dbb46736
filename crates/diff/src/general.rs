//! The egg's identity (name, description, author, uuid, update URL, icon, tags), its docker
//! images, its startup commands and its plain lists (features, file denylist).
//!
//! Images are matched by label, then a label seen on one side only is matched by image
//! reference (a renamed label). Startup commands are matched by name; PTDL's single unnamed
//! `startup` stands for the command Pterodactyl's export would carry (`Default`, or else the
//! first), so a PLCN egg and its PTDL twin compare equal.

use serde_json::Value;

use crate::model::Model;
use crate::{Change, Kind, Make};

/// Name, description, author, uuid, update URL, icon, tags: none of them reaches a server.
pub(crate) fn identity(a: &Model, b: &Model, out: &mut Vec<Change>) {
    let (icon_a, icon_b) = (icon(&a.icon), icon(&b.icon));
    let fields: [(Kind, &str, &String, &String); 6] = [
        (Kind::NameChanged, "name", &a.name, &b.name),
        (
            Kind::DescriptionChanged,
            "description",
            &a.description,
            &b.description,
        ),
        (Kind::AuthorChanged, "author", &a.author, &b.author),
        (Kind::UuidChanged, "uuid", &a.uuid, &b.uuid),
        (
            Kind::UpdateUrlChanged,
            "update_url",
            &a.update_url,
            &b.update_url,
        ),
        (Kind::IconChanged, "icon", &icon_a, &icon_b),
    ];
    for (kind, key, old, new) in fields {
        if !prose_eq(old, new) {
            let path: &[&str] = if key == "update_url" {
                &["meta", "update_url"]
            } else {
                &[key]
            };
            out.push(Change::new(kind, path, opt(old), opt(new)));
        }
    }
    set_changes(
        "tags",
        &a.tags,
        &b.tags,
        Kind::TagAdded,
        Kind::TagRemoved,
        out,
    );
}

/// An icon (a data URL of up to 1 MiB) as its media type, size and a short fingerprint, so
/// that a change list stays small and still tells two icons apart.
fn icon(data_url: &str) -> String {
    if data_url.is_empty() {
        return String::new();
    }
    let head = data_url.split([',', ';']).next().unwrap_or("");
    // FNV-1a: not a security hash, only a way to show that the bytes differ.
    let hash = data_url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{head} ({} bytes, fnv {:08x})", data_url.len(), hash >> 32)
}

/// Features and the file denylist, as sets.
pub(crate) fn lists(a: &Model, b: &Model, out: &mut Vec<Change>) {
    set_changes(
        "features",
        &a.features,
        &b.features,
        Kind::FeatureAdded,
        Kind::FeatureRemoved,
        out,
    );
    set_changes(
        "file_denylist",
        &a.denylist,
        &b.denylist,
        Kind::DenylistAdded,
        Kind::DenylistRemoved,
        out,
    );
}

/// Texts equal once whitespace runs are read as one space: Pelican's YAML export word-wraps
/// descriptions, so line breaks in prose are layout, not content.
pub(crate) fn prose_eq(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// A text as an old or new value: absent when empty.
pub(crate) fn opt(s: &str) -> Option<Value> {
    (!s.is_empty()).then(|| Value::String(s.to_owned()))
}

fn set_changes(
    key: &str,
    old: &[String],
    new: &[String],
    added: Kind,
    removed: Kind,
    out: &mut Vec<Change>,
) {
    for item in old.iter().filter(|i| !new.contains(i)) {
        out.push(Change::new(removed, &[key, item], opt(item), None));
    }
    for item in new.iter().filter(|i| !old.contains(i)) {
        out.push(Change::new(added, &[key, item], None, opt(item)));
    }
}

/// Docker images, by label, then renamed labels by image reference.
pub(crate) fn images(a: &Model, b: &Model, out: &mut Vec<Change>) {
    let find = |list: &[(String, String)], label: &str| {
        list.iter()
            .find(|(l, _)| l == label)
            .map(|(_, i)| i.clone())
    };
    let mut gone: Vec<&(String, String)> = Vec::new();
    for pair in &a.images {
        let (label, image) = pair;
        match find(&b.images, label) {
            Some(now) if now != *image => out.push(
                Change::new(
                    Kind::ImageChanged,
                    &["docker_images", label],
                    opt(image),
                    opt(&now),
                )
                .breaking("servers on this image get another image under the same label"),
            ),
            Some(_) => {}
            None => gone.push(pair),
        }
    }
    let mut fresh: Vec<&(String, String)> = b
        .images
        .iter()
        .filter(|(l, _)| find(&a.images, l).is_none())
        .collect();
    for (label, image) in gone {
        match fresh.iter().position(|(_, i)| i == image) {
            Some(k) => {
                let (new_label, _) = fresh.remove(k);
                out.push(Change::new(
                    Kind::ImageRenamed,
                    &["docker_images", label],
                    opt(label),
                    opt(new_label),
                ));
            }
            None => out.push(
                Change::new(
                    Kind::ImageRemoved,
                    &["docker_images", label],
                    opt(image),
                    None,
                )
                .breaking("servers on this image keep an image the egg no longer offers"),
            ),
        }
    }
    for (label, image) in fresh {
        out.push(Change::new(
            Kind::ImageAdded,
            &["docker_images", label],
            None,
            opt(image),
        ));
    }
}

/// Startup commands, by name. A PTDL egg's one unnamed command is matched with the other
/// egg's `Default` command, or its first.
pub(crate) fn startup(a: &Model, b: &Model, out: &mut Vec<Change>) {
    let (old, new) = (named(&a.startup, &b.startup), named(&b.startup, &a.startup));
    let changed = "servers start with the new command at their next restart (a server with its own edited command keeps it)";
    let mut gone = Vec::new();
    for (name, command) in &old {
        match new.iter().find(|(n, _)| n == name) {
            Some((_, now)) if now != command => out.push(
                Change::new(
                    Kind::StartupChanged,
                    &["startup_commands", name],
                    opt(command),
                    opt(now),
                )
                .breaking(changed),
            ),
            Some(_) => {}
            None => gone.push((name, command)),
        }
    }
    let mut fresh: Vec<&(String, String)> = new
        .iter()
        .filter(|(n, _)| !old.iter().any(|(o, _)| o == n))
        .collect();
    for (name, command) in gone {
        match fresh.iter().position(|(_, c)| c == command) {
            Some(k) => {
                let (new_name, _) = fresh.remove(k);
                out.push(Change::new(
                    Kind::StartupRenamed,
                    &["startup_commands", name],
                    opt(name),
                    opt(new_name),
                ));
            }
            None => out.push(
                Change::new(
                    Kind::StartupRemoved,
                    &["startup_commands", name],
                    opt(command),
                    None,
                )
                .breaking("servers started with this command lose it"),
            ),
        }
    }
    for (name, command) in fresh {
        out.push(Change::new(
            Kind::StartupAdded,
            &["startup_commands", name],
            None,
            opt(command),
        ));
    }
}

/// `commands` with PTDL's unnamed command named after its counterpart in `other`: its
/// `Default` command, or its first, or `Default` when `other` has none.
fn named(
    commands: &[(Option<String>, String)],
    other: &[(Option<String>, String)],
) -> Vec<(String, String)> {
    let counterpart = other
        .iter()
        .filter_map(|(n, _)| n.clone())
        .find(|n| n == "Default")
        .or_else(|| other.first().and_then(|(n, _)| n.clone()))
        .unwrap_or_else(|| "Default".to_owned());
    commands
        .iter()
        .map(|(n, c)| (n.clone().unwrap_or_else(|| counterpart.clone()), c.clone()))
        .collect()
}
