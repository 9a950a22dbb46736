//! The `rawUrl` of an egg: where its file can be downloaded upstream.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

/// Characters escaped in one path segment (RFC 3986 `pchar` keeps the rest). `/` is escaped too:
/// it separates the segments and never appears inside one.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}')
    .add(b'/');

/// Fills `{owner}`, `{repo}`, `{branch}` and `{path}` in a template. The path is percent-encoded
/// segment by segment: upstream has paths with spaces, `#` and non-ASCII letters.
pub fn render_raw_url(template: &str, owner: &str, repo: &str, branch: &str, path: &str) -> String {
    let encoded_path = path
        .split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/");
    let encode = |s: &str| utf8_percent_encode(s, SEGMENT).to_string();
    template
        .replace("{owner}", &encode(owner))
        .replace("{repo}", &encode(repo))
        .replace(
            "{branch}",
            &branch.split('/').map(encode).collect::<Vec<_>>().join("/"),
        )
        .replace("{path}", &encoded_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GITHUB: &str = "https://raw.githubusercontent.com/{owner}/{repo}/{branch}/{path}";

    #[test]
    fn path_segments_are_percent_encoded() {
        assert_eq!(
            render_raw_url(
                GITHUB,
                "pelican-eggs",
                "games-steamcmd",
                "main",
                "c#/My Game/egg-zürich.json"
            ),
            "https://raw.githubusercontent.com/pelican-eggs/games-steamcmd/main/c%23/My%20Game/egg-z%C3%BCrich.json"
        );
    }

    #[test]
    fn branch_with_slash_keeps_its_slash() {
        assert_eq!(
            render_raw_url(GITHUB, "o", "r", "release/v2", "egg-a.json"),
            "https://raw.githubusercontent.com/o/r/release/v2/egg-a.json"
        );
    }
}
