//! [`Lobby`] in memory: one queue of tickets per match key, oldest
//! first; each test runs under the state's lock.

use futures_util::future::BoxFuture;

use super::{InProcess, ready};
use crate::{Lobby, Rematch, Result, Ticket, Window, pick_partner};

impl Lobby for InProcess {
    fn match_or_wait(
        &self,
        key: &str,
        ticket: Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<Ticket>>> {
        ready(Ok(self.with(|s| {
            let q = s.queues.entry(key.to_string()).or_default();
            match pick_partner(&window, &ticket, q, now_ms) {
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

    fn rematch(
        &self,
        key: &str,
        ticket: &Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Rematch>> {
        ready(Ok(self.with(|s| {
            let Some(q) = s.queues.get_mut(key) else {
                return Rematch::Taken;
            };
            if !q.iter().any(|t| t.id == ticket.id) {
                return Rematch::Taken;
            }
            let Some(i) = pick_partner(&window, ticket, q, now_ms) else {
                return Rematch::Waiting;
            };
            let partner = q.remove(i);
            q.retain(|t| t.id != ticket.id);
            s.taken.insert(partner.id);
            Rematch::Matched(partner)
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
