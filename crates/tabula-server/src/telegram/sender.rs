//! The sender: every node drains the notice queue
//! ([`tabula_backplane::Notices`]) within Telegram's limits, as the
//! archiver drains the archive queue.
//!
//! Each due notice is taken by one node (and leaves the queue), checked
//! (the player started the bot, has not blocked it, wants the kind; a
//! "your turn" outside its game's quiet period; a waiting game still
//! waits; not expired), then sent once its chat's slot (one message per
//! `chat_interval_ms`) and a send of the current tenth of a second
//! (`messages_per_sec` for the whole bot, a tenth of it per tenth) are
//! claimed, both across every node; a send whose tenth ended before it
//! could leave waits instead (`late`). A 429 stops
//! every node's sends for its `retry_after` and puts the notice back; a
//! 5xx or no answer puts it back with a growing delay; a 403 marks the
//! player as having blocked the bot; anything else drops it.
//!
//! Delivery is at most once to the person: a notice leaves the queue
//! before it is sent, so a node killed during the HTTP call loses that
//! one notice rather than sending it twice.

use std::sync::Arc;
use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::methods::SendMessageParams;
use frankenstein::types::{InlineKeyboardMarkup, ReplyMarkup};
use futures_util::StreamExt;
use tabula_backplane::Backplane;

use super::api::Refusal;
use super::notice::{Notice, NoticeKind, telegram_user};
use super::retry::{Fate, claim_bot_send, late, later, next_slot};
use super::{AppPlace, Telegram, users};
use crate::AppState;
use crate::time::now_ms;

/// Sends under way at once on one node.
const CONCURRENCY: usize = 16;

/// With nothing due, the queue is looked at again after this (a notice
/// queued on this node rings the bell sooner).
const IDLE_POLL: Duration = Duration::from_millis(200);

/// Runs until the node drains.
pub async fn run(state: Arc<AppState>, tg: Arc<Telegram>) {
    let mut shutdown = state.shutdown_rx.clone();
    let bp = state.backplane.clone();
    let mut last_backlog = 0u64;
    loop {
        if *shutdown.borrow() {
            return;
        }
        let now = now_ms();
        if now.saturating_sub(last_backlog) >= 1000 {
            last_backlog = now;
            backlog(&*bp, &tg, now).await;
        }
        let paused = bp.sends_paused_until().await.unwrap_or(0);
        let wait = if paused > now {
            Duration::from_millis(paused - now)
        } else {
            // One slot's worth of sends at a time: a notice taken beyond
            // what the bot may send now would only be put back.
            let per_sec = tg.settings.messages_per_sec;
            let (_, allowed) = tabula_backplane::send_slot(per_sec);
            match bp.take_notices(now, allowed.max(1) as usize).await {
                Ok(batch) if !batch.is_empty() => {
                    let busy = std::sync::atomic::AtomicBool::new(false);
                    futures_util::stream::iter(batch)
                        .for_each_concurrent(CONCURRENCY, |(id, entry)| {
                            let (bp, tg, busy) = (bp.clone(), tg.clone(), &busy);
                            async move {
                                if handle(&*bp, &tg, id, entry).await == Some("bot_busy") {
                                    busy.store(true, std::sync::atomic::Ordering::Relaxed);
                                }
                            }
                        })
                        .await;
                    if !busy.load(std::sync::atomic::Ordering::Relaxed) {
                        continue;
                    }
                    // This slot's sends are spent (by other nodes too):
                    // the next one.
                    let now = now_ms();
                    Duration::from_millis(next_slot(now, per_sec).saturating_sub(now))
                }
                Ok(_) => IDLE_POLL,
                Err(e) => {
                    tracing::warn!(error = %e, "notice queue unreachable");
                    Duration::from_secs(1)
                }
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = tg.outbox.bell.notified() => {}
            _ = shutdown.changed() => {}
        }
    }
}

/// The queue's length and lateness, for the metrics.
async fn backlog(bp: &dyn Backplane, tg: &Telegram, now: u64) {
    if let Ok(b) = bp.notice_backlog().await {
        let m = &tg.outbox.metrics;
        m.backlog.set(i64::try_from(b.notices).unwrap_or(i64::MAX));
        let late = b
            .earliest_due_ms
            .map(|due| now.saturating_sub(due) as f64 / 1000.0)
            .unwrap_or(0.0);
        m.oldest_due.set(late);
    }
}

/// Delivers one taken notice and counts what became of it; the reason
/// when it was put back.
async fn handle(
    bp: &dyn Backplane,
    tg: &Telegram,
    id: String,
    entry: String,
) -> Option<&'static str> {
    if id.starts_with(super::group_post::PREFIX) {
        return super::group_send::handle(bp, tg, id, entry).await;
    }
    let m = &tg.outbox.metrics;
    let mut notice: Notice = match serde_json::from_str(&entry) {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!(%id, error = %e, "unreadable notice dropped");
            m.refused.with_label_values(&["corrupt"]).inc();
            return None;
        }
    };
    let fate = deliver(bp, tg, &mut notice).await;
    let later = match fate {
        Fate::Later(_, why) => Some(why),
        _ => None,
    };
    match fate {
        Fate::Sent => {
            m.sent.with_label_values(&[notice.kind.name()]).inc();
            let delay = now_ms().saturating_sub(notice.caused_ms.max(notice.due_ms));
            m.delay.observe(delay as f64 / 1000.0);
        }
        Fate::Dropped(why) => {
            m.refused.with_label_values(&[why]).inc();
        }
        Fate::Later(due, why) => {
            m.refused.with_label_values(&[why]).inc();
            let entry = serde_json::to_string(&notice).unwrap_or(entry);
            if let Err(e) = bp.requeue_notice(&id, entry, due).await {
                tracing::warn!(%id, error = %e, "notice could not be put back; lost");
            }
        }
    }
    later
}

/// Checks, claims the limits and sends one notice.
pub async fn deliver(bp: &dyn Backplane, tg: &Telegram, n: &mut Notice) -> Fate {
    let now = now_ms();
    let s = &tg.settings;
    if now > n.due_ms.max(n.caused_ms).saturating_add(s.notice_ttl_ms) {
        return Fate::Dropped("expired");
    }
    if !n.kind.to_player() {
        return challenge_over(bp, tg, n, now).await;
    }
    let Some(chat_user) = telegram_user(&n.player) else {
        return Fate::Dropped("not_started");
    };
    let user = match users::load(bp, &n.player).await {
        Ok(Some(u)) => u,
        Ok(None) => return Fate::Dropped("not_started"),
        Err(_) => return Fate::Later(now + 1000, "unavailable"),
    };
    if user.blocked {
        return Fate::Dropped("blocked");
    }
    if !user.wants(n.kind) {
        return Fate::Dropped("opted_out");
    }
    if matches!(n.kind, NoticeKind::BotGameWaiting | NoticeKind::TimeLow)
        && !still_waiting(bp, n).await
    {
        return Fate::Dropped("stale");
    }
    // The text first (it reads the opponent's profile): what follows the
    // slot claims is only the send, so a send lands in the second whose
    // slot it claimed even on a busy node.
    let text = render(bp, n, user.lang).await;
    // The bot's sends (per slot of a second), across nodes; before the
    // chat's, so a chat's slot is not claimed for a send the bot may not
    // make yet.
    let slot_end = match claim_bot_send(bp, s.messages_per_sec).await {
        Ok(end) => end,
        Err(fate) => return fate,
    };
    let now = now_ms();
    // One message per chat per interval, across nodes; claimed a tenth
    // longer, so that two sends' different trips to Telegram never bring
    // them closer than the interval.
    let interval = Duration::from_millis(s.chat_interval_ms + s.chat_interval_ms / 10);
    match bp
        .claim_slot(&format!("chat:{}", user.chat), interval)
        .await
    {
        Ok(true) => {}
        Ok(false) => return Fate::Later(now + s.chat_interval_ms / 2, "chat_busy"),
        Err(_) => return Fate::Later(now + 1000, "unavailable"),
    }
    if n.kind == NoticeKind::YourTurn && !n.quiet_claimed {
        let quiet = Duration::from_millis(s.turn_quiet_ms.max(1));
        match bp
            .claim_slot(&format!("quiet:{}:{}", n.room, n.player), quiet)
            .await
        {
            Ok(true) => n.quiet_claimed = true,
            Ok(false) => return Fate::Dropped("quiet"),
            Err(_) => return Fate::Later(now + 1000, "unavailable"),
        }
    }
    let place = match n.kind {
        NoticeKind::GameEnded => match n.outcome {
            Some((_, number)) => AppPlace::Replay(n.room.clone(), number),
            None => AppPlace::Room(n.room.clone()),
        },
        _ => AppPlace::Room(n.room.clone()),
    };
    if let Some(fate) = late(slot_end, now_ms() + interval.as_millis() as u64) {
        return fate;
    }
    let button = tg.app_button(user.lang.open_game_for(n.kind), &place);
    let params = SendMessageParams::builder()
        .chat_id(user.chat)
        .text(text)
        .maybe_reply_markup(button.map(|b| {
            ReplyMarkup::InlineKeyboardMarkup(InlineKeyboardMarkup {
                inline_keyboard: vec![vec![b]],
            })
        }))
        .build();
    let res = tg.api.send_message(&params).await;
    let m = &tg.outbox.metrics;
    match res {
        Ok(_) => {
            m.api_calls.with_label_values(&["sendMessage", "ok"]).inc();
            Fate::Sent
        }
        Err(e) => {
            m.api_calls
                .with_label_values(&["sendMessage", e.reason()])
                .inc();
            match e.refusal() {
                Refusal::Blocked => {
                    let mut u = user;
                    u.blocked = true;
                    if let Err(e) = users::save(bp, &n.player, &u).await {
                        tracing::warn!(player = %n.player, error = %e, "blocked mark not stored");
                    }
                    tracing::info!(player = %n.player, chat = chat_user, "the player blocked the bot");
                    Fate::Dropped("blocked")
                }
                Refusal::Permanent => {
                    tracing::warn!(player = %n.player, error = %e, "notice refused by Telegram");
                    Fate::Dropped("bad_request")
                }
                other => later(bp, &mut n.attempts, other).await,
            }
        }
    }
}

/// A challenge's result, edited into its message in the chat where it was
/// posted (within the bot's sends of the second).
async fn challenge_over(bp: &dyn Backplane, tg: &Telegram, n: &mut Notice, now: u64) -> Fate {
    let message = match bp.note(&format!("challenge:{}", n.room)).await {
        Ok(Some(m)) => m,
        Ok(None) => return Fate::Dropped("stale"),
        Err(_) => return Fate::Later(now + 1000, "unavailable"),
    };
    // The chat's language is not known: the challenger's, from his record.
    let lang = users::load(bp, &n.player)
        .await
        .ok()
        .flatten()
        .map(|u| u.lang)
        .unwrap_or_default();
    let name = |id: &str| {
        let id = id.to_string();
        async move {
            let p = bp.profile(&id).await.unwrap_or_default();
            crate::http::profiles::public(&id, &p).name
        }
    };
    let winner = name(&n.player).await;
    let loser = match &n.opponent {
        Some(o) => name(o).await,
        None => lang.computer().to_string(),
    };
    let drawn = matches!(n.outcome, Some((super::notice::Outcome::Drawn, _)));
    let text = lang.challenge_over(&winner, &loser, n.game, drawn);
    let number = n.outcome.map_or(1, |o| o.1);
    let button = tg.link_button(
        lang.open_replay(),
        &AppPlace::Replay(n.room.clone(), number),
    );
    let params = frankenstein::methods::EditMessageTextParams::builder()
        .inline_message_id(message)
        .text(text)
        .maybe_reply_markup(button.map(|b| InlineKeyboardMarkup {
            inline_keyboard: vec![vec![b]],
        }))
        .build();
    let per_sec = tg.settings.messages_per_sec;
    match claim_bot_send(bp, per_sec).await {
        Ok(end) => {
            if let Some(fate) = late(end, next_slot(now_ms(), per_sec)) {
                return fate;
            }
        }
        Err(fate) => return fate,
    }
    let m = &tg.outbox.metrics;
    match tg.api.edit_message_text(&params).await {
        Ok(_) => {
            m.api_calls
                .with_label_values(&["editMessageText", "ok"])
                .inc();
            Fate::Sent
        }
        Err(e) => {
            m.api_calls
                .with_label_values(&["editMessageText", e.reason()])
                .inc();
            later(bp, &mut n.attempts, e.refusal()).await
        }
    }
}

/// A waiting game's notice: the game is still listed for the player,
/// paused since the same time (a correspondence game: the same turn still
/// runs).
async fn still_waiting(bp: &dyn Backplane, n: &Notice) -> bool {
    let Ok(listed) = bp.unfinished(&n.player).await else {
        return true;
    };
    listed.iter().any(|json| {
        serde_json::from_str::<tabula_protocol::http::UnfinishedGame>(json)
            .is_ok_and(|g| g.room_id == n.room && Some(g.paused_at) == n.paused_at)
    })
}

/// The notice's text in `lang`, with the opponent's name as he shows it.
async fn render(bp: &dyn Backplane, n: &Notice, lang: super::texts::Lang) -> String {
    let opponent = match &n.opponent {
        Some(id) => match bp.profile(id).await {
            Ok(p) => crate::http::profiles::public(id, &p).name,
            Err(_) => crate::http::profiles::public(id, &Default::default()).name,
        },
        None => lang.computer().to_string(),
    };
    let left = n
        .deadline_ms
        .map(|d| d.saturating_sub(crate::time::now_ms()));
    lang.notice(n.kind, n.game, &opponent, n.outcome.map(|o| o.0), left)
}
