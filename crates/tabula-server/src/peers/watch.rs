//! What a node answers its peers (`GET /healthz`) and the watch that asks
//! them, once the store has been out of reach for a lease, whether it is
//! alone ([`crate::partition`] decides).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tabula_protocol::http::Health;

use super::CloseAll;
use crate::AppState;
use crate::partition::{self, Decision, Peer};

/// `GET /healthz`'s body now: the process is alive (always 200), and
/// what a peer needs to tell a shared store outage from its own partition.
pub fn health(state: &AppState) -> Health {
    Health {
        status: "ok".into(),
        node: state.backplane.node_id().to_string(),
        store_ok_ms_ago: u64::try_from(state.store.ago().as_millis()).unwrap_or(u64::MAX),
        store_up_ms: u64::try_from(state.store.up_for().as_millis()).unwrap_or(u64::MAX),
    }
}

/// Every half heartbeat: once the store has been unreachable for a whole
/// lease, ask the peers whether it is this node alone, and if so close
/// this node's sockets with 1012 and refuse new ones until the store is
/// back (then serve again: the node rejoins with its next heartbeat).
pub async fn cut_off_loop(state: Arc<AppState>) {
    let lease = state.backplane.lease();
    let every = crate::cluster::heartbeat_every(lease);
    let check = (every / 2).max(Duration::from_millis(25));
    let timeout = Duration::from_millis(state.settings.cluster.peer_timeout_ms);
    let mut shutdown = state.shutdown_rx.clone();
    let mut watch = partition::CutOffWatch::default();
    loop {
        tokio::select! {
            () = tokio::time::sleep(check) => {}
            _ = shutdown.changed() => return,
        }
        let ago = state.store.ago();
        if ago < lease {
            watch = partition::CutOffWatch::default();
            if state.store.cut_off.swap(false, Ordering::AcqRel) {
                tracing::warn!("store reachable again; serving sockets again");
                state.metrics.cut_off.set(0);
            }
            continue;
        }
        if state.store.is_cut_off() || state.settings.cluster.peers.is_empty() {
            continue;
        }
        let peers = ask_peers(&state, timeout).await;
        let decision = watch.decide(Instant::now(), state.store.ago(), lease, every, &peers);
        if decision == Decision::Leave {
            tracing::error!(
                store_unreachable_ms = ago.as_millis() as u64,
                ?peers,
                "cut off from the store while the cluster is not: closing this node's sockets (1012)"
            );
            state.store.cut_off.store(true, Ordering::Release);
            state.metrics.cut_off.set(1);
            state.metrics.cut_offs.inc();
            let _ = state.close_sockets.send(CloseAll::CutOff);
        }
    }
}

/// Every peer's answer (the names in `cluster.peers` resolved, each to
/// all of its addresses: a headless Service name gives every pod), this
/// node's own answer left out.
async fn ask_peers(state: &AppState, timeout: Duration) -> Vec<Peer> {
    let me = state.backplane.node_id().to_string();
    let mut addrs = Vec::new();
    for name in &state.settings.cluster.peers {
        match tokio::time::timeout(timeout, tokio::net::lookup_host(name.as_str())).await {
            Ok(Ok(found)) => addrs.extend(found),
            // A name that does not resolve counts as a peer we cannot reach.
            _ => addrs.push(std::net::SocketAddr::from(([0, 0, 0, 0], 0))),
        }
    }
    addrs.sort();
    addrs.dedup();
    let client = awc::Client::builder().timeout(timeout).finish();
    let asks = addrs.into_iter().map(|a| {
        let client = &client;
        async move {
            if a.port() == 0 {
                return Err(Peer::Silent);
            }
            let mut resp = client
                .get(format!("http://{a}/healthz"))
                .send()
                .await
                .map_err(|e| classify(&e))?;
            resp.json::<Health>().await.map_err(|_| Peer::Silent)
        }
    });
    futures_util::future::join_all(asks)
        .await
        .into_iter()
        .filter_map(|h| match h {
            Ok(h) if h.node == me => None,
            Ok(h) => Some(Peer::Answered {
                store_ok_ago: Duration::from_millis(h.store_ok_ms_ago),
                store_up_for: Duration::from_millis(h.store_up_ms),
            }),
            Err(p) => Some(p),
        })
        .collect()
}

/// No route from here (our own network is down) is proof; anything else
/// (a timeout, a refusal, a bad answer) is only silence.
fn classify(e: &awc::error::SendRequestError) -> Peer {
    use awc::error::{ConnectError, SendRequestError};
    match e {
        SendRequestError::Connect(ConnectError::Io(io))
            if matches!(
                io.kind(),
                std::io::ErrorKind::NetworkUnreachable | std::io::ErrorKind::HostUnreachable
            ) =>
        {
            Peer::NoRoute
        }
        _ => Peer::Silent,
    }
}
