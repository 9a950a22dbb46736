//! The small words of the command's messages: counts with the right noun ("1 egg", "2 eggs",
//! "0 warnings") and "did you mean" suggestions. One place for each, so that no message says
//! "1 files" and every suggestion is chosen by the same measure.

/// The noun for `n` things: `one` for exactly one, `many` otherwise (English uses the plural for
/// zero: "0 warnings").
pub(crate) fn noun<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `n` and its noun: `count(1, "egg", "eggs")` is "1 egg", `count(2, "egg", "eggs")` is "2 eggs".
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", noun(n, one, many))
}

/// The known word closest to `typed`, when it is close enough to be a typo of it: at most one
/// edit (insertion, deletion, substitution, or swap of two neighbours) per three characters,
/// at least one. Ties go to the first candidate.
pub(crate) fn closest<'a>(
    typed: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let most = (typed.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (strsim::osa_distance(typed, k), k))
        .filter(|&(d, _)| d <= most)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_singular_for_one_only() {
        assert_eq!(count(0, "egg", "eggs"), "0 eggs");
        assert_eq!(count(1, "egg", "eggs"), "1 egg");
        assert_eq!(count(2, "egg", "eggs"), "2 eggs");
        assert_eq!(count(1, "skipped file", "skipped files"), "1 skipped file");
        assert_eq!(noun(621, "egg", "eggs"), "eggs");
    }

    #[test]
    fn the_closest_word_is_a_likely_typo_or_nothing() {
        let keys = ["url", "branch", "label", "owner", "repo", "raw_url"];
        assert_eq!(closest("lable", keys), Some("label"));
        assert_eq!(closest("brnach", keys), Some("branch"));
        assert_eq!(closest("ulr", keys), Some("url"));
        assert_eq!(closest("rawurl", keys), Some("raw_url"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(closest("x", keys), None);
    }
}
