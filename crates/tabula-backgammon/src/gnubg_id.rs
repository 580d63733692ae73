//! GNU Backgammon Position IDs: the 80-bit position key in gnubg's base64.
//!
//! The key lists the side *not* on roll first, then the side on roll; for
//! each, its points 1..24 in its own numbering and then its bar, each as that
//! many 1 bits followed by a 0 bit, packed least significant bit first.

use crate::position::{Position, Side};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a Position ID could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionIdError {
    /// Not 14 characters long.
    #[error("a Position ID has 14 characters, {0:?} has {1}")]
    Length(String, usize),
    /// A character outside gnubg's base64 alphabet.
    #[error("{0:?} is not a base64 character of a Position ID")]
    Character(char),
    /// The bits do not describe two sides of 25 slots each.
    #[error("Position ID {0:?} does not describe a board")]
    Malformed(String),
    /// A side with more than 15 checkers.
    #[error("Position ID {id:?} gives a side {count} checkers (at most 15)")]
    TooManyCheckers {
        /// The ID.
        id: String,
        /// The count found.
        count: u32,
    },
    /// Both sides on the same point.
    #[error("Position ID {id:?} puts both sides on the same point")]
    SharedPoint {
        /// The ID.
        id: String,
    },
    /// Neither side has a checker left.
    #[error("Position ID {0:?} has no checkers at all")]
    Empty(String),
}

fn decode64(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// The two gnubg half-boards `[not on roll, on roll]`, 25 entries each
/// (index i = that side's point i+1, index 24 = its bar).
pub(crate) fn halves(b: &[i8; 26]) -> [[u8; 25]; 2] {
    let mut h = [[0u8; 25]; 2];
    for i in 0..24 {
        h[1][i] = b[i + 1].max(0) as u8;
        h[0][i] = (-b[24 - i]).max(0) as u8;
    }
    h[1][24] = b[25] as u8;
    h[0][24] = (-b[0]) as u8;
    h
}

pub(crate) fn key(b: &[i8; 26]) -> [u8; 10] {
    let mut key = [0u8; 10];
    let mut bit = 0usize;
    for half in halves(b) {
        for n in half {
            for _ in 0..n {
                key[bit >> 3] |= 1 << (bit & 7);
                bit += 1;
            }
            bit += 1;
        }
    }
    key
}

pub(crate) fn encode(b: &[i8; 26]) -> String {
    let k = key(b);
    let mut s = String::with_capacity(14);
    let mut push = |v: u8| s.push(ALPHABET[v as usize] as char);
    for c in k[..9].chunks(3) {
        push(c[0] >> 2);
        push(((c[0] & 3) << 4) | (c[1] >> 4));
        push(((c[1] & 0x0f) << 2) | (c[2] >> 6));
        push(c[2] & 0x3f);
    }
    push(k[9] >> 2);
    push((k[9] & 3) << 4);
    s
}

pub(crate) fn decode(id: &str, turn: Side) -> Result<Position, PositionIdError> {
    let id = id.trim();
    let n = id.chars().count();
    if n != 14 {
        return Err(PositionIdError::Length(id.to_string(), n));
    }
    let mut v = [0u8; 14];
    for (slot, c) in v.iter_mut().zip(id.chars()) {
        *slot = u8::try_from(c)
            .ok()
            .and_then(decode64)
            .ok_or(PositionIdError::Character(c))?;
    }
    let mut k = [0u8; 10];
    for g in 0..3 {
        let c = &v[g * 4..g * 4 + 4];
        k[g * 3] = (c[0] << 2) | (c[1] >> 4);
        k[g * 3 + 1] = (c[1] << 4) | (c[2] >> 2);
        k[g * 3 + 2] = (c[2] << 6) | c[3];
    }
    k[9] = (v[12] << 2) | (v[13] >> 4);
    let malformed = || PositionIdError::Malformed(id.to_string());
    if v[13] & 0x0f != 0 {
        return Err(malformed());
    }
    let mut h = [[0u8; 25]; 2];
    let mut bit = 0usize;
    let get = |bit: usize| k[bit >> 3] >> (bit & 7) & 1 == 1;
    for half in h.iter_mut() {
        for slot in half.iter_mut() {
            loop {
                if bit >= 80 {
                    return Err(malformed());
                }
                let one = get(bit);
                bit += 1;
                if !one {
                    break;
                }
                *slot += 1;
                if *slot > 15 {
                    return Err(PositionIdError::TooManyCheckers {
                        id: id.to_string(),
                        count: 16,
                    });
                }
            }
        }
    }
    if (bit..80).any(get) {
        return Err(malformed());
    }
    for half in &h {
        let count: u32 = half.iter().map(|&c| u32::from(c)).sum();
        if count > 15 {
            return Err(PositionIdError::TooManyCheckers {
                id: id.to_string(),
                count,
            });
        }
    }
    let mut b = [0i8; 26];
    for i in 0..24 {
        let mine = h[1][i];
        let theirs = h[0][23 - i];
        if mine > 0 && theirs > 0 {
            return Err(PositionIdError::SharedPoint { id: id.to_string() });
        }
        b[i + 1] = mine as i8 - theirs as i8;
    }
    b[25] = h[1][24] as i8;
    b[0] = -(h[0][24] as i8);
    if b.iter().all(|&c| c == 0) {
        return Err(PositionIdError::Empty(id.to_string()));
    }
    Ok(Position { board: b, turn })
}

impl Position {
    /// The GNU Backgammon Position ID (14 characters), side on roll as in
    /// gnubg. The colours are not part of it.
    pub fn gnubg_id(&self) -> String {
        encode(&self.board)
    }

    /// The 80-bit gnubg position key (10 bytes), a compact exact key.
    pub fn gnubg_key(&self) -> [u8; 10] {
        key(&self.board)
    }

    /// Reads a GNU Backgammon Position ID; the side on roll in the ID becomes
    /// White (an ID carries no colours).
    pub fn from_gnubg_id(id: &str) -> Result<Position, PositionIdError> {
        decode(id, Side::White)
    }

    /// Reads a GNU Backgammon Position ID, giving the side on roll a colour.
    pub fn from_gnubg_id_with_turn(id: &str, turn: Side) -> Result<Position, PositionIdError> {
        decode(id, turn)
    }
}
