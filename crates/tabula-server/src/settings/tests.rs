//! The settings' defaults, environment overrides and validation.

use super::check::valid_peer;
use super::*;

#[test]
fn peers_are_host_and_port() {
    for ok in [
        "10.0.0.2:8080",
        "tabula-peers.default.svc:8080",
        "[::1]:8080",
    ] {
        assert!(valid_peer(ok), "{ok}");
    }
    for bad in [
        "10.0.0.2",
        "host:",
        ":8080",
        "host:0",
        "a b:80",
        "http://x:80",
    ] {
        assert!(!valid_peer(bad), "{bad}");
    }
    let mut s = Settings::defaults();
    s.cluster.peers = vec!["tabula-peers:8080".into(), "nowhere".into()];
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("cluster.peers") && e.contains("nowhere"), "{e}");
    let mut s = Settings::defaults();
    s.cluster.peer_timeout_ms = s.redis.lease_ms;
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("cluster.peer_timeout_ms")
    );
}

#[test]
fn defaults_are_valid() {
    let s = Settings::defaults();
    assert_eq!(s.server.listen, "127.0.0.1:8080");
    assert!(s.auth.guest);
    assert!(s.auth.guest_enabled());
    assert_eq!(s.auth.init_data_max_age_secs, 86_400);
    assert_eq!(s.auth.session_ttl_secs, 3600);
    assert!(s.auth.bot_token.is_none() && s.auth.session_secret.is_none());
}

#[test]
fn a_bot_token_turns_guests_off_unless_forced() {
    let mut s = Settings::defaults();
    s.auth.bot_token = Some(Secret("123:abc".into()));
    assert!(!s.auth.guest_enabled());
    s.auth.force_guest = true;
    assert!(s.auth.guest_enabled());
    s.auth.guest = false;
    assert!(!s.auth.guest_enabled());
    assert!(
        !format!("{s:?}").contains("123:abc"),
        "secrets are redacted"
    );
}

#[test]
fn bad_auth_values_name_their_key() {
    let check = |f: &dyn Fn(&mut Settings), key: &str| {
        let mut s = Settings::defaults();
        f(&mut s);
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    };
    check(&|s| s.auth.session_ttl_secs = 0, "auth.session_ttl_secs");
    check(
        &|s| s.auth.init_data_max_age_secs = 0,
        "auth.init_data_max_age_secs",
    );
    check(
        &|s| s.auth.bot_token = Some(Secret("nocolon".into())),
        "auth.bot_token",
    );
    check(
        &|s| s.auth.session_secret = Some(Secret("short".into())),
        "auth.session_secret",
    );
    check(
        &|s| s.auth.telegram_public_key = "abcd".into(),
        "auth.telegram_public_key",
    );
    check(
        &|s| s.auth.telegram_env = "staging".into(),
        "auth.telegram_public_key",
    );
}

#[test]
fn secrets_in_config_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("tabula-cfg-secret-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("prod.toml"), "[auth]\nbot_token = \"1:x\"\n").unwrap();
    let e = Settings::build(Some(&dir), Some("prod"), false).unwrap_err();
    assert!(e.to_string().contains("auth.bot_token"), "{e}");
    assert!(e.to_string().contains("TABULA__AUTH__BOT_TOKEN"), "{e}");
    std::fs::write(
        dir.join("prod2.toml"),
        "[auth]\nsession_secret = \"0123456789abcdef0123456789abcdef\"\n",
    )
    .unwrap();
    let e = Settings::build(Some(&dir), Some("prod2"), false).unwrap_err();
    assert!(e.to_string().contains("auth.session_secret"), "{e}");
}

#[test]
fn bad_values_name_their_key() {
    let mut s = Settings::defaults();
    s.server.listen = "nowhere".into();
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("server.listen")
    );
    let mut s = Settings::defaults();
    s.matchmaking.bot_level = 9;
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("matchmaking.bot_level")
    );
}

#[test]
fn the_archive_batch_is_one_to_five_thousand() {
    // A million concurrent matches finish ~1,700 games a second; one
    // PostgreSQL keeps up with batches of 2,000 (loadtest/RESULTS.md).
    assert_eq!(Settings::defaults().store.archive_batch, 1000);
    for (batch, ok) in [
        (0, false),
        (1, true),
        (2000, true),
        (5000, true),
        (5001, false),
    ] {
        let mut s = Settings::defaults();
        s.store.archive_batch = batch;
        match s.validate() {
            Ok(()) => assert!(ok, "{batch} accepted"),
            Err(e) => {
                assert!(!ok, "{batch} refused: {e}");
                assert!(e.to_string().contains("store.archive_batch"), "{e}");
            }
        }
    }
}

#[test]
fn replica_acks_need_a_wait_shorter_than_the_call() {
    let mut s = Settings::defaults();
    s.redis.min_replicas_acked = 1;
    s.validate().unwrap();
    for bad in [0, s.redis.timeout_ms, s.redis.timeout_ms + 1] {
        s.redis.replica_ack_timeout_ms = bad;
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("redis.replica_ack_timeout_ms"),
            "{bad}"
        );
    }
    // Off, the wait is not used and not checked.
    s.redis.min_replicas_acked = 0;
    s.validate().unwrap();
}

#[test]
fn quotas_are_validated() {
    let s = Settings::defaults();
    assert!(s.quotas.max_rooms >= 10_000, "{:?}", s.quotas);
    assert_eq!(s.quotas.trusted_proxy_hops, 0);
    type Edit = fn(&mut Settings);
    let cases: [(Edit, &str); 5] = [
        (
            |s| s.quotas.player_rooms_burst = 0,
            "quotas.player_rooms_per_minute",
        ),
        (
            |s| s.quotas.address_rooms_per_minute = 0,
            "quotas.address_rooms_per_minute",
        ),
        (
            |s| s.quotas.address_rooms_burst = 0,
            "quotas.address_rooms_per_minute",
        ),
        (
            |s| s.quotas.trusted_proxy_hops = 9,
            "quotas.trusted_proxy_hops",
        ),
        (|s| s.quotas.max_rooms = 0, "quotas.max_rooms"),
    ];
    for (edit, key) in cases {
        let mut s = Settings::defaults();
        edit(&mut s);
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
}

#[test]
fn web_dir_defaults_to_the_checkout_and_is_validated() {
    let s = Settings::defaults();
    assert_eq!(s.web.dir, "web");
    assert!(!s.testing.allow_start_position, "test switches are off");
    // Found from the crate directory too (cargo test runs there).
    let found = s.web.resolve().expect("the repository's web/ is found");
    assert!(found.join("index.html").is_file(), "{found:?}");
    let mut s = Settings::defaults();
    s.web.dir = String::new();
    assert!(s.validate().is_ok() && s.web.resolve().is_none());
    s.web.dir = "/nonexistent/tabula-web".into();
    assert!(s.validate().is_ok(), "a missing dir only warns at start");
    assert!(s.web.resolve().is_none());
    s.web.dir = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml").into();
    let e = s.validate().unwrap_err().to_string();
    assert!(
        e.contains("web.dir") && e.contains("not a directory"),
        "{e}"
    );
    s.web.dir = "a\0b".into();
    assert!(s.validate().unwrap_err().to_string().contains("web.dir"));
    let mut s = Settings::defaults();
    s.web.telegram_app_url = "https://t.me/tabula_bot/play".into();
    assert!(s.validate().is_ok());
    s.web.telegram_app_url = "http://example.com/?x".into();
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("web.telegram_app_url"), "{e}");
}

#[test]
fn files_overlay_defaults() {
    let dir = std::env::temp_dir().join(format!("tabula-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("test.toml"), "[rooms]\ngrace_ms = 5\n").unwrap();
    let s = Settings::build(Some(&dir), Some("test"), false).unwrap();
    assert_eq!(s.rooms.grace_ms, 5);
    std::fs::write(dir.join("bad.toml"), "[server]\nworkers = \"many\"\n").unwrap();
    let e = Settings::build(Some(&dir), Some("bad"), false).unwrap_err();
    assert!(e.to_string().contains("server.workers"), "{e}");
}
