//! The room: seats, Ready, games of a match, timers, the event log.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::RoomError;
use crate::event::{
    Audience, BotNeed, ChatAuthor, EndReason, Envelope, Event, GameResult, Phase, PlayerDelta,
    PlayerResult,
};
use crate::fair::game_server_seed;
use crate::game::{Game, GameOptions, GameSetup, StartPosition};
use crate::narration::{self, Fact};
use crate::record::GameRecord;
use crate::types::{Actor, BotLevel, PlayerId, SeatId, Spot, Stake};
use crate::view::Recent;

/// How many of its latest events a room keeps for `resume`
/// ([`Room::events_since`]). A client further behind gets the full state
/// instead. Why a bound: a long nardy game emits ~600 events, a third of
/// them `possibleMoves` with a string per offered sequence, ~200 KB of
/// heap by the end of one game; kept whole, a room's log grew with every
/// game of a match. 128 events are a few minutes of human play, more than
/// the disconnect grace lets a player miss.
pub const EVENT_LOG_KEEP: usize = 128;

/// How a room is set up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RoomConfig {
    /// The game and its variant options.
    pub options: GameOptions,
    /// The stake shown in `game_over` messages (per point).
    pub stake: Option<Stake>,
    /// Match length in points (1 = a single game). Thud! is always one game.
    pub match_length: u32,
    /// The cube is used when `match_length` is at least this (default 3).
    pub cube_from_match_length: u32,
    /// Disconnect grace period in milliseconds (default 30 000).
    pub grace_ms: u64,
    /// A bot in seat B at this level.
    pub bot: Option<BotLevel>,
    /// When a seated player leaves a game in progress (the disconnect
    /// grace runs out, or `leave` / stand up), a bot at this level takes
    /// the seat and plays on, instead of the game being forfeited.
    pub replace_leaver: Option<BotLevel>,
    /// The secret master seed; each game's server seed is derived from it
    /// ([`crate::fair::game_server_seed`]).
    pub master_seed: String,
    /// The longest chat line in characters (default 500).
    pub chat_max_chars: usize,
    /// Start every game from this position (tests, lessons).
    pub start_position: Option<StartPosition>,
    /// Scripted dice instead of the fair derivation (tests and training
    /// only; the game records carry the script).
    pub dice_script: Option<Vec<[u8; 2]>>,
}

impl Default for RoomConfig {
    fn default() -> RoomConfig {
        RoomConfig {
            options: GameOptions::default(),
            stake: None,
            match_length: 1,
            cube_from_match_length: 3,
            grace_ms: 30_000,
            bot: None,
            replace_leaver: None,
            master_seed: String::new(),
            chat_max_chars: 500,
            start_position: None,
            dice_script: None,
        }
    }
}

/// A command to the room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Command {
    /// Take a seat (`None`: the first free one).
    Sit {
        /// The seat wanted.
        seat: Option<SeatId>,
    },
    /// Watch.
    Spectate,
    /// Leave the seat; during a game this is a resignation (seed 002).
    StandUp,
    /// Leave the room; during a game the opponent wins and gets
    /// `opponentLeft`.
    Leave,
    /// Ready to start (seed 002).
    Ready,
    /// Set one's client seed for the next game.
    SetClientSeed {
        /// The seed.
        seed: String,
    },
    /// Roll the dice.
    RollDice,
    /// One step (seed 000's `move {from, to}`).
    Move {
        /// From.
        from: Spot,
        /// To.
        to: Spot,
    },
    /// A Thud! move in notation (`Da6-b6`, `Th7-h6xg5`).
    ThudMove {
        /// The move.
        notation: String,
    },
    /// Resign the game.
    Resign,
    /// Offer a double.
    Double,
    /// Take the double.
    Take,
    /// Drop the double.
    Drop,
    /// Thud!: propose to end the round.
    ProposeEnd,
    /// Thud!: accept the proposal.
    AcceptEnd,
    /// Thud!: decline (or withdraw) the proposal.
    DeclineEnd,
    /// A chat line.
    Chat {
        /// The text.
        text: String,
    },
    /// The player's connection came back.
    Connected,
    /// The player's connection dropped.
    Disconnected,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Occupant {
    Human {
        player: PlayerId,
        ready: bool,
        deadline: Option<u64>,
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

/// One accepted input, as kept in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Input {
    /// An accepted command.
    Apply {
        /// The command.
        command: Command,
        /// Who sent it.
        actor: Actor,
        /// When.
        now: u64,
    },
    /// A tick that fired a timer.
    Tick {
        /// When.
        now: u64,
    },
}

/// A room snapshot: the configuration and every accepted input. The room is
/// a deterministic function of these, so [`Room::restore`] replays them
/// and gets the exact room back, mid-turn included, with the same event
/// log and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomSnapshot {
    /// The configuration.
    pub config: RoomConfig,
    /// Accepted inputs in order.
    pub inputs: Vec<Input>,
    /// The room version at the snapshot (checked on restore).
    pub version: u64,
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
}

impl Room {
    /// A new room, waiting for players. A configured bot takes seat B (the
    /// log starts with `botSeated`).
    pub fn new(config: RoomConfig) -> Room {
        let mut room = Room {
            config,
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
    pub fn game_number(&self) -> u32 {
        self.game_number
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

    /// When [`Room::tick`] should next be called (a disconnect deadline).
    pub fn next_deadline(&self) -> Option<u64> {
        if self.phase != Phase::Playing {
            return None;
        }
        self.seats
            .iter()
            .filter_map(|s| match s {
                Some(Occupant::Human { deadline, .. }) => *deadline,
                _ => None,
            })
            .min()
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
        self.handle(&command, &actor, now, &mut out)?;
        self.after(&mut out);
        if out.is_empty() {
            return Ok(Vec::new());
        }
        self.inputs.push(Input::Apply {
            command,
            actor,
            now,
        });
        Ok(self.emit(out))
    }

    /// Fires timers due at `now`: a player disconnected past the grace
    /// period loses (mars if none borne off, else oin).
    pub fn tick(&mut self, now: u64) -> Vec<Envelope> {
        let mut out = Vec::new();
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
        self.after(&mut out);
        if out.is_empty() {
            return Vec::new();
        }
        self.inputs.push(Input::Tick { now });
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

    fn handle(
        &mut self,
        command: &Command,
        actor: &Actor,
        now: u64,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        match command {
            Command::Sit { seat } => self.sit(actor, *seat, out),
            Command::Spectate => {
                let Actor::Player(p) = actor else {
                    return Err(RoomError::AlreadySeated);
                };
                if self.seat_of(p).is_some() {
                    return Err(RoomError::AlreadySeated);
                }
                if !self.spectators.contains(p) {
                    self.spectators.push(p.clone());
                    out.push((Audience::All, Event::SpectatorJoined { player: p.clone() }));
                }
                Ok(())
            }
            Command::StandUp => self.leave_seat(actor, false, out),
            Command::Leave => {
                if let Actor::Player(p) = actor
                    && let Some(i) = self.spectators.iter().position(|s| s == p)
                {
                    self.spectators.remove(i);
                    out.push((Audience::All, Event::SpectatorLeft { player: p.clone() }));
                    return Ok(());
                }
                self.leave_seat(actor, true, out)
            }
            Command::Ready => {
                let seat = self.actor_seat(actor)?;
                match self.phase {
                    Phase::Playing => return Err(RoomError::GameInProgress),
                    Phase::Finished => return Err(RoomError::MatchFinished),
                    Phase::WaitingForPlayer => {}
                }
                if self.seats[seat.index()]
                    .as_ref()
                    .is_some_and(Occupant::ready)
                {
                    return Err(RoomError::AlreadyReady);
                }
                self.next_setup().check()?;
                if let Some(occ) = self.seats[seat.index()].as_mut() {
                    occ.set_ready(true);
                    // Pressing Ready proves presence: no stale grace timer.
                    if let Occupant::Human { deadline, .. } = occ {
                        *deadline = None;
                    }
                }
                out.push((Audience::All, Event::Ready { seat }));
                if self
                    .seats
                    .iter()
                    .all(|s| s.as_ref().is_some_and(Occupant::ready))
                {
                    self.start_game(out)?;
                }
                Ok(())
            }
            Command::SetClientSeed { seed } => {
                let seat = self.actor_seat(actor)?;
                if self.phase == Phase::Playing {
                    return Err(RoomError::SeedLocked);
                }
                self.client_seeds[seat.index()] = seed.clone();
                out.push((
                    Audience::All,
                    Event::ClientSeedSet {
                        seat,
                        seed: seed.clone(),
                    },
                ));
                Ok(())
            }
            Command::RollDice => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.roll(seat, out)
            }
            Command::Move { from, to } => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.step(seat, *from, *to, out)
            }
            Command::ThudMove { notation } => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.thud_move(seat, notation, out)
            }
            Command::Resign => {
                let seat = self.actor_seat(actor)?;
                self.playing()?;
                self.forfeit(seat, EndReason::Resigned, out);
                Ok(())
            }
            Command::Double => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.double(seat, out)
            }
            Command::Take => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.take(seat, out)
            }
            Command::Drop => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.drop_double(seat, out)
            }
            Command::ProposeEnd => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.propose_end(seat, out)
            }
            Command::AcceptEnd => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.accept_end(seat, out)
            }
            Command::DeclineEnd => {
                let seat = self.actor_seat(actor)?;
                self.playing()?.decline_end(seat, out)
            }
            Command::Chat { text } => {
                let Actor::Player(p) = actor else {
                    return Err(RoomError::NotSeated);
                };
                if self.seat_of(p).is_none() && !self.spectators.contains(p) {
                    return Err(RoomError::NotSeated);
                }
                let text = text.trim();
                if text.is_empty() {
                    return Err(RoomError::ChatEmpty);
                }
                if text.chars().count() > self.config.chat_max_chars {
                    return Err(RoomError::ChatTooLong {
                        max: self.config.chat_max_chars,
                    });
                }
                out.push((
                    Audience::All,
                    Event::Chat {
                        from: ChatAuthor::Player(p.clone()),
                        text: text.to_string(),
                    },
                ));
                Ok(())
            }
            Command::Disconnected => {
                let seat = match actor {
                    Actor::Player(p) => match self.seat_of(p) {
                        Some(s) => s,
                        None => {
                            if let Some(i) = self.spectators.iter().position(|s| s == p) {
                                self.spectators.remove(i);
                                out.push((
                                    Audience::All,
                                    Event::SpectatorLeft { player: p.clone() },
                                ));
                            }
                            return Ok(());
                        }
                    },
                    Actor::Bot(_) => return Err(RoomError::NotSeated),
                };
                if self.phase == Phase::Playing {
                    let deadline = now.saturating_add(self.config.grace_ms);
                    if let Some(Occupant::Human { deadline: d, .. }) = &mut self.seats[seat.index()]
                        && d.is_none()
                    {
                        *d = Some(deadline);
                        out.push((Audience::All, Event::PlayerDisconnected { seat, deadline }));
                    }
                    Ok(())
                } else {
                    self.free_seat(seat, out);
                    Ok(())
                }
            }
            Command::Connected => {
                let seat = self.actor_seat(actor)?;
                if let Some(Occupant::Human { deadline, .. }) = &mut self.seats[seat.index()]
                    && deadline.is_some()
                {
                    *deadline = None;
                    out.push((Audience::All, Event::PlayerReconnected { seat }));
                }
                Ok(())
            }
        }
    }

    fn sit(&mut self, actor: &Actor, seat: Option<SeatId>, out: &mut Out) -> Result<(), RoomError> {
        let Actor::Player(p) = actor else {
            return Err(RoomError::AlreadySeated);
        };
        if self.seat_of(p).is_some() {
            return Err(RoomError::AlreadySeated);
        }
        match self.phase {
            Phase::Finished => return Err(RoomError::MatchFinished),
            Phase::Playing => return Err(RoomError::GameInProgress),
            Phase::WaitingForPlayer => {}
        }
        let seat = match seat {
            Some(s) if self.seats[s.index()].is_some() => return Err(RoomError::SeatTaken(s)),
            Some(s) => s,
            None => SeatId::BOTH
                .into_iter()
                .find(|s| self.seats[s.index()].is_none())
                .ok_or(RoomError::RoomFull)?,
        };
        self.spectators.retain(|s| s != p);
        self.seats[seat.index()] = Some(Occupant::Human {
            player: p.clone(),
            ready: false,
            deadline: None,
        });
        out.push((
            Audience::All,
            Event::SeatTaken {
                seat,
                player: p.clone(),
            },
        ));
        Ok(())
    }

    fn free_seat(&mut self, seat: SeatId, out: &mut Out) {
        if let Some(Occupant::Human { player, .. }) = self.seats[seat.index()].take() {
            out.push((Audience::All, Event::SeatFreed { seat, player }));
        }
    }

    fn leave_seat(&mut self, actor: &Actor, leaving: bool, out: &mut Out) -> Result<(), RoomError> {
        let Actor::Player(_) = actor else {
            return Err(RoomError::NotSeated);
        };
        let seat = self.actor_seat(actor)?;
        if self.phase == Phase::Playing && self.bot_replaces(seat, out) {
            self.after(out);
            return Ok(());
        }
        if self.phase == Phase::Playing {
            let reason = if leaving {
                EndReason::Disconnected
            } else {
                EndReason::StoodUp
            };
            self.forfeit(seat, reason, out);
            self.after(out);
        }
        self.free_seat(seat, out);
        Ok(())
    }

    /// With [`RoomConfig::replace_leaver`], a bot takes `seat` from the
    /// player leaving it mid-game; false (nothing done) otherwise.
    fn bot_replaces(&mut self, seat: SeatId, out: &mut Out) -> bool {
        let Some(level) = self.config.replace_leaver else {
            return false;
        };
        if !matches!(self.seats[seat.index()], Some(Occupant::Human { .. })) {
            return false;
        }
        let bot = Occupant::Bot { level, ready: true };
        if let Some(Occupant::Human { player, .. }) = self.seats[seat.index()].replace(bot) {
            out.push((Audience::All, Event::SeatFreed { seat, player }));
        }
        out.push((Audience::All, Event::BotSeated { seat, level }));
        narration::arbiter(out, Fact::BotTookSeat);
        true
    }

    /// `seat` loses the game now (resign, stand up, leave, disconnect).
    fn forfeit(&mut self, seat: SeatId, reason: EndReason, out: &mut Out) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        if game.resign(seat, reason).is_err() {
            return;
        }
        if reason == EndReason::Disconnected {
            out.push((
                Audience::Seat(seat.other()),
                Event::OpponentLeft {
                    message: narration::opponent_left(),
                },
            ));
        }
    }

    fn next_setup(&self) -> GameSetup {
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

    fn start_game(&mut self, out: &mut Out) -> Result<(), RoomError> {
        let game = Game::start(&self.next_setup(), out)?;
        self.game_number += 1;
        self.game = Some(game);
        self.phase = Phase::Playing;
        Ok(())
    }

    /// Post-processing after every accepted input: the end of a game, and
    /// requests for bot seats.
    fn after(&mut self, out: &mut Out) {
        if self.phase == Phase::Playing
            && let Some(result) = self.game.as_ref().and_then(|g| g.result().cloned())
        {
            self.end_game(result, out);
        }
        let prompt = self.bot_prompt();
        if let Some(p) = prompt
            && Some(p) != self.last_prompt
        {
            let (seat, need, ..) = p;
            if let Some(level) = self.bot_in(seat) {
                out.push((Audience::Host, Event::BotRequest { seat, level, need }));
            }
        }
        if prompt.is_some() {
            self.last_prompt = prompt;
        }
    }

    fn bot_prompt(&self) -> Option<(SeatId, BotNeed, u32, usize)> {
        match self.phase {
            Phase::Finished => None,
            Phase::WaitingForPlayer => {
                let humans = self
                    .seats
                    .iter()
                    .any(|s| matches!(s, Some(Occupant::Human { .. })));
                SeatId::BOTH
                    .into_iter()
                    .find_map(|s| match &self.seats[s.index()] {
                        Some(Occupant::Bot { ready: false, .. }) if humans => {
                            Some((s, BotNeed::Ready, self.game_number, 0))
                        }
                        _ => None,
                    })
            }
            Phase::Playing => {
                let g = self.game.as_ref()?;
                let (seat, need) = g.to_act()?;
                self.bot_in(seat)?;
                Some((seat, need, self.game_number, g.actions().len()))
            }
        }
    }

    fn end_game(&mut self, r: GameResult, out: &mut Out) {
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
            let message =
                narration::game_over_message(result, r.points, self.config.stake.as_ref());
            out.push((
                Audience::Seat(seat),
                Event::GameOver {
                    result,
                    points: r.points,
                    kind: r.kind,
                    message,
                },
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
        let players = SeatId::BOTH
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
                }
            })
            .collect();
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
        }
    }
}
