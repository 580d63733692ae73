//! [`TournamentStore`] on Redis: the state is the `tstate` field of the
//! tournament's ownership hash `room:{tour~ID}` (so the fenced write is
//! one script on one slot), the inbox a hash in the same slot, the
//! directory one sorted set.

use deadpool_redis::redis;
use futures_util::future::BoxFuture;

use super::RedisBackplane;
use crate::{BackplaneError, Result, TournamentStore, tournament_key};

impl TournamentStore for RedisBackplane {
    fn register_tournament(&self, id: &str, created_ms: u64) -> BoxFuture<'_, Result<bool>> {
        let id = id.to_string();
        Box::pin(async move {
            let n: i64 = self
                .q(redis::cmd("ZADD")
                    .arg(self.tournaments_key())
                    .arg("NX")
                    .arg(created_ms)
                    .arg(&id))
                .await?;
            Ok(n == 1)
        })
    }

    fn tournament_ids(&self) -> BoxFuture<'_, Result<Vec<String>>> {
        Box::pin(async move {
            self.q(redis::cmd("ZRANGE")
                .arg(self.tournaments_key())
                .arg(0)
                .arg(-1))
                .await
        })
    }

    fn save_tournament(&self, id: &str, epoch: u64, state: String) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let key = tournament_key(&id);
            let n: i64 = self
                .eval_acked(
                    &self.scripts.save_tournament,
                    &[&self.room_key(&key)],
                    &[&self.node, &epoch.to_string(), &state],
                )
                .await?;
            if n < 0 {
                return Err(BackplaneError::Fenced { room: key, epoch });
            }
            Ok(())
        })
    }

    fn load_tournament(&self, id: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let key = tournament_key(id);
        Box::pin(async move {
            self.q(redis::cmd("HGET").arg(self.room_key(&key)).arg("tstate"))
                .await
        })
    }

    fn post_tournament(&self, id: &str, key: &str, entry: String) -> BoxFuture<'_, Result<bool>> {
        let (id, key) = (id.to_string(), key.to_string());
        Box::pin(async move {
            let n: i64 = self
                .q(redis::cmd("HSETNX")
                    .arg(self.tournament_inbox_key(&id))
                    .arg(&key)
                    .arg(entry))
                .await?;
            Ok(n == 1)
        })
    }

    fn tournament_inbox(&self, id: &str) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        let id = id.to_string();
        Box::pin(async move {
            let mut v: Vec<(String, String)> = self
                .q(redis::cmd("HGETALL").arg(self.tournament_inbox_key(&id)))
                .await?;
            v.sort();
            Ok(v)
        })
    }

    fn ack_tournament(&self, id: &str, epoch: u64, keys: Vec<String>) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let key = tournament_key(&id);
            let mut args: Vec<&str> = Vec::with_capacity(keys.len() + 2);
            let epoch_s = epoch.to_string();
            args.push(&self.node);
            args.push(&epoch_s);
            args.extend(keys.iter().map(String::as_str));
            let n: i64 = self
                .eval(
                    &self.scripts.ack_tournament,
                    &[&self.room_key(&key), &self.tournament_inbox_key(&id)],
                    &args,
                )
                .await?;
            if n < 0 {
                return Err(BackplaneError::Fenced { room: key, epoch });
            }
            Ok(())
        })
    }
}
