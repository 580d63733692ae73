//! A small neural network that judges short nardy (backgammon) positions,
//! trained by self-play with temporal-difference learning (TD(λ), as
//! Tesauro's TD-Gammon).
//!
//! The network sees a position right after a side has moved, from that
//! side's point of view (the opponent rolls next), and answers three
//! probabilities for the side that moved: it wins, it wins a gammon (or
//! backgammon), it loses a gammon (or backgammon). A backgammon head (two
//! more logistic units on the hidden layer, fitted after the rest to
//! rollouts: `tabula_training::bg_head::fit_backgammons`) adds gnubg's other two:
//! it wins a backgammon, it loses one, asked only where one can still
//! happen and its winner is bearing off ([`backgammon_in_sight`]).
//! [`Probs::equity`] turns them into points per game.
//!
//! Input encoding ([`INPUTS`] = 209 units). Tesauro's 196: for each side
//! and each of its 24 points in its own numbering, four units (1+, 2+, 3+
//! checkers, and (n − 3) / 2 above three); then each side's bar / 2 and
//! checkers off / 15. Then, as TD-Gammon 2 and gnubg add to the raw board,
//! six features of each side ([`FEATURES`](super::features::FEATURES); the side that moved first): its
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

use tabula_backgammon::{Position, Scoring, WinKind};

pub use crate::nn::NetError;
use crate::nn::{self, Sparse};

use super::features::{
    BOARD, INPUTS, TAIL, TAIL_AT, backgammon_in_sight, encode, encode_with, point_units, tail_units,
};

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

    pub fn to_array(self) -> [f32; OUTPUTS] {
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

/// The backgammon head: two logistic units on the network's hidden layer
/// (win a backgammon, lose one), fitted after the rest with the hidden
/// layer as it stands (`tabula fit-bg-backgammons`,
/// `tabula_training::bg_head::fit_backgammons`): gnubg's fourth and fifth outputs.
/// Training the hidden layer again drops it.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// `w[k * hidden + j]`, `k` 0 for the win, 1 for the loss.
    pub w: Vec<f32>,
    pub b: [f32; 2],
}

impl Head {
    /// A head that answers `p` everywhere (no weights yet).
    pub fn constant(hidden: usize, p: [f32; 2]) -> Head {
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
    pub fn eval(&self, h: &[f32]) -> [f32; 2] {
        let hn = h.len();
        let mut out = [0.0; 2];
        for (k, o) in out.iter_mut().enumerate() {
            let z = nn::dot(&self.w[k * hn..(k + 1) * hn], h);
            *o = nn::sigmoid(z + self.b[k]);
        }
        out
    }
}

/// The backgammon network: [`INPUTS`] → hidden (sigmoid) → 3 (sigmoid),
/// and the backgammon head on the hidden layer (2, sigmoid) once fitted.
#[derive(Debug, Clone, PartialEq)]
pub struct Net {
    core: nn::Net,
    /// The backgammon head, once fitted.
    backgammons: Option<Head>,
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

    /// The backgammon head, if fitted.
    pub fn backgammons(&self) -> Option<&Head> {
        self.backgammons.as_ref()
    }

    /// The backgammon head to fit (`tabula-training`), or `None` to drop it.
    pub fn backgammons_mut(&mut self) -> &mut Option<Head> {
        &mut self.backgammons
    }

    /// The core network's weights, to train (`tabula-training`): its shape
    /// ([`INPUTS`] inputs, [`OUTPUTS`] outputs) must stay.
    pub fn core_mut(&mut self) -> &mut nn::Net {
        &mut self.core
    }

    /// The core network: [`INPUTS`] → hidden → [`OUTPUTS`].
    pub fn core(&self) -> &nn::Net {
        &self.core
    }

    /// Drops the backgammon head: its weights read the hidden layer, so
    /// they mean nothing once that is trained again.
    pub fn drop_backgammons(&mut self) {
        self.backgammons = None;
    }

    /// The network shipped with the crate (`nets/bg.bin`).
    pub fn shipped() -> &'static Net {
        static NET: OnceLock<Net> = OnceLock::new();
        NET.get_or_init(|| {
            // The file is part of the source tree and a unit test parses
            // it, so a failure here is a broken build, not bad input.
            Net::from_bytes(include_bytes!("../../nets/bg.bin"))
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
    pub fn evaluate_in(&self, after: &Position, buf: &mut Buf) -> Probs {
        if let Some(p) = Probs::of_outcome(after) {
            return p;
        }
        self.eval_board(after.board(), buf)
    }

    pub fn eval_board(&self, b: &[i8; 26], buf: &mut Buf) -> Probs {
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
    pub fn hidden_of<'a>(&self, after: &Position, buf: &'a mut Buf) -> &'a [f32] {
        encode(after.board(), &mut buf.x);
        let _ = self.forward(&buf.x, &mut buf.h);
        &buf.h
    }
}

/// Buffers for evaluations (no allocation per position).
#[derive(Debug)]
pub struct Buf {
    x: Sparse,
    h: Vec<f32>,
}

impl Buf {
    pub fn new(net: &Net) -> Buf {
        Buf {
            x: Sparse::with_capacity(INPUTS),
            h: Vec::with_capacity(net.hidden()),
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
pub struct Near<'n> {
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
    pub fn new(net: &'n Net, parent: &[i8; 26]) -> Near<'n> {
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
    pub fn reset(&mut self, parent: &[i8; 26]) {
        self.board = *parent;
        self.tail = tail_units(parent);
        encode_with(parent, &self.tail, &mut self.dx);
        self.net.core.sums(&self.dx, &mut self.pre);
    }

    /// The network's probabilities for board `b` (a child of the parent,
    /// or any board: a distant one only costs more), as
    /// [`Net::evaluate`] gives them for a game not over.
    pub fn probs(&mut self, b: &[i8; 26]) -> Probs {
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

#[cfg(test)]
mod tests;
