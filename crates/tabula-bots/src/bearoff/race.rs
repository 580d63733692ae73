//! Races read off the games' positions once both sides are bearing off.

use super::board::{Board, POINTS};
use super::table::{Race, Table};

/// Long nardy: `c`'s home board when every checker `c` has left is in his
/// home (route indices 18..=23; the checker at index r is 24 − r pips from
/// off), else `None`.
pub fn long_board(pos: &tabula_long::Position, c: tabula_long::Color) -> Option<Board> {
    let mut b = [0u8; POINTS];
    for r in 0..24 {
        let n = pos.checkers(c, tabula_long::point_of(c, r));
        if n == 0 {
            continue;
        }
        if r < 18 {
            return None;
        }
        b[23 - r] = n;
    }
    Some(b)
}

/// Long nardy: the race chances of the side to move once both sides are
/// bearing off (every checker of each in his home), else `None` (also for
/// a finished game).
pub fn long_race(pos: &tabula_long::Position) -> Option<Race> {
    if pos.is_game_over() {
        return None;
    }
    let me = pos.turn();
    let mine = long_board(pos, me)?;
    let theirs = long_board(pos, me.other())?;
    Some(Table::shared().race(&mine, &theirs))
}

/// Long nardy: what a mars counts beyond a single win under `pos`'s
/// scoring (koks cannot happen once the loser is all home).
pub fn long_gammon_value(pos: &tabula_long::Position) -> f64 {
    match pos.variant().scoring {
        tabula_long::Scoring::Single => 0.0,
        _ => 1.0,
    }
}

/// Long nardy: the equity for `me` of `after` (the position after a play,
/// the opponent to move) by the database: the points of a finished game,
/// the race equity while both sides bear off, else `None`.
pub fn long_equity(after: &tabula_long::Position, me: tabula_long::Color) -> Option<f64> {
    if let Some(o) = after.outcome() {
        let v = f64::from(o.points);
        return Some(if o.winner == me { v } else { -v });
    }
    let r = long_race(after)?;
    let e = r.equity(long_gammon_value(after));
    Some(if after.turn() == me { e } else { -e })
}

/// Backgammon: `side`'s home board when none of its checkers is on the bar
/// or outside its points 1..=6, else `None`.
pub fn bg_board(pos: &tabula_backgammon::Position, side: tabula_backgammon::Side) -> Option<Board> {
    if pos.bar(side) > 0 || (7..=24).any(|p| pos.checkers(side, p) > 0) {
        return None;
    }
    Some(std::array::from_fn(|i| pos.checkers(side, i as u8 + 1)))
}

/// Backgammon: the race chances of the side on roll (`pos.turn()`, about
/// to roll) once both sides are bearing off, else `None` (also for a
/// finished game).
pub fn bg_race(pos: &tabula_backgammon::Position) -> Option<Race> {
    if pos.is_over() {
        return None;
    }
    let me = pos.turn();
    let mine = bg_board(pos, me)?;
    let theirs = bg_board(pos, me.opponent())?;
    Some(Table::shared().race(&mine, &theirs))
}

/// Backgammon: the mover's chances in `after` (a position right after its
/// play, the opponent rolling next), by the database; `None` unless both
/// sides are bearing off. A finished game gives its exact outcome under
/// gammon scoring.
pub fn bg_after(after: &tabula_backgammon::Position) -> Option<Race> {
    use tabula_backgammon::{Scoring, WinKind};
    if let Some(o) = after.outcome(Scoring::Gammons) {
        let won = o.winner == after.turn();
        let gammon = !matches!(o.kind, WinKind::Single);
        return Some(Race {
            win: if won { 1.0 } else { 0.0 },
            win_gammon: if won && gammon { 1.0 } else { 0.0 },
            lose_gammon: if !won && gammon { 1.0 } else { 0.0 },
        });
    }
    Some(bg_race(&after.pass_turn())?.flip())
}

/// Backgammon: the equity (gammons counted, as Hard's network counts them)
/// for the mover of `after`, by the database; see [`bg_after`]. A
/// backgammon cannot happen once both sides are home.
pub fn bg_equity(after: &tabula_backgammon::Position) -> Option<f64> {
    bg_after(after).map(|r| r.equity(1.0))
}
