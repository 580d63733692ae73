//! Perft fixtures (tests/fixtures/perft.txt), checked against the engine,
//! and at depth ≤ 2 also against the plain reference generator.

mod common;

use common::{engine_finals, reference_finals};
use tabula_dice::Dice;
use tabula_long::{Position, Setup, Variant, perft, perft_roll};

struct Case {
    name: String,
    pos: Position,
    depth: u32,
    dice: Option<Dice>,
    nodes: u64,
}

fn cases() -> Vec<Case> {
    include_str!("fixtures/perft.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(" | ").map(str::trim).collect();
            assert_eq!(f.len(), 6, "bad fixture line {l}");
            let v: Variant = if f[1] == "-" {
                Variant::default()
            } else {
                f[1].parse().unwrap()
            };
            let pos = if f[4] == "initial" {
                Position::initial().with_variant(v)
            } else {
                let s: Setup = serde_json::from_str(f[4]).unwrap();
                Position::from_setup(&s, v).unwrap()
            };
            Case {
                name: f[0].to_string(),
                pos,
                depth: f[2].parse().unwrap(),
                dice: if f[3] == "*" {
                    None
                } else {
                    Some(f[3].parse().unwrap())
                },
                nodes: f[5].parse().unwrap(),
            }
        })
        .collect()
}

/// Perft where every node's finals are first checked against the reference.
fn reference_perft(p: &Position, depth: u32, only: Option<Dice>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if p.is_game_over() {
        return 0;
    }
    let rolls: Vec<Dice> = only.map_or_else(|| Dice::ALL_21.to_vec(), |d| vec![d]);
    let mut n = 0;
    for d in rolls {
        let reference = reference_finals(p, d);
        assert_eq!(engine_finals(p, d), reference, "{p} {d}");
        if depth == 1 {
            n += reference.len() as u64;
        } else {
            n += p
                .legal_moves(d)
                .iter()
                .map(|f| reference_perft(f, depth - 1, None))
                .sum::<u64>();
        }
    }
    n
}

#[test]
fn perft_fixtures_match() {
    let all = cases();
    assert!(all.len() >= 10);
    for c in &all {
        // Given a fixture, When perft runs, Then it gives the recorded count.
        let got = match c.dice {
            Some(d) => perft_roll(&c.pos, d, c.depth),
            None => perft(&c.pos, c.depth),
        };
        assert_eq!(got, c.nodes, "{}", c.name);
        if c.depth <= 2 && c.nodes <= 30_000 {
            assert_eq!(
                reference_perft(&c.pos, c.depth, c.dice),
                c.nodes,
                "{} (reference)",
                c.name
            );
        }
    }
}

#[test]
fn perft_depth_0_is_1_and_a_finished_game_has_no_plies() {
    assert_eq!(perft(&Position::initial(), 0), 1);
    let s: Setup =
        serde_json::from_str(r#"{"turn":"black","white":{},"black":{"12":15},"off":{"white":15}}"#)
            .unwrap();
    let over = Position::try_from(s).unwrap();
    assert_eq!(perft(&over, 1), 0);
}
