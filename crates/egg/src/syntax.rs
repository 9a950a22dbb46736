//! The two syntaxes egg files are written in, and the limits the parsers keep: what the
//! faithful parse (`faithful.rs`) and the walks that place each node (`spans_json.rs`,
//! `spans_yaml.rs`) share, so that neither imports the other.

/// Deepest nesting of arrays and objects accepted in JSON: serde_json's own limit (it refuses the
/// 128th level).
pub const MAX_JSON_DEPTH: usize = 127;

/// Deepest nesting accepted in YAML, through the parser's budget. Lower than JSON's because the
/// YAML deserializer needs far more stack per level: 65 levels fit a 2 MiB thread stack in a debug
/// build, 100 did not. Real eggs nest about 6 levels deep.
pub const MAX_YAML_DEPTH: usize = 64;

/// Most nodes (mappings, sequences and scalars, those an alias copies counted again) a YAML file
/// may make. The largest real egg has about 1,000; the parser's default, 250,000, let a
/// 700-byte alias bomb found by fuzzing cost about a second of a debug build, and over ten of
/// the fuzz build, before it was refused.
pub const MAX_YAML_NODES: usize = 25_000;

/// Longest mapping key written without `? ` accepted in YAML, in characters. YAML 1.2 stops
/// such a key at 1,024, but the panels read YAML with Symfony's parser, which has no such limit,
/// and Pelican's own export (Symfony's dumper) writes any key that way: a docker image name of
/// 20,000 characters, say, found by fuzzing in a `pelican.yaml` eggcat wrote exactly as Pelican
/// would, which our parser then refused. 64 KiB bounds what the scanner buffers while it looks
/// for the key's `:` (granit's reason for a limit).
pub const MAX_YAML_KEY_CHARS: usize = 64 * 1024;

/// Which syntax a file is written in, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxKind {
    /// `.json`
    Json,
    /// `.yaml` or `.yml`
    Yaml,
}

impl SyntaxKind {
    /// The syntax of a file name by its extension (any case), or `None` for anything else.
    pub fn from_file_name(name: &str) -> Option<SyntaxKind> {
        let (_, ext) = name.rsplit_once('.')?;
        if ext.eq_ignore_ascii_case("json") {
            Some(SyntaxKind::Json)
        } else if ext.eq_ignore_ascii_case("yaml") || ext.eq_ignore_ascii_case("yml") {
            Some(SyntaxKind::Yaml)
        } else {
            None
        }
    }
}

/// The options of the YAML parser serde-saphyr runs (granit-parser) that change what it reads,
/// for the walk over its events that finds each node's place (`spans_yaml.rs`).
pub(crate) fn yaml_parser_options() -> serde_saphyr::granit_parser::Options {
    serde_saphyr::granit_parser::options! { simple_key_max_lookahead: MAX_YAML_KEY_CHARS }
}
