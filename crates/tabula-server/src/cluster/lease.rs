//! The node's liveness lease (renewed by [`heartbeat_loop`]; lost, every
//! room here stops acting as owner) and the sweep that claims rooms nobody
//! owns and detaches the proxies of dead front nodes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tabula_backplane::NodeId;

use super::router::{Proxy, lock};
use crate::AppState;
use crate::room_actor::{Abandon, Detach};

/// How often the liveness lease is renewed: three times a lease.
pub fn heartbeat_every(lease: Duration) -> Duration {
    (lease / 3).max(Duration::from_millis(50))
}

/// Renews the liveness lease; when it cannot for longer than the lease, the
/// node stops acting as an owner (another node may have claimed its rooms).
pub async fn heartbeat_loop(state: Arc<AppState>) {
    let lease = state.backplane.lease();
    let every = heartbeat_every(lease);
    let mut last_ok = Instant::now();
    let mut shutdown = state.shutdown_rx.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => return,
        }
        match state.backplane.heartbeat().await {
            Ok(()) => {
                if last_ok.elapsed() > lease {
                    // Paused or cut off past the lease: other nodes may have
                    // taken rooms over. Stop every room this node no longer
                    // owns before it acts again (the fence would refuse its
                    // next write anyway; this stops timers and bots at once).
                    tracing::warn!(
                        "liveness lease renewed after it had expired; checking ownership"
                    );
                    for (id, addr) in state.rooms.owned() {
                        let mine = matches!(
                            state.backplane.owner(&id).await,
                            Ok(Some(l)) if l.node == state.backplane.node_id()
                        );
                        if !mine {
                            state.metrics.fenced.with_label_values(&["lease"]).inc();
                            addr.do_send(Abandon);
                        }
                    }
                }
                last_ok = Instant::now();
                state.store.ok();
            }
            Err(e) => {
                state.store.failed();
                state
                    .metrics
                    .backplane_errors
                    .with_label_values(&["heartbeat"])
                    .inc();
                tracing::warn!(error = %e, "liveness lease not renewed");
                if last_ok.elapsed() > lease {
                    let rooms = state.rooms.all();
                    if !rooms.is_empty() {
                        tracing::error!(
                            rooms = rooms.len(),
                            "liveness lease lost; no longer acting as owner"
                        );
                    }
                    for r in rooms {
                        r.do_send(Abandon);
                    }
                }
            }
        }
    }
}

/// Claims the rooms nobody owns (dead owners, released rooms), so their
/// timers keep running with nobody connected; detaches proxies of dead
/// front nodes.
pub async fn sweep_loop(state: Arc<AppState>) {
    let every = Duration::from_millis(state.settings.cluster.sweep_interval_ms);
    let mut shutdown = state.shutdown_rx.clone();
    // Front nodes found dead, and since when.
    let mut suspects: HashMap<NodeId, Instant> = HashMap::new();
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => return,
        }
        if state.draining.load(Ordering::SeqCst) {
            return;
        }
        match state.backplane.orphans().await {
            Ok(rooms) => {
                for id in rooms {
                    if let Some(t) = tabula_backplane::tournament_of(&id) {
                        if let Err(e) = crate::tournaments::take_over(state.clone(), t).await {
                            tracing::debug!(tournament = %t, error = %e, "sweep did not take the tournament");
                        }
                        continue;
                    }
                    if state.rooms.local(&id).is_some() {
                        continue;
                    }
                    if let Err(e) = state.rooms.take_over(&id, "sweep").await {
                        tracing::debug!(room = %id, error = %e, "sweep did not take the room");
                    }
                }
            }
            Err(e) => {
                state
                    .metrics
                    .backplane_errors
                    .with_label_values(&["orphans"])
                    .inc();
                tracing::debug!(error = %e, "orphan sweep failed");
            }
        }
        let fronts: Vec<NodeId> = {
            let p = lock(&state.router.proxies);
            let mut v: Vec<NodeId> = p.keys().map(|(n, _)| n.clone()).collect();
            v.sort();
            v.dedup();
            v
        };
        let now = Instant::now();
        suspects.retain(|n, _| fronts.contains(n));
        for node in fronts {
            if node == state.backplane.node_id() {
                continue;
            }
            let dead = matches!(state.backplane.node_alive(&node).await, Ok(false));
            if !dead {
                suspects.remove(&node);
                continue;
            }
            // Dead for a whole lease, not just once: a store that restarted
            // empty (or lost the key for a moment) makes every node look
            // dead until its next heartbeat, and detaching then would mark
            // players of live nodes disconnected.
            let since = *suspects.entry(node.clone()).or_insert(now);
            if now.duration_since(since) >= state.backplane.lease() {
                let gone: Vec<Proxy> = {
                    let mut p = lock(&state.router.proxies);
                    let keys: Vec<_> = p.keys().filter(|(n, _)| *n == node).cloned().collect();
                    keys.into_iter().filter_map(|k| p.remove(&k)).collect()
                };
                for p in gone {
                    p.addr.do_send(Detach { conn: p.local });
                }
            }
        }
    }
}
