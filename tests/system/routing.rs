//! Cross-node routing when the node-to-node channel loses messages (Redis
//! pub/sub is at-most-once): two nodes in one process share an in-process
//! backplane that drops every few routed messages. Commands whose answers
//! are lost are resent with their `seq` and applied once; events lost on
//! the way make the front node ask for a full state. Every game still ends,
//! and its record holds exactly the moves the players saw acknowledged.
//!
//! A second wrapper, of the room store only, makes it refuse snapshot
//! writes, as an unreachable Redis does: the room must then hold back what
//! it could not persist and refuse new commands with `unavailable`. Each
//! fake implements only its concern; [`Parts`] takes the rest from the
//! in-process backplane.

use tabula_tests as common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use common::{Client, http_async, next_command, state};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tabula_backplane::{
    Backplane, BackplaneError, InProcess, Inbound, Lease, NodeBus, Parts, RoomAppend, RoomEntry,
    RoomId, RoomStore, StoredRoom,
};
use tabula_server::{Services, Settings};
use tokio::sync::mpsc;

type R<T> = tabula_backplane::Result<T>;

/// An in-process bus whose `send` loses every `every`-th routed command
/// or outbound message.
#[derive(Debug)]
struct LossyBus {
    inner: Arc<InProcess>,
    every: u64,
    count: AtomicU64,
    dropped: Arc<AtomicU64>,
}

impl NodeBus for LossyBus {
    fn node_id(&self) -> &str {
        self.inner.node_id()
    }
    fn lease(&self) -> Duration {
        self.inner.lease()
    }
    fn heartbeat(&self) -> BoxFuture<'_, R<()>> {
        self.inner.heartbeat()
    }
    fn node_alive(&self, node: &str) -> BoxFuture<'_, R<bool>> {
        self.inner.node_alive(node)
    }
    fn leave(&self) -> BoxFuture<'_, R<()>> {
        self.inner.leave()
    }
    fn send(&self, node: &str, message: String) -> BoxFuture<'_, R<()>> {
        let routed = message.contains(r#""t":"out""#) || message.contains(r#""t":"cmd""#);
        if routed && self.count.fetch_add(1, Ordering::Relaxed) % self.every == self.every - 1 {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            // Lost on the way, as pub/sub may lose it: the sender cannot tell.
            return Box::pin(std::future::ready(Ok(())));
        }
        self.inner.send(node, message)
    }
    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>> {
        self.inner.take_inbox()
    }
}

/// An in-process room store whose snapshot writes fail while `down` is
/// set.
#[derive(Debug)]
struct FlakyStore {
    inner: Arc<InProcess>,
    down: Arc<AtomicBool>,
}

impl RoomStore for FlakyStore {
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, R<()>> {
        self.inner.register(entry)
    }
    fn lookup(&self, id: &str) -> BoxFuture<'_, R<Option<RoomEntry>>> {
        self.inner.lookup(id)
    }
    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, R<Option<RoomEntry>>> {
        self.inner.resolve_invite(code)
    }
    fn claim(&self, id: &str) -> BoxFuture<'_, R<Lease>> {
        self.inner.claim(id)
    }
    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, R<()>> {
        self.inner.release(id, epoch, needs_owner)
    }
    fn release_idle(
        &self,
        id: &str,
        epoch: u64,
        keep: Duration,
        wake: Option<u64>,
    ) -> BoxFuture<'_, R<()>> {
        self.inner.release_idle(id, epoch, keep, wake)
    }
    fn owner(&self, id: &str) -> BoxFuture<'_, R<Option<Lease>>> {
        self.inner.owner(id)
    }
    fn orphans(&self) -> BoxFuture<'_, R<Vec<RoomId>>> {
        self.inner.orphans()
    }
    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, R<()>> {
        if self.down.load(Ordering::SeqCst) {
            return Box::pin(std::future::ready(Err(BackplaneError::Unavailable(
                "store down (test)".into(),
            ))));
        }
        self.inner.save_snapshot(id, epoch, room)
    }
    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, R<()>> {
        if self.down.load(Ordering::SeqCst) {
            return Box::pin(std::future::ready(Err(BackplaneError::Unavailable(
                "store down (test)".into(),
            ))));
        }
        self.inner.append_inputs(id, epoch, append)
    }
    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, R<Option<StoredRoom>>> {
        self.inner.load_snapshot(id)
    }
}

fn start(settings: Settings, backplane: Arc<dyn Backplane>) -> common::Node {
    common::start_with(
        settings,
        Services {
            backplane: Some(backplane),
            ..Services::default()
        },
    )
}

/// Sends with a fresh seq and waits for the answer to that seq only.
async fn call(c: &mut Client, cmd: Value) -> Value {
    let seq = c.send(cmd).await;
    c.until(|m| m["seq"] == json!(seq)).await
}

#[tokio::test]
async fn games_routed_over_a_lossy_channel_end_with_every_acknowledged_move_once() {
    let _one = common::one().await;
    let mut settings = common::test_settings();
    settings.cluster.route_timeout_ms = 100;
    let dropped = Arc::new(AtomicU64::new(0));
    let shared = InProcess::new("owner");
    let front = shared.member("front");
    let lossy = |inner: InProcess, every: u64| -> Arc<dyn Backplane> {
        let inner = Arc::new(inner);
        let bus = Arc::new(LossyBus {
            inner: inner.clone(),
            every,
            count: AtomicU64::new(0),
            dropped: dropped.clone(),
        });
        Arc::new(Parts {
            bus,
            ..Parts::of(inner)
        })
    };
    let owner = start(settings.clone(), lossy(shared, 9));
    let front = start(settings, lossy(front, 7));

    // One long nardy game already loses dozens of messages; more games
    // would only add time.
    const GAMES: usize = 1;
    for g in 0..GAMES {
        let (status, v) = http_async(
            owner.addr,
            "POST",
            "/api/rooms",
            Some(json!({"game": "long_nardy"})),
        )
        .await;
        assert_eq!(status, 201, "{v}");
        let room = v["roomId"].as_str().unwrap().to_string();
        // Both players on the front node; the room lives on the owner.
        let mut a = Client::connect(front.addr, &format!("la{g}")).await;
        let mut b = Client::connect(front.addr, &format!("lb{g}")).await;
        for c in [&mut a, &mut b] {
            c.send(json!({"type": "join", "room": room})).await;
            c.until(|m| m["type"] == "state").await;
            assert_ne!(call(c, json!({"type": "ready"})).await["type"], "error");
        }
        let mut moves: [Vec<(Value, Value)>; 2] = [Vec::new(), Vec::new()];
        let mut commands = 0;
        loop {
            let st = state(front.addr, &room).await;
            if st["phase"] == "finished" {
                break;
            }
            assert!(commands < 5000, "the game did not end");
            let Some((seat, cmd)) = next_command(&st) else {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            };
            let i = usize::from(seat == "b");
            let c = if i == 0 { &mut a } else { &mut b };
            let r = call(c, cmd.clone()).await;
            commands += 1;
            if r["type"] == "error" {
                // The state read over HTTP was already stale.
                continue;
            }
            if cmd["type"] == "move" {
                moves[i].push((cmd["from"].clone(), cmd["to"].clone()));
            }
        }
        // The record is stored just after `game_over` goes out.
        let mut recs = Value::Null;
        for _ in 0..50 {
            let (status, r) = http_async(
                front.addr,
                "GET",
                &format!("/api/rooms/{room}/records"),
                None,
            )
            .await;
            assert_eq!(status, 200);
            recs = r;
            if recs.as_array().is_some_and(|a| !a.is_empty()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let actions = recs[0]["actions"].as_array().unwrap();
        for (i, seat) in ["a", "b"].iter().enumerate() {
            let steps: Vec<(Value, Value)> = actions
                .iter()
                .filter(|a| a["type"] == "step" && a["seat"] == *seat)
                .map(|a| (a["from"].clone(), a["to"].clone()))
                .collect();
            assert!(!steps.is_empty());
            assert_eq!(steps, moves[i], "seat {seat}");
        }
    }
    let dropped = dropped.load(Ordering::Relaxed);
    assert!(dropped > 20, "the channel lost only {dropped} messages");
    let metrics = http_async(front.addr, "GET", "/metrics", None).await.1;
    let text = metrics.as_str().unwrap_or_default().to_string();
    let count = |name: &str| -> f64 {
        text.lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    assert!(count("tabula_route_gaps_total") >= 1.0, "{text}");
    assert!(
        count("tabula_routed_commands_total{outcome=\"resent\"}") >= 1.0,
        "{text}"
    );
}

#[tokio::test]
async fn a_room_that_cannot_persist_holds_its_events_and_refuses_new_commands() {
    let _one = common::one().await;
    let down = Arc::new(AtomicBool::new(false));
    let inner = Arc::new(InProcess::new("solo"));
    let store = Arc::new(FlakyStore {
        inner: inner.clone(),
        down: down.clone(),
    });
    let node = start(
        common::test_settings(),
        Arc::new(Parts {
            store,
            ..Parts::of(inner)
        }),
    );
    let (status, v) = http_async(
        node.addr,
        "POST",
        "/api/rooms",
        Some(json!({"game": "long_nardy"})),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let room = v["roomId"].as_str().unwrap().to_string();
    let mut a = Client::connect(node.addr, "keeper").await;
    a.send(json!({"type": "join", "room": room})).await;
    a.until(|m| m["type"] == "state").await;

    down.store(true, Ordering::SeqCst);
    let held = a.send(json!({"type": "chat", "text": "held"})).await;
    // Not persisted, so not acknowledged: answered `unavailable` at once
    // (issue 45: a command is never met with silence), to be resent with
    // the same seq; the room still holds it.
    let early = a.until(|m| m["seq"] == json!(held)).await;
    assert_eq!(early["type"], "error", "{early}");
    assert_eq!(early["code"], "unavailable", "{early}");
    let refused = a.send(json!({"type": "chat", "text": "refused"})).await;
    let r = a.until(|m| m["seq"] == json!(refused)).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["code"], "unavailable", "{r}");

    // The store is back: the held command is written and acknowledged;
    // the refused one never happened.
    down.store(false, Ordering::SeqCst);
    let r = a.until(|m| m["seq"] == json!(held)).await;
    assert_eq!(
        (r["type"].as_str(), r["text"].as_str()),
        (Some("chat"), Some("held")),
        "{r}"
    );
    let ok = call(&mut a, json!({"type": "chat", "text": "after"})).await;
    assert_eq!(ok["type"], "chat", "{ok}");
    assert!(!a.saw(|m| m["type"] == "chat" && m["text"] == "refused"));
}
