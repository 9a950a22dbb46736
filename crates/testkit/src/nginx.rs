//! nginx run by a test as its own process on 127.0.0.1: no root, no system service, its prefix,
//! temporary folders, error log and access log in a folder of the test's. The test writes the
//! `server` blocks; this module adds what every run needs, an access log whose lines
//! [`Nginx::requests`] reads back (what nginx saw: method, host, URI, status, `Range`,
//! `User-Agent`, `Authorization`), and a plain control port that lets a reader wait until every
//! answered request is in that log. Used by `eggcat`'s static-host tests (`it::hosts`) and by
//! the download checks' HTTPS tests (with [`crate::tls`]).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The nginx program, when it is installed (Debian's package puts it in `/usr/sbin`).
pub fn binary() -> Option<PathBuf> {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// A free port of 127.0.0.1 (free when asked: the caller binds it soon after).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("its address")
        .port()
}

/// One request as nginx's access log recorded it, when it had answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// When nginx logged it, Unix ms (nginx's `$msec`).
    pub at_ms: u64,
    /// `HEAD`, `GET`, ...
    pub method: String,
    /// The host asked for, lower case, without the port (nginx's `$host`).
    pub host: String,
    /// The path and query, as sent.
    pub uri: String,
    /// The status nginx answered.
    pub status: u16,
    /// The `Range` header, when sent.
    pub range: Option<String>,
    /// The `User-Agent` header, when sent.
    pub user_agent: Option<String>,
    /// The `Authorization` header, when sent.
    pub authorization: Option<String>,
}

/// nginx as a child process, killed when dropped.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    /// The port the test's `server` blocks listen on.
    pub port: u16,
    control: u16,
    work: PathBuf,
}

/// The host name of the control server's requests, left out of [`Nginx::requests`].
const CONTROL: &str = "eggcat-test-control";

impl Nginx {
    /// Starts `bin` with its files in `work` and the `http`-level configuration `servers`
    /// makes for the port it is given (the `server` blocks, and any zone or certificate they
    /// share), and waits until it listens; fails with nginx's error log when it exits first.
    pub fn start(bin: &Path, work: &Path, servers: impl FnOnce(u16) -> String) -> Nginx {
        std::fs::create_dir_all(work).expect("nginx's folder");
        let (port, control) = (free_port(), free_port());
        let w = work.display();
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {w}/nginx.pid;\nerror_log {w}/error.log;\n\
             events {{}}\nhttp {{\n  \
             log_format eggcat_test '$msec\\t$request_method\\t$host\\t$request_uri\\t$status\\t\
             $http_range\\t$http_user_agent\\t$http_authorization';\n  \
             access_log {w}/access.log eggcat_test;\n  \
             client_body_temp_path {w}/body;\n  proxy_temp_path {w}/proxy;\n  \
             fastcgi_temp_path {w}/fastcgi;\n  uwsgi_temp_path {w}/uwsgi;\n  \
             scgi_temp_path {w}/scgi;\n  \
             server {{\n    listen 127.0.0.1:{control};\n    server_name {CONTROL};\n    \
             location / {{ return 204; }}\n  }}\n{}\n}}\n",
            servers(port)
        );
        std::fs::write(work.join("nginx.conf"), conf).expect("nginx.conf");
        let child = Command::new(bin)
            .arg("-p")
            .arg(work)
            .arg("-c")
            .arg(work.join("nginx.conf"))
            .arg("-e")
            .arg(work.join("error.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        let mut nginx = Nginx {
            child,
            port,
            control,
            work: work.to_path_buf(),
        };
        nginx.wait_or_report();
        nginx
    }

    /// Every request nginx has answered so far, in the order it logged them. nginx writes a
    /// request's line when it is done with it, so this first sends a request of its own to the
    /// control port and waits for its line: nginx runs one process, one event at a time, so
    /// every request answered before it is logged by then. A request nginx is still sending
    /// (a slow answer a client gave up on) may be logged later.
    pub fn requests(&self) -> Vec<Logged> {
        static SYNC: AtomicUsize = AtomicUsize::new(0);
        let marker = format!("/sync-{}", SYNC.fetch_add(1, Ordering::SeqCst));
        let mut stream = TcpStream::connect(("127.0.0.1", self.control)).expect("the control port");
        stream
            .write_all(format!("GET {marker} HTTP/1.0\r\nHost: {CONTROL}\r\n\r\n").as_bytes())
            .expect("a request to the control port");
        stream.read_to_end(&mut Vec::new()).expect("its answer");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let all = self.logged();
            if all.iter().any(|l| l.host == CONTROL && l.uri == marker) {
                return all.into_iter().filter(|l| l.host != CONTROL).collect();
            }
            assert!(Instant::now() < deadline, "nginx logs {marker}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The access log's lines, read now.
    fn logged(&self) -> Vec<Logged> {
        let text = std::fs::read_to_string(self.work.join("access.log")).unwrap_or_default();
        text.lines().map(parse).collect()
    }

    fn wait_or_report(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err()
            || TcpStream::connect(("127.0.0.1", self.control)).is_err()
        {
            if let Ok(Some(status)) = self.child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!(
                    "nginx exited ({status}): {err}\n{}",
                    std::fs::read_to_string(self.work.join("error.log")).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "nginx did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One line of the `eggcat_test` log format; nginx writes `-` for a header not sent.
fn parse(line: &str) -> Logged {
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 8, "an access log line: {line}");
    let header = |i: usize| Some(fields[i].to_owned()).filter(|v| v != "-");
    let (seconds, millis) = fields[0].split_once('.').expect("$msec has a dot");
    Logged {
        at_ms: seconds.parse::<u64>().expect("seconds") * 1000
            + millis.parse::<u64>().expect("milliseconds"),
        method: fields[1].to_owned(),
        host: fields[2].to_owned(),
        uri: fields[3].to_owned(),
        status: fields[4].parse().expect("a status"),
        range: header(5),
        user_agent: header(6),
        authorization: header(7),
    }
}
