//! [`TournamentStore`] in memory: the directory, states and inboxes of
//! the shared [`State`](super::State); fenced by the room store's owners.

use futures_util::future::BoxFuture;

use super::{InProcess, ready};
use crate::{Result, TournamentStore, tournament_key};

impl TournamentStore for InProcess {
    fn register_tournament(&self, id: &str, created_ms: u64) -> BoxFuture<'_, Result<bool>> {
        ready(Ok(self.with(|s| {
            if s.tournaments.ids.contains_key(id) {
                return false;
            }
            s.tournaments.ids.insert(id.to_string(), created_ms);
            true
        })))
    }

    fn tournament_ids(&self) -> BoxFuture<'_, Result<Vec<String>>> {
        ready(Ok(self.with(|s| {
            let mut v: Vec<(u64, String)> = s
                .tournaments
                .ids
                .iter()
                .map(|(id, at)| (*at, id.clone()))
                .collect();
            v.sort();
            v.into_iter().map(|(_, id)| id).collect()
        })))
    }

    fn save_tournament(&self, id: &str, epoch: u64, state: String) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.check_fence(s, &tournament_key(id), epoch)?;
            s.tournaments.states.insert(id.to_string(), state);
            Ok(())
        }))
    }

    fn load_tournament(&self, id: &str) -> BoxFuture<'_, Result<Option<String>>> {
        ready(Ok(self.with(|s| s.tournaments.states.get(id).cloned())))
    }

    fn post_tournament(&self, id: &str, key: &str, entry: String) -> BoxFuture<'_, Result<bool>> {
        ready(Ok(self.with(|s| {
            let inbox = s.tournaments.inboxes.entry(id.to_string()).or_default();
            if inbox.contains_key(key) {
                return false;
            }
            inbox.insert(key.to_string(), entry);
            true
        })))
    }

    fn tournament_inbox(&self, id: &str) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        ready(Ok(self.with(|s| {
            s.tournaments
                .inboxes
                .get(id)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default()
        })))
    }

    fn ack_tournament(&self, id: &str, epoch: u64, keys: Vec<String>) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.check_fence(s, &tournament_key(id), epoch)?;
            if let Some(inbox) = s.tournaments.inboxes.get_mut(id) {
                for k in keys {
                    inbox.remove(&k);
                }
            }
            Ok(())
        }))
    }
}
