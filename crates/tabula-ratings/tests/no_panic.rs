//! No input makes the crate panic, and every input inside lichess's bounds
//! gives a rating inside them.

use proptest::prelude::*;
use tabula_ratings::{
    GameResult, Glicko, Glicko2, MAX_MATCH_LENGTH, MatchLength, Opponent, Outcome, PlayerRating,
    RatingSystem, Score, lichess,
};

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        proptest::num::f64::ANY,
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(0.0),
        -1e4..1e4,
    ]
}

fn any_player() -> impl Strategy<Value = PlayerRating> {
    (
        any_f64(),
        any_f64(),
        any_f64(),
        any::<u32>(),
        proptest::option::of(any::<i64>()),
    )
        .prop_map(
            |(rating, deviation, volatility, games, last_rated_at_ms)| PlayerRating {
                rating,
                deviation,
                volatility,
                games,
                last_rated_at_ms,
            },
        )
}

const T0: i64 = 1_750_000_000_000;
const YEARS: i64 = 10 * 365 * 86_400_000;

fn sane_player() -> impl Strategy<Value = PlayerRating> {
    (
        lichess::MIN_RATING..=lichess::MAX_RATING,
        lichess::MIN_DEVIATION..=lichess::MAX_DEVIATION,
        0.000_1..=lichess::MAX_VOLATILITY,
        any::<u32>(),
        proptest::option::of(T0 - YEARS..=T0),
    )
        .prop_map(
            |(rating, deviation, volatility, games, last_rated_at_ms)| PlayerRating {
                rating,
                deviation,
                volatility,
                games,
                last_rated_at_ms,
            },
        )
}

fn any_outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        Just(Outcome::FirstWins),
        Just(Outcome::SecondWins),
        Just(Outcome::Draw)
    ]
}

fn in_bounds(p: &PlayerRating) -> bool {
    let s = RatingSystem::LICHESS;
    (s.min_rating..=s.max_rating).contains(&p.rating)
        && (s.min_deviation..=s.max_deviation).contains(&p.deviation)
        && p.volatility > 0.0
        && p.volatility <= s.max_volatility
}

proptest! {
    #[test]
    fn rating_a_game_never_panics(
        a in any_player(),
        b in any_player(),
        outcome in any_outcome(),
        points in prop_oneof![any::<u32>(), 0..=MAX_MATCH_LENGTH + 1],
        now in any::<i64>(),
    ) {
        let system = RatingSystem::LICHESS;
        if let Ok(length) = MatchLength::new(points) {
            if let Ok(rated) = system.rate_game(&a, &b, outcome, length, now) {
                prop_assert!(in_bounds(&rated.first) && in_bounds(&rated.second));
            }
            let _ = system.expected_score(&a, &b, length, now);
        }
        let _ = system.live_deviation(&a, now);
        let _ = system.standing(&a, now);
        let _ = system.ranked_until_ms(&b);
    }

    #[test]
    fn every_game_inside_the_bounds_is_rated_inside_them(
        a in sane_player(),
        b in sane_player(),
        outcome in any_outcome(),
        points in 1..=MAX_MATCH_LENGTH,
        after in 0..YEARS,
    ) {
        let system = RatingSystem::LICHESS;
        let now = T0 + after;
        let length = MatchLength::new(points).unwrap();
        let rated = system.rate_game(&a, &b, outcome, length, now).unwrap();
        prop_assert!(in_bounds(&rated.first), "{:?}", rated.first);
        prop_assert!(in_bounds(&rated.second), "{:?}", rated.second);
        prop_assert!(rated.first_diff.abs() <= 701 && rated.second_diff.abs() <= 701);
        // The winner never loses points, the loser never gains.
        match outcome {
            Outcome::FirstWins => prop_assert!(rated.first_diff >= 0 && rated.second_diff <= 0),
            Outcome::SecondWins => prop_assert!(rated.first_diff <= 0 && rated.second_diff >= 0),
            Outcome::Draw => {}
        }
        let standing = system.standing(&rated.first, now).unwrap();
        prop_assert_eq!(standing.games, a.games.saturating_add(1));
    }

    #[test]
    fn the_papers_algorithm_never_panics(
        rating in any_f64(),
        deviation in any_f64(),
        volatility in any_f64(),
        tau in any_f64(),
        elapsed in any_f64(),
        results in proptest::collection::vec(
            (any_f64(), any_f64(), 0.0..=1.0f64, 1..=MAX_MATCH_LENGTH),
            0..6,
        ),
    ) {
        let player = Glicko { rating, deviation, volatility };
        let results: Vec<GameResult> = results
            .into_iter()
            .map(|(rating, deviation, score, points)| {
                GameResult::matched(
                    Opponent { rating, deviation },
                    Score::new(score).unwrap(),
                    MatchLength::new(points).unwrap(),
                )
            })
            .collect();
        if let Ok(system) = Glicko2::new(tau) {
            if let Ok(new) = system.rate_with_elapsed(&player, &results, elapsed) {
                prop_assert!(new.validate().is_ok(), "{:?}", new);
            }
            let _ = system.idle(&player, elapsed);
        }
    }
}
