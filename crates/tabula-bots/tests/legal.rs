//! Every level only ever returns legal plays, and a seed replays.

use rand::Rng;
use tabula_bots::{Bot, Level};
use tabula_dice::{Dice, DiceSource, SeededDice};

/// Positions from random long nardy games, each with a roll.
fn long_positions(seed: u64, games: usize) -> Vec<(tabula_long::Position, Dice)> {
    let mut dice = SeededDice::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = tabula_long::Position::initial();
        while !pos.is_game_over() {
            let roll = dice.roll();
            out.push((pos, roll));
            let finals = pos.legal_moves(roll);
            let i = dice.rng().random_range(0..finals.len());
            pos = finals[i];
        }
    }
    out
}

fn bg_positions(seed: u64, games: usize) -> Vec<(tabula_backgammon::Position, Dice)> {
    let mut dice = SeededDice::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = tabula_backgammon::Position::initial();
        while !pos.is_over() {
            let roll = dice.roll();
            out.push((pos, roll));
            let finals = pos.legal_positions(roll);
            let i = dice.rng().random_range(0..finals.len());
            let next = finals[i];
            if next.is_over() {
                break;
            }
            pos = next.pass_turn();
        }
    }
    out
}

fn check_long(bot: &mut Bot, pos: &tabula_long::Position, dice: Dice) -> tabula_long::Position {
    let steps = bot
        .choose_play(tabula_bots::Position::Long(pos), Some(dice))
        .and_then(tabula_bots::Play::into_long)
        .unwrap_or_default();
    let mut turn = pos.turn_with(dice);
    for s in &steps {
        turn.play_step(*s).unwrap_or_else(|e| {
            panic!(
                "{} plays illegal {s} in {pos} with {dice}: {e}",
                bot.level()
            )
        });
    }
    let after = turn.finish().unwrap_or_else(|e| {
        panic!(
            "{} leaves an incomplete turn in {pos} with {dice}: {e}",
            bot.level()
        )
    });
    assert!(pos.legal_moves(dice).contains(&after));
    after
}

fn check_bg(
    bot: &mut Bot,
    pos: &tabula_backgammon::Position,
    dice: Dice,
) -> tabula_backgammon::Position {
    let steps = bot
        .choose_play(tabula_bots::Position::Backgammon(pos), Some(dice))
        .and_then(tabula_bots::Play::into_backgammon)
        .unwrap_or_default();
    let mut turn = tabula_backgammon::Turn::new(pos, dice);
    for &(from, to) in &steps {
        turn.step_to(from, to).unwrap_or_else(|e| {
            panic!(
                "{} plays illegal {from}/{to} in {pos:?} with {dice}: {e}",
                bot.level()
            )
        });
    }
    let after = turn.finish().unwrap_or_else(|e| {
        panic!(
            "{} leaves an incomplete turn in {pos:?} with {dice}: {e}",
            bot.level()
        )
    });
    assert!(pos.legal_positions(dice).contains(&after));
    after
}

#[test]
fn long_nardy_every_level_plays_legally() {
    let positions = long_positions(7, 6);
    for level in Level::ALL {
        let mut bot = Bot::new(level, 11);
        let step = if level == Level::Hard { 7 } else { 1 };
        for (pos, dice) in positions.iter().step_by(step) {
            check_long(&mut bot, pos, *dice);
        }
    }
}

#[test]
fn backgammon_every_level_plays_legally() {
    let positions = bg_positions(8, 8);
    for level in Level::ALL {
        let mut bot = Bot::new(level, 12);
        let step = if level == Level::Hard { 5 } else { 1 };
        for (pos, dice) in positions.iter().step_by(step) {
            check_bg(&mut bot, pos, *dice);
        }
    }
}

#[test]
fn thud_every_level_plays_legally_for_both_sides() {
    for level in Level::ALL {
        let mut bot = Bot::new(level, 13);
        let mut easy = Bot::new(Level::Easy, 14);
        let mut pos = tabula_thud::Position::start();
        for ply in 0..40 {
            let mover = if ply % 2 == 0 { &mut bot } else { &mut easy };
            let Some(mv) = mover
                .choose_play(tabula_bots::Position::Thud(&pos), None)
                .and_then(tabula_bots::Play::into_thud)
            else {
                break;
            };
            assert!(pos.is_legal(&mv), "{level} plays illegal {mv}");
            pos = pos.play(&mv).unwrap();
            // The bot also plays the other side from here.
            if ply == 20 {
                let m = bot
                    .choose_play(tabula_bots::Position::Thud(&pos), None)
                    .and_then(tabula_bots::Play::into_thud)
                    .unwrap();
                assert!(pos.is_legal(&m));
            }
        }
    }
}

#[test]
fn bots_replay_for_a_seed() {
    let positions = long_positions(21, 2);
    for level in Level::ALL {
        let mut a = Bot::new(level, 99);
        let mut b = Bot::new(level, 99);
        for (pos, dice) in positions.iter().step_by(9) {
            assert_eq!(
                a.choose_play(tabula_bots::Position::Long(pos), Some(*dice))
                    .and_then(tabula_bots::Play::into_long)
                    .unwrap_or_default(),
                b.choose_play(tabula_bots::Position::Long(pos), Some(*dice))
                    .and_then(tabula_bots::Play::into_long)
                    .unwrap_or_default()
            );
        }
    }
    let positions = bg_positions(22, 2);
    for level in Level::ALL {
        let mut a = Bot::new(level, 99);
        let mut b = Bot::new(level, 99);
        for (pos, dice) in positions.iter().step_by(5) {
            assert_eq!(
                a.choose_play(tabula_bots::Position::Backgammon(pos), Some(*dice))
                    .and_then(tabula_bots::Play::into_backgammon)
                    .unwrap_or_default(),
                b.choose_play(tabula_bots::Position::Backgammon(pos), Some(*dice))
                    .and_then(tabula_bots::Play::into_backgammon)
                    .unwrap_or_default()
            );
        }
    }
    for level in Level::ALL {
        let mut a = Bot::new(level, 5);
        let mut b = Bot::new(level, 5);
        let pos = tabula_thud::Position::start();
        assert_eq!(
            a.choose_play(tabula_bots::Position::Thud(&pos), None)
                .and_then(tabula_bots::Play::into_thud),
            b.choose_play(tabula_bots::Position::Thud(&pos), None)
                .and_then(tabula_bots::Play::into_thud)
        );
    }
}

#[test]
fn finished_or_blocked_positions_give_empty_plays() {
    let mut bot = Bot::new(Level::Hard, 1);
    let setup: tabula_long::Setup = serde_json_free_setup();
    let pos = tabula_long::Position::try_from(setup).unwrap();
    assert!(pos.is_game_over());
    assert!(
        bot.choose_play(
            tabula_bots::Position::Long(&pos),
            Some(Dice::new(3, 1).unwrap())
        )
        .and_then(tabula_bots::Play::into_long)
        .unwrap_or_default()
        .is_empty()
    );
}

fn serde_json_free_setup() -> tabula_long::Setup {
    let mut black = std::collections::BTreeMap::new();
    black.insert("12".to_string(), 15);
    tabula_long::Setup {
        turn: tabula_long::Color::Black,
        white: Default::default(),
        black,
        off: tabula_long::OffCounts {
            white: 15,
            black: 0,
        },
        first_turn: false,
    }
}
