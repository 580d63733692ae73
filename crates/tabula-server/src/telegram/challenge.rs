//! Challenges shared in any chat with inline mode: typing the bot's name
//! offers a card per game, rated or casual, and clock; the card posted in
//! the chat carries an Accept button. The first person other than the
//! challenger who taps it takes the other seat: the tap claims the
//! message (one claim across every node), a room is made whose seats are
//! kept for the two of them, and the message turns into a link to the
//! game. When the match ends, the message shows the result and a link to
//! the replay ([`super::notice::NoticeKind::ChallengeOver`]).
//!
//! A card's code is three letters: the game (`l`ong nardy, `b`ackgammon,
//! `t`hud), `r`ated or `c`asual, the clock (`b`litz, `n`ormal, `l`ong);
//! the button's data is `ch:<code>:<challenger's user id>`.

use std::time::Duration;

use frankenstein::AsyncTelegramApi;
use frankenstein::inline_mode::{
    InlineQuery, InlineQueryResult, InlineQueryResultArticle, InputMessageContent,
    InputTextMessageContent,
};
use frankenstein::methods::{AnswerInlineQueryParams, EditMessageTextParams};
use frankenstein::types::{CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup};
use tabula_protocol::http::CreateRoom;
use tabula_room::{GameKind, PlayerId};

use super::notice::{Notice, NoticeKind, Queued};
use super::texts::Lang;
use super::{AppPlace, Telegram};
use crate::AppState;

/// How long a challenge's message is remembered (its claim, and its room
/// for the result).
pub const CHALLENGE_KEEP: Duration = Duration::from_secs(30 * 86_400);

/// A challenge card: the game, rated, the clock preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Card {
    /// The game.
    pub game: GameKind,
    /// Rated.
    pub rated: bool,
    /// `blitz`, `normal`, `long`, or correspondence: `1d`, `3d`, `7d`.
    pub clock: &'static str,
}

const GAMES: [(char, GameKind); 3] = [
    ('l', GameKind::LongNardy),
    ('b', GameKind::Backgammon),
    ('t', GameKind::Thud),
];
const CLOCKS: [(char, &str); 6] = [
    ('b', "blitz"),
    ('n', "normal"),
    ('l', "long"),
    ('1', "1d"),
    ('3', "3d"),
    ('7', "7d"),
];

impl Card {
    /// Every card, the order they are offered in.
    pub fn all() -> Vec<Card> {
        let mut out = Vec::new();
        for (_, game) in GAMES {
            for rated in [false, true] {
                for (_, clock) in CLOCKS {
                    out.push(Card { game, rated, clock });
                }
            }
        }
        out
    }

    /// Its three-letter code.
    pub fn code(&self) -> String {
        let g = GAMES
            .iter()
            .find(|(_, k)| *k == self.game)
            .map_or('l', |x| x.0);
        let c = CLOCKS
            .iter()
            .find(|(_, k)| *k == self.clock)
            .map_or('n', |x| x.0);
        format!("{g}{}{c}", if self.rated { 'r' } else { 'c' })
    }

    /// The card of a code.
    pub fn parse(code: &str) -> Option<Card> {
        let mut it = code.chars();
        let (g, r, c) = (it.next()?, it.next()?, it.next()?);
        if it.next().is_some() {
            return None;
        }
        Some(Card {
            game: GAMES.iter().find(|x| x.0 == g)?.1,
            rated: match r {
                'r' => true,
                'c' => false,
                _ => return None,
            },
            clock: CLOCKS.iter().find(|x| x.0 == c)?.1,
        })
    }

    /// Whether the words typed after the bot's name pick this card: each
    /// word must match the game's name (either language), `rated` /
    /// `casual`, or the clock.
    pub fn matches(&self, query: &str) -> bool {
        let names = [
            Lang::En.game(self.game),
            Lang::Ru.game(self.game),
            match self.game {
                GameKind::LongNardy => "long нарды длинные",
                GameKind::Backgammon => "short backgammon нарды короткие",
                GameKind::Thud => "thud",
            },
            Lang::En.rated(self.rated),
            Lang::Ru.rated(self.rated),
            self.clock,
            if self.clock.ends_with('d') {
                "correspondence переписка days дни"
            } else {
                "live"
            },
        ]
        .join(" ")
        .to_lowercase();
        query
            .split_whitespace()
            .all(|w| names.contains(&w.to_lowercase()))
    }
}

/// Answers an inline query with the cards its words pick.
pub async fn on_inline_query(tg: &Telegram, q: InlineQuery) {
    let lang = Lang::of(q.from.language_code.as_deref());
    let who = q.from.first_name.clone();
    let results: Vec<InlineQueryResult> = if tg.link_button("", &AppPlace::Lobby).is_none() {
        // Without the Mini App's t.me link a challenge could not be
        // opened from a group: offer none (operations.md says to set it).
        Vec::new()
    } else {
        Card::all()
            .into_iter()
            .filter(|c| c.matches(&q.query))
            .map(|c| {
                let data = format!("ch:{}:{}", c.code(), q.from.id);
                InlineQueryResultArticle::builder()
                    .id(c.code())
                    .title(lang.card_title(c.game, c.rated, c.clock))
                    .input_message_content(InputMessageContent::Text(
                        InputTextMessageContent::builder()
                            .message_text(lang.challenge(&who, c.game, c.rated, c.clock))
                            .build(),
                    ))
                    .reply_markup(InlineKeyboardMarkup {
                        inline_keyboard: vec![vec![
                            InlineKeyboardButton::builder()
                                .text(lang.accept())
                                .callback_data(data)
                                .build(),
                        ]],
                    })
                    .build()
                    .into()
            })
            .collect()
    };
    let params = AnswerInlineQueryParams::builder()
        .inline_query_id(q.id)
        .results(results)
        .cache_time(0)
        .is_personal(true)
        .build();
    if let Err(e) = tg.api.answer_inline_query(&params).await {
        tracing::warn!(error = %e, "answerInlineQuery failed");
    }
}

/// A tap on a challenge's Accept (`data` is `ch:<code>:<challenger>`).
pub async fn on_accept(state: &AppState, tg: &Telegram, q: &CallbackQuery, data: &str) {
    let lang = Lang::of(q.from.language_code.as_deref());
    let answer = |text: Option<&'static str>| super::reply::answer_callback(tg, &q.id, text);
    let parsed = data
        .strip_prefix("ch:")
        .and_then(|r| r.split_once(':'))
        .and_then(|(code, who)| Some((Card::parse(code)?, who.parse::<u64>().ok()?)));
    let (Some((card, challenger)), Some(message)) = (parsed, q.inline_message_id.as_deref()) else {
        return answer(None).await;
    };
    if challenger == q.from.id {
        return answer(Some(lang.own_challenge())).await;
    }
    let bp = &*state.backplane;
    match bp
        .claim_slot(&format!("challenge:{message}"), CHALLENGE_KEEP)
        .await
    {
        Ok(true) => {}
        Ok(false) => return answer(Some(lang.challenge_taken())).await,
        Err(_) => return answer(Some(lang.unavailable())).await,
    }
    let a = PlayerId::new(format!("tg:{challenger}"));
    let b = PlayerId::new(format!("tg:{}", q.from.id));
    let Some(room) = challenge_room(state, card, &a, &b).await else {
        tracing::warn!(
            message,
            "a challenge's room could not be made; the challenge is spent"
        );
        return answer(Some(lang.unavailable())).await;
    };
    answer(None).await;
    if let Err(e) = bp
        .set_note(
            &format!("challenge:{room}"),
            Some(message.to_string()),
            CHALLENGE_KEEP,
        )
        .await
    {
        tracing::warn!(%room, error = %e, "the challenge's message not remembered: its result will not be shown");
    }
    let challenger_name = match bp.profile(&a.0).await {
        Ok(p) => crate::http::profiles::public(&a.0, &p).name,
        Err(_) => crate::http::profiles::public(&a.0, &Default::default()).name,
    };
    let text = lang.accepted(&challenger_name, &q.from.first_name, card.game);
    let params = EditMessageTextParams::builder()
        .inline_message_id(message)
        .text(text)
        .maybe_reply_markup(
            tg.link_button(lang.open_game(), &AppPlace::Room(room.clone()))
                .map(|b| InlineKeyboardMarkup {
                    inline_keyboard: vec![vec![b]],
                }),
        )
        .build();
    if let Err(e) = tg.api.edit_message_text(&params).await {
        tracing::warn!(%room, error = %e, "the accepted challenge's message not edited");
    }
    // The challenger is told in his own chat, if he started the bot.
    let now = crate::time::now_ms();
    tg.outbox.queue(
        state.backplane.clone(),
        Queued {
            id: format!("accepted:{room}"),
            notice: Notice {
                opponent: Some(b.0.clone()),
                ..Notice::new(
                    NoticeKind::InviteTaken,
                    a.0.clone(),
                    room,
                    card.game,
                    now,
                    now,
                )
            },
        },
    );
}

/// The challenge's room: between `a` and `b` only, as `POST /api/rooms`
/// makes one with the card's options.
async fn challenge_room(
    state: &AppState,
    card: Card,
    a: &PlayerId,
    b: &PlayerId,
) -> Option<String> {
    let body: CreateRoom = serde_json::from_value(serde_json::json!({
        "game": match card.game {
            GameKind::LongNardy => "long_nardy",
            GameKind::Backgammon => "backgammon",
            GameKind::Thud => "thud",
        },
        "rated": card.rated,
        "timeControl": card.clock,
    }))
    .ok()?;
    let now_ms = u64::try_from(state.started.elapsed().as_millis()).unwrap_or(u64::MAX);
    state.quotas.admit(Some(&b.0), None, now_ms).ok()?;
    let mut cfg = crate::http::rooms::room_config(state, &body).ok()?;
    cfg.players = Some(vec![a.clone(), b.clone()]);
    state.rooms.create(cfg).await.ok().map(|e| e.id)
}
