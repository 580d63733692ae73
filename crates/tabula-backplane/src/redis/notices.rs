//! [`Notices`] on Redis: the notice queue is a hash of entries and a
//! sorted set of due times in the `{notices}` slot, with one marker per
//! id queued (its keep); slots are `SET NX PX`; the sends are a counter
//! per slot ([`crate::send_slot`]) that expires; the bot's players one string each.

use std::time::Duration;

use deadpool_redis::redis;
use futures_util::future::BoxFuture;

use super::{RedisBackplane, now_ms};
use crate::{NoticeBacklog, Notices, Result};

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl Notices for RedisBackplane {
    fn queue_notice(
        &self,
        id: &str,
        entry: String,
        due_ms: u64,
        keep: Duration,
    ) -> BoxFuture<'_, Result<bool>> {
        let id = id.to_string();
        Box::pin(async move {
            let keys = [
                self.notice_entries_key(),
                self.notice_due_key(),
                self.notice_seen_key(&id),
            ];
            let n: i64 = self
                .eval(
                    &self.scripts.queue_notice,
                    &[&keys[0], &keys[1], &keys[2]],
                    &[&id, &entry, &due_ms.to_string(), &millis(keep).to_string()],
                )
                .await?;
            Ok(n == 1)
        })
    }

    fn take_notices(
        &self,
        now_ms: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        Box::pin(async move {
            if limit == 0 {
                return Ok(Vec::new());
            }
            let keys = [self.notice_entries_key(), self.notice_due_key()];
            let flat: Vec<String> = self
                .eval(
                    &self.scripts.take_notices,
                    &[&keys[0], &keys[1]],
                    &[&now_ms.to_string(), &limit.to_string()],
                )
                .await?;
            let mut out = Vec::with_capacity(flat.len() / 2);
            let mut it = flat.into_iter();
            while let (Some(id), Some(entry)) = (it.next(), it.next()) {
                out.push((id, entry));
            }
            Ok(out)
        })
    }

    fn requeue_notice(&self, id: &str, entry: String, due_ms: u64) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let keys = [self.notice_entries_key(), self.notice_due_key()];
            let _: i64 = self
                .eval(
                    &self.scripts.requeue_notice,
                    &[&keys[0], &keys[1]],
                    &[&id, &entry, &due_ms.to_string()],
                )
                .await?;
            Ok(())
        })
    }

    fn notice_backlog(&self) -> BoxFuture<'_, Result<NoticeBacklog>> {
        Box::pin(async move {
            let due = self.notice_due_key();
            let notices: u64 = self.q(redis::cmd("ZCARD").arg(&due)).await?;
            let first: Vec<(String, f64)> = self
                .q(redis::cmd("ZRANGE")
                    .arg(&due)
                    .arg(0)
                    .arg(0)
                    .arg("WITHSCORES"))
                .await?;
            Ok(NoticeBacklog {
                notices,
                earliest_due_ms: first.first().map(|(_, ms)| *ms as u64),
            })
        })
    }

    fn claim_slot(&self, name: &str, ttl: Duration) -> BoxFuture<'_, Result<bool>> {
        let key = self.slot_key(name);
        Box::pin(async move {
            let set: Option<String> = self
                .q(redis::cmd("SET")
                    .arg(&key)
                    .arg(1)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis(ttl)))
                .await?;
            Ok(set.is_some())
        })
    }

    fn claim_send(&self, now_ms: u64, per_sec: u32) -> BoxFuture<'_, Result<bool>> {
        let (slot_ms, allowed) = crate::send_slot(per_sec);
        let key = self.send_slot_key(slot_ms, now_ms / slot_ms);
        Box::pin(async move {
            let limit = allowed.to_string();
            let ok: i64 = self
                .eval(&self.scripts.claim_send, &[&key], &[&limit])
                .await?;
            Ok(ok == 1)
        })
    }

    fn pause_sends(&self, until_ms: u64) -> BoxFuture<'_, Result<()>> {
        let key = self.send_pause_key();
        Box::pin(async move {
            let _: i64 = self
                .eval(
                    &self.scripts.pause_sends,
                    &[&key],
                    &[&until_ms.to_string(), &now_ms().to_string()],
                )
                .await?;
            Ok(())
        })
    }

    fn sends_paused_until(&self) -> BoxFuture<'_, Result<u64>> {
        let key = self.send_pause_key();
        Box::pin(async move {
            let v: Option<u64> = self.q(redis::cmd("GET").arg(&key)).await?;
            Ok(v.unwrap_or(0))
        })
    }

    fn set_note(
        &self,
        name: &str,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        let key = self.note_key(name);
        Box::pin(async move {
            match value {
                Some(v) => {
                    self.q::<()>(
                        redis::cmd("SET")
                            .arg(&key)
                            .arg(v)
                            .arg("PX")
                            .arg(millis(keep)),
                    )
                    .await
                }
                None => self.q::<()>(redis::cmd("DEL").arg(&key)).await,
            }
        })
    }

    fn note(&self, name: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let key = self.note_key(name);
        Box::pin(async move { self.q(redis::cmd("GET").arg(&key)).await })
    }

    fn bot_user(&self, player: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let key = self.bot_user_key(player);
        Box::pin(async move { self.q(redis::cmd("GET").arg(&key)).await })
    }

    fn set_bot_user(&self, player: &str, user: Option<String>) -> BoxFuture<'_, Result<()>> {
        let key = self.bot_user_key(player);
        Box::pin(async move {
            match user {
                Some(u) => self.q::<()>(redis::cmd("SET").arg(&key).arg(u)).await,
                None => self.q::<()>(redis::cmd("DEL").arg(&key)).await,
            }
        })
    }
}
