//! `tabula-ws-floor` over real sockets: both ways of answering carry a
//! driven load (every action answered, none failed), and the idle mode holds
//! its pairs open, so that `measure.sh floor` measures what it says.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};

/// A floor server on a free port; killed on drop.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(rooms: &str) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula-ws-floor"))
        .args(["serve", "--listen", "127.0.0.1:0", "--rooms", rooms])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the floor server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("its first line");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    Server { child, addr }
}

fn drive(server: &Server, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula-ws-floor"))
        .args(["drive", "--url", &server.addr, "--seconds", "1"])
        .args(args)
        .output()
        .expect("run the driver");
    assert!(
        out.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The report's actions answered and events its partners received.
fn counts(report: &str) -> (u64, u64) {
    let v: serde_json::Value = serde_json::from_str(report.lines().last().expect("a report line"))
        .unwrap_or_else(|e| panic!("{e}: {report}"));
    (
        v["actions"].as_u64().expect("actions"),
        v["events"].as_u64().expect("events"),
    )
}

/// Every action answered to its mover reached the partner too, once: the
/// counts differ only by what is in flight or not yet read when the window
/// closes (a partner's reader may lag its mover on a loaded machine).
fn assert_fanned_out(report: &str) {
    let (n, e) = counts(report);
    assert!(n > 100, "only {n} actions answered in a second: {report}");
    assert!(
        e + 50 + n / 10 >= n && e <= n + 50,
        "{n} actions but {e} events: {report}"
    );
}

#[test]
fn answered_from_the_sockets_own_task_the_pairs_keep_acting() {
    let s = serve("0");
    assert_fanned_out(&drive(&s, &["--pairs", "4"]));
}

#[test]
fn answered_through_room_actors_the_pairs_keep_acting() {
    let s = serve("2");
    assert_fanned_out(&drive(&s, &["--pairs", "4"]));
}

#[test]
fn idle_pairs_are_held_after_one_exchange_each_way() {
    for rooms in ["0", "2"] {
        let s = serve(rooms);
        // Every socket must get both answers of its pair's two frames, or
        // the driver never says it holds them.
        let out = drive(&s, &["--pairs", "50", "--idle"]);
        assert!(
            out.starts_with("holding 50 pairs\n"),
            "rooms {rooms}: {out}"
        );
        assert_eq!(counts(&out), (0, 0), "idle pairs act: {out}");
    }
}
