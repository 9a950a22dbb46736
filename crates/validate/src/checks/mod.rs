//! The checks on a parsed egg, one file per part of it: the top-level fields (`fields.rs`),
//! docker images, variables, startup commands, `config`, the variables nothing uses, the
//! install script. [`check_egg`] runs them all; it is the only module that knows them all.
//!
//! Architecture invariant: a check imports the vocabulary (`crate::vocab`) and the shared
//! grammars (`rules`, `php_regex`, `reference`, `placeholder`, `span` pointers), never another
//! check. What one check learns for another (the texts that may name a variable) goes through
//! [`check_egg`].

mod config;
mod fields;
mod images;
mod install;
mod startup;
mod unused;
mod update_check;
mod variables;

use serde_json::{Map, Value};

use crate::placeholder::Known;
use crate::vocab::{Family, Finding, at};

/// The findings of every check on `doc`, an object of the given format and family, in the
/// order the checks found them (past the cap on diagnostics, the first found are kept among
/// those of one severity).
pub(crate) fn check_egg(
    doc: &Map<String, Value>,
    format: &str,
    fam: Family,
    syntax: eggcat_egg::SyntaxKind,
) -> Vec<Finding> {
    let mut out = Vec::new();
    fields::check_fields(doc, fam, &mut out);
    images::check_images(doc, format, fam, &mut out);
    variables::check_variables(doc, fam, &mut out);
    let known = Known::of(doc);
    // Every text that can name a variable, for the unused-variable check.
    let mut texts = startup::check_startup(doc, fam, &known, &mut out);
    texts.extend(config::check_config(doc, fam, &known, &mut out));
    if let Some(Value::String(script)) = at(doc, "/scripts/installation/script") {
        texts.push(script.clone());
    }
    unused::check_unused(doc, &texts, &mut out);
    install::check_install(doc, &mut out);
    update_check::check_update_check(doc, syntax, &mut out);
    out
}
