//! [`RoomStore`] on Redis: a room is its hash `room:{rid}` (entry, owner,
//! epoch, snapshot) and its input log, changed atomically by the scripts
//! of `scripts.rs`; the invite and the indexes live in other slots and
//! follow by separate commands (see the [module docs](super)).

use std::time::Duration;

use deadpool_redis::redis;
use futures_util::future::BoxFuture;

use super::{CAS_RETRIES, RedisBackplane, corrupt, now_ms, parse, to_json, unavailable};

/// Due wakes one sweep lists at most (the next sweep lists the rest).
const WAKES_PER_SWEEP: usize = 256;
use crate::{BackplaneError, Lease, Result, RoomAppend, RoomEntry, RoomId, RoomStore, StoredRoom};

impl RedisBackplane {
    async fn lookup_inner(&self, id: &str) -> Result<Option<RoomEntry>> {
        let (entry, snap): (Option<String>, Option<String>) = self
            .q(redis::cmd("HMGET")
                .arg(self.room_key(id))
                .arg("entry")
                .arg("snap"))
            .await?;
        if let Some(e) = entry {
            return parse("room entry", &e).map(Some);
        }
        match snap {
            Some(s) => parse::<StoredRoom>("snapshot", &s).map(|r| Some(r.entry)),
            None => Ok(None),
        }
    }

    async fn claim_inner(&self, id: &str) -> Result<Lease> {
        let room = self.room_key(id);
        for _ in 0..CAS_RETRIES {
            let owner: Option<String> = self.q(redis::cmd("HGET").arg(&room).arg("owner")).await?;
            let owner = owner.unwrap_or_default();
            if !owner.is_empty() && owner != self.node && self.alive(&owner).await? {
                return Err(BackplaneError::Owned {
                    room: id.to_string(),
                    owner,
                });
            }
            let (epoch, kept): (i64, String) = self
                .eval_acked(
                    &self.scripts.claim,
                    &[&room, &self.log_key(id), &self.records_key(id)],
                    &[&owner, &self.node],
                )
                .await?;
            if epoch < 0 {
                continue; // Someone claimed in between: look again.
            }
            if !kept.is_empty() {
                // It was released idle and due for deletion: keep its
                // invite too.
                let entry: RoomEntry = parse("entry", &kept)?;
                self.q::<()>(redis::cmd("PERSIST").arg(self.invite_key(&entry.invite)))
                    .await?;
            }
            let epoch = u64::try_from(epoch).map_err(|e| corrupt("epoch", e))?;
            // The indexes (other slots): best effort after the fact; the
            // sweep re-checks the owner field.
            self.q::<()>(redis::cmd("SADD").arg(self.owned_key(&self.node)).arg(id))
                .await?;
            self.q::<()>(redis::cmd("SREM").arg(self.needs_key()).arg(id))
                .await?;
            // Held now: its own timer fires, not the sweep.
            self.q::<()>(redis::cmd("ZREM").arg(self.wakes_key()).arg(id))
                .await?;
            if !owner.is_empty() && owner != self.node {
                self.q::<()>(redis::cmd("SREM").arg(self.owned_key(&owner)).arg(id))
                    .await?;
            }
            self.mark_seen().await?;
            return Ok(Lease {
                node: self.node.clone(),
                epoch,
            });
        }
        Err(unavailable(format!("claim of room {id} kept being raced")))
    }

    async fn orphans_inner(&self) -> Result<Vec<RoomId>> {
        let mut out: Vec<RoomId> = Vec::new();
        let nodes: Vec<String> = self
            .q(redis::cmd("ZRANGE").arg(self.nodes_key()).arg(0).arg(-1))
            .await?;
        for node in nodes {
            if self.alive(&node).await? {
                continue;
            }
            let owned_key = self.owned_key(&node);
            let rooms: Vec<String> = self.q(redis::cmd("SMEMBERS").arg(&owned_key)).await?;
            let mut kept = 0usize;
            for room in rooms {
                let owner: Option<String> = self
                    .q(redis::cmd("HGET").arg(self.room_key(&room)).arg("owner"))
                    .await?;
                if owner.as_deref() == Some(node.as_str()) {
                    out.push(room);
                    kept += 1;
                } else {
                    // Claimed by someone else or released: a stale index.
                    self.q::<()>(redis::cmd("SREM").arg(&owned_key).arg(&room))
                        .await?;
                }
            }
            if kept == 0 {
                // A dead node with nothing left: prune it. (If it comes
                // back, its next heartbeat or claim re-registers it.)
                self.q::<()>(redis::cmd("ZREM").arg(self.nodes_key()).arg(&node))
                    .await?;
            }
        }
        let needs: Vec<String> = self.q(redis::cmd("SMEMBERS").arg(self.needs_key())).await?;
        out.extend(needs);
        // Rooms released idle whose wake is due (at most a batch a sweep;
        // the next sweep takes the rest), unless a live node holds one
        // again (its wake was left by a release that failed after it).
        let due: Vec<String> = self
            .q(redis::cmd("ZRANGEBYSCORE")
                .arg(self.wakes_key())
                .arg("-inf")
                .arg(now_ms())
                .arg("LIMIT")
                .arg(0)
                .arg(WAKES_PER_SWEEP))
            .await?;
        for room in due {
            let owner: Option<String> = self
                .q(redis::cmd("HGET").arg(self.room_key(&room)).arg("owner"))
                .await?;
            match owner.as_deref() {
                // The room is gone (forgotten): nothing to wake.
                None => {
                    self.q::<()>(redis::cmd("ZREM").arg(self.wakes_key()).arg(&room))
                        .await?;
                }
                Some("") => out.push(room),
                Some(node) if !self.alive(node).await? => out.push(room),
                Some(_) => {}
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    async fn append_inner(&self, id: &str, epoch: u64, append: RoomAppend) -> Result<()> {
        let mut args = vec![
            self.node.clone(),
            epoch.to_string(),
            append.version.to_string(),
            append.base.to_string(),
            to_json(&append.seqs)?,
        ];
        for input in &append.inputs {
            args.push(to_json(input)?);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r: Vec<i64> = self
            .eval_acked(
                &self.scripts.append,
                &[&self.room_key(id), &self.log_key(id)],
                &args,
            )
            .await?;
        match r.as_slice() {
            [0, _] => Ok(()),
            [-1, _] => Err(BackplaneError::Fenced {
                room: id.to_string(),
                epoch,
            }),
            [-2, _] => Err(BackplaneError::StaleVersion {
                version: append.version,
            }),
            [-3, stored] => Err(BackplaneError::Gap {
                stored: usize::try_from(*stored).unwrap_or(0),
                base: append.base,
            }),
            other => Err(corrupt("append reply", format!("{other:?}"))),
        }
    }

    async fn load_inner(&self, id: &str) -> Result<Option<StoredRoom>> {
        let r: Vec<String> = self
            .eval(
                &self.scripts.load,
                &[&self.room_key(id), &self.log_key(id)],
                &[],
            )
            .await?;
        let [snap, ver, seqs, log @ ..] = r.as_slice() else {
            return Ok(None);
        };
        let mut room: StoredRoom = parse("snapshot", snap)?;
        for input in log {
            room.snapshot.inputs.push(parse("appended input", input)?);
        }
        if !ver.is_empty() {
            room.snapshot.version = ver.parse().map_err(|e| corrupt("room version", e))?;
        }
        if !seqs.is_empty() {
            room.seqs = parse("seqs", seqs)?;
        }
        Ok(Some(room))
    }

    async fn save_inner(&self, id: &str, epoch: u64, room: StoredRoom) -> Result<()> {
        let snap = to_json(&room)?;
        let entry = to_json(&room.entry)?;
        let r: i64 = self
            .eval_acked(
                &self.scripts.save,
                &[&self.room_key(id), &self.log_key(id)],
                &[
                    &self.node,
                    &epoch.to_string(),
                    &room.snapshot.version.to_string(),
                    &snap,
                    &entry,
                    &room.snapshot.inputs.len().to_string(),
                ],
            )
            .await?;
        match r {
            -1 => Err(BackplaneError::Fenced {
                room: id.to_string(),
                epoch,
            }),
            -2 => Err(BackplaneError::StaleVersion {
                version: room.snapshot.version,
            }),
            1 => {
                // The store had lost the room: re-establish the indexes
                // and the invite (other slots, so separate commands).
                self.q::<()>(
                    redis::cmd("SET")
                        .arg(self.invite_key(&room.entry.invite))
                        .arg(id)
                        .arg("NX"),
                )
                .await?;
                self.q::<()>(redis::cmd("SADD").arg(self.owned_key(&self.node)).arg(id))
                    .await?;
                self.mark_seen().await?;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl RoomStore for RedisBackplane {
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let json = to_json(&entry)?;
            let room = self.room_key(&entry.id);
            let fresh: i64 = self
                .eval_acked(&self.scripts.register, &[&room], &[&json])
                .await?;
            if fresh == 0 {
                return Err(BackplaneError::Exists(entry.id));
            }
            let set: Option<String> = self
                .q(redis::cmd("SET")
                    .arg(self.invite_key(&entry.invite))
                    .arg(&entry.id)
                    .arg("NX"))
                .await?;
            if set.is_none() {
                // Invite taken: undo the entry we just wrote.
                self.q::<()>(redis::cmd("HDEL").arg(&room).arg("entry"))
                    .await?;
                return Err(BackplaneError::Exists(entry.invite));
            }
            Ok(())
        })
    }

    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        let id = id.to_string();
        Box::pin(async move { self.lookup_inner(&id).await })
    }

    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        let code = code.to_string();
        Box::pin(async move {
            let id: Option<String> = self
                .q(redis::cmd("GET").arg(self.invite_key(&code)))
                .await?;
            match id {
                Some(id) => self.lookup_inner(&id).await,
                None => Ok(None),
            }
        })
    }

    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>> {
        let id = id.to_string();
        Box::pin(async move { self.claim_inner(&id).await })
    }

    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let ok: i64 = self
                .eval_acked(
                    &self.scripts.release,
                    &[&self.room_key(&id)],
                    &[&self.node, &epoch.to_string()],
                )
                .await?;
            if ok != 1 {
                return Err(BackplaneError::Fenced { room: id, epoch });
            }
            self.q::<()>(redis::cmd("SREM").arg(self.owned_key(&self.node)).arg(&id))
                .await?;
            let op = if needs_owner { "SADD" } else { "SREM" };
            self.q::<()>(redis::cmd(op).arg(self.needs_key()).arg(&id))
                .await
        })
    }

    fn release_idle(
        &self,
        id: &str,
        epoch: u64,
        keep: Duration,
        wake: Option<u64>,
    ) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move {
            let keep_ms = keep.as_millis().max(1).to_string();
            // The wake first (another slot): a room is never released
            // without it. Should the release then fail, the room stays
            // held and the sweep passes its wake by while a live node
            // holds it.
            let wakes = self.wakes_key();
            match wake {
                Some(at) => {
                    self.q::<()>(redis::cmd("ZADD").arg(&wakes).arg(at).arg(&id))
                        .await?
                }
                None => {
                    self.q::<()>(redis::cmd("ZREM").arg(&wakes).arg(&id))
                        .await?
                }
            }
            let entry: String = self
                .eval_acked(
                    &self.scripts.release_idle,
                    &[
                        &self.room_key(&id),
                        &self.log_key(&id),
                        &self.records_key(&id),
                    ],
                    &[&self.node, &epoch.to_string(), &keep_ms],
                )
                .await?;
            if entry.is_empty() {
                return Err(BackplaneError::Fenced { room: id, epoch });
            }
            let entry: RoomEntry = parse("entry", &entry)?;
            self.q::<()>(
                redis::cmd("PEXPIRE")
                    .arg(self.invite_key(&entry.invite))
                    .arg(&keep_ms),
            )
            .await?;
            self.q::<()>(redis::cmd("SREM").arg(self.owned_key(&self.node)).arg(&id))
                .await?;
            self.q::<()>(redis::cmd("SREM").arg(self.needs_key()).arg(&id))
                .await
        })
    }

    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>> {
        let id = id.to_string();
        Box::pin(async move {
            let (owner, epoch): (Option<String>, Option<String>) = self
                .q(redis::cmd("HMGET")
                    .arg(self.room_key(&id))
                    .arg("owner")
                    .arg("epoch"))
                .await?;
            match owner {
                Some(node) if !node.is_empty() => {
                    let epoch = epoch
                        .unwrap_or_default()
                        .parse::<u64>()
                        .map_err(|e| corrupt("epoch", e))?;
                    Ok(Some(Lease { node, epoch }))
                }
                _ => Ok(None),
            }
        })
    }

    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>> {
        Box::pin(self.orphans_inner())
    }

    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move { self.save_inner(&id, epoch, room).await })
    }

    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>> {
        let id = id.to_string();
        Box::pin(async move { self.append_inner(&id, epoch, append).await })
    }

    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>> {
        let id = id.to_string();
        Box::pin(async move { self.load_inner(&id).await })
    }
}
