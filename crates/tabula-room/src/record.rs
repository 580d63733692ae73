//! Game records and the provably-fair verifier (`tabula verify`).

use serde::{Deserialize, Serialize};

use crate::clock::ClockRecord;
use crate::error::RoomError;
use crate::fair::commitment;
use crate::game::{Action, Game, GameKind, GameSetup, PlayedTurn, bg_points, long_step};
use crate::result::GameResult;
use crate::types::SeatId;

/// Everything needed to check a finished game: the game and its options,
/// the seeds, the commitment published at the start, every action in order
/// (rolls with their dice, steps, passes, cube actions, resignations) and
/// the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameRecord {
    /// Which game (repeated from `setup.options` for readers).
    pub game: GameKind,
    /// Options, seeds (the server seed revealed), game number, cube.
    #[serde(flatten)]
    pub setup: GameSetup,
    /// `hex(SHA-256(server_seed))`, published at the start.
    pub commitment: String,
    /// Every action in order.
    pub actions: Vec<Action>,
    /// The result.
    pub result: GameResult,
    /// Under a time control: the control and each period's time, as
    /// charged ([`crate::clock`]); absent without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockRecord>,
}

/// A record that checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedGame {
    /// The result, as recomputed.
    pub result: GameResult,
    /// Rolls recomputed (opening rolls included).
    pub rolls: usize,
    /// Actions replayed.
    pub actions: usize,
}

/// Why a record does not check out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// `SHA-256(server_seed)` is not the commitment.
    #[error(
        "the server seed does not match the commitment: sha256 is {actual}, committed {committed}"
    )]
    CommitmentMismatch {
        /// The commitment in the record.
        committed: String,
        /// SHA-256 of the revealed seed.
        actual: String,
    },
    /// `game` disagrees with `options.game`.
    #[error("record names game {game:?} but its options are for {options:?}")]
    GameMismatch {
        /// `game`.
        game: GameKind,
        /// `options.game`.
        options: GameKind,
    },
    /// The engine refused an action.
    #[error("action {index} is refused: {error}")]
    Rejected {
        /// Index into `actions`.
        index: usize,
        /// Why.
        error: RoomError,
    },
    /// The recomputed action (dice, opening, pass) differs from the record.
    #[error("action {index} differs: recomputed {expected}, recorded {recorded}")]
    Mismatch {
        /// Index into `actions`.
        index: usize,
        /// What the replay produced (JSON).
        expected: String,
        /// What the record says (JSON).
        recorded: String,
    },
    /// The actions do not reach the end of the game, or go past it.
    #[error("the actions do not end the game exactly (replayed {replayed}, recorded {recorded})")]
    Length {
        /// Actions produced by the replay.
        replayed: usize,
        /// Actions in the record.
        recorded: usize,
    },
    /// The clock disagrees with the game: its periods are not the
    /// game's turns, a bank does not follow from the one before, or a
    /// timeout is not where a period ran out (or the other way round).
    #[error("the clock does not check out at period {period}: {reason}")]
    Clock {
        /// Index into `clock.turns` (their count when one is missing).
        period: usize,
        /// Why.
        reason: String,
    },
    /// The recomputed result differs.
    #[error("the result differs: recomputed {expected}, recorded {recorded}")]
    ResultMismatch {
        /// Recomputed (JSON).
        expected: String,
        /// Recorded (JSON).
        recorded: String,
    },
}

fn json<T: Serialize>(t: &T) -> String {
    serde_json::to_string(t).unwrap_or_default()
}

/// Checks a record: the commitment, every roll recomputed from the seeds,
/// every move replayed through the engine, and the result.
pub fn verify(record: &GameRecord) -> Result<VerifiedGame, VerifyError> {
    if record.game != record.setup.options.game {
        return Err(VerifyError::GameMismatch {
            game: record.game,
            options: record.setup.options.game,
        });
    }
    let actual = commitment(&record.setup.server_seed);
    if actual != record.commitment {
        return Err(VerifyError::CommitmentMismatch {
            committed: record.commitment.clone(),
            actual,
        });
    }
    let mut out = Vec::new();
    let mut game = Game::start(&record.setup, &mut out)
        .map_err(|error| VerifyError::Rejected { index: 0, error })?;
    let check_prefix = |game: &Game| -> Result<(), VerifyError> {
        for (i, a) in game.actions().iter().enumerate() {
            match record.actions.get(i) {
                Some(r) if r == a => {}
                Some(r) => {
                    return Err(VerifyError::Mismatch {
                        index: i,
                        expected: json(a),
                        recorded: json(r),
                    });
                }
                None => {
                    return Err(VerifyError::Length {
                        replayed: game.actions().len(),
                        recorded: record.actions.len(),
                    });
                }
            }
        }
        Ok(())
    };
    check_prefix(&game)?;
    let mut periods = Periods::new(&game);
    for (index, a) in record.actions.iter().enumerate() {
        if index < game.actions().len() {
            // Already produced (derived) by the replay and checked.
            continue;
        }
        if game.result().is_some() {
            return Err(VerifyError::Length {
                replayed: game.actions().len(),
                recorded: record.actions.len(),
            });
        }
        game.replay(a, &mut out)
            .map_err(|error| VerifyError::Rejected { index, error })?;
        check_prefix(&game)?;
        periods.after(&game, a);
    }
    let Some(result) = game.result().cloned() else {
        return Err(VerifyError::Length {
            replayed: game.actions().len(),
            recorded: record.actions.len(),
        });
    };
    if game.actions().len() != record.actions.len() {
        return Err(VerifyError::Length {
            replayed: game.actions().len(),
            recorded: record.actions.len(),
        });
    }
    if result != record.result {
        return Err(VerifyError::ResultMismatch {
            expected: json(&result),
            recorded: json(&record.result),
        });
    }
    periods.check(record.clock.as_ref())?;
    let rolls = game.dice().next_roll_index() as usize;
    Ok(VerifiedGame {
        result,
        rolls,
        actions: record.actions.len(),
    })
}

/// The periods of a replayed game (who had to act, in which Thud!
/// round, and whether a timeout ended it), as the room's clocks cut them:
/// a period ends whenever another seat must act, a round ends, or the
/// game does.
struct Periods {
    current: Option<(SeatId, u32)>,
    done: Vec<(SeatId, u32, bool)>,
    timeouts: usize,
}

impl Periods {
    fn key(game: &Game) -> Option<(SeatId, u32)> {
        let round = game.thud_game().map_or(0, |t| t.round_number() as u32);
        game.to_act().map(|(s, _)| (s, round))
    }

    fn new(game: &Game) -> Periods {
        Periods {
            current: Periods::key(game),
            done: Vec::new(),
            timeouts: 0,
        }
    }

    fn after(&mut self, game: &Game, a: &Action) {
        let timeout = matches!(
            a,
            Action::TimeOut { .. }
                | Action::Resign {
                    reason: crate::result::EndReason::Timeout,
                    ..
                }
        );
        self.timeouts += usize::from(timeout);
        let next = Periods::key(game);
        if next != self.current {
            if let Some((seat, round)) = self.current {
                self.done.push((seat, round, timeout));
            }
            self.current = next;
        }
    }

    fn check(&self, clock: Option<&ClockRecord>) -> Result<(), VerifyError> {
        let fail = |period: usize, reason: String| Err(VerifyError::Clock { period, reason });
        let Some(clock) = clock else {
            if self.timeouts > 0 {
                return fail(0, "a timeout in a game without a clock".to_string());
            }
            return Ok(());
        };
        let tc = &clock.control;
        if clock.turns.len() != self.done.len() {
            return fail(
                clock.turns.len().min(self.done.len()),
                format!(
                    "{} periods recorded, the game has {}",
                    clock.turns.len(),
                    self.done.len()
                ),
            );
        }
        // Each seat's bank after its last period, and that period's round.
        let mut left: [Option<(u64, u32)>; 2] = [None, None];
        for (i, (t, &(seat, round, timeout))) in clock.turns.iter().zip(&self.done).enumerate() {
            if t.seat != seat {
                return fail(i, format!("recorded for seat {}, played by {seat}", t.seat));
            }
            let expected = match left[seat.index()] {
                Some((bank, r)) if r == round => Some(bank),
                // A new Thud! round refills the bank.
                Some(_) => Some(tc.reserve_ms),
                // The first period: a full bank, or what a match with the
                // cube carried from its earlier games.
                None => None,
            };
            if t.bank_ms > tc.reserve_ms || expected.is_some_and(|b| b != t.bank_ms) {
                return fail(
                    i,
                    format!(
                        "the bank is {} ms, {} follows",
                        t.bank_ms,
                        expected.map_or(format!("at most {}", tc.reserve_ms), |b| b.to_string())
                    ),
                );
            }
            if t.timed_out(tc) != timeout {
                return fail(
                    i,
                    if timeout {
                        format!(
                            "a timeout after {} ms, with {} ms allowed",
                            t.used_ms,
                            tc.delay_ms + t.bank_ms
                        )
                    } else {
                        format!(
                            "{} ms used of {} ms allowed, and no timeout",
                            t.used_ms,
                            tc.delay_ms + t.bank_ms
                        )
                    },
                );
            }
            left[seat.index()] = Some((t.bank_ms.saturating_sub(t.overrun(tc)), round));
        }
        Ok(())
    }
}

/// The turns of a finished long nardy or backgammon game with at least one
/// step, in order. The record is [`verify`]ed first; Thud! records have no
/// dice turns (empty).
pub fn played_turns(record: &GameRecord) -> Result<Vec<PlayedTurn>, VerifyError> {
    verify(record)?;
    let mut out = Vec::new();
    let mut game = Game::start(&record.setup, &mut out)
        .map_err(|error| VerifyError::Rejected { index: 0, error })?;
    let mut turns: Vec<PlayedTurn> = Vec::new();
    for (index, a) in record.actions.iter().enumerate() {
        if index < game.actions().len() {
            continue; // derived by the replay itself
        }
        if let Action::Step { from, to, .. } = a {
            if let Some(t) = game.turn_start() {
                turns.push(t);
            }
            match turns.last_mut() {
                Some(PlayedTurn::LongNardy { steps, .. }) => steps.extend(long_step(*from, *to)),
                Some(PlayedTurn::Backgammon { steps, .. }) => steps.extend(bg_points(*from, *to)),
                None => {}
            }
        }
        game.replay(a, &mut out)
            .map_err(|error| VerifyError::Rejected { index, error })?;
    }
    Ok(turns)
}
