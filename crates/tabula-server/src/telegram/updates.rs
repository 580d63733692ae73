//! What the bot does with an update the webhook accepted: commands in a
//! private chat (`/start` with or without a payload, `/play`, `/games`,
//! `/stats`, `/settings`, `/help`) and the taps on its buttons.
//!
//! [`parse_command`] and [`payload`] are pure; the handlers read what they
//! need, then answer through the Bot API.

use std::sync::Arc;

use frankenstein::AsyncTelegramApi;
use frankenstein::methods::EditMessageReplyMarkupParams;
use frankenstein::types::{
    ChatType, InlineKeyboardButton, InlineKeyboardMarkup, Message, ReplyMarkup, User,
};
use frankenstein::updates::{Update, UpdateContent};
use tabula_protocol::http::{CreateRoom, UnfinishedGame};
use tabula_room::{GameKind, PlayerId};

use super::notice::NoticeKind;
use super::reply::{answer_callback, send};
use super::texts::Lang;
use super::users::{self, BotUser};
use super::{AppPlace, Telegram};
use crate::AppState;

/// A command the bot knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BotCommand {
    /// `/start`, with its deep-link payload.
    Start(Option<Payload>),
    /// `/play`.
    Play,
    /// `/games`.
    Games,
    /// `/stats`.
    Stats,
    /// `/settings`.
    Settings,
    /// `/help`.
    Help,
    /// `/tournament <format> <game> <start> [rounds | length]`, in a group
    /// (its arguments, read by [`super::groups::parse_tournament`]).
    Tournament(String),
    /// Anything else.
    Unknown,
}

/// What a `/start` deep link opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// A room, by invite code or id.
    Room(String),
    /// A finished game's replay: `replay-<room>-<n>`.
    Replay(String, u32),
    /// A game kind: the levels to play it at.
    Game(GameKind),
}

/// Reads a deep link's payload (Telegram allows `A-Z a-z 0-9 _ -`, up to
/// 64 characters); `None` when it is not one the bot makes.
pub fn payload(p: &str) -> Option<Payload> {
    if p.is_empty()
        || p.len() > 64
        || !p
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return None;
    }
    if let Some(rest) = p.strip_prefix("replay-") {
        let (room, n) = rest.rsplit_once('-')?;
        let n: u32 = n.parse().ok().filter(|n| *n >= 1)?;
        if room.is_empty() {
            return None;
        }
        return Some(Payload::Replay(room.to_string(), n));
    }
    match p {
        "long_nardy" => Some(Payload::Game(GameKind::LongNardy)),
        "backgammon" | "short_nardy" => Some(Payload::Game(GameKind::Backgammon)),
        "thud" => Some(Payload::Game(GameKind::Thud)),
        _ => Some(Payload::Room(p.to_string())),
    }
}

/// Reads a message's command (`/play`, `/play@tabula_bot`, `/start abc`);
/// `None` for text that is not one. A command addressed to another bot
/// (`@other_bot`) is not ours.
pub fn parse_command(text: &str, me: &str) -> Option<BotCommand> {
    let text = text.trim();
    let rest = text.strip_prefix('/')?;
    let (head, arg) = match rest.split_once(char::is_whitespace) {
        Some((h, a)) => (h, a.trim()),
        None => (rest, ""),
    };
    let (name, to) = match head.split_once('@') {
        Some((n, b)) => (n, Some(b)),
        None => (head, None),
    };
    if let Some(b) = to
        && !me.is_empty()
        && !b.eq_ignore_ascii_case(me)
    {
        return None;
    }
    Some(match name.to_ascii_lowercase().as_str() {
        "start" => BotCommand::Start(if arg.is_empty() { None } else { payload(arg) }),
        "play" => BotCommand::Play,
        "games" => BotCommand::Games,
        "stats" => BotCommand::Stats,
        "settings" => BotCommand::Settings,
        "help" => BotCommand::Help,
        "tournament" => BotCommand::Tournament(arg.to_string()),
        _ => BotCommand::Unknown,
    })
}

/// Acts on one update (already counted and deduplicated by the webhook).
pub async fn handle(state: Arc<AppState>, tg: Arc<Telegram>, update: Update) {
    match update.content {
        UpdateContent::Message(m)
            if matches!(m.chat.type_field, ChatType::Group | ChatType::Supergroup) =>
        {
            on_group_message(state, &tg, *m).await
        }
        UpdateContent::Message(m) => on_message(&state, &tg, *m).await,
        UpdateContent::CallbackQuery(q) => on_callback(&state, &tg, *q).await,
        UpdateContent::InlineQuery(q) => super::challenge::on_inline_query(&tg, q).await,
        _ => {}
    }
}

/// The player id of a Telegram user.
fn player_of(u: &User) -> PlayerId {
    PlayerId::new(format!("tg:{}", u.id))
}

fn keyboard(rows: Vec<Vec<InlineKeyboardButton>>) -> Option<ReplyMarkup> {
    let rows: Vec<_> = rows.into_iter().filter(|r| !r.is_empty()).collect();
    if rows.is_empty() {
        None
    } else {
        Some(ReplyMarkup::InlineKeyboardMarkup(InlineKeyboardMarkup {
            inline_keyboard: rows,
        }))
    }
}

fn callback(text: &str, data: String) -> InlineKeyboardButton {
    InlineKeyboardButton::builder()
        .text(text)
        .callback_data(data)
        .build()
}

/// A message in a group: `/tournament` (addressed to this bot, or to no
/// bot) creates a tournament for the group; the rest is not the bot's.
async fn on_group_message(state: Arc<AppState>, tg: &Telegram, m: Message) {
    let (Some(text), Some(from)) = (m.text.as_deref(), m.from.as_deref()) else {
        return;
    };
    if from.is_bot {
        return;
    }
    let me = tg.username.get().map(String::as_str).unwrap_or("");
    if let Some(BotCommand::Tournament(args)) = parse_command(text, me) {
        super::groups::on_command(state, tg, &m, from, &args).await;
    }
}

async fn on_message(state: &AppState, tg: &Telegram, m: Message) {
    let (Some(text), Some(from)) = (m.text.as_deref(), m.from.as_deref()) else {
        return;
    };
    // Commands in private chats; in groups the bot speaks through inline
    // challenges only.
    if m.chat.type_field != ChatType::Private || from.is_bot {
        return;
    }
    let me = tg.username.get().map(String::as_str).unwrap_or("");
    let cmd = parse_command(text, me).unwrap_or(BotCommand::Unknown);
    let lang = Lang::of(from.language_code.as_deref());
    let chat = m.chat.id;
    let player = player_of(from);
    let bp = &*state.backplane;
    // The player's record: written at /start (which is what lets the bot
    // message him), and his language kept up to date.
    let known = users::load(bp, &player.0).await.ok().flatten();
    if matches!(cmd, BotCommand::Start(_)) || known.as_ref().is_some_and(|u| u.lang != lang) {
        let mut u = known.clone().unwrap_or(BotUser {
            chat,
            lang,
            off: Vec::new(),
            blocked: false,
        });
        u.chat = chat;
        u.lang = lang;
        u.blocked = false;
        if let Err(e) = users::save(bp, &player.0, &u).await {
            tracing::warn!(player = %player.0, error = %e, "bot user not stored");
        }
    }
    match cmd {
        BotCommand::Start(None) => {
            let button = tg.app_button(lang.play_button(), &AppPlace::Lobby);
            send(
                tg,
                chat,
                lang.welcome(&from.first_name),
                keyboard(vec![button.into_iter().collect()]),
            )
            .await;
        }
        BotCommand::Start(Some(Payload::Room(key))) => {
            let button = tg.app_button(lang.open_game(), &AppPlace::Room(key));
            send(
                tg,
                chat,
                lang.start_room().into(),
                keyboard(vec![button.into_iter().collect()]),
            )
            .await;
        }
        BotCommand::Start(Some(Payload::Replay(room, n))) => {
            let button = tg.app_button(lang.open_replay(), &AppPlace::Replay(room, n));
            send(
                tg,
                chat,
                lang.start_replay().into(),
                keyboard(vec![button.into_iter().collect()]),
            )
            .await;
        }
        BotCommand::Start(Some(Payload::Game(g))) => {
            send(
                tg,
                chat,
                lang.choose_game().into(),
                play_keyboard(lang, &[g]),
            )
            .await;
        }
        BotCommand::Play => {
            let all = [GameKind::LongNardy, GameKind::Backgammon, GameKind::Thud];
            send(
                tg,
                chat,
                lang.choose_game().into(),
                play_keyboard(lang, &all),
            )
            .await;
        }
        BotCommand::Games => games(state, tg, chat, &player, lang).await,
        BotCommand::Stats => stats(state, tg, chat, &player, lang).await,
        BotCommand::Settings => {
            let u = known.unwrap_or(BotUser {
                chat,
                lang,
                off: Vec::new(),
                blocked: false,
            });
            send(tg, chat, lang.settings().into(), settings_keyboard(&u)).await;
        }
        BotCommand::Help => send(tg, chat, lang.help().into(), None).await,
        BotCommand::Tournament(_) => {
            send(tg, chat, lang.tournament_group_only().into(), None).await
        }
        BotCommand::Unknown => send(tg, chat, lang.unknown().into(), None).await,
    }
}

/// The game's wire name in callback data.
fn game_code(g: GameKind) -> &'static str {
    match g {
        GameKind::LongNardy => "long_nardy",
        GameKind::Backgammon => "backgammon",
        GameKind::Thud => "thud",
    }
}

/// One row per game: its three levels against the computer, and a quick
/// match with a person (which opens the lobby).
fn play_keyboard(lang: Lang, games: &[GameKind]) -> Option<ReplyMarkup> {
    let mut rows = Vec::new();
    for g in games {
        rows.push(vec![callback(
            lang.game(*g),
            format!("play:{}:", game_code(*g)),
        )]);
        rows.push(
            ["easy", "medium", "hard"]
                .iter()
                .map(|l| callback(lang.level(l), format!("play:{}:{l}", game_code(*g))))
                .collect(),
        );
    }
    keyboard(rows)
}

/// One button per notice kind, ✅ on, ❌ off; a tap toggles it.
fn settings_keyboard(u: &BotUser) -> Option<ReplyMarkup> {
    let rows = NoticeKind::ALL
        .iter()
        .map(|k| {
            let mark = if u.wants(*k) { "✅" } else { "❌" };
            vec![callback(
                &format!("{mark} {}", u.lang.kind(*k)),
                format!("set:{}", k.name()),
            )]
        })
        .collect();
    keyboard(rows)
}

async fn games(state: &AppState, tg: &Telegram, chat: i64, player: &PlayerId, lang: Lang) {
    let list = match state.backplane.unfinished(&player.0).await {
        Ok(l) => l,
        Err(_) => return send(tg, chat, lang.unavailable().into(), None).await,
    };
    let mut games: Vec<UnfinishedGame> = list
        .iter()
        .filter_map(|j| serde_json::from_str(j).ok())
        .collect();
    if games.is_empty() {
        return send(tg, chat, lang.no_games().into(), None).await;
    }
    // His turn first (the nearest deadline first), then the newest.
    games.sort_by_key(|g| {
        let his = g.bot.is_some() || g.turn == Some(g.your_seat);
        (
            !his,
            g.deadline.unwrap_or(u64::MAX),
            std::cmp::Reverse(g.paused_at),
        )
    });
    let now = crate::time::now_ms();
    let mut text = lang.your_games().to_string();
    let mut rows = Vec::new();
    for g in &games {
        let (opponent, yours, left) = if g.bot.is_some() {
            // A game against the computer waiting for him is always his.
            (lang.computer().to_string(), Some(true), None)
        } else {
            let name = match &g.opponent {
                Some(id) => {
                    let p = state.backplane.profile(id).await.unwrap_or_default();
                    crate::http::profiles::public(id, &p).name
                }
                None => lang.nobody_yet().to_string(),
            };
            let yours = g.turn.map(|t| t == g.your_seat);
            (name, yours, g.deadline.map(|d| d.saturating_sub(now)))
        };
        text.push('\n');
        text.push_str(&lang.game_line(g.game, &opponent, yours, left));
        if let Some(b) = tg.app_button(
            &format!("{} · {}", lang.open_game(), lang.game(g.game)),
            &AppPlace::Room(g.room_id.clone()),
        ) {
            rows.push(vec![b]);
        }
    }
    send(tg, chat, text, keyboard(rows)).await;
}

async fn stats(state: &AppState, tg: &Telegram, chat: i64, player: &PlayerId, lang: Lang) {
    let Ok(st) = crate::http::players::stats_of(state, &player.0).await else {
        return send(tg, chat, lang.unavailable().into(), None).await;
    };
    if st.games == 0 {
        return send(tg, chat, lang.no_stats().into(), None).await;
    }
    let ratings = match state.durable.get() {
        Ok(store) => store.ratings(&player.0).await.unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let mut lines = Vec::new();
    for (g, s) in &st.by_game {
        let rating = ratings.iter().find(|(k, _)| k == g).map(|(_, r)| r.rating);
        lines.push(lang.stats_line(*g, u64::from(s.games), u64::from(s.wins), rating));
    }
    if lines.is_empty() {
        lines.push(lang.stats_line(
            GameKind::LongNardy,
            u64::from(st.games),
            u64::from(st.wins),
            None,
        ));
    }
    send(tg, chat, lines.join("\n"), None).await;
}

async fn on_callback(state: &AppState, tg: &Telegram, q: frankenstein::types::CallbackQuery) {
    let data = q.data.clone().unwrap_or_default();
    let lang = Lang::of(q.from.language_code.as_deref());
    let player = player_of(&q.from);
    let bp = &*state.backplane;
    if data.starts_with("ch:") {
        return super::challenge::on_accept(state, tg, &q, &data).await;
    }
    if let Some(tournament) = data.strip_prefix("tj:") {
        return super::groups::on_join(state, tg, &q, tournament).await;
    }
    if let Some(kind) = data.strip_prefix("set:").and_then(NoticeKind::parse) {
        let mut u = users::load(bp, &player.0)
            .await
            .ok()
            .flatten()
            .unwrap_or(BotUser {
                chat: i64::try_from(q.from.id).unwrap_or_default(),
                lang,
                off: Vec::new(),
                blocked: false,
            });
        u.toggle(kind);
        u.lang = lang;
        if users::save(bp, &player.0, &u).await.is_err() {
            return answer_callback(tg, &q.id, Some(lang.unavailable())).await;
        }
        answer_callback(tg, &q.id, Some(lang.saved())).await;
        if let Some(frankenstein::types::MaybeInaccessibleMessage::Message(m)) = &q.message {
            let markup = match settings_keyboard(&u) {
                Some(ReplyMarkup::InlineKeyboardMarkup(k)) => Some(k),
                _ => None,
            };
            let params = EditMessageReplyMarkupParams::builder()
                .chat_id(m.chat.id)
                .message_id(m.message_id)
                .maybe_reply_markup(markup)
                .build();
            if let Err(e) = tg.api.edit_message_reply_markup(&params).await {
                tracing::warn!(error = %e, "settings keyboard not updated");
            }
        }
        return;
    }
    if let Some(rest) = data.strip_prefix("play:") {
        let (game, level) = rest.split_once(':').unwrap_or((rest, ""));
        let Some(Payload::Game(g)) = payload(game) else {
            return answer_callback(tg, &q.id, None).await;
        };
        let chat = i64::try_from(q.from.id).unwrap_or_default();
        answer_callback(tg, &q.id, None).await;
        if level.is_empty() {
            // With a person: the lobby, where quick match and invites are.
            let button = tg.app_button(lang.play_button(), &AppPlace::Lobby);
            return send(
                tg,
                chat,
                lang.game(g).to_string(),
                keyboard(vec![button.into_iter().collect()]),
            )
            .await;
        }
        match new_bot_room(state, &player, g, level).await {
            Some(room) => {
                let button = tg.app_button(lang.open_game(), &AppPlace::Room(room));
                send(
                    tg,
                    chat,
                    format!("{} · {}", lang.game(g), lang.level(level)),
                    keyboard(vec![button.into_iter().collect()]),
                )
                .await;
            }
            None => send(tg, chat, lang.unavailable().into(), None).await,
        }
        return;
    }
    answer_callback(tg, &q.id, None).await;
}

/// A room against the computer at `level` (`easy`, `medium`, `hard`),
/// made as `POST /api/rooms` makes it, charged to the player's quota.
async fn new_bot_room(
    state: &AppState,
    player: &PlayerId,
    game: GameKind,
    level: &str,
) -> Option<String> {
    let body: CreateRoom = serde_json::from_value(serde_json::json!({
        "game": game_code(game),
        "bot": {"level": level},
    }))
    .ok()?;
    let now_ms = u64::try_from(state.started.elapsed().as_millis()).unwrap_or(u64::MAX);
    state.quotas.admit(Some(&player.0), None, now_ms).ok()?;
    let cfg = crate::http::rooms::room_config(state, &body).ok()?;
    state.rooms.create(cfg).await.ok().map(|e| e.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_read_with_their_arguments_and_their_bot() {
        let t = |a: &str| Some(BotCommand::Tournament(a.to_string()));
        let cases: &[(&str, Option<BotCommand>)] = &[
            ("/tournament knockout long 10", t("knockout long 10")),
            (
                "/tournament@tabula_bot knockout long 10",
                t("knockout long 10"),
            ),
            (
                "/Tournament@TABULA_BOT  swiss short 5 3 ",
                t("swiss short 5 3"),
            ),
            ("/tournament", t("")),
            ("/tournament@other_bot knockout long 10", None),
            ("tournament knockout long 10", None),
            ("/help", Some(BotCommand::Help)),
            ("/start", Some(BotCommand::Start(None))),
            ("/nonsense", Some(BotCommand::Unknown)),
        ];
        for (text, want) in cases {
            assert_eq!(&parse_command(text, "tabula_bot"), want, "{text}");
        }
    }
}
