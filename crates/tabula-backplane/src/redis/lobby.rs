//! [`Lobby`] on Redis: a list of waiting tickets per match key (one key,
//! one slot), tested and taken from atomically by a script (the partner
//! chosen as [`crate::pick_partner`] chooses, in Lua); a delivered match is
//! a key per ticket. Each shelf of the showcase is four keys of one slot
//! (`{show}`) written and read by scripts; the online count one hash.

use deadpool_redis::redis;
use futures_util::future::BoxFuture;

use super::{RedisBackplane, parse, to_json};
use crate::{Lobby, MAX_SHOWN, Rematch, Result, Shelf, Shown, Ticket, Window};

/// How long a delivered match waits for its ticket's poll.
const TICKET_TTL_S: u64 = 300;

/// The arguments of the scripts' `pick` after the first: the player,
/// his rating and since, now, the window.
fn pick_args(ticket: &Ticket, window: &Window, now_ms: u64) -> [String; 7] {
    [
        ticket.player.clone(),
        ticket.rating.to_string(),
        ticket.since_ms.to_string(),
        now_ms.to_string(),
        window.start.to_string(),
        window.per_sec.to_string(),
        window.open_after_ms.to_string(),
    ]
}

/// The JSON prefix that identifies a queued ticket: serde writes `id`
/// first (declaration order). Ids are compared as text: Lua numbers lose
/// u64 precision.
fn id_prefix(ticket: u64) -> String {
    format!("{{\"id\":{ticket},")
}

impl Lobby for RedisBackplane {
    fn match_or_wait(
        &self,
        key: &str,
        ticket: Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<Ticket>>> {
        let queue = self.queue_key(key);
        Box::pin(async move {
            let json = to_json(&ticket)?;
            let rest = pick_args(&ticket, &window, now_ms);
            let mut args: Vec<&str> = vec![&json];
            args.extend(rest.iter().map(String::as_str));
            let got: Option<String> = self
                .eval(&self.scripts.match_or_wait, &[&queue], &args)
                .await?;
            got.map(|s| parse("ticket", &s)).transpose()
        })
    }

    fn rematch(
        &self,
        key: &str,
        ticket: &Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Rematch>> {
        let queue = self.queue_key(key);
        let prefix = id_prefix(ticket.id);
        let rest = pick_args(ticket, &window, now_ms);
        Box::pin(async move {
            let mut args: Vec<&str> = vec![&prefix];
            args.extend(rest.iter().map(String::as_str));
            let (code, got): (i64, String) =
                self.eval(&self.scripts.rematch, &[&queue], &args).await?;
            Ok(match code {
                1 => Rematch::Matched(parse("ticket", &got)?),
                0 => Rematch::Waiting,
                _ => Rematch::Taken,
            })
        })
    }

    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>> {
        let queue = self.queue_key(key);
        Box::pin(async move {
            let prefix = id_prefix(ticket);
            let n: i64 = self
                .eval(&self.scripts.cancel, &[&queue], &[&prefix])
                .await?;
            Ok(n > 0)
        })
    }

    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.q::<()>(
                redis::cmd("SET")
                    .arg(self.ticket_key(ticket))
                    .arg(room)
                    .arg("EX")
                    .arg(TICKET_TTL_S),
            )
            .await
        })
    }

    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>> {
        Box::pin(async move {
            self.q(redis::cmd("GETDEL").arg(self.ticket_key(ticket)))
                .await
        })
    }

    fn show(
        &self,
        shelf: Shelf,
        items: Vec<Shown>,
        until_ms: u64,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<()>> {
        let keys = self.shelf_keys(shelf);
        Box::pin(async move {
            let mut args = vec![until_ms.to_string(), now_ms.to_string(), self.node.clone()];
            for it in items.into_iter().take(MAX_SHOWN) {
                let score = if it.score.is_finite() { it.score } else { 0.0 };
                args.push(it.room);
                args.push(score.to_string());
                args.push(it.json);
            }
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let _dropped: i64 = self.eval(&self.scripts.show, &keys, &args).await?;
            Ok(())
        })
    }

    fn unshow(&self, shelf: Shelf, rooms: Vec<String>) -> BoxFuture<'_, Result<()>> {
        let keys = self.shelf_keys(shelf);
        Box::pin(async move {
            if rooms.is_empty() {
                return Ok(());
            }
            let mut args: Vec<&str> = vec![&self.node];
            args.extend(rooms.iter().map(String::as_str));
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let _n: i64 = self.eval(&self.scripts.unshow, &keys, &args).await?;
            Ok(())
        })
    }

    fn shown(&self, shelf: Shelf, limit: usize, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>>> {
        let keys = self.shelf_keys(shelf);
        Box::pin(async move {
            let limit = limit.min(MAX_SHOWN).to_string();
            let now = now_ms.to_string();
            self.eval(
                &self.scripts.shown,
                &[&keys[0], &keys[1], &keys[2]],
                &[&limit, &now],
            )
            .await
        })
    }

    fn count_online(&self, count: u64, until_ms: u64) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            self.q::<()>(
                redis::cmd("HSET")
                    .arg(self.online_key())
                    .arg(&self.node)
                    .arg(format!("{count}:{until_ms}")),
            )
            .await
        })
    }

    fn online(&self, now_ms: u64) -> BoxFuture<'_, Result<u64>> {
        Box::pin(async move {
            let key = self.online_key();
            let all: Vec<(String, String)> = self.q(redis::cmd("HGETALL").arg(&key)).await?;
            let mut sum = 0u64;
            let mut gone = Vec::new();
            for (node, v) in all {
                let (n, until) = v.split_once(':').unwrap_or(("0", "0"));
                match (n.parse::<u64>(), until.parse::<u64>()) {
                    (Ok(n), Ok(u)) if u > now_ms => sum = sum.saturating_add(n),
                    _ => gone.push(node),
                }
            }
            if !gone.is_empty() {
                // A node that stopped counting: its field goes (not
                // atomic with the read; a node that counts again meanwhile
                // writes it back at its next beat).
                self.q::<()>(redis::cmd("HDEL").arg(&key).arg(gone)).await?;
            }
            Ok(sum)
        })
    }
}
