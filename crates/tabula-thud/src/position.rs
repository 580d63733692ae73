//! The position: a padded mailbox plus one bit set per piece kind.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::moves::{Move, MoveKind, ParseMoveError};
use crate::square::{GRID_SQUARES, Piece, Side, Square};
use crate::variant::CaptureRule;

const W: usize = 17;
const PAD: usize = W * W;
const EMPTY: u8 = 0;
const DWARF: u8 = 1;
const TROLL: u8 = 2;
const WALL: u8 = 3;

/// Mailbox offsets, in the same order as [`crate::moves::DIR_FR`].
const DIRS: [isize; 8] = [
    -(W as isize) - 1,
    -(W as isize),
    -(W as isize) + 1,
    -1,
    1,
    W as isize - 1,
    W as isize,
    W as isize + 1,
];

const fn sq_to_pad_table() -> [u16; GRID_SQUARES] {
    let mut t = [0u16; GRID_SQUARES];
    let mut i = 0;
    while i < GRID_SQUARES {
        t[i] = (((i / 15) + 1) * W + (i % 15) + 1) as u16;
        i += 1;
    }
    t
}

const fn pad_to_sq_table() -> [u8; PAD] {
    let mut t = [u8::MAX; PAD];
    let mut i = 0;
    while i < GRID_SQUARES {
        t[((i / 15) + 1) * W + (i % 15) + 1] = i as u8;
        i += 1;
    }
    t
}

const SQ_TO_PAD: [u16; GRID_SQUARES] = sq_to_pad_table();
const PAD_TO_SQ: [u8; PAD] = pad_to_sq_table();

const fn empty_cells() -> [u8; PAD] {
    let mut c = [WALL; PAD];
    let mut i = 0;
    while i < GRID_SQUARES {
        let sq = match Square::from_index(i) {
            Some(s) => s,
            None => unreachable!(),
        };
        if sq.is_playable() {
            c[SQ_TO_PAD[i] as usize] = EMPTY;
        }
        i += 1;
    }
    c
}

const EMPTY_CELLS: [u8; PAD] = empty_cells();

#[inline]
fn pad(sq: Square) -> usize {
    SQ_TO_PAD[sq.index()] as usize
}

#[inline]
fn unpad(p: usize) -> Square {
    Square::from_index(PAD_TO_SQ[p] as usize).expect("padded index of a grid square")
}

/// A set of squares, one bit per grid square.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SquareSet([u64; 4]);

impl SquareSet {
    /// Whether `sq` is in the set.
    pub const fn contains(&self, sq: Square) -> bool {
        self.0[sq.index() / 64] & (1 << (sq.index() % 64)) != 0
    }

    fn insert(&mut self, sq: Square) {
        self.0[sq.index() / 64] |= 1 << (sq.index() % 64);
    }

    fn remove(&mut self, sq: Square) {
        self.0[sq.index() / 64] &= !(1 << (sq.index() % 64));
    }

    /// How many squares.
    pub const fn len(&self) -> u32 {
        self.0[0].count_ones()
            + self.0[1].count_ones()
            + self.0[2].count_ones()
            + self.0[3].count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The squares, ascending.
    pub fn iter(&self) -> impl Iterator<Item = Square> + use<> {
        let words = self.0;
        (0..4).flat_map(move |w| {
            let mut bits = words[w];
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Square::from_index(w * 64 + b)
            })
        })
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Material points on the board: a dwarf is worth 1, a troll 4.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Score {
    /// Points of the dwarfs' side: one per dwarf on the board.
    pub dwarfs: u32,
    /// Points of the trolls' side: four per troll on the board.
    pub trolls: u32,
}

impl Score {
    /// The points of one side.
    pub const fn of(&self, side: Side) -> u32 {
        match side {
            Side::Dwarfs => self.dwarfs,
            Side::Trolls => self.trolls,
        }
    }
}

/// What makes two positions the same for the repetition rule: where every
/// piece stands and who is to move (exact, no hashing collisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RepetitionKey {
    dwarfs: SquareSet,
    trolls: SquareSet,
    turn: Side,
}

/// A move that is not legal in the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// The move is well formed but not among the legal moves.
    #[error("illegal move {mv} for {turn} in this position")]
    Illegal {
        /// The move.
        mv: Move,
        /// The side to move.
        turn: Side,
    },
    /// The notation could not be read.
    #[error(transparent)]
    Notation(#[from] ParseMoveError),
}

/// A legal Thud! position: pieces, side to move, plies since the last
/// capture, and the capture rule the moves are generated under.
///
/// Built only through validation ([`Position::from_setup`] / `TryFrom<Setup>`)
/// or by playing moves, so every value is legal.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    cells: [u8; PAD],
    dwarfs: SquareSet,
    trolls: SquareSet,
    turn: Side,
    plies_since_capture: u32,
    capture_rule: CaptureRule,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("turn", &self.turn)
            .field("dwarfs", &self.dwarfs)
            .field("trolls", &self.trolls)
            .field("plies_since_capture", &self.plies_since_capture)
            .field("capture_rule", &self.capture_rule)
            .finish()
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

/// Seed 003's `board-setup`: the 32 dwarfs.
pub const START_DWARFS: [&str; 32] = [
    "f1", "g1", "i1", "j1", "e2", "k2", "d3", "l3", "c4", "m4", "b5", "n5", "a6", "o6", "a7", "o7",
    "a9", "o9", "a10", "o10", "b11", "n11", "c12", "m12", "d13", "l13", "e14", "k14", "f15", "g15",
    "i15", "j15",
];

/// Seed 003's `board-setup`: the 8 trolls around the stone.
pub const START_TROLLS: [&str; 8] = ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"];

impl Position {
    /// The start position under the default (seed 003) capture rule.
    pub fn start() -> Position {
        Position::start_with(CaptureRule::Zrf)
    }

    /// The start position under `rule`.
    pub fn start_with(rule: CaptureRule) -> Position {
        let mut p = Position::empty(Side::Dwarfs, rule);
        for s in START_DWARFS {
            p.put(s.parse().expect("start square"), Piece::Dwarf);
        }
        for s in START_TROLLS {
            p.put(s.parse().expect("start square"), Piece::Troll);
        }
        p
    }

    pub(crate) fn empty(turn: Side, rule: CaptureRule) -> Position {
        Position {
            cells: EMPTY_CELLS,
            dwarfs: SquareSet::default(),
            trolls: SquareSet::default(),
            turn,
            plies_since_capture: 0,
            capture_rule: rule,
        }
    }

    pub(crate) fn set_plies_since_capture(&mut self, n: u32) {
        self.plies_since_capture = n;
    }

    /// Puts a piece on an empty playable square (callers check).
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert!(sq.is_playable() && self.cells[pad(sq)] == EMPTY);
        match piece {
            Piece::Dwarf => {
                self.cells[pad(sq)] = DWARF;
                self.dwarfs.insert(sq);
            }
            Piece::Troll => {
                self.cells[pad(sq)] = TROLL;
                self.trolls.insert(sq);
            }
        }
    }

    /// The same position with moves generated under `rule`.
    pub fn with_capture_rule(mut self, rule: CaptureRule) -> Position {
        self.capture_rule = rule;
        self
    }

    /// The capture rule moves are generated under.
    pub const fn capture_rule(&self) -> CaptureRule {
        self.capture_rule
    }

    /// The side to move.
    pub const fn turn(&self) -> Side {
        self.turn
    }

    /// Plies played since the last capture (or since the setup).
    pub const fn plies_since_capture(&self) -> u32 {
        self.plies_since_capture
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        match self.cells[pad(sq)] {
            DWARF => Some(Piece::Dwarf),
            TROLL => Some(Piece::Troll),
            _ => None,
        }
    }

    /// The squares holding dwarfs.
    pub const fn dwarfs(&self) -> SquareSet {
        self.dwarfs
    }

    /// The squares holding trolls.
    pub const fn trolls(&self) -> SquareSet {
        self.trolls
    }

    /// The squares holding `side`'s pieces.
    pub const fn pieces(&self, side: Side) -> SquareSet {
        match side {
            Side::Dwarfs => self.dwarfs,
            Side::Trolls => self.trolls,
        }
    }

    /// Material on the board: dwarfs 1 point each, trolls 4 each.
    pub const fn score(&self) -> Score {
        Score {
            dwarfs: self.dwarfs.len() * Piece::Dwarf.value(),
            trolls: self.trolls.len() * Piece::Troll.value(),
        }
    }

    /// The key the repetition rule compares.
    pub const fn repetition_key(&self) -> RepetitionKey {
        RepetitionKey {
            dwarfs: self.dwarfs,
            trolls: self.trolls,
            turn: self.turn,
        }
    }

    /// Every legal move for the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut v = Vec::with_capacity(256);
        self.legal_moves_into(&mut v);
        v
    }

    /// Appends every legal move for the side to move to `out`.
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        for sq in self.pieces(self.turn).iter() {
            self.moves_from_into(sq, out);
        }
    }

    /// Whether the side to move has any legal move. Without generating: a
    /// dwarf can move iff a neighbour is empty (a move) or a troll (a hurl of
    /// one); a troll iff a neighbour is empty (a step; every shove passes
    /// through that square first).
    pub fn has_legal_move(&self) -> bool {
        let (own, targets): (SquareSet, &[u8]) = match self.turn {
            Side::Dwarfs => (self.dwarfs, &[EMPTY, TROLL]),
            Side::Trolls => (self.trolls, &[EMPTY]),
        };
        own.iter().any(|sq| {
            let p = pad(sq);
            DIRS.iter()
                .any(|&off| targets.contains(&self.cells[p.wrapping_add_signed(off)]))
        })
    }

    /// The legal moves of the piece on `sq` (none unless it belongs to the
    /// side to move).
    pub fn moves_from(&self, sq: Square) -> Vec<Move> {
        let mut v = Vec::new();
        self.moves_from_into(sq, &mut v);
        v
    }

    fn moves_from_into(&self, from: Square, out: &mut Vec<Move>) {
        let p = pad(from);
        match (self.cells[p], self.turn) {
            (DWARF, Side::Dwarfs) => self.gen_dwarf(from, p, out),
            (TROLL, Side::Trolls) => self.gen_troll(from, p, out),
            _ => {}
        }
    }

    /// Whether the line through `p` backwards (step `back`) holds at least
    /// `need` pieces of `kind`, counting `p` itself.
    #[inline]
    fn line_at_least(&self, p: usize, back: isize, kind: u8, need: u32) -> bool {
        let mut q = p;
        for _ in 1..need {
            q = q.wrapping_add_signed(back);
            if self.cells[q] != kind {
                return false;
            }
        }
        true
    }

    fn gen_dwarf(&self, from: Square, p: usize, out: &mut Vec<Move>) {
        for (d, &off) in DIRS.iter().enumerate() {
            let mut t = p.wrapping_add_signed(off);
            let mut dist = 1;
            while self.cells[t] == EMPTY {
                out.push(Move::raw(MoveKind::Move, from, unpad(t), 0));
                t = t.wrapping_add_signed(off);
                dist += 1;
            }
            if self.cells[t] == TROLL && self.line_at_least(p, DIRS[7 - d], DWARF, dist) {
                out.push(Move::raw(MoveKind::Hurl, from, unpad(t), 0));
            }
        }
    }

    #[inline]
    fn adjacent_dwarfs(&self, t: usize) -> u8 {
        let mut mask = 0;
        for (d, &off) in DIRS.iter().enumerate() {
            mask |= u8::from(self.cells[t.wrapping_add_signed(off)] == DWARF) << d;
        }
        mask
    }

    fn gen_troll(&self, from: Square, p: usize, out: &mut Vec<Move>) {
        for (d, &off) in DIRS.iter().enumerate() {
            let t = p.wrapping_add_signed(off);
            if self.cells[t] != EMPTY {
                continue;
            }
            let to = unpad(t);
            let mask = self.adjacent_dwarfs(t);
            match self.capture_rule {
                CaptureRule::Zrf => out.push(Move::raw(MoveKind::Step, from, to, mask)),
                CaptureRule::Classic => {
                    out.push(Move::raw(MoveKind::Step, from, to, 0));
                    let mut m = mask;
                    while m != 0 {
                        let bit = m & m.wrapping_neg();
                        out.push(Move::raw(MoveKind::Step, from, to, bit));
                        m &= m - 1;
                    }
                }
            }
            let mut t2 = t.wrapping_add_signed(off);
            let mut dist = 2;
            while self.cells[t2] == EMPTY && self.line_at_least(p, DIRS[7 - d], TROLL, dist) {
                let mask = self.adjacent_dwarfs(t2);
                if mask != 0 {
                    out.push(Move::raw(MoveKind::Shove, from, unpad(t2), mask));
                }
                t2 = t2.wrapping_add_signed(off);
                dist += 1;
            }
        }
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: &Move) -> bool {
        if self.piece_at(mv.from()).map(Piece::side) != Some(self.turn) {
            return false;
        }
        let mut v = Vec::with_capacity(64);
        self.moves_from_into(mv.from(), &mut v);
        v.contains(mv)
    }

    /// The position after `mv`, if it is legal.
    pub fn play(&self, mv: &Move) -> Result<Position, PlayError> {
        if !self.is_legal(mv) {
            return Err(PlayError::Illegal {
                mv: *mv,
                turn: self.turn,
            });
        }
        let mut next = self.clone();
        next.play_unchecked(mv);
        Ok(next)
    }

    /// Plays `mv` in place without checking it. `mv` must be one of
    /// [`Position::legal_moves`]; anything else leaves a position that may
    /// break the engine's invariants (it never causes undefined behaviour).
    pub fn play_unchecked(&mut self, mv: &Move) {
        let (from, to) = (mv.from(), mv.to());
        let (pf, pt) = (pad(from), pad(to));
        let captured = match mv.kind() {
            MoveKind::Move | MoveKind::Hurl => {
                self.cells[pf] = EMPTY;
                self.dwarfs.remove(from);
                if mv.kind() == MoveKind::Hurl {
                    self.trolls.remove(to);
                }
                self.cells[pt] = DWARF;
                self.dwarfs.insert(to);
                mv.kind() == MoveKind::Hurl
            }
            MoveKind::Step | MoveKind::Shove => {
                self.cells[pf] = EMPTY;
                self.trolls.remove(from);
                self.cells[pt] = TROLL;
                self.trolls.insert(to);
                let mask = mv.mask();
                for (d, &off) in DIRS.iter().enumerate() {
                    if mask & (1 << d) != 0 {
                        let q = pt.wrapping_add_signed(off);
                        if self.cells[q] == DWARF {
                            self.cells[q] = EMPTY;
                            self.dwarfs.remove(unpad(q));
                        }
                    }
                }
                mask != 0
            }
        };
        self.plies_since_capture = if captured {
            0
        } else {
            self.plies_since_capture.saturating_add(1)
        };
        self.turn = self.turn.opponent();
    }

    /// Reads `notation` and returns the legal move it names. Under the ZRF
    /// rule a troll move's captures follow from its squares, so they may be
    /// left out (`Th7-h6` is read as `Th7-h6xg5xi5` when that is the only
    /// legal move from h7 to h6).
    pub fn parse_move(&self, notation: &str) -> Result<Move, PlayError> {
        let mv: Move = notation.trim().parse()?;
        if self.is_legal(&mv) {
            return Ok(mv);
        }
        if !mv.is_capture() {
            let mut found = self
                .moves_from(mv.from())
                .into_iter()
                .filter(|m| m.to() == mv.to() && m.kind() == mv.kind());
            if let (Some(m), None) = (found.next(), found.next()) {
                return Ok(m);
            }
        }
        Err(PlayError::Illegal {
            mv,
            turn: self.turn,
        })
    }

    /// Leaf nodes of the move tree `depth` plies deep (perft). Round-ending
    /// rules other than "no legal move" are ignored.
    pub fn perft(&self, depth: u32) -> u64 {
        self.perft_counts(depth).last().copied().unwrap_or(1)
    }

    /// Nodes at each depth `1..=depth` of the move tree.
    pub fn perft_counts(&self, depth: u32) -> Vec<u64> {
        let mut counts = vec![0u64; depth as usize];
        if depth > 0 {
            let mut bufs: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(256)).collect();
            self.perft_rec(0, &mut counts, &mut bufs);
        }
        counts
    }

    fn perft_rec(&self, ply: usize, counts: &mut [u64], bufs: &mut [Vec<Move>]) {
        let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
        buf.clear();
        self.legal_moves_into(buf);
        counts[ply] += buf.len() as u64;
        if ply + 1 < counts.len() {
            for mv in buf.iter() {
                let mut next = self.clone();
                next.play_unchecked(mv);
                next.perft_rec(ply + 1, counts, rest);
            }
        }
    }
}
