//! Real database servers for the differential test: MariaDB 10.11 and PostgreSQL 15 from
//! Debian's packages, each started by the test in a temporary folder, listening on a Unix socket
//! only (no network), and stopped when the test ends, also when it panics (`Drop`) or dies
//! (`setpriv --pdeathsig KILL`: the kernel kills the server with the test). As root (CI), the
//! servers run as `nobody`: PostgreSQL refuses root, and MariaDB's files then belong to one user.
//!
//! Whether a server may be missing is the caller's choice (`EGGCAT_PHP=require` fails the run;
//! otherwise [`missing`] says why, for a one-line skip).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's PostgreSQL 15 programs.
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// InnoDB's redo log at 8 MiB instead of 96: a test's writes need no more, and 100 MB less to
/// write and remove.
const INNODB_LOG: &str = "--innodb-log-file-size=8M";

/// A running server, stopped on drop.
pub struct Server {
    child: Child,
    /// The socket (MariaDB) or the socket's folder (PostgreSQL), as PHP's PDO names it.
    pub socket: PathBuf,
    name: &'static str,
    /// The server's log, quoted when it fails to start.
    log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGQUIT: PostgreSQL's immediate shutdown (its backends leave with the postmaster);
        // MariaDB ends on it too. A server still there after 10 s is killed.
        let _ = Command::new("kill")
            .arg("-QUIT")
            .arg(self.child.id().to_string())
            .status();
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a server needs that this machine lacks (its programs, PHP's driver for it), if anything.
pub fn missing(programs: &[&str], php_extension: &str) -> Option<String> {
    let mut absent: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| !Path::new(p).is_file())
        .collect();
    let loaded = Command::new("php")
        .args([
            "-r",
            &format!("exit(extension_loaded('{php_extension}') ? 0 : 1);"),
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !loaded {
        absent.push(php_extension);
    }
    (!absent.is_empty()).then(|| {
        format!(
            "needs {} (Debian's mariadb-server, postgresql, php-mysql, php-pgsql; bash .ci/install installs them)",
            absent.join(", ")
        )
    })
}

/// The programs each server needs.
pub const MARIADB_PROGRAMS: &[&str] = &[
    "/usr/bin/mariadb-install-db",
    "/usr/sbin/mariadbd",
    "/usr/bin/mariadb",
];
pub const POSTGRES_PROGRAMS: &[&str] = &[
    "/usr/lib/postgresql/15/bin/initdb",
    "/usr/lib/postgresql/15/bin/postgres",
    "/usr/bin/psql",
];

/// `program` run as the servers' user: `nobody` when the test runs as root, with the kernel
/// told to kill it when the test's thread that started it ends.
fn as_server_user(program: &str) -> Command {
    let mut cmd = Command::new("setpriv");
    if is_root() {
        cmd.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"]);
    }
    cmd.args(["--pdeathsig", "KILL", program]);
    cmd
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// A temporary folder for the servers' data, which their user owns: in memory (`/dev/shm`)
/// where it has room (their files then cost no disk writes, and go in an instant), otherwise
/// in the system's temporary folder. Dropped after the servers.
pub fn server_dir() -> tempfile::TempDir {
    let shm_room = Command::new("df")
        .args(["--output=avail", "-B1M", "/dev/shm"])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .nth(1)?
                .trim()
                .parse::<u64>()
                .ok()
        })
        .is_some_and(|mib| mib >= 2048);
    let dir = if shm_room {
        tempfile::tempdir_in("/dev/shm")
    } else {
        tempfile::tempdir()
    }
    .expect("a temporary folder for the servers");
    if is_root() {
        let ok = Command::new("chown")
            .args(["nobody:nogroup"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "chown nobody {}", dir.path().display());
    }
    dir
}

/// Runs a setup program to its end (the data folder's creation), failing with its output.
fn setup(mut cmd: Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The data folders of both servers, made in parallel (`mariadb-install-db` takes ~3 s,
/// `initdb` ~1 s): call from any thread, before [`start_mariadb`] and [`start_postgres`].
pub fn init(dir: &Path, mariadb: bool, postgres: bool) {
    std::thread::scope(|s| {
        if mariadb {
            s.spawn(|| {
                let mut cmd = as_server_user("/usr/bin/mariadb-install-db");
                cmd.args(["--no-defaults", "--auth-root-authentication-method=normal"])
                    .args(["--skip-test-db", INNODB_LOG])
                    .arg(format!("--datadir={}", dir.join("my").display()));
                setup(cmd, "mariadb-install-db");
            });
        }
        if postgres {
            s.spawn(|| {
                let mut cmd = as_server_user(&format!("{PG_BIN}/initdb"));
                cmd.arg("-D")
                    .arg(dir.join("pg"))
                    .args(["-A", "trust", "-U", "postgres", "--encoding=UTF8"])
                    .arg("--locale=C.UTF-8");
                setup(cmd, "initdb");
            });
        }
    });
}

/// Starts MariaDB on `dir/my.sock`, as Debian's package configures it where it matters here
/// (utf8mb4; InnoDB), with durability off (a test's data). Call from the test's own thread.
pub fn start_mariadb(dir: &Path) -> Server {
    let log = dir.join("my.log");
    let socket = dir.join("my.sock");
    let child = as_server_user("/usr/sbin/mariadbd")
        .arg("--no-defaults")
        .arg(format!("--datadir={}", dir.join("my").display()))
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--pid-file={}", dir.join("my.pid").display()))
        .args([
            INNODB_LOG,
            "--skip-networking",
            "--skip-log-bin",
            "--innodb-flush-log-at-trx-commit=0",
            "--innodb-doublewrite=0",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_general_ci",
        ])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("the log file"))
        .spawn()
        .expect("mariadbd starts");
    let server = Server {
        child,
        socket: socket.clone(),
        name: "mariadbd",
        log,
    };
    server.wait_ready(|| socket.exists());
    server
}

/// Starts PostgreSQL with its socket in `dir`, with `locales` (a folder of compiled libc
/// locales, see [`compile_locale`]) for databases that ask for one. Durability off.
pub fn start_postgres(dir: &Path, locales: Option<&Path>) -> Server {
    let log = dir.join("pg.log");
    let mut cmd = as_server_user(&format!("{PG_BIN}/postgres"));
    cmd.arg("-D")
        .arg(dir.join("pg"))
        .arg("-k")
        .arg(dir)
        .args(["-h", "", "-c", "fsync=off", "-c", "synchronous_commit=off"])
        .args(["-c", "full_page_writes=off"])
        // Statistics come when the test says (its `analyze` step), not when autovacuum's turn
        // comes: the steps before it are a database without statistics, always.
        .args(["-c", "autovacuum=off"]);
    if let Some(l) = locales {
        cmd.env("LOCPATH", l);
    }
    let child = cmd
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("the log file"))
        .spawn()
        .expect("postgres starts");
    let server = Server {
        child,
        socket: dir.to_path_buf(),
        name: "postgres",
        log,
    };
    // The postmaster writes `ready` into postmaster.pid once it accepts connections.
    let pid = dir.join("pg/postmaster.pid");
    server.wait_ready(|| std::fs::read_to_string(&pid).is_ok_and(|s| s.contains("ready")));
    server
}

impl Server {
    /// The server's CPU time so far, in seconds: its own, its threads' and that of the children
    /// it has reaped (PostgreSQL's backends, once their clients are gone), from /proc.
    pub fn cpu_seconds(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the command's `)`: utime, stime, cutime, cstime are the 12th to 15th.
        let fields: Vec<f64> = stat
            .rsplit_once(')')
            .map(|(_, rest)| {
                rest.split_whitespace()
                    .filter_map(|f| f.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let ticks: f64 = fields.get(11..15).map_or(0.0, |t| t.iter().sum());
        let hz = Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .unwrap_or(100.0);
        ticks / hz
    }

    /// The program, as the figures name it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    fn wait_ready(&self, ready: impl Fn() -> bool) {
        let until = Instant::now() + Duration::from_secs(60);
        while !ready() {
            assert!(
                Instant::now() < until,
                "{} did not start in 60 s:\n{}",
                self.name,
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Runs SQL as the server's superuser, through its own client.
    pub fn sql(&self, sql: &str) {
        let mut cmd;
        if self.name == "mariadbd" {
            cmd = Command::new("/usr/bin/mariadb");
            cmd.arg("--no-defaults").arg("-S").arg(&self.socket);
            cmd.args(["-u", "root", "-e", sql]);
        } else {
            cmd = Command::new("/usr/bin/psql");
            cmd.arg("-h").arg(&self.socket);
            cmd.args(["-U", "postgres", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql]);
        }
        setup(cmd, sql);
    }
}

/// Compiles the libc locale `en_US.UTF-8` from Debian's `locales` data into `dir` (offline,
/// ~1 s; the machine's own locales stay as they are), for PostgreSQL's `LOCPATH`. None when
/// `localedef` or the data is missing.
pub fn compile_locale(dir: &Path) -> Option<PathBuf> {
    if !Path::new("/usr/share/i18n/locales/en_US").exists() {
        return None;
    }
    let out = dir.join("locales");
    std::fs::create_dir_all(&out).ok()?;
    let ok = Command::new("localedef")
        .args(["-i", "en_US", "-f", "UTF-8"])
        .arg(out.join("en_US.UTF-8"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(out)
}
