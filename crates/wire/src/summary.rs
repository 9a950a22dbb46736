//! `api/v1/eggs/_summary.json`: per egg, what the catalog page shows and searches. One array
//! sorted by slug; the search runs over it in the browser, and scripts can use it as a richer
//! index than `_index.json` (docs/web.md documents each field). `eggcat-web` makes it.

use serde::{Deserialize, Serialize};

/// One element of the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummaryItem {
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::SLUG)))]
    pub slug: String,
    pub name: String,
    /// The description's first non-empty line, at most `eggcat-web`'s `DESCRIPTION_CHARS`.
    #[cfg_attr(
        feature = "schemars",
        schemars(
            description = "The egg's description: its first non-empty line, at most 200 characters (`…` when cut)."
        )
    )]
    pub description: String,
    pub category: String,
    pub source: String,
    pub owner: String,
    pub repo: String,
    /// Path of the egg file in its repository.
    pub path: String,
    pub format: String,
    pub tags: Vec<String>,
    pub images: Vec<String>,
    pub indexed_at: u64,
    /// When upstream last changed the file (Unix ms), as far as the history knows
    /// (`eggcat_catalog::games::Updated`): what "Recently updated" sorts by.
    #[cfg_attr(
        feature = "schemars",
        schemars(
            description = "When upstream last changed the file (Unix ms), as far as the history knows: what \"Recently updated\" sorts by (see `updatedFrom`)."
        )
    )]
    pub updated_at: u64,
    /// How `updatedAt` is known: `upstream` (the commit that last changed the file), `before`
    /// (the file is older than the history eggcat reads: it changed then or earlier) or
    /// `indexed` (no history: when eggcat first read this content).
    #[cfg_attr(feature = "schemars", schemars(extend("enum" = ["upstream", "before", "indexed"])))]
    pub updated_from: String,
    /// Path of the icon from the tree's root (`icons/{slug}.{ext}`), or null.
    pub icon: Option<String>,
    /// Whether each panel can import the egg (both false before the catalog knows).
    pub importable: Importable,
    /// The egg's game: the key of its sibling group (`eggcat-catalog`'s `games`), the
    /// group's first slug.
    #[cfg_attr(
        feature = "schemars",
        schemars(
            pattern(crate::patterns::SLUG),
            description = "The egg's game: the key of its group of sibling eggs (docs/web.md), the group's first slug in slug order. Eggs with the same `game` are one game; an egg alone has its own slug."
        )
    )]
    pub game: String,
    /// How many eggs the game has in the catalog, this one included.
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub game_eggs: usize,
    /// Whether another egg for the same game would show the same card (name, description,
    /// category, source and format): the card then names the repository, `owner/repo`.
    pub lookalike: bool,
    /// How many of the egg's images (`meta.images`) their registry says do not exist.
    pub missing_images: usize,
    /// How many of the egg's install downloads (`meta.downloads`) their host says do not
    /// exist; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub missing_downloads: usize,
    /// `meta.runsOn`: the platforms the egg runs on (the catalog's "Runs on" filter).
    #[cfg_attr(
        feature = "schemars",
        schemars(inner(pattern(crate::patterns::PLATFORM)))
    )]
    pub runs_on: Vec<String>,
    /// The common names of the egg's game or program from the search's alias list
    /// (`eggcat-catalog`'s `games::aliases`), matched by the catalog page's search as words of
    /// its name; left out when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "schemars",
        schemars(
            description = "The common names people type for the egg's game or program, from the search's alias list (\"gmod\" for Garry's Mod): the page's search matches them as words of the name (docs/web.md, \"How the search ranks\"). Absent when there is none."
        )
    )]
    pub aliases: Vec<String>,
    /// The forms of the name the page's search matches (`eggcat-catalog`'s
    /// `games::name_forms`).
    pub name_forms: NameForms,
}

/// `nameForms` of a summary item: the egg's name as the catalog page's search matches it
/// (docs/web.md, "How the search ranks").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(
        description = "The egg's name as the catalog page's search matches it (docs/web.md, \"How the search ranks\"): worked out by the build, so that every client matches the same words."
    )
)]
pub struct NameForms {
    /// The name normalised: NFD with the combining marks dropped, lowercased, apostrophes
    /// dropped, every other run of characters that are not letters or digits one space.
    pub normalised: String,
    /// The name without a trailing " (Pterodactyl)", normalised.
    pub base: String,
    /// The name's words: those of `normalised`; those of the name without " (Pterodactyl)"
    /// cut further, before normalising, where an ASCII lowercase letter meets an ASCII
    /// capital, before the last of two or more ASCII capitals followed by an ASCII lowercase
    /// letter, and where a letter meets a digit or a digit a letter; and `base` written
    /// together. Each once, in that order.
    pub words: Vec<String>,
    /// The initials of those cut words (a number kept whole), and again without a leading
    /// "the", for a name of two cut words or more; else empty.
    pub initials: Vec<String>,
}

/// `importable` of a summary item.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Importable {
    pub pelican: bool,
    pub pterodactyl: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
