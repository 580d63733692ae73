//! Properties over seed-derived games: every finished game verifies, and a
//! snapshot taken at any point restores a room with the same future.

mod common;

use common::*;
use proptest::prelude::*;
use tabula_room::{Command, GameKind, GameOptions, Room, RoomConfig, verify};

fn options(kind: u8) -> GameOptions {
    match kind % 3 {
        0 => GameOptions::default(),
        1 => GameOptions::backgammon(Default::default()),
        _ => {
            let mut o = GameOptions::thud(Default::default());
            o.thud.max_plies_without_capture = Some(10);
            o
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn finished_games_verify_and_snapshots_restore_the_same_future(
        master in "[a-z0-9]{1,12}",
        client in "[a-z]{0,6}",
        kind in 0u8..3,
        cut in 0usize..60,
    ) {
        let mut t = Table::seated(RoomConfig {
            options: options(kind),
            master_seed: master,
            ..RoomConfig::default()
        });
        t.ok(alice(), Command::SetClientSeed { seed: client });
        t.ok(alice(), Command::Ready);
        t.ok(bob(), Command::Ready);
        let early = t.room.snapshot();
        t.autoplay(cut);
        let snap = t.room.snapshot();
        // An incremental snapshot (the early one plus the inputs since) is
        // the full one.
        let mut appended = early.clone();
        appended.inputs.extend_from_slice(t.room.inputs_since(early.inputs.len()));
        appended.version = t.room.version();
        prop_assert_eq!(&appended, &snap);
        prop_assert_eq!(t.room.input_count(), snap.inputs.len());
        prop_assert!(t.room.inputs_since(snap.inputs.len() + 1).is_empty());
        let mut u = Table::of(Room::restore(&snap).unwrap(), t.now);
        prop_assert_eq!(t.room.log(), u.room.log());
        let (t_cut, u_cut) = (t.history.len(), u.history.len());
        t.autoplay(5_000);
        u.autoplay(5_000);
        prop_assert_eq!(t.room.log(), u.room.log());
        // Every event after the cut, not just those the logs still hold.
        prop_assert_eq!(&t.history[t_cut..], &u.history[u_cut..]);
        let record = &t.room.records()[0];
        prop_assert_eq!(record.game, options(kind).game);
        let v = verify(record).unwrap();
        prop_assert_eq!(&v.result, &record.result);
        if record.game != GameKind::Thud {
            prop_assert!(v.rolls > 0);
        }
    }
}
