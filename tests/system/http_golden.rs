//! The HTTP API's golden transcript: a fixed walk through the routes of a
//! node (guests, names, a room with its state, invite and summary, the
//! store's routes, a tournament, refusals), each request and answer as it
//! went over the wire, pinned in `tests/system/golden/http.txt` so that any
//! change to an HTTP body is a visible diff (the socket's are pinned by
//! `tabula-server`'s `host/tests/golden`).
//!
//! What differs from run to run is named in the transcript instead: each
//! guest id, room id and invite code by its order of appearance
//! (`guest:<1>`, `<room 1>`, `<invite 1>`), a token as `<token>`, times
//! and the node's id as `<…>`. The keys of an object are written sorted.
//!
//! After a deliberate change to the API, regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p tabula-tests --test system http_golden`
//! and review the diff.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabula_tests as common;

/// Keys whose values are times, counters of time, or the node's id.
const VOLATILE: &[&str] = &[
    "node",
    "storeOkMsAgo",
    "storeUpMs",
    "createdAt",
    "since",
    "startAtMs",
    "pausedAt",
    "finishedMs",
    "finishedAtMs",
    "at",
    "deadline",
    "expiresAt",
];

/// The transcript, with the names given to what varies.
#[derive(Default)]
struct Transcript {
    text: String,
    names: BTreeMap<String, String>,
    counts: BTreeMap<&'static str, usize>,
}

impl Transcript {
    /// The stable name of `value`, a thing of `kind` (the first seen is 1).
    fn name(&mut self, kind: &'static str, value: &str) -> String {
        if let Some(n) = self.names.get(value) {
            return n.clone();
        }
        let n = self.counts.entry(kind).or_default();
        *n += 1;
        let name = match kind {
            "guest" => format!("guest:<{n}>"),
            _ => format!("<{kind} {n}>"),
        };
        self.names.insert(value.to_string(), name.clone());
        name
    }

    /// Learns the room ids and invite codes `v` names.
    fn learn(&mut self, v: &Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x.as_str()) {
                        ("roomId" | "room", Some(s)) => {
                            self.name("room", s);
                        }
                        ("invite", Some(s)) => {
                            self.name("invite", s);
                        }
                        _ => self.learn(x),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| self.learn(x)),
            _ => {}
        }
    }

    /// `text` with every known and every volatile thing named.
    fn masked(&mut self, text: &str) -> String {
        let mut out = text.to_string();
        // Guest ids: `guest:` and 32 hex digits.
        let mut from = 0;
        while let Some(i) = out[from..].find("guest:") {
            let at = from + i;
            let id: String = out[at + 6..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            if id.len() == 32 {
                let name = self.name("guest", &format!("guest:{id}"));
                out.replace_range(at..at + 6 + 32, &name);
                from = at + name.len();
            } else {
                from = at + 6;
            }
        }
        // Session tokens: `v1.` and their base64url parts.
        let mut from = 0;
        while let Some(i) = out[from..].find("v1.") {
            let at = from + i;
            let len = out[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
                .count();
            out.replace_range(at..at + len, "<token>");
            from = at + "<token>".len();
        }
        let known: Vec<(String, String)> = self
            .names
            .iter()
            .filter(|(k, _)| !k.starts_with("guest:"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (value, name) in known {
            out = out.replace(&value, &name);
        }
        out
    }

    /// One request and its answer: `> METHOD PATH [BODY]`, then `< STATUS
    /// BODY`.
    async fn call(
        &mut self,
        addr: std::net::SocketAddr,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let (status, v) = common::http_async(addr, method, path, body.clone()).await;
        self.learn(&v);
        let request = match &body {
            Some(b) => format!("> {method} {path} {}", hide_times(b)),
            None => format!("> {method} {path}"),
        };
        // Compact JSON, its keys sorted: serde_json's map is a `BTreeMap`
        // (nothing in the workspace turns on `preserve_order`).
        let answer = format!("< {status} {}", hide_times(&v));
        let request = self.masked(&request);
        let answer = self.masked(&answer);
        self.text.push_str(&request);
        self.text.push('\n');
        self.text.push_str(&answer);
        self.text.push('\n');
        (status, v)
    }

    /// Compares with (or, with `UPDATE_GOLDEN=1`, writes) the golden file.
    fn check(&self) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/system/golden/http.txt");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/system/golden"))
                .expect("the golden directory is made");
            std::fs::write(path, &self.text).expect("the golden file is written");
            return;
        }
        let want = std::fs::read_to_string(path).unwrap_or_default();
        if want != self.text {
            let line = want
                .lines()
                .zip(self.text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| want.lines().count().min(self.text.lines().count()));
            panic!(
                "the HTTP API changed: {path} differs from line {}\n want: {}\n  got: {}\n\
                 (if the change is meant, regenerate with UPDATE_GOLDEN=1 and review the diff)",
                line + 1,
                want.lines().nth(line).unwrap_or("<end>"),
                self.text.lines().nth(line).unwrap_or("<end>"),
            );
        }
    }
}

/// `v` with the values of [`VOLATILE`] keys replaced by `"<key>"`.
fn hide_times(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = if VOLATILE.contains(&k.as_str()) && !x.is_null() {
                        Value::String(format!("<{k}>"))
                    } else {
                        hide_times(x)
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(hide_times).collect()),
        x => x.clone(),
    }
}

#[tokio::test]
async fn the_http_api_answers_as_its_golden_transcript() {
    let _one = common::one().await;
    let dir = tempfile::tempdir().unwrap();
    let node = common::start(common::with_store(common::test_settings(), dir.path()));
    let addr = node.addr;
    common::store_reached(addr).await;
    let mut t = Transcript::default();

    // The node.
    t.call(addr, "GET", "/healthz", None).await;
    t.call(addr, "GET", "/readyz", None).await;
    t.call(addr, "GET", "/api/client-config", None).await;

    // Two guests, named.
    let (_, a) = t.call(addr, "GET", "/api/session", None).await;
    let (_, b) = t.call(addr, "GET", "/api/session", None).await;
    let (ann, ann_token) = (a["player"].as_str().unwrap(), a["token"].as_str().unwrap());
    let (bob, bob_token) = (b["player"].as_str().unwrap(), b["token"].as_str().unwrap());
    let as_ann = |path: &str| {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("{path}{sep}token={ann_token}")
    };
    let as_bob = |path: &str| format!("{path}?token={bob_token}");
    t.call(
        addr,
        "POST",
        &as_ann("/api/me/name"),
        Some(json!({"name": "Ann"})),
    )
    .await;
    t.call(
        addr,
        "POST",
        &as_bob("/api/me/name"),
        Some(json!({"name": "Bob"})),
    )
    .await;
    t.call(addr, "GET", &format!("/api/players/{ann}/profile"), None)
        .await;
    t.call(addr, "GET", &format!("/api/profiles?ids={ann},{bob}"), None)
        .await;

    // A room, its state, summary, records and invite.
    let (_, room) = t
        .call(
            addr,
            "POST",
            &as_ann("/api/rooms"),
            Some(json!({"game": "backgammon", "matchLength": 3})),
        )
        .await;
    let id = room["roomId"].as_str().unwrap().to_string();
    let invite = room["invite"].as_str().unwrap().to_string();
    t.call(addr, "GET", &format!("/api/rooms/{id}"), None).await;
    t.call(addr, "GET", &format!("/api/rooms/{id}/summary"), None)
        .await;
    t.call(addr, "GET", &format!("/api/rooms/{id}/records"), None)
        .await;
    t.call(addr, "GET", &format!("/api/invites/{invite}"), None)
        .await;
    t.call(addr, "GET", &format!("/api/players/{ann}/stats"), None)
        .await;

    // The store's routes.
    t.call(addr, "GET", &as_ann("/api/me/games"), None).await;
    t.call(addr, "GET", &as_ann("/api/me/history"), None).await;
    t.call(addr, "GET", &as_ann("/api/me/profile"), None).await;
    t.call(
        addr,
        "GET",
        "/api/leaderboards/backgammon?period=week",
        None,
    )
    .await;
    t.call(addr, "GET", "/api/live", None).await;

    // A tournament: made, joined (once the owner has counted the join).
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 3_600_000;
    t.call(
        addr,
        "POST",
        &as_ann("/api/tournaments"),
        Some(json!({
            "id": "golden",
            "format": {"type": "swiss", "rounds": 3, "lateJoinUntilRound": 1},
            "game": "backgammon",
            "startAtMs": start,
        })),
    )
    .await;
    t.call(addr, "POST", &as_bob("/api/tournaments/golden/join"), None)
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, v) = common::http_async(addr, "GET", "/api/tournaments/golden", None).await;
        if v["players"].as_array().is_some_and(|p| p.len() == 1) {
            break;
        }
        assert!(Instant::now() < deadline, "the join is not counted: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    t.call(addr, "GET", "/api/tournaments/golden", None).await;
    t.call(addr, "GET", &as_bob("/api/me/tournaments"), None)
        .await;

    // Refusals: each the one error body.
    t.call(addr, "GET", "/api/rooms/nope", None).await;
    t.call(addr, "POST", "/api/rooms", Some(json!({"game": "chess"})))
        .await;
    t.call(addr, "GET", "/api/games/nope/-1", None).await;
    t.call(addr, "DELETE", "/api/rooms", None).await;
    t.call(addr, "GET", &as_ann("/api/me/notices"), None).await;
    t.call(addr, "GET", "/api/me/tournaments", None).await;

    // Bob leaves.
    t.call(addr, "DELETE", &as_bob("/api/me"), None).await;

    t.check();
    drop(node);
}
