//! Long nardy: evaluation and play choice.
//!
//! Medium weighs hand-made features ([`classic`]); Hard ranks every play by
//! the trained network ([`net`], its inputs [`features`]) and searches the
//! best one roll deeper ([`search`]); both sides bearing off, the bear-off
//! database decides.

pub mod classic;
pub mod features;
pub mod net;
pub mod search;

use std::collections::HashSet;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_dice::{Dice, DiceSource};
use tabula_long::{Color, Position, Step, Turn, Variant, decide_opening};

use crate::level::{HARD_NARDY_CANDIDATES, Level};
use crate::pick::argmax;

use classic::{HARD, MEDIUM, evaluate, expectimax};
use net::{Net, Scratch};
use search::greedy;

/// How Hard plays long nardy: which evaluation, and whether the bear-off
/// database takes over once both sides are bearing off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    /// Both sides bearing off: the exact database.
    pub bearoff: bool,
    /// The trained network ([`net`]); `false`: the hand-made
    /// evaluation Hard played before it ([`HARD`]), kept to measure
    /// against.
    pub network: bool,
}

impl Engine {
    /// Hard as shipped: the network and the database.
    pub const BEST: Engine = Engine {
        bearoff: true,
        network: true,
    };
}

/// The race equity for the mover of every play in `finals` by the bear-off
/// database, when every one of them leaves both sides bearing off (else
/// `None`): Hard's and the hints' scores there.
pub(crate) fn bearoff_scores(me: Color, finals: &[Position]) -> Option<Vec<f64>> {
    finals
        .iter()
        .map(|f| crate::bearoff::long_equity(f, me))
        .collect()
}

/// The equity below the best within which a play is searched deeper
/// (gnubg's move filter for its first look-ahead: the best eight within
/// 0.16 points of the best).
pub const FILTER_EQUITY: f64 = 0.16;

/// The candidates Hard searches one roll deeper: indices of `statics` (each
/// play's 0-ply equity), best first, at most [`HARD_NARDY_CANDIDATES`] and
/// only those within [`FILTER_EQUITY`] of the best.
pub(crate) fn candidates(statics: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..statics.len()).collect();
    order.sort_by(|&a, &b| statics[b].total_cmp(&statics[a]));
    let Some(&best) = order.first() else {
        return order;
    };
    let floor = statics[best] - FILTER_EQUITY;
    order.truncate(HARD_NARDY_CANDIDATES);
    order.retain(|&i| statics[i] >= floor);
    order
}

/// The network's 0-ply equity for `me` of every play in `finals` (the
/// bear-off database's, exact, for a play that leaves both sides bearing
/// off, when `bearoff`).
pub(crate) fn net_statics(me: Color, finals: &[Position], bearoff: bool) -> Vec<f64> {
    let net = net::Net::shipped();
    let mut scratch = net::Scratch::new(net);
    search::rank(net, &mut scratch, me, finals, bearoff)
        .into_iter()
        .map(f64::from)
        .collect()
}

/// Hard's deep score for `me` of a play: its equity after the opponent's
/// best reply (by the network) to each of his 21 rolls.
pub(crate) fn net_deep(after: &Position, me: Color, bearoff: bool) -> f64 {
    let net = net::Net::shipped();
    let mut scratch = net::Scratch::new(net);
    f64::from(search::one_ply(
        net,
        &mut scratch,
        after,
        me,
        bearoff,
        &mut Vec::with_capacity(64),
    ))
}

/// Index into `finals` of the play `level` picks.
pub fn pick(level: Level, rng: &mut ChaCha8Rng, pos: &Position, finals: &[Position]) -> usize {
    pick_with(level, rng, pos, finals, Engine::BEST)
}

/// [`pick`], Hard playing by `engine`.
pub fn pick_with(
    level: Level,
    rng: &mut ChaCha8Rng,
    pos: &Position,
    finals: &[Position],
    engine: Engine,
) -> usize {
    if finals.len() <= 1 {
        return 0;
    }
    let me = pos.turn();
    match level {
        Level::Easy => rng.random_range(0..finals.len()),
        Level::Medium => {
            let s: Vec<f64> = finals.iter().map(|f| evaluate(f, me, &MEDIUM)).collect();
            argmax(&s, rng).unwrap_or(0)
        }
        Level::Hard => {
            if let Some(i) = (0..finals.len()).find(|&i| finals[i].is_game_over()) {
                return i;
            }
            if engine.bearoff
                && let Some(s) = bearoff_scores(me, finals)
            {
                return argmax(&s, rng).unwrap_or(0);
            }
            if !engine.network {
                return pick_classic(me, rng, finals);
            }
            let statics = net_statics(me, finals, engine.bearoff);
            let mut deep = vec![f64::NEG_INFINITY; finals.len()];
            for i in candidates(&statics) {
                deep[i] = net_deep(&finals[i], me, engine.bearoff);
            }
            argmax(&deep, rng).unwrap_or(0)
        }
    }
}

/// Every play in `finals` (`pos`'s legal plays of a roll) in Hard's order,
/// best first, as Hard ranks them: a play that ends the game first; where
/// every play leaves both sides bearing off, the bear-off database's race
/// equity; else the candidates (`candidates`) by their look-ahead, then
/// the rest by the network's 0-ply equity. Ties keep the finals' order.
pub fn hard_ranking(pos: &Position, finals: &[Position]) -> Vec<usize> {
    let me = pos.turn();
    let by = |scores: &[f64], order: &mut Vec<usize>| {
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    };
    let mut order: Vec<usize> = (0..finals.len()).collect();
    if let Some(i) = (0..finals.len()).find(|&i| finals[i].is_game_over()) {
        order.retain(|&j| j != i);
        order.insert(0, i);
        return order;
    }
    if let Some(s) = bearoff_scores(me, finals) {
        by(&s, &mut order);
        return order;
    }
    let statics = net_statics(me, finals, true);
    let mut top = candidates(&statics);
    let mut deep = vec![f64::NEG_INFINITY; finals.len()];
    for &i in &top {
        deep[i] = net_deep(&finals[i], me, true);
    }
    by(&deep, &mut top);
    let mut rest: Vec<usize> = order.into_iter().filter(|i| !top.contains(i)).collect();
    by(&statics, &mut rest);
    top.extend(rest);
    top
}

/// Hard before the network: the hand-made evaluation, then the expectimax
/// over the opponent's 21 rolls for its best [`HARD_NARDY_CANDIDATES`].
fn pick_classic(me: Color, rng: &mut ChaCha8Rng, finals: &[Position]) -> usize {
    let s: Vec<f64> = finals.iter().map(|f| evaluate(f, me, &HARD)).collect();
    let mut order: Vec<usize> = (0..finals.len()).collect();
    order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
    order.truncate(HARD_NARDY_CANDIDATES);
    let mut buf = Vec::with_capacity(64);
    let mut deep = vec![f64::NEG_INFINITY; finals.len()];
    for &i in &order {
        deep[i] = expectimax(&finals[i], me, &HARD, &mut buf);
    }
    argmax(&deep, rng).unwrap_or(0)
}

/// The whole turn `level` plays (empty for a pass or a finished game).
pub fn choose(level: Level, rng: &mut ChaCha8Rng, pos: &Position, dice: Dice) -> Vec<Step> {
    choose_with(level, rng, pos, dice, Engine::BEST)
}

/// [`choose`], Hard playing by `engine`.
pub fn choose_with(
    level: Level,
    rng: &mut ChaCha8Rng,
    pos: &Position,
    dice: Dice,
    engine: Engine,
) -> Vec<Step> {
    if pos.is_game_over() {
        return Vec::new();
    }
    let finals = pos.legal_moves(dice);
    if finals.is_empty() {
        return Vec::new();
    }
    let i = pick_with(level, rng, pos, &finals, engine);
    sequence_to(pos, dice, &finals[i]).unwrap_or_default()
}

/// A legal complete sequence of `dice` from `pos` reaching `target` (the
/// position after the play, opponent to move): a depth-first search over
/// the engine's step-by-step [`Turn`], skipping intermediate states already
/// explored. Empty for a pass.
pub fn sequence_to(pos: &Position, dice: Dice, target: &Position) -> Option<Vec<Step>> {
    fn dfs(
        turn: &Turn,
        target: &Position,
        seen: &mut HashSet<(Position, Vec<u8>)>,
    ) -> Option<Vec<Step>> {
        if turn.is_complete() {
            return (turn.finish().ok()? == *target).then(|| turn.played().to_vec());
        }
        if !seen.insert((turn.position(), turn.dice_left().to_vec())) {
            return None;
        }
        for step in turn.legal_steps() {
            let mut next = turn.clone();
            if next.play_step(step).is_ok()
                && let Some(found) = dfs(&next, target, seen)
            {
                return Some(found);
            }
        }
        None
    }
    dfs(&pos.turn_with(dice), target, &mut HashSet::new())
}

/// The network's chance that `c` wins from `pos` (either side to move),
/// for Hard's cube decisions: for the side on roll, the average over its
/// 21 rolls of the win chance after its best play (the network judges
/// positions as a side has just left them, so this asks it only what it
/// was trained on, the start included).
pub fn net_win_probability(pos: &Position, c: Color) -> f64 {
    if let Some(o) = pos.outcome() {
        return if o.winner == c { 1.0 } else { 0.0 };
    }
    let net = net::Net::shipped();
    let mut scratch = net::Scratch::new(net);
    let mover = pos.turn();
    let mut finals = Vec::with_capacity(64);
    let mut p = 0.0;
    for dice in Dice::ALL_21 {
        finals.clear();
        pos.legal_moves_into(dice, &mut finals);
        let best = search::greedy(net, &mut scratch, mover, &finals, false)
            .map(|i| scratch.probs(net, &finals[i], mover).win)
            .unwrap_or(0.5);
        p += dice.probability() * f64::from(best);
    }
    if c == mover { p } else { 1.0 - p }
}

/// The network's greedy play (no look-ahead, no bear-off database)
/// against Medium over `pairs` pairs of games of the default variant, both
/// games of a pair with the same dice and the seats swapped: its share of
/// all the points won (oin 1, mars 2, koks 3). The training command's
/// report, and the test that the shipped weights were trained.
pub fn greedy_share_vs_medium(net: &Net, pairs: u64, seed: u64) -> f64 {
    let mut scratch = Scratch::new(net);
    let (mut net_points, mut all_points) = (0u64, 0u64);
    for g in 0..2 * pairs {
        let mut dice =
            tabula_dice::SeededDice::new(seed.wrapping_mul(1_000_003).wrapping_add(g / 2));
        let mut rng = ChaCha8Rng::seed_from_u64(g);
        let net_side = if g % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let v = Variant::default();
        let opening = decide_opening(v.opening, &mut dice);
        let mut pos = Position::new_game(v, opening.starter);
        let mut pending = opening.first_roll;
        while !pos.is_game_over() {
            let d = pending.take().unwrap_or_else(|| dice.roll());
            let finals = pos.legal_moves(d);
            let i = if pos.turn() == net_side {
                greedy(net, &mut scratch, net_side, &finals, false).unwrap_or(0)
            } else {
                pick(Level::Medium, &mut rng, &pos, &finals)
            };
            let Some(&next) = finals.get(i) else {
                break;
            };
            pos = next;
        }
        if let Some(o) = pos.outcome() {
            all_points += u64::from(o.points);
            if o.winner == net_side {
                net_points += u64::from(o.points);
            }
        }
    }
    net_points as f64 / all_points.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hard_searches_at_most_eight_plays_within_the_filter_of_the_best() {
        // Best first; only those within 0.16 of the best.
        assert_eq!(candidates(&[0.1, 0.5, 0.3, 0.45]), vec![1, 3]);
        assert_eq!(candidates(&[0.0, 0.16, -1.0]), vec![1, 0]);
        // Never more than eight, however close.
        let close: Vec<f64> = (0..12).map(|i| f64::from(i) * 0.001).collect();
        assert_eq!(candidates(&close), (4..12).rev().collect::<Vec<usize>>());
        // A lone play is its own candidate; none for none.
        assert_eq!(candidates(&[-2.0]), vec![0]);
        assert!(candidates(&[]).is_empty());
    }
    #[test]
    fn the_shipped_network_is_trained() {
        // Its greedy play takes over 90% of the points from Medium (the
        // training reports); an untrained network takes few. The floor
        // is between them, so shipping untrained weights fails here.
        let trained = greedy_share_vs_medium(Net::shipped(), 20, 5);
        assert!(
            trained >= 0.8,
            "the shipped network took {trained} of the points"
        );
        let untrained = greedy_share_vs_medium(&Net::random(Net::shipped().hidden(), 1), 20, 5);
        assert!(untrained < 0.8, "an untrained network took {untrained}");
        // It likes being ahead: everything home against the other's head.
        let setup: tabula_long::Setup = serde_json::from_str(
            r#"{"turn":"black","white":{"1":5,"2":5,"3":5},"black":{"12":15}}"#,
        )
        .unwrap();
        let pos = Position::from_setup(&setup, Variant::default()).unwrap();
        let p = Net::shipped().evaluate(&pos, Color::White);
        assert!(p.win > 0.95 && p.win_mars > 0.5, "{p:?}");
    }
}
