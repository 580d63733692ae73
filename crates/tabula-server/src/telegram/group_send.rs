//! The bot's posts in a group as they leave the queue: each taken post
//! rendered in the group's language and sent (or its live top edited),
//! and what became of it counted ([`handle`], called by the sender for
//! the ids of [`super::group_post::PREFIX`]). What decides the posts, and
//! why each is queued once: [`super::groups`].

use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::methods::{EditMessageTextParams, SendMessageParams};
use frankenstein::types::{InlineKeyboardButton, InlineKeyboardMarkup, ReplyMarkup};
use tabula_backplane::Backplane;
use tabula_tournament::Format;

use super::api::Refusal;
use super::group_post::{GroupPost, Post};
use super::retry::{Fate, later};
use super::{AppPlace, Telegram};
use crate::time::now_ms;

/// Delivers one taken group post and counts what became of it (the
/// sender's [`super::sender::handle`] for ids of [`super::group_post::PREFIX`]); the reason
/// when it was put back.
pub async fn handle(
    bp: &dyn Backplane,
    tg: &Telegram,
    id: String,
    entry: String,
) -> Option<&'static str> {
    let m = &tg.outbox.metrics;
    let mut p: GroupPost = match serde_json::from_str(&entry) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(%id, error = %e, "unreadable group post dropped");
            m.group_failed.with_label_values(&["corrupt"]).inc();
            return None;
        }
    };
    match deliver(bp, tg, &mut p).await {
        Fate::Sent => {
            m.group_sent.with_label_values(&[p.post.name()]).inc();
            None
        }
        Fate::Dropped(why) => {
            tracing::warn!(%id, reason = why, "group post not sent");
            m.group_failed.with_label_values(&[why]).inc();
            None
        }
        Fate::Later(due, why) => {
            m.group_failed.with_label_values(&[why]).inc();
            let entry = serde_json::to_string(&p).unwrap_or(entry);
            if let Err(e) = bp.requeue_notice(&id, entry, due).await {
                tracing::warn!(%id, error = %e, "group post could not be put back; lost");
            }
            Some(why)
        }
    }
}

/// The name of player `id` as posts show it.
async fn name(bp: &dyn Backplane, id: &str) -> String {
    let p = bp.profile(id).await.unwrap_or_default();
    crate::http::profiles::public(id, &p).name
}

/// A post's text, names read now.
pub async fn render(bp: &dyn Backplane, p: &GroupPost, now: u64) -> String {
    let lang = p.lang;
    match &p.post {
        Post::Announce {
            format,
            match_points,
            start_at_ms,
            creator,
        } => lang.tournament_announce(
            creator,
            p.game,
            format,
            *match_points,
            start_at_ms.saturating_sub(now),
        ),
        Post::Started { players } => lang.arena_started(*players),
        Post::Round {
            round,
            pairings,
            byes,
        } => {
            let mut pairs = Vec::with_capacity(pairings.len());
            for (w, b) in pairings {
                pairs.push((name(bp, w).await, name(bp, b).await));
            }
            let mut bye_names = Vec::with_capacity(byes.len());
            for b in byes {
                bye_names.push(name(bp, b).await);
            }
            lang.round(*round, &pairs, &bye_names)
        }
        Post::Top { rows } => {
            let mut named = Vec::with_capacity(rows.len());
            for (id, points) in rows {
                named.push((name(bp, id).await, *points));
            }
            lang.arena_top(&named)
        }
        Post::Final { format, rows } => {
            let mut named = Vec::with_capacity(rows.len());
            for (id, points) in rows {
                named.push((name(bp, id).await, points_shown(format, *points)));
            }
            lang.tournament_final(&named)
        }
        Post::Cancelled => lang.tournament_cancelled().to_string(),
    }
}

/// Points as the final standings show them: a knockout's places need
/// none, a Swiss counts half-points, an arena whole ones.
pub fn points_shown(format: &Format, points: u32) -> String {
    match format {
        Format::Knockout => String::new(),
        Format::Swiss { .. } => match (points / 2, points % 2) {
            (0, 1) => "½".into(),
            (n, 1) => format!("{n}½"),
            (n, _) => n.to_string(),
        },
        Format::Arena { .. } => points.to_string(),
    }
}

/// The buttons under a post: Join (a callback the bot answers) and the
/// Mini App's `t.me` link to the tournament, on the announcement; the
/// link alone on the others.
fn markup(tg: &Telegram, p: &GroupPost) -> Option<InlineKeyboardMarkup> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    if matches!(p.post, Post::Announce { .. }) {
        rows.push(vec![
            InlineKeyboardButton::builder()
                .text(p.lang.join_button())
                .callback_data(format!("tj:{}", p.tournament))
                .build(),
        ]);
    }
    if !matches!(p.post, Post::Cancelled)
        && let Some(b) = tg.link_button(
            p.lang.open_tournament(),
            &AppPlace::Tournament(p.tournament.clone()),
        )
    {
        rows.push(vec![b]);
    }
    (!rows.is_empty()).then_some(InlineKeyboardMarkup {
        inline_keyboard: rows,
    })
}

/// The note that keeps an arena's top message (its id in the group).
fn top_note(tournament: &str) -> String {
    format!("gtop:{tournament}")
}

/// Checks, claims the limits, and sends (or, for an arena's top after
/// its first, edits) one post.
pub async fn deliver(bp: &dyn Backplane, tg: &Telegram, p: &mut GroupPost) -> Fate {
    let now = now_ms();
    let s = &tg.settings;
    if now > p.caused_ms.saturating_add(s.notice_ttl_ms) {
        return Fate::Dropped("expired");
    }
    let top_message = if matches!(p.post, Post::Top { .. }) {
        match bp.note(&top_note(&p.tournament)).await {
            Ok(m) => m.and_then(|m| m.parse::<i32>().ok()),
            Err(_) => return Fate::Later(now + 1000, "unavailable"),
        }
    } else {
        None
    };
    let text = render(bp, p, now).await;
    let slot_end = match super::retry::claim_bot_send(bp, s.messages_per_sec).await {
        Ok(end) => end,
        Err(fate) => return fate,
    };
    let now = now_ms();
    let interval = Duration::from_millis(s.group_interval_ms + s.group_interval_ms / 10);
    match bp.claim_slot(&format!("chat:{}", p.chat), interval).await {
        Ok(true) => {}
        Ok(false) => return Fate::Later(now + s.group_interval_ms / 2 + 1, "chat_busy"),
        Err(_) => return Fate::Later(now + 1000, "unavailable"),
    }
    let markup = markup(tg, p);
    if let Some(fate) = super::retry::late(slot_end, now_ms() + interval.as_millis() as u64) {
        return fate;
    }
    let m = &tg.outbox.metrics;
    let (method, res) = match top_message {
        Some(message_id) => {
            let params = EditMessageTextParams::builder()
                .chat_id(p.chat)
                .message_id(message_id)
                .text(text)
                .maybe_reply_markup(markup)
                .build();
            (
                "editMessageText",
                tg.api.edit_message_text(&params).await.map(|_| None),
            )
        }
        None => {
            let params = SendMessageParams::builder()
                .chat_id(p.chat)
                .text(text)
                .maybe_reply_markup(markup.map(ReplyMarkup::InlineKeyboardMarkup))
                .build();
            (
                "sendMessage",
                tg.api
                    .send_message(&params)
                    .await
                    .map(|r| Some(r.result.message_id)),
            )
        }
    };
    match res {
        Ok(sent) => {
            m.api_calls.with_label_values(&[method, "ok"]).inc();
            if let (Post::Top { .. }, Some(message_id)) = (&p.post, sent) {
                // Later tops edit this message.
                let keep = Duration::from_millis(s.notice_ttl_ms.saturating_add(86_400_000));
                if let Err(e) = bp
                    .set_note(&top_note(&p.tournament), Some(message_id.to_string()), keep)
                    .await
                {
                    tracing::warn!(tournament = %p.tournament, error = %e, "arena top message not kept");
                }
            }
            Fate::Sent
        }
        Err(e) => {
            m.api_calls.with_label_values(&[method, e.reason()]).inc();
            match e.refusal() {
                // The bot was removed from the group, or the group is gone.
                Refusal::Blocked => Fate::Dropped("blocked"),
                Refusal::Permanent => {
                    tracing::warn!(chat = p.chat, error = %e, "group post refused by Telegram");
                    Fate::Dropped("bad_request")
                }
                // A 429 or a passing fault: the notices' rule.
                other => later(bp, &mut p.attempts, other).await,
            }
        }
    }
}
