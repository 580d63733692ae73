//! The room: seats, Ready, games of a match, timers, the event log.
//!
//! * `mod.rs` — [`Room`]: its state, accessors, [`Room::apply`] /
//!   [`Room::tick`] (each accepted input logged for the snapshot), the
//!   event log, [`Room::snapshot`] / [`Room::restore`].
//! * `input.rs` — what a room is made of and fed: [`RoomConfig`],
//!   [`Command`], [`Input`], [`RoomSnapshot`].
//! * `commands.rs` — one command's effect: seats, spectators, Ready,
//!   seeds, the game's commands, chat, connections, forfeits.
//! * `games.rs` — a match's games: starting one, bot prompts after each
//!   input, the end of one (arbiter lines, `gameOver`, records, stats,
//!   match score and the Crawford game).

mod commands;
mod games;
mod input;
mod rematch;
mod takeback;
mod view;

use std::collections::VecDeque;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::clock::{ClockView, Clocks, Unit};
use crate::error::RoomError;
use crate::event::{Audience, BotNeed, Envelope, Event, Phase};
use crate::game::Game;
use crate::record::GameRecord;
use crate::result::EndReason;
use crate::types::{Actor, BotLevel, PlayerId, SeatId, Spot};
use crate::view::{MovesView, Recent};

pub use input::{Command, Input, RoomConfig, RoomSnapshot};
/// How many of its latest events a room keeps for `resume`
/// ([`Room::events_since`]). A client further behind gets the full state
/// instead. Why a bound: a long nardy game emits ~600 events, a third of
/// them `possibleMoves` with a string per offered sequence, ~200 KB of
/// heap by the end of one game; kept whole, a room's log grew with every
/// game of a match. 128 events are a few minutes of human play, more than
/// the disconnect grace lets a player miss.
pub const EVENT_LOG_KEEP: usize = 128;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Occupant {
    Human {
        player: PlayerId,
        ready: bool,
        deadline: Option<u64>,
        /// Away from a paused game against a bot ([`Room::paused`]).
        #[serde(default)]
        away: bool,
    },
    Bot {
        level: BotLevel,
        ready: bool,
    },
}

impl Occupant {
    fn ready(&self) -> bool {
        match self {
            Occupant::Human { ready, .. } | Occupant::Bot { ready, .. } => *ready,
        }
    }

    fn set_ready(&mut self, r: bool) {
        match self {
            Occupant::Human { ready, .. } | Occupant::Bot { ready, .. } => *ready = r,
        }
    }

    fn player(&self) -> Option<&PlayerId> {
        match self {
            Occupant::Human { player, .. } => Some(player),
            Occupant::Bot { .. } => None,
        }
    }

    fn bot_level(&self) -> Option<BotLevel> {
        match self {
            Occupant::Bot { level, .. } => Some(*level),
            Occupant::Human { .. } => None,
        }
    }
}

type Out = Vec<(Audience, Event)>;

/// A room: one table, two seats, spectators, a match of games.
#[derive(Debug, Clone)]
pub struct Room {
    config: RoomConfig,
    version: u64,
    phase: Phase,
    seats: [Option<Occupant>; 2],
    spectators: Vec<PlayerId>,
    client_seeds: [String; 2],
    game: Option<Game>,
    game_number: u32,
    score: [u32; 2],
    crawford_now: bool,
    crawford_done: bool,
    /// The latest [`EVENT_LOG_KEEP`] events.
    log: VecDeque<Envelope>,
    /// What the view needs from events the log may have dropped.
    recent: Recent,
    inputs: Vec<Input>,
    records: Vec<GameRecord>,
    last_prompt: Option<(SeatId, BotNeed, u32, usize)>,
    /// Seats A and B asked for a rematch of the finished match.
    rematch: [bool; 2],
    /// 1 for the room's first match, +1 per rematch.
    match_number: u32,
    /// The clocks, under a time control.
    clocks: Option<Clocks>,
    /// The time of the input being applied (what the clocks charge to).
    now: u64,
    /// The time of the last accepted input.
    last_input_at: u64,
    /// A takeback asked for: by which seat, and the game's action count
    /// then, with the game's number (any action since lapses it).
    takeback: Option<(SeatId, (u32, usize))>,
    /// The last takeback declined: by whom it was asked, at which action
    /// count (not asked again for the same turn).
    takeback_declined: Option<(SeatId, (u32, usize))>,
}

impl Room {
    /// A new room, waiting for players. A configured bot takes seat B (the
    /// log starts with `botSeated`).
    pub fn new(config: RoomConfig) -> Room {
        let mut room = Room {
            config: config.clone(),
            version: 0,
            phase: Phase::WaitingForPlayer,
            seats: [None, None],
            spectators: Vec::new(),
            client_seeds: [String::new(), String::new()],
            game: None,
            game_number: 0,
            score: [0, 0],
            crawford_now: false,
            crawford_done: false,
            log: VecDeque::new(),
            recent: Recent::default(),
            inputs: Vec::new(),
            records: Vec::new(),
            last_prompt: None,
            rematch: [false, false],
            match_number: 1,
            clocks: config.time_control.map(|tc| {
                // A match with the cube keeps one bank for the match.
                let per_match =
                    config.match_length > 1 && config.match_length >= config.cube_from_match_length;
                Clocks::new(tc, per_match)
            }),
            now: 0,
            last_input_at: 0,
            takeback: None,
            takeback_declined: None,
        };
        if let Some(level) = room.config.bot {
            room.seats[1] = Some(Occupant::Bot {
                level,
                ready: false,
            });
            room.emit(vec![(
                Audience::All,
                Event::BotSeated {
                    seat: SeatId::B,
                    level,
                },
            )]);
        }
        room
    }

    /// The configuration.
    pub fn config(&self) -> &RoomConfig {
        &self.config
    }

    /// The current version (the version of the last event).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The event log: the latest [`EVENT_LOG_KEEP`] events, oldest first.
    pub fn log(&self) -> &VecDeque<Envelope> {
        &self.log
    }

    /// The events after `version`, oldest first (for `resume {version}`),
    /// or `None` when they cannot all be given: `version` is ahead of the
    /// room, or so far behind that the log has dropped some of them.
    pub fn events_since(&self, version: u64) -> Option<impl ExactSizeIterator<Item = &Envelope>> {
        // Versions rise by one per event, so the log holds exactly the
        // versions after `kept_from`.
        let kept_from = self.version - self.log.len() as u64;
        if version > self.version || version < kept_from {
            return None;
        }
        let skip = usize::try_from(version - kept_from).ok()?;
        Some(self.log.range(skip..))
    }

    pub(crate) fn recent(&self) -> &Recent {
        &self.recent
    }

    /// The game being played (or the last one).
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// The match score of seats A and B.
    pub fn score(&self) -> [u32; 2] {
        self.score
    }

    /// Records of the finished games.
    pub fn records(&self) -> &[GameRecord] {
        &self.records
    }

    /// The seat of a player, if seated.
    pub fn seat_of(&self, player: &PlayerId) -> Option<SeatId> {
        SeatId::BOTH
            .into_iter()
            .find(|s| self.seats[s.index()].as_ref().and_then(Occupant::player) == Some(player))
    }

    /// What `player`'s turn offers after the tentative `steps` (the
    /// `preview` command): refused as the same steps sent with `move`
    /// would be, and it changes nothing (no version, no event, no
    /// record). `Ok(None)`: the steps finish the turn, which `turn` with
    /// them would play.
    pub fn preview(
        &self,
        player: &PlayerId,
        steps: &[(Spot, Spot)],
    ) -> Result<Option<MovesView>, RoomError> {
        let seat = self.seat_of(player).ok_or(RoomError::NotSeated)?;
        if self.phase != Phase::Playing {
            return Err(RoomError::GameNotStarted);
        }
        let game = self.game.as_ref().ok_or(RoomError::GameNotStarted)?;
        game.preview(seat, steps)
    }

    /// The player in a seat (`None` for empty or bot seats).
    pub fn player_in(&self, seat: SeatId) -> Option<&PlayerId> {
        self.seats[seat.index()].as_ref().and_then(Occupant::player)
    }

    /// The bot level of a seat, if a bot holds it.
    pub fn bot_in(&self, seat: SeatId) -> Option<BotLevel> {
        self.seats[seat.index()]
            .as_ref()
            .and_then(Occupant::bot_level)
    }

    /// 1-based number of the current (or last) game; 0 before the first.
    /// It counts on across rematches (each game has its own server seed
    /// and record).
    pub fn game_number(&self) -> u32 {
        self.game_number
    }

    /// 1 for the room's first match, 2 after the first rematch, …
    pub fn match_number(&self) -> u32 {
        self.match_number
    }

    /// The seats that have asked for a rematch of the finished match.
    pub fn rematch_offers(&self) -> Vec<SeatId> {
        SeatId::BOTH
            .into_iter()
            .filter(|s| self.rematch[s.index()])
            .collect()
    }

    /// A seat as everyone may see it.
    pub fn seat_view(&self, seat: SeatId) -> crate::view::SeatView {
        let occ = self.seats[seat.index()].as_ref();
        crate::view::SeatView {
            player: occ.and_then(Occupant::player).cloned(),
            bot: occ.and_then(Occupant::bot_level),
            ready: occ.is_some_and(Occupant::ready),
            disconnect_deadline: match occ {
                Some(Occupant::Human { deadline, .. }) => *deadline,
                _ => None,
            },
        }
    }

    /// The spectators.
    pub fn spectators(&self) -> &[PlayerId] {
        &self.spectators
    }

    /// A correspondence room ([`crate::TimeControl::is_correspondence`]): its
    /// players come and go over days; only its clock ends a game.
    pub fn correspondence(&self) -> bool {
        self.config
            .time_control
            .is_some_and(|tc| tc.is_correspondence())
    }

    /// A game against a bot whose player is away: nothing happens until
    /// he is back (no bot move, no deadline; [`RoomConfig::pause_vs_bot`]).
    pub fn paused(&self) -> bool {
        self.phase == Phase::Playing
            && self
                .seats
                .iter()
                .any(|s| matches!(s, Some(Occupant::Human { away: true, .. })))
    }

    /// When [`Room::tick`] should next be called: a disconnect deadline,
    /// or when the running clock runs out.
    pub fn next_deadline(&self) -> Option<u64> {
        if self.phase != Phase::Playing {
            return None;
        }
        let clock = self.clocks.as_ref().and_then(Clocks::deadline);
        self.seats
            .iter()
            .filter_map(|s| match s {
                Some(Occupant::Human { deadline, .. }) => *deadline,
                _ => None,
            })
            .chain(clock)
            .min()
    }

    /// The clocks, under a time control.
    pub fn clock(&self) -> Option<ClockView> {
        self.clocks.as_ref().map(Clocks::view)
    }

    /// When the last accepted input was applied (ms since the epoch).
    pub fn last_input_at(&self) -> u64 {
        self.last_input_at
    }

    /// A new owner has restored this room at `now` (a takeover, a
    /// hand-off, a reload): the running clock keeps what its period had
    /// used at the room's last input and counts on from `now`, so the
    /// time between that input and this one (a node dying, the lease
    /// running out, the claim) is not charged to the player. Logged like
    /// any input (a replay resumes the same way); nothing (no event, no
    /// input) when no clock runs.
    pub fn resume_clock(&mut self, now: u64) -> Vec<Envelope> {
        if self.phase != Phase::Playing {
            return Vec::new();
        }
        let last = self.last_input_at;
        let Some(c) = self.clocks.as_mut() else {
            return Vec::new();
        };
        if !c.resume(last, now) {
            return Vec::new();
        }
        let out = vec![(Audience::All, clock_event(c, now))];
        self.inputs.push(Input::Resume { now });
        self.last_input_at = now;
        self.emit(out)
    }

    /// Brings the clocks to where the room stands (who must act, which
    /// game and round, paused or not) at the input's time; announces
    /// them when they changed.
    pub(super) fn sync_clock(&mut self, out: &mut Out) {
        let playing = self.phase == Phase::Playing;
        let acting = match (&self.game, playing) {
            (Some(g), true) => g.to_act().map(|(s, _)| s),
            _ => None,
        };
        let unit = self.game.as_ref().map(|g| Unit {
            match_number: self.match_number,
            game: self.game_number,
            round: g.thud_game().map_or(0, |t| t.round_number() as u32),
        });
        let paused = self.paused();
        let now = self.now;
        let Some(c) = self.clocks.as_mut() else {
            return;
        };
        if c.follow(now, acting, unit, paused) {
            out.push((Audience::All, clock_event(c, now)));
        }
    }

    /// A snapshot that [`Room::restore`] turns back into this room.
    pub fn snapshot(&self) -> RoomSnapshot {
        RoomSnapshot {
            config: self.config.clone(),
            inputs: self.inputs.clone(),
            version: self.version,
        }
    }

    /// How many inputs the room has accepted (the length of
    /// [`RoomSnapshot::inputs`]).
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// The inputs accepted after the first `n`: what an incremental
    /// snapshot appends to a stored one that holds `n` (empty when `n` is
    /// past the end).
    pub fn inputs_since(&self, n: usize) -> &[Input] {
        self.inputs.get(n..).unwrap_or_default()
    }

    /// Rebuilds a room from a snapshot by replaying its inputs.
    pub fn restore(snapshot: &RoomSnapshot) -> Result<Room, RoomError> {
        let mut room = Room::new(snapshot.config.clone());
        for (i, input) in snapshot.inputs.iter().enumerate() {
            match input {
                Input::Apply {
                    command,
                    actor,
                    now,
                } => {
                    room.apply(command.clone(), actor.clone(), *now)
                        .map_err(|e| RoomError::BadSnapshot(format!("input {i}: {e}")))?;
                }
                Input::Tick { now } => {
                    if room.tick(*now).is_empty() {
                        return Err(RoomError::BadSnapshot(format!(
                            "input {i}: tick fired nothing"
                        )));
                    }
                }
                Input::Resume { now } => {
                    if room.resume_clock(*now).is_empty() {
                        return Err(RoomError::BadSnapshot(format!(
                            "input {i}: no clock to resume"
                        )));
                    }
                }
            }
        }
        if room.version != snapshot.version {
            return Err(RoomError::BadSnapshot(format!(
                "replay reached version {}, snapshot says {}",
                room.version, snapshot.version
            )));
        }
        Ok(room)
    }

    fn emit(&mut self, out: Out) -> Vec<Envelope> {
        let mut v = Vec::with_capacity(out.len());
        for (to, event) in out {
            self.version += 1;
            let e = Envelope {
                version: self.version,
                to,
                event: Arc::new(event),
            };
            self.recent.observe(&e);
            if self.log.len() == EVENT_LOG_KEEP
                && let Some(old) = self.log.pop_front()
            {
                self.recent.dropped(old);
            }
            self.log.push_back(e.clone());
            v.push(e);
        }
        v
    }

    /// Applies a command at time `now` (millis). A refused command changes
    /// nothing. An accepted one returns its events, already in the log.
    pub fn apply(
        &mut self,
        command: Command,
        actor: Actor,
        now: u64,
    ) -> Result<Vec<Envelope>, RoomError> {
        let mut out = Vec::new();
        self.now = now;
        self.handle(&command, &actor, now, &mut out)?;
        self.sync_clock(&mut out);
        self.after(&mut out);
        if out.is_empty() {
            return Ok(Vec::new());
        }
        self.inputs.push(Input::Apply {
            command,
            actor,
            now,
        });
        self.last_input_at = now;
        Ok(self.emit(out))
    }

    /// Fires timers due at `now`: a player disconnected past the grace
    /// period loses (mars if none borne off, else oin), and so does one
    /// whose clock ran out ([`Game::time_out`]: in Thud! the round ends).
    pub fn tick(&mut self, now: u64) -> Vec<Envelope> {
        let mut out = Vec::new();
        self.now = now;
        if self.phase == Phase::Playing {
            for seat in SeatId::BOTH {
                let due = matches!(
                    &self.seats[seat.index()],
                    Some(Occupant::Human { deadline: Some(d), .. }) if *d <= now
                );
                if due && self.phase == Phase::Playing {
                    if let Some(Occupant::Human { deadline, .. }) = &mut self.seats[seat.index()] {
                        *deadline = None;
                    }
                    if !self.bot_replaces(seat, &mut out) {
                        self.forfeit(seat, EndReason::Disconnected, &mut out);
                    }
                }
            }
        }
        if self.phase == Phase::Playing
            && !self.paused()
            && let Some(seat) = self.clocks.as_ref().and_then(|c| c.expire(now))
            && let Some(game) = self.game.as_mut()
        {
            // Refused only once the game is over, which it is not here.
            let _ = game.time_out(seat, &mut out);
        }
        self.sync_clock(&mut out);
        self.after(&mut out);
        if out.is_empty() {
            return Vec::new();
        }
        self.inputs.push(Input::Tick { now });
        self.last_input_at = now;
        self.emit(out)
    }

    fn actor_seat(&self, actor: &Actor) -> Result<SeatId, RoomError> {
        match actor {
            Actor::Player(p) => self.seat_of(p).ok_or(RoomError::NotSeated),
            Actor::Bot(s) => match self.seats[s.index()] {
                Some(Occupant::Bot { .. }) => Ok(*s),
                _ => Err(RoomError::NotABot(*s)),
            },
        }
    }

    fn playing(&mut self) -> Result<&mut Game, RoomError> {
        if self.phase != Phase::Playing {
            return Err(RoomError::GameNotStarted);
        }
        self.game.as_mut().ok_or(RoomError::GameNotStarted)
    }
}

/// The `clock` event of `clocks` at `at`.
fn clock_event(clocks: &Clocks, at: u64) -> Event {
    let v = clocks.view();
    Event::Clock {
        at,
        delay_ms: v.delay_ms,
        reserve_ms: v.reserve_ms,
        reserve: v.reserve,
        running: v.running,
    }
}
