//! The tournaments this node runs, and its shared read of the directory
//! for the players' routes.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tabula_backplane::BackplaneError;
use tabula_tournament::Tournament;

use super::side::{Side, decode};
use crate::keyed::KeyedLocks;

/// The tournaments this node owns (their tasks run on the node's
/// runtime).
#[derive(Debug, Default)]
pub struct Tournaments {
    pub(crate) held: Mutex<HashSet<String>>,
    /// When each player's last game ended (ms, as its room posted it), by
    /// `tournament/player`: the start of the pairing-latency histogram's
    /// interval, ended by his next pairing.
    pub(crate) ended: Mutex<std::collections::HashMap<String, u64>>,
    /// The newest tournaments of the directory as last read, shared by
    /// every `GET /api/me/tournaments` on this node for [`SCAN_KEEP`].
    scan: tokio::sync::Mutex<Option<(std::time::Instant, Scan)>>,
    /// Each tournament's state as last read or written here, shared by
    /// every reader on this node (see [`Tournaments::read`]).
    reads: Mutex<HashMap<String, Kept>>,
    /// One read of a tournament at a time on this node.
    reading: KeyedLocks,
    /// The bell of each tournament this node runs: rung when something is
    /// posted to its inbox, so that its owner reads it at once.
    bells: Mutex<HashMap<String, Arc<tokio::sync::Notify>>>,
}

/// How long one read of a tournament's state answers this node's readers
/// (its view, a join that makes a game's room). An arena's state is tens
/// of kilobytes (66 KB with 100 players at its start): read from Redis
/// by each of its players' joins and views it filled the backplane's
/// connection (the 10,000-player run's first try: no game in 45 s).
pub const READ_KEEP: Duration = Duration::from_millis(500);

/// Reads kept at most before the stale ones are dropped.
const READS_KEPT: usize = 256;

/// A tournament's state with its owner's side, as read.
pub type Read = Arc<(Tournament, Side)>;

/// A read kept, and whether this node's owner wrote it.
#[derive(Debug)]
struct Kept {
    at: Instant,
    owner: bool,
    read: Read,
}

/// How long one read of the directory answers the players' routes.
pub const SCAN_KEEP: Duration = Duration::from_secs(1);

/// The most tournaments (the newest) a scan of the directory reads.
pub const SCANNED: usize = 200;

/// The newest [`SCANNED`] tournaments of the directory with their
/// owners' sides, newest first.
pub type Scan = Arc<Vec<(Tournament, Side)>>;

impl Tournaments {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn bells(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Notify>>> {
        self.bells.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The bell of tournament `id`, which its owner here waits on (made
    /// when it starts running here, dropped by [`Tournaments::unhang`]).
    pub(crate) fn bell(&self, id: &str) -> Arc<tokio::sync::Notify> {
        self.bells().entry(id.to_string()).or_default().clone()
    }

    /// Drops tournament `id`'s bell: this node no longer runs it.
    pub(crate) fn unhang(&self, id: &str) {
        self.bells().remove(id);
    }

    /// Rings tournament `id`'s bell if this node runs it: its owner reads
    /// the inbox now (a ring while it is busy is kept for its next wait).
    pub fn ring(&self, id: &str) {
        if let Some(bell) = self.bells().get(id) {
            bell.notify_one();
        }
    }

    /// Whether this node runs the tournament.
    pub fn holds(&self, id: &str) -> bool {
        self.lock().contains(id)
    }

    /// How many this node runs.
    pub fn held(&self) -> usize {
        self.lock().len()
    }

    /// The newest [`SCANNED`] tournaments of the directory, read at most
    /// once a [`SCAN_KEEP`] on this node whoever asks (a player's live
    /// tournaments are found among them: the directory has no index by
    /// player). A tournament whose state cannot be read is left out.
    pub async fn scan(&self, bp: &dyn tabula_backplane::Backplane) -> Result<Scan, BackplaneError> {
        let mut held = self.scan.lock().await;
        if let Some((at, scan)) = held.as_ref()
            && at.elapsed() < SCAN_KEEP
        {
            return Ok(scan.clone());
        }
        let ids = bp.tournament_ids().await?;
        // Through the node's reads: a tournament a view or its owner
        // here read lately is not read again.
        let reads = ids.iter().rev().take(SCANNED).map(|id| self.read(bp, id));
        let states = futures_util::future::join_all(reads).await;
        let scan: Scan = Arc::new(
            states
                .into_iter()
                .filter_map(|r| r.ok().flatten())
                .map(|r| (*r).clone())
                .collect(),
        );
        *held = Some((std::time::Instant::now(), scan.clone()));
        Ok(scan)
    }

    fn reads(&self) -> std::sync::MutexGuard<'_, HashMap<String, Kept>> {
        self.reads.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The read kept of `id` if it is `wanted` and current (this node's
    /// owner wrote it and still runs the tournament: nobody else writes
    /// it; or it is under [`READ_KEEP`] old), or made at `since` or after.
    fn kept(
        &self,
        id: &str,
        wanted: &dyn Fn(&Read) -> bool,
        since: Option<Instant>,
    ) -> Option<Read> {
        let held = self.holds(id);
        self.reads()
            .get(id)
            .filter(|k| {
                ((k.owner && held) || k.at.elapsed() < READ_KEEP) && wanted(&k.read)
                    || since.is_some_and(|s| k.at >= s)
            })
            .map(|k| k.read.clone())
    }

    fn put(&self, id: &str, read: Read, owner: bool) {
        let held = self.holds(id);
        let mut reads = self.reads();
        if !owner && held && reads.get(id).is_some_and(|k| k.owner) {
            // The owner's last write is newer than any read.
            return;
        }
        if reads.len() >= READS_KEPT {
            reads.retain(|_, k| k.at.elapsed() < READ_KEEP || k.owner);
        }
        reads.insert(
            id.to_string(),
            Kept {
                at: Instant::now(),
                owner,
                read,
            },
        );
    }

    /// Keeps the state this node's owner of tournament `id` just wrote:
    /// its readers here are served it while it runs the tournament.
    pub fn written(&self, id: &str, read: Read) {
        self.put(id, read, true);
    }

    /// Tournament `id`'s state: on its owner's node, the owner's last
    /// write; elsewhere as this node last read it, if that was under
    /// [`READ_KEEP`] ago, else read now, once for all who ask meanwhile.
    /// `None`: no such tournament. What it returns was the stored state
    /// at some moment within the last [`READ_KEEP`] and a read.
    pub async fn read(
        &self,
        bp: &dyn tabula_backplane::Backplane,
        id: &str,
    ) -> Result<Option<Read>, BackplaneError> {
        self.read_where(bp, id, &|_| true).await
    }

    /// [`Tournaments::read`], read again unless the read kept is
    /// `wanted` (a join's game listed in it): once for all who ask
    /// meanwhile, whose wait for it serves them whatever it reads.
    pub async fn read_where(
        &self,
        bp: &dyn tabula_backplane::Backplane,
        id: &str,
        wanted: &dyn Fn(&Read) -> bool,
    ) -> Result<Option<Read>, BackplaneError> {
        if let Some(r) = self.kept(id, wanted, None) {
            return Ok(Some(r));
        }
        let asked = Instant::now();
        let _one = self.reading.lock(id).await;
        if let Some(r) = self.kept(id, wanted, Some(asked)) {
            return Ok(Some(r));
        }
        let Some(json) = bp.load_tournament(id).await? else {
            return Ok(None);
        };
        let read: Read = Arc::new(
            decode(&json).map_err(|e| BackplaneError::Corrupt(format!("tournament {id}: {e}")))?,
        );
        self.put(id, read.clone(), false);
        Ok(Some(read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournaments::encode;
    use crate::tournaments::side::tests::cup_of as cup;
    use tabula_backplane::{InProcess, RoomStore, TournamentStore, tournament_key};

    fn entrants(r: &Read) -> usize {
        r.0.standings().rows.len()
    }

    #[actix_rt::test]
    async fn a_read_serves_this_node_for_a_while_and_the_owner_serves_its_writes() {
        let bp = InProcess::new("n1");
        bp.register_tournament("cup", 0).await.unwrap();
        let epoch = bp.claim(&tournament_key("cup")).await.unwrap().epoch;
        let store = |t: Tournament| {
            let bp = &bp;
            async move {
                let json = encode(&t, &Side::default()).unwrap();
                bp.save_tournament("cup", epoch, json).await.unwrap();
            }
        };
        let held = Tournaments::default();
        assert!(held.read(&bp, "nope").await.unwrap().is_none());
        store(cup(&["ann"])).await;
        assert_eq!(entrants(&held.read(&bp, "cup").await.unwrap().unwrap()), 1);
        // Written since (by an owner elsewhere): this node's read stands
        // for READ_KEEP...
        store(cup(&["ann", "bob"])).await;
        assert_eq!(entrants(&held.read(&bp, "cup").await.unwrap().unwrap()), 1);
        // ...unless the reader wants what it lacks (a game paired since).
        let two = held
            .read_where(&bp, "cup", &|r| entrants(r) == 2)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(entrants(&two), 2);
        store(cup(&["ann", "bob", "cid"])).await;
        tokio::time::sleep(READ_KEEP).await;
        assert_eq!(entrants(&held.read(&bp, "cup").await.unwrap().unwrap()), 3);
        // The owner here: its last write is served however old, and a
        // read does not replace it.
        held.lock().insert("cup".into());
        held.written(
            "cup",
            Arc::new((cup(&["ann", "bob", "cid", "dan"]), Side::default())),
        );
        tokio::time::sleep(READ_KEEP).await;
        assert_eq!(entrants(&held.read(&bp, "cup").await.unwrap().unwrap()), 4);
        held.put("cup", Arc::new((cup(&["ann"]), Side::default())), false);
        assert_eq!(entrants(&held.read(&bp, "cup").await.unwrap().unwrap()), 4);
        // No longer the owner: read again once it is stale.
        held.lock().remove("cup");
        tokio::time::sleep(READ_KEEP).await;
        assert_eq!(entrants(&held.read(&bp, "cup").await.unwrap().unwrap()), 3);
    }
}
