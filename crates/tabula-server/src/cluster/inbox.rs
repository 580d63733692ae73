//! The node's inbox: each node message handed to its side (an owner's,
//! a front's), and what a resubscribed inbox may have missed.

use std::sync::Arc;

use tabula_backplane::Inbound;
use tabula_protocol::NodeMsg;

use super::router::lock;
use super::{front, owner};
use crate::AppState;
use crate::room_actor::Persist;
use crate::route::Outbound;

/// Reads this node's inbox until the backplane closes it.
pub async fn inbox_loop(state: Arc<AppState>) {
    let Some(mut rx) = state.backplane.take_inbox() else {
        return;
    };
    while let Some(m) = rx.recv().await {
        match m {
            Inbound::Message(text) => match NodeMsg::decode(&text) {
                Ok(NodeMsg::ToOwner(msg)) => owner::handle(&state, msg).await,
                Ok(NodeMsg::ToFront(msg)) => front::handle(&state, msg).await,
                Err(e) => tracing::warn!(error = %e, "unreadable node message"),
            },
            Inbound::Resubscribed => {
                // Messages may have been lost while the inbox was away.
                state
                    .metrics
                    .route_gaps
                    .with_label_values(&["resubscribed"])
                    .inc();
                for f in lock(&state.router.fronts).values() {
                    let _ = f.tx.send(Outbound::Resync);
                }
                // The store may have restarted empty: every room this node
                // owns writes itself again, re-establishing its ownership,
                // directory entry and snapshot.
                for room in state.rooms.all() {
                    room.do_send(Persist);
                }
            }
            _ => {}
        }
    }
}
