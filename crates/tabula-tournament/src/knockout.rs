//! Knockout: a single-elimination bracket of matches, seeded by rating.
//!
//! * **Seeding.** Players are seeded by rating (equal ratings: who joined
//!   first), and the bracket is the next power of two. Seeds are placed the
//!   standard way ([`seed_positions`]): round one pairs seed `s` with seed
//!   `size + 1 - s`, the halves are built so that 1 and 2 can meet only in
//!   the final, 1–4 only in the semi-finals, and so on. The places of the
//!   missing seeds (`n + 1 ..= size`) are byes, so the byes go to the top
//!   seeds.
//! * **Rounds.** A round starts when every match of the one before is
//!   decided; its pairings are announced together. The higher seed of a
//!   first-round match is white; later, the winner of the upper match.
//! * **Results.** The game's result is the match's (the room plays the
//!   match to `match_points`, with the Crawford game where the game has
//!   one). A draw (Thud!) is replayed with the colours swapped, as game
//!   `{tournament}:{round}:{board}:{n}`. Both absent: neither advances and
//!   the next opponent has a walkover. A withdrawn player forfeits the game
//!   he is playing, and his later matches are walkovers.

pub use crate::bracket::{Bracket, Decided, Match};
use crate::core::{Out, Tournament};
use crate::{Announcement, Effect, GameId, Outcome, PlayerId};

/// The seeds in bracket order for a bracket of `size` (a power of two):
/// consecutive pairs are the first round's matches, the first of each pair
/// the higher seed. `seed_positions(8)` is `[1, 8, 4, 5, 2, 7, 3, 6]`.
pub fn seed_positions(size: u32) -> Vec<u32> {
    let mut order = vec![1];
    while (order.len() as u32) < size {
        let n = order.len() as u32 * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order
}

/// The first round of a knockout of `n` seeds: each match's two seeds,
/// `None` for a bye.
pub fn first_round(n: u32) -> Vec<(u32, Option<u32>)> {
    let size = n.max(2).next_power_of_two();
    seed_positions(size)
        .chunks(2)
        .map(|m| (m[0], (m[1] <= n).then_some(m[1])))
        .collect()
}

fn game_id(tournament: &str, round: u32, board: u32, n: usize) -> GameId {
    if n <= 1 {
        GameId(format!("{tournament}:{round}:{board}"))
    } else {
        GameId(format!("{tournament}:{round}:{board}:{n}"))
    }
}

impl Tournament {
    pub(crate) fn knockout_start(&mut self, now: u64, out: &mut Out) {
        let mut order: Vec<usize> = (0..self.entrants.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(self.entrants[i].rating), i));
        let seeds: Vec<PlayerId> = order
            .iter()
            .map(|&i| self.entrants[i].player.clone())
            .collect();
        let n = seeds.len() as u32;
        let seed = |s: u32| seeds[s as usize - 1].clone();
        let first = first_round(n)
            .into_iter()
            .map(|(a, b)| Match {
                a: Some(seed(a)),
                b: b.map(seed),
                games: Vec::new(),
                winner: Decided::Pending,
            })
            .collect();
        let total_rounds = n.max(2).next_power_of_two().trailing_zeros();
        self.bracket = Some(Bracket {
            seeds: seeds.clone(),
            rounds: vec![first],
            total_rounds,
        });
        self.knockout_open_round(now, out);
    }

    /// Opens the next round of the bracket (its matches already placed).
    fn knockout_open_round(&mut self, now: u64, out: &mut Out) {
        self.round += 1;
        let round = self.round;
        out.fx.push(Effect::RoundStarted { round });
        let (mut pairings, mut byes) = (Vec::new(), Vec::new());
        let matches = self
            .bracket
            .as_ref()
            .map_or(0, |b| b.rounds[round as usize - 1].len());
        for m in 0..matches {
            let board = m as u32 + 1;
            let here = |p: &Option<PlayerId>| {
                p.as_ref()
                    .filter(|p| !self.entrants[self.idx(p)].withdrawn)
                    .cloned()
            };
            let (a, b) = {
                let mm = &self.bracket.as_ref().expect("bracket").rounds[round as usize - 1][m];
                (here(&mm.a), here(&mm.b))
            };
            let winner = match (a, b) {
                (Some(a), Some(b)) => {
                    let id = game_id(&self.id, round, board, 1);
                    let (wi, bi) = (self.idx(&a), self.idx(&b));
                    self.pair(id.clone(), (round, board), (wi, bi), now, out);
                    pairings.push((a, b));
                    self.knockout_match(round, board).games.push(id);
                    Decided::Pending
                }
                (Some(p), None) | (None, Some(p)) => {
                    self.bye(self.idx(&p), round, out);
                    byes.push(p.clone());
                    Decided::Winner(p)
                }
                (None, None) => Decided::Nobody,
            };
            self.knockout_match(round, board).winner = winner;
        }
        out.fx.push(Effect::Announce(Announcement::Round {
            round,
            pairings,
            byes,
        }));
        self.knockout_check_round(now, out);
    }

    fn knockout_match(&mut self, round: u32, board: u32) -> &mut Match {
        let bracket = self.bracket.as_mut().expect("a knockout has its bracket");
        &mut bracket.rounds[round as usize - 1][board as usize - 1]
    }

    pub(crate) fn knockout_result(&mut self, game: &crate::Game, now: u64, out: &mut Out) {
        let winner = match game.outcome {
            Some(Outcome::WhiteWon) => Decided::Winner(game.white.clone()),
            Some(Outcome::BlackWon) => Decided::Winner(game.black.clone()),
            Some(Outcome::BothLost) => Decided::Nobody,
            Some(Outcome::Draw) => {
                let n = self.knockout_match(game.round, game.board).games.len() + 1;
                let id = game_id(&self.id, game.round, game.board, n);
                let (wi, bi) = (self.idx(&game.black), self.idx(&game.white));
                self.pair(id.clone(), (game.round, game.board), (wi, bi), now, out);
                self.knockout_match(game.round, game.board).games.push(id);
                return;
            }
            None => return,
        };
        self.knockout_match(game.round, game.board).winner = winner;
        self.knockout_check_round(now, out);
    }

    /// Opens the next round, or ends the tournament, once every match of
    /// this one is decided.
    fn knockout_check_round(&mut self, now: u64, out: &mut Out) {
        let Some(bracket) = self.bracket.as_mut() else {
            return;
        };
        let current = &bracket.rounds[self.round as usize - 1];
        if current.iter().any(|m| m.winner == Decided::Pending) {
            return;
        }
        if self.round >= bracket.total_rounds {
            self.finish(out);
            return;
        }
        let through: Vec<Option<PlayerId>> = current
            .iter()
            .map(|m| match &m.winner {
                Decided::Winner(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        let next = through
            .chunks(2)
            .map(|pair| Match {
                a: pair[0].clone(),
                b: pair[1].clone(),
                games: Vec::new(),
                winner: Decided::Pending,
            })
            .collect();
        bracket.rounds.push(next);
        self.knockout_open_round(now, out);
    }
}
