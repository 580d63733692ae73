//! Property tests over seeded random play.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_thud::{CaptureRule, Move, Round, Seat, Variant};

fn rule(classic: bool) -> CaptureRule {
    if classic {
        CaptureRule::Classic
    } else {
        CaptureRule::Zrf
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every generated move is accepted by `play`, its notation round-trips
    /// (as a bare move and through `parse_move`), and pieces only ever
    /// decrease, by exactly the move's captures.
    #[test]
    fn generated_moves_are_playable_round_trip_and_only_remove_pieces(
        seed in any::<u64>(), classic in any::<bool>(), plies in 1usize..160,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut p = tabula_thud::Position::start_with(rule(classic));
        for _ in 0..plies {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            for m in &moves {
                let text = m.to_string();
                prop_assert_eq!(text.parse::<Move>().unwrap(), *m, "{}", text);
                prop_assert_eq!(p.parse_move(&text).unwrap(), *m);
                let next = p.play(m).unwrap();
                let before = p.dwarfs().len() + p.trolls().len();
                let after = next.dwarfs().len() + next.trolls().len();
                prop_assert_eq!(before - after, m.capture_count());
                prop_assert!(next.dwarfs().len() <= p.dwarfs().len());
                prop_assert!(next.trolls().len() <= p.trolls().len());
                prop_assert_eq!(next.turn(), p.turn().opponent());
            }
            let m = moves[rng.random_range(0..moves.len())];
            p.play_unchecked(&m);
        }
    }

    /// With a plies-without-capture limit every random round ends, never past
    /// the limit, within (pieces + 1) × limit plies.
    #[test]
    fn random_rounds_end_under_the_plies_limit(
        seed in any::<u64>(), classic in any::<bool>(), limit in 1u32..120,
    ) {
        let v = Variant { capture_rule: rule(classic), max_plies_without_capture: Some(limit) };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut r = Round::new(v, Seat::First);
        let bound = 41 * limit as usize;
        let mut count = 0;
        while !r.is_over() {
            prop_assert!(count <= bound);
            let moves = r.position().legal_moves();
            let m = moves[rng.random_range(0..moves.len())];
            let seat = r.to_move();
            r.play(seat, &m).unwrap();
            prop_assert!(r.position().plies_since_capture() <= limit);
            count += 1;
        }
        let res = r.result().unwrap();
        prop_assert_eq!(res.plies as usize, count);
        prop_assert_eq!(res.score, r.position().score());
    }
}
