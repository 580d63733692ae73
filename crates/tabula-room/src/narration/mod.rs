//! Every text a player reads that the room writes: the arbiter's chat
//! lines (Russian), `opponentLeft`'s message, `gameOver`'s message and the
//! Russian names of result kinds and points.
//!
//! The core states typed facts ([`Fact`]: a turn passed, a round ended, a
//! game ended, a bot took a seat) and this module turns them into text,
//! and into a [`Narration`]: the same line as a message key with
//! parameters, which a client renders in its player's language (the
//! Russian text is the Russian rendering). The texts and keys are wire
//! output: changing one changes what clients show.

mod key;

pub use key::Narration;

use crate::event::{Audience, ChatAuthor, Event};
use crate::result::{EndReason, GameResult, PlayerResult, ResultKind};
use crate::types::{BotLevel, SeatId, Stake};

/// How a game names its seats in the arbiter's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seats {
    /// By colour: «Белые» (seat A), «Чёрные» (seat B) — long nardy,
    /// backgammon.
    Colours,
    /// By order: «Первый игрок», «Второй игрок» — Thud! (the sides swap
    /// between rounds, the seats do not).
    Order,
}

impl Seats {
    /// The name of `seat` (a plural subject for colours: «Белые сдаются»).
    fn name(self, seat: SeatId) -> &'static str {
        match (self, seat) {
            (Seats::Order, SeatId::A) => "Первый игрок",
            (Seats::Order, SeatId::B) => "Второй игрок",
            (Seats::Colours, SeatId::A) => "Белые",
            (Seats::Colours, SeatId::B) => "Чёрные",
        }
    }
}

/// Something the arbiter announces.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fact<'a> {
    /// `seat` rolled `dice` and had no legal play: the turn passed.
    AutoPass {
        /// How the game names seats.
        seats: Seats,
        /// Who could not move.
        seat: SeatId,
        /// The roll.
        dice: [u8; 2],
    },
    /// A Thud! round ended with these points of seats A and B.
    RoundOver {
        /// How the game names seats.
        seats: Seats,
        /// 1 or 2.
        round: u32,
        /// Points of seats A and B.
        points: [u32; 2],
    },
    /// The game ended: how (resignation, standing up, disconnect, drop),
    /// then the kind of win (seed 002).
    GameOver {
        /// How the game names seats.
        seats: Seats,
        /// The result.
        result: &'a GameResult,
    },
    /// A bot took the seat of a player who left mid-game.
    BotTookSeat {
        /// The seat.
        seat: SeatId,
        /// The bot's level.
        level: BotLevel,
    },
    /// Thud!: `seat` ran out of time; the round is over.
    RoundTimeout {
        /// How the game names seats.
        seats: Seats,
        /// Who ran out of time.
        seat: SeatId,
    },
}

/// An arbiter's chat line: the Russian text and its key.
fn line(text: String, narration: Narration) -> (Audience, Event) {
    (
        Audience::All,
        Event::Chat {
            from: ChatAuthor::Arbiter,
            text,
            narration: Some(narration),
        },
    )
}

/// Pushes the arbiter's chat line(s) for `fact` to everyone.
pub(crate) fn arbiter(out: &mut Vec<(Audience, Event)>, fact: Fact<'_>) {
    match fact {
        Fact::AutoPass { seats, seat, dice } => out.push(line(
            format!(
                "{}: выпало {}:{}, допустимых ходов нет — ход пропускается автоматически.",
                seats.name(seat),
                dice[0],
                dice[1]
            ),
            Narration::AutoPass { seat, dice },
        )),
        Fact::RoundOver {
            seats,
            round,
            points,
        } => out.push(line(
            format!(
                "Раунд {round} окончен: {} — {}, {} — {}.",
                seats.name(SeatId::A),
                points_ru(points[0]),
                seats.name(SeatId::B),
                points_ru(points[1]),
            ),
            Narration::RoundOver { round, points },
        )),
        Fact::GameOver { seats, result } => {
            if let Some((text, n)) = how_it_ended(seats, result) {
                out.push(line(text, n));
            }
            let (text, n) = kind_of_win(seats, result);
            out.push(line(text, n));
        }
        Fact::RoundTimeout { seats, seat } => out.push(line(
            format!(
                "{}: время вышло — раунд окончен, сопернику засчитаны все оставшиеся фигуры.",
                seats.name(seat)
            ),
            Narration::RoundTimeout { seat },
        )),
        Fact::BotTookSeat { seat, level } => out.push(line(
            "Игрок покинул игру; его место занял компьютер.".to_string(),
            Narration::BotTookSeat { seat, level },
        )),
    }
}

fn how_it_ended(seats: Seats, r: &GameResult) -> Option<(String, Narration)> {
    let seat = r.winner?.other();
    let loser = seats.name(seat);
    match r.reason {
        EndReason::Resigned => Some((format!("{loser} сдаются."), Narration::Resigned { seat })),
        EndReason::StoodUp => Some((
            format!("{loser} встали из-за стола — это поражение."),
            Narration::StoodUp { seat },
        )),
        EndReason::Disconnected => Some((
            format!("{loser} покинули игру и не вернулись вовремя — это поражение."),
            Narration::Disconnected { seat },
        )),
        EndReason::Dropped => Some((
            format!("{loser} отказались от удвоения."),
            Narration::Dropped { seat },
        )),
        EndReason::Timeout => Some((
            format!("{loser}: время вышло — это поражение."),
            Narration::Timeout { seat },
        )),
        EndReason::BorneOff | EndReason::RoundsOver => None,
    }
}

fn kind_of_win(seats: Seats, r: &GameResult) -> (String, Narration) {
    match (r.kind, r.thud_totals) {
        (ResultKind::Draw, Some(totals @ [a, b])) => {
            (format!("Ничья: {a} : {b}."), Narration::Draw { totals })
        }
        (ResultKind::ThudTotals, Some(totals @ [a, b])) => {
            let seat = r.winner.unwrap_or(SeatId::A);
            (
                format!("Победа: {} ({a} : {b}).", seats.name(seat).to_lowercase()),
                Narration::ThudWin { seat, totals },
            )
        }
        (kind, _) => (
            format!("Победа: {} ({})", kind_ru(kind), points_ru(r.points)),
            Narration::Win {
                seat: r.winner.unwrap_or(SeatId::A),
                kind,
                points: r.points,
            },
        ),
    }
}

/// `opponentLeft` to the seat that stays, when `leaver` left.
pub(crate) fn opponent_left(leaver: SeatId) -> Event {
    Event::OpponentLeft {
        message: "Соперник покинул игру.".to_string(),
        narration: Some(Narration::OpponentLeft { seat: leaver }),
    }
}

/// `gameOver` for one seat (seed 000: `WIN 100 TON.`): its message gives
/// the points at the stake per point, or in points without a stake.
pub(crate) fn game_over(
    result: PlayerResult,
    points: u32,
    kind: ResultKind,
    stake: Option<&Stake>,
) -> Event {
    let paid = stake.and_then(|s| Some((s.payout(points)?, s.currency.clone())));
    let amount = match &paid {
        Some((amount, currency)) => format!("{amount} {currency}"),
        // No stake, or one that would overflow (not for a checked stake,
        // MAX_STAKE_AMOUNT): in points, never wrapped.
        None => format!("{points} pt"),
    };
    let (amount_n, currency) = paid.map_or((None, None), |(a, c)| (Some(a), Some(c)));
    let (message, narration) = match result {
        PlayerResult::Win => (
            format!("WIN {amount}."),
            Narration::GameWon {
                points,
                amount: amount_n,
                currency,
            },
        ),
        PlayerResult::Lose => (
            format!("LOST {amount}."),
            Narration::GameLost {
                points,
                amount: amount_n,
                currency,
            },
        ),
        PlayerResult::Draw => ("DRAW.".to_string(), Narration::GameDrawn {}),
    };
    Event::GameOver {
        result,
        points,
        kind,
        message,
        narration: Some(narration),
    }
}

impl ResultKind {
    /// The Russian name used in the arbiter's line.
    pub fn name_ru(self) -> &'static str {
        kind_ru(self)
    }
}

/// The Russian name of a result kind.
fn kind_ru(k: ResultKind) -> &'static str {
    match k {
        ResultKind::Oin => "оин",
        ResultKind::Mars => "марс",
        ResultKind::Koks => "кокс",
        ResultKind::Single => "обычная",
        ResultKind::Gammon => "гаммон",
        ResultKind::Backgammon => "бэкгаммон",
        ResultKind::Drop => "отказ от удвоения",
        ResultKind::ThudTotals => "по сумме очков",
        ResultKind::Draw => "ничья",
    }
}

/// Russian plural of «очко» for `n`: 1 очко, 2 очка, 5 очков, 21 очко.
pub fn points_ru(n: u32) -> String {
    let word = match (n % 10, n % 100) {
        (_, 11..=14) => "очков",
        (1, _) => "очко",
        (2..=4, _) => "очка",
        _ => "очков",
    };
    format!("{n} {word}")
}

#[cfg(test)]
mod tests;
