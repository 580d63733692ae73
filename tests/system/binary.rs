//! The README's run command, as a newcomer uses it: the real binary
//! (`tabula-node`: `tabula-server`'s main, `tabula_server::serve::main`),
//! configured only by `config/default.toml` and `TABULA__…`
//! variables, played by a scripted client to `game_over`, then stopped with
//! SIGTERM, which it must survive gracefully (exit 0, readiness gone first).

use tabula_tests as common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Client, create_room, http, play_out};
use serde_json::{Value, json};

/// A port that was free a moment ago (the binary binds it by config, as an
/// SRE would, not by port 0).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(port: u16) -> Server {
    let root = common::ROOT;
    let child = Command::new(env!("CARGO_BIN_EXE_tabula-node"))
        .current_dir(root)
        .env("TABULA__SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env("TABULA__BOTS__DELAY_MS", "0")
        // The default store (SQLite), in a file of the test's own.
        .env(
            "TABULA__STORE__URL",
            format!(
                "sqlite://{}/tabula-binary-{port}.db?mode=rwc",
                std::env::temp_dir().display()
            ),
        )
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tabula-server");
    Server(child)
}

fn wait_healthy(addr: std::net::SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(addr).is_ok()
            && http(addr, "GET", "/healthz", None).0 == 200
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("tabula-server did not become healthy on {addr}");
}

#[tokio::test]
async fn the_run_command_serves_a_whole_game_and_stops_gracefully_on_sigterm() {
    let _one = common::one().await;
    let port = free_port();
    let mut server = spawn(port);
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    tokio::task::spawn_blocking(move || wait_healthy(addr))
        .await
        .unwrap();
    assert_eq!(http(addr, "GET", "/readyz", None).0, 200);

    // A newcomer against the computer, with only the default config.
    let room = create_room(
        addr,
        json!({"game": "long_nardy", "bot": {"level": "easy"}}),
    )
    .await;
    let mut me = Client::connect(addr, "newcomer").await;
    let joined = me.join(&room).await;
    assert_eq!(joined["yourSeat"], "a", "{joined}");
    me.call(json!({"type": "ready"})).await;
    play_out(addr, &room, &mut [Some(&mut me), None], 5000).await;
    let over: Value = match me.seen.iter().find(|m| m["type"] == "game_over") {
        Some(v) => v.clone(),
        None => me.until(|m| m["type"] == "game_over").await,
    };
    assert!(
        ["win", "lose"].contains(&over["result"].as_str().unwrap()),
        "{over}"
    );

    // SIGTERM: the node drains and exits cleanly.
    let pid = server.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = server.0.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "tabula-server ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status after SIGTERM: {status}");
}
