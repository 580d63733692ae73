//! The CI smoke scenario: a few hundred matches for well under a minute
//! against a real node on a real socket, with `--assert` deciding the exit
//! status, plus the other modes (a bot seat, Thud!, Telegram `initData`)
//! briefly, and the harness's own refusals of bad arguments.

use std::process::Command;

use tabula_server::Settings;
use tabula_tests::{Node, start};

/// A node on a free port (the system tests' support), as the harness's CI
/// run meets one: the defaults, no bot delay, 1000 messages a second per
/// socket, and Telegram login when given a bot token.
fn local_node(bot_token: Option<&str>) -> Node {
    let mut s = Settings::defaults();
    s.bots.delay_ms = 0;
    s.server.rate_per_sec = 1000;
    s.server.rate_burst = 1000;
    s.server.shutdown_timeout_secs = 1;
    // The harness makes every room from one address.
    s.quotas.address_rooms_burst = 100_000;
    s.quotas.address_rooms_per_minute = 100_000;
    s.quotas.player_rooms_burst = 100_000;
    s.quotas.player_rooms_per_minute = 100_000;
    s.server.max_sockets_per_address = 1_000_000;
    if let Some(t) = bot_token {
        s.auth.bot_token = Some(tabula_server::settings::Secret(t.to_string()));
    }
    start(s)
}

fn load(args: &[&str]) -> (i32, serde_json::Value, String) {
    let report = std::env::temp_dir().join(format!(
        "tabula-load-{}-{}.json",
        std::process::id(),
        args.join("_").len()
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_tabula-load"))
        .args(args)
        .arg("--report")
        .arg(&report)
        .arg("--progress")
        .arg("0")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let v = std::fs::read_to_string(&report)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    (out.status.code().unwrap_or(-1), v, text)
}

#[test]
fn smoke_a_few_hundred_matches_meet_their_thresholds() {
    let node = local_node(None);
    let url = node.addr.to_string();
    let (code, r, text) = load(&[
        "--url",
        &url,
        "--matches",
        "200",
        "--game",
        "backgammon",
        "--ramp-up",
        "3s",
        "--duration",
        "15s",
        "--think",
        "0ms..20ms",
        "--verify",
        "--assert",
        "p99<1s,errors=0,games>=20,lost=0",
    ]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(r["max_sockets"], 400, "{text}");
    assert!(r["action"]["count"].as_u64().unwrap() > 1000, "{text}");
    assert!(r["fanout"]["count"].as_u64().unwrap() > 1000, "{text}");
    assert!(r["verified_games"].as_u64().unwrap() >= 20, "{text}");
    assert!(r["harness"]["cpu_s"].as_f64().is_some(), "{text}");

    // A threshold that cannot be met turns the exit status to 1.
    let (code, _, text) = load(&[
        "--url",
        &url,
        "--matches",
        "2",
        "--ramp-up",
        "0s",
        "--duration",
        "1s",
        "--think",
        "0",
        "--assert",
        "games>=100000",
    ]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("assert FAIL"), "{text}");
}

#[test]
fn several_harness_processes_report_as_one_and_run_chaos_once() {
    let node = local_node(None);
    let url = node.addr.to_string();
    let marks = std::env::temp_dir().join(format!("tabula-load-chaos-{}", std::process::id()));
    let _ = std::fs::remove_file(&marks);
    let chaos = format!("echo ran >> {}", marks.display());
    let (code, r, text) = load(&[
        "--url",
        &url,
        "--matches",
        "31",
        "--procs",
        "3",
        "--game",
        "backgammon",
        "--ramp-up",
        "1s",
        "--duration",
        "7s",
        "--think",
        "0ms..20ms",
        "--chaos-at",
        "3s",
        "--chaos-cmd",
        &chaos,
        "--assert",
        "p99<1s,errors=0,games>=5,lost=0",
    ]);
    let ran = std::fs::read_to_string(&marks).unwrap_or_default();
    let _ = std::fs::remove_file(&marks);
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        ran.lines().count(),
        1,
        "the chaos command runs once: {ran:?}"
    );
    assert_eq!(r["config"]["procs"], 3, "{text}");
    // Every worker's sockets and samples are in the one report.
    assert_eq!(r["max_sockets"], 62, "{text}");
    let answered = r["actions_answered"].as_u64().unwrap();
    assert_eq!(r["action"]["count"].as_u64().unwrap(), answered, "{text}");
    assert!(answered > 500, "{text}");
    // Chaos implies --verify in every worker, and each noted its time.
    assert!(r["verified_games"].as_u64().unwrap() >= 5, "{text}");
    assert!(
        r["chaos_pauses_ms"]["matches"].as_u64().unwrap() > 10,
        "{text}"
    );
}

#[test]
fn with_affinity_both_sockets_of_a_match_go_to_its_rooms_node() {
    // Two nodes that share nothing: a socket on the wrong one cannot find
    // the room, so only affinity plays without errors.
    let (a, b) = (local_node(None), local_node(None));
    let (ua, ub) = (a.addr.to_string(), b.addr.to_string());
    let base = [
        "--url",
        &ua,
        "--url",
        &ub,
        "--matches",
        "6",
        "--game",
        "backgammon",
        "--ramp-up",
        "0s",
        "--duration",
        "3s",
        "--think",
        "0",
        "--assert",
        "errors=0,games>=1",
    ];
    let (code, r, text) = load(&[&base[..], &["--affinity"]].concat());
    assert_eq!(code, 0, "{text}");
    assert_eq!(r["config"]["affinity"], true, "{text}");
    let (code, r, text) = load(&base);
    assert_eq!(code, 1, "{text}");
    assert!(r["errors_total"].as_u64().unwrap() > 0, "{text}");
}

#[test]
fn bots_thud_and_telegram_init_data_work_too() {
    let node = local_node(None);
    let url = node.addr.to_string();
    let (code, r, text) = load(&[
        "--url",
        &url,
        "--matches",
        "4",
        "--bot",
        "1",
        "--game",
        "backgammon",
        "--ramp-up",
        "0s",
        "--duration",
        "4s",
        "--think",
        "0",
        "--assert",
        "errors=0,games>=1",
    ]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(r["max_sockets"], 4, "{text}");
    let (code, _, text) = load(&[
        "--url",
        &url,
        "--matches",
        "4",
        "--game",
        "thud",
        "--ramp-up",
        "0s",
        "--duration",
        "4s",
        "--think",
        "0",
        "--assert",
        "errors=0",
    ]);
    assert_eq!(code, 0, "{text}");

    let token = "123456:load-test-token";
    let node = local_node(Some(token));
    let url = node.addr.to_string();
    let (code, r, text) = load(&[
        "--url",
        &url,
        "--matches",
        "4",
        "--bot-token",
        token,
        "--ramp-up",
        "0s",
        "--duration",
        "3s",
        "--think",
        "0",
        "--assert",
        "errors=0",
    ]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(r["config"]["auth"], "telegram");
    assert!(r["action"]["count"].as_u64().unwrap() > 10, "{text}");
    // Guests are refused by a node with a bot token: counted, not hidden.
    let (code, r, text) = load(&[
        "--url",
        &url,
        "--matches",
        "2",
        "--ramp-up",
        "0s",
        "--duration",
        "2s",
        "--think",
        "0",
        "--assert",
        "errors=0",
    ]);
    assert_eq!(code, 1, "{text}");
    assert!(r["errors_total"].as_u64().unwrap() > 0, "{text}");
}

#[test]
fn bad_arguments_get_one_clear_line_and_exit_2() {
    for args in [
        vec!["--url", "127.0.0.1:1", "--matches", "0"],
        vec!["--url", "127.0.0.1:1", "--game", "chess"],
        vec!["--url", "127.0.0.1:1", "--assert", "speed=fast"],
        vec!["--url", "127.0.0.1:1", "--chaos-cmd", "true"],
        vec!["--url", "127.0.0.1:1", "--procs", "0"],
        vec!["--url", "127.0.0.1:1", "--matches", "2", "--procs", "3"],
        // More sockets than any process may open (the kernel's ceiling is
        // 2^20 files): the message names --procs.
        vec!["--url", "127.0.0.1:1", "--matches", "600000"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tabula-load"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("tabula-load: "), "{args:?}: {err}");
        if args.contains(&"600000") {
            assert!(err.contains("--procs"), "{err}");
        }
    }
}
