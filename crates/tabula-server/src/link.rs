//! The watch over links to rooms owned by other nodes, as pure decisions
//! (time passed in); `cluster.rs` executes them.
//!
//! A session on node A in a room owned by node B is *linked* to B (see
//! [`crate::cluster`]). A link that carries commands learns of trouble from
//! an unanswered command; a link whose player only waits for his opponent
//! sends nothing, and used to learn nothing: when B died, was fenced, lost
//! a published message, or forgot the link, the player heard no more and
//! lost by forfeit. So, as lila-ws does for its sockets, every link is
//! watched whether or not a command is pending:
//!
//! * the owner **beats** every link it serves every [`Timing::beat`], with
//!   the number of the last message it published on it; the front compares
//!   it with the last number it received ([`beat`]): behind means messages
//!   were lost (a Redis restart, a dropped publish), and the session asks for
//!   them at once instead of waiting for the next event;
//! * a link the front heard nothing from (no message, no beat) for
//!   [`Timing::silence`] is *silent*: the front asks whether its owner is
//!   alive (one liveness read per owner, not per link) and then decides by
//!   [`verdict`]: a dead owner's links are re-routed (the room is found
//!   again, and taken over if nobody has), a live owner is *probed* (it
//!   answers with a beat if it still serves the link, else tells the front
//!   to re-route);
//! * a message from a node the link is not on (an old owner woken from a
//!   pause) is dropped ([`accepts`]): it would otherwise move the link's
//!   numbering and hide the real owner's messages as duplicates;
//! * a beat for a link the front does not hold (its socket closed while
//!   the detach was lost) is answered with a detach, so that no seat stays
//!   "connected" through a proxy nobody reads.
//!
//! With the default 3 s lease: beats every 750 ms, silence after 1.875 s,
//! checks every 375 ms, so a dead owner's links are re-routed within the
//! lease plus one check of its death.

use std::time::Duration;

/// The watch's timings, all derived from the node liveness lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// How often an owner beats the links it serves.
    pub beat: Duration,
    /// A link heard nothing from for this long is silent.
    pub silence: Duration,
    /// How often a front looks at its links.
    pub check: Duration,
}

impl Timing {
    /// The timings for a liveness lease: a beat every quarter lease (at
    /// least 50 ms), silence after two and a half beats, checks every half
    /// beat. Silence is noticed well inside the lease, so by the time a
    /// dead owner's lease runs out the front is already asking.
    pub fn for_lease(lease: Duration) -> Timing {
        let beat = (lease / 4).max(Duration::from_millis(50));
        Timing {
            beat,
            silence: beat * 5 / 2,
            check: (beat / 2).max(Duration::from_millis(25)),
        }
    }
}

/// What a front does about one of its links at a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Heard from recently.
    Fine,
    /// Its owner is dead: find the room again (taking it over if nobody
    /// has) and re-join with the last version the client saw.
    Reroute,
    /// Silent, and its owner lives: ask the owner whether it still serves
    /// the link.
    Probe,
    /// Silent, but probed recently or the store cannot say whether the
    /// owner lives: look again at the next check.
    Wait,
}

/// The verdict on a link silent for `silent_for`, probed `since_probe`
/// ago (if ever since it was last heard from), whose owner is alive
/// (`Some(true)`), dead (`Some(false)`) or unknown (`None`: the store is
/// unreachable, and re-routing then could only fail).
pub fn verdict(
    silent_for: Duration,
    since_probe: Option<Duration>,
    owner_alive: Option<bool>,
    t: &Timing,
) -> Verdict {
    if silent_for < t.silence {
        return Verdict::Fine;
    }
    match owner_alive {
        Some(false) => Verdict::Reroute,
        None => Verdict::Wait,
        Some(true) if since_probe.is_none_or(|p| p >= t.silence) => Verdict::Probe,
        Some(true) => Verdict::Wait,
    }
}

/// A beat says the owner has published `beat_n` messages on the link; the
/// front has received up to `received`. `true`: some were lost on the way.
pub fn beat(received: u64, beat_n: u64) -> bool {
    beat_n > received
}

/// Whether a message from node `from` belongs to a link on `owner`. An
/// empty `from` is a node that does not name itself (an older version):
/// accepted, as before.
pub fn accepts(owner: &str, from: &str) -> bool {
    from.is_empty() || from == owner
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn timings_follow_the_lease() {
        let t = Timing::for_lease(MS(3000));
        assert_eq!((t.beat, t.silence, t.check), (MS(750), MS(1875), MS(375)));
        let t = Timing::for_lease(MS(1000));
        assert_eq!((t.beat, t.silence, t.check), (MS(250), MS(625), MS(125)));
        // A tiny lease does not make the owners beat in a loop.
        let t = Timing::for_lease(MS(40));
        assert_eq!((t.beat, t.check), (MS(50), MS(25)));
        // Silence is noticed before the lease runs out, so a dead owner is
        // found within the lease plus one check.
        for lease in [200, 1000, 3000, 10_000] {
            let t = Timing::for_lease(MS(lease));
            assert!(t.silence + t.check <= MS(lease), "{lease}: {t:?}");
        }
    }

    #[test]
    fn verdicts_on_a_link() {
        let t = Timing::for_lease(MS(1000)); // silence 625 ms
        use Verdict::*;
        // (silent for, probed ago, owner alive) -> verdict
        let table: &[(u64, Option<u64>, Option<bool>, Verdict)] = &[
            // Heard recently: whatever the owner's state, nothing to do
            // (the alive check is not even made for such links).
            (0, None, Some(true), Fine),
            (624, None, Some(false), Fine),
            (624, None, None, Fine),
            // Silent, owner dead: re-route, probed or not.
            (625, None, Some(false), Reroute),
            (5000, Some(10), Some(false), Reroute),
            // Silent, owner alive: probe, then wait for the answer for as
            // long as silence lasts, then probe again.
            (625, None, Some(true), Probe),
            (900, Some(275), Some(true), Wait),
            (1250, Some(624), Some(true), Wait),
            (1250, Some(625), Some(true), Probe),
            // The store cannot say: wait (a re-route would fail too).
            (625, None, None, Wait),
            (60_000, Some(1), None, Wait),
        ];
        for &(silent, probed, alive, want) in table {
            assert_eq!(
                verdict(MS(silent), probed.map(MS), alive, &t),
                want,
                "silent {silent} ms, probed {probed:?}, alive {alive:?}"
            );
        }
    }

    #[test]
    fn a_beat_ahead_of_what_arrived_is_a_gap() {
        // (received, beat) -> gap
        for (received, n, gap) in [
            (0, 0, false),
            (5, 5, false),
            (5, 4, false), // the beat was sent before the last messages
            (5, 6, true),
            (0, 1, true), // the only message was lost
        ] {
            assert_eq!(beat(received, n), gap, "received {received}, beat {n}");
        }
    }

    #[test]
    fn only_the_links_owner_is_heard() {
        assert!(accepts("n3-aa", "n3-aa"));
        assert!(!accepts("n3-aa", "n2-bb"));
        // An old owner woken from SIGSTOP after the link moved.
        assert!(!accepts("n1-cc", "n3-aa"));
        assert!(accepts("n3-aa", ""));
    }
}
