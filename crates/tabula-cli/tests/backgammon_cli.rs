//! The `tabula` binary for backgammon: moves, perft, selfplay and errors.

use std::process::{Command, Output};

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .output()
        .expect("run tabula")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = tabula(args);
    assert!(
        out.status.success(),
        "tabula {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Fails with exit code 2 and a one-line `tabula: error:` message, no panic.
fn fails(args: &[&str], needle: &str) {
    let out = tabula(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("tabula: error:"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
}

#[test]
fn moves_from_a_gnubg_id_in_json() {
    let v = json(&[
        "moves",
        "--game",
        "backgammon",
        "--gnubg-id",
        "4HPwATDgc/ABMA",
        "--dice",
        "6,5",
        "--json",
    ]);
    assert_eq!(v["max_dice"], 2);
    assert_eq!(v["moves"].as_array().unwrap().len(), 7);
    let finals = v["finals"].as_array().unwrap();
    assert_eq!(finals.len(), 7);
    // 24/18 18/13 with the mover still on roll.
    assert!(finals.contains(&serde_json::json!("4HPwATDgc/ADIA")));
    assert!(
        v["moves"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("24/18 18/13"))
    );
    let v = json(&["moves", "--game", "backgammon", "--dice", "3,1", "--json"]);
    assert_eq!(v["count"], 16);
    assert_eq!(v["position_id"], "4HPwATDgc/ABMA");
}

#[test]
fn moves_from_position_json_and_text() {
    let pos =
        r#"{"turn":"black","white":{"6":2},"black":{"4":1,"2":1},"off":{"white":13,"black":13}}"#;
    let v = json(&[
        "moves",
        "--game",
        "backgammon",
        "--position",
        pos,
        "--dice",
        "6-5",
        "--json",
        "--option",
        "scoring=gammons",
    ]);
    assert_eq!(v["turn"], "black");
    assert_eq!(v["scoring"], "gammons");
    assert_eq!(v["count"], 1);
    assert_eq!(v["moves"][0], "4/off 2/off");
    let out = tabula(&["moves", "--game", "backgammon", "--dice", "6,5"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("7 distinct plays using 2 dice"), "{text}");
    assert!(text.contains("24/18 18/13"), "{text}");
}

#[test]
fn a_roll_with_no_play_passes() {
    // White on the bar against a closed board (Black holds its 1..6).
    let pos = r#"{"turn":"white","white":{"6":14},"black":{"1":2,"2":2,"3":2,"4":2,"5":2,"6":2},"bar":{"white":1}}"#;
    let v = json(&[
        "moves",
        "--game",
        "backgammon",
        "--position",
        pos,
        "--dice",
        "6,6",
        "--json",
    ]);
    assert_eq!(v["max_dice"], 0);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
}

#[test]
fn perft_counts() {
    let v = json(&["perft", "--game", "backgammon", "--depth", "1", "--json"]);
    assert_eq!(v["nodes"], 447);
    let v = json(&[
        "perft",
        "--game",
        "backgammon",
        "--depth",
        "1",
        "--dice",
        "6,5",
        "--json",
    ]);
    assert_eq!(v["nodes"], 7);
    let v = json(&[
        "perft",
        "--game",
        "backgammon",
        "--depth",
        "2",
        "--gnubg-id",
        "4HPwATDgc/ABMA",
        "--json",
    ]);
    assert_eq!(v["nodes"], 202_782);
}

#[test]
fn selfplay_is_reproducible() {
    let args = [
        "selfplay",
        "--game",
        "backgammon",
        "--games",
        "50",
        "--seed",
        "9",
        "--json",
    ];
    let a = json(&args);
    let b = json(&args);
    assert_eq!(a["games"], 50);
    let w = a["wins"]["white"].as_u64().unwrap() + a["wins"]["black"].as_u64().unwrap();
    assert_eq!(w, 50);
    let k = &a["wins_by_kind"];
    let kinds = ["single", "gammon", "backgammon"].map(|n| k[n].as_u64().unwrap());
    assert_eq!(kinds.iter().sum::<u64>(), 50);
    for key in ["positions", "wins", "wins_by_kind", "points"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert!(a["positions_per_s"].as_f64().unwrap() > 0.0);
    let g = json(&[
        "selfplay",
        "--game",
        "backgammon",
        "--games",
        "50",
        "--seed",
        "9",
        "--json",
        "-o",
        "scoring=gammons",
    ]);
    assert!(g["points"]["white"].as_u64().unwrap() >= a["points"]["white"].as_u64().unwrap());
}

#[test]
fn bad_input_is_a_one_line_error() {
    let m = ["moves", "--game", "backgammon"];
    fails(
        &[&m[..], &["--gnubg-id", "nonsense", "--dice", "6,5"]].concat(),
        "Position ID",
    );
    fails(
        &[&m[..], &["--gnubg-id", "//////////////", "--dice", "6,5"]].concat(),
        "gnubg-id",
    );
    fails(
        &[&m[..], &["--position", "{not json", "--dice", "6,5"]].concat(),
        "malformed --position JSON",
    );
    fails(
        &[
            &m[..],
            &[
                "--position",
                r#"{"turn":"white","white":{"6":16},"black":{"1":1}}"#,
                "--dice",
                "6,5",
            ],
        ]
        .concat(),
        "16 checkers",
    );
    fails(
        &[
            &m[..],
            &[
                "--position",
                r#"{"turn":"white","white":{"3":1},"black":{"22":1}}"#,
                "--dice",
                "6,5",
            ],
        ]
        .concat(),
        "both colours",
    );
    fails(&[&m[..], &["--dice", "7,1"]].concat(), "out of range");
    fails(&[&m[..], &["--dice", "x"]].concat(), "bad --dice");
    fails(&m, "needs --dice");
    fails(
        &[&m[..], &["--dice", "6,5", "--option", "cube=on"]].concat(),
        "unknown backgammon option",
    );
    fails(
        &[&m[..], &["--dice", "6,5", "--option", "scoring=double"]].concat(),
        "scoring",
    );
    fails(
        &[&m[..], &["--dice", "6,5", "--option", "scoring"]].concat(),
        "key=value",
    );
    fails(
        &[
            "perft",
            "--game",
            "backgammon",
            "--gnubg-id",
            "4HPwATDgc/ABMA",
            "--position",
            "{}",
        ],
        "not both",
    );
}
