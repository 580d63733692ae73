use super::*;
use crate::glicko2::Opponent;

const LICHESS: RatingSystem = RatingSystem::LICHESS;
const DAY: i64 = MS_PER_DAY;
const T0: i64 = 1_750_000_000_000;

fn player(rating: f64, deviation: f64, volatility: f64) -> PlayerRating {
    PlayerRating {
        rating,
        deviation,
        volatility,
        games: 10,
        last_rated_at_ms: None,
    }
}

fn assert_near(got: f64, want: f64, tolerance: f64, what: &str) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want} ± {tolerance}"
    );
}

fn game(a: PlayerRating, b: PlayerRating, outcome: Outcome) -> RatedGame {
    LICHESS
        .rate_game(&a, &b, outcome, MatchLength::ONE, T0)
        .unwrap()
}

#[test]
fn a_new_player_starts_at_1500_with_deviation_500_and_is_provisional() {
    let new = LICHESS.new_player();
    assert_eq!(
        (new.rating, new.deviation, new.volatility),
        (1500.0, 500.0, 0.09)
    );
    assert_eq!((new.games, new.last_rated_at_ms), (0, None));
    assert!(LICHESS.is_provisional(LICHESS.live_deviation(&new, T0).unwrap()));
    assert_eq!(RatingSystem::default(), LICHESS);
    LICHESS.validate().unwrap();
}

/// The figures of scalachess's own calculator tests
/// (`GlickoCalculatorTest`: τ 0.75, one game, no deviation increase),
/// to the precision they assert.
#[test]
fn matches_lichesss_calculator_on_its_published_cases() {
    // Two new lichess players: the winner 1741, the loser 1258, both
    // deviations 396, volatility 0.0899983.
    let new = LICHESS.new_player();
    let won = game(new, new, Outcome::FirstWins);
    assert_near(won.first.rating, 1741.0, 1.0, "winner");
    assert_near(won.second.rating, 1258.0, 1.0, "loser");
    assert_near(won.first.deviation, 396.0, 1.0, "RD");
    assert_near(won.second.deviation, 396.0, 1.0, "RD");
    assert_near(won.first.volatility, 0.089_998_3, 0.000_000_1, "σ");
    assert_eq!((won.first_diff, won.second_diff), (241, -242));

    // 1500/350/0.06 each.
    let p = player(1500.0, 350.0, 0.06);
    let won = game(p, p, Outcome::SecondWins);
    assert_near(won.first.rating, 1337.79, 0.005, "loser");
    assert_near(won.second.rating, 1662.21, 0.005, "winner");
    assert_near(won.first.deviation, 290.23, 0.005, "RD");
    assert_near(won.second.volatility, 0.059_999_3, 0.000_000_1, "σ");
    let drawn = game(p, p, Outcome::Draw);
    assert_near(drawn.first.rating, 1500.0, 0.005, "draw");
    assert_near(drawn.second.rating, 1500.0, 0.005, "draw");
    assert_near(drawn.first.deviation, 290.23, 0.005, "RD");
    assert_near(drawn.first.volatility, 0.059_997_7, 0.000_000_1, "σ");

    // Mixed: 1400/79/0.06 against 1550/110/0.065.
    let (a, b) = (player(1400.0, 79.0, 0.06), player(1550.0, 110.0, 0.065));
    for (outcome, want_a, want_b) in [
        (Outcome::FirstWins, 1422.63, 1506.32),
        (Outcome::SecondWins, 1389.99, 1568.90),
        (Outcome::Draw, 1406.31, 1537.61),
    ] {
        let rated = game(a, b, outcome);
        assert_near(rated.first.rating, want_a, 0.005, "first");
        assert_near(rated.second.rating, want_b, 0.005, "second");
        assert_near(rated.first.deviation, 77.50, 0.005, "first RD");
        assert_near(rated.second.deviation, 105.87, 0.005, "second RD");
        assert_near(rated.first.volatility, 0.06, 0.000_01, "first σ");
        assert_near(rated.second.volatility, 0.065, 0.000_01, "second σ");
    }

    // More mixed: 1200/60/0.053 against 1850/200/0.062.
    let (a, b) = (player(1200.0, 60.0, 0.053), player(1850.0, 200.0, 0.062));
    for (outcome, want_a, want_b, sigma_a, sigma_b) in [
        (Outcome::FirstWins, 1216.73, 1635.99, 0.053_013, 0.062_028),
        (Outcome::SecondWins, 1199.29, 1855.42, 0.052_999, 0.061_999),
        (Outcome::Draw, 1208.01, 1745.71, 0.053_002, 0.062_006),
    ] {
        let rated = game(a, b, outcome);
        assert_near(rated.first.rating, want_a, 0.005, "first");
        assert_near(rated.second.rating, want_b, 0.005, "second");
        assert_near(rated.first.deviation, 59.90, 0.005, "first RD");
        assert_near(rated.second.deviation, 196.99, 0.005, "second RD");
        assert_near(rated.first.volatility, sigma_a, 0.000_001, "first σ");
        assert_near(rated.second.volatility, sigma_b, 0.000_001, "second σ");
    }
}

#[test]
fn both_players_are_rated_from_their_pre_game_ratings() {
    let a = player(1600.0, 80.0, 0.06);
    let b = player(1450.0, 150.0, 0.07);
    let rated = game(a, b, Outcome::SecondWins);
    // The second player's update is the same whether computed alone
    // from the pre-game pair or as the second half of the pair.
    let system = Glicko2::new(TAU)
        .unwrap()
        .with_max_deviation(MAX_DEVIATION)
        .unwrap();
    let alone = system
        .rate_with_elapsed(
            &Glicko::new(1450.0, 150.0, 0.07).unwrap(),
            &[GameResult::game(
                Glicko::new(1600.0, 80.0, 0.06).unwrap().as_opponent(),
                Score::WIN,
            )],
            0.0,
        )
        .unwrap();
    assert_eq!(rated.second.rating, alone.rating);
    assert_eq!(rated.second.deviation, alone.deviation);
    // Swapping the seats swaps the results exactly.
    let swapped = game(b, a, Outcome::FirstWins);
    assert_eq!(swapped.first, rated.second);
    assert_eq!(swapped.second, rated.first);
    // Both count the game and its time.
    assert_eq!((rated.first.games, rated.second.games), (11, 11));
    assert_eq!(rated.first.last_rated_at_ms, Some(T0));
    assert_eq!(rated.second.last_rated_at_ms, Some(T0));
}

#[test]
fn a_draw_counts_half_a_point() {
    let p = player(1500.0, 200.0, 0.06);
    let drawn = game(p, p, Outcome::Draw);
    assert_near(drawn.first.rating, 1500.0, 1e-9, "equal draw");
    // Against a stronger player a draw gains, and the gain is what a
    // score of ½ gives in the paper's algorithm.
    let strong = player(1700.0, 200.0, 0.06);
    let drawn = game(p, strong, Outcome::Draw);
    assert!(drawn.first.rating > 1500.0 && drawn.second.rating < 1700.0);
    let system = Glicko2::new(TAU)
        .unwrap()
        .with_max_deviation(MAX_DEVIATION)
        .unwrap();
    let half = system
        .rate_with_elapsed(
            &Glicko::new(1500.0, 200.0, 0.06).unwrap(),
            &[GameResult::game(
                Opponent {
                    rating: 1700.0,
                    deviation: 200.0,
                },
                Score::DRAW,
            )],
            0.0,
        )
        .unwrap();
    assert_eq!(drawn.first.rating, half.rating);
}

#[test]
fn the_deviation_grows_with_time_since_the_last_rated_game() {
    let mut p = player(1800.0, 60.0, 0.06);
    p.last_rated_at_ms = Some(T0);
    assert_eq!(LICHESS.live_deviation(&p, T0).unwrap(), 60.0);
    let day = LICHESS.live_deviation(&p, T0 + DAY).unwrap();
    let week = LICHESS.live_deviation(&p, T0 + 7 * DAY).unwrap();
    assert!(60.0 < day && day < week);
    // Step 6 over 0.21436 periods a day.
    let phi = 60.0 / crate::GLICKO2_SCALE;
    let want = (phi * phi + 7.0 * 0.21436 * 0.06 * 0.06).sqrt() * crate::GLICKO2_SCALE;
    assert_near(week, want, 1e-9, "a week");
    // lichess's comment: 60 → 110 in a year for a typical player.
    assert_near(
        LICHESS.live_deviation(&p, T0 + 365 * DAY).unwrap(),
        110.0,
        0.5,
        "a year",
    );
    // Never past 500; time going backwards grows nothing; a player
    // never rated does not grow.
    assert_eq!(
        LICHESS.live_deviation(&p, T0 + 100_000 * DAY).unwrap(),
        500.0
    );
    assert_eq!(LICHESS.live_deviation(&p, T0 - DAY).unwrap(), 60.0);
    assert_eq!(LICHESS.live_deviation(&p, i64::MIN).unwrap(), 60.0);
    assert_eq!(LICHESS.live_deviation(&p, i64::MAX).unwrap(), 500.0);
    p.last_rated_at_ms = None;
    assert_eq!(LICHESS.live_deviation(&p, T0 + 365 * DAY).unwrap(), 60.0);
}

#[test]
fn a_game_after_a_long_break_moves_the_rating_more() {
    let mut regular = player(1800.0, 60.0, 0.06);
    regular.last_rated_at_ms = Some(T0 - DAY);
    let mut returning = regular;
    returning.last_rated_at_ms = Some(T0 - 400 * DAY);
    let opponent = player(1800.0, 60.0, 0.06);
    let a = game(regular, opponent, Outcome::SecondWins);
    let b = game(returning, opponent, Outcome::SecondWins);
    assert!(b.first.rating < a.first.rating);
    // His live deviation entered the game, not the stored one.
    assert!(b.first.deviation > a.first.deviation);
}

#[test]
fn provisional_while_the_deviation_is_at_least_110() {
    assert!(LICHESS.is_provisional(500.0));
    assert!(LICHESS.is_provisional(110.0));
    assert!(!LICHESS.is_provisional(109.99));
    assert!(LICHESS.is_provisional(f64::NAN));
    // A new player is provisional for his first several games against
    // established opponents.
    let mut me = LICHESS.new_player();
    let them = player(1500.0, 60.0, 0.06);
    let mut games = 0;
    while LICHESS.is_provisional(me.deviation) {
        let outcome = if games % 2 == 0 {
            Outcome::FirstWins
        } else {
            Outcome::SecondWins
        };
        me = LICHESS
            .rate_game(&me, &them, outcome, MatchLength::ONE, T0)
            .unwrap()
            .first;
        games += 1;
        assert!(games < 50);
    }
    assert!(games >= 5, "{games}");
}

#[test]
fn ratings_stay_within_lichesss_bounds() {
    // The floor: a 400 player who loses stays at 400.
    let floor = player(400.0, 60.0, 0.06);
    let rated = game(floor, player(1500.0, 60.0, 0.06), Outcome::SecondWins);
    assert_eq!(rated.first.rating, 400.0);
    // The deviation never falls below 45.
    let mut a = player(1500.0, 45.0, 0.06);
    for _ in 0..100 {
        a = game(a, player(1500.0, 45.0, 0.06), Outcome::Draw).first;
    }
    assert_eq!(a.deviation, 45.0);
    // Volatility at most 0.1, even after a shock.
    let shocked = game(
        player(2500.0, 45.0, 0.1),
        player(500.0, 45.0, 0.06),
        Outcome::SecondWins,
    );
    assert!(shocked.first.volatility <= 0.1);
}

#[test]
fn one_game_moves_a_rating_at_most_700() {
    // A newcomer beating a top player in a long match would move
    // further without the cap.
    let long = MatchLength::new(crate::MAX_MATCH_LENGTH).unwrap();
    let newcomer = player(1500.0, 500.0, 0.09);
    let top = player(3000.0, 45.0, 0.06);
    let rated = LICHESS
        .rate_game(&newcomer, &top, Outcome::FirstWins, long, T0)
        .unwrap();
    assert!(rated.first.rating - 1500.0 <= 700.0);
    let uncapped = RatingSystem {
        max_rating_delta: 1e9,
        ..LICHESS
    }
    .rate_game(&newcomer, &top, Outcome::FirstWins, long, T0)
    .unwrap();
    assert!(uncapped.first.rating > rated.first.rating);
    assert_eq!(rated.first.rating, 2200.0);
    assert_eq!(rated.first_diff, 700);
}

#[test]
fn stored_values_out_of_bounds_are_clamped_and_broken_ones_refused() {
    let opponent = player(1500.0, 100.0, 0.06);
    // Finite values outside the bounds read as the bounds.
    let odd = player(100.0, 900.0, 0.5);
    let live = LICHESS.live(&odd, T0).unwrap();
    assert_eq!(
        (live.rating, live.deviation, live.volatility),
        (400.0, 500.0, 0.1)
    );
    assert!(
        LICHESS
            .rate_game(&odd, &opponent, Outcome::Draw, MatchLength::ONE, T0)
            .is_ok()
    );
    // What no clamp mends is an error, on either side.
    for broken in [
        player(f64::NAN, 100.0, 0.06),
        player(1500.0, f64::INFINITY, 0.06),
        player(1500.0, 0.0, 0.06),
        player(1500.0, -50.0, 0.06),
        player(1500.0, 100.0, 0.0),
        player(1500.0, 100.0, f64::NAN),
    ] {
        assert!(
            LICHESS
                .rate_game(&broken, &opponent, Outcome::Draw, MatchLength::ONE, T0)
                .is_err()
        );
        assert!(
            LICHESS
                .rate_game(&opponent, &broken, Outcome::Draw, MatchLength::ONE, T0)
                .is_err()
        );
        assert!(LICHESS.live_deviation(&broken, T0).is_err());
    }
}

#[test]
fn an_inconsistent_system_is_refused() {
    let p = player(1500.0, 100.0, 0.06);
    for system in [
        RatingSystem {
            tau: 0.0,
            ..LICHESS
        },
        RatingSystem {
            min_deviation: 600.0,
            ..LICHESS
        },
        RatingSystem {
            rating_periods_per_day: f64::NAN,
            ..LICHESS
        },
        RatingSystem {
            rating_periods_per_day: -1.0,
            ..LICHESS
        },
        RatingSystem {
            default_rating: 5000.0,
            ..LICHESS
        },
        RatingSystem {
            max_volatility: 0.01,
            ..LICHESS
        },
        RatingSystem {
            ranking_expiry_ms: -1,
            ..LICHESS
        },
    ] {
        assert!(system.validate().is_err(), "{system:?}");
        assert!(
            system
                .rate_game(&p, &p, Outcome::Draw, MatchLength::ONE, T0)
                .is_err()
        );
    }
}

#[test]
fn a_player_rating_round_trips_through_json() {
    let mut p = LICHESS.new_player();
    p.last_rated_at_ms = Some(T0);
    let json = serde_json::to_string(&p).unwrap();
    assert_eq!(
        json,
        r#"{"rating":1500.0,"deviation":500.0,"volatility":0.09,"games":0,"lastRatedAtMs":1750000000000}"#
    );
    assert_eq!(serde_json::from_str::<PlayerRating>(&json).unwrap(), p);
    assert_eq!(
        serde_json::to_string(&Outcome::FirstWins).unwrap(),
        r#""firstWins""#
    );
    let system: RatingSystem =
        serde_json::from_str(&serde_json::to_string(&LICHESS).unwrap()).unwrap();
    assert_eq!(system, LICHESS);
}
