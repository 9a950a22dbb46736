//! What the pages show of the images' registries (`meta.images`, `meta.runsOn`, the report's
//! `images`): on an egg page, each image with whether it exists, for which platforms and since
//! when, and a warning above them when one is missing (a server installed or started with it
//! fails with "manifest unknown"); on the status page, the missing images with the eggs that
//! name them.

use eggcat_wire::paths;
use eggcat_wire::{ImageInfo, ImageRole, ImageStatus};

use crate::html::Html;
use crate::layout::Here;
use crate::model::{Meta, Status};
use crate::words::count;

/// The egg page's "Docker images" section.
pub(crate) fn egg_section(h: &mut Html, m: &Meta) {
    h.lit("<section id=\"images\" aria-labelledby=\"h-images\"><h2 id=\"h-images\">Docker images</h2>");
    if m.images.is_empty() {
        h.lit("<p>None listed.</p></section>");
        return;
    }
    let missing: Vec<&ImageInfo> = m
        .images
        .iter()
        .filter(|i| i.status == ImageStatus::Missing)
        .collect();
    if !missing.is_empty() {
        h.lit("<div class=\"image-warning\" role=\"note\"><p><strong>")
            .text(&count(missing.len(), "image is missing", "images are missing"))
            .lit(".</strong> Its registry says it does not exist: a server installed or started with it fails with “manifest unknown”.</p><ul>");
        for i in &missing {
            h.lit("<li>").code(&i.image);
            if let Some(detail) = &i.detail {
                h.lit(" ")
                    .open("span", &[("class", Some("muted"))])
                    .text_code(detail)
                    .close("span");
            }
            h.lit("</li>");
        }
        h.lit("</ul></div>");
    }
    runs_on(h, &m.runs_on);
    h.lit("<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"h-images\"><table class=\"images\"><thead><tr>")
        .lit("<th scope=\"col\">Image</th><th scope=\"col\">Used for</th><th scope=\"col\">Registry says</th><th scope=\"col\">Platforms</th></tr></thead><tbody>");
    for i in &m.images {
        row(h, i);
    }
    h.lit("</tbody></table></div><p class=\"muted\">As each image's registry answered when the catalog was built; “since” is when it first gave that answer. <em>unknown</em>: the registry could not be asked, or gave no answer that tells (a timeout, a server error, a rate limit, a private image): never taken for missing.</p></section>");
}

/// "Runs on" and the platforms, or why none can be named.
fn runs_on(h: &mut Html, platforms: &[String]) {
    h.lit("<p class=\"runs-on\">");
    if platforms.is_empty() {
        h.lit("Runs on: no platform known (every image the egg needs for one variant, and its install container, must be present for the same platform).");
    } else {
        h.lit("<strong>Runs on:</strong> ")
            .text(&platforms.join(", "))
            .lit(" (one of its images and its install container offer it).");
    }
    h.lit("</p>");
}

fn row(h: &mut Html, i: &ImageInfo) {
    h.lit("<tr><td>").code(&i.image);
    if let Some(label) = i.label.as_deref().filter(|l| *l != i.image) {
        h.lit(" ").el("span", &[("class", Some("muted"))], label);
    }
    let used = match i.role {
        ImageRole::Runtime => "server",
        ImageRole::Install => "install script",
    };
    h.lit("</td>").el("td", &[], used);
    let class = format!("st {}", i.status.as_str());
    h.lit("<td>")
        .el("span", &[("class", Some(&class))], i.status.as_str());
    if let Some(since) = &i.since {
        h.lit(" since ").el(
            "time",
            &[("datetime", Some(since))],
            since.get(..10).unwrap_or(since),
        );
    }
    if let Some(digest) = &i.digest {
        let short = digest.get(..19).unwrap_or(digest);
        h.lit(" ").el("code", &[("title", Some(digest))], short);
    }
    if i.status != ImageStatus::Missing
        && let Some(detail) = &i.detail
    {
        // A detail names keys and values between backticks, as the checks' messages do.
        h.lit("<br>")
            .open("span", &[("class", Some("muted"))])
            .text_code(detail)
            .close("span");
    }
    h.lit("</td>")
        .el("td", &[], &i.platforms.join(", "))
        .lit("</tr>");
}

/// The status page's "Images" section: the counts, and each missing image with its eggs.
pub(crate) fn status_section(h: &mut Html, here: Here<'_>, status: &Status) {
    let images = &status.images;
    let total = images.present + images.missing + images.unknown;
    if total == 0 {
        return;
    }
    h.lit("<section aria-labelledby=\"h-images\"><h2 id=\"h-images\">Images</h2><p>")
        .text(&format!(
            "{}: {} present, {} missing, {} unknown (no answer that tells).",
            count(
                total,
                "distinct image reference",
                "distinct image references"
            ),
            images.present,
            images.missing,
            images.unknown
        ))
        .lit("</p>");
    let missing = images.missing_images.iter();
    missing_list(
        h,
        here,
        "missing-images",
        missing.map(|m| (m.reference.as_str(), m.since.as_deref(), &m.eggs[..])),
    );
    h.lit("</section>");
}

/// A status page's list of what is missing (an image reference, a download URL), each with
/// since when and links to the eggs that name it; nothing when there is none.
pub(crate) fn missing_list<'a>(
    h: &mut Html,
    here: Here<'_>,
    class: &'static str,
    missing: impl ExactSizeIterator<Item = (&'a str, Option<&'a str>, &'a [String])>,
) {
    if missing.len() == 0 {
        return;
    }
    h.lit("<ul class=\"").lit(class).lit("\">");
    for (what, since, eggs) in missing {
        h.lit("<li>").code(what);
        if let Some(since) = since {
            h.text(&format!(" missing since {since}"));
        }
        h.lit(": ");
        for (n, slug) in eggs.iter().enumerate() {
            if n > 0 {
                h.lit(", ");
            }
            let href = here.link(&paths::egg_page(slug));
            h.el("a", &[("href", Some(&href))], slug);
        }
        h.lit("</li>");
    }
    h.lit("</ul>");
}
