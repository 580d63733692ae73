//! The cluster on real processes: our own `redis-server` on a free port and
//! three node processes (`tabula-node`, the `tabula-server` main) with `cluster.backplane = "redis"`. Players
//! sit on one node while their room is owned by another; owners are killed
//! (`kill -9`), paused past their lease (SIGSTOP/SIGCONT) and drained
//! (SIGTERM) in the middle of games. Every game must reach its end, and the
//! stored record of every game must hold exactly the moves each player saw
//! acknowledged: none lost, none applied twice.
//!
//! The pauses players saw are printed (`cargo test -p tabula-tests --test
//! system cluster:: -- --nocapture`) and bounded by assertions.

// The measured pauses are this test's report.
#![allow(clippy::print_stdout)]

use tabula_tests as common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::cluster::{Game, Nodes, Player, Redis, free_port, room_state, scratch};
use common::http;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

/// One `tabula-server` process.
pub(crate) struct Node {
    name: String,
    pub(crate) addr: SocketAddr,
    child: Option<Child>,
    log: PathBuf,
}

/// How to start a node.
struct NodeSpec {
    name: String,
    redis_url: String,
    prefix: String,
    dir: PathBuf,
    cluster_urls: Option<String>,
    env: Vec<(String, String)>,
}

impl NodeSpec {
    fn new(name: &str, redis_url: &str, prefix: &str, dir: &std::path::Path) -> NodeSpec {
        NodeSpec {
            name: name.into(),
            redis_url: redis_url.into(),
            prefix: prefix.into(),
            dir: dir.into(),
            cluster_urls: None,
            env: Vec::new(),
        }
    }

    fn start(&self) -> Node {
        Node::start(self)
    }
}

impl Node {
    fn start(spec: &NodeSpec) -> Node {
        let (name, redis_url, prefix, dir) = (
            spec.name.as_str(),
            spec.redis_url.as_str(),
            spec.prefix.as_str(),
            spec.dir.as_path(),
        );
        let port = free_port();
        let log = dir.join(format!("{name}.log"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tabula-node"));
        common::cluster::cluster_node(&mut cmd, name, &format!("127.0.0.1:{port}"), redis_url);
        if let Some(urls) = &spec.cluster_urls {
            cmd.env("TABULA__REDIS__CLUSTER", "true")
                .env("TABULA__REDIS__URLS", urls);
        }
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        let child = cmd
            .env("TABULA__CLUSTER__DRAIN_GRACE_MS", "5000")
            .env("TABULA__REDIS__PREFIX", prefix)
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tabula-server");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !(std::net::TcpStream::connect(addr).is_ok()
            && http(addr, "GET", "/readyz", None).0 == 200)
        {
            assert!(
                Instant::now() < deadline,
                "{name} did not become ready; see {}",
                log.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Node {
            name: name.to_string(),
            addr,
            child: Some(child),
            log,
        }
    }

    /// Its log file.
    pub(crate) fn log_path(&self) -> &std::path::Path {
        &self.log
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    pub(crate) fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Waits for an already signalled node to exit.
    fn terminate_wait(&mut self) -> std::process::ExitStatus {
        let mut c = self.child.take().unwrap();
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(s) = c.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "{} did not exit", self.name);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn metric(&self, name: &str) -> f64 {
        let (_, body) = http(self.addr, "GET", "/metrics", None);
        let text = body.as_str().unwrap_or_default().to_string();
        text.lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(c) = &self.child {
            // A paused node must be woken to die.
            let _ = Command::new("kill")
                .args(["-CONT", &c.id().to_string()])
                .status();
        }
        self.kill9();
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub(crate) struct Cluster {
    pub(crate) redis: Redis,
    /// The other masters of a Redis Cluster (or a replica).
    pub(crate) more_redis: Vec<Redis>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) table: Nodes,
    dir: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.nodes.clear();
        self.redis.kill();
        for r in &mut self.more_redis {
            r.kill();
            if !std::thread::panicking() {
                let _ = std::fs::remove_dir_all(&r.dir);
            }
        }
        // Logs stay for a failed test to be read (or with
        // TABULA_TEST_VERBOSE set).
        if !std::thread::panicking() && std::env::var_os("TABULA_TEST_VERBOSE").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
            let _ = std::fs::remove_dir_all(&self.redis.dir);
        }
    }
}

impl Cluster {
    fn start(name: &str, aof: bool) -> Cluster {
        Cluster::start_env(name, aof, &[])
    }

    /// Three nodes with extra `TABULA__…` settings.
    pub(crate) fn start_env(name: &str, aof: bool, env: &[(&str, &str)]) -> Cluster {
        let redis = Redis::start(&format!("{name}-redis"), aof);
        let url = redis.url();
        Cluster::start_at(name, redis, Vec::new(), &url, env)
    }

    /// Three nodes on the Redis at `url` (`redis` itself, or a proxy in
    /// front of it), with extra settings; `more` are other Redis servers
    /// the cluster keeps (and kills on drop).
    pub(crate) fn start_at(
        name: &str,
        redis: Redis,
        more: Vec<Redis>,
        url: &str,
        env: &[(&str, &str)],
    ) -> Cluster {
        let dir = scratch(name);
        let prefix = format!("t{}{name}", std::process::id());
        let nodes: Vec<Node> = (1..=3)
            .map(|i| {
                let mut n = NodeSpec::new(&format!("{name}-n{i}"), url, &prefix, &dir);
                n.env = env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                n.start()
            })
            .collect();
        Cluster::assemble(redis, more, nodes, dir)
    }

    /// The same three nodes on a three-master Redis Cluster.
    fn start_on_redis_cluster(name: &str) -> Cluster {
        let masters = redis_cluster(name, 3, 0);
        Cluster::on_redis_cluster(name, masters, &[])
    }

    /// Three nodes on the Redis Cluster of `servers` (all of them seeds),
    /// with extra settings; the cluster keeps the servers (the first is
    /// `redis`).
    pub(crate) fn on_redis_cluster(
        name: &str,
        servers: Vec<Redis>,
        env: &[(&str, &str)],
    ) -> Cluster {
        let urls: Vec<String> = servers.iter().map(Redis::url).collect();
        let urls = urls.join(",");
        let dir = scratch(name);
        let prefix = format!("t{}{name}", std::process::id());
        let nodes: Vec<Node> = (1..=3)
            .map(|i| {
                let mut n = NodeSpec::new(&format!("{name}-n{i}"), "", &prefix, &dir);
                n.cluster_urls = Some(urls.clone());
                n.env = env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                n.start()
            })
            .collect();
        let mut servers = servers.into_iter();
        let first = servers.next().unwrap();
        Cluster::assemble(first, servers.collect(), nodes, dir)
    }

    fn assemble(redis: Redis, more_redis: Vec<Redis>, nodes: Vec<Node>, dir: PathBuf) -> Cluster {
        let table = Arc::new(std::sync::Mutex::new(
            nodes.iter().map(|n| (n.addr, true)).collect(),
        ));
        Cluster {
            redis,
            more_redis,
            nodes,
            table,
            dir,
        }
    }

    pub(crate) fn down(&self, i: usize) {
        self.table.lock().unwrap()[i].1 = false;
    }

    pub(crate) fn logs(&self) -> String {
        self.nodes
            .iter()
            .map(|n| n.log.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A Redis Cluster of `servers` Redis servers, `replicas` a primary
/// (`redis-cli --cluster create`), each server answering
/// `cluster_state:ok`; in the order they were given (primaries first).
pub(crate) fn redis_cluster(name: &str, servers: usize, replicas: u8) -> Vec<Redis> {
    let servers: Vec<Redis> = (0..servers)
        .map(|i| Redis::start_with(&format!("{name}-redis{i}"), false, true))
        .collect();
    let addrs: Vec<String> = servers
        .iter()
        .map(|r| format!("127.0.0.1:{}", r.port))
        .collect();
    let out = Command::new("redis-cli")
        .args(["--cluster", "create"])
        .args(&addrs)
        .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
        .output()
        .unwrap();
    assert!(out.status.success(), "redis-cli --cluster create: {out:?}");
    let deadline = Instant::now() + Duration::from_secs(30);
    for r in &servers {
        loop {
            let out = Command::new("redis-cli")
                .args(["-p", &r.port.to_string(), "cluster", "info"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout).contains("cluster_state:ok") {
                break;
            }
            assert!(Instant::now() < deadline, "the Redis Cluster did not form");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    servers
}

/// Which nodes a fault hits, for [`games_through`]: the players' two home
/// nodes; the nodes the fault kills, stops, drains or cuts off (a player
/// sitting on one must reconnect, once; no other player may); and those
/// of them whose sockets it silences (stopped or killed: a player may drop
/// a socket there for 3 s of silence, nowhere else).
struct Fault<'a> {
    homes: [usize; 2],
    faulted: &'a [usize],
    silent: &'a [usize],
}

/// Runs `games` concurrently: each plays `before` commands, then waits at
/// the barrier while `disrupt` runs, then plays to the end. Returns the
/// players' worst pauses and their first answer after the disruption.
/// Every player reconnected exactly as often as the fault forced him to
/// (once if he sat on a node in `fault.faulted`, never otherwise), and
/// none dropped a socket for its silence but on the nodes in
/// `fault.silent`.
async fn games_through(
    c: &Cluster,
    games: usize,
    before: usize,
    fault: Fault<'_>,
    disrupt: impl FnOnce() + Send + 'static,
) -> (Vec<Duration>, Vec<Duration>) {
    let (worst, first, _) = games_kept_through(c, games, before, fault, disrupt).await;
    (worst, first)
}

/// [`games_through`], keeping the games (for a later look at their
/// records).
async fn games_kept_through(
    c: &Cluster,
    games: usize,
    before: usize,
    fault: Fault<'_>,
    disrupt: impl FnOnce() + Send + 'static,
) -> (Vec<Duration>, Vec<Duration>, Vec<Arc<Mutex<Game>>>) {
    let addrs = |ix: &[usize]| -> Vec<SocketAddr> { ix.iter().map(|i| c.nodes[*i].addr).collect() };
    let (faulted, silent) = (addrs(fault.faulted), addrs(fault.silent));
    let owner = c.nodes[2].addr;
    let homes = [c.nodes[fault.homes[0]].addr, c.nodes[fault.homes[1]].addr];
    let mut all = Vec::new();
    for g in 0..games {
        all.push(Game::new(owner, homes, &c.table, &format!("g{g}")).await);
    }
    let all: Vec<Arc<Mutex<Game>>> = all.into_iter().map(|g| Arc::new(Mutex::new(g))).collect();
    let mut tasks = Vec::new();
    for g in &all {
        let (g, t) = (g.clone(), c.table.clone());
        tasks.push(tokio::spawn(async move {
            g.lock().await.play(&t, Some(before)).await;
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    // The players the fault forces to reconnect: those on a faulted node.
    let mut forced = 0;
    for g in &all {
        let g = g.lock().await;
        forced += g
            .players
            .iter()
            .filter(|p| faulted.contains(&p.home))
            .count();
    }
    let mark = Instant::now();
    disrupt();
    let mut tasks = Vec::new();
    for g in &all {
        let (g, t) = (g.clone(), c.table.clone());
        tasks.push(tokio::spawn(async move {
            let mut g = g.lock().await;
            for p in &mut g.players {
                p.mark = Some(mark);
                p.worst = (Duration::ZERO, None);
            }
            assert!(g.play(&t, None).await);
            g.check_record(&t).await;
            // No game may end by a forfeit that a server fault caused.
            let st = room_state(&t, &g.room).await;
            assert!(
                !st.to_string().contains("\"disconnected\""),
                "room {} ended by a disconnect: {st}",
                g.room
            );
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let mut worst = Vec::new();
    let mut first = Vec::new();
    let (mut reconnects, mut silences) = (0, 0);
    for g in &all {
        let g = g.lock().await;
        reconnects += common::cluster::assert_no_healthy_socket_dropped(
            &g.players,
            &faulted,
            &silent,
            &c.logs(),
        );
        silences += g
            .players
            .iter()
            .map(|p| p.silent_drops.len())
            .sum::<usize>();
        for p in &g.players {
            if std::env::var_os("TABULA_TEST_VERBOSE").is_some() {
                println!(
                    "{} home {} worst {:?} first {:?}",
                    p.name, p.home, p.worst.0, p.first_after_mark
                );
            }
            worst.push(p.worst.0);
            if let Some(f) = p.first_after_mark {
                first.push(f);
            }
        }
    }
    println!(
        "{} players, {forced} of them on a faulted node: {reconnects} reconnects in all, {silences} of them for 3 s of silence",
        2 * games
    );
    assert_eq!(
        reconnects,
        forced,
        "the fault forced {forced} reconnects (one per player on a faulted node); logs: {}",
        c.logs()
    );
    (worst, first, all)
}

#[tokio::test]
async fn players_on_two_nodes_play_whole_games_owned_by_a_third() {
    let _one = common::one().await;
    whole_games(Cluster::start("plain", false)).await;
}

#[tokio::test]
async fn on_a_redis_cluster_players_on_two_nodes_play_whole_games_owned_by_a_third() {
    let _one = common::one().await;
    whole_games(Cluster::start_on_redis_cluster("rcplain")).await;
}

async fn whole_games(c: Cluster) {
    let (worst, _) = games_through(
        &c,
        3,
        0,
        Fault {
            homes: [0, 1],
            faulted: &[],
            silent: &[],
        },
        || {},
    )
    .await;
    assert!(
        worst.iter().all(|w| *w < Duration::from_secs(2)),
        "{worst:?}; logs: {}",
        c.logs()
    );
    // The rooms were owned by node 3 and the commands were routed to it.
    assert!(c.nodes[0].metric("tabula_routed_commands_total") > 0.0);
    assert!(c.nodes[2].metric("tabula_rooms{") >= 3.0, "{}", c.logs());

    // Quick match pairs players waiting on different nodes.
    let (n1, n2) = (c.nodes[0].addr, c.nodes[1].addr);
    let body = json!({"game": "backgammon"});
    let b2 = body.clone();
    let first = tokio::task::spawn_blocking(move || {
        http(n1, "POST", "/api/quickmatch?guest=qm1", Some(body))
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = tokio::task::spawn_blocking(move || {
        http(n2, "POST", "/api/quickmatch?guest=qm2", Some(b2))
    });
    let (s1, r1) = first.await.unwrap();
    let (s2, r2) = second.await.unwrap();
    assert_eq!((s1, s2), (200, 200), "{r1} {r2}");
    assert_eq!(r1["roomId"], r2["roomId"], "{r1} {r2}");
    assert!(r1.get("bot").is_none(), "{r1}");

    // A resent command (same seq) is applied once, across nodes.
    let owner = c.nodes[2].addr;
    let (_, v) = http(
        owner,
        "POST",
        "/api/rooms",
        Some(json!({"game": "long_nardy"})),
    );
    let room = v["roomId"].as_str().unwrap().to_string();
    let mut p = Player::new("resender", &room, c.nodes[0].addr, &c.table);
    p.connect().await;
    let ws = p.ws.as_mut().unwrap();
    let chat = json!({"type": "chat", "text": "once", "seq": 7}).to_string();
    for _ in 0..2 {
        ws.send(Message::text(chat.clone())).await.unwrap();
    }
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let m = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["seq"] == 7 {
                answers.push(v);
            }
        }
    }
    assert_eq!(answers[0]["type"], "chat", "{answers:?}");
    assert_eq!(answers[1]["type"], "ack", "{answers:?}");
    assert_eq!(answers[1]["duplicate"], true, "{answers:?}");
}

#[tokio::test]
async fn kill_9_of_the_owner_loses_no_acknowledged_move() {
    let _one = common::one().await;
    kill_9(Cluster::start("kill", false), "kill -9").await;
}

#[tokio::test]
async fn on_a_redis_cluster_kill_9_of_the_owner_loses_no_acknowledged_move() {
    let _one = common::one().await;
    kill_9(
        Cluster::start_on_redis_cluster("rckill"),
        "Redis Cluster, kill -9",
    )
    .await;
}

async fn kill_9(mut c: Cluster, label: &str) {
    let pid = c.nodes[2].pid();
    let table = c.table.clone();
    // Half the players sit on the owner that dies: they reconnect elsewhere.
    let (worst, first) = games_through(
        &c,
        6,
        12,
        Fault {
            homes: [0, 2],
            faulted: &[2],
            silent: &[2],
        },
        move || {
            signal(pid, "-KILL");
            table.lock().unwrap()[2].1 = false;
        },
    )
    .await;
    c.nodes[2].kill9();
    let (med, max) = (median(first.clone()), first.iter().max().copied().unwrap());
    println!(
        "{label} failover pause (kill → first event), {} clients: median {med:?}, max {max:?}; worst command wait {:?}",
        first.len(),
        worst.iter().max().unwrap()
    );
    // The bound: the lease (1 s here) plus a second.
    assert!(
        max < Duration::from_secs(2),
        "{first:?}; logs: {}",
        c.logs()
    );
    let takeovers: f64 = (0..2)
        .map(|i| c.nodes[i].metric("tabula_room_takeovers_total"))
        .sum();
    assert!(
        takeovers >= 6.0,
        "takeovers {takeovers}; logs: {}",
        c.logs()
    );
}

#[tokio::test]
async fn a_paused_owner_is_fenced_and_no_game_forks() {
    let _one = common::one().await;
    let c = Cluster::start("stop", false);
    let pid = c.nodes[2].pid();
    c.down(2);
    let games = 3;
    let (_, first, all) = games_kept_through(
        &c,
        games,
        10,
        Fault {
            homes: [0, 1],
            faulted: &[2],
            silent: &[2],
        },
        move || signal(pid, "-STOP"),
    )
    .await;
    println!("SIGSTOP takeover pause: max {:?}", first.iter().max());
    // Wake the old owner: its lease has long expired and its rooms are
    // owned elsewhere; it must stop them instead of writing.
    signal(pid, "-CONT");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let rooms = c.nodes[2].metric("tabula_rooms{");
        if rooms == 0.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the old owner still runs {rooms} rooms; logs: {}",
            c.logs()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Each room stopped on one of the ways a woken owner learns it lost
    // it, whichever came first: the fence refused its write or release,
    // its late lease renewal found the room owned elsewhere (both
    // `fencing_refusals`), or the renewal failed (`releases{lease_lost}`;
    // the second also follows the lease check). None was handed off or
    // unloaded as if it were still the owner's.
    let old = &c.nodes[2];
    let fenced = old.metric("tabula_fencing_refusals_total");
    let lost = old.metric("tabula_room_releases_total{reason=\"lease_lost\"}");
    assert!(
        fenced + lost >= games as f64,
        "fenced {fenced}, lease lost {lost}, for {games} rooms; logs: {}",
        c.logs()
    );
    assert_eq!(
        old.metric("tabula_room_releases_total{reason=\"drain\"}")
            + old.metric("tabula_room_releases_total{reason=\"idle\"}"),
        0.0,
        "logs: {}",
        c.logs()
    );
    // No game forked: every record is still exactly the acknowledged
    // moves, as the new owners wrote it, after the old owner woke.
    for g in &all {
        g.lock().await.check_record(&c.table).await;
    }
}

#[tokio::test]
async fn sigterm_drain_hands_rooms_off_in_well_under_a_second() {
    let _one = common::one().await;
    let mut c = Cluster::start("drain", false);
    let pid = c.nodes[2].pid();
    let table = c.table.clone();
    // Half the players sit on the draining node: closed with 1012, they
    // reconnect elsewhere (a load balancer sends no one there once its
    // readiness fails).
    let (worst, first) = games_through(
        &c,
        4,
        10,
        Fault {
            homes: [0, 2],
            faulted: &[2],
            silent: &[],
        },
        move || {
            table.lock().unwrap()[2].1 = false;
            signal(pid, "-TERM");
        },
    )
    .await;
    let max_first = first.iter().max().copied().unwrap();
    let max_worst = worst.iter().max().copied().unwrap();
    println!(
        "drain pause (SIGTERM → first event), {} clients: median {:?}, max {max_first:?}; worst command wait {max_worst:?}",
        first.len(),
        median(first.clone())
    );
    assert!(
        max_worst < Duration::from_secs(1),
        "{worst:?}; logs: {}",
        c.logs()
    );
    let status = c.nodes[2].terminate_wait();
    assert!(status.success(), "drained node exit: {status:?}");
}

/// Redis goes away mid-game for `away` and comes back: with AOF (nothing
/// lost), or without persistence (empty: the owners write their rooms
/// again, which they can while they still hold them: within the lease).
/// The games play on through the outage, so commands are in flight when
/// Redis dies and while it is away: each is answered (`unavailable`,
/// `pending`, or its ack once Redis is back), and no player drops or loses
/// a socket.
async fn redis_restart(name: &str, aof: bool, away: Duration) {
    let mut c = Cluster::start(name, aof);
    let owner = c.nodes[2].addr;
    let homes = [c.nodes[0].addr, c.nodes[1].addr];
    let mut all = Vec::new();
    for g in 0..3 {
        all.push(Game::new(owner, homes, &c.table, &format!("r{g}")).await);
    }
    for g in &mut all {
        g.play(&c.table, Some(10)).await;
    }
    let mut playing = Vec::new();
    for mut g in all {
        let t = c.table.clone();
        playing.push(tokio::spawn(async move {
            let over = g.play(&t, None).await;
            (g, over)
        }));
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    c.redis.kill();
    tokio::time::sleep(away).await;
    c.redis.spawn();
    let mut held = 0;
    for t in playing {
        let (g, over) = t.await.unwrap();
        assert!(over, "logs: {}", c.logs());
        g.check_record(&c.table).await;
        let lost =
            common::cluster::assert_no_healthy_socket_dropped(&g.players, &[], &[], &c.logs());
        assert_eq!(lost, 0);
        held += g.players.iter().map(|p| p.held).sum::<u32>();
    }
    // An outage past a second met commands in flight: the server answered
    // them `unavailable` (retried) or `pending`, never with silence.
    println!("Redis restart ({away:?}): {held} answers unavailable or pending, no socket lost");
    if away > Duration::from_secs(1) {
        assert!(held >= 1, "no command met the outage; logs: {}", c.logs());
    }
    // New games work after the restart too.
    let mut g = Game::new(owner, homes, &c.table, "after").await;
    assert!(g.play(&c.table, None).await);
    g.check_record(&c.table).await;
}

#[tokio::test]
async fn redis_restart_with_aof_loses_no_acknowledged_move() {
    let _one = common::one().await;
    // Past the lease (1 s): the owners lose their leases, and take the
    // rooms back from Redis's AOF.
    redis_restart("aof", true, Duration::from_millis(1500)).await;
}

#[tokio::test]
async fn redis_restart_without_persistence_recovers() {
    let _one = common::one().await;
    // Within the lease: the owners still hold their rooms and write them
    // into the empty Redis. (Past the lease they must give them up, and an
    // empty Redis has nothing to take them back from: README, *Redis
    // restarts*.)
    redis_restart("noaof", false, Duration::from_millis(400)).await;
}

/// A room whose players were all on the node that died: nobody comes back,
/// so no command ever finds the room — the background sweep takes it over,
/// and its disconnect timers run there: the game ends by forfeit.
#[tokio::test]
async fn the_sweep_takes_over_a_room_nobody_returns_to_and_its_forfeit_timers_run() {
    let _one = common::one().await;
    let mut c = Cluster::start_env(
        "sweep",
        false,
        &[
            ("TABULA__ROOMS__GRACE_MS", "1000"),
            ("TABULA__CLUSTER__TAKEOVER_GRACE_MS", "500"),
        ],
    );
    let owner = c.nodes[2].addr;
    let mut g = Game::new(owner, [owner, owner], &c.table, "sw").await;
    g.play(&c.table, Some(6)).await;
    let room = g.room.clone();
    c.down(2);
    c.nodes[2].kill9();
    // The players are gone with their node: drop their sockets unread.
    for p in &mut g.players {
        p.ws = None;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let st = room_state(&c.table, &room).await;
        if st["phase"] == "finished" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the orphaned room never finished: {st}; logs: {}",
            c.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let swept: f64 = (0..2)
        .map(|i| c.nodes[i].metric("tabula_room_takeovers_total{reason=\"sweep\"}"))
        .sum();
    assert!(swept >= 1.0, "no sweep takeover; logs: {}", c.logs());
}

/// What one socket received while its player only waited: each message's
/// arrival and JSON.
async fn listen(ws: &mut common::Ws, until: Instant) -> Vec<(Instant, Value)> {
    let mut got = Vec::new();
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(until.into(), ws.next()).await {
        if let Message::Text(t) = m {
            got.push((Instant::now(), serde_json::from_str(&t).unwrap()));
        }
    }
    got
}

/// Both players of each game sit on nodes 1 and 2, their rooms on node 3,
/// and neither has anything pending when `fault` strikes: they only wait,
/// as a client written from docs/protocol.md does between turns. For
/// `quiet` after the fault nobody sends anything. Then:
/// * nobody was marked disconnected (no `playerDisconnected` on any
///   socket, no disconnect deadline in the room): the players' own nodes
///   re-attached them, since their sockets never went away;
/// * the player to move moves, and his opponent — who sent nothing since
///   the fault — receives that move within a second: his node re-linked
///   him to wherever the room is now;
/// * every game then plays to a natural end (not a forfeit), every client
///   receives its `game_over`, and the records hold exactly the
///   acknowledged moves.
///
/// Returns the longest wait, after the quiet, from a move being sent to
/// its arrival at the waiting opponent.
async fn waiting_players_through(
    c: &mut Cluster,
    games: usize,
    quiet: Duration,
    fault: impl FnOnce(&mut Cluster),
) -> Duration {
    let owner = c.nodes[2].addr;
    let homes = [c.nodes[0].addr, c.nodes[1].addr];
    let mut all = Vec::new();
    for g in 0..games {
        let mut game = Game::new(owner, homes, &c.table, &format!("w{g}")).await;
        game.play(&c.table, Some(8 + g)).await;
        all.push(game);
    }
    fault(c);
    let until = Instant::now() + quiet;
    // Everybody listens, nobody speaks.
    let mut heard = Vec::new();
    for g in &mut all {
        for p in &mut g.players {
            let mut ws = p.ws.take().expect("connected");
            heard.push(tokio::spawn(async move {
                let got = listen(&mut ws, until).await;
                (ws, got)
            }));
        }
    }
    let mut i = 0;
    for g in &mut all {
        for p in &mut g.players {
            let (ws, got) = (&mut heard[i]).await.unwrap();
            i += 1;
            for (_, v) in &got {
                p.saw(v);
                assert_ne!(
                    v["event"]["type"],
                    "playerDisconnected",
                    "{} was marked disconnected while his socket stayed open: {v}; logs: {}",
                    p.name,
                    c.logs()
                );
                assert_ne!(v["type"], "error", "{}: {v}", p.name);
            }
            p.ws = Some(ws);
        }
    }
    let mut worst = Duration::ZERO;
    for g in &mut all {
        let st = room_state(&c.table, &g.room).await;
        for seat in st["seats"].as_array().unwrap() {
            assert!(
                seat["disconnectDeadline"].is_null(),
                "room {}: {seat} is counted as disconnected; logs: {}",
                g.room,
                c.logs()
            );
        }
        // The player to move moves; the other one only listens.
        let (seat, cmd) = common::next_command(&st).expect("someone to act");
        let (mover, waiter) = if seat == "a" { (0, 1) } else { (1, 0) };
        let sent = Instant::now();
        let answer = g.players[mover].call(cmd.clone()).await;
        assert_ne!(answer["type"], "error", "{answer}");
        if cmd["type"] == "move" {
            let m = (cmd["from"].clone(), cmd["to"].clone());
            g.players[mover].moves.push(m);
        }
        let version = answer["version"]
            .as_u64()
            .expect("the answer has a version");
        let ws = g.players[waiter].ws.as_mut().unwrap();
        let got = listen(ws, sent + Duration::from_secs(3)).await;
        for (_, v) in &got {
            g.players[waiter].saw(v);
        }
        let arrived = got
            .iter()
            .find(|(_, v)| v["version"].as_u64().is_some_and(|x| x >= version))
            .map(|(t, _)| t.duration_since(sent));
        let Some(took) = arrived else {
            panic!(
                "room {}: {} never received his opponent's move (version {version}); got {got:?}; logs: {}",
                g.room,
                g.players[waiter].name,
                c.logs()
            );
        };
        assert!(
            took < Duration::from_secs(1),
            "room {}: the opponent's move took {took:?} to arrive; logs: {}",
            g.room,
            c.logs()
        );
        worst = worst.max(took);
    }
    for g in &mut all {
        assert!(g.play(&c.table, None).await, "logs: {}", c.logs());
        g.check_record(&c.table).await;
        let st = room_state(&c.table, &g.room).await;
        let text = st.to_string();
        assert!(
            !text.contains("\"disconnected\""),
            "room {} ended by a disconnect: {st}; logs: {}",
            g.room,
            c.logs()
        );
        // Every client learns the end (the last mover may have read it
        // with his answers; the other one reads it now).
        for p in &mut g.players {
            p.assert_told_the_end_and_nobody_left(&c.logs()).await;
        }
        // Nobody sits on the owner the faults hit: no socket went silent.
        common::cluster::assert_no_healthy_socket_dropped(&g.players, &[], &[], &c.logs());
    }
    worst
}

/// Three nodes whose graces are short (a takeover grace of 1.5 s, a
/// forfeit 2 s later), so that a player his node failed to re-attach
/// would be marked disconnected, and lose, within a waiting test.
fn waiting_cluster(name: &str, aof: bool) -> Cluster {
    Cluster::start_env(
        name,
        aof,
        &[
            ("TABULA__CLUSTER__TAKEOVER_GRACE_MS", "1500"),
            ("TABULA__ROOMS__GRACE_MS", "2000"),
        ],
    )
}

/// The owner dies (`kill -9`) while both players of its games, on other
/// nodes, wait: their nodes re-route them within the lease, the takeover
/// grace finds them attached, and the games go on.
#[tokio::test]
async fn kill_9_of_the_owner_while_its_players_only_wait_costs_nobody_his_game() {
    let _one = common::one().await;
    let mut c = waiting_cluster("waitkill", false);
    let worst = waiting_players_through(&mut c, 3, Duration::from_millis(3500), |c| {
        c.down(2);
        c.nodes[2].kill9();
    })
    .await;
    println!("kill -9, waiting players: opponent's move arrived within {worst:?}");
    let rerouted: f64 = (0..2)
        .map(|i| c.nodes[i].metric("tabula_link_faults_total{kind=\"owner_dead\"}"))
        .sum();
    assert!(
        rerouted >= 1.0,
        "no link re-routed for a dead owner; logs: {}",
        c.logs()
    );
}

/// The owner is paused past its lease (its rooms are taken over) and then
/// woken while the players wait: the woken node's late messages must not
/// silence the links that moved.
#[tokio::test]
async fn sigstop_of_the_owner_while_its_players_only_wait_costs_nobody_his_game() {
    let _one = common::one().await;
    let mut c = waiting_cluster("waitstop", false);
    let pid = c.nodes[2].pid();
    let worst = waiting_players_through(&mut c, 3, Duration::from_millis(4000), move |c| {
        c.down(2);
        signal(pid, "-STOP");
        std::thread::sleep(Duration::from_millis(2500));
        signal(pid, "-CONT");
    })
    .await;
    println!("SIGSTOP 2.5 s, waiting players: opponent's move arrived within {worst:?}");
}

/// Redis goes away for 2 s (AOF on) while the players wait: published
/// messages are lost and every lease runs out; the beats show the gaps and
/// the links are re-established, so nobody is left without his turn.
#[tokio::test]
async fn redis_restart_while_the_players_only_wait_costs_nobody_his_game() {
    let _one = common::one().await;
    let mut c = waiting_cluster("waitredis", true);
    let worst = waiting_players_through(&mut c, 3, Duration::from_millis(4500), |c| {
        c.redis.kill();
        std::thread::sleep(Duration::from_millis(2000));
        c.redis.spawn();
    })
    .await;
    println!("Redis restart 2 s, waiting players: opponent's move arrived within {worst:?}");
}

/// Redis is paused for 5 s (every lease runs out, every command times
/// out) and resumes while the players wait.
#[tokio::test]
async fn redis_paused_5_s_while_the_players_only_wait_costs_nobody_his_game() {
    let _one = common::one().await;
    let mut c = waiting_cluster("waitrstop", false);
    let worst = waiting_players_through(&mut c, 3, Duration::from_millis(4000), |c| {
        let pid = c.redis.child.as_ref().unwrap().id();
        signal(pid, "-STOP");
        std::thread::sleep(Duration::from_secs(5));
        signal(pid, "-CONT");
    })
    .await;
    println!("Redis SIGSTOP 5 s, waiting players: opponent's move arrived within {worst:?}");
}

/// The owner drains (SIGTERM) while the players wait on other nodes: its
/// rooms are handed off and the players' nodes follow them.
#[tokio::test]
async fn sigterm_of_the_owner_while_its_players_only_wait_costs_nobody_his_game() {
    let _one = common::one().await;
    let mut c = waiting_cluster("waitterm", false);
    let pid = c.nodes[2].pid();
    let worst = waiting_players_through(&mut c, 3, Duration::from_millis(2000), move |c| {
        c.down(2);
        signal(pid, "-TERM");
    })
    .await;
    println!("SIGTERM of the owner, waiting players: opponent's move arrived within {worst:?}");
    let status = c.nodes[2].terminate_wait();
    assert!(status.success(), "drained node exit: {status:?}");
}

/// Two nodes killed in turn: the owner, then (once its rooms were taken
/// over) one of the two survivors — the one half the players sit on. The
/// last node ends up with every room and every player; every game still
/// reaches its natural end with every acknowledged move, once.
#[tokio::test]
async fn two_nodes_killed_in_turn_end_no_game_by_forfeit() {
    let _one = common::one().await;
    let mut c = Cluster::start("twokills", false);
    let (pid3, pid1) = (c.nodes[2].pid(), c.nodes[0].pid());
    let table = c.table.clone();
    let (worst, _) = games_through(
        &c,
        4,
        10,
        Fault {
            homes: [0, 1],
            faulted: &[2, 0],
            silent: &[2, 0],
        },
        move || {
            signal(pid3, "-KILL");
            table.lock().unwrap()[2].1 = false;
            // Past the lease: the rooms are on nodes 1 and 2 now.
            std::thread::sleep(Duration::from_millis(2500));
            signal(pid1, "-KILL");
            table.lock().unwrap()[0].1 = false;
        },
    )
    .await;
    c.nodes[2].kill9();
    c.nodes[0].kill9();
    println!(
        "two nodes killed in turn: worst command wait {:?}",
        worst.iter().max()
    );
}

/// Plays `g` on until White has rolled and may play his roll in two steps
/// or more; that play (one of the room's `sequences`) and the room's state.
async fn to_a_whole_turn(g: &mut Game, nodes: &Nodes) -> (String, Value) {
    for _ in 0..400 {
        let st = room_state(nodes, &g.room).await;
        if st["toAct"]["seat"] == "a" && st["toAct"]["need"] == "move" {
            let long = st["moves"]["sequences"]
                .as_array()
                .and_then(|s| s.iter().filter_map(Value::as_str).find(|p| p.contains(',')));
            if let Some(play) = long {
                return (play.to_string(), st);
            }
        }
        g.play(nodes, Some(1)).await;
    }
    panic!("room {}: White never had a turn of two steps", g.room);
}

/// Reads `ws` until it has been silent for 300 ms; what it read.
async fn read_quiet(ws: &mut common::Ws) -> Vec<Value> {
    let mut got = Vec::new();
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(300), ws.next()).await {
        if let Message::Text(t) = m {
            got.push(serde_json::from_str(&t).unwrap());
        }
    }
    got
}

/// Reads Black's socket into `got` until it says his turn has come (a
/// `turnStarted` of his, or a `state` with him to act), then until it is
/// quiet; panics after 10 s.
async fn until_blacks_turn(ws: &mut common::Ws, got: &mut Vec<Value>, what: &str) {
    let his_turn = |v: &Value| {
        v["event"]["type"] == "turnStarted" && v["event"]["seat"] == "b"
            || v["type"] == "state" && v["state"]["toAct"]["seat"] == "b"
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !got.iter().any(his_turn) {
        let m = tokio::time::timeout_at(deadline.into(), ws.next())
            .await
            .unwrap_or_else(|_| panic!("{what}: Black's turn never came: {got:?}"));
        match m {
            Some(Ok(Message::Text(t))) => got.push(serde_json::from_str(&t).unwrap()),
            Some(Ok(_)) => {}
            _ => panic!("{what}: Black's socket closed: {got:?}"),
        }
    }
    got.extend(read_quiet(ws).await);
}

/// Issue 22: the Mini App plays a dice turn whole (`turn`, sent when its
/// player presses Done), which rests on the same per-player `seq` dedupe
/// as `move`. White's player sits on the node that owns his three rooms;
/// when that node is killed (`kill -9`), in one room his `turn` has been
/// acknowledged and he read the answer, in another it was applied but he
/// never read the answer, in the third it is on its way. He reconnects to
/// another node, re-joins, and resends the same `turn` with the same
/// `seq`. In each room the turn is applied exactly once:
/// * the room's actions (so its board) are those before the turn plus the
///   turn's steps, once;
/// * where it had been applied, the resend is answered `ack` `duplicate`
///   (the one on its way: that, or the turn's own answer if the dead node
///   never applied it);
/// * Black, whose node survived, is shown each step once (events with
///   rising versions, or a `state` that holds them), then his turn;
/// * the next roll is Black's, not White's;
/// * the game plays on to its end, and its record holds exactly the moves
///   acknowledged, the turn's steps once.
#[tokio::test]
async fn a_whole_turn_resent_across_a_kill_9_of_the_owner_is_applied_once() {
    let _one = common::one().await;
    let mut c = Cluster::start("turnkill", false);
    let owner = c.nodes[2].addr;
    let homes = [owner, c.nodes[0].addr];
    let cases = ["acknowledged", "applied, its answer unread", "on its way"];
    let mut games = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut g = Game::new(owner, homes, &c.table, &format!("t{i}")).await;
        let (play, before) = to_a_whole_turn(&mut g, &c.table).await;
        let steps: Vec<(Value, Value)> = play
            .split(',')
            .map(|s| {
                let m = common::move_msg(s);
                (m["from"].clone(), m["to"].clone())
            })
            .collect();
        // What Black was sent before the turn is read and put aside.
        read_quiet(g.players[1].ws.as_mut().unwrap()).await;
        let turn = json!({"type": "turn", "play": play});
        games.push((*case, g, turn, steps, before, Vec::new()));
    }
    // 1. Acknowledged: White reads his answer, the first step's `moved`.
    let (_, g, turn, ..) = &mut games[0];
    let first = g.players[0].call(turn.clone()).await;
    assert_eq!(first["event"]["type"], "moved", "{first}");
    assert_eq!(first["event"]["seat"], "a", "{first}");
    // 2. Applied (Black has been shown it, up to his turn), but White reads
    // nothing: his answer is lost with his node.
    let (case, g, turn, _, _, black) = &mut games[1];
    let a = &mut g.players[0];
    let mut frame = turn.clone();
    frame["seq"] = json!(a.seq + 1);
    let ws = a.ws.as_mut().unwrap();
    ws.send(Message::text(frame.to_string())).await.unwrap();
    until_blacks_turn(g.players[1].ws.as_mut().unwrap(), black, case).await;
    // 3. On its way: sent, and the node killed at once.
    let (_, g, turn, ..) = &mut games[2];
    let a = &mut g.players[0];
    let mut frame = turn.clone();
    frame["seq"] = json!(a.seq + 1);
    let ws = a.ws.as_mut().unwrap();
    ws.send(Message::text(frame.to_string())).await.unwrap();
    c.down(2);
    c.nodes[2].kill9();

    for (i, (case, g, turn, steps, before, black)) in games.iter_mut().enumerate() {
        let what = format!("{case} (room {}; logs: {})", g.room, c.logs());
        let a = &mut g.players[0];
        // Back through another node, the same `turn` with the same `seq`
        // (`call` numbers it on from the last one sent).
        if i == 0 {
            a.seq -= 1;
        }
        a.ws = None;
        let again = a.call(turn.clone()).await;
        assert_eq!(again["seq"], json!(a.seq), "{what}: {again}");
        if i < 2 || again["type"] == "ack" {
            assert_eq!(again["type"], "ack", "{what}: {again}");
            assert_eq!(again["duplicate"], true, "{what}: {again}");
        } else {
            assert_eq!(again["event"]["type"], "moved", "{what}: {again}");
        }
        println!("a turn {case} across kill -9: the resend answered {again}");
        a.moves.extend(steps.iter().cloned());
        // The room holds the turn's steps once, after the roll.
        let st = room_state(&c.table, &g.room).await;
        let mut want = before["actions"].as_array().unwrap().clone();
        want.extend(
            steps
                .iter()
                .map(|(f, t)| json!({"type": "step", "seat": "a", "from": f, "to": t})),
        );
        assert_eq!(st["actions"].as_array().unwrap(), &want, "{what}");
        assert_eq!(
            st["toAct"],
            json!({"seat": "b", "need": "roll"}),
            "{what}: {st}"
        );
        // Black was shown each step once: the events after what he had (a
        // `state` replaces what he had), up to his own turn.
        until_blacks_turn(g.players[1].ws.as_mut().unwrap(), black, &what).await;
        let base = before["actions"].as_array().unwrap().len();
        let mut shown: Vec<(Value, Value)> = Vec::new();
        let mut version = 0;
        for v in black.iter() {
            if v["type"] == "state" {
                shown = v["state"]["actions"].as_array().unwrap()[base..]
                    .iter()
                    .filter(|x| x["type"] == "step" && x["seat"] == "a")
                    .map(|x| (x["from"].clone(), x["to"].clone()))
                    .collect();
                version = v["state"]["version"].as_u64().unwrap();
                continue;
            }
            if let Some(n) = v["version"].as_u64().filter(|_| v["type"] != "ack") {
                assert!(
                    n > version,
                    "{what}: version {n} after {version}: {black:?}"
                );
                version = n;
            }
            if v["event"]["type"] == "moved" && v["event"]["seat"] == "a" {
                shown.push((v["event"]["from"].clone(), v["event"]["to"].clone()));
            }
        }
        assert_eq!(&shown, steps, "{what}: Black was shown {black:?}");
        // The next roll is Black's.
        let r = g.players[0].call(json!({"type": "rollDice"})).await;
        assert_eq!(r["code"], "not_your_turn", "{what}: {r}");
        let r = g.players[1].call(json!({"type": "rollDice"})).await;
        assert_eq!(r["event"]["type"], "diceRolled", "{what}: {r}");
        assert_eq!(r["event"]["seat"], "b", "{what}: {r}");
    }
    for (_, g, ..) in &mut games {
        assert!(g.play(&c.table, None).await, "logs: {}", c.logs());
        g.check_record(&c.table).await;
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The owner of a clocked game dies (`kill -9`) in the middle of a
/// player's period. After the takeover his clock resumes from what the
/// snapshot says he had used at the room's last input (his roll): the time
/// the node took to die and be taken over is not charged. And the timeout
/// still fires, on the new owner, when that remaining time is used up.
#[tokio::test]
async fn a_clocked_game_keeps_its_players_time_through_a_kill_9_of_the_owner() {
    let _one = common::one().await;
    let mut c = Cluster::start("clockkill", false);
    let owner = c.nodes[2].addr;
    // 4 s per move plus a 4 s bank; white rolls first.
    let body = json!({
        "game": "long_nardy",
        "options": {"long": {"opening": "white_first"}},
        "timeControl": {"delayMs": 4000, "reserveMs": 4000},
    });
    let (status, v) =
        tokio::task::spawn_blocking(move || http(owner, "POST", "/api/rooms", Some(body)))
            .await
            .unwrap();
    assert_eq!(status, 201, "{v}");
    let room = v["roomId"].as_str().unwrap().to_string();
    let mut a = Player::new("clka", &room, c.nodes[0].addr, &c.table);
    let mut b = Player::new("clkb", &room, c.nodes[1].addr, &c.table);
    a.connect().await;
    b.connect().await;
    for p in [&mut a, &mut b] {
        let r = p.call(json!({"type": "ready"})).await;
        assert_ne!(r["type"], "error", "{r}");
    }
    let st = room_state(&c.table, &room).await;
    let run = &st["clock"]["running"];
    assert_eq!(run["seat"], "a", "{st}");
    let since = run["since"].as_u64().unwrap();
    // White rolls 1.5 s into his period: the room's last input.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let sent = now_ms();
    let r = a.call(json!({"type": "rollDice"})).await;
    let answered = now_ms();
    assert_eq!(r["event"]["type"], "diceRolled", "{r}");
    // Half a second later the owner dies.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let killed = now_ms();
    c.down(2);
    c.nodes[2].kill9();
    // A new owner takes the room over and resumes the clock.
    let deadline = Instant::now() + Duration::from_secs(20);
    let st = loop {
        let st = room_state(&c.table, &room).await;
        if st["clock"]["running"]["since"]
            .as_u64()
            .is_some_and(|s| s > killed)
        {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "no takeover: {st}; logs: {}",
            c.logs()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let run = &st["clock"]["running"];
    let resumed = run["since"].as_u64().unwrap();
    let spent = run["spentMs"].as_u64().unwrap();
    let left = run["deadline"].as_u64().unwrap() - resumed;
    println!(
        "clock through kill -9: {spent} ms used at the roll, {} ms of death and takeover not charged, {left} ms left",
        resumed - answered
    );
    assert_eq!(run["seat"], "a", "{st}");
    // What he had used at his roll, no more: the snapshot's figure.
    assert!(
        spent >= sent - since && spent <= answered - since,
        "used {spent} ms, the roll was {}..{} ms into the period",
        sent - since,
        answered - since
    );
    assert_eq!(left, 8000 - spent, "{run}");
    assert!(resumed - answered >= 500, "the dead time is real");
    // The timeout fires on the new owner, not before the remaining time.
    let end = loop {
        let st = room_state(&c.table, &room).await;
        if st["phase"] == "finished" {
            break now_ms();
        }
        assert!(
            Instant::now() < deadline + Duration::from_secs(10),
            "no timeout: {st}; logs: {}",
            c.logs()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let st = room_state(&c.table, &room).await;
    assert_eq!(st["lastResult"]["reason"], "timeout", "{st}");
    assert_eq!(st["lastResult"]["winner"], "b", "{st}");
    assert!(
        end + 50 >= resumed + left,
        "the timeout came {} ms early",
        (resumed + left) - end
    );
    let addr = common::cluster::live(&c.table)[0];
    let recs = common::records(addr, &room).await;
    let rec = &recs[0];
    // The whole 8 s, charged: 1.5 s before the death, the rest after.
    let used = rec.clock.as_ref().unwrap().turns[0].used_ms;
    assert!((8000..8300).contains(&used), "{used}");
    tabula_room::verify(rec).expect("the record verifies");
}

/// A game's record is saved to the backplane just after its players are
/// told it ended; until it is there (or if saving it failed), the records
/// route serves the game from the room's own log, so a client that asks on
/// `game_over` finds it.
#[tokio::test]
async fn a_finished_game_is_listed_in_the_records_before_its_record_is_saved() {
    let _one = common::one().await;
    let dir = scratch("records-log");
    let redis = Redis::start("records-log", false);
    let node = NodeSpec::new("rlog-n1", &redis.url(), "rlog", &dir).start();
    let (_, _, room) = resigned_game(node.addr, "rlog").await;
    let key = format!("rlog:room:{{{room}}}:records");
    let cli = |args: &[&str]| {
        let out = Command::new("redis-cli")
            .args(["-p", &redis.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli is installed");
        assert!(out.status.success(), "redis-cli {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // Once the saved record is there, take it away: as if not saved yet.
    let deadline = Instant::now() + Duration::from_secs(10);
    while cli(&["EXISTS", &key]) != "1" {
        assert!(Instant::now() < deadline, "the record was never saved");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(cli(&["DEL", &key]), "1");
    let recs = common::records(node.addr, &room).await;
    assert_eq!(recs.len(), 1, "{recs:?}");
    let v = tabula_room::verify(&recs[0]).expect("the record verifies");
    assert_eq!(v.result.reason, tabula_room::EndReason::Resigned);
}

/// A guest's game against the computer on `node`, ended at once by his
/// resignation; his session token and the room.
async fn resigned_game(node: SocketAddr, tag: &str) -> (String, String, String) {
    let room = common::create_room(
        node,
        json!({"game": "long_nardy", "bot": {"level": "easy"}}),
    )
    .await;
    let mut c = common::Client::connect(node, tag).await;
    c.join(&room).await;
    let r = c.call(json!({"type": "ready"})).await;
    assert_ne!(r["type"], "error", "{tag}: {r}");
    // The bot presses Ready on its own time: resign once the game is on.
    let mut r = c.call(json!({"type": "resign"})).await;
    for _ in 0..100 {
        if r["code"] != "game_not_started" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        r = c.call(json!({"type": "resign"})).await;
    }
    assert_ne!(r["type"], "error", "{tag}: {r}");
    (c.token.clone().unwrap(), c.player.clone(), room)
}

/// A rated game between two guests on `node`, resigned by the second once
/// it is on; the room's id.
async fn rated_game(node: SocketAddr, tag: &str) -> String {
    let room = common::create_room(node, json!({"game": "long_nardy", "rated": true})).await;
    let mut a = common::Client::connect(node, &format!("{tag}-a")).await;
    let mut b = common::Client::connect(node, &format!("{tag}-b")).await;
    assert_eq!(a.join(&room).await["yourSeat"], "a");
    assert_eq!(b.join(&room).await["yourSeat"], "b");
    common::both_ready(&mut a, &mut b).await;
    let mut r = b.call(json!({"type": "resign"})).await;
    for _ in 0..100 {
        if r["code"] != "game_not_started" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        r = b.call(json!({"type": "resign"})).await;
    }
    assert_ne!(r["type"], "error", "{tag}: {r}");
    room
}

/// A metric's value in a node's `/metrics` (0 when absent).
fn metric(node: SocketAddr, name: &str) -> f64 {
    let (_, body) = http(node, "GET", "/metrics", None);
    body.as_str()
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// A GET's status, its `Retry-After` header and its JSON body.
fn get_with_retry_after(node: SocketAddr, path: &str) -> (u16, Option<String>, Value) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(node).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {node}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    let retry = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("retry-after")
            .then(|| v.trim().to_string())
    });
    let body = serde_json::from_str(body).unwrap_or(Value::String(body.to_string()));
    (status, retry, body)
}

/// Issue 47: while PostgreSQL is stopped, games go on and end (they wait
/// in the shared queue); the store's routes answer 503
/// `store_unavailable` with `Retry-After`; a node started meanwhile (it
/// has never reached the store) reports the shared backlog; once the
/// store is back every game is archived once, and as soon as the queue is
/// empty every node says so.
#[tokio::test]
async fn games_finished_while_postgresql_is_stopped_are_archived_once_when_it_is_back() {
    let _one = common::one().await;
    let dir = common::cluster::scratch("archive-pg");
    let redis = Redis::start("archive-pg", false);
    let pg = tabula_store::testing::PgServer::start().expect("a PostgreSQL of the test's own");
    let url = pg.create_database("tabula").unwrap();
    let spec = |i: usize| {
        let mut n = NodeSpec::new(&format!("apg-n{i}"), &redis.url(), "apg", &dir);
        n.env = vec![
            ("TABULA__STORE__URL".into(), url.clone()),
            ("TABULA__STORE__ARCHIVE_INTERVAL_MS".into(), "200".into()),
            ("TABULA__STORE__ACQUIRE_TIMEOUT_MS".into(), "500".into()),
        ];
        n
    };
    let nodes: Vec<Node> = (1..=2)
        .map(|i| {
            let mut n = NodeSpec::new(&format!("apg-n{i}"), &redis.url(), "apg", &dir);
            n.env = vec![
                ("TABULA__STORE__URL".into(), url.clone()),
                ("TABULA__STORE__ARCHIVE_INTERVAL_MS".into(), "200".into()),
                ("TABULA__STORE__ACQUIRE_TIMEOUT_MS".into(), "500".into()),
                // Rooms are unloaded and forgotten while the database is
                // down: their games must wait in the queue all the same.
                ("TABULA__ROOMS__UNLOAD_AFTER_MS".into(), "1000".into()),
                ("TABULA__ROOMS__FORGET_AFTER_MS".into(), "1000".into()),
                (
                    "TABULA__ROOMS__PAUSED_FORGET_AFTER_MS".into(),
                    "1000".into(),
                ),
            ];
            n.start()
        })
        .collect();
    let addrs: Vec<SocketAddr> = nodes.iter().map(|n| n.addr).collect();
    let mut games = Vec::new();
    for i in 0..4 {
        games.push(resigned_game(addrs[i % 2], &format!("before-{i}")).await);
    }
    pg.stop().unwrap();
    // Games go on: each ends, and waits in the queue.
    let started = Instant::now();
    for i in 0..6 {
        games.push(resigned_game(addrs[i % 2], &format!("during-{i}")).await);
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "rooms were held up: {:?}",
        started.elapsed()
    );
    // Long enough for every room to be unloaded and forgotten.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let backlog = metric(addrs[0], "tabula_archive_backlog_games")
        .max(metric(addrs[1], "tabula_archive_backlog_games"));
    assert!(backlog >= 6.0, "the six games wait in the queue: {backlog}");
    assert!(metric(addrs[0], "tabula_archive_lag_seconds") > 1.0);
    // Every node reports the shared queue, each the same figure.
    for a in &addrs {
        assert!(
            metric(*a, "tabula_archive_backlog_games") >= 6.0,
            "a node's own stale figure instead of the shared backlog"
        );
    }
    // A node started now has never reached the store: it reports the
    // shared backlog all the same.
    let late = spec(3).start();
    let late_backlog = metric(late.addr, "tabula_archive_backlog_games");
    assert!(
        late_backlog >= 6.0,
        "a node started while the store is down reports {late_backlog}"
    );
    // The store's routes answer 503 store_unavailable with Retry-After,
    // on a node that reached the store before and on the new one.
    let (token, player, room) = games[0].clone();
    for node in [addrs[0], late.addr] {
        for path in [
            format!("/api/me/history?token={token}"),
            format!("/api/me/profile?token={token}"),
            "/api/leaderboards/long_nardy".to_string(),
            format!("/api/games/{room}/1"),
        ] {
            let (status, retry, v) = get_with_retry_after(node, &path);
            assert_eq!(status, 503, "{path} of {player}: {v}");
            assert_eq!(v["error"]["code"], "store_unavailable", "{path}: {v}");
            assert_eq!(retry.as_deref(), Some("5"), "{path}: {v}");
        }
    }
    // Games go on meanwhile, on the new node too.
    games.push(resigned_game(late.addr, "during-late").await);
    pg.start_again().unwrap();
    // Every game archived, once, with its player's history.
    let deadline = Instant::now() + Duration::from_secs(30);
    for (token, player, room) in &games {
        loop {
            let (status, v) = common::http_async(
                addrs[0],
                "GET",
                &format!("/api/me/history?token={token}"),
                None,
            )
            .await;
            let got = v["games"].as_array().map(Vec::len).unwrap_or(0);
            if status == 200 && got == 1 {
                assert_eq!(v["games"][0]["room"], room.as_str(), "{player}: {v}");
                break;
            }
            assert!(got <= 1, "{player}: archived twice: {v}");
            assert!(
                Instant::now() < deadline,
                "{player}'s game was not archived: {status} {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let store = tabula_store::Store::connect(&url).await.unwrap();
    for (_, player, room) in &games {
        use tabula_store::Games;
        let page = store
            .history(&tabula_store::HistoryQuery::newest(player.clone(), 10))
            .await
            .unwrap();
        assert_eq!(page.entries.len(), 1, "{player}");
        assert_eq!(page.entries[0].key.room, *room);
        let g = store
            .game(&tabula_store::GameKey::new(room.clone(), 1))
            .await
            .unwrap()
            .unwrap();
        tabula_room::verify(&g.game.record.parse().unwrap()).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while metric(addrs[0], "tabula_archive_backlog_games") > 0.0 {
        assert!(Instant::now() < deadline, "the queue was not emptied");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Empty for one node: empty for every node at once, none showing an
    // old figure.
    for a in addrs.iter().chain([&late.addr]) {
        assert_eq!(metric(*a, "tabula_archive_backlog_games"), 0.0, "{a}");
        assert_eq!(metric(*a, "tabula_archive_lag_seconds"), 0.0, "{a}");
    }
    // One drainer: no game was taken off the queue by two nodes.
    let all = [&nodes[0], &nodes[1], &late];
    let archived: f64 = all.iter().map(|n| n.metric("tabula_archived_total")).sum();
    assert_eq!(archived, games.len() as f64, "a batch stored by two nodes");
    let drainers: f64 = all.iter().map(|n| n.metric("tabula_archive_drainer")).sum();
    assert_eq!(drainers, 1.0);
    drop(late);
    drop(nodes);
}

/// The nodes, alive, that say they drain the archive queue.
fn drainers(nodes: &[Node]) -> Vec<usize> {
    (0..nodes.len())
        .filter(|&i| nodes[i].child.is_some() && nodes[i].metric("tabula_archive_drainer") == 1.0)
        .collect()
}

/// Waits (30 s at most) until each of `games` is the one game in its
/// player's history, as a live node answers.
async fn archived_in_history(nodes: &[Node], games: &[(String, String, String)]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let node = nodes
        .iter()
        .find(|n| n.child.is_some())
        .expect("a live node")
        .addr;
    for (token, player, room) in games {
        loop {
            let (status, v) =
                common::http_async(node, "GET", &format!("/api/me/history?token={token}"), None)
                    .await;
            if status == 200 && v["games"].as_array().map(Vec::len) == Some(1) {
                assert_eq!(v["games"][0]["room"], room.as_str(), "{player}: {v}");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{player}'s game was not archived: {status} {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Issue 47: one node at a time drains the archive queue, so the nodes
/// take disjoint batches (before, every node's archiver stored the same
/// batches: 226 games taken off the queue for 150 on two nodes); when the
/// drainer dies (`kill -9`) another takes over within its lease, and the
/// games that ended meanwhile are archived, each once. Rated games are
/// rated by that one writer (no `conflict`, no `already_applied`), and a
/// drainer stopped by SIGTERM hands the drain over at once.
#[tokio::test]
async fn the_archive_queue_is_drained_by_one_node_and_taken_over_when_it_dies() {
    let _one = common::one().await;
    let dir = common::cluster::scratch("drain");
    let redis = Redis::start("drain", false);
    let pg = tabula_store::testing::PgServer::start().expect("a PostgreSQL of the test's own");
    let url = pg.create_database("tabula").unwrap();
    let mut nodes: Vec<Node> = (1..=3)
        .map(|i| {
            let mut n = NodeSpec::new(&format!("drain-n{i}"), &redis.url(), "drain", &dir);
            n.env = vec![
                ("TABULA__STORE__URL".into(), url.clone()),
                ("TABULA__STORE__ARCHIVE_INTERVAL_MS".into(), "200".into()),
            ];
            n.start()
        })
        .collect();
    let mut games = Vec::new();
    for i in 0..9 {
        games.push(resigned_game(nodes[i % 3].addr, &format!("first-{i}")).await);
    }
    // Rated games on each node: their ratings have one writer too.
    for (i, node) in nodes.iter().enumerate() {
        rated_game(node.addr, &format!("rated-{i}")).await;
    }
    archived_in_history(&nodes, &games).await;
    let ratings = |nodes: &[Node], outcome: &str| -> f64 {
        nodes
            .iter()
            .filter(|n| n.child.is_some())
            .map(|n| {
                n.metric(&format!(
                    "tabula_ratings_applied_total{{outcome=\"{outcome}\"}}"
                ))
            })
            .sum()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while ratings(&nodes, "applied") < 3.0 {
        assert!(Instant::now() < deadline, "the rated games were not rated");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let taken: f64 = nodes
        .iter()
        .map(|n| n.metric("tabula_archived_total"))
        .sum();
    assert_eq!(
        taken, 12.0,
        "games taken off the queue by more than one node"
    );
    // Applied once each, by one writer: no node met another's ratings.
    assert_eq!(ratings(&nodes, "applied"), 3.0);
    for outcome in ["already_applied", "conflict"] {
        assert_eq!(ratings(&nodes, outcome), 0.0, "ratings {outcome}");
    }
    let first = drainers(&nodes);
    assert_eq!(first.len(), 1, "drainers: {first:?}");
    let dead = first[0];
    nodes[dead].kill9();
    let survivors: Vec<usize> = (0..3).filter(|&i| i != dead).collect();
    let stored = |nodes: &[Node]| -> f64 {
        survivors
            .iter()
            .map(|&i| nodes[i].metric("tabula_archived_total{outcome=\"stored\"}"))
            .sum()
    };
    let before = stored(&nodes);
    let t0 = Instant::now();
    let mut later = Vec::new();
    for (k, &i) in survivors.iter().cycle().take(4).enumerate() {
        later.push(resigned_game(nodes[i].addr, &format!("later-{k}")).await);
    }
    archived_in_history(&nodes, &later).await;
    let took = t0.elapsed();
    println!("drainer killed: the games after it archived within {took:?}");
    // The lease (5 intervals, at least 5 s) and a round.
    assert!(took < Duration::from_secs(15), "{took:?}");
    let next = drainers(&nodes);
    assert_eq!(next.len(), 1, "drainers after the kill: {next:?}");
    assert_ne!(next[0], dead);
    // The later games stored once each. The dead node's rooms, taken over,
    // queue their finished games again (the old owner may have died
    // before queuing them): those come off as `already_stored`.
    assert_eq!(
        stored(&nodes) - before,
        4.0,
        "the later games, each stored once"
    );
    let again: f64 = survivors
        .iter()
        .map(|&i| nodes[i].metric("tabula_archived_total{outcome=\"already_stored\"}"))
        .sum();
    println!("queued again by the takeover of the dead node's rooms: {again}");
    assert!(
        again <= 3.0,
        "more than the dead node's 3 games again: {again}"
    );
    // A drainer stopped as a deploy stops it (SIGTERM) gives the lease up
    // as it stops: the last node drains at once, not a lease later.
    let stopping = next[0];
    let last = survivors.iter().copied().find(|&i| i != stopping).unwrap();
    signal(nodes[stopping].pid(), "-TERM");
    let status = nodes[stopping].terminate_wait();
    assert!(status.success(), "drained node exit: {status:?}");
    let t0 = Instant::now();
    let after = vec![resigned_game(nodes[last].addr, "after-term").await];
    archived_in_history(&nodes, &after).await;
    let took = t0.elapsed();
    println!("drainer stopped by SIGTERM: the next game archived within {took:?}");
    // Before the release on shutdown this waited out the 5 s lease.
    assert!(
        took < Duration::from_secs(3),
        "the lease was not handed over at the stop: {took:?}"
    );
    assert_eq!(drainers(&nodes), vec![last]);
    drop(nodes);
}

/// What a socket receives until `done` holds for a message or `limit`
/// passes: the messages, and the longest silence between two (or before
/// the first).
async fn heard_until(
    c: &mut common::Client,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> (Vec<Value>, Duration, Option<Value>) {
    let start = Instant::now();
    let (mut got, mut last, mut worst) = (Vec::new(), start, Duration::ZERO);
    while start.elapsed() < limit {
        let Some(m) = c.try_recv(limit.saturating_sub(start.elapsed())).await else {
            break;
        };
        worst = worst.max(last.elapsed());
        last = Instant::now();
        if done(&m) {
            return (got, worst, Some(m));
        }
        got.push(m);
    }
    (got, worst.max(last.elapsed()), None)
}

/// Issue 45: a `join` of a room whose owner was just killed is never
/// silent, whatever the lease (6 s here, twice the docs' 3 s silence
/// bound): `pending` for it within about a second, and every second, until
/// the new owner's `state`. Before, nothing came until the lease ran out,
/// and a client written from the docs dropped its healthy socket.
#[tokio::test]
async fn a_join_of_a_room_whose_owner_just_died_is_never_silent_whatever_the_lease() {
    let _one = common::one().await;
    let mut c = Cluster::start_env("pendjoin", false, &[("TABULA__REDIS__LEASE_MS", "6000")]);
    let owner = c.nodes[2].addr;
    let room = common::create_room(owner, json!({"game": "long_nardy"})).await;
    let mut a = common::Client::connect(owner, "a").await;
    assert_eq!(a.join(&room).await["type"], "state");
    c.down(2);
    c.nodes[2].kill9();
    let mut b = common::Client::connect(c.nodes[0].addr, "b").await;
    let t0 = Instant::now();
    let seq = b.send(json!({"type": "join", "room": room})).await;
    let (before, worst, state) =
        heard_until(&mut b, Duration::from_secs(15), |m| m["type"] == "state").await;
    let took = t0.elapsed();
    println!(
        "join of a room whose owner died (lease 6 s): state after {took:?}, {} pending, \
         longest silence {worst:?}",
        before.len()
    );
    assert!(
        state.is_some(),
        "no state after {took:?}: {before:?}; logs: {}",
        c.logs()
    );
    assert!(
        before
            .iter()
            .all(|m| m["type"] == "pending" && m["for"] == json!(seq)),
        "{before:?}"
    );
    assert!(
        took > Duration::from_secs(3),
        "taken over before the lease ran out? {took:?}"
    );
    assert!(before.len() >= 3, "{before:?}");
    assert!(worst < Duration::from_millis(1600), "silent for {worst:?}");
}

/// Issue 45: a command in flight when the store stops answering is
/// answered `unavailable` (or said `pending`) within the silence bound;
/// resent with the same `seq` after the store is back it is applied once.
/// Before, the command got no answer at all until the store returned.
#[tokio::test]
async fn a_command_in_flight_when_the_store_stops_is_answered_promptly() {
    let _one = common::one().await;
    let c = Cluster::start("pendstore", false);
    let owner = c.nodes[0].addr;
    let room = common::create_room(owner, json!({"game": "long_nardy"})).await;
    let mut a = common::Client::connect(owner, "a").await;
    assert_eq!(a.join(&room).await["type"], "state");
    let pid = c.redis.child.as_ref().unwrap().id();
    signal(pid, "-STOP");
    let seq = a
        .send(json!({"type": "chat", "text": "are you there?"}))
        .await;
    let (before, worst, answer) = heard_until(&mut a, Duration::from_secs(3), |m| {
        m["seq"] == json!(seq) || m["for"] == json!(seq)
    })
    .await;
    signal(pid, "-CONT");
    let answer = answer.unwrap_or_else(|| panic!("silent for {worst:?}: {before:?}"));
    println!("a command in flight as Redis stopped: {answer} after {worst:?}");
    assert!(
        (answer["type"] == "error" && answer["code"] == "unavailable")
            || answer["type"] == "pending",
        "{answer}"
    );
    assert!(worst < Duration::from_millis(1600), "silent for {worst:?}");
    // Resent with the same seq until it is applied: once.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let again = json!({"type": "chat", "text": "are you there?", "seq": seq});
        a.send_raw(Message::text(again.to_string())).await;
        let r = a.until(|m| m["seq"] == json!(seq)).await;
        if r["type"] != "error" {
            break;
        }
        assert_eq!(r["code"], "unavailable", "{r}");
        assert!(Instant::now() < deadline, "still {r}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let st = room_state(&c.table, &room).await;
    let lines = st["chat"].as_array().map_or(0, |c| {
        c.iter().filter(|l| l["text"] == "are you there?").count()
    });
    assert_eq!(lines, 1, "{st}");
}

/// Issue 45 (item 4): a drain is no disconnection. The node a player's
/// socket is on drains (SIGTERM) while his room is owned elsewhere: he
/// reconnects, and neither he nor his opponent ever sees
/// `playerDisconnected` (before, the opponent saw it, and
/// `playerReconnected` 28 ms later, on every rolling deploy).
#[tokio::test]
async fn a_drained_front_shows_nobody_a_disconnection() {
    let _one = common::one().await;
    let mut c = Cluster::start("drainfront", false);
    let (n1, n2, n3) = (c.nodes[0].addr, c.nodes[1].addr, c.nodes[2].addr);
    let mut g = Game::new(n3, [n1, n2], &c.table, "df").await;
    assert!(!g.play(&c.table, Some(6)).await);
    c.down(0);
    signal(c.nodes[0].pid(), "-TERM");
    let status = c.nodes[0].terminate_wait();
    assert!(status.success(), "drained node exit: {status:?}");
    assert!(g.play(&c.table, None).await);
    for p in &g.players {
        assert!(
            !p.saw_disconnected,
            "{} saw playerDisconnected; logs: {}",
            p.name,
            c.logs()
        );
    }
    g.check_record(&c.table).await;
}
