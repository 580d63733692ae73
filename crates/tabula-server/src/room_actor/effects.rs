//! Carrying out the host's effects: the one place the room touches the
//! channels, the backplane, timers and threads.

use std::time::{Duration, Instant};

use actix::prelude::*;
use tabula_backplane::StoredRoom;

use super::{HintRun, RoomActor, Tx, game_label, phase_label};
use crate::bot::{BotFactory, TabulaBots, hint_plays};
use crate::host::{Count, Effect, HintJob, Think, Timer, Write};
use crate::route::Outbound;
use crate::time::now_ms;
use tabula_protocol::ServerMsg;

impl RoomActor {
    /// Carries out what the host decided, in its order. A finished game
    /// ([`Effect::Archive`]) is kept before anything after it is carried
    /// out (the events that announce its end among them), every other
    /// input of the room held meanwhile ([`RoomActor::keep_then`]).
    pub(super) fn run(&mut self, ctx: &mut Context<Self>) {
        let mut fx = std::mem::take(&mut self.fx);
        let archive = fx.iter().position(|e| matches!(e, Effect::Archive { .. }));
        let mut rest = match archive {
            Some(at) => fx.split_off(at).into_iter(),
            None => Vec::new().into_iter(),
        };
        for e in fx.drain(..) {
            self.exec(e, ctx);
        }
        self.fx = fx;
        if let Some(Effect::Archive { key, entry }) = rest.next() {
            self.keep_then(key, entry, rest.collect(), ctx);
            // A tournament hears of the game's end once it is kept: the
            // run that follows the keep posts it.
            self.update_gauge();
            return;
        }
        self.update_gauge();
        self.tournament_posts();
    }

    /// Keeps the finished game `entry` ([`keep_finished`]), holding every
    /// other input of the room, then carries out `rest`.
    fn keep_then(
        &mut self,
        key: String,
        entry: String,
        rest: Vec<Effect<Tx>>,
        ctx: &mut Context<Self>,
    ) {
        let bp = self.deps.backplane.clone();
        let durable = self.deps.durable.clone();
        let metrics = self.deps.metrics.clone();
        let started = Instant::now();
        let keep = keep_finished(bp, durable, metrics, key, entry);
        ctx.wait(keep.into_actor(self).map(move |(), act, ctx| {
            act.deps
                .metrics
                .archive_hold
                .observe(started.elapsed().as_secs_f64());
            act.fx.extend(rest);
            act.run(ctx);
        }));
    }

    pub(super) fn exec(&mut self, e: Effect<Tx>, ctx: &mut Context<Self>) {
        match e {
            Effect::Send { conn, mut out } => {
                if let Some(tx) = self.host.tx(conn) {
                    if let Outbound::Msg(m) = &mut out
                        && let ServerMsg::State { server_time, .. } = m.as_mut()
                    {
                        *server_time = Some(now_ms());
                    }
                    let _ = tx.send(out);
                }
            }
            Effect::Last { tx, out } => {
                let _ = tx.send(out);
            }
            Effect::Write(w) => self.write(w, ctx),
            Effect::Handoff {
                stored,
                needs_owner,
            } => {
                ctx.spawn(self.handoff(*stored, needs_owner));
            }
            Effect::ReleaseIdle { waits, wake } => self.release_idle(waits, wake, ctx),
            Effect::Unfinished { player, game } => {
                let bp = self.deps.backplane.clone();
                // A correspondence game stays listed past its deadline.
                let until = game.as_ref().and_then(|g| g.deadline).unwrap_or(0);
                let keep = self.deps.paused_forget_after
                    + Duration::from_millis(until.saturating_sub(now_ms()));
                let room = self.host.id().to_string();
                let json = game.and_then(|g| serde_json::to_string(&*g).ok());
                actix::spawn(async move {
                    if let Err(e) = bp.set_unfinished(&player.0, &room, json, keep).await {
                        tracing::warn!(room = %room, error = %e, "unfinished game not listed");
                    }
                });
            }
            Effect::Set { timer, at } => {
                self.cancel(timer, ctx);
                let wait = Duration::from_millis(at.saturating_sub(now_ms()));
                let h = ctx.run_later(wait, move |act, ctx| {
                    act.timers[timer.index()] = None;
                    act.fire(timer, at, ctx);
                });
                self.timers[timer.index()] = Some(h);
            }
            Effect::Cancel(timer) => self.cancel(timer, ctx),
            Effect::Think(t) => self.think(*t, ctx),
            Effect::Hint(h) => self.hint(*h, ctx),
            Effect::CancelHint(conn) => {
                if let Some(run) = self.hint_jobs.remove(&conn) {
                    ctx.cancel_future(run.job);
                }
            }
            Effect::RecordStats { player, delta } => {
                let bp = self.deps.backplane.clone();
                actix::spawn(async move {
                    if let Err(e) = bp.record_stats(player, delta).await {
                        tracing::warn!(error = %e, "statistics not recorded");
                    }
                });
            }
            // [`RoomActor::run`] waits for it; here (a drain's effects)
            // it is kept in the background.
            Effect::Archive { key, entry } => {
                let keep = keep_finished(
                    self.deps.backplane.clone(),
                    self.deps.durable.clone(),
                    self.deps.metrics.clone(),
                    key,
                    entry,
                );
                actix::spawn(keep);
            }
            Effect::Notify(q) => {
                if let Some(outbox) = &self.deps.notices {
                    outbox.queue(self.deps.backplane.clone(), *q);
                }
            }
            Effect::SaveRecord { game_number, json } => {
                let bp = self.deps.backplane.clone();
                let id = self.host.id().to_string();
                actix::spawn(async move {
                    if let Err(e) = bp.save_record(&id, game_number, json).await {
                        tracing::warn!(room = %id, error = %e, "game record not stored");
                    }
                });
            }
            Effect::Count(c) => self.count(c),
            Effect::Latency(received) => self
                .deps
                .metrics
                .command_latency
                .observe(received.elapsed().as_secs_f64()),
            Effect::Stop => ctx.stop(),
        }
    }

    fn cancel(&mut self, timer: Timer, ctx: &mut Context<Self>) {
        if let Some(h) = self.timers[timer.index()].take() {
            ctx.cancel_future(h);
        }
    }

    fn fire(&mut self, timer: Timer, at: u64, ctx: &mut Context<Self>) {
        let now = now_ms();
        match timer {
            Timer::Room => self.host.tick(at, now, &mut self.fx),
            Timer::Idle => self.host.idle(now, &mut self.fx),
            Timer::Retry => self.host.retry(&mut self.fx),
            Timer::Grace => self.host.grace(now, &mut self.fx),
        }
        self.run(ctx);
    }

    /// A write, holding every other input until its result is in.
    fn write(&mut self, w: Write, ctx: &mut Context<Self>) {
        let bp = self.deps.backplane.clone();
        let id = self.host.id().to_string();
        let epoch = self.epoch;
        let started = Instant::now();
        let write = async move {
            match w {
                Write::Whole(stored) => bp.save_snapshot(&id, epoch, *stored).await,
                Write::Append(append) => bp.append_inputs(&id, epoch, append).await,
            }
        };
        ctx.wait(write.into_actor(self).map(move |res, act, ctx| {
            act.deps
                .metrics
                .snapshot_latency
                .observe(started.elapsed().as_secs_f64());
            act.host.written(res, now_ms(), &mut act.fx);
            act.run(ctx);
        }));
    }

    /// The drain's final snapshot and release.
    pub(super) fn handoff(
        &self,
        stored: StoredRoom,
        needs_owner: bool,
    ) -> ResponseActFuture<Self, ()> {
        let bp = self.deps.backplane.clone();
        let id = self.host.id().to_string();
        let epoch = self.epoch;
        Box::pin(
            async move {
                let saved = bp.save_snapshot(&id, epoch, stored).await;
                if let Err(e) = &saved {
                    tracing::warn!(room = %id, error = %e, "final snapshot refused");
                }
                let released = saved.is_ok() && bp.release(&id, epoch, needs_owner).await.is_ok();
                (saved.is_ok(), released)
            }
            .into_actor(self)
            .map(|(saved, released), act, ctx| {
                act.host.handed_off(saved, released, &mut act.fx);
                act.run(ctx);
            }),
        )
    }

    /// The idle room's release, holding every other input meanwhile.
    fn release_idle(&mut self, waits: bool, wake: Option<u64>, ctx: &mut Context<Self>) {
        let bp = self.deps.backplane.clone();
        let id = self.host.id().to_string();
        let epoch = self.epoch;
        let keep = if waits {
            self.deps.paused_forget_after
        } else {
            self.deps.forget_after
        };
        // Kept past its wake, whenever that is.
        let keep = keep + Duration::from_millis(wake.map_or(0, |w| w.saturating_sub(now_ms())));
        ctx.wait(
            async move { bp.release_idle(&id, epoch, keep, wake).await }
                .into_actor(self)
                .map(|res, act, ctx| {
                    act.host.idle_released(res, now_ms(), &mut act.fx);
                    act.run(ctx);
                }),
        );
    }

    /// A bot thinks off the actor, after the configured delay.
    fn think(&mut self, t: Think, ctx: &mut Context<Self>) {
        let Think {
            seat,
            level,
            need,
            fallback,
            seed,
            input,
        } = t;
        let mut brain = match self.brains.remove(&seat) {
            Some(b) if !fallback => b,
            _ if fallback => TabulaBots { step_by_step: true }.make(level, seed),
            _ => self.deps.bots.make(level, seed),
        };
        let delay = self.deps.bot_delay;
        let searches = self.deps.searches.clone();
        let game = game_label(self.host.room().config().options.game);
        let think = async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let t = Instant::now();
            let r = searches
                .run(move || {
                    let cmds = brain.act(&input);
                    (brain, cmds)
                })
                .await;
            (r, t.elapsed())
        };
        ctx.spawn(think.into_actor(self).map(move |(r, took), act, ctx| {
            act.deps
                .metrics
                .bot_think
                .with_label_values(&[game])
                .observe(took.as_secs_f64());
            let cmds = r.map(|(brain, cmds)| {
                act.brains.insert(seat, brain);
                cmds
            });
            act.host
                .bot_answered(seat, need, cmds, now_ms(), &mut act.fx);
            act.run(ctx);
        }));
    }

    /// A hint's rollouts off the actor.
    fn hint(&mut self, h: HintJob, ctx: &mut Context<Self>) {
        let HintJob {
            conn,
            seq,
            turn,
            rollouts,
            seed,
            scoring,
        } = h;
        // Waits for the node's search limit; cancelled (the asker left)
        // before it starts, it is never computed.
        let searches = self.deps.searches.clone();
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = cancel.clone();
        let think = async move {
            searches
                .run(move || hint_plays(&turn, scoring, rollouts, seed, &flag))
                .await
        };
        let started = Instant::now();
        let job = ctx.spawn(think.into_actor(self).map(move |plays, act, ctx| {
            act.hint_jobs.remove(&conn);
            if plays.is_some() {
                act.deps
                    .metrics
                    .command_latency
                    .observe(started.elapsed().as_secs_f64());
            }
            act.host.hint_answered(conn, seq, plays, &mut act.fx);
            act.run(ctx);
        }));
        self.hint_jobs.insert(conn, HintRun { job, cancel });
    }

    fn count(&self, c: Count) {
        let m = &self.deps.metrics;
        match c {
            Count::Command { kind, outcome } => {
                m.commands.with_label_values(&[kind, outcome]).inc();
            }
            Count::Fenced(op) => m.fenced.with_label_values(&[op]).inc(),
            Count::StoreError(op) => m.backplane_errors.with_label_values(&[op]).inc(),
            Count::Release(why) => m.releases.with_label_values(&[why]).inc(),
            Count::GameFinished(kind) => {
                let game = game_label(self.host.room().config().options.game);
                m.games_finished.with_label_values(&[game, &kind]).inc();
            }
        }
    }

    fn update_gauge(&mut self) {
        let room = self.host.room();
        let now = (
            game_label(room.config().options.game),
            phase_label(room.phase()),
        );
        if now != self.gauge {
            let m = &self.deps.metrics.rooms;
            m.with_label_values(&[self.gauge.0, self.gauge.1]).dec();
            m.with_label_values(&[now.0, now.1]).inc();
            self.gauge = now;
        }
    }
}

/// How long a room waits for the durable store's own write of a finished
/// game before it queues the game instead.
const STORE_WAIT: Duration = Duration::from_secs(2);

/// How long a room retries queuing a finished game (the backplane failing)
/// before it goes on and retries in the background.
const QUEUE_WAIT: Duration = Duration::from_secs(2);

/// Keeps a finished game (the [`crate::archiver::QueuedGame`] `entry`
/// under `key`) beyond this process, before its end is announced.
///
/// Where the backplane's archive queue outlives the process (Redis), the
/// game is queued there. Where it does not (the in-process backplane: a
/// single node), the game is written into the durable store itself (one
/// transaction; the store stores each game once, so the archiver meeting
/// it again stores nothing), and queued only when that fails: a store not
/// connected yet, an error, or no answer within [`STORE_WAIT`].
///
/// The queue is retried for [`QUEUE_WAIT`] (the room holding its inputs),
/// then in the background, for as long as this process lives.
pub(super) async fn keep_finished(
    bp: std::sync::Arc<dyn tabula_backplane::Backplane>,
    durable: std::sync::Arc<crate::archiver::Durable>,
    metrics: crate::metrics::Metrics,
    key: String,
    entry: String,
) {
    if !bp.queue_outlives_process()
        && let Ok(store) = durable.get()
    {
        let game = crate::archiver::finished_of(&entry);
        // A game that cannot be stored is queued: the archiver logs and
        // drops it as it does any other.
        if let Ok(game) = game {
            match tokio::time::timeout(STORE_WAIT, store.archive(&game)).await {
                Ok(Ok(done)) => {
                    let outcome = match done {
                        tabula_store::Archived::Stored => "stored",
                        tabula_store::Archived::AlreadyStored => "already_stored",
                    };
                    metrics.archived.with_label_values(&[outcome]).inc();
                    // Ratings wait for the archiver's next round.
                    if game.rated {
                        durable.wake();
                    }
                    return;
                }
                Ok(Err(e)) => {
                    metrics.store_errors.with_label_values(&["archive"]).inc();
                    tracing::warn!(key = %key, error = %e, "finished game not stored; queued instead");
                }
                Err(_) => {
                    metrics.store_errors.with_label_values(&["archive"]).inc();
                    tracing::warn!(key = %key, "finished game not stored in time; queued instead");
                }
            }
        }
    }
    let started = Instant::now();
    let mut wait = Duration::from_millis(100);
    while !queue_once(&*bp, &metrics, &key, &entry).await {
        if started.elapsed() + wait > QUEUE_WAIT {
            // The room goes on; the game is retried until the backplane
            // has it (a Redis restart, a passing fault).
            tracing::warn!(key = %key, "finished game still not queued; announced, retried in the background");
            actix::spawn(async move {
                loop {
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(5));
                    if queue_once(&*bp, &metrics, &key, &entry).await {
                        break;
                    }
                }
                durable.wake();
            });
            return;
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(5));
    }
    durable.wake();
}

/// One try at queuing a finished game; a failure is counted and logged.
async fn queue_once(
    bp: &dyn tabula_backplane::Backplane,
    metrics: &crate::metrics::Metrics,
    key: &str,
    entry: &str,
) -> bool {
    match bp.queue_archive(key, entry.to_string()).await {
        Ok(()) => true,
        Err(e) => {
            metrics
                .backplane_errors
                .with_label_values(&["queue_archive"])
                .inc();
            tracing::warn!(key = %key, error = %e, "finished game not queued yet; retrying");
            false
        }
    }
}
