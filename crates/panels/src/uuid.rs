//! Stable egg identities: RFC 9562 UUIDv5 from a name, and the canonical UUID form check.

use sha1::{Digest, Sha1};

/// The namespace of eggcat's derived UUIDs: the UUIDv5 of `eggcat.dev` in the DNS namespace
/// (fixed forever: changing it would change every derived UUID and duplicate eggs in panels).
const NAMESPACE: [u8; 16] = [
    0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8,
];

/// The UUIDv5 of `name` in `namespace` (RFC 9562 section 5.5).
fn uuid5(namespace: &[u8; 16], name: &str) -> String {
    let mut hasher = Sha1::new();
    hasher.update(namespace);
    hasher.update(name.as_bytes());
    let digest = hasher.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The stable UUID of the egg at `name` (`owner/repo/path`): a UUIDv5 in eggcat's namespace,
/// the same on every build and every machine.
pub fn stable_uuid(name: &str) -> String {
    uuid5(&eggcat_namespace(), name)
}

fn eggcat_namespace() -> [u8; 16] {
    let s = uuid5(&NAMESPACE, "eggcat.dev").replace('-', "");
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex from format!");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use eggcat_egg::panel::is_uuid;

    #[test]
    fn the_rfc_algorithm_on_a_known_vector() {
        // uuid5(NAMESPACE_DNS, "python.org"), as Python's uuid module gives it.
        assert_eq!(
            uuid5(&NAMESPACE, "python.org"),
            "886313e1-3b8a-5372-9b90-0c9aee199e5d"
        );
    }

    #[test]
    fn stable_distinct_and_canonical() {
        let a = stable_uuid("pelican-eggs/minecraft/java/paper/egg-paper.json");
        assert_eq!(
            a,
            stable_uuid("pelican-eggs/minecraft/java/paper/egg-paper.json")
        );
        assert_ne!(
            a,
            stable_uuid("pelican-eggs/minecraft/java/purpur/egg-purpur.json")
        );
        assert!(is_uuid(&a));
        assert_eq!(&a[14..15], "5");
    }

    #[test]
    fn canonical_form_only() {
        assert!(is_uuid("8F2D6A4E-1C3B-4F5A-9E7D-0B1C2D3E4F5A"));
        for bad in [
            "",
            "not-a-uuid",
            "8f2d6a4e1c3b4f5a9e7d0b1c2d3e4f5a",
            "{8f2d6a4e-1c3b-4f5a-9e7d-0b1c2d3e4f5a}",
            "8f2d6a4e-1c3b-4f5a-9e7d-0b1c2d3e4f5g",
        ] {
            assert!(!is_uuid(bad), "{bad}");
        }
    }
}
