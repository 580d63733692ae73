//! Swiss: a fixed number of rounds, players of equal score paired together
//! without repeats, by a simplified Dutch system.
//!
//! The rules, in order of priority:
//!
//! 1. **No repeats.** Two players meet at most once. (If the field is too
//!    small for that, e.g. four players and five rounds, the pairing falls
//!    back to one that repeats as few games as the search finds, rather than
//!    stopping the tournament.)
//! 2. **At most one bye per player.** With an odd number of players to pair,
//!    the bye goes to the lowest-ranked player who has not had one and
//!    without whom the rest can still be paired; it scores as a win.
//! 3. **Score groups, Dutch order.** Players are ranked by points, then
//!    rating, then joining order. The highest-ranked unpaired player `p` of
//!    a score group of `g` players is offered, in order: the player half a
//!    group below him (`g / 2` places down: top half against bottom half, 1
//!    v 4, 2 v 5, 3 v 6 for six), then the players below that one, then those
//!    above it in the group (from the nearest up), then the players of the
//!    lower groups by rank (he floats down; the odd player of a group floats
//!    to the top of the next). A depth-first search with backtracking takes
//!    the first complete pairing in that order, so the usual Dutch pairing
//!    is the answer whenever it has no repeat, and the nearest to it
//!    otherwise.
//! 4. **Colours** alternate where possible. Two players who have both had
//!    the same colour twice more than the other are not paired together
//!    unless no pairing without repeats avoids it (FIDE's absolute colour
//!    criterion: nobody's difference passes 2). Then a player's preference
//!    is the colour he has had less (strong), or else the other of his last
//!    one (mild). Different preferences are both met; the stronger preference
//!    wins over the weaker; equal ones go to the higher-ranked. With no
//!    history (round one), the higher-ranked player has white on odd boards
//!    and black on even ones.
//!
//! This differs from FIDE's Dutch rules (C.04.3) in that floaters are not
//! tracked from round to round and no colour or float criteria are weighed
//! against each other beyond the order above; it keeps their fairness
//! properties that matter here: equal scores meet, no repeats, one bye,
//! balanced colours. Late joiners start with 0 points (the rounds they
//! missed count as unplayed, not as byes) and withdrawn or paused players
//! are left out of the pairing.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::{Out, Tournament};
use crate::{Announcement, Colour, Effect, Format, GameId, PlayerId};

/// How much backtracking one round's pairing may do before it settles for
/// repeats.
const SEARCH_BUDGET: u32 = 500_000;

/// A player to pair, as the pairing sees him.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// Points so far (any unit).
    pub points: u32,
    /// Rating.
    pub rating: i32,
    /// Whether he has had a bye.
    pub had_bye: bool,
    /// Games with white less games with black.
    pub colour_diff: i32,
    /// His last colour.
    pub last_colour: Option<Colour>,
}

/// One round's pairing, by indices into the seats given.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pairing {
    /// White and black of each board, board 1 first.
    pub boards: Vec<(usize, usize)>,
    /// Who has the bye.
    pub bye: Option<usize>,
}

/// Pairs a round. `seats` in joining order (ties in rank go to the earlier);
/// `played` holds each pair that has met, as `(lower index, higher index)`.
pub fn pair(seats: &[Seat], played: &BTreeSet<(usize, usize)>) -> Pairing {
    let mut ranked: Vec<usize> = (0..seats.len()).collect();
    ranked.sort_by_key(|&i| (std::cmp::Reverse((seats[i].points, seats[i].rating)), i));
    let mut budget = SEARCH_BUDGET;
    let search = |rem: Vec<usize>, level: Level, budget: &mut u32| {
        let mut acc = Vec::new();
        dfs(rem, seats, played, level, budget, &mut acc).then_some(acc)
    };
    let without = |c: usize| ranked.iter().copied().filter(|&i| i != c).collect();
    let mut found = None;
    for level in [Level::Colours, Level::NoRepeats] {
        if ranked.len().is_multiple_of(2) {
            found = search(ranked.clone(), level, &mut budget).map(|b| (b, None));
        } else {
            for &c in ranked.iter().rev().filter(|&&c| !seats[c].had_bye) {
                if let Some(b) = search(without(c), level, &mut budget) {
                    found = Some((b, Some(c)));
                    break;
                }
                if budget == 0 {
                    break;
                }
            }
        }
        if found.is_some() {
            break;
        }
        budget = SEARCH_BUDGET;
    }
    let (boards, bye) = found.unwrap_or_else(|| {
        // No pairing without repeats: the nearest one with them.
        let bye = (!ranked.len().is_multiple_of(2)).then(|| {
            let fresh = ranked.iter().rev().find(|&&c| !seats[c].had_bye);
            *fresh.or(ranked.last()).expect("an odd field is not empty")
        });
        let rem = match bye {
            Some(c) => without(c),
            None => ranked.clone(),
        };
        let mut unlimited = u32::MAX;
        let b = search(rem, Level::Any, &mut unlimited).expect("repeats allowed always pair");
        (b, bye)
    });
    let rank_of = |i: usize| ranked.iter().position(|&r| r == i).unwrap_or(usize::MAX);
    let mut boards = boards;
    boards.sort_by_key(|&(p, q)| rank_of(p).min(rank_of(q)));
    let boards = boards
        .into_iter()
        .enumerate()
        .map(|(b, (p, q))| {
            let (hi, lo) = if rank_of(p) < rank_of(q) {
                (p, q)
            } else {
                (q, p)
            };
            if colour_of_higher(&seats[hi], &seats[lo], b as u32 + 1) == Colour::White {
                (hi, lo)
            } else {
                (lo, hi)
            }
        })
        .collect();
    Pairing { boards, bye }
}

/// What a pairing must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// No repeats, and no two players who must both have the same colour.
    Colours,
    /// No repeats.
    NoRepeats,
    /// Anything, fresh opponents first.
    Any,
}

/// Whether both must have the same colour: each has had it twice more
/// than the other.
fn clash(a: &Seat, b: &Seat) -> bool {
    a.colour_diff.abs() >= 2
        && b.colour_diff.abs() >= 2
        && a.colour_diff.signum() == b.colour_diff.signum()
}

fn dfs(
    rem: Vec<usize>,
    seats: &[Seat],
    played: &BTreeSet<(usize, usize)>,
    level: Level,
    budget: &mut u32,
    acc: &mut Vec<(usize, usize)>,
) -> bool {
    let Some(&p) = rem.first() else {
        return true;
    };
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let met = |q: usize| played.contains(&(p.min(q), p.max(q)));
    let group = rem
        .iter()
        .take_while(|&&q| seats[q].points == seats[p].points)
        .count();
    let ideal = (group / 2).max(1);
    let mut order: Vec<usize> = (ideal..group)
        .chain((1..ideal).rev())
        .chain(group..rem.len())
        .collect();
    match level {
        Level::Colours => order.retain(|&j| !met(rem[j]) && !clash(&seats[p], &seats[rem[j]])),
        Level::NoRepeats => order.retain(|&j| !met(rem[j])),
        // Repeats allowed, fresh opponents still first.
        Level::Any => order.sort_by_key(|&j| met(rem[j])),
    }
    for j in order {
        let q = rem[j];
        let rest: Vec<usize> = rem
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != 0 && k != j)
            .map(|(_, &i)| i)
            .collect();
        acc.push((p, q));
        if dfs(rest, seats, played, level, budget, acc) {
            return true;
        }
        acc.pop();
        if *budget == 0 {
            return false;
        }
    }
    false
}

/// A player's colour preference and its strength.
fn preference(s: &Seat) -> Option<(u32, Colour)> {
    match s.colour_diff {
        d if d < 0 => Some((2 * d.unsigned_abs(), Colour::White)),
        d if d > 0 => Some((2 * d.unsigned_abs(), Colour::Black)),
        _ => s.last_colour.map(|c| (1, c.other())),
    }
}

/// The colour of the higher-ranked player of a board.
fn colour_of_higher(hi: &Seat, lo: &Seat, board: u32) -> Colour {
    match (preference(hi), preference(lo)) {
        (None, None) if board % 2 == 1 => Colour::White,
        (None, None) => Colour::Black,
        (Some((_, c)), None) => c,
        (None, Some((_, c))) => c.other(),
        (Some((sh, ch)), Some((sl, cl))) if ch == cl && sl > sh => cl.other(),
        (Some((_, ch)), Some(_)) => ch,
    }
}

impl Tournament {
    /// Pairs the next round, or ends the tournament after the last.
    pub(crate) fn swiss_next_round(&mut self, now: u64, out: &mut Out) {
        let Format::Swiss { rounds, .. } = self.config.format else {
            return;
        };
        while self.running.is_empty() {
            if self.round >= rounds {
                self.finish(out);
                return;
            }
            self.round += 1;
            let round = self.round;
            out.fx.push(Effect::RoundStarted { round });
            let pool: Vec<usize> = (0..self.entrants.len())
                .filter(|&i| !self.entrants[i].withdrawn && !self.entrants[i].paused)
                .collect();
            let seats: Vec<Seat> = pool
                .iter()
                .map(|&i| {
                    let e = &self.entrants[i];
                    Seat {
                        points: e.tally.points,
                        rating: e.rating,
                        had_bye: e.tally.byes > 0,
                        colour_diff: e.colour_diff,
                        last_colour: e.last_colour,
                    }
                })
                .collect();
            let positions: BTreeMap<&PlayerId, usize> = pool
                .iter()
                .enumerate()
                .map(|(k, &i)| (&self.entrants[i].player, k))
                .collect();
            let local = |p: &PlayerId| positions.get(p).copied();
            let played: BTreeSet<(usize, usize)> = self
                .games
                .values()
                .filter_map(|g| Some((local(&g.white)?, local(&g.black)?)))
                .map(|(a, b)| (a.min(b), a.max(b)))
                .collect();
            let pairing = pair(&seats, &played);
            let mut pairings = Vec::new();
            for (b, &(w, bl)) in pairing.boards.iter().enumerate() {
                let board = b as u32 + 1;
                let id = GameId(format!("{}:{round}:{board}", self.id));
                self.pair(id, (round, board), (pool[w], pool[bl]), now, out);
                let (w, bl) = (&self.entrants[pool[w]], &self.entrants[pool[bl]]);
                pairings.push((w.player.clone(), bl.player.clone()));
            }
            let mut byes = Vec::new();
            if let Some(c) = pairing.bye {
                self.bye(pool[c], round, out);
                byes.push(self.entrants[pool[c]].player.clone());
            }
            out.fx.push(Effect::Announce(Announcement::Round {
                round,
                pairings,
                byes,
            }));
        }
    }

    pub(crate) fn swiss_result(&mut self, now: u64, out: &mut Out) {
        if self.running.is_empty() {
            self.swiss_next_round(now, out);
        }
    }
}
