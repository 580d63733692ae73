//! [`Bot`]: a level and its seeded random stream, making every decision
//! of every game.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_dice::Dice;

use crate::level::Level;
use crate::{bearoff, bg, long, thud};

/// A position of any game, as a bot is asked about it: the game travels
/// with the position, so each decision is one method of [`Bot`].
#[derive(Debug, Clone, Copy)]
pub enum Position<'a> {
    /// Long nardy.
    Long(&'a tabula_long::Position),
    /// Short nardy (backgammon), the side to move on roll.
    Backgammon(&'a tabula_backgammon::Position),
    /// Thud!.
    Thud(&'a tabula_thud::Position),
}

/// A bot's play: the whole turn, in its game's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Play {
    /// Long nardy: a legal complete sequence of steps (seed-000
    /// numbering), playable in order.
    Long(Vec<tabula_long::Step>),
    /// Short nardy: steps `(from, to)` in the mover's own numbering (25 =
    /// bar, 0 = off), playable in order.
    Backgammon(Vec<(u8, u8)>),
    /// Thud!: one move.
    Thud(tabula_thud::Move),
}

impl Play {
    /// A long nardy play's steps.
    pub fn into_long(self) -> Option<Vec<tabula_long::Step>> {
        match self {
            Play::Long(steps) => Some(steps),
            _ => None,
        }
    }

    /// A short nardy play's steps.
    pub fn into_backgammon(self) -> Option<Vec<(u8, u8)>> {
        match self {
            Play::Backgammon(steps) => Some(steps),
            _ => None,
        }
    }

    /// A Thud! play's move.
    pub fn into_thud(self) -> Option<tabula_thud::Move> {
        match self {
            Play::Thud(mv) => Some(mv),
            _ => None,
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

    /// The play for the side to move in `pos`, `dice` the roll in the dice
    /// games (Thud! has none). `None` when there is nothing to play: no
    /// legal play (a dice game's turn passes), the game over, or a dice
    /// game asked without its roll.
    pub fn choose_play(&mut self, pos: Position<'_>, dice: Option<Dice>) -> Option<Play> {
        match pos {
            Position::Long(p) => {
                let engine = long::Engine {
                    bearoff: self.bearoff,
                    network: self.long_network,
                };
                let steps = long::choose_with(self.level, &mut self.rng, p, dice?, engine);
                (!steps.is_empty()).then_some(Play::Long(steps))
            }
            Position::Backgammon(p) => {
                let engine = bg::Engine {
                    bearoff: self.bearoff,
                    scoring: self.backgammon_scoring,
                };
                let steps = bg::choose_with(self.level, &mut self.rng, p, dice?, engine);
                (!steps.is_empty()).then_some(Play::Backgammon(steps))
            }
            Position::Thud(p) => thud::choose(self.level, &mut self.rng, p).map(Play::Thud),
        }
    }

    /// Whether to offer the cube before rolling, `pos` having the bot to
    /// move (on roll). Easy never doubles; Medium and Hard double when
    /// their chance of winning is 70 % to 93 %. Thud! has no cube.
    pub fn offers_double(&mut self, pos: Position<'_>) -> bool {
        if self.level == Level::Easy {
            return false;
        }
        let p = match pos {
            Position::Long(p) => self.long_win(p, p.turn()),
            Position::Backgammon(p) => self.bg_win(p, true),
            Position::Thud(_) => return false,
        };
        (0.70..0.93).contains(&p)
    }

    /// Whether to take the opponent's double, `pos` having the opponent
    /// (the doubler) to move. Easy always takes; Medium and Hard take with
    /// a chance of winning of 25 % or more. Thud! has no cube: yes.
    pub fn takes_double(&mut self, pos: Position<'_>) -> bool {
        if self.level == Level::Easy {
            return true;
        }
        match pos {
            Position::Long(p) => self.long_win(p, p.turn().other()) >= 0.25,
            Position::Backgammon(p) => self.bg_win(p, false) >= 0.25,
            Position::Thud(_) => true,
        }
    }

    /// Whether to accept the opponent's proposal to end the round now,
    /// the bot playing `me`: only Thud! ends a round by agreement (the dice
    /// games answer no). Easy accepts half the time; Medium and Hard
    /// accept when their side's material is at least the opponent's.
    pub fn accepts_end(&mut self, pos: Position<'_>, me: tabula_thud::Side) -> bool {
        let Position::Thud(p) = pos else {
            return false;
        };
        match self.level {
            Level::Easy => self.rng.random_bool(0.5),
            _ => {
                let s = p.score();
                s.of(me) >= s.of(me.opponent())
            }
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
            _ => long::classic::win_probability(pos, c),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nobody_doubles_at_the_start_and_everyone_takes_there() {
        let long = tabula_long::Position::initial();
        let bg = tabula_backgammon::Position::initial();
        for level in Level::ALL {
            let mut bot = Bot::new(level, 1);
            assert!(!bot.offers_double(Position::Long(&long)));
            assert!(bot.takes_double(Position::Long(&long)));
            assert!(!bot.offers_double(Position::Backgammon(&bg)));
            assert!(bot.takes_double(Position::Backgammon(&bg)));
        }
    }

    #[test]
    fn thud_end_is_accepted_when_ahead_on_material() {
        let start = tabula_thud::Position::start();
        let mut bot = Bot::new(Level::Hard, 1);
        // 32 dwarfs against 8 trolls × 4: level material, so accepted.
        assert!(bot.accepts_end(Position::Thud(&start), tabula_thud::Side::Dwarfs));
        assert!(bot.accepts_end(Position::Thud(&start), tabula_thud::Side::Trolls));
        // Nor the cube nor an end by agreement in Thud!, none in the dice games.
        assert!(!bot.offers_double(Position::Thud(&start)));
        assert!(bot.takes_double(Position::Thud(&start)));
        let long = tabula_long::Position::initial();
        assert!(!bot.accepts_end(Position::Long(&long), tabula_thud::Side::Dwarfs));
    }
}
