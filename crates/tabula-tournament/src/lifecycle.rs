//! A tournament's life: joining and leaving, the start (or its
//! cancellation), no-shows and the time a takeover forgives, the end.

use crate::core::{Out, Tournament};
use crate::standings::Tally;
use crate::{
    Announcement, CancelReason, Effect, Entrant, Format, GameId, Outcome, PlayerId, Rejection,
    Status,
};

impl Tournament {
    /// A registered player who has not withdrawn.
    pub(crate) fn active(&self, player: &PlayerId) -> Result<usize, Rejection> {
        let &i = self.index.get(player).ok_or(Rejection::UnknownPlayer)?;
        if self.entrants[i].withdrawn {
            return Err(Rejection::Withdrawn);
        }
        Ok(i)
    }

    fn late_join_open(&self, now: u64) -> bool {
        match self.status {
            Status::Registering => true,
            Status::Running => match self.config.format {
                Format::Knockout => false,
                Format::Swiss {
                    late_join_until_round,
                    ..
                } => self.round < late_join_until_round,
                Format::Arena { .. } => self.arena.as_ref().is_some_and(|a| now < a.end_ms),
            },
            Status::Finished | Status::Cancelled => false,
        }
    }

    pub(crate) fn join(
        &mut self,
        player: PlayerId,
        rating: i32,
        now: u64,
        out: &mut Out,
    ) -> Result<(), Rejection> {
        if let Some(&i) = self.index.get(&player)
            && !self.entrants[i].withdrawn
        {
            return Err(Rejection::AlreadyJoined);
        }
        if !self.late_join_open(now) {
            return Err(Rejection::LateJoinClosed);
        }
        let active = self.entrants.iter().filter(|e| !e.withdrawn).count();
        if self
            .config
            .max_players
            .is_some_and(|m| active >= m as usize)
        {
            return Err(Rejection::Full);
        }
        let i = match self.index.get(&player) {
            Some(&i) => {
                // Back after withdrawing: the same entry, its results kept.
                self.entrants[i].withdrawn = false;
                i
            }
            None => {
                self.entrants.push(Entrant {
                    player: player.clone(),
                    rating,
                    joined_at_ms: now,
                    withdrawn: false,
                    paused: false,
                    tally: Tally::default(),
                    colour_diff: 0,
                    last_colour: None,
                    game: None,
                    last_opponent: None,
                });
                self.index.insert(player, self.entrants.len() - 1);
                self.entrants.len() - 1
            }
        };
        if self.status == Status::Running {
            self.arena_enqueue(i, now, out);
        }
        Ok(())
    }

    pub(crate) fn withdraw(&mut self, i: usize, now: u64, out: &mut Out) {
        if self.status == Status::Registering {
            self.entrants.remove(i);
            self.index = self
                .entrants
                .iter()
                .enumerate()
                .map(|(i, e)| (e.player.clone(), i))
                .collect();
            return;
        }
        self.entrants[i].withdrawn = true;
        self.arena_dequeue(i);
        // In a knockout, leaving is losing the match being played.
        if self.config.format == Format::Knockout
            && let Some(id) = self.entrants[i].game.clone()
        {
            let game = &self.games[&id];
            let outcome = if game.white == self.entrants[i].player {
                Outcome::BlackWon
            } else {
                Outcome::WhiteWon
            };
            out.fx.push(Effect::Forfeit {
                game_id: id.clone(),
                loser: self.entrants[i].player.clone(),
            });
            self.count(&id, outcome, true, now, out);
        }
    }

    pub(crate) fn start(&mut self, now: u64, out: &mut Out) {
        let players = self.entrants.len() as u32;
        if players < 2 {
            self.status = Status::Cancelled;
            let reason = CancelReason::TooFewPlayers;
            out.fx.push(Effect::Cancelled { reason });
            out.fx
                .push(Effect::Announce(Announcement::Cancelled { reason }));
            return;
        }
        self.status = Status::Running;
        out.fx.push(Effect::Started { players });
        out.fx
            .push(Effect::Announce(Announcement::Started { players }));
        match self.config.format {
            Format::Knockout => self.knockout_start(now, out),
            Format::Swiss { .. } => self.swiss_next_round(now, out),
            Format::Arena { duration_ms, .. } => self.arena_start(now, duration_ms, out),
        }
    }

    /// Ends the tournament with its final standings.
    pub(crate) fn finish(&mut self, out: &mut Out) {
        self.status = Status::Finished;
        out.flush();
        let standings = self.standings();
        let podium = standings.players().take(3).cloned().collect();
        out.fx.push(Effect::Finished { standings });
        out.fx
            .push(Effect::Announce(Announcement::Finished { podium }));
    }

    /// A new owner took over: the time since the last input, when nobody
    /// could record an arrival, is not counted against the players of the
    /// games still waiting for them.
    pub(crate) fn forgive(&mut self, now: u64) {
        let gap = now - self.now_ms;
        for id in &self.running {
            let game = self.games.get_mut(id).expect("running games are games");
            if game.arrived != [true, true] {
                game.grace_from_ms += gap;
            }
        }
    }

    /// The earliest no-show deadline, with its game.
    pub(crate) fn no_show_deadline(&self) -> Option<(u64, GameId)> {
        if self.config.grace_ms == 0 {
            return None;
        }
        self.running
            .iter()
            .map(|id| &self.games[id])
            .filter(|g| g.arrived != [true, true])
            .map(|g| (g.grace_from_ms + self.config.grace_ms, g.id.clone()))
            .min()
    }

    pub(crate) fn no_show(&mut self, id: &GameId, now: u64, out: &mut Out) {
        let game = &self.games[id];
        let absent = [
            (!game.arrived[0]).then(|| game.white.clone()),
            (!game.arrived[1]).then(|| game.black.clone()),
        ];
        let outcome = match (&absent[0], &absent[1]) {
            (Some(_), Some(_)) => Outcome::BothLost,
            (Some(_), None) => Outcome::BlackWon,
            _ => Outcome::WhiteWon,
        };
        for loser in absent.into_iter().flatten() {
            if self.config.format != Format::Knockout {
                let i = self.index[&loser];
                self.entrants[i].paused = true;
            }
            out.fx.push(Effect::Forfeit {
                game_id: id.clone(),
                loser,
            });
        }
        self.count(id, outcome, true, now, out);
    }
}
