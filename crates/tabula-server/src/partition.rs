//! What a node cut off from its store does with its own sockets, as a pure
//! decision (time passed in); [`crate::peers`] carries it out.
//!
//! A node that cannot renew its liveness lease stops acting as an owner
//! once the lease has run out (its rooms are taken over elsewhere). Its
//! own sockets are another matter: a node without its store can neither
//! serve a room nor route to one, so its players wait for nothing. Whether
//! to close them (1012: reconnect, the load balancer picks another node)
//! depends on a fact the node cannot see alone:
//!
//! * **the store is down for everyone** (a Redis restart or pause): every
//!   node is in the same state, closing would only move every player of
//!   every node to another node that cannot serve him either, and each
//!   room would see its players leave (a disconnection the player did not
//!   cause). The sockets stay; the rooms come back when the store does.
//! * **this node alone is cut off** (a partition between it and the store,
//!   or between it and the rest of the cluster): other nodes serve its
//!   rooms by now, so its players are told to reconnect, and it answers
//!   `/readyz` with 503 so that the load balancer sends them elsewhere.
//!
//! So a node cut off past its lease asks its peers (`cluster.peers`,
//! `GET /healthz`), and [`CutOffWatch::decide`] reads their answers: a peer
//! that has been reaching the store for a lease, and did *after* this node
//! last did, proves the store is up and the fault is this node's link; no
//! route to any peer, or no answer from any for a lease, means this node is
//! cut off from the cluster itself; anything else (no peers known, or peers
//! as cut off as we are, or just back) is an outage everyone shares.

use std::time::{Duration, Instant};

/// One peer's answer to "do you reach the store?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// It answered.
    Answered {
        /// Since its last successful store call.
        store_ok_ago: Duration,
        /// How long its store calls had been succeeding without a failure
        /// at that last success.
        store_up_for: Duration,
    },
    /// This node has no route to it (its own network is down): proof
    /// that the fault is on this side.
    NoRoute,
    /// No answer in time, or refused: it may be dead, slow or cut off
    /// itself, which proves nothing at once.
    Silent,
}

/// What a node cut off from its store does with its sockets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Keep them open: not cut off (yet), or an outage everyone shares.
    Keep,
    /// Close them with 1012 and answer `/readyz` with 503 until the store
    /// is reachable again.
    Leave,
}

/// The decision, made at every check of a node cut off from its store.
/// It remembers one thing between checks: since when no peer could be
/// reached, for silence must last a lease before it counts.
#[derive(Debug, Clone, Default)]
pub struct CutOffWatch {
    silent_since: Option<Instant>,
}

impl CutOffWatch {
    /// The decision `now`, for a node whose last successful store call was
    /// `ago` ago, with a liveness lease `lease` and heartbeats every
    /// `every`, given its peers' answers (its own answer, if the peer list
    /// names it, left out):
    ///
    /// * inside the lease, or with no peers known: keep;
    /// * a peer reached the store after this node last did (by more than a
    ///   heartbeat and a margin: in an outage everyone shares, every last
    ///   success is from before it began, and ours is at most a heartbeat
    ///   older than theirs), after a whole lease of successes (so a peer
    ///   that got back first after a shared outage proves nothing): leave;
    /// * no route to any peer: leave (this node's own network is down);
    /// * no peer answers (silent, or no route): leave once that has lasted
    ///   a lease (a loaded peer can miss one timeout);
    /// * else (peers as cut off as we are): keep.
    pub fn decide(
        &mut self,
        now: Instant,
        ago: Duration,
        lease: Duration,
        every: Duration,
        peers: &[Peer],
    ) -> Decision {
        let unanswered = !peers.is_empty()
            && peers
                .iter()
                .all(|p| matches!(p, Peer::NoRoute | Peer::Silent));
        if !unanswered || ago < lease {
            self.silent_since = None;
        } else if self.silent_since.is_none() {
            self.silent_since = Some(now);
        }
        if ago < lease || peers.is_empty() {
            return Decision::Keep;
        }
        let margin = every + every / 2;
        let reaches = |p: &Peer| {
            matches!(p, Peer::Answered { store_ok_ago, store_up_for }
                if *store_ok_ago + margin < ago && *store_up_for >= lease)
        };
        let no_route = peers.iter().all(|p| *p == Peer::NoRoute);
        let silent_long = self
            .silent_since
            .is_some_and(|s| now.duration_since(s) >= lease);
        if peers.iter().any(reaches) || no_route || silent_long {
            Decision::Leave
        } else {
            Decision::Keep
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    /// A peer that last reached the store `ago` ms ago, after succeeding
    /// for `up` ms.
    fn ok(ago: u64, up: u64) -> Peer {
        Peer::Answered {
            store_ok_ago: MS(ago),
            store_up_for: MS(up),
        }
    }

    const NOROUTE: Peer = Peer::NoRoute;
    const SILENT: Peer = Peer::Silent;

    #[test]
    fn single_checks() {
        use Decision::{Keep, Leave};
        let (lease, every) = (MS(1000), MS(333));
        // (our last success ago, the peers' answers, the decision), each
        // the first check of a fresh watch.
        let table: &[(u64, &[Peer], Decision)] = &[
            // Inside the lease nothing is decided, whatever the peers say.
            (999, &[ok(10, 60_000)], Keep),
            (400, &[NOROUTE, NOROUTE], Keep),
            // Past it: a peer that reaches the store -> our link is cut.
            (1000, &[ok(10, 60_000)], Leave),
            (1200, &[SILENT, ok(300, 5_000)], Leave),
            (1200, &[ok(1150, 9_000), ok(300, 1_000)], Leave),
            // ... unless it has only just got back (the end of an outage
            // everyone shared, where we reconnect a little later).
            (3300, &[ok(100, 100), ok(90, 120)], Keep),
            (3300, &[ok(100, 999)], Keep),
            // No route to any peer: our own network is down.
            (1000, &[NOROUTE], Leave),
            (1000, &[NOROUTE, NOROUTE], Leave),
            // Silent peers (timeouts): not yet.
            (1000, &[SILENT, NOROUTE], Keep),
            (5000, &[SILENT, SILENT], Keep),
            // No peer known (one node, or none configured): a shared outage.
            (5000, &[], Keep),
            // Peers as cut off as we are: a shared outage.
            (1000, &[ok(900, 60_000), ok(1100, 60_000)], Keep),
            (3000, &[ok(2800, 60_000), SILENT], Keep),
            // A peer whose last success is barely newer than ours (its
            // heartbeat fell just after ours before the outage) proves
            // nothing.
            (1000, &[ok(700, 60_000)], Keep),
            (1000, &[ok(501, 60_000)], Keep),
            (1000, &[ok(499, 60_000)], Leave),
        ];
        let now = Instant::now();
        for (ago, peers, want) in table {
            assert_eq!(
                CutOffWatch::default().decide(now, MS(*ago), lease, every, peers),
                *want,
                "ago {ago} ms, peers {peers:?}"
            );
        }
    }

    #[test]
    fn silence_counts_once_it_has_lasted_a_lease() {
        use Decision::{Keep, Leave};
        let (lease, every) = (MS(1000), MS(333));
        let t0 = Instant::now();
        let at = |ms| t0 + MS(ms);
        let mut w = CutOffWatch::default();
        // (time, our last success ago, the peers, the decision)
        let steps: &[(u64, u64, &[Peer], Decision)] = &[
            // Silent before our lease is out: the clock does not start.
            (0, 800, &[SILENT, SILENT], Keep),
            (200, 1000, &[SILENT, SILENT], Keep),
            (700, 1500, &[SILENT, NOROUTE], Keep),
            (1199, 1999, &[SILENT, SILENT], Keep),
            (1200, 2000, &[SILENT, SILENT], Leave),
        ];
        for (t, ago, peers, want) in steps {
            assert_eq!(
                w.decide(at(*t), MS(*ago), lease, every, peers),
                *want,
                "at {t} ms"
            );
        }
        // An answer in between starts the clock again.
        let mut w = CutOffWatch::default();
        let steps: &[(u64, u64, &[Peer], Decision)] = &[
            (0, 1000, &[SILENT, SILENT], Keep),
            (600, 1600, &[ok(1700, 60_000), SILENT], Keep),
            (900, 1900, &[SILENT, SILENT], Keep),
            (1800, 2800, &[SILENT, SILENT], Keep),
            (1900, 2900, &[SILENT, SILENT], Leave),
        ];
        for (t, ago, peers, want) in steps {
            assert_eq!(
                w.decide(at(*t), MS(*ago), lease, every, peers),
                *want,
                "at {t} ms"
            );
        }
        // Back inside the lease (the store returned): forgotten.
        let mut w = CutOffWatch::default();
        assert_eq!(w.decide(at(0), MS(1000), lease, every, &[SILENT]), Keep);
        assert_eq!(w.decide(at(500), MS(10), lease, every, &[SILENT]), Keep);
        assert_eq!(w.decide(at(1000), MS(1000), lease, every, &[SILENT]), Keep);
        assert_eq!(w.decide(at(2000), MS(2000), lease, every, &[SILENT]), Leave);
    }
}
