//! [`Lobby`] in memory: one queue of tickets per match key, oldest
//! first; each test runs under the state's lock. A shelf of the showcase
//! is its entries by room, ordered twice: by score (the reads) and by
//! expiry (the purge).

use std::cmp::Reverse;

use futures_util::future::BoxFuture;

use super::{InProcess, order, ready};
use crate::{Lobby, MAX_SHOWN, Rematch, Result, Shelf, Shown, Ticket, Window, pick_partner};

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

    fn show(
        &self,
        shelf: Shelf,
        items: Vec<Shown>,
        until_ms: u64,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<()>> {
        let node = self.node.clone();
        self.with(|s| {
            let sh = s.shelves.entry(shelf).or_default();
            for it in items.into_iter().take(MAX_SHOWN) {
                sh.remove(&it.room);
                sh.by_score
                    .insert((Reverse(order(it.score)), it.room.clone()));
                sh.by_until.insert((until_ms, it.room.clone()));
                sh.entries
                    .insert(it.room, (it.score, it.json, node.clone(), until_ms));
            }
            sh.purge(now_ms);
        });
        ready(Ok(()))
    }

    fn unshow(&self, shelf: Shelf, rooms: Vec<String>) -> BoxFuture<'_, Result<()>> {
        let node = self.node.clone();
        self.with(|s| {
            if let Some(sh) = s.shelves.get_mut(&shelf) {
                for r in rooms {
                    if sh.entries.get(&r).is_some_and(|e| e.2 == node) {
                        sh.remove(&r);
                    }
                }
            }
        });
        ready(Ok(()))
    }

    fn shown(&self, shelf: Shelf, limit: usize, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>>> {
        let limit = limit.min(MAX_SHOWN);
        ready(Ok(self.with(|s| {
            let Some(sh) = s.shelves.get(&shelf) else {
                return Vec::new();
            };
            sh.by_score
                .iter()
                .filter_map(|(_, room)| sh.entries.get(room))
                .filter(|e| e.3 > now_ms)
                .take(limit)
                .map(|e| e.1.clone())
                .collect()
        })))
    }

    fn count_online(&self, count: u64, until_ms: u64) -> BoxFuture<'_, Result<()>> {
        let node = self.node.clone();
        self.with(|s| s.online.insert(node, (count, until_ms)));
        ready(Ok(()))
    }

    fn online(&self, now_ms: u64) -> BoxFuture<'_, Result<u64>> {
        ready(Ok(self.with(|s| {
            s.online.retain(|_, (_, until)| *until > now_ms);
            s.online.values().map(|(n, _)| n).sum()
        })))
    }
}
