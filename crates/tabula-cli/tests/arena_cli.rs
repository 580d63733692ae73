//! `tabula arena` through the real binary: the JSON shape, replay for a
//! seed, and a clear strength gap between Medium and Easy.

use std::process::Command;

fn arena(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("arena")
        .args(args)
        .arg("--json")
        .output()
        .expect("run tabula");
    assert!(
        out.status.success(),
        "tabula arena {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn arena_json_has_the_promised_fields() {
    for game in ["long-nardy", "backgammon", "thud"] {
        let games = if game == "thud" { "2" } else { "10" };
        let v = arena(&[
            "--game", game, "--a", "medium", "--b", "easy", "--games", games, "--seed", "3",
        ]);
        let n = v["games"].as_u64().unwrap();
        assert_eq!(n, games.parse::<u64>().unwrap());
        let (a, b, d) = (
            v["a_wins"].as_u64().unwrap(),
            v["b_wins"].as_u64().unwrap(),
            v["draws"].as_u64().unwrap(),
        );
        assert_eq!(a + b + d, n, "{game}: {v}");
        assert!(v["a_points"].is_u64() && v["b_points"].is_u64(), "{v}");
        let ci = v["a_win_rate_ci95"].as_array().unwrap();
        assert_eq!(ci.len(), 2);
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!((0.0..=1.0).contains(&lo) && lo <= hi && hi <= 1.0, "{v}");
        assert_eq!(v["a"], "medium");
        assert_eq!(v["b"], "easy");
    }
}

#[test]
fn arena_replays_for_a_seed_and_levels_parse_as_numbers() {
    let strip = |mut v: serde_json::Value| {
        let o = v.as_object_mut().unwrap();
        o.remove("a_decision_ms");
        o.remove("b_decision_ms");
        v
    };
    let x = strip(arena(&[
        "--game",
        "backgammon",
        "--a",
        "2",
        "--b",
        "1",
        "--games",
        "6",
        "--seed",
        "9",
    ]));
    let y = strip(arena(&[
        "--game",
        "backgammon",
        "--a",
        "medium",
        "--b",
        "easy",
        "--games",
        "6",
        "--seed",
        "9",
    ]));
    assert_eq!(x, y);
}

#[test]
fn medium_clearly_beats_easy_in_long_nardy() {
    let v = arena(&[
        "--game",
        "long-nardy",
        "--a",
        "medium",
        "--b",
        "easy",
        "--games",
        "100",
        "--seed",
        "5",
    ]);
    let rate = v["a_win_rate"].as_f64().unwrap();
    assert!(rate >= 0.75, "{v}");
}

#[test]
fn unknown_level_is_a_one_line_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args([
            "arena",
            "--game",
            "thud",
            "--a",
            "grandmaster",
            "--b",
            "easy",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
