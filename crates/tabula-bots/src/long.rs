//! Long nardy: evaluation and play choice.
//!
//! The evaluation is antisymmetric: `eval(p, c) = feat(c) - feat(other)`,
//! in pips (one unit = one pip of race lead). Features of a side, read
//! along its own route (0 = head, 18..=23 = home): pip count, checkers
//! off, checkers home, checkers left on the head, points held, points held
//! ahead of the opponent's rearmost checker on the opponent's route
//! (blocks), the longest run of such points (prime), stacking (sum of
//! squares), the rearmost checker, and mobility (dice 1..=6 that some
//! checker can play, and checker-die moves).

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use tabula_dice::Dice;

use tabula_long::{CHECKERS, Color, Position, Step, Turn, point_of};

use crate::{HARD_NARDY_CANDIDATES, Level, argmax, sigmoid};

/// Evaluation weights (pips per unit of each feature).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Per pip of race lead.
    pub pip: f64,
    /// Per checker borne off.
    pub off: f64,
    /// Per checker in the home quarter.
    pub home: f64,
    /// Per checker still on the head (negative is a penalty).
    pub head: f64,
    /// Per point held (head excluded).
    pub held: f64,
    /// Per point held ahead of the opponent's rearmost checker, within 12
    /// points of it on the opponent's route.
    pub block: f64,
    /// Per unit of (longest run of blocking points)².
    pub run: f64,
    /// Per unit of sum of squares of checkers per point (head excluded).
    pub stack: f64,
    /// Per pip the rearmost checker is short of home (r < 18).
    pub rear: f64,
    /// Per die value (1..=6) the side can play at all.
    pub dice_playable: f64,
    /// Per checker-die move available.
    pub moves: f64,
}

/// Medium: race lead, points made, checkers home/off, leaving the head.
pub const MEDIUM: Weights = Weights {
    pip: 1.0,
    off: 1.0,
    home: 0.5,
    head: -1.0,
    held: 1.5,
    block: 0.0,
    run: 0.0,
    stack: 0.0,
    rear: 0.0,
    dice_playable: 0.0,
    moves: 0.0,
};

/// Hard: every feature.
pub const HARD: Weights = Weights {
    pip: 1.0,
    off: 1.5,
    home: 0.5,
    head: -1.5,
    held: 1.0,
    block: 2.0,
    run: 1.2,
    stack: -0.15,
    rear: -0.1,
    dice_playable: 2.0,
    moves: 0.1,
};

/// Score of a won game, beyond any evaluation (plus the points won).
const WIN: f64 = 10_000.0;

/// A side's checkers and the opponent's, both indexed by this side's route
/// index.
struct View {
    me: [u8; 24],
    opp: [u8; 24],
    off: u8,
}

fn view(pos: &Position, c: Color) -> View {
    let mut me = [0u8; 24];
    let mut opp = [0u8; 24];
    let o = c.other();
    for r in 0..24 {
        let p = point_of(c, r);
        me[r] = pos.checkers(c, p);
        opp[r] = pos.checkers(o, p);
    }
    View {
        me,
        opp,
        off: pos.off(c),
    }
}

fn features(v: &View, w: &Weights) -> f64 {
    let mut pips = 0u32;
    let mut home = 0u32;
    let mut held = 0u32;
    let mut stack = 0u32;
    let mut rear = 24usize;
    for r in 0..24 {
        let n = u32::from(v.me[r]);
        if n == 0 {
            continue;
        }
        pips += n * (24 - r as u32);
        if r >= 18 {
            home += n;
        }
        if r > 0 {
            held += 1;
            stack += n * n;
        }
        rear = rear.min(r);
    }
    let mut s = -w.pip * f64::from(pips)
        + w.off * f64::from(v.off)
        + w.home * f64::from(home)
        + w.head * f64::from(v.me[0])
        + w.held * f64::from(held)
        + w.stack * f64::from(stack);
    if rear < 18 {
        s += w.rear * (18 - rear) as f64;
    }
    if w.block != 0.0 || w.run != 0.0 {
        // The opponent's route index s of my route index r is (r + 12) % 24.
        let opp_rear = (0..24).find(|&s| v.opp[(s + 12) % 24] > 0);
        if let Some(rs) = opp_rear {
            let mut blocks = 0u32;
            let mut run = 0u32;
            let mut best = 0u32;
            for s in rs + 1..24 {
                if v.me[(s + 12) % 24] > 0 {
                    if s <= rs + 12 {
                        blocks += 1;
                    }
                    run += 1;
                    best = best.max(run);
                } else {
                    run = 0;
                }
            }
            s += w.block * f64::from(blocks) + w.run * f64::from(best * best);
        }
    }
    if w.dice_playable != 0.0 || w.moves != 0.0 {
        let all_home = u32::from(v.off) + home == u32::from(CHECKERS);
        let mut playable = 0u32;
        let mut moves = 0u32;
        for d in 1..=6usize {
            let mut any = false;
            for r in 0..24 {
                if v.me[r] == 0 {
                    continue;
                }
                let t = r + d;
                if (t < 24 && v.opp[t] == 0) || (t >= 24 && all_home) {
                    any = true;
                    moves += 1;
                }
            }
            playable += u32::from(any);
        }
        s += w.dice_playable * f64::from(playable) + w.moves * f64::from(moves);
    }
    s
}

/// The evaluation of `pos` for `c` (any side to move), in pips; a finished
/// game scores ±(`WIN` + points).
pub fn evaluate(pos: &Position, c: Color, w: &Weights) -> f64 {
    if let Some(o) = pos.outcome() {
        let v = WIN + f64::from(o.points);
        return if o.winner == c { v } else { -v };
    }
    features(&view(pos, c), w) - features(&view(pos, c.other()), w)
}

/// Expected evaluation for `me` of `pos` (opponent to move) after the
/// opponent's best reply to each of its 21 rolls.
fn expectimax(pos: &Position, me: Color, w: &Weights, buf: &mut Vec<Position>) -> f64 {
    if pos.is_game_over() {
        return evaluate(pos, me, w);
    }
    let mut total = 0.0;
    for dice in Dice::ALL_21 {
        buf.clear();
        pos.legal_moves_into(dice, buf);
        let worst = buf
            .iter()
            .map(|p| evaluate(p, me, w))
            .fold(f64::INFINITY, f64::min);
        total += dice.probability() * worst;
    }
    total
}

/// How Hard plays long nardy: which evaluation, and whether the bear-off
/// database takes over once both sides are bearing off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    /// Both sides bearing off: the exact database.
    pub bearoff: bool,
    /// The trained network ([`crate::long_net`]); `false`: the hand-made
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
    let net = crate::long_net::Net::shipped();
    let mut scratch = crate::long_net::Scratch::new(net);
    crate::long_net::rank(net, &mut scratch, me, finals, bearoff)
        .into_iter()
        .map(f64::from)
        .collect()
}

/// Hard's deep score for `me` of a play: its equity after the opponent's
/// best reply (by the network) to each of his 21 rolls.
pub(crate) fn net_deep(after: &Position, me: Color, bearoff: bool) -> f64 {
    let net = crate::long_net::Net::shipped();
    let mut scratch = crate::long_net::Scratch::new(net);
    f64::from(crate::long_net::one_ply(
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
    let net = crate::long_net::Net::shipped();
    let mut scratch = crate::long_net::Scratch::new(net);
    let mover = pos.turn();
    let mut finals = Vec::with_capacity(64);
    let mut p = 0.0;
    for dice in Dice::ALL_21 {
        finals.clear();
        pos.legal_moves_into(dice, &mut finals);
        let best = crate::long_net::greedy(net, &mut scratch, mover, &finals, false)
            .map(|i| scratch.probs(net, &finals[i], mover).win)
            .unwrap_or(0.5);
        p += dice.probability() * f64::from(best);
    }
    if c == mover { p } else { 1.0 - p }
}

/// A rough chance that `c` wins from `pos` (for Medium's cube decisions,
/// and Hard's before the network): the hand-made Hard evaluation squashed by a logistic whose scale grows with the pips left.
pub fn win_probability(pos: &Position, c: Color) -> f64 {
    if let Some(o) = pos.outcome() {
        return if o.winner == c { 1.0 } else { 0.0 };
    }
    let mut e = evaluate(pos, c, &HARD);
    // Being on roll is worth about half a roll.
    e += if pos.turn() == c { 4.0 } else { -4.0 };
    let pips = f64::from(pos.pip_count(Color::White) + pos.pip_count(Color::Black));
    sigmoid(1.7 * e / (2.0 * pips.sqrt()).max(4.0))
}

/// No contact is left: every checker of each side is in the half of the
/// route that ends in his home (route indices 12..=23: white on points
/// 1–12, black on 13–24), so each side has passed all of the other's
/// checkers and neither can ever stand in the other's way again (nor can
/// a six-block of either hold anyone back). The converse holds too: a
/// checker of either side in the first half of its route still has some
/// opponent checker ahead of it, or one of the opponent's still has it
/// ahead.
pub fn no_contact(pos: &Position) -> bool {
    [Color::White, Color::Black]
        .into_iter()
        .all(|c| (0..12).all(|r| pos.checkers(c, point_of(c, r)) == 0))
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
}
