//! A rematch after a finished match between two people: both ask, the
//! new match starts with the seats (so the colours) swapped; refusals;
//! an offer called off by a seat freed or declined; snapshots replay it.

mod common;

use common::*;
use tabula_room::{
    Actor, BotNeed, Command, EndReason, Event, GameKind, GameOptions, Phase, PlayerId,
    PlayerResult, Room, RoomConfig, RoomError, SeatId,
};

fn config() -> RoomConfig {
    RoomConfig {
        master_seed: "rematch".into(),
        ..RoomConfig::default()
    }
}

/// Alice (seat A) and Bob (seat B) played a single game: Alice resigned.
fn finished(config: RoomConfig) -> Table {
    let mut t = Table::started(config);
    t.ok(alice(), Command::Resign);
    assert_eq!(t.room.phase(), Phase::Finished);
    t
}

fn carol() -> Actor {
    Actor::Player(PlayerId::new("carol"))
}

fn player(id: &str) -> PlayerId {
    PlayerId::new(id)
}

/// The refusal of `cmd` by `who`, checking that it changed nothing.
fn refused(t: &mut Table, who: Actor, cmd: Command) -> RoomError {
    let before = (t.room.version(), t.room.view());
    let e = t.try_cmd(who, cmd).expect_err("refused");
    assert_eq!(
        (t.room.version(), t.room.view()),
        before,
        "{e}: nothing changed"
    );
    e
}

#[test]
fn both_ask_and_a_new_match_starts_with_the_colours_swapped() {
    let mut t = finished(config());
    let first_commitment = match &t.history.iter().find_map(|e| match &*e.event {
        Event::GameStarted { commitment, .. } => Some(commitment.clone()),
        _ => None,
    }) {
        Some(c) => c.clone(),
        None => panic!("the first game started"),
    };
    assert_eq!(t.room.score(), [0, 2], "Bob won a mars");
    // Each sets a client seed for the next game: it is his own.
    t.ok(
        alice(),
        Command::SetClientSeed {
            seed: "alice's".into(),
        },
    );
    t.ok(
        bob(),
        Command::SetClientSeed {
            seed: "bob's".into(),
        },
    );

    // Alice asks: both are told, the state shows it, nothing starts.
    let ev = t.ok(alice(), Command::Rematch);
    assert_eq!(ev, [Event::RematchOffered { seat: SeatId::A }]);
    assert_eq!(t.room.view().rematch, [SeatId::A]);
    assert_eq!(t.room.phase(), Phase::Finished);
    let json = serde_json::to_value(t.room.view()).unwrap();
    assert_eq!(json["rematch"], serde_json::json!(["a"]));
    assert!(json.get("matchNumber").is_none(), "only after a rematch");

    // Bob asks too: the new match starts at once, Bob now White (seat A).
    let ev = t.ok(bob(), Command::Rematch);
    assert_eq!(ev[0], Event::RematchOffered { seat: SeatId::B });
    assert_eq!(
        ev[1],
        Event::RematchStarted {
            match_number: 2,
            players: [player("bob"), player("alice")],
        }
    );
    let Event::GameStarted {
        game_number,
        commitment,
        client_seeds,
        ..
    } = &ev[2]
    else {
        panic!("the new game starts: {:?}", ev[2]);
    };
    assert_eq!(
        *game_number, 2,
        "game numbers count on: a new seed, a new record"
    );
    assert_ne!(*commitment, first_commitment);
    assert_eq!(client_seeds, &["bob's".to_string(), "alice's".to_string()]);
    assert_eq!(t.room.phase(), Phase::Playing);
    assert_eq!(t.room.seat_of(&player("bob")), Some(SeatId::A));
    assert_eq!(t.room.seat_of(&player("alice")), Some(SeatId::B));
    assert_eq!(t.room.score(), [0, 0]);
    assert_eq!(t.room.match_number(), 2);
    let view = t.room.view();
    assert!(view.rematch.is_empty());
    assert_eq!(view.match_number, 2);
    assert_eq!(view.seats[0].player, Some(player("bob")));
    assert_eq!(view.seats[1].player, Some(player("alice")));
    assert_eq!(
        serde_json::to_value(&view).unwrap()["matchNumber"],
        serde_json::json!(2)
    );
    assert!(view.to_act.is_some(), "someone is to act: {view:?}");

    // Bob, seat A now, resigns: Alice wins, and the statistics name each
    // player at his new seat.
    let ev = t.ok(bob(), Command::Resign);
    let players = ev
        .iter()
        .find_map(|e| match e {
            Event::Stats { players, .. } => Some(players.clone()),
            _ => None,
        })
        .expect("stats for the host");
    assert_eq!(players[0].player, Some(player("bob")));
    assert_eq!(players[0].result, PlayerResult::Lose);
    assert_eq!(players[1].player, Some(player("alice")));
    assert_eq!(players[1].result, PlayerResult::Win);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::MatchOver {
            winner: Some(SeatId::B),
            score: [0, 2]
        }
    )));
    assert_eq!(t.room.phase(), Phase::Finished);
    let numbers: Vec<u32> = t
        .room
        .records()
        .iter()
        .map(|r| r.setup.game_number)
        .collect();
    assert_eq!(numbers, [1, 2]);
    assert_eq!(t.room.records()[1].result.reason, EndReason::Resigned);
    assert_eq!(t.room.records()[1].result.winner, Some(SeatId::B));

    // A snapshot replays it all, through JSON.
    let json = serde_json::to_string(&t.room.snapshot()).unwrap();
    let back = Room::restore(&serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(back.version(), t.room.version());
    assert_eq!(back.view(), t.room.view());
    assert_eq!(back.records(), t.room.records());
    assert_eq!(back.match_number(), 2);
}

#[test]
fn a_second_rematch_swaps_back() {
    let mut t = finished(config());
    t.ok(bob(), Command::Rematch);
    t.ok(alice(), Command::Rematch);
    // Bob is seat A; Alice (seat B) resigns this time.
    t.ok(alice(), Command::Resign);
    t.ok(alice(), Command::Rematch);
    let ev = t.ok(bob(), Command::Rematch);
    assert!(ev.contains(&Event::RematchStarted {
        match_number: 3,
        players: [player("alice"), player("bob")],
    }));
    assert_eq!(t.room.seat_of(&player("alice")), Some(SeatId::A));
    assert_eq!(t.room.game_number(), 3);
}

#[test]
fn a_snapshot_taken_while_an_offer_is_open_keeps_it() {
    let mut t = finished(config());
    t.ok(bob(), Command::Rematch);
    let back = Room::restore(&t.room.snapshot()).unwrap();
    assert_eq!(back.view().rematch, [SeatId::B]);
    let mut u = Table::of(back, t.now);
    let ev = u.ok(alice(), Command::Rematch);
    assert!(matches!(ev[1], Event::RematchStarted { .. }), "{ev:?}");
}

#[test]
fn refusals_have_their_reasons_and_change_nothing() {
    // Before the match is over.
    let mut t = Table::started(config());
    assert_eq!(
        refused(&mut t, alice(), Command::Rematch),
        RoomError::MatchNotFinished
    );
    let mut t = Table::seated(config());
    assert_eq!(
        refused(&mut t, alice(), Command::Rematch),
        RoomError::MatchNotFinished
    );

    let mut t = finished(config());
    // A spectator, or a stranger.
    t.ok(carol(), Command::Spectate);
    assert_eq!(
        refused(&mut t, carol(), Command::Rematch),
        RoomError::NotSeated
    );
    assert_eq!(
        refused(&mut t, Actor::Player(player("dave")), Command::Rematch),
        RoomError::NotSeated
    );
    // Nothing to decline yet.
    assert_eq!(
        refused(&mut t, bob(), Command::DeclineRematch),
        RoomError::NoRematchOffered
    );
    // Twice.
    t.ok(alice(), Command::Rematch);
    assert_eq!(
        refused(&mut t, alice(), Command::Rematch),
        RoomError::RematchAlreadyOffered
    );
    // A bot actor in a room of people.
    assert_eq!(
        refused(&mut t, Actor::Bot(SeatId::B), Command::Rematch),
        RoomError::RematchWithBot
    );
}

#[test]
fn there_is_no_rematch_against_a_bot() {
    let mut t = Table::new(RoomConfig {
        bot: Some(1),
        ..config()
    });
    t.ok(
        alice(),
        Command::Sit {
            seat: Some(SeatId::A),
        },
    );
    t.ok(alice(), Command::Ready);
    t.ok(Actor::Bot(SeatId::B), Command::Ready);
    assert_eq!(t.room.phase(), Phase::Playing);
    t.ok(alice(), Command::Resign);
    assert_eq!(t.room.phase(), Phase::Finished);
    assert_eq!(
        refused(&mut t, alice(), Command::Rematch),
        RoomError::RematchWithBot
    );
    assert_eq!(
        refused(&mut t, Actor::Bot(SeatId::B), Command::Rematch),
        RoomError::RematchWithBot
    );

    // Nor once a bot has taken the seat of a player who left mid-game.
    let mut t = Table::started(RoomConfig {
        replace_leaver: Some(2),
        ..config()
    });
    t.ok(bob(), Command::Leave);
    assert_eq!(t.room.bot_in(SeatId::B), Some(2));
    t.ok(alice(), Command::Resign);
    assert_eq!(
        refused(&mut t, alice(), Command::Rematch),
        RoomError::RematchWithBot
    );
}

#[test]
fn an_opponent_who_left_cannot_be_asked() {
    let mut t = finished(config());
    t.ok(bob(), Command::Leave);
    assert_eq!(
        refused(&mut t, alice(), Command::Rematch),
        RoomError::NoOpponent
    );
}

#[test]
fn leaving_standing_up_or_dropping_off_calls_an_offer_off() {
    for (leaver, how) in [
        (bob(), Command::StandUp),
        (bob(), Command::Leave),
        (bob(), Command::Disconnected),
        // The one who asked, leaving, withdraws his offer.
        (alice(), Command::Leave),
    ] {
        let mut t = finished(config());
        t.ok(alice(), Command::Rematch);
        let seat = t.room.seat_of(&match &leaver {
            Actor::Player(p) => p.clone(),
            Actor::Bot(_) => unreachable!(),
        });
        let seat = seat.expect("seated");
        let ev = t.ok(leaver.clone(), how.clone());
        assert_eq!(ev[0], Event::RematchDeclined { seat }, "{how:?}");
        assert!(matches!(ev[1], Event::SeatFreed { .. }), "{how:?}: {ev:?}");
        assert!(t.room.view().rematch.is_empty());
        // The one who stays cannot ask a seat that is empty.
        let stayer = if seat == SeatId::A { bob() } else { alice() };
        assert_eq!(
            refused(&mut t, stayer, Command::Rematch),
            RoomError::NoOpponent
        );
    }
    // Without an offer, leaving says nothing of a rematch.
    let mut t = finished(config());
    let ev = t.ok(bob(), Command::Leave);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::RematchDeclined { .. }))
    );
}

#[test]
fn an_offer_is_declined_or_withdrawn_and_may_be_made_again() {
    let mut t = finished(config());
    t.ok(alice(), Command::Rematch);
    assert_eq!(
        t.ok(bob(), Command::DeclineRematch),
        [Event::RematchDeclined { seat: SeatId::B }]
    );
    assert!(t.room.view().rematch.is_empty());
    assert_eq!(t.room.phase(), Phase::Finished);
    // Asked again, withdrawn by the asker.
    t.ok(alice(), Command::Rematch);
    assert_eq!(
        t.ok(alice(), Command::DeclineRematch),
        [Event::RematchDeclined { seat: SeatId::A }]
    );
    // And asked once more, both: it starts.
    t.ok(bob(), Command::Rematch);
    let ev = t.ok(alice(), Command::Rematch);
    assert!(matches!(ev[1], Event::RematchStarted { .. }), "{ev:?}");
}

#[test]
fn a_rematch_of_a_longer_match_starts_from_a_new_score() {
    let mut t = Table::started(RoomConfig {
        match_length: 3,
        ..config()
    });
    // Between the games of a match there is no rematch.
    t.ok(alice(), Command::Resign);
    assert_eq!(t.room.phase(), Phase::WaitingForPlayer);
    assert_eq!(
        refused(&mut t, bob(), Command::Rematch),
        RoomError::MatchNotFinished
    );
    t.ok(alice(), Command::Ready);
    t.ok(bob(), Command::Ready);
    t.ok(alice(), Command::Resign);
    assert_eq!(t.room.phase(), Phase::Finished);
    assert_eq!(t.room.score(), [0, 4]);
    t.ok(alice(), Command::Rematch);
    t.ok(bob(), Command::Rematch);
    assert_eq!(t.room.score(), [0, 0]);
    assert_eq!(t.room.game_number(), 3);
    let Some(Event::GameStarted {
        crawford,
        cube_enabled,
        ..
    }) = t.history.iter().rev().find_map(|e| match &*e.event {
        e @ Event::GameStarted { .. } => Some(e.clone()),
        _ => None,
    })
    else {
        panic!("a game started");
    };
    assert!(!crawford, "a new match starts without the Crawford game");
    assert!(cube_enabled);
}

#[test]
fn a_thud_rematch_swaps_who_plays_first() {
    let mut t = finished(RoomConfig {
        options: GameOptions {
            game: GameKind::Thud,
            ..GameOptions::default()
        },
        ..config()
    });
    t.ok(alice(), Command::Rematch);
    t.ok(bob(), Command::Rematch);
    assert_eq!(t.room.seat_of(&player("bob")), Some(SeatId::A));
    assert_eq!(t.room.phase(), Phase::Playing);
    // Bob, now seat A, moves first (the dwarfs).
    assert_eq!(
        t.room.game().and_then(|g| g.to_act()),
        Some((SeatId::A, BotNeed::Move))
    );
}
