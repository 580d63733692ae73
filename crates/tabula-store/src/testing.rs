//! A throwaway PostgreSQL for tests: [`PgServer`] runs Debian's server
//! binaries (`initdb`, `pg_ctl`, `createdb` from the `postgresql`
//! package) on a data directory of its own in a temporary directory, on a
//! free port and with its unix socket in that directory, so it never
//! touches a PostgreSQL already running on the machine.
//!
//! PostgreSQL refuses to run as root; as root the server runs as the
//! `postgres` user (`runuser -u postgres --`), which owns the temporary
//! directory. The server is stopped, and its directory removed, when the
//! [`PgServer`] is dropped, and also when the test process ends without
//! dropping it (a server kept in a `static`, a test killed): a small
//! shell started beside it waits on a pipe from this process and stops
//! the server when the pipe closes, which the kernel does when the
//! process exits however it exits.
//!
//! Where the binaries are: `$TABULA_PG_BIN` if set, else the newest
//! `/usr/lib/postgresql/<version>/bin`, else `$PATH`.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// Why a [`PgServer`] could not start or act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PgServerError {
    /// The server binaries are not installed.
    #[error(
        "PostgreSQL's server binaries (initdb, pg_ctl, createdb) were not found in \
         $TABULA_PG_BIN, /usr/lib/postgresql/*/bin or $PATH: install Debian's `postgresql` \
         package (`apt-get install postgresql`; ./scripts/test installs it when missing)"
    )]
    Missing,
    /// Running as root, but there is no `postgres` user to run the server.
    #[error(
        "PostgreSQL refuses to run as root and there is no `postgres` user: install \
         Debian's `postgresql` package, which creates it, or run the tests as another user"
    )]
    NoPostgresUser,
    /// A step failed; what it printed.
    #[error("{step} failed: {output}")]
    Failed {
        /// The step (`initdb`, `pg_ctl start`, …).
        step: String,
        /// Its output, or why it could not run.
        output: String,
    },
}

/// A PostgreSQL server of the test's own, stopped on drop.
pub struct PgServer {
    bin: PathBuf,
    root: PathBuf,
    port: u16,
    run_as: Option<&'static str>,
    supervisor: Option<Child>,
}

impl fmt::Debug for PgServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgServer")
            .field("root", &self.root)
            .field("port", &self.port)
            .field("run_as", &self.run_as)
            .finish_non_exhaustive()
    }
}

static SERVERS: AtomicU32 = AtomicU32::new(0);

impl PgServer {
    /// `initdb` into a new temporary directory, then starts the server on
    /// a free port (tried again on another port if one was taken
    /// meanwhile).
    pub fn start() -> Result<PgServer, PgServerError> {
        let bin = find_bin().ok_or(PgServerError::Missing)?;
        let run_as = if is_root() {
            if !user_exists("postgres") {
                return Err(PgServerError::NoPostgresUser);
            }
            Some("postgres")
        } else {
            None
        };
        let n = SERVERS.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("tabula-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("sock")).map_err(|e| failed("mkdir", e))?;
        if let Some(user) = run_as {
            chown_to(&root, user)?;
        }
        let mut server = PgServer {
            bin,
            root,
            port: 0,
            run_as,
            supervisor: None,
        };
        // The guard first: from here on, whatever fails, the directory
        // (and a server, if one started) goes with `server`.
        server.supervise()?;
        let data = server.data();
        server.run(
            "initdb",
            &[
                "-D",
                path_str(&data)?,
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-instructions",
            ],
        )?;
        let mut last = None;
        for _ in 0..5 {
            server.port = free_port()?;
            match server.start_again() {
                Ok(()) => return Ok(server),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(PgServerError::Missing))
    }

    /// The server's port (its socket is `.s.PGSQL.<port>` in
    /// [`socket_dir`](PgServer::socket_dir); it also listens on
    /// 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory of the server's unix socket.
    pub fn socket_dir(&self) -> PathBuf {
        self.root.join("sock")
    }

    /// The URL of `database` as user `postgres`, over the unix socket.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://postgres@localhost:{}/{database}?host={}",
            self.port,
            self.socket_dir().display()
        )
    }

    /// Creates `database` (letters, digits and `_`) and returns its URL.
    pub fn create_database(&self, database: &str) -> Result<String, PgServerError> {
        if database.is_empty()
            || !database
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(failed(
                "createdb",
                "a database name is letters, digits and _",
            ));
        }
        let sock = self.socket_dir();
        self.run(
            "createdb",
            &[
                "-h",
                path_str(&sock)?,
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                database,
            ],
        )?;
        Ok(self.url(database))
    }

    /// Stops the server (fast shutdown), keeping its data.
    pub fn stop(&self) -> Result<(), PgServerError> {
        let data = self.data();
        self.run(
            "pg_ctl",
            &["-D", path_str(&data)?, "-m", "fast", "-w", "stop"],
        )
    }

    /// Starts the server (again) on its port and data.
    pub fn start_again(&self) -> Result<(), PgServerError> {
        let data = self.data();
        let log = self.root.join("server.log");
        let sock = self.socket_dir();
        let options = format!(
            "-p {} -k '{}' -c listen_addresses=127.0.0.1 -c fsync=off \
             -c synchronous_commit=off -c full_page_writes=off",
            self.port,
            path_str(&sock)?
        );
        let started = self.run(
            "pg_ctl start",
            &[
                "-D",
                path_str(&data)?,
                "-l",
                path_str(&log)?,
                "-w",
                "-t",
                "60",
                "-o",
                &options,
                "start",
            ],
        );
        if let Err(PgServerError::Failed { step, output }) = started {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(PgServerError::Failed {
                step,
                output: format!("{output}\n{log}"),
            });
        }
        started
    }

    /// Restarts the server with TLS on (`cert` and `key`: PEM files, the
    /// server's certificate and its key) and TCP connections refused
    /// without it (`pg_hba.conf`'s `host` lines become `hostssl`; the unix
    /// socket stays as it was).
    pub fn enable_tls(&self, cert: &Path, key: &Path) -> Result<(), PgServerError> {
        self.stop()?;
        let data = self.data();
        let owner = match self.run_as {
            Some(user) => {
                let uid = id(&["-u", user]).and_then(|s| s.parse::<u32>().ok());
                let gid = id(&["-g", user]).and_then(|s| s.parse::<u32>().ok());
                match (uid, gid) {
                    (Some(u), Some(g)) => Some((u, g)),
                    _ => return Err(PgServerError::NoPostgresUser),
                }
            }
            None => None,
        };
        for (from, to) in [(cert, "server.crt"), (key, "server.key")] {
            let to = data.join(to);
            std::fs::copy(from, &to).map_err(|e| failed("copy the TLS files", e))?;
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(&to, Some(uid), Some(gid))
                    .map_err(|e| failed("chown", e))?;
            }
            let private =
                <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o600);
            std::fs::set_permissions(&to, private).map_err(|e| failed("chmod", e))?;
        }
        let conf = data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).map_err(|e| failed("read the config", e))?;
        text.push_str("\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
        std::fs::write(&conf, text).map_err(|e| failed("write the config", e))?;
        let hba = data.join("pg_hba.conf");
        let rules = std::fs::read_to_string(&hba).map_err(|e| failed("read pg_hba", e))?;
        let rules: String = rules
            .lines()
            .map(|l| match l.strip_prefix("host ") {
                Some(rest) => format!("hostssl {rest}\n"),
                None => format!("{l}\n"),
            })
            .collect();
        std::fs::write(&hba, rules).map_err(|e| failed("write pg_hba", e))?;
        self.start_again()
    }

    fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    /// A command of the server's binaries, as the server's user.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match self.run_as {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                cmd.args(["-u", user, "--"]).arg(path);
                cmd
            }
            None => Command::new(path),
        }
    }

    fn run(&self, step: &str, args: &[&str]) -> Result<(), PgServerError> {
        let program = step.split(' ').next().unwrap_or(step);
        let out = self
            .command(program)
            .args(args)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| failed(step, e))?;
        if out.status.success() {
            return Ok(());
        }
        Err(failed(
            step,
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ))
    }

    /// The shell that stops the server and removes the directory once
    /// its stdin (a pipe from this process) closes.
    fn supervise(&mut self) -> Result<(), PgServerError> {
        const SCRIPT: &str = "read -r _ || true; \
            if [ -f \"$2/postmaster.pid\" ]; then \"$1/pg_ctl\" -D \"$2\" -m immediate -w stop; fi; \
            rm -rf \"$3\"";
        let mut cmd = match self.run_as {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                cmd.args(["-u", user, "--", "sh"]);
                cmd
            }
            None => Command::new("sh"),
        };
        let child = cmd
            .arg("-c")
            .arg(SCRIPT)
            .arg("sh")
            .arg(&self.bin)
            .arg(self.data())
            .arg(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed("the supervising shell", e))?;
        self.supervisor = Some(child);
        Ok(())
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.supervisor.take() {
            drop(child.stdin.take());
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn failed(step: &str, e: impl fmt::Display) -> PgServerError {
    PgServerError::Failed {
        step: step.to_owned(),
        output: e.to_string(),
    }
}

fn path_str(p: &Path) -> Result<&str, PgServerError> {
    p.to_str()
        .ok_or_else(|| failed("paths", format!("{} is not UTF-8", p.display())))
}

fn free_port() -> Result<u16, PgServerError> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| failed("a free port", e))
}

fn has_server(dir: &Path) -> bool {
    ["initdb", "pg_ctl", "createdb"]
        .iter()
        .all(|b| dir.join(b).is_file())
}

fn find_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TABULA_PG_BIN") {
        let dir = PathBuf::from(dir);
        return has_server(&dir).then_some(dir);
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, dir)| has_server(dir))
        .collect();
    debian.sort();
    if let Some((_, dir)) = debian.pop() {
        return Some(dir);
    }
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|dir| has_server(dir))
}

fn id(args: &[&str]) -> Option<String> {
    let out = Command::new("id").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let mut s = String::new();
    out.stdout.as_slice().read_to_string(&mut s).ok()?;
    Some(s.trim().to_owned())
}

fn is_root() -> bool {
    id(&["-u"]).as_deref() == Some("0")
}

fn user_exists(user: &str) -> bool {
    id(&["-u", user]).is_some()
}

fn chown_to(dir: &Path, user: &str) -> Result<(), PgServerError> {
    let uid = id(&["-u", user]).and_then(|s| s.parse::<u32>().ok());
    let gid = id(&["-g", user]).and_then(|s| s.parse::<u32>().ok());
    let (Some(uid), Some(gid)) = (uid, gid) else {
        return Err(PgServerError::NoPostgresUser);
    };
    for path in [dir.to_path_buf(), dir.join("sock")] {
        std::os::unix::fs::chown(&path, Some(uid), Some(gid)).map_err(|e| failed("chown", e))?;
    }
    Ok(())
}
