//! The forms of an egg's name that the catalog page's search matches (docs/web.md, "How the
//! search ranks"): the name normalised, without " (Pterodactyl)", cut where letters and digits
//! meet and where the case changes, written together, and its initials. The
//! build works them out once and publishes them in the summary item's `nameForms`, so that the
//! page (the one ranking) and any other client match the same words; the page normalises only
//! what is typed, and the other fields, by [`normalise`]'s rule, which its browser test checks
//! against this one on every egg of the corpus.

use eggcat_wire::NameForms;
use icu_normalizer::DecomposingNormalizerBorrowed;
use icu_properties::CodePointMapData;
use icu_properties::props::{GeneralCategory, GeneralCategoryGroup};

/// What a character is to the search: a letter (general category L, the page's `\p{L}`), a
/// digit (N, `\p{N}`) or neither.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Letter,
    Digit,
    Other,
}

fn kind(c: char) -> Kind {
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    if GeneralCategoryGroup::Letter.contains(gc) {
        Kind::Letter
    } else if GeneralCategoryGroup::Number.contains(gc) {
        Kind::Digit
    } else {
        Kind::Other
    }
}

/// A text as the search compares it: Unicode NFD with the combining diacritical marks
/// (U+0300-U+036F) dropped, lowercased, apostrophes (`'`, `’`) dropped, every other run of
/// characters that are not letters or digits one space, no space at either end.
fn normalise(s: &str) -> String {
    let decomposed = DecomposingNormalizerBorrowed::new_nfd().normalize(s);
    let bare: String = decomposed
        .chars()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .collect();
    let mut out = String::with_capacity(bare.len());
    let mut gap = false;
    for c in bare.to_lowercase().chars() {
        if c == '\'' || c == '\u{2019}' {
            continue;
        }
        if kind(c) != Kind::Other {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// The words of a text: [`normalise`]d, split at its spaces.
fn words(s: &str) -> Vec<String> {
    normalise(s)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The name without a trailing " (Pterodactyl)" (any case).
fn base_name(name: &str) -> &str {
    const TWIN: &str = " (pterodactyl)";
    let cut = name.len().wrapping_sub(TWIN.len());
    match name.get(cut..) {
        Some(tail) if tail.eq_ignore_ascii_case(TWIN) => &name[..cut],
        _ => name,
    }
}

/// The words of a name cut further, before it is normalised, where an ASCII lowercase letter
/// meets an ASCII capital (`SuperTuxKart`: super tux kart), before the last of two or more
/// ASCII capitals followed by an ASCII lowercase letter (`HTTPServer`: http server) and where a
/// letter meets a digit or a digit a letter (`arma3`: arma 3).
fn parts(raw: &str) -> Vec<String> {
    let chars: Vec<char> = raw.chars().collect();
    let mut spaced = String::with_capacity(raw.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if let Some(&before) = i.checked_sub(1).and_then(|b| chars.get(b)) {
            let after = chars.get(i + 1).copied();
            let camel = before.is_ascii_lowercase() && c.is_ascii_uppercase();
            let acronym_end = before.is_ascii_uppercase()
                && c.is_ascii_uppercase()
                && after.is_some_and(|a| a.is_ascii_lowercase());
            let number = matches!(
                (kind(before), kind(c)),
                (Kind::Letter, Kind::Digit) | (Kind::Digit, Kind::Letter)
            );
            if camel || acronym_end || number {
                spaced.push(' ');
            }
        }
        spaced.push(c);
    }
    words(&spaced)
}

/// The initials of words, a number kept whole: counter strike 2 -> cs2, 7 days to die -> 7dtd.
fn initials(words: &[String]) -> String {
    let mut out = String::new();
    for w in words {
        if w.chars().all(|c| kind(c) == Kind::Digit) {
            out.push_str(w);
        } else {
            out.extend(w.chars().next());
        }
    }
    out
}

/// The forms of the egg name `name` the search matches.
pub(super) fn of(name: &str) -> NameForms {
    let base_raw = base_name(name);
    let name_words = words(name);
    let base = words(base_raw);
    let parts = parts(base_raw);
    let mut forms = NameForms {
        normalised: name_words.join(" "),
        base: base.join(" "),
        words: Vec::new(),
        initials: Vec::new(),
    };
    let push = |list: &mut Vec<String>, w: String| {
        if !w.is_empty() && !list.contains(&w) {
            list.push(w);
        }
    };
    for w in name_words.into_iter().chain(parts.iter().cloned()) {
        push(&mut forms.words, w);
    }
    push(&mut forms.words, base.concat());
    if parts.len() > 1 {
        push(&mut forms.initials, initials(&parts));
        if parts[0] == "the" {
            push(&mut forms.initials, initials(&parts[1..]));
        }
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_drops_accents_apostrophes_and_punctuation() {
        assert_eq!(normalise("Garry's Mod"), "garrys mod");
        assert_eq!(normalise("Garry’s Mod"), "garrys mod");
        assert_eq!(
            normalise("  Pokémon: Café -- Ñandú!  "),
            "pokemon cafe nandu"
        );
        assert_eq!(normalise("Counter-Strike: Source"), "counter strike source");
        assert_eq!(normalise("Node.js ²"), "node js ²");
        assert_eq!(normalise("İstanbul ΣΑΣ"), "istanbul σας");
        assert_eq!(normalise("東京 server"), "東京 server");
        assert_eq!(normalise("-- !"), "");
        assert!(words("").is_empty());
    }

    #[test]
    fn a_name_is_cut_where_case_and_digits_change() {
        let f = of("SuperTuxKart");
        assert_eq!(f.words, ["supertuxkart", "super", "tux", "kart"]);
        assert_eq!(f.initials, ["stk"]);
        let f = of("OpenTTD (Pterodactyl)");
        assert_eq!(f.normalised, "openttd pterodactyl");
        assert_eq!(f.base, "openttd");
        assert_eq!(f.words, ["openttd", "pterodactyl", "open", "ttd"]);
        assert_eq!(of("HTTPServer").words, ["httpserver", "http", "server"]);
        assert_eq!(of("arma3").words, ["arma3", "arma", "3"]);
        assert_eq!(of("Arma 3").words, ["arma", "3", "arma3"]);
    }

    #[test]
    fn initials_keep_numbers_whole_and_drop_a_leading_the() {
        assert_eq!(of("Counter-Strike 2").initials, ["cs2"]);
        assert_eq!(of("Left 4 Dead 2").initials, ["l4d2"]);
        assert_eq!(of("7 Days To Die").initials, ["7dtd"]);
        assert_eq!(of("Euro Truck Simulator 2").initials, ["ets2"]);
        assert_eq!(
            of("The Lord of the Rings: Return to Moria").initials,
            ["tlotrrtm", "lotrrtm"]
        );
        assert!(of("Valheim").initials.is_empty());
        let f = of("Node.js");
        assert_eq!(f.words, ["node", "js", "nodejs"]);
        assert_eq!(f.initials, ["nj"]);
    }

    #[test]
    fn an_empty_name_has_no_forms() {
        let f = of("");
        assert_eq!((f.normalised.as_str(), f.base.as_str()), ("", ""));
        assert!(f.words.is_empty() && f.initials.is_empty());
        assert_eq!(of(" (Pterodactyl)").base, "");
    }
}
