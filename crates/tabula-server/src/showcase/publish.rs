//! A node's period ([`show_loop`]): its rooms' listings, with their
//! players' names and ratings, put on the backplane's shelves, and its
//! open sockets counted.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tabula_backplane::{MAX_SHOWN, Shelf, Shown};
use tabula_room::{GameKind, PlayerId};

use super::{Listing, SHOW_EVERY, SHOW_FOR_MS, Who, entry_json, rank};
use crate::AppState;
use crate::room_actor::GetListing;
use crate::time::now_ms;

/// A player's rating in `game` from the durable store; `None` without
/// one, without a store, or when it fails or is slow.
async fn rating_of(state: &AppState, player: &str, game: GameKind) -> Option<f64> {
    let store = state.durable.get().ok()?;
    let wait = Duration::from_millis(crate::matchmaking::RATING_WAIT_MS);
    match tokio::time::timeout(wait, store.rating(player, game)).await {
        Ok(Ok(r)) => r.map(|r| r.rating),
        _ => None,
    }
}

/// The players of a listing, with their names and ratings.
async fn players_of(state: &AppState, l: &Listing) -> Vec<Who> {
    let ids: Vec<String> = l.players.iter().flatten().map(|p| p.0.clone()).collect();
    let profiles = state.backplane.profiles(&ids).await.ok();
    let mut out = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let name = match profiles.as_ref().and_then(|p| p.get(i)) {
            Some(s) => crate::http::profiles::public(id, s).name,
            None => crate::http::profiles::public(id, &Default::default()).name,
        };
        out.push(Who {
            id: id.clone(),
            name,
            rating: rating_of(state, id, l.game).await,
        });
    }
    out
}

/// What a node listed of one room: its shelf, its players (the key of the
/// cache) and what it showed of them.
type Kept = (Shelf, [Option<PlayerId>; 2], Vec<Who>);

/// What a node listed last period, by room.
#[derive(Debug, Default)]
struct Listed {
    rooms: HashMap<String, Kept>,
}

/// One period: list this node's rooms, take off those it no longer
/// lists, count its sockets.
async fn show_once(state: &AppState, listed: &mut Listed) {
    let mut now_listed: Vec<Listing> = Vec::new();
    for (_, addr) in state.rooms.owned() {
        if let Ok(Some(l)) = addr.send(GetListing).await {
            now_listed.push(l);
        }
    }
    let mut items: HashMap<Shelf, Vec<Shown>> = HashMap::new();
    let mut next = Listed::default();
    let old = std::mem::take(&mut listed.rooms);
    for l in &now_listed {
        let who = match old.get(&l.room) {
            Some((shelf, players, who)) if *shelf == l.shelf && *players == l.players => {
                who.clone()
            }
            _ => players_of(state, l).await,
        };
        items.entry(l.shelf).or_default().push(Shown {
            room: l.room.clone(),
            score: rank(l.shelf, &who),
            json: serde_json::to_string(&entry_json(l, &who)).unwrap_or_default(),
        });
        next.rooms
            .insert(l.room.clone(), (l.shelf, l.players.clone(), who));
    }
    // What was listed and is not now (or moved shelves) goes at once.
    let mut gone: HashMap<Shelf, Vec<String>> = HashMap::new();
    for (room, (shelf, ..)) in old {
        if next.rooms.get(&room).is_none_or(|(s, ..)| *s != shelf) {
            gone.entry(shelf).or_default().push(room);
        }
    }
    *listed = next;
    let now = now_ms();
    let until = now + SHOW_FOR_MS;
    let bp = &state.backplane;
    for shelf in [Shelf::Live, Shelf::Open] {
        if let Some(rooms) = gone.remove(&shelf)
            && let Err(e) = bp.unshow(shelf, rooms).await
        {
            tracing::warn!(error = %e, shelf = shelf.name(), "showcase: unshow failed");
        }
        let mut all = items.remove(&shelf).unwrap_or_default();
        // At least one call a period, empty or not: it drops expired
        // entries of dead nodes.
        loop {
            let rest = all.split_off(all.len().min(MAX_SHOWN));
            if let Err(e) = bp.show(shelf, all, until, now).await {
                tracing::warn!(error = %e, shelf = shelf.name(), "showcase: show failed");
            }
            if rest.is_empty() {
                break;
            }
            all = rest;
        }
    }
    let open = state.sockets.open() as u64;
    if let Err(e) = bp.count_online(open, until).await {
        tracing::warn!(error = %e, "showcase: online count not written");
    }
}

/// Lists this node's rooms every [`SHOW_EVERY`] until the node drains.
pub async fn show_loop(state: Arc<AppState>) {
    let mut listed = Listed::default();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        show_once(&state, &mut listed).await;
        tokio::select! {
            () = tokio::time::sleep(SHOW_EVERY) => {}
            _ = shutdown.changed() => return,
        }
    }
}
