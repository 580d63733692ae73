//! The tournament's state, its inputs dispatched, and what every format
//! shares: pairing a game, a bye, counting a result once.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::bracket::Bracket;
use crate::standings::{Record, Res, Standings, Tally};
use crate::{
    Colour, ConfigError, Effect, Format, GameId, Input, Outcome, PlayerId, Rejection, Status,
    TournamentConfig,
};

/// A registered player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entrant {
    /// Who.
    pub player: PlayerId,
    /// His rating at joining.
    pub rating: i32,
    /// When he joined.
    pub joined_at_ms: u64,
    /// He left: no more pairings; his results stay.
    pub withdrawn: bool,
    /// He asked for (or was given, by a no-show) a pause: no pairings.
    pub paused: bool,
    /// His score so far.
    pub tally: Tally,
    /// Games with white less games with black.
    pub colour_diff: i32,
    /// His colour in his last game.
    pub last_colour: Option<Colour>,
    /// The game he is playing now.
    pub game: Option<GameId>,
    /// Whom he played last.
    pub last_opponent: Option<PlayerId>,
}

/// A paired game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Game {
    /// Its id.
    pub id: GameId,
    /// Its round (0 in an arena).
    pub round: u32,
    /// Its board in the round (an arena: its number).
    pub board: u32,
    /// White.
    pub white: PlayerId,
    /// Black.
    pub black: PlayerId,
    /// When it was paired (its room created).
    pub paired_at_ms: u64,
    /// When the grace for arriving began: the pairing, moved on by the time
    /// nobody owned the tournament ([`Input::Restored`]).
    pub grace_from_ms: u64,
    /// Whether white and black have come.
    pub arrived: [bool; 2],
    /// Its result, once counted.
    pub outcome: Option<Outcome>,
}

/// A tournament: registrations, pairings, results, standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tournament {
    pub(crate) id: String,
    pub(crate) config: TournamentConfig,
    pub(crate) status: Status,
    pub(crate) entrants: Vec<Entrant>,
    pub(crate) index: BTreeMap<PlayerId, usize>,
    pub(crate) games: BTreeMap<GameId, Game>,
    pub(crate) running: BTreeSet<GameId>,
    pub(crate) records: Vec<Record>,
    pub(crate) round: u32,
    /// The latest `now` applied: time never runs backwards here.
    pub(crate) now_ms: u64,
    pub(crate) bracket: Option<Bracket>,
    pub(crate) arena: Option<ArenaState>,
}

/// The effects of one input, with the standings change folded into one.
#[derive(Debug, Default)]
pub(crate) struct Out {
    pub(crate) fx: Vec<Effect>,
    pub(crate) standings: bool,
}

impl Out {
    pub(crate) fn flush(&mut self) {
        if std::mem::take(&mut self.standings) {
            self.fx.push(Effect::StandingsChanged);
        }
    }
}

impl Tournament {
    /// A tournament open for registration.
    ///
    /// The id is 1 to 30 ASCII letters, digits, `-` or `_`: the game ids
    /// are built from it with `:`, so no two tournaments' games can share
    /// one, and every game id fits a room id (64 characters).
    pub fn new(id: impl Into<String>, config: TournamentConfig) -> Result<Self, ConfigError> {
        let id = id.into();
        let fine = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if id.is_empty() || id.len() > 30 || !id.chars().all(fine) {
            return Err(ConfigError::Id);
        }
        config.validate()?;
        Ok(Tournament {
            id,
            config,
            status: Status::Registering,
            entrants: Vec::new(),
            index: BTreeMap::new(),
            games: BTreeMap::new(),
            running: BTreeSet::new(),
            records: Vec::new(),
            round: 0,
            now_ms: 0,
            bracket: None,
            arena: None,
        })
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its settings.
    pub fn config(&self) -> &TournamentConfig {
        &self.config
    }

    /// Where it is in its life.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The current round (knockout and Swiss; 0 before the first).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The players, in joining order.
    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    /// One player.
    pub fn entrant(&self, player: &PlayerId) -> Option<&Entrant> {
        self.index.get(player).map(|&i| &self.entrants[i])
    }

    /// Every game paired so far.
    pub fn games(&self) -> impl Iterator<Item = &Game> {
        self.games.values()
    }

    /// One game.
    pub fn game(&self, id: &GameId) -> Option<&Game> {
        self.games.get(id)
    }

    /// The games being played.
    pub fn running(&self) -> impl Iterator<Item = &Game> {
        self.running.iter().map(|id| &self.games[id])
    }

    /// The counted results, in order: what [`crate::recount`] takes.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The players with their ratings, in joining order: what
    /// [`crate::recount`] takes.
    pub fn players(&self) -> Vec<(PlayerId, i32)> {
        self.entrants
            .iter()
            .map(|e| (e.player.clone(), e.rating))
            .collect()
    }

    /// The standings now.
    pub fn standings(&self) -> Standings {
        Standings::rank(
            &self.config.format,
            self.entrants
                .iter()
                .map(|e| (&e.player, e.rating, &e.tally)),
        )
    }

    /// The knockout's bracket, once started.
    pub fn bracket(&self) -> Option<&Bracket> {
        self.bracket.as_ref()
    }

    /// The arena's players waiting for a game, longest first.
    pub fn waiting(&self) -> Vec<(PlayerId, u64)> {
        self.arena.as_ref().map_or_else(Vec::new, |a| {
            a.queue
                .iter()
                .map(|w| (self.entrants[w.entrant].player.clone(), w.since_ms))
                .collect()
        })
    }

    /// When [`Input::Tick`] is next due, if ever.
    pub fn next_deadline(&self) -> Option<u64> {
        match self.status {
            Status::Registering => Some(self.config.start_at_ms),
            Status::Running => {
                let no_show = self.no_show_deadline().map(|(at, _)| at);
                let arena = self.arena_deadline();
                no_show.into_iter().chain(arena).min()
            }
            Status::Finished | Status::Cancelled => None,
        }
    }

    /// Applies an input at `now_ms`, after firing what is due by then. A
    /// `now_ms` earlier than one already applied counts as that one.
    pub fn apply(&mut self, input: Input, now_ms: u64) -> Vec<Effect> {
        let now_ms = now_ms.max(self.now_ms);
        let mut out = Out::default();
        if input == Input::Restored {
            self.forgive(now_ms);
        }
        self.now_ms = now_ms;
        self.fire(now_ms, &mut out);
        if let Err(rejection) = self.handle(input, now_ms, &mut out) {
            out.flush();
            out.fx.push(Effect::Rejected(rejection));
        }
        out.flush();
        out.fx
    }

    fn fire(&mut self, now: u64, out: &mut Out) {
        if self.status == Status::Registering && now >= self.config.start_at_ms {
            self.start(now, out);
        }
        while self.status == Status::Running {
            match self.no_show_deadline() {
                Some((at, id)) if at <= now => self.no_show(&id, now, out),
                _ => break,
            }
        }
        if self.status == Status::Running {
            self.arena_fire(now, out);
        }
    }

    fn handle(&mut self, input: Input, now: u64, out: &mut Out) -> Result<(), Rejection> {
        let open = matches!(self.status, Status::Registering | Status::Running);
        match input {
            Input::Tick | Input::Restored => Ok(()),
            Input::Join { player, rating } => {
                if !open {
                    return Err(Rejection::Closed);
                }
                self.join(player, rating, now, out)
            }
            Input::Withdraw { player } => {
                if !open {
                    return Err(Rejection::Closed);
                }
                let i = self.active(&player)?;
                self.withdraw(i, now, out);
                Ok(())
            }
            Input::Pause { player } => {
                if !open {
                    return Err(Rejection::Closed);
                }
                if self.config.format == Format::Knockout {
                    return Err(Rejection::NoPause);
                }
                let i = self.active(&player)?;
                if self.entrants[i].paused {
                    return Err(Rejection::AlreadyPaused);
                }
                self.entrants[i].paused = true;
                self.arena_dequeue(i);
                Ok(())
            }
            Input::Resume { player } => {
                if !open {
                    return Err(Rejection::Closed);
                }
                let i = self.active(&player)?;
                if !self.entrants[i].paused {
                    return Err(Rejection::NotPaused);
                }
                self.entrants[i].paused = false;
                self.arena_enqueue(i, now, out);
                Ok(())
            }
            Input::GameStarted { game_id } => {
                let game = self.live_game(&game_id)?;
                game.arrived = [true, true];
                Ok(())
            }
            Input::PlayerArrived { game_id, player } => {
                let game = self.live_game(&game_id)?;
                let seat = if game.white == player {
                    0
                } else if game.black == player {
                    1
                } else {
                    return Err(Rejection::NotInGame);
                };
                game.arrived[seat] = true;
                Ok(())
            }
            Input::GameResult { game_id, outcome } => {
                let game = self.games.get(&game_id).ok_or(Rejection::UnknownGame)?;
                if game.outcome.is_some() {
                    return Err(Rejection::DuplicateResult { game_id });
                }
                self.count(&game_id, outcome, false, now, out);
                Ok(())
            }
        }
    }

    fn live_game(&mut self, id: &GameId) -> Result<&mut Game, Rejection> {
        let game = self.games.get_mut(id).ok_or(Rejection::UnknownGame)?;
        if game.outcome.is_some() {
            return Err(Rejection::GameOver {
                game_id: id.clone(),
            });
        }
        Ok(game)
    }

    /// Pairs two entrants in a new game.
    pub(crate) fn pair(
        &mut self,
        id: GameId,
        (round, board): (u32, u32),
        (white, black): (usize, usize),
        now: u64,
        out: &mut Out,
    ) {
        let game = Game {
            id: id.clone(),
            round,
            board,
            white: self.entrants[white].player.clone(),
            black: self.entrants[black].player.clone(),
            paired_at_ms: now,
            grace_from_ms: now,
            arrived: [false, false],
            outcome: None,
        };
        for (i, colour, diff) in [(white, Colour::White, 1), (black, Colour::Black, -1)] {
            let e = &mut self.entrants[i];
            e.game = Some(id.clone());
            e.colour_diff += diff;
            e.last_colour = Some(colour);
        }
        out.fx.push(Effect::Pair {
            game_id: id.clone(),
            white: game.white.clone(),
            black: game.black.clone(),
            round,
        });
        self.running.insert(id.clone());
        self.games.insert(id, game);
    }

    /// Counts a bye for an entrant.
    pub(crate) fn bye(&mut self, i: usize, round: u32, out: &mut Out) {
        let player = self.entrants[i].player.clone();
        self.entrants[i].tally.add_bye(&self.config.format);
        self.records.push(Record::Bye {
            player: player.clone(),
            round,
        });
        out.fx.push(Effect::Bye { player, round });
        out.standings = true;
    }

    /// Counts a game's result, once, and lets the format move on.
    pub(crate) fn count(
        &mut self,
        id: &GameId,
        outcome: Outcome,
        forfeit: bool,
        now: u64,
        out: &mut Out,
    ) {
        let Some(game) = self.games.get_mut(id) else {
            return;
        };
        if game.outcome.is_some() {
            return;
        }
        game.outcome = Some(outcome);
        let game = game.clone();
        self.running.remove(id);
        self.records.push(Record::Game {
            game_id: id.clone(),
            round: game.round,
            white: game.white.clone(),
            black: game.black.clone(),
            outcome,
            forfeit,
        });
        let (w, b) = Res::of(outcome);
        let format = self.config.format;
        for (me, them, res) in [(&game.white, &game.black, w), (&game.black, &game.white, b)] {
            let e = &mut self.entrants[self.index[me]];
            e.tally.add_game(&format, them, res);
            e.game = None;
            e.last_opponent = Some(them.clone());
        }
        out.standings = true;
        match format {
            Format::Knockout => self.knockout_result(&game, now, out),
            Format::Swiss { .. } => self.swiss_result(now, out),
            Format::Arena { .. } => self.arena_result(&game, now, out),
        }
    }

    /// The entrant index of a player known to be registered.
    pub(crate) fn idx(&self, player: &PlayerId) -> usize {
        self.index[player]
    }
}

/// The arena's schedule and queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArenaState {
    /// When pairing stops.
    pub(crate) end_ms: u64,
    /// Whether the window has closed.
    pub(crate) closed: bool,
    /// Players waiting for a game, longest first.
    pub(crate) queue: Vec<Waiting>,
    /// Games paired so far.
    pub(crate) paired: u32,
}

/// A waiting player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Waiting {
    pub(crate) entrant: usize,
    pub(crate) since_ms: u64,
}
