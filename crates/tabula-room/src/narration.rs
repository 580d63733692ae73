//! Every text a player reads that the room writes: the arbiter's chat
//! lines (Russian), `opponentLeft`'s message, `gameOver`'s message and the
//! Russian names of result kinds and points.
//!
//! The core states typed facts ([`Fact`]: a turn passed, a round ended, a
//! game ended, a bot took a seat) and this module turns them into text.
//! The texts are wire output: changing one changes what clients show.

use crate::event::{Audience, ChatAuthor, EndReason, Event, GameResult, PlayerResult, ResultKind};
use crate::types::{SeatId, Stake};

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
    BotTookSeat,
}

/// Pushes the arbiter's chat line(s) for `fact` to everyone.
pub(crate) fn arbiter(out: &mut Vec<(Audience, Event)>, fact: Fact<'_>) {
    let mut say = |text: String| {
        out.push((
            Audience::All,
            Event::Chat {
                from: ChatAuthor::Arbiter,
                text,
            },
        ));
    };
    match fact {
        Fact::AutoPass { seats, seat, dice } => say(format!(
            "{}: выпало {}:{}, допустимых ходов нет — ход пропускается автоматически.",
            seats.name(seat),
            dice[0],
            dice[1]
        )),
        Fact::RoundOver {
            seats,
            round,
            points,
        } => say(format!(
            "Раунд {round} окончен: {} — {}, {} — {}.",
            seats.name(SeatId::A),
            points_ru(points[0]),
            seats.name(SeatId::B),
            points_ru(points[1]),
        )),
        Fact::GameOver { seats, result } => {
            if let Some(how) = how_it_ended(seats, result) {
                say(how);
            }
            say(kind_of_win(seats, result));
        }
        Fact::BotTookSeat => say("Игрок покинул игру; его место занял компьютер.".to_string()),
    }
}

fn how_it_ended(seats: Seats, r: &GameResult) -> Option<String> {
    let loser = seats.name(r.winner?.other());
    match r.reason {
        EndReason::Resigned => Some(format!("{loser} сдаются.")),
        EndReason::StoodUp => Some(format!("{loser} встали из-за стола — это поражение.")),
        EndReason::Disconnected => Some(format!(
            "{loser} покинули игру и не вернулись вовремя — это поражение."
        )),
        EndReason::Dropped => Some(format!("{loser} отказались от удвоения.")),
        EndReason::BorneOff | EndReason::RoundsOver => None,
    }
}

fn kind_of_win(seats: Seats, r: &GameResult) -> String {
    match (r.kind, r.thud_totals) {
        (ResultKind::Draw, Some([a, b])) => format!("Ничья: {a} : {b}."),
        (ResultKind::ThudTotals, Some([a, b])) => format!(
            "Победа: {} ({a} : {b}).",
            seats.name(r.winner.unwrap_or(SeatId::A)).to_lowercase()
        ),
        (k, _) => format!("Победа: {} ({})", kind_ru(k), points_ru(r.points)),
    }
}

/// `opponentLeft`'s message.
pub(crate) fn opponent_left() -> String {
    "Соперник покинул игру.".to_string()
}

/// `gameOver`'s message for one seat (seed 000: `WIN 100 TON.`): the
/// points at the stake per point, or in points without a stake.
pub(crate) fn game_over_message(
    result: PlayerResult,
    points: u32,
    stake: Option<&Stake>,
) -> String {
    let amount = match stake {
        Some(s) => match s.payout(points) {
            Some(amount) => format!("{amount} {}", s.currency),
            // Not for a checked stake (MAX_STAKE_AMOUNT); never wrapped.
            None => format!("{points} pt"),
        },
        None => format!("{points} pt"),
    };
    match result {
        PlayerResult::Win => format!("WIN {amount}."),
        PlayerResult::Lose => format!("LOST {amount}."),
        PlayerResult::Draw => "DRAW.".to_string(),
    }
}

/// The Russian name of a result kind (see [`ResultKind::name_ru`]).
pub(crate) fn kind_ru(k: ResultKind) -> &'static str {
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
mod tests {
    use super::*;

    #[test]
    fn russian_points_plural() {
        assert_eq!(points_ru(1), "1 очко");
        assert_eq!(points_ru(2), "2 очка");
        assert_eq!(points_ru(5), "5 очков");
        assert_eq!(points_ru(11), "11 очков");
        assert_eq!(points_ru(21), "21 очко");
    }

    fn result(winner: Option<SeatId>, kind: ResultKind, reason: EndReason) -> GameResult {
        GameResult {
            winner,
            kind,
            reason,
            base_points: 2,
            cube: 2,
            points: 4,
            thud_totals: None,
        }
    }

    fn lines(fact: Fact<'_>) -> Vec<String> {
        let mut out = Vec::new();
        arbiter(&mut out, fact);
        out.into_iter()
            .map(|(to, e)| {
                assert_eq!(to, Audience::All);
                match e {
                    Event::Chat {
                        from: ChatAuthor::Arbiter,
                        text,
                    } => text,
                    other => panic!("not an arbiter line: {other:?}"),
                }
            })
            .collect()
    }

    #[test]
    fn game_over_says_how_then_the_kind_of_win() {
        let r = result(Some(SeatId::A), ResultKind::Mars, EndReason::Resigned);
        assert_eq!(
            lines(Fact::GameOver {
                seats: Seats::Colours,
                result: &r
            }),
            ["Чёрные сдаются.", "Победа: марс (4 очка)"]
        );
        let r = result(Some(SeatId::B), ResultKind::Oin, EndReason::BorneOff);
        assert_eq!(
            lines(Fact::GameOver {
                seats: Seats::Colours,
                result: &r
            }),
            ["Победа: оин (4 очка)"]
        );
        let mut r = result(
            Some(SeatId::B),
            ResultKind::ThudTotals,
            EndReason::RoundsOver,
        );
        r.thud_totals = Some([10, 12]);
        assert_eq!(
            lines(Fact::GameOver {
                seats: Seats::Order,
                result: &r
            }),
            ["Победа: второй игрок (10 : 12)."]
        );
    }

    #[test]
    fn auto_pass_and_round_lines() {
        assert_eq!(
            lines(Fact::AutoPass {
                seats: Seats::Colours,
                seat: SeatId::B,
                dice: [6, 6]
            }),
            ["Чёрные: выпало 6:6, допустимых ходов нет — ход пропускается автоматически."]
        );
        assert_eq!(
            lines(Fact::RoundOver {
                seats: Seats::Order,
                round: 1,
                points: [1, 21]
            }),
            ["Раунд 1 окончен: Первый игрок — 1 очко, Второй игрок — 21 очко."]
        );
    }

    #[test]
    fn game_over_messages() {
        let ton = Stake {
            amount: 100,
            currency: "TON".into(),
        };
        assert_eq!(
            game_over_message(PlayerResult::Win, 2, Some(&ton)),
            "WIN 200 TON."
        );
        assert_eq!(game_over_message(PlayerResult::Lose, 3, None), "LOST 3 pt.");
        // A stake that would overflow (refused at the edge) never wraps.
        let huge = Stake {
            amount: 1 << 63,
            currency: "TON".into(),
        };
        assert_eq!(
            game_over_message(PlayerResult::Lose, 2, Some(&huge)),
            "LOST 2 pt."
        );
        assert_eq!(game_over_message(PlayerResult::Draw, 0, None), "DRAW.");
    }
}
