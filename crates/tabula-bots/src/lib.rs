//! Computer opponents for every Tabula game: Easy, Medium and Hard.
//!
//! The crate is pure: no IO, no clock, no global RNG. A [`Bot`] is built
//! from a [`Level`] and a seed, and every decision it makes is a function
//! of the position, the dice and its own seeded random stream, so the same
//! seed replays the same games on every machine.
//!
//! Because there is no clock, thinking budgets are expressed as work, not
//! time: Hard nardy looks one ply ahead over the opponent's 21 rolls for at
//! most a fixed number of candidate plays ([`HARD_NARDY_CANDIDATES`]), Hard
//! backgammon looks a second roll ahead for its closest plays only within
//! a budget of positions ([`bg::HARD_BG_DEEP_BUDGET`]), and Hard Thud
//! searches alpha-beta within a node budget ([`HARD_THUD_NODES`]).
//! These were sized so a decision stays well inside the 100 ms
//! (p99) on the reference machine; see `RESULTS.md`.
//!
//! Every level picks among the engines' own legal plays only:
//! [`tabula_long::Position::legal_moves`] / [`tabula_long::Position::moves`],
//! [`tabula_backgammon::Position::legal_positions`] /
//! [`tabula_backgammon::Position::legal_plays`] and
//! [`tabula_thud::Position::legal_moves`].
//!
//! * **Easy**: a uniformly random legal play (distinct final positions are
//!   equally likely); never doubles, always takes.
//! * **Medium**: a one-ply greedy evaluation: race lead (pips), points made,
//!   hitting and blots (short nardy); in long nardy also checkers off,
//!   home, on the head. Thud: greedy on material (dwarf 1, troll 4).
//! * **Hard**: a neural network trained by self-play in each nardy game
//!   (long nardy [`long_net`], with mars and koks outputs so it plays for
//!   points; short nardy [`bg_net`], with gammon outputs, counted only
//!   where the game scores gammons: [`Bot::with_backgammon_scoring`])
//!   ranks every play, and the best few
//!   (long nardy: those within [`long::FILTER_EQUITY`] of the best, as
//!   gnubg filters) are searched one roll deeper: the opponent's best
//!   reply by the network to each of his 21 rolls. In short nardy up to
//!   four of the best plays by that search, when close, are judged a roll
//!   deeper still (gnubg's 2-ply: [`bg_net::two_ply`]). Long nardy's hand-made
//!   evaluation and expectimax that Hard used before the network stay as
//!   [`Bot::with_classic_long`], to measure against.
//!   Once both sides are bearing off (every checker of each in his home
//!   board, so no contact is left), Hard in both nardy games plays by the
//!   exact one-sided bear-off database instead ([`bearoff`]): the play
//!   with the best race equity, gammons / mars counted where the scoring
//!   counts them. Thud: iterative-deepening alpha-beta with a node budget.
//!
//! An immediate win is always taken at Medium and Hard.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_dice::Dice;

pub mod analysis;
pub mod bearoff;
pub mod bg;
pub mod bg_fit;
pub mod bg_net;
pub mod error_rate;
pub mod hint;
pub mod long;
pub mod long_net;
pub mod nn;
pub mod thud;

/// How many candidate plays (the best by the static evaluation) Hard nardy
/// at most examines with the look-ahead over the opponent's 21 rolls.
pub const HARD_NARDY_CANDIDATES: usize = 8;

/// The node budget of Hard Thud's alpha-beta search per decision.
pub const HARD_THUD_NODES: u64 = 20_000;

/// A bot's strength.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Random legal play.
    Easy,
    /// Greedy one-ply evaluation.
    Medium,
    /// Richer evaluation plus look-ahead.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// 1 = Easy, 2 = Medium, 3 = Hard.
    pub fn from_u8(n: u8) -> Option<Level> {
        match n {
            1 => Some(Level::Easy),
            2 => Some(Level::Medium),
            3 => Some(Level::Hard),
            _ => None,
        }
    }

    /// 1, 2 or 3.
    pub fn as_u8(self) -> u8 {
        match self {
            Level::Easy => 1,
            Level::Medium => 2,
            Level::Hard => 3,
        }
    }

    /// `easy`, `medium` or `hard`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not `easy`, `medium`, `hard` (or `1`, `2`, `3`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?} (expected easy, medium, hard or 1, 2, 3)")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;
    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "easy" | "1" => Ok(Level::Easy),
            "medium" | "2" => Ok(Level::Medium),
            "hard" | "3" => Ok(Level::Hard),
            _ => Err(ParseLevelError(s.to_string())),
        }
    }
}

/// A computer player: a level and its own seeded random stream (used by
/// Easy to choose, and by every level to break exact ties).
#[derive(Debug, Clone)]
pub struct Bot {
    level: Level,
    rng: ChaCha8Rng,
    bearoff: bool,
    long_network: bool,
    backgammon_scoring: tabula_backgammon::Scoring,
}

impl Bot {
    /// A bot of `level` whose choices are reproducible from `seed`.
    pub fn new(level: Level, seed: u64) -> Bot {
        Bot {
            level,
            rng: ChaCha8Rng::seed_from_u64(seed),
            bearoff: true,
            long_network: true,
            backgammon_scoring: tabula_backgammon::Scoring::Gammons,
        }
    }

    /// The same bot playing short nardy for `scoring`'s points: Hard plays
    /// for gammons and backgammons (and against losing them) only under
    /// [`tabula_backgammon::Scoring::Gammons`], the default here; under
    /// [`tabula_backgammon::Scoring::Single`] (short nardy's default game)
    /// it plays to win. The server sets the room's.
    pub fn with_backgammon_scoring(mut self, scoring: tabula_backgammon::Scoring) -> Bot {
        self.set_backgammon_scoring(scoring);
        self
    }

    /// The scoring Hard plays short nardy for.
    pub fn backgammon_scoring(&self) -> tabula_backgammon::Scoring {
        self.backgammon_scoring
    }

    /// [`Bot::with_backgammon_scoring`] in place (a room's bot learns its
    /// game's scoring when it plays).
    pub fn set_backgammon_scoring(&mut self, scoring: tabula_backgammon::Scoring) {
        self.backgammon_scoring = scoring;
    }

    /// The same bot playing long nardy at Hard by the hand-made evaluation
    /// and its look-ahead, as Hard did before the trained network, cube
    /// decisions included (for measuring what the network is worth:
    /// `tabula arena --a-classic`).
    pub fn with_classic_long(mut self) -> Bot {
        self.long_network = false;
        self
    }

    /// Whether Hard plays long nardy by the trained network (the default).
    pub fn uses_long_network(&self) -> bool {
        self.long_network
    }

    /// The same bot without the bear-off database: Hard then plays bear-offs
    /// by its ordinary evaluation, as it did before the database (for
    /// measuring what the database is worth; `tabula bearoff --race`).
    pub fn without_bearoff(mut self) -> Bot {
        self.bearoff = false;
        self
    }

    /// Whether Hard plays bear-offs by the database (the default).
    pub fn uses_bearoff(&self) -> bool {
        self.bearoff
    }

    /// The bot's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Long nardy: the whole turn for `dice` as a legal complete sequence
    /// (steps in seed-000 numbering, playable in order); empty when no play
    /// is legal or the game is over.
    pub fn long_nardy(
        &mut self,
        pos: &tabula_long::Position,
        dice: Dice,
    ) -> Vec<tabula_long::Step> {
        let engine = long::Engine {
            bearoff: self.bearoff,
            network: self.long_network,
        };
        long::choose_with(self.level, &mut self.rng, pos, dice, engine)
    }

    /// Short nardy (backgammon): the whole turn as steps `(from, to)` in the
    /// mover's own numbering (25 = bar, 0 = off), in an order playable step
    /// by step; empty when no play is legal.
    pub fn backgammon(&mut self, pos: &tabula_backgammon::Position, dice: Dice) -> Vec<(u8, u8)> {
        let engine = bg::Engine {
            bearoff: self.bearoff,
            scoring: self.backgammon_scoring,
        };
        bg::choose_with(self.level, &mut self.rng, pos, dice, engine)
    }

    /// Thud!: a legal move for the side to move, `None` when there is none.
    pub fn thud(&mut self, pos: &tabula_thud::Position) -> Option<tabula_thud::Move> {
        thud::choose(self.level, &mut self.rng, pos)
    }

    /// Long nardy: whether to offer the cube before rolling, `pos` having
    /// the bot to move.
    pub fn offer_double_long(&mut self, pos: &tabula_long::Position) -> bool {
        match self.level {
            Level::Easy => false,
            _ => {
                let p = self.long_win(pos, pos.turn());
                (0.70..0.93).contains(&p)
            }
        }
    }

    /// Long nardy: whether to take the opponent's double, `pos` having the
    /// opponent (the doubler) to move.
    pub fn accept_double_long(&mut self, pos: &tabula_long::Position) -> bool {
        match self.level {
            Level::Easy => true,
            _ => self.long_win(pos, pos.turn().other()) >= 0.25,
        }
    }

    /// Short nardy: whether to offer the cube before rolling, `pos` having
    /// the bot on roll.
    pub fn offer_double_backgammon(&mut self, pos: &tabula_backgammon::Position) -> bool {
        match self.level {
            Level::Easy => false,
            _ => {
                let p = self.bg_win(pos, true);
                (0.70..0.93).contains(&p)
            }
        }
    }

    /// Short nardy: whether to take the opponent's double, `pos` having the
    /// opponent (the doubler) on roll.
    pub fn accept_double_backgammon(&mut self, pos: &tabula_backgammon::Position) -> bool {
        match self.level {
            Level::Easy => true,
            _ => self.bg_win(pos, false) >= 0.25,
        }
    }

    /// The chance `c` wins `pos` for a cube decision: Hard's from the
    /// bear-off database once both sides are bearing off, else the
    /// network's ([`long::net_win_probability`]); Medium's (and classic
    /// Hard's) from the hand-made evaluation ([`long::win_probability`]).
    fn long_win(&self, pos: &tabula_long::Position, c: tabula_long::Color) -> f64 {
        match bearoff::long_race(pos) {
            Some(r) if self.level == Level::Hard && self.bearoff => {
                if pos.turn() == c {
                    r.win
                } else {
                    1.0 - r.win
                }
            }
            _ if self.level == Level::Hard && self.long_network => {
                long::net_win_probability(pos, c)
            }
            _ => long::win_probability(pos, c),
        }
    }

    /// [`Bot::long_win`] for backgammon: the chance the side on roll
    /// (`on_roll`) or the other wins.
    fn bg_win(&self, pos: &tabula_backgammon::Position, on_roll: bool) -> f64 {
        match bearoff::bg_race(pos) {
            Some(r) if self.level == Level::Hard && self.bearoff => {
                if on_roll {
                    r.win
                } else {
                    1.0 - r.win
                }
            }
            _ => bg::win_probability(pos, on_roll),
        }
    }

    /// Thud!: whether to accept the opponent's proposal to end the round now,
    /// the bot playing `my_side`. Easy accepts half the time; Medium and Hard
    /// accept when their side's material is at least the opponent's.
    pub fn thud_accept_end(
        &mut self,
        pos: &tabula_thud::Position,
        my_side: tabula_thud::Side,
    ) -> bool {
        match self.level {
            Level::Easy => self.rng.random_bool(0.5),
            _ => {
                let s = pos.score();
                s.of(my_side) >= s.of(my_side.opponent())
            }
        }
    }
}

/// Index of the best score, exact ties broken by `rng` (deterministic for a
/// seed). `None` for an empty slice.
pub(crate) fn argmax(scores: &[f64], rng: &mut ChaCha8Rng) -> Option<usize> {
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == best).collect();
    match ties.len() {
        0 => None,
        1 => Some(ties[0]),
        n => Some(ties[rng.random_range(0..n)]),
    }
}

/// The logistic function.
pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_print() {
        for (n, l) in [(1u8, Level::Easy), (2, Level::Medium), (3, Level::Hard)] {
            assert_eq!(Level::from_u8(n), Some(l));
            assert_eq!(l.as_u8(), n);
            assert_eq!(n.to_string().parse::<Level>().unwrap(), l);
            assert_eq!(l.to_string().parse::<Level>().unwrap(), l);
        }
        assert_eq!("HARD".parse::<Level>().unwrap(), Level::Hard);
        assert!("expert".parse::<Level>().is_err());
        assert_eq!(Level::from_u8(0), None);
        assert_eq!(Level::from_u8(4), None);
    }

    #[test]
    fn nobody_doubles_at_the_start_and_everyone_takes_there() {
        let long = tabula_long::Position::initial();
        let bg = tabula_backgammon::Position::initial();
        for level in Level::ALL {
            let mut bot = Bot::new(level, 1);
            assert!(!bot.offer_double_long(&long));
            assert!(bot.accept_double_long(&long));
            assert!(!bot.offer_double_backgammon(&bg));
            assert!(bot.accept_double_backgammon(&bg));
        }
    }

    #[test]
    fn thud_end_is_accepted_when_ahead_on_material() {
        let start = tabula_thud::Position::start();
        let mut bot = Bot::new(Level::Hard, 1);
        // 32 dwarfs against 8 trolls × 4: level material, so accepted.
        assert!(bot.thud_accept_end(&start, tabula_thud::Side::Dwarfs));
        assert!(bot.thud_accept_end(&start, tabula_thud::Side::Trolls));
    }
}
