//! The solved one-sided database: each board's distribution of rolls to
//! bear off, and the race between two of them.

use std::fmt;
use std::sync::OnceLock;

use tabula_dice::Dice;

use super::board::{
    Board, CHECKERS, MAX_ROLLS, POINTS, POSITIONS, TAIL, boards, checkers, index, steps,
};

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

#[cfg(test)]
mod tests {
    use super::*;

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
