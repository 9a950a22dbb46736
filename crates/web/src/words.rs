//! Counts in words: every count phrase of the pages goes through [`count`], so "1 egg" and
//! "2 eggs" are both right (the script has the same rule, `plural` in assets/eggcat.js).

/// `n` and the noun in the number `n` asks for: `count(1, "egg", "eggs")` is "1 egg",
/// `count(0, ..)` and `count(2, ..)` take the plural, as English does.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_zero_and_many_are_plural() {
        assert_eq!(count(0, "egg", "eggs"), "0 eggs");
        assert_eq!(count(1, "egg", "eggs"), "1 egg");
        assert_eq!(count(2, "file skipped", "files skipped"), "2 files skipped");
        assert_eq!(count(1, "repository", "repositories"), "1 repository");
    }
}
