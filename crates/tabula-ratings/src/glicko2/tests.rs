use super::*;

/// The paper's player: 1500, RD 200, σ 0.06.
const PLAYER: Glicko = Glicko {
    rating: 1500.0,
    deviation: 200.0,
    volatility: 0.06,
};

/// The paper's three games: a win against (1400, 30), losses against
/// (1550, 100) and (1700, 300).
fn paper_results() -> [GameResult; 3] {
    let opp = |rating, deviation| Opponent { rating, deviation };
    [
        GameResult::game(opp(1400.0, 30.0), Score::WIN),
        GameResult::game(opp(1550.0, 100.0), Score::LOSS),
        GameResult::game(opp(1700.0, 300.0), Score::LOSS),
    ]
}

fn assert_near(got: f64, want: f64, tolerance: f64, what: &str) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, want {want} ± {tolerance}"
    );
}

#[test]
fn reproduces_glickmans_worked_example() {
    let system = Glicko2::new(0.5).unwrap();
    let new = system.rate(&PLAYER, &paper_results()).unwrap();

    // The paper's final figures, to the precision it prints them.
    // r' = 1464.06: the paper converts μ' after rounding it to −0.2069,
    // so its last digit carries ±0.009; the unrounded value is
    // 1464.0507.
    assert_near(new.rating, 1464.06, 0.01, "r'");
    assert_near(new.deviation, 151.52, 0.005, "RD'");
    // σ' = 0.05999 is printed truncated (the value is 0.0599960).
    assert_near(new.volatility, 0.05999, 0.000_01, "σ'");

    // On the Glicko-2 scale the paper prints μ' = −0.2069, φ' = 0.8722.
    assert_near(to_mu(new.rating), -0.2069, 0.000_05, "μ'");
    assert_near(new.deviation / GLICKO2_SCALE, 0.8722, 0.000_05, "φ'");
    // And the volatility iteration's root A = ln σ'² = −5.62696.
    assert_near(
        (new.volatility * new.volatility).ln(),
        -5.62696,
        0.000_005,
        "A",
    );
}

#[test]
fn reproduces_the_papers_intermediate_table() {
    // The paper's table: g(φ_j) to four places, E to three.
    let want = [(0.9955, 0.639), (0.9531, 0.432), (0.7242, 0.303)];
    let mut information = 0.0;
    let mut pull = 0.0;
    for (result, (want_g, want_e)) in paper_results().iter().zip(want) {
        let g_j = g(result.opponent.deviation / GLICKO2_SCALE);
        let e = expected_score(PLAYER.rating, &result.opponent, MatchLength::ONE).unwrap();
        assert_near(g_j, want_g, 0.000_05, "g");
        assert_near(e, want_e, 0.0005, "E");
        information += g_j * g_j * e * (1.0 - e);
        pull += g_j * (result.score.value() - e);
    }
    // The paper carries its rounded g and E forward and prints
    // v = 1.7785 and Δ = −0.4834; unrounded they are 1.77898 and
    // −0.48393, within the paper's rounding.
    assert_near(1.0 / information, 1.7785, 0.001, "v");
    assert_near(pull / information, -0.4834, 0.001, "Δ");
}

#[test]
fn a_period_without_games_only_raises_the_deviation() {
    let system = Glicko2::new(0.5).unwrap();
    let idle = system.rate(&PLAYER, &[]).unwrap();
    assert_eq!(idle.rating, PLAYER.rating);
    assert_eq!(idle.volatility, PLAYER.volatility);
    // Step 6: φ* = √(φ² + σ²).
    let phi = 200.0 / GLICKO2_SCALE;
    let want = (phi * phi + 0.06 * 0.06).sqrt() * GLICKO2_SCALE;
    assert_near(idle.deviation, want, 1e-9, "RD*");
    assert!(idle.deviation > PLAYER.deviation);
    assert_near(idle.deviation, 200.27, 0.005, "RD*");
}

#[test]
fn the_deviation_never_exceeds_the_unrated_maximum() {
    let system = Glicko2::new(0.5).unwrap();
    let near_top = Glicko::new(1500.0, 349.0, 0.06).unwrap();
    let long_idle = system.idle(&near_top, 10_000.0).unwrap();
    assert_eq!(long_idle.deviation, 350.0);
    let mut player = near_top;
    for _ in 0..1000 {
        player = system.rate(&player, &[]).unwrap();
        assert!(player.deviation <= 350.0);
    }
    // A period with games from the ceiling stays below it.
    let rated = system.rate(&Glicko::UNRATED, &paper_results()).unwrap();
    assert!(rated.deviation < 350.0);
    // A lower ceiling is honoured too.
    let low = Glicko2::new(0.5)
        .unwrap()
        .with_max_deviation(250.0)
        .unwrap();
    assert_eq!(low.idle(&PLAYER, 1e6).unwrap().deviation, 250.0);
}

#[test]
fn tau_is_configurable_and_limits_how_far_volatility_moves() {
    // A surprising period: a heavy favourite loses three times.
    let player = Glicko::new(1800.0, 80.0, 0.06).unwrap();
    let weak = Opponent {
        rating: 1400.0,
        deviation: 60.0,
    };
    let results = [GameResult::game(weak, Score::LOSS); 3];
    let small = Glicko2::new(0.3).unwrap().rate(&player, &results).unwrap();
    let large = Glicko2::new(1.2).unwrap().rate(&player, &results).unwrap();
    assert!(small.volatility > 0.06 && large.volatility > small.volatility);
    assert_eq!(Glicko2::new(0.75).unwrap().tau(), 0.75);
}

#[test]
fn the_order_of_results_does_not_matter() {
    let system = Glicko2::new(0.5).unwrap();
    let mut results = paper_results();
    let forward = system.rate(&PLAYER, &results).unwrap();
    results.reverse();
    let backward = system.rate(&PLAYER, &results).unwrap();
    assert_near(forward.rating, backward.rating, 1e-9, "r'");
    assert_near(forward.deviation, backward.deviation, 1e-9, "RD'");
}

#[test]
fn invalid_inputs_are_errors() {
    assert_eq!(Glicko2::new(0.0), Err(RatingError::InvalidTau(0.0)));
    assert!(Glicko2::new(f64::NAN).is_err());
    assert!(Glicko2::new(-1.0).is_err());
    assert!(
        Glicko2::new(0.5)
            .unwrap()
            .with_max_deviation(f64::INFINITY)
            .is_err()
    );
    assert!(Glicko::new(f64::NAN, 200.0, 0.06).is_err());
    assert!(Glicko::new(1500.0, 0.0, 0.06).is_err());
    assert!(Glicko::new(1500.0, 200.0, -0.06).is_err());
    assert!(Glicko::new(1500.0, 200.0, f64::INFINITY).is_err());

    let system = Glicko2::new(0.5).unwrap();
    let bad_player = Glicko {
        rating: f64::INFINITY,
        ..PLAYER
    };
    assert_eq!(
        system.rate(&bad_player, &paper_results()),
        Err(RatingError::InvalidRating(f64::INFINITY))
    );
    let mut results = paper_results();
    results[1].opponent.deviation = -5.0;
    assert_eq!(
        system.rate(&PLAYER, &results),
        Err(RatingError::InvalidDeviation(-5.0))
    );
    assert!(
        system
            .rate_with_elapsed(&PLAYER, &paper_results(), -1.0)
            .is_err()
    );
    assert!(
        system
            .rate_with_elapsed(&PLAYER, &paper_results(), f64::NAN)
            .is_err()
    );
    assert!(expected_score(f64::NAN, &paper_results()[0].opponent, MatchLength::ONE).is_err());
}

#[test]
fn absurd_but_finite_inputs_give_an_error_or_a_finite_rating() {
    let system = Glicko2::new(0.5).unwrap();
    for (rating, opponent_rating) in [(1e300, -1e300), (1e6, -1e6), (0.0, 1e5)] {
        let player = Glicko::new(rating, 1e-300, 1e-300).unwrap();
        let opponent = Opponent {
            rating: opponent_rating,
            deviation: 1e300,
        };
        for score in [Score::WIN, Score::LOSS, Score::DRAW] {
            let length = MatchLength::new(crate::MAX_MATCH_LENGTH).unwrap();
            match system.rate(&player, &[GameResult::matched(opponent, score, length)]) {
                Ok(new) => assert!(new.validate().is_ok(), "{new:?}"),
                Err(e) => assert!(
                    matches!(e, RatingError::NotFinite | RatingError::NoConvergence),
                    "{e}"
                ),
            }
        }
    }
}

#[test]
fn serde_round_trips_a_result() {
    let result = GameResult::matched(
        Opponent {
            rating: 1550.0,
            deviation: 100.0,
        },
        Score::DRAW,
        MatchLength::new(7).unwrap(),
    );
    let json = serde_json::to_string(&result).unwrap();
    assert_eq!(
        json,
        r#"{"opponent":{"rating":1550.0,"deviation":100.0},"score":0.5,"matchLength":7}"#
    );
    assert_eq!(serde_json::from_str::<GameResult>(&json).unwrap(), result);
}
