//! A stand-in for Telegram's Bot API, started by the tests: a real HTTP
//! server speaking the API's contract (`POST /bot<token>/<method>` with a
//! JSON body; `{"ok":true,"result":…}` or `{"ok":false,"error_code",
//! "description","parameters":{"retry_after"}}`) for the methods the bot
//! calls: `getMe`, `setWebhook`, `sendMessage`, `editMessageText`,
//! `editMessageReplyMarkup`, `answerInlineQuery`, `answerCallbackQuery`,
//! `savePreparedInlineMessage`.
//! It records every call with its arrival time, and can be told to
//! answer the next calls of a method with a 429 (`retry_after`), a 5xx,
//! or to answer every `sendMessage` to a chat with 403 (the user blocked
//! the bot). The node reaches it through `telegram.api_base_url`.
//!
//! Also: [`post_update`], a webhook delivery as Telegram makes it.

use std::collections::{HashSet, VecDeque};
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::{Value, json};

/// One call the stand-in received.
#[derive(Debug, Clone)]
pub struct Call {
    /// The method (`sendMessage`, …).
    pub method: String,
    /// Its JSON body (`null` without one).
    pub body: Value,
    /// When it arrived.
    pub at: Instant,
    /// When it arrived, ms since the epoch.
    pub wall_ms: u64,
    /// What was answered: `ok`, or the error code.
    pub answered: String,
}

/// A fault to answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// 429 with `retry_after` seconds.
    TooMany(u16),
    /// 500.
    Server,
    /// 403 (the user blocked the bot).
    Forbidden,
}

#[derive(Debug, Default)]
struct State {
    calls: Vec<Call>,
    /// (method, fault) for the next calls, in order.
    faults: VecDeque<(String, Fault)>,
    blocked: HashSet<i64>,
    next_message: i64,
}

/// The running stand-in; stops when dropped.
#[derive(Debug)]
pub struct BotApi {
    /// Where it listens.
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The bot the stand-in is: its token, id and username.
pub const TOKEN: &str = "4242:stand-in-bot-token";
/// The bot's user id.
pub const BOT_ID: u64 = 4242;
/// The bot's username.
pub const BOT_NAME: &str = "tabula_test_bot";

fn ok(result: Value) -> HttpResponse {
    HttpResponse::Ok().json(json!({"ok": true, "result": result}))
}

fn refusal(code: u16, description: &str, retry_after: Option<u16>) -> HttpResponse {
    let mut body = json!({"ok": false, "error_code": code, "description": description});
    if let Some(s) = retry_after {
        body["parameters"] = json!({"retry_after": s});
    }
    HttpResponse::build(actix_web::http::StatusCode::from_u16(code).unwrap()).json(body)
}

async fn method(
    state: web::Data<Mutex<State>>,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> HttpResponse {
    let (token, method) = path.into_inner();
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(_) => return refusal(400, "Bad Request: can't parse JSON", None),
        }
    };
    let mut s = state.lock().unwrap_or_else(PoisonError::into_inner);
    let (answered, res) = answer(&mut s, &token, &method, &body);
    s.calls.push(Call {
        method,
        body,
        at: Instant::now(),
        wall_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
        answered,
    });
    res
}

fn answer(s: &mut State, token: &str, method: &str, body: &Value) -> (String, HttpResponse) {
    let token = token.strip_prefix("bot").unwrap_or("");
    if token != TOKEN {
        return ("401".into(), refusal(401, "Unauthorized", None));
    }
    if let Some(i) = s.faults.iter().position(|(m, _)| m == method) {
        let (_, f) = s.faults.remove(i).unwrap();
        return match f {
            Fault::TooMany(secs) => (
                "429".into(),
                refusal(
                    429,
                    &format!("Too Many Requests: retry after {secs}"),
                    Some(secs),
                ),
            ),
            Fault::Server => ("500".into(), refusal(500, "Internal Server Error", None)),
            Fault::Forbidden => (
                "403".into(),
                refusal(403, "Forbidden: bot was blocked by the user", None),
            ),
        };
    }
    match method {
        "getMe" => (
            "ok".into(),
            ok(
                json!({"id": BOT_ID, "is_bot": true, "first_name": "Tabula", "username": BOT_NAME,
                      "can_join_groups": true, "can_read_all_group_messages": false,
                      "supports_inline_queries": true}),
            ),
        ),
        "setWebhook" => {
            if body["url"].as_str().is_none_or(|u| u.is_empty()) {
                return (
                    "400".into(),
                    refusal(400, "Bad Request: bad webhook: URL is empty", None),
                );
            }
            ("ok".into(), ok(json!(true)))
        }
        "sendMessage" => {
            let Some(chat) = body["chat_id"].as_i64() else {
                return (
                    "400".into(),
                    refusal(400, "Bad Request: chat not found", None),
                );
            };
            let text = body["text"].as_str().unwrap_or("");
            if text.is_empty() || text.chars().count() > 4096 {
                return (
                    "400".into(),
                    refusal(400, "Bad Request: message text is empty or too long", None),
                );
            }
            if s.blocked.contains(&chat) {
                return (
                    "403".into(),
                    refusal(403, "Forbidden: bot was blocked by the user", None),
                );
            }
            s.next_message += 1;
            (
                "ok".into(),
                ok(json!({"message_id": s.next_message, "date": 0,
                          "chat": {"id": chat, "type": "private", "first_name": "Ann"},
                          "from": {"id": BOT_ID, "is_bot": true, "first_name": "Tabula"},
                          "text": text})),
            )
        }
        "editMessageText" | "editMessageReplyMarkup" => {
            if body["inline_message_id"].is_string() {
                ("ok".into(), ok(json!(true)))
            } else {
                let chat = body["chat_id"].as_i64().unwrap_or(0);
                (
                    "ok".into(),
                    ok(json!({"message_id": body["message_id"], "date": 0,
                              "chat": {"id": chat, "type": "private"},
                              "text": body["text"].as_str().unwrap_or("")})),
                )
            }
        }
        "answerInlineQuery" | "answerCallbackQuery" => ("ok".into(), ok(json!(true))),
        "savePreparedInlineMessage" => {
            let user = body["user_id"].as_u64().filter(|u| *u > 0);
            let result = &body["result"];
            let readable = result["type"].is_string()
                && result["id"]
                    .as_str()
                    .is_some_and(|id| (1..=64).contains(&id.len()));
            if user.is_none() || !readable {
                return (
                    "400".into(),
                    refusal(
                        400,
                        "Bad Request: USER_ID_INVALID or RESULT_ID_INVALID",
                        None,
                    ),
                );
            }
            s.next_message += 1;
            let expires = (std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs())
                + 86_400;
            (
                "ok".into(),
                ok(
                    json!({"id": format!("prepared-{}", s.next_message), "expiration_date": expires}),
                ),
            )
        }
        _ => (
            "404".into(),
            refusal(404, "Not Found: method not found", None),
        ),
    }
}

impl BotApi {
    /// Starts it on a free port of 127.0.0.1.
    pub fn start() -> BotApi {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let data = web::Data::from(state.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            actix_rt::System::new().block_on(async move {
                let server = HttpServer::new(move || {
                    App::new()
                        .app_data(data.clone())
                        .route("/{token}/{method}", web::post().to(method))
                })
                .workers(1)
                .disable_signals()
                .listen(listener)
                .unwrap()
                .run();
                let handle = server.handle();
                actix_rt::spawn(server);
                let _ = rx.await;
                handle.stop(false).await;
            });
        });
        BotApi {
            addr,
            state,
            stop: Some(tx),
            thread: Some(thread),
        }
    }

    /// `telegram.api_base_url` for a node that should call it.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Every call of `method` so far.
    pub fn calls(&self, method: &str) -> Vec<Call> {
        self.with(|s| {
            s.calls
                .iter()
                .filter(|c| c.method == method)
                .cloned()
                .collect()
        })
    }

    /// The calls of `method` answered `ok`.
    pub fn ok_calls(&self, method: &str) -> Vec<Call> {
        self.calls(method)
            .into_iter()
            .filter(|c| c.answered == "ok")
            .collect()
    }

    /// The next call of `method` gets `fault` (queued after earlier ones).
    pub fn fail_next(&self, method: &str, fault: Fault) {
        self.with(|s| s.faults.push_back((method.to_string(), fault)));
    }

    /// Every `sendMessage` to `chat` gets 403 from now on.
    pub fn block(&self, chat: i64) {
        self.with(|s| s.blocked.insert(chat));
    }

    /// `sendMessage` to `chat` works again (he started the bot again).
    pub fn unblock(&self, chat: i64) {
        self.with(|s| s.blocked.remove(&chat));
    }

    /// Waits up to `within` until `pred` holds of the calls of `method`
    /// answered `ok`; returns them (whether or not it held).
    pub async fn wait_for(
        &self,
        method: &str,
        within: Duration,
        pred: impl Fn(&[Call]) -> bool,
    ) -> Vec<Call> {
        let deadline = Instant::now() + within;
        loop {
            let calls = self.ok_calls(method);
            if pred(&calls) || Instant::now() >= deadline {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for BotApi {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The environment of a node process whose bot talks to the stand-in at
/// `api_url` with the webhook secret `secret` (guests allowed beside
/// Telegram's players), followed by `extra`.
pub fn node_env<'a>(
    api_url: &'a str,
    secret: &'a str,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut env = vec![
        ("TABULA__AUTH__BOT_TOKEN", TOKEN),
        ("TABULA__AUTH__FORCE_GUEST", "true"),
        ("TABULA__TELEGRAM__WEBHOOK_SECRET", secret),
        ("TABULA__TELEGRAM__API_BASE_URL", api_url),
    ];
    env.extend_from_slice(extra);
    env
}

/// Posts `update` to the node's webhook as Telegram does (with the secret
/// header when given); returns (status, JSON body).
pub fn post_update(addr: SocketAddr, secret: Option<&str>, body: &str) -> (u16, Value) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let header = secret
        .map(|s| format!("X-Telegram-Bot-Api-Secret-Token: {s}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "POST /telegram/webhook HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let status: u16 = out.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    let v = serde_json::from_str(body).unwrap_or(Value::String(body.to_string()));
    (status, v)
}

/// [`post_update`] on a blocking thread.
pub async fn post_update_async(
    addr: SocketAddr,
    secret: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let secret = secret.map(str::to_string);
    tokio::task::spawn_blocking(move || post_update(addr, secret.as_deref(), &body.to_string()))
        .await
        .unwrap()
}

/// A private message update from Telegram user `user` saying `text`.
pub fn message(update_id: u64, user: u64, lang: &str, text: &str) -> Value {
    json!({
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1_700_000_000,
            "chat": {"id": user, "type": "private", "first_name": "Ann"},
            "from": {"id": user, "is_bot": false, "first_name": "Ann", "language_code": lang},
            "text": text,
        }
    })
}
