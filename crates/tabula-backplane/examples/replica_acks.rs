//! What `redis.min_replicas_acked` costs (issue 47): the latency of a
//! room's append (the write that precedes every acknowledged move) and the
//! CPU per append of the node and of the Redis primary, with the setting
//! off (0) and at 1, on our own `redis-server` primary and one replica on
//! free ports of this machine.
//!
//! ```sh
//! cargo run --release -p tabula-backplane --example replica_acks [appends per room] [rooms...]
//! ```
//!
//! Each run: `rooms` rooms appending one chat input at a time, all at
//! once (each room waits for its append, as a room actor does); p50 / p99
//! of one append, appends a second, the node's and the primary's CPU
//! seconds per 1,000 appends. Figures: `loadtest/RESULTS.md`, "Replica
//! acknowledgements".

#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tabula_backplane::{RedisBackplane, RedisConfig, RoomAppend, RoomEntry, RoomStore, StoredRoom};
use tabula_room::{Actor, Command as RoomCommand, GameOptions, PlayerId, Room, RoomConfig};

struct Server(Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

fn cli(port: u16, args: &[&str]) -> String {
    Command::new("redis-cli")
        .arg("-p")
        .arg(port.to_string())
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

fn server(replica_of: Option<u16>) -> Result<Server, String> {
    let port = free_port();
    // Its own directory: a replica writes the primary's snapshot there.
    let dir = std::env::temp_dir().join(format!("tabula-replica-acks-{port}"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut cmd = Command::new("redis-server");
    cmd.current_dir(&dir)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(p) = replica_of {
        cmd.args(["--replicaof", "127.0.0.1", &p.to_string()]);
    }
    let child = cmd.spawn().map_err(|e| format!("redis-server: {e}"))?;
    let s = Server(child, port);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ready = match replica_of {
            None => cli(port, &["PING"]).contains("PONG"),
            Some(_) => cli(port, &["INFO", "replication"]).contains("master_link_status:up"),
        };
        if ready {
            return Ok(s);
        }
        if Instant::now() > deadline {
            return Err(format!("redis-server on {port} did not start"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// CPU seconds (user + system) of `pid` ("self" for this process).
fn cpu_s(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime are
    // the 14th and 15th of the line.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

fn entry(id: &str) -> RoomEntry {
    RoomEntry {
        id: id.into(),
        invite: format!("I{id}"),
        options: GameOptions::default(),
        created_ms: 0,
        open: false,
        tournament: None,
    }
}

/// One room appending `n` chat inputs, one at a time; the latency of each.
async fn room(b: &RedisBackplane, id: String, n: usize) -> Result<Vec<Duration>, String> {
    b.register(entry(&id)).await.map_err(|e| e.to_string())?;
    let lease = b.claim(&id).await.map_err(|e| e.to_string())?;
    let mut r = Room::new(RoomConfig::default());
    let whole = StoredRoom {
        entry: entry(&id),
        snapshot: r.snapshot(),
        seqs: BTreeMap::new(),
    };
    b.save_snapshot(&id, lease.epoch, whole)
        .await
        .map_err(|e| e.to_string())?;
    let p = PlayerId::new("tg:1");
    r.apply(RoomCommand::Sit { seat: None }, Actor::Player(p.clone()), 0)
        .map_err(|e| format!("{e:?}"))?;
    let mut took = Vec::with_capacity(n);
    let mut base = 0;
    for i in 0..n {
        if i > 0 {
            r.apply(
                RoomCommand::Chat {
                    text: format!("move {i}"),
                },
                Actor::Player(p.clone()),
                i as u64,
            )
            .map_err(|e| format!("{e:?}"))?;
        }
        let append = RoomAppend {
            base,
            inputs: r.inputs_since(base).to_vec(),
            version: r.version(),
            seqs: BTreeMap::from([("tg:1".to_string(), i as u64)]),
        };
        let t = Instant::now();
        b.append_inputs(&id, lease.epoch, append)
            .await
            .map_err(|e| e.to_string())?;
        took.push(t.elapsed());
        base = r.input_count();
    }
    Ok(took)
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

async fn run(
    acked: u32,
    rooms: usize,
    n: usize,
    primary: &Server,
    tag: &str,
) -> Result<(), String> {
    let config = RedisConfig {
        url: format!("redis://127.0.0.1:{}", primary.1),
        timeout_ms: 1000,
        prefix: format!("bench{tag}"),
        min_replicas_acked: acked,
        replica_ack_timeout_ms: 500,
        ..RedisConfig::default()
    };
    let b = RedisBackplane::connect(config, format!("bench-{tag}"))
        .await
        .map_err(|e| e.to_string())?;
    let redis_pid = primary.0.id().to_string();
    let (c0, r0, t0) = (cpu_s("self"), cpu_s(&redis_pid), Instant::now());
    let all = join_all((0..rooms).map(|i| room(&b, format!("{tag}-{i}"), n))).await;
    let (c1, r1, secs) = (cpu_s("self"), cpu_s(&redis_pid), t0.elapsed().as_secs_f64());
    let mut took = Vec::new();
    for r in all {
        took.extend(r?);
    }
    took.sort();
    let k = took.len() as f64 / 1000.0;
    println!(
        "min_replicas_acked {acked}  rooms {rooms:>3}  appends {:>6}  p50 {:.3} ms  p99 {:.3} ms  max {:.3} ms  {:>6.0} appends/s  node {:.3} CPU s / 1k appends  redis primary {:.3} CPU s / 1k appends",
        took.len(),
        pct(&took, 0.5),
        pct(&took, 0.99),
        pct(&took, 1.0),
        took.len() as f64 / secs,
        (c1 - c0) / k,
        (r1 - r0) / k,
    );
    Ok(())
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let mut rooms: Vec<usize> = args.filter_map(|a| a.parse().ok()).collect();
    if rooms.is_empty() {
        rooms = vec![1, 16, 64];
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let primary = server(None)?;
    let _replica = server(Some(primary.1))?;
    rt.block_on(async {
        for &r in &rooms {
            for acked in [0, 1] {
                // A few rooms' worth of appends whatever the room count,
                // so every run takes about as long.
                let per_room = (n / r).max(20);
                run(acked, r, per_room, &primary, &format!("{acked}x{r}")).await?;
            }
        }
        Ok(())
    })
}
