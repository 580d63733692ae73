//! Telegram `initData` and session tokens over real sockets.

use tabula_tests as common;

use std::net::SocketAddr;

use common::telegram::{enc, init_data, now};
use common::*;
use serde_json::{Value, json};
use tabula_server::settings::Secret;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsError, http::HeaderValue};

const BOT: &str = "7654321:socket-test-bot-token";

fn telegram_settings() -> tabula_server::Settings {
    let mut s = test_settings();
    s.auth.bot_token = Some(Secret(BOT.into()));
    s.auth.session_secret = Some(Secret("a session secret of at least 32 bytes".into()));
    s
}

/// Opens `/ws?<query>` with extra headers; the socket and its `welcome`, or
/// the refused handshake's status and JSON body.
async fn open(
    addr: SocketAddr,
    query: &str,
    headers: &[(&'static str, String)],
) -> Result<(Client, Value), (u16, Value)> {
    let mut req = format!("ws://{addr}/ws?{query}")
        .into_client_request()
        .unwrap();
    for (k, v) in headers {
        req.headers_mut()
            .insert(*k, HeaderValue::from_str(v).unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => {
            let (c, w) = Client::welcomed(ws, &query.chars().take(32).collect::<String>()).await;
            Ok((c, w))
        }
        Err(WsError::Http(resp)) => {
            let body = resp.body().clone().unwrap_or_default();
            let v = serde_json::from_slice(&body).unwrap_or(Value::Null);
            Err((resp.status().as_u16(), v))
        }
        Err(e) => panic!("connect: {e}"),
    }
}

#[tokio::test]
async fn telegram_login_then_token_reconnect() {
    let _one = common::one().await;
    let node = start(telegram_settings());
    let q = format!("initData={}", enc(&init_data(BOT, 279_058_397)));
    let (mut c, w) = open(node.addr, &q, &[]).await.expect("initData accepted");
    assert_eq!(w["player"], "tg:279058397", "{w}");
    let token = w["token"]
        .as_str()
        .expect("welcome carries a token")
        .to_string();
    // The socket works (and a Telegram-only node makes rooms only for
    // Telegram players: the token is the credential).
    let (status, created) = http_async(
        node.addr,
        "POST",
        &format!("/api/rooms?token={token}"),
        Some(json!({"game": "long_nardy"})),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let room = created["roomId"].as_str().unwrap().to_string();
    let st = c.join(&room).await;
    assert_eq!(st["type"], "state", "{st}");
    drop(c);

    // Reconnect with the token: the same player, and a fresh token.
    let (mut c, w) = open(node.addr, &format!("token={token}"), &[])
        .await
        .expect("token accepted");
    assert_eq!(w["player"], "tg:279058397", "{w}");
    assert!(w["token"].is_string(), "{w}");
    let st = c.join(&room).await;
    assert_eq!(st["yourSeat"], "a", "reconnected to the seat: {st}");
    drop(c);

    // The header forms work too.
    let (_, w) = open(
        node.addr,
        "",
        &[("authorization", format!("Bearer {token}"))],
    )
    .await
    .expect("bearer token accepted");
    assert_eq!(w["player"], "tg:279058397");
    let (_, w) = open(
        node.addr,
        "",
        &[("x-telegram-init-data", init_data(BOT, 5))],
    )
    .await
    .expect("initData header accepted");
    assert_eq!(w["player"], "tg:5");
}

#[tokio::test]
async fn bad_credentials_are_refused_with_401() {
    let _one = common::one().await;
    let node = start(telegram_settings());
    // Signed with another bot's token.
    let q = format!("initData={}", enc(&init_data("1:another-bot", 42)));
    let (status, body) = open(node.addr, &q, &[]).await.expect_err("refused");
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "unauthorized", "{body}");
    let msg = body["error"]["message"].as_str().unwrap();
    assert!(msg.contains("initData"), "{msg}");
    // A forged token.
    let (status, body) = open(node.addr, "token=v1.dGc6NDI.1.9999999999.AAAA", &[])
        .await
        .expect_err("refused");
    assert_eq!(status, 401);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("session token"),
        "{body}"
    );
    // A bot token is configured, so guests are off.
    let (status, _) = open(node.addr, "guest=alice", &[])
        .await
        .expect_err("guests refused");
    assert_eq!(status, 401);
}

#[tokio::test]
async fn guests_get_a_token_in_the_default_config() {
    let _one = common::one().await;
    let node = start(test_settings());
    let (_, w) = open(node.addr, "guest=alice", &[]).await.unwrap();
    let alice = w["player"].as_str().unwrap().to_string();
    // A guest id is minted, not taken from the name a client sends.
    assert!(alice.starts_with("guest:") && alice != "guest:alice", "{w}");
    let token = w["token"].as_str().expect("a token").to_string();
    let (_, w) = open(node.addr, &format!("token={token}"), &[])
        .await
        .unwrap();
    assert_eq!(w["player"], alice.as_str());
    // The same name again, or her public id as a name, is someone else.
    for q in ["guest=alice".to_string(), format!("guest={}", &alice[6..])] {
        let (_, w) = open(node.addr, &q, &[]).await.unwrap();
        assert_ne!(w["player"], alice.as_str(), "{q}");
    }
    // No bot token here: initData is refused as not configured.
    let q = format!("initData={}", enc(&init_data(BOT, 42)));
    let (status, body) = open(node.addr, &q, &[]).await.expect_err("refused");
    assert_eq!(status, 401);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not configured"),
        "{body}"
    );
}

/// A node without the bot token validates Telegram's Ed25519 `signature`
/// (third-party validation) with the key it is configured with.
#[tokio::test]
async fn third_party_init_data_is_checked_by_its_ed25519_signature() {
    let _one = common::one().await;
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    use ed25519_dalek::{Signer, SigningKey};

    const BOT_ID: u64 = 7_342_037_359;
    let signer = SigningKey::from_bytes(&[7u8; 32]);
    let mut s = test_settings();
    s.auth.telegram_bot_id = BOT_ID;
    s.auth.telegram_public_key = hex::encode(signer.verifying_key().to_bytes());
    s.auth.session_secret = Some(Secret("a session secret of at least 32 bytes".into()));
    assert!(!s.auth.guest_enabled(), "Telegram configured: no guests");
    let node = start(s);

    let fields = [
        ("auth_date", now().to_string()),
        ("chat_instance", "-8473522709835892796".to_string()),
        (
            "user",
            r#"{"id":5000131393,"first_name":"Alice"}"#.to_string(),
        ),
    ];
    let sign = |bot_id: u64, fields: &[(&str, String)]| -> String {
        let check = fields
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n");
        let sig = signer.sign(format!("{bot_id}:WebAppData\n{check}").as_bytes());
        let mut q: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{k}={}", enc(v)))
            .collect();
        q.push(format!(
            "signature={}",
            URL_SAFE_NO_PAD.encode(sig.to_bytes())
        ));
        q.join("&")
    };

    let good = sign(BOT_ID, &fields);
    let (_c, w) = open(node.addr, &format!("initData={}", enc(&good)), &[])
        .await
        .expect("signed initData accepted");
    assert_eq!(w["player"], "tg:5000131393", "{w}");
    assert!(w["token"].is_string(), "a session token follows: {w}");

    // Signed for another bot: refused.
    let other_bot = sign(BOT_ID + 1, &fields);
    let (status, body) = open(node.addr, &format!("initData={}", enc(&other_bot)), &[])
        .await
        .expect_err("another bot's data refused");
    assert_eq!(status, 401, "{body}");
    // Tampered after signing: refused.
    let tampered = good.replace("5000131393", "5000131394");
    let (status, body) = open(node.addr, &format!("initData={}", enc(&tampered)), &[])
        .await
        .expect_err("tampered data refused");
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("signature"),
        "{body}"
    );
    // Guests are off.
    assert!(open(node.addr, "guest=alice", &[]).await.is_err());
}
