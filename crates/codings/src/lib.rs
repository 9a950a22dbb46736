//! The content codings eggcat precompresses its published files in, once, when a snapshot is
//! written: which ones (br and gzip), how (deterministically: the same bytes give the same
//! output, so the same ETag), and under which names (`x.json.br` and `x.json.gz` beside
//! `x.json`, the names nginx's `gzip_static`/`brotli_static` and Caddy's `precompressed` read).
//!
//! Why not zstd as well: on the shared corpus its output was the size of brotli's (9.9 MiB
//! against 10.0 MiB for the whole catalog), every client that accepts zstd accepts br or gzip
//! too (browsers, curl), nginx cannot serve a `.zst` file without a module Debian does not
//! ship, and it would add a third copy of every compressible file to each snapshot
//! (docs/api.md, "Compression").
//!
//! Pure: bytes in, bytes out. `eggcat-store` writes the files, `eggcat-server` picks one.

use std::io::Write;

/// A coding a file is stored in beside its identity form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coding {
    /// Brotli (RFC 7932), quality 4.
    Brotli,
    /// gzip (RFC 1952), level 6 (level 9 wrote 0.2 % fewer bytes on the corpus and took 1.4
    /// times as long), no name and no time in its header.
    Gzip,
}

impl Coding {
    /// Every stored coding, in the server's order of preference at equal q-value.
    pub const ALL: [Coding; 2] = [Coding::Brotli, Coding::Gzip];

    /// Its token in `Accept-Encoding` and `Content-Encoding`.
    pub fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// The suffix of its file beside the identity file (`.br`, `.gz`).
    pub fn suffix(self) -> &'static str {
        match self {
            Coding::Brotli => ".br",
            Coding::Gzip => ".gz",
        }
    }

    /// The path of `path`'s form in this coding.
    pub fn path(self, path: &str) -> String {
        format!("{path}{}", self.suffix())
    }

    /// Index into per-coding arrays of [`Coding::ALL`]'s length.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// When `path` names a stored form (`x.json.br`), the path it is a form of and its coding. A
/// caller that lists a tree counts it as a form only when that path is in the tree too.
pub fn form_of(path: &str) -> Option<(&str, Coding)> {
    Coding::ALL
        .into_iter()
        .find_map(|c| Some((path.strip_suffix(c.suffix())?, c)))
        .filter(|(base, _)| !base.is_empty() && !base.ends_with('/'))
}

/// Files smaller than this are stored as they are: compression would save a few bytes at most.
pub const MIN_SIZE: usize = 256;

/// Compresses files one after another. Each encoder writes into one scratch buffer, so that
/// each output is allocated once, at its exact size (an encoder's own output grows by doubling).
///
/// Brotli runs at quality 4: from quality 5 on, its context modelling takes about 29 MiB of
/// working memory for an egg document with a base64 icon in it; quality 4 needs under 8 MiB,
/// writes 5 % more bytes (35.4 % of the input instead of 33.7 %) and runs three times as fast.
#[derive(Debug, Default)]
pub struct Compressor {
    scratch: Vec<u8>,
}

impl Compressor {
    /// A compressor with an empty scratch buffer.
    pub fn new() -> Compressor {
        Compressor::default()
    }

    /// `data` compressed with `coding`, when that is smaller than `data` and `data` is at least
    /// [`MIN_SIZE`] bytes long.
    pub fn smaller(&mut self, coding: Coding, data: &[u8]) -> Option<Vec<u8>> {
        if data.len() < MIN_SIZE {
            return None;
        }
        let packed = self.compress(coding, data);
        (packed.len() < data.len()).then_some(packed)
    }

    /// `data` compressed with `coding`.
    pub fn compress(&mut self, coding: Coding, data: &[u8]) -> Vec<u8> {
        let out = &mut self.scratch;
        out.clear();
        match coding {
            Coding::Gzip => {
                // flate2 writes mtime 0 and no file name: the output depends on the input only.
                let mut e =
                    flate2::write::GzEncoder::new(&mut *out, flate2::Compression::default());
                e.write_all(data).expect("writing to a Vec cannot fail");
                e.finish().expect("writing to a Vec cannot fail");
            }
            Coding::Brotli => {
                let params = brotli::enc::BrotliEncoderParams {
                    quality: 4,
                    lgwin: window_bits(data.len(), 22) as i32,
                    size_hint: data.len(),
                    ..Default::default()
                };
                brotli::BrotliCompress(&mut &data[..], out, &params)
                    .expect("compressing from memory cannot fail");
            }
        }
        out.as_slice().to_vec()
    }
}

/// The smallest window (as a power of two, at least 2^10, at most 2^`max`) that holds the whole
/// input: a window larger than the input only costs memory.
fn window_bits(len: usize, max: u32) -> u32 {
    let bits = usize::BITS - len.max(1).saturating_sub(1).leading_zeros();
    bits.clamp(10, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn forms_are_named_beside_their_file() {
        assert_eq!(Coding::Brotli.path("a/b.json"), "a/b.json.br");
        assert_eq!(Coding::Gzip.path("a/b.json"), "a/b.json.gz");
        assert_eq!(form_of("a/b.json.br"), Some(("a/b.json", Coding::Brotli)));
        assert_eq!(form_of("a/b.json.gz"), Some(("a/b.json", Coding::Gzip)));
        assert_eq!(form_of("a/b.json"), None);
        assert_eq!(form_of(".gz"), None);
        assert_eq!(form_of("a/.br"), None);
    }

    #[test]
    fn compressed_forms_round_trip_deterministically_at_their_exact_size() {
        let large = br#"{"egg":{"name":"Paper"},"readme":null}"#.repeat(5000);
        let small = br#"{"egg":{"name":"Paper"},"readme":null}"#.repeat(50);
        // One compressor for files of several sizes, as a snapshot's writer uses it.
        let mut c = Compressor::new();
        for data in [&large, &small, &large] {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&c.compress(Coding::Gzip, data)[..])
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(&out, data);
            let mut out = Vec::new();
            brotli::BrotliDecompress(&mut &c.compress(Coding::Brotli, data)[..], &mut out).unwrap();
            assert_eq!(&out, data);
            for coding in Coding::ALL {
                let packed = c.compress(coding, data);
                assert_eq!(packed, Compressor::new().compress(coding, data));
                assert_eq!(packed.capacity(), packed.len());
            }
        }
    }

    #[test]
    fn only_what_gets_smaller_is_stored() {
        let mut c = Compressor::new();
        assert!(c.smaller(Coding::Gzip, &[b'a'; MIN_SIZE - 1]).is_none());
        assert!(c.smaller(Coding::Gzip, &[b'a'; MIN_SIZE]).is_some());
        // Bytes that do not compress (xorshift64).
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        assert!(c.smaller(Coding::Gzip, &noise).is_none());
        assert!(c.smaller(Coding::Brotli, &noise).is_none());
    }
}
