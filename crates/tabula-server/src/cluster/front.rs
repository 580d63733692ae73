//! The front's side of a link: what it does with an owner's [`ToFront`]
//! messages (each accepted only from the node the link is on), and the
//! watch that re-routes or probes links gone silent.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tabula_backplane::NodeId;
use tabula_protocol::{OutItem, ToFront, ToOwner};

use super::router::lock;
use super::send;
use crate::AppState;
use crate::link::{self, Verdict};
use crate::route::{Outbound, RemoteOut};

/// An owner's message for a socket here.
pub(super) async fn handle(state: &Arc<AppState>, msg: ToFront) {
    let router = &state.router;
    match msg {
        ToFront::Out {
            from,
            conn,
            n,
            seq,
            version,
            text,
            more,
        } => {
            let last = n + more.len() as u64;
            match router.heard(conn, &from, Some(last)) {
                Some(tx) => {
                    let mut items = Vec::with_capacity(1 + more.len());
                    items.push(OutItem { seq, version, text });
                    items.extend(more);
                    let _ = tx.send(Outbound::Remote(Box::new(RemoteOut { n, items })));
                }
                None => stale(state, conn),
            }
        }
        ToFront::Close { from, conn, reason } => {
            control(state, conn, &from, Outbound::Close(reason));
        }
        ToFront::Reroute { from, conn } => control(state, conn, &from, Outbound::Reroute),
        ToFront::Unjoined { from, conn } => control(state, conn, &from, Outbound::Unjoined),
        ToFront::Beats { from, links } => beats(state, from, links).await,
    }
}

/// An owner's control message to the session of a link on `from`;
/// dropped when the link is gone or on another node.
fn control(state: &AppState, conn: u64, from: &str, out: Outbound) {
    match state.router.heard(conn, from, None) {
        Some(tx) => {
            let _ = tx.send(out);
        }
        None => stale(state, conn),
    }
}

/// A message for a link that is gone or on another node: dropped.
fn stale(state: &AppState, conn: u64) {
    if lock(&state.router.fronts).contains_key(&conn) {
        state
            .metrics
            .link_faults
            .with_label_values(&["stale_sender"])
            .inc();
    }
}

/// An owner's beats: each link heard from; a link whose messages were lost
/// on the way resyncs now; a link this node no longer holds is detached
/// at the owner (its detach was lost, and its seat would stay connected).
async fn beats(state: &AppState, from: NodeId, links: Vec<(u64, u64)>) {
    let mut gaps = Vec::new();
    let mut orphans = Vec::new();
    {
        let mut fronts = lock(&state.router.fronts);
        let now = Instant::now();
        for (conn, n) in links {
            match fronts.get_mut(&conn) {
                Some(f) if f.owner == from => {
                    f.heard = now;
                    f.probed = None;
                    if !f.joined {
                        // The owner serves the link: its join landed.
                        f.joined = true;
                        let _ = f.tx.send(Outbound::Linked);
                    }
                    if link::beat(f.received, n) {
                        f.received = n;
                        gaps.push((f.tx.clone(), n));
                    }
                }
                _ => orphans.push(conn),
            }
        }
    }
    let m = &state.metrics.link_faults;
    for (tx, n) in gaps {
        m.with_label_values(&["beat_gap"]).inc();
        let _ = tx.send(Outbound::Gap(n));
    }
    let me = state.backplane.node_id().to_string();
    for conn in orphans {
        m.with_label_values(&["orphan_proxy"]).inc();
        let msg = ToOwner::Detach {
            room: String::new(),
            from: me.clone(),
            conn,
            quiet: false,
        };
        send(state, &from, msg).await;
    }
}

/// Front side: every [`link::Timing::check`], the links silent past
/// [`link::Timing::silence`] get their [`link::verdict`]: re-routed when
/// their owner is dead, probed when it lives.
pub async fn watch_loop(state: Arc<AppState>) {
    let t = link::Timing::for_lease(state.backplane.lease());
    let me = state.backplane.node_id().to_string();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(t.check) => {}
            _ = shutdown.changed() => return,
        }
        let mut owners: Vec<NodeId> = {
            let now = Instant::now();
            lock(&state.router.fronts)
                .values()
                .filter(|f| now.duration_since(f.heard) >= t.silence)
                .map(|f| f.owner.clone())
                .collect()
        };
        if owners.is_empty() {
            continue;
        }
        owners.sort();
        owners.dedup();
        // One liveness read per owner, whatever the number of its links.
        let mut alive: HashMap<NodeId, Option<bool>> = HashMap::new();
        for o in owners {
            let a = state.backplane.node_alive(&o).await.ok();
            alive.insert(o, a);
        }
        let mut probes = Vec::new();
        {
            let now = Instant::now();
            let m = &state.metrics.link_faults;
            for (&conn, f) in lock(&state.router.fronts).iter_mut() {
                let Some(&a) = alive.get(&f.owner) else {
                    continue;
                };
                let v = link::verdict(
                    now.duration_since(f.heard),
                    f.probed.map(|p| now.duration_since(p)),
                    a,
                    &t,
                );
                match v {
                    Verdict::Fine | Verdict::Wait => {}
                    Verdict::Reroute => {
                        m.with_label_values(&["owner_dead"]).inc();
                        // Not again before it has had time to re-link.
                        f.heard = now;
                        f.probed = None;
                        let _ = f.tx.send(Outbound::Reroute);
                    }
                    Verdict::Probe => {
                        m.with_label_values(&["silent"]).inc();
                        f.probed = Some(now);
                        probes.push((f.owner.clone(), conn));
                    }
                }
            }
        }
        for (owner, conn) in probes {
            let msg = ToOwner::Probe {
                from: me.clone(),
                conn,
            };
            send(&state, &owner, msg).await;
        }
    }
}
