//! The searches over the backgammon network: its greedy play, and one
//! and two rolls ahead.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::{Position, Scoring};
use tabula_dice::Dice;

use super::net::{Buf, Near, Net};

/// The points a finished game in `pos` is worth to the side that just
/// moved (`pos.turn()`) under `scoring`: ±1, and with gammons counted ±2
/// for a gammon, ±3 for a backgammon; `None` while it is not over. The
/// searches score finished games by it, so Hard saves (and wins)
/// backgammons the network's three outputs do not tell from gammons.
pub fn outcome_points(pos: &Position, scoring: Scoring) -> Option<f32> {
    let o = pos.outcome(scoring)?;
    let points = f32::from(o.points);
    Some(if o.winner == pos.turn() {
        points
    } else {
        -points
    })
}

/// The best play by the network alone (0-ply): the index into `finals`
/// with the highest value for the mover under `scoring`
/// ([`Probs::value`](super::net::Probs::value)); a finished game wins outright.
pub fn best_static(net: &Net, finals: &[Position], scoring: Scoring) -> Option<usize> {
    let mut h = Buf::new(net);
    best_by(finals, scoring, |b| {
        net.eval_board(b, &mut h).value(scoring)
    })
}

/// [`best_static`] of `finals`, children of `near`'s parent, judged by
/// it ([`Near`]).
pub fn best_near(near: &mut Near, finals: &[Position], scoring: Scoring) -> Option<usize> {
    best_by(finals, scoring, |b| near.probs(b).value(scoring))
}

/// The index of the play in `finals` with the highest `value` of its
/// board, a finished game counting its points under `scoring` plus 10
/// (winning outright); the first of equals.
fn best_by(
    finals: &[Position],
    scoring: Scoring,
    mut value: impl FnMut(&[i8; 26]) -> f32,
) -> Option<usize> {
    let mut best = None;
    let mut best_eq = f32::NEG_INFINITY;
    for (i, p) in finals.iter().enumerate() {
        let eq = match outcome_points(p, scoring) {
            Some(points) => points + 10.0,
            None => value(p.board()),
        };
        if eq > best_eq {
            best_eq = eq;
            best = Some(i);
        }
    }
    best
}

/// The value for the mover of `after` under `scoring` ([`Probs::value`](super::net::Probs::value))
/// looking one roll ahead: the average over the opponent's 21 rolls of its
/// best reply by the network, seen from the mover's side.
pub fn one_ply(net: &Net, after: &Position, buf: &mut Vec<Position>, scoring: Scoring) -> f32 {
    one_ply_counted(net, after, buf, &mut 0, scoring)
}

/// [`one_ply`], adding to `judged` how many positions it judged (the
/// opponent's replies over its 21 rolls): the size of the search, which
/// the deeper look-ahead's budget is counted in.
fn one_ply_counted(
    net: &Net,
    after: &Position,
    buf: &mut Vec<Position>,
    judged: &mut usize,
    scoring: Scoring,
) -> f32 {
    if let Some(points) = outcome_points(after, scoring) {
        return points;
    }
    let opp = after.pass_turn();
    let mut near = Near::new(net, opp.board());
    let mut total = 0.0f32;
    for dice in Dice::ALL_21 {
        opp.legal_positions_into(dice, buf);
        *judged += buf.len().max(1);
        let reply = if buf.is_empty() {
            // The opponent cannot move: the mover rolls next from `after`
            // as it stands, which the network judges from the opponent's
            // side as the position after its (empty) move.
            near.probs(opp.board()).value(scoring)
        } else {
            buf.iter()
                .map(|p| match outcome_points(p, scoring) {
                    Some(points) => points,
                    None => near.probs(p.board()).value(scoring),
                })
                .fold(f32::NEG_INFINITY, f32::max)
        };
        total += dice.probability() as f32 * -reply;
    }
    total
}

/// The value for the mover of `after` under `scoring` looking two rolls
/// ahead (gnubg's 2-ply): the average over the opponent's 21 rolls of
/// minus the value of its reply, where the reply is the network's best for the opponent
/// (0-ply, gnubg's move filter at its narrowest) and its value is
/// [`one_ply`] of it (the mover's 21 rolls, its best answer to each).
/// About 21 times [`one_ply`]'s work; `None` once it has judged more than
/// `budget` positions (what it judged is taken off `budget` either way).
pub fn two_ply(
    net: &Net,
    after: &Position,
    buf: &mut Vec<Position>,
    deeper: &mut Vec<Position>,
    budget: &mut usize,
    scoring: Scoring,
) -> Option<f32> {
    if let Some(points) = outcome_points(after, scoring) {
        return Some(points);
    }
    let opp = after.pass_turn();
    let mut near = Near::new(net, opp.board());
    let mut total = 0.0f32;
    for dice in Dice::ALL_21 {
        opp.legal_positions_into(dice, buf);
        let mut judged = buf.len();
        let reply = match best_near(&mut near, buf, scoring) {
            Some(i) => one_ply_counted(net, &buf[i], deeper, &mut judged, scoring),
            // The opponent cannot move: its (empty) move leaves the board
            // as it stands, the mover to roll.
            None => one_ply_counted(net, &opp, deeper, &mut judged, scoring),
        };
        *budget = budget.checked_sub(judged)?;
        total += dice.probability() as f32 * -reply;
    }
    Some(total)
}

/// About how many positions [`two_ply`] of `after` judges, from movegen
/// alone: the mover's plays over its 21 rolls from `after` as it stands
/// (the opponent's reply moves few of them), 22 times (one such search
/// for each of the opponent's 21 rolls, and the replies themselves).
pub fn two_ply_cost(after: &Position, buf: &mut Vec<Position>) -> usize {
    let plays: usize = Dice::ALL_21
        .iter()
        .map(|&dice| {
            after.legal_positions_into(dice, buf);
            buf.len().max(1)
        })
        .sum();
    22 * plays
}

/// Positions after a move (the side that moved still "on turn" in the
/// engine's sense, as [`Net::evaluate`] takes them) from self-play games
/// of the network's greedy play, `explore` of the moves picked at random
/// among the legal ones instead; finished games are left out. `n` of
/// them, the same for the same network, `n`, `explore` and `seed`.
pub fn sample(net: &Net, n: usize, explore: f64, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut buf = Vec::with_capacity(64);
    let roll = |rng: &mut ChaCha8Rng| {
        Dice::new(rng.random_range(1..=6u8), rng.random_range(1..=6u8)).unwrap_or(Dice::ALL_21[0])
    };
    while out.len() < n {
        let mut pos = Position::initial();
        let mut dice = loop {
            let d = roll(&mut rng);
            if !d.is_double() {
                break d;
            }
        };
        loop {
            pos.legal_positions_into(dice, &mut buf);
            let after = if buf.is_empty() {
                pos
            } else if rng.random_bool(explore) {
                buf[rng.random_range(0..buf.len())]
            } else {
                buf[best_static(net, &buf, Scoring::Gammons).unwrap_or(0)]
            };
            if after.is_over() || out.len() >= n {
                break;
            }
            out.push(after);
            pos = after.pass_turn();
            dice = roll(&mut rng);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bg::net::Probs;

    #[test]
    fn sampling_is_deterministic_and_keeps_only_unfinished_positions() {
        let net = Net::shipped();
        let a = sample(net, 300, 0.1, 7);
        assert_eq!(a.len(), 300);
        assert_eq!(a, sample(net, 300, 0.1, 7));
        assert_ne!(a, sample(net, 300, 0.1, 8));
        assert!(a.iter().all(|p| !p.is_over()));
    }

    #[test]
    fn single_scoring_counts_the_win_only() {
        let p = Probs {
            win: 0.7,
            win_gammon: 0.3,
            lose_gammon: 0.1,
            win_backgammon: 0.05,
            lose_backgammon: 0.02,
        };
        assert!((p.value(Scoring::Single) - 0.4).abs() < 1e-6);
        assert!((p.value(Scoring::Gammons) - 0.63).abs() < 1e-6);
        // A finished gammon: 2 points with gammons counted, 1 without,
        // either way the same for the searches' finished games.
        // White has borne off all fifteen, Black none.
        let mut b = [0i8; 26];
        b[20] = -15;
        let won = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        assert_eq!(outcome_points(&won, Scoring::Gammons), Some(2.0));
        assert_eq!(outcome_points(&won, Scoring::Single), Some(1.0));
        // The searches follow: one roll ahead a position is worth its
        // win chance alone under single scoring.
        let net = Net::shipped();
        let mut buf = Vec::new();
        for pos in sample(net, 40, 0.3, 3) {
            let single = one_ply(net, &pos, &mut buf, Scoring::Single);
            let money = one_ply(net, &pos, &mut buf, Scoring::Gammons);
            assert!((-1.0..=1.0).contains(&single), "{single}");
            assert!((-3.0..=3.0).contains(&money), "{money}");
        }
    }

    #[test]
    fn two_ply_looks_past_the_opponents_reply_within_its_budget() {
        let net = Net::shipped();
        let (mut buf, mut deeper) = (Vec::new(), Vec::new());
        let pos = |b: [i8; 26]| Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        // The opponent bears off its last checker with any roll, a gammon
        // (the mover has none off): exactly -2 whatever the network says.
        let mut b = [0i8; 26];
        b[6] = 15;
        b[24] = -1;
        let mut left = usize::MAX;
        let v = two_ply(
            net,
            &pos(b),
            &mut buf,
            &mut deeper,
            &mut left,
            Scoring::Gammons,
        )
        .unwrap();
        assert!((v + 2.0).abs() < 1e-5, "{v}");
        // The opponent is on the bar against a closed board: it cannot
        // move, so two rolls ahead is the mover's one-roll look-ahead from
        // the board as it stands.
        let mut b = [0i8; 26];
        b[1..=6].copy_from_slice(&[2; 6]);
        b[7] = 3;
        b[0] = -1;
        b[20] = -14;
        let closed = pos(b);
        let mut left = usize::MAX;
        let v = two_ply(
            net,
            &closed,
            &mut buf,
            &mut deeper,
            &mut left,
            Scoring::Gammons,
        )
        .unwrap();
        let opp = one_ply(net, &closed.pass_turn(), &mut buf, Scoring::Gammons);
        assert!((v + opp).abs() < 1e-5, "{v} {opp}");
        // The budget: what it judged is taken off, the estimate is of the
        // right size, and with too little it gives up.
        let start = Position::initial();
        let mut left = 10_000_000;
        let v = two_ply(
            net,
            &start,
            &mut buf,
            &mut deeper,
            &mut left,
            Scoring::Gammons,
        )
        .unwrap();
        let judged = 10_000_000 - left;
        let estimate = two_ply_cost(&start, &mut buf);
        assert!(
            estimate / 2 <= judged && judged <= 2 * estimate,
            "{judged} judged, {estimate} estimated"
        );
        assert!(
            (v - one_ply(net, &start, &mut buf, Scoring::Gammons)).abs() < 0.2,
            "{v}"
        );
        let mut within =
            |left: &mut usize| two_ply(net, &start, &mut buf, &mut deeper, left, Scoring::Gammons);
        assert_eq!(within(&mut (judged - 1)), None);
        let mut left = judged;
        assert_eq!(within(&mut left), Some(v));
        assert_eq!(left, 0);
    }
}
