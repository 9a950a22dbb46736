//! What the pages show of the install script's downloads (`meta.downloads`, the report's
//! `downloads`; issue 38): on an egg page, next to the images, each URL the script fetches with
//! what its host answered and since when, and a warning above them when one is missing (the
//! install fails there); on the status page, the missing URLs with the eggs that fetch them.

use eggcat_catalog::wire::{DownloadInfo, DownloadKind, ImageStatus};

use crate::html::Html;
use crate::layout::Here;
use crate::model::{Meta, Status};
use crate::words::count;

/// The egg page's "Install downloads" section; nothing when the script fetches nothing.
pub(crate) fn egg_section(h: &mut Html, m: &Meta) {
    if m.downloads.is_empty() {
        return;
    }
    h.lit("<section id=\"downloads\" aria-labelledby=\"h-downloads\"><h2 id=\"h-downloads\">Install downloads</h2>");
    let missing: Vec<&DownloadInfo> = m
        .downloads
        .iter()
        .filter(|d| d.status == ImageStatus::Missing)
        .collect();
    if !missing.is_empty() {
        h.lit("<div class=\"image-warning\" role=\"note\"><p><strong>")
            .text(&count(missing.len(), "download is missing", "downloads are missing"))
            .lit(".</strong> Its host says it does not exist: the install script fails where it fetches it.</p><ul>");
        for d in &missing {
            h.lit("<li>").code(d.checked.as_deref().unwrap_or(&d.url));
            if let Some(detail) = &d.detail {
                h.lit(" ")
                    .open("span", &[("class", Some("muted"))])
                    .text_code(detail)
                    .close("span");
            }
            h.lit("</li>");
        }
        h.lit("</ul></div>");
    }
    h.lit("<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"h-downloads\"><table class=\"images downloads\"><thead><tr>")
        .lit("<th scope=\"col\">URL</th><th scope=\"col\">Line</th><th scope=\"col\">Host says</th></tr></thead><tbody>");
    for d in &m.downloads {
        row(h, d);
    }
    h.lit("</tbody></table></div><p class=\"muted\">The URLs the install script fetches (<code>curl</code>, <code>wget</code>, <code>git clone</code>), as each host answered when the catalog was built; “since” is when it first gave that answer. A URL built from variables is asked only where the egg's default values make it whole. <em>unknown</em>: not asked, or no answer that tells (a timeout, a server error, a rate limit): never taken for missing.</p></section>");
}

fn row(h: &mut Html, d: &DownloadInfo) {
    h.lit("<tr><td>").code(&d.url);
    if d.kind == DownloadKind::Variable
        && let Some(checked) = &d.checked
    {
        h.lit("<br>")
            .open("span", &[("class", Some("muted"))])
            .text("asked as ")
            .code(checked)
            .close("span");
    }
    h.lit("</td>").el("td", &[], &d.line.to_string());
    let class = format!("st {}", d.status.as_str());
    h.lit("<td>")
        .el("span", &[("class", Some(&class))], d.status.as_str());
    if let Some(since) = &d.since {
        h.lit(" since ").el(
            "time",
            &[("datetime", Some(since))],
            since.get(..10).unwrap_or(since),
        );
    }
    if let Some(detail) = &d.detail {
        h.lit("<br>")
            .open("span", &[("class", Some("muted"))])
            .text_code(detail)
            .close("span");
    }
    h.lit("</td></tr>");
}

/// The status page's "Install downloads" section: the counts, and each missing URL with its
/// eggs.
pub(crate) fn status_section(h: &mut Html, here: Here<'_>, status: &Status) {
    let d = &status.downloads;
    let total = d.present + d.missing + d.unknown;
    if total + d.not_checkable == 0 {
        return;
    }
    h.lit("<section aria-labelledby=\"h-downloads\"><h2 id=\"h-downloads\">Install downloads</h2><p>")
        .text(&format!(
            "{}: {} present, {} missing, {} unknown (no answer that tells); {} built from variables not asked.",
            count(total, "distinct download URL asked", "distinct download URLs asked"),
            d.present,
            d.missing,
            d.unknown,
            d.not_checkable
        ))
        .lit("</p>");
    let missing = d.missing_downloads.iter();
    crate::images::missing_list(
        h,
        here,
        "missing-downloads",
        missing.map(|m| (m.url.as_str(), m.since.as_deref(), &m.eggs[..])),
    );
    h.lit("</section>");
}
