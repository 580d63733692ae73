//! How many sockets the node holds, and whether it takes one more: a cap
//! for the node (so that one client's sockets cannot use up the file
//! descriptors `/healthz`, `/readyz`, `/metrics` and the store need), one
//! per player and one per address; and a cool-down for an address whose
//! socket was closed for flooding, so that reconnecting does not reset the
//! rate limit. A [`Slot`] is held for a socket's life and gives its place
//! back when dropped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tabula_room::PlayerId;

/// Why a socket was refused (the metric's `reason` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The node holds `server.max_sockets` already.
    NodeFull,
    /// The player holds `server.max_sockets_per_player` already.
    PlayerFull,
    /// The address holds `server.max_sockets_per_address` already.
    AddressFull,
    /// A socket from the address was closed for flooding less than
    /// `server.abuse_cooldown_ms` ago.
    CoolingDown,
}

impl Refusal {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::NodeFull => "node_full",
            Refusal::PlayerFull => "player_full",
            Refusal::AddressFull => "address_full",
            Refusal::CoolingDown => "cooling_down",
        }
    }
}

/// Addresses remembered as cooling down at most; past it those whose time
/// is over are forgotten, then the one due first.
const MAX_COOLING: usize = 10_000;

/// The node's sockets.
#[derive(Debug)]
pub struct Sockets {
    max: usize,
    per_player: usize,
    per_address: usize,
    open: AtomicUsize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    by_player: HashMap<PlayerId, usize>,
    by_address: HashMap<IpAddr, usize>,
    /// Addresses cooling down after a flood, until when.
    cooling: HashMap<IpAddr, Instant>,
}

impl Sockets {
    /// At most `max` sockets, `per_player` of them one player's, any
    /// number from one address.
    pub fn new(max: usize, per_player: usize) -> Arc<Sockets> {
        Sockets::with_address_cap(max, per_player, usize::MAX)
    }

    /// Also at most `per_address` from one address.
    pub fn with_address_cap(max: usize, per_player: usize, per_address: usize) -> Arc<Sockets> {
        Arc::new(Sockets {
            max,
            per_player,
            per_address,
            open: AtomicUsize::new(0),
            held: Mutex::new(Held::default()),
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for one more socket of `player` from `address` (unknown:
    /// counted for the player only) at `now`, or why not.
    pub fn admit(
        self: &Arc<Sockets>,
        player: &PlayerId,
        address: Option<IpAddr>,
        now: Instant,
    ) -> Result<Slot, Refusal> {
        let mut h = self.lock();
        if let Some(a) = address
            && h.cooling.get(&a).is_some_and(|&until| now < until)
        {
            return Err(Refusal::CoolingDown);
        }
        if self.open.load(Ordering::Relaxed) >= self.max {
            return Err(Refusal::NodeFull);
        }
        if h.by_player
            .get(player)
            .is_some_and(|&n| n >= self.per_player)
        {
            return Err(Refusal::PlayerFull);
        }
        if let Some(a) = address
            && h.by_address.get(&a).is_some_and(|&n| n >= self.per_address)
        {
            return Err(Refusal::AddressFull);
        }
        *h.by_player.entry(player.clone()).or_insert(0) += 1;
        if let Some(a) = address {
            *h.by_address.entry(a).or_insert(0) += 1;
        }
        self.open.fetch_add(1, Ordering::Relaxed);
        Ok(Slot {
            sockets: self.clone(),
            player: player.clone(),
            address,
        })
    }

    /// A socket from `address` was closed for flooding: its address gets
    /// no new socket until `until`.
    pub fn cool_down(&self, address: Option<IpAddr>, now: Instant, until: Instant) {
        let Some(a) = address else {
            return;
        };
        let mut h = self.lock();
        if h.cooling.len() >= MAX_COOLING {
            h.cooling.retain(|_, u| *u > now);
            if h.cooling.len() >= MAX_COOLING
                && let Some(first) = h.cooling.iter().min_by_key(|(_, u)| **u).map(|(a, _)| *a)
            {
                h.cooling.remove(&first);
            }
        }
        h.cooling.insert(a, until);
    }

    fn release(&self, player: &PlayerId, address: Option<IpAddr>) {
        let mut h = self.lock();
        if let Some(n) = h.by_player.get_mut(player) {
            *n -= 1;
            if *n == 0 {
                h.by_player.remove(player);
            }
        }
        if let Some(a) = address
            && let Some(n) = h.by_address.get_mut(&a)
        {
            *n -= 1;
            if *n == 0 {
                h.by_address.remove(&a);
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
    address: Option<IpAddr>,
}

impl Slot {
    /// The socket flooded: its address cools down until `until`.
    pub fn cool_down(&self, now: Instant, until: Instant) {
        self.sockets.cool_down(self.address, now, until);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.sockets.release(&self.player, self.address);
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
        let now = Instant::now();
        let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
        let a1 = s.admit(&a, None, now).unwrap();
        let a2 = s.admit(&a, None, now).unwrap();
        assert_eq!(s.admit(&a, None, now).unwrap_err(), Refusal::PlayerFull);
        let b1 = s.admit(&b, None, now).unwrap();
        assert_eq!(s.open(), 3);
        // Full: even a player with none is refused.
        let c = PlayerId::new("c");
        assert_eq!(s.admit(&c, None, now).unwrap_err(), Refusal::NodeFull);
        drop(a1);
        assert_eq!(s.open(), 2);
        let a3 = s.admit(&a, None, now).unwrap();
        drop((a2, a3, b1));
        assert_eq!(s.open(), 0);
        let h = s.lock();
        assert!(
            h.by_player.is_empty() && h.by_address.is_empty(),
            "no entry left behind"
        );
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_cools_down_after_a_flood() {
        let s = Sockets::with_address_cap(100, 100, 2);
        let t0 = Instant::now();
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        let other: IpAddr = "192.0.2.8".parse().unwrap();
        let p = PlayerId::new;
        let x1 = s.admit(&p("x1"), Some(ip), t0).unwrap();
        let _x2 = s.admit(&p("x2"), Some(ip), t0).unwrap();
        // A new guest each time, the same address: refused.
        assert_eq!(
            s.admit(&p("x3"), Some(ip), t0).unwrap_err(),
            Refusal::AddressFull
        );
        assert!(s.admit(&p("y"), Some(other), t0).is_ok());
        // x1 floods: closed, and its address may not come back for a while.
        let until = t0 + std::time::Duration::from_secs(30);
        x1.cool_down(t0, until);
        drop(x1);
        assert_eq!(
            s.admit(&p("x4"), Some(ip), t0).unwrap_err(),
            Refusal::CoolingDown
        );
        assert!(
            s.admit(&p("z"), Some(other), t0).is_ok(),
            "only that address"
        );
        assert!(
            s.admit(&p("x5"), Some(ip), until).is_ok(),
            "after the cool-down"
        );
    }

    #[test]
    fn the_cool_down_list_stays_bounded() {
        let s = Sockets::new(10, 10);
        let t0 = Instant::now();
        let later = t0 + std::time::Duration::from_secs(60);
        for i in 0..(MAX_COOLING as u32 + 50) {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(i));
            s.cool_down(Some(ip), t0, later);
        }
        assert!(s.lock().cooling.len() <= MAX_COOLING);
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
