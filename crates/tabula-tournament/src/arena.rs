//! Arena, as lichess runs it: back-to-back games within a time window.
//!
//! * At the start every registered player is queued (by rating), and so is
//!   a late joiner at once, and a player when his game ends (unless he
//!   paused or withdrew).
//! * **Pairing at once.** Whenever the queue changes, it is paired greedily,
//!   the longest-waiting first: each is given the waiting player nearest his
//!   points (then his rating, then the longest waiting). Two players of whom
//!   one just played the other are not paired together while anyone else
//!   could be chosen; if they are the only two waiting, they are paired
//!   once the first of them has waited `rematch_wait_ms`. So after every
//!   input, at most two players wait, and only if they just played each
//!   other; that is the documented bound on waiting: nothing while anyone
//!   else waits, at most `rematch_wait_ms` otherwise.
//! * **Colours**: the player who has had white less often is white (then
//!   the one who was black last, then the longest waiting).
//! * **Scoring** ([`crate::standings`]): 2 a win, 1 a draw, 0 a loss, double
//!   while on fire (after two wins in a row, until he fails to win).
//! * **The end**: at `start_at_ms + duration_ms` the queue is emptied and no
//!   one is paired again; the games being played still count, and the
//!   tournament finishes when the last of them ends.

use crate::core::{ArenaState, Out, Tournament, Waiting};
use crate::{Colour, GameId};

impl Tournament {
    fn rematch_wait(&self) -> u64 {
        match self.config.format {
            crate::Format::Arena {
                rematch_wait_ms, ..
            } => rematch_wait_ms,
            _ => 0,
        }
    }

    pub(crate) fn arena_start(&mut self, now: u64, duration_ms: u64, out: &mut Out) {
        self.arena = Some(ArenaState {
            end_ms: self.config.start_at_ms.saturating_add(duration_ms),
            closed: false,
            queue: Vec::new(),
            paired: 0,
        });
        let mut order: Vec<usize> = (0..self.entrants.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(self.entrants[i].rating), i));
        for i in order {
            self.arena_push(i, now);
        }
        self.arena_fire(now, out);
    }

    /// Queues a player if he can play now (no pairing).
    fn arena_push(&mut self, i: usize, now: u64) {
        let e = &self.entrants[i];
        let free = !e.withdrawn && !e.paused && e.game.is_none();
        let Some(arena) = self.arena.as_mut() else {
            return;
        };
        if free
            && !arena.closed
            && now < arena.end_ms
            && !arena.queue.iter().any(|w| w.entrant == i)
        {
            arena.queue.push(Waiting {
                entrant: i,
                since_ms: now,
            });
        }
    }

    /// Queues a player if he can play now, and pairs.
    pub(crate) fn arena_enqueue(&mut self, i: usize, now: u64, out: &mut Out) {
        if self.arena.is_some() {
            self.arena_push(i, now);
            self.arena_pair(now, out);
        }
    }

    pub(crate) fn arena_dequeue(&mut self, i: usize) {
        if let Some(arena) = self.arena.as_mut() {
            arena.queue.retain(|w| w.entrant != i);
        }
    }

    pub(crate) fn arena_result(&mut self, game: &crate::Game, now: u64, out: &mut Out) {
        let (w, b) = (self.idx(&game.white), self.idx(&game.black));
        self.arena_push(w, now);
        self.arena_push(b, now);
        self.arena_fire(now, out);
    }

    /// Closes the window when due, finishes when closed and idle, and
    /// otherwise pairs who can be paired.
    pub(crate) fn arena_fire(&mut self, now: u64, out: &mut Out) {
        let Some(arena) = self.arena.as_mut() else {
            return;
        };
        if !arena.closed && now >= arena.end_ms {
            arena.closed = true;
            arena.queue.clear();
        }
        if arena.closed {
            if self.running.is_empty() {
                self.finish(out);
            }
            return;
        }
        self.arena_pair(now, out);
    }

    /// When the window closes or a rematch wait ends.
    pub(crate) fn arena_deadline(&self) -> Option<u64> {
        let arena = self.arena.as_ref().filter(|a| !a.closed)?;
        let rematch = match arena.queue.as_slice() {
            [a, b] if self.just_met(a.entrant, b.entrant) => Some(
                a.since_ms
                    .min(b.since_ms)
                    .saturating_add(self.rematch_wait()),
            ),
            _ => None,
        };
        Some(rematch.map_or(arena.end_ms, |r| r.min(arena.end_ms)))
    }

    fn just_met(&self, a: usize, b: usize) -> bool {
        let (ea, eb) = (&self.entrants[a], &self.entrants[b]);
        ea.last_opponent.as_ref() == Some(&eb.player)
            || eb.last_opponent.as_ref() == Some(&ea.player)
    }

    /// Pairs the queue greedily, longest waiting first.
    fn arena_pair(&mut self, now: u64, out: &mut Out) {
        let Some(arena) = self.arena.as_ref() else {
            return;
        };
        if arena.closed || now >= arena.end_ms {
            return;
        }
        let queue = arena.queue.clone();
        let wait = self.rematch_wait();
        let mut taken = vec![false; queue.len()];
        let mut pairs = Vec::new();
        for i in 0..queue.len() {
            if taken[i] {
                continue;
            }
            let me = &self.entrants[queue[i].entrant];
            let open = |j: &usize| *j != i && !taken[*j];
            let best = (0..queue.len())
                .filter(open)
                .filter(|&j| !self.just_met(queue[i].entrant, queue[j].entrant))
                .min_by_key(|&j| {
                    let them = &self.entrants[queue[j].entrant];
                    (
                        me.tally.points.abs_diff(them.tally.points),
                        me.rating.abs_diff(them.rating),
                        j,
                    )
                });
            let best = best.or_else(|| {
                (0..queue.len()).filter(open).find(|&j| {
                    queue[i]
                        .since_ms
                        .min(queue[j].since_ms)
                        .saturating_add(wait)
                        <= now
                })
            });
            if let Some(j) = best {
                taken[i] = true;
                taken[j] = true;
                pairs.push((queue[i].entrant, queue[j].entrant));
            }
        }
        if pairs.is_empty() {
            return;
        }
        if let Some(arena) = self.arena.as_mut() {
            let mut k = 0;
            arena.queue.retain(|_| {
                k += 1;
                !taken[k - 1]
            });
        }
        for (a, b) in pairs {
            let key = |i: usize| {
                let e = &self.entrants[i];
                (e.colour_diff, e.last_colour == Some(Colour::White))
            };
            let (w, b) = if key(b) < key(a) { (b, a) } else { (a, b) };
            let n = self.arena.as_mut().map_or(0, |a| {
                a.paired += 1;
                a.paired
            });
            let id = GameId(format!("{}:a:{n}", self.id));
            self.pair(id, (0, n), (w, b), now, out);
        }
    }
}
