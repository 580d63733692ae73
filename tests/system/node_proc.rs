//! A `tabula-node` process (the real binary, the repository's config,
//! settings from the environment) for the tests that measure the node
//! itself: its RSS and CPU seconds, under a file limit.

use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::http;
use tabula_tests as common;

/// A `tabula-node` process, killed on drop.
pub(crate) struct NodeProc {
    child: Child,
    /// Where it listens.
    pub(crate) addr: SocketAddr,
}

impl Drop for NodeProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl NodeProc {
    /// The node with the repository's config and `env` on top, healthy.
    pub(crate) fn start(env: &[(&str, &str)]) -> NodeProc {
        let port = common::cluster::free_port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tabula-node"));
        cmd.current_dir(common::ROOT)
            .env("TABULA__SERVER__LISTEN", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn")
            .env("TABULA__STORE__URL", "")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        NodeProc::healthy(cmd.spawn().expect("start tabula-node"), port)
    }

    /// Waits for a started node to answer `/healthz`.
    fn healthy(child: Child, port: u16) -> NodeProc {
        let node = NodeProc {
            child,
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if TcpStream::connect(node.addr).is_ok()
                && http(node.addr, "GET", "/healthz", None).0 == 200
            {
                return node;
            }
            assert!(Instant::now() < deadline, "the node did not become healthy");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The node under an open-file limit of `nofile` (`ulimit -n`).
    pub(crate) fn start_limited(env: &[(&str, &str)], nofile: u32) -> NodeProc {
        let port = common::cluster::free_port();
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit -n {nofile} && exec \"$0\""))
            .arg(env!("CARGO_BIN_EXE_tabula-node"))
            .current_dir(common::ROOT)
            .env("TABULA__SERVER__LISTEN", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn")
            .env("TABULA__STORE__URL", "")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        NodeProc::healthy(cmd.spawn().expect("start tabula-node"), port)
    }

    /// Its resident set, bytes.
    pub(crate) fn rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .expect("VmRSS");
        let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    /// CPU seconds it has used (user + system).
    pub(crate) fn cpu_secs(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the command's closing parenthesis; utime and stime
        // are the 14th and 15th fields of the whole line.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
        ticks as f64 / clock_ticks()
    }
}

fn clock_ticks() -> f64 {
    let out = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

impl NodeProc {
    /// How many file descriptors it holds (`/proc/<pid>/fd`).
    pub(crate) fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .map(|d| d.count())
            .unwrap_or(0)
    }
}
