//! The bear-off database is exact: its generator is each engine's own move
//! generation on every position and roll, the whole table rebuilt through
//! each engine equals it, brute force agrees on small positions, adding a
//! checker never helps, and it matches GNU Backgammon's own database.

use std::collections::{BTreeMap, HashMap};

use tabula_backgammon::Scoring;
use tabula_bots::bearoff::{
    self, Board, CHECKERS, POSITIONS, Table, bg_board, checkers, index, long_board,
};
use tabula_dice::Dice;

/// A long nardy position: white (to move) has `white` on his home points
/// (the rest off), black `black` on his (black's distance-N point is 12+N).
fn long_pos(white: &Board, black: &Board, variant: tabula_long::Variant) -> tabula_long::Position {
    let mut w = BTreeMap::new();
    let mut b = BTreeMap::new();
    for i in 0..6 {
        if white[i] > 0 {
            w.insert((i + 1).to_string(), i64::from(white[i]));
        }
        if black[i] > 0 {
            b.insert((13 + i).to_string(), i64::from(black[i]));
        }
    }
    let setup = tabula_long::Setup {
        turn: tabula_long::Color::White,
        white: w,
        black: b,
        off: tabula_long::OffCounts {
            white: 15 - checkers(white) as i64,
            black: 15 - checkers(black) as i64,
        },
        first_turn: false,
    };
    tabula_long::Position::from_setup(&setup, variant).unwrap()
}

/// A backgammon position: white (on roll) has `white` on his points 1..=6,
/// black `black` on his.
fn bg_pos(white: &Board, black: &Board) -> tabula_backgammon::Position {
    let mut b = [0i8; 26];
    for i in 0..6 {
        b[i + 1] = white[i] as i8;
        b[24 - i] = -(black[i] as i8);
    }
    tabula_backgammon::Position::from_board(b, tabula_backgammon::Side::White).unwrap()
}

fn sorted(mut v: Vec<Board>) -> Vec<Board> {
    v.sort_unstable();
    v.dedup();
    v
}

/// White's boards after every legal play of `dice`, by tabula-long's
/// generator.
fn long_finals(pos: &tabula_long::Position, dice: Dice) -> Vec<Board> {
    sorted(
        pos.legal_moves(dice)
            .iter()
            .map(|f| long_board(f, tabula_long::Color::White).expect("white stays home"))
            .collect(),
    )
}

fn bg_finals(pos: &tabula_backgammon::Position, dice: Dice) -> Vec<Board> {
    sorted(
        pos.legal_positions(dice)
            .iter()
            .map(|f| bg_board(f, tabula_backgammon::Side::White).expect("white stays home"))
            .collect(),
    )
}

/// Every kept number of two tables agrees.
fn assert_same(a: &Table, b: &Table) {
    for i in 0..POSITIONS {
        assert!((a.mean(i) - b.mean(i)).abs() < 1e-12, "#{i}");
        assert!(
            (a.first_off_mean(i) - b.first_off_mean(i)).abs() < 1e-12,
            "#{i}"
        );
        for k in 0..=bearoff::MAX_ROLLS {
            assert_eq!(a.rolls(i).exactly(k), b.rolls(i).exactly(k), "#{i} {k}");
            assert_eq!(
                a.first_off(i).exactly(k),
                b.first_off(i).exactly(k),
                "#{i} {k}"
            );
        }
    }
}

#[test]
fn the_generator_is_long_nardys_own_on_every_position_and_roll() {
    // Black's checkers somewhere in his home; under both six-block rules
    // (the block of all six home points must stay legal).
    let black: Board = [2, 0, 3, 1, 0, 9];
    let mut checked = 0u64;
    for prime_rule in [
        tabula_long::PrimeRule::OpponentAhead,
        tabula_long::PrimeRule::OpponentHome,
    ] {
        let variant = tabula_long::Variant {
            prime_rule,
            ..tabula_long::Variant::default()
        };
        let engine = Table::build_with(&mut |b, dice| {
            let finals = long_finals(&long_pos(b, &black, variant), dice);
            assert_eq!(finals, bearoff::successors(b, dice), "{b:?} {dice}");
            checked += 1;
            finals
        });
        // The whole table rebuilt through the engine is the fast one.
        assert_same(&engine, Table::shared());
    }
    assert_eq!(checked, 2 * 21 * (POSITIONS as u64 - 1));
}

#[test]
fn the_generator_is_backgammons_own_on_every_position_and_roll() {
    let black: Board = [4, 4, 0, 2, 2, 3];
    let mut checked = 0u64;
    let engine = Table::build_with(&mut |b, dice| {
        let finals = bg_finals(&bg_pos(b, &black), dice);
        assert_eq!(finals, bearoff::successors(b, dice), "{b:?} {dice}");
        checked += 1;
        finals
    });
    assert_same(&engine, Table::shared());
    assert_eq!(checked, 21 * (POSITIONS as u64 - 1));
}

/// Brute force: expected rolls and their distribution by exhaustive
/// recursion over every legal step sequence of every roll (the engines'
/// step-by-step turns, not their final-position generators), memoised by
/// position; each roll's play the one with the fewest expected rolls
/// (ties to the lower gnubg index, as the table breaks them).
struct Brute<F: FnMut(&Board, Dice) -> Vec<Board>> {
    finals: F,
    memo: HashMap<Board, (f64, Vec<f64>)>,
}

impl<F: FnMut(&Board, Dice) -> Vec<Board>> Brute<F> {
    fn solve(&mut self, b: &Board) -> (f64, Vec<f64>) {
        if checkers(b) == 0 {
            return (0.0, vec![1.0]);
        }
        if let Some(v) = self.memo.get(b) {
            return v.clone();
        }
        let mut mean = 1.0;
        let mut dist = vec![0.0; 64];
        for dice in Dice::ALL_21 {
            let mut best: Option<(f64, usize, Vec<f64>)> = None;
            for f in (self.finals)(b, dice) {
                let (m, d) = self.solve(&f);
                let i = index(&f).unwrap();
                let better = match &best {
                    None => true,
                    Some((bm, bi, _)) => m < bm - 1e-12 || (m <= bm + 1e-12 && i < *bi),
                };
                if better {
                    best = Some((m, i, d));
                }
            }
            let (m, _, d) = best.expect("a bear-off roll always plays");
            mean += dice.probability() * m;
            // No bear-off of four checkers takes anywhere near 63 rolls.
            for (k, x) in d.iter().enumerate().take(63) {
                dist[k + 1] += dice.probability() * x;
            }
        }
        self.memo.insert(*b, (mean, dist.clone()));
        (mean, dist)
    }
}

/// Every complete sequence of a long nardy turn, step by step.
fn long_turn_finals(t: &tabula_long::Turn, out: &mut Vec<Board>) {
    if t.is_complete() {
        let f = t.finish().unwrap();
        out.push(long_board(&f, tabula_long::Color::White).unwrap());
        return;
    }
    for s in t.legal_steps() {
        let mut next = t.clone();
        next.play_step(s).unwrap();
        long_turn_finals(&next, out);
    }
}

/// Every complete sequence of a backgammon turn, step by step.
fn bg_turn_finals(t: &tabula_backgammon::Turn, out: &mut Vec<Board>) {
    if t.is_complete() {
        let f = t.finish().unwrap();
        out.push(bg_board(&f, tabula_backgammon::Side::White).unwrap());
        return;
    }
    let mut dice = t.remaining_dice().to_vec();
    dice.dedup();
    for d in dice {
        for from in 1..=6u8 {
            let mut next = t.clone();
            if next.step(from, d).is_ok() {
                bg_turn_finals(&next, out);
            }
        }
    }
}

fn small_positions() -> impl Iterator<Item = (usize, Board)> {
    bearoff::boards()
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, b)| (1..=4).contains(&checkers(b)))
}

fn check_brute(name: &str, brute: &mut Brute<impl FnMut(&Board, Dice) -> Vec<Board>>) {
    let t = Table::shared();
    let mut n = 0;
    for (i, b) in small_positions() {
        let (mean, dist) = brute.solve(&b);
        assert!((t.mean(i) - mean).abs() < 1e-12, "{name} {b:?}");
        for (k, &x) in dist.iter().enumerate() {
            assert!((t.rolls(i).exactly(k) - x).abs() < 1e-7, "{name} {b:?} {k}");
        }
        n += 1;
    }
    // C(10, 6) positions of at most 4 checkers, less the empty one.
    assert_eq!(n, 209);
}

#[test]
fn brute_force_agrees_on_every_position_of_one_to_four_checkers() {
    let black: Board = [0, 0, 0, 0, 0, 15];
    let v = tabula_long::Variant::default();
    check_brute(
        "long nardy",
        &mut Brute {
            finals: |b: &Board, dice| {
                let mut out = Vec::new();
                long_turn_finals(&long_pos(b, &black, v).turn_with(dice), &mut out);
                sorted(out)
            },
            memo: HashMap::new(),
        },
    );
    check_brute(
        "backgammon",
        &mut Brute {
            finals: |b: &Board, dice| {
                let mut out = Vec::new();
                bg_turn_finals(
                    &tabula_backgammon::Turn::new(&bg_pos(b, &black), dice),
                    &mut out,
                );
                sorted(out)
            },
            memo: HashMap::new(),
        },
    );
}

#[test]
fn adding_a_checker_never_lowers_the_expected_rolls() {
    let t = Table::shared();
    for (i, b) in bearoff::boards().iter().enumerate() {
        for q in 0..6 {
            // One more checker on point q+1.
            if checkers(b) < CHECKERS {
                let mut more = *b;
                more[q] += 1;
                let j = index(&more).unwrap();
                assert!(t.mean(j) >= t.mean(i) - 1e-12, "{b:?} + {}", q + 1);
            }
        }
        // Distributions are distributions; the mean is theirs.
        for d in [t.rolls(i), t.first_off(i)] {
            let total: f64 = (0..=d.last()).map(|k| d.exactly(k)).sum();
            assert!((total - 1.0).abs() < 1e-5, "{b:?}: {total}");
            assert_eq!(d.within(d.last()), 1.0);
        }
        let m: f64 = (0..=t.rolls(i).last())
            .map(|k| k as f64 * t.rolls(i).exactly(k))
            .sum();
        assert!((m - t.mean(i)).abs() < 1e-5, "{b:?}: {m} vs {}", t.mean(i));
        // A checker already off: the first one costs no roll.
        if checkers(b) < CHECKERS {
            assert_eq!(t.first_off_mean(i), 0.0);
        }
    }
    // Moving a checker back is not always worse: with 2-1 the ace-point
    // pair and a 6 must play 6/4 6/5-or-1/off, while 1-2-6 bears the deuce
    // and the ace off.
    let mean = |b: Board| t.mean(index(&b).unwrap());
    assert!(mean([1, 1, 0, 0, 0, 1]) < mean([2, 0, 0, 0, 0, 1]));
}

#[test]
fn known_values() {
    let t = Table::shared();
    let at = |b: Board| index(&b).unwrap();
    // Fifteen on the ace point: Trice's N-roll rule (EPC = 7N + 1 = 57 for
    // N = 7) and gnubg's 6.980 rolls; each roll takes two off, a double
    // four, so the exact value is a short recursion on the count.
    fn ace(n: i32) -> f64 {
        if n <= 0 {
            return 0.0;
        }
        1.0 + 30.0 / 36.0 * ace(n - 2) + 6.0 / 36.0 * ace(n - 4)
    }
    let i = at([15, 0, 0, 0, 0, 0]);
    assert!((t.mean(i) - ace(15)).abs() < 1e-12);
    assert!((t.mean(i) - 6.980).abs() < 5e-4);
    assert!((t.mean(i) * 49.0 / 6.0 - 57.0).abs() < 0.1);
    // gnubg 1.07's gnubg_os0.bd (bearoffdump -n 54263, 43691, 21):
    // fifteen on the 6-point 12.266 rolls (13 rolls 26.160 %, first
    // checker off in 1.616 rolls); 3-3-3-2-2-2 from the 1-point 7.555;
    // one on the 6-point and one on the 3-point 1.754.
    let six = at([0, 0, 0, 0, 0, 15]);
    assert!((t.mean(six) - 12.266).abs() < 5e-4);
    assert!((t.rolls(six).exactly(13) - 0.26160).abs() < 5e-5);
    assert!((t.first_off_mean(six) - 1.616).abs() < 5e-4);
    assert!((t.mean(at([3, 3, 3, 2, 2, 2])) - 7.555).abs() < 5e-4);
    assert_eq!(bearoff::boards()[21], [0, 0, 1, 0, 0, 1]);
    assert!((t.mean(21) - 1.754).abs() < 5e-4);
}

#[test]
fn races_are_won_and_gammoned_as_counted_by_hand() {
    let t = Table::shared();
    // On roll with a one-roll position: always wins; a gammon if the other
    // has all fifteen on the board.
    let r = t.race(&[2, 0, 0, 0, 0, 0], &[0, 0, 0, 0, 0, 15]);
    assert_eq!((r.win, r.win_gammon, r.lose_gammon), (1.0, 1.0, 0.0));
    let r = t.race(&[2, 0, 0, 0, 0, 0], &[1, 0, 0, 0, 0, 0]);
    assert_eq!((r.win, r.win_gammon), (1.0, 0.0));
    // Two rolls (four on the ace) against one: only a double wins (1/6).
    let r = t.race(&[4, 0, 0, 0, 0, 0], &[2, 0, 0, 0, 0, 0]);
    assert!((r.win - 1.0 / 6.0).abs() < 1e-7, "{r:?}");
    // Seen from the other side.
    assert!((r.flip().win - 5.0 / 6.0).abs() < 1e-7);
    assert!((r.equity(1.0) - (2.0 / 6.0 - 1.0)).abs() < 1e-7);
    // Fifteen on the 6-point each: the side on roll is the favourite,
    // and the chances add up.
    let s = [0, 0, 0, 0, 0, 15];
    let r = t.race(&s, &s);
    assert!((0.5..0.7).contains(&r.win), "{r:?}");
    assert!(r.win_gammon < 1e-6 && r.lose_gammon < 1e-6, "{r:?}");
    // Fifteen on the ace against fifteen on the 6-point: a near-certain
    // win, the 6-point side bearing one off in time almost always.
    let r = t.race(&[15, 0, 0, 0, 0, 0], &s);
    assert!(r.win > 0.99 && r.win_gammon < 0.01, "{r:?}");
}

/// gnubg's `gnubg_os0.bd` (6 points, 15 checkers, gammon distributions,
/// compressed: a 40-byte header, 8 bytes of index per position, then the
/// 16-bit fixed-point probabilities), position by position.
fn gnubg_os0() -> Option<Vec<[Vec<f64>; 2]>> {
    let raw = std::fs::read("/usr/share/gnubg/gnubg_os0.bd").ok()?;
    assert!(
        raw.starts_with(b"gnubg-OS-06-15-1-1"),
        "an unexpected gnubg_os0.bd"
    );
    let data = 40 + 8 * POSITIONS;
    let mut out = Vec::with_capacity(POSITIONS);
    for i in 0..POSITIONS {
        let e = &raw[40 + 8 * i..48 + 8 * i];
        let at = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize;
        let (nz, ioff, nzg, ioffg) = (e[4] as usize, e[5] as usize, e[6] as usize, e[7] as usize);
        let read = |k: usize| {
            let o = data + 2 * (at + k);
            f64::from(u16::from_le_bytes([raw[o], raw[o + 1]])) / 65535.0
        };
        let mut all = vec![0.0; 32];
        let mut first = vec![0.0; 32];
        for k in 0..nz {
            all[ioff + k] = read(k);
        }
        for k in 0..nzg {
            first[ioffg + k] = read(nz + k);
        }
        out.push([all, first]);
    }
    Some(out)
}

#[test]
#[allow(clippy::print_stderr)] // the figures RESULTS.md quotes
fn it_is_gnu_backgammons_one_sided_database() {
    let Some(gnubg) = gnubg_os0() else {
        // GNU Backgammon is not installed here (./scripts/test installs it).
        return;
    };
    let t = Table::shared();
    let mut worst = [0.0f64; 2];
    let mut worst_mean = 0.0f64;
    for (i, [all, first]) in gnubg.iter().enumerate() {
        for k in 0..32 {
            worst[0] = worst[0].max((t.rolls(i).exactly(k) - all[k]).abs());
            worst[1] = worst[1].max((t.first_off(i).exactly(k) - first[k]).abs());
        }
        let mean: f64 = all.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
        worst_mean = worst_mean.max((t.mean(i) - mean).abs());
    }
    // gnubg rounds every probability to 1/65535 and builds on the rounded
    // values (and sometimes picks among plays whose means differ by less
    // than its rounding); nothing more than that separates the two.
    // Where gnubg's rounding made it pick another play among plays of
    // (nearly) equal means, the mean agrees and the distribution differs
    // a little: 5 positions by more than 0.001 (the most 0.0028, at
    // 1-0-4-1-3-0, whose means agree to 4e-6).
    let off = (0..POSITIONS)
        .filter(|&i| (0..32).any(|k| (t.rolls(i).exactly(k) - gnubg[i][0][k]).abs() > 1e-3))
        .count();
    eprintln!(
        "gnubg_os0.bd: largest differences {worst:?}, of means {worst_mean:e}; {off} over 0.001"
    );
    assert!(worst[0] < 5e-3 && off <= 8, "{worst:?} {off}");
    assert!(worst[1] < 1e-4, "{worst:?}");
    assert!(worst_mean < 5e-4, "{worst_mean}");
}

/// Random bear-off positions: each side's checkers dealt at random onto
/// its home points (some already off), white to move.
fn random_boards(seed: u64, n: usize) -> Vec<(Board, Board)> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let deal = |rng: &mut rand_chacha::ChaCha8Rng| {
        let mut b = [0u8; 6];
        let on = rng.random_range(1..=15);
        for _ in 0..on {
            b[rng.random_range(0..6)] += 1;
        }
        b
    };
    (0..n).map(|_| (deal(&mut rng), deal(&mut rng))).collect()
}

#[test]
fn hard_plays_bear_offs_by_the_database_and_the_hints_agree() {
    use tabula_bots::{Bot, Level, hint};
    let rolls: Vec<Dice> = Dice::ALL_21.to_vec();
    let mut differs = [0usize; 2];
    for (k, (w, b)) in random_boards(3, 150).into_iter().enumerate() {
        let dice = rolls[k % 21];
        // Backgammon.
        let pos = bg_pos(&w, &b);
        let plays = pos.legal_plays(dice);
        let eq = |f: &tabula_backgammon::Position| bearoff::bg_equity(f).unwrap();
        let best = plays.iter().map(|(_, f)| eq(f)).fold(f64::MIN, f64::max);
        let play = |bot: &mut Bot| {
            let mut t = tabula_backgammon::Turn::new(&pos, dice);
            for (f, to) in bot
                .choose_play(tabula_bots::Position::Backgammon(&pos), Some(dice))
                .and_then(tabula_bots::Play::into_backgammon)
                .unwrap_or_default()
            {
                t.step_to(f, to).unwrap();
            }
            t.finish().unwrap()
        };
        assert!((eq(&play(&mut Bot::new(Level::Hard, 1))) - best).abs() < 1e-12);
        let without = eq(&play(&mut Bot::new(Level::Hard, 1).without_bearoff()));
        differs[0] += usize::from(without < best - 1e-9);
        let hints = hint::backgammon(&pos, dice, Scoring::Gammons, 16, 1);
        assert_eq!(hints.len(), plays.len());
        assert!((hints[0].score - best).abs() < 1e-12);
        for h in &hints {
            assert_eq!(h.rollouts, 0, "the database is exact: nothing rolled out");
            assert_eq!(h.equity, h.score);
        }
        // Long nardy, the same boards.
        let pos = long_pos(&w, &b, tabula_long::Variant::default());
        let me = tabula_long::Color::White;
        let finals = pos.legal_moves(dice);
        let eq = |f: &tabula_long::Position| bearoff::long_equity(f, me).unwrap();
        let best = finals.iter().map(eq).fold(f64::MIN, f64::max);
        let after = |bot: &mut Bot| {
            pos.play_unchecked(
                &bot.choose_play(tabula_bots::Position::Long(&pos), Some(dice))
                    .and_then(tabula_bots::Play::into_long)
                    .unwrap_or_default(),
            )
        };
        assert!((eq(&after(&mut Bot::new(Level::Hard, 1))) - best).abs() < 1e-12);
        let without = eq(&after(&mut Bot::new(Level::Hard, 1).without_bearoff()));
        differs[1] += usize::from(without < best - 1e-9);
        let hints = hint::long_nardy(&pos, dice, 16, 1);
        assert!((hints[0].score - best).abs() < 1e-12);
        assert!(
            hints
                .iter()
                .all(|h| h.rollouts == 0 && (0.0..=1.0).contains(&h.win))
        );
    }
    // The database changes Hard's play in some of these bear-offs.
    assert!(differs[0] > 0 && differs[1] > 0, "{differs:?}");
}

#[test]
fn mars_counts_where_the_scoring_counts_it() {
    // White to move can save the mars only by bearing a checker off now;
    // black is all but home free. Under oin/mars scoring the database's
    // equity counts the mars, under single scoring it does not.
    let white: Board = [0, 0, 0, 0, 0, 15];
    let black: Board = [2, 0, 0, 0, 0, 0];
    for (scoring, mars) in [
        (tabula_long::Scoring::OinMarsKoks, true),
        (tabula_long::Scoring::OinMars, true),
        (tabula_long::Scoring::Single, false),
    ] {
        let v = tabula_long::Variant {
            scoring,
            ..tabula_long::Variant::default()
        };
        let pos = long_pos(&white, &black, v);
        let r = bearoff::long_race(&pos).unwrap();
        // White cannot win; he escapes the mars only by bearing a checker
        // off with this roll: any 6 (11 rolls), 5-1 and 4-2 (2 each), 3-3
        // and 2-2 — 17 of 36; a larger die than needed cannot bear off a
        // checker that is not the farthest.
        assert_eq!(r.win, 0.0);
        assert!((r.lose_gammon - 19.0 / 36.0).abs() < 1e-6, "{r:?}");
        let e = r.equity(bearoff::long_gammon_value(&pos));
        let want = if mars { -1.0 - 19.0 / 36.0 } else { -1.0 };
        assert!((e - want).abs() < 1e-6, "{scoring:?}: {e}");
    }
}
