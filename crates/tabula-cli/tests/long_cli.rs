//! End-to-end tests of `tabula ... --game long-nardy` through the real
//! binary.

use std::process::{Command, Output};

use serde_json::Value;

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .output()
        .expect("the tabula binary runs")
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "tabula failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn assert_one_line_error(out: &Output, needle: &str) {
    // Then it exits non-zero with exactly one stderr line naming the problem.
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    assert!(err.contains(needle), "stderr {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"));
}

#[test]
fn moves_json_for_the_6_6_opening_is_exactly_two_from_the_head() {
    // Given the initial position and white's first roll 6-6,
    let out = tabula(&["moves", "--game", "long-nardy", "--dice", "6,6", "--json"]);
    // When the moves are listed as JSON,
    let v = json_of(&out);
    // Then there is one sequence, 24-18 twice, using two dice.
    assert_eq!(v["max_dice"], 2);
    assert_eq!(v["sequences"], serde_json::json!(["24-18,24-18"]));
    assert_eq!(v["first_steps"], serde_json::json!(["24-18"]));
    let finals = v["finals"].as_array().unwrap();
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0]["sequence"], "24-18,24-18");
    let p = &finals[0]["position"];
    assert_eq!(p["turn"], "white");
    assert_eq!(p["white"]["24"], 13);
    assert_eq!(p["white"]["18"], 2);
    assert_eq!(p["black"]["12"], 15);
}

#[test]
fn moves_json_accepts_a_position_and_options() {
    // Given seed 000's block example under prime_rule=opponent_home,
    let pos = r#"{"turn":"white","white":{"24":5,"10":2,"9":2,"8":2,"7":2,"6":2},"black":{"12":15},"off":{"white":0,"black":0},"first_turn":false}"#;
    let out = tabula(&[
        "moves",
        "--game",
        "long-nardy",
        "--position",
        pos,
        "--dice",
        "6,5",
        "--json",
        "--option",
        "prime_rule=opponent_home",
    ]);
    let v = json_of(&out);
    // Then no sequence lands on 5 (which would close 10..5).
    let seqs: Vec<String> = v["sequences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert!(!seqs.is_empty());
    assert!(seqs.iter().all(|s| !s.contains("-5")), "{seqs:?}");
    assert_eq!(v["max_dice"], 2);
}

#[test]
fn a_roll_with_no_legal_play_lists_nothing() {
    // Given white with every move blocked (black on 23..18 and white's only
    // movable checkers on the head behind them),
    let pos =
        r#"{"turn":"white","white":{"24":15},"black":{"23":3,"22":3,"21":3,"20":3,"19":2,"18":1}}"#;
    let out = tabula(&[
        "moves",
        "--game",
        "long-nardy",
        "--position",
        pos,
        "--dice",
        "6,5",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v["max_dice"], 0);
    assert_eq!(v["sequences"], serde_json::json!([]));
    assert_eq!(v["first_steps"], serde_json::json!([]));
}

#[test]
fn bad_input_exits_non_zero_with_one_line() {
    // Given 16 white checkers,
    let out = tabula(&[
        "moves",
        "--game",
        "long-nardy",
        "--dice",
        "6,5",
        "--position",
        r#"{"turn":"white","white":{"24":16},"black":{"12":15}}"#,
    ]);
    assert_one_line_error(&out, "16 checkers");
    // Given malformed JSON,
    let out = tabula(&[
        "moves",
        "--game",
        "long-nardy",
        "--dice",
        "6,5",
        "--position",
        "{",
    ]);
    assert_one_line_error(&out, "malformed");
    // Given a die out of range,
    let out = tabula(&["moves", "--game", "long-nardy", "--dice", "7,1"]);
    assert_one_line_error(&out, "out of range");
    // Given an unknown option,
    let out = tabula(&[
        "moves",
        "--game",
        "long-nardy",
        "--dice",
        "6,5",
        "-o",
        "prime_rule=sometimes",
    ]);
    assert_one_line_error(&out, "sometimes");
    let out = tabula(&["perft", "--game", "long-nardy", "-o", "bogus=1"]);
    assert_one_line_error(&out, "bogus");
    // Given a point both colours hold,
    let out = tabula(&[
        "moves",
        "--game",
        "long-nardy",
        "--dice",
        "6,5",
        "--position",
        r#"{"turn":"white","white":{"24":14,"12":1},"black":{"12":15}}"#,
    ]);
    assert_one_line_error(&out, "both");
}

#[test]
fn perft_depth_1_and_2_from_the_start() {
    let v = json_of(&tabula(&[
        "perft",
        "--game",
        "long-nardy",
        "--depth",
        "1",
        "--json",
    ]));
    let n1 = v["nodes"].as_u64().unwrap();
    let by_roll = v["by_roll"].as_array().unwrap();
    assert_eq!(by_roll.len(), 21);
    // Every opening roll has at least one final.
    assert!(by_roll.iter().all(|r| r["nodes"].as_u64().unwrap() >= 1));
    assert_eq!(
        n1,
        by_roll
            .iter()
            .map(|r| r["nodes"].as_u64().unwrap())
            .sum::<u64>()
    );
    let v = json_of(&tabula(&[
        "perft",
        "--game",
        "long-nardy",
        "--depth",
        "1",
        "--dice",
        "6,6",
        "--json",
    ]));
    assert_eq!(v["nodes"], 1);
}

#[test]
fn selfplay_reports_throughput() {
    let v = json_of(&tabula(&[
        "selfplay",
        "--game",
        "long-nardy",
        "--games",
        "20",
        "--seed",
        "7",
        "--json",
    ]));
    assert_eq!(v["games"], 20);
    assert_eq!(v["unfinished"], 0);
    assert!(v["games_per_second"].as_f64().unwrap() > 0.0);
    assert!(v["positions_per_second"].as_f64().unwrap() > 0.0);
    let wins = &v["wins"];
    let total: u64 = ["white", "black"]
        .iter()
        .flat_map(|c| ["oin", "mars", "koks"].map(|k| wins[c][k].as_u64().unwrap()))
        .sum();
    assert_eq!(total, 20);
    // The same seed replays the same games.
    let again = json_of(&tabula(&[
        "selfplay",
        "--game",
        "long-nardy",
        "--games",
        "20",
        "--seed",
        "7",
        "--json",
    ]));
    assert_eq!(v["plies"], again["plies"]);
    assert_eq!(v["wins"], again["wins"]);
}
