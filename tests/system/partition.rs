//! Real partitions, not stopped processes: Redis and three `tabula-server`
//! nodes run as hosts in their own network namespaces (`ip netns`, veth
//! pairs on two bridges), and the test cuts one node's links with the
//! kernel while every process keeps running:
//!
//! ```text
//!            backend bridge  10.X.1.0/24  (Redis .100, nodes .1 .2 .3)
//!   [redis]──┤
//!   [n1]─────┤  [n2]──┤  [n3]──┤
//!     │              │         │
//!            front bridge    10.X.2.0/24  (the clients, in the test's own
//!                                          namespace, at .254)
//! ```
//!
//! * **A node cut off from Redis (and its peers) while its clients stay
//!   connected to it**: it stops owning by its lease, finds that it alone
//!   is cut off, closes its sockets with 1012 and answers `/readyz` with
//!   503; its players reconnect (to a node that answers, as a load
//!   balancer's readiness check would pick) and their games go on where
//!   they were. When the link returns, the node serves again.
//! * **A node cut off from its clients but not from Redis**: it keeps
//!   owning its rooms; its players' sockets fall silent, they reconnect
//!   through another node, which routes them to the same owner.
//!
//! Every game must reach its natural end (no disconnection forfeit),
//! nobody may be marked disconnected, and every record must hold exactly
//! the acknowledged moves. Needs root (`ip netns`), as CI has.

// The measured pauses are this test's report.
#![allow(clippy::print_stdout)]

use tabula_tests as common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::cluster::{Game, LEASE_MS, Nodes, cluster_node, scratch};
use common::http;
use futures_util::StreamExt;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

const PORT: u16 = 8080;

fn run(args: &[&str]) {
    let out = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The namespaces, bridges and veths of one scenario; removed on drop.
struct Net {
    /// Name prefix (unique per test process and scenario).
    p: String,
    /// The second octet of the scenario's subnets.
    x: u8,
}

impl Net {
    fn new(tag: &str) -> Net {
        let uid = Command::new("id").arg("-u").output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&uid.stdout).trim(),
            "0",
            "the partition tests build network namespaces and need root (CI runs as root)"
        );
        let pid = std::process::id();
        let net = Net {
            p: format!("tp{}{tag}", pid % 10_000),
            x: 100
                + u8::try_from(pid % 50).unwrap()
                + match tag {
                    "a" => 0,
                    "b" => 50,
                    _ => 100,
                },
        };
        net.teardown();
        let (p, x) = (net.p.clone(), net.x);
        for br in ["b", "f"] {
            run(&["ip", "link", "add", &format!("{p}{br}"), "type", "bridge"]);
            run(&["ip", "link", "set", &format!("{p}{br}"), "up"]);
        }
        run(&[
            "ip",
            "addr",
            "add",
            &format!("10.{x}.2.254/24"),
            "dev",
            &format!("{p}f"),
        ]);
        for (host, last, front) in [
            ("r", 100, false),
            ("1", 1, true),
            ("2", 2, true),
            ("3", 3, true),
        ] {
            let ns = net.ns(host);
            run(&["ip", "netns", "add", &ns]);
            run(&["ip", "-n", &ns, "link", "set", "lo", "up"]);
            let mut links = vec![("b", "bk", 1)];
            if front {
                links.push(("f", "fr", 2));
            }
            for (br, inside, net_no) in links {
                let outside = format!("{p}{br}{host}");
                run(&[
                    "ip", "link", "add", &outside, "type", "veth", "peer", "name", inside, "netns",
                    &ns,
                ]);
                run(&["ip", "link", "set", &outside, "master", &format!("{p}{br}")]);
                run(&["ip", "link", "set", &outside, "up"]);
                run(&[
                    "ip",
                    "-n",
                    &ns,
                    "addr",
                    "add",
                    &format!("10.{x}.{net_no}.{last}/24"),
                    "dev",
                    inside,
                ]);
                run(&["ip", "-n", &ns, "link", "set", inside, "up"]);
            }
        }
        // Bridged frames must not go through the host's iptables.
        let _ = std::fs::write("/proc/sys/net/bridge/bridge-nf-call-iptables", "0");
        net
    }

    fn ns(&self, host: &str) -> String {
        format!("{}{host}", self.p)
    }

    fn backend(&self, last: u8) -> String {
        format!("10.{}.1.{last}", self.x)
    }

    fn front(&self, i: usize) -> SocketAddr {
        format!("10.{}.2.{}:{PORT}", self.x, i + 1).parse().unwrap()
    }

    /// Takes link `inside` (`bk`: backend, `fr`: front) of node `i` down or up.
    fn link(&self, i: usize, inside: &str, up: bool) {
        self.host_link(&(i + 1).to_string(), inside, up);
    }

    /// Takes Redis's only link down or up: an outage every node shares.
    fn redis_link(&self, up: bool) {
        self.host_link("r", "bk", up);
    }

    fn host_link(&self, host: &str, inside: &str, up: bool) {
        run(&[
            "ip",
            "-n",
            &self.ns(host),
            "link",
            "set",
            inside,
            if up { "up" } else { "down" },
        ]);
    }

    fn teardown(&self) {
        for host in ["r", "1", "2", "3"] {
            let _ = Command::new("ip")
                .args(["netns", "del", &self.ns(host)])
                .output();
        }
        for br in ["b", "f"] {
            let _ = Command::new("ip")
                .args(["link", "del", &format!("{}{br}", self.p)])
                .output();
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        self.teardown();
    }
}

/// A process in a namespace, killed on drop.
struct Proc {
    child: Child,
    log: PathBuf,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Redis and three nodes on `net`, with the waiting tests' short graces
/// (a takeover grace of 1.5 s, a forfeit 2 s later), so that a player the
/// cluster failed to re-attach would be marked disconnected, and lose,
/// within the test.
struct Cluster {
    net: Net,
    _redis: Proc,
    nodes: Vec<Proc>,
    table: Nodes,
    dir: PathBuf,
}

impl Cluster {
    fn start(tag: &str) -> Cluster {
        let net = Net::new(tag);
        let dir = scratch(&format!("partition-{tag}"));
        let redis = Proc {
            child: Command::new("ip")
                .args(["netns", "exec", &net.ns("r"), "redis-server"])
                .args(["--bind", &net.backend(100), "--port", "6379"])
                .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
                .arg("--dir")
                .arg(&dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server is installed"),
            log: dir.join("redis.log"),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let out = Command::new("ip")
                .args(["netns", "exec", &net.ns("r"), "redis-cli"])
                .args(["-h", &net.backend(100), "ping"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout).contains("PONG") {
                break;
            }
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        let peers: Vec<String> = (1..=3)
            .map(|i| format!("{}:{PORT}", net.backend(i)))
            .collect();
        let peers = peers.join(",");
        let redis_url = format!("redis://{}:6379", net.backend(100));
        let nodes: Vec<Proc> = (1..=3)
            .map(|i| {
                let log = dir.join(format!("n{i}.log"));
                let mut cmd = Command::new("ip");
                cmd.args(["netns", "exec", &net.ns(&i.to_string())])
                    .arg(env!("CARGO_BIN_EXE_tabula-node"));
                let listen = format!("0.0.0.0:{PORT}");
                let child = cluster_node(&mut cmd, &format!("n{i}"), &listen, &redis_url)
                    .env("TABULA__CLUSTER__TAKEOVER_GRACE_MS", "1500")
                    .env("TABULA__CLUSTER__PEERS", &peers)
                    .env("TABULA__ROOMS__GRACE_MS", "2000")
                    .stdout(std::fs::File::create(&log).unwrap())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("start tabula-server");
                Proc { child, log }
            })
            .collect();
        let table: Nodes = Arc::new(std::sync::Mutex::new(
            (0..3).map(|i| (net.front(i), true)).collect(),
        ));
        let c = Cluster {
            net,
            _redis: redis,
            nodes,
            table,
            dir,
        };
        for i in 0..3 {
            c.wait_ready(i, true, Duration::from_secs(20));
        }
        c
    }

    fn ready(&self, i: usize) -> bool {
        let addr = self.net.front(i);
        std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(300)).is_ok()
            && http(addr, "GET", "/readyz", None).0 == 200
    }

    fn wait_ready(&self, i: usize, want: bool, within: Duration) {
        let deadline = Instant::now() + within;
        while self.ready(i) != want {
            assert!(
                Instant::now() < deadline,
                "node {} /readyz is not {} after {within:?}; logs: {}",
                i + 1,
                if want { "200" } else { "503" },
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn up(&self, i: usize, up: bool) {
        self.table.lock().unwrap()[i].1 = up;
    }

    fn logs(&self) -> String {
        self.nodes
            .iter()
            .map(|n| n.log.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.nodes.clear();
        if !std::thread::panicking() && std::env::var_os("TABULA_TEST_VERBOSE").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Messages until `until`, each with when it arrived; `true` if the socket
/// was closed (a close frame or its end).
async fn listen(ws: &mut common::Ws, until: Instant) -> (Vec<(Instant, Value)>, Option<Instant>) {
    let mut got = Vec::new();
    loop {
        match tokio::time::timeout_at(until.into(), ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                got.push((Instant::now(), serde_json::from_str(&t).unwrap()));
            }
            Ok(Some(Ok(Message::Close(_)))) | Ok(Some(Err(_))) | Ok(None) => {
                return (got, Some(Instant::now()));
            }
            Ok(Some(Ok(_))) => {}
            Err(_) => return (got, None),
        }
    }
}

/// Asserts what every scenario promises of a finished game: a natural end,
/// the exact record, every client told, nobody marked disconnected, and
/// no socket dropped for its silence but on the nodes in `silent` (those
/// whose clients the fault cut off).
async fn finish(c: &Cluster, all: &mut [Game], silent: &[std::net::SocketAddr]) {
    for g in all.iter_mut() {
        assert!(g.play(&c.table, None).await, "logs: {}", c.logs());
        g.check_record(&c.table).await;
        let st = common::cluster::room_state(&c.table, &g.room).await;
        assert!(
            !st.to_string().contains("\"disconnected\""),
            "room {} ended by a disconnect: {st}; logs: {}",
            g.room,
            c.logs()
        );
        for p in &mut g.players {
            p.assert_told_the_end_and_nobody_left(&c.logs()).await;
        }
        common::cluster::assert_no_healthy_socket_dropped(&g.players, silent, silent, &c.logs());
    }
}

/// Four games, their players on nodes 1 and 2; two rooms owned by node 1
/// (its players are the rooms' local sockets), two by node 3 (they are
/// linked through node 1). Each has played a few commands.
async fn games(c: &Cluster) -> Vec<Game> {
    let homes = [c.net.front(0), c.net.front(1)];
    let mut all = Vec::new();
    for g in 0..4 {
        let owner = c.net.front(if g < 2 { 0 } else { 2 });
        let mut game = Game::new(owner, homes, &c.table, &format!("p{g}")).await;
        game.play(&c.table, Some(6 + g)).await;
        all.push(game);
    }
    all
}

#[tokio::test]
async fn a_node_cut_off_from_redis_sends_its_players_elsewhere_and_rejoins_when_the_link_returns() {
    let _one = common::one().await;
    let c = Cluster::start("a");
    let mut all = games(&c).await;
    // Node 1 loses its backend link: Redis and its peers are gone for it,
    // its clients are not.
    let cut = Instant::now();
    c.net.link(0, "bk", false);
    let lease = Duration::from_millis(LEASE_MS);
    // Every player on node 1 is told to reconnect (1012 after a
    // `shutting_down` error) within the lease and a second, whether or not
    // he has anything pending; the others hear nothing bad.
    let mut told = Duration::ZERO;
    for g in &mut all {
        for (i, p) in g.players.iter_mut().enumerate() {
            let mut ws = p.ws.take().expect("connected");
            if i == 0 {
                let (got, closed) = listen(&mut ws, cut + lease + Duration::from_secs(3)).await;
                let closed = closed.unwrap_or_else(|| {
                    panic!(
                        "{} on the cut node was never told: {got:?}; logs: {}",
                        p.name,
                        c.logs()
                    )
                });
                assert!(
                    got.iter().any(|(_, v)| v["code"] == "shutting_down"),
                    "{}: {got:?}",
                    p.name
                );
                told = told.max(closed.duration_since(cut));
            } else {
                p.ws = Some(ws);
            }
        }
    }
    println!("cut off from Redis: its players told to reconnect after at most {told:?}");
    assert!(
        told <= lease + Duration::from_secs(1),
        "the cut-off node told its players after {told:?}; logs: {}",
        c.logs()
    );
    // It is no longer ready (a load balancer stops sending it players) and
    // refuses sockets; the players reconnect, as docs/protocol.md says, to
    // any node that takes them, and re-join.
    assert!(!c.ready(0), "a cut-off node answers /readyz with 503");
    c.up(0, false);
    let mut back = Duration::ZERO;
    for g in &mut all {
        let p = &mut g.players[0];
        p.connect().await;
        assert_ne!(p.home, c.net.front(0));
        back = back.max(cut.elapsed());
    }
    println!("cut off from Redis: its players re-joined elsewhere after at most {back:?}");
    assert!(
        back <= lease + Duration::from_secs(1) + Duration::from_millis(500),
        "re-joined after {back:?}; logs: {}",
        c.logs()
    );
    // Whoever is to move moves, and his opponent — who sent nothing since
    // the cut, re-linked by his own node or re-joined through another —
    // receives the move within a second.
    for g in &mut all {
        let st = common::cluster::room_state(&c.table, &g.room).await;
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
        let ws = g.players[waiter].ws.as_mut().expect("connected");
        let (got, _) = listen(ws, sent + Duration::from_secs(3)).await;
        for (_, v) in &got {
            g.players[waiter].saw(v);
        }
        let took = got
            .iter()
            .find(|(_, v)| v["version"].as_u64().is_some_and(|x| x >= version))
            .map(|(t, _)| t.duration_since(sent))
            .unwrap_or_else(|| {
                panic!(
                    "room {}: {} never received his opponent's move; got {got:?}; logs: {}",
                    g.room,
                    g.players[waiter].name,
                    c.logs()
                )
            });
        assert!(
            took < Duration::from_secs(1),
            "room {}: the opponent's move took {took:?}; logs: {}",
            g.room,
            c.logs()
        );
    }
    finish(&c, &mut all, &[]).await;
    // The link returns: the node rejoins and serves whole games again.
    c.net.link(0, "bk", true);
    c.wait_ready(0, true, Duration::from_secs(10));
    c.up(0, true);
    let homes = [c.net.front(0), c.net.front(1)];
    let mut again = vec![Game::new(c.net.front(0), homes, &c.table, "again").await];
    finish(&c, &mut again, &[]).await;
}

#[tokio::test]
async fn a_node_cut_off_from_its_clients_keeps_its_rooms_and_its_players_come_back_through_another()
{
    let _one = common::one().await;
    let c = Cluster::start("b");
    let mut all = games(&c).await;
    for g in &mut all {
        for p in &mut g.players {
            p.worst = (Duration::ZERO, None);
            p.reconnects = 0;
        }
    }
    // Node 1's front link goes: its sockets fall silent (no close, no
    // reset), while it still reaches Redis and keeps owning its rooms. The
    // load balancer's health check no longer reaches it.
    c.net.link(0, "fr", false);
    c.up(0, false);
    // Players on node 1 notice a silent socket (3 s without an answer,
    // docs/protocol.md) and reconnect through node 2 or 3.
    finish(&c, &mut all, &[c.net.front(0)]).await;
    let worst = all
        .iter()
        .flat_map(|g| g.players.iter())
        .map(|p| p.worst.0)
        .max()
        .unwrap_or_default();
    let moved: u32 = all
        .iter()
        .flat_map(|g| g.players.iter())
        .map(|p| p.reconnects)
        .sum();
    // Each of the four players on the cut node reconnected once; nobody
    // else did (finish() checked where each lost socket was).
    assert_eq!(moved, 4, "reconnects: one per player on the cut node");
    // ... because their sockets fell silent (the one fault of the six
    // that silences a socket the node still holds).
    let silent: usize = all
        .iter()
        .flat_map(|g| g.players.iter())
        .map(|p| p.silent_drops.len())
        .sum();
    println!("cut off from its clients: {moved} reconnects, {silent} of them for 3 s of silence");
    assert!(silent >= 1, "nobody noticed the silent sockets");
    println!("cut off from its clients: the longest wait for an answer was {worst:?}");
    assert!(
        worst <= Duration::from_secs(3) + Duration::from_millis(LEASE_MS) + Duration::from_secs(1),
        "a player waited {worst:?}; logs: {}",
        c.logs()
    );
    c.net.link(0, "fr", true);
    c.wait_ready(0, true, Duration::from_secs(10));
    c.up(0, true);
    let homes = [c.net.front(0), c.net.front(2)];
    let mut again = vec![Game::new(c.net.front(0), homes, &c.table, "again").await];
    finish(&c, &mut again, &[]).await;
}

#[tokio::test]
async fn redis_cut_off_from_every_node_closes_no_socket_and_costs_nobody_his_game() {
    let _one = common::one().await;
    let c = Cluster::start("c");
    let mut all = games(&c).await;
    // Redis's own link goes for three leases: every node is cut off alike.
    // The peers answer that they are as cut off as the asker, so no node
    // closes its sockets: the players wait through the outage on their
    // sockets, and nobody is marked disconnected.
    let outage = Duration::from_millis(3 * LEASE_MS);
    c.net.redis_link(false);
    let cut = Instant::now();
    let mut heard = Vec::new();
    for g in &mut all {
        for p in &mut g.players {
            let mut ws = p.ws.take().expect("connected");
            heard.push(tokio::spawn(async move {
                let got = listen(&mut ws, cut + outage + Duration::from_secs(2)).await;
                (ws, got)
            }));
        }
    }
    tokio::time::sleep_until((cut + outage).into()).await;
    c.net.redis_link(true);
    let mut i = 0;
    for g in &mut all {
        for p in &mut g.players {
            let (ws, (got, closed)) = (&mut heard[i]).await.unwrap();
            i += 1;
            assert!(
                closed.is_none(),
                "{}'s socket was closed in an outage every node shares: {got:?}; logs: {}",
                p.name,
                c.logs()
            );
            for (_, v) in &got {
                p.saw(v);
                assert_ne!(v["type"], "error", "{}: {v}", p.name);
            }
            p.ws = Some(ws);
        }
    }
    for i in 0..3 {
        assert!(c.ready(i), "node {} is ready after the outage", i + 1);
    }
    finish(&c, &mut all, &[]).await;
}
