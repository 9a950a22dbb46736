//! The vocabulary every check shares, and nothing else: the codes with their severities
//! ([`code`]), the published [`Diagnostic`](diagnostic::Diagnostic) ([`diagnostic`]), and the
//! [`Finding`](finding::Finding) a check builds before positions are known ([`finding`]).
//!
//! Architecture invariant: this module imports no check. The checks (`crate::checks`) depend on
//! it and not on each other; the dispatcher (`checks::check_egg`) depends on the checks; a
//! test (`tests/layers.rs`) reads the sources to keep it so.

pub(crate) mod code;
pub(crate) mod diagnostic;
pub(crate) mod finding;

pub use code::Code;
pub use diagnostic::{Diagnostic, Severity, Summary};
pub(crate) use finding::{Family, Finding, at, family, kind, missing, wrong_type};
