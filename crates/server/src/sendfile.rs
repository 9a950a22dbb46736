//! Large bodies sent from their files with `sendfile`, not copied from memory into the socket.
//!
//! A response whose body is a file of the snapshot, [`SENDFILE_MIN`] bytes or larger, carries a
//! [`FileBody`] in its extensions: the body (the bytes hyper will write, from the body cache or
//! a read of the file) and the file's path. The connection's stream ([`crate::listener`]) keeps
//! it in its [`Slot`]; when hyper then writes a slice that lies within that body, the stream
//! sends the same bytes from the file with `sendfile(2)`: the kernel passes the page cache's
//! pages to the socket instead of copying them from the process, as nginx does. A 240 KB index
//! cost a third more CPU time copied than sent (`bench/serve.sh`, README). The file is opened
//! at the body's first byte and closed at its last: a connection holds a file open only while
//! it sends a large body, never between responses.
//!
//! Soundness: the slot holds a clone of the body, so no other allocation can lie at its
//! addresses while it is there: a slice within them is that body's bytes, at the same offset in
//! the file. The bytes sent are the file's, trusted as a second read of it is
//! ([`crate::snapshot`]): its first read checked them against the manifest, and a snapshot's
//! files are never written to once made current. When the file cannot be opened, ends early (a
//! file damaged since), or cannot be read, the bytes still to send go from memory: never less
//! than the body. Linux's `sendfile(2)` and `MSG_MORE`: the server is built for Linux.

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;

/// The smallest body sent with `sendfile`: below it, a copy costs less than opening the file.
pub(crate) const SENDFILE_MIN: usize = 64 * 1024;

/// A response body that is also the bytes of a file (a response extension).
#[derive(Debug, Clone)]
pub(crate) struct FileBody {
    /// The body as hyper writes it.
    pub(crate) body: Bytes,
    /// The file with the same bytes.
    pub(crate) path: PathBuf,
}

/// The large body a connection is sending, if any, shared by its service (which fills it) and
/// its stream (which sends from it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Slot(Arc<Mutex<Option<Registered>>>);

#[derive(Debug)]
struct Registered {
    body: FileBody,
    /// Opened at the first slice sent; `None` until then.
    file: Option<File>,
}

/// Where a slice of a registered body lies in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Within {
    /// The slice's index among those hyper passed.
    pub(crate) index: usize,
    /// Its offset in the file.
    pub(crate) offset: u64,
    /// Its length.
    pub(crate) len: usize,
}

impl Slot {
    /// The large body of the response the service has just made (`None`: nothing to send from
    /// a file). With pipelined requests it may replace a body still being written: the rest of
    /// that one then goes from memory.
    pub(crate) fn set(&self, body: Option<FileBody>) {
        let mut slot = self.0.lock().expect("sendfile slot lock");
        *slot = body.map(|body| Registered { body, file: None });
    }

    /// The first of `slices` that lies within the registered body, if any.
    pub(crate) fn locate(&self, slices: &[io::IoSlice<'_>]) -> Option<Within> {
        let slot = self.0.lock().expect("sendfile slot lock");
        let body = &slot.as_ref()?.body.body;
        let start = body.as_ptr() as usize;
        let end = start + body.len();
        slices.iter().enumerate().find_map(|(index, slice)| {
            let at = slice.as_ptr() as usize;
            (!slice.is_empty() && at >= start && at + slice.len() <= end).then(|| Within {
                index,
                offset: (at - start) as u64,
                len: slice.len(),
            })
        })
    }

    /// Sends up to `len` bytes of the registered file from `offset` to `socket` (non-blocking:
    /// `WouldBlock` when the socket is full). `Ok(0)` and any error but `WouldBlock` mean the file
    /// cannot give them: the registration is dropped, so that the caller and every later write
    /// send the body from memory.
    pub(crate) fn send(
        &self,
        socket: &impl std::os::fd::AsFd,
        offset: u64,
        len: usize,
    ) -> io::Result<usize> {
        let mut slot = self.0.lock().expect("sendfile slot lock");
        let Some(registered) = slot.as_mut() else {
            return Ok(0);
        };
        if registered.file.is_none() {
            match File::open(&registered.body.path) {
                Ok(file) => registered.file = Some(file),
                Err(e) => {
                    tracing::warn!(path = %registered.body.path.display(), error = %e, "cannot open a body's file: sending it from memory");
                    *slot = None;
                    return Ok(0);
                }
            }
        }
        let file = registered.file.as_ref().expect("opened above");
        let mut at = offset;
        match rustix::fs::sendfile(socket, file, Some(&mut at), len) {
            Ok(0) => {
                tracing::warn!(path = %registered.body.path.display(), offset, "a body's file ends early: sending it from memory");
                *slot = None;
                Ok(0)
            }
            Ok(sent) => {
                // The body's last byte is out: its file closes now, not with the connection's
                // next response (an idle keep-alive connection holds no file open).
                if at >= registered.body.body.len() as u64 {
                    *slot = None;
                }
                Ok(sent)
            }
            Err(rustix::io::Errno::AGAIN) => Err(io::ErrorKind::WouldBlock.into()),
            // The file's side failed (a read error, a file sendfile cannot send from): the body
            // goes from memory.
            Err(
                e @ (rustix::io::Errno::IO
                | rustix::io::Errno::INVAL
                | rustix::io::Errno::NOSYS
                | rustix::io::Errno::OVERFLOW
                | rustix::io::Errno::SPIPE),
            ) => {
                tracing::warn!(path = %registered.body.path.display(), error = %e, "sendfile failed: sending the body from memory");
                *slot = None;
                Ok(0)
            }
            // The socket's (a client gone: EPIPE, ECONNRESET): the connection's error, as a
            // write's would be.
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_slices_within_the_registered_body_only() {
        let slot = Slot::default();
        let body = Bytes::from(vec![7u8; 100]);
        let other = vec![1u8; 10];
        assert_eq!(slot.locate(&[io::IoSlice::new(&body)]), None);
        slot.set(Some(FileBody {
            body: body.clone(),
            path: PathBuf::from("/nowhere"),
        }));
        let tail = body.slice(40..);
        assert_eq!(
            slot.locate(&[io::IoSlice::new(&other), io::IoSlice::new(&tail)]),
            Some(Within {
                index: 1,
                offset: 40,
                len: 60
            })
        );
        // Another allocation's bytes are not the body's, nor an empty slice.
        assert_eq!(slot.locate(&[io::IoSlice::new(&other)]), None);
        assert_eq!(slot.locate(&[io::IoSlice::new(&body[..0])]), None);
        slot.set(None);
        assert_eq!(slot.locate(&[io::IoSlice::new(&body)]), None);
    }

    #[test]
    fn the_file_is_let_go_once_the_body_has_gone() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let path = dir.path().join("body");
        std::fs::write(&path, b"0123456789").unwrap();
        let slot = Slot::default();
        let body = Bytes::from_static(b"0123456789");
        slot.set(Some(FileBody {
            body: body.clone(),
            path,
        }));
        assert_eq!(slot.send(&a, 0, 4).unwrap(), 4);
        assert!(slot.locate(&[io::IoSlice::new(&body[4..])]).is_some());
        assert_eq!(slot.send(&a, 4, 6).unwrap(), 6);
        assert_eq!(slot.locate(&[io::IoSlice::new(&body)]), None);
        drop(a);
        let mut got = Vec::new();
        io::Read::read_to_end(&mut &b, &mut got).unwrap();
        assert_eq!(got, b"0123456789");
    }

    #[test]
    fn a_client_gone_is_the_connections_error_not_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        drop(b);
        let path = dir.path().join("body");
        std::fs::write(&path, b"0123456789").unwrap();
        let slot = Slot::default();
        let body = Bytes::from_static(b"0123456789");
        slot.set(Some(FileBody { body, path }));
        let error = slot.send(&a, 0, 10).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe, "{error}");
    }

    #[test]
    fn a_file_that_cannot_give_the_bytes_leaves_them_to_memory() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let slot = Slot::default();
        let body = Bytes::from(vec![b'x'; 64]);
        // A missing file: nothing sent, and the registration dropped.
        slot.set(Some(FileBody {
            body: body.clone(),
            path: dir.path().join("missing"),
        }));
        assert_eq!(slot.send(&a, 0, 64).unwrap(), 0);
        assert_eq!(slot.locate(&[io::IoSlice::new(&body)]), None);
        // A file shorter than the body: what it has, then nothing.
        let path = dir.path().join("short");
        std::fs::write(&path, vec![b'x'; 16]).unwrap();
        slot.set(Some(FileBody {
            body: body.clone(),
            path,
        }));
        assert_eq!(slot.send(&a, 0, 64).unwrap(), 16);
        assert_eq!(slot.send(&a, 16, 48).unwrap(), 0);
        assert_eq!(slot.locate(&[io::IoSlice::new(&body)]), None);
        drop(a);
        let mut got = Vec::new();
        io::Read::read_to_end(&mut &b, &mut got).unwrap();
        assert_eq!(got, vec![b'x'; 16]);
    }
}
