//! The `tabula` binary's Thud! subcommands, run for real.

use std::process::{Command, Output};

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .output()
        .expect("run tabula")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Bad input: a non-zero exit and exactly one line on stderr naming it.
fn fails_with(args: &[&str], needle: &str) {
    let out = tabula(args);
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("tabula: error:"), "{err}");
    assert!(err.contains(needle), "{err:?} should mention {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn moves_from_the_start_position_lists_656_dwarf_moves_as_json() {
    let j = json(&tabula(&["moves", "--game", "thud", "--json"]));
    assert_eq!(j["turn"], "dwarfs");
    assert_eq!(j["count"], 656);
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 656);
    let first = &moves[0];
    for key in ["notation", "kind", "from", "to", "captures"] {
        assert!(first.get(key).is_some(), "{key}");
    }
    assert!(
        moves
            .iter()
            .all(|m| m["kind"] == "move" && m["captures"].as_array().unwrap().is_empty())
    );
}

#[test]
fn moves_of_a_given_position_show_kinds_and_captures() {
    let pos = r#"{"turn":"trolls","dwarfs":["g5","i5","a7"],"trolls":["h7"]}"#;
    let j = json(&tabula(&[
        "moves",
        "--game",
        "thud",
        "--position",
        pos,
        "--json",
    ]));
    let m = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["to"] == "h6")
        .unwrap()
        .clone();
    assert_eq!(m["notation"], "Th7-h6xg5xi5");
    assert_eq!(m["kind"], "step");
    assert_eq!(m["captures"], serde_json::json!(["g5", "i5"]));
    // Classic: the step captures at most one.
    let j = json(&tabula(&[
        "moves",
        "--game",
        "thud",
        "--position",
        pos,
        "--option",
        "capture_rule=classic",
        "--json",
    ]));
    let to_h6 = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["to"] == "h6")
        .count();
    assert_eq!(to_h6, 3);
}

#[test]
fn moves_text_output_names_the_side_and_count() {
    let out = tabula(&["moves", "--game", "thud"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("dwarfs to move, 656 legal moves"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 657);
}

#[test]
fn perft_reports_per_depth_counts() {
    let j = json(&tabula(&[
        "perft", "--game", "thud", "--depth", "2", "--json",
    ]));
    assert_eq!(j["nodes"], 21736);
    assert_eq!(j["per_depth"], serde_json::json!([656, 21736]));
}

#[test]
fn selfplay_plays_seeded_games_and_reports_throughput() {
    let args = [
        "selfplay", "--game", "thud", "--games", "3", "--seed", "9", "--json",
    ];
    let a = json(&tabula(&args));
    assert_eq!(a["games"], 3);
    assert_eq!(a["rounds"], 6);
    assert!(a["plies"].as_u64().unwrap() > 0);
    assert!(a["positions_per_s"].as_f64().unwrap() > 0.0);
    let b = json(&tabula(&args));
    assert_eq!(a["plies"], b["plies"], "same seed, same games");
    assert_eq!(a["end_reasons"], b["end_reasons"]);
}

#[test]
fn bad_input_fails_with_one_line() {
    fails_with(
        &["moves", "--game", "thud", "--position", "{not json"],
        "JSON",
    );
    fails_with(
        &[
            "moves",
            "--game",
            "thud",
            "--position",
            r#"{"turn":"dwarfs","dwarfs":["z9"],"trolls":[]}"#,
        ],
        "z9",
    );
    fails_with(
        &[
            "moves",
            "--game",
            "thud",
            "--position",
            r#"{"turn":"dwarfs","dwarfs":[],"trolls":["h8"]}"#,
        ],
        "Thudstone",
    );
    fails_with(
        &[
            "moves",
            "--game",
            "thud",
            "--position",
            r#"{"turn":"dwarfs","dwarfs":["a1"],"trolls":[]}"#,
        ],
        "cut corner",
    );
    fails_with(
        &[
            "moves",
            "--game",
            "thud",
            "--position",
            r#"{"turn":"elves","dwarfs":[],"trolls":[]}"#,
        ],
        "elves",
    );
    fails_with(
        &["moves", "--game", "thud", "--option", "colour=red"],
        "colour",
    );
    fails_with(
        &["moves", "--game", "thud", "--option", "capture_rule=all"],
        "capture_rule",
    );
    fails_with(
        &["moves", "--game", "thud", "--option", "nonsense"],
        "key=value",
    );
    fails_with(&["perft", "--game", "thud", "--dice", "6,5"], "dice");
}
