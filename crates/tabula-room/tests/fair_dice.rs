//! Provably fair dice: commitment, derivation, reveal, verification.

mod common;

use common::*;
use tabula_room::{
    Action, Command, Event, GameOptions, RoomConfig, SeatId, VerifyError, fair, verify,
};

fn finished_game(options: GameOptions) -> Table {
    let mut t = Table::seated(RoomConfig {
        options,
        master_seed: "server-secret".into(),
        ..RoomConfig::default()
    });
    t.ok(
        alice(),
        Command::SetClientSeed {
            seed: "alice-seed".into(),
        },
    );
    t.ok(
        bob(),
        Command::SetClientSeed {
            seed: "bob-seed".into(),
        },
    );
    t.ok(alice(), Command::Ready);
    t.ok(bob(), Command::Ready);
    t.autoplay(5_000);
    assert!(t.room.game().unwrap().result().is_some(), "the game ended");
    t
}

#[test]
fn every_roll_is_derived_from_the_committed_server_seed_and_both_client_seeds() {
    // Given a long nardy game played to the end with client seeds set
    let t = finished_game(GameOptions::default());
    let record = &t.room.records()[0];
    // Then the revealed seed matches the commitment published at the start
    let committed = t
        .history
        .iter()
        .find_map(|e| match &*e.event {
            Event::GameStarted { commitment, .. } => Some(commitment.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(committed, fair::commitment(&record.setup.server_seed));
    assert!(t.history.iter().any(|e| matches!(&*e.event,
        Event::GameEnded { server_seed, .. } if *server_seed == record.setup.server_seed)));
    assert_eq!(
        record.setup.client_seeds,
        ["alice-seed".to_string(), "bob-seed".to_string()]
    );
    // And each diceRolled is derive_roll(k)
    for e in &t.history {
        if let Event::DiceRolled {
            dice, roll_index, ..
        } = &*e.event
        {
            assert_eq!(
                *dice,
                fair::derive_roll(
                    &record.setup.server_seed,
                    "alice-seed",
                    "bob-seed",
                    *roll_index
                )
            );
        }
    }
    // And the verifier replays the whole game
    let json = serde_json::to_string(record).unwrap();
    let v = verify(&serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(v.result, record.result);
    assert!(v.rolls > 10);
}

#[test]
fn a_backgammon_game_record_verifies() {
    let t = finished_game(GameOptions::backgammon(Default::default()));
    verify(&t.room.records()[0]).unwrap();
}

#[test]
fn a_thud_game_record_verifies() {
    let mut o = GameOptions::thud(Default::default());
    o.thud.max_plies_without_capture = Some(6);
    let t = finished_game(o);
    verify(&t.room.records()[0]).unwrap();
}

#[test]
fn a_tampered_roll_fails_verification() {
    let t = finished_game(GameOptions::default());
    let mut record = t.room.records()[0].clone();
    let i = record
        .actions
        .iter()
        .position(|a| matches!(a, Action::Roll { .. }))
        .unwrap();
    if let Action::Roll { dice, .. } = &mut record.actions[i] {
        dice[0] = dice[0] % 6 + 1;
    }
    assert!(matches!(verify(&record), Err(VerifyError::Mismatch { index, .. }) if index == i));
}

#[test]
fn a_swapped_server_seed_fails_the_commitment() {
    let t = finished_game(GameOptions::default());
    let mut record = t.room.records()[0].clone();
    record.setup.server_seed = "another".into();
    assert!(matches!(
        verify(&record),
        Err(VerifyError::CommitmentMismatch { .. })
    ));
}

#[test]
fn a_tampered_move_or_result_fails_verification() {
    let t = finished_game(GameOptions::default());
    let good = t.room.records()[0].clone();
    // A step the engine refuses
    let mut bad = good.clone();
    let i = bad
        .actions
        .iter()
        .position(|a| matches!(a, Action::Step { .. }))
        .unwrap();
    if let Action::Step { from, to, .. } = &mut bad.actions[i] {
        *from = tabula_room::Spot::Point(1);
        *to = tabula_room::Spot::Point(2);
    }
    assert!(matches!(verify(&bad), Err(VerifyError::Rejected { index, .. }) if index == i));
    // A different result
    let mut bad = good.clone();
    bad.result.points += 1;
    assert!(matches!(
        verify(&bad),
        Err(VerifyError::ResultMismatch { .. })
    ));
    // A truncated game
    let mut bad = good;
    bad.actions.pop();
    assert!(matches!(verify(&bad), Err(VerifyError::Length { .. })));
}

#[test]
fn client_seeds_are_locked_during_a_game() {
    let mut t = Table::started(RoomConfig::default());
    assert_eq!(
        t.try_cmd(alice(), Command::SetClientSeed { seed: "x".into() })
            .unwrap_err(),
        tabula_room::RoomError::SeedLocked
    );
    let _ = SeatId::A;
}

#[test]
fn played_turns_replay_each_turn_from_its_start() {
    use tabula_room::{PlayedTurn, played_turns};
    for options in [
        GameOptions::default(),
        GameOptions::backgammon(Default::default()),
    ] {
        let t = finished_game(options);
        let record = &t.room.records()[0];
        let turns = played_turns(record).unwrap();
        let steps_recorded = record
            .actions
            .iter()
            .filter(|a| matches!(a, Action::Step { .. }))
            .count();
        let mut steps_seen = 0;
        assert!(turns.len() > 10, "{} turns", turns.len());
        for turn in &turns {
            match turn {
                PlayedTurn::LongNardy {
                    dice, start, steps, ..
                } => {
                    steps_seen += steps.len();
                    let mut tn = start.turn_with(*dice);
                    for s in steps {
                        tn.play_step(*s).unwrap();
                    }
                    assert!(tn.finish().is_ok() || tn.position().is_game_over());
                }
                PlayedTurn::Backgammon {
                    dice, start, steps, ..
                } => {
                    steps_seen += steps.len();
                    let mut tn = tabula_backgammon::Turn::new(start, *dice);
                    for &(f, to) in steps {
                        tn.step_to(f, to).unwrap();
                    }
                    assert!(tn.finish().is_ok());
                }
                _ => unreachable!("a dice game"),
            }
        }
        assert_eq!(steps_seen, steps_recorded);
        // A tampered record is refused, as by `verify`.
        let mut bad = record.clone();
        bad.setup.server_seed.push('x');
        assert!(played_turns(&bad).is_err());
    }
}
