//! Tabula's tournament core: knockout, Swiss and arena tournaments as a
//! deterministic state machine, `(state, input, now) -> (state, effects)`.
//!
//! It is pure like the room core: no IO, no clock (every input comes with
//! `now_ms`, Unix milliseconds), no randomness. The whole state is serde, so
//! the owner persists it (or the log of its inputs) *before* it carries out
//! the effects of an input, and a new owner that restores it and applies
//! the same inputs produces the same effects, with the same game ids.
//!
//! # Driving it
//!
//! [`Tournament::apply`] takes one [`Input`] and returns the [`Effect`]s:
//! games to create ([`Effect::Pair`]), byes, forfeits, round starts,
//! standings changes, the end, and [`Announcement`]s for the group's bot.
//! [`Tournament::next_deadline`] says when to call it with [`Input::Tick`]
//! (the start, a no-show's grace, the end of an arena, a rematch wait). Any
//! input first fires the deadlines that are due at its `now_ms`, so a late
//! tick (the owner died) catches up in one call and a round starts as soon
//! as a new owner applies anything. A refused input changes nothing and
//! answers a single [`Effect::Rejected`] with its [`Rejection`].
//!
//! ```
//! use tabula_tournament::{
//!     Effect, Format, GameKind, Input, Outcome, PlayerId, Status, Tournament, TournamentConfig,
//! };
//!
//! let config = TournamentConfig {
//!     format: Format::Knockout,
//!     game: GameKind::Backgammon,
//!     match_points: 5,
//!     clock: None,
//!     rated: true,
//!     start_at_ms: 1_000,
//!     grace_ms: 60_000,
//!     max_players: None,
//! };
//! let mut t = Tournament::new("cup", config).unwrap();
//! for (name, rating) in [("ann", 1700), ("bob", 1500)] {
//!     t.apply(Input::Join { player: PlayerId::from(name), rating }, 0);
//! }
//! assert_eq!(t.next_deadline(), Some(1_000));
//! // The owner persists `t` after each input, then carries out the effects.
//! let fx = t.apply(Input::Tick, 1_000);
//! let game_id = fx
//!     .iter()
//!     .find_map(|e| match e {
//!         Effect::Pair { game_id, .. } => Some(game_id.clone()),
//!         _ => None,
//!     })
//!     .unwrap();
//! assert_eq!(game_id.0, "cup:1:1");
//! t.apply(Input::GameStarted { game_id: game_id.clone() }, 2_000);
//! let fx = t.apply(Input::GameResult { game_id, outcome: Outcome::WhiteWon }, 900_000);
//! assert!(fx.iter().any(|e| matches!(e, Effect::Finished { .. })));
//! assert_eq!(t.status(), Status::Finished);
//! assert_eq!(t.bracket().unwrap().champion(), Some(&PlayerId::from("ann")));
//! ```
//!
//! # Owning it
//!
//! The owner (the cluster's tournament actor) keeps one rule: **persist,
//! then act**. It applies an input, writes the state (or appends the input
//! to a log of inputs: `Input` is serde and the core is deterministic, so a
//! replay of the log rebuilds the state), and only then creates the rooms,
//! posts the announcements and sends the notices. A new owner restores the
//! state, applies [`Input::Restored`] first (arrivals could not be recorded
//! while nobody owned it, so that time is added to the no-show graces)
//! and, since it cannot know which effects of the last input were
//! carried out, makes sure a room exists for each game of
//! [`Tournament::running`] (creating a room by its derived id is
//! idempotent) and ticks at [`Tournament::next_deadline`]; a deadline that
//! passed while nobody owned the tournament fires on its first input.
//! Announcements that must not be lost belong in an outbox written with
//! the state, in the same write, as the bot's notices are. An
//! arena has no per-round announcement: the bot posts its live top from
//! [`Tournament::standings`] on [`Effect::StandingsChanged`], at its own
//! pace.
//!
//! # Choices
//!
//! * **Layering.** The crate depends on serde only. The game kind is a small
//!   enum of its own, [`GameKind`], spelled on the wire as `tabula-room`'s
//!   (`long_nardy`, `backgammon`, `thud`), so the crate stays below the room
//!   and the rules engines; the clock is an opaque string the node hands to
//!   the room. Ratings are the truncated displayed rating (`i32`) at joining,
//!   used only for seeding and tie-breaks.
//! * **Game ids** are derived, never drawn: `{tournament}:{round}:{board}`
//!   for knockout and Swiss (`:{n}` appended for the n-th game of a knockout
//!   match replayed after a draw), `{tournament}:a:{n}` for the n-th arena
//!   pairing.
//! * **Results** are counted once: a second result for a game, or a result
//!   for a game already forfeited, is [`Rejection::DuplicateResult`].
//! * **No-shows.** A game starts when it is paired. A player who has not
//!   arrived ([`Input::PlayerArrived`], or [`Input::GameStarted`] for both)
//!   within `grace_ms` of the pairing forfeits the game ([`Effect::Forfeit`]);
//!   if both are absent both lose ([`Outcome::BothLost`]: no points for
//!   either, and in a knockout neither advances, so the next opponent gets a
//!   walkover). A player who forfeits by absence is paused (arena and Swiss):
//!   he is not paired again until he sends [`Input::Resume`].
//! * **Lifecycle.** Registration is open until `start_at_ms`; at the start,
//!   fewer than two players cancel the tournament. Withdrawing while
//!   registering removes the entry; while running it removes the player from
//!   future pairings and keeps his results in the standings (in a knockout
//!   his running game is forfeited and later matches are walkovers).
//! * **Knockout** ([`knockout`]): standard seeding by rating, byes to the top
//!   seeds; round by round (a round starts when every match of the previous
//!   one is decided); a drawn game (possible in Thud!) is replayed with the
//!   colours swapped; the match length is carried for the room (which plays
//!   the Crawford game). No late joining.
//! * **Swiss** ([`swiss`]): a simplified Dutch system; see that module for
//!   the rules, the bye and the colours. Tie-breaks: Buchholz cut-1,
//!   Buchholz, Sonneborn–Berger, wins. Late joiners start with 0 points and
//!   are paired from the next round, up to `late_join_until_round`.
//! * **Arena** ([`arena`]): lichess's scoring (2 / 1 / 0, doubled while "on
//!   fire" after two wins in a row); a player who finishes is paired at once
//!   with the waiting player nearest his score, never with the opponent he
//!   just played while someone else waits, and with him after
//!   `rematch_wait_ms` if nobody else comes.
//! * **Standings** ([`standings`]) are kept incrementally and can be
//!   recomputed from the plain list of counted results by [`recount`]; the
//!   tests check that both agree.

pub mod arena;
mod bracket;
mod core;
mod effects;
pub mod knockout;
mod lifecycle;
pub mod standings;
pub mod swiss;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::core::{Entrant, Game, Tournament};
pub use crate::effects::{Announcement, CancelReason, Effect, Input, Rejection};
pub use crate::standings::{Record, Row, Standings, recount};

/// A player, as the node's auth knows him.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl From<&str> for PlayerId {
    fn from(s: &str) -> Self {
        PlayerId(s.to_owned())
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tournament game (the room that plays it), derived from the
/// tournament's id and the game's place in it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct GameId(pub String);

impl From<&str> for GameId {
    fn from(s: &str) -> Self {
        GameId(s.to_owned())
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which game the tournament plays (spelled as `tabula-room`'s kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Long nardy.
    #[default]
    LongNardy,
    /// Short nardy = backgammon.
    Backgammon,
    /// Thud!.
    Thud,
}

/// The format and its own settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Format {
    /// A single-elimination bracket of matches.
    Knockout,
    /// A fixed number of rounds, players of equal score paired together.
    #[serde(rename_all = "camelCase")]
    Swiss {
        /// How many rounds.
        rounds: u32,
        /// The last round a late joiner can be paired in (0: no late join).
        late_join_until_round: u32,
    },
    /// A time window of back-to-back games.
    #[serde(rename_all = "camelCase")]
    Arena {
        /// How long the window lasts from the start (the node takes at
        /// most 7 days).
        #[cfg_attr(feature = "openapi", schema(maximum = 604_800_000))]
        duration_ms: u64,
        /// How long two players who just played each other wait for someone
        /// else before they are paired again (the node takes at most an hour).
        #[cfg_attr(feature = "openapi", schema(maximum = 3_600_000))]
        rematch_wait_ms: u64,
    },
}

/// What a tournament is, fixed at creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TournamentConfig {
    /// Knockout, Swiss or arena.
    pub format: Format,
    /// The game played.
    pub game: GameKind,
    /// Points of each match (1: single games).
    pub match_points: u32,
    /// The clock of each game, opaque here (the room's clock spec).
    pub clock: Option<String>,
    /// Whether the games are rated.
    pub rated: bool,
    /// When registration closes and play begins.
    pub start_at_ms: u64,
    /// How long a paired player has to arrive before he forfeits (0: no
    /// forfeits for absence).
    pub grace_ms: u64,
    /// The most players registered at once, if limited.
    pub max_players: Option<u32>,
}

impl TournamentConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.match_points == 0 {
            return Err(ConfigError::MatchPoints);
        }
        if self.max_players.is_some_and(|m| m < 2) {
            return Err(ConfigError::MaxPlayers);
        }
        match self.format {
            Format::Swiss { rounds: 0, .. } => Err(ConfigError::Rounds),
            Format::Arena { duration_ms: 0, .. } => Err(ConfigError::Duration),
            _ => Ok(()),
        }
    }
}

/// A configuration that cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// An id that is empty, too long, or not made of letters, digits, `-`
    /// and `_`.
    Id,
    /// A match of zero points.
    MatchPoints,
    /// Room for fewer than two players.
    MaxPlayers,
    /// A Swiss of zero rounds.
    Rounds,
    /// An arena of no time.
    Duration,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigError::Id => "a tournament id is 1 to 30 letters, digits, '-' or '_'",
            ConfigError::MatchPoints => "a match needs at least one point",
            ConfigError::MaxPlayers => "a tournament needs room for two players",
            ConfigError::Rounds => "a Swiss tournament needs at least one round",
            ConfigError::Duration => "an arena needs a duration",
        })
    }
}

impl std::error::Error for ConfigError {}

/// Where the tournament is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Open for registration until the start.
    Registering,
    /// Being played.
    Running,
    /// Over, with final standings.
    Finished,
    /// Called off (too few players at the start).
    Cancelled,
}

/// A side of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    /// The first player of the pairing.
    White,
    /// The second.
    Black,
}

impl Colour {
    /// The other side.
    pub fn other(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

/// How a game (a match, in a knockout) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// White won.
    WhiteWon,
    /// Black won.
    BlackWon,
    /// Neither (Thud!'s equal scores).
    Draw,
    /// Both lost: both absent.
    BothLost,
}
