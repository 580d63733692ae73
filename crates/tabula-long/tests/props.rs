//! Property tests over seeded random self-play (thousands of games per run).

mod common;

use std::collections::BTreeSet;

use proptest::prelude::*;
use rand::Rng;
use tabula_dice::{Dice, DiceSource, SeededDice};
use tabula_long::{
    CHECKERS, Color, Opening, Position, PrimeRule, Scoring, Sequence, Turn, Variant, decide_opening,
};

/// Ample: a random game takes a few hundred plies.
const MAX_PLIES: u32 = 3000;

fn any_variant() -> impl Strategy<Value = Variant> {
    (0..3usize, 0..2usize, 0..3usize).prop_map(|(o, p, s)| Variant {
        opening: [
            Opening::OpeningRollPlays,
            Opening::OpeningRollRerolls,
            Opening::WhiteFirst,
        ][o],
        prime_rule: [PrimeRule::OpponentAhead, PrimeRule::OpponentHome][p],
        scoring: [Scoring::OinMarsKoks, Scoring::OinMars, Scoring::Single][s],
    })
}

fn check_position(p: &Position) -> Result<(), TestCaseError> {
    for c in [Color::White, Color::Black] {
        let on_board: u32 = (1..=24u8).map(|q| u32::from(p.checkers(c, q))).sum();
        prop_assert_eq!(
            on_board + u32::from(p.off(c)),
            u32::from(CHECKERS),
            "{} in {}",
            c,
            p
        );
    }
    for q in 1..=24u8 {
        prop_assert!(
            p.checkers(Color::White, q) == 0 || p.checkers(Color::Black, q) == 0,
            "point {} shared in {}",
            q,
            p
        );
    }
    Ok(())
}

/// Plays one random game, calling `each` with the position and roll of
/// every ply; returns the number of plies and whether it ended.
fn play(
    seed: u64,
    v: Variant,
    mut each: impl FnMut(&Position, Dice, &[Position]) -> Result<(), TestCaseError>,
) -> Result<(u32, Position), TestCaseError> {
    let mut dice = SeededDice::new(seed);
    let o = decide_opening(v.opening, &mut dice);
    let mut pos = Position::new_game(v, o.starter);
    let mut pending = o.first_roll;
    let mut plies = 0;
    while !pos.is_game_over() && plies < MAX_PLIES {
        let d = pending.take().unwrap_or_else(|| dice.roll());
        let finals = pos.legal_moves(d);
        each(&pos, d, &finals)?;
        let i = dice.rng().random_range(0..finals.len());
        pos = finals[i];
        plies += 1;
    }
    Ok((plies, pos))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Checkers are conserved, no point holds both colours, finals are
    /// distinct and pass the turn, and every game ends.
    #[test]
    fn selfplay_keeps_the_invariants_and_always_ends(seed in any::<u64>(), v in any_variant()) {
        let (plies, last) = play(seed, v, |pos, _d, finals| {
            check_position(pos)?;
            prop_assert!(!finals.is_empty());
            let distinct: BTreeSet<_> = finals.iter().map(|f| f.to_string()).collect();
            prop_assert_eq!(distinct.len(), finals.len());
            for f in finals {
                check_position(f)?;
                prop_assert_eq!(f.turn(), pos.turn().other());
                prop_assert!(!f.is_first_turn(pos.turn()));
                // The mover's checkers only move forward: pips never grow.
                prop_assert!(f.pip_count(pos.turn()) <= pos.pip_count(pos.turn()));
                prop_assert_eq!(f.pip_count(pos.turn().other()), pos.pip_count(pos.turn().other()));
            }
            Ok(())
        })?;
        prop_assert!(last.is_game_over(), "not over after {} plies", plies);
        let o = last.outcome().unwrap();
        prop_assert_eq!(last.off(o.winner), CHECKERS);
        prop_assert!((1..=3).contains(&o.points));
    }
}

/// Walks every path the step validator accepts; collects the complete
/// sequences and their finishing positions.
fn walk(t: &Turn, out: &mut Vec<(Sequence, Position)>) -> Result<(), TestCaseError> {
    if t.is_complete() {
        prop_assert!(t.legal_steps().is_empty());
        out.push((Sequence(t.played().to_vec()), t.finish().unwrap()));
        return Ok(());
    }
    let steps = t.legal_steps();
    prop_assert!(!steps.is_empty());
    for s in steps {
        let mut next = t.clone();
        prop_assert!(
            next.play_step(s).is_ok(),
            "{} refused after {:?}",
            s,
            t.played()
        );
        walk(&next, out)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Every listed sequence replays step by step through the validator
    /// (and nothing else does), no non-winning sequence plays fewer than
    /// `max_dice` dice, and every distinct final is reached.
    #[test]
    fn sequences_replay_through_the_step_validator(seed in any::<u64>(), v in any_variant()) {
        let mut ply = 0u32;
        play(seed, v, |pos, d, finals| {
            ply += 1;
            if !ply.is_multiple_of(3) {
                return Ok(());
            }
            let m = pos.moves(d);
            let listed: BTreeSet<String> = m.sequences.iter().map(|s| s.to_string()).collect();
            prop_assert_eq!(listed.len(), m.sequences.len());
            for s in &m.sequences {
                let after = pos.play_unchecked(s.steps());
                if !after.is_game_over() {
                    prop_assert_eq!(s.len(), usize::from(m.max_dice), "{}", s);
                }
                prop_assert!(s.len() <= usize::from(m.max_dice));
            }
            let mut walked = Vec::new();
            walk(&Turn::new(pos, d), &mut walked)?;
            let walked_seqs: BTreeSet<String> = walked
                .iter()
                .filter(|(s, _)| !s.is_empty())
                .map(|(s, _)| s.to_string())
                .collect();
            prop_assert_eq!(&walked_seqs, &listed);
            let reached: BTreeSet<String> = walked.iter().map(|(_, p)| p.to_string()).collect();
            let fast: BTreeSet<String> = finals.iter().map(|f| f.to_string()).collect();
            let full: BTreeSet<String> = m.finals.iter().map(|f| f.position.to_string()).collect();
            prop_assert_eq!(&reached, &fast);
            prop_assert_eq!(&full, &fast);
            let first: BTreeSet<String> = m.first_steps().iter().map(|s| s.to_string()).collect();
            let from_turn: BTreeSet<String> =
                Turn::new(pos, d).legal_steps().iter().map(|s| s.to_string()).collect();
            prop_assert_eq!(first, from_turn);
            // After the first step too: one continuation per distinct
            // final position, the first of `continuations` to reach it.
            let mut t = Turn::new(pos, d);
            for turn in [t.clone(), {
                if let Some(s) = t.legal_steps().first().copied() {
                    t.play_step(s).unwrap();
                }
                t
            }] {
                let now = turn.position();
                let mut finals = std::collections::HashSet::new();
                let expected: Vec<Sequence> = turn
                    .continuations()
                    .into_iter()
                    .filter(|c| finals.insert(now.play_unchecked(c.steps())))
                    .collect();
                // The texts a node sends are those sequences' notation.
                let texts: Vec<String> = expected.iter().map(|c| c.to_string()).collect();
                prop_assert_eq!(turn.continuation_texts_by_result(), texts);
                prop_assert_eq!(turn.continuations_by_result(), expected);
            }
            Ok(())
        })?;
    }
}
