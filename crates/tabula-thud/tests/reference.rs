//! The fast generator against a plainly written one that follows seed 003's
//! ZRF macros literally (`shift`, `dwarf-1`..`dwarf-7`, `troll-1`..`troll-7`),
//! plus the perft fixture.

mod common;

use std::collections::{BTreeSet, HashMap};

use common::selfplay_positions;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_thud::{CaptureRule, Position, Setup};

/// Seed 003's kill-positions, verbatim.
const KILL: &str = "a15 b15 c15 d15 e15 k15 l15 m15 n15 o15 a14 b14 c14 d14 l14 m14 n14 o14
    a13 b13 c13 m13 n13 o13 a12 b12 n12 o12 a11 o11 h8 a5 o5 a4 b4 n4 o4
    a3 b3 c3 m3 n3 o3 a2 b2 c2 d2 l2 m2 n2 o2 a1 b1 c1 d1 e1 k1 l1 m1 n1 o1";

type Sq = (i32, i32);
/// (kind, from, to, captures in ascending (rank, file) order)
type RefMove = (&'static str, String, String, Vec<String>);

fn name((f, r): Sq) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

fn parse(s: &str) -> Sq {
    let f = i32::from(s.as_bytes()[0] - b'a');
    let r: i32 = s[1..].parse().unwrap();
    (f, r - 1)
}

struct RefBoard {
    killed: BTreeSet<Sq>,
    cells: HashMap<Sq, char>,
    friend: char,
    enemy: char,
}

impl RefBoard {
    fn new(setup: &Setup) -> RefBoard {
        let killed = KILL.split_whitespace().map(parse).collect();
        let mut cells = HashMap::new();
        for d in &setup.dwarfs {
            cells.insert(parse(d), 'D');
        }
        for t in &setup.trolls {
            cells.insert(parse(t), 'T');
        }
        let (friend, enemy) = if setup.turn == "dwarfs" {
            ('D', 'T')
        } else {
            ('T', 'D')
        };
        RefBoard {
            killed,
            cells,
            friend,
            enemy,
        }
    }

    /// ZoG: a position exists unless it is off the grid or killed.
    fn exists(&self, (f, r): Sq) -> bool {
        (0..15).contains(&f) && (0..15).contains(&r) && !self.killed.contains(&(f, r))
    }
    fn empty(&self, s: Sq) -> bool {
        self.exists(s) && !self.cells.contains_key(&s)
    }
    fn is(&self, s: Sq, c: char) -> bool {
        self.exists(s) && self.cells.get(&s) == Some(&c)
    }

    fn adjacent_enemies(&self, at: Sq) -> Vec<Sq> {
        let mut v: Vec<Sq> = DIRS
            .iter()
            .map(|&(df, dr)| (at.0 + df, at.1 + dr))
            .filter(|&s| self.is(s, self.enemy))
            .collect();
        v.sort_by_key(|&(f, r)| (r, f));
        v
    }

    fn moves(&self, rule: CaptureRule) -> BTreeSet<RefMove> {
        let mut out = BTreeSet::new();
        let names = |v: Vec<Sq>| v.into_iter().map(name).collect::<Vec<_>>();
        for (&from, &c) in &self.cells {
            if c != self.friend {
                continue;
            }
            for &(df, dr) in &DIRS {
                let step = |s: Sq, k: i32| (s.0 + df * k, s.1 + dr * k);
                if c == 'D' {
                    // (shift $1): while empty? add, $1
                    let mut k = 1;
                    while self.empty(step(from, k)) {
                        out.insert(("move", name(from), name(step(from, k)), vec![]));
                        k += 1;
                    }
                    // (dwarf-n $1): n-1 friends behind, n-1 empty ahead, enemy on the n-th
                    for n in 1..=7 {
                        let behind = (1..n).all(|k| self.is(step(from, -k), 'D'));
                        let path = (1..n).all(|k| self.empty(step(from, k)));
                        if behind && path && self.is(step(from, n), 'T') {
                            let to = step(from, n);
                            out.insert(("hurl", name(from), name(to), vec![name(to)]));
                        }
                    }
                } else {
                    // (troll-1 $1): empty, capture every adjacent enemy
                    let to = step(from, 1);
                    if self.empty(to) {
                        let caps = self.adjacent_enemies(to);
                        match rule {
                            CaptureRule::Zrf => {
                                out.insert(("step", name(from), name(to), names(caps)));
                            }
                            _ => {
                                out.insert(("step", name(from), name(to), vec![]));
                                for c in caps {
                                    out.insert(("step", name(from), name(to), vec![name(c)]));
                                }
                            }
                        }
                    }
                    // (troll-n $1), n = 2..7: n-1 friends behind, n empty, some enemy adjacent
                    for n in 2..=7 {
                        let behind = (1..n).all(|k| self.is(step(from, -k), 'T'));
                        let path = (1..=n).all(|k| self.empty(step(from, k)));
                        if behind && path {
                            let to = step(from, n);
                            let caps = self.adjacent_enemies(to);
                            if !caps.is_empty() {
                                out.insert(("shove", name(from), name(to), names(caps)));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

fn fast_moves(p: &Position) -> BTreeSet<RefMove> {
    let moves = p.legal_moves();
    let set: BTreeSet<RefMove> = moves
        .iter()
        .map(|m| {
            (
                m.kind().name(),
                m.from().to_string(),
                m.to().to_string(),
                m.captures().map(|c| c.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        set.len(),
        moves.len(),
        "the fast generator lists a move twice"
    );
    set
}

fn check(p: &Position) -> BTreeSet<RefMove> {
    let reference = RefBoard::new(&p.to_setup()).moves(p.capture_rule());
    let fast = fast_moves(p);
    if reference != fast {
        let missing: Vec<_> = reference.difference(&fast).collect();
        let extra: Vec<_> = fast.difference(&reference).collect();
        panic!(
            "move sets differ in {}\nmissing: {missing:?}\nextra: {extra:?}",
            serde_json::to_string(&p.to_setup()).unwrap()
        );
    }
    assert_eq!(p.has_legal_move(), !fast.is_empty(), "has_legal_move");
    fast
}

#[test]
fn fast_generator_agrees_with_the_zrf_reference_over_selfplay_positions() {
    for rule in [CaptureRule::Zrf, CaptureRule::Classic] {
        let positions = selfplay_positions(7, 12, 400, rule);
        assert!(positions.len() > 1000);
        for p in &positions {
            check(p);
        }
    }
}

/// Random crowded positions in a small window, so long lines, hurls and
/// shoves of every length (and blocking by the stone) occur often.
#[test]
fn fast_generator_agrees_with_the_zrf_reference_over_crowded_random_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut long_hurls, mut long_shoves) = (0, 0);
    for i in 0..4000 {
        let (f0, r0) = (rng.random_range(0..8), rng.random_range(0..8));
        let mut squares: Vec<String> = tabula_thud::Square::playable()
            .filter(|s| {
                let (f, r) = (i32::from(s.file()), i32::from(s.rank()));
                (f0..f0 + 8).contains(&f) && (r0..r0 + 8).contains(&r)
            })
            .map(|s| s.to_string())
            .collect();
        squares.shuffle(&mut rng);
        let (nt, nd) = if i % 4 == 1 {
            // A line of trolls first, then a few dwarfs: long shoves.
            let (df, dr) = DIRS[rng.random_range(0..8)];
            let (f, r) = parse(&squares[0]);
            let line: Vec<String> = (0..rng.random_range(2..=6))
                .map(|k| (f + df * k, r + dr * k))
                .take_while(|&(f, r)| {
                    (0..15).contains(&f) && (0..15).contains(&r) && squares.contains(&name((f, r)))
                })
                .map(name)
                .collect();
            squares.retain(|s| !line.contains(s));
            squares.splice(0..0, line.iter().cloned());
            (line.len(), rng.random_range(1..=4))
        } else {
            let nt = rng.random_range(0..=8.min(squares.len()));
            (nt, rng.random_range(0..=32.min(squares.len() - nt)))
        };
        let setup = Setup {
            turn: if i % 2 == 0 { "dwarfs" } else { "trolls" }.into(),
            trolls: squares[..nt].to_vec(),
            dwarfs: squares[nt..nt + nd].to_vec(),
            plies_since_capture: 0,
        };
        let rule = if i % 3 == 0 {
            CaptureRule::Classic
        } else {
            CaptureRule::Zrf
        };
        let p = Position::from_setup(&setup, rule).unwrap();
        for m in p.legal_moves() {
            long_hurls += usize::from(m.kind() == tabula_thud::MoveKind::Hurl && m.distance() >= 3);
            long_shoves +=
                usize::from(m.kind() == tabula_thud::MoveKind::Shove && m.distance() >= 3);
        }
        check(&p);
    }
    assert!(
        long_hurls > 50 && long_shoves > 50,
        "{long_hurls} {long_shoves}"
    );
}

/// `tests/fixtures/perft.txt`: lines `<capture_rule> <depth> <nodes>`.
fn fixture() -> Vec<(CaptureRule, u32, u64)> {
    include_str!("fixtures/perft.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn perft_from_the_start_matches_the_fixture() {
    let fx = fixture();
    assert!(fx.len() >= 6);
    for (rule, depth, nodes) in fx {
        assert_eq!(
            Position::start_with(rule).perft(depth),
            nodes,
            "{rule} depth {depth}"
        );
    }
}

#[test]
fn perft_per_depth_counts_are_consistent() {
    let p = Position::start();
    let counts = p.perft_counts(3);
    assert_eq!(counts, [p.perft(1), p.perft(2), p.perft(3)]);
    assert_eq!(p.perft(0), 1);
}

#[test]
fn reference_perft_agrees_at_depth_2() {
    // The slow generator alone, from the start, two plies deep.
    let start = Position::start();
    let mut total = 0;
    for m in start.legal_moves() {
        let next = start.play(&m).unwrap();
        total += RefBoard::new(&next.to_setup())
            .moves(CaptureRule::Zrf)
            .len() as u64;
    }
    assert_eq!(total, start.perft(2));
}
