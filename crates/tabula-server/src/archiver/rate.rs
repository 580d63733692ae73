//! A rated game's two new ratings, from the archived game and both
//! players' stored ratings: `tabula-ratings` (lichess's Glicko-2, the
//! match length as FIBS weighs it) between the store's types. Pure.

use tabula_ratings::{MatchLength, Outcome, PlayerRating, RatingSystem};
use tabula_room::SeatId;
use tabula_store::{FinishedGame, Rating, RatingUpdate};

/// The policy every rating is computed under.
pub const SYSTEM: RatingSystem = RatingSystem::LICHESS;

/// A stored rating as `tabula-ratings` takes it (a new player's when none).
pub fn player_rating(stored: Option<&Rating>) -> PlayerRating {
    match stored {
        None => SYSTEM.new_player(),
        Some(r) => PlayerRating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
            games: r.games,
            last_rated_at_ms: i64::try_from(r.last_rated_ms).ok().filter(|_| r.games > 0),
        },
    }
}

/// Both players' new ratings after `game` (a rated game between two
/// players), from their stored ratings `a` and `b` (seats A and B). A
/// resignation, a forfeit or a timeout is a loss like any other: the
/// result's winner decides.
pub fn rate(
    game: &FinishedGame,
    a: Option<&Rating>,
    b: Option<&Rating>,
) -> Result<[RatingUpdate; 2], String> {
    let (Some(pa), Some(pb)) = (game.seats[0].player(), game.seats[1].player()) else {
        return Err("a rated game is between two players".into());
    };
    let outcome = match game.result.winner {
        Some(SeatId::A) => Outcome::FirstWins,
        Some(SeatId::B) => Outcome::SecondWins,
        None => Outcome::Draw,
    };
    // A match longer than the formula takes counts as the longest it takes.
    let points = game.match_length.clamp(1, tabula_ratings::MAX_MATCH_LENGTH);
    let length = MatchLength::new(points).map_err(|e| e.to_string())?;
    let now = i64::try_from(game.finished_ms).map_err(|e| e.to_string())?;
    let rated = SYSTEM
        .rate_game(&player_rating(a), &player_rating(b), outcome, length, now)
        .map_err(|e| e.to_string())?;
    let update = |player: &str, before: Option<&Rating>, r: PlayerRating| RatingUpdate {
        player: player.to_string(),
        previous_games: before.map_or(0, |b| b.games),
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    Ok([update(pa, a, rated.first), update(pb, b, rated.second)])
}

/// Whether a rating is provisional (lichess: deviation ≥ 110), at `now`.
pub fn provisional(r: &Rating, now_ms: u64) -> bool {
    let live = SYSTEM
        .live_deviation(
            &player_rating(Some(r)),
            i64::try_from(now_ms).unwrap_or(i64::MAX),
        )
        .unwrap_or(r.deviation);
    SYSTEM.is_provisional(live)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_room::{EndReason, GameKind, GameResult, ResultKind};
    use tabula_store::Seat;

    fn game(winner: Option<SeatId>, match_length: u32) -> FinishedGame {
        FinishedGame {
            key: tabula_store::GameKey::new("r1", 1),
            kind: GameKind::LongNardy,
            seats: [Seat::Player("tg:1".into()), Seat::Player("tg:2".into())],
            result: GameResult {
                winner,
                kind: ResultKind::Oin,
                reason: EndReason::BorneOff,
                base_points: 1,
                cube: 1,
                points: 1,
                thud_totals: None,
            },
            match_length,
            rated: true,
            finished_ms: 1_750_000_000_000,
            record: tabula_store::Record::null(),
            deltas: Vec::new(),
        }
    }

    #[test]
    fn the_winner_gains_what_the_loser_loses_and_a_longer_match_moves_more() {
        let [a, b] = rate(&game(Some(SeatId::A), 1), None, None).unwrap();
        assert!(a.rating > 1500.0 && b.rating < 1500.0, "{a:?} {b:?}");
        assert!((a.rating - 1500.0 - (1500.0 - b.rating)).abs() < 1e-9);
        assert_eq!((a.previous_games, b.previous_games), (0, 0));
        // A longer match is stronger evidence: between established
        // players it moves the ratings more; for new players it settles
        // the deviation more (Glicko's one-step update then moves the
        // rating less, as tabula-ratings' match_length docs explain).
        let [a5, _] = rate(&game(Some(SeatId::A), 5), None, None).unwrap();
        assert!(a5.deviation < a.deviation, "{a5:?} vs {a:?}");
        let settled = Rating {
            rating: 1500.0,
            deviation: 60.0,
            volatility: 0.06,
            games: 40,
            last_rated_ms: 1_749_999_000_000,
        };
        let one = rate(&game(Some(SeatId::A), 1), Some(&settled), Some(&settled)).unwrap();
        let five = rate(&game(Some(SeatId::A), 5), Some(&settled), Some(&settled)).unwrap();
        assert!(
            five[0].rating - 1500.0 > one[0].rating - 1500.0 && one[0].rating > 1500.0,
            "5 points {} vs 1 point {}",
            five[0].rating,
            one[0].rating
        );
        assert!(five[1].rating < one[1].rating, "the loser loses more");
        let [_, b2] = rate(&game(Some(SeatId::B), 1), None, None).unwrap();
        assert!((b2.rating - a.rating).abs() < 1e-9, "symmetric");
        let [d, e] = rate(&game(None, 1), None, None).unwrap();
        assert!((d.rating - 1500.0).abs() < 1e-9 && (e.rating - 1500.0).abs() < 1e-9);
    }

    #[test]
    fn stored_ratings_are_the_starting_point_and_their_games_are_checked() {
        let strong = Rating {
            rating: 2000.0,
            deviation: 60.0,
            volatility: 0.06,
            games: 40,
            last_rated_ms: 1_749_000_000_000,
        };
        // The favourite wins: he gains little; the new player loses little.
        let [a, b] = rate(&game(Some(SeatId::A), 1), Some(&strong), None).unwrap();
        assert!(a.rating > 2000.0 && a.rating < 2005.0, "{a:?}");
        assert!(b.rating < 1500.0 && b.rating > 1400.0, "{b:?}");
        assert_eq!(a.previous_games, 40);
        assert!(!provisional(&strong, 1_749_000_000_000));
    }

    #[test]
    fn a_match_longer_than_the_formula_takes_counts_as_the_longest() {
        let longest = rate(&game(Some(SeatId::A), 255), None, None).unwrap();
        let longer = rate(&game(Some(SeatId::A), 300), None, None).unwrap();
        assert_eq!(longer[0].rating, longest[0].rating);
        assert_eq!(longer[1].deviation, longest[1].deviation);
    }

    #[test]
    fn a_game_with_a_bot_is_not_rated() {
        let mut g = game(Some(SeatId::A), 1);
        g.seats[1] = Seat::Bot(2);
        assert!(rate(&g, None, None).is_err());
    }
}
