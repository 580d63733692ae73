//! Quick match by rating (issue 24) with real nodes: two nodes sharing a
//! Redis and a durable store (one SQLite file) whose players' ratings were
//! seeded through the store. Close ratings meet at once; 250 points apart
//! they wait until the window has widened enough (3 s: 100 points, then
//! 50 a second); 1600 apart until it opens to anyone (three quarters of
//! the bot wait) — people, never the computer.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tabula_tests as common;

use common::cluster::Redis;
use common::*;
use serde_json::{Value, json};
use tabula_room::{EndReason, GameKind, GameResult, ResultKind, SeatId};
use tabula_server::settings::Secret;
use tabula_store::{
    Applied, FinishedGame, GameKey, Games, RatingUpdate, Ratings, Seat, Store, StoreConfig,
};

/// The bot comes after 6 s; the window opens to anyone at 4.5 s.
const BOT_AFTER_MS: u64 = 6_000;

/// Seeds `a`'s and `b`'s backgammon ratings with one rated game between
/// them (`room`), as the archiver would have stored it (also the live
/// games' test's).
pub(crate) async fn seed(store: &Store, room: &str, (a, ra): (&str, f64), (b, rb): (&str, f64)) {
    let game = FinishedGame {
        key: GameKey::new(room, 1),
        kind: GameKind::Backgammon,
        seats: [Seat::Player(a.into()), Seat::Player(b.into())],
        result: GameResult {
            winner: Some(SeatId::A),
            kind: ResultKind::Single,
            reason: EndReason::Resigned,
            base_points: 1,
            cube: 1,
            points: 1,
            thud_totals: None,
        },
        match_length: 1,
        rated: true,
        finished_ms: 1_700_000_000_000,
        record: (&json!({"game": "backgammon", "gameNumber": 1, "actions": []})).into(),
        deltas: Vec::new(),
    };
    store.archive(&game).await.unwrap();
    let up = |player: &str, rating| RatingUpdate {
        player: player.into(),
        previous_games: 0,
        rating,
        deviation: 60.0,
        volatility: 0.06,
    };
    assert_eq!(
        store
            .apply_rated_game(&game.key, &[up(a, ra), up(b, rb)])
            .await
            .unwrap(),
        Applied::Applied
    );
}

/// A guest's id and session token (a socket's `welcome` brings them).
async fn guest(node: SocketAddr, name: &str) -> (String, String) {
    let c = Client::connect(node, name).await;
    (c.player.clone(), c.token.clone().expect("a session token"))
}

/// The player of `token` asks `node` for a backgammon quick match; the
/// answer and how long after `t0` it came.
fn ask(
    node: SocketAddr,
    token: &str,
    t0: Instant,
) -> tokio::task::JoinHandle<((u16, Value), Duration)> {
    let path = format!("/api/quickmatch?token={token}");
    tokio::spawn(async move {
        let r = http_async(node, "POST", &path, Some(json!({"game": "backgammon"}))).await;
        (r, t0.elapsed())
    })
}

/// Two players on two nodes, the second asking 100 ms after the first:
/// both are paired with each other (not with the computer); how long the
/// first waited.
async fn pair(nodes: [SocketAddr; 2], tokens: [&str; 2], what: &str) -> Duration {
    let t0 = Instant::now();
    let first = ask(nodes[0], tokens[0], t0);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = ask(nodes[1], tokens[1], t0);
    let ((r1, took), (r2, _)) = (first.await.unwrap(), second.await.unwrap());
    assert_eq!((r1.0, r2.0), (200, 200), "{what}: {} {}", r1.1, r2.1);
    assert!(r1.1.get("bot").is_none(), "{what}: {}", r1.1);
    assert!(r2.1.get("bot").is_none(), "{what}: {}", r2.1);
    assert_eq!(r1.1["roomId"], r2.1["roomId"], "{what}");
    took
}

#[tokio::test]
async fn players_on_two_nodes_meet_by_rating_as_the_window_widens() {
    let _one = common::one().await;
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start("qm-rating", false);
    let mut s = with_store(test_settings(), dir.path());
    s.cluster.backplane = "redis".into();
    s.redis.url = redis.url();
    s.matchmaking.bot_after_ms = BOT_AFTER_MS;
    // One secret: a token from one node is good on the other.
    s.auth.session_secret = Some(Secret("quickmatch-rating-secret-0123456789".into()));

    let mut s1 = s.clone();
    s1.cluster.node_id = "qm-1".into();
    let mut s2 = s.clone();
    s2.cluster.node_id = "qm-2".into();
    let (n1, n2) = (start(s1), start(s2));
    let nodes = [n1.addr, n2.addr];
    for n in nodes {
        store_reached(n).await;
    }
    // The players (a guest's id is the node's to mint) ...
    let mut ids = Vec::new();
    let mut tokens = Vec::new();
    for (i, name) in ["c1", "c2", "lo", "hi", "v1", "v2", "solo"]
        .iter()
        .enumerate()
    {
        let (id, token) = guest(nodes[i % 2], name).await;
        ids.push(id);
        tokens.push(token);
    }
    let [_c1, c2, lo, hi, v1, v2, _solo] = <[String; 7]>::try_from(ids).unwrap();
    // ... and their ratings, through the store, on the nodes' file (c1
    // has none: 1500).
    let store = Store::connect_with(&StoreConfig {
        url: s.store.url.clone(),
        ..StoreConfig::default()
    })
    .await
    .unwrap();
    seed(
        &store,
        "seed-close",
        (&c2, 1560.0),
        ("guest:seed-x", 1500.0),
    )
    .await;
    seed(&store, "seed-far", (&lo, 1200.0), (&hi, 1450.0)).await;
    seed(&store, "seed-apart", (&v1, 800.0), (&v2, 2400.0)).await;
    assert_eq!(
        store
            .rating(&hi, GameKind::Backgammon)
            .await
            .unwrap()
            .map(|r| r.rating),
        Some(1450.0)
    );
    drop(store);
    let t = |i: usize| tokens[i].as_str();

    // 60 apart (c1 has no rating: 1500): at once.
    let took = pair(nodes, [t(0), t(1)], "close").await;
    assert!(took < Duration::from_millis(1_500), "close: {took:?}");

    // 250 apart: not at once; when the first has waited 3 s.
    let took = pair(nodes, [t(2), t(3)], "far").await;
    assert!(
        took >= Duration::from_millis(2_900) && took < Duration::from_millis(4_400),
        "far: {took:?}"
    );

    // 1600 apart: the window would need 30 s; it opens at 4.5 s, before
    // the computer at 6 s.
    let took = pair(nodes, [t(4), t(5)], "apart").await;
    assert!(
        took >= Duration::from_millis(4_400) && took < Duration::from_millis(BOT_AFTER_MS),
        "apart: {took:?}"
    );

    // Alone: the computer after the wait, as before.
    let (r, took) = ask(nodes[1], t(6), Instant::now()).await.unwrap();
    assert_eq!((r.0, &r.1["bot"]), (200, &json!(1)), "{}", r.1);
    assert!(took >= Duration::from_millis(BOT_AFTER_MS), "{took:?}");
}
