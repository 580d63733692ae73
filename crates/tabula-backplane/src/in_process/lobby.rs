//! [`Lobby`] in memory: one queue of tickets per match key.

use futures_util::future::BoxFuture;

use super::{InProcess, ready};
use crate::{Lobby, Result, Ticket};

impl Lobby for InProcess {
    fn match_or_wait(&self, key: &str, ticket: Ticket) -> BoxFuture<'_, Result<Option<Ticket>>> {
        ready(Ok(self.with(|s| {
            let q = s.queues.entry(key.to_string()).or_default();
            match q.iter().position(|t| t.player != ticket.player) {
                Some(i) => {
                    let t = q.remove(i);
                    s.taken.insert(t.id);
                    Some(t)
                }
                None => {
                    q.push(ticket);
                    None
                }
            }
        })))
    }

    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>> {
        ready(Ok(self.with(|s| {
            let q = s.queues.entry(key.to_string()).or_default();
            let before = q.len();
            q.retain(|t| t.id != ticket);
            q.len() < before
        })))
    }

    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            s.taken.remove(&ticket);
            s.delivered.insert(ticket, room);
        });
        ready(Ok(()))
    }

    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>> {
        ready(Ok(self.with(|s| s.delivered.remove(&ticket))))
    }
}
