//! Display names: what the index, the names list and `meta.name` show for an egg.

use crate::slug::{kebab, stem};

/// The egg's `name` with whitespace runs collapsed to one space and trimmed. When the file's stem
/// has the kebab token `pterodactyl` and the name does not say "pterodactyl" (any case),
/// ` (Pterodactyl)` is appended: upstream keeps Pelican and Pterodactyl twins of one egg side by
/// side (`egg-paper.json`, `pterodactyl-egg-paper.json`) under the same name.
pub fn display_name(egg_name: &str, file_name: &str) -> String {
    let mut name = egg_name.split_whitespace().collect::<Vec<_>>().join(" ");
    let marked = kebab(&stem(file_name))
        .split('-')
        .any(|t| t == "pterodactyl");
    if marked && !name.to_lowercase().contains("pterodactyl") {
        name.push_str(" (Pterodactyl)");
    }
    name
}

/// De-duplicates and sorts names by their Unicode lowercase form, then by the exact string.
pub fn sort_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut keyed: Vec<(String, &str)> = names.into_iter().map(|n| (n.to_lowercase(), n)).collect();
    keyed.sort_unstable();
    keyed.dedup_by(|a, b| a.1 == b.1);
    keyed.into_iter().map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_collapsed() {
        assert_eq!(
            display_name("  Paper\t\n  Server ", "egg-paper.json"),
            "Paper Server"
        );
    }

    #[test]
    fn pterodactyl_twins_are_told_apart() {
        assert_eq!(
            display_name("Paper", "pterodactyl-egg-paper.json"),
            "Paper (Pterodactyl)"
        );
        assert_eq!(
            display_name("Paper", "egg-pterodactyl-paper.json"),
            "Paper (Pterodactyl)"
        );
        assert_eq!(
            display_name("Paper (PteroDactyl)", "pterodactyl-egg-paper.json"),
            "Paper (PteroDactyl)"
        );
        // A token, not a substring: `pterodactyls` is another word.
        assert_eq!(display_name("Paper", "egg-pterodactyls.json"), "Paper");
        assert_eq!(display_name("Paper", "egg-paper.json"), "Paper");
    }

    #[test]
    fn names_sort_case_insensitively_then_exactly() {
        let sorted = sort_names(["beta", "Alpha", "alpha", "Beta", "alpha", "Éclair", "zeta"]);
        assert_eq!(sorted, ["Alpha", "alpha", "Beta", "beta", "zeta", "Éclair"]);
    }
}
