//! The Redis backplane against real `redis-server`s (each test starts its
//! own on a free port): the InProcess scenarios, a Redis restart without
//! persistence, and a three-master Redis Cluster.

use std::collections::{BTreeMap, HashSet};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use redis::Commands;
use tabula_backplane::{
    Archive, ArchiveBacklog, BackplaneError, InProcess, Inbound, Lease, Lobby, MAX_UNFINISHED,
    NodeBus, NoticeBacklog, Notices, ProfilePart, RedisBackplane, RedisConfig, Rematch, RoomAppend,
    RoomEntry, RoomStore, Shelf, Shown, StoredProfile, StoredRoom, Ticket, TournamentStore, Window,
    tournament_key, tournament_of,
};
use tabula_room::{GameOptions, PlayerDelta, PlayerId, PlayerResult, Room, RoomConfig, SeatId};
use tokio::sync::mpsc;

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A `redis-server` child process, killed on drop.
struct Server {
    port: u16,
    child: Option<Child>,
    dir: PathBuf,
    cluster: bool,
}

impl Server {
    fn start() -> Server {
        Server::start_on(free_port(), false)
    }

    fn start_on(port: u16, cluster: bool) -> Server {
        let dir = std::env::temp_dir().join(format!("tabula-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut s = Server {
            port,
            child: None,
            dir,
            cluster,
        };
        s.spawn();
        s
    }

    fn spawn(&mut self) {
        let mut cmd = Command::new("redis-server");
        cmd.current_dir(&self.dir)
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if self.cluster {
            cmd.args(["--cluster-enabled", "yes"]).args([
                "--cluster-config-file",
                &format!("nodes-{}.conf", self.port),
            ]);
        }
        self.child = Some(cmd.spawn().expect("redis-server is installed"));
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut c) = self.client().get_connection()
                && redis::cmd("PING").query::<String>(&mut c).is_ok()
            {
                return;
            }
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn client(&self) -> redis::Client {
        redis::Client::open(self.url()).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn config(url: String, lease_ms: u64) -> RedisConfig {
    RedisConfig {
        url,
        timeout_ms: 500,
        lease_ms,
        prefix: "t".into(),
        ..RedisConfig::default()
    }
}

async fn node(s: &Server, id: &str, lease_ms: u64) -> RedisBackplane {
    RedisBackplane::connect(config(s.url(), lease_ms), id)
        .await
        .unwrap()
}

fn entry(id: &str, invite: &str) -> RoomEntry {
    RoomEntry {
        id: id.into(),
        invite: invite.into(),
        options: GameOptions::default(),
        created_ms: 0,
        open: false,
        tournament: None,
    }
}

fn stored(id: &str, invite: &str, version: u64) -> StoredRoom {
    let mut snapshot = Room::new(RoomConfig::default()).snapshot();
    snapshot.version = version;
    StoredRoom {
        entry: entry(id, invite),
        snapshot,
        seqs: BTreeMap::from([("p".to_string(), 7)]),
    }
}

async fn recv(rx: &mut mpsc::UnboundedReceiver<Inbound>) -> Inbound {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("inbox message within 10 s")
        .expect("inbox open")
}

/// The claim / fence / snapshot / orphan scenario, shared by the single
/// instance and the cluster tests. `a` and `b` have a short lease.
async fn ownership_scenario(a: &RedisBackplane, b: &RedisBackplane, room: &str, invite: &str) {
    a.register(entry(room, invite)).await.unwrap();
    let l = a.claim(room).await.unwrap();
    assert_eq!(l.node, "a");
    assert_eq!(a.claim(room).await.unwrap().epoch, l.epoch + 1, "re-claim");
    let l = a.owner(room).await.unwrap().unwrap();
    assert!(matches!(
        b.claim(room).await,
        Err(BackplaneError::Owned { owner, .. }) if owner == "a"
    ));
    assert!(!b.orphans().await.unwrap().contains(&room.to_string()));
    a.save_snapshot(room, l.epoch, stored(room, invite, 5))
        .await
        .unwrap();
    assert!(matches!(
        a.save_snapshot(room, l.epoch, stored(room, invite, 4))
            .await,
        Err(BackplaneError::StaleVersion { version: 4 })
    ));
    // Equal versions are accepted (InProcess semantics).
    a.save_snapshot(room, l.epoch, stored(room, invite, 5))
        .await
        .unwrap();

    // `a` stops beating: its lease expires and the room is an orphan.
    let deadline = Instant::now() + Duration::from_secs(5);
    while b.node_alive("a").await.unwrap() {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    b.heartbeat().await.unwrap();
    assert!(b.orphans().await.unwrap().contains(&room.to_string()));
    let l2 = b.claim(room).await.unwrap();
    assert_eq!((l2.node.as_str(), l2.epoch), ("b", l.epoch + 1));
    assert!(!b.orphans().await.unwrap().contains(&room.to_string()));
    let err = a
        .save_snapshot(room, l.epoch, stored(room, invite, 9))
        .await
        .unwrap_err();
    assert!(err.is_fenced());
    assert!(
        a.release(room, l.epoch, false)
            .await
            .unwrap_err()
            .is_fenced()
    );
    assert_eq!(
        b.load_snapshot(room).await.unwrap().unwrap(),
        stored(room, invite, 5)
    );

    // Released with needs_owner: listed until claimed.
    b.release(room, l2.epoch, true).await.unwrap();
    assert_eq!(b.owner(room).await.unwrap(), None);
    a.heartbeat().await.unwrap();
    assert!(a.orphans().await.unwrap().contains(&room.to_string()));
    let l3 = a.claim(room).await.unwrap();
    assert_eq!(l3.epoch, l2.epoch + 2, "release bumps the epoch too");
    assert!(!a.orphans().await.unwrap().contains(&room.to_string()));
    assert!(
        b.save_snapshot(room, l2.epoch, stored(room, invite, 9))
            .await
            .unwrap_err()
            .is_fenced()
    );
    a.release(room, l3.epoch, false).await.unwrap();
    assert!(!a.orphans().await.unwrap().contains(&room.to_string()));
}

/// Incremental snapshots: appends extend the stored room, a gap or a
/// stale epoch is refused, a whole write compacts the log.
async fn append_scenario(a: &RedisBackplane, room: &str, invite: &str) {
    use tabula_room::{Actor, Command};
    a.register(entry(room, invite)).await.unwrap();
    let l = a.claim(room).await.unwrap();
    let mut r = Room::new(RoomConfig::default());
    let append = |r: &Room, base: usize| RoomAppend {
        base,
        inputs: r.inputs_since(base).to_vec(),
        version: r.version(),
        seqs: BTreeMap::from([("p".to_string(), r.input_count() as u64)]),
    };
    let whole = |r: &Room| StoredRoom {
        entry: entry(room, invite),
        snapshot: r.snapshot(),
        seqs: BTreeMap::new(),
    };
    assert!(matches!(
        a.append_inputs(room, l.epoch, append(&r, 0)).await,
        Err(BackplaneError::Gap { base: 0, .. })
    ));
    a.save_snapshot(room, l.epoch, whole(&r)).await.unwrap();
    let (p1, p2) = (PlayerId::new("tg:1"), PlayerId::new("tg:2"));
    let script = [
        (&p1, Command::Sit { seat: None }),
        (&p2, Command::Sit { seat: None }),
        (&p1, Command::Ready),
        (&p2, Command::Ready),
    ];
    for (i, (p, c)) in script.into_iter().enumerate() {
        let base = r.input_count();
        r.apply(c, Actor::Player(p.clone()), i as u64).unwrap();
        a.append_inputs(room, l.epoch, append(&r, base))
            .await
            .unwrap();
    }
    let loaded = a.load_snapshot(room).await.unwrap().unwrap();
    assert_eq!(loaded.snapshot, r.snapshot());
    assert_eq!(loaded.seqs["p"], 4);
    assert_eq!(loaded.entry, entry(room, invite));
    assert_eq!(
        Room::restore(&loaded.snapshot).unwrap().version(),
        r.version()
    );
    // An append that does not continue the stored log is a gap.
    assert!(matches!(
        a.append_inputs(room, l.epoch, append(&r, 1)).await,
        Err(BackplaneError::Gap { stored: 4, base: 1 })
    ));
    // A whole write compacts (clears the log); appends continue from it.
    a.save_snapshot(room, l.epoch, whole(&r)).await.unwrap();
    r.apply(
        Command::Chat {
            text: "привет".into(),
        },
        Actor::Player(p2.clone()),
        9,
    )
    .unwrap();
    a.append_inputs(room, l.epoch, append(&r, 4)).await.unwrap();
    let loaded = a.load_snapshot(room).await.unwrap().unwrap();
    assert_eq!(loaded.snapshot, r.snapshot());
    // Fenced like a whole write.
    let l2 = a.claim(room).await.unwrap();
    assert!(
        a.append_inputs(room, l.epoch, append(&r, 5))
            .await
            .unwrap_err()
            .is_fenced()
    );
    a.release(room, l2.epoch, false).await.unwrap();
}

fn rated(id: u64, p: &str, rating: i32, since_ms: u64) -> Ticket {
    Ticket {
        id,
        player: p.into(),
        rating,
        since_ms,
    }
}

/// 100 points at once, 50 a second, any rating after 15 s.
const W: Window = Window {
    start: 100,
    per_sec: 50,
    open_after_ms: 15_000,
};

/// Quick match, the same on every lobby: `a` and `b` two nodes of one
/// backplane (on Redis the Lua `pick` must choose as `pick_partner` does).
/// Run on a single Redis, a Redis Cluster and in process.
async fn matchmaking_scenario(a: &impl Lobby, b: &impl Lobby) {
    let t = |id, p: &str| rated(id, p, 1500, 0);
    let mw = |k: &'static str, t: Ticket, now| async move {
        a.match_or_wait(k, t, W, now).await.unwrap()
    };
    let re =
        |k: &'static str, t: Ticket, now| async move { a.rematch(k, &t, W, now).await.unwrap() };
    // The same, on the other node.
    let mw_b = |k: &'static str, t: Ticket, now| async move {
        b.match_or_wait(k, t, W, now).await.unwrap()
    };
    let re_b =
        |k: &'static str, t: Ticket, now| async move { b.rematch(k, &t, W, now).await.unwrap() };
    let big = u64::MAX - 1; // Beyond Lua's exact integers.
    assert_eq!(mw("k{x}", t(big, "p"), 0).await, None);
    assert_eq!(mw("k{x}", t(2, "p"), 0).await, None);
    assert_eq!(mw("k{x}", t(3, "q"), 0).await, Some(t(big, "p")));
    assert!(!a.cancel_ticket("k{x}", big).await.unwrap());
    assert!(a.cancel_ticket("k{x}", 2).await.unwrap());
    assert!(!a.cancel_ticket("k{x}", 2).await.unwrap());
    // Other keys are other queues.
    assert_eq!(mw("k2", t(4, "q"), 0).await, None);
    a.deliver_match(big, "room".into()).await.unwrap();
    assert_eq!(a.poll_match(big).await.unwrap(), Some("room".into()));
    assert_eq!(a.poll_match(big).await.unwrap(), None);
    // Close ratings (80 apart) meet at once, across nodes.
    assert_eq!(mw("close", rated(1, "p", 1500, 1_000), 1_000).await, None);
    assert_eq!(
        mw_b("close", rated(2, "q", 1580, 1_000), 1_000).await,
        Some(rated(1, "p", 1500, 1_000))
    );

    // 500 apart: not at once, nor at 7.9 s; at 8 s of the longer wait.
    let low = rated(big, "low", 1200, 0);
    let high = rated(4, "high", 1700, 2_000);
    assert_eq!(mw("far", low.clone(), 0).await, None);
    assert_eq!(mw_b("far", high.clone(), 2_000).await, None);
    assert_eq!(re("far", low.clone(), 7_900).await, Rematch::Waiting);
    assert_eq!(re_b("far", high.clone(), 7_900).await, Rematch::Waiting);
    // The younger waiter's try counts the older one's wait.
    assert_eq!(
        re_b("far", high.clone(), 8_000).await,
        Rematch::Matched(low.clone())
    );
    // Both are off the queue: the older one's try finds his ticket taken,
    // his cancel fails, and the room reaches him.
    assert_eq!(re("far", low.clone(), 8_050).await, Rematch::Taken);
    assert!(!a.cancel_ticket("far", low.id).await.unwrap());
    assert!(!b.cancel_ticket("far", high.id).await.unwrap());
    assert_eq!(mw("far", rated(5, "late", 1700, 9_000), 9_000).await, None);
    b.deliver_match(low.id, "room".into()).await.unwrap();
    assert_eq!(a.poll_match(low.id).await.unwrap(), Some("room".into()));

    // A newcomer meets a waiter whose window has widened; any rating once
    // the wait reaches the window's end.
    assert_eq!(mw("new", rated(6, "old", 1000, 0), 0).await, None);
    assert_eq!(mw_b("new", rated(7, "n1", 600, 5_000), 5_000).await, None);
    assert_eq!(
        mw_b("new", rated(8, "n2", 1340, 5_000), 5_000).await,
        Some(rated(6, "old", 1000, 0))
    );
    assert_eq!(
        mw("new", rated(9, "n3", 3_000, 20_000), 20_000).await,
        Some(rated(7, "n1", 600, 5_000))
    );

    // Several waiting: the closest compatible, not the oldest; the older
    // of two as close.
    let x = rated(10, "x", 1900, 0);
    let y = rated(11, "y", 1700, 0);
    for t in [&x, &y, &rated(12, "z", 1560, 0), &rated(13, "w", 1440, 0)] {
        assert_eq!(mw("three", t.clone(), 0).await, None);
    }
    assert_eq!(
        mw_b("three", rated(14, "me", 1500, 3_000), 3_000).await,
        Some(rated(12, "z", 1560, 0))
    );
    assert_eq!(
        mw_b("three", rated(15, "me2", 1500, 3_000), 3_000).await,
        Some(rated(13, "w", 1440, 0))
    );
    assert_eq!(re("three", y.clone(), 1_900).await, Rematch::Waiting);
    assert_eq!(
        re("three", y.clone(), 2_000).await,
        Rematch::Matched(x.clone())
    );
    assert!(!a.cancel_ticket("three", x.id).await.unwrap());
    assert_eq!(re("three", x.clone(), 2_000).await, Rematch::Taken);

    // A waiter's try takes the closest to him, the oldest on a tie.
    let me = rated(20, "me", 1500, 0);
    for t in [&me, &rated(21, "hi", 1800, 0), &rated(22, "lo", 1200, 0)] {
        assert_eq!(mw("retry", t.clone(), 0).await, None);
    }
    assert_eq!(re("nowhere", me.clone(), 0).await, Rematch::Taken);
    assert_eq!(
        re("retry", rated(99, "me", 1500, 0), 9_000).await,
        Rematch::Taken
    );
    assert_eq!(re("retry", me.clone(), 3_999).await, Rematch::Waiting);
    assert_eq!(
        re_b("retry", me.clone(), 4_000).await,
        Rematch::Matched(rated(21, "hi", 1800, 0))
    );
    assert!(!a.cancel_ticket("retry", me.id).await.unwrap());
    assert!(a.cancel_ticket("retry", 22).await.unwrap());
}

/// Two rooms released idle with a short keep: the one claimed again stays,
/// the other is deleted with its invite and records. Shared by the single
/// instance and the cluster tests.
async fn idle_scenario(a: &RedisBackplane, rooms: [(&str, &str); 2]) {
    let keep = Duration::from_millis(300);
    for (id, invite) in rooms {
        a.register(entry(id, invite)).await.unwrap();
        let l = a.claim(id).await.unwrap();
        a.save_snapshot(id, l.epoch, stored(id, invite, 1))
            .await
            .unwrap();
        a.save_record(id, 1, "g1".into()).await.unwrap();
        a.queue_archive(&format!("{id}#1"), format!("e-{id}"))
            .await
            .unwrap();
        // Only the owner at its epoch may release it.
        assert!(matches!(
            a.release_idle(id, l.epoch + 1, keep, None).await,
            Err(BackplaneError::Fenced { .. })
        ));
        a.release_idle(id, l.epoch, keep, None).await.unwrap();
        assert_eq!(a.owner(id).await.unwrap(), None);
    }
    let [(gone, gone_invite), (kept, kept_invite)] = rooms;
    assert!(!a.orphans().await.unwrap().iter().any(|r| r == gone));
    assert!(a.load_snapshot(gone).await.unwrap().is_some());
    // A claim (a join restoring it) keeps the room, its invite and records.
    a.claim(kept).await.unwrap();
    tokio::time::sleep(keep + Duration::from_millis(300)).await;
    assert!(a.lookup(gone).await.unwrap().is_none());
    assert!(a.resolve_invite(gone_invite).await.unwrap().is_none());
    assert!(a.load_snapshot(gone).await.unwrap().is_none());
    assert!(a.records(gone).await.unwrap().is_empty());
    assert_eq!(
        a.resolve_invite(kept_invite).await.unwrap().unwrap().id,
        kept
    );
    assert!(a.load_snapshot(kept).await.unwrap().is_some());
    assert_eq!(a.records(kept).await.unwrap(), vec!["g1"]);
    archive_queue_scenario(a, gone, kept).await;
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A room released idle with a wake (a correspondence game's deadline) is
/// listed for an owner once the wake is due, by any node; a claim clears
/// the wake; a wake left by a refused release is passed by while a live
/// node holds the room. Shared by Redis, Redis Cluster and in-process.
async fn wake_scenario<S: RoomStore + NodeBus>(a: &S, b: &S, room: &str, invite: &str) {
    let keep = Duration::from_secs(60);
    a.register(entry(room, invite)).await.unwrap();
    let l = a.claim(room).await.unwrap();
    a.save_snapshot(room, l.epoch, stored(room, invite, 1))
        .await
        .unwrap();
    a.release_idle(room, l.epoch, keep, Some(wall_ms() + 400))
        .await
        .unwrap();
    // Not due yet: nobody is asked to hold it.
    assert!(!b.orphans().await.unwrap().iter().any(|r| r == room));
    tokio::time::sleep(Duration::from_millis(600)).await;
    // (Both alive, whatever their lease.)
    a.heartbeat().await.unwrap();
    b.heartbeat().await.unwrap();
    // Due: any node's sweep finds it, and the claim takes it off the list.
    assert!(b.orphans().await.unwrap().iter().any(|r| r == room));
    let lb = b.claim(room).await.unwrap();
    assert!(lb.epoch > l.epoch);
    assert!(!a.orphans().await.unwrap().iter().any(|r| r == room));
    assert!(b.load_snapshot(room).await.unwrap().is_some());
    // A refused release (a stale epoch) leaves its wake behind, but the
    // room is held by a live node: not listed.
    assert!(matches!(
        b.release_idle(room, lb.epoch + 7, keep, Some(wall_ms() - 1))
            .await,
        Err(BackplaneError::Fenced { .. })
    ));
    assert!(!a.orphans().await.unwrap().iter().any(|r| r == room));
    // A release without a wake clears the old one.
    b.release_idle(room, lb.epoch, keep, None).await.unwrap();
    assert!(!a.orphans().await.unwrap().iter().any(|r| r == room));
}

#[tokio::test]
async fn a_room_released_with_a_wake_is_listed_when_it_is_due_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    wake_scenario(&a, &b, "w1", "WAKE1").await;
    let solo = InProcess::new("solo");
    wake_scenario(&solo, &solo.member("other"), "w1", "WAKE1").await;
}

/// A tournament: owned under the room store's lease by its key, its state
/// written only under the owner's epoch, taken over exactly when its owner
/// leaves (the sweep lists it), its inbox posted once per key and
/// acknowledged only by its owner.
async fn tournament_scenario<S: RoomStore + NodeBus + TournamentStore>(a: &S, b: &S, id: &str) {
    let key = tournament_key(id);
    assert_eq!(tournament_of(&key), Some(id));
    assert_eq!(tournament_of("0123456789ab"), None);
    assert!(a.register_tournament(id, 5).await.unwrap());
    assert!(!b.register_tournament(id, 6).await.unwrap());
    assert!(b.register_tournament("later", 9).await.unwrap());
    assert_eq!(
        a.tournament_ids().await.unwrap(),
        vec![id.to_string(), "later".to_string()]
    );
    assert_eq!(a.load_tournament(id).await.unwrap(), None);
    // Unowned: nobody may write.
    assert!(matches!(
        a.save_tournament(id, 1, "{}".into()).await,
        Err(BackplaneError::Fenced { .. })
    ));
    let la = a.claim(&key).await.unwrap();
    a.save_tournament(id, la.epoch, "{\"v\":1}".into())
        .await
        .unwrap();
    // Another node: owned by a live node, so no claim, and no write.
    assert!(matches!(
        b.claim(&key).await,
        Err(BackplaneError::Owned { .. })
    ));
    assert!(matches!(
        b.save_tournament(id, la.epoch, "{\"v\":9}".into()).await,
        Err(BackplaneError::Fenced { .. })
    ));
    assert_eq!(
        b.load_tournament(id).await.unwrap().as_deref(),
        Some("{\"v\":1}")
    );
    // The inbox: once per key, in key order, from any node.
    assert!(
        b.post_tournament(id, "result:g2", "r2".into())
            .await
            .unwrap()
    );
    assert!(
        b.post_tournament(id, "result:g1", "r1".into())
            .await
            .unwrap()
    );
    assert!(
        !a.post_tournament(id, "result:g1", "again".into())
            .await
            .unwrap()
    );
    let inbox = a.tournament_inbox(id).await.unwrap();
    assert_eq!(
        inbox,
        vec![
            ("result:g1".to_string(), "r1".to_string()),
            ("result:g2".to_string(), "r2".to_string())
        ]
    );
    // Only the owner acknowledges.
    assert!(matches!(
        b.ack_tournament(id, la.epoch, vec!["result:g1".into()])
            .await,
        Err(BackplaneError::Fenced { .. })
    ));
    a.ack_tournament(id, la.epoch, vec!["result:g1".into()])
        .await
        .unwrap();
    assert_eq!(a.tournament_inbox(id).await.unwrap().len(), 1);
    // Its owner leaves: the sweep lists it, another node takes it over
    // with a higher epoch and the state as written, and the old epoch is
    // fenced.
    a.leave().await.unwrap();
    assert!(b.orphans().await.unwrap().contains(&key));
    let lb = b.claim(&key).await.unwrap();
    assert!(lb.epoch > la.epoch);
    assert_eq!(
        b.load_tournament(id).await.unwrap().as_deref(),
        Some("{\"v\":1}")
    );
    assert!(matches!(
        a.save_tournament(id, la.epoch, "{\"v\":2}".into()).await,
        Err(BackplaneError::Fenced { .. })
    ));
    b.save_tournament(id, lb.epoch, "{\"v\":3}".into())
        .await
        .unwrap();
    b.ack_tournament(id, lb.epoch, vec!["result:g2".into()])
        .await
        .unwrap();
    assert!(b.tournament_inbox(id).await.unwrap().is_empty());
    // A key acknowledged can be posted again (the core refuses a
    // duplicate result).
    assert!(
        a.post_tournament(id, "result:g1", "r1".into())
            .await
            .unwrap()
    );
    // Released for another node (a drain): listed until claimed.
    b.release(&key, lb.epoch, true).await.unwrap();
    assert!(a.orphans().await.unwrap().contains(&key));
}

#[tokio::test]
async fn a_tournament_is_owned_fenced_and_taken_over_with_its_inbox_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    tournament_scenario(&a, &b, "cup").await;
    let solo = InProcess::new("solo");
    tournament_scenario(&solo, &solo.member("other"), "cup").await;
}

fn shown_item(room: &str, score: f64) -> Shown {
    Shown {
        room: room.into(),
        score,
        json: format!("{{\"roomId\":\"{room}\"}}"),
    }
}

/// The lobby's showcase: highest score first, the same from both nodes,
/// bounded by the limit; an entry replaced by whoever lists it last, taken
/// off only by that node, and gone once it expires (then dropped by the
/// next `show`); the shelves apart; the online counts summed while they
/// hold.
async fn showcase_scenario(a: &impl Lobby, b: &impl Lobby) {
    let now = 1_000_000;
    let rooms = |v: Vec<String>| -> Vec<String> {
        v.iter()
            .map(|j| {
                j.trim_start_matches("{\"roomId\":\"")
                    .trim_end_matches("\"}")
                    .to_string()
            })
            .collect()
    };
    a.show(
        Shelf::Live,
        vec![shown_item("low", 1400.0), shown_item("high", 1900.0)],
        now + 10_000,
        now,
    )
    .await
    .unwrap();
    b.show(
        Shelf::Live,
        vec![shown_item("mid", 1600.0), shown_item("unrated", 0.0)],
        now + 5_000,
        now,
    )
    .await
    .unwrap();
    b.show(
        Shelf::Open,
        vec![shown_item("wait", 1500.0)],
        now + 10_000,
        now,
    )
    .await
    .unwrap();
    let all = ["high", "mid", "low", "unrated"];
    assert_eq!(rooms(a.shown(Shelf::Live, 50, now).await.unwrap()), all);
    assert_eq!(rooms(b.shown(Shelf::Live, 50, now).await.unwrap()), all);
    assert_eq!(
        rooms(a.shown(Shelf::Live, 2, now).await.unwrap()),
        ["high", "mid"]
    );
    assert_eq!(
        rooms(a.shown(Shelf::Open, 50, now).await.unwrap()),
        ["wait"]
    );
    // b takes "high" over (its new owner lists it); a's unshow then
    // leaves it, b's takes it off.
    b.show(
        Shelf::Live,
        vec![shown_item("high", 1900.0)],
        now + 10_000,
        now,
    )
    .await
    .unwrap();
    a.unshow(Shelf::Live, vec!["high".into(), "low".into()])
        .await
        .unwrap();
    assert_eq!(
        rooms(a.shown(Shelf::Live, 50, now).await.unwrap()),
        ["high", "mid", "unrated"]
    );
    b.unshow(Shelf::Live, vec!["high".into()]).await.unwrap();
    // b's other entries expire at now + 5 s: not read after.
    let later = now + 6_000;
    assert!(a.shown(Shelf::Live, 50, later).await.unwrap().is_empty());
    assert_eq!(
        rooms(a.shown(Shelf::Open, 50, later).await.unwrap()),
        ["wait"]
    );
    // A show drops them; listing again brings one back.
    a.show(
        Shelf::Live,
        vec![shown_item("mid", 1600.0)],
        later + 10_000,
        later,
    )
    .await
    .unwrap();
    assert_eq!(
        rooms(b.shown(Shelf::Live, 50, later).await.unwrap()),
        ["mid"]
    );
    // Online: both nodes' counts while they hold.
    a.count_online(3, now + 10_000).await.unwrap();
    b.count_online(4, now + 5_000).await.unwrap();
    assert_eq!(a.online(now).await.unwrap(), 7);
    assert_eq!(b.online(later).await.unwrap(), 3);
    a.count_online(5, later + 10_000).await.unwrap();
    assert_eq!(b.online(later).await.unwrap(), 5);
}

#[tokio::test]
async fn the_lobby_showcase_and_online_count_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    showcase_scenario(&a, &b).await;
    let solo = InProcess::new("solo");
    showcase_scenario(&solo, &solo.member("other")).await;
}

/// The archive queue outlives a forgotten room; oldest first, a second
/// queuing keeps the first entry and its place, `archived` takes it off.
async fn archive_queue_scenario(a: &RedisBackplane, gone: &str, kept: &str) {
    let (g, k) = (format!("{gone}#1"), format!("{kept}#1"));
    let q = a.archive_queue(10).await.unwrap();
    assert_eq!(
        q,
        vec![
            (g.clone(), format!("e-{gone}")),
            (k.clone(), format!("e-{kept}"))
        ]
    );
    let b = a.archive_backlog().await.unwrap();
    assert_eq!(b.games, 2);
    assert!(b.oldest_ms.is_some_and(|ms| ms > 1_700_000_000_000));
    a.queue_archive(&g, "again".into()).await.unwrap();
    assert_eq!(
        a.archive_queue(1).await.unwrap(),
        vec![(g.clone(), format!("e-{gone}"))]
    );
    assert_eq!(a.archive_backlog().await.unwrap().games, 2);
    a.archived(&g).await.unwrap();
    a.archived("never#1").await.unwrap();
    assert_eq!(
        a.archive_queue(10).await.unwrap(),
        vec![(k.clone(), format!("e-{kept}"))]
    );
    a.archived(&k).await.unwrap();
    assert!(a.archive_queue(10).await.unwrap().is_empty());
    assert_eq!(
        a.archive_backlog().await.unwrap(),
        ArchiveBacklog::default()
    );
}

/// The archive queue's drain, as two nodes see it: one holder at a time,
/// kept by renewing, taken by the other once the lease runs out or the
/// holder gives it up; a release by a node not holding it changes nothing.
async fn archive_drain_scenario(a: &impl Archive, b: &impl Archive) {
    let lease = Duration::from_millis(400);
    assert!(a.claim_archive_drain("a", lease).await.unwrap());
    assert!(!b.claim_archive_drain("b", lease).await.unwrap());
    // Renewed by its holder: still his past the first lease.
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(a.claim_archive_drain("a", lease).await.unwrap());
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(!b.claim_archive_drain("b", lease).await.unwrap());
    b.release_archive_drain("b").await.unwrap();
    assert!(!b.claim_archive_drain("b", lease).await.unwrap());
    // Not renewed: the other node takes it.
    tokio::time::sleep(lease + Duration::from_millis(100)).await;
    assert!(b.claim_archive_drain("b", lease).await.unwrap());
    assert!(!a.claim_archive_drain("a", lease).await.unwrap());
    // Given up: taken at once.
    b.release_archive_drain("b").await.unwrap();
    assert!(a.claim_archive_drain("a", lease).await.unwrap());
    a.release_archive_drain("a").await.unwrap();
}

#[tokio::test]
async fn the_archive_queue_is_drained_by_one_node_at_a_time_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    archive_drain_scenario(&a, &b).await;
    let solo = InProcess::new("solo");
    archive_drain_scenario(&solo, &solo.member("other")).await;
}

/// The bot's shared state, as two nodes see it: a notice id is queued
/// once, each due notice is taken by one node only, earliest first; slots,
/// the sends of a second and the pause are shared.
async fn notices_scenario(a: &impl Notices, b: &impl Notices) {
    let keep = Duration::from_secs(60);
    assert!(
        a.queue_notice("n:late", "L".into(), 3_000, keep)
            .await
            .unwrap()
    );
    assert!(
        a.queue_notice("n:early", "E".into(), 1_000, keep)
            .await
            .unwrap()
    );
    assert!(
        !b.queue_notice("n:early", "E2".into(), 1_000, keep)
            .await
            .unwrap()
    );
    assert_eq!(
        b.notice_backlog().await.unwrap(),
        NoticeBacklog {
            notices: 2,
            earliest_due_ms: Some(1_000)
        }
    );
    // Nothing due yet at 500; at 2000 only the early one, to one taker.
    assert!(a.take_notices(500, 10).await.unwrap().is_empty());
    let (x, y) = tokio::join!(a.take_notices(2_000, 10), b.take_notices(2_000, 10));
    let mut taken = x.unwrap();
    taken.extend(y.unwrap());
    assert_eq!(taken, vec![("n:early".to_string(), "E".to_string())]);
    // Taken, it is still remembered: queuing it again is refused.
    assert!(
        !a.queue_notice("n:early", "E".into(), 1_000, keep)
            .await
            .unwrap()
    );
    // Put back (a retry) and taken again later.
    a.requeue_notice("n:early", "E3".into(), 4_000)
        .await
        .unwrap();
    let all = b.take_notices(10_000, 10).await.unwrap();
    assert_eq!(
        all,
        vec![
            ("n:late".to_string(), "L".to_string()),
            ("n:early".to_string(), "E3".to_string())
        ]
    );
    assert_eq!(a.notice_backlog().await.unwrap(), NoticeBacklog::default());
    // A remembered id is queued again once its keep runs out.
    assert!(
        a.queue_notice("n:short", "S".into(), 0, Duration::from_millis(50))
            .await
            .unwrap()
    );
    assert_eq!(a.take_notices(1, 10).await.unwrap().len(), 1);
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert!(
        a.queue_notice("n:short", "S".into(), 0, keep)
            .await
            .unwrap()
    );
    a.take_notices(1, 10).await.unwrap();
    // Slots: one claim wins until it runs out.
    assert!(
        a.claim_slot("chat:1", Duration::from_millis(100))
            .await
            .unwrap()
    );
    assert!(
        !b.claim_slot("chat:1", Duration::from_millis(100))
            .await
            .unwrap()
    );
    assert!(
        b.claim_slot("chat:2", Duration::from_millis(100))
            .await
            .unwrap()
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(
        b.claim_slot("chat:1", Duration::from_millis(100))
            .await
            .unwrap()
    );
    // Sends, shared: 30 a second are 3 a tenth of a second.
    let sec = 1_700_000_000_000u64;
    let mut ok = 0;
    for i in 0..5 {
        let n: &dyn Notices = if i % 2 == 0 { a } else { b };
        ok += u32::from(n.claim_send(sec + 10 + i, 30).await.unwrap());
    }
    assert_eq!(ok, 3);
    assert!(a.claim_send(sec + 100, 30).await.unwrap(), "the next tenth");
    // One a second: one send per second.
    assert!(a.claim_send(sec + 5_000, 1).await.unwrap());
    assert!(!b.claim_send(sec + 5_900, 1).await.unwrap());
    assert!(b.claim_send(sec + 6_000, 1).await.unwrap());
    // The pause only moves later.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    a.pause_sends(now + 5_000).await.unwrap();
    b.pause_sends(now + 1_000).await.unwrap();
    assert_eq!(b.sends_paused_until().await.unwrap(), now + 5_000);
    // Notes, kept for a while.
    a.set_note("challenge:r", Some("m1".into()), Duration::from_millis(100))
        .await
        .unwrap();
    assert_eq!(b.note("challenge:r").await.unwrap().as_deref(), Some("m1"));
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(b.note("challenge:r").await.unwrap(), None);
    // The bot's players.
    assert_eq!(a.bot_user("tg:1").await.unwrap(), None);
    a.set_bot_user("tg:1", Some("{}".into())).await.unwrap();
    assert_eq!(b.bot_user("tg:1").await.unwrap().as_deref(), Some("{}"));
    b.set_bot_user("tg:1", None).await.unwrap();
    assert_eq!(a.bot_user("tg:1").await.unwrap(), None);
}

#[tokio::test]
async fn the_bots_notice_queue_slots_and_players_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    notices_scenario(&a, &b).await;
    let solo = InProcess::new("solo");
    notices_scenario(&solo, &solo.member("other")).await;
}

#[tokio::test]
async fn a_room_released_idle_is_deleted_after_its_keep_unless_claimed_again() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    idle_scenario(&a, [("r1", "INV1"), ("r2", "INV2")]).await;
    // Nothing of the deleted room is left; the kept one has no expiry.
    let mut c = s.client().get_connection().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("t:*{r1}*").query(&mut c).unwrap();
    assert!(keys.is_empty(), "{keys:?}");
    let keys: Vec<String> = redis::cmd("KEYS").arg("t:*INV1*").query(&mut c).unwrap();
    assert!(keys.is_empty(), "{keys:?}");
    for key in ["t:room:{r2}", "t:room:{r2}:records", "t:invite:{INV2}"] {
        let ttl: i64 = redis::cmd("PTTL").arg(key).query(&mut c).unwrap();
        assert_eq!(ttl, -1, "{key}");
    }
}

#[tokio::test]
async fn directory_registers_and_resolves_invites() {
    let s = Server::start();
    let b = node(&s, "n1", 3000).await;
    b.register(entry("r1", "INV1")).await.unwrap();
    assert!(matches!(
        b.register(entry("r1", "X")).await,
        Err(BackplaneError::Exists(_))
    ));
    assert!(matches!(
        b.register(entry("r2", "INV1")).await,
        Err(BackplaneError::Exists(_))
    ));
    // The failed registration of r2 left nothing behind.
    assert!(b.lookup("r2").await.unwrap().is_none());
    b.register(entry("r2", "INV2")).await.unwrap();
    assert_eq!(b.resolve_invite("INV1").await.unwrap().unwrap().id, "r1");
    assert_eq!(b.lookup("r1").await.unwrap(), Some(entry("r1", "INV1")));
    assert!(b.lookup("nope").await.unwrap().is_none());
    assert!(b.resolve_invite("NOPE").await.unwrap().is_none());

    // Corrupt data is reported, not a panic.
    let mut c = s.client().get_connection().unwrap();
    let _: () = c.hset("t:room:{bad}", "entry", "{not json").unwrap();
    assert!(matches!(
        b.lookup("bad").await,
        Err(BackplaneError::Corrupt(_))
    ));
}

#[tokio::test]
async fn claims_fence_stale_epochs_and_dead_owners_lose_their_rooms() {
    let s = Server::start();
    let a = node(&s, "a", 300).await;
    let b = node(&s, "b", 300).await;
    ownership_scenario(&a, &b, "r1", "INV1").await;
    append_scenario(&a, "r2", "INV2").await;
}

#[tokio::test]
async fn leave_makes_rooms_orphans_at_once() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    let l = a.claim("r1").await.unwrap();
    a.leave().await.unwrap();
    assert!(!b.node_alive("a").await.unwrap());
    assert_eq!(b.orphans().await.unwrap(), vec!["r1".to_string()]);
    let l2 = b.claim("r1").await.unwrap();
    assert_eq!(l2.epoch, l.epoch + 1);
    assert!(b.orphans().await.unwrap().is_empty());
}

#[tokio::test]
async fn messages_reach_the_named_node_only() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    let mut ia = a.take_inbox().unwrap();
    let mut ib = b.take_inbox().unwrap();
    assert!(a.take_inbox().is_none());
    a.send("b", "hello".into()).await.unwrap();
    b.send("b", "self".into()).await.unwrap();
    assert_eq!(recv(&mut ib).await, Inbound::Message("hello".into()));
    assert_eq!(recv(&mut ib).await, Inbound::Message("self".into()));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(ia.try_recv().is_err());
    // Sending to a node nobody serves is not an error (the message is lost).
    a.send("nobody", "x".into()).await.unwrap();
}

#[tokio::test]
async fn quick_match_pairs_by_a_widening_rating_window_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    matchmaking_scenario(&a, &b).await;
    let solo = InProcess::new("solo");
    matchmaking_scenario(&solo, &solo.member("other")).await;
    // A ticket queued before ratings (no rating, no since) has waited for
    // anyone; unreadable entries are skipped. The queue of key "old":
    // `t:mm:{hex("old")}`.
    let mut c = s.client().get_connection().unwrap();
    let q = "t:mm:{6f6c64}";
    let _: () = c.rpush(q, "not json").unwrap();
    let _: () = c.rpush(q, r#"{"id":5,"player":"ancient"}"#).unwrap();
    let now = 1_700_000_000_000;
    let newcomer = Ticket {
        id: 6,
        player: "now".into(),
        rating: 2900,
        since_ms: now,
    };
    assert_eq!(
        a.match_or_wait("old", newcomer, W, now).await.unwrap(),
        Some(Ticket {
            id: 5,
            player: "ancient".into(),
            rating: 1500,
            since_ms: 0,
        })
    );
    let left: Vec<String> = c.lrange(q, 0, -1).unwrap();
    assert_eq!(left, vec!["not json".to_string()]);
}

#[tokio::test]
async fn records_keep_game_order_and_stats_accumulate_under_concurrency() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    let b = node(&s, "b", 3000).await;
    for g in [10u32, 2, 1] {
        a.save_record("r1", g, format!("game {g}")).await.unwrap();
    }
    assert_eq!(
        a.records("r1").await.unwrap(),
        vec!["game 1", "game 2", "game 10"]
    );
    assert!(a.records("r2").await.unwrap().is_empty());

    let d = |result| PlayerDelta {
        seat: SeatId::A,
        player: Some(PlayerId::new("p")),
        bot_level: None,
        opponent_bot_level: Some(3),
        result,
        points_won: 2,
        points_lost: 0,
        mars: true,
        game: Some(tabula_room::GameKind::Backgammon),
    };
    let mut expected = tabula_room::PlayerStats::default();
    let mut calls = Vec::new();
    for i in 0..40 {
        let delta = d(if i % 3 == 0 {
            PlayerResult::Lose
        } else {
            PlayerResult::Win
        });
        expected.record(&delta);
        let node = if i % 2 == 0 { &a } else { &b };
        calls.push(node.record_stats(PlayerId::new("p"), delta));
    }
    for r in join_all(calls).await {
        r.unwrap();
    }
    let got = a.stats("p").await.unwrap();
    assert_eq!(got.games, 40);
    // Streaks depend on the order the games landed in; the sums do not.
    assert_eq!(
        (got.wins, got.losses, got.mars_wins, got.mars_losses),
        (
            expected.wins,
            expected.losses,
            expected.mars_wins,
            expected.mars_losses
        )
    );
    assert_eq!(got.by_bot_level[&3].wins, expected.by_bot_level[&3].wins);
    assert_eq!(got.by_game[&tabula_room::GameKind::Backgammon].games, 40);
    assert_eq!(a.stats("nobody").await.unwrap(), Default::default());
    a.forget_stats("p").await.unwrap();
    assert_eq!(a.stats("p").await.unwrap(), Default::default());
}

#[tokio::test]
async fn survives_a_redis_restart_without_persistence() {
    let mut s = Server::start();
    let a = node(&s, "a", 3000).await;
    let mut inbox = a.take_inbox().unwrap();
    a.register(entry("r1", "INV1")).await.unwrap();
    let l = a.claim("r1").await.unwrap();
    a.save_snapshot("r1", l.epoch, stored("r1", "INV1", 3))
        .await
        .unwrap();

    s.kill();
    // Down: every call fails fast with Unavailable, none hangs.
    let t = Instant::now();
    assert!(matches!(
        a.lookup("r1").await,
        Err(BackplaneError::Unavailable(_))
    ));
    assert!(matches!(
        a.save_snapshot("r1", l.epoch, stored("r1", "INV1", 4))
            .await,
        Err(BackplaneError::Unavailable(_))
    ));
    assert!(matches!(
        a.heartbeat().await,
        Err(BackplaneError::Unavailable(_))
    ));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());

    s.spawn(); // Same port, no data.
    let deadline = Instant::now() + Duration::from_secs(10);
    while a.heartbeat().await.is_err() {
        assert!(Instant::now() < deadline, "backplane did not recover");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(recv(&mut inbox).await, Inbound::Resubscribed);
    a.send("a", "after".into()).await.unwrap();
    assert_eq!(recv(&mut inbox).await, Inbound::Message("after".into()));

    // The store lost everything: an append is a gap (the owner then writes
    // the whole room), and that write re-establishes it.
    assert!(a.lookup("r1").await.unwrap().is_none());
    assert!(matches!(
        a.append_inputs(
            "r1",
            l.epoch,
            RoomAppend {
                base: 0,
                inputs: Vec::new(),
                version: 4,
                seqs: BTreeMap::new(),
            },
        )
        .await,
        Err(BackplaneError::Gap { .. })
    ));
    a.save_snapshot("r1", l.epoch, stored("r1", "INV1", 4))
        .await
        .unwrap();
    assert_eq!(
        a.owner("r1").await.unwrap(),
        Some(Lease {
            node: "a".into(),
            epoch: l.epoch
        })
    );
    assert_eq!(a.lookup("r1").await.unwrap(), Some(entry("r1", "INV1")));
    assert_eq!(a.resolve_invite("INV1").await.unwrap().unwrap().id, "r1");
    assert_eq!(
        a.load_snapshot("r1")
            .await
            .unwrap()
            .unwrap()
            .snapshot
            .version,
        4
    );
    // And fencing holds again.
    let l2 = a.claim("r1").await.unwrap();
    assert!(
        a.save_snapshot("r1", l.epoch, stored("r1", "INV1", 5))
            .await
            .unwrap_err()
            .is_fenced()
    );
    a.save_snapshot("r1", l2.epoch, stored("r1", "INV1", 5))
        .await
        .unwrap();
}

#[tokio::test]
async fn works_on_a_redis_cluster() {
    let servers: Vec<Server> = (0..3)
        .map(|_| Server::start_on(free_port(), true))
        .collect();
    let addrs: Vec<String> = servers
        .iter()
        .map(|s| format!("127.0.0.1:{}", s.port))
        .collect();
    let out = Command::new("redis-cli")
        .arg("--cluster")
        .arg("create")
        .args(&addrs)
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let deadline = Instant::now() + Duration::from_secs(15);
    for s in &servers {
        loop {
            let mut c = s.client().get_connection().unwrap();
            let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut c).unwrap();
            if info.contains("cluster_state:ok") {
                break;
            }
            assert!(Instant::now() < deadline, "cluster not ok: {info}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let connect = |id: &'static str| {
        let cfg = RedisConfig {
            cluster: true,
            urls: servers.iter().map(Server::url).collect(),
            timeout_ms: 2000,
            lease_ms: 300,
            prefix: "c".into(),
            ..RedisConfig::default()
        };
        RedisBackplane::connect(cfg, id)
    };
    let a = connect("a").await.unwrap();
    let b = connect("b").await.unwrap();
    ownership_scenario(&a, &b, "room-1", "INVC").await;
    append_scenario(&a, "room-2", "INVD").await;
    assert_eq!(
        a.lookup("room-1").await.unwrap(),
        Some(entry("room-1", "INVC"))
    );
    assert_eq!(
        b.resolve_invite("INVC").await.unwrap().unwrap().id,
        "room-1"
    );
    matchmaking_scenario(&a, &b).await;
    a.save_record("room-1", 1, "g1".into()).await.unwrap();
    assert_eq!(b.records("room-1").await.unwrap(), vec!["g1"]);
    idle_scenario(&a, [("room-3", "INVE"), ("room-4", "INVF")]).await;
    notices_scenario(&a, &b).await;
    wake_scenario(&a, &b, "room-5", "INVG").await;

    // Sharded inboxes of nodes whose channels live on different masters.
    let ids = ["n1", "n2", "n3", "n4", "n5", "n6"];
    let mut c = servers[0].client().get_connection().unwrap();
    let thirds: HashSet<u16> = ids
        .iter()
        .map(|id| {
            let slot: u16 = redis::cmd("CLUSTER")
                .arg("KEYSLOT")
                .arg(format!("c:inbox:{{{id}}}"))
                .query(&mut c)
                .unwrap();
            slot / 5462
        })
        .collect();
    assert!(thirds.len() >= 2, "channels all on one master");
    let mut nodes = Vec::new();
    for id in ids {
        let n = connect(id).await.unwrap();
        let rx = n.take_inbox().unwrap();
        nodes.push((n, rx));
    }
    for (from, _) in &nodes {
        for to in ids {
            from.send(to, format!("{}->{to}", from.node_id()))
                .await
                .unwrap();
        }
    }
    for (n, rx) in &mut nodes {
        let mut got = Vec::new();
        for _ in 0..ids.len() {
            match recv(rx).await {
                Inbound::Message(m) => got.push(m),
                other => panic!("unexpected {other:?}"),
            }
        }
        got.sort();
        let want: Vec<String> = ids
            .iter()
            .map(|from| format!("{from}->{}", n.node_id()))
            .collect();
        assert_eq!(got, want);
    }
}

/// The unfinished-games list, the same on every store: listed, replaced,
/// unlisted, bounded, and gone after its keep.
async fn unfinished_scenario(b: &impl Archive) {
    let day = Duration::from_secs(86_400);
    assert!(b.unfinished("p").await.unwrap().is_empty());
    b.set_unfinished("p", "r1", Some("one".into()), day)
        .await
        .unwrap();
    b.set_unfinished("p", "r2", Some("two".into()), day)
        .await
        .unwrap();
    b.set_unfinished("q", "r3", Some("other".into()), day)
        .await
        .unwrap();
    let mut got = b.unfinished("p").await.unwrap();
    got.sort();
    assert_eq!(got, vec!["one", "two"]);
    // Listed again: replaced, not added.
    b.set_unfinished("p", "r1", Some("one'".into()), day)
        .await
        .unwrap();
    let mut got = b.unfinished("p").await.unwrap();
    got.sort();
    assert_eq!(got, vec!["one'", "two"]);
    // Over: off the list (and unlisting what is not there is fine).
    b.set_unfinished("p", "r1", None, day).await.unwrap();
    b.set_unfinished("p", "nope", None, day).await.unwrap();
    assert_eq!(b.unfinished("p").await.unwrap(), vec!["two"]);
    assert_eq!(b.unfinished("q").await.unwrap(), vec!["other"]);
    // Bounded: the oldest go.
    for i in 0..MAX_UNFINISHED + 5 {
        b.set_unfinished("many", &format!("m{i}"), Some(format!("{i}")), day)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let got = b.unfinished("many").await.unwrap();
    assert_eq!(got.len(), MAX_UNFINISHED);
    assert!(!got.contains(&"0".to_string()), "{got:?}");
    assert!(got.contains(&format!("{}", MAX_UNFINISHED + 4)), "{got:?}");
    // Its keep over: gone.
    b.set_unfinished("brief", "r", Some("x".into()), Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(b.unfinished("brief").await.unwrap(), vec!["x"]);
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert!(b.unfinished("brief").await.unwrap().is_empty());
}

#[tokio::test]
async fn unfinished_games_are_listed_bounded_and_forgotten_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    unfinished_scenario(&a).await;
    unfinished_scenario(&InProcess::new("solo")).await;
}

/// Profiles, the same on every store: nothing stored at first; each part
/// written alone, neither overwriting the other; cleared part by part
/// until none is left; read in a batch in order; kept, and gone after
/// their keep.
async fn profile_scenario(b: &impl Archive) {
    let day = Duration::from_secs(86_400);
    assert_eq!(b.profile("tg:1").await.unwrap(), StoredProfile::default());
    assert!(b.profile("tg:1").await.unwrap().is_empty());
    b.set_profile(
        "tg:1",
        ProfilePart::Telegram,
        Some("{\"name\":\"Ann\"}".into()),
        day,
    )
    .await
    .unwrap();
    b.set_profile("tg:1", ProfilePart::Name, Some("Annie".into()), day)
        .await
        .unwrap();
    // A later login rewrites its own part only.
    b.set_profile(
        "tg:1",
        ProfilePart::Telegram,
        Some("{\"name\":\"Ann L\"}".into()),
        day,
    )
    .await
    .unwrap();
    let both = StoredProfile {
        telegram: Some("{\"name\":\"Ann L\"}".into()),
        name: Some("Annie".into()),
    };
    assert_eq!(b.profile("tg:1").await.unwrap(), both);
    b.set_profile(
        "guest:g1",
        ProfilePart::Name,
        Some("Брат Ёж 🙂".into()),
        day,
    )
    .await
    .unwrap();
    let got = b
        .profiles(&["guest:g1".into(), "tg:nobody".into(), "tg:1".into()])
        .await
        .unwrap();
    assert_eq!(
        got,
        vec![
            StoredProfile {
                telegram: None,
                name: Some("Брат Ёж 🙂".into())
            },
            StoredProfile::default(),
            both.clone(),
        ]
    );
    assert!(b.profiles(&[]).await.unwrap().is_empty());
    // Cleared part by part: the chosen name, then the Telegram part.
    b.set_profile("tg:1", ProfilePart::Name, None, day)
        .await
        .unwrap();
    assert_eq!(
        b.profile("tg:1").await.unwrap(),
        StoredProfile {
            telegram: both.telegram.clone(),
            name: None
        }
    );
    b.set_profile("tg:1", ProfilePart::Telegram, None, day)
        .await
        .unwrap();
    assert!(b.profile("tg:1").await.unwrap().is_empty());
    // Clearing what is not there stores nothing.
    b.set_profile("tg:2", ProfilePart::Name, None, day)
        .await
        .unwrap();
    assert!(b.profile("tg:2").await.unwrap().is_empty());
    // Its keep over: gone; kept again before that: still there.
    let brief = Duration::from_millis(150);
    b.set_profile(
        "guest:brief",
        ProfilePart::Name,
        Some("Brief".into()),
        brief,
    )
    .await
    .unwrap();
    b.set_profile("guest:kept", ProfilePart::Name, Some("Kept".into()), brief)
        .await
        .unwrap();
    // Keeping a profile that is not stored stores nothing.
    b.keep_profile("guest:none", day).await.unwrap();
    assert!(b.profile("guest:none").await.unwrap().is_empty());
    tokio::time::sleep(Duration::from_millis(80)).await;
    b.keep_profile("guest:kept", day).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(b.profile("guest:brief").await.unwrap().is_empty());
    assert_eq!(
        b.profile("guest:kept").await.unwrap().name.as_deref(),
        Some("Kept")
    );
}

#[tokio::test]
async fn profiles_keep_their_parts_apart_and_expire_on_redis_and_in_process() {
    let s = Server::start();
    let a = node(&s, "a", 3000).await;
    profile_scenario(&a).await;
    // Another node reads what the first wrote.
    let b = node(&s, "b", 3000).await;
    assert_eq!(
        b.profile("guest:g1").await.unwrap().name.as_deref(),
        Some("Брат Ёж 🙂")
    );
    // The key is where the key table says, and expires.
    let mut c = s.client().get_connection().unwrap();
    let ttl: i64 = redis::cmd("PTTL")
        .arg("t:profile:{guest:g1}")
        .query(&mut c)
        .unwrap();
    assert!(ttl > 86_000_000 && ttl <= 86_400_000, "{ttl}");
    profile_scenario(&InProcess::new("solo")).await;
}

#[tokio::test]
async fn the_in_process_store_holds_a_bounded_number_of_profiles() {
    let b = InProcess::new("solo");
    let day = Duration::from_secs(86_400);
    b.set_profile("guest:first", ProfilePart::Name, Some("First".into()), day)
        .await
        .unwrap();
    for i in 0..tabula_backplane::MAX_PROFILES {
        b.set_profile(
            &format!("guest:p{i}"),
            ProfilePart::Name,
            Some(format!("{i}")),
            day * 2,
        )
        .await
        .unwrap();
    }
    // The one whose keep ended first made room for the last.
    assert!(b.profile("guest:first").await.unwrap().is_empty());
    let last = format!("guest:p{}", tabula_backplane::MAX_PROFILES - 1);
    assert!(!b.profile(&last).await.unwrap().is_empty());
    assert!(!b.profile("guest:p0").await.unwrap().is_empty());
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig}");
}

/// `min_replicas_acked`: a room's write succeeds only once the replica
/// holds it (read back from the replica itself); with the replica stopped
/// it fails `Unavailable`, never Ok, and other calls do not queue behind
/// its `WAIT`; once the replica is back writes succeed again, and a server
/// whose script cache is empty (a promoted replica's) is served by loading
/// the script.
#[tokio::test]
async fn with_replica_acks_a_write_succeeds_only_once_the_replica_holds_it() {
    let primary = Server::start();
    let replica = Server::start();
    let mut on_replica = replica.client().get_connection().unwrap();
    let _: () = redis::cmd("REPLICAOF")
        .arg("127.0.0.1")
        .arg(primary.port)
        .query(&mut on_replica)
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut on_replica)
            .unwrap();
        if info.contains("master_link_status:up") {
            break;
        }
        assert!(Instant::now() < deadline, "the replica did not sync");
        std::thread::sleep(Duration::from_millis(20));
    }
    let config = RedisConfig {
        min_replicas_acked: 1,
        replica_ack_timeout_ms: 150,
        ..config(primary.url(), 3000)
    };
    let b = RedisBackplane::connect(config, "n1").await.unwrap();
    b.register(entry("r1", "INV1")).await.unwrap();
    let l = b.claim("r1").await.unwrap();
    b.save_snapshot("r1", l.epoch, stored("r1", "INV1", 1))
        .await
        .unwrap();
    // Answered, so on the replica: the claim's epoch and the snapshot.
    let (owner, epoch, ver): (String, u64, u64) = redis::cmd("HMGET")
        .arg("t:room:{r1}")
        .arg("owner")
        .arg("epoch")
        .arg("ver")
        .query(&mut on_replica)
        .unwrap();
    assert_eq!((owner.as_str(), epoch, ver), ("n1", l.epoch, 1));

    // The replica stops answering.
    signal(replica.child.as_ref().unwrap(), "-STOP");
    let r = b
        .save_snapshot("r1", l.epoch, stored("r1", "INV1", 2))
        .await;
    assert!(matches!(r, Err(BackplaneError::Unavailable(_))), "{r:?}");
    let r = b.register(entry("r2", "INV2")).await;
    assert!(matches!(r, Err(BackplaneError::Unavailable(_))), "{r:?}");
    // A heartbeat sent while a write waits for the replica is answered
    // first: the waits have their own connection.
    let (beat, write) = tokio::join!(
        async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            b.heartbeat().await.unwrap();
            Instant::now()
        },
        async {
            let r = b
                .save_snapshot("r1", l.epoch, stored("r1", "INV1", 3))
                .await;
            assert!(matches!(r, Err(BackplaneError::Unavailable(_))), "{r:?}");
            Instant::now()
        }
    );
    assert!(beat < write, "the heartbeat waited for the WAIT");
    signal(replica.child.as_ref().unwrap(), "-CONT");

    // Back: writes succeed again, and the claim of the same node too.
    b.save_snapshot("r1", l.epoch, stored("r1", "INV1", 4))
        .await
        .unwrap();
    let l2 = b.claim("r1").await.unwrap();
    assert!(l2.epoch > l.epoch);
    // A script cache emptied (as a promoted replica's is): loaded again.
    let mut on_primary = primary.client().get_connection().unwrap();
    let _: () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query(&mut on_primary)
        .unwrap();
    b.save_snapshot("r1", l2.epoch, stored("r1", "INV1", 5))
        .await
        .unwrap();
    let ver: u64 = on_replica.hget("t:room:{r1}", "ver").unwrap();
    assert_eq!(ver, 5);
}
