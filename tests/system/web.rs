//! The Mini App's static files (`web.dir` at `/`, after the API, with
//! cache headers), the client config, the results summary, and the
//! test-only `startPosition` of `POST /api/rooms` (refused unless
//! `testing.allow_start_position`).

use tabula_tests as common;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;

use common::{Client, http_async, move_msg, start, test_settings};
use serde_json::{Value, json};

/// A raw GET: (status, lower-cased headers, body).
fn get(addr: SocketAddr, path: &str, extra: &str) -> (u16, Vec<(String, String)>, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

async fn get_async(
    addr: SocketAddr,
    path: &str,
    extra: &str,
) -> (u16, Vec<(String, String)>, String) {
    let (p, e) = (path.to_string(), extra.to_string());
    tokio::task::spawn_blocking(move || get(addr, &p, &e))
        .await
        .unwrap()
}

fn web_fixture(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-web-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["tests", "node_modules/x", "boards"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("index.html"), "<!doctype html><p>tabula-index</p>").unwrap();
    std::fs::write(dir.join("app.js"), "export const x = 1;\n").unwrap();
    std::fs::write(dir.join("boards/nardy.js"), "export {};\n").unwrap();
    std::fs::write(dir.join("tests/a.test.mjs"), "secret test\n").unwrap();
    std::fs::write(dir.join("node_modules/x/index.js"), "dep\n").unwrap();
    std::fs::write(dir.join("package.json"), "{}").unwrap();
    std::fs::write(dir.join(".env"), "X=1").unwrap();
    dir
}

#[tokio::test]
async fn the_app_is_served_at_root_with_cache_headers_after_the_api() {
    let _one = common::one().await;
    let dir = web_fixture("serve");
    let mut s = test_settings();
    s.web.dir = dir.to_string_lossy().into_owned();
    let node = start(s);
    let addr = node.addr;

    let (status, h, body) = get_async(addr, "/", "").await;
    assert_eq!(status, 200, "{h:?}");
    assert!(body.contains("tabula-index"), "{body}");
    assert_eq!(header(&h, "cache-control"), Some("no-cache"), "{h:?}");
    let etag = header(&h, "etag").expect("an ETag").to_string();
    assert!(header(&h, "last-modified").is_some(), "{h:?}");
    assert!(header(&h, "content-type").unwrap().starts_with("text/html"));

    // Revalidation: the same ETag gets 304 without a body.
    let (status, h, body) = get_async(addr, "/", &format!("If-None-Match: {etag}\r\n")).await;
    assert_eq!(status, 304, "{h:?}");
    assert!(body.is_empty());
    assert_eq!(header(&h, "cache-control"), Some("no-cache"));

    let (status, h, _) = get_async(addr, "/index.html", "").await;
    assert_eq!(
        (status, header(&h, "cache-control")),
        (200, Some("no-cache"))
    );
    for asset in ["/app.js", "/boards/nardy.js"] {
        let (status, h, _) = get_async(addr, asset, "").await;
        assert_eq!(status, 200, "{asset}");
        assert_eq!(
            header(&h, "cache-control"),
            Some("public, max-age=300"),
            "{asset}"
        );
        assert!(
            header(&h, "content-type").unwrap().contains("javascript"),
            "{h:?}"
        );
        assert_eq!(header(&h, "x-content-type-options"), Some("nosniff"));
    }
    // Tests, npm packages, manifests and dotfiles are not part of the app.
    for hidden in [
        "/tests/a.test.mjs",
        "/node_modules/x/index.js",
        "/package.json",
        "/.env",
        "/nope.js",
    ] {
        let (status, h, _) = get_async(addr, hidden, "").await;
        // actix-files refuses dotted segments itself (400); the rest 404.
        assert!(
            status == 404 || (status == 400 && hidden == "/.env"),
            "{hidden}: {status}"
        );
        assert_eq!(header(&h, "cache-control"), None, "{hidden}: {h:?}");
    }

    // The API keeps its handlers.
    let (status, v) = http_async(addr, "GET", "/healthz", None).await;
    assert_eq!((status, v["status"].as_str()), (200, Some("ok")));
    let (status, _) = http_async(addr, "GET", "/readyz", None).await;
    assert_eq!(status, 200);
    let (status, _, metrics) = get_async(addr, "/metrics", "").await;
    assert!(status == 200 && metrics.contains("tabula_"), "{metrics}");
    let (status, v) = http_async(addr, "POST", "/api/rooms", Some(json!({"game": "thud"}))).await;
    assert_eq!(status, 201, "{v}");
    let (status, v) = http_async(addr, "GET", "/api/client-config", None).await;
    assert_eq!(status, 200);
    assert_eq!(v["telegramAppUrl"], "");
    assert_eq!(v["guest"], true);
    let mut c = Client::connect(addr, "webuser").await;
    let st = c.join(v["roomId"].as_str().unwrap_or("missing")).await;
    assert_eq!(st["type"], "error", "no such room: {st}");
    drop(node);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_missing_web_dir_leaves_the_api_only() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.web.dir = "/nonexistent/tabula-web-dir".into();
    let node = start(s);
    let (status, _, _) = get_async(node.addr, "/", "").await;
    assert_eq!(status, 404);
    let (status, _) = http_async(node.addr, "GET", "/healthz", None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_repository_web_client_is_served_by_default() {
    let _one = common::one().await;
    // `web` relative to the working directory or the checkout (cargo test
    // runs in the crate directory, `cargo run` in the repository root).
    let node = start(test_settings());
    let (status, h, body) = get_async(node.addr, "/", "").await;
    assert_eq!(status, 200, "{h:?}");
    assert!(body.contains("app.js"), "{body}");
    for f in [
        "/app.js",
        "/net.js",
        "/telegram.js",
        "/style.css",
        "/boards/nardy.js",
        "/boards/thud.js",
    ] {
        let (status, _, _) = get_async(node.addr, f, "").await;
        assert_eq!(status, 200, "{f}");
    }
    // Text assets go compressed to a browser that asks, plain otherwise.
    let file =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../web/app.js")).unwrap();
    let (_, h, body) = get_async(node.addr, "/app.js", "").await;
    assert_eq!(header(&h, "content-encoding"), None, "{h:?}");
    assert_eq!(body, file);
    for (asked, got) in [("gzip", "gzip"), ("br", "br"), ("gzip, deflate, br", "br")] {
        let (status, h, body) = get_async(
            node.addr,
            "/app.js",
            &format!("Accept-Encoding: {asked}\r\n"),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(header(&h, "content-encoding"), Some(got), "{asked}: {h:?}");
        // (Read as lossy text: one char per byte that is not UTF-8.)
        let bytes = body.chars().count();
        assert!(
            bytes < file.len() / 2,
            "{asked}: {bytes} bytes for {}",
            file.len()
        );
    }
    // The API is not compressed (small bodies; the socket must not be).
    let (_, h, _) = get_async(node.addr, "/healthz", "Accept-Encoding: gzip\r\n").await;
    assert_eq!(header(&h, "content-encoding"), None, "{h:?}");
}

fn near_end() -> Value {
    // White (seat A) has two checkers left in its home and is on roll.
    json!({"turn": "white", "white": {"1": 1, "2": 1}, "black": {"12": 15},
           "off": {"white": 13, "black": 0}, "first_turn": false})
}

#[tokio::test]
async fn start_position_is_refused_unless_the_test_switch_is_on() {
    let _one = common::one().await;
    let node = start(test_settings());
    let body = json!({"game": "long_nardy", "startPosition": near_end()});
    let (status, v) = http_async(node.addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 403, "{v}");
    assert_eq!(v["error"]["code"], "bad_request");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("testing.allow_start_position"), "{msg}");
}

#[tokio::test]
async fn start_position_starts_the_game_there_and_the_summary_counts_it() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.testing.allow_start_position = true;
    let node = start(s);
    let addr = node.addr;

    // Bad positions are refused with a reason.
    let bad = [
        json!({"game": "long_nardy", "startPosition": {"turn": "white", "white": {"1": 16}, "black": {"12": 15}}}),
        json!({"game": "long_nardy", "startPosition": "nope"}),
        json!({"game": "thud", "startPosition": near_end()}),
    ];
    for b in bad {
        let (status, v) = http_async(addr, "POST", "/api/rooms", Some(b.clone())).await;
        assert_eq!(status, 400, "{b} -> {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("startPosition"),
            "{v}"
        );
    }

    let body = json!({"game": "long_nardy", "bot": {"level": "easy"}, "startPosition": near_end()});
    let (status, v) = http_async(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{v}");
    let room = v["roomId"].as_str().unwrap().to_string();
    let mut me = Client::connect(addr, "finisher").await;
    me.join(&room).await;
    me.call(json!({"type": "ready"})).await;
    let st = me
        .until(|m| m["type"] == "event" && m["event"]["type"] == "turnStarted")
        .await;
    assert_eq!(st["event"]["seat"], "a", "{st}");
    let (_, view) = http_async(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(
        view["state"]["board"]["position"]["white"],
        json!({"1": 1, "2": 1})
    );

    // Roll and bear off whatever is offered until the game is over.
    me.call(json!({"type": "rollDice"})).await;
    let mut steps = 0;
    loop {
        let m = me
            .until(|m| {
                m["type"] == "game_over"
                    || (m["type"] == "event" && m["event"]["type"] == "possibleMoves")
            })
            .await;
        if m["type"] == "game_over" {
            assert_eq!(m["result"], "win", "{m}");
            break;
        }
        let step = m["event"]["firstSteps"][0].as_str().unwrap().to_string();
        me.send(move_msg(&step)).await;
        steps += 1;
        assert!(steps <= 4, "two checkers take at most four steps");
    }
    let (status, sum) = http_async(addr, "GET", &format!("/api/rooms/{room}/summary"), None).await;
    assert_eq!(status, 200, "{sum}");
    assert_eq!(sum["gameNumber"], 1);
    assert_eq!(sum["summary"]["borneOff"], json!([15, 0]), "{sum}");
    assert_eq!(sum["summary"]["moves"][0], 1, "{sum}");
    assert_eq!(sum["result"]["winner"], "a", "{sum}");
    let (status, _) = http_async(addr, "GET", "/api/rooms/nosuchroom/summary", None).await;
    assert_eq!(status, 404);
}
