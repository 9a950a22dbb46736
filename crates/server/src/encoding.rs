//! Content negotiation of `Accept-Encoding` (RFC 9110 section 12.5.3), and compressing a
//! document once into each coding.
//!
//! The server keeps every document precompressed in gzip, br and zstd; per request it only picks
//! one. The choice is the acceptable coding with the highest q-value; among equal q-values the
//! order is br, zstd, gzip (on JSON, usually smallest first), then identity. `identity` is acceptable unless refused (`identity;q=0`, or
//! `*;q=0` without a mention of identity); when nothing is acceptable the server still sends
//! identity rather than a 406, as most servers do.

use std::io::Write;

/// The codings the server can send, in order of preference at equal q-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    Brotli,
    Zstd,
    Gzip,
    Identity,
}

impl Coding {
    /// Every coding, identity last.
    pub(crate) const ALL: [Coding; 4] =
        [Coding::Brotli, Coding::Zstd, Coding::Gzip, Coding::Identity];

    /// The token in `Accept-Encoding` and `Content-Encoding`.
    pub(crate) fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Zstd => "zstd",
            Coding::Gzip => "gzip",
            Coding::Identity => "identity",
        }
    }

    /// Index into per-coding arrays.
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// q-values (in thousandths) of each coding, from an `Accept-Encoding` header value.
fn weights(header: &str) -> [Option<u16>; 4] {
    let mut explicit: [Option<u16>; 4] = [None; 4];
    let mut star: Option<u16> = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let token = parts.next().unwrap_or_default().trim();
        let mut q = 1000;
        for param in parts {
            match param.split_once('=') {
                Some((k, v)) if k.trim().eq_ignore_ascii_case("q") => {
                    q = parse_q(v.trim()).unwrap_or(0)
                }
                _ => {}
            }
        }
        if token == "*" {
            star = Some(q);
        } else if let Some(c) = Coding::ALL
            .iter()
            .find(|c| token.eq_ignore_ascii_case(c.token()))
        {
            explicit[c.index()] = Some(q);
        } else if token.eq_ignore_ascii_case("x-gzip") {
            explicit[Coding::Gzip.index()] = Some(q);
        }
    }
    let mut out = [None; 4];
    for c in Coding::ALL {
        out[c.index()] = explicit[c.index()].or(star).or(match c {
            // identity is always acceptable unless refused.
            Coding::Identity => Some(1),
            _ => None,
        });
    }
    out
}

/// `q` values: `1`, `1.0`, `0.5`, `0.125`, at most three decimals.
fn parse_q(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0u16, |acc, b| acc * 10 + u16::from(b - b'0'));
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The coding to send, given which ones the document has (`available`, indexed by
/// [`Coding::index`]; identity is always available).
pub(crate) fn choose(accept_encoding: Option<&str>, available: [bool; 4]) -> Coding {
    let Some(header) = accept_encoding else {
        return Coding::Identity;
    };
    let w = weights(header);
    let mut best = (Coding::Identity, 0u16);
    for c in Coding::ALL {
        let q = w[c.index()].unwrap_or(0);
        if (available[c.index()] || c == Coding::Identity) && q > 0 && q > best.1 {
            best = (c, q);
        }
    }
    best.0
}

/// Documents smaller than this are sent as they are: compression would save a few bytes at most.
pub(crate) const MIN_COMPRESS_SIZE: usize = 256;

/// Compresses documents one after another (once per snapshot, never per request). Every encoder
/// writes into one scratch buffer and the zstd context is kept between documents, so that each
/// output is allocated once, at its exact size (an encoder's own output grows by doubling, and
/// zstd's starts at the input's size; a variant is kept for as long as its snapshot is served).
///
/// Brotli runs at quality 4: from quality 5 on, its context modelling takes about 29 MiB of
/// working memory for an egg document with a base64 icon in it, which made the peak of loading
/// the ten shared repositories' catalog 97 MiB; quality 4 needs under 8 MiB, writes 5 % more
/// bytes (35.4 % of the input instead of 33.7 %) and runs three times as fast.
pub(crate) struct Compressor {
    scratch: Vec<u8>,
    zstd: zstd::bulk::Compressor<'static>,
}

impl Compressor {
    pub(crate) fn new() -> Compressor {
        Compressor {
            scratch: Vec::new(),
            zstd: zstd::bulk::Compressor::new(12).expect("zstd level 12 is valid"),
        }
    }

    /// `data` compressed with `coding`.
    pub(crate) fn compress(&mut self, coding: Coding, data: &[u8]) -> Vec<u8> {
        let out = &mut self.scratch;
        out.clear();
        match coding {
            Coding::Identity => out.extend_from_slice(data),
            Coding::Gzip => {
                // flate2 writes mtime 0 and no file name: the output depends on the input only.
                let mut e = flate2::write::GzEncoder::new(&mut *out, flate2::Compression::best());
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
            Coding::Zstd => {
                // Browsers refuse windows over 8 MiB (RFC 9659).
                let window = zstd::zstd_safe::CParameter::WindowLog(window_bits(data.len(), 23));
                self.zstd
                    .set_parameter(window)
                    .expect("window logs 10 to 23 are valid");
                out.reserve(zstd::zstd_safe::compress_bound(data.len()));
                self.zstd
                    .compress_to_buffer(data, out)
                    .expect("the buffer holds the compression bound");
            }
        }
        out.as_slice().to_vec()
    }
}

/// The smallest window (as a power of two, at least 2^10, at most 2^`max`) that holds the whole
/// document: a window larger than the input only costs memory.
fn window_bits(len: usize, max: u32) -> u32 {
    let bits = usize::BITS - len.max(1).saturating_sub(1).leading_zeros();
    bits.clamp(10, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [bool; 4] = [true; 4];

    #[test]
    fn no_header_means_identity() {
        assert_eq!(choose(None, ALL), Coding::Identity);
        assert_eq!(choose(Some(""), ALL), Coding::Identity);
    }

    #[test]
    fn highest_q_wins_and_ties_follow_br_zstd_gzip() {
        assert_eq!(choose(Some("gzip"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("gzip, deflate, br, zstd"), ALL), Coding::Brotli);
        assert_eq!(choose(Some("gzip;q=1.0, br;q=0.5"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("zstd, gzip;q=0.9"), ALL), Coding::Zstd);
        assert_eq!(choose(Some("*"), ALL), Coding::Brotli);
        assert_eq!(choose(Some("br;q=0, *;q=0.1"), ALL), Coding::Zstd);
        assert_eq!(choose(Some("GZIP"), ALL), Coding::Gzip);
    }

    #[test]
    fn unavailable_or_refused_codings_fall_back_to_identity() {
        assert_eq!(
            choose(Some("br"), [false, true, true, true]),
            Coding::Identity
        );
        assert_eq!(choose(Some("gzip;q=0"), ALL), Coding::Identity);
        assert_eq!(choose(Some("deflate"), ALL), Coding::Identity);
        // Nothing acceptable at all: identity anyway, not 406.
        assert_eq!(
            choose(Some("identity;q=0"), [true, false, false, true]),
            Coding::Identity
        );
        assert_eq!(choose(Some("*;q=0"), ALL), Coding::Identity);
        assert_eq!(
            choose(Some("gzip;q=0.5, identity;q=1"), ALL),
            Coding::Identity
        );
    }

    #[test]
    fn malformed_q_values_count_as_zero() {
        assert_eq!(choose(Some("br;q=2, gzip"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("br;q=0.1234, gzip;q=0.5"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("br;q=abc, zstd;q=0.001"), ALL), Coding::Zstd);
    }

    #[test]
    fn compressed_variants_round_trip() {
        use std::io::Read;
        let large = br#"{"egg":{"name":"Paper"},"readme":null}"#.repeat(5000);
        let small = br#"{"egg":{"name":"Paper"},"readme":null}"#.repeat(50);
        // One compressor for documents of several sizes, as a snapshot load uses it.
        let mut c = Compressor::new();
        for data in [&large, &small, &large] {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&c.compress(Coding::Gzip, data)[..])
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(&out, data);
            assert_eq!(
                &zstd::decode_all(&c.compress(Coding::Zstd, data)[..]).unwrap(),
                data
            );
            let mut out = Vec::new();
            brotli::BrotliDecompress(&mut &c.compress(Coding::Brotli, data)[..], &mut out).unwrap();
            assert_eq!(&out, data);
            // Deterministic: a reused compressor gives the bytes a new one gives (and so the
            // same ETag), and each output is exactly as long as it needs to be.
            for coding in [Coding::Gzip, Coding::Zstd, Coding::Brotli] {
                let packed = c.compress(coding, data);
                assert_eq!(packed, Compressor::new().compress(coding, data));
                assert_eq!(packed.capacity(), packed.len());
            }
        }
    }
}
