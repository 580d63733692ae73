//! Rounds and the two-round game, as plain data and pure functions.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use crate::moves::Move;
use crate::position::{PlayError, Position, RepetitionKey, Score};
use crate::square::Side;
use crate::variant::Variant;

/// A round ends (the ZRF's `repetition` draw) when the same position — same
/// pieces on the same squares, same side to move — occurs for this many times.
pub const REPETITION_LIMIT: u32 = 3;

/// A small multiplicative hasher for repetition keys (exact keys, so the
/// hash only spreads buckets; no untrusted input is hashed).
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Seen = HashMap<RepetitionKey, u32, BuildHasherDefault<KeyHasher>>;

/// One of the two players of a game: a seat at the table, independent of
/// the side it plays in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// Plays the dwarfs in round 1, the trolls in round 2.
    First,
    /// Plays the trolls in round 1, the dwarfs in round 2.
    Second,
}

impl Seat {
    /// The other seat.
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// 0 for the first seat, 1 for the second.
    pub const fn index(self) -> usize {
        match self {
            Seat::First => 0,
            Seat::Second => 1,
        }
    }
}

/// Why a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EndReason {
    /// One player proposed to end it, the other accepted.
    Agreement,
    /// The side to move has no legal move (the ZRF's `stalemated`).
    NoLegalMove,
    /// One side has no pieces left.
    NoPieces,
    /// The variant's limit of plies without a capture was reached.
    PliesWithoutCapture,
    /// The same position occurred [`REPETITION_LIMIT`] times (the ZRF's
    /// `repetition`).
    Repetition,
    /// A player's clock ran out (a room's time control, not the ZRF's):
    /// [`Round::time_out`].
    Timeout,
}

/// A finished round: why it ended and what each side had left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundResult {
    /// Why it ended.
    pub reason: EndReason,
    /// Material left: the points of each side.
    pub score: Score,
    /// The seat that played the dwarfs.
    pub dwarfs_player: Seat,
    /// Plies played in the round.
    pub plies: u32,
}

impl RoundResult {
    /// The points `seat` scored in this round (the material its side kept).
    pub const fn points(&self, seat: Seat) -> u32 {
        if seat.index() == self.dwarfs_player.index() {
            self.score.dwarfs
        } else {
            self.score.trolls
        }
    }
}

/// A request a round cannot honour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RoundError {
    /// The round has already ended.
    #[error("the round is over")]
    Over,
    /// It is the other player's turn.
    #[error("it is not {0:?}'s turn")]
    NotYourTurn(Seat),
    /// The move is not legal.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// Nothing has been proposed (or the proposal lapsed).
    #[error("no proposal to end the round is pending")]
    NoProposal,
    /// A player cannot accept his own proposal.
    #[error("{0:?} cannot accept its own proposal")]
    OwnProposal(Seat),
    /// The two-round game is over or round 1 is still being played.
    #[error("no next round: {0}")]
    NoNextRound(&'static str),
}

/// One round: a position played from the start until it ends, with the seats
/// assigned to sides, the repetition history and any pending proposal.
#[derive(Debug, Clone)]
pub struct Round {
    variant: Variant,
    dwarfs_player: Seat,
    position: Position,
    moves: Vec<Move>,
    seen: Seen,
    proposal: Option<Seat>,
    result: Option<RoundResult>,
}

impl Round {
    /// A round from the start position, `dwarfs_player` playing the dwarfs.
    pub fn new(variant: Variant, dwarfs_player: Seat) -> Round {
        Round::from_position(Position::start(), variant, dwarfs_player)
    }

    /// A round from `position` (its capture rule is replaced by the variant's).
    /// It may already be over (e.g. the side to move has no legal move).
    pub fn from_position(position: Position, variant: Variant, dwarfs_player: Seat) -> Round {
        let position = position.with_capture_rule(variant.capture_rule);
        let mut r = Round {
            variant,
            dwarfs_player,
            seen: Seen::from_iter([(position.repetition_key(), 1)]),
            position,
            moves: Vec::new(),
            proposal: None,
            result: None,
        };
        r.result = r.check_end();
        r
    }

    /// The rules of this round.
    pub const fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The current position.
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The seat playing `side`.
    pub const fn seat_of(&self, side: Side) -> Seat {
        match side {
            Side::Dwarfs => self.dwarfs_player,
            Side::Trolls => self.dwarfs_player.other(),
        }
    }

    /// The side `seat` plays.
    pub const fn side_of(&self, seat: Seat) -> Side {
        if seat.index() == self.dwarfs_player.index() {
            Side::Dwarfs
        } else {
            Side::Trolls
        }
    }

    /// The seat whose turn it is.
    pub const fn to_move(&self) -> Seat {
        self.seat_of(self.position.turn())
    }

    /// The seat with a pending proposal to end the round.
    pub const fn proposal(&self) -> Option<Seat> {
        self.proposal
    }

    /// The result, once the round has ended.
    pub const fn result(&self) -> Option<&RoundResult> {
        self.result.as_ref()
    }

    /// Whether the round has ended.
    pub const fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// How many times the current position has occurred.
    pub fn repetitions(&self) -> u32 {
        self.seen
            .get(&self.position.repetition_key())
            .copied()
            .unwrap_or(0)
    }

    fn finish(&self, reason: EndReason) -> RoundResult {
        RoundResult {
            reason,
            score: self.position.score(),
            dwarfs_player: self.dwarfs_player,
            plies: self.moves.len() as u32,
        }
    }

    /// The end condition that holds now, checked in this order: no pieces,
    /// plies limit, repetition, no legal move.
    fn check_end(&self) -> Option<RoundResult> {
        let p = &self.position;
        let reason = if p.dwarfs().is_empty() || p.trolls().is_empty() {
            EndReason::NoPieces
        } else if self
            .variant
            .max_plies_without_capture
            .is_some_and(|n| p.plies_since_capture() >= n)
        {
            EndReason::PliesWithoutCapture
        } else if self.repetitions() >= REPETITION_LIMIT {
            EndReason::Repetition
        } else if !p.has_legal_move() {
            EndReason::NoLegalMove
        } else {
            return None;
        };
        Some(self.finish(reason))
    }

    /// `seat` plays `mv`. Returns the result if this ended the round. A
    /// pending proposal by the other seat lapses (the move declines it).
    pub fn play(&mut self, seat: Seat, mv: &Move) -> Result<Option<&RoundResult>, RoundError> {
        if self.result.is_some() {
            return Err(RoundError::Over);
        }
        if seat != self.to_move() {
            return Err(RoundError::NotYourTurn(seat));
        }
        let next = self.position.play(mv)?;
        self.apply(next, *mv, seat);
        Ok(self.result.as_ref())
    }

    /// Plays a move already known to be legal (e.g. from
    /// [`Position::legal_moves`]) for the seat to move.
    pub fn play_unchecked(&mut self, mv: &Move) -> Option<&RoundResult> {
        if self.result.is_some() {
            return self.result.as_ref();
        }
        let seat = self.to_move();
        let mut next = self.position.clone();
        next.play_unchecked(mv);
        self.apply(next, *mv, seat);
        self.result.as_ref()
    }

    fn apply(&mut self, next: Position, mv: Move, seat: Seat) {
        if mv.is_capture() {
            // Pieces only ever leave the board, so no earlier position can recur.
            self.seen.clear();
        }
        self.position = next;
        self.moves.push(mv);
        *self.seen.entry(self.position.repetition_key()).or_insert(0) += 1;
        if self.proposal == Some(seat.other()) {
            self.proposal = None;
        }
        self.result = self.check_end();
    }

    /// `seat` proposes to end the round now (either player, at any time).
    pub fn propose_end(&mut self, seat: Seat) -> Result<(), RoundError> {
        if self.result.is_some() {
            return Err(RoundError::Over);
        }
        self.proposal = Some(seat);
        Ok(())
    }

    /// `seat` accepts the other seat's pending proposal: the round ends.
    pub fn accept_end(&mut self, seat: Seat) -> Result<RoundResult, RoundError> {
        if self.result.is_some() {
            return Err(RoundError::Over);
        }
        match self.proposal {
            None => Err(RoundError::NoProposal),
            Some(p) if p == seat => Err(RoundError::OwnProposal(seat)),
            Some(_) => {
                let r = self.finish(EndReason::Agreement);
                self.result = Some(r);
                self.proposal = None;
                Ok(r)
            }
        }
    }

    /// `seat` ran out of time: the round ends. The side `seat` played
    /// scores nothing, and the other side is credited its own material
    /// plus all the material the side that ran out still had on the
    /// board, as if every one of its pieces had been captured (a room's
    /// time control; the ZRF has no clock).
    pub fn time_out(&mut self, seat: Seat) -> Result<RoundResult, RoundError> {
        if self.result.is_some() {
            return Err(RoundError::Over);
        }
        let mut r = self.finish(EndReason::Timeout);
        let s = &mut r.score;
        match self.side_of(seat) {
            Side::Dwarfs => {
                s.trolls += s.dwarfs;
                s.dwarfs = 0;
            }
            Side::Trolls => {
                s.dwarfs += s.trolls;
                s.trolls = 0;
            }
        }
        self.result = Some(r);
        self.proposal = None;
        Ok(r)
    }

    /// `seat` declines the other seat's pending proposal (or withdraws its own).
    pub fn decline_end(&mut self, _seat: Seat) -> Result<(), RoundError> {
        if self.result.is_some() {
            return Err(RoundError::Over);
        }
        self.proposal
            .take()
            .map(|_| ())
            .ok_or(RoundError::NoProposal)
    }
}

/// Final standing of a two-round game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOutcome {
    /// Points of the first and second seat, summed over both rounds.
    pub totals: [u32; 2],
    /// The seat with more points; `None` on equal totals.
    pub winner: Option<Seat>,
}

/// A two-round game: the first seat plays the dwarfs in round 1, the sides
/// swap for round 2, and the totals of both rounds decide.
#[derive(Debug, Clone)]
pub struct Game {
    variant: Variant,
    rounds: Vec<Round>,
}

impl Game {
    /// A game whose round 1 starts now.
    pub fn new(variant: Variant) -> Game {
        Game {
            variant,
            rounds: vec![Round::new(variant, Seat::First)],
        }
    }

    /// The rules of both rounds.
    pub const fn variant(&self) -> &Variant {
        &self.variant
    }

    /// 1 or 2.
    pub fn round_number(&self) -> usize {
        self.rounds.len()
    }

    /// The round being played (or the last one, once the game is over).
    pub fn round(&self) -> &Round {
        self.rounds.last().expect("a game has a round")
    }

    /// The round being played, to play moves and proposals on.
    pub fn round_mut(&mut self) -> &mut Round {
        self.rounds.last_mut().expect("a game has a round")
    }

    /// Every round so far, oldest first.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// Starts round 2 (sides swapped) once round 1 is over.
    pub fn next_round(&mut self) -> Result<&mut Round, RoundError> {
        if self.rounds.len() >= 2 {
            return Err(RoundError::NoNextRound("both rounds have been played"));
        }
        if !self.round().is_over() {
            return Err(RoundError::NoNextRound("round 1 is still being played"));
        }
        self.rounds.push(Round::new(self.variant, Seat::Second));
        Ok(self.round_mut())
    }

    /// Results of the finished rounds.
    pub fn results(&self) -> Vec<RoundResult> {
        self.rounds
            .iter()
            .filter_map(|r| r.result().copied())
            .collect()
    }

    /// Whether both rounds are over.
    pub fn is_over(&self) -> bool {
        self.rounds.len() == 2 && self.round().is_over()
    }

    /// The totals and the winner, once both rounds are over.
    pub fn outcome(&self) -> Option<GameOutcome> {
        self.is_over().then(|| outcome_of(&self.results()))
    }
}

/// Sums round results into totals per seat and names the winner.
pub fn outcome_of(results: &[RoundResult]) -> GameOutcome {
    let mut totals = [0u32; 2];
    for r in results {
        for seat in [Seat::First, Seat::Second] {
            totals[seat.index()] += r.points(seat);
        }
    }
    let winner = match totals[0].cmp(&totals[1]) {
        std::cmp::Ordering::Greater => Some(Seat::First),
        std::cmp::Ordering::Less => Some(Seat::Second),
        std::cmp::Ordering::Equal => None,
    };
    GameOutcome { totals, winner }
}
