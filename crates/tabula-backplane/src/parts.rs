//! A backplane assembled from one implementation per concern: [`Parts`].
//!
//! A test fake then implements only the concern it fakes (a bus that
//! loses messages, a store that refuses writes) and takes the other parts
//! from a real backplane.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tabula_room::{PlayerDelta, PlayerId, PlayerStats};
use tokio::sync::mpsc;

use crate::{
    Archive, Backplane, Inbound, Lease, Lobby, NodeBus, NoticeBacklog, Notices, ProfilePart,
    Rematch, Result, RoomAppend, RoomEntry, RoomId, RoomStore, Shelf, Shown, StoredProfile,
    StoredRoom, Ticket, TournamentStore, Window,
};

/// A [`Backplane`] whose every call goes to the part for its concern.
///
/// The parts must speak for one node (see [`Backplane`]): normally they
/// are one backplane, some of them wrapped.
#[derive(Debug, Clone)]
pub struct Parts {
    /// Directory, ownership, snapshots.
    pub store: Arc<dyn RoomStore>,
    /// Node id, liveness, inboxes.
    pub bus: Arc<dyn NodeBus>,
    /// Quick match.
    pub lobby: Arc<dyn Lobby>,
    /// Records and statistics.
    pub archive: Arc<dyn Archive>,
    /// The bot's notices and slots.
    pub notices: Arc<dyn Notices>,
    /// Tournaments' state and inboxes.
    pub tournaments: Arc<dyn TournamentStore>,
}

impl Parts {
    /// All four parts from one backplane (replace some afterwards:
    /// `Parts { bus, ..Parts::of(inner) }`).
    pub fn of<B: Backplane>(backplane: Arc<B>) -> Parts {
        Parts {
            store: backplane.clone(),
            bus: backplane.clone(),
            lobby: backplane.clone(),
            archive: backplane.clone(),
            notices: backplane.clone(),
            tournaments: backplane,
        }
    }
}

impl RoomStore for Parts {
    fn register(&self, entry: RoomEntry) -> BoxFuture<'_, Result<()>> {
        self.store.register(entry)
    }
    fn lookup(&self, id: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        self.store.lookup(id)
    }
    fn resolve_invite(&self, code: &str) -> BoxFuture<'_, Result<Option<RoomEntry>>> {
        self.store.resolve_invite(code)
    }
    fn claim(&self, id: &str) -> BoxFuture<'_, Result<Lease>> {
        self.store.claim(id)
    }
    fn release(&self, id: &str, epoch: u64, needs_owner: bool) -> BoxFuture<'_, Result<()>> {
        self.store.release(id, epoch, needs_owner)
    }
    fn release_idle(
        &self,
        id: &str,
        epoch: u64,
        keep: Duration,
        wake: Option<u64>,
    ) -> BoxFuture<'_, Result<()>> {
        self.store.release_idle(id, epoch, keep, wake)
    }
    fn owner(&self, id: &str) -> BoxFuture<'_, Result<Option<Lease>>> {
        self.store.owner(id)
    }
    fn orphans(&self) -> BoxFuture<'_, Result<Vec<RoomId>>> {
        self.store.orphans()
    }
    fn save_snapshot(&self, id: &str, epoch: u64, room: StoredRoom) -> BoxFuture<'_, Result<()>> {
        self.store.save_snapshot(id, epoch, room)
    }
    fn append_inputs(&self, id: &str, epoch: u64, append: RoomAppend) -> BoxFuture<'_, Result<()>> {
        self.store.append_inputs(id, epoch, append)
    }
    fn load_snapshot(&self, id: &str) -> BoxFuture<'_, Result<Option<StoredRoom>>> {
        self.store.load_snapshot(id)
    }
}

impl NodeBus for Parts {
    fn node_id(&self) -> &str {
        self.bus.node_id()
    }
    fn lease(&self) -> Duration {
        self.bus.lease()
    }
    fn heartbeat(&self) -> BoxFuture<'_, Result<()>> {
        self.bus.heartbeat()
    }
    fn node_alive(&self, node: &str) -> BoxFuture<'_, Result<bool>> {
        self.bus.node_alive(node)
    }
    fn leave(&self) -> BoxFuture<'_, Result<()>> {
        self.bus.leave()
    }
    fn send(&self, node: &str, message: String) -> BoxFuture<'_, Result<()>> {
        self.bus.send(node, message)
    }
    fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Inbound>> {
        self.bus.take_inbox()
    }
}

impl Lobby for Parts {
    fn match_or_wait(
        &self,
        key: &str,
        ticket: Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<Ticket>>> {
        self.lobby.match_or_wait(key, ticket, window, now_ms)
    }
    fn rematch(
        &self,
        key: &str,
        ticket: &Ticket,
        window: Window,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Rematch>> {
        self.lobby.rematch(key, ticket, window, now_ms)
    }
    fn cancel_ticket(&self, key: &str, ticket: u64) -> BoxFuture<'_, Result<bool>> {
        self.lobby.cancel_ticket(key, ticket)
    }
    fn deliver_match(&self, ticket: u64, room: String) -> BoxFuture<'_, Result<()>> {
        self.lobby.deliver_match(ticket, room)
    }
    fn poll_match(&self, ticket: u64) -> BoxFuture<'_, Result<Option<String>>> {
        self.lobby.poll_match(ticket)
    }
    fn show(
        &self,
        shelf: Shelf,
        items: Vec<Shown>,
        until_ms: u64,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<()>> {
        self.lobby.show(shelf, items, until_ms, now_ms)
    }
    fn unshow(&self, shelf: Shelf, rooms: Vec<String>) -> BoxFuture<'_, Result<()>> {
        self.lobby.unshow(shelf, rooms)
    }
    fn shown(&self, shelf: Shelf, limit: usize, now_ms: u64) -> BoxFuture<'_, Result<Vec<String>>> {
        self.lobby.shown(shelf, limit, now_ms)
    }
    fn count_online(&self, count: u64, until_ms: u64) -> BoxFuture<'_, Result<()>> {
        self.lobby.count_online(count, until_ms)
    }
    fn online(&self, now_ms: u64) -> BoxFuture<'_, Result<u64>> {
        self.lobby.online(now_ms)
    }
}

impl Archive for Parts {
    fn save_record(&self, room: &str, game: u32, record: String) -> BoxFuture<'_, Result<()>> {
        self.archive.save_record(room, game, record)
    }
    fn records(&self, room: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        self.archive.records(room)
    }
    fn queue_archive(&self, key: &str, entry: String) -> BoxFuture<'_, Result<()>> {
        self.archive.queue_archive(key, entry)
    }
    fn queue_outlives_process(&self) -> bool {
        self.archive.queue_outlives_process()
    }
    fn archive_queue(&self, limit: usize) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        self.archive.archive_queue(limit)
    }
    fn archived(&self, key: &str) -> BoxFuture<'_, Result<()>> {
        self.archive.archived(key)
    }
    fn archive_backlog(&self) -> BoxFuture<'_, Result<crate::ArchiveBacklog>> {
        self.archive.archive_backlog()
    }
    fn claim_archive_drain(&self, holder: &str, lease: Duration) -> BoxFuture<'_, Result<bool>> {
        self.archive.claim_archive_drain(holder, lease)
    }
    fn release_archive_drain(&self, holder: &str) -> BoxFuture<'_, Result<()>> {
        self.archive.release_archive_drain(holder)
    }
    fn record_stats(&self, player: PlayerId, delta: PlayerDelta) -> BoxFuture<'_, Result<()>> {
        self.archive.record_stats(player, delta)
    }
    fn forget_stats(&self, player: &str) -> BoxFuture<'_, Result<()>> {
        self.archive.forget_stats(player)
    }
    fn stats(&self, player: &str) -> BoxFuture<'_, Result<PlayerStats>> {
        self.archive.stats(player)
    }
    fn set_unfinished(
        &self,
        player: &str,
        room: &str,
        game: Option<String>,
        keep: std::time::Duration,
    ) -> BoxFuture<'_, Result<()>> {
        self.archive.set_unfinished(player, room, game, keep)
    }
    fn unfinished(&self, player: &str) -> BoxFuture<'_, Result<Vec<String>>> {
        self.archive.unfinished(player)
    }
    fn profile(&self, player: &str) -> BoxFuture<'_, Result<StoredProfile>> {
        self.archive.profile(player)
    }
    fn profiles(&self, players: &[String]) -> BoxFuture<'_, Result<Vec<StoredProfile>>> {
        self.archive.profiles(players)
    }
    fn set_profile(
        &self,
        player: &str,
        part: ProfilePart,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        self.archive.set_profile(player, part, value, keep)
    }
    fn keep_profile(&self, player: &str, keep: Duration) -> BoxFuture<'_, Result<()>> {
        self.archive.keep_profile(player, keep)
    }
}

impl Notices for Parts {
    fn queue_notice(
        &self,
        id: &str,
        entry: String,
        due_ms: u64,
        keep: Duration,
    ) -> BoxFuture<'_, Result<bool>> {
        self.notices.queue_notice(id, entry, due_ms, keep)
    }
    fn take_notices(
        &self,
        now_ms: u64,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        self.notices.take_notices(now_ms, limit)
    }
    fn requeue_notice(&self, id: &str, entry: String, due_ms: u64) -> BoxFuture<'_, Result<()>> {
        self.notices.requeue_notice(id, entry, due_ms)
    }
    fn notice_backlog(&self) -> BoxFuture<'_, Result<NoticeBacklog>> {
        self.notices.notice_backlog()
    }
    fn claim_slot(&self, name: &str, ttl: Duration) -> BoxFuture<'_, Result<bool>> {
        self.notices.claim_slot(name, ttl)
    }
    fn claim_send(&self, now_ms: u64, per_sec: u32) -> BoxFuture<'_, Result<bool>> {
        self.notices.claim_send(now_ms, per_sec)
    }
    fn pause_sends(&self, until_ms: u64) -> BoxFuture<'_, Result<()>> {
        self.notices.pause_sends(until_ms)
    }
    fn sends_paused_until(&self) -> BoxFuture<'_, Result<u64>> {
        self.notices.sends_paused_until()
    }
    fn set_note(
        &self,
        name: &str,
        value: Option<String>,
        keep: Duration,
    ) -> BoxFuture<'_, Result<()>> {
        self.notices.set_note(name, value, keep)
    }
    fn note(&self, name: &str) -> BoxFuture<'_, Result<Option<String>>> {
        self.notices.note(name)
    }
    fn bot_user(&self, player: &str) -> BoxFuture<'_, Result<Option<String>>> {
        self.notices.bot_user(player)
    }
    fn set_bot_user(&self, player: &str, user: Option<String>) -> BoxFuture<'_, Result<()>> {
        self.notices.set_bot_user(player, user)
    }
}

impl TournamentStore for Parts {
    fn register_tournament(&self, id: &str, created_ms: u64) -> BoxFuture<'_, Result<bool>> {
        self.tournaments.register_tournament(id, created_ms)
    }
    fn tournament_ids(&self) -> BoxFuture<'_, Result<Vec<String>>> {
        self.tournaments.tournament_ids()
    }
    fn save_tournament(&self, id: &str, epoch: u64, state: String) -> BoxFuture<'_, Result<()>> {
        self.tournaments.save_tournament(id, epoch, state)
    }
    fn load_tournament(&self, id: &str) -> BoxFuture<'_, Result<Option<String>>> {
        self.tournaments.load_tournament(id)
    }
    fn post_tournament(&self, id: &str, key: &str, entry: String) -> BoxFuture<'_, Result<bool>> {
        self.tournaments.post_tournament(id, key, entry)
    }
    fn tournament_inbox(&self, id: &str) -> BoxFuture<'_, Result<Vec<(String, String)>>> {
        self.tournaments.tournament_inbox(id)
    }
    fn ack_tournament(&self, id: &str, epoch: u64, keys: Vec<String>) -> BoxFuture<'_, Result<()>> {
        self.tournaments.ack_tournament(id, epoch, keys)
    }
}
