//! The install script: Wings runs `<entrypoint> /mnt/install/install.sh` in the `container`
//! image, so a script needs both, and the entrypoint, not the shebang, picks the interpreter. A
//! bash script run by `ash` or `sh` fails on the first bash-only line. CRLF line endings are no
//! fault: both panels turn them into LF before the script reaches Wings.

use serde_json::{Map, Value};

use crate::reference::check_reference;
use crate::vocab::{Code, Family, Finding, at, wrong_type};

const SCRIPT: &str = "/scripts/installation/script";
const CONTAINER: &str = "/scripts/installation/container";
const ENTRYPOINT: &str = "/scripts/installation/entrypoint";

/// Shells that run any POSIX `sh` script.
const POSIX_SHELLS: &[&str] = &["sh", "ash", "dash", "bash", "zsh", "ksh", "busybox"];

pub(crate) fn check_install(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    let script = match doc
        .get("scripts")
        .and_then(|s| s.get("installation"))
        .and_then(|i| i.get("script"))
    {
        Some(Value::String(s)) => s.as_str(),
        None | Some(Value::Null) => return,
        Some(v) => {
            out.push(wrong_type(SCRIPT, "a string", v));
            return;
        }
    };
    if script.trim().is_empty() {
        return;
    }
    let text = |pointer: &str| match at(doc, pointer) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    };
    match text(CONTAINER) {
        Some(image) => out.extend(check_reference(CONTAINER, &image, Family::Plcn)),
        None => out.push(
            Finding::new(
                Code::InstallWithoutContainer,
                CONTAINER,
                "the install script has no container image to run in",
            )
            .help("set `container`, e.g. `ghcr.io/pterodactyl/installers:debian`"),
        ),
    }
    let Some(entrypoint) = text(ENTRYPOINT) else {
        out.push(
            Finding::new(
                Code::InstallWithoutEntrypoint,
                ENTRYPOINT,
                "the install script has no entrypoint to run it",
            )
            .help("set `entrypoint` to the shell that runs the script, e.g. `bash`"),
        );
        return;
    };
    let Some(interpreter) = shebang(script) else {
        return;
    };
    let runner = basename(entrypoint.split_whitespace().next().unwrap_or(&entrypoint));
    let posix_script = matches!(interpreter, "sh" | "ash" | "dash");
    let fine = interpreter == runner || (posix_script && POSIX_SHELLS.contains(&runner));
    if !fine {
        out.push(
            Finding::new(
                Code::ShebangMismatch,
                ENTRYPOINT,
                format!("the script's shebang asks for `{interpreter}` but the entrypoint `{entrypoint}` runs it"),
            )
            .help(format!("Wings ignores the shebang: set `entrypoint` to `{interpreter}`, or make the script run under `{runner}`")),
        );
    }
}

/// The interpreter of a `#!` first line: `#!/bin/bash` and `#!/usr/bin/env bash` give `bash`.
fn shebang(script: &str) -> Option<&str> {
    let first = script
        .lines()
        .next()?
        .trim_end_matches('\r')
        .strip_prefix("#!")?;
    let mut words = first.split_whitespace();
    let program = basename(words.next()?);
    if program == "env" {
        words.find(|w| !w.starts_with('-')).map(basename)
    } else {
        Some(program)
    }
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebangs() {
        assert_eq!(shebang("#!/bin/bash\r\necho"), Some("bash"));
        assert_eq!(shebang("#!/usr/bin/env -S bash -e\n"), Some("bash"));
        assert_eq!(shebang("#!/bin/ash\n"), Some("ash"));
        assert_eq!(shebang("echo\n#!/bin/bash"), None);
    }
}
