//! How many sockets the node holds, and whether it takes one more: a cap
//! for the node (so that one client's sockets cannot use up the file
//! descriptors `/healthz`, `/readyz`, `/metrics` and the store need) and
//! one per player. A [`Slot`] is held for a socket's life and gives its
//! place back when dropped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tabula_room::PlayerId;

/// Why a socket was refused (the metric's `reason` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The node holds `server.max_sockets` already.
    NodeFull,
    /// The player holds `server.max_sockets_per_player` already.
    PlayerFull,
}

impl Refusal {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::NodeFull => "node_full",
            Refusal::PlayerFull => "player_full",
        }
    }
}

/// The node's sockets.
#[derive(Debug)]
pub struct Sockets {
    max: usize,
    per_player: usize,
    open: AtomicUsize,
    by_player: Mutex<HashMap<PlayerId, usize>>,
}

impl Sockets {
    /// At most `max` sockets, `per_player` of them one player's.
    pub fn new(max: usize, per_player: usize) -> Arc<Sockets> {
        Arc::new(Sockets {
            max,
            per_player,
            open: AtomicUsize::new(0),
            by_player: Mutex::new(HashMap::new()),
        })
    }

    /// The node's cap.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Sockets held now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// A place for one more socket of `player`, or why not.
    pub fn admit(self: &Arc<Sockets>, player: &PlayerId) -> Result<Slot, Refusal> {
        let mut by = self
            .by_player
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.open.load(Ordering::Relaxed) >= self.max {
            return Err(Refusal::NodeFull);
        }
        let n = by.entry(player.clone()).or_insert(0);
        if *n >= self.per_player {
            return Err(Refusal::PlayerFull);
        }
        *n += 1;
        self.open.fetch_add(1, Ordering::Relaxed);
        Ok(Slot {
            sockets: self.clone(),
            player: player.clone(),
        })
    }

    fn release(&self, player: &PlayerId) {
        let mut by = self
            .by_player
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = by.get_mut(player) {
            *n -= 1;
            if *n == 0 {
                by.remove(player);
            }
        }
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One socket's place; given back on drop.
#[derive(Debug)]
pub struct Slot {
    sockets: Arc<Sockets>,
    player: PlayerId,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.sockets.release(&self.player);
    }
}

/// `server.max_sockets` when it is 0: the process's open-file limit (its
/// soft limit, `/proc/self/limits`) less `headroom` descriptors for
/// everything that is not a socket of a player; 50,000 when the limit
/// cannot be read or is unlimited.
pub fn from_file_limit(headroom: usize) -> usize {
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| soft_open_files(&s));
    match limit {
        Some(n) => n.saturating_sub(headroom).max(1),
        None => 50_000,
    }
}

/// The soft `Max open files` of a `/proc/<pid>/limits` text.
fn soft_open_files(limits: &str) -> Option<usize> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_and_each_player_hold_at_most_their_caps_and_slots_give_back() {
        let s = Sockets::new(3, 2);
        let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
        let a1 = s.admit(&a).unwrap();
        let a2 = s.admit(&a).unwrap();
        assert_eq!(s.admit(&a).unwrap_err(), Refusal::PlayerFull);
        let b1 = s.admit(&b).unwrap();
        assert_eq!(s.open(), 3);
        // Full: even a player with none is refused.
        assert_eq!(s.admit(&PlayerId::new("c")).unwrap_err(), Refusal::NodeFull);
        drop(a1);
        assert_eq!(s.open(), 2);
        let a3 = s.admit(&a).unwrap();
        drop((a2, a3, b1));
        assert_eq!(s.open(), 0);
        assert!(
            s.by_player.lock().unwrap().is_empty(),
            "no entry left behind"
        );
    }

    #[test]
    fn the_cap_follows_the_open_file_limit() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max cpu time              unlimited            unlimited            seconds   \n\
                      Max open files            1024                 524288               files     \n";
        assert_eq!(soft_open_files(limits), Some(1024));
        assert_eq!(
            soft_open_files("Max open files unlimited unlimited files"),
            None
        );
        assert!(from_file_limit(128) >= 1);
    }
}
