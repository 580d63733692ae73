//! Quotas on what makes rooms: `POST /api/rooms` and `POST /api/quickmatch`
//! share one token bucket per player and one per client address
//! (`[quotas]`); a request is admitted only when both have a token, and
//! is charged to both. The cap on rooms in memory is [`crate::Rooms`]'s.
//!
//! Pure: time is passed in as milliseconds ([`Quotas::admit`]), so the
//! limiters are unit-tested without a clock. The node's handlers pass
//! the milliseconds since it started.
//!
//! The tables are bounded: a bucket that has refilled is the same as no
//! bucket, so it is dropped (every minute, and whenever a table is full);
//! a table still full of active keys after that refuses keys it does not
//! hold (fail closed: memory stays bounded whatever an attacker sends).
//! IPv6 addresses are counted by their /64, what one subscriber gets.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};

use crate::settings::QuotaSettings;

/// Keys one table holds at most (~100 bytes each).
pub const MAX_KEYS: usize = 100_000;

/// How often refilled buckets are swept out, ms.
const SWEEP_EVERY_MS: u64 = 60_000;

/// A sustained rate and a burst.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Tokens added per minute.
    pub per_minute: u32,
    /// The bucket's size.
    pub burst: u32,
}

impl Rate {
    /// Milliseconds one token takes to come back.
    fn ms_per_token(self) -> f64 {
        60_000.0 / f64::from(self.per_minute.max(1))
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at_ms: u64,
}

/// Token buckets by key, bounded to `max_keys`.
#[derive(Debug)]
pub struct Limiter<K> {
    rate: Rate,
    max_keys: usize,
    buckets: HashMap<K, Bucket>,
    swept_ms: u64,
}

impl<K: Hash + Eq + Clone> Limiter<K> {
    /// An empty limiter.
    pub fn new(rate: Rate, max_keys: usize) -> Limiter<K> {
        Limiter {
            rate,
            max_keys,
            buckets: HashMap::new(),
            swept_ms: 0,
        }
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    fn level(&self, b: Bucket, now_ms: u64) -> f64 {
        let gained = now_ms.saturating_sub(b.at_ms) as f64 / self.rate.ms_per_token();
        (b.tokens + gained).min(f64::from(self.rate.burst))
    }

    fn sweep(&mut self, now_ms: u64) {
        self.swept_ms = now_ms;
        let full = f64::from(self.rate.burst);
        let rate = self.rate;
        self.buckets.retain(|_, b| {
            let gained = now_ms.saturating_sub(b.at_ms) as f64 / rate.ms_per_token();
            b.tokens + gained < full
        });
        if self.buckets.capacity() > 4 * self.buckets.len() + 1024 {
            self.buckets.shrink_to_fit();
        }
    }

    /// `Ok` when `key` has a token at `now_ms` (nothing taken); else how
    /// long until it has one, ms.
    pub fn check(&mut self, key: &K, now_ms: u64) -> Result<(), u64> {
        if now_ms.saturating_sub(self.swept_ms) >= SWEEP_EVERY_MS {
            self.sweep(now_ms);
        }
        match self.buckets.get(key) {
            Some(&b) => {
                let level = self.level(b, now_ms);
                if level >= 1.0 {
                    Ok(())
                } else {
                    Err(((1.0 - level) * self.rate.ms_per_token()).ceil() as u64)
                }
            }
            None if self.rate.burst == 0 => Err(u64::MAX),
            None if self.buckets.len() < self.max_keys => Ok(()),
            None => {
                self.sweep(now_ms);
                if self.buckets.len() < self.max_keys {
                    Ok(())
                } else {
                    // Full of keys still refilling: refused until some
                    // have refilled; ask again after a token's time.
                    Err(self.rate.ms_per_token().ceil() as u64)
                }
            }
        }
    }

    /// Takes a token from `key` (after a successful [`Limiter::check`]).
    pub fn take(&mut self, key: &K, now_ms: u64) {
        let full = f64::from(self.rate.burst);
        let level = match self.buckets.get(key) {
            Some(&b) => self.level(b, now_ms),
            None => full,
        };
        self.buckets.insert(
            key.clone(),
            Bucket {
                tokens: (level - 1.0).max(0.0),
                at_ms: now_ms,
            },
        );
    }
}

/// Which quota refused a request, and when to try again (ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The player's.
    Player(u64),
    /// The client address's.
    Address(u64),
}

impl Refusal {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::Player(_) => "player",
            Refusal::Address(_) => "address",
        }
    }

    /// Seconds for `Retry-After` (at least 1).
    pub fn retry_after_secs(self) -> u64 {
        let (Refusal::Player(ms) | Refusal::Address(ms)) = self;
        ms.div_ceil(1000).clamp(1, 3600)
    }
}

#[derive(Debug)]
struct Tables {
    players: Limiter<String>,
    addresses: Limiter<IpAddr>,
}

/// The room-making quotas of a node.
#[derive(Debug)]
pub struct Quotas {
    tables: Mutex<Tables>,
}

impl Quotas {
    /// Empty tables with the configured rates.
    pub fn new(s: &QuotaSettings) -> Quotas {
        Quotas::with_max_keys(s, MAX_KEYS)
    }

    /// [`Quotas::new`] holding at most `max_keys` keys per table (tests).
    pub fn with_max_keys(s: &QuotaSettings, max_keys: usize) -> Quotas {
        let player = Rate {
            per_minute: s.player_rooms_per_minute,
            burst: s.player_rooms_burst,
        };
        let address = Rate {
            per_minute: s.address_rooms_per_minute,
            burst: s.address_rooms_burst,
        };
        Quotas {
            tables: Mutex::new(Tables {
                players: Limiter::new(player, max_keys),
                addresses: Limiter::new(address, max_keys),
            }),
        }
    }

    /// Admits one room-making request by `player` (`None`: it presented
    /// no credentials) from `address` at `now_ms`, and charges it to both;
    /// a refused request is charged to neither.
    pub fn admit(
        &self,
        player: Option<&str>,
        address: Option<IpAddr>,
        now_ms: u64,
    ) -> Result<(), Refusal> {
        let mut t = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        let address = address.map(counted_address);
        if let Some(a) = &address {
            t.addresses.check(a, now_ms).map_err(Refusal::Address)?;
        }
        let player = player.map(str::to_string);
        if let Some(p) = &player {
            t.players.check(p, now_ms).map_err(Refusal::Player)?;
        }
        if let Some(a) = &address {
            t.addresses.take(a, now_ms);
        }
        if let Some(p) = &player {
            t.players.take(p, now_ms);
        }
        Ok(())
    }
}

/// The address a quota counts: IPv4 as is (an IPv4-mapped IPv6 address as
/// its IPv4), IPv6 by its /64.
pub fn counted_address(a: IpAddr) -> IpAddr {
    match a {
        IpAddr::V4(_) => a,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The client's address: the peer's, or — behind `hops` trusted proxies —
/// the `hops`-th `X-Forwarded-For` entry counted from the right (the one
/// the outermost trusted proxy wrote: entries to its left are whatever the
/// client sent, so they are never trusted). Falls back to the peer when
/// the header has fewer entries or the entry is not an address.
pub fn client_address(peer: Option<IpAddr>, forwarded_for: &[&str], hops: u8) -> Option<IpAddr> {
    if hops == 0 {
        return peer;
    }
    let entries: Vec<&str> = forwarded_for
        .iter()
        .flat_map(|h| h.split(','))
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .collect();
    let n = usize::from(hops);
    if entries.len() < n {
        return peer;
    }
    let entry = entries[entries.len() - n];
    parse_hop(entry).or(peer)
}

/// An `X-Forwarded-For` entry: an address, possibly `[v6]:port` or
/// `v4:port`.
fn parse_hop(e: &str) -> Option<IpAddr> {
    if let Ok(a) = e.parse::<IpAddr>() {
        return Some(a);
    }
    if let Ok(sa) = e.parse::<std::net::SocketAddr>() {
        return Some(sa.ip());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(per_minute: u32, burst: u32) -> Rate {
        Rate { per_minute, burst }
    }

    fn admit_n<K: Hash + Eq + Clone>(l: &mut Limiter<K>, k: &K, now: u64, n: usize) -> usize {
        (0..n)
            .filter(|_| {
                let ok = l.check(k, now).is_ok();
                if ok {
                    l.take(k, now);
                }
                ok
            })
            .count()
    }

    #[test]
    fn a_bucket_admits_its_burst_then_its_rate() {
        let mut l = Limiter::new(rate(60, 5), 10);
        // A burst of 5 at once, then refused: the next token in 1 s
        assert_eq!(admit_n(&mut l, &"a", 0, 100), 5);
        assert_eq!(l.check(&"a", 0), Err(1000));
        assert_eq!(l.check(&"a", 400), Err(600));
        // One a second after that
        assert_eq!(admit_n(&mut l, &"a", 1000, 100), 1);
        assert_eq!(admit_n(&mut l, &"a", 3000, 100), 2);
        // Never more than the burst, however long it rested
        assert_eq!(admit_n(&mut l, &"a", 1_000_000, 100), 5);
        // Another key has its own bucket
        assert_eq!(admit_n(&mut l, &"b", 1_000_000, 100), 5);
    }

    #[test]
    fn a_refusal_costs_nothing() {
        let mut l = Limiter::new(rate(60, 1), 10);
        assert_eq!(admit_n(&mut l, &"a", 0, 1), 1);
        for t in (0..1000).step_by(10) {
            assert!(l.check(&"a", t).is_err());
        }
        assert_eq!(admit_n(&mut l, &"a", 1000, 1), 1);
    }

    #[test]
    fn the_table_is_bounded_and_refilled_buckets_leave_it() {
        let mut l = Limiter::new(rate(60, 2), 3);
        for k in 0..3 {
            assert_eq!(admit_n(&mut l, &k, 0, 1), 1);
        }
        // Full of buckets still refilling: a new key is refused
        assert!(l.check(&3, 500).is_err());
        assert_eq!(l.len(), 3);
        // Once they have refilled (1 s), they are dropped for the new one
        assert_eq!(admit_n(&mut l, &3, 1000, 1), 1);
        assert_eq!(l.len(), 1);
        // And a minute on, the sweep drops what has refilled
        assert_eq!(admit_n(&mut l, &4, 61_000, 1), 1);
        assert_eq!(l.len(), 1);
    }

    #[test]
    fn a_zero_burst_refuses_everything() {
        let mut l = Limiter::new(rate(60, 0), 3);
        assert!(l.check(&"a", 0).is_err());
    }

    fn settings() -> QuotaSettings {
        QuotaSettings {
            player_rooms_per_minute: 60,
            player_rooms_burst: 2,
            address_rooms_per_minute: 60,
            address_rooms_burst: 3,
            trusted_proxy_hops: 0,
            max_rooms: 10,
        }
    }

    #[test]
    fn a_request_needs_both_the_players_and_the_addresss_token() {
        let q = Quotas::new(&settings());
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(q.admit(Some("p"), Some(ip), 0), Ok(()));
        assert_eq!(q.admit(Some("p"), Some(ip), 0), Ok(()));
        // The player's burst (2) is spent; the address is not charged
        assert_eq!(q.admit(Some("p"), Some(ip), 0), Err(Refusal::Player(1000)));
        // Another player at the same address has the address's last token
        assert_eq!(q.admit(Some("q"), Some(ip), 0), Ok(()));
        assert_eq!(q.admit(Some("r"), Some(ip), 0), Err(Refusal::Address(1000)));
        // Anonymous requests count against their address only
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..3 {
            assert_eq!(q.admit(None, Some(other), 0), Ok(()));
        }
        assert_eq!(q.admit(None, Some(other), 0), Err(Refusal::Address(1000)));
        assert_eq!(Refusal::Address(1000).retry_after_secs(), 1);
        assert_eq!(Refusal::Player(1001).retry_after_secs(), 2);
    }

    #[test]
    fn ipv6_is_counted_by_its_64() {
        let q = Quotas::new(&settings());
        for i in 1..=3 {
            let ip: IpAddr = format!("2001:db8:1:2::{i}").parse().unwrap();
            assert_eq!(q.admit(None, Some(ip), 0), Ok(()));
        }
        let same64: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        assert!(q.admit(None, Some(same64), 0).is_err());
        let next64: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(q.admit(None, Some(next64), 0), Ok(()));
        let mapped: IpAddr = "::ffff:10.0.0.7".parse().unwrap();
        assert_eq!(
            counted_address(mapped),
            "10.0.0.7".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn the_client_address_is_the_peer_unless_behind_trusted_proxies() {
        let peer: Option<IpAddr> = Some("10.1.1.1".parse().unwrap());
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        // Off: the header is the client's to write, never read
        assert_eq!(client_address(peer, &["203.0.113.9"], 0), peer);
        // One proxy: the entry it appended (the last), not what the
        // client put before it
        let xff = ["198.51.100.1, 203.0.113.9"];
        assert_eq!(client_address(peer, &xff, 1), ip("203.0.113.9"));
        assert_eq!(client_address(peer, &xff, 2), ip("198.51.100.1"));
        // Several headers are one list
        let two = ["198.51.100.1", "203.0.113.9"];
        assert_eq!(client_address(peer, &two, 1), ip("203.0.113.9"));
        // Fewer entries than proxies, no header, or not an address: the peer
        assert_eq!(client_address(peer, &xff, 3), peer);
        assert_eq!(client_address(peer, &[], 1), peer);
        assert_eq!(client_address(peer, &["unknown"], 1), peer);
        // With a port
        assert_eq!(
            client_address(peer, &["[2001:db8::1]:443"], 1),
            ip("2001:db8::1")
        );
        assert_eq!(
            client_address(peer, &["203.0.113.9:5000"], 1),
            ip("203.0.113.9")
        );
    }
}
