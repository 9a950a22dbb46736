//! `eggcat panel status` on a Pterodactyl panel: which panel answers (`--panel-kind`, found from
//! its routes unless named) and the report of `eggcat_panel::pterodactyl_status` for people (a
//! table, colour only on a terminal); docs/guides/panel-status.md, section 9.

use serde_json::Value;

/// Which panel `--panel` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum PanelKind {
    /// Found from the panel's answers: Pelican lists eggs at /api/application/eggs, a route
    /// Pterodactyl does not have; Pterodactyl lists nests (one request more on Pterodactyl).
    Auto,
    Pelican,
    Pterodactyl,
}

/// The Pterodactyl report for people: one line per egg (state, id, nest, name, the catalog egg
/// and how it was found), then for each egg that has any: the fields that differ (the catalog's
/// value, the panel's), the variables Update Egg would delete, the versions upstream committed
/// since the egg was last saved (`!` marks a breaking change), how to update it by hand, the
/// candidates of an ambiguous egg, and why.
pub(super) fn table(report: &Value, colour: bool) -> String {
    let paint = |state: &str| -> String {
        let code = match state {
            "up-to-date" => "32",
            "differs" => "33",
            "ambiguous" | "unknown" => "31",
            _ => "0",
        };
        if colour {
            format!("\x1b[{code}m{state:<22}\x1b[0m")
        } else {
            format!("{state:<22}")
        }
    };
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    let mut s = format!(
        "{:<22} {:>5}  {:<16} {:<32} {}\n",
        "STATE", "ID", "NEST", "NAME", "CATALOG EGG"
    );
    let eggs = report["eggs"].as_array().cloned().unwrap_or_default();
    for e in &eggs {
        let slug = match (e["slug"].as_str(), e["matchedBy"].as_str()) {
            (Some(s), Some(by)) => format!("{s} (by {by})"),
            (Some(s), None) => s.to_owned(),
            _ => "-".to_owned(),
        };
        s.push_str(&format!(
            "{} {:>5}  {:<16} {:<32} {slug}\n",
            paint(e["state"].as_str().unwrap_or("")),
            e["id"],
            text(&e["nest"]["name"]),
            text(&e["name"])
        ));
    }
    for e in &eggs {
        let mut lines = Vec::new();
        for d in e["differs"].as_array().into_iter().flatten() {
            lines.push(format!(
                "differs: {} (catalog {}, panel {})",
                text(&d["field"]),
                d["catalog"],
                d["panel"]
            ));
        }
        for v in e["updateDeletesVariables"].as_array().into_iter().flatten() {
            lines.push(format!(
                "Update Egg deletes the variable {} and every server's value of it",
                text(v)
            ));
        }
        if let Some(since) = e["since"].as_array() {
            if since.is_empty() {
                lines.push("no upstream version since the egg was last saved on the panel (by date): the differences may be local edits".to_owned());
            }
            for v in since {
                lines.push(format!(
                    "upstream since the egg was saved: {} {}{}",
                    text(&v["date"]),
                    text(&v["subject"]),
                    if v["breaking"] == true {
                        " (breaking)"
                    } else {
                        ""
                    }
                ));
                for c in v["changes"].as_array().into_iter().flatten() {
                    let mark = if c["breaking"] == true { "!" } else { " " };
                    lines.push(format!("  {mark} {}", text(&c["text"])));
                }
            }
        }
        for c in e["candidates"].as_array().into_iter().flatten() {
            let fields: Vec<String> = c["differs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(text)
                .collect();
            lines.push(format!(
                "candidate: {} (differs in {})",
                text(&c["slug"]),
                fields.join(", ")
            ));
        }
        if let Some(same) = e["sameAs"].as_array() {
            let same: Vec<String> = same.iter().map(text).collect();
            lines.push(format!("the same egg as {}", same.join(", ")));
        }
        for key in ["update", "why"] {
            if let Some(t) = e[key].as_str() {
                lines.push(t.to_owned());
            }
        }
        if !lines.is_empty() {
            s.push_str(&format!("\n{} (id {}):\n", text(&e["name"]), e["id"]));
            for l in lines {
                s.push_str(&format!("  {l}\n"));
            }
        }
    }
    let summary: Vec<String> = report["counts"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    s.push_str(&format!(
        "\n{} eggs on a Pterodactyl panel: {}\n",
        eggs.len(),
        if summary.is_empty() {
            "none".to_owned()
        } else {
            summary.join(", ")
        }
    ));
    s
}
