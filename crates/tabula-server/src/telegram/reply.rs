//! The bot's direct answers: a message to a chat and the answer to a
//! button's tap, each counted or logged when Telegram refuses it.

use frankenstein::AsyncTelegramApi;
use frankenstein::methods::{AnswerCallbackQueryParams, SendMessageParams};
use frankenstein::types::ReplyMarkup;

use super::Telegram;

/// Sends `text` (with its buttons) to `chat`.
pub async fn send(tg: &Telegram, chat: i64, text: String, markup: Option<ReplyMarkup>) {
    let params = SendMessageParams::builder()
        .chat_id(chat)
        .text(text)
        .maybe_reply_markup(markup)
        .build();
    let outcome = match tg.api.send_message(&params).await {
        Ok(_) => "ok",
        Err(e) => {
            tracing::warn!(chat, error = %e, "bot reply not sent");
            e.reason()
        }
    };
    tg.outbox
        .metrics
        .api_calls
        .with_label_values(&["sendMessage", outcome])
        .inc();
}

/// Answers a button's tap (`text`: a notice shown to the tapper).
pub async fn answer_callback(tg: &Telegram, id: &str, text: Option<&str>) {
    let params = AnswerCallbackQueryParams::builder()
        .callback_query_id(id)
        .maybe_text(text.map(str::to_string))
        .build();
    if let Err(e) = tg.api.answer_callback_query(&params).await {
        tracing::warn!(error = %e, "answerCallbackQuery failed");
    }
}
