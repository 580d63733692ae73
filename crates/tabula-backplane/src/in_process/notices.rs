//! [`Notices`] in memory: the notice queue (by due time), the ids queued
//! within their keep, slots, the send counter of the current second, the
//! pause and the bot's players.

use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

use super::{InProcess, later, ready};
use crate::{NoticeBacklog, Notices, Result};

impl Notices for InProcess {
    fn queue_notice(
        &self,
        id: &str,
        entry: String,
        due_ms: u64,
        keep: Duration,
    ) -> BoxFuture<'_, Result<bool>> {
        let now = Instant::now();
        let queued = self.with(|s| {
            let n = &mut s.notices;
            if n.seen.get(id).is_some_and(|until| *until > now) || n.queued.contains_key(id) {
                return false;
            }
            n.bound(now);
            n.seen.insert(id.to_string(), later(now, keep));
            n.queued.insert(id.to_string(), (entry, due_ms));
            n.due.insert((due_ms, id.to_string()));
            true
        });
        ready(Ok(queued))
    }

    fn take_notices(
        &self,
        now_ms: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        let taken = self.with(|s| {
            let n = &mut s.notices;
            let mut out = Vec::new();
            while out.len() < limit {
                let Some(first) = n.due.first().cloned() else {
                    break;
                };
                if first.0 > now_ms {
                    break;
                }
                n.due.remove(&first);
                if let Some((entry, _)) = n.queued.remove(&first.1) {
                    out.push((first.1, entry));
                }
            }
            out
        });
        ready(Ok(taken))
    }

    fn requeue_notice(&self, id: &str, entry: String, due_ms: u64) -> BoxFuture<'_, Result<()>> {
        self.with(|s| {
            let n = &mut s.notices;
            if let Some((_, old)) = n.queued.remove(id) {
                n.due.remove(&(old, id.to_string()));
            }
            n.queued.insert(id.to_string(), (entry, due_ms));
            n.due.insert((due_ms, id.to_string()));
        });
        ready(Ok(()))
    }

    fn notice_backlog(&self) -> BoxFuture<'_, Result<NoticeBacklog>> {
        let b = self.with(|s| NoticeBacklog {
            notices: s.notices.queued.len() as u64,
            earliest_due_ms: s.notices.due.first().map(|(due, _)| *due),
        });
        ready(Ok(b))
    }

    fn claim_slot(&self, name: &str, ttl: Duration) -> BoxFuture<'_, Result<bool>> {
        let now = Instant::now();
        let free = self.with(|s| {
            let n = &mut s.notices;
            if n.slots.get(name).is_some_and(|until| *until > now) {
                return false;
            }
            n.bound(now);
            n.slots.insert(name.to_string(), later(now, ttl));
            true
        });
        ready(Ok(free))
    }

    fn claim_send(&self, now_ms: u64, per_sec: u32) -> BoxFuture<'_, Result<bool>> {
        let (slot_ms, allowed) = crate::send_slot(per_sec);
        let slot = (slot_ms, now_ms / slot_ms);
        let ok = self.with(|s| {
            let n = &mut s.notices;
            if n.second.0 != slot {
                n.second = (slot, 0);
            }
            if n.second.1 >= allowed {
                return false;
            }
            n.second.1 += 1;
            true
        });
        ready(Ok(ok))
    }

    fn pause_sends(&self, until_ms: u64) -> BoxFuture<'_, Result<()>> {
        self.with(|s| s.notices.paused_until = s.notices.paused_until.max(until_ms));
        ready(Ok(()))
    }

    fn sends_paused_until(&self) -> BoxFuture<'_, Result<u64>> {
        ready(Ok(self.with(|s| s.notices.paused_until)))
    }

    fn set_note(
        &self,
        name: &str,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        let now = Instant::now();
        self.with(|s| {
            let n = &mut s.notices;
            match value {
                Some(v) => {
                    n.bound(now);
                    n.notes.insert(name.to_string(), (v, later(now, keep)));
                }
                None => {
                    n.notes.remove(name);
                }
            }
        });
        ready(Ok(()))
    }

    fn note(&self, name: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let now = Instant::now();
        let v = self.with(|s| {
            s.notices
                .notes
                .get(name)
                .filter(|(_, until)| *until > now)
                .map(|(v, _)| v.clone())
        });
        ready(Ok(v))
    }

    fn bot_user(&self, player: &str) -> BoxFuture<'_, Result<Option<String>>> {
        ready(Ok(self.with(|s| s.notices.users.get(player).cloned())))
    }

    fn set_bot_user(&self, player: &str, user: Option<String>) -> BoxFuture<'_, Result<()>> {
        self.with(|s| match user {
            Some(u) => {
                s.notices.users.insert(player.to_string(), u);
            }
            None => {
                s.notices.users.remove(player);
            }
        });
        ready(Ok(()))
    }
}
