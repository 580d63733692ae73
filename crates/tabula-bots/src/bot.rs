//! [`Bot`]: a level and its seeded random stream, making every decision
//! of every game.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_dice::Dice;

use crate::level::Level;
use crate::{bearoff, bg, long, thud};

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

#[cfg(test)]
mod tests {
    use super::*;

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
