//! Architecture invariant: no import circle across the files of one crate. A circle is a module
//! file that refers to another file of its crate, which refers back to it, directly or through
//! other files of the same crate. Such files can only be read, changed and tested together, so
//! the test reads every `src/` file of every crate under `crates/` and names each circle.
//!
//! What is an edge from file A to file B: a path in A's code that starts with `crate`, `super`
//! or `self` (in a `use`, a `use` group, or written out in the code) and that names an item
//! defined in B. B is the module file of the longest prefix of the path, unless that module
//! imports the next name of the path from another module of the crate (`pub use doc::Doc;` in
//! `games/mod.rs`, a private `use` a child reaches through `super::`, or a glob `use x::*` whose
//! module has the name): then B is where that import leads, followed from import to import. So
//! `super::Doc` in `games/siblings.rs` is an edge to `games/doc.rs`. What is not an edge, and
//! why:
//! - a path to A itself, an ancestor or a descendant of A's module (`super::*` from a child
//!   file, a `crate::Foo` that lib.rs defines, lib.rs re-exporting a child): a parent declares
//!   its children and re-exports their items, which is the shape of every module tree, not a
//!   circle;
//! - a name the module at the end of the path imports from another crate
//!   (`pub use eggcat_wire::Game;`), or does not know (made by a macro): it stays with that
//!   module, which makes it no edge when that module is A's ancestor;
//! - code under `#[cfg(test)]`, including the file of a `#[cfg(test)] mod tests;`: tests may
//!   use anything they test;
//! - comments and literals: text that looks like a path is not a reference.
//!
//! The check reads tokens, not a full syntax tree, which is enough for paths and `use` items: a
//! hand-written tokenizer keeps the test free of a parser dependency.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path from the crate root: `[]` is the root, `["games", "siblings"]` is
/// `crate::games::siblings`.
type ModPath = Vec<String>;

/// The files of one crate (paths relative to its `src/`, with `/`) and, for each, the files of
/// the same crate it refers to.
type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_import_circle_across_the_files_of_one_crate() {
    let crates_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut circles = Vec::new();
    let (mut crates, mut files, mut edges) = (0, 0, 0);
    for dir in crate_folders(&crates_dir) {
        let graph = file_graph(&dir.join("src"));
        let name = dir.file_name().expect("a crate folder has a name");
        let name = name.to_string_lossy();
        crates += 1;
        files += graph.len();
        edges += graph.values().map(BTreeSet::len).sum::<usize>();
        circles.extend(circles_of(&graph).iter().map(|c| format!("{name}: {c}")));
    }
    eprintln!("{crates} crates, {files} files, {edges} edges between files");
    // A scan that found nothing would pass for the wrong reason: a moved workspace root, or a
    // tokenizer that no longer sees paths.
    assert!(
        crates > 1 && edges > 0,
        "the scan found {crates} crates and {edges} edges"
    );

    assert!(
        circles.is_empty(),
        "import circles across the files of a crate (move what both sides need into a file \
         of its own, or into the one that owns it):\n{circles:#?}"
    );
}

/// The checker itself, seen failing: `a.rs` and `b.rs` refer to each other, and `a/c.rs`
/// refers to its parent, to `b.rs` from a comment, a string and its tests only, none of which
/// count. `m/p.rs` and `m/q.rs` refer to each other only through what their parent `m/mod.rs`
/// re-exports, which counts; the names `m/mod.rs` defines itself or takes from another crate do
/// not. `a.rs` also reaches `m/q.rs` through a chain of re-exports: lib.rs, then `m/mod.rs`.
#[test]
fn the_check_reports_a_circle_and_nothing_else() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let src = dir.path().join("src");
    let write = |path: &str, text: &str| {
        let path = src.join(path);
        fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
        fs::write(path, text).expect("write a module file");
    };
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod m;\npub use crate::a::Y;\npub use m::{Q as Queue};\n\
         #[cfg(test)]\nmod tests;\n",
    );
    write("tests.rs", "use crate::b::X;\n");
    write(
        "a.rs",
        "//! Uses b.\nmod c;\npub struct Y;\npub fn x() -> crate::b::X { todo!() }\n\
         pub fn q() -> crate::Queue { todo!() }\n",
    );
    write(
        "b.rs",
        "use crate::{a::{Y, c::Z}, b as _};\npub struct X(Y, Z);\n",
    );
    write(
        "a/c.rs",
        "use super::*;\n/// Not an edge: crate::b::X\npub struct Z(Y);\n\
         const S: &str = \"crate::b::X\";\n#[cfg(test)]\nmod tests {\n    use crate::b::X;\n}\n",
    );
    write(
        "m/mod.rs",
        "mod p;\nmod q;\npub use p::P;\npub use self::q::*;\npub use std::fmt::Debug;\n\
         pub struct R;\n",
    );
    write("m/p.rs", "use super::{Debug, Q, R};\npub struct P(Q, R);\n");
    write("m/q.rs", "pub struct Q(super::P);\n");

    let graph = file_graph(&src);

    assert_eq!(
        graph["a/c.rs"],
        BTreeSet::new(),
        "c.rs refers only to its parent"
    );
    assert!(
        !graph.contains_key("tests.rs"),
        "a #[cfg(test)] module file is left out"
    );
    assert_eq!(
        graph["m/p.rs"],
        BTreeSet::from(["m/q.rs".to_string()]),
        "super::Q leads to q.rs through a glob re-export; R and Debug stay with the parent"
    );
    assert_eq!(
        graph["a.rs"],
        BTreeSet::from(["b.rs".to_string(), "m/q.rs".to_string()]),
        "crate::Queue leads to q.rs through two re-exports"
    );
    assert_eq!(
        circles_of(&graph),
        ["a.rs -> b.rs -> a.rs", "m/p.rs -> m/q.rs -> m/p.rs"]
    );
}

/// The folders under `crates_dir` that have a `src/` folder, sorted.
fn crate_folders(crates_dir: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = fs::read_dir(crates_dir)
        .expect("read the crates folder")
        .map(|entry| entry.expect("read the crates folder").path())
        .filter(|path| path.join("src").is_dir())
        .collect();
    folders.sort();
    folders
}

/// The file-level graph of the crate whose sources are in `src`.
fn file_graph(src: &Path) -> Graph {
    let (files, tokens) = read_crate(src);
    let mut names = BTreeMap::new();
    for (module, tokens) in &tokens {
        names.extend(names_in(tokens, module, &files));
    }
    let krate = Crate { files, names };

    let name = |module: &ModPath| relative_name(src, &krate.files[module]);
    let mut graph = Graph::new();
    for (module, tokens) in &tokens {
        let targets = paths_in(tokens, module)
            .iter()
            .filter_map(|path| holder(path, &krate, MAX_HOPS))
            .filter(|target| !module.starts_with(target) && !target.starts_with(module))
            .map(|target| name(&target))
            .collect();
        graph.insert(name(module), targets);
    }
    graph
}

/// What the check knows of one crate: its module files, and the names of each module (a file's
/// own or an inline `mod name { }` in it).
struct Crate {
    files: BTreeMap<ModPath, PathBuf>,
    names: BTreeMap<ModPath, Names>,
}

/// What the names of one module stand for, read from its items.
#[derive(Default)]
struct Names {
    /// The items it defines itself: `fn`, `struct`, `mod`, `macro_rules!` and the like.
    defined: BTreeSet<String>,
    /// The names it imports with `use` (under their `as` alias, if any), each with the path from
    /// the crate root it stands for, or `None` for an import from another crate.
    imported: BTreeMap<String, Option<ModPath>>,
    /// The modules of the crate it imports every name from, with `use x::*`.
    globs: Vec<ModPath>,
}

/// How many imports the check follows from one path: more than any chain of re-exports, and a
/// bound on a loop of glob imports.
const MAX_HOPS: usize = 16;

/// The module files of the crate in `src` but those that are test code (the file of a
/// `#[cfg(test)] mod tests;` and its children), each with its tokens outside `#[cfg(test)]`
/// items.
fn read_crate(src: &Path) -> (BTreeMap<ModPath, PathBuf>, BTreeMap<ModPath, Vec<String>>) {
    let mut files = module_files(src);
    let mut test_modules = Vec::new();
    let mut tokens = BTreeMap::new();
    for (module, path) in &files {
        let source = fs::read_to_string(path).expect("read a module file");
        let (kept, test_mods) = without_test_code(&tokenize(&source));
        test_modules.extend(
            test_mods
                .into_iter()
                .map(|name| [module.clone(), vec![name]].concat()),
        );
        tokens.insert(module.clone(), kept);
    }
    let is_test = |module: &ModPath| test_modules.iter().any(|test| module.starts_with(test));
    files.retain(|module, _| !is_test(module));
    tokens.retain(|module, _| !is_test(module));
    (files, tokens)
}

/// Every `.rs` file under `src`, by the module it holds: `a.rs` and `a/mod.rs` hold `a`,
/// `lib.rs` and `main.rs` hold the root.
fn module_files(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut modules = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).expect("read a source folder") {
            let path = entry.expect("read a source folder").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let name = relative_name(src, &path);
                let mut module: ModPath = name
                    .trim_end_matches(".rs")
                    .split('/')
                    .map(String::from)
                    .collect();
                let last = module.last().map(String::as_str);
                if last == Some("mod")
                    || (module.len() == 1 && matches!(last, Some("lib" | "main")))
                {
                    module.pop();
                }
                let before = modules.insert(module, path);
                assert!(before.is_none(), "two files hold the same module: {name}");
            }
        }
    }
    modules
}

/// `path` relative to `src`, with `/` between folders.
fn relative_name(src: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(src).expect("a module file is under src");
    let parts: Vec<_> = relative.iter().map(|part| part.to_string_lossy()).collect();
    parts.join("/")
}

/// The module of the longest prefix of `path` that has a file of its own: the file that holds
/// the item `path` names (an inline module lives in the file of its parent), unless that module
/// imports the item ([`holder`] follows the import).
fn longest_module_prefix(path: &[String], modules: &BTreeMap<ModPath, PathBuf>) -> Option<ModPath> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains_key(prefix))
}

/// The module whose file holds the item `path` (from the crate root) names: the module of the
/// longest prefix of `path` that has a file of its own, or, when that module imports the next
/// name of the path from another module of the crate, the module that import leads to.
fn holder(path: &[String], krate: &Crate, hops: usize) -> Option<ModPath> {
    let module = longest_module_prefix(path, &krate.files)?;
    let Some((name, rest)) = path[module.len()..].split_first() else {
        return Some(module);
    };
    match imported_from(krate, &module, name, hops) {
        Some(source) if hops > 0 => holder(&[source, rest.to_vec()].concat(), krate, hops - 1),
        _ => Some(module),
    }
}

/// The path from the crate root that `name` stands for in `module`, when the module imports it
/// from its own crate: by a `use` of that name, or by a glob `use` of a module that has the
/// name. `None` when the module defines the name itself, imports it from another crate, or does
/// not know it.
fn imported_from(krate: &Crate, module: &[String], name: &str, hops: usize) -> Option<ModPath> {
    let names = krate.names.get(module)?;
    if let Some(source) = names.imported.get(name) {
        return source.clone();
    }
    if names.defined.contains(name) {
        return None;
    }
    let glob = names
        .globs
        .iter()
        .find(|glob| has_name(krate, glob, name, hops))?;
    Some([glob.clone(), vec![name.to_string()]].concat())
}

/// Whether `module` defines or imports `name`, itself or through its glob imports.
fn has_name(krate: &Crate, module: &[String], name: &str, hops: usize) -> bool {
    hops > 0
        && krate.names.get(module).is_some_and(|names| {
            names.defined.contains(name)
                || names.imported.contains_key(name)
                || names
                    .globs
                    .iter()
                    .any(|glob| has_name(krate, glob, name, hops - 1))
        })
}

/// One shortest circle through each file that lies on a circle, leaving out files an earlier
/// circle already named, so a knot of files is told in a few lines, each `a.rs -> b.rs -> a.rs`.
fn circles_of(graph: &Graph) -> Vec<String> {
    let mut named = BTreeSet::new();
    let mut circles = Vec::new();
    for file in graph.keys() {
        if named.contains(file) {
            continue;
        }
        if let Some(circle) = shortest_circle(graph, file) {
            named.extend(circle.iter().cloned());
            circles.push(circle.join(" -> "));
        }
    }
    circles
}

/// The shortest way from `start` back to itself, by breadth-first search: the files along it,
/// with `start` at both ends.
fn shortest_circle(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(file) = queue.pop_front() {
        for next in &graph[file] {
            if next == start {
                let mut circle = vec![start.to_string()];
                let mut at = file;
                while at != start {
                    circle.push(at.to_string());
                    at = came_from[at];
                }
                circle.push(start.to_string());
                circle.reverse();
                return Some(circle);
            }
            if !came_from.contains_key(next.as_str()) {
                came_from.insert(next, file);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Every path in `tokens` that starts with `crate`, `super` or `self`, as a path from the crate
/// root; `module` is the module of the file. A glob `use x::*` gives the path of `x`.
fn paths_in(tokens: &[String], module: &[String]) -> Vec<ModPath> {
    let mut paths = Vec::new();
    walk(tokens, module, |i, scope, _| {
        let starts_path = i == 0 || tokens[i - 1] != "::";
        let first = tokens[i].as_str();
        if !(starts_path && matches!(first, "crate" | "super" | "self") && is(tokens, i + 1, "::"))
        {
            return None;
        }
        let mut leaves = Vec::new();
        let end = use_tree(tokens, i, Vec::new(), &mut leaves);
        paths.extend(
            leaves
                .iter()
                .filter_map(|leaf| from_root(&leaf.path, scope)),
        );
        Some(end)
    });
    paths
}

/// The names of each module in the file of `module` (its own, and each inline `mod name { }` in
/// it), read from the items at the module's level; `use` and `fn` in a body are left out.
/// `files` are the module files of the crate, which a `use` path may start from.
fn names_in(
    tokens: &[String],
    module: &[String],
    files: &BTreeMap<ModPath, PathBuf>,
) -> BTreeMap<ModPath, Names> {
    let mut names: BTreeMap<ModPath, Names> = BTreeMap::new();
    walk(tokens, module, |i, scope, item_level| {
        if !item_level {
            return None;
        }
        let defined = match tokens[i].as_str() {
            "use" => {
                let mut leaves = Vec::new();
                let end = use_tree(tokens, i + 1, Vec::new(), &mut leaves);
                let names = names.entry(scope.to_vec()).or_default();
                for leaf in &leaves {
                    import(names, leaf, scope, files);
                }
                return Some(end);
            }
            "fn" | "struct" | "enum" | "union" | "trait" | "type" | "const" | "static" | "mod" => {
                tokens.get(i + 1)
            }
            "!" if i > 0 && tokens[i - 1] == "macro_rules" => tokens.get(i + 1),
            _ => None,
        };
        if let Some(name) = defined.filter(|name| is_word(name)) {
            let names = names.entry(scope.to_vec()).or_default();
            names.defined.insert(name.clone());
        }
        None
    });
    names
}

/// Records in `names` what the `use` path `leaf`, written in module `scope`, brings in.
fn import(names: &mut Names, leaf: &Leaf, scope: &[String], files: &BTreeMap<ModPath, PathBuf>) {
    let source = source_path(&leaf.path, scope, files);
    if leaf.glob {
        names.globs.extend(source);
        return;
    }
    let name = leaf
        .alias
        .as_ref()
        .or_else(|| leaf.path.iter().rev().find(|segment| *segment != "self"));
    if let Some(name) = name.filter(|name| !matches!(name.as_str(), "_" | "crate" | "super")) {
        names.imported.insert(name.clone(), source);
    }
}

/// The path from the crate root that a `use` path in module `scope` stands for: a `crate::`,
/// `super::` or `self::` path, or one that starts with a child module of `scope` (edition 2018
/// `use doc::Doc;`). `None` for a path into another crate.
fn source_path(
    path: &[String],
    scope: &[String],
    files: &BTreeMap<ModPath, PathBuf>,
) -> Option<ModPath> {
    let first = path.first()?;
    let child = [scope, std::slice::from_ref(first)].concat();
    if matches!(first.as_str(), "crate" | "super" | "self") || files.contains_key(&child) {
        from_root(path, scope)
    } else {
        None
    }
}

/// Reads `tokens` from the front, keeping track of the module each token is in (the file's
/// `module`, or an inline `mod name { }` inside it, whose `super` is the file's module) and of
/// whether the token is at that module's item level, outside any body or other braces. At each
/// token, `visit(i, module, item_level)` may read on and return the index after what it read.
fn walk(
    tokens: &[String],
    module: &[String],
    mut visit: impl FnMut(usize, &[String], bool) -> Option<usize>,
) {
    let mut scope = module.to_vec();
    let mut inline_opened_at = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let item_level = depth == inline_opened_at.last().map_or(0, |opened| opened + 1);
        if let Some(next) = visit(i, &scope, item_level) {
            i = next.max(i + 1);
            continue;
        }
        match tokens[i].as_str() {
            "mod" if is(tokens, i + 2, "{") => {
                inline_opened_at.push(depth);
                scope.push(tokens[i + 1].clone());
            }
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline_opened_at.last() == Some(&depth) {
                    inline_opened_at.pop();
                    scope.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether `tokens[i]` is `text`.
fn is(tokens: &[String], i: usize, text: &str) -> bool {
    tokens.get(i).is_some_and(|token| token == text)
}

/// One path that a path or `use` tree names: `a::{b as c, d::*}` names `a::b` under the alias
/// `c`, and the glob `a::d`.
struct Leaf {
    path: Vec<String>,
    alias: Option<String>,
    glob: bool,
}

/// Reads the path or `use` tree at `tokens[i]`, after the segments in `path`, and pushes each
/// path it names. Returns the index after it.
fn use_tree(tokens: &[String], mut i: usize, mut path: Vec<String>, out: &mut Vec<Leaf>) -> usize {
    let mut glob = false;
    while let Some(token) = tokens.get(i) {
        if token == "{" {
            return use_group(tokens, i + 1, &path, out);
        }
        if token == "*" {
            glob = true;
            i += 1;
            break;
        }
        if !is_word(token) {
            break;
        }
        path.push(token.clone());
        i += 1;
        if !is(tokens, i, "::") {
            break;
        }
        i += 1;
    }
    let mut alias = None;
    if is(tokens, i, "as") {
        alias = tokens.get(i + 1).cloned();
        i += 2;
    }
    out.push(Leaf { path, alias, glob });
    i
}

/// Reads the trees of a `use` group from `tokens[i]` (just after its `{`) up to its `}`, each
/// after `prefix`. Returns the index after the `}`.
fn use_group(tokens: &[String], mut i: usize, prefix: &[String], out: &mut Vec<Leaf>) -> usize {
    while let Some(token) = tokens.get(i) {
        match token.as_str() {
            "}" => return i + 1,
            "," => i += 1,
            _ => i = use_tree(tokens, i, prefix.to_vec(), out).max(i + 1),
        }
    }
    i
}

/// Whether `token` is an identifier or keyword.
fn is_word(token: &str) -> bool {
    token.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// `path` (which starts with `crate`, `super` or `self`) as a path from the crate root, seen from
/// the module `scope`; `None` if `super` climbs above the root.
fn from_root(path: &[String], scope: &[String]) -> Option<ModPath> {
    let mut full = if path.first().is_some_and(|first| first == "crate") {
        Vec::new()
    } else {
        scope.to_vec()
    };
    for segment in path {
        match segment.as_str() {
            "crate" | "self" => {}
            "super" => {
                full.pop()?;
            }
            _ => full.push(segment.clone()),
        }
    }
    Some(full)
}

/// `tokens` without the items marked `#[cfg(test)]`, and the names of the `mod name;` items
/// among those, whose files are test code too.
fn without_test_code(tokens: &[String]) -> (Vec<String>, Vec<String>) {
    const CFG_TEST: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut kept = Vec::new();
    let mut test_modules = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i..].iter().take(CFG_TEST.len()).eq(CFG_TEST.iter()) {
            let end = item_end(tokens, i + CFG_TEST.len());
            if let [.., keyword, name, semicolon] = &tokens[i..end]
                && keyword == "mod"
                && semicolon == ";"
            {
                test_modules.push(name.clone());
            }
            i = end;
        } else {
            kept.push(tokens[i].clone());
            i += 1;
        }
    }
    (kept, test_modules)
}

/// The index after the item that starts at `tokens[start]`: its other attributes, then
/// everything up to a `;` or a `{ }` block at its outermost level.
fn item_end(tokens: &[String], start: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(start) {
        match token.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            ";" if depth == 0 => return i + 1,
            _ => {}
        }
    }
    tokens.len()
}

/// Rust source as tokens: words (identifiers, keywords, numbers), `::`, and one token per other
/// punctuation character. Comments and lifetimes are dropped and every string or character
/// literal becomes the token `"`, so text in them never reads as a path.
fn tokenize(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(c) = at(i) {
        let next = at(i + 1);
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            i = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |n| i + n);
        } else if c == '/' && next == Some('*') {
            i = block_comment_end(&chars, i);
        } else if c == '"' {
            i = string_end(&chars, i + 1);
            tokens.push("\"".to_string());
        } else if c == '\'' && (next == Some('\\') || at(i + 2) == Some('\'')) {
            i = string_end_at(&chars, i + 1, '\'');
            tokens.push("\"".to_string());
        } else if c == '\'' {
            i += 1; // a lifetime or a label: its name follows as a word
        } else if c.is_alphanumeric() || c == '_' {
            let len = chars[i..]
                .iter()
                .take_while(|c| c.is_alphanumeric() || **c == '_')
                .count();
            let word: String = chars[i..i + len].iter().collect();
            i += len;
            if let Some(end) = literal_after_prefix(&chars, &word, i) {
                i = end;
                tokens.push("\"".to_string());
            } else {
                tokens.push(word);
            }
        } else if c == ':' && next == Some(':') {
            tokens.push("::".to_string());
            i += 2;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// When `word` is a literal's prefix (`b"…"`, `b'…'`, `c"…"`, `r"…"`, `r#"…"#`, `br…`, `cr…`)
/// and the literal follows at `chars[i]`, the index after the literal.
fn literal_after_prefix(chars: &[char], word: &str, i: usize) -> Option<usize> {
    match (word, chars.get(i)) {
        ("b" | "c", Some('"')) => Some(string_end(chars, i + 1)),
        ("b", Some('\'')) => Some(string_end_at(chars, i + 1, '\'')),
        ("r" | "br" | "cr", Some('"' | '#')) => {
            let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
            if chars.get(i + hashes) != Some(&'"') {
                return None; // a raw identifier such as `r#type`
            }
            let closing: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body = i + hashes + 1;
            let found = chars[body..]
                .windows(closing.len())
                .position(|w| w == closing.as_slice());
            Some(found.map_or(chars.len(), |n| body + n + closing.len()))
        }
        _ => None,
    }
}

/// The index after the `"` that closes a string whose text starts at `chars[i]`.
fn string_end(chars: &[char], i: usize) -> usize {
    string_end_at(chars, i, '"')
}

/// The index after the unescaped `quote` at or after `chars[i]`.
fn string_end_at(chars: &[char], mut i: usize, quote: char) -> usize {
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            i += 2;
        } else if c == quote {
            return i + 1;
        } else {
            i += 1;
        }
    }
    chars.len()
}

/// The index after the `*/` that closes the block comment opening at `chars[i]` (they nest).
fn block_comment_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('/', Some('*')) => {
                depth += 1;
                i += 2;
            }
            ('*', Some('/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    chars.len()
}
