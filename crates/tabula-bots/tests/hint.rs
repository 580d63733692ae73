//! Hints: every legal play ranked, Hard's choice first, rollouts paired and
//! reproducible.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::Rng;
use tabula_backgammon::Scoring;
use tabula_bots::bg::HARD_BG_DEEP_CANDIDATES;
use tabula_bots::{Bot, HARD_NARDY_CANDIDATES, Level, hint};
use tabula_dice::{Dice, DiceSource, SeededDice};

/// A cancel flag never set.
static NO: AtomicBool = AtomicBool::new(false);

/// Positions from random games with a roll each (every `every`-th ply).
fn bg_positions(seed: u64, games: usize, every: usize) -> Vec<(tabula_backgammon::Position, Dice)> {
    let mut dice = SeededDice::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = tabula_backgammon::Position::initial();
        let mut ply = 0;
        while !pos.is_over() {
            let roll = dice.roll();
            if ply % every == 0 {
                out.push((pos, roll));
            }
            ply += 1;
            let finals = pos.legal_positions(roll);
            if finals.is_empty() {
                pos = pos.pass_turn();
                continue;
            }
            let next = finals[dice.rng().random_range(0..finals.len())];
            if next.is_over() {
                break;
            }
            pos = next.pass_turn();
        }
    }
    out
}

fn long_positions(seed: u64, games: usize, every: usize) -> Vec<(tabula_long::Position, Dice)> {
    let mut dice = SeededDice::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = tabula_long::Position::initial();
        let mut ply = 0;
        while !pos.is_game_over() {
            let roll = dice.roll();
            if ply % every == 0 {
                out.push((pos, roll));
            }
            ply += 1;
            let finals = pos.legal_moves(roll);
            pos = if finals.is_empty() {
                pos.pass_turn()
            } else {
                finals[dice.rng().random_range(0..finals.len())]
            };
        }
    }
    out
}

/// Ties aside, the first of `hints` (estimates, no rollouts) is the play
/// Hard makes for `scoring`; nothing to check when there is no play.
fn assert_first_is_hards(
    pos: &tabula_backgammon::Position,
    dice: Dice,
    hints: &[hint::Hint<Vec<(u8, u8)>>],
    scoring: Scoring,
) {
    let Some(first) = hints.first() else {
        return;
    };
    let steps = |p: &[(u8, u8)]| {
        let mut v = p.to_vec();
        v.sort_unstable();
        v
    };
    let hard = Bot::new(Level::Hard, 1)
        .with_backgammon_scoring(scoring)
        .choose_play(tabula_bots::Position::Backgammon(pos), Some(dice))
        .and_then(tabula_bots::Play::into_backgammon)
        .unwrap_or_default();
    assert!(
        hints
            .iter()
            .filter(|h| h.score == first.score)
            .any(|h| steps(&h.play) == steps(&hard)),
        "{pos} {dice} ({scoring:?}): {hard:?} vs {first:?}"
    );
}

#[test]
fn backgammon_hints_rank_every_play_with_hards_choice_first() {
    for (pos, dice) in bg_positions(11, 3, 5) {
        let hints = hint::backgammon(&pos, dice, Scoring::Gammons, 0, 1);
        assert_eq!(hints.len(), pos.legal_plays(dice).len(), "{pos} {dice}");
        if hints.is_empty() {
            continue;
        }
        assert_first_is_hards(&pos, dice, &hints, Scoring::Gammons);
        for h in &hints {
            assert!((0.0..=1.0).contains(&h.win), "{h:?}");
            assert_eq!(h.rollouts, 0);
            // Without rollouts the equity is the network's (gammons
            // counted), or the points of a game the play ends.
            assert!(h.equity == h.score || h.win == 0.0 || h.win == 1.0, "{h:?}");
            assert!((-3.0..=3.0).contains(&h.equity), "{h:?}");
        }
        // The deep-scored candidates come first, in order: the few judged
        // two rolls ahead (none, or two to HARD_BG_DEEP_CANDIDATES), then
        // the rest of those judged one roll ahead.
        let deep = hints.len().min(HARD_NARDY_CANDIDATES);
        let sorted =
            |h: &[hint::Hint<Vec<(u8, u8)>>]| h.windows(2).all(|w| w[0].score >= w[1].score);
        assert!(
            std::iter::once(0)
                .chain(2..=deep.min(HARD_BG_DEEP_CANDIDATES))
                .any(|two| sorted(&hints[..two]) && sorted(&hints[two..deep])),
            "{pos} {dice}: {hints:?}"
        );
    }
}

#[test]
fn backgammon_hints_count_gammons_only_where_the_game_does() {
    let mut beyond_one = 0;
    for (pos, dice) in bg_positions(12, 2, 7) {
        let single = hint::backgammon(&pos, dice, Scoring::Single, 4, 1);
        let money = hint::backgammon(&pos, dice, Scoring::Gammons, 4, 1);
        assert_eq!(single.len(), money.len());
        for h in &single {
            // One point a game: estimates and rollouts within ±1 (the
            // look-ahead's f32 sums to a few units in the last place).
            let one = -1.0 - 1e-5..=1.0 + 1e-5;
            assert!(one.contains(&h.equity), "{pos} {dice}: {h:?}");
            assert!(one.contains(&h.score), "{pos} {dice}: {h:?}");
        }
        beyond_one += money.iter().filter(|h| h.equity.abs() > 1.0).count();
        // Without rollouts the first hint is the play Hard makes for the
        // same scoring (ties aside), under single scoring as with gammons.
        let estimates = hint::backgammon(&pos, dice, Scoring::Single, 0, 1);
        assert_first_is_hards(&pos, dice, &estimates, Scoring::Single);
    }
    assert!(
        beyond_one > 0,
        "gammons never counted with Scoring::Gammons"
    );
}

#[test]
fn rollouts_rerank_the_best_candidates_reproducibly() {
    let pos = tabula_backgammon::Position::initial();
    let dice: Dice = "4,3".parse().unwrap();
    let a = hint::backgammon(&pos, dice, Scoring::Gammons, 16, 7);
    let b = hint::backgammon(&pos, dice, Scoring::Gammons, 16, 7);
    assert_eq!(a, b, "the same seed gives the same hints");
    let rolled: Vec<_> = a.iter().filter(|h| h.rollouts == 16).collect();
    assert_eq!(rolled.len(), hint::HINT_ROLLOUT_CANDIDATES);
    assert!(
        a[..rolled.len()].iter().all(|h| h.rollouts == 16),
        "rolled out first"
    );
    assert!(rolled.windows(2).all(|w| w[0].equity >= w[1].equity));
    for h in &rolled {
        assert!((-3.0..=3.0).contains(&h.equity), "{h:?}");
        assert!((0.0..=1.0).contains(&h.win), "{h:?}");
    }
}

#[test]
fn a_cancelled_hint_stops_within_a_rollout_and_gives_nothing() {
    // Set before it starts: nothing is rolled out, nothing comes back.
    let set = AtomicBool::new(true);
    let pos = tabula_backgammon::Position::initial();
    let dice: Dice = "4,3".parse().unwrap();
    assert!(hint::backgammon_after(&pos, dice, &[], Scoring::Gammons, 64, 7, &set).is_empty());
    let long = tabula_long::Position::initial();
    assert!(hint::long_nardy_after(&long, dice, &[], 64, 7, &set).is_empty());
    // Not set, the same call answers in full.
    assert!(!hint::backgammon_after(&pos, dice, &[], Scoring::Gammons, 2, 7, &NO).is_empty());

    // Set while it runs (256 rollouts of 4 candidates: seconds of work;
    // the flag is raised 20 ms in), it stops there and gives nothing.
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let watcher = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        f.store(true, Ordering::Relaxed);
    });
    let out = hint::long_nardy_after(&long, dice, &[], 256, 7, &flag);
    watcher.join().unwrap();
    assert!(out.is_empty());
}

#[test]
fn long_nardy_hints_are_legal_complete_plays_best_first() {
    for (pos, dice) in long_positions(5, 2, 9) {
        let hints = hint::long_nardy(&pos, dice, 4, 3);
        assert_eq!(hints.len(), pos.legal_moves(dice).len(), "{pos} {dice}");
        for h in &hints {
            let mut turn = pos.turn_with(dice);
            for s in &h.play {
                turn.play_step(*s)
                    .unwrap_or_else(|e| panic!("{s} in {pos} {dice}: {e}"));
            }
            assert!(
                turn.finish().is_ok(),
                "{:?} is incomplete in {pos} {dice}",
                h.play
            );
        }
        if let Some(first) = hints.first()
            && hints.len() > 1
        {
            assert!(first.rollouts == 4, "the best are rolled out: {first:?}");
        }
    }
}

#[test]
fn a_winning_play_is_the_first_hint() {
    // White's last two checkers on its 6- and 1-points: 6-1 bears both off
    // (a win), other plays with 6-1 do not.
    let mut b = [0i8; 26];
    b[6] = 1;
    b[1] = 1;
    b[19] = -15;
    let pos = tabula_backgammon::Position::from_board(b, tabula_backgammon::Side::White).unwrap();
    let dice = Dice::new(6, 1).unwrap();
    let hints = hint::backgammon(&pos, dice, Scoring::Gammons, 8, 1);
    assert!(hints.len() > 1, "{hints:?}");
    let mut first = hints[0].play.clone();
    first.sort_unstable();
    assert_eq!(first, vec![(1, 0), (6, 0)], "{hints:?}");
    assert_eq!(hints[0].win, 1.0);
    // Black has all fifteen back: a gammon (2 points).
    assert_eq!(hints[0].equity, 2.0, "{:?}", hints[0]);
}

#[test]
fn mid_turn_hints_rank_the_ways_to_finish_the_turn() {
    // Backgammon: after the first step of every whole play, the hints are
    // the distinct ways to finish (each completes the turn, at a final
    // position some whole play reaches), and the rest of that play is one.
    let mut checked = 0;
    for (pos, dice) in bg_positions(21, 2, 4) {
        let whole = hint::backgammon(&pos, dice, Scoring::Gammons, 0, 1);
        let finals: std::collections::HashSet<_> =
            pos.legal_plays(dice).into_iter().map(|(_, f)| f).collect();
        assert_eq!(
            hint::backgammon_after(&pos, dice, &[], Scoring::Gammons, 0, 1, &NO),
            whole
        );
        for h in whole.iter().filter(|h| h.play.len() >= 2).take(3) {
            let first = h.play[0];
            let rest = hint::backgammon_after(&pos, dice, &[first], Scoring::Gammons, 0, 1, &NO);
            assert!(!rest.is_empty(), "{pos} {dice} after {first:?}");
            let mut seen = std::collections::HashSet::new();
            for r in &rest {
                let mut t = tabula_backgammon::Turn::new(&pos, dice);
                t.step_to(first.0, first.1).unwrap();
                for &(f, to) in &r.play {
                    t.step_to(f, to).unwrap();
                }
                let fin = t.finish().unwrap();
                assert!(
                    finals.contains(&fin) && seen.insert(fin),
                    "{pos} {dice}: {r:?}"
                );
            }
            let mut t = tabula_backgammon::Turn::new(&pos, dice);
            for &(f, to) in &h.play {
                t.step_to(f, to).unwrap();
            }
            let target = t.finish().unwrap();
            assert!(rest.iter().any(|r| {
                let mut u = tabula_backgammon::Turn::new(&pos, dice);
                u.step_to(first.0, first.1).unwrap();
                r.play.iter().all(|&(f, to)| u.step_to(f, to).is_ok())
                    && u.finish().unwrap() == target
            }));
            checked += 1;
        }
        // Steps that are not a legal start give nothing (no panic).
        assert!(
            hint::backgammon_after(&pos, dice, &[(0, 0)], Scoring::Gammons, 0, 1, &NO).is_empty()
        );
    }
    assert!(checked > 20, "{checked}");

    // Long nardy: the same, by final position.
    let mut checked = 0;
    for (pos, dice) in long_positions(5, 2, 5) {
        let whole = hint::long_nardy(&pos, dice, 0, 1);
        let finals = pos.legal_moves(dice);
        for h in whole.iter().filter(|h| h.play.len() >= 2).take(3) {
            let rest = hint::long_nardy_after(&pos, dice, &h.play[..1], 0, 1, &NO);
            assert!(!rest.is_empty());
            let mut reached = Vec::new();
            for r in &rest {
                let mut t = tabula_long::Turn::new(&pos, dice);
                t.play_step(h.play[0]).unwrap();
                for &st in &r.play {
                    t.play_step(st).unwrap();
                }
                let fin = t.finish().unwrap();
                assert!(finals.contains(&fin) && !reached.contains(&fin), "{r:?}");
                reached.push(fin);
            }
            let mut t = tabula_long::Turn::new(&pos, dice);
            for &st in &h.play {
                t.play_step(st).unwrap();
            }
            assert!(reached.contains(&t.finish().unwrap()));
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked}");
}
