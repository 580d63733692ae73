//! `tabula bearoff` through the real binary: a position's numbers, the
//! database in GNU Backgammon's own format (read back by gnubg's
//! `bearoffdump` where it is installed), the race measurement's shape, and
//! clear refusals.

use std::process::Command;

fn tabula(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("bearoff")
        .args(args)
        .output()
        .expect("run tabula")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = tabula(args);
    assert!(
        out.status.success(),
        "tabula bearoff {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn a_position_shows_gnubgs_numbers() {
    for game in ["long-nardy", "backgammon"] {
        let v = json(&["--game", game, "--board", "0,0,0,0,0,15", "--json"]);
        assert_eq!(v["index"], 54263, "{v}");
        assert!((v["mean"].as_f64().unwrap() - 12.266).abs() < 5e-4, "{v}");
        assert!((v["first_off_mean"].as_f64().unwrap() - 1.616).abs() < 5e-4);
        let total: f64 = v["rolls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-5, "{v}");
    }
    let text = tabula(&["--game", "backgammon", "--board", "1,0,0,0,0,0"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("gnubg #1") && text.contains("1.000000 rolls"),
        "{text}"
    );
}

#[test]
fn the_file_is_gnubgs_one_sided_format() {
    let dir = std::env::temp_dir().join(format!("tabula-bearoff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bg.bd");
    let p = path.to_str().unwrap();
    let v = json(&["--game", "backgammon", "--out", p, "--json"]);
    assert_eq!(v["same_as_bots_table"], true, "{v}");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(v["bytes"].as_u64().unwrap() as usize, bytes.len());
    assert!(bytes.starts_with(b"gnubg-OS-06-15-1-1-0"));
    assert_eq!(bytes[39], b'\n');
    // gnubg's own reader, where GNU Backgammon is installed.
    if let Ok(dump) = Command::new("bearoffdump")
        .args([p, "-n", "54263"])
        .output()
        .or_else(|_| {
            Command::new("/usr/games/bearoffdump")
                .args([p, "-n", "54263"])
                .output()
        })
    {
        let text = String::from_utf8_lossy(&dump.stdout);
        let mean = text
            .lines()
            .find(|l| l.starts_with("Mean"))
            .unwrap_or_else(|| panic!("bearoffdump said: {text}"));
        assert!(mean.contains("12.266") && mean.contains("1.616"), "{mean}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_race_measurement_reports_paired_games() {
    for game in ["long-nardy", "backgammon"] {
        for start in ["race", "bearoff"] {
            let v = json(&[
                "--game", game, "--race", "3", "--start", start, "--seed", "2", "--json",
            ]);
            assert_eq!(v["games"], 6, "{v}");
            let rate = v["database_win_rate"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&rate), "{v}");
            assert!(v["database_bearoff_decisions"].as_u64().unwrap() > 0, "{v}");
            assert!(
                v["evaluation_would_differ"].as_u64().unwrap()
                    <= v["database_bearoff_decisions"].as_u64().unwrap()
            );
            // The same seed replays the same games.
            let again = json(&[
                "--game", game, "--race", "3", "--start", start, "--seed", "2", "--json",
            ]);
            assert_eq!(v["database_win_rate"], again["database_win_rate"]);
            assert_eq!(
                v["pairs_decided_differently"],
                again["pairs_decided_differently"]
            );
        }
    }
}

#[test]
fn bad_requests_are_one_line_errors() {
    for args in [
        &["--game", "thud", "--board", "1,0,0,0,0,0"][..],
        &["--game", "backgammon"][..],
        &["--game", "backgammon", "--board", "1,2,3"][..],
        &["--game", "backgammon", "--board", "9,9,0,0,0,0"][..],
        &["--game", "backgammon", "--race", "0"][..],
    ] {
        let out = tabula(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("tabula: error: "), "{err}");
    }
}
