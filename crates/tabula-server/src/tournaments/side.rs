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
