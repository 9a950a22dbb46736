//! Strict request framing, checked on the bytes of each request head before hyper parses them.
//!
//! hyper (httparse) accepts a bare LF as the end of a line, and it reads a body framed by
//! `Transfer-Encoding` or `Content-Length`. A front end that keeps a bare LF inside a header
//! value, or frames a body differently, would then read other requests than eggcat does (request
//! smuggling). serve answers only GET, HEAD and OPTIONS, which carry no body, so it refuses all
//! of them, as RFC 9112 allows (section 2.2 for the bare LF, section 6.3 for the framing):
//!
//! - a bare LF anywhere in a head (before its blank line);
//! - any `Transfer-Encoding`;
//! - a `Content-Length` other than 0.
//!
//! [`Heads`] holds the bytes of a head until its blank line has arrived and the head is found
//! good; only whole, checked heads reach hyper. A refused head is replaced by a stand-in request
//! that hyper parses as usual, whose number [`Verdicts`] records: the service answers it with a
//! `400` and `Connection: close`, after the answers to the requests before it (pipelined or not),
//! and nothing the client sent after it is read. So the check is exact for pipelined requests.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a head was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    BareLf,
    TransferEncoding,
    ContentLength,
}

impl Refusal {
    /// The `detail` of the `400`.
    pub(crate) fn detail(self) -> &'static str {
        match self {
            Refusal::BareLf => {
                "a line of the request head ends with a bare LF: lines end with CRLF (RFC 9112, section 2.2)"
            }
            Refusal::TransferEncoding => {
                "a request with `Transfer-Encoding` is refused: GET, HEAD and OPTIONS carry no body"
            }
            Refusal::ContentLength => {
                "a request with a `Content-Length` other than 0 is refused: GET, HEAD and OPTIONS carry no body"
            }
        }
    }
}

/// What hyper reads in place of a refused head: a request it parses as usual, answered by the
/// service with the `400` of its [`Verdicts`].
const STAND_IN: &[u8] = b"GET / HTTP/1.1\r\nhost: refused\r\nconnection: close\r\n\r\n";

/// Longest line kept to look at (a header line's name and value); a `Content-Length` or
/// `Transfer-Encoding` line longer than this is refused whole.
const LINE_KEPT: usize = 256;

/// The verdict a connection's service reads: which request (counted from 1) stands in for a
/// refused head, and why. Shared by the connection's [`Heads`] and its service.
#[derive(Debug, Default)]
pub(crate) struct Verdicts {
    refused_at: AtomicU64,
    why: Mutex<Option<(Refusal, String)>>,
    served: AtomicU64,
}

impl Verdicts {
    /// Counts a request the service is answering: `Some` with the refusal and the request target
    /// (as sent, for `instance`) when it is the stand-in for a refused head.
    pub(crate) fn next(&self) -> Option<(Refusal, String)> {
        let n = self.served.fetch_add(1, Ordering::Relaxed) + 1;
        if n == self.refused_at.load(Ordering::Relaxed) {
            self.why.lock().expect("verdicts lock").clone()
        } else {
            None
        }
    }
}

/// The bytes read from a connection, checked head by head; see the module's documentation.
#[derive(Debug)]
pub(crate) struct Heads {
    buf: Vec<u8>,
    /// `buf[..checked]` is ready for hyper: whole heads found good (or a stand-in).
    checked: usize,
    /// Bytes of `buf` scanned.
    scanned: usize,
    line_start: usize,
    head_start: usize,
    /// Heads passed to hyper (the stand-in included).
    heads: u64,
    /// At the end of the stream, or once a head is refused, nothing more is read.
    closed: bool,
    refused: bool,
    /// A head longer than the limit goes to hyper unchecked, which answers `431` and closes.
    unchecked: bool,
    max_head: usize,
}

impl Heads {
    pub(crate) fn new(max_head: usize) -> Heads {
        Heads {
            buf: Vec::new(),
            checked: 0,
            scanned: 0,
            line_start: 0,
            head_start: 0,
            heads: 0,
            closed: false,
            refused: false,
            unchecked: false,
            max_head,
        }
    }

    /// Whether nothing more is to be read from the client.
    pub(crate) fn closed(&self) -> bool {
        self.closed
    }

    /// Whether a head was refused: hyper is then kept waiting for more (an end of the stream
    /// would make it drop the connection without writing the `400`), and closes the connection
    /// after the `400` it answers the stand-in with.
    pub(crate) fn refused(&self) -> bool {
        self.refused
    }

    /// Bytes of a head still arriving (not whole yet).
    pub(crate) fn partial(&self) -> usize {
        self.buf.len() - self.checked
    }

    /// Whole heads received (a refused one's stand-in included).
    pub(crate) fn received(&self) -> u64 {
        self.heads
    }

    /// Bytes ready for hyper.
    pub(crate) fn ready(&self) -> &[u8] {
        &self.buf[..self.checked]
    }

    /// Drops the first `n` ready bytes (hyper took them).
    pub(crate) fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
        self.checked -= n;
        self.scanned -= n;
        self.line_start -= n;
        self.head_start -= n;
    }

    /// At the end of the stream, what is left goes to hyper as it is (it answers a cut head).
    pub(crate) fn end(&mut self) {
        self.checked = self.buf.len();
        self.scanned = self.checked;
        self.line_start = self.checked;
        self.head_start = self.checked;
        self.closed = true;
    }

    /// Takes bytes read from the client and checks what they complete.
    pub(crate) fn push(&mut self, bytes: &[u8], verdicts: &Verdicts) {
        if self.closed {
            return;
        }
        self.buf.extend_from_slice(bytes);
        if self.unchecked {
            self.checked = self.buf.len();
            self.scanned = self.checked;
            self.line_start = self.checked;
            self.head_start = self.checked;
            return;
        }
        while let Some(at) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
            let lf = self.scanned + at;
            self.scanned = lf + 1;
            if lf == self.line_start || self.buf[lf - 1] != b'\r' {
                return self.refuse(Refusal::BareLf, verdicts);
            }
            let line = &self.buf[self.line_start..lf - 1];
            let first = self.line_start == self.head_start;
            self.line_start = lf + 1;
            if line.is_empty() {
                if first {
                    // Empty lines before a request line are ignored (RFC 9112, section 2.2).
                    self.head_start = self.line_start;
                    continue;
                }
                self.checked = self.line_start;
                self.head_start = self.line_start;
                self.heads += 1;
                continue;
            }
            if !first && let Some(refusal) = header_refusal(line) {
                return self.refuse(refusal, verdicts);
            }
        }
        if self.buf.len() - self.head_start > self.max_head {
            self.unchecked = true;
            self.checked = self.buf.len();
            self.scanned = self.checked;
        }
    }

    fn refuse(&mut self, refusal: Refusal, verdicts: &Verdicts) {
        let request_line = self.buf[self.head_start..]
            .split(|&b| b == b'\n')
            .next()
            .unwrap_or_default();
        let target = std::str::from_utf8(request_line)
            .ok()
            .and_then(|l| l.trim_end_matches('\r').split(' ').nth(1))
            .unwrap_or("")
            .to_owned();
        self.buf.truncate(self.head_start);
        self.buf.extend_from_slice(STAND_IN);
        self.heads += 1;
        *verdicts.why.lock().expect("verdicts lock") = Some((refusal, target));
        verdicts.refused_at.store(self.heads, Ordering::Relaxed);
        self.end();
        self.refused = true;
    }
}

/// The refusal a header line (without its CRLF) earns, if any.
fn header_refusal(line: &[u8]) -> Option<Refusal> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = line[..colon].trim_ascii();
    if name.eq_ignore_ascii_case(b"transfer-encoding") {
        return Some(Refusal::TransferEncoding);
    }
    if name.eq_ignore_ascii_case(b"content-length") {
        let value = line[colon + 1..].trim_ascii();
        let zero = line.len() <= LINE_KEPT && !value.is_empty() && value.iter().all(|&b| b == b'0');
        if !zero {
            return Some(Refusal::ContentLength);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What hyper would read of `sent`, fed in pieces of `step` bytes, and the verdict.
    fn through(sent: &[u8], step: usize) -> (String, Option<(Refusal, String)>, u64) {
        let verdicts = Verdicts::default();
        let mut heads = Heads::new(16 * 1024);
        let mut out = Vec::new();
        for piece in sent.chunks(step) {
            heads.push(piece, &verdicts);
            out.extend_from_slice(heads.ready());
            let n = heads.ready().len();
            heads.consume(n);
        }
        let at = verdicts.refused_at.load(Ordering::Relaxed);
        let why = verdicts.why.lock().unwrap().clone();
        (String::from_utf8_lossy(&out).into_owned(), why, at)
    }

    #[test]
    fn good_heads_pass_whole_and_only_whole() {
        let two = b"GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c";
        for step in [1, 3, 7, 200] {
            let (out, why, _) = through(two, step);
            assert_eq!(
                out,
                "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
            );
            assert_eq!(why, None);
        }
        let (out, _, _) = through(b"\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 1);
        assert_eq!(out, "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
    }

    #[test]
    fn the_probes_requests_are_refused_after_the_good_ones_before_them() {
        let cases: [(&[u8], Refusal); 7] = [
            (
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\nContent-Length: 40\r\n\r\n",
                Refusal::BareLf,
            ),
            (b"GET /healthz HTTP/1.1\nHost: x\r\n\r\n", Refusal::BareLf),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\n\n", Refusal::BareLf),
            (
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                Refusal::TransferEncoding,
            ),
            (
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\ntransfer-encoding: chunked\r\n\r\n",
                Refusal::TransferEncoding,
            ),
            (
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
                Refusal::ContentLength,
            ),
            (
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0, 0\r\n\r\n",
                Refusal::ContentLength,
            ),
        ];
        let good = b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
        for (bad, refusal) in cases {
            let mut sent = good.to_vec();
            sent.extend_from_slice(bad);
            sent.extend_from_slice(b"GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
            for step in [1, 5, 1000] {
                let (out, why, at) = through(&sent, step);
                let expected = format!(
                    "{}{}",
                    String::from_utf8_lossy(good),
                    String::from_utf8_lossy(STAND_IN)
                );
                assert_eq!(out, expected, "{}", String::from_utf8_lossy(bad));
                assert_eq!(why, Some((refusal, "/healthz".to_owned())));
                assert_eq!(at, 2);
            }
        }
    }
}
