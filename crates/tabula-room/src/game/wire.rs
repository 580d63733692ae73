//! The game's wire and record types: which game and its options, the
//! setup, the recorded actions, the cube and the board as the wire shows
//! it. A new game adds its kind, options, start position and board view
//! here (they are serialized, so they are spelled out, not generated).

use serde::{Deserialize, Serialize};
use tabula_backgammon as bg;
use tabula_long as long;
use tabula_thud as thud;

use crate::result::EndReason;
use crate::types::{SeatId, Spot};

/// Which game a room plays.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
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

/// The game and its variant options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GameOptions {
    /// Which game.
    pub game: GameKind,
    /// Long nardy options (opening, prime rule, scoring).
    pub long: long::Variant,
    /// Backgammon options (scoring).
    pub backgammon: bg::Options,
    /// Who starts in backgammon (long nardy uses `long.opening`).
    pub backgammon_opening: long::Opening,
    /// Thud! options (capture rule, plies without capture).
    pub thud: thud::Variant,
}

impl GameOptions {
    /// Long nardy with these options.
    pub fn long(variant: long::Variant) -> GameOptions {
        GameOptions {
            game: GameKind::LongNardy,
            long: variant,
            ..GameOptions::default()
        }
    }

    /// Backgammon with these options.
    pub fn backgammon(options: bg::Options) -> GameOptions {
        GameOptions {
            game: GameKind::Backgammon,
            backgammon: options,
            ..GameOptions::default()
        }
    }

    /// Thud! with these options.
    pub fn thud(variant: thud::Variant) -> GameOptions {
        GameOptions {
            game: GameKind::Thud,
            thud: variant,
            ..GameOptions::default()
        }
    }
}

/// A position to start from instead of the initial one (tests, lessons,
/// resumed games). The side to move in it starts; there is no opening roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StartPosition {
    /// A long nardy position (seed 000's JSON form).
    LongNardy(long::Setup),
    /// A backgammon position.
    Backgammon(bg::Setup),
}

/// Everything that fixes a game before its first action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSetup {
    /// The game and variant options.
    pub options: GameOptions,
    /// 1-based game number in its match.
    pub game_number: u32,
    /// Whether the cube is in play.
    pub cube_enabled: bool,
    /// Whether this is the Crawford game.
    pub crawford: bool,
    /// The server seed (secret until the end).
    pub server_seed: String,
    /// Client seeds of seats A and B.
    pub client_seeds: [String; 2],
    /// A start position other than the initial one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StartPosition>,
    /// Scripted dice (tests and training only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_script: Option<Vec<[u8; 2]>>,
}

/// One recorded action of a game, in order (the verifier's input).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Action {
    /// The opening procedure (derived from the dice).
    #[serde(rename_all = "camelCase")]
    Opening {
        /// Each opening roll as (seat A's die, seat B's die).
        rolls: Vec<[u8; 2]>,
        /// Who starts.
        starter: SeatId,
        /// The starter's first roll when the opening roll plays.
        first_roll: Option<[u8; 2]>,
    },
    /// A roll (derived from the dice).
    #[serde(rename_all = "camelCase")]
    Roll {
        /// Who rolled.
        seat: SeatId,
        /// The dice.
        dice: [u8; 2],
    },
    /// One step.
    #[serde(rename_all = "camelCase")]
    Step {
        /// Who.
        seat: SeatId,
        /// From.
        from: Spot,
        /// To.
        to: Spot,
    },
    /// An automatic pass (derived).
    #[serde(rename_all = "camelCase")]
    Pass {
        /// Who could not move.
        seat: SeatId,
    },
    /// A double offered.
    #[serde(rename_all = "camelCase")]
    Double {
        /// Who.
        seat: SeatId,
    },
    /// A double taken.
    #[serde(rename_all = "camelCase")]
    Take {
        /// Who.
        seat: SeatId,
    },
    /// A double dropped.
    #[serde(rename_all = "camelCase")]
    Drop {
        /// Who.
        seat: SeatId,
    },
    /// A resignation (resign, stand up, or disconnect forfeit).
    #[serde(rename_all = "camelCase")]
    Resign {
        /// Who.
        seat: SeatId,
        /// Which of the three.
        reason: EndReason,
    },
    /// A Thud! move.
    #[serde(rename_all = "camelCase")]
    ThudMove {
        /// Who.
        seat: SeatId,
        /// Notation, e.g. `Da6-b6`.
        notation: String,
    },
    /// Thud!: a clock ran out, ending the round (a dice game's timeout
    /// is a [`Action::Resign`] with reason `timeout`).
    #[serde(rename_all = "camelCase")]
    TimeOut {
        /// Who ran out of time.
        seat: SeatId,
    },
    /// Thud!: proposal to end the round.
    #[serde(rename_all = "camelCase")]
    ProposeEnd {
        /// Who.
        seat: SeatId,
    },
    /// Thud!: acceptance.
    #[serde(rename_all = "camelCase")]
    AcceptEnd {
        /// Who.
        seat: SeatId,
    },
    /// Thud!: decline or withdrawal.
    #[serde(rename_all = "camelCase")]
    DeclineEnd {
        /// Who.
        seat: SeatId,
    },
}

/// The doubling cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cube {
    /// Current value (1, 2, 4, … 64).
    pub value: u32,
    /// The owner; `None` while centred.
    pub owner: Option<SeatId>,
    /// Whether doubling is allowed at all this game.
    pub enabled: bool,
}

/// The board as the wire shows it (edge numbering, never internal indexes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BoardView {
    /// Long nardy: seed 000's JSON position form.
    LongNardy {
        /// The position (current, mid-turn included).
        position: long::Setup,
    },
    /// Backgammon: each side's own numbering, plus the GNU Backgammon
    /// Position ID.
    #[serde(rename_all = "camelCase")]
    Backgammon {
        /// The position (current, mid-turn included).
        position: bg::Setup,
        /// GNU Backgammon Position ID.
        position_id: String,
    },
    /// Thud!: squares `a1`..`o15`.
    #[serde(rename_all = "camelCase")]
    Thud {
        /// The current round's position.
        position: thud::Setup,
        /// 1 or 2.
        round: u32,
        /// The seat playing the dwarfs this round.
        dwarfs: SeatId,
        /// A pending proposal to end the round.
        proposal: Option<SeatId>,
        /// The legal moves of the side to move, in notation.
        legal_moves: Vec<String>,
    },
}
