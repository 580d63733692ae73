//! The bots' decisions, pinned: fixed-seed games of every game at every
//! level (and Hard's variants: classic long nardy, no bear-off database,
//! short nardy's single-game scoring), every decision the bot makes in them
//! (its plays, whether it doubles, whether it takes, whether it accepts the
//! end of a Thud! round) hashed into one fingerprint per game and level.
//!
//! A change to the bots' code that is meant to keep their play (a
//! refactor, a faster search) must keep these numbers; one that changes
//! play on purpose updates them and says so in `RESULTS.md`.

use tabula_bots::{Bot, Level, Play, Position};
use tabula_dice::{Dice, DiceSource, SeededDice};

/// FNV-1a over the decisions' `Debug` text: stable across platforms and
/// Rust releases (unlike `std`'s hasher).
#[derive(Debug)]
struct Fingerprint(u64);

impl Fingerprint {
    fn new() -> Fingerprint {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, decision: impl std::fmt::Debug) {
        for b in format!("{decision:?};").bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

// The bots' API in one place, so the games below read the same whatever
// it looks like.

fn long_turn(bot: &mut Bot, pos: &tabula_long::Position, dice: Dice) -> Vec<tabula_long::Step> {
    match bot.choose_play(Position::Long(pos), Some(dice)) {
        Some(Play::Long(steps)) => steps,
        None => Vec::new(),
        other => panic!("a long nardy position answered {other:?}"),
    }
}

fn bg_turn(bot: &mut Bot, pos: &tabula_backgammon::Position, dice: Dice) -> Vec<(u8, u8)> {
    match bot.choose_play(Position::Backgammon(pos), Some(dice)) {
        Some(Play::Backgammon(steps)) => steps,
        None => Vec::new(),
        other => panic!("a backgammon position answered {other:?}"),
    }
}

fn thud_move(bot: &mut Bot, pos: &tabula_thud::Position) -> Option<tabula_thud::Move> {
    match bot.choose_play(Position::Thud(pos), None) {
        Some(Play::Thud(mv)) => Some(mv),
        None => None,
        other => panic!("a Thud! position answered {other:?}"),
    }
}

fn offers_long(bot: &mut Bot, pos: &tabula_long::Position) -> bool {
    bot.offers_double(Position::Long(pos))
}

fn takes_long(bot: &mut Bot, pos: &tabula_long::Position) -> bool {
    bot.takes_double(Position::Long(pos))
}

fn offers_bg(bot: &mut Bot, pos: &tabula_backgammon::Position) -> bool {
    bot.offers_double(Position::Backgammon(pos))
}

fn takes_bg(bot: &mut Bot, pos: &tabula_backgammon::Position) -> bool {
    bot.takes_double(Position::Backgammon(pos))
}

fn accepts_end(bot: &mut Bot, pos: &tabula_thud::Position, side: tabula_thud::Side) -> bool {
    bot.accepts_end(Position::Thud(pos), side)
}

/// Two bots made by `make` (seeds 1 and 2) play `games` long nardy games
/// with seeded dice; at every turn the mover is asked whether it doubles,
/// the other whether it would take, and the mover plays.
fn long_games(make: impl Fn(u64) -> Bot, games: u32, seed: u64) -> u64 {
    let mut bots = [make(1), make(2)];
    let mut dice = SeededDice::new(seed);
    let mut fp = Fingerprint::new();
    for _ in 0..games {
        let mut pos = tabula_long::Position::initial();
        let mut who = 0;
        while !pos.is_game_over() {
            fp.add(offers_long(&mut bots[who], &pos));
            fp.add(takes_long(&mut bots[1 - who], &pos));
            let roll = dice.roll();
            let steps = long_turn(&mut bots[who], &pos, roll);
            fp.add(&steps);
            pos = pos.play_unchecked(&steps);
            who = 1 - who;
        }
        fp.add(pos.outcome());
    }
    fp.0
}

/// [`long_games`] for short nardy.
fn bg_games(make: impl Fn(u64) -> Bot, games: u32, seed: u64) -> u64 {
    let mut bots = [make(1), make(2)];
    let mut dice = SeededDice::new(seed);
    let mut fp = Fingerprint::new();
    for _ in 0..games {
        let mut pos = tabula_backgammon::Position::initial();
        let mut who = 0;
        loop {
            fp.add(offers_bg(&mut bots[who], &pos));
            fp.add(takes_bg(&mut bots[1 - who], &pos));
            let roll = dice.roll();
            let steps = bg_turn(&mut bots[who], &pos, roll);
            fp.add(&steps);
            let mut turn = tabula_backgammon::Turn::new(&pos, roll);
            for &(from, to) in &steps {
                turn.step_to(from, to).expect("a legal step");
            }
            let after = turn.finish().expect("a whole turn");
            if after.is_over() {
                fp.add(after.outcome(tabula_backgammon::Scoring::Gammons));
                break;
            }
            pos = after.pass_turn();
            who = 1 - who;
        }
    }
    fp.0
}

/// Two bots made by `make` play Thud! from the start for `plies`; before
/// every move the side not to move is asked whether it would end the round.
fn thud_game(make: impl Fn(u64) -> Bot, plies: u32) -> u64 {
    let mut bots = [make(1), make(2)];
    let mut fp = Fingerprint::new();
    let mut pos = tabula_thud::Position::start();
    for ply in 0..plies {
        let who = (ply % 2) as usize;
        let other = pos.turn().opponent();
        fp.add(accepts_end(&mut bots[1 - who], &pos, other));
        let Some(mv) = thud_move(&mut bots[who], &pos) else {
            break;
        };
        fp.add(mv);
        pos = pos.play(&mv).expect("a legal move");
    }
    fp.0
}

/// Games per level: Hard's are the slow ones.
fn games(level: Level) -> u32 {
    if level == Level::Hard { 2 } else { 4 }
}

#[test]
fn long_nardy_decisions_are_pinned() {
    let got: Vec<u64> = Level::ALL
        .into_iter()
        .map(|level| long_games(|s| Bot::new(level, s), games(level), 31))
        .chain([
            long_games(|s| Bot::new(Level::Hard, s).with_classic_long(), 1, 32),
            long_games(|s| Bot::new(Level::Hard, s).without_bearoff(), 1, 33),
        ])
        .collect();
    assert_eq!(got, LONG, "{got:#018x?}");
}

#[test]
fn backgammon_decisions_are_pinned() {
    use tabula_backgammon::Scoring;
    let got: Vec<u64> = Level::ALL
        .into_iter()
        .map(|level| bg_games(|s| Bot::new(level, s), games(level), 41))
        .chain([
            bg_games(
                |s| Bot::new(Level::Hard, s).with_backgammon_scoring(Scoring::Single),
                1,
                42,
            ),
            bg_games(|s| Bot::new(Level::Hard, s).without_bearoff(), 1, 43),
        ])
        .collect();
    assert_eq!(got, BACKGAMMON, "{got:#018x?}");
}

#[test]
fn thud_decisions_are_pinned() {
    let got: Vec<u64> = Level::ALL
        .into_iter()
        .map(|level| {
            thud_game(
                |s| Bot::new(level, s),
                if level == Level::Hard { 20 } else { 80 },
            )
        })
        .collect();
    assert_eq!(got, THUD, "{got:#018x?}");
}

/// Easy, Medium, Hard, Hard classic, Hard without the bear-off database.
const LONG: [u64; 5] = [
    0xd26b_4cbd_7ca9_3a36,
    0x8288_5ebd_1b62_39ea,
    0x5c09_ed10_4bd0_a814,
    0x8a59_b3d6_fd1e_39c3,
    0x8db9_078d_f4b1_7dfe,
];
/// Easy, Medium, Hard, Hard for single games, Hard without the database.
const BACKGAMMON: [u64; 5] = [
    0xa775_524f_c313_0dc1,
    0x9948_1f3a_3bd1_fe62,
    0xa28b_1f54_3457_9b66,
    0x95e7_b9b6_b01a_322b,
    0xa8c7_f3bb_1c9a_8a54,
];
/// Easy, Medium, Hard.
const THUD: [u64; 3] = [
    0xc01f_53fb_be5a_d12f,
    0xbad9_0cc3_e0d4_2067,
    0x6f86_48fd_eb55_3cd7,
];
