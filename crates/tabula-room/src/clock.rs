//! Clocks: a delay-plus-reserve time control for games between people,
//! kept as data and decided with time passed in (no clock is read here).
//!
//! A **period** is a stretch in which one seat must act: its roll and
//! the whole of its move, a cube decision, a Thud! move, an answer to a
//! proposal to end the round. Each period has a free time (the *delay*,
//! [`TimeControl::delay_ms`]); only what a period takes beyond it is spent
//! from that seat's *reserve* ([`TimeControl::reserve_ms`]). A period
//! ends when another seat must act (or nobody: the game is over); the
//! next one starts with a fresh delay, so after a double is taken the
//! doubler's roll is a new period of his. When the running period's free
//! time and its seat's reserve are both used up, the seat has timed out
//! ([`Clocks::expire`]).
//!
//! The reserve is a bank per game in nardy and backgammon, per match in
//! a match played with the cube (it carries from game to game), and per
//! round in Thud!. A rematch starts with full banks.
//!
//! The figures are what the room charged, never a wall-clock reading: a
//! paused game (against the computer, its player away) stops the clock,
//! and a room restored by a new owner resumes the running period from
//! what it had used at the room's last input ([`Clocks::resume`]), so the
//! time a node spends dying and being taken over is not charged.

use serde::{Deserialize, Serialize};

use crate::types::SeatId;

/// The shortest free time per move a room accepts.
pub const MIN_DELAY_MS: u64 = 3_000;
/// The longest free time per move a room accepts (10 minutes).
pub const MAX_DELAY_MS: u64 = 600_000;
/// The largest reserve a room accepts (2 hours).
pub const MAX_RESERVE_MS: u64 = 7_200_000;
/// A day, the unit of a correspondence game's time per move.
pub const DAY_MS: u64 = 86_400_000;
/// The longest time per move of a correspondence game (14 days).
pub const MAX_CORRESPONDENCE_DAYS: u64 = 14;

/// A delay-plus-reserve time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TimeControl {
    /// Free time per period, in milliseconds.
    pub delay_ms: u64,
    /// The bank each seat starts with, in milliseconds.
    pub reserve_ms: u64,
}

impl TimeControl {
    /// "blitz": 12 s per move plus 60 s.
    pub const BLITZ: TimeControl = TimeControl::new(12_000, 60_000);
    /// "normal": 30 s per move plus 2 minutes.
    pub const NORMAL: TimeControl = TimeControl::new(30_000, 120_000);
    /// "long": 60 s per move plus 5 minutes.
    pub const LONG: TimeControl = TimeControl::new(60_000, 300_000);
    /// "1d": correspondence, a day a move.
    pub const DAYS_1: TimeControl = TimeControl::new(DAY_MS, 0);
    /// "3d": correspondence, three days a move.
    pub const DAYS_3: TimeControl = TimeControl::new(3 * DAY_MS, 0);
    /// "7d": correspondence, seven days a move.
    pub const DAYS_7: TimeControl = TimeControl::new(7 * DAY_MS, 0);
    /// The presets by name.
    pub const PRESETS: [(&'static str, TimeControl); 6] = [
        ("blitz", TimeControl::BLITZ),
        ("normal", TimeControl::NORMAL),
        ("long", TimeControl::LONG),
        ("1d", TimeControl::DAYS_1),
        ("3d", TimeControl::DAYS_3),
        ("7d", TimeControl::DAYS_7),
    ];

    /// A time control of `delay_ms` per move plus `reserve_ms`.
    pub const fn new(delay_ms: u64, reserve_ms: u64) -> TimeControl {
        TimeControl {
            delay_ms,
            reserve_ms,
        }
    }

    /// The preset called `name` (`blitz`, `normal`, `long`).
    pub fn preset(name: &str) -> Option<TimeControl> {
        TimeControl::PRESETS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
            .map(|(_, tc)| *tc)
    }

    /// The preset's name, if this is one.
    pub fn preset_name(&self) -> Option<&'static str> {
        TimeControl::PRESETS
            .iter()
            .find(|(_, tc)| tc == self)
            .map(|(n, _)| *n)
    }

    /// A correspondence game's: days a move, no reserve. Its clock runs
    /// on the wall's time: the hours its room spends unloaded, or being
    /// taken over, are charged (see [`Clocks::resume`]), and its players'
    /// absence is neither a disconnection nor a pause.
    pub fn is_correspondence(&self) -> bool {
        self.delay_ms >= DAY_MS
    }

    /// Refuses figures no game should be played with: a delay outside
    /// [`MIN_DELAY_MS`]..=[`MAX_DELAY_MS`], a reserve over
    /// [`MAX_RESERVE_MS`], or values not in whole seconds. A
    /// correspondence control is whole days, 1 to
    /// [`MAX_CORRESPONDENCE_DAYS`], with no reserve.
    pub fn check(&self) -> Result<(), String> {
        if self.is_correspondence() {
            if !self.delay_ms.is_multiple_of(DAY_MS)
                || self.delay_ms > MAX_CORRESPONDENCE_DAYS * DAY_MS
                || self.reserve_ms != 0
            {
                return Err(format!(
                    "a correspondence game has whole days a move (1 to {MAX_CORRESPONDENCE_DAYS}) and no reserve"
                ));
            }
            return Ok(());
        }
        if !(MIN_DELAY_MS..=MAX_DELAY_MS).contains(&self.delay_ms) {
            return Err(format!(
                "the time per move must be {} to {} seconds",
                MIN_DELAY_MS / 1000,
                MAX_DELAY_MS / 1000
            ));
        }
        if self.reserve_ms > MAX_RESERVE_MS {
            return Err(format!(
                "the reserve must be at most {} seconds",
                MAX_RESERVE_MS / 1000
            ));
        }
        if !self.delay_ms.is_multiple_of(1000) || !self.reserve_ms.is_multiple_of(1000) {
            return Err("the time control is given in whole seconds".to_string());
        }
        Ok(())
    }
}

/// One period as a game record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnTime {
    /// Whose period.
    pub seat: SeatId,
    /// The seat's reserve when the period began.
    pub bank_ms: u64,
    /// The time the period took, as charged.
    pub used_ms: u64,
}

impl TurnTime {
    /// What the period spent from the reserve.
    pub fn overrun(&self, control: &TimeControl) -> u64 {
        self.used_ms.saturating_sub(control.delay_ms)
    }

    /// Whether this period ran out of time: it used its free time and
    /// the whole of its bank.
    pub fn timed_out(&self, control: &TimeControl) -> bool {
        self.used_ms >= control.delay_ms.saturating_add(self.bank_ms)
    }
}

/// A finished game's clock: the time control and every period, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockRecord {
    /// The time control.
    pub control: TimeControl,
    /// The periods of the game, in order.
    pub turns: Vec<TurnTime>,
}

/// The clocks as everyone may see them (`state.clock` and the `clock`
/// event). Times are the server's, in milliseconds since the epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockView {
    /// Free time per period.
    pub delay_ms: u64,
    /// The bank a seat starts with.
    pub reserve_ms: u64,
    /// The reserves of seats A and B, not counting what the running
    /// period may yet spend.
    pub reserve: [u64; 2],
    /// The running period, if a seat must act.
    pub running: Option<RunningView>,
}

/// The running period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningView {
    /// Whose clock runs.
    pub seat: SeatId,
    /// Time the period had used before `since` (after a pause or a
    /// takeover).
    pub spent_ms: u64,
    /// When the clock (re)started; `None` while it is stopped (a paused
    /// game).
    pub since: Option<u64>,
    /// When the free time ends (then the reserve runs).
    pub free_until: Option<u64>,
    /// When the seat times out.
    pub deadline: Option<u64>,
}

/// Which bank a period spends from: a new match, game or Thud! round may
/// refill the banks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unit {
    /// The room's match number.
    pub match_number: u32,
    /// The game number.
    pub game: u32,
    /// The Thud! round (0 in dice games).
    pub round: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Running {
    seat: SeatId,
    spent: u64,
    since: Option<u64>,
}

/// A room's clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Clocks {
    control: TimeControl,
    /// The reserve carries from game to game (a match with the cube).
    per_match: bool,
    reserve: [u64; 2],
    running: Option<Running>,
    unit: Option<Unit>,
    /// The periods of the current game, for its record.
    turns: Vec<TurnTime>,
}

impl Clocks {
    /// Clocks at full banks, nothing running.
    pub(crate) fn new(control: TimeControl, per_match: bool) -> Clocks {
        Clocks {
            control,
            per_match,
            reserve: [control.reserve_ms; 2],
            running: None,
            unit: None,
            turns: Vec::new(),
        }
    }

    fn used(r: &Running, now: u64) -> u64 {
        r.spent
            .saturating_add(r.since.map_or(0, |s| now.saturating_sub(s)))
    }

    /// When the running seat times out; `None` when nothing runs or the
    /// clock is stopped.
    pub(crate) fn deadline(&self) -> Option<u64> {
        let r = self.running?;
        let budget = self
            .control
            .delay_ms
            .saturating_add(self.reserve[r.seat.index()]);
        Some(r.since?.saturating_add(budget.saturating_sub(r.spent)))
    }

    /// Closes the running period at `now`: its seat is charged what it
    /// took beyond the delay, and the period goes into the record.
    fn close(&mut self, now: u64) {
        let Some(r) = self.running.take() else {
            return;
        };
        let bank = self.reserve[r.seat.index()];
        let t = TurnTime {
            seat: r.seat,
            bank_ms: bank,
            used_ms: Clocks::used(&r, now),
        };
        self.reserve[r.seat.index()] = bank.saturating_sub(t.overrun(&self.control));
        self.turns.push(t);
    }

    /// Brings the clocks to where the room stands at `now`: `acting` must
    /// act (`None`: nobody, the game is over or not started) in `unit`,
    /// and the game is `paused` or not. True when anything changed (the
    /// room announces the clocks).
    pub(crate) fn follow(
        &mut self,
        now: u64,
        acting: Option<SeatId>,
        unit: Option<Unit>,
        paused: bool,
    ) -> bool {
        let new_unit = unit.is_some() && unit != self.unit;
        let changed_seat = self.running.map(|r| r.seat) != acting;
        let mut changed = false;
        if changed_seat || new_unit {
            changed |= self.running.is_some();
            self.close(now);
        }
        if let (true, Some(u)) = (new_unit, unit) {
            let refill = match self.unit {
                None => true,
                Some(old) => {
                    old.match_number != u.match_number
                        || old.round != u.round
                        || (old.game != u.game && !self.per_match)
                }
            };
            if refill {
                self.reserve = [self.control.reserve_ms; 2];
            }
            if self.unit.is_some_and(|old| old.game != u.game) {
                self.turns.clear();
            }
            self.unit = unit;
        }
        if self.running.is_none()
            && let Some(seat) = acting
        {
            self.running = Some(Running {
                seat,
                spent: 0,
                since: (!paused).then_some(now),
            });
            return true;
        }
        if let Some(r) = self.running.as_mut() {
            match (paused, r.since) {
                (true, Some(s)) => {
                    r.spent = r.spent.saturating_add(now.saturating_sub(s));
                    r.since = None;
                    changed = true;
                }
                (false, None) => {
                    r.since = Some(now);
                    changed = true;
                }
                _ => {}
            }
        }
        changed
    }

    /// A new owner restored the room at `now`; its last input was at
    /// `last_input`. The running period keeps what it had used at that
    /// input and counts on from `now`. True when a clock runs (the room
    /// announces the clocks). A correspondence clock is the wall's: it
    /// keeps running while the room is unloaded (days, by design) or
    /// changes hands, so nothing changes.
    pub(crate) fn resume(&mut self, last_input: u64, now: u64) -> bool {
        if self.control.is_correspondence() {
            return false;
        }
        let Some(r) = self.running.as_mut() else {
            return false;
        };
        let Some(s) = r.since else {
            return false;
        };
        r.spent = r.spent.saturating_add(last_input.saturating_sub(s));
        r.since = Some(now);
        true
    }

    /// The seat whose time is up at `now`, if any.
    pub(crate) fn expire(&self, now: u64) -> Option<SeatId> {
        let seat = self.running?.seat;
        (self.deadline()? <= now).then_some(seat)
    }

    /// The current game's periods, for its record.
    pub(crate) fn record(&self) -> ClockRecord {
        ClockRecord {
            control: self.control,
            turns: self.turns.clone(),
        }
    }

    /// The clocks as everyone may see them.
    pub(crate) fn view(&self) -> ClockView {
        ClockView {
            delay_ms: self.control.delay_ms,
            reserve_ms: self.control.reserve_ms,
            reserve: self.reserve,
            running: self.running.map(|r| RunningView {
                seat: r.seat,
                spent_ms: r.spent,
                since: r.since,
                free_until: r
                    .since
                    .map(|s| s.saturating_add(self.control.delay_ms.saturating_sub(r.spent))),
                deadline: self.deadline(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TC: TimeControl = TimeControl::new(10_000, 30_000);
    const A: SeatId = SeatId::A;
    const B: SeatId = SeatId::B;

    fn unit(game: u32, round: u32) -> Option<Unit> {
        Some(Unit {
            match_number: 1,
            game,
            round,
        })
    }

    #[test]
    fn presets_and_checks() {
        assert_eq!(TimeControl::preset("blitz"), Some(TimeControl::BLITZ));
        assert_eq!(TimeControl::preset(" Normal "), Some(TimeControl::NORMAL));
        assert_eq!(TimeControl::preset("bullet"), None);
        assert_eq!(TimeControl::LONG.preset_name(), Some("long"));
        assert_eq!(TC.preset_name(), None);
        for tc in TimeControl::PRESETS.map(|(_, t)| t) {
            assert_eq!(tc.check(), Ok(()));
        }
        assert!(TimeControl::new(1_000, 0).check().is_err());
        assert!(TimeControl::new(601_000, 0).check().is_err());
        assert!(TimeControl::new(30_000, 7_201_000).check().is_err());
        assert!(TimeControl::new(30_500, 0).check().is_err());
        assert_eq!(TimeControl::new(3_000, 0).check(), Ok(()));
        // Correspondence: whole days, 1 to 14, no reserve.
        assert_eq!(TimeControl::preset("3D"), Some(TimeControl::DAYS_3));
        assert!(TimeControl::DAYS_7.is_correspondence());
        assert!(!TimeControl::LONG.is_correspondence());
        assert_eq!(TimeControl::new(14 * DAY_MS, 0).check(), Ok(()));
        assert!(TimeControl::new(15 * DAY_MS, 0).check().is_err());
        assert!(TimeControl::new(DAY_MS + 1_000, 0).check().is_err());
        assert!(TimeControl::new(DAY_MS, 60_000).check().is_err());
    }

    #[test]
    fn a_correspondence_clock_runs_on_the_wall_across_a_takeover() {
        let mut c = Clocks::new(TimeControl::DAYS_1, false);
        c.follow(1_000, Some(A), unit(1, 0), false);
        assert_eq!(c.deadline(), Some(1_000 + DAY_MS));
        // Unloaded for 20 hours, then restored: nothing is forgiven.
        assert!(!c.resume(6_000, 72_000_000));
        assert_eq!(c.deadline(), Some(1_000 + DAY_MS));
        assert_eq!(c.expire(DAY_MS), None);
        assert_eq!(c.expire(1_000 + DAY_MS), Some(A));
    }

    /// Each row: (now, acting, paused) fed to `follow`, then the expected
    /// (changed, reserves, deadline).
    #[test]
    fn periods_spend_only_their_overrun() {
        let mut c = Clocks::new(TC, false);
        type Row = (u64, Option<SeatId>, bool, bool, [u64; 2], Option<u64>);
        let rows: &[Row] = &[
            // A's period starts: 10 s free + 30 s bank.
            (1_000, Some(A), false, true, [30_000, 30_000], Some(41_000)),
            // Nothing changed.
            (5_000, Some(A), false, false, [30_000, 30_000], Some(41_000)),
            // A took 8 s: within the delay, nothing spent; B's turn.
            (9_000, Some(B), false, true, [30_000, 30_000], Some(49_000)),
            // B took 25 s: 15 s over, spent from his bank.
            (34_000, Some(A), false, true, [30_000, 15_000], Some(74_000)),
            // Paused 4 s into A's period: stopped, no deadline.
            (38_000, Some(A), true, true, [30_000, 15_000], None),
            // Back 100 s later: 4 s used, 36 s left.
            (
                138_000,
                Some(A),
                false,
                true,
                [30_000, 15_000],
                Some(174_000),
            ),
            // The game is over: A's period closes (14 s, 4 over).
            (148_000, None, false, true, [26_000, 15_000], None),
        ];
        for (i, &(now, acting, paused, changed, reserve, deadline)) in rows.iter().enumerate() {
            assert_eq!(
                c.follow(now, acting, unit(1, 0), paused),
                changed,
                "row {i}"
            );
            assert_eq!(c.reserve, reserve, "row {i}");
            assert_eq!(c.deadline(), deadline, "row {i}");
        }
        let used: Vec<(SeatId, u64, u64)> = c
            .record()
            .turns
            .iter()
            .map(|t| (t.seat, t.bank_ms, t.used_ms))
            .collect();
        assert_eq!(
            used,
            vec![(A, 30_000, 8_000), (B, 30_000, 25_000), (A, 30_000, 14_000)]
        );
    }

    #[test]
    fn the_deadline_is_the_delay_plus_the_bank_and_expires_there() {
        let mut c = Clocks::new(TC, false);
        c.follow(0, Some(A), unit(1, 0), false);
        assert_eq!(c.expire(39_999), None);
        assert_eq!(c.expire(40_000), Some(A));
        c.follow(40_000, None, unit(1, 0), false);
        let t = c.record().turns[0];
        assert!(t.timed_out(&TC));
        assert_eq!(c.reserve, [0, 30_000]);
        // With an empty bank only the delay is left.
        c.follow(50_000, Some(A), unit(1, 0), false);
        assert_eq!(c.deadline(), Some(60_000));
    }

    #[test]
    fn a_takeover_charges_what_was_used_at_the_last_input() {
        let mut c = Clocks::new(TC, false);
        c.follow(1_000, Some(A), unit(1, 0), false);
        // The last input was at 6 s (5 s used); the new owner restores the
        // room at 90 s: 35 s left from there, not a timeout.
        assert!(c.resume(6_000, 90_000));
        assert_eq!(c.deadline(), Some(125_000));
        assert_eq!(c.expire(90_000), None);
        let v = c.view().running.unwrap();
        assert_eq!(
            (v.spent_ms, v.since, v.free_until),
            (5_000, Some(90_000), Some(95_000))
        );
        // Nothing running: nothing to resume.
        let mut idle = Clocks::new(TC, false);
        assert!(!idle.resume(6_000, 90_000));
    }

    #[test]
    fn banks_refill_per_game_per_round_and_per_match_as_configured() {
        // Per game: game 2 starts with full banks.
        let mut c = Clocks::new(TC, false);
        c.follow(0, Some(A), unit(1, 0), false);
        c.follow(30_000, None, unit(1, 0), false);
        assert_eq!(c.reserve, [10_000, 30_000]);
        c.follow(60_000, Some(B), unit(2, 0), false);
        assert_eq!(c.reserve, [30_000, 30_000]);
        assert_eq!(
            c.record().turns.len(),
            0,
            "a new game's record starts empty"
        );
        // Per match (the cube): the bank carries.
        let mut m = Clocks::new(TC, true);
        m.follow(0, Some(A), unit(1, 0), false);
        m.follow(30_000, None, unit(1, 0), false);
        m.follow(60_000, Some(B), unit(2, 0), false);
        assert_eq!(m.reserve, [10_000, 30_000]);
        // A rematch refills even a match bank.
        m.follow(
            90_000,
            Some(A),
            Some(Unit {
                match_number: 2,
                game: 3,
                round: 0,
            }),
            false,
        );
        assert_eq!(m.reserve, [30_000, 30_000]);
        // Per round (Thud!): round 2 refills, one record for the game.
        let mut t = Clocks::new(TC, false);
        t.follow(0, Some(A), unit(1, 1), false);
        t.follow(30_000, Some(B), unit(1, 2), false);
        assert_eq!(t.reserve, [30_000, 30_000]);
        assert_eq!(t.record().turns.len(), 1);
    }
}
