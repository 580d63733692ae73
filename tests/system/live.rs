//! The lobby's live games, open challenges and online count (issue 46)
//! on three nodes sharing a real Redis and a durable store (one SQLite
//! file) whose players' ratings were seeded through the store: games
//! played on two nodes are listed by the third, highest-rated first, and
//! leave the list when they end; the sockets of all nodes are counted; an
//! open challenge made on one node is listed on another, where a third
//! player takes its seat, and it becomes a live game.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tabula_tests as common;

use common::cluster::Redis;
use common::*;
use serde_json::{Value, json};
use tabula_server::settings::Secret;
use tabula_store::{Store, StoreConfig};

/// `GET /api/live` on `node` until `pred` holds (at most 10 s: a listing
/// is renewed every 3 s).
async fn live_until(node: SocketAddr, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = http_async(node, "GET", "/api/live", None).await;
        assert_eq!(status, 200, "{v}");
        if pred(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn rooms(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|g| g["roomId"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Two clients (on `homes`) seated in a new backgammon room made on
/// `owner`, both ready: the game is on.
async fn game(owner: SocketAddr, a: &mut Client, b: &mut Client) -> String {
    let room = create_room(owner, json!({"game": "backgammon"})).await;
    for c in [&mut *a, &mut *b] {
        let st = c.join(&room).await;
        assert_eq!(st["type"], "state", "{st}");
    }
    both_ready(a, b).await;
    room
}

#[tokio::test]
async fn live_games_are_listed_by_rating_on_every_node_and_open_challenges_taken() {
    let _one = common::one().await;
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start("live", false);
    let mut s = with_store(test_settings(), dir.path());
    s.cluster.backplane = "redis".into();
    s.redis.url = redis.url();
    s.auth.session_secret = Some(Secret("live-games-secret-0123456789abcdef".into()));
    let nodes: Vec<Node> = (1..=3)
        .map(|i| {
            let mut si = s.clone();
            si.cluster.node_id = format!("live-{i}");
            start(si)
        })
        .collect();
    let [n1, n2, n3] = [nodes[0].addr, nodes[1].addr, nodes[2].addr];
    for n in [n1, n2, n3] {
        store_reached(n).await;
    }
    // Nobody yet.
    let v = live_until(n3, "empty", |v| v["online"] == 0).await;
    assert_eq!(
        (rooms(&v, "games").len(), rooms(&v, "challenges").len()),
        (0, 0)
    );

    // Players on nodes 1 and 2; hi1 and hi2 are rated, g1 and g2 not.
    let mut g1 = Client::connect(n1, "g1").await;
    let mut g2 = Client::connect(n2, "g2").await;
    let mut hi1 = Client::connect(n1, "hi1").await;
    let mut hi2 = Client::connect(n2, "hi2").await;
    let store = Store::connect_with(&StoreConfig {
        url: s.store.url.clone(),
        ..StoreConfig::default()
    })
    .await
    .unwrap();
    crate::quickmatch_rating::seed(
        &store,
        "seed-hi",
        (&hi1.player, 1900.0),
        (&hi2.player, 1700.0),
    )
    .await;
    // The unrated game starts first: the order is by rating, not age.
    let low = game(n1, &mut g1, &mut g2).await;
    let high = game(n2, &mut hi1, &mut hi2).await;

    // Node 3 holds neither room nor socket, and sees both games, the
    // rated one first, and the four sockets of the other nodes.
    let v = live_until(n3, "two games", |v| {
        rooms(v, "games").len() == 2 && v["online"] == 4
    })
    .await;
    assert_eq!(rooms(&v, "games"), [high.clone(), low.clone()], "{v}");
    let top = &v["games"][0];
    assert_eq!(top["game"], "backgammon");
    assert_eq!(top["players"][0]["id"], hi1.player.as_str());
    assert_eq!(top["players"][0]["rating"], 1900);
    assert_eq!(top["players"][1]["rating"], 1700);
    assert!(
        top["players"][0]["name"]
            .as_str()
            .is_some_and(|n| !n.is_empty()),
        "{v}"
    );
    assert!(v["games"][1]["players"][0].get("rating").is_none(), "{v}");
    // Node 1 answers the same.
    let v1 = live_until(n1, "the same on node 1", |v| rooms(v, "games").len() == 2).await;
    assert_eq!(rooms(&v1, "games"), [high.clone(), low.clone()]);

    // A spectator from node 3 is counted.
    let mut watcher = Client::connect(n3, "watcher").await;
    watcher
        .send(json!({"type": "join", "room": high, "spectate": true}))
        .await;
    let st = watcher
        .until(|m| m["type"] == "state" || m["type"] == "error")
        .await;
    assert_eq!(st["type"], "state", "{st}");
    live_until(n2, "a spectator", |v| {
        v["games"][0]["spectators"] == 1 && v["online"] == 5
    })
    .await;

    // The rated game ends (a resignation): it leaves the list.
    let r = hi1.call(json!({"type": "resign"})).await;
    assert_ne!(r["type"], "error", "{r}");
    let t0 = Instant::now();
    let v = live_until(n3, "the finished game gone", |v| {
        rooms(v, "games") == [low.clone()]
    })
    .await;
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "{:?} {v}",
        t0.elapsed()
    );

    // An open challenge made on node 1, its maker seated and waiting ...
    let mut maker = Client::connect(n1, "maker").await;
    let (status, made) = http_async(
        n1,
        "POST",
        "/api/rooms",
        Some(json!({"game": "backgammon", "open": true})),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let open = made["roomId"].as_str().unwrap().to_string();
    let st = maker.join(&open).await;
    assert_eq!(st["type"], "state", "{st}");
    // ... is listed on node 2, where a third player takes the seat.
    let v = live_until(n2, "the challenge", |v| {
        rooms(v, "challenges") == [open.clone()]
    })
    .await;
    assert_eq!(
        v["challenges"][0]["players"][0]["id"],
        maker.player.as_str()
    );
    assert_eq!(
        v["challenges"][0]["players"].as_array().map(Vec::len),
        Some(1)
    );
    let mut taker = Client::connect(n2, "taker").await;
    let st = taker.join(&open).await;
    assert_eq!(st["type"], "state", "{st}");
    assert_eq!(
        st["state"]["seats"][1]["player"],
        taker.player.as_str(),
        "{st}"
    );
    both_ready(&mut maker, &mut taker).await;
    // Taken: off the challenges, on the live games.
    let v = live_until(n3, "the challenge taken and played", |v| {
        rooms(v, "challenges").is_empty() && rooms(v, "games").contains(&open)
    })
    .await;
    assert_eq!(rooms(&v, "games").len(), 2, "{v}");

    // An open challenge is for people: with a bot it is refused.
    let (status, v) = http_async(
        n1,
        "POST",
        "/api/rooms",
        Some(json!({"game": "backgammon", "open": true, "bot": {"level": 1}})),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["code"], "bad_request", "{v}");
    // Sockets closed leave the count.
    drop((g1, g2, hi1, hi2, watcher));
    live_until(n3, "the count after sockets closed", |v| v["online"] == 2).await;
    drop(store);
}

/// A correspondence challenge waits for a taker in the lobby while its
/// maker is away, past the room's unload, for `rooms.forget_after_ms`
/// after he left; a challenge played at once leaves the list as soon as
/// its maker leaves (nobody would be there to play it).
#[tokio::test]
async fn a_correspondence_challenge_stays_listed_while_its_maker_is_away() {
    let _one = common::one().await;
    let mut s = test_settings();
    s.rooms.unload_after_ms = 1000;
    s.rooms.forget_after_ms = 8000;
    let node = start(s);
    let n = node.addr;
    let open = |tc: &str| json!({"game": "backgammon", "open": true, "timeControl": tc});
    let mut made = Vec::new();
    for (who, tc) in [("corr-maker", "1d"), ("live-maker", "normal")] {
        let mut maker = Client::connect(n, who).await;
        let (status, v) = http_async(n, "POST", "/api/rooms", Some(open(tc))).await;
        assert_eq!(status, 201, "{v}");
        let room = v["roomId"].as_str().unwrap().to_string();
        let st = maker.join(&room).await;
        assert_eq!(st["type"], "state", "{st}");
        made.push((maker, room));
    }
    let (corr, live) = (made[0].1.clone(), made[1].1.clone());
    live_until(n, "both challenges", |v| {
        let c = rooms(v, "challenges");
        c.contains(&corr) && c.contains(&live)
    })
    .await;
    // Both makers close the app.
    let left = Instant::now();
    drop(made);
    live_until(n, "the live challenge gone", |v| {
        rooms(v, "challenges") == [corr.clone()]
    })
    .await;
    // Past the unload (1 s) and two listings: the correspondence one is
    // still listed, so its room is still held.
    tokio::time::sleep(Duration::from_millis(6500).saturating_sub(left.elapsed())).await;
    let (_, v) = http_async(n, "GET", "/api/live", None).await;
    assert_eq!(rooms(&v, "challenges"), std::slice::from_ref(&corr), "{v}");
    // Its wait is over 8 s after he left: it unloads and leaves the list.
    live_until(n, "the correspondence challenge's wait over", |v| {
        rooms(v, "challenges").is_empty()
    })
    .await;
    assert!(
        left.elapsed() >= Duration::from_millis(8000),
        "{:?}",
        left.elapsed()
    );

    // Another one, taken while its maker is away: a taker joins it from
    // the list and it leaves the list.
    let mut maker = Client::connect(n, "corr-maker-2").await;
    let (status, v) = http_async(n, "POST", "/api/rooms", Some(open("3d"))).await;
    assert_eq!(status, 201, "{v}");
    let room = v["roomId"].as_str().unwrap().to_string();
    assert_eq!(maker.join(&room).await["type"], "state");
    drop(maker);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    live_until(n, "listed while away", |v| {
        rooms(v, "challenges") == [room.clone()]
    })
    .await;
    let mut taker = Client::connect(n, "corr-taker").await;
    let st = taker.join(&room).await;
    assert_eq!(st["type"], "state", "{st}");
    assert_eq!(
        st["state"]["seats"][1]["player"],
        taker.player.as_str(),
        "{st}"
    );
    live_until(n, "taken", |v| rooms(v, "challenges").is_empty()).await;
}
