//! Short nardy (backgammon): evaluation and play choice.
//!
//! Positions are evaluated right after a side has moved, from that side's
//! point of view (its mover-relative board: 1..=24 its points, 25 its bar,
//! 0 the opponent's bar as a negative count). Medium's hand-made
//! evaluation is in pips (the opponent is the next to roll, so the mover's
//! blots are what is at risk: it counts exposed blots; [`shots`] counts the
//! opponent's rolls that hit one). Hard's is the trained network of
//! [`net`], in points per game.

pub mod classic;
pub mod features;
pub mod net;
pub mod search;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::{Position, Scoring};
use tabula_dice::Dice;

use crate::level::{HARD_NARDY_CANDIDATES, Level};
use crate::pick::argmax;

pub use classic::{MEDIUM, Weights, evaluate};
pub use features::shots;

/// How many of the best plays by the one-roll look-ahead Hard judges
/// again two rolls ahead ([`search::two_ply`]).
pub const HARD_BG_DEEP_CANDIDATES: usize = 4;

/// How far (points per game) below the best play by the one-roll
/// look-ahead a play may be and still be judged two rolls ahead.
pub const HARD_BG_DEEP_MARGIN: f64 = 0.2;

/// The most positions Hard's two-roll look-ahead may judge in one
/// decision, as [`search::two_ply_cost`] estimates them before it starts:
/// where the plays branch so widely that it would not fit, Hard keeps the
/// one-roll judgement (a bound on the decision's time, the same on every
/// machine: about 68 ms at the 99th percentile on a 2-vCPU machine,
/// idle; 40,000 until session 46, when gnubg judged the doubled budget
/// 0.2–0.7 thousandths of a point a move better; session 47 made the
/// evaluation 28% faster and judged a larger budget and more plays worth
/// less than a tenth of a thousandth a move, so it kept the time free:
/// crates/tabula-bots/RESULTS.md).
pub const HARD_BG_DEEP_BUDGET: usize = 80_000;

/// How Hard plays a game of short nardy: by the bear-off database once
/// both sides are bearing off or not, and for the points the game is
/// scored by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    /// Hard plays by the exact bear-off database once both sides are
    /// bearing off ([`crate::bearoff`]).
    pub bearoff: bool,
    /// What a game is worth: with [`Scoring::Gammons`] Hard plays for
    /// gammons and backgammons and against losing them; with
    /// [`Scoring::Single`] (short nardy's default) every game is one point
    /// and Hard plays to win, whatever the margin.
    pub scoring: Scoring,
}

impl Default for Engine {
    /// The bear-off database on, gammons counted (a money game).
    fn default() -> Engine {
        Engine {
            bearoff: true,
            scoring: Scoring::Gammons,
        }
    }
}

/// Hard's score of a play: the value for the mover under `scoring`
/// (points per game) of the position after it, looking over the
/// opponent's 21 rolls with the trained network ([`net`]).
pub(crate) fn hard_score(after: &Position, scoring: Scoring) -> f64 {
    f64::from(search::one_ply(
        net::Net::shipped(),
        after,
        &mut Vec::with_capacity(64),
        scoring,
    ))
}

/// Hard's static score of a play (no look-ahead): the network's value
/// under `scoring`.
pub(crate) fn hard_static(after: &Position, scoring: Scoring) -> f64 {
    f64::from(net::Net::shipped().evaluate(after).value(scoring))
}

/// Index into `finals` (positions after each distinct play, mover still on
/// roll) of the play `level` picks (Hard with [`Engine::default`]).
pub fn pick(level: Level, rng: &mut ChaCha8Rng, finals: &[Position]) -> usize {
    pick_with(level, rng, finals, Engine::default())
}

/// The value for the mover under `scoring` of every play in `finals` by
/// the bear-off database, when every one of them leaves both sides
/// bearing off (else `None`): Hard's and the hints' scores there.
pub(crate) fn bearoff_scores(finals: &[Position], scoring: Scoring) -> Option<Vec<f64>> {
    let gammons = match scoring {
        Scoring::Single => 0.0,
        Scoring::Gammons => 1.0,
    };
    finals
        .iter()
        .map(|f| crate::bearoff::bg_after(f).map(|r| r.equity(gammons)))
        .collect()
}

/// [`pick`] as `engine` says Hard plays.
pub fn pick_with(level: Level, rng: &mut ChaCha8Rng, finals: &[Position], engine: Engine) -> usize {
    let scoring = engine.scoring;
    if finals.len() <= 1 {
        return 0;
    }
    match level {
        Level::Easy => rng.random_range(0..finals.len()),
        Level::Medium => {
            let s: Vec<f64> = finals.iter().map(|f| evaluate(f, &MEDIUM)).collect();
            argmax(&s, rng).unwrap_or(0)
        }
        Level::Hard => {
            if let Some(i) = (0..finals.len()).find(|&i| finals[i].is_over()) {
                return i;
            }
            if engine.bearoff
                && let Some(s) = bearoff_scores(finals, scoring)
            {
                return argmax(&s, rng).unwrap_or(0);
            }
            let s: Vec<f64> = finals.iter().map(|f| hard_static(f, scoring)).collect();
            let mut order = hard_candidates(finals, &s, scoring);
            let mut buf = Vec::with_capacity(64);
            let mut deep = vec![f64::NEG_INFINITY; finals.len()];
            let net = net::Net::shipped();
            for &i in &order {
                deep[i] = f64::from(search::one_ply(net, &finals[i], &mut buf, scoring));
            }
            order.sort_by(|&a, &b| deep[b].total_cmp(&deep[a]));
            if let Some(two) = two_ply_scores(finals, &deep, &order, scoring) {
                let mut scores = vec![f64::NEG_INFINITY; finals.len()];
                for (i, v) in two {
                    scores[i] = v;
                }
                return argmax(&scores, rng).unwrap_or(0);
            }
            argmax(&deep, rng).unwrap_or(0)
        }
    }
}

/// The plays Hard searches (indices into `finals`, by `statics`, the
/// network's equities, best first): the best [`HARD_NARDY_CANDIDATES`],
/// and, when the mover has borne off none and has checkers in the
/// opponent's home board or on the bar (a backgammon, 3 points, if the
/// opponent finishes first and gammons count), the best of the plays that
/// leave the fewest there: the network's outputs do not tell a backgammon
/// from a gammon, the look-ahead's finished games do.
pub(crate) fn hard_candidates(
    finals: &[Position],
    statics: &[f64],
    scoring: Scoring,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..finals.len()).collect();
    order.sort_by(|&a, &b| statics[b].total_cmp(&statics[a]));
    // Checkers left in the opponent's home board or on the bar, when
    // none is off.
    let back = |p: &Position| -> Option<i32> {
        if scoring == Scoring::Single {
            return None;
        }
        let b = p.board();
        let on: i32 = b.iter().map(|&n| i32::from(n.max(0))).sum();
        (on == 15).then(|| b[19..=25].iter().map(|&n| i32::from(n.max(0))).sum())
    };
    let fewest = order
        .iter()
        .copied()
        .filter_map(|i| Some((i, back(&finals[i])?)))
        .min_by_key(|&(_, n)| n);
    let mut top: Vec<usize> = order.iter().copied().take(HARD_NARDY_CANDIDATES).collect();
    if let Some((i, n)) = fewest
        && n < back(&finals[order[0]]).unwrap_or(0)
        && !top.contains(&i)
    {
        top.push(i);
    }
    top
}

/// Hard's second look: the plays within [`HARD_BG_DEEP_MARGIN`] of the
/// best by the one-roll look-ahead (`deep`; `ranked` lists the plays best
/// first), at most [`HARD_BG_DEEP_CANDIDATES`] of them, best first for as
/// long as [`search::two_ply_cost`] says they fit [`HARD_BG_DEEP_BUDGET`]
/// together, judged two rolls ahead ([`search::two_ply`]): each one's
/// index and score. `None` when fewer than two are that close and fit:
/// the one-roll judgement stands. Hard plays the best of them; the hints
/// list them first.
pub(crate) fn two_ply_scores(
    finals: &[Position],
    deep: &[f64],
    ranked: &[usize],
    scoring: Scoring,
) -> Option<Vec<(usize, f64)>> {
    let best = deep[*ranked.first()?];
    let mut buf = Vec::with_capacity(64);
    let mut cost = 0;
    let mut close = Vec::with_capacity(HARD_BG_DEEP_CANDIDATES);
    for &i in ranked.iter().take(HARD_BG_DEEP_CANDIDATES) {
        if deep[i] < best - HARD_BG_DEEP_MARGIN {
            break;
        }
        let c = search::two_ply_cost(&finals[i], &mut buf);
        if cost + c > HARD_BG_DEEP_BUDGET {
            break;
        }
        cost += c;
        close.push(i);
    }
    if close.len() < 2 {
        return None;
    }
    let net = net::Net::shipped();
    let mut deeper = Vec::with_capacity(64);
    // The estimate runs a little high on average; twice it is the hard
    // stop.
    let mut left = 2 * HARD_BG_DEEP_BUDGET;
    close
        .into_iter()
        .map(|i| {
            search::two_ply(net, &finals[i], &mut buf, &mut deeper, &mut left, scoring)
                .map(|v| (i, f64::from(v)))
        })
        .collect()
}

/// The whole turn `level` plays, as `(from, to)` steps in the mover's
/// numbering (25 = bar, 0 = off); empty when nothing is legal.
pub fn choose(level: Level, rng: &mut ChaCha8Rng, pos: &Position, dice: Dice) -> Vec<(u8, u8)> {
    choose_with(level, rng, pos, dice, Engine::default())
}

/// [`choose`] as `engine` says Hard plays.
pub fn choose_with(
    level: Level,
    rng: &mut ChaCha8Rng,
    pos: &Position,
    dice: Dice,
    engine: Engine,
) -> Vec<(u8, u8)> {
    if pos.is_over() {
        return Vec::new();
    }
    let plays = pos.legal_plays(dice);
    if plays.is_empty() {
        return Vec::new();
    }
    let finals: Vec<Position> = plays.iter().map(|(_, p)| *p).collect();
    let i = pick_with(level, rng, &finals, engine);
    plays[i]
        .0
        .steps()
        .iter()
        .map(|s| (s.from(), s.to()))
        .collect()
}

/// The chance that the side on roll (`on_roll`) or the other side wins
/// from `pos` (the on-roll side about to roll), for cube decisions: the
/// network's judgement of the position as the other side left it.
pub fn win_probability(pos: &Position, on_roll: bool) -> f64 {
    let other = f64::from(net::Net::shipped().evaluate(&pos.pass_turn()).win);
    if on_roll { 1.0 - other } else { other }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    #[test]
    fn hard_plays_for_the_points_the_game_is_scored_by() {
        let net = net::Net::shipped();
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let single = Engine {
            bearoff: true,
            scoring: Scoring::Single,
        };
        let (mut decisions, mut differ) = (0, 0);
        for after in search::sample(net, 300, 0.1, 8) {
            let pos = after.pass_turn();
            let dice = Dice::ALL_21[rng.random_range(0..21)];
            let finals = pos.legal_positions(dice);
            if finals.len() < 2 {
                continue;
            }
            decisions += 1;
            let mut r = ChaCha8Rng::seed_from_u64(1);
            let money = pick_with(Level::Hard, &mut r, &finals, Engine::default());
            let mut r = ChaCha8Rng::seed_from_u64(1);
            let win = pick_with(Level::Hard, &mut r, &finals, single);
            differ += usize::from(money != win);
            // Without gammons a backgammon is no worse than a single
            // loss: no play is searched for saving one.
            let statics: Vec<f64> = finals
                .iter()
                .map(|f| hard_static(f, Scoring::Single))
                .collect();
            let searched = hard_candidates(&finals, &statics, Scoring::Single);
            assert!(searched.len() <= HARD_NARDY_CANDIDATES);
            // Bear-off scores are the race's win chance alone.
            if let Some(s) = bearoff_scores(&finals, Scoring::Single) {
                for (f, v) in finals.iter().zip(s) {
                    let r = crate::bearoff::bg_after(f).unwrap();
                    assert!((v - (2.0 * r.win - 1.0)).abs() < 1e-12);
                }
            }
        }
        // Playing to win and playing for gammons part ways now and then
        // (32 of 213 decisions here), not never and not always.
        assert!(decisions > 200, "{decisions}");
        assert!(
            differ > decisions / 50 && differ < decisions / 2,
            "{differ} of {decisions}"
        );
    }

    #[test]
    fn hard_runs_from_a_backgammon_the_game_will_not_reach_in_its_search() {
        // Two decisions from gnubg's judgement (`scripts/gnubg-judge
        // --seed 1`) where Hard, with three checkers in the opponent's
        // home board and none off, played in its own home board: a
        // backgammon the opponent's last five or six checkers will not
        // finish within the search's two rolls, so only the network's
        // backgammon head sees it. gnubg's best plays run back checkers
        // (24/18 19/18 and 23/17); the home-board plays lost 0.28 and
        // 0.26 a game.
        let cases: [(&[(usize, i8)], &str); 2] = [
            (
                &[
                    (3, 1),
                    (4, 1),
                    (5, 2),
                    (6, 2),
                    (7, 2),
                    (8, 2),
                    (15, 1),
                    (17, 1),
                    (19, 1),
                    (24, 2),
                    (23, -3),
                    (22, -2),
                ],
                "6,1",
            ),
            (
                &[
                    (2, 2),
                    (3, 2),
                    (5, 2),
                    (6, 3),
                    (8, 2),
                    (13, 1),
                    (19, 1),
                    (23, 2),
                    (24, -5),
                    (22, -1),
                ],
                "2,4",
            ),
        ];
        for (points, dice) in cases {
            let mut b = [0i8; 26];
            for &(i, n) in points {
                b[i] = n;
            }
            let back = |b: &[i8; 26]| (19..=24).map(|i| b[i].max(0)).sum::<i8>();
            let pos = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
            let dice: Dice = dice.parse().unwrap();
            for seed in 0..2 {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let steps = choose(Level::Hard, &mut rng, &pos, dice);
                let mut after = b;
                for &(from, to) in &steps {
                    after[usize::from(from)] -= 1;
                    after[usize::from(to)] += 1;
                }
                assert!(
                    back(&after) < back(&b),
                    "{dice:?}: {steps:?} leaves every checker back"
                );
            }
        }
    }

    #[test]
    fn hard_runs_its_last_checker_out_of_the_backgammon() {
        // The opponent bears off its last two checkers with any roll; our
        // checker on 23, in its home board, makes that a backgammon (3)
        // unless the 5 takes it out: a gammon (2). The network alone
        // cannot tell them apart; the finished games in the look-ahead do.
        let mut b = [0i8; 26];
        b[23] = 1;
        b[6] = 14;
        b[24] = -2;
        // And as in a game gnubg judged, with two checkers back, the
        // network ranking the plays that save them below its first eight.
        let mut two_back = [0i8; 26];
        for (i, n) in [
            (2, 2),
            (3, 2),
            (5, 2),
            (6, 3),
            (8, 2),
            (13, 1),
            (17, 1),
            (19, 1),
            (23, 1),
        ] {
            two_back[i] = n;
        }
        two_back[24] = -2;
        let dice: Dice = "5,1".parse().unwrap();
        for (b, seed) in [(b, 0), (b, 1), (two_back, 0), (two_back, 1)] {
            let pos = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let steps = choose(Level::Hard, &mut rng, &pos, dice);
            let mut after = b;
            for (from, to) in steps {
                after[usize::from(from)] -= 1;
                after[usize::from(to)] += 1;
            }
            assert!(
                (19..=24).all(|i| after[i] <= 0),
                "seed {seed}: {:?} leaves a checker back",
                choose(
                    Level::Hard,
                    &mut ChaCha8Rng::seed_from_u64(seed),
                    &pos,
                    dice
                )
            );
        }
    }

    #[test]
    fn the_second_look_takes_only_close_plays_that_fit_the_budget() {
        // Enough positions for three costly plays (below).
        const SAMPLE: usize = 400;
        let net = net::Net::shipped();
        let mut buf = Vec::new();
        let mut by_cost: Vec<(usize, Position)> = search::sample(net, SAMPLE, 0.3, 5)
            .into_iter()
            .map(|p| (search::two_ply_cost(&p, &mut buf), p))
            .collect();
        by_cost.sort_by_key(|&(c, _)| c);
        let cost = |k: usize| by_cost[k].0;
        // Five cheap plays (four fit together) and three costly ones: the
        // costliest, the costliest that fits with it and a cheap one, and
        // the costliest before that which does not fit with those two.
        // (No two of the sampled plays together pass the budget.)
        assert!((0..4).map(cost).sum::<usize>() <= HARD_BG_DEEP_BUDGET);
        let a = SAMPLE - 1;
        let b = (5..a)
            .rev()
            .find(|&k| cost(a) + cost(k) + cost(0) <= HARD_BG_DEEP_BUDGET)
            .unwrap();
        let c = (5..b)
            .rev()
            .find(|&k| cost(a) + cost(b) + cost(k) > HARD_BG_DEEP_BUDGET)
            .unwrap();
        let finals: Vec<Position> = [0, 1, 2, 3, 4, c, b, a]
            .iter()
            .map(|&k| by_cost[k].1)
            .collect();
        let judged = |deep: &[f64], ranked: &[usize]| -> Option<Vec<usize>> {
            let two = two_ply_scores(&finals, deep, ranked, Scoring::Gammons)?;
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for &(i, v) in &two {
                let mut budget = usize::MAX;
                let exact = search::two_ply(
                    net,
                    &finals[i],
                    &mut a,
                    &mut b,
                    &mut budget,
                    Scoring::Gammons,
                );
                assert_eq!(Some(v as f32), exact, "play {i}: not two_ply's score");
            }
            Some(two.into_iter().map(|(i, _)| i).collect())
        };
        // Close and within the budget: the best four, best first, each
        // scored exactly as two_ply scores it; never a fifth.
        let level = [0.0, -0.01, -0.02, -0.03, -0.04, -0.05, -0.06, -0.07];
        assert_eq!(judged(&level, &[4, 3, 2, 1, 0]), Some(vec![4, 3, 2, 1]));
        // Plays farther than the margin below the best are not judged.
        let spread = [0.0, -0.1, -0.25, -0.15, 0.0, 0.0, 0.0];
        assert_eq!(judged(&spread, &[0, 1, 3, 2]), Some(vec![0, 1, 3]));
        assert_eq!(judged(&[0.0, -0.21], &[0, 1]), None);
        // As many as fit, best first: the first play past the budget ends
        // the list (a cheaper one after it is not judged).
        assert_eq!(judged(&level, &[7, 6, 5, 0]), Some(vec![7, 6]));
        assert_eq!(judged(&level, &[7, 6, 0, 5]), Some(vec![7, 6, 0]));
        // One play alone has nothing to compare.
        assert_eq!(judged(&[0.0], &[0]), None);
    }
}
