//! A neural network that judges long nardy positions, trained by
//! self-play with temporal-difference learning (TD(λ)), as
//! [`crate::bg::net`] is for backgammon.
//!
//! The network sees a position right after a side has moved, from that
//! side's point of view (the opponent rolls next), and answers five
//! probabilities for the side that moved ([`Probs`]): it wins; it wins a
//! mars (the loser bore off none); it wins a koks (a mars with a loser's
//! checker still on his head or in the winner's home); it loses a mars; it
//! loses a koks. [`Probs::equity`] turns them into points under any of the
//! three scorings, so Hard maximises points, not wins.
//!
//! Input encoding ([`INPUTS`] = 209 units). For each side (the mover
//! first, then the side on roll), along that side's own route (0 = its
//! head, 18..=23 its home): four units per route point (1+, 2+, 3+
//! checkers, and (n − 3) / 4 above three), then eight features of the
//! side — checkers off / 15; checkers home / 15; pips / 360; how many of
//! the six points straight ahead of the *other* side's rearmost checker
//! this side holds / 6 (the blocks long nardy is played for: there is no
//! hitting); the longest run of this side's points ahead of that checker /
//! 6 (a prime; the six-in-a-row rule caps it); how many die values 1..=6
//! this side could play at all / 6 (being shut in); its rearmost route
//! point / 23; whether it is still on its first turn (the head exception).
//! The last unit says no contact is left (a pure race).
//!
//! The trained weights ship in `nets/long.bin` (made by `tabula
//! train-long`; the command and seed in `RESULTS.md`); [`Net::shipped`]
//! parses them once. Training is deterministic for a seed.
//!
//! Training uses the forward view of TD(λ): each side's after-move
//! predictions of one self-play game are a chain; when the game ends, each
//! prediction is moved toward its λ-return (`G_t = (1 − λ)·y_{t+1} + λ·G_{t+1}`,
//! the last one's being the game's result). This is TD(λ) with the
//! weights updated at the end of each game (Sutton and Barto's offline
//! λ-return algorithm), and costs one gradient step per position instead
//! of decaying a trace of every weight at every move.

use std::sync::OnceLock;

use tabula_long::{CHECKERS, Color, Position, Scoring, is_koks};

use crate::nn::{self, NetError, Sparse};

use super::features::{INPUTS, SIDE, encode};

/// Outputs: win, win mars, win koks, lose mars, lose koks.
pub const OUTPUTS: usize = 5;
const MAGIC: &[u8; 8] = b"TLNNET1\0";

/// The five probabilities the network answers, for the side that moved.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Probs {
    /// It wins.
    pub win: f32,
    /// It wins a mars or a koks.
    pub win_mars: f32,
    /// It wins a koks.
    pub win_koks: f32,
    /// It loses a mars or a koks.
    pub lose_mars: f32,
    /// It loses a koks.
    pub lose_koks: f32,
}

impl Probs {
    /// Points per game under `scoring` (oin 1, mars 2, koks 3 or 2, or
    /// every win 1).
    pub fn equity(&self, scoring: Scoring) -> f32 {
        let base = 2.0 * self.win - 1.0;
        match scoring {
            Scoring::Single => base,
            Scoring::OinMars => base + self.win_mars - self.lose_mars,
            Scoring::OinMarsKoks => {
                base + self.win_mars - self.lose_mars + self.win_koks - self.lose_koks
            }
        }
    }

    /// The same outcome seen by the other side.
    pub fn flip(&self) -> Probs {
        Probs {
            win: 1.0 - self.win,
            win_mars: self.lose_mars,
            win_koks: self.lose_koks,
            lose_mars: self.win_mars,
            lose_koks: self.win_koks,
        }
    }

    pub fn to_array(self) -> [f32; OUTPUTS] {
        [
            self.win,
            self.win_mars,
            self.win_koks,
            self.lose_mars,
            self.lose_koks,
        ]
    }

    fn from_outputs(y: &[f32; OUTPUTS]) -> Probs {
        // A koks is a mars, and a mars a win (or loss): keep them nested.
        let win = y[0];
        let win_mars = y[1].min(win);
        let lose_mars = y[3].min(1.0 - win);
        Probs {
            win,
            win_mars,
            win_koks: y[2].min(win_mars),
            lose_mars,
            lose_koks: y[4].min(lose_mars),
        }
    }

    /// The exact outcome of a finished game for `me`, by the board (koks
    /// and mars as the rules define them, whatever the scoring counts), or
    /// `None` while it is not over.
    pub fn of_outcome(pos: &Position, me: Color) -> Option<Probs> {
        let winner = [Color::White, Color::Black]
            .into_iter()
            .find(|&c| pos.off(c) == CHECKERS)?;
        let loser = winner.other();
        let mars = pos.off(loser) == 0;
        let koks = mars && is_koks(pos, winner);
        let one = |b: bool| if b { 1.0 } else { 0.0 };
        let p = Probs {
            win: 1.0,
            win_mars: one(mars),
            win_koks: one(koks),
            lose_mars: 0.0,
            lose_koks: 0.0,
        };
        Some(if winner == me { p } else { p.flip() })
    }
}

/// The long nardy network: [`INPUTS`] → hidden → [`OUTPUTS`].
#[derive(Debug, Clone, PartialEq)]
pub struct Net(nn::Net);

impl Net {
    /// A network with small seeded random weights.
    pub fn random(hidden: usize, seed: u64) -> Net {
        Net(nn::Net::random(INPUTS, hidden, OUTPUTS, seed))
    }

    /// The network shipped with the crate (`nets/long.bin`).
    pub fn shipped() -> &'static Net {
        static NET: OnceLock<Net> = OnceLock::new();
        NET.get_or_init(|| {
            // The file is part of the source tree and a unit test parses
            // it, so a failure here is a broken build, not bad input.
            Net::from_bytes(include_bytes!("../../nets/long.bin"))
                .expect("nets/long.bin is a valid network")
        })
    }

    /// The core network, to train (`tabula-training`): its shape
    /// ([`INPUTS`] inputs, [`OUTPUTS`] outputs) must stay.
    pub fn core_mut(&mut self) -> &mut nn::Net {
        &mut self.0
    }

    /// The core network: [`INPUTS`] → hidden → [`OUTPUTS`].
    pub fn core(&self) -> &nn::Net {
        &self.0
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.0.hidden()
    }

    /// The file form: magic, hidden, inputs, outputs (u32 LE each), then
    /// every weight (f32 LE).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + 4 * self.0.weight_count());
        out.extend_from_slice(MAGIC);
        for n in [self.0.hidden, INPUTS, OUTPUTS] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        self.0.write_weights(&mut out);
        out
    }

    /// Parses [`Net::to_bytes`]'s form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, NetError> {
        if bytes.len() < 20 || &bytes[..8] != MAGIC {
            return Err(NetError::BadMagic("long nardy"));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
        };
        let (hidden, inputs, outputs) = (word(8), word(12), word(16));
        if inputs != INPUTS || outputs != OUTPUTS {
            return Err(NetError::BadShape(format!(
                "{inputs} inputs and {outputs} outputs (this build reads {INPUTS} and {OUTPUTS})"
            )));
        }
        nn::Net::read_weights(INPUTS, hidden, OUTPUTS, &bytes[20..]).map(Net)
    }

    /// The probabilities for `me`, the side that just moved in `after`
    /// (the other side rolls next). A finished game answers its exact
    /// outcome.
    pub fn evaluate(&self, after: &Position, me: Color) -> Probs {
        Scratch::new(self).probs(self, after, me)
    }
}

/// Reusable buffers for evaluations (no allocation per position).
#[derive(Debug)]
pub struct Scratch {
    x: Sparse,
    h: Vec<f32>,
}

impl Scratch {
    /// Buffers sized for `net`.
    pub fn new(net: &Net) -> Scratch {
        Scratch {
            x: Sparse::with_capacity(2 * SIDE),
            h: Vec::with_capacity(net.hidden()),
        }
    }

    /// [`Net::evaluate`] with these buffers.
    pub fn probs(&mut self, net: &Net, after: &Position, me: Color) -> Probs {
        if let Some(p) = Probs::of_outcome(after, me) {
            return p;
        }
        encode(after, me, &mut self.x);
        let mut y = [0.0; OUTPUTS];
        net.0.forward(&self.x, &mut self.h, &mut y);
        Probs::from_outputs(&y)
    }

    /// The equity for `me` of `after` (the other side to roll) under
    /// `after`'s scoring: exact for a finished game or, when `bearoff`,
    /// once both sides are bearing off (the bear-off database); else the
    /// network's.
    pub fn equity(&mut self, net: &Net, after: &Position, me: Color, bearoff: bool) -> f32 {
        if bearoff && let Some(e) = crate::bearoff::long_equity(after, me) {
            return e as f32;
        }
        self.probs(net, after, me).equity(after.variant().scoring)
    }
}

#[cfg(test)]
mod tests {
    use tabula_long::Variant;

    use super::*;

    #[test]
    fn outcomes_are_read_off_the_board() {
        // White has borne off all 15; black none, one on his head: koks.
        let setup: tabula_long::Setup = serde_json::from_str(
            r#"{"turn":"black","white":{},"black":{"12":1,"1":14},"off":{"white":15,"black":0}}"#,
        )
        .unwrap();
        let pos = Position::from_setup(&setup, Variant::default()).unwrap();
        let p = Probs::of_outcome(&pos, Color::White).unwrap();
        assert_eq!(p.to_array(), [1.0, 1.0, 1.0, 0.0, 0.0]);
        assert_eq!(p.equity(Scoring::OinMarsKoks), 3.0);
        assert_eq!(p.equity(Scoring::OinMars), 2.0);
        assert_eq!(p.equity(Scoring::Single), 1.0);
        let q = Probs::of_outcome(&pos, Color::Black).unwrap();
        assert_eq!(q.equity(Scoring::OinMarsKoks), -3.0);
        assert_eq!(Probs::of_outcome(&Position::initial(), Color::White), None);
    }

    #[test]
    fn weights_round_trip_and_bad_files_are_refused() {
        let net = Net::random(8, 3);
        let bytes = net.to_bytes();
        assert_eq!(Net::from_bytes(&bytes).unwrap(), net);
        assert!(matches!(
            Net::from_bytes(b"nonsense"),
            Err(NetError::BadMagic(_))
        ));
        assert!(matches!(
            Net::from_bytes(&bytes[..bytes.len() - 4]),
            Err(NetError::BadShape(_))
        ));
        let mut other = bytes.clone();
        other[12] = 7; // another input count
        assert!(matches!(
            Net::from_bytes(&other),
            Err(NetError::BadShape(_))
        ));
    }
}
