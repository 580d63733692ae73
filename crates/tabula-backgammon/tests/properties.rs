//! Property tests over random self-play: checkers are conserved, the fast
//! generator agrees with the independent reference generator, every play
//! replays step by step through the validator using max_dice dice, and
//! games end.

use std::collections::HashSet;

use proptest::prelude::*;
use tabula_backgammon::*;
use tabula_dice::{Dice, SeededDice};

fn conserved(p: &Position) -> bool {
    [Side::White, Side::Black].iter().all(|&s| {
        let on: u32 = (1..=25u8).map(|pt| u32::from(p.checkers(s, pt))).sum();
        on + u32::from(p.off(s)) == 15
    })
}

/// Full check of one (position, roll) against the reference generator.
fn check_against_reference(p: &Position, d: Dice, finals: &[Position]) {
    let max = p.max_dice(d);
    let plays = p.legal_plays(d);
    let fast: HashSet<[i8; 26]> = finals.iter().map(|f| *f.board()).collect();
    assert_eq!(fast.len(), finals.len(), "duplicate results for {p:?} {d}");
    if max == 0 {
        assert!(plays.is_empty());
        assert_eq!(finals, &[*p][..]);
        return;
    }
    let reference: HashSet<[i8; 26]> = plays.iter().map(|(_, f)| *f.board()).collect();
    assert_eq!(fast, reference, "fast and reference disagree for {p:?} {d}");
    for (play, f) in &plays {
        assert_eq!(play.dice_used(), max, "{play} uses fewer dice than {max}");
        // Replays one step at a time through the validator.
        let mut t = Turn::new(p, d);
        for s in play.steps() {
            t.step(s.from(), s.die()).unwrap();
        }
        assert_eq!(t.finish().unwrap(), *f);
        assert_eq!(p.play(d, play).unwrap(), *f);
        assert_eq!(p.play_unchecked(play), *f);
        // Notation reads back to the same result.
        let text = play.to_string();
        assert_eq!(p.parse_result(d, &text).unwrap(), *f, "{text}");
    }
    if let Some((play, f)) = plays.first() {
        let parsed = p.parse_play(d, &play.to_string()).unwrap();
        assert_eq!(p.play(d, &parsed).unwrap(), *f);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// 64 cases x 40 games: conservation, distinct results, games end.
    #[test]
    fn random_games_conserve_checkers_and_end(seed in any::<u64>()) {
        let mut dice = SeededDice::new(seed);
        for _ in 0..40 {
            let summary = random_game(&mut dice, &Options::default(), 5_000, |p, _, finals| {
                assert!(conserved(p));
                assert!(!finals.is_empty());
                for f in finals {
                    assert!(conserved(f));
                    assert_eq!(f.turn(), p.turn());
                }
            });
            prop_assert!(summary.is_some(), "a random game did not end");
        }
    }

    /// Every 2nd turn of 6 games per case: the full reference comparison.
    #[test]
    fn generated_plays_match_reference_and_replay(seed in any::<u64>()) {
        let mut dice = SeededDice::new(seed);
        let mut n = 0u32;
        for _ in 0..6 {
            random_game(&mut dice, &Options::with_scoring(Scoring::Gammons), 5_000, |p, d, finals| {
                n += 1;
                if n.is_multiple_of(2) {
                    check_against_reference(p, d, finals);
                }
            });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// From a turn's start and after its first step, `completions` lists
    /// each reachable final position once, every rest replays step by
    /// step to it, and from the start they are exactly the legal finals.
    #[test]
    fn completions_are_the_distinct_ways_to_finish(seed in any::<u64>()) {
        let mut dice = SeededDice::new(seed);
        let mut n = 0u32;
        random_game(&mut dice, &Options::default(), 5_000, |p, d, finals| {
            n += 1;
            if !n.is_multiple_of(3) {
                return;
            }
            let turn = Turn::new(p, d);
            let whole = turn.completions();
            let got: HashSet<Position> = whole.iter().map(|(_, f)| *f).collect();
            assert_eq!(got.len(), whole.len(), "{p} {d}: a final listed twice");
            let want: HashSet<Position> = finals.iter().copied().collect();
            assert_eq!(got, want, "{p} {d}");
            if let Some((rest, _)) = whole.iter().find(|(r, _)| r.len() >= 2) {
                let mut t = turn.clone();
                t.step(rest[0].from(), rest[0].die()).unwrap();
                let after = t.completions();
                assert!(!after.is_empty());
                for (steps, fin) in &after {
                    assert!(want.contains(fin), "{p} {d}: {fin} is no legal final");
                    let mut u = t.clone();
                    for s in steps {
                        u.step(s.from(), s.die()).unwrap();
                    }
                    assert_eq!(u.finish().unwrap(), *fin);
                }
            }
        });
    }
}

#[test]
fn all_21_rolls_from_the_opening_match_reference() {
    let p = Position::initial();
    for d in Dice::ALL_21 {
        check_against_reference(&p, d, &p.legal_positions(d));
    }
}
