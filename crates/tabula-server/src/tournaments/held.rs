//! The tournaments this node runs, and its shared read of the directory
//! for the players' routes.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tabula_backplane::BackplaneError;
use tabula_tournament::Tournament;

use super::side::{Side, decode};

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
        let reads = ids
            .iter()
            .rev()
            .take(SCANNED)
            .map(|id| bp.load_tournament(id));
        let states = futures_util::future::join_all(reads).await;
        let scan: Scan = Arc::new(
            states
                .into_iter()
                .filter_map(|r| r.ok().flatten())
                .filter_map(|json| decode(&json).ok())
                .collect(),
        );
        *held = Some((std::time::Instant::now(), scan.clone()));
        Ok(scan)
    }
}
