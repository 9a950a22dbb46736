//! `status/index.html`: the build report for people.
//!
//! Per source its health, commit and eggs; the images by what their registries said, and the
//! missing ones with their eggs (images.rs); every skipped file with its reason; every warning
//! (each with an anchor `#w-{n}`, `#s-{n}`, the egg pages link to); the removed slugs.

use crate::html::Html;
use eggcat_wire::SourceStatus;
use eggcat_wire::paths;

use crate::layout::{self, Assets, Data, Here, Nav};
use crate::model::{Removed, SourceProblem, Status};
use crate::words::count;
use eggcat_wire::SummaryItem;

/// The page.
pub(crate) fn render(
    status: &Status,
    removed: &[Removed],
    items: &[SummaryItem],
    assets: &Assets,
) -> String {
    let here = Here::Page(paths::STATUS_PAGE);
    let mut h = Html::with_capacity(32 * 1024);
    let summary = format!(
        "{}, {}, {}",
        count(status.eggs, "egg", "eggs"),
        count(status.skipped.len(), "file skipped", "files skipped"),
        count(status.warnings.len(), "warning", "warnings"),
    );
    layout::start(
        &mut h,
        "Build status – eggcat",
        &format!(
            "The build report of the egg catalog: {summary}; the health of each upstream \
             repository and every diagnostic."
        ),
        here,
        assets,
        Nav::Status,
    );
    h.lit("<h1>Build status</h1><p class=\"lede\">Build ")
        .code(&status.build_id)
        .lit(", finished ")
        .el(
            "time",
            &[("datetime", Some(&status.finished_at))],
            &status.finished_at,
        )
        .lit(": ")
        .text(&summary)
        .lit(".</p>");

    h.lit("<section aria-labelledby=\"h-sources\"><h2 id=\"h-sources\">Sources</h2>")
        .lit("<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"h-sources\"><table><thead><tr>")
        .lit("<th scope=\"col\">Repository</th><th scope=\"col\">Label</th><th scope=\"col\">Health</th>")
        .lit("<th scope=\"col\">Eggs</th><th scope=\"col\">Diagnostics</th><th scope=\"col\">Branch</th><th scope=\"col\">Commit</th></tr></thead><tbody>");
    for s in &status.sources {
        h.lit("<tr><th scope=\"row\">")
            .text(&format!("{}/{}", s.owner, s.repo))
            .lit("</th>")
            .el("td", &[], &s.label);
        let ok = s.status == SourceStatus::Ok;
        let health = match (ok, s.kept_previous, s.changed) {
            (true, _, true) => "ok, updated".to_owned(),
            (true, _, false) => "ok, unchanged".to_owned(),
            (_, true, _) => format!(
                "failed, previous eggs kept: {}",
                s.error.as_deref().unwrap_or("")
            ),
            _ => format!("failed: {}", s.error.as_deref().unwrap_or("")),
        };
        let class = if ok { "ok" } else { "bad" };
        h.open("td", &[("class", Some(class))])
            .text_code(&health)
            .close("td");
        h.lit("<td>").num(s.eggs).lit("</td>");
        let found: usize = status
            .diagnostics
            .by_source
            .get(&format!("{}/{}", s.owner, s.repo))
            .map_or(0, |codes| codes.values().sum());
        h.lit("<td>").num(found).lit("</td>");
        h.el("td", &[], s.branch.as_deref().unwrap_or(""));
        h.lit("<td>")
            .el(
                "code",
                &[],
                s.commit
                    .as_deref()
                    .map(|c| c.get(..12).unwrap_or(c))
                    .unwrap_or(""),
            )
            .lit("</td></tr>");
    }
    h.lit("</tbody></table></div></section>");

    diagnostics(&mut h, status);
    crate::images::status_section(&mut h, here, status);
    crate::downloads::status_section(&mut h, here, status);
    problems(
        &mut h,
        "skipped",
        "Skipped files",
        "s",
        &status.skipped,
        items,
    );
    problems(&mut h, "warnings", "Warnings", "w", &status.warnings, items);

    if !removed.is_empty() {
        h.lit("<section aria-labelledby=\"h-removed\"><h2 id=\"h-removed\">Removed eggs</h2><ul>");
        for r in removed {
            h.lit("<li>")
                .code(&r.slug)
                .text(&format!(
                    " ({}, {}), removed {}",
                    r.source, r.path, r.removed_at
                ))
                .lit("</li>");
        }
        h.lit("</ul></section>");
    }
    layout::end(
        &mut h,
        here,
        Some(&status.finished_at),
        Some(Data {
            label: "_status.json",
            path: eggcat_wire::paths::STATUS,
        }),
    );
    h.finish()
}

/// One list of problems, each linked to its egg's page when the file is an egg.
fn problems(
    h: &mut Html,
    id: &'static str,
    title: &str,
    prefix: &str,
    list: &[SourceProblem],
    items: &[SummaryItem],
) {
    let hid = format!("h-{id}");
    h.open("section", &[("aria-labelledby", Some(&hid))])
        .el("h2", &[("id", Some(&hid))], title);
    if list.is_empty() {
        h.lit("<p>None.</p></section>");
        return;
    }
    h.lit("<ul class=\"problems\">");
    for (n, p) in list.iter().enumerate() {
        let anchor = format!("{prefix}-{n}");
        h.open("li", &[("id", Some(&anchor))])
            .code(&format!("{}: {}", p.source, p.path))
            .lit(" ")
            .text_code(&p.message);
        if let Some(egg) = items
            .iter()
            .find(|i| format!("{}/{}", i.owner, i.repo) == p.source && path_of(i, p))
        {
            let href = Here::Page(paths::STATUS_PAGE).link(&paths::egg_page(&egg.slug));
            h.lit(" ").el(
                "a",
                &[("href", Some(&href))],
                &format!("(egg page: {})", egg.name),
            );
        }
        h.lit("</li>");
    }
    h.lit("</ul></section>");
}

/// Whether problem `p` is about egg `i`'s file.
fn path_of(i: &SummaryItem, p: &SourceProblem) -> bool {
    i.path == p.path
}

/// The checks' findings over the catalog, per code (each egg's page lists its own).
fn diagnostics(h: &mut Html, status: &Status) {
    let d = &status.diagnostics;
    h.lit("<section aria-labelledby=\"h-diagnostics\"><h2 id=\"h-diagnostics\">Diagnostics</h2><p>")
        .text(&format!(
            "{}, {}, {}",
            count(d.errors, "error", "errors"),
            count(d.warnings, "warning", "warnings"),
            count(d.notes, "note", "notes")
        ))
        .lit(" found by the checks of <code>eggcat validate</code> in the catalog's eggs; each egg's page lists its own.</p>");
    if !d.by_code.is_empty() {
        h.lit("<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"h-diagnostics\"><table><thead><tr><th scope=\"col\">Code</th><th scope=\"col\">Diagnostics</th></tr></thead><tbody>");
        for (code, n) in &d.by_code {
            h.lit("<tr><th scope=\"row\">")
                .code(code)
                .lit("</th><td>")
                .num(*n)
                .lit("</td></tr>");
        }
        h.lit("</tbody></table></div>");
    }
    h.lit("</section>");
}
