//! `tabula error-rate` through the real binary: the committed decision set
//! is the seeded one, a slice judged in two parts sums to the slice judged
//! at once, the JSON report's shape, and clear refusals of bad input.

use std::path::PathBuf;
use std::process::Command;

fn tabula(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("error-rate")
        .args(args)
        .output()
        .expect("run tabula")
}

fn ok(args: &[&str]) -> String {
    let out = tabula(args);
    assert!(
        out.status.success(),
        "tabula error-rate {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn refused(args: &[&str], needle: &str) {
    let out = tabula(args);
    assert!(!out.status.success(), "{args:?} was accepted");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tabula-bots/positions/long-nardy-500.jsonl")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tabula-er-{}-{name}", std::process::id()))
}

#[test]
fn the_committed_decisions_are_the_seeded_set() {
    let committed = std::fs::read_to_string(committed()).unwrap();
    assert_eq!(committed.lines().count(), 500);
    let path = temp("first");
    let p = path.to_str().unwrap();
    ok(&["--decisions", "12", "--seed", "1", "--write-positions", p]);
    let first = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let head: Vec<&str> = committed.lines().take(12).collect();
    assert_eq!(first.lines().collect::<Vec<_>>(), head);
}

#[test]
fn a_run_in_parts_sums_to_the_run_at_once() {
    let pos = committed();
    let pos = pos.to_str().unwrap();
    let common = [
        "--positions",
        pos,
        "--trials",
        "36",
        "--truncate",
        "6",
        "--json",
    ];
    let (a, b, all) = (temp("a"), temp("b"), temp("all"));
    let run = |extra: &[&str], out: &PathBuf| {
        let mut args: Vec<&str> = common.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        serde_json::from_str::<serde_json::Value>(&ok(&args)).unwrap()
    };
    let whole = run(&["--limit", "4", "--threads", "2"], &all);
    run(&["--limit", "2"], &a);
    run(&["--skip", "2", "--limit", "2"], &b);
    let summed: serde_json::Value = serde_json::from_str(&ok(&[
        "--judged",
        a.to_str().unwrap(),
        "--judged",
        b.to_str().unwrap(),
        "--trials",
        "36",
        "--truncate",
        "6",
        "--json",
    ]))
    .unwrap();
    assert_eq!(whole["decisions"], 4);
    for p in ["easy", "medium", "hard", "hard-classic"] {
        let s = &whole["players"][p];
        let t = &summed["players"][p];
        for k in ["decisions", "best", "errors", "blunders"] {
            assert_eq!(s[k], t[k], "{p} {k}: {whole}\n{summed}");
        }
        // The same losses, read back from JSON (serde_json's float
        // parsing may differ in the last bit).
        let gap = s["mean_loss"].as_f64().unwrap() - t["mean_loss"].as_f64().unwrap();
        assert!(gap.abs() < 1e-12, "{p}: {whole}\n{summed}");
        assert_eq!(s["decisions"], 4, "{whole}");
        let loss = s["mean_loss"].as_f64().unwrap();
        assert!(loss >= 0.0, "{whole}");
        assert!((s["error_rate_millipoints"].as_f64().unwrap() - 1000.0 * loss).abs() < 1e-9);
    }
    // Every judged line names its plays, and each player's pick once.
    let lines = std::fs::read_to_string(&all).unwrap();
    assert_eq!(lines.lines().count(), 4);
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let cands = v["candidates"].as_array().unwrap();
        assert!(cands.len() >= 2, "{v}");
        for c in cands {
            assert!(!c["play"].as_str().unwrap().is_empty(), "{v}");
        }
        let best = cands
            .iter()
            .map(|c| c["equity"].as_f64().unwrap())
            .fold(f64::NEG_INFINITY, f64::max);
        for p in ["easy", "medium", "hard", "hard-classic"] {
            let mine: Vec<_> = cands
                .iter()
                .filter(|c| c["picked_by"].as_array().unwrap().iter().any(|n| n == p))
                .collect();
            assert_eq!(mine.len(), 1, "{p}: {v}");
            let loss = v["losses"][p].as_f64().unwrap();
            assert!((best - mine[0]["equity"].as_f64().unwrap() - loss).abs() < 1e-9);
        }
    }
    for f in [a, b, all] {
        std::fs::remove_file(f).ok();
    }
}

#[test]
fn bad_input_is_refused_clearly() {
    refused(&["--trials", "0"], "--trials must be at least 1");
    refused(&["--threads", "0", "--limit", "1"], "--threads");
    refused(&["--decisions", "0"], "--decisions");
    refused(&["--positions", "/nonexistent/positions.jsonl"], "reading");
    let bad = temp("bad");
    std::fs::write(&bad, "{\"position\": 1}\n").unwrap();
    refused(&["--positions", bad.to_str().unwrap()], "not a decision");
    std::fs::write(
        &bad,
        "{\"position\":{\"turn\":\"white\",\"white\":{\"24\":15},\"black\":{\"12\":15}},\"dice\":[7,1]}\n",
    )
    .unwrap();
    refused(&["--positions", bad.to_str().unwrap()], "bad dice");
    std::fs::write(&bad, "not json\n").unwrap();
    refused(
        &["--judged", bad.to_str().unwrap()],
        "not a judged decision",
    );
    std::fs::remove_file(&bad).ok();
}
