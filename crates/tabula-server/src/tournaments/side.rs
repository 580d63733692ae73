//! What a tournament's owner keeps beside the core in the same stored
//! state ([`Side`]: the group, the posts owed to it, the arena top's
//! pace, results owed to the durable store), and how the two are written
//! together ([`encode`], [`decode`]).

use serde::{Deserialize, Serialize};

use tabula_room::{GameKind, GameOptions};
use tabula_tournament::{Announcement, Effect, Status, Tournament};

use crate::telegram::group_post::{self, Group, GroupPost, Post};

/// What the owner keeps beside the core, in the same stored state (under
/// `telegram`, which the core's readers ignore): the group the tournament
/// belongs to and the posts it owes the group that are not queued yet
/// (the outbox, [`crate::telegram::groups`]), and the pace of an arena's
/// live top.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    /// The group chat (`None`: made from the Mini App; no posts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<Group>,
    /// Posts decided and not yet queued: `(queue id, post)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outbox: Vec<(String, GroupPost)>,
    /// When the arena's top was last posted (ms).
    #[serde(default)]
    pub top_at_ms: u64,
    /// How many tops were posted (the next one's id).
    #[serde(default)]
    pub tops: u32,
    /// The standings changed since the last top.
    #[serde(default)]
    pub top_stale: bool,
    /// The tournament finished at this time (ms) and its players' final
    /// results are not in the durable store yet: set in the write that
    /// finishes it, cleared in a write after the store has them
    /// (the owner's `store_results`), so an owner killed in between leaves them to
    /// its successor, which writes them again (stored once by key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_due: Option<u64>,
}

impl Side {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Side::default()
    }

    /// Puts a post in the outbox (none without a group).
    pub(crate) fn post(&mut self, t: &Tournament, post: Post, now: u64) {
        let Some(g) = &self.group else {
            return;
        };
        let id = post.id(t.id(), self.tops);
        if self.outbox.iter().any(|(i, _)| *i == id) {
            return;
        }
        let p = GroupPost {
            chat: g.chat,
            lang: g.lang,
            tournament: t.id().to_string(),
            game: room_game(t).1,
            caused_ms: now,
            post,
            attempts: 0,
        };
        self.outbox.push((id, p));
    }

    /// The posts the effects of one step make: the pairings of a round,
    /// an arena's start, the end or the cancellation; and an arena's top
    /// when its standings changed and its interval has passed.
    pub(crate) fn decide(&mut self, t: &Tournament, fx: &[Effect], now: u64, top_every_ms: u64) {
        if self.group.is_none() {
            return;
        }
        let arena = matches!(t.config().format, tabula_tournament::Format::Arena { .. });
        for e in fx {
            match e {
                Effect::Announce(Announcement::Started { players }) if arena => {
                    self.post(t, Post::Started { players: *players }, now);
                }
                Effect::Announce(Announcement::Round {
                    round,
                    pairings,
                    byes,
                }) => {
                    let pairings = pairings
                        .iter()
                        .map(|(w, b)| (w.0.clone(), b.0.clone()))
                        .collect();
                    let byes = byes.iter().map(|p| p.0.clone()).collect();
                    self.post(
                        t,
                        Post::Round {
                            round: *round,
                            pairings,
                            byes,
                        },
                        now,
                    );
                }
                Effect::Announce(Announcement::Finished { .. }) => {
                    let rows = top_rows(t);
                    self.post(
                        t,
                        Post::Final {
                            format: t.config().format,
                            rows,
                        },
                        now,
                    );
                    self.top_stale = false;
                }
                Effect::Announce(Announcement::Cancelled { .. }) => {
                    self.post(t, Post::Cancelled, now);
                }
                Effect::StandingsChanged if arena && t.status() == Status::Running => {
                    self.top_stale = true;
                }
                _ => {}
            }
        }
        if self.top_stale
            && t.status() == Status::Running
            && now >= self.top_at_ms.saturating_add(top_every_ms)
        {
            let rows = top_rows(t);
            self.post(t, Post::Top { rows }, now);
            self.tops += 1;
            self.top_at_ms = now;
            self.top_stale = false;
        }
    }

    /// Whether an arena's top is due now.
    pub(crate) fn top_due(&self, t: &Tournament, now: u64, top_every_ms: u64) -> bool {
        self.group.is_some()
            && self.top_stale
            && t.status() == Status::Running
            && now >= self.top_at_ms.saturating_add(top_every_ms)
    }
}

/// A tournament's stored state: its core's JSON, with the owner's
/// [`Side`] under `telegram` when it has one.
pub fn encode(t: &Tournament, side: &Side) -> Result<String, serde_json::Error> {
    if side.is_empty() {
        return serde_json::to_string(t);
    }
    let mut v = serde_json::to_value(t)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("telegram".into(), serde_json::to_value(side)?);
    }
    serde_json::to_string(&v)
}

/// Reads what [`encode`] wrote.
pub fn decode(json: &str) -> Result<(Tournament, Side), serde_json::Error> {
    let mut v: serde_json::Value = serde_json::from_str(json)?;
    let side = match v.as_object_mut().and_then(|o| o.remove("telegram")) {
        Some(s) => serde_json::from_value(s)?,
        None => Side::default(),
    };
    Ok((serde_json::from_value(v)?, side))
}

/// The room's game kind of a tournament's (options and kind).
pub(crate) fn room_game(t: &Tournament) -> (GameOptions, GameKind) {
    let game = match t.config().game {
        tabula_tournament::GameKind::LongNardy => GameKind::LongNardy,
        tabula_tournament::GameKind::Backgammon => GameKind::Backgammon,
        tabula_tournament::GameKind::Thud => GameKind::Thud,
    };
    (
        GameOptions {
            game,
            ..GameOptions::default()
        },
        game,
    )
}

/// The standings' first [`group_post::TOP_ROWS`] rows as a group post shows
/// them: each player and his points.
fn top_rows(t: &Tournament) -> Vec<(String, u32)> {
    t.standings()
        .rows
        .iter()
        .take(group_post::TOP_ROWS)
        .map(|r| (r.player.0.clone(), r.points))
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::telegram::texts::Lang;
    use tabula_tournament::Input;
    use tabula_tournament::{Format, PlayerId, TournamentConfig};

    /// A knockout registering `players`.
    pub(crate) fn cup_of(players: &[&str]) -> Tournament {
        let config = TournamentConfig {
            format: Format::Knockout,
            game: tabula_tournament::GameKind::Backgammon,
            match_points: 1,
            clock: None,
            rated: false,
            start_at_ms: 1_000,
            grace_ms: 60_000,
            max_players: None,
        };
        let mut t = Tournament::new("cup", config).unwrap();
        for p in players {
            t.apply(
                Input::Join {
                    player: PlayerId::from(*p),
                    rating: 1500,
                },
                0,
            );
        }
        t
    }

    fn cup() -> Tournament {
        cup_of(&["ann", "bob", "cid"])
    }

    #[test]
    fn the_side_is_stored_beside_the_core_and_the_core_reads_as_before() {
        let t = cup();
        // No group: the core's JSON, as before.
        let plain = encode(&t, &Side::default()).unwrap();
        assert_eq!(plain, serde_json::to_string(&t).unwrap());
        assert_eq!(decode(&plain).unwrap(), (t.clone(), Side::default()));
        // A group with a post in its outbox: both come back, and a reader
        // of the core alone (the routes) still reads it.
        let mut side = Side {
            group: Some(Group {
                chat: -42,
                lang: Lang::Ru,
            }),
            ..Side::default()
        };
        side.post(&t, Post::Cancelled, 5);
        let json = encode(&t, &side).unwrap();
        assert_eq!(decode(&json).unwrap(), (t.clone(), side));
        assert_eq!(serde_json::from_str::<Tournament>(&json).unwrap(), t);
    }

    #[test]
    fn each_step_posts_what_it_announced_once() {
        let mut t = cup();
        let mut side = Side {
            group: Some(Group {
                chat: -42,
                lang: Lang::En,
            }),
            ..Side::default()
        };
        let fx = t.apply(Input::Tick, 1_000);
        side.decide(&t, &fx, 1_000, 60_000);
        // Knockout: no "started" post; the first round's pairings (one
        // game, one bye).
        let ids: Vec<_> = side.outbox.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["grp:cup:round:1"]);
        let Post::Round { pairings, byes, .. } = &side.outbox[0].1.post else {
            panic!("{:?}", side.outbox);
        };
        assert_eq!((pairings.len(), byes.len()), (1, 1));
        // The same effects again (a step replayed): no second post.
        side.decide(&t, &fx, 1_000, 60_000);
        assert_eq!(side.outbox.len(), 1);
        // Without a group: nothing.
        let mut none = Side::default();
        none.decide(&t, &fx, 1_000, 60_000);
        assert!(none.outbox.is_empty());
    }

    #[test]
    fn an_arena_top_is_posted_at_most_once_per_interval() {
        let config = TournamentConfig {
            format: Format::Arena {
                duration_ms: 600_000,
                rematch_wait_ms: 1_000,
            },
            game: tabula_tournament::GameKind::Thud,
            match_points: 1,
            clock: None,
            rated: false,
            start_at_ms: 1_000,
            grace_ms: 0,
            max_players: None,
        };
        let mut t = Tournament::new("ar", config).unwrap();
        for p in ["ann", "bob", "cid", "dan"] {
            t.apply(
                Input::Join {
                    player: PlayerId::from(p),
                    rating: 1500,
                },
                0,
            );
        }
        let mut side = Side {
            group: Some(Group {
                chat: -7,
                lang: Lang::En,
            }),
            ..Side::default()
        };
        let ids =
            |side: &mut Side| -> Vec<String> { side.outbox.drain(..).map(|(id, _)| id).collect() };
        let fx = t.apply(Input::Tick, 1_000);
        side.decide(&t, &fx, 1_000, 60_000);
        assert_eq!(ids(&mut side), ["grp:ar:started"]);
        let games: Vec<_> = t.running().map(|g| g.id.clone()).collect();
        assert_eq!(games.len(), 2);
        let result = |t: &mut Tournament, g: &tabula_tournament::GameId, at| {
            t.apply(
                Input::GameResult {
                    game_id: g.clone(),
                    outcome: tabula_tournament::Outcome::WhiteWon,
                },
                at,
            )
        };
        // A result within the first interval: the top waits for it.
        let fx = result(&mut t, &games[0], 2_000);
        side.decide(&t, &fx, 2_000, 60_000);
        assert!(ids(&mut side).is_empty());
        assert!(side.top_due(&t, 60_000, 60_000));
        side.decide(&t, &[], 60_000, 60_000);
        assert_eq!(ids(&mut side), ["grp:ar:top:0"]);
        // Nothing changed since: no top.
        assert!(!side.top_due(&t, 200_000, 60_000));
        // Another result soon after: the next top a full interval later.
        let fx = result(&mut t, &games[1], 61_000);
        side.decide(&t, &fx, 61_000, 60_000);
        assert!(ids(&mut side).is_empty());
        assert!(!side.top_due(&t, 119_999, 60_000));
        side.decide(&t, &[], 120_000, 60_000);
        assert_eq!(ids(&mut side), ["grp:ar:top:1"]);
    }
}
