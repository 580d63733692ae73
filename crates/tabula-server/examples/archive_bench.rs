//! The archiver alone, at a set rate (issue 47): finished games are
//! queued straight into the backplane's archive queue (Redis, or the
//! in-process one), so no room, socket or harness limits the rate, and
//! the node's own archiver code (`archiver::round`: `archive_batch` and
//! `rate_pending` at once, as `archiver::run` loops them) moves them
//! into the durable store.
//!
//! ```text
//! createdb -h 127.0.0.1 -U postgres tabula_bench
//! cargo run --release -p tabula-server --example archive_bench -- \
//!     --store postgres://postgres@127.0.0.1:5432/tabula_bench \
//!     --rate 2500 --seconds 60 --players 20000 --rated 0.5
//! ```
//!
//! Options: `--store URL` (`sqlite://…?mode=rwc` or `postgres://…`),
//! `--redis URL` (default `redis://127.0.0.1:6379`; `--in-process` for the
//! in-process backplane), `--rate` games a second fed (0: none fed while
//! measuring), `--seconds` of feeding, `--prefill N` games queued before
//! the clock starts (a ceiling: the rate at which a full queue drains),
//! `--players` in the pool the seats are drawn from (two games of one
//! player in one batch are common with a small pool), `--rated` the share
//! of rated games (between two players, applied in order per player),
//! `--batch` the archiver's batch (`store.archive_batch`), `--archivers`
//! archivers working the one queue (one per node), `--connections` the
//! store's pool.
//!
//! Each second it prints what was fed, archived and rated and the
//! shared backlog; after the feed it waits until the queue is empty and
//! no rating is pending, then checks every game was stored once (the
//! `stored` count equals the games fed, no game refused) and each player's
//! rated games count equals the rated games he was fed.

// A measuring tool: it prints its figures.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::Rng;
use tabula_backplane::{Backplane, InProcess, RedisBackplane, RedisConfig};
use tabula_room::{
    Actor, BotNeed, Command, Event, GameKind, GameRecord, PlayerDelta, PlayerId, Room, RoomConfig,
    SeatId, Spot,
};
use tabula_server::archiver::{self, QueuedEntry, QueuedGame, QueuedSeat};
use tabula_server::metrics::Metrics;
use tabula_store::{DurableStore, Store, StoreConfig};

#[derive(Debug, Clone)]
struct Args {
    store: String,
    redis: Option<String>,
    rate: u64,
    seconds: u64,
    prefill: u64,
    players: u64,
    rated: f64,
    batch: usize,
    archivers: usize,
    connections: u32,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        store: String::new(),
        redis: Some("redis://127.0.0.1:6379".into()),
        rate: 2000,
        seconds: 30,
        prefill: 0,
        players: 20_000,
        rated: 0.5,
        batch: 100,
        archivers: 1,
        connections: 8,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--in-process" {
            a.redis = None;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--store" => a.store = value,
            "--redis" => a.redis = Some(value),
            "--rate" => a.rate = num(&value)?,
            "--seconds" => a.seconds = num(&value)?,
            "--prefill" => a.prefill = num(&value)?,
            "--players" => a.players = num(&value)?.max(2),
            "--rated" => a.rated = value.parse().map_err(|e| format!("{flag}: {e}"))?,
            "--batch" => a.batch = num(&value)? as usize,
            "--archivers" => a.archivers = (num(&value)? as usize).max(1),
            "--connections" => a.connections = num(&value)?.clamp(1, 1000) as u32,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if a.store.is_empty() {
        return Err("--store URL is needed".into());
    }
    Ok(a)
}

/// A whole long nardy game between "a" and "b" (roll, the first legal
/// step, to the end): a record of a real game's size.
fn played_record() -> (GameRecord, Vec<PlayerDelta>) {
    let mut room = Room::new(RoomConfig {
        master_seed: "archive-bench".into(),
        ..RoomConfig::default()
    });
    let (a, b) = (
        Actor::Player(PlayerId::new("a")),
        Actor::Player(PlayerId::new("b")),
    );
    let mut now = 1_000;
    let mut apply = |room: &mut Room, cmd: Command, who: &Actor| {
        now += 100;
        room.apply(cmd, who.clone(), now).is_ok()
    };
    apply(
        &mut room,
        Command::Sit {
            seat: Some(SeatId::A),
        },
        &a,
    );
    apply(
        &mut room,
        Command::Sit {
            seat: Some(SeatId::B),
        },
        &b,
    );
    apply(&mut room, Command::Ready, &a);
    apply(&mut room, Command::Ready, &b);
    for _ in 0..20_000 {
        if !room.records().is_empty() {
            break;
        }
        let Some((seat, need)) = room.game().and_then(|g| g.to_act()) else {
            break;
        };
        let who = if seat == SeatId::A { &a } else { &b };
        match need {
            BotNeed::Roll => {
                apply(&mut room, Command::RollDice, who);
            }
            BotNeed::Move => {
                let first = room.log().iter().rev().find_map(|e| match &*e.event {
                    Event::PossibleMoves { first_steps, .. } => first_steps.first().cloned(),
                    _ => None,
                });
                let Some((from, to)) = first.as_deref().and_then(|s| Spot::parse_step(s).ok())
                else {
                    break;
                };
                apply(&mut room, Command::Move { from, to }, who);
            }
            _ => break,
        }
    }
    if room.records().is_empty() {
        apply(&mut room, Command::Resign, &a);
    }
    let record = room.records().first().cloned().expect("a finished game");
    let deltas = room.deltas(&record.result);
    (record, deltas)
}

struct Feed {
    /// The record's JSON, written once and copied into each game's entry
    /// as text (a room writes its own record once, at its game's end).
    record: Box<serde_json::value::RawValue>,
    game_number: u32,
    deltas: Vec<PlayerDelta>,
    run: String,
    players: u64,
    rated: f64,
    next: AtomicU64,
    rated_of: std::sync::Mutex<HashMap<String, u32>>,
}

impl Feed {
    /// The next game's queue key and entry.
    fn game(&self) -> (String, String) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let mut rng = rand::rng();
        let pa = rng.random_range(0..self.players);
        let mut pb = rng.random_range(0..self.players - 1);
        if pb >= pa {
            pb += 1;
        }
        let ids = [
            format!("tg:{}-{pa}", self.run),
            format!("tg:{}-{pb}", self.run),
        ];
        let rated = rng.random_bool(self.rated.clamp(0.0, 1.0));
        if rated {
            let mut m = self.rated_of.lock().unwrap_or_else(|e| e.into_inner());
            for id in &ids {
                *m.entry(id.clone()).or_default() += 1;
            }
        }
        let deltas = self
            .deltas
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.player = Some(PlayerId::new(ids[d.seat.index()].clone()));
                d
            })
            .collect();
        let entry = QueuedEntry {
            room: format!("{}-{n}", self.run),
            seats: ids.clone().map(|id| QueuedSeat::Player { id }),
            match_length: 1,
            rated,
            finished_ms: now_ms(),
            deltas,
            record: self.record.clone(),
        };
        (
            archiver::queued::key(&entry.room, self.game_number),
            serde_json::to_string(&entry).expect("json"),
        )
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

async fn queue(bp: &dyn Backplane, feed: &Feed, n: u64) {
    let games: Vec<(String, String)> = (0..n).map(|_| feed.game()).collect();
    for chunk in games.chunks(64) {
        let calls = chunk.iter().map(|(k, e)| async move {
            while bp.queue_archive(k, e.clone()).await.is_err() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
        futures_util::future::join_all(calls).await;
    }
}

async fn connect(url: &str, prefix: &str, node: &str) -> RedisBackplane {
    RedisBackplane::connect(
        RedisConfig {
            url: url.to_string(),
            prefix: prefix.to_string(),
            pool_size: 64,
            ..RedisConfig::default()
        },
        node,
    )
    .await
    .expect("redis")
}

fn count(vec: &prometheus::IntCounterVec, label: &str) -> u64 {
    vec.with_label_values(&[label]).get()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("archive_bench: {e}");
            std::process::exit(2);
        }
    };
    let run = format!("ab{}", now_ms());
    let bp: Arc<dyn Backplane> = match &a.redis {
        Some(url) => Arc::new(connect(url, &run, "archiver").await),
        None => Arc::new(InProcess::new("bench")),
    };
    let store: Arc<dyn DurableStore> = Arc::new(
        Store::connect_with(&StoreConfig {
            url: a.store.clone(),
            max_connections: a.connections,
            acquire_timeout_ms: 10_000,
            ..StoreConfig::default()
        })
        .await
        .expect("store"),
    );
    let (record, deltas) = played_record();
    let text = serde_json::to_string(&record).expect("json");
    println!(
        "archive_bench: {:?}; record {} actions, {} bytes of JSON; run {run}",
        a,
        record.actions.len(),
        text.len()
    );
    // A game's entry must read back as the node's own would.
    let sample = QueuedGame {
        room: "sample".into(),
        seats: [
            QueuedSeat::Player { id: "a".into() },
            QueuedSeat::Player { id: "b".into() },
        ],
        match_length: 1,
        rated: false,
        finished_ms: 0,
        deltas: deltas.clone(),
        record: record.clone(),
    };
    let raw = serde_json::value::RawValue::from_string(text).expect("json");
    let spliced = QueuedEntry {
        room: sample.room.clone(),
        seats: sample.seats.clone(),
        match_length: 1,
        rated: false,
        finished_ms: 0,
        deltas: deltas.clone(),
        record: raw.clone(),
    };
    let as_node: serde_json::Value = serde_json::to_value(&sample).expect("json");
    assert_eq!(
        serde_json::to_value(&spliced).expect("json"),
        as_node,
        "the feed's entries are the node's"
    );
    let feed = Arc::new(Feed {
        game_number: record.setup.game_number,
        record: raw,
        deltas,
        run: run.clone(),
        players: a.players,
        rated: a.rated,
        next: AtomicU64::new(0),
        rated_of: Default::default(),
    });
    if a.prefill > 0 {
        let t = Instant::now();
        queue(bp.as_ref(), &feed, a.prefill).await;
        println!("prefilled {} games in {:?}", a.prefill, t.elapsed());
    }
    let metrics = Arc::new(Metrics::new());
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    // The archivers: archiver::run's loop, without its wait when a batch
    // was full (and 10 ms when it was not).
    let mut workers = Vec::new();
    for _ in 0..a.archivers {
        let (bp, store, metrics, stop) = (bp.clone(), store.clone(), metrics.clone(), stop.clone());
        let batch = a.batch;
        workers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let (done, rated) =
                    archiver::round(bp.as_ref(), store.as_ref(), &metrics, batch).await;
                if !matches!((done, rated), (Ok(n), Ok(())) if n >= batch) {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        }));
    }
    // The feed, on a thread and a runtime of its own (as rooms queue
    // from other nodes): rate/100 games every 10 ms.
    let feeder = {
        let (feed, redis, run) = (feed.clone(), a.redis.clone(), run.clone());
        let (rate, seconds) = (a.rate, a.seconds);
        let shared = bp.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                if rate == 0 {
                    return;
                }
                let bp: Arc<dyn Backplane> = match redis {
                    Some(url) => Arc::new(connect(&url, &run, "feeder").await),
                    None => shared,
                };
                let start = Instant::now();
                let mut fed = 0u64;
                let mut tick = tokio::time::interval(Duration::from_millis(10));
                while start.elapsed() < Duration::from_secs(seconds) {
                    tick.tick().await;
                    let due = (start.elapsed().as_secs_f64() * rate as f64) as u64;
                    if due > fed {
                        queue(bp.as_ref(), &feed, due - fed).await;
                        fed = due;
                    }
                }
            })
        })
    };
    let mut last = (0u64, 0u64);
    let mut max_backlog = 0u64;
    let mut feeding_done = None;
    let mut worst_archive_rate = f64::MAX;
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let stored = count(&metrics.archived, "stored");
        let rated = count(&metrics.ratings_applied, "applied");
        let backlog = bp.archive_backlog().await.map(|b| b.games).unwrap_or(0);
        max_backlog = max_backlog.max(backlog);
        let fed = feed.next.load(Ordering::Relaxed);
        let t = t0.elapsed().as_secs_f64();
        println!(
            "t={t:6.1}s fed={fed} stored={stored} (+{}/s) rated={rated} (+{}/s) backlog={backlog} store_errors={}",
            stored - last.0,
            rated - last.1,
            metrics.store_errors.with_label_values(&["archive"]).get()
                + metrics
                    .store_errors
                    .with_label_values(&["apply_rated_game"])
                    .get()
        );
        if feeding_done.is_none() && t > 2.0 {
            worst_archive_rate = worst_archive_rate.min((stored - last.0) as f64);
        }
        last = (stored, rated);
        if feeding_done.is_none() && feeder.is_finished() {
            feeding_done = Some((t, stored));
        }
        if feeding_done.is_some() && backlog == 0 {
            let pending = store.pending_ratings(1).await.map(|p| p.len()).unwrap_or(1);
            if pending == 0 {
                break;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.await;
    }
    let total = t0.elapsed().as_secs_f64();
    let fed = feed.next.load(Ordering::Relaxed);
    let stored = count(&metrics.archived, "stored");
    let refused = count(&metrics.archived, "refused");
    let again = count(&metrics.archived, "already_stored");
    let applied = count(&metrics.ratings_applied, "applied");
    let (feed_end, stored_then) = feeding_done.unwrap_or((total, stored));
    println!(
        "fed {fed} games ({} prefilled); stored {stored}, already stored {again}, refused {refused}; \
         ratings applied {applied}; feeding ended at {feed_end:.1}s with {stored_then} stored; \
         queue empty and no rating pending at {total:.1}s; max backlog {max_backlog}",
        a.prefill
    );
    println!(
        "archive rate: {:.0} games/s overall ({:.0} during the feed; slowest second after 2 s: {:.0})",
        stored as f64 / total,
        stored_then as f64 / feed_end.max(0.001),
        if worst_archive_rate == f64::MAX {
            0.0
        } else {
            worst_archive_rate
        }
    );
    let mut ok = stored == fed && refused == 0;
    // Each player's rated games: one rating step per rated game of his.
    let expected: Vec<(String, u32)> = feed
        .rated_of
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(p, n)| (p.clone(), *n))
        .collect();
    let mut wrong = 0;
    for (player, n) in &expected {
        let games = store
            .rating(player, GameKind::LongNardy)
            .await
            .ok()
            .flatten()
            .map_or(0, |r| r.games);
        if games != *n {
            wrong += 1;
        }
    }
    let rated_games: u32 = expected.iter().map(|(_, n)| *n).sum::<u32>() / 2;
    println!(
        "check: every game stored once: {}; {} players' ratings each counted their {} rated games: {}",
        stored == fed && refused == 0,
        expected.len(),
        rated_games,
        if wrong == 0 {
            "yes".to_string()
        } else {
            format!("NO, {wrong} wrong")
        }
    );
    ok &= wrong == 0 && applied as u32 == rated_games;
    if !ok {
        std::process::exit(1);
    }
}
