//! Hints: what the host does with a `hint` and its answer, and how their
//! cost is bounded (issue 21: one 64-rollout hint is ~0.45 s of CPU, and
//! 40 of them sent before closing the socket burnt 12.7 s after the close).
//!
//! * The room's policy first ([`tabula_room::hint_rollouts`]: more than
//!   [`tabula_room::MAX_HINT_ROLLOUTS`] is `bad_message`;
//!   [`tabula_room::Room::hint_turn`]: only against a bot, on one's own
//!   rolled turn).
//! * At most one hint in flight per player: another is refused
//!   `hint_pending` until the first is answered.
//! * A cost-based budget per player: a hint costs
//!   [`tabula_room::hint_cost`] (its rollouts, plus one for the ranking)
//!   out of a bucket refilled at [`HostConfig::hint_rollouts_per_minute`]
//!   and holding a minute's worth (at least one hint of the maximum);
//!   over it, `rate_limited` with the wait. The budget is the room's, per
//!   player, so it survives reconnects.
//! * A hint whose asker's connection leaves (a detach, a newer connection
//!   replacing it) or who gives up his seat is cancelled:
//!   [`Effect::CancelHint`] — the actor drops its job, so a hint still
//!   waiting for the node's search limit is never computed, and one
//!   running stops before its next rollout (its search looks at a cancel
//!   flag the dropped job raises; [`tabula_bots::hint`]).
//!
//! The node-wide limit on searches running at once (bots and hints
//! together) is the actor's ([`crate::searches`]).

use tabula_protocol::{ErrorCode, HintPlay, ServerMsg, room_error_code};
use tabula_room::{HintRefusal, PlayerId, Spot, hint_cost, hint_rollouts, hint_seed};

use super::{Count, Effect, HintJob, RoomHost};

impl<T> RoomHost<T> {
    /// `hint` from connection `conn`: refused by the room's policy, while
    /// the player's previous hint is in flight, or over his budget; else a
    /// [`HintJob`] for the actor to compute off its thread.
    pub fn hint(
        &mut self,
        conn: u64,
        seq: Option<u64>,
        rollouts: Option<u32>,
        now: u64,
        fx: &mut Vec<Effect<T>>,
    ) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if !self.life.owns() {
            return;
        }
        let player = c.player.clone();
        let refused = match hint_rollouts(rollouts)
            .and_then(|n| Ok((n, self.room.hint_turn(&player)?)))
        {
            Ok((rollouts, turn)) => {
                if let Some((_, pending)) = self.hints.asked.get(&player) {
                    let which = pending.map(|s| format!(" (seq {s})")).unwrap_or_default();
                    (
                        ErrorCode::HintPending,
                        format!(
                            "your previous hint{which} is still being computed; ask again after its answer"
                        ),
                    )
                } else {
                    match self.hints.take(
                        &player,
                        hint_cost(rollouts),
                        now,
                        self.config.hint_rollouts_per_minute,
                    ) {
                        Ok(()) => {
                            self.hints.asked.insert(player, (conn, seq));
                            fx.push(Effect::Hint(Box::new(HintJob {
                                conn,
                                seq,
                                turn,
                                rollouts,
                                seed: hint_seed(&self.id, self.room.version()),
                                scoring: self
                                    .room
                                    .game()
                                    .map(|g| g.options().backgammon.scoring)
                                    .unwrap_or_default(),
                            })));
                            return;
                        }
                        Err(wait_ms) => (
                            ErrorCode::RateLimited,
                            format!(
                                "hints are limited to {} rollouts a minute; this one ({} rollouts + 1) fits in {:.1} s",
                                self.config.hint_rollouts_per_minute,
                                rollouts,
                                wait_ms as f64 / 1000.0
                            ),
                        ),
                    }
                }
            }
            Err(HintRefusal::TooManyRollouts) => (
                ErrorCode::BadMessage,
                format!("rollouts must be 0..={}", tabula_room::MAX_HINT_ROLLOUTS),
            ),
            Err(HintRefusal::NoBot) => (
                ErrorCode::HintsDisabled,
                "hints are allowed only in rooms with a bot".into(),
            ),
            Err(HintRefusal::NotYourTurn) => (
                ErrorCode::NotTimeForHint,
                "a hint is for your own turn, after rolling".into(),
            ),
        };
        let (code, msg) = refused;
        fx.push(Effect::Count(Count::Command {
            kind: "hint",
            outcome: code.as_str(),
        }));
        self.send(conn, ServerMsg::error(code, msg, seq), fx);
    }

    /// `preview` from connection `conn`: what its player's turn offers
    /// after the tentative `steps`, answered to him alone. A pure read of
    /// the room: no version, no write, nobody else told.
    pub fn preview(
        &mut self,
        conn: u64,
        seq: Option<u64>,
        steps: &[(Spot, Spot)],
        fx: &mut Vec<Effect<T>>,
    ) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if !self.life.owns() {
            return;
        }
        let msg = match self.room.preview(&c.player, steps) {
            Ok(moves) => {
                fx.push(Effect::Count(Count::Command {
                    kind: "preview",
                    outcome: "accepted",
                }));
                let (complete, dice_left, first_steps, sequences) = match moves {
                    Some(m) => (false, m.dice_left, m.first_steps, m.sequences),
                    None => (true, Vec::new(), Vec::new(), Vec::new()),
                };
                ServerMsg::Preview {
                    seq,
                    play: steps.to_vec(),
                    complete,
                    dice_left,
                    first_steps,
                    sequences,
                }
            }
            Err(e) => {
                fx.push(Effect::Count(Count::Command {
                    kind: "preview",
                    outcome: "refused",
                }));
                ServerMsg::error(room_error_code(&e), e.to_string(), seq)
            }
        };
        self.send(conn, msg, fx);
    }

    /// A hint computed (`None`: it failed, and is answered anyway, or the
    /// asker's seq would wait forever). An answer to a cancelled hint is
    /// dropped.
    pub fn hint_answered(
        &mut self,
        conn: u64,
        seq: Option<u64>,
        plays: Option<Vec<HintPlay>>,
        fx: &mut Vec<Effect<T>>,
    ) {
        if self.life == super::Lifecycle::Stopped {
            return;
        }
        let Some(player) = self.conns.get(&conn).map(|c| c.player.clone()) else {
            return;
        };
        if self.hints.asked.get(&player) != Some(&(conn, seq)) {
            return;
        }
        self.hints.asked.remove(&player);
        let Some(plays) = plays else {
            let msg = ServerMsg::error(ErrorCode::Internal, "the hint could not be computed", seq);
            self.send(conn, msg, fx);
            return;
        };
        fx.push(Effect::Count(Count::Command {
            kind: "hint",
            outcome: "accepted",
        }));
        self.send(conn, ServerMsg::Hint { seq, plays }, fx);
    }

    /// The hint asked on `conn`, if any, is not wanted any more.
    pub(super) fn cancel_hint(&mut self, conn: u64, fx: &mut Vec<Effect<T>>) {
        let before = self.hints.asked.len();
        self.hints.asked.retain(|_, (c, _)| *c != conn);
        if self.hints.asked.len() != before {
            fx.push(Effect::Count(Count::Command {
                kind: "hint",
                outcome: "cancelled",
            }));
            fx.push(Effect::CancelHint(conn));
        }
    }

    /// After `player`'s accepted command: a player no longer seated (he
    /// left) does not get his hint.
    pub(super) fn cancel_hint_if_unseated(&mut self, player: &PlayerId, fx: &mut Vec<Effect<T>>) {
        if self.room.seat_of(player).is_none()
            && let Some(&(conn, _)) = self.hints.asked.get(player)
        {
            self.cancel_hint(conn, fx);
        }
    }
}
