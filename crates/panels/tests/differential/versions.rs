//! Older versions of corpus eggs, for the published update-check hash (issue 37, §1): each
//! version in `history.json` carries `pelicanUpdateCheckMd5`, the hash Pelican's update check
//! computes for an egg imported, unedited, from the `pelican.json` eggcat would have published
//! at that version. The corpus is one snapshot without history, so the older versions are made
//! here, by a seeded rule, with the changes upstream commits make (a default, a description, a
//! startup command, an image's tag, a variable added since): one older version each of a
//! seeded sample of the corpus eggs. `databases.php` imports each older file into the panel
//! that holds the whole corpus at its current version (updating the egg in place, by its uuid,
//! as a panel that imported eggcat's file back then has it) and runs the update check, whose
//! two hashes (check_hashes.php) must equal the hash eggcat publishes for that version.

use eggcat_panels::{Database, PerDatabase};
use serde_json::Value;

use crate::Published;

/// The seed of the sample and of the changes: a fixed value, so that every run checks the
/// same versions.
const SEED: u64 = 37;

/// One egg in six of the corpus.
const SAMPLE: u64 = 6;

/// An older version of one egg: the name the test knows it by, and eggcat's file per database
/// order with the hash eggcat publishes for it.
pub(crate) struct Older {
    pub(crate) name: String,
    pub(crate) files: PerDatabase<Vec<u8>>,
    pub(crate) md5: PerDatabase<String>,
    /// What the older version lacks or has otherwise, for the test's messages.
    pub(crate) change: &'static str,
}

/// FNV-1a of the seed and `text`.
fn hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ SEED;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The older versions: for each egg the seeded sample takes whose current file Pelican
/// imports, one older version made by one of the changes, as long as Pelican imports that too;
/// converted on `workers` threads, in corpus order.
pub(crate) fn older(published: &[Published], workers: usize) -> Vec<Older> {
    let sample: Vec<&Published> = published
        .iter()
        .filter(|p| hash(&p.egg.rel).is_multiple_of(SAMPLE) && p.variants.pelican.importable)
        .collect();
    std::thread::scope(|scope| {
        let parts: Vec<_> = sample
            .chunks(sample.len().div_ceil(workers).max(1))
            .map(|part| scope.spawn(|| part.iter().filter_map(|p| one(p)).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("making a share of the older versions"))
            .collect()
    })
}

/// One older version of `p`'s egg, or `None` where no change applies or Pelican would refuse it.
fn one(p: &Published) -> Option<Older> {
    let (value, change) = earlier(&p.egg.value, hash(&p.egg.rel) / SAMPLE)?;
    let variants = crate::with(&p.egg.rel, |t| eggcat_panels::variants(&value, t));
    if !variants.pelican.importable {
        return None;
    }
    let file = |db: Database| variants.pelican_json.get(db).clone();
    let files = PerDatabase {
        sqlite: file(Database::Sqlite)?,
        mariadb: file(Database::MariaDb)?,
        postgresql: file(Database::PostgreSql)?,
    };
    let md5 = PerDatabase {
        sqlite: eggcat_panels::update_check_md5(&files.sqlite)?,
        mariadb: eggcat_panels::update_check_md5(&files.mariadb)?,
        postgresql: eggcat_panels::update_check_md5(&files.postgresql)?,
    };
    Some(Older {
        name: p.egg.rel.clone(),
        files,
        md5,
        change,
    })
}

/// `egg` as it was before one upstream change, the `pick`th of those that apply to it.
fn earlier(egg: &Value, pick: u64) -> Option<(Value, &'static str)> {
    type Edit = fn(&mut Value) -> bool;
    let edits: [(&'static str, Edit); 5] = [
        ("a variable's default value", |e| {
            let default = e
                .pointer_mut("/variables/0/default_value")
                .filter(|d| d.is_string());
            default.is_some_and(|d| text_of(d, |s| format!("{s}0")))
        }),
        ("a variable added since", |e| {
            e.get_mut("variables")
                .and_then(Value::as_array_mut)
                .is_some_and(|v| v.len() > 1 && v.pop().is_some())
        }),
        ("the description", |e| {
            let d = e.get_mut("description");
            d.is_some_and(|d| text_of(d, |s| format!("{s} (an older text)")))
        }),
        ("the startup command", |e| {
            let s = e.get_mut("startup");
            s.is_some_and(|s| text_of(s, |s| format!("{s} --older")))
        }),
        ("an image's tag", |e| {
            let images = e
                .get_mut("docker_images")
                .and_then(Value::as_object_mut)
                .and_then(|m| m.values_mut().next());
            images.is_some_and(|i| text_of(i, |s| format!("{s}-older")))
        }),
    ];
    let start = usize::try_from(pick % 5).unwrap_or(0);
    (0..5).find_map(|i| {
        let (what, edit) = edits[(start + i) % 5];
        let mut older = egg.clone();
        edit(&mut older).then_some((older, what))
    })
}

/// Replaces the text at `v` by `f` of it; false when `v` is no text.
fn text_of(v: &mut Value, f: impl Fn(&str) -> String) -> bool {
    match v {
        Value::String(s) => {
            *s = f(s);
            true
        }
        _ => false,
    }
}
