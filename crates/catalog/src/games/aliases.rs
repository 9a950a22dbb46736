//! The alias list of the catalog's search (`aliases.txt`, docs/web.md): the common names people
//! type for a game or a program that no rule derives from its name ("gmod" for Garry's Mod). An
//! egg's summary item carries the aliases its name calls for; the page's search matches them as
//! words of the name.

use super::name_key;

/// The list as written: `alias = phrase` lines, `#` comments.
const LIST: &str = include_str!("aliases.txt");

/// Every `(alias, phrase)` of the list, in its order.
pub fn list() -> Vec<(&'static str, &'static str)> {
    LIST.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (alias, phrase) = l
                .split_once('=')
                .expect("an alias line is `alias = phrase`");
            (alias.trim(), phrase.trim())
        })
        .collect()
}

/// The aliases of the egg named `name`: those whose phrase, letters and digits only and
/// lowercased, is part of the name written the same way (a trailing " (Pterodactyl)" dropped),
/// in the list's order.
pub fn of(name: &str) -> Vec<String> {
    let key = name_key(name);
    list()
        .into_iter()
        .filter(|(_, phrase)| key.contains(&name_key(phrase)))
        .map(|(alias, _)| alias.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_well_formed() {
        let list = list();
        assert!(list.len() >= 10, "{list:?}");
        let mut seen = std::collections::BTreeSet::new();
        for (alias, phrase) in &list {
            assert!(
                !alias.is_empty()
                    && alias
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
                "an alias is lowercase letters and digits: {alias:?}"
            );
            assert!(seen.insert(*alias), "{alias} is listed twice");
            let key = name_key(phrase);
            assert!(!key.is_empty(), "{alias}: the phrase has letters or digits");
            assert_ne!(*alias, key, "{alias}: an alias differs from its phrase");
        }
    }

    #[test]
    fn an_egg_gets_the_aliases_its_name_calls_for() {
        assert_eq!(of("Garrys Mod"), ["gmod"]);
        assert_eq!(of("Garry's Mod - Reworked (Pterodactyl)"), ["gmod"]);
        assert_eq!(of("Vanilla Minecraft"), ["mc"]);
        assert_eq!(of("Teamspeak3 Server"), ["ts", "ts3"]);
        assert_eq!(of("Postgres 16"), ["pg"]);
        assert!(of("Valheim").is_empty());
        assert!(of("").is_empty());
    }
}
