//! [`RoomStore`] in memory: the directory, ownership and snapshots maps of
//! the shared [`State`](super::State).

use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

use super::{InProcess, ready};
use crate::{BackplaneError, Lease, Result, RoomAppend, RoomEntry, RoomId, RoomStore, StoredRoom};

impl RoomStore for InProcess {
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            if s.rooms.contains_key(&entry.id) {
                return Err(BackplaneError::Exists(entry.id));
            }
            if s.invites.contains_key(&entry.invite) {
                return Err(BackplaneError::Exists(entry.invite));
            }
            s.invites.insert(entry.invite.clone(), entry.id.clone());
            s.rooms.insert(entry.id.clone(), entry);
            Ok(())
        }))
    }

    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        ready(Ok(self.with(|s| s.rooms.get(id).cloned())))
    }

    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        ready(Ok(self.with(|s| {
            s.invites.get(code).and_then(|id| s.rooms.get(id)).cloned()
        })))
    }

    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>> {
        let node = self.node.clone();
        let lease = self.lease;
        ready(self.with(|s| {
            if let Some(l) = s.owners.get(id)
                && l.node != node
                && s.alive(&l.node, lease)
            {
                return Err(BackplaneError::Owned {
                    room: id.to_string(),
                    owner: l.node.clone(),
                });
            }
            let e = s.epochs.entry(id.to_string()).or_insert(0);
            *e += 1;
            let lease = Lease { node, epoch: *e };
            s.owners.insert(id.to_string(), lease.clone());
            s.needs_owner.remove(id);
            s.forget_at.remove(id);
            s.wakes.remove(id);
            Ok(lease)
        }))
    }

    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| self.release_in(s, id, epoch, needs_owner)))
    }

    fn release_idle(
        &self,
        id: &str,
        epoch: u64,
        keep: Duration,
        wake: Option<u64>,
    ) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.release_in(s, id, epoch, false)?;
            let at = Instant::now() + keep;
            if let Some(old) = s.forget_at.insert(id.to_string(), at) {
                s.forget.remove(&(old, id.to_string()));
            }
            s.forget.insert((at, id.to_string()));
            match wake {
                Some(w) => s.wakes.insert(id.to_string(), w),
                None => s.wakes.remove(id),
            };
            Ok(())
        }))
    }

    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>> {
        ready(Ok(self.with(|s| s.owners.get(id).cloned())))
    }

    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>> {
        let now = super::now_ms();
        ready(Ok(self.with(|s| {
            let mut v: Vec<RoomId> = s
                .owners
                .iter()
                .filter(|(_, l)| !s.alive(&l.node, self.lease))
                .map(|(id, _)| id.clone())
                .chain(s.needs_owner.iter().cloned())
                .chain(
                    s.wakes
                        .iter()
                        .filter(|(id, at)| **at <= now && !s.owners.contains_key(*id))
                        .map(|(id, _)| id.clone()),
                )
                .collect();
            v.sort();
            v.dedup();
            v
        })))
    }

    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.check_fence(s, id, epoch)?;
            if let Some(old) = s.snapshots.get(id)
                && old.snapshot.version > room.snapshot.version
            {
                return Err(BackplaneError::StaleVersion {
                    version: room.snapshot.version,
                });
            }
            s.snapshots.insert(id.to_string(), room);
            Ok(())
        }))
    }

    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>> {
        ready(self.with(|s| {
            self.check_fence(s, id, epoch)?;
            let Some(stored) = s.snapshots.get_mut(id) else {
                return Err(BackplaneError::Gap {
                    stored: 0,
                    base: append.base,
                });
            };
            if stored.snapshot.version > append.version {
                return Err(BackplaneError::StaleVersion {
                    version: append.version,
                });
            }
            if stored.snapshot.inputs.len() != append.base {
                return Err(BackplaneError::Gap {
                    stored: stored.snapshot.inputs.len(),
                    base: append.base,
                });
            }
            stored.snapshot.inputs.extend(append.inputs);
            stored.snapshot.version = append.version;
            stored.seqs = append.seqs;
            Ok(())
        }))
    }

    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>> {
        ready(Ok(self.with(|s| s.snapshots.get(id).cloned())))
    }
}
