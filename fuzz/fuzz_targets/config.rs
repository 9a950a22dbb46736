//! The configuration file (TOML): `Config::load` of crates/cli/src/config.rs on any text, no
//! panic. The binary's own modules are compiled in as they are (`#[path]`), so the target reads
//! exactly the code `eggcat` runs: the file's keys, the sources, durations, `base_url`,
//! `history_*`, `[publish]`, `[images]`, and the one-line error message with its "did you mean".
#![no_main]
#![allow(
    dead_code,
    unreachable_pub,
    reason = "the binary's modules, only partly used here"
)]

#[path = "../../crates/cli/src/config.rs"]
mod config;
/// How the binary words its errors.
#[path = "../../crates/cli/src/errors.rs"]
mod errors;
#[path = "../../crates/cli/src/words.rs"]
mod words;

use std::io::Write;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // One file, rewritten for each input: `Config::load` reads a path. Relative paths in it
    // resolve against its (empty) folder.
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary folder"));
    let path = dir.path().join("eggcat.toml");
    let mut file = std::fs::File::create(&path).expect("the file is writable");
    file.write_all(data).expect("the file is writable");
    drop(file);
    match config::Config::load(Some(&path)) {
        Ok(config) => {
            let _ = config.base_url();
        }
        Err(e) => {
            let _ = format!("{e:#}");
        }
    }
});
