//! The JSON Schema `pattern`s that several published strings share (the generated OpenAPI's),
//! named once.

/// A slug: what the catalog ever gives as one.
pub(crate) const SLUG: &str = r"^[a-z0-9][a-z0-9-]*$";
/// A platform, `os/architecture[/variant]` (`linux/arm64/v8`).
pub(crate) const PLATFORM: &str = r"^[a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?$";
/// A git commit id, SHA-1 or SHA-256.
pub(crate) const COMMIT: &str = r"^[0-9a-f]{40,64}$";
