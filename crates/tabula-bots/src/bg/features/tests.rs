use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::Position;
use tabula_dice::Dice;

use super::*;

/// [`shots`] as first written: every roll against every blot and
/// every opponent checker behind it, step by step.
fn shots_by_rolls(b: &[i8; 26]) -> (u32, u32) {
    let blots: Vec<usize> = (1..=24).filter(|&i| b[i] == 1).collect();
    let opp: Vec<usize> = (0..=24).filter(|&j| b[j] < 0).collect();
    let blocked = |i: usize| i <= 24 && b[i] >= 2;
    let mut count = 0;
    let mut worst = 0u32;
    for d1 in 1..=6usize {
        for d2 in 1..=6usize {
            let mut hit_any = false;
            for &i in &blots {
                let hit = opp.iter().any(|&j| {
                    if j >= i {
                        return false;
                    }
                    let dist = i - j;
                    if d1 == d2 {
                        (1..=4).any(|k| dist == d1 * k && (1..k).all(|m| !blocked(j + d1 * m)))
                    } else {
                        dist == d1
                            || dist == d2
                            || (dist == d1 + d2 && (!blocked(j + d1) || !blocked(j + d2)))
                    }
                });
                if hit {
                    hit_any = true;
                    worst = worst.max(25 - i as u32);
                }
            }
            count += u32::from(hit_any);
        }
    }
    (count, worst)
}

#[test]
fn shots_count_the_rolls_that_hit_as_rolling_each_one_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut some = 0;
    for _ in 0..20_000 {
        let mut b = [0i8; 26];
        for (i, p) in b.iter_mut().enumerate() {
            // Mostly empty, blots and points of both sides, a few bars.
            *p = match rng.random_range(0..10) {
                0..=3 => 0,
                4 | 5 => 1,
                6 => rng.random_range(2..=5),
                7 | 8 => -rng.random_range(1..=2),
                _ => -rng.random_range(3..=5),
            };
            if i == 0 {
                *p = -(*p).abs() * i8::from(rng.random_range(0..4) == 0);
            }
            if i == 25 {
                *p = (*p).abs() * i8::from(rng.random_range(0..4) == 0);
            }
        }
        let fast = shots(&b);
        assert_eq!(fast, shots_by_rolls(&b), "board {b:?}");
        some += usize::from(fast.0 > 0 && fast.0 < 36);
    }
    assert!(some > 5_000, "too few boards with some shots: {some}");
    // The start: no blots, no shots; a lone blot six away from an
    // opponent checker is hit by 17 rolls (11 sixes, 5-1, 4-2, 3-3, 2-2).
    assert_eq!(shots(Position::initial().board()), (0, 0));
    let mut b = [0i8; 26];
    b[10] = 1;
    b[4] = -1;
    assert_eq!(shots(&b), (17, 15));
    b[7] = 2;
    // Closing the point 3 away takes away 3-3 only (4-2 can pass
    // through 6 or 8, 2-2 lands on 6 and 8): 16.
    assert_eq!(shots(&b), (16, 15));
}

#[test]
fn the_start_encodes_both_sides_alike() {
    let pos = Position::initial();
    let mut e = Sparse::default();
    encode(pos.board(), &mut e);
    let units: Vec<_> = e.iter().collect();
    let side = |lo: usize, hi: usize| -> Vec<(usize, f32)> {
        units
            .iter()
            .filter(|&&(i, _)| (lo..hi).contains(&i))
            .map(|&(i, v)| (i - lo, v))
            .collect()
    };
    let mine = side(0, 98);
    assert_eq!(mine, side(98, 196));
    // 4 points: 2 (2 units), 5 (4 units: 1+,2+,3+, 5-3=2 → 1.0), 3 (3), 5 (4).
    assert_eq!(mine.len(), 2 + 4 + 3 + 4);
    let features = side(BOARD, BOARD + FEATURES);
    assert_eq!(features, side(BOARD + FEATURES, BOARD + 2 * FEATURES));
    // 167 pips; no blot to hit; the back checkers (24) face the
    // other side's points 19, 17 and 12 (this side's numbering), and
    // only 13 pips or more would clear the 12: no roll does it; no
    // run longer than one point; the 6-point made at home.
    assert_eq!(features, vec![(0, 1.0), (4, 1.0 / 6.0), (5, 1.0 / 6.0)]);
    assert!(units.contains(&(BOARD + 2 * FEATURES, 1.0)), "contact");
}

/// A side's features by the new path, for the cases below.
fn side_features(v: &[i8; 26]) -> [f32; FEATURES] {
    let [me, other] = Side::both(v);
    me.features(&other)
}

fn escapes(v: &[i8; 26]) -> u32 {
    let [me, other] = Side::both(v);
    escapes_in(me.any, turn(other.closed))
}

/// The features as they were first written, a point at a time from
/// the board: the reference the bit masks must match.
fn features_point_by_point(v: &[i8; 26]) -> [f32; FEATURES] {
    let pips = pips(v).0;
    // `bg::shots` is checked against every roll played out (its
    // tests); here it stands for the shot count on the board as it is,
    // where the features take the other side's from turned masks.
    let (hits, loss) = crate::bg::shots(v);
    let (mut run, mut prime, mut home) = (0u32, 0u32, 0u32);
    for (i, &n) in v.iter().enumerate().take(25).skip(1) {
        if n >= 2 {
            run += 1;
            prime = prime.max(run);
            home += u32::from(i <= 6);
        } else {
            run = 0;
        }
    }
    let escapes = match (7..=25).rev().find(|&i| v[i] > 0) {
        None => 0,
        Some(rear) => {
            let blocked = |i: usize| v[i] <= -2;
            match (rear.saturating_sub(12).max(1)..rear).find(|&i| blocked(i)) {
                None => 36,
                Some(last) => {
                    let lands = |steps: &[usize]| {
                        let mut at = rear;
                        for &d in steps {
                            if at <= d || blocked(at - d) {
                                return false;
                            }
                            at -= d;
                            if at < last {
                                return true;
                            }
                        }
                        false
                    };
                    let mut n = 0;
                    for d1 in 1..=6usize {
                        n += u32::from(lands(&[d1; 4]));
                        for d2 in d1 + 1..=6 {
                            n += 2 * u32::from(lands(&[d1, d2]) || lands(&[d2, d1]));
                        }
                    }
                    n
                }
            }
        }
    };
    [
        pips as f32 / 167.0,
        hits as f32 / 36.0,
        loss as f32 / 24.0,
        escapes as f32 / 36.0,
        prime.min(6) as f32 / 6.0,
        home as f32 / 6.0,
    ]
}

#[test]
fn the_features_by_bit_masks_match_them_point_by_point() {
    use rand::{Rng, SeedableRng};
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut buf = Vec::new();
    let mut pos = Position::initial();
    let mut boards = 0;
    for _ in 0..20_000 {
        let dice = Dice::ALL_21[rng.random_range(0..21)];
        pos.legal_positions_into(dice, &mut buf);
        for child in buf.iter().take(4) {
            for b in [*child.board(), flip(child.board())] {
                let t = tail_units(&b);
                let mine: i32 = b.iter().map(|&n| i32::from(n.max(0))).sum();
                let theirs: i32 = b.iter().map(|&n| i32::from((-n).max(0))).sum();
                assert_eq!(t[0], f32::from(b[25].max(0)) / 2.0);
                assert_eq!(t[1], (15 - mine) as f32 / 15.0);
                assert_eq!(t[2], f32::from((-b[0]).max(0)) / 2.0);
                assert_eq!(t[3], (15 - theirs) as f32 / 15.0);
                assert_eq!(t[4..4 + FEATURES], features_point_by_point(&b), "{b:?}");
                let other = features_point_by_point(&flip(&b));
                assert_eq!(t[4 + FEATURES..TAIL - 1], other, "{b:?}");
                let contact = if Position::board_is_race(&b) {
                    0.0
                } else {
                    1.0
                };
                assert_eq!(t[TAIL - 1], contact, "{b:?}");
                boards += 1;
            }
        }
        pos = match buf.get(rng.random_range(0..buf.len().max(1))) {
            Some(next) if !next.is_over() => next.pass_turn(),
            _ => Position::initial(),
        };
    }
    assert!(boards > 50_000, "{boards} boards");
}

#[test]
fn features_read_blots_escapes_and_primes() {
    // My blot on my 5-point; one of theirs on my 1-point (their 24)
    // hits it with any 4 (11 rolls), 1-3 and 3-1, 2-2 and 1-1: 15
    // rolls, and it would lose 20 pips. My back pair on 24 faces
    // their points 12..=18 (my numbering), a prime: no escape.
    let mut b = [0i8; 26];
    b[5] = 1;
    b[24] = 2;
    b[6] = 12;
    b[1] = -1;
    for p in &mut b[12..=18] {
        *p = -2;
    }
    let f = side_features(&b);
    assert_eq!(f[1], 15.0 / 36.0, "{f:?}");
    assert_eq!(f[2], 20.0 / 24.0);
    assert_eq!(escapes(&b), 0);
    assert!(!Position::board_is_race(&b));
    // Theirs, seen from their side: a run of seven made points, none
    // at home.
    let g = side_features(&flip(&b));
    assert_eq!(g[4], 1.0);
    assert_eq!(g[5], 0.0);
    // Only 16 and 17 held: the back checker needs 9 pips through open
    // points: 6-3, 5-4, 6-4, 6-5 either way (8 rolls), 3-3, 5-5 and
    // 6-6 (4-4 stops on the 16).
    for p in [12, 13, 14, 15, 18] {
        b[p] = 0;
    }
    assert_eq!(escapes(&b), 11);
    // Nothing ahead: every roll escapes; no contact in a race.
    let mut free = [0i8; 26];
    free[20] = 15;
    free[24] = 0;
    free[23] = -15;
    assert_eq!(escapes(&free), 36);
    assert!(Position::board_is_race(&free));
}

#[test]
fn backgammons_are_possible_only_for_a_side_with_none_off_and_a_way_back() {
    // The start: contact, nobody off: either side can lose one.
    let start = *Position::initial().board();
    assert_eq!(backgammon_possible(&start), [true, true]);
    // ... but far off: nobody bears off yet, the head is not asked.
    assert_eq!(backgammon_in_sight(&start), [false, false]);
    // A race, both sides home: no backgammon either way.
    let mut race = [0i8; 26];
    race[3] = 15;
    race[22] = -15;
    assert_eq!(backgammon_possible(&race), [false, false]);
    // A race with the mover still in the other side's home board
    // (behind its checkers: no contact): it can lose one, not win one.
    let mut straggler = race;
    straggler[3] = 14;
    straggler[20] = 1;
    straggler[22] = 0;
    straggler[23] = -15;
    assert!(Position::board_is_race(&straggler));
    assert_eq!(backgammon_possible(&straggler), [false, true]);
    assert_eq!(backgammon_in_sight(&straggler), [false, true]);
    // Once it bears one off, not even that.
    straggler[3] = 13;
    assert_eq!(backgammon_possible(&straggler), [false, false]);
    // The other side on the bar against the mover: the mover can win one.
    let mut bar = race;
    bar[3] = 14;
    bar[22] = -14;
    bar[0] = -1;
    assert_eq!(backgammon_possible(&bar), [true, false]);
    assert_eq!(backgammon_in_sight(&bar), [true, false]);
    // With none off and a checker still outside its home board, the
    // mover is not bearing off yet: possible, not in sight.
    let mut coming = bar;
    coming[3] = 14;
    coming[9] = 1;
    assert_eq!(backgammon_possible(&coming), [true, true]);
    assert_eq!(backgammon_in_sight(&coming), [false, false]);
}
