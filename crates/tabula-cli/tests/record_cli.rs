//! `tabula play` and `tabula verify` through the real binary: a record from
//! a real room verifies, and any tampering makes the verifier fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .output()
        .expect("run tabula")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-record-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn play(game: &str, seed: &str, path: &Path) {
    let out = tabula(&[
        "play",
        "--game",
        game,
        "--seed",
        seed,
        "--record",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn edit(path: &Path, f: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    let out = path.with_extension("tampered.json");
    std::fs::write(&out, serde_json::to_string(&v).unwrap()).unwrap();
    out
}

fn assert_rejected(path: &Path, why: &str) {
    let out = tabula(&["verify", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{why}: must fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{why}: one line: {err}");
    assert!(err.contains("tabula: error:"), "{err}");
}

#[test]
fn a_played_game_verifies_for_every_game() {
    for game in ["long-nardy", "backgammon", "thud"] {
        let path = tmp(&format!("{game}.json"));
        play(game, "7", &path);
        let out = tabula(&["verify", "--json", path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{game}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ok"], true);
        assert!(v["actions"].as_u64().unwrap() > 10, "{game}: {v}");
        if game != "thud" {
            assert!(v["rolls"].as_u64().unwrap() > 5, "{game}: {v}");
        }
    }
}

#[test]
fn the_same_seed_plays_the_same_record() {
    let (a, b) = (tmp("same-a.json"), tmp("same-b.json"));
    play("long-nardy", "11", &a);
    play("long-nardy", "11", &b);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn a_tampered_record_fails_verification() {
    let path = tmp("tamper.json");
    play("long-nardy", "5", &path);

    // A different server seed no longer matches the published commitment.
    let seed = edit(&path, |v| {
        v["serverSeed"] = serde_json::json!("00".repeat(32));
    });
    assert_rejected(&seed, "swapped server seed");

    // A changed client seed changes every roll after it.
    let client = edit(&path, |v| {
        v["clientSeeds"][0] = serde_json::json!("forged");
    });
    assert_rejected(&client, "changed client seed");

    // A changed result.
    let result = edit(&path, |v| {
        let p = v["result"]["points"].as_u64().unwrap();
        v["result"]["points"] = serde_json::json!(p + 1);
    });
    assert_rejected(&result, "changed result");

    // A truncated action list.
    let short = edit(&path, |v| {
        let a = v["actions"].as_array_mut().unwrap();
        a.truncate(a.len() / 2);
    });
    assert_rejected(&short, "truncated actions");
}

#[test]
fn verify_reports_bad_files_in_one_line() {
    let missing = tmp("does-not-exist.json");
    assert_rejected(&missing, "missing file");
    let junk = tmp("junk.json");
    std::fs::write(&junk, "{not json").unwrap();
    assert_rejected(&junk, "malformed JSON");
    let out = tabula(&[
        "play",
        "--game",
        "long-nardy",
        "--option",
        "prime_rule=nonsense",
        "--record",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn argument_errors_are_one_line_naming_the_problem() {
    for (args, needle) in [
        (&["moves", "--game", "chess"][..], "chess"),
        (&["moves"][..], "--game"),
        (&["perft", "--game", "thud", "--depth", "x"][..], "depth"),
        (&["frobnicate"][..], "frobnicate"),
    ] {
        let out = tabula(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // Help is not an error.
    assert!(tabula(&["--help"]).status.success());
}

/// A clocked long nardy game whose first player lets his clock run out,
/// as the room records it.
fn timed_out_record(path: &Path) {
    use tabula_room::{Actor, Command, PlayerId, Room, RoomConfig, SeatId, TimeControl};
    let mut room = Room::new(RoomConfig {
        master_seed: "cli clocks".into(),
        time_control: Some(TimeControl::new(10_000, 30_000)),
        ..RoomConfig::default()
    });
    for (p, seat) in [("ann", SeatId::A), ("bob", SeatId::B)] {
        let who = Actor::Player(PlayerId::new(p));
        room.apply(Command::Sit { seat: Some(seat) }, who.clone(), 1_000)
            .unwrap();
        room.apply(Command::Ready, who, 1_000).unwrap();
    }
    let deadline = room.next_deadline().expect("a clock runs");
    assert!(!room.tick(deadline).is_empty());
    let rec = &room.records()[0];
    std::fs::write(path, serde_json::to_string(rec).unwrap()).unwrap();
}

#[test]
fn verify_checks_the_clock_of_a_clocked_game_and_names_who_ran_out() {
    let path = tmp("clocked.json");
    timed_out_record(&path);
    let out = tabula(&["verify", "--json", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"]["reason"], "timeout", "{v}");
    assert_eq!(v["clock"]["control"]["delayMs"], 10_000, "{v}");
    assert_eq!(v["clock"]["periods"], 1, "{v}");
    let loser = v["clock"]["timeouts"][0].clone();
    assert_ne!(v["result"]["winner"], loser, "{v}");
    let out = tabula(&["verify", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("clock 10 s + 30 s, 1 periods checked, ran out of time: seat"),
        "{text}"
    );
    // A timeout whose period had time left is a forgery.
    let early = edit(&path, |v| {
        v["clock"]["turns"][0]["usedMs"] = serde_json::json!(39_999);
    });
    assert_rejected(&early, "a timeout before the time was up");
    // So is a timeout in a record without its clock.
    let bare = edit(&path, |v| {
        v.as_object_mut().unwrap().remove("clock");
    });
    assert_rejected(&bare, "a timeout without a clock");
}
