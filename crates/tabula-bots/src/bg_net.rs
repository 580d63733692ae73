//! A small neural network that judges short nardy (backgammon) positions,
//! trained by self-play with temporal-difference learning (TD(λ), as
//! Tesauro's TD-Gammon).
//!
//! The network sees a position right after a side has moved, from that
//! side's point of view (the opponent rolls next), and answers three
//! probabilities for the side that moved: it wins, it wins a gammon (or
//! backgammon), it loses a gammon (or backgammon). A backgammon head (two
//! more logistic units on the hidden layer, fitted after the rest to
//! rollouts: [`crate::bg_fit::fit_backgammons`]) adds gnubg's other two:
//! it wins a backgammon, it loses one, asked only where one can still
//! happen and its winner is bearing off ([`backgammon_in_sight`]).
//! [`Probs::equity`] turns them into points per game.
//!
//! Input encoding ([`INPUTS`] = 209 units). Tesauro's 196: for each side
//! and each of its 24 points in its own numbering, four units (1+, 2+, 3+
//! checkers, and (n − 3) / 2 above three); then each side's bar / 2 and
//! checkers off / 15. Then, as TD-Gammon 2 and gnubg add to the raw board,
//! six features of each side ([`FEATURES`]; the side that moved first): its
//! pips / 167; the share of the other side's 36 rolls that hit one of its
//! blots, and the pips the farthest of them would lose / 24 (gnubg's P1 and
//! pip loss: the side that moved faces the next roll); the share of the 36
//! rolls with which its rearmost checker gets past every point the other
//! side holds within 12 pips ahead of it (gnubg's back escapes); its
//! longest run of made points / 6; its made home points / 6 (the other
//! side's entry). The last unit says contact is left.
//!
//! The trained weights ship in `nets/bg.bin` (made by `tabula train-bg`,
//! then fitted to its own look-ahead by `tabula fit-bg`, then given its
//! backgammon head by `tabula fit-bg-backgammons`, every command and seed
//! in `RESULTS.md`); [`Net::shipped`] parses them once.
//! Training is deterministic for a seed (single thread, `f32` arithmetic in
//! a fixed order).

use std::sync::OnceLock;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_backgammon::{Position, Scoring, WinKind};
use tabula_dice::Dice;

pub use crate::nn::NetError;
use crate::nn::{self, Sparse};

/// Tesauro's board units.
const BOARD: usize = 196;
/// Features per side after the board units.
pub const FEATURES: usize = 6;
/// Input units.
pub const INPUTS: usize = BOARD + 2 * FEATURES + 1;
/// Outputs: win, win gammon, lose gammon (all for the side that moved).
pub const OUTPUTS: usize = 3;

const MAGIC: &[u8; 8] = b"TBGNET2\0";
/// A network with its backgammon head ([`Head`]).
const MAGIC_HEAD: &[u8; 8] = b"TBGNET3\0";
/// The first networks' header: the board units only ([`Net::from_bytes`]
/// widens them, the features' weights zero, to train on from there).
const MAGIC_V1: &[u8; 8] = b"TBGNET1\0";

/// The probabilities the network answers, for the side that moved: its
/// three outputs, and the backgammon head's two ([`Net`]; zero where the
/// network has none or no backgammon is in sight).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probs {
    /// It wins.
    pub win: f32,
    /// It wins a gammon or a backgammon.
    pub win_gammon: f32,
    /// It loses a gammon or a backgammon.
    pub lose_gammon: f32,
    /// It wins a backgammon (at most `win_gammon`).
    pub win_backgammon: f32,
    /// It loses a backgammon (at most `lose_gammon`).
    pub lose_backgammon: f32,
}

impl Probs {
    /// Points per game under gammon scoring (a gammon counts 2, a
    /// backgammon 3).
    pub fn equity(&self) -> f32 {
        2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon + self.win_backgammon
            - self.lose_backgammon
    }

    /// What the side that moved expects to score under `scoring`: its
    /// [`Probs::equity`] when gammons count, else the game's one point
    /// either way (`2 × win − 1`), where only winning matters.
    pub fn value(&self, scoring: Scoring) -> f32 {
        match scoring {
            Scoring::Single => 2.0 * self.win - 1.0,
            Scoring::Gammons => self.equity(),
        }
    }

    /// The same outcome seen by the other side.
    pub fn flip(&self) -> Probs {
        Probs {
            win: 1.0 - self.win,
            win_gammon: self.lose_gammon,
            lose_gammon: self.win_gammon,
            win_backgammon: self.lose_backgammon,
            lose_backgammon: self.win_backgammon,
        }
    }

    fn to_array(self) -> [f32; OUTPUTS] {
        [self.win, self.win_gammon, self.lose_gammon]
    }

    /// The exact outcome of a finished game for `pos.turn()` (the side that
    /// just moved), or `None` while it is not over.
    pub fn of_outcome(pos: &Position) -> Option<Probs> {
        let o = pos.outcome(Scoring::Gammons)?;
        let gammon = !matches!(o.kind, WinKind::Single);
        let backgammon = matches!(o.kind, WinKind::Backgammon);
        let won = o.winner == pos.turn();
        let one = |yes: bool| if yes { 1.0 } else { 0.0 };
        Some(Probs {
            win: one(won),
            win_gammon: one(won && gammon),
            lose_gammon: one(!won && gammon),
            win_backgammon: one(won && backgammon),
            lose_backgammon: one(!won && backgammon),
        })
    }
}

/// Whether the side that moved on the mover-relative board `b` can still
/// win a backgammon (`[0]`) and lose one (`[1]`). The loser must have
/// borne off none, and once the game is a race its checkers only move
/// home: it can end with one in the winner's home board (19..=24 in the
/// loser's numbering) or on the bar only if one is there already.
pub fn backgammon_possible(b: &[i8; 26]) -> [bool; 2] {
    let (mine, theirs) = on_board(b);
    possible_with(b, mine, theirs)
}

/// Each side's checkers still on the board (bar included): the mover's,
/// the other side's.
fn on_board(b: &[i8; 26]) -> (i32, i32) {
    b.iter().fold((0, 0), |(m, t), &n| {
        (m + i32::from(n.max(0)), t + i32::from((-n).max(0)))
    })
}

/// [`backgammon_possible`] with [`on_board`]'s counts given.
fn possible_with(b: &[i8; 26], mine: i32, theirs: i32) -> [bool; 2] {
    if mine != 15 && theirs != 15 {
        return [false, false];
    }
    // The mover's checkers in the other side's home board or on its bar
    // (19..=25), and the other side's in the mover's home or on its bar
    // (1..=6 and 0).
    let mine_back: i32 = b[19..=25].iter().map(|&n| i32::from(n.max(0))).sum();
    let theirs_back: i32 = b[0..=6].iter().map(|&n| i32::from((-n).max(0))).sum();
    let race = Position::board_is_race(b);
    [
        theirs == 15 && (!race || theirs_back > 0),
        mine == 15 && (!race || mine_back > 0),
    ]
}

/// Where the backgammon head judges (else its outputs are zero): a
/// backgammon still possible ([`backgammon_possible`]) and its winner
/// already bearing off (every checker home, or one off). Earlier a
/// backgammon is a far, small chance, much the same whatever the play,
/// and a logistic unit's errors there would only stir the close plays;
/// the searches' leaves reach the bearing-off soon enough.
pub fn backgammon_in_sight(b: &[i8; 26]) -> [bool; 2] {
    let (mine, theirs) = on_board(b);
    // The winner bearing off and the loser with none off: checked first,
    // as it rules out most positions before the race is looked at.
    let win_near = theirs == 15 && (mine < 15 || b[7..=25].iter().all(|&n| n <= 0));
    let lose_near = mine == 15 && (theirs < 15 || b[..=18].iter().all(|&n| n >= 0));
    if !win_near && !lose_near {
        return [false, false];
    }
    let [win, lose] = possible_with(b, mine, theirs);
    [win && win_near, lose && lose_near]
}

/// The backgammon head: two logistic units on the network's hidden layer
/// (win a backgammon, lose one), fitted after the rest with the hidden
/// layer as it stands (`tabula fit-bg-backgammons`,
/// [`crate::bg_fit::fit_backgammons`]): gnubg's fourth and fifth outputs.
/// Training the hidden layer again drops it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Head {
    /// `w[k * hidden + j]`, `k` 0 for the win, 1 for the loss.
    pub(crate) w: Vec<f32>,
    pub(crate) b: [f32; 2],
}

impl Head {
    /// A head that answers `p` everywhere (no weights yet).
    pub(crate) fn constant(hidden: usize, p: [f32; 2]) -> Head {
        let logit = |p: f32| {
            let p = p.clamp(1e-4, 1.0 - 1e-4);
            (p / (1.0 - p)).ln()
        };
        Head {
            w: vec![0.0; 2 * hidden],
            b: [logit(p[0]), logit(p[1])],
        }
    }

    /// Its two outputs for the hidden activations `h`.
    pub(crate) fn eval(&self, h: &[f32]) -> [f32; 2] {
        let hn = h.len();
        let mut out = [0.0; 2];
        for (k, o) in out.iter_mut().enumerate() {
            let z = nn::dot(&self.w[k * hn..(k + 1) * hn], h);
            *o = nn::sigmoid(z + self.b[k]);
        }
        out
    }
}

/// Encodes `b`, a mover-relative board (positive: the side that moved,
/// 1..=24 its points, 25 its bar; negative: the opponent, 0 its bar): at
/// most 2 × (24 × 4 + 2) active units.
pub fn encode(b: &[i8; 26], e: &mut Sparse) {
    encode_with(b, &tail_units(b), e);
}

/// [`encode`] of `b` whose [`tail_units`] are `tail`.
fn encode_with(b: &[i8; 26], tail: &[f32; TAIL], e: &mut Sparse) {
    e.clear();
    for i in 1..=24usize {
        for (side, n) in [(0usize, b[i]), (1usize, -b[25 - i])] {
            let base = side * 98 + (i - 1) * 4;
            for (k, v) in point_units(n).into_iter().enumerate() {
                e.push(base + k, v);
            }
        }
    }
    for (&at, &v) in TAIL_AT.iter().zip(tail) {
        e.push(at, v);
    }
}

/// The four board units of a point on which a side has `n` checkers (none
/// when `n` is not positive): 1+, 2+, 3+, and (n − 3) / 2 above three.
fn point_units(n: i8) -> [f32; 4] {
    let at_least = |k: i8| if n >= k { 1.0 } else { 0.0 };
    let above = if n > 3 { f32::from(n - 3) / 2.0 } else { 0.0 };
    [at_least(1), at_least(2), at_least(3), above]
}

/// How many of [`encode`]'s units are not a point's: each side's bar and
/// checkers off, the features of both sides, and contact.
const TAIL: usize = 4 + 2 * FEATURES + 1;

/// The unit of each of [`tail_units`]' values, in [`encode`]'s order.
const TAIL_AT: [usize; TAIL] = {
    let mut at = [0; TAIL];
    at[0] = 96;
    at[1] = 97;
    at[2] = 98 + 96;
    at[3] = 98 + 97;
    let mut k = 0;
    while k <= 2 * FEATURES {
        at[4 + k] = BOARD + k;
        k += 1;
    }
    at
};

/// The values of [`encode`]'s units that are not a point's ([`TAIL_AT`]
/// says which): each side's bar / 2 and checkers off / 15, then the
/// [`FEATURES`] of the side that moved and of the other, then 1 while
/// contact is left. One pass over the board, then bit masks.
fn tail_units(b: &[i8; 26]) -> [f32; TAIL] {
    let [mover, other] = Side::both(b);
    let mut t = [0.0; TAIL];
    let bar = [b[25].max(0), (-b[0]).max(0)];
    for (side, s) in [&mover, &other].into_iter().enumerate() {
        t[2 * side] = f32::from(bar[side]) / 2.0;
        t[2 * side + 1] = (15 - s.on) as f32 / 15.0;
    }
    t[4..4 + FEATURES].copy_from_slice(&mover.features(&other));
    t[4 + FEATURES..4 + 2 * FEATURES].copy_from_slice(&other.features(&mover));
    // Contact: the mover's rearmost checker (the highest bit of its own)
    // is not past the other's rearmost (25 minus the highest of its own).
    let rear = |any: u32| any.checked_ilog2();
    if let (Some(m), Some(o)) = (rear(mover.any), rear(other.any))
        && m + o >= 25
    {
        t[TAIL - 1] = 1.0;
    }
    t
}

/// One side's checkers as bit masks in its own numbering (bit `i`: its
/// point `i`, 1..=24; bit 25 its bar), for the features: the board is read
/// once for both sides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side {
    /// Its points with two checkers or more.
    closed: u32,
    /// Its points with one checker.
    blots: u32,
    /// Its points with any checker, and its bar.
    any: u32,
    /// Its pips.
    pips: i32,
    /// Its checkers not borne off.
    on: i32,
}

/// Bits 1..=24: the points.
const POINTS: u32 = 0x1FF_FFFE;

/// Bit `i` to bit `25 − i`: a mask in one side's numbering to the
/// other's.
fn turn(mask: u32) -> u32 {
    mask.reverse_bits() >> 6
}

impl Side {
    /// The side that moved in mover-relative `b` (positive counts) and the
    /// other (negative), each in its own numbering.
    pub(crate) fn both(b: &[i8; 26]) -> [Side; 2] {
        let (mut closed, mut blots, mut any) = ([0u32; 2], [0u32; 2], [0u32; 2]);
        let (mut pips, mut on) = ([0i32; 2], [0i32; 2]);
        for (i, &n) in b.iter().enumerate() {
            // The other side's bit for this index is 25 − i, set by
            // `turn` at the end.
            let (mine, theirs) = (n.max(0), (-n).max(0));
            for (s, k) in [(0, mine), (1, theirs)] {
                closed[s] |= u32::from(k >= 2) << i;
                blots[s] |= u32::from(k == 1) << i;
                any[s] |= u32::from(k > 0) << i;
                on[s] += i32::from(k);
            }
            pips[0] += i32::from(mine) * i as i32;
            pips[1] += i32::from(theirs) * (25 - i as i32);
        }
        let side = |s: usize, f: fn(u32) -> u32| Side {
            closed: f(closed[s]) & POINTS,
            blots: f(blots[s]) & POINTS,
            any: f(any[s]),
            pips: pips[s],
            on: on[s],
        };
        [side(0, |m| m), side(1, turn)]
    }

    /// Its [`FEATURES`], facing `other`: pips / 167; the share of the
    /// other's 36 rolls that hit one of its blots, and the pips the
    /// farthest of them would lose / 24; its back escapes / 36; its
    /// longest run of made points / 6; its made home points / 6.
    fn features(&self, other: &Side) -> [f32; FEATURES] {
        let (hits, loss) = self.shots(other);
        let mut run = self.closed;
        let mut prime = 0u32;
        while run != 0 && prime < 6 {
            run &= run << 1;
            prime += 1;
        }
        let home = (self.closed & 0x7E).count_ones();
        [
            self.pips as f32 / 167.0,
            hits as f32 / 36.0,
            loss as f32 / 24.0,
            // The other's points in this side's numbering.
            escapes_in(self.any, turn(other.closed)) as f32 / 36.0,
            prime as f32 / 6.0,
            home as f32 / 6.0,
        ]
    }

    /// The other's rolls that hit one of this side's blots, and the pips
    /// the farthest of them would lose ([`crate::bg::shots`]). The other's
    /// checkers in this side's numbering: its bar, bit 25 in its own, is
    /// this side's 0.
    pub(crate) fn shots(&self, other: &Side) -> (u32, u32) {
        crate::bg::shots_in(self.closed, self.blots, turn(other.any))
    }
}

/// Of the 36 rolls, how many let the rearmost checker of a side whose
/// checkers (and bar, bit 25) are `any` land beyond every point of
/// `blocked` (the other side's points of 2+, in this side's numbering)
/// within 12 pips ahead of it, one checker moving through open points: 36
/// when nothing holds it, 0 with no checker left outside home.
fn escapes_in(any: u32, blocked: u32) -> u32 {
    let rear = match (any & !0x7F).checked_ilog2() {
        Some(r) => r as usize,
        None => return 0,
    };
    // The held points from 12 pips ahead of it up to it; the farthest
    // back of them is the last to pass.
    let ahead = blocked & ((1u32 << rear) - 1) & !((1u32 << rear.saturating_sub(12).max(1)) - 1);
    if ahead == 0 {
        return 36;
    }
    let last = ahead.trailing_zeros() as usize;
    let lands = |steps: &[usize]| {
        let mut at = rear;
        for &d in steps {
            if at <= d {
                return false;
            }
            at -= d;
            if blocked >> at & 1 == 1 {
                return false;
            }
            if at < last {
                return true;
            }
        }
        false
    };
    // 1-2 and 2-1 escape alike (either order may be played): each pair
    // of different dice counts twice.
    let mut n = 0;
    for d1 in 1..=6usize {
        n += u32::from(lands(&[d1; 4]));
        for d2 in d1 + 1..=6 {
            n += 2 * u32::from(lands(&[d1, d2]) || lands(&[d2, d1]));
        }
    }
    n
}

/// The backgammon network: [`INPUTS`] → hidden (sigmoid) → 3 (sigmoid),
/// and the backgammon head on the hidden layer (2, sigmoid) once fitted.
#[derive(Debug, Clone, PartialEq)]
pub struct Net {
    core: nn::Net,
    /// The backgammon head, once fitted.
    pub(crate) backgammons: Option<Head>,
}

impl Net {
    /// A network with small seeded random weights (no backgammon head).
    pub fn random(hidden: usize, seed: u64) -> Net {
        Net {
            core: nn::Net::random(INPUTS, hidden, OUTPUTS, seed),
            backgammons: None,
        }
    }

    /// Whether it has a backgammon head (else it judges no backgammons:
    /// its searches still score finished games by their points).
    pub fn has_backgammons(&self) -> bool {
        self.backgammons.is_some()
    }

    /// Drops the backgammon head: its weights read the hidden layer, so
    /// they mean nothing once that is trained again.
    pub(crate) fn drop_backgammons(&mut self) {
        self.backgammons = None;
    }

    /// The network shipped with the crate (`nets/bg.bin`).
    pub fn shipped() -> &'static Net {
        static NET: OnceLock<Net> = OnceLock::new();
        NET.get_or_init(|| {
            // The file is part of the source tree and a unit test parses
            // it, so a failure here is a broken build, not bad input.
            Net::from_bytes(include_bytes!("../nets/bg.bin"))
                .expect("nets/bg.bin is a valid network")
        })
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.core.hidden()
    }

    /// The file form: magic (`TBGNET3` with a backgammon head, else
    /// `TBGNET2`), hidden (u32 LE), inputs (u32 LE), then every weight (f32
    /// LE; three outputs), then the head's (`w`, then `b`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(16 + 4 * (self.core.weight_count() + 2 * self.hidden() + 2));
        out.extend_from_slice(if self.backgammons.is_some() {
            MAGIC_HEAD
        } else {
            MAGIC
        });
        out.extend_from_slice(&(self.core.hidden as u32).to_le_bytes());
        out.extend_from_slice(&(INPUTS as u32).to_le_bytes());
        self.core.write_weights(&mut out);
        if let Some(head) = &self.backgammons {
            for v in head.w.iter().chain(&head.b) {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// Parses [`Net::to_bytes`]'s form.
    /// A first network's file (`TBGNET1`: the board units only) is read
    /// with zero weights from the features, so it judges as it did and
    /// training can go on from it.
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, NetError> {
        let v1 = bytes.len() >= 16 && &bytes[..8] == MAGIC_V1;
        let with_head = bytes.len() >= 16 && &bytes[..8] == MAGIC_HEAD;
        if bytes.len() < 16 || (&bytes[..8] != MAGIC && !v1 && !with_head) {
            return Err(NetError::BadMagic("backgammon"));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let hidden = word(8) as usize;
        let inputs = word(12) as usize;
        let expected = if v1 { BOARD } else { INPUTS };
        if inputs != expected {
            return Err(NetError::BadShape(format!(
                "{inputs} inputs, {hidden} hidden"
            )));
        }
        // The head's weights, if any, are the file's last 2 × hidden + 2.
        let head_len = if with_head { 4 * (2 * hidden + 2) } else { 0 };
        let body = &bytes[16..];
        if body.len() < head_len {
            return Err(NetError::BadShape(format!(
                "{} bytes of weights for {hidden} hidden units and a head",
                body.len()
            )));
        }
        let (core, tail) = body.split_at(body.len() - head_len);
        let mut net = nn::Net::read_weights(expected, hidden, OUTPUTS, core)?;
        if v1 {
            net.inputs = INPUTS;
            net.w1.resize(INPUTS * hidden, 0.0);
        }
        let backgammons = with_head.then(|| {
            let vals: Vec<f32> = tail
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            Head {
                w: vals[..2 * hidden].to_vec(),
                b: [vals[2 * hidden], vals[2 * hidden + 1]],
            }
        });
        Ok(Net {
            core: net,
            backgammons,
        })
    }

    /// The outputs for `x`, the hidden activations left in `h`.
    fn forward(&self, x: &Sparse, h: &mut Vec<f32>) -> [f32; OUTPUTS] {
        let mut y = [0.0; OUTPUTS];
        self.core.forward(x, h, &mut y);
        y
    }

    /// The probabilities for the side that just moved in `after` (its
    /// board is mover-relative; the opponent rolls next). A finished game
    /// answers its exact outcome.
    pub fn evaluate(&self, after: &Position) -> Probs {
        if let Some(p) = Probs::of_outcome(after) {
            return p;
        }
        self.eval_board(after.board(), &mut Buf::new(self))
    }

    /// [`Net::evaluate`] with the caller's scratch buffers.
    pub(crate) fn evaluate_in(&self, after: &Position, buf: &mut Buf) -> Probs {
        if let Some(p) = Probs::of_outcome(after) {
            return p;
        }
        self.eval_board(after.board(), buf)
    }

    /// One gradient step moving the network's judgement of `after` toward
    /// `target` at learning rate `alpha` (supervised training,
    /// [`crate::bg_fit`]); `buf` is scratch.
    pub(crate) fn step_toward(
        &mut self,
        after: &Position,
        target: &Probs,
        alpha: f32,
        buf: &mut Buf,
    ) {
        encode(after.board(), &mut buf.x);
        let mut y = [0.0; OUTPUTS];
        self.core.step_toward(
            &buf.x,
            &target.to_array(),
            alpha,
            &mut buf.h,
            &mut buf.back,
            &mut y,
        );
    }

    fn eval_board(&self, b: &[i8; 26], buf: &mut Buf) -> Probs {
        encode(b, &mut buf.x);
        let y = self.forward(&buf.x, &mut buf.h);
        self.probs(b, y, &buf.h)
    }

    /// The probabilities for board `b` from the network's outputs `y` and
    /// hidden activations `h` for it.
    fn probs(&self, b: &[i8; 26], y: [f32; OUTPUTS], h: &[f32]) -> Probs {
        // Gammon chances can't exceed the win / loss chances, nor
        // backgammon chances the gammon chances.
        let win_gammon = y[1].min(y[0]);
        let lose_gammon = y[2].min(1.0 - y[0]);
        let (mut win_backgammon, mut lose_backgammon) = (0.0, 0.0);
        if let Some(head) = &self.backgammons {
            let [can_win, can_lose] = backgammon_in_sight(b);
            if can_win || can_lose {
                let [w, l] = head.eval(h);
                if can_win {
                    win_backgammon = w.min(win_gammon);
                }
                if can_lose {
                    lose_backgammon = l.min(lose_gammon);
                }
            }
        }
        Probs {
            win: y[0],
            win_gammon,
            lose_gammon,
            win_backgammon,
            lose_backgammon,
        }
    }

    /// The hidden activations for `after` (the backgammon head's inputs).
    pub(crate) fn hidden_of<'a>(&self, after: &Position, buf: &'a mut Buf) -> &'a [f32] {
        encode(after.board(), &mut buf.x);
        let _ = self.forward(&buf.x, &mut buf.h);
        &buf.h
    }
}

/// Buffers for evaluations (no allocation per position).
#[derive(Debug)]
pub(crate) struct Buf {
    x: Sparse,
    h: Vec<f32>,
    back: Vec<f32>,
}

impl Buf {
    pub(crate) fn new(net: &Net) -> Buf {
        Buf {
            x: Sparse::with_capacity(INPUTS),
            h: Vec::with_capacity(net.hidden()),
            back: Vec::new(),
        }
    }
}

/// Judges the positions one move away from a common parent, as
/// [`Net::evaluate`] does to within rounding, at a fraction of its work:
/// the parent's hidden sums are kept, and for each child only the units
/// its move changed are added: the four of each point whose count
/// changed (a non-double moves two checkers: at most four points), and
/// the bars, checkers off, features and contact. The searches judge every
/// reply to a roll this way, all from the position the roll is played
/// from.
#[derive(Debug)]
pub(crate) struct Near<'n> {
    net: &'n Net,
    /// The parent's board.
    board: [i8; 26],
    /// The parent's units that are not a point's ([`tail_units`]).
    tail: [f32; TAIL],
    /// The parent's hidden sums before their sigmoid.
    pre: Vec<f32>,
    /// Scratch: the parent's units, then a child's differences from them.
    dx: Sparse,
    h: Vec<f32>,
}

impl<'n> Near<'n> {
    /// Children of `parent`, a board in the children's orientation (the
    /// side that moves to them positive).
    pub(crate) fn new(net: &'n Net, parent: &[i8; 26]) -> Near<'n> {
        let mut near = Near {
            net,
            board: [0; 26],
            tail: [0.0; TAIL],
            pre: Vec::with_capacity(net.hidden()),
            dx: Sparse::with_capacity(INPUTS),
            h: Vec::with_capacity(net.hidden()),
        };
        near.reset(parent);
        near
    }

    /// Makes `parent` the common parent.
    pub(crate) fn reset(&mut self, parent: &[i8; 26]) {
        self.board = *parent;
        self.tail = tail_units(parent);
        encode_with(parent, &self.tail, &mut self.dx);
        self.net.core.sums(&self.dx, &mut self.pre);
    }

    /// The network's probabilities for board `b` (a child of the parent,
    /// or any board: a distant one only costs more), as
    /// [`Net::evaluate`] gives them for a game not over.
    pub(crate) fn probs(&mut self, b: &[i8; 26]) -> Probs {
        self.dx.clear();
        // The points whose counts changed, each seen by both sides (the
        // mover's point `i` is the other side's `25 − i`), then the rest,
        // each in its order (the same sums every time).
        for (i, (&was, &now)) in self.board.iter().zip(b).enumerate().take(25).skip(1) {
            if was == now {
                continue;
            }
            for (base, was, now) in [((i - 1) * 4, was, now), (98 + (24 - i) * 4, -was, -now)] {
                let (old, new) = (point_units(was), point_units(now));
                for k in 0..4 {
                    self.dx.push(base + k, new[k] - old[k]);
                }
            }
        }
        let tail = tail_units(b);
        for ((&at, new), old) in TAIL_AT.iter().zip(tail).zip(self.tail) {
            self.dx.push(at, new - old);
        }
        let mut y = [0.0; OUTPUTS];
        self.net
            .core
            .forward_from(&self.pre, &self.dx, &mut self.h, &mut y);
        self.net.probs(b, y, &self.h)
    }
}

/// TD(λ) self-play training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Learning rate.
    pub alpha: f32,
    /// Trace decay.
    pub lambda: f32,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            alpha: 0.1,
            lambda: 0.7,
        }
    }
}

/// One side's eligibility traces and last evaluation.
#[derive(Debug)]
struct Chain {
    /// `e1[k][i * hidden + j]`, `eb1[k][j]`, `e2[k][j]`, `eb2[k]`.
    e1: Vec<Vec<f32>>,
    eb1: Vec<Vec<f32>>,
    e2: Vec<Vec<f32>>,
    eb2: [f32; OUTPUTS],
    last: Option<[f32; OUTPUTS]>,
}

impl Chain {
    fn new(net: &Net) -> Chain {
        let hn = net.hidden();
        Chain {
            e1: vec![vec![0.0; INPUTS * hn]; OUTPUTS],
            eb1: vec![vec![0.0; hn]; OUTPUTS],
            e2: vec![vec![0.0; hn]; OUTPUTS],
            eb2: [0.0; OUTPUTS],
            last: None,
        }
    }

    fn reset(&mut self) {
        for k in 0..OUTPUTS {
            self.e1[k].fill(0.0);
            self.eb1[k].fill(0.0);
            self.e2[k].fill(0.0);
        }
        self.eb2 = [0.0; OUTPUTS];
        self.last = None;
    }
}

/// A self-play trainer: each side's after-move positions form a chain of
/// predictions; each prediction is moved toward the next one of the same
/// side (or the game's result), with eligibility traces per side.
#[derive(Debug)]
pub struct Trainer {
    /// The network being trained.
    pub net: Net,
    config: TrainConfig,
    chains: [Chain; 2],
    h: Buf,
    rng: ChaCha8Rng,
    buf: Vec<Position>,
    /// Games played so far.
    pub games: u64,
}

impl Trainer {
    /// A trainer for `net`, its dice seeded by `seed`.
    /// Training moves the hidden layer, so a backgammon head is dropped.
    pub fn new(mut net: Net, config: TrainConfig, seed: u64) -> Trainer {
        net.drop_backgammons();
        let chains = [Chain::new(&net), Chain::new(&net)];
        let h = Buf::new(&net);
        Trainer {
            net,
            config,
            chains,
            h,
            rng: ChaCha8Rng::seed_from_u64(seed),
            buf: Vec::with_capacity(64),
            games: 0,
        }
    }

    fn roll(&mut self) -> Dice {
        let a = self.rng.random_range(1..=6u8);
        let b = self.rng.random_range(1..=6u8);
        // Both in 1..=6, so this cannot fail.
        Dice::new(a, b).unwrap_or(Dice::ALL_21[0])
    }

    /// Plays one self-play game, learning from it; returns the winner's
    /// equity sign for the first mover (+1 won, -1 lost; ±2 gammons).
    pub fn play_game(&mut self) -> i32 {
        for c in &mut self.chains {
            c.reset();
        }
        let mut pos = Position::initial();
        // The opening roll is never a double.
        let mut dice = loop {
            let d = self.roll();
            if !d.is_double() {
                break d;
            }
        };
        let mut side = 0usize;
        loop {
            pos.legal_positions_into(dice, &mut self.buf);
            let after = if self.buf.is_empty() {
                pos
            } else {
                let mut best = 0;
                let mut best_eq = f32::NEG_INFINITY;
                for (i, p) in self.buf.iter().enumerate() {
                    let eq = match Probs::of_outcome(p) {
                        Some(o) => o.equity() + 10.0,
                        None => self.net.eval_board(p.board(), &mut self.h).equity(),
                    };
                    if eq > best_eq {
                        best_eq = eq;
                        best = i;
                    }
                }
                self.buf[best]
            };
            if let Some(result) = Probs::of_outcome(&after) {
                let r = result.to_array();
                self.learn(side, r, None);
                self.learn(1 - side, result.flip().to_array(), None);
                self.games += 1;
                let pts = if result.win_gammon > 0.0 || result.lose_gammon > 0.0 {
                    2
                } else {
                    1
                };
                let sign = if (side == 0) == (result.win > 0.5) {
                    1
                } else {
                    -1
                };
                return sign * pts;
            }
            let mut x = Sparse::with_capacity(INPUTS);
            encode(after.board(), &mut x);
            let y = self.net.forward(&x, &mut self.h.h);
            self.learn(side, y, Some(&x));
            pos = after.pass_turn();
            side = 1 - side;
            dice = self.roll();
        }
    }

    /// Moves `side`'s last prediction toward `target`, then (when `x` is
    /// given) adds the gradient of the new prediction `target` at `x` to
    /// its traces. `self.h` holds `x`'s hidden activations.
    #[allow(clippy::needless_range_loop)] // k indexes targets, traces and weights alike
    fn learn(&mut self, side: usize, target: [f32; OUTPUTS], x: Option<&Sparse>) {
        let net = &mut self.net.core;
        let hn = net.hidden;
        let TrainConfig { alpha, lambda } = self.config;
        let chain = &mut self.chains[side];
        if let Some(last) = chain.last {
            for k in 0..OUTPUTS {
                let d = alpha * (target[k] - last[k]);
                if d == 0.0 {
                    continue;
                }
                for (w, e) in net.w1.iter_mut().zip(&chain.e1[k]) {
                    *w += d * e;
                }
                for (w, e) in net.b1.iter_mut().zip(&chain.eb1[k]) {
                    *w += d * e;
                }
                for (w, e) in net.w2[k * hn..(k + 1) * hn].iter_mut().zip(&chain.e2[k]) {
                    *w += d * e;
                }
                net.b2[k] += d * chain.eb2[k];
            }
        }
        let Some(x) = x else {
            chain.last = None;
            return;
        };
        // Traces: e ← λe + ∇y at x. The weights just moved a little, but
        // the gradient is taken at the forward pass already made (as
        // TD-Gammon does).
        let h = &self.h.h;
        for k in 0..OUTPUTS {
            let yk = target[k];
            let g = yk * (1.0 - yk);
            for e in chain.e1[k].iter_mut() {
                *e *= lambda;
            }
            for e in chain.eb1[k].iter_mut() {
                *e *= lambda;
            }
            for e in chain.e2[k].iter_mut() {
                *e *= lambda;
            }
            chain.eb2[k] = chain.eb2[k] * lambda + g;
            let w2 = &net.w2[k * hn..(k + 1) * hn];
            let e2 = &mut chain.e2[k];
            let eb1 = &mut chain.eb1[k];
            let mut back = vec![0.0f32; hn];
            for j in 0..hn {
                e2[j] += g * h[j];
                back[j] = g * w2[j] * h[j] * (1.0 - h[j]);
                eb1[j] += back[j];
            }
            let e1 = &mut chain.e1[k];
            for (i, v) in x.iter() {
                let row = &mut e1[i * hn..(i + 1) * hn];
                for (e, b) in row.iter_mut().zip(&back) {
                    *e += v * b;
                }
            }
        }
        chain.last = Some(target);
    }
}

/// The points a finished game in `pos` is worth to the side that just
/// moved (`pos.turn()`) under `scoring`: ±1, and with gammons counted ±2
/// for a gammon, ±3 for a backgammon; `None` while it is not over. The
/// searches score finished games by it, so Hard saves (and wins)
/// backgammons the network's three outputs do not tell from gammons.
pub fn outcome_points(pos: &Position, scoring: Scoring) -> Option<f32> {
    let o = pos.outcome(scoring)?;
    let points = f32::from(o.points);
    Some(if o.winner == pos.turn() {
        points
    } else {
        -points
    })
}

/// The best play by the network alone (0-ply): the index into `finals`
/// with the highest value for the mover under `scoring`
/// ([`Probs::value`]); a finished game wins outright.
pub fn best_static(net: &Net, finals: &[Position], scoring: Scoring) -> Option<usize> {
    let mut h = Buf::new(net);
    best_by(finals, scoring, |b| {
        net.eval_board(b, &mut h).value(scoring)
    })
}

/// [`best_static`] of `finals`, children of `near`'s parent, judged by
/// it ([`Near`]).
pub(crate) fn best_near(near: &mut Near, finals: &[Position], scoring: Scoring) -> Option<usize> {
    best_by(finals, scoring, |b| near.probs(b).value(scoring))
}

/// The index of the play in `finals` with the highest `value` of its
/// board, a finished game counting its points under `scoring` plus 10
/// (winning outright); the first of equals.
fn best_by(
    finals: &[Position],
    scoring: Scoring,
    mut value: impl FnMut(&[i8; 26]) -> f32,
) -> Option<usize> {
    let mut best = None;
    let mut best_eq = f32::NEG_INFINITY;
    for (i, p) in finals.iter().enumerate() {
        let eq = match outcome_points(p, scoring) {
            Some(points) => points + 10.0,
            None => value(p.board()),
        };
        if eq > best_eq {
            best_eq = eq;
            best = Some(i);
        }
    }
    best
}

/// The value for the mover of `after` under `scoring` ([`Probs::value`])
/// looking one roll ahead: the average over the opponent's 21 rolls of its
/// best reply by the network, seen from the mover's side.
pub fn one_ply(net: &Net, after: &Position, buf: &mut Vec<Position>, scoring: Scoring) -> f32 {
    one_ply_counted(net, after, buf, &mut 0, scoring)
}

/// [`one_ply`], adding to `judged` how many positions it judged (the
/// opponent's replies over its 21 rolls): the size of the search, which
/// the deeper look-ahead's budget is counted in.
fn one_ply_counted(
    net: &Net,
    after: &Position,
    buf: &mut Vec<Position>,
    judged: &mut usize,
    scoring: Scoring,
) -> f32 {
    if let Some(points) = outcome_points(after, scoring) {
        return points;
    }
    let opp = after.pass_turn();
    let mut near = Near::new(net, opp.board());
    let mut total = 0.0f32;
    for dice in Dice::ALL_21 {
        opp.legal_positions_into(dice, buf);
        *judged += buf.len().max(1);
        let reply = if buf.is_empty() {
            // The opponent cannot move: the mover rolls next from `after`
            // as it stands, which the network judges from the opponent's
            // side as the position after its (empty) move.
            near.probs(opp.board()).value(scoring)
        } else {
            buf.iter()
                .map(|p| match outcome_points(p, scoring) {
                    Some(points) => points,
                    None => near.probs(p.board()).value(scoring),
                })
                .fold(f32::NEG_INFINITY, f32::max)
        };
        total += dice.probability() as f32 * -reply;
    }
    total
}

/// The value for the mover of `after` under `scoring` looking two rolls
/// ahead (gnubg's 2-ply): the average over the opponent's 21 rolls of
/// minus the value of its reply, where the reply is the network's best for the opponent
/// (0-ply, gnubg's move filter at its narrowest) and its value is
/// [`one_ply`] of it (the mover's 21 rolls, its best answer to each).
/// About 21 times [`one_ply`]'s work; `None` once it has judged more than
/// `budget` positions (what it judged is taken off `budget` either way).
pub fn two_ply(
    net: &Net,
    after: &Position,
    buf: &mut Vec<Position>,
    deeper: &mut Vec<Position>,
    budget: &mut usize,
    scoring: Scoring,
) -> Option<f32> {
    if let Some(points) = outcome_points(after, scoring) {
        return Some(points);
    }
    let opp = after.pass_turn();
    let mut near = Near::new(net, opp.board());
    let mut total = 0.0f32;
    for dice in Dice::ALL_21 {
        opp.legal_positions_into(dice, buf);
        let mut judged = buf.len();
        let reply = match best_near(&mut near, buf, scoring) {
            Some(i) => one_ply_counted(net, &buf[i], deeper, &mut judged, scoring),
            // The opponent cannot move: its (empty) move leaves the board
            // as it stands, the mover to roll.
            None => one_ply_counted(net, &opp, deeper, &mut judged, scoring),
        };
        *budget = budget.checked_sub(judged)?;
        total += dice.probability() as f32 * -reply;
    }
    Some(total)
}

/// About how many positions [`two_ply`] of `after` judges, from movegen
/// alone: the mover's plays over its 21 rolls from `after` as it stands
/// (the opponent's reply moves few of them), 22 times (one such search
/// for each of the opponent's 21 rolls, and the replies themselves).
pub fn two_ply_cost(after: &Position, buf: &mut Vec<Position>) -> usize {
    let plays: usize = Dice::ALL_21
        .iter()
        .map(|&dice| {
            after.legal_positions_into(dice, buf);
            buf.len().max(1)
        })
        .sum();
    22 * plays
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_judges_a_parents_children_as_the_network_does() {
        use rand::{Rng, SeedableRng};
        let net = Net::shipped();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut buf = Vec::new();
        let mut pos = Position::initial();
        let mut near = Near::new(net, pos.board());
        let (mut children, mut worst) = (0, 0.0f32);
        let close = |a: Probs, b: Probs| {
            let (a, b) = (a.to_array(), b.to_array());
            a.iter()
                .zip(&b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max)
        };
        for _ in 0..400 {
            let dice = Dice::ALL_21[rng.random_range(0..21)];
            pos.legal_positions_into(dice, &mut buf);
            near.reset(pos.board());
            for child in buf.iter().filter(|c| !c.is_over()) {
                worst = worst.max(close(near.probs(child.board()), net.evaluate(child)));
                children += 1;
            }
            // A board far from the parent (the start) is judged alike too.
            let start = Position::initial();
            worst = worst.max(close(near.probs(start.board()), net.evaluate(&start)));
            pos = match buf.get(rng.random_range(0..buf.len().max(1))) {
                Some(next) if !next.is_over() => next.pass_turn(),
                _ => Position::initial(),
            };
        }
        assert!(children > 5_000, "{children} children");
        assert!(worst < 1e-5, "worst difference {worst}");
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
        let pips = crate::bg::pips(v).0;
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
                for b in [*child.board(), crate::bg::flip(child.board())] {
                    let t = tail_units(&b);
                    let mine: i32 = b.iter().map(|&n| i32::from(n.max(0))).sum();
                    let theirs: i32 = b.iter().map(|&n| i32::from((-n).max(0))).sum();
                    assert_eq!(t[0], f32::from(b[25].max(0)) / 2.0);
                    assert_eq!(t[1], (15 - mine) as f32 / 15.0);
                    assert_eq!(t[2], f32::from((-b[0]).max(0)) / 2.0);
                    assert_eq!(t[3], (15 - theirs) as f32 / 15.0);
                    assert_eq!(t[4..4 + FEATURES], features_point_by_point(&b), "{b:?}");
                    let other = features_point_by_point(&crate::bg::flip(&b));
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
        let g = side_features(&crate::bg::flip(&b));
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
    fn a_first_network_file_judges_as_it_did_with_the_features_ignored() {
        let net = Net::random(8, 5);
        // The same weights in the old form: the board rows only.
        let mut old = Vec::new();
        old.extend_from_slice(MAGIC_V1);
        old.extend_from_slice(&8u32.to_le_bytes());
        old.extend_from_slice(&(BOARD as u32).to_le_bytes());
        let mut v1 = net.core.clone();
        v1.inputs = BOARD;
        v1.w1.truncate(BOARD * 8);
        v1.write_weights(&mut old);
        let widened = Net::from_bytes(&old).unwrap();
        let pos = Position::initial();
        let mut board_only = Sparse::default();
        let mut full = Sparse::default();
        encode(pos.board(), &mut full);
        for (i, v) in full.iter().filter(|&(i, _)| i < BOARD) {
            board_only.push(i, v);
        }
        let (mut h, mut y1, mut y2) = (Vec::new(), [0.0f32; 3], [0.0f32; 3]);
        widened.core.forward(&full, &mut h, &mut y1);
        v1.forward(&board_only, &mut h, &mut y2);
        assert_eq!(y1, y2);
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

    #[test]
    fn a_head_counts_backgammons_where_they_can_happen_and_training_drops_it() {
        let mut net = Net::random(8, 5);
        // We bear off, all fifteen home; the other side has one on the bar
        // and none off: a backgammon to win, none to lose.
        let mut winning = [0i8; 26];
        winning[1..=5].copy_from_slice(&[3, 3, 3, 3, 3]);
        winning[0] = -1;
        winning[20] = -14;
        let side = tabula_backgammon::Side::White;
        let winning = Position::from_board(winning, side).unwrap();
        let plain = net.evaluate(&winning);
        assert_eq!((plain.win_backgammon, plain.lose_backgammon), (0.0, 0.0));
        net.backgammons = Some(Head::constant(8, [0.01, 0.02]));
        let p = net.evaluate(&winning);
        assert!((p.win_backgammon - 0.01).abs() < 1e-5, "{p:?}");
        assert_eq!(p.lose_backgammon, 0.0);
        assert!((p.equity() - (plain.equity() + 0.01)).abs() < 1e-5);
        assert_eq!(p.flip().lose_backgammon, p.win_backgammon);
        // The same board seen by the other side: one to lose.
        let losing = Position::from_board(crate::bg::flip(winning.board()), side).unwrap();
        let q = net.evaluate(&losing);
        assert_eq!(q.win_backgammon, 0.0);
        assert!((q.lose_backgammon - 0.02).abs() < 1e-5, "{q:?}");
        // Where none is in sight the head is not asked.
        let start = net.evaluate(&Position::initial());
        assert_eq!((start.win_backgammon, start.lose_backgammon), (0.0, 0.0));
        // A finished backgammon is exact: the mover is off, the other
        // side has all fifteen in the mover's home board.
        let mut done = [0i8; 26];
        done[1] = -15;
        let done = Position::from_board(done, tabula_backgammon::Side::White).unwrap();
        let o = Probs::of_outcome(&done).unwrap();
        assert_eq!((o.win, o.win_gammon, o.win_backgammon), (1.0, 1.0, 1.0));
        assert_eq!(o.equity(), 3.0);
        // TD training moves the hidden layer: the head goes.
        let trainer = Trainer::new(net, TrainConfig::default(), 1);
        assert!(!trainer.net.has_backgammons());
    }

    #[test]
    fn weights_round_trip_and_bad_files_are_refused() {
        let net = Net::random(8, 3);
        let bytes = net.to_bytes();
        assert_eq!(Net::from_bytes(&bytes).unwrap(), net);
        // With a backgammon head: its own magic, and back the same.
        let mut headed = net.clone();
        headed.backgammons = Some(Head {
            w: (0..16).map(|i| i as f32 / 10.0).collect(),
            b: [-1.0, -2.0],
        });
        let hb = headed.to_bytes();
        assert_eq!(&hb[..8], MAGIC_HEAD);
        assert_eq!(hb.len(), bytes.len() + 4 * 18);
        assert_eq!(Net::from_bytes(&hb).unwrap(), headed);
        for cut in [4, 4 * 18, hb.len() - 16] {
            assert!(
                matches!(
                    Net::from_bytes(&hb[..hb.len() - cut]),
                    Err(NetError::BadShape(_))
                ),
                "cut {cut}"
            );
        }
        assert_eq!(
            Net::from_bytes(b"nonsense"),
            Err(NetError::BadMagic("backgammon"))
        );
        assert!(matches!(
            Net::from_bytes(&bytes[..bytes.len() - 4]),
            Err(NetError::BadShape(_))
        ));
    }

    #[test]
    fn the_shipped_network_parses_and_likes_being_ahead() {
        let net = Net::shipped();
        // Shipped with its backgammon head (fitted: not the constant a
        // head starts from).
        let head = net
            .backgammons
            .as_ref()
            .expect("bg.bin has a backgammon head");
        assert!(head.w.iter().any(|&w| w != 0.0));
        let p = net.evaluate(&Position::initial());
        assert!((0.3..0.7).contains(&p.win), "{p:?}");
        // All fifteen of the mover's checkers home vs the opponent's
        // untouched start: the mover nearly always wins.
        let mut b = [0i8; 26];
        b[1] = 5;
        b[2] = 5;
        b[3] = 5;
        for (i, n) in [(1usize, 2i8), (12, 5), (17, 3), (19, 5)] {
            b[25 - i] = -n;
        }
        let pos = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        assert!(net.evaluate(&pos).win > 0.95, "{:?}", net.evaluate(&pos));
    }

    #[test]
    fn training_is_deterministic_and_moves_the_weights() {
        let run = || {
            let mut t = Trainer::new(Net::random(8, 1), TrainConfig::default(), 7);
            for _ in 0..3 {
                t.play_game();
            }
            t.net
        };
        let a = run();
        assert_eq!(a, run());
        assert_ne!(a, Net::random(8, 1));
    }

    #[test]
    fn single_scoring_counts_the_win_only() {
        let p = Probs {
            win: 0.7,
            win_gammon: 0.3,
            lose_gammon: 0.1,
            win_backgammon: 0.05,
            lose_backgammon: 0.02,
        };
        assert!((p.value(Scoring::Single) - 0.4).abs() < 1e-6);
        assert!((p.value(Scoring::Gammons) - 0.63).abs() < 1e-6);
        // A finished gammon: 2 points with gammons counted, 1 without,
        // either way the same for the searches' finished games.
        // White has borne off all fifteen, Black none.
        let mut b = [0i8; 26];
        b[20] = -15;
        let won = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        assert_eq!(outcome_points(&won, Scoring::Gammons), Some(2.0));
        assert_eq!(outcome_points(&won, Scoring::Single), Some(1.0));
        // The searches follow: one roll ahead a position is worth its
        // win chance alone under single scoring.
        let net = Net::shipped();
        let mut buf = Vec::new();
        for pos in crate::bg_fit::sample(net, 40, 0.3, 3) {
            let single = one_ply(net, &pos, &mut buf, Scoring::Single);
            let money = one_ply(net, &pos, &mut buf, Scoring::Gammons);
            assert!((-1.0..=1.0).contains(&single), "{single}");
            assert!((-3.0..=3.0).contains(&money), "{money}");
        }
    }

    #[test]
    fn two_ply_looks_past_the_opponents_reply_within_its_budget() {
        let net = Net::shipped();
        let (mut buf, mut deeper) = (Vec::new(), Vec::new());
        let pos = |b: [i8; 26]| Position::from_board(b, tabula_backgammon::Side::White).unwrap();
        // The opponent bears off its last checker with any roll, a gammon
        // (the mover has none off): exactly -2 whatever the network says.
        let mut b = [0i8; 26];
        b[6] = 15;
        b[24] = -1;
        let mut left = usize::MAX;
        let v = two_ply(
            net,
            &pos(b),
            &mut buf,
            &mut deeper,
            &mut left,
            Scoring::Gammons,
        )
        .unwrap();
        assert!((v + 2.0).abs() < 1e-5, "{v}");
        // The opponent is on the bar against a closed board: it cannot
        // move, so two rolls ahead is the mover's one-roll look-ahead from
        // the board as it stands.
        let mut b = [0i8; 26];
        b[1..=6].copy_from_slice(&[2; 6]);
        b[7] = 3;
        b[0] = -1;
        b[20] = -14;
        let closed = pos(b);
        let mut left = usize::MAX;
        let v = two_ply(
            net,
            &closed,
            &mut buf,
            &mut deeper,
            &mut left,
            Scoring::Gammons,
        )
        .unwrap();
        let opp = one_ply(net, &closed.pass_turn(), &mut buf, Scoring::Gammons);
        assert!((v + opp).abs() < 1e-5, "{v} {opp}");
        // The budget: what it judged is taken off, the estimate is of the
        // right size, and with too little it gives up.
        let start = Position::initial();
        let mut left = 10_000_000;
        let v = two_ply(
            net,
            &start,
            &mut buf,
            &mut deeper,
            &mut left,
            Scoring::Gammons,
        )
        .unwrap();
        let judged = 10_000_000 - left;
        let estimate = two_ply_cost(&start, &mut buf);
        assert!(
            estimate / 2 <= judged && judged <= 2 * estimate,
            "{judged} judged, {estimate} estimated"
        );
        assert!(
            (v - one_ply(net, &start, &mut buf, Scoring::Gammons)).abs() < 0.2,
            "{v}"
        );
        let mut within =
            |left: &mut usize| two_ply(net, &start, &mut buf, &mut deeper, left, Scoring::Gammons);
        assert_eq!(within(&mut (judged - 1)), None);
        let mut left = judged;
        assert_eq!(within(&mut left), Some(v));
        assert_eq!(left, 0);
    }
}
