//! The lobby's showcase: the games between people being played now, the
//! open challenges, and how many sockets are open across the cluster
//! (`GET /api/live`).
//!
//! Each node lists the rooms it holds: every [`SHOW_EVERY`] its
//! [`show_loop`] asks each of its room actors what the lobby shows of it
//! ([`listing`], a few field reads), and writes the lot to the backplane's
//! shelves with an expiry of [`SHOW_FOR_MS`]
//! ([`Lobby::show`](tabula_backplane::Lobby::show)); the rooms it listed
//! before and no longer lists (finished, taken, unloaded) it takes off at
//! once. So any node reads the same lists, a room taken over by another
//! node is listed again by its new owner within a period, and the rooms of
//! a node that died leave when their entries expire. The ratings and names
//! of a room's players are read once, when it is first listed (or its
//! players change).
//!
//! What is listed: a game between two people (no bot in either seat),
//! not correspondence (days a move is not "live"), once both are seated
//! and until the match is finished ([`Shelf::Live`]); a room created open
//! (`"open": true`) with one person seated and nobody in the other seat
//! ([`Shelf::Open`]) while its maker has a socket in it, or, for a
//! correspondence challenge, whether he is there or not (its room stays
//! loaded for `rooms.forget_after_ms` after he left,
//! [`HostConfig::open_wait`](crate::host::HostConfig::open_wait), and
//! is listed again by the node that takes it over). Games against the computer are never listed: the
//! lobby shows people playing people. The score: the mean of the two
//! players' ratings in the room's game, an unrated player (a guest, or a
//! player whose rating is not read) counting 0, so games of unrated
//! players come last; an open challenge, its player's rating.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tabula_backplane::{RoomEntry, Shelf};
use tabula_protocol::http::{Listed, ListedPlayer, Live};
use tabula_room::{GameKind, Phase, PlayerId, Room, SeatId, TimeControl};

use crate::time::now_ms;

mod publish;

pub use publish::show_loop;

/// How often a node lists its rooms and counts its sockets.
pub const SHOW_EVERY: Duration = Duration::from_secs(3);

/// How long a listing holds without being renewed (five periods: a node
/// that stopped listing, dead or cut off, loses its entries after it).
pub const SHOW_FOR_MS: u64 = 15_000;

/// How many games and challenges `GET /api/live` answers at most.
pub const LIVE_LIMIT: usize = 50;

/// How long a node reuses its answer to `GET /api/live`: the backplane is
/// read at most this often per node, however many clients ask.
pub const ANSWER_FOR: Duration = Duration::from_secs(1);

/// What the lobby shows of a room, read from the room by its actor.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// Its shelf.
    pub shelf: Shelf,
    /// The room.
    pub room: String,
    /// The game.
    pub game: GameKind,
    /// The people in seats A and B (an open challenge: one of them).
    pub players: [Option<PlayerId>; 2],
    /// Match length in points.
    pub match_length: u32,
    /// Match score of seats A and B.
    pub score: [u32; 2],
    /// The clocks, if any.
    pub time_control: Option<TimeControl>,
    /// Whether its games count for ratings.
    pub rated: bool,
    /// How many watch it.
    pub spectators: usize,
    /// When the room was created (ms since the epoch).
    pub created_ms: u64,
}

/// What the lobby shows of `room` (whose directory entry is `entry`), if
/// anything: see the [module docs](self). `here` says whether a player
/// has a socket in the room: an open challenge of a game played at once
/// is listed only while its maker is there to play it.
pub fn listing(
    entry: &RoomEntry,
    room: &Room,
    here: impl Fn(&PlayerId) -> bool,
) -> Option<Listing> {
    let seats = [SeatId::A, SeatId::B];
    if room.config().bot.is_some() || seats.iter().any(|s| room.bot_in(*s).is_some()) {
        return None;
    }
    let players = seats.map(|s| room.player_in(s).cloned());
    let seated = players.iter().flatten().count();
    let shelf = match room.phase() {
        Phase::Playing if seated == 2 && !room.correspondence() => Shelf::Live,
        Phase::WaitingForPlayer
            if entry.open
                && seated == 1
                && (room.correspondence() || players.iter().flatten().any(&here)) =>
        {
            Shelf::Open
        }
        _ => return None,
    };
    let config = room.config();
    Some(Listing {
        shelf,
        room: entry.id.clone(),
        game: config.options.game,
        players,
        match_length: config.match_length,
        score: room.score(),
        time_control: config.time_control,
        rated: config.rated,
        spectators: room.spectators().len(),
        created_ms: entry.created_ms,
    })
}

/// A player as listed: id, name and rating (when he has one).
#[derive(Debug, Clone, PartialEq)]
struct Who {
    id: String,
    name: String,
    rating: Option<f64>,
}

/// The rank of a listing whose seated players are `who`: see the
/// [module docs](self).
fn rank(shelf: Shelf, who: &[Who]) -> f64 {
    let sum: f64 = who.iter().map(|w| w.rating.unwrap_or(0.0)).sum();
    match shelf {
        Shelf::Live => sum / 2.0,
        Shelf::Open => sum,
    }
}

/// What the lobby shows of `l` (docs/protocol.md, `GET /api/live`).
fn entry_json(l: &Listing, who: &[Who]) -> Listed {
    Listed {
        room_id: l.room.clone(),
        game: l.game,
        players: who
            .iter()
            .map(|w| ListedPlayer {
                id: w.id.clone(),
                name: w.name.clone(),
                rating: w.rating.map(|r| r.round() as i64),
            })
            .collect(),
        match_length: l.match_length,
        score: l.score,
        rated: l.rated,
        spectators: l.spectators as u64,
        created_at: l.created_ms,
        time_control: l.time_control,
    }
}

/// A node's latest answer to `GET /api/live` and when it was read.
#[derive(Debug, Default)]
pub struct Answer(Mutex<Option<(Instant, Live)>>);

impl Answer {
    /// The answer, read from the backplane at most every [`ANSWER_FOR`].
    pub async fn get(
        &self,
        bp: &dyn tabula_backplane::Backplane,
    ) -> Result<Live, tabula_backplane::BackplaneError> {
        if let Some((at, v)) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && at.elapsed() < ANSWER_FOR
        {
            return Ok(v.clone());
        }
        let now = now_ms();
        let parse = |v: Vec<String>| -> Vec<Listed> {
            v.iter()
                .filter_map(|s| serde_json::from_str(s).ok())
                .collect()
        };
        let games = parse(bp.shown(Shelf::Live, LIVE_LIMIT, now).await?);
        let challenges = parse(bp.shown(Shelf::Open, LIVE_LIMIT, now).await?);
        let online = bp.online(now).await?;
        let v = Live {
            games,
            challenges,
            online,
        };
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((Instant::now(), v.clone()));
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_room::{Actor, Command, RoomConfig};

    /// An open challenge's listing: a game played at once only while its
    /// maker is in the room, a correspondence one whether he is or not;
    /// a room not made open, or with both seats taken, never on `Open`.
    #[test]
    fn an_open_challenge_is_listed_while_its_maker_waits_or_by_correspondence() {
        let maker = PlayerId("m".into());
        let room = |tc: Option<TimeControl>, seated: &[&str]| {
            let mut r = Room::new(RoomConfig {
                time_control: tc,
                ..RoomConfig::default()
            });
            for p in seated {
                r.apply(
                    Command::Sit { seat: None },
                    Actor::Player(PlayerId((*p).into())),
                    0,
                )
                .expect("seated");
            }
            r
        };
        let entry = |open| RoomEntry {
            id: "r".into(),
            invite: "ABCDEF".into(),
            options: Default::default(),
            created_ms: 0,
            open,
            tournament: None,
        };
        let shelf = |open, tc, seated: &[&str], here: bool| {
            listing(&entry(open), &room(tc, seated), |p| here && *p == maker).map(|l| l.shelf)
        };
        let days = Some(TimeControl::DAYS_1);
        // (open, clocks, seated, maker here) → shelf.
        let table = [
            (true, None, &["m"][..], true, Some(Shelf::Open)),
            (true, None, &["m"][..], false, None),
            (true, days, &["m"][..], false, Some(Shelf::Open)),
            (true, days, &["m"][..], true, Some(Shelf::Open)),
            (false, days, &["m"][..], false, None),
            (false, None, &["m"][..], true, None),
            (true, days, &["m", "t"][..], true, None),
        ];
        for (open, tc, seated, here, want) in table {
            assert_eq!(
                shelf(open, tc, seated, here),
                want,
                "{open} {tc:?} {seated:?} {here}"
            );
        }
    }

    fn who(id: &str, rating: Option<f64>) -> Who {
        Who {
            id: id.into(),
            name: id.into(),
            rating,
        }
    }

    #[test]
    fn rated_games_rank_above_unrated_and_by_their_mean() {
        let strong = rank(
            Shelf::Live,
            &[who("a", Some(1900.0)), who("b", Some(1700.0))],
        );
        let plain = rank(
            Shelf::Live,
            &[who("c", Some(1500.0)), who("d", Some(1500.0))],
        );
        let half = rank(Shelf::Live, &[who("e", Some(2000.0)), who("g", None)]);
        let guests = rank(Shelf::Live, &[who("g1", None), who("g2", None)]);
        assert!(strong > plain && plain > half && half > guests);
        assert_eq!(guests, 0.0);
        assert_eq!(rank(Shelf::Open, &[who("a", Some(1600.0))]), 1600.0);
    }

    #[test]
    fn the_json_names_the_players_and_omits_a_missing_rating() {
        let l = Listing {
            shelf: Shelf::Live,
            room: "r1".into(),
            game: GameKind::Backgammon,
            players: [Some(PlayerId("a".into())), Some(PlayerId("b".into()))],
            match_length: 3,
            score: [1, 0],
            time_control: Some(TimeControl::BLITZ),
            rated: true,
            spectators: 2,
            created_ms: 7,
        };
        let v = serde_json::to_value(entry_json(&l, &[who("a", Some(1712.4)), who("b", None)]))
            .expect("a listing is JSON");
        assert_eq!(v["roomId"], "r1");
        assert_eq!(v["game"], "backgammon");
        assert_eq!(v["players"][0]["rating"], 1712);
        assert!(v["players"][1].get("rating").is_none());
        assert_eq!(v["players"][1]["name"], "b");
        assert_eq!(v["score"], serde_json::json!([1, 0]));
        assert_eq!(v["timeControl"]["delayMs"], 12_000);
        assert_eq!(v["spectators"], 2);
    }
}
