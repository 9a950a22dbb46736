//! The accept loops: hyper's HTTP/1.1 connection driver with the limits `axum::serve` lacks.
//!
//! - one worker thread per core, each with its own single-threaded runtime and its own
//!   `SO_REUSEPORT` listener on the same address: the kernel spreads connections over the
//!   workers, and a request never hops between threads (as nginx's workers do);
//! - a header read timeout (hyper's, which needs a timer): a slowloris client is closed;
//! - a write timeout ([`TimedIo`]): a client that stops reading is closed;
//! - a cap on open connections, shared by the workers: at it, the oldest connection that makes
//!   no progress is closed to make room for each new one ([`Activity::stuck`]): idle (no byte
//!   read or written for [`SHED_IDLE`] or more, [`SHED_IDLE_FLOODED`] while flooded: a client
//!   that has sent nothing yet, or a keep-alive connection between requests), its request head
//!   arriving slower than [`HEAD_FLOOR`] for as long, or its response not read (a write blocked
//!   for [`STALL_MS`], or for the idle limit with more requests pipelined behind it). nginx
//!   reuses idle keep-alive connections when it runs out; the others are its
//!   `client_header_timeout` and `send_timeout`, and Kestrel's minimum data rates, applied only
//!   under pressure. Only when none is stuck do new connections wait (one per worker, the rest
//!   in the kernel's backlog) while the open ones are served. So neither a flood of idle
//!   connections nor clients that hold theirs without progress can lock new clients out;
//! - strict framing ([`crate::framing`]): each request head is checked whole before hyper
//!   parses it;
//! - a maximum header size (431 past it) and a bounded read buffer per connection;
//! - graceful shutdown: stop accepting, let in-flight requests finish (bounded by a grace time).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Weak};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use libc::MSG_MORE;
use socket2::{Domain, Protocol, SockRef, Socket, Type};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::{Instant, Sleep};

use crate::app::App;
use crate::framing::{Heads, Verdicts};
use crate::sendfile::{FileBody, Slot, Within};

/// How long a connection must have been idle (no byte read or written) to be closed when a new
/// one needs its slot at `max_connections`: long enough for a client that has just connected to
/// send its request, short enough that a flood of idle connections drains in moments.
pub(crate) const SHED_IDLE: Duration = Duration::from_millis(500);

/// [`SHED_IDLE`] while the server is flooded: when in the last second closing connections freed
/// half of `max_connections` or more, and at least as many slots as connections that ended by
/// themselves (a burst of real clients keeps it below; nine in ten until issue 41, whose
/// attackers came with a probe every 100 ms that ended by itself), the table is full of connections that
/// say nothing, and at 500 ms it could take in only about 2,000 new connections a second. An attacker reopening each closed
/// connection at once kept the kernel's backlog full at that rate, and a new client's SYN was
/// dropped and sent again after 1, 3, 7, 15 s (`bench/connections.sh` on a quiet machine: p99
/// 19 s). 50 ms lets in ten times as many while a client's request, sent with its connection,
/// is read first.
const SHED_IDLE_FLOODED: Duration = Duration::from_millis(50);

/// How often a worker waiting for a free slot looks for a stuck connection to close again
/// (20 ms until issue 41: with the slots turned over every 50 to 60 ms by attackers, 20 ms of
/// them were waiting for the next look).
const SHED_EVERY: Duration = Duration::from_millis(5);

/// The slowest a request head may arrive, in bytes a second, averaged since its first byte, for
/// a connection to keep its slot at `max_connections` once the head has taken the idle limit
/// ([`SHED_IDLE`]) or longer. A client sends its head in one or two packets; a slowloris sends
/// a few bytes a second.
const HEAD_FLOOR: u64 = 1024;

/// How long a write may stay blocked on a client that takes no byte of its response before the
/// connection gives up its slot at `max_connections`: longer than a slow reader leaves it
/// blocked between two reads (a client reading 50 KB/s on loopback takes a 64 KiB window at a
/// time, and the write goes on only when the unsent bytes fall below [`NOTSENT_LOWAT`]: it was
/// blocked over 2 s at a time in `bench/attack.sh`, and reset at 2 s), far shorter than the
/// write timeout that closes it anyway. A client that pipelines more requests behind the
/// response it does not read gets only the idle limit.
const STALL_MS: u64 = 5000;

/// Unsent bytes a connection's socket holds at most (`TCP_NOTSENT_LOWAT`): a write goes on only
/// when the client has taken bytes, so that a blocked write means a client that does not read
/// (not a kernel buffer of megabytes being filled), and little memory waits on such clients.
const NOTSENT_LOWAT: u32 = 128 * 1024;

/// Limits of the HTTP layer.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Worker threads (each with its own listener); default: one per core.
    pub workers: usize,
    /// Open connections at most, over all workers.
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
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(30),
            max_header_bytes: 16 * 1024,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// A running server: its workers, and the switch that stops them.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    workers: Vec<JoinHandle<()>>,
}

impl Server {
    /// Binds `listen` (port 0 picks a free port) and starts the workers.
    pub fn start(listen: &str, app: Arc<App>, options: ServeOptions) -> io::Result<Server> {
        let wanted = listen.to_socket_addrs()?.next().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{listen}` names no address"),
            )
        })?;
        if wanted.port() != 0 {
            refuse_if_taken(wanted)?;
        }
        let first = bind(wanted)?;
        // Every other listener joins the first one's port (which port 0 chose).
        let addr = first.local_addr()?;
        let mut listeners = vec![first];
        for _ in 1..options.workers.max(1) {
            listeners.push(bind(addr)?);
        }
        let (stop, stopped) = watch::channel(false);
        let permits = Arc::new(Semaphore::new(
            options.max_connections.clamp(1, Semaphore::MAX_PERMITS),
        ));
        // Shared by every worker: at the cap, any worker may close any idle connection.
        let shed = Arc::new(OpenConnections::default());
        let mut workers = Vec::new();
        for (n, listener) in listeners.into_iter().enumerate() {
            let (app, options, permits, shed, stopped) = (
                Arc::clone(&app),
                options.clone(),
                Arc::clone(&permits),
                Arc::clone(&shed),
                stopped.clone(),
            );
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let worker = std::thread::Builder::new()
                .name(format!("http-{n}"))
                .spawn(move || {
                    runtime.block_on(async move {
                        match TcpListener::from_std(listener) {
                            Ok(listener) => {
                                accept_loop(listener, app, &options, permits, &shed, stopped).await
                            }
                            Err(e) => tracing::error!(error = %e, "cannot use the listener"),
                        }
                    });
                })?;
            workers.push(worker);
        }
        Ok(Server {
            addr,
            stop,
            workers,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets in-flight requests finish (up to the grace time), and returns when
    /// every worker is done. Blocking.
    pub fn stop(self) {
        let _ = self.stop.send(true);
        for worker in self.workers {
            let _ = worker.join();
        }
    }
}

/// Fails with `AddrInUse` when something already listens on `addr`. `SO_REUSEPORT` alone would
/// let a second server of the same user share the port and take half of its connections.
fn refuse_if_taken(addr: SocketAddr) -> io::Result<()> {
    let probe = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    probe.set_reuse_address(true)?;
    probe.bind(&addr.into()).map_err(|e| {
        if e.kind() == io::ErrorKind::AddrInUse {
            io::Error::new(
                io::ErrorKind::AddrInUse,
                "the address is already in use (is another server running?)",
            )
        } else {
            e
        }
    })
}

/// A non-blocking listener with `SO_REUSEPORT`, so that every worker can bind the address.
fn bind(addr: SocketAddr) -> io::Result<std::net::TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

async fn accept_loop(
    listener: TcpListener,
    app: Arc<App>,
    options: &ServeOptions,
    permits: Arc<Semaphore>,
    shed: &Arc<OpenConnections>,
    mut stopped: watch::Receiver<bool>,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .max_header_size(options.max_header_bytes)
        .max_buf_size(64 * 1024)
        .keep_alive(true);
    let shutdown = async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };
    tokio::pin!(shutdown);
    let shed = Arc::clone(shed);
    loop {
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
        // At the cap, the idle connections are asked to close until a slot is free; meanwhile
        // this worker accepts no other connection: at most one waiting connection per worker,
        // the rest wait in the kernel's backlog. (Taking the permit before `accept` would let
        // an idle worker hold a permit while connections queue on another worker's listener.)
        let Some(permit) = slot(&permits, options.max_connections, &shed, &mut shutdown).await
        else {
            break;
        };
        let _ = stream.set_nodelay(true);
        let _ = SockRef::from(&stream).set_tcp_notsent_lowat(NOTSENT_LOWAT);
        let activity = Arc::new(Activity::new());
        shed.push(&activity, options.max_connections);
        // A large body the service answers with is sent from its file by the stream.
        let sendfile = Slot::default();
        let verdicts = Arc::new(Verdicts::default());
        let io = TokioIo::new(TimedIo::new(
            stream,
            options,
            Arc::clone(&activity),
            sendfile.clone(),
            Arc::clone(&verdicts),
        ));
        let app = Arc::clone(&app);
        let answering = Arc::clone(&activity);
        let service = service_fn(move |req| {
            answering.answered.fetch_add(1, Ordering::Relaxed);
            // A head refused by the framing check ([`crate::framing`]) has a stand-in request.
            let mut answer = match verdicts.next() {
                Some((refusal, target)) => crate::app::refused(refusal.detail(), &target),
                None => crate::app::host_problem(&req).unwrap_or_else(|| app.handle(&req)),
            };
            sendfile.set(answer.extensions_mut().remove::<FileBody>());
            std::future::ready(Ok::<_, Infallible>(answer))
        });
        let connection = graceful.watch(builder.serve_connection(io, service));
        let open = Arc::clone(&shed);
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => {
                    open.ended.fetch_add(1, Ordering::Relaxed);
                    if let Err(e) = ended {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = activity.close.notified() => {}
            }
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {},
        () = tokio::time::sleep(options.shutdown_grace) => tracing::warn!("grace time over: closing remaining connections"),
    }
}

/// A free connection slot: at once when there is one, else after closing the oldest connection
/// that makes no progress (idle, a head too slow, an answer not read: checked every
/// [`SHED_EVERY`] until one closes or an open one ends). `None` on shutdown.
async fn slot(
    permits: &Arc<Semaphore>,
    max_connections: usize,
    shed: &OpenConnections,
    shutdown: &mut Pin<&mut impl std::future::Future<Output = ()>>,
) -> Option<tokio::sync::OwnedSemaphorePermit> {
    if let Ok(permit) = Arc::clone(permits).try_acquire_owned() {
        return Some(permit);
    }
    loop {
        shed.close_one_stuck(max_connections);
        tokio::select! {
            permit = Arc::clone(permits).acquire_owned() => {
                return Some(permit.expect("the semaphore is never closed"));
            }
            () = tokio::time::sleep(SHED_EVERY) => {}
            () = shutdown.as_mut() => return None,
        }
    }
}

/// The open connections, oldest first, to find the one idle the longest at the cap, and how many
/// were closed lately (the flood check of [`SHED_IDLE_FLOODED`]).
#[derive(Debug, Default)]
struct OpenConnections {
    inner: Mutex<Open>,
    /// Connections that ended by themselves (not closed to make room), counted into the flood
    /// check.
    ended: AtomicU64,
}

#[derive(Debug, Default)]
struct Open {
    queue: VecDeque<Weak<Activity>>,
    /// Closings in the current second, and the second it started.
    closed: u64,
    since: Option<Instant>,
    /// Whether the last whole second was a flood (see [`SHED_IDLE_FLOODED`]).
    flooded: bool,
}

impl OpenConnections {
    /// Adds a connection just accepted; ended ones are dropped from the queue now and then, so
    /// that it stays within twice the cap.
    fn push(&self, activity: &Arc<Activity>, max_connections: usize) {
        let mut open = self.inner.lock().expect("connections lock");
        if open.queue.len() >= 2 * max_connections.max(64) {
            open.queue.retain(|w| w.strong_count() > 0);
        }
        open.queue.push_back(Arc::downgrade(activity));
    }

    /// Closes the oldest connection that is stuck ([`Activity::stuck`]: idle for [`SHED_IDLE`]
    /// or more, [`SHED_IDLE_FLOODED`] while flooded, or not progressing), if there is one
    /// (the others go to the back of the queue).
    fn close_one_stuck(&self, max_connections: usize) -> bool {
        let mut open = self.inner.lock().expect("connections lock");
        let now = Instant::now();
        let since = *open.since.get_or_insert(now);
        if now.duration_since(since) >= Duration::from_secs(1) {
            let ended = self.ended.swap(0, Ordering::Relaxed);
            let half = u64::try_from(max_connections.div_ceil(2)).unwrap_or(u64::MAX);
            open.flooded = open.closed >= half && open.closed >= ended;
            open.closed = 0;
            open.since = Some(now);
        }
        let idle = if open.flooded {
            SHED_IDLE_FLOODED
        } else {
            SHED_IDLE
        };
        for _ in 0..open.queue.len() {
            let Some(weak) = open.queue.pop_front() else {
                break;
            };
            let Some(connection) = weak.upgrade() else {
                continue;
            };
            if let Some(why) = connection.stuck(idle) {
                tracing::debug!(
                    ?why,
                    "closing a connection for a new one: at max_connections"
                );
                if matches!(why, Stuck::NotReading | Stuck::NotReadingPipelined) {
                    connection.reset.store(true, Ordering::Relaxed);
                }
                // `notify_one` keeps the wake-up even if the task is not waiting yet.
                connection.close.notify_one();
                open.closed += 1;
                return true;
            }
            open.queue.push_back(weak);
        }
        false
    }
}

/// What a connection is doing, as the shedding at `max_connections` judges it: when it last read
/// or wrote a byte, since when a write is blocked on its client, since when a request head is
/// arriving and how much of it has, how many requests it sent and how many were answered; and
/// the switch that closes it. Times are milliseconds after `born`; [`NEVER`] is none.
#[derive(Debug)]
struct Activity {
    born: Instant,
    last_ms: AtomicU64,
    blocked_since_ms: AtomicU64,
    head_since_ms: AtomicU64,
    head_bytes: AtomicU64,
    /// Whole request heads received (pipelined ones included), and requests answered.
    received: AtomicU64,
    answered: AtomicU64,
    /// Set when the connection is closed for not reading its answer (or after the write
    /// timeout): it is reset (`SO_LINGER` 0), not closed gracefully, so that the unsent bytes
    /// of an answer nobody reads are dropped at once instead of kept in a closed socket.
    reset: AtomicBool,
    close: Notify,
}

/// No time: the field's event has not happened (no write blocked, no head arriving).
const NEVER: u64 = u64::MAX;

/// Why a connection gives up its slot to a new one at `max_connections`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stuck {
    /// Nothing read or written for the idle limit.
    Idle,
    /// A request head arriving slower than [`HEAD_FLOOR`] for the idle limit or longer.
    SlowHead,
    /// A response not read (no byte taken for the idle limit) while more requests wait behind it.
    NotReadingPipelined,
    /// A response not read: no byte taken for [`STALL`].
    NotReading,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            born: Instant::now(),
            last_ms: AtomicU64::new(0),
            blocked_since_ms: AtomicU64::new(NEVER),
            head_since_ms: AtomicU64::new(NEVER),
            head_bytes: AtomicU64::new(0),
            received: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            reset: AtomicBool::new(false),
            close: Notify::new(),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.born.elapsed().as_millis()).unwrap_or(NEVER - 1)
    }

    fn touch(&self) {
        self.last_ms.store(self.now_ms(), Ordering::Relaxed);
    }

    /// Records the request heads read so far: `partial` bytes of one still arriving, `received`
    /// whole ones in all.
    fn heads(&self, partial: usize, received: u64) {
        self.received.store(received, Ordering::Relaxed);
        if partial == 0 {
            self.head_since_ms.store(NEVER, Ordering::Relaxed);
            return;
        }
        if self.head_since_ms.load(Ordering::Relaxed) == NEVER {
            self.head_since_ms.store(self.now_ms(), Ordering::Relaxed);
        }
        let partial = u64::try_from(partial).unwrap_or(u64::MAX);
        self.head_bytes.store(partial, Ordering::Relaxed);
    }

    /// Whether the connection may be closed for a new one, and why: see [`Stuck`]. `idle` is
    /// the idle limit ([`SHED_IDLE`], or [`SHED_IDLE_FLOODED`] while flooded).
    fn stuck(&self, idle: Duration) -> Option<Stuck> {
        let idle = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
        let now = self.now_ms();
        let since = |t: u64| if t == NEVER { 0 } else { now.saturating_sub(t) };
        let blocked = since(self.blocked_since_ms.load(Ordering::Relaxed));
        if self.blocked_since_ms.load(Ordering::Relaxed) != NEVER {
            let waiting =
                self.received.load(Ordering::Relaxed) > self.answered.load(Ordering::Relaxed);
            return if blocked >= STALL_MS {
                Some(Stuck::NotReading)
            } else if waiting && blocked >= idle {
                Some(Stuck::NotReadingPipelined)
            } else {
                None
            };
        }
        if self.head_since_ms.load(Ordering::Relaxed) != NEVER {
            let took = since(self.head_since_ms.load(Ordering::Relaxed));
            let bytes = self.head_bytes.load(Ordering::Relaxed);
            if took >= idle && bytes.saturating_mul(1000) < HEAD_FLOOR.saturating_mul(took) {
                return Some(Stuck::SlowHead);
            }
        }
        (since(self.last_ms.load(Ordering::Relaxed)) >= idle).then_some(Stuck::Idle)
    }
}

/// Runs the non-blocking write `f` on `stream` once it is writable, again each time it finds
/// the socket full.
fn poll_send(
    stream: &TcpStream,
    cx: &mut Context<'_>,
    mut f: impl FnMut() -> io::Result<usize>,
) -> Poll<io::Result<usize>> {
    loop {
        std::task::ready!(stream.poll_write_ready(cx))?;
        match stream.try_io(Interest::WRITABLE, &mut f) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            done => return Poll::Ready(done),
        }
    }
}

/// A stream whose writes fail with `TimedOut` after being blocked for the timeout, which
/// records its [`Activity`], and which sends the bytes of a large body from its file
/// ([`crate::sendfile`]).
struct TimedIo {
    inner: TcpStream,
    timeout: Duration,
    blocked_since: Option<Pin<Box<Sleep>>>,
    activity: Arc<Activity>,
    sendfile: Slot,
    /// The bytes read, passed to hyper a whole checked head at a time.
    heads: Heads,
    verdicts: Arc<Verdicts>,
}

impl TimedIo {
    fn new(
        inner: TcpStream,
        options: &ServeOptions,
        activity: Arc<Activity>,
        sendfile: Slot,
        verdicts: Arc<Verdicts>,
    ) -> TimedIo {
        TimedIo {
            inner,
            timeout: options.write_timeout,
            blocked_since: None,
            activity,
            sendfile,
            heads: Heads::new(options.max_header_bytes),
            verdicts,
        }
    }

    /// Writes `bufs`, the slice `within` sent from its file: the slices before it first (the
    /// head, with `MSG_MORE`, so that the kernel sends it with the file's first bytes, as
    /// nginx's `tcp_nopush` does; a partial write of them returns there), then the file's bytes.
    /// Bytes the file cannot give go from memory, by the next call (the slot is empty then).
    fn write_with_file(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
        within: Within,
    ) -> Poll<io::Result<usize>> {
        let before = &bufs[..within.index];
        let head: usize = before.iter().map(|b| b.len()).sum();
        let from_file = || self.sendfile.send(&self.inner, within.offset, within.len);
        if head == 0 {
            return match std::task::ready!(poll_send(&self.inner, cx, from_file)) {
                // The file could not give them: from memory.
                Ok(0) => Pin::new(&mut self.inner).poll_write_vectored(cx, bufs),
                sent => Poll::Ready(sent),
            };
        }
        let more = || SockRef::from(&self.inner).send_vectored_with_flags(before, MSG_MORE);
        let written = std::task::ready!(poll_send(&self.inner, cx, more))?;
        if written < head {
            return Poll::Ready(Ok(written));
        }
        // The head is out: the body too if the socket takes it now, else by the next call.
        let sent = self.inner.try_io(Interest::WRITABLE, from_file);
        Poll::Ready(Ok(head + sent.unwrap_or(0)))
    }

    /// Called when a write is pending: arms the deadline, and fails once it has passed.
    fn pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.timeout;
        if self.blocked_since.is_none() {
            let now = self.activity.now_ms();
            self.activity.blocked_since_ms.store(now, Ordering::Relaxed);
        }
        let deadline = self
            .blocked_since
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err({
                self.activity.reset.store(true, Ordering::Relaxed);
                io::Error::new(io::ErrorKind::TimedOut, "client stopped reading")
            })),
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
                self.activity
                    .blocked_since_ms
                    .store(NEVER, Ordering::Relaxed);
                self.activity.touch();
                ready
            }
        }
    }
}

impl Drop for TimedIo {
    fn drop(&mut self) {
        if self.activity.reset.load(Ordering::Relaxed) {
            // As nginx's `reset_timedout_connection`: a socket closed with an answer nobody
            // reads would keep its unsent bytes (and a slot of the kernel's) for minutes.
            let _ = SockRef::from(&self.inner).set_linger(Some(Duration::ZERO));
        }
    }
}

impl AsyncRead for TimedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            let ready = this.heads.ready();
            if !ready.is_empty() {
                let n = ready.len().min(buf.remaining());
                buf.put_slice(&ready[..n]);
                this.heads.consume(n);
                return Poll::Ready(Ok(()));
            }
            if this.heads.refused() {
                return Poll::Pending;
            }
            if this.heads.closed() {
                return Poll::Ready(Ok(()));
            }
            let mut bytes = [0u8; 8 * 1024];
            let mut read = ReadBuf::new(&mut bytes);
            std::task::ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                this.heads.end();
                continue;
            }
            this.activity.touch();
            this.heads.push(read.filled(), &this.verdicts);
            this.activity
                .heads(this.heads.partial(), this.heads.received());
        }
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
        let result = match self.sendfile.locate(bufs) {
            Some(within) => self.write_with_file(cx, bufs, within),
            None => Pin::new(&mut self.inner).poll_write_vectored(cx, bufs),
        };
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
