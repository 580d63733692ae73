//! A match's games: starting the next one, bot prompts after each input,
//! and the end of a game (the arbiter's lines, `gameOver`, the record,
//! statistics, the match score and the Crawford game).

use super::{Occupant, Out, Room};
use crate::error::RoomError;
use crate::event::{Audience, BotNeed, Event, Phase, PlayerDelta};
use crate::fair::game_server_seed;
use crate::game::{Game, GameSetup};
use crate::narration::{self, Fact};
use crate::record::GameRecord;
use crate::result::{GameResult, PlayerResult};
use crate::types::SeatId;

impl Room {
    /// Each seat's statistics for a game that ended with `r`, as the
    /// `stats` event gives them (the seats as they are now).
    pub fn deltas(&self, r: &GameResult) -> Vec<PlayerDelta> {
        SeatId::BOTH
            .into_iter()
            .map(|seat| {
                let occ = self.seats[seat.index()].as_ref();
                let other = self.seats[seat.other().index()].as_ref();
                let result = match r.winner {
                    None => PlayerResult::Draw,
                    Some(w) if w == seat => PlayerResult::Win,
                    Some(_) => PlayerResult::Lose,
                };
                PlayerDelta {
                    seat,
                    player: occ.and_then(Occupant::player).cloned(),
                    bot_level: occ.and_then(Occupant::bot_level),
                    opponent_bot_level: other.and_then(Occupant::bot_level),
                    result,
                    points_won: if result == PlayerResult::Win {
                        r.points
                    } else {
                        0
                    },
                    points_lost: if result == PlayerResult::Lose {
                        r.points
                    } else {
                        0
                    },
                    mars: r.kind.is_mars(),
                    game: Some(self.config.options.game),
                }
            })
            .collect()
    }

    pub(super) fn next_setup(&self) -> GameSetup {
        let n = self.game_number + 1;
        GameSetup {
            options: self.config.options,
            game_number: n,
            cube_enabled: self.config.match_length >= self.config.cube_from_match_length
                && self.config.match_length > 1
                && !self.crawford_now,
            crawford: self.crawford_now,
            server_seed: game_server_seed(&self.config.master_seed, n),
            client_seeds: self.client_seeds.clone(),
            start: self.config.start_position.clone(),
            dice_script: self.config.dice_script.clone(),
        }
    }

    pub(super) fn start_game(&mut self, out: &mut Out) -> Result<(), RoomError> {
        let game = Game::start(&self.next_setup(), out)?;
        self.game_number += 1;
        self.game = Some(game);
        self.phase = Phase::Playing;
        Ok(())
    }

    /// Post-processing after every accepted input: the end of a game, and
    /// requests for bot seats.
    pub(super) fn after(&mut self, out: &mut Out) {
        if self.phase == Phase::Playing
            && let Some(result) = self.game.as_ref().and_then(|g| g.result().cloned())
        {
            self.end_game(result, out);
        }
        self.lapse_takeback(out);
        let prompt = self.bot_prompt();
        if let Some(p) = prompt
            && Some(p) != self.last_prompt
        {
            let (seat, need, ..) = p;
            if let Some(level) = self.bot_in(seat) {
                out.push((Audience::Host, Event::BotRequest { seat, level, need }));
            }
        }
        // Forgotten while paused, so the request is announced again when
        // the game resumes.
        if prompt.is_some() || self.paused() {
            self.last_prompt = prompt;
        }
    }

    /// The bot request due now ([`Room::bot_request`]), with where the
    /// room stands (game, actions played), so that the same request is
    /// announced once.
    fn bot_prompt(&self) -> Option<(SeatId, BotNeed, u32, usize)> {
        let r = self.bot_request()?;
        let played = match (&self.phase, &self.game) {
            (Phase::Playing, Some(g)) => g.actions().len(),
            _ => 0,
        };
        Some((r.seat, r.need, self.game_number, played))
    }

    fn end_game(&mut self, r: GameResult, out: &mut Out) {
        // The last period closes before the record takes the clock.
        self.sync_clock(out);
        let game = self.game.as_ref().expect("a game ended");
        let kind_game = game.options().game;
        if let Some(w) = r.winner {
            self.score[w.index()] += r.points;
        }
        // The arbiter: how it ended, then the kind of win (seed 002).
        narration::arbiter(
            out,
            Fact::GameOver {
                seats: game.seats(),
                result: &r,
            },
        );
        // game_over to each seat (seed 000).
        for seat in SeatId::BOTH {
            let result = match r.winner {
                None => PlayerResult::Draw,
                Some(w) if w == seat => PlayerResult::Win,
                Some(_) => PlayerResult::Lose,
            };
            out.push((
                Audience::Seat(seat),
                narration::game_over(result, r.points, r.kind, self.config.stake.as_ref()),
            ));
        }
        out.push((
            Audience::All,
            Event::GameEnded {
                game_number: self.game_number,
                result: r.clone(),
                server_seed: game.dice().server_seed().to_string(),
                match_score: self.score,
            },
        ));
        // Statistics (seeds 001, 002).
        let players = self.deltas(&r);
        out.push((
            Audience::Host,
            Event::Stats {
                summary: game.summary().clone(),
                players,
            },
        ));
        let dice = game.dice();
        self.records.push(GameRecord {
            game: kind_game,
            setup: GameSetup {
                options: *game.options(),
                game_number: self.game_number,
                cube_enabled: game.cube().enabled,
                crawford: self.crawford_now,
                server_seed: dice.server_seed().to_string(),
                client_seeds: dice.client_seeds().clone(),
                start: self.config.start_position.clone(),
                dice_script: dice.script().map(<[_]>::to_vec),
            },
            commitment: dice.commitment(),
            actions: game.actions().to_vec(),
            result: r,
            clock: self.clocks.as_ref().map(crate::clock::Clocks::record),
        });
        // The match.
        let n = self.config.match_length.max(1);
        let over = game.one_game() || n == 1 || self.score.iter().any(|&s| s >= n);
        if over {
            self.phase = Phase::Finished;
            let winner = match self.score[0].cmp(&self.score[1]) {
                std::cmp::Ordering::Greater => Some(SeatId::A),
                std::cmp::Ordering::Less => Some(SeatId::B),
                std::cmp::Ordering::Equal => None,
            };
            out.push((
                Audience::All,
                Event::MatchOver {
                    winner,
                    score: self.score,
                },
            ));
        } else {
            self.phase = Phase::WaitingForPlayer;
            for s in self.seats.iter_mut().flatten() {
                s.set_ready(false);
            }
            if self.crawford_now {
                self.crawford_now = false;
                self.crawford_done = true;
            } else if !self.crawford_done && self.score.contains(&(n - 1)) {
                self.crawford_now = true;
            }
            self.next_correspondence_game(out);
        }
    }

    /// A correspondence match goes on by itself
    /// ([`crate::RoomConfig::next_game_at_once`]): with both seats taken,
    /// the next game starts now, both seats ready, and its clock runs
    /// from here (the first turn is announced, and its player told, as
    /// any turn is).
    fn next_correspondence_game(&mut self, out: &mut Out) {
        if !self.config.next_game_at_once
            || !self.correspondence()
            || !self.seats.iter().all(Option::is_some)
            || self.next_setup().check().is_err()
        {
            return;
        }
        for seat in SeatId::BOTH {
            if let Some(occ) = self.seats[seat.index()].as_mut() {
                occ.set_ready(true);
            }
            out.push((Audience::All, Event::Ready { seat }));
        }
        if self.start_game(out).is_ok() {
            self.sync_clock(out);
        }
    }
}
