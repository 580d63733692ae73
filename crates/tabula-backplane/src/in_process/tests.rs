//! The in-process backplane's scenarios (the Redis one runs the same
//! ones against real servers: `tests/redis.rs`, where the quick-match,
//! unfinished-games and profile scenarios are one function run on both).

use std::task::{Context, Poll, Waker};

use tabula_room::{GameOptions, PlayerDelta, PlayerId, Room, RoomConfig};

use super::*;
use crate::{Archive, ArchiveBacklog, NodeBus, RoomAppend, RoomStore};

/// The in-process futures are ready at once.
fn block_on<T>(mut f: BoxFuture<'_, T>) -> T {
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("in-process futures are ready at once"),
    }
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

#[test]
fn directory_registers_and_resolves_invites() {
    let b = InProcess::new("n1");
    block_on(b.register(entry("r1", "INV1"))).unwrap();
    assert!(block_on(b.register(entry("r1", "X"))).is_err());
    assert!(block_on(b.register(entry("r2", "INV1"))).is_err());
    assert_eq!(
        block_on(b.resolve_invite("INV1")).unwrap().unwrap().id,
        "r1"
    );
    assert!(block_on(b.lookup("nope")).unwrap().is_none());
}

#[test]
fn stale_epochs_cannot_write_snapshots() {
    let b = InProcess::new("n1");
    let snap = StoredRoom {
        entry: entry("r1", "INV1"),
        snapshot: Room::new(RoomConfig::default()).snapshot(),
        seqs: BTreeMap::new(),
    };
    let l1 = block_on(b.claim("r1")).unwrap();
    block_on(b.save_snapshot("r1", l1.epoch, snap.clone())).unwrap();
    block_on(b.release("r1", l1.epoch, false)).unwrap();
    let l2 = block_on(b.claim("r1")).unwrap();
    assert!(l2.epoch > l1.epoch);
    assert!(matches!(
        block_on(b.save_snapshot("r1", l1.epoch, snap.clone())),
        Err(BackplaneError::Fenced { .. })
    ));
    block_on(b.save_snapshot("r1", l2.epoch, snap.clone())).unwrap();
    assert_eq!(block_on(b.load_snapshot("r1")).unwrap(), Some(snap));
}

#[test]
fn a_room_released_idle_is_forgotten_after_its_keep_unless_claimed_again() {
    let b = InProcess::new("n1");
    let keep = Duration::from_millis(40);
    let stored = |id: &str, invite: &str| StoredRoom {
        entry: entry(id, invite),
        snapshot: Room::new(RoomConfig::default()).snapshot(),
        seqs: BTreeMap::new(),
    };
    for (id, invite) in [("r1", "INV1"), ("r2", "INV2")] {
        block_on(b.register(entry(id, invite))).unwrap();
        let l = block_on(b.claim(id)).unwrap();
        block_on(b.save_snapshot(id, l.epoch, stored(id, invite))).unwrap();
        block_on(b.save_record(id, 1, "{}".into())).unwrap();
        block_on(b.queue_archive(&format!("{id}#1"), format!("e-{id}"))).unwrap();
        // Only the owner at its epoch may release it.
        assert!(matches!(
            block_on(b.release_idle(id, l.epoch + 1, keep, None)),
            Err(BackplaneError::Fenced { .. })
        ));
        block_on(b.release_idle(id, l.epoch, keep, None)).unwrap();
        assert_eq!(block_on(b.owner(id)).unwrap(), None);
    }
    // Not listed for an owner, and kept until the keep runs out
    assert!(block_on(b.orphans()).unwrap().is_empty());
    assert!(block_on(b.load_snapshot("r1")).unwrap().is_some());
    // A claim (a join restoring it) keeps r2
    block_on(b.claim("r2")).unwrap();
    std::thread::sleep(keep + Duration::from_millis(20));
    assert!(block_on(b.lookup("r1")).unwrap().is_none());
    assert!(block_on(b.resolve_invite("INV1")).unwrap().is_none());
    assert!(block_on(b.load_snapshot("r1")).unwrap().is_none());
    assert!(block_on(b.records("r1")).unwrap().is_empty());
    assert_eq!(
        block_on(b.resolve_invite("INV2")).unwrap().unwrap().id,
        "r2"
    );
    assert!(block_on(b.load_snapshot("r2")).unwrap().is_some());
    assert_eq!(block_on(b.records("r2")).unwrap().len(), 1);
    // The archive queue outlives the forgotten room: oldest first, a
    // second queuing keeps the first entry and its place, `archived` takes
    // it off.
    let q = block_on(b.archive_queue(10)).unwrap();
    assert_eq!(
        q,
        vec![
            ("r1#1".into(), "e-r1".into()),
            ("r2#1".into(), "e-r2".into())
        ]
    );
    assert_eq!(block_on(b.archive_backlog()).unwrap().games, 2);
    block_on(b.queue_archive("r1#1", "again".into())).unwrap();
    assert_eq!(
        block_on(b.archive_queue(1)).unwrap(),
        vec![("r1#1".into(), "e-r1".into())]
    );
    assert_eq!(block_on(b.archive_backlog()).unwrap().games, 2);
    block_on(b.archived("r1#1")).unwrap();
    block_on(b.archived("never#1")).unwrap();
    assert_eq!(
        block_on(b.archive_queue(10)).unwrap(),
        vec![("r2#1".into(), "e-r2".into())]
    );
    block_on(b.archived("r2#1")).unwrap();
    assert_eq!(
        block_on(b.archive_backlog()).unwrap(),
        ArchiveBacklog::default()
    );
    // The forgotten room's id and invite are free again
    block_on(b.register(entry("r1", "INV1"))).unwrap();
}

#[test]
fn appends_extend_the_stored_room_and_refuse_gaps() {
    use tabula_room::{Actor, Command};
    let b = InProcess::new("n1");
    let mut room = Room::new(RoomConfig::default());
    let full = |room: &Room| StoredRoom {
        entry: entry("r1", "INV1"),
        snapshot: room.snapshot(),
        seqs: BTreeMap::new(),
    };
    let append = |room: &Room, base: usize| RoomAppend {
        base,
        inputs: room.inputs_since(base).to_vec(),
        version: room.version(),
        seqs: BTreeMap::from([("tg:1".to_string(), 7)]),
    };
    let l = block_on(b.claim("r1")).unwrap();
    // Nothing stored yet: an append is a gap.
    assert!(matches!(
        block_on(b.append_inputs("r1", l.epoch, append(&room, 0))),
        Err(BackplaneError::Gap { stored: 0, .. })
    ));
    block_on(b.save_snapshot("r1", l.epoch, full(&room))).unwrap();
    for (i, p) in ["tg:1", "tg:2"].into_iter().enumerate() {
        room.apply(
            Command::Sit { seat: None },
            Actor::Player(PlayerId::new(p)),
            i as u64,
        )
        .unwrap();
    }
    block_on(b.append_inputs("r1", l.epoch, append(&room, 0))).unwrap();
    let loaded = block_on(b.load_snapshot("r1")).unwrap().unwrap();
    assert_eq!(loaded.snapshot, room.snapshot());
    assert_eq!(loaded.seqs["tg:1"], 7);
    // The same append again no longer continues the stored log.
    assert!(matches!(
        block_on(b.append_inputs("r1", l.epoch, append(&room, 0))),
        Err(BackplaneError::Gap { stored: 2, base: 0 })
    ));
    // Fenced like a whole write.
    block_on(b.release("r1", l.epoch, false)).unwrap();
    assert!(matches!(
        block_on(b.append_inputs("r1", l.epoch, append(&room, 2))),
        Err(BackplaneError::Fenced { .. })
    ));
}

#[test]
fn stats_accumulate() {
    let b = InProcess::new("n1");
    let d = PlayerDelta {
        seat: tabula_room::SeatId::A,
        player: Some(PlayerId::new("p")),
        bot_level: None,
        opponent_bot_level: None,
        result: tabula_room::PlayerResult::Win,
        points_won: 2,
        points_lost: 0,
        mars: true,
        game: Some(tabula_room::GameKind::Thud),
    };
    block_on(b.record_stats(PlayerId::new("p"), d)).unwrap();
    let st = block_on(b.stats("p")).unwrap();
    assert_eq!(st.games, 1);
    assert_eq!(st.by_game[&tabula_room::GameKind::Thud].games, 1);
    block_on(b.forget_stats("p")).unwrap();
    assert_eq!(block_on(b.stats("p")).unwrap(), PlayerStats::default());
}

#[test]
fn dead_owners_lose_their_rooms_and_live_ones_keep_them() {
    let a = InProcess::new("a").with_lease(Duration::from_millis(50));
    let b = a.member("b");
    let l = block_on(a.claim("r1")).unwrap();
    assert!(matches!(
        block_on(b.claim("r1")),
        Err(BackplaneError::Owned { .. })
    ));
    assert!(block_on(b.orphans()).unwrap().is_empty());
    std::thread::sleep(Duration::from_millis(80));
    block_on(b.heartbeat()).unwrap();
    assert!(!block_on(b.node_alive("a")).unwrap());
    assert_eq!(block_on(b.orphans()).unwrap(), vec!["r1".to_string()]);
    let l2 = block_on(b.claim("r1")).unwrap();
    assert_eq!((l2.node.as_str(), l2.epoch), ("b", l.epoch + 1));
    let snap = StoredRoom {
        entry: entry("r1", "INV1"),
        snapshot: Room::new(RoomConfig::default()).snapshot(),
        seqs: BTreeMap::new(),
    };
    assert!(
        block_on(a.save_snapshot("r1", l.epoch, snap.clone()))
            .unwrap_err()
            .is_fenced()
    );
    block_on(b.release("r1", l2.epoch, true)).unwrap();
    assert_eq!(block_on(a.orphans()).unwrap(), vec!["r1".to_string()]);
    block_on(a.heartbeat()).unwrap();
    block_on(a.claim("r1")).unwrap();
    assert!(block_on(a.orphans()).unwrap().is_empty());
}

#[test]
fn messages_reach_the_named_node_only() {
    let a = InProcess::new("a");
    let b = a.member("b");
    let mut ia = a.take_inbox().unwrap();
    let mut ib = b.take_inbox().unwrap();
    assert!(a.take_inbox().is_none());
    block_on(a.send("b", "hello".into())).unwrap();
    assert_eq!(ib.try_recv().unwrap(), Inbound::Message("hello".into()));
    assert!(ia.try_recv().is_err());
}

#[test]
fn a_tournaments_state_and_acks_are_fenced_by_its_claim() {
    use crate::{TournamentStore, tournament_key};
    let a = InProcess::new("n1");
    let b = a.member("n2");
    block_on(b.heartbeat()).unwrap();
    let key = tournament_key("t1");
    let l = block_on(a.claim(&key)).unwrap();
    block_on(a.save_tournament("t1", l.epoch, "s1".into())).unwrap();
    assert!(block_on(a.save_tournament("t1", l.epoch + 1, "x".into())).is_err());
    assert!(block_on(b.save_tournament("t1", l.epoch, "x".into())).is_err());
    assert!(block_on(b.post_tournament("t1", "k", "e".into())).unwrap());
    assert!(!block_on(b.post_tournament("t1", "k", "e2".into())).unwrap());
    assert!(block_on(b.ack_tournament("t1", l.epoch, vec!["k".into()])).is_err());
    block_on(a.ack_tournament("t1", l.epoch, vec!["k".into()])).unwrap();
    assert!(block_on(a.tournament_inbox("t1")).unwrap().is_empty());
    assert_eq!(
        block_on(b.load_tournament("t1")).unwrap().as_deref(),
        Some("s1")
    );
}
