//! The docker images check and the install check (its `container`) judge an image reference
//! by the grammar of distribution/reference, `eggcat_wire::reference_error` (E061), and by
//! Pterodactyl's cap of 191 characters.

use eggcat_egg::panel::{PTERODACTYL_MAX, chars};
use eggcat_wire::reference_error;

use crate::vocab::{Code, Family, Finding};

/// The [`Code::BadImageReference`] finding on `image` at `pointer`, when it is not a valid
/// reference or (in a PTDL egg) is longer than Pterodactyl allows.
pub(crate) fn check_reference(pointer: &str, image: &str, fam: Family) -> Option<Finding> {
    let code = Code::BadImageReference;
    if let Err(why) = reference_error(image) {
        Some(
            Finding::new(
                code,
                pointer,
                format!("`{image}` is not a valid image reference: {why}"),
            )
            .help("write it as `registry/name:tag`, e.g. `ghcr.io/pterodactyl/yolks:java_21`"),
        )
    } else if fam == Family::Ptdl && chars(image) > PTERODACTYL_MAX {
        Some(Finding::new(
            code,
            pointer,
            format!(
                "image reference is {} characters long, over Pterodactyl's limit of {PTERODACTYL_MAX}",
                image.chars().count()
            ),
        ))
    } else {
        None
    }
}
