//! [`Lobby`] on Redis: a list of waiting tickets per match key, taken from
//! atomically by a script; a delivered match is a key per ticket.

use deadpool_redis::redis;
use futures_util::future::BoxFuture;

use super::{RedisBackplane, parse, to_json};
use crate::{Lobby, Result, Ticket};

/// How long a delivered match waits for its ticket's poll.
const TICKET_TTL_S: u64 = 300;

impl Lobby for RedisBackplane {
    fn match_or_wait(&self, key: &str, ticket: Ticket) -> BoxFuture<'_, Result<Option<Ticket>>> {
        let queue = self.queue_key(key);
        Box::pin(async move {
            let json = to_json(&ticket)?;
            let got: Option<String> = self
                .eval(
                    &self.scripts.match_or_wait,
                    &[&queue],
                    &[&json, &ticket.player],
                )
                .await?;
            got.map(|s| parse("ticket", &s)).transpose()
        })
    }

    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>> {
        let queue = self.queue_key(key);
        Box::pin(async move {
            // serde writes `id` first (declaration order), so the prefix
            // identifies the ticket.
            let prefix = format!("{{\"id\":{ticket},");
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
}
