//! The Helm chart's drain, on real processes, with the settings the chart
//! renders by default.
//!
//! `helm/tabula/values.yaml` is read (no Helm needed): the node's whole
//! `config` section becomes the config file the chart would render, and
//! `terminationGracePeriodSeconds` is computed the way the chart's template
//! computes it (`scripts/test-helm` checks the rendered Deployment against
//! the same sum). Then, as Kubernetes stops a pod in a rolling update:
//!
//! 1. two nodes and our own `redis-server`; every room is owned by the node
//!    that will be stopped, and one player of each game is connected to it;
//! 2. the pod is marked terminating: it leaves the endpoints (no new
//!    connection reaches it) while the `preStop` pause runs for
//!    `drain.preStopSeconds` and the games go on over the open sockets,
//!    undisturbed;
//! 3. SIGTERM: the node must exit 0 within what is left of the grace period,
//!    its players reconnect to the other node, every game is played to its
//!    end there, and each stored record holds exactly the moves the players
//!    saw acknowledged.

// The measured pause is this test's report.
#![allow(clippy::print_stdout)]

use tabula_tests as common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::cluster::{Game, Nodes, Redis, free_port, scratch};
use common::http;

const VALUES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../helm/tabula/values.yaml");

/// `key: value` leaves of a YAML file made of nested maps, as values.yaml
/// is: (path, scalar). List items and their fields are skipped.
fn yaml_leaves(text: &str) -> Vec<(Vec<String>, String)> {
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut out = Vec::new();
    let mut list_indent: Option<usize> = None;
    for line in text.lines() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        if let Some(i) = list_indent {
            if indent > i || (indent == i && body.starts_with('-')) {
                continue;
            }
            list_indent = None;
        }
        if body.starts_with('-') {
            list_indent = Some(indent);
            continue;
        }
        let Some((key, rest)) = body.split_once(':') else {
            continue;
        };
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let rest = rest.trim();
        let value = if let Some(q) = rest.strip_prefix('"') {
            Some(q.split('"').next().unwrap_or_default().to_string())
        } else {
            Some(
                rest.split(" #")
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            )
            .filter(|v| !v.is_empty())
        };
        match value {
            None => stack.push((indent, key.to_string())),
            Some(value) => {
                let mut path: Vec<String> = stack.iter().map(|(_, k)| k.clone()).collect();
                path.push(key.to_string());
                out.push((path, value));
            }
        }
    }
    out
}

/// What the chart renders by default, from values.yaml.
struct Chart {
    pre_stop_secs: u64,
    margin_secs: u64,
    /// `config.<section>.<key>` → the scalar as written in values.yaml.
    config: Vec<(String, String, String)>,
}

impl Chart {
    fn load() -> Chart {
        let text = std::fs::read_to_string(VALUES).expect("helm/tabula/values.yaml");
        let leaves = yaml_leaves(&text);
        let get = |path: &[&str]| -> String {
            leaves
                .iter()
                .find(|(p, _)| p.iter().map(String::as_str).eq(path.iter().copied()))
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("values.yaml has no {}", path.join(".")))
        };
        let config = leaves
            .iter()
            .filter(|(p, _)| p.len() == 3 && p[0] == "config")
            .map(|(p, v)| (p[1].clone(), p[2].clone(), v.clone()))
            .collect();
        Chart {
            pre_stop_secs: get(&["drain", "preStopSeconds"]).parse().unwrap(),
            margin_secs: get(&["drain", "marginSeconds"]).parse().unwrap(),
            config,
        }
    }

    fn num(&self, section: &str, key: &str) -> u64 {
        self.config
            .iter()
            .find(|(s, k, _)| s == section && k == key)
            .unwrap_or_else(|| panic!("values.yaml has no config.{section}.{key}"))
            .2
            .parse()
            .unwrap()
    }

    /// The chart's `terminationGracePeriodSeconds` (templates/_helpers.tpl).
    fn termination_grace_secs(&self) -> u64 {
        self.pre_stop_secs
            + self.num("cluster", "drain_grace_ms").div_ceil(1000)
            + self.num("server", "shutdown_timeout_secs")
            + self.num("redis", "timeout_ms").div_ceil(1000)
            + self.margin_secs
    }

    /// The node's config file as the chart's ConfigMap renders it: `config`,
    /// plus what the chart sets itself.
    fn toml(&self) -> String {
        let mut sections: Vec<&str> = self.config.iter().map(|(s, _, _)| s.as_str()).collect();
        sections.dedup();
        let mut out = String::new();
        for section in sections {
            out.push_str(&format!("[{section}]\n"));
            for (_, key, value) in self.config.iter().filter(|(s, _, _)| s == section) {
                // A null is derived by the chart (_helpers.tpl): the client
                // address hops are 1 behind its own Ingress or HTTPRoute,
                // which are off by default.
                let value = match (section, key.as_str(), value.as_str()) {
                    ("quotas", "trusted_proxy_hops", "null") => "0",
                    (_, _, "null") => {
                        panic!("config.{section}.{key}: a null this test cannot render")
                    }
                    _ => value.as_str(),
                };
                let v = if value.parse::<i64>().is_ok() || value == "true" || value == "false" {
                    value.to_string()
                } else {
                    serde_json::to_string(value).unwrap()
                };
                out.push_str(&format!("{key} = {v}\n"));
            }
            match section {
                "server" => out.push_str("listen = \"0.0.0.0:8080\"\n"),
                "cluster" => out.push_str("backplane = \"redis\"\n"),
                "redis" => out.push_str("cluster = false\n"),
                _ => {}
            }
            out.push('\n');
        }
        out
    }
}

/// One `tabula-server` process, configured as the chart configures a pod.
struct Node {
    addr: SocketAddr,
    child: Option<Child>,
    log: PathBuf,
}

impl Node {
    fn start(name: &str, dir: &Path, redis: &Redis) -> Node {
        let port = free_port();
        let log = dir.join(format!("{name}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_tabula-node"))
            .current_dir(dir)
            // As the chart's Deployment: the ConfigMap's file, the pod name,
            // the secrets and the Redis address from the environment.
            .env("TABULA_CONFIG_DIR", dir.join("config"))
            .env("TABULA_ENV", "helm")
            .env("TABULA__CLUSTER__NODE_ID", name)
            .env(
                "TABULA__AUTH__SESSION_SECRET",
                "chart-drain-test-secret-0123456789abcdef",
            )
            .env("TABULA__REDIS__URL", redis.url())
            // Only the address differs from a pod's (0.0.0.0:8080 may be
            // taken), and the per-socket rate limit: these players send
            // their moves as fast as the node answers, no person does.
            .env("TABULA__SERVER__LISTEN", format!("127.0.0.1:{port}"))
            .env("TABULA__SERVER__RATE_PER_SEC", "10000")
            .env("TABULA__SERVER__RATE_BURST", "10000")
            .env_remove("RUST_LOG")
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tabula-server");
        // Killed and reaped on drop, whatever happens next.
        let node = Node {
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
            child: Some(child),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !(std::net::TcpStream::connect(node.addr).is_ok()
            && http(node.addr, "GET", "/readyz", None).0 == 200)
        {
            assert!(
                Instant::now() < deadline,
                "{name} did not become ready; see {}",
                node.log.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        node
    }

    fn metric(&self, name: &str) -> f64 {
        let (_, body) = http(self.addr, "GET", "/metrics", None);
        body.as_str()
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn values_yaml_is_read_as_the_chart_reads_it() {
    let _one = common::one_blocking();
    let text = "a:\n  # c\n  b: 5\n  l:\n    - name: x\n      b: 9\n  s: \"q\"\n  e: \"\"\nc:\n  d: e # note\n";
    let got = yaml_leaves(text);
    let want = [
        (vec!["a", "b"], "5"),
        (vec!["a", "s"], "q"),
        (vec!["a", "e"], ""),
        (vec!["c", "d"], "e"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((p, v), (wp, wv)) in got.iter().zip(want) {
        assert!(p.iter().map(String::as_str).eq(wp), "{got:?}");
        assert_eq!(v, wv);
    }
    let chart = Chart::load();
    // The grace period covers the preStop pause and the node's whole drain.
    assert!(
        chart.termination_grace_secs()
            > chart.pre_stop_secs
                + chart.num("cluster", "drain_grace_ms") / 1000
                + chart.num("server", "shutdown_timeout_secs")
    );
    // Every key rendered is one the node knows.
    let defaults = tabula_server::settings::DEFAULT_TOML;
    for (section, key, _) in &chart.config {
        let in_section = defaults
            .split(&format!("\n[{section}]\n"))
            .nth(1)
            .and_then(|s| s.split("\n[").next())
            .unwrap_or_else(|| panic!("config/default.toml has no [{section}]"));
        assert!(
            in_section
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{key} ="))),
            "config.{section}.{key} is not a key of config/default.toml"
        );
    }
}

#[tokio::test]
async fn a_node_stopped_as_the_chart_stops_it_loses_no_game() {
    let _one = common::one().await;
    let chart = Chart::load();
    let grace = Duration::from_secs(chart.termination_grace_secs());
    let pre_stop = Duration::from_secs(chart.pre_stop_secs);
    let dir = scratch("chart-drain");
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::write(dir.join("config/helm.toml"), chart.toml()).unwrap();
    let redis = Redis::start("chart-drain-redis", false);
    let stay = Node::start("stay", &dir, &redis);
    let mut leave = Node::start("leave", &dir, &redis);
    // The Service's endpoints: where a new connection may land.
    let endpoints: Nodes = Arc::new(Mutex::new(vec![(stay.addr, true), (leave.addr, true)]));
    let logs = format!("{}, {}", stay.log.display(), leave.log.display());

    // Rooms owned by the node to be stopped; one player of each game on it.
    const GAMES: usize = 4;
    let mut games = Vec::new();
    for g in 0..GAMES {
        let homes = [stay.addr, leave.addr];
        games.push(Game::new(leave.addr, homes, &endpoints, &format!("g{g}")).await);
    }
    for g in &mut games {
        assert!(
            !g.play(&endpoints, Some(6)).await,
            "game {} ended early",
            g.room
        );
    }
    let games: Vec<Arc<tokio::sync::Mutex<Game>>> = games
        .into_iter()
        .map(|g| Arc::new(tokio::sync::Mutex::new(g)))
        .collect();

    // The pod is deleted: it leaves the endpoints, and the preStop pause
    // runs while the games go on over the open sockets (a move every 100 ms
    // in every game).
    for (addr, up) in endpoints.lock().unwrap().iter_mut() {
        *up = *addr != leave.addr;
    }
    let terminating = Instant::now();
    let mut tasks = Vec::new();
    for g in &games {
        let (g, ep) = (g.clone(), endpoints.clone());
        tasks.push(tokio::spawn(async move {
            let mut g = g.lock().await;
            let mut steps = 0;
            while terminating.elapsed() < pre_stop {
                if g.play(&ep, Some(1)).await {
                    break;
                }
                steps += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            steps
        }));
    }
    let mut during = 0;
    for t in tasks {
        during += t.await.unwrap();
    }
    for g in &games {
        let g = g.lock().await;
        for p in &g.players {
            assert_eq!(
                p.reconnects, 0,
                "{}: disturbed during the preStop pause; logs: {logs}",
                p.name
            );
        }
    }
    assert!(
        during >= GAMES * 5,
        "only {during} moves during the preStop pause"
    );

    // preStop done: SIGTERM. Play on while the node drains.
    let pid = leave.child.as_ref().unwrap().id();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let signalled = Instant::now();
    let mut tasks = Vec::new();
    for g in &games {
        let (g, ep) = (g.clone(), endpoints.clone());
        tasks.push(tokio::spawn(async move {
            let mut g = g.lock().await;
            for p in &mut g.players {
                p.worst = (Duration::ZERO, None);
            }
            assert!(g.play(&ep, None).await, "game {} did not end", g.room);
            g.check_record(&ep).await;
        }));
    }
    let mut child = leave.child.take().unwrap();
    let left = grace - pre_stop;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            signalled.elapsed() < left,
            "the node did not exit within terminationGracePeriodSeconds ({grace:?}, {left:?} after preStop); logs: {logs}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let drained = signalled.elapsed();
    assert!(
        status.success(),
        "drained node exit: {status:?}; logs: {logs}"
    );
    for t in tasks {
        t.await.unwrap();
    }

    // Every player now plays on the node that stayed; those of the stopped
    // node reconnected once or more; nobody waited long.
    let mut worst = Duration::ZERO;
    for g in &games {
        let g = g.lock().await;
        for p in &g.players {
            assert_eq!(p.home, stay.addr, "{} ended elsewhere", p.name);
            worst = worst.max(p.worst.0);
        }
        assert!(
            g.players[1].reconnects >= 1,
            "{} never moved",
            g.players[1].name
        );
    }
    assert!(
        worst < Duration::from_secs(2),
        "a command waited {worst:?} through the drain; logs: {logs}"
    );
    let takeovers = stay.metric("tabula_room_takeovers_total");
    assert!(
        takeovers >= GAMES as f64,
        "{takeovers} takeovers; logs: {logs}"
    );
    println!(
        "chart drain: preStop {pre_stop:?} with {during} moves, SIGTERM to exit {drained:?} \
         (grace {grace:?}); worst command wait after SIGTERM {worst:?}"
    );
    drop(leave);
    drop(stay);
    drop(redis);
    let _ = std::fs::remove_dir_all(&dir);
}
