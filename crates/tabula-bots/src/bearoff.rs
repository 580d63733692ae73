//! Exact one-sided bear-off databases for long nardy and backgammon, as
//! GNU Backgammon's one-sided bear-off database (`gnubg_os0.bd`, made by
//! its `makebearoff`) defines them.
//!
//! For every position of up to 15 checkers on a side's six home points
//! (C(21, 6) = [`POSITIONS`] = 54,264 of them, numbered as gnubg's
//! `PositionBearoff` numbers them, so index 0 is "all off", 1..=6 one
//! checker on the 1- to 6-point, 54,263 fifteen on the 6-point), the table
//! holds:
//!
//! * the expected number of rolls to bear every checker off, and the
//!   distribution of that number (P(done in exactly k rolls)), the mover
//!   choosing for each roll the play that minimises the expected rolls left
//!   (the one-sided optimum, as gnubg's `makebearoff` does);
//! * for positions with all 15 checkers still on the board, the same for the
//!   roll on which the **first** checker comes off (the mover now minimising
//!   the expected rolls to get one off), which gives the chance of a gammon
//!   (backgammon) or mars (long nardy: the loser has borne off none); any
//!   position with a checker already off has it at 0 rolls. gnubg keeps the
//!   same second distribution ("bearing at least one chequer off").
//!
//! A distribution is kept from its first possible roll to the roll after
//! which less than [`TAIL`] (1e-9) of its mass remains; the dropped tail is
//! counted as done at the last kept roll, so [`Dist::within`] reaches 1
//! there. The longest kept distribution ends at 21 rolls (fifteen on the
//! 6-point); the exact supports are finite and the build checks they stay
//! under [`MAX_ROLLS`] (gnubg keeps a fixed 32). Means are computed from
//! the untruncated distributions in `f64`; kept probabilities are `f32`.
//! Where two plays leave exactly equal expected rolls (within 1e-12) the
//! one whose final position has the lower index is taken, so the table
//! never depends on the order plays are generated in.
//!
//! **Both games share one table.** With both sides' checkers all in their
//! home boards nothing of the opponent can be in the way (backgammon: no
//! contact; long nardy: the opponent's home is the other half of the
//! route), and the two rulebooks bear off alike: a die equal to a checker's
//! distance bears it off, a larger die bears off only from the farthest
//! occupied point, moving inside home is always allowed, doubles play four
//! times, and the turn ends when the last checker is off. Long nardy's
//! six-block rule never forbids a home-board move here (under
//! `opponent_ahead` every opponent checker has passed the block; under
//! `opponent_home` the opponent has checkers home). The generator here
//! ([`successors`]) is proved equal to **both** engines' own move
//! generation, on every position and every roll, by this crate's tests
//! (`tests/bearoff.rs`), which also rebuild the whole table through each
//! engine's generator and compare it with this one, and compare it with
//! gnubg's own `gnubg_os0.bd` where GNU Backgammon is installed.
//!
//! The table is built at first use ([`Table::shared`]) rather than
//! checked in: about 50 ms on the shared 2-vCPU development machine
//! (`cargo run --release -p tabula-bots --example bearoff_build`;
//! RESULTS.md), 4.1 MB in memory (603,098 `f32` probabilities, two `f64`
//! means and two spans per position). `tabula bearoff --out` writes it in
//! gnubg's file format (1.4 MB) for anyone who wants to look.
//!
//! [`race`](Table::race) turns two one-sided distributions into the chances
//! of a bear-off race with one side on roll (as gnubg's one-sided bear-off
//! evaluation does: the sides' roll counts independent, each side playing
//! its one-sided optimum); [`long_race`] and [`bg_race`] read them off a
//! game position once both sides are bearing off.

use std::fmt;
use std::sync::OnceLock;

use tabula_dice::Dice;

/// Home points a side bears off from.
pub const POINTS: usize = 6;
/// Checkers a side has.
pub const CHECKERS: usize = 15;
/// Positions of up to 15 checkers on 6 points: C(21, 6).
pub const POSITIONS: usize = 54_264;
/// The mass below which a distribution's tail is dropped.
pub const TAIL: f64 = 1e-9;
/// No bear-off takes more rolls than this (the build checks it).
pub const MAX_ROLLS: usize = 40;

/// A side's checkers on its home points: `board[i]` holds the checkers
/// `i + 1` pips from off (backgammon: the (i+1)-point; long nardy: white's
/// point i+1, black's point 13+i).
pub type Board = [u8; POINTS];

/// Binomial coefficients C(n, k) for n ≤ 21.
const BINOM: [[u32; 22]; 22] = {
    let mut c = [[0u32; 22]; 22];
    let mut n = 0;
    while n < 22 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
};

/// The checkers on `b`.
pub fn checkers(b: &Board) -> usize {
    b.iter().map(|&n| usize::from(n)).sum()
}

/// gnubg's number for a position (`PositionBearoff(anBoard, 6, 15)`): the
/// rank, in the combinatorial number system, of the 21-bit string that
/// writes each point's checkers as ones and separates the points by six
/// zeros. gnubg walks the bits (`PositionF`); the same sum in closed form
/// is Σₘ C(5 − m + Sₘ, 6 − m) over m = 0..6, Sₘ the checkers on the
/// points m+1..=6 (the tests check it against gnubg's walk on every
/// position). `None` for more than 15 checkers.
pub fn index(b: &Board) -> Option<usize> {
    if checkers(b) > CHECKERS {
        return None;
    }
    let mut suffix = 0usize;
    let mut idx = 0usize;
    for m in (0..POINTS).rev() {
        suffix += usize::from(b[m]);
        idx += BINOM[POINTS - 1 - m + suffix][POINTS - m] as usize;
    }
    Some(idx)
}

/// Every position, by index.
pub fn boards() -> &'static [Board] {
    static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
    BOARDS.get_or_init(|| {
        let mut out = vec![[0u8; POINTS]; POSITIONS];
        let mut b = [0u8; POINTS];
        loop {
            if let Some(i) = index(&b) {
                out[i] = b;
            }
            // The next board in base 16, skipping those over 15 checkers.
            let mut k = 0;
            loop {
                if k == POINTS {
                    return out;
                }
                b[k] += 1;
                if checkers(&b) <= CHECKERS {
                    break;
                }
                b[k] = 0;
                k += 1;
            }
        }
    })
}

/// The distinct positions one step of `die` leads to from `b` (none when
/// `b` is empty). A die equal to a checker's distance bears it off; a
/// larger die bears off only from the farthest occupied point; a checker
/// farther than the die moves down by it (nothing blocks in a home board).
pub fn steps(b: &Board, die: u8) -> impl Iterator<Item = Board> + '_ {
    let d = usize::from(die);
    let high = (1..=POINTS).rev().find(|&q| b[q - 1] > 0).unwrap_or(0);
    (1..=POINTS).filter_map(move |q| {
        if b[q - 1] == 0 || (q < d && q != high) {
            return None;
        }
        let mut next = *b;
        next[q - 1] -= 1;
        if q > d {
            next[q - d - 1] += 1;
        }
        Some(next)
    })
}

/// The distinct positions after a whole legal play of `dice` from `b`
/// (sorted), as both engines' move generation gives them: both dice (four
/// of a double) are played in any order, the turn ending early only when
/// the last checker is off. Every die is always playable while a checker
/// is left, so the use-both-dice and larger-die rules never bite.
pub fn successors(b: &Board, dice: Dice) -> Vec<Board> {
    let moves: Vec<u8> = if dice.is_double() {
        vec![dice.first(); 4]
    } else {
        vec![dice.first(), dice.second()]
    };
    let mut out = Vec::new();
    let mut orders = vec![moves.clone()];
    if !dice.is_double() {
        orders.push(vec![moves[1], moves[0]]);
    }
    for order in orders {
        let mut level = vec![*b];
        for &d in &order {
            let mut next = Vec::new();
            for p in &level {
                if checkers(p) == 0 {
                    next.push(*p);
                } else {
                    next.extend(steps(p, d));
                }
            }
            next.sort_unstable();
            next.dedup();
            level = next;
        }
        out.extend(level);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A distribution of a number of rolls: `P(exactly k)` for `k` from
/// [`Dist::first`] on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dist<'a> {
    lo: usize,
    p: &'a [f32],
}

impl Dist<'_> {
    /// The fewest rolls with a chance (0 for a position already done).
    pub fn first(&self) -> usize {
        self.lo
    }

    /// The last roll kept; [`Dist::within`] is 1 from here on.
    pub fn last(&self) -> usize {
        self.lo + self.p.len() - 1
    }

    /// P(exactly `k` rolls).
    pub fn exactly(&self, k: usize) -> f64 {
        if k < self.lo {
            return 0.0;
        }
        self.p.get(k - self.lo).map_or(0.0, |&x| f64::from(x))
    }

    /// P(done within `k` rolls).
    pub fn within(&self, k: usize) -> f64 {
        if k < self.lo {
            0.0
        } else if k >= self.last() {
            1.0
        } else {
            self.p[..=k - self.lo].iter().map(|&x| f64::from(x)).sum()
        }
    }

    /// `within(k)` for k = 0..MAX_ROLLS.
    fn cdf(&self) -> [f64; MAX_ROLLS + 1] {
        let mut c = [1.0; MAX_ROLLS + 1];
        let mut acc = 0.0;
        for (k, ck) in c.iter_mut().enumerate().take(self.last()) {
            acc += self.exactly(k);
            *ck = acc;
        }
        c
    }
}

/// Where one position's kept probabilities lie in [`Table`]'s store.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    at: u32,
    lo: u8,
    len: u8,
}

/// The one-sided bear-off database (see the module documentation).
#[derive(Clone)]
pub struct Table {
    mean: Vec<f64>,
    first_mean: Vec<f64>,
    all: Vec<Span>,
    first: Vec<Span>,
    probs: Vec<f32>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("positions", &self.mean.len())
            .field("probabilities", &self.probs.len())
            .field("bytes", &self.bytes())
            .finish()
    }
}

/// What a side is trying to do: bear everything off, or just one checker.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Goal {
    AllOff,
    FirstOff,
}

impl Goal {
    fn done(self, b: &Board) -> bool {
        match self {
            Goal::AllOff => checkers(b) == 0,
            Goal::FirstOff => checkers(b) < CHECKERS,
        }
    }
}

/// One goal's exact (untruncated) results, by index.
struct Solved {
    mean: Vec<f64>,
    /// Each position's `P(exactly k)` from its first possible roll on, in
    /// `probs`.
    spans: Vec<Span>,
    probs: Vec<f64>,
}

impl Solved {
    fn with_capacity() -> Solved {
        Solved {
            mean: vec![0.0; POSITIONS],
            spans: Vec::with_capacity(POSITIONS),
            probs: Vec::with_capacity(16 * POSITIONS),
        }
    }

    fn dist(&self, i: usize) -> (usize, &[f64]) {
        let s = self.spans[i];
        let at = s.at as usize;
        (usize::from(s.lo), &self.probs[at..at + usize::from(s.len)])
    }

    /// A position already done: 0 rolls.
    fn push_done(&mut self) {
        self.spans.push(Span {
            at: self.probs.len() as u32,
            lo: 0,
            len: 1,
        });
        self.probs.push(1.0);
    }

    /// Adds `pr` times the distribution of `f`, one roll later, to `acc`.
    fn add_after(&self, acc: &mut [f64; MAX_ROLLS + 2], pr: f64, f: usize) {
        let (lo, p) = self.dist(f);
        for (a, &x) in acc[lo + 1..].iter_mut().zip(p) {
            *a += pr * x;
        }
    }

    /// Stores `acc` (from its first to its last non-zero entry) as the
    /// next position's distribution.
    fn push(&mut self, acc: &[f64; MAX_ROLLS + 2]) {
        assert!(
            acc[MAX_ROLLS + 1] == 0.0,
            "a bear-off past {MAX_ROLLS} rolls"
        );
        let lo = acc.iter().position(|&x| x > 0.0).unwrap_or(0);
        let hi = acc.iter().rposition(|&x| x > 0.0).unwrap_or(0);
        self.spans.push(Span {
            at: self.probs.len() as u32,
            lo: lo as u8,
            len: (hi + 1 - lo) as u8,
        });
        self.probs.extend_from_slice(&acc[lo..=hi]);
    }
}

/// Values closer than this are a tie, broken by the lower final index.
const TIE: f64 = 1e-12;

/// Whether `(value, final)` `a` beats `b` (lower value; ties to the lower
/// final index, so the choice never depends on the order of generation).
#[inline]
fn better(a: (f64, u32), b: (f64, u32)) -> bool {
    a.0 < b.0 - TIE || (a.0 <= b.0 + TIE && a.1 < b.1)
}

/// One goal's table from any generator of a roll's distinct finals (by
/// index): positions in index order (every play lowers the index,
/// checked), each roll's final the one with the fewest expected rolls
/// left.
fn solve_with(goal: Goal, finals: &mut dyn FnMut(usize, usize) -> Vec<usize>) -> Solved {
    let mut out = Solved::with_capacity();
    for (i, b) in boards().iter().enumerate() {
        if goal.done(b) {
            out.push_done();
            continue;
        }
        let mut acc = [0.0f64; MAX_ROLLS + 2];
        let mut e = 1.0;
        for (r, dice) in Dice::ALL_21.into_iter().enumerate() {
            let mut best = (f64::INFINITY, u32::MAX);
            for f in finals(i, r) {
                assert!(f < i, "a play from {b:?} raised the index");
                let cand = (out.mean[f], f as u32);
                if better(cand, best) {
                    best = cand;
                }
            }
            let pr = dice.probability();
            e += pr * best.0;
            out.add_after(&mut acc, pr, best.1 as usize);
        }
        out.mean[i] = e;
        out.push(&acc);
    }
    out
}

/// Each position's single steps, by die: `to[i][d - 1][..n[i][d - 1]]`.
struct Steps {
    to: Vec<[[u32; POINTS]; 6]>,
    n: Vec<[u8; 6]>,
}

impl Steps {
    fn new() -> Steps {
        let boards = boards();
        let mut to = vec![[[0u32; POINTS]; 6]; POSITIONS];
        let mut n = vec![[0u8; 6]; POSITIONS];
        for (i, b) in boards.iter().enumerate() {
            for d in 0..6 {
                for s in steps(b, d as u8 + 1) {
                    if let Some(j) = index(&s) {
                        to[i][d][usize::from(n[i][d])] = j as u32;
                        n[i][d] += 1;
                    }
                }
            }
        }
        Steps { to, n }
    }

    #[inline]
    fn of(&self, i: usize, d: usize) -> &[u32] {
        &self.to[i][d][..usize::from(self.n[i][d])]
    }
}

/// The fast build: the same recursion, with the best final of every
/// partial turn memoised per position and die, so a roll's best final is a
/// minimum over at most 12 stored finals (a partial turn is worth its
/// final's expected rolls).
#[allow(clippy::needless_range_loop)] // d indexes the dice and left's rows alike
fn solve_fast(goal: Goal, steps: &Steps) -> Solved {
    let mut out = Solved::with_capacity();
    // left[i][d-1][k]: the best final from position i with k+1 more steps
    // of die d to play this turn.
    let mut left = vec![[[0u32; 3]; 6]; POSITIONS];
    for (i, b) in boards().iter().enumerate() {
        if goal.done(b) {
            out.push_done();
            left[i] = [[i as u32; 3]; 6];
            continue;
        }
        let mean = &out.mean;
        let value = |f: u32| (mean[f as usize], f);
        let mut acc = [0.0f64; MAX_ROLLS + 2];
        let mut e = 1.0;
        for dice in Dice::ALL_21 {
            let (a, b2) = (
                usize::from(dice.first()) - 1,
                usize::from(dice.second()) - 1,
            );
            let mut best = (f64::INFINITY, u32::MAX);
            if a == b2 {
                for &s in steps.of(i, a) {
                    let c = value(left[s as usize][a][2]);
                    if better(c, best) {
                        best = c;
                    }
                }
            } else {
                for (x, y) in [(a, b2), (b2, a)] {
                    for &s in steps.of(i, x) {
                        let c = value(left[s as usize][y][0]);
                        if better(c, best) {
                            best = c;
                        }
                    }
                }
            }
            let pr = dice.probability();
            e += pr * best.0;
            out.add_after(&mut acc, pr, best.1 as usize);
        }
        out.mean[i] = e;
        out.push(&acc);
        let mean = &out.mean;
        let value = |f: u32| (mean[f as usize], f);
        for d in 0..6 {
            let mut row = [(f64::INFINITY, u32::MAX); 3];
            for &s in steps.of(i, d) {
                let cands = [
                    value(s),
                    value(left[s as usize][d][0]),
                    value(left[s as usize][d][1]),
                ];
                for k in 0..3 {
                    if better(cands[k], row[k]) {
                        row[k] = cands[k];
                    }
                }
            }
            left[i][d] = row.map(|(_, f)| f);
        }
    }
    out
}

impl Table {
    /// The table, built once on first use and shared.
    pub fn shared() -> &'static Table {
        static TABLE: OnceLock<Table> = OnceLock::new();
        TABLE.get_or_init(Table::build)
    }

    /// Builds the table (the fast way: single steps memoised per position).
    pub fn build() -> Table {
        let steps = Steps::new();
        Table::from_solved(
            &solve_fast(Goal::AllOff, &steps),
            &solve_fast(Goal::FirstOff, &steps),
        )
    }

    /// Builds the table from another generator of a roll's distinct final
    /// positions (`finals(board, dice)`), for instance a game engine's own
    /// move generation restricted to the home board (the tests and `tabula
    /// bearoff` do so). A position reached twice counts once.
    pub fn build_with(finals: &mut dyn FnMut(&Board, Dice) -> Vec<Board>) -> Table {
        // One call per position and roll, shared by both goals.
        let mut memo: Vec<[Vec<usize>; 21]> = Vec::with_capacity(POSITIONS);
        for b in boards() {
            memo.push(std::array::from_fn(|r| {
                if checkers(b) == 0 {
                    return Vec::new();
                }
                let mut v: Vec<usize> = finals(b, Dice::ALL_21[r])
                    .iter()
                    .map(|f| index(f).expect("a final has at most 15 checkers"))
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            }));
        }
        let mut get = |i: usize, r: usize| memo[i][r].clone();
        let all = solve_with(Goal::AllOff, &mut get);
        let first = solve_with(Goal::FirstOff, &mut get);
        Table::from_solved(&all, &first)
    }

    fn from_solved(all: &Solved, first: &Solved) -> Table {
        let mut probs = Vec::new();
        let mut keep = |solved: &Solved, i: usize| -> Span {
            let (lo, p) = solved.dist(i);
            // Drop the tail once less than TAIL remains after a roll.
            let mut tail = 0.0;
            let mut len = p.len();
            while len > 1 && tail + p[len - 1] < TAIL {
                tail += p[len - 1];
                len -= 1;
            }
            let span = Span {
                at: probs.len() as u32,
                lo: lo as u8,
                len: len as u8,
            };
            probs.extend(p[..len].iter().map(|&x| x as f32));
            // The dropped tail is counted as done at the last kept roll.
            if let Some(last) = probs.last_mut() {
                *last += tail as f32;
            }
            span
        };
        let all_spans: Vec<Span> = (0..POSITIONS).map(|i| keep(all, i)).collect();
        let first_spans: Vec<Span> = (0..POSITIONS).map(|i| keep(first, i)).collect();
        Table {
            mean: all.mean.clone(),
            first_mean: first.mean.clone(),
            all: all_spans,
            first: first_spans,
            probs,
        }
    }

    fn dist(&self, s: Span) -> Dist<'_> {
        let at = s.at as usize;
        Dist {
            lo: usize::from(s.lo),
            p: &self.probs[at..at + usize::from(s.len)],
        }
    }

    /// The expected rolls to bear off every checker of position `i`.
    pub fn mean(&self, i: usize) -> f64 {
        self.mean[i]
    }

    /// The distribution of the rolls to bear off every checker.
    pub fn rolls(&self, i: usize) -> Dist<'_> {
        self.dist(self.all[i])
    }

    /// The expected rolls until the first checker is off (0 once one is).
    pub fn first_off_mean(&self, i: usize) -> f64 {
        self.first_mean[i]
    }

    /// The distribution of the rolls until the first checker is off.
    pub fn first_off(&self, i: usize) -> Dist<'_> {
        self.dist(self.first[i])
    }

    /// The memory the table takes, in bytes.
    pub fn bytes(&self) -> usize {
        8 * (self.mean.len() + self.first_mean.len())
            + std::mem::size_of::<Span>() * (self.all.len() + self.first.len())
            + 4 * self.probs.len()
    }

    /// A bear-off race: the chances of the side on roll, its checkers
    /// `on_roll` and the other side's `other` (each side's count of rolls
    /// independent, each playing its one-sided optimum). A side on roll
    /// that finishes on its k-th roll wins if the other has not finished
    /// in k − 1; it wins a gammon / mars if by then the other has not
    /// borne off a checker (only possible while he has all 15).
    pub fn race(&self, on_roll: &Board, other: &Board) -> Race {
        let (Some(a), Some(b)) = (index(on_roll), index(other)) else {
            return Race::default();
        };
        let (pa, pb) = (self.rolls(a), self.rolls(b));
        let (fa, fb) = (self.first_off(a).cdf(), self.first_off(b).cdf());
        let cb = pb.cdf();
        let mut win = 0.0;
        let mut win_gammon = 0.0;
        for k in pa.first()..=pa.last() {
            let p = pa.exactly(k);
            let before = k.checked_sub(1);
            win += p * (1.0 - before.map_or(0.0, |j| cb[j]));
            win_gammon += p * (1.0 - before.map_or(0.0, |j| fb[j]));
        }
        let mut lose_gammon = 0.0;
        for j in pb.first()..=pb.last() {
            lose_gammon += pb.exactly(j) * (1.0 - fa[j.min(MAX_ROLLS)]);
        }
        let clamp = |x: f64| x.clamp(0.0, 1.0);
        Race {
            win: clamp(win),
            win_gammon: clamp(win_gammon).min(clamp(win)),
            lose_gammon: clamp(lose_gammon).min(1.0 - clamp(win)),
        }
    }
}

/// The chances of a bear-off race for the side on roll.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Race {
    /// It wins.
    pub win: f64,
    /// It wins a gammon (backgammon) / mars (long nardy): the other side
    /// has borne off none when it finishes.
    pub win_gammon: f64,
    /// It loses a gammon / mars.
    pub lose_gammon: f64,
}

impl Race {
    /// Points per game for the side on roll, a gammon / mars counting
    /// `1 + gammon` (1 when the scoring counts them, 0 when every win is
    /// one point).
    pub fn equity(&self, gammon: f64) -> f64 {
        2.0 * self.win - 1.0 + gammon * (self.win_gammon - self.lose_gammon)
    }

    /// The same race seen by the other side.
    pub fn flip(&self) -> Race {
        Race {
            win: 1.0 - self.win,
            win_gammon: self.lose_gammon,
            lose_gammon: self.win_gammon,
        }
    }
}

/// Long nardy: `c`'s home board when every checker `c` has left is in his
/// home (route indices 18..=23; the checker at index r is 24 − r pips from
/// off), else `None`.
pub fn long_board(pos: &tabula_long::Position, c: tabula_long::Color) -> Option<Board> {
    let mut b = [0u8; POINTS];
    for r in 0..24 {
        let n = pos.checkers(c, tabula_long::point_of(c, r));
        if n == 0 {
            continue;
        }
        if r < 18 {
            return None;
        }
        b[23 - r] = n;
    }
    Some(b)
}

/// Long nardy: the race chances of the side to move once both sides are
/// bearing off (every checker of each in his home), else `None` (also for
/// a finished game).
pub fn long_race(pos: &tabula_long::Position) -> Option<Race> {
    if pos.is_game_over() {
        return None;
    }
    let me = pos.turn();
    let mine = long_board(pos, me)?;
    let theirs = long_board(pos, me.other())?;
    Some(Table::shared().race(&mine, &theirs))
}

/// Long nardy: what a mars counts beyond a single win under `pos`'s
/// scoring (koks cannot happen once the loser is all home).
pub fn long_gammon_value(pos: &tabula_long::Position) -> f64 {
    match pos.variant().scoring {
        tabula_long::Scoring::Single => 0.0,
        _ => 1.0,
    }
}

/// Long nardy: the equity for `me` of `after` (the position after a play,
/// the opponent to move) by the database: the points of a finished game,
/// the race equity while both sides bear off, else `None`.
pub fn long_equity(after: &tabula_long::Position, me: tabula_long::Color) -> Option<f64> {
    if let Some(o) = after.outcome() {
        let v = f64::from(o.points);
        return Some(if o.winner == me { v } else { -v });
    }
    let r = long_race(after)?;
    let e = r.equity(long_gammon_value(after));
    Some(if after.turn() == me { e } else { -e })
}

/// Backgammon: `side`'s home board when none of its checkers is on the bar
/// or outside its points 1..=6, else `None`.
pub fn bg_board(pos: &tabula_backgammon::Position, side: tabula_backgammon::Side) -> Option<Board> {
    if pos.bar(side) > 0 || (7..=24).any(|p| pos.checkers(side, p) > 0) {
        return None;
    }
    Some(std::array::from_fn(|i| pos.checkers(side, i as u8 + 1)))
}

/// Backgammon: the race chances of the side on roll (`pos.turn()`, about
/// to roll) once both sides are bearing off, else `None` (also for a
/// finished game).
pub fn bg_race(pos: &tabula_backgammon::Position) -> Option<Race> {
    if pos.is_over() {
        return None;
    }
    let me = pos.turn();
    let mine = bg_board(pos, me)?;
    let theirs = bg_board(pos, me.opponent())?;
    Some(Table::shared().race(&mine, &theirs))
}

/// Backgammon: the mover's chances in `after` (a position right after its
/// play, the opponent rolling next), by the database; `None` unless both
/// sides are bearing off. A finished game gives its exact outcome under
/// gammon scoring.
pub fn bg_after(after: &tabula_backgammon::Position) -> Option<Race> {
    use tabula_backgammon::{Scoring, WinKind};
    if let Some(o) = after.outcome(Scoring::Gammons) {
        let won = o.winner == after.turn();
        let gammon = !matches!(o.kind, WinKind::Single);
        return Some(Race {
            win: if won { 1.0 } else { 0.0 },
            win_gammon: if won && gammon { 1.0 } else { 0.0 },
            lose_gammon: if !won && gammon { 1.0 } else { 0.0 },
        });
    }
    Some(bg_race(&after.pass_turn())?.flip())
}

/// Backgammon: the equity (gammons counted, as Hard's network counts them)
/// for the mover of `after`, by the database; see [`bg_after`]. A
/// backgammon cannot happen once both sides are home.
pub fn bg_equity(after: &tabula_backgammon::Position) -> Option<f64> {
    bg_after(after).map(|r| r.equity(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gnubg's `PositionBearoff`, transcribed: the bit string, then
    /// `PositionF` walking it from the top.
    fn gnubg_position_bearoff(b: &Board) -> usize {
        let mut j = POINTS - 1 + checkers(b);
        let mut bits: u32 = 1 << j;
        for &n in &b[..POINTS - 1] {
            j -= usize::from(n) + 1;
            bits |= 1 << j;
        }
        let (mut n, mut r, mut idx) = (CHECKERS + POINTS, POINTS, 0usize);
        while n > r {
            if bits & (1 << (n - 1)) != 0 {
                idx += BINOM[n - 1][r] as usize;
                r -= 1;
            }
            n -= 1;
        }
        idx
    }

    #[test]
    fn indices_are_gnubgs_and_a_bijection() {
        let boards = boards();
        assert_eq!(boards.len(), POSITIONS);
        for (i, b) in boards.iter().enumerate() {
            assert_eq!(index(b), Some(i));
            assert_eq!(gnubg_position_bearoff(b), i, "{b:?}");
        }
        assert_eq!(index(&[0; 6]), Some(0));
        // gnubg: 1..=6 are one checker on the 1- to 6-point, the last is
        // fifteen on the 6-point (bearoffdump gnubg_os0.bd -n 54263).
        for q in 0..6 {
            let mut b = [0; 6];
            b[q] = 1;
            assert_eq!(index(&b), Some(q + 1));
        }
        assert_eq!(index(&[0, 0, 0, 0, 0, 15]), Some(POSITIONS - 1));
        assert_eq!(index(&[0, 0, 0, 0, 1, 15]), None);
    }

    #[test]
    fn single_checkers_bear_off_as_counted_by_hand() {
        let t = Table::shared();
        // One or two checkers on the 1-point: always one roll.
        for b in [[1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0]] {
            let i = index(&b).unwrap();
            assert!((t.mean(i) - 1.0).abs() < 1e-12);
            assert_eq!(t.rolls(i).exactly(1), 1.0);
        }
        // One checker on the 6-point: 27 of 36 rolls take it off at once
        // (all but 1-1, 2-1, 3-1, 4-1, 3-2).
        let i = index(&[0, 0, 0, 0, 0, 1]).unwrap();
        assert!((t.mean(i) - 1.25).abs() < 1e-12);
        assert!((t.rolls(i).exactly(1) - 0.75).abs() < 1e-7);
        // Three on the 1-point: one roll with a double, else two.
        let i = index(&[3, 0, 0, 0, 0, 0]).unwrap();
        assert!((t.mean(i) - (1.0 + 30.0 / 36.0)).abs() < 1e-12);
    }
}
