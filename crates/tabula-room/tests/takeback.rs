//! Takebacks (issue 46): a player asks to take back the turn he just
//! played; his opponent accepts (the game is as it was right after that
//! turn's roll, the same dice to play again) or declines; never in a rated
//! game or against the computer; lapsed by any action meanwhile; a
//! snapshot replays it.

mod common;

use common::*;
use tabula_room::{
    BoardView, BotNeed, Command, Event, GameOptions, Room, RoomConfig, RoomError, SeatId,
    TimeControl,
};

fn config(options: GameOptions) -> RoomConfig {
    RoomConfig {
        master_seed: "takeback".into(),
        options,
        ..RoomConfig::default()
    }
}

fn games() -> [GameOptions; 3] {
    [
        GameOptions::default(),
        GameOptions::backgammon(Default::default()),
        GameOptions::thud(Default::default()),
    ]
}

/// Plays one whole turn of whoever is to act (a roll first if his dice
/// are not rolled; turns that pass for want of a move are played over);
/// returns the seat, the board and the dice his turn began with.
fn play_turn(t: &mut Table) -> (SeatId, BoardView, Option<[u8; 2]>) {
    loop {
        let game = t.room.game().expect("a game");
        let (seat, need) = game.to_act().expect("someone acts");
        if need == BotNeed::Roll {
            t.ok(actor(seat), Command::RollDice);
            if t.room.game().and_then(|g| g.to_act()).map(|(s, _)| s) != Some(seat) {
                continue; // passed: no legal move
            }
        }
        let game = t.room.game().expect("a game");
        let board = game.board_view();
        let dice = t.history.iter().rev().find_map(|e| match &*e.event {
            Event::DiceRolled { dice, .. } => Some(*dice),
            Event::OpeningRoll { first_roll, .. } => *first_roll,
            _ => None,
        });
        let dice = if game.thud_game().is_some() {
            None
        } else {
            dice
        };
        t.autoplay(1);
        while t.room.game().and_then(|g| g.to_act()).map(|(s, _)| s) == Some(seat) {
            t.autoplay(1);
        }
        return (seat, board, dice);
    }
}

#[test]
fn an_accepted_takeback_gives_the_same_roll_on_the_same_board_in_every_game() {
    for options in games() {
        let mut t = Table::started(config(options));
        // A few turns in, then one to take back.
        for _ in 0..3 {
            play_turn(&mut t);
        }
        let (seat, board, dice) = play_turn(&mut t);
        assert_ne!(
            t.room.game().unwrap().board_view(),
            board,
            "{options:?}: moved"
        );
        let actions_before = t.room.game().unwrap().actions().to_vec();
        let ev = t.ok(actor(seat), Command::Takeback);
        assert_eq!(ev, [Event::TakebackOffered { seat }]);
        let ev = t.ok(actor(seat.other()), Command::AcceptTakeback);
        assert_eq!(
            ev[0],
            Event::TakebackAccepted {
                seat,
                board: board.clone(),
                dice
            },
            "{options:?}"
        );
        let game = t.room.game().unwrap();
        assert_eq!(game.board_view(), board);
        assert_eq!(game.to_act(), Some((seat, BotNeed::Move)), "{options:?}");
        if let Some(d) = dice {
            // The same roll to play, with its moves.
            assert!(
                matches!(&ev[1], Event::PossibleMoves { seat: s, dice_left, .. }
                    if *s == seat && dice_left.len() >= 2 && dice_left.contains(&d[0])),
                "{ev:?}"
            );
        }
        // The game's actions (its record, its replay) end at the roll again:
        // the taken-back steps are gone.
        let actions = t.room.game().unwrap().actions();
        assert!(actions.len() < actions_before.len(), "{options:?}");
        assert_eq!(actions, &actions_before[..actions.len()], "{options:?}");
        // The state says so too: the roll and its moves.
        let view = t.room.view();
        assert_eq!(view.dice, dice, "{options:?}");
        assert_eq!(view.moves.is_some(), dice.is_some(), "{options:?}");
        // The snapshot replays to the same room, and the game goes on.
        let restored = Room::restore(&t.room.snapshot()).expect("replays");
        assert_eq!(restored.view(), t.room.view());
        // Played to its end, the game's record verifies.
        t.autoplay(100_000);
        let record = t.room.records().last().expect("the game ended");
        tabula_room::verify(record).expect("the record with the takeback verifies");
    }
}

#[test]
fn declined_withdrawn_or_lapsed_it_changes_nothing_and_is_not_asked_twice() {
    let mut t = Table::started(config(GameOptions::default()));
    play_turn(&mut t);
    let (seat, ..) = play_turn(&mut t);
    let (a, b) = (actor(seat), actor(seat.other()));
    // Withdrawn by the asker: asked again after.
    t.ok(a.clone(), Command::Takeback);
    assert_eq!(
        t.try_cmd(a.clone(), Command::Takeback).unwrap_err(),
        RoomError::TakebackPending
    );
    assert_eq!(
        t.try_cmd(a.clone(), Command::AcceptTakeback).unwrap_err(),
        RoomError::NoTakebackOffered,
        "not his own"
    );
    assert_eq!(
        t.ok(a.clone(), Command::DeclineTakeback),
        [Event::TakebackDeclined { seat }]
    );
    // Declined by the opponent: not asked again for this turn.
    t.ok(a.clone(), Command::Takeback);
    let view = t.room.game().unwrap().board_view();
    assert_eq!(
        t.ok(b.clone(), Command::DeclineTakeback),
        [Event::TakebackDeclined { seat: seat.other() }]
    );
    assert_eq!(t.room.game().unwrap().board_view(), view);
    assert_eq!(
        t.try_cmd(a.clone(), Command::Takeback).unwrap_err(),
        RoomError::TakebackDeclined
    );
    assert_eq!(
        t.try_cmd(b.clone(), Command::AcceptTakeback).unwrap_err(),
        RoomError::NoTakebackOffered
    );
    // The opponent plays; the next turn's takeback, asked and lapsed by
    // the opponent's roll.
    play_turn(&mut t);
    let (s2, ..) = play_turn(&mut t);
    assert_eq!(s2, seat);
    t.ok(a.clone(), Command::Takeback);
    let ev = t.ok(b.clone(), Command::RollDice);
    assert!(
        ev.contains(&Event::TakebackDeclined { seat: seat.other() }),
        "{ev:?}"
    );
    assert_eq!(
        t.try_cmd(b, Command::AcceptTakeback).unwrap_err(),
        RoomError::NoTakebackOffered
    );
    // Now nothing to take back: the opponent has acted.
    assert_eq!(
        t.try_cmd(a, Command::Takeback).unwrap_err(),
        RoomError::NothingToTakeBack
    );
}

#[test]
fn only_the_turn_just_played_in_a_casual_game_between_people() {
    // Before any turn of his, and during his own turn: nothing to take back.
    let mut t = Table::started(config(GameOptions::default()));
    let (seat, _) = t.room.game().unwrap().to_act().unwrap();
    for s in [seat, seat.other()] {
        assert_eq!(
            t.try_cmd(actor(s), Command::Takeback).unwrap_err(),
            RoomError::NothingToTakeBack
        );
    }
    let (seat, ..) = play_turn(&mut t);
    assert_eq!(
        t.try_cmd(actor(seat.other()), Command::Takeback)
            .unwrap_err(),
        RoomError::NothingToTakeBack,
        "the opponent has no turn to take back"
    );
    // Rated: never.
    let mut t = Table::started(RoomConfig {
        rated: true,
        ..config(GameOptions::default())
    });
    let (seat, ..) = play_turn(&mut t);
    assert_eq!(
        t.try_cmd(actor(seat), Command::Takeback).unwrap_err(),
        RoomError::TakebackNotAllowed
    );
    // Against the computer: never.
    let mut t = Table::new(RoomConfig {
        bot: Some(1),
        ..config(GameOptions::default())
    });
    t.ok(
        alice(),
        Command::Sit {
            seat: Some(SeatId::A),
        },
    );
    assert_eq!(
        t.try_cmd(alice(), Command::Takeback).unwrap_err(),
        RoomError::TakebackNotAllowed
    );
    // A spectator or a stranger: not seated.
    let mut t = Table::started(config(GameOptions::default()));
    play_turn(&mut t);
    let stranger = tabula_room::Actor::Player(tabula_room::PlayerId::new("carol"));
    assert_eq!(
        t.try_cmd(stranger, Command::Takeback).unwrap_err(),
        RoomError::NotSeated
    );
}

#[test]
fn under_a_clock_the_taker_back_s_clock_runs_again() {
    let mut t = Table::started(RoomConfig {
        time_control: Some(TimeControl::NORMAL),
        ..config(GameOptions::default())
    });
    play_turn(&mut t);
    let (seat, ..) = play_turn(&mut t);
    let running = |t: &Table| t.room.view().clock.and_then(|c| c.running).map(|r| r.seat);
    assert_eq!(running(&t), Some(seat.other()));
    t.ok(actor(seat), Command::Takeback);
    t.ok(actor(seat.other()), Command::AcceptTakeback);
    assert_eq!(running(&t), Some(seat));
}
