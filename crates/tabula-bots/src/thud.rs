//! Thud!: material greed (Medium) and alpha-beta (Hard).
//!
//! Material counts dwarf 1, troll 4 (the score). Hard searches negamax
//! alpha-beta by iterative deepening (depth 1, 2, 3, …) within a node
//! budget ([`crate::HARD_THUD_NODES`], one node = one position whose moves
//! were generated); the deepest fully searched depth decides. Leaves are
//! scored by material plus a small term for trolls near dwarfs. At the last
//! ply a side's best reply is its best capture, read off the move list
//! without playing it.

use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use tabula_thud::{Move, Piece, Position, Side};

use crate::level::{HARD_THUD_NODES, Level};

/// Material of a capture by `mv`.
fn gain(mv: &Move) -> i32 {
    let victim = match mv.piece() {
        Piece::Dwarf => Piece::Troll,
        Piece::Troll => Piece::Dwarf,
    };
    mv.capture_count() as i32 * victim.value() as i32
}

/// Material of the side to move minus the other's.
fn material(pos: &Position) -> i32 {
    let s = pos.score();
    let me = pos.turn();
    s.of(me) as i32 - s.of(me.opponent()) as i32
}

struct Search {
    nodes: u64,
    budget: u64,
    buf: Vec<Vec<Move>>,
}

impl Search {
    /// Negamax value (for the side to move), `None` when out of budget.
    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        if self.nodes >= self.budget {
            return None;
        }
        self.nodes += 1;
        if pos.dwarfs().is_empty() || pos.trolls().is_empty() {
            return Some(material(pos) * 16);
        }
        while self.buf.len() <= ply {
            self.buf.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.buf[ply]);
        moves.clear();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            self.buf[ply] = moves;
            return Some(material(pos) * 16);
        }
        let base = material(pos) * 16;
        let result = if depth == 1 {
            Some(base + 16 * moves.iter().map(gain).max().unwrap_or(0))
        } else {
            moves.sort_by_key(|m| -gain(m));
            let mut best = i32::MIN + 1;
            let mut out = Some(0);
            for mv in &moves {
                let mut next = pos.clone();
                next.play_unchecked(mv);
                match self.negamax(&next, depth - 1, -beta, -alpha, ply + 1) {
                    None => {
                        out = None;
                        break;
                    }
                    Some(v) => {
                        let v = -v;
                        if v > best {
                            best = v;
                        }
                        if v > alpha {
                            alpha = v;
                        }
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            out.map(|_| best)
        };
        self.buf[ply] = moves;
        result
    }
}

/// The move `level` plays, `None` when the side to move has none.
pub fn choose(level: Level, rng: &mut ChaCha8Rng, pos: &Position) -> Option<Move> {
    let mut moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    match level {
        Level::Easy => Some(moves[rng.random_range(0..moves.len())]),
        Level::Medium => {
            let best = moves.iter().map(gain).max().unwrap_or(0);
            let top: Vec<Move> = moves.into_iter().filter(|m| gain(m) == best).collect();
            Some(top[rng.random_range(0..top.len())])
        }
        Level::Hard => Some(hard(rng, pos, &mut moves, HARD_THUD_NODES)),
    }
}

/// Hard's choice among `moves` (non-empty) within `budget` nodes.
pub fn hard(rng: &mut ChaCha8Rng, pos: &Position, moves: &mut [Move], budget: u64) -> Move {
    moves.shuffle(rng);
    moves.sort_by_key(|m| -gain(m));
    let mut search = Search {
        nodes: 0,
        budget,
        buf: Vec::new(),
    };
    // Depth 1: the best immediate capture (always affordable).
    let mut chosen = moves[0];
    let mut depth = 2;
    'deepen: while depth <= 6 {
        let mut alpha = i32::MIN + 1;
        let mut best = chosen;
        let beta = i32::MAX;
        // Search the previous best first.
        let mut order: Vec<Move> = Vec::with_capacity(moves.len());
        order.push(chosen);
        order.extend(moves.iter().copied().filter(|m| *m != chosen));
        for mv in &order {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            let Some(v) = search.negamax(&next, depth - 1, -beta, -alpha, 1) else {
                break 'deepen;
            };
            let v = -v + positional(&next, pos.turn());
            if v > alpha {
                alpha = v;
                best = *mv;
            }
        }
        chosen = best;
        depth += 1;
    }
    chosen
}

/// A small tie-breaker for quiet moves: trolls like to be near dwarfs
/// (so they can threaten), dwarfs like company (lines to hurl along).
fn positional(pos: &Position, me: Side) -> i32 {
    let dwarfs: Vec<(i32, i32)> = pos
        .dwarfs()
        .iter()
        .map(|s| (i32::from(s.file()), i32::from(s.rank())))
        .collect();
    let trolls: Vec<(i32, i32)> = pos
        .trolls()
        .iter()
        .map(|s| (i32::from(s.file()), i32::from(s.rank())))
        .collect();
    let mut near = 0;
    for &(tf, tr) in &trolls {
        let d = dwarfs
            .iter()
            .map(|&(f, r)| (f - tf).abs().max((r - tr).abs()))
            .min()
            .unwrap_or(15);
        near -= d.min(8);
    }
    match me {
        Side::Trolls => near,
        Side::Dwarfs => 0,
    }
}
