//! The accept loop: hyper's HTTP/1.1 connection driver with the limits `axum::serve` lacks.
//!
//! - a header read timeout (hyper's, which needs a timer): a slowloris client is closed;
//! - a write timeout ([`TimedIo`]): a client that stops reading is closed;
//! - a cap on open connections: past it, new connections wait in the kernel's backlog while
//!   existing clients keep being served;
//! - a maximum header size (431 past it) and a bounded read buffer per connection;
//! - graceful shutdown: stop accepting, let in-flight requests finish (bounded by a grace time).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

use crate::app::App;

/// Limits of the HTTP layer.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Open connections at most.
    pub max_connections: usize,
    /// Time a client has to send a request's headers (also closes idle keep-alive connections).
    pub header_read_timeout: Duration,
    /// Time a write may stay blocked on a client that does not read.
    pub write_timeout: Duration,
    /// Largest request head, in bytes (431 past it).
    pub max_header_bytes: usize,
    /// Time in-flight requests get to finish on shutdown.
    pub shutdown_grace: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(30),
            max_header_bytes: 16 * 1024,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then shuts down gracefully.
pub async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    options: ServeOptions,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(options.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .max_header_size(options.max_header_bytes)
        .max_buf_size(64 * 1024)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => permit.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(TimedIo::new(stream, options.write_timeout));
        let app = Arc::clone(&app);
        let service =
            service_fn(move |req| std::future::ready(Ok::<_, Infallible>(app.handle(&req))));
        let connection = graceful.watch(builder.serve_connection(io, service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(options.shutdown_grace) => tracing::warn!("grace time over: closing remaining connections"),
    }
}

/// A stream whose writes fail with `TimedOut` after being blocked for the timeout.
struct TimedIo {
    inner: TcpStream,
    timeout: Duration,
    blocked_since: Option<Pin<Box<Sleep>>>,
}

impl TimedIo {
    fn new(inner: TcpStream, timeout: Duration) -> TimedIo {
        TimedIo {
            inner,
            timeout,
            blocked_since: None,
        }
    }

    /// Called when a write is pending: arms the deadline, and fails once it has passed.
    fn pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.timeout;
        let deadline = self
            .blocked_since
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "client stopped reading",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progress<T>(
        &mut self,
        result: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Pending => self.pending(cx),
            ready => {
                self.blocked_since = None;
                ready
            }
        }
    }
}

impl AsyncRead for TimedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for TimedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.progress(result, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.progress(result, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.inner).poll_flush(cx);
        self.progress(result, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
