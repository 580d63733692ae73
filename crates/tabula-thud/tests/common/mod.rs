//! Helpers shared by the integration tests.
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_thud::{CaptureRule, Move, Position, Setup};

/// A position from space-separated square lists.
pub fn pos(turn: &str, dwarfs: &str, trolls: &str) -> Position {
    pos_with(turn, dwarfs, trolls, CaptureRule::Zrf)
}

/// A position from space-separated square lists under `rule`.
pub fn pos_with(turn: &str, dwarfs: &str, trolls: &str, rule: CaptureRule) -> Position {
    let list = |s: &str| s.split_whitespace().map(String::from).collect();
    let setup = Setup {
        turn: turn.into(),
        dwarfs: list(dwarfs),
        trolls: list(trolls),
        plies_since_capture: 0,
    };
    Position::from_setup(&setup, rule).expect("test position is valid")
}

/// Notations of the legal moves, sorted.
pub fn notations(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(Move::to_string).collect();
    v.sort();
    v
}

/// Notations of the legal moves of the piece on `sq`, sorted.
pub fn notations_from(p: &Position, sq: &str) -> Vec<String> {
    let mut v: Vec<String> = p
        .moves_from(sq.parse().expect("square"))
        .iter()
        .map(Move::to_string)
        .collect();
    v.sort();
    v
}

/// Positions reached by seeded random play from the start (up to `max_plies`
/// plies per game, stopping when no move is left).
pub fn selfplay_positions(
    seed: u64,
    games: usize,
    max_plies: usize,
    rule: CaptureRule,
) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut p = Position::start_with(rule);
        for _ in 0..max_plies {
            out.push(p.clone());
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer captures now and then so games reach sparse endgames.
            let caps: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
            let mv = if !caps.is_empty() && rng.random_bool(0.5) {
                *caps[rng.random_range(0..caps.len())]
            } else {
                moves[rng.random_range(0..moves.len())]
            };
            p.play_unchecked(&mv);
        }
    }
    out
}
