//! Provably fair dice.
//!
//! # The derivation, exactly
//!
//! * Each game has a **server seed** (a string). Before the first roll the
//!   room publishes the commitment `hex(SHA-256(server_seed))` (lower-case
//!   hex of the UTF-8 bytes' digest). The server seed is revealed when the
//!   game ends.
//! * Each player may set a **client seed** (a string, default empty) before
//!   the game starts; seat A's is `client_a`, seat B's `client_b`.
//! * Roll number `k` (0, 1, 2, …, counted over the whole game, opening rolls
//!   included) is two dice. Its bytes are the digests
//!   `H0 = SHA-256(server_seed ":" client_a ":" client_b ":" k)` and, only if
//!   more bytes are needed, `Hj = SHA-256(server_seed ":" client_a ":"
//!   client_b ":" k ":" j)` for j = 1, 2, … (`k` and `j` in decimal ASCII,
//!   `":"` the single byte 0x3A). The bytes are read in order; a byte `b ≥
//!   252` is rejected (252 = 6 × 42, so `b mod 6` is unbiased); an accepted
//!   byte gives the die `b mod 6 + 1`. The first accepted byte is the first
//!   die, the second accepted byte the second die.
//! * The dice are consumed as a stream of single dice: die `i` is die
//!   `i mod 2` of roll `i / 2`. An opening roll (one die each) is one roll:
//!   its first die is seat A's (white's), its second seat B's (black's).
//!
//! Per-game server seeds in a match come from one secret master seed:
//! `server_seed(game n) = hex(SHA-256(master ":" "game" ":" n))`; revealing
//! one game's seed reveals nothing about another's.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tabula_dice::DiceSource;

/// `hex(SHA-256(server_seed))`: the commitment published at game start.
pub fn commitment(server_seed: &str) -> String {
    hex::encode(Sha256::digest(server_seed.as_bytes()))
}

/// The server seed of game `game_number` (1-based) of a room whose secret
/// master seed is `master`.
pub fn game_server_seed(master: &str, game_number: u32) -> String {
    hex::encode(Sha256::digest(
        format!("{master}:game:{game_number}").as_bytes(),
    ))
}

/// Roll `k` derived from the seeds (see the module docs).
pub fn derive_roll(server_seed: &str, client_a: &str, client_b: &str, k: u64) -> [u8; 2] {
    let mut out = [0u8; 2];
    let mut got = 0;
    let mut j: u64 = 0;
    while got < 2 {
        let msg = if j == 0 {
            format!("{server_seed}:{client_a}:{client_b}:{k}")
        } else {
            format!("{server_seed}:{client_a}:{client_b}:{k}:{j}")
        };
        for b in Sha256::digest(msg.as_bytes()) {
            if b < 252 {
                out[got] = b % 6 + 1;
                got += 1;
                if got == 2 {
                    break;
                }
            }
        }
        j += 1;
    }
    out
}

/// The dice of one game, as a [`DiceSource`]: die `i` is die `i mod 2` of
/// roll `i / 2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FairDice {
    server_seed: String,
    client_seeds: [String; 2],
    /// Single dice consumed so far.
    used: u64,
    /// Tests and training only: rolls taken from this script (cycled)
    /// instead of the derivation. Records carry it, so such a game never
    /// passes for a fair one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    script: Option<Vec<[u8; 2]>>,
}

impl FairDice {
    /// The dice of a game with these seeds, nothing rolled yet.
    pub fn new(server_seed: &str, client_a: &str, client_b: &str) -> FairDice {
        FairDice {
            server_seed: server_seed.to_string(),
            client_seeds: [client_a.to_string(), client_b.to_string()],
            used: 0,
            script: None,
        }
    }

    /// Dice that replay `script` (cycled) instead of the derivation: for
    /// tests and training rooms. An empty script is ignored.
    pub fn scripted(mut self, script: Vec<[u8; 2]>) -> FairDice {
        if !script.is_empty() {
            self.script = Some(script);
        }
        self
    }

    /// The script, if these dice are scripted.
    pub fn script(&self) -> Option<&[[u8; 2]]> {
        self.script.as_deref()
    }

    fn roll_at(&self, k: u64) -> [u8; 2] {
        match &self.script {
            Some(s) => s[(k % s.len() as u64) as usize],
            None => derive_roll(
                &self.server_seed,
                &self.client_seeds[0],
                &self.client_seeds[1],
                k,
            ),
        }
    }

    /// The server seed (secret until the game ends).
    pub fn server_seed(&self) -> &str {
        &self.server_seed
    }

    /// The client seeds of seats A and B.
    pub fn client_seeds(&self) -> &[String; 2] {
        &self.client_seeds
    }

    /// The commitment to the server seed.
    pub fn commitment(&self) -> String {
        commitment(&self.server_seed)
    }

    /// Single dice consumed so far.
    pub fn dice_used(&self) -> u64 {
        self.used
    }

    /// The index of the roll the next die comes from.
    pub fn next_roll_index(&self) -> u64 {
        self.used.div_ceil(2)
    }

    /// The next whole roll. If a single die of a roll was consumed, the rest
    /// of that roll is skipped so a roll is always one derived pair.
    pub fn roll_pair(&mut self) -> [u8; 2] {
        let k = self.next_roll_index();
        self.used = (k + 1) * 2;
        self.roll_at(k)
    }
}

impl DiceSource for FairDice {
    fn roll_one(&mut self) -> u8 {
        let k = self.used / 2;
        let d = self.roll_at(k)[(self.used % 2) as usize];
        self.used += 1;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitment_is_sha256_hex_of_the_seed() {
        // SHA-256("abc"), FIPS 180-2 test vector.
        assert_eq!(
            commitment("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn rolls_are_deterministic_in_range_and_depend_on_every_seed() {
        let r = derive_roll("s", "a", "b", 0);
        assert_eq!(r, derive_roll("s", "a", "b", 0));
        assert!(r.iter().all(|d| (1..=6).contains(d)));
        let many: Vec<_> = (0..64).map(|k| derive_roll("s", "a", "b", k)).collect();
        let other_client: Vec<_> = (0..64).map(|k| derive_roll("s", "a", "c", k)).collect();
        let other_server: Vec<_> = (0..64).map(|k| derive_roll("t", "a", "b", k)).collect();
        assert_ne!(many, other_client);
        assert_ne!(many, other_server);
    }

    #[test]
    fn dice_stream_reads_pairs_in_order() {
        let mut d = FairDice::new("s", "", "");
        let a = d.roll_one();
        let b = d.roll_one();
        assert_eq!([a, b], derive_roll("s", "", "", 0));
        assert_eq!(d.roll_pair(), derive_roll("s", "", "", 1));
        d.roll_one();
        assert_eq!(d.roll_pair(), derive_roll("s", "", "", 3));
    }

    #[test]
    fn faces_are_roughly_uniform() {
        let mut counts = [0u32; 6];
        for k in 0..6000 {
            for v in derive_roll("seed", "x", "y", k) {
                counts[usize::from(v - 1)] += 1;
            }
        }
        for c in counts {
            assert!((1700..2300).contains(&c), "{counts:?}");
        }
    }
}
