//! The owner's side of a link: what it does with a front's [`ToOwner`]
//! messages, the forwarder that publishes a proxy's messages to its front,
//! and the beats that tell each front which links are served.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tabula_backplane::NodeId;
use tabula_protocol::{OutItem, ToFront, ToOwner, parse_client};
use tabula_room::PlayerId;
use tokio::sync::mpsc::{self, UnboundedSender};

use super::router::{Proxy, lock};
use super::send;
use crate::AppState;
use crate::link;
use crate::room_actor::{Detach, DetachForDrain, Join, Resume};
use crate::route::{NEXT_CONN, Outbound};

/// A front's message for a room here.
pub(super) async fn handle(state: &Arc<AppState>, msg: ToOwner) {
    let router = &state.router;
    // This node's id, made only where a message names its sender (not on
    // every routed command).
    let me = || state.backplane.node_id().to_string();
    match msg {
        ToOwner::Join {
            room,
            from,
            conn,
            player,
            seat,
            spectate,
            seq,
            resume_from,
        } => {
            let addr = match state.rooms.local(&room) {
                Some(a) => a,
                // Routed here but not running here (stopped when the lease
                // was lost, say): take it back if nobody else has.
                None => match state.rooms.take_over(&room, "rejoin").await {
                    Ok(crate::Located::Local(a)) => a,
                    _ => {
                        send(state, &from, ToFront::Reroute { from: me(), conn }).await;
                        return;
                    }
                },
            };
            let old = lock(&router.proxies).remove(&(from.clone(), conn));
            let local = match old {
                // The front joins again on the same link (it re-linked
                // after a silence, or its join went unanswered): the room
                // keeps the connection and only its sender is replaced.
                // A detach and a join instead would show the opponent a
                // disconnection that never happened.
                Some(p) if p.addr == addr && addr.connected() => p.local,
                Some(p) => {
                    p.addr.do_send(Detach { conn: p.local });
                    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
                }
                None => NEXT_CONN.fetch_add(1, Ordering::Relaxed),
            };
            let sent = Arc::new(AtomicU64::new(0));
            let tx = forwarder(state.clone(), from.clone(), conn, sent.clone());
            lock(&router.proxies).insert(
                (from.clone(), conn),
                Proxy {
                    local,
                    addr: addr.clone(),
                    sent,
                },
            );
            let join = Join {
                conn: local,
                player: PlayerId::new(player),
                tx,
                seat,
                spectate,
                seq,
                resume_from,
            };
            match addr.send(join).await {
                Ok(true) => {
                    // Tell the front at once that the link is served: a
                    // re-join that missed nothing gets no message at all.
                    let beat = ToFront::Beats {
                        from: me(),
                        links: vec![(conn, 0)],
                    };
                    send(state, &from, beat).await;
                }
                Ok(false) => {
                    lock(&router.proxies).remove(&(from.clone(), conn));
                    send(state, &from, ToFront::Unjoined { from: me(), conn }).await;
                }
                Err(_) => {
                    lock(&router.proxies).remove(&(from.clone(), conn));
                    send(state, &from, ToFront::Reroute { from: me(), conn }).await;
                }
            }
        }
        ToOwner::Cmd {
            room: _,
            from,
            conn,
            frame,
            text,
        } => {
            let target = lock(&router.proxies)
                .get(&(from.clone(), conn))
                .map(|p| (p.local, p.addr.clone()));
            let Some((local, addr)) = target.filter(|(_, a)| a.connected()) else {
                send(state, &from, ToFront::Reroute { from: me(), conn }).await;
                return;
            };
            // The front read the frame; only a node of an earlier release
            // sends it as text (one that fails to read here is dropped).
            let frame = frame.or_else(|| text.and_then(|t| parse_client(&t).ok()));
            if let Some(frame) = frame {
                crate::room_actor::deliver(&addr, local, &frame, Instant::now());
            }
        }
        ToOwner::Resume {
            room: _,
            from,
            conn,
            version,
            seq,
        } => {
            let target = lock(&router.proxies)
                .get(&(from.clone(), conn))
                .map(|p| (p.local, p.addr.clone()));
            match target {
                Some((local, addr)) if addr.connected() => addr.do_send(Resume {
                    conn: local,
                    version,
                    seq,
                }),
                _ => {
                    send(state, &from, ToFront::Reroute { from: me(), conn }).await;
                }
            }
        }
        ToOwner::Detach {
            room: _,
            from,
            conn,
            quiet,
        } => {
            if let Some(p) = lock(&router.proxies).remove(&(from, conn)) {
                if quiet {
                    p.addr.do_send(DetachForDrain { conn: p.local });
                } else {
                    p.addr.do_send(Detach { conn: p.local });
                }
            }
        }
        ToOwner::TournamentMail { tournament } => {
            state.tournaments.ring(&tournament);
        }
        ToOwner::Probe { from, conn } => {
            let serving = lock(&router.proxies)
                .get(&(from.clone(), conn))
                .filter(|p| p.addr.connected())
                .map(|p| p.sent.load(Ordering::Acquire));
            let answer = match serving {
                Some(n) => ToFront::Beats {
                    from: me(),
                    links: vec![(conn, n)],
                },
                None => ToFront::Reroute { from: me(), conn },
            };
            send(state, &from, answer).await;
        }
    }
}

/// Owner side: beats every link this node serves, one message per front
/// node (in chunks), every [`link::Timing::beat`].
pub async fn beat_loop(state: Arc<AppState>) {
    let t = link::Timing::for_lease(state.backplane.lease());
    let me = state.backplane.node_id().to_string();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(t.beat) => {}
            _ = shutdown.changed() => return,
        }
        let mut by_front: HashMap<NodeId, Vec<(u64, u64)>> = HashMap::new();
        // Only links whose room still runs: a proxy left behind by a room
        // that stopped must fall silent, so the front probes it and is
        // told to re-route.
        for ((front, conn), p) in lock(&state.router.proxies)
            .iter()
            .filter(|(_, p)| p.addr.connected())
        {
            by_front
                .entry(front.clone())
                .or_default()
                .push((*conn, p.sent.load(Ordering::Acquire)));
        }
        for (front, links) in by_front {
            for chunk in links.chunks(BEATS_PER_MESSAGE) {
                let msg = ToFront::Beats {
                    from: me.clone(),
                    links: chunk.to_vec(),
                };
                send(&state, &front, msg).await;
            }
        }
    }
}

/// Links in one beat message (about 20 bytes each).
const BEATS_PER_MESSAGE: usize = 2048;

/// Most messages one publish carries (a backlog is sent in several).
const OUT_BATCH: usize = 64;

/// The outbound side of a proxy: what the room sends the remote socket is
/// numbered and published to the front node, in order (one task per link,
/// each publish awaited before the next). The messages of one command, and
/// whatever else queued up meanwhile, go in one publish: Redis and both
/// nodes then pay one round trip per command, not one per event.
fn forwarder(
    state: Arc<AppState>,
    front: NodeId,
    conn: u64,
    sent: Arc<AtomicU64>,
) -> UnboundedSender<Outbound> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Outbound>();
    let me = state.backplane.node_id().to_string();
    actix_rt::spawn(async move {
        // The number of the last message published.
        let mut n = 0u64;
        let mut held: Option<Outbound> = None;
        loop {
            let first = match held.take() {
                Some(out) => out,
                None => match rx.recv().await {
                    Some(out) => out,
                    None => break,
                },
            };
            let mut items: Vec<OutItem> = Vec::new();
            let mut end = None;
            let mut next = Some(first);
            while let Some(out) = next.take() {
                match out {
                    Outbound::Msg(m) => items.push(OutItem::of(&m)),
                    Outbound::Batch(ms) => items.extend(ms),
                    Outbound::Close(reason) => {
                        end = Some(ToFront::Close {
                            from: me.clone(),
                            conn,
                            reason,
                        });
                    }
                    Outbound::Reroute => {
                        end = Some(ToFront::Reroute {
                            from: me.clone(),
                            conn,
                        });
                    }
                    Outbound::Unjoined => {
                        end = Some(ToFront::Unjoined {
                            from: me.clone(),
                            conn,
                        });
                    }
                    Outbound::Remote(_)
                    | Outbound::Resync
                    | Outbound::Gap(_)
                    | Outbound::Linked => {}
                }
                if end.is_some() || items.len() >= OUT_BATCH {
                    break;
                }
                // Take what is already queued, without waiting.
                next = rx.try_recv().ok();
                if let Some(Outbound::Close(_) | Outbound::Reroute | Outbound::Unjoined) = &next
                    && !items.is_empty()
                {
                    // Publish the messages before it first, in order.
                    held = next.take();
                }
            }
            let mut rest = items.into_iter();
            while let Some(first) = rest.next() {
                let more: Vec<OutItem> = rest.by_ref().take(OUT_BATCH - 1).collect();
                let first_n = n + 1;
                n += 1 + more.len() as u64;
                let msg = ToFront::Out {
                    from: me.clone(),
                    conn,
                    n: first_n,
                    seq: first.seq,
                    version: first.version,
                    text: first.text,
                    more,
                };
                // Counted published even when the publish failed: the
                // next beat then shows the front what it lost.
                send(&state, &front, msg).await;
                sent.store(n, Ordering::Release);
            }
            if let Some(msg) = end {
                let last = matches!(msg, ToFront::Close { .. } | ToFront::Reroute { .. });
                send(&state, &front, msg).await;
                if last {
                    lock(&state.router.proxies).remove(&(front.clone(), conn));
                    break;
                }
            }
        }
    });
    tx
}
