//! Leaderboard speed at a million rated players, on SQLite and PostgreSQL:
//! the all-time board, then this week's.
//!
//! ```sh
//! cargo run --release -p tabula-store --example leaderboard -- \
//!     [--players 1000000] [--backend both|sqlite|postgres] [--lookups 2000] [--pages 500] \
//!     [--active 50000] [--week-lookups 300] [--week-pages 100] [--explain 1]
//! ```
//!
//! `--explain 1` also prints each backend's plan of the queries (for the
//! worst player's rank, and the top 100; all time and this week).
//!
//! Method: `--players` players, each with a profile and a long nardy
//! rating, are bulk loaded (`Store::bulk_load`: the rows and bucket
//! counts the store keeps, written by `COPY` on PostgreSQL and by
//! `INSERT … SELECT … FROM json_each` on SQLite), then `ANALYZE`.
//! Ratings are normally distributed (mean
//! 1500, deviation 350, rounded to 0.01, so the board has ties), player
//! ids are `tg:<n>`. Each figure is one call through the store's public
//! API (`Leaderboards::standing` / `Leaderboards::top`), timed end to end
//! in the calling task: the query, the round trip (PostgreSQL: its unix
//! socket) and the decoding. Rank lookups are of players drawn uniformly
//! at random (seeded), plus the best, the median and the worst player
//! (the last: the longest sum of buckets above); a top-100 page is the
//! first 100 rows with names. After 100 warm-up calls of each, latencies
//! are reported as p50 / p99 / max. SQLite is a WAL file in a temporary
//! directory; PostgreSQL is `tabula_store::testing::PgServer` (Debian's
//! server, default settings but fsync off — reads do not fsync).
//!
//! Measured (`cargo run --release -p tabula-store --example leaderboard --
//! --explain 1`: 1,000,000 players; a 2-vCPU Intel Xeon VM with 23 GiB,
//! shared with other builds at a load average near 2; SQLite 3.51.3
//! bundled, PostgreSQL 15.20 from Debian 12; ms):
//!
//! | | SQLite p50 / p99 / max | PostgreSQL p50 / p99 / max |
//! |---|---|---|
//! | rank, 2,000 random players | 0.49 / 1.96 / 6.1 | 1.23 / 6.05 / 14.9 |
//! | rank, the best player | 0.36 / 0.67 / 0.68 | 0.53 / 5.37 / 5.9 |
//! | rank, the median player | 0.48 / 4.79 / 5.2 | 0.85 / 4.80 / 6.0 |
//! | rank, the worst player | 0.53 / 1.13 / 1.7 | 0.65 / 3.91 / 3.9 |
//! | top 100 with names, 500 pages | 1.41 / 6.82 / 11.0 | 0.72 / 4.55 / 5.6 |
//!
//! Load and `ANALYZE`: 17.7 s (SQLite), 10.7 s (PostgreSQL). The plans:
//! the rank reads the player's row by key, the bucket table (about 2,700
//! rows: SQLite by index, PostgreSQL by a scan of its 20 pages) and two
//! index-only ranges of `ratings_board` inside one whole point (0 to ~30
//! rows here); the top page is the first 100 entries of `ratings_board`,
//! each joined to `players` by key (PostgreSQL: 503 buffer hits, 1.1 ms
//! executing). Two single calls took over 10 ms (one SQLite top page of
//! 500, one PostgreSQL rank of 2,000), on a machine other builds were
//! using; every p99 is under 7 ms.
//!
//! # This week
//!
//! Method: the players' `last_rated_ms` and rating history are drawn
//! first (seeded): every player has 1 or 2 rated games in the year before
//! the week of Monday 2024-03-11, and `--active` players drawn uniformly
//! have 1 to 5 more in that week; each rating's `last_rated_ms` is its
//! latest game's end, as `apply_rated_game` keeps it. The history rows
//! are bulk loaded after the all-time figures
//! (`Store::bulk_load_history`), then `ANALYZE`. The week's top page
//! and the best, median and worst active players' ranks are checked
//! against a sort; then `Leaderboards::standing_since` of active players
//! drawn at random, of the best and of the worst, and
//! `Leaderboards::top_since` pages of 100, timed as above after 20
//! warm-up calls.
//!
//! `bulk_load` recounts the week's bucket counts (`period_buckets`, the
//! week of the latest `last_rated_ms` and the one before), as
//! `apply_rated_game` keeps them, so the week's queries take the path the
//! node's do.
//!
//! Measured (`cargo run --release -p tabula-store --example leaderboard --
//! --players 1000000 --active 50000 --week-lookups 300 --week-pages 300
//! --explain 1`: 1,000,000 players, 50,000 active, 1,650,628 history rows
//! of which 149,632 this week; the same kind of VM, a shared 2-vCPU VM
//! whose load average other builds kept between 1.6 and 7.7 during the
//! run; ms):
//!
//! | | SQLite p50 / p99 / max | PostgreSQL p50 / p99 / max |
//! |---|---|---|
//! | week rank, 300 random active players | 0.59 / 1.19 / 1.3 | 1.53 / 4.45 / 4.8 |
//! | week rank, the best active player | 0.47 / 0.73 / 0.73 | 0.46 / 0.55 / 0.55 |
//! | week rank, the worst active player | 0.62 / 0.93 / 0.93 | 0.72 / 0.84 / 0.84 |
//! | week top 100 with names, 300 pages | 2.95 / 5.23 / 5.9 | 4.28 / 5.84 / 7.2 |
//!
//! Under the 10 ms target, every call of that run. A second run of the
//! same command (without `--explain`) while other builds kept the load
//! average between 5.6 and 6.6: SQLite 0.48 / 3.83 / 5.7 for a random
//! rank and 4.31 / 8.35 / 9.7 for a page; PostgreSQL 1.95 / 4.77 / 10.2
//! and 5.13 / 11.9 / 17.7 — every p50 well under 10 ms, PostgreSQL's
//! page p99 just over it on a machine that busy. The plans: the rank
//! reads his row by key, `period_weeks` (one row), the week's bucket
//! counts (about 2,100 rows: SQLite by its key, PostgreSQL a bitmap scan
//! and a scan of 36 pages) and one whole point of `ratings_board_period`
//! (SQLite covering; 0 to ~1,200 entries); the page's plan reads the two
//! bucket tables, then walks the board down to the week's 100th player's
//! whole point (here 2,504: SQLite `SEARCH … USING COVERING INDEX
//! ratings_board_period (game_kind=? AND rating>?)`; PostgreSQL an Index
//! Scan of `ratings_board`, 1,995 entries for 100 kept, 2,015 buffer hits,
//! 5.6 ms of its 7.4 ms executing under EXPLAIN ANALYZE — the table
//! freshly loaded and not vacuumed, it preferred the smaller index with
//! heap fetches to an index-only scan). The range and sort the page falls
//! back to in a small week took 63 ms executing here on PostgreSQL (the
//! previous version, 30 / 50 ms p50 / p99 on SQLite, 32 / 53 ms on
//! PostgreSQL; its rank 20–32 / 43 and 55–65 / 97–168 ms); reading the
//! week's range of `rating_history_week`, the first version, took 0.9 to
//! 1.5 s on both. How the counts are kept: the `sql` module's docs
//! (*Period boards*).
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use tabula_room::GameKind;
use tabula_store::sql::{SeedHistory, SeedRating};
use tabula_store::testing::PgServer;
use tabula_store::{Leaderboards, ProfileUpdate, Rating, Store, StoreConfig, week_start_ms};

const KIND: GameKind = GameKind::LongNardy;

const DAY_MS: u64 = 86_400_000;

/// The measured week: Monday 2024-03-11 00:00 UTC.
const WEEK: u64 = 1_710_115_200_000;

struct Args {
    players: u64,
    backends: Vec<&'static str>,
    lookups: usize,
    pages: usize,
    explain: bool,
    active: u64,
    week_lookups: usize,
    week_pages: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        players: 1_000_000,
        backends: vec!["sqlite", "postgres"],
        lookups: 2000,
        pages: 500,
        explain: false,
        active: 50_000,
        week_lookups: 300,
        week_pages: 100,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--players" => a.players = number()?,
            "--lookups" => a.lookups = number()? as usize,
            "--pages" => a.pages = number()? as usize,
            "--explain" => a.explain = number()? != 0,
            "--active" => a.active = number()?,
            "--week-lookups" => a.week_lookups = number()? as usize,
            "--week-pages" => a.week_pages = number()? as usize,
            "--backend" => {
                a.backends = match value.as_str() {
                    "both" => vec!["sqlite", "postgres"],
                    "sqlite" => vec!["sqlite"],
                    "postgres" => vec!["postgres"],
                    other => return Err(format!("unknown backend {other}")),
                }
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

/// splitmix64: the same players on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal deviate (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(f64::MIN_POSITIVE);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The rating history: every player with 1 or 2 rated games in the year
/// before the week, and `active` players drawn (seeded) from `ratings`
/// with 1 to 5 more in the week; each rating's `last_rated_ms` is his
/// last game's end, as `apply_rated_game` keeps it. The active players'
/// indexes, sorted, and the rows.
fn week(ratings: &mut [SeedRating], active: u64) -> (Vec<usize>, Vec<SeedHistory>) {
    assert_eq!(week_start_ms(WEEK + 3 * DAY_MS), WEEK);
    let mut rng = Rng(99);
    let n = ratings.len();
    let mut chosen = vec![false; n];
    let mut picked = 0;
    while picked < active.min(n as u64) {
        let i = (rng.next() % n as u64) as usize;
        if !std::mem::replace(&mut chosen[i], true) {
            picked += 1;
        }
    }
    let mut rows = Vec::new();
    let mut actives = Vec::new();
    for (i, r) in ratings.iter_mut().enumerate() {
        // Everyone: 1 or 2 games in the year before the week.
        let mut ends = Vec::new();
        for _ in 0..1 + rng.next() % 2 {
            ends.push(WEEK - 364 * DAY_MS + rng.next() % (364 * DAY_MS));
        }
        if chosen[i] {
            actives.push(i);
            for _ in 0..1 + rng.next() % 5 {
                ends.push(WEEK + rng.next() % (7 * DAY_MS));
            }
        }
        ends.sort_unstable();
        ends.dedup();
        r.rating.last_rated_ms = *ends.last().unwrap_or(&WEEK);
        for (j, end) in ends.iter().enumerate() {
            rows.push(SeedHistory {
                player: r.player.clone(),
                kind: KIND,
                rated_ms: *end,
                room: format!("w{i}"),
                game: j as u32 + 1,
                rating: r.rating.rating,
                deviation: r.rating.deviation,
                volatility: r.rating.volatility,
            });
        }
    }
    (actives, rows)
}

fn population(players: u64) -> (Vec<ProfileUpdate>, Vec<SeedRating>) {
    let mut rng = Rng(2024);
    let mut profiles = Vec::with_capacity(players as usize);
    let mut ratings = Vec::with_capacity(players as usize);
    for i in 0..players {
        let id = format!("tg:{}", 100_000 + i);
        profiles.push(ProfileUpdate {
            player: id.clone(),
            display_name: format!("Player {i}"),
            username: Some(format!("player{i}")),
            photo_url: Some(format!("https://t.me/i/userpic/320/{i}.jpg")),
            language: Some("ru".into()),
        });
        let rating = ((1500.0 + 350.0 * rng.normal()).clamp(100.0, 3500.0) * 100.0).round() / 100.0;
        ratings.push(SeedRating {
            player: id,
            kind: KIND,
            rating: Rating {
                rating,
                deviation: 45.0 + 300.0 * rng.unit(),
                volatility: 0.06,
                games: 1 + (rng.next() % 500) as u32,
                last_rated_ms: 1_700_000_000_000 + rng.next() % 10_000_000_000,
            },
        });
    }
    (profiles, ratings)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "  {what:<28} n={:<5} p50 {:>7.3} ms   p99 {:>7.3} ms   max {:>7.3} ms",
        times.len(),
        ms(at(0.50)),
        ms(at(0.99)),
        ms(times[times.len() - 1])
    );
}

/// The plans of the weekly standing (of `worst`, from the week's bucket
/// counts) and top queries (the walk down to `bound`, and the range and
/// sort it falls back to).
async fn explain_week(url: &str, worst: &str, bound: f64) -> Result<(), String> {
    use sqlx::{AssertSqlSafe, Row};
    use tabula_store::sql::leaderboard::{STANDING_SINCE_BUCKETS, TOP_SINCE, TOP_SINCE_WALK};
    let e = |e: sqlx::Error| e.to_string();
    let kind = "long_nardy";
    let since = WEEK as i64;
    let next = since + 7 * DAY_MS as i64;
    let sqlite = url.starts_with("sqlite:");
    let prefix = if sqlite {
        "EXPLAIN QUERY PLAN "
    } else {
        "EXPLAIN (ANALYZE, BUFFERS) "
    };
    for (what, sql) in [
        ("week rank", STANDING_SINCE_BUCKETS),
        ("week top 100, walk", TOP_SINCE_WALK),
        ("week top 100, range", TOP_SINCE),
    ] {
        println!("  plan of {what}:");
        let text = AssertSqlSafe(format!("{prefix}{sql}"));
        macro_rules! binds {
            ($q:expr) => {{
                let q = $q.bind(kind).bind(since);
                match what {
                    "week rank" => q.bind(worst).bind(next),
                    "week top 100, walk" => q.bind(100i64).bind(bound),
                    _ => q.bind(100i64),
                }
            }};
        }
        let lines: Vec<String> = if sqlite {
            let pool = sqlx::SqlitePool::connect(url).await.map_err(e)?;
            let rows = binds!(sqlx::query(text))
                .fetch_all(&pool)
                .await
                .map_err(e)?;
            pool.close().await;
            rows.iter()
                .map(|r| r.try_get::<String, _>("detail").map_err(e))
                .collect::<Result<_, _>>()?
        } else {
            let pool = sqlx::PgPool::connect(url).await.map_err(e)?;
            let rows = binds!(sqlx::query(text))
                .fetch_all(&pool)
                .await
                .map_err(e)?;
            pool.close().await;
            rows.iter()
                .map(|r| r.try_get::<String, _>(0).map_err(e))
                .collect::<Result<_, _>>()?
        };
        for line in lines {
            println!("    {line}");
        }
    }
    Ok(())
}

/// The plans of the standing (of `worst`) and top queries, as the
/// database prints them.
async fn explain(url: &str, worst: &str) -> Result<(), String> {
    use sqlx::{AssertSqlSafe, Row};
    use tabula_store::sql::leaderboard::{STANDING, TOP};
    let e = |e: sqlx::Error| e.to_string();
    let kind = "long_nardy";
    if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(url).await.map_err(e)?;
        for (what, sql, first) in [("rank", STANDING, worst), ("top 100", TOP, kind)] {
            println!("  plan of {what}:");
            let q = AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}"));
            let mut q = sqlx::query(q).bind(first);
            q = if what == "rank" {
                q.bind(kind)
            } else {
                q.bind(100i64)
            };
            for row in q.fetch_all(&pool).await.map_err(e)? {
                let detail: String = row.try_get("detail").map_err(e)?;
                println!("    {detail}");
            }
        }
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(url).await.map_err(e)?;
        for (what, sql, first) in [("rank", STANDING, worst), ("top 100", TOP, kind)] {
            println!("  plan of {what}:");
            let q = AssertSqlSafe(format!("EXPLAIN (ANALYZE, BUFFERS) {sql}"));
            let mut q = sqlx::query(q).bind(first);
            q = if what == "rank" {
                q.bind(kind)
            } else {
                q.bind(100i64)
            };
            for row in q.fetch_all(&pool).await.map_err(e)? {
                let line: String = row.try_get(0).map_err(e)?;
                println!("    {line}");
            }
        }
        pool.close().await;
    }
    Ok(())
}

async fn bench(
    name: &str,
    url: &str,
    store: &Store,
    profiles: &[ProfileUpdate],
    ratings: &[SeedRating],
    (actives, history): (&[usize], &[SeedHistory]),
    a: &Args,
) -> Result<(), String> {
    let e = |e: tabula_store::StoreError| e.to_string();
    println!("{name}: loading {} players", profiles.len());
    let t = Instant::now();
    store.bulk_load(profiles, ratings).await.map_err(e)?;
    store.analyze().await.map_err(e)?;
    println!(
        "  loaded and analysed in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let mut sorted: Vec<&SeedRating> = ratings.iter().collect();
    sorted.sort_by(|x, y| {
        y.rating
            .rating
            .total_cmp(&x.rating.rating)
            .then_with(|| x.player.cmp(&y.player))
    });
    // Spot checks against the sort: the best, the median, the worst.
    for (what, i) in [
        ("best", 0),
        ("median", sorted.len() / 2),
        ("worst", sorted.len() - 1),
    ] {
        let s = store
            .standing(&sorted[i].player, KIND)
            .await
            .map_err(e)?
            .ok_or("a loaded player is unranked")?;
        if s.rank != i as u64 + 1 || s.of != sorted.len() as u64 {
            return Err(format!(
                "{what}: rank {} of {}, expected {}",
                s.rank,
                s.of,
                i + 1
            ));
        }
    }
    let top = store.top(KIND, 100).await.map_err(e)?;
    for (entry, want) in top.iter().zip(&sorted) {
        if entry.player != want.player || entry.name.is_none() {
            return Err(format!(
                "top: {} where {} was expected",
                entry.player, want.player
            ));
        }
    }

    let mut rng = Rng(7);
    for _ in 0..100 {
        let p = &ratings[(rng.next() % ratings.len() as u64) as usize].player;
        store.standing(p, KIND).await.map_err(e)?;
        store.top(KIND, 100).await.map_err(e)?;
    }
    let mut random = Vec::with_capacity(a.lookups);
    for _ in 0..a.lookups {
        let p = &ratings[(rng.next() % ratings.len() as u64) as usize].player;
        let t = Instant::now();
        store.standing(p, KIND).await.map_err(e)?;
        random.push(t.elapsed());
    }
    summary("rank, random players", random);
    for (what, i) in [
        ("rank, the best", 0),
        ("rank, the median", sorted.len() / 2),
        ("rank, the worst", sorted.len() - 1),
    ] {
        let mut times = Vec::new();
        for _ in 0..200 {
            let t = Instant::now();
            store.standing(&sorted[i].player, KIND).await.map_err(e)?;
            times.push(t.elapsed());
        }
        summary(what, times);
    }
    let mut pages = Vec::with_capacity(a.pages);
    for _ in 0..a.pages {
        let t = Instant::now();
        store.top(KIND, 100).await.map_err(e)?;
        pages.push(t.elapsed());
    }
    summary("top 100 (with names)", pages);
    if a.explain {
        explain(url, &sorted[sorted.len() - 1].player).await?;
    }
    bench_week(url, store, ratings, (actives, history), a).await
}

/// This week's board: `actives` players with `history` rows.
async fn bench_week(
    url: &str,
    store: &Store,
    ratings: &[SeedRating],
    (actives, history): (&[usize], &[SeedHistory]),
    a: &Args,
) -> Result<(), String> {
    let e = |e: tabula_store::StoreError| e.to_string();
    let in_week = history.iter().filter(|h| h.rated_ms >= WEEK).count();
    println!(
        "  this week: {} active players, {} history rows ({in_week} this week)",
        actives.len(),
        history.len()
    );
    let t = Instant::now();
    store.bulk_load_history(history).await.map_err(e)?;
    store.analyze().await.map_err(e)?;
    println!(
        "  loaded and analysed in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let mut sorted: Vec<&SeedRating> = actives.iter().map(|i| &ratings[*i]).collect();
    if sorted.is_empty() {
        return Ok(());
    }
    sorted.sort_by(|x, y| {
        y.rating
            .rating
            .total_cmp(&x.rating.rating)
            .then_with(|| x.player.cmp(&y.player))
    });
    for (what, i) in [
        ("best", 0),
        ("median", sorted.len() / 2),
        ("worst", sorted.len() - 1),
    ] {
        let s = store
            .standing_since(&sorted[i].player, KIND, WEEK)
            .await
            .map_err(e)?
            .ok_or("an active player is not on the week's board")?;
        if s.rank != i as u64 + 1 || s.of != sorted.len() as u64 {
            return Err(format!(
                "week {what}: rank {} of {}, expected {}",
                s.rank,
                s.of,
                i + 1
            ));
        }
    }
    let top = store.top_since(KIND, WEEK, 100).await.map_err(e)?;
    if top.len() != sorted.len().min(100)
        || top.iter().zip(&sorted).any(|(x, y)| x.player != y.player)
    {
        return Err("the week's top differs from the sort".into());
    }
    let mut rng = Rng(11);
    for _ in 0..20 {
        let p = &ratings[actives[(rng.next() % actives.len() as u64) as usize]].player;
        store.standing_since(p, KIND, WEEK).await.map_err(e)?;
        store.top_since(KIND, WEEK, 100).await.map_err(e)?;
    }
    let mut random = Vec::with_capacity(a.week_lookups);
    for _ in 0..a.week_lookups {
        let p = &ratings[actives[(rng.next() % actives.len() as u64) as usize]].player;
        let t = Instant::now();
        store.standing_since(p, KIND, WEEK).await.map_err(e)?;
        random.push(t.elapsed());
    }
    summary("week rank, random active", random);
    for (what, i) in [
        ("week rank, the best", 0),
        ("week rank, the worst", sorted.len() - 1),
    ] {
        let mut times = Vec::new();
        for _ in 0..50 {
            let t = Instant::now();
            store
                .standing_since(&sorted[i].player, KIND, WEEK)
                .await
                .map_err(e)?;
            times.push(t.elapsed());
        }
        summary(what, times);
    }
    let mut pages = Vec::with_capacity(a.week_pages);
    for _ in 0..a.week_pages {
        let t = Instant::now();
        store.top_since(KIND, WEEK, 100).await.map_err(e)?;
        pages.push(t.elapsed());
    }
    summary("week top 100 (with names)", pages);
    if a.explain {
        let bound = sorted[99.min(sorted.len() - 1)].rating.rating.floor();
        explain_week(url, &sorted[sorted.len() - 1].player, bound).await?;
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let a = args()?;
    let (profiles, mut ratings) = population(a.players);
    let (actives, history) = week(&mut ratings, a.active);
    for backend in &a.backends {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let server;
        let url = match *backend {
            "sqlite" => format!("sqlite://{}/bench.db?mode=rwc", dir.path().display()),
            _ => {
                server = PgServer::start().map_err(|e| e.to_string())?;
                server.create_database("bench").map_err(|e| e.to_string())?
            }
        };
        let store = Store::connect_with(&StoreConfig {
            url: url.clone(),
            ..StoreConfig::default()
        })
        .await
        .map_err(|e| e.to_string())?;
        bench(
            backend,
            &url,
            &store,
            &profiles,
            &ratings,
            (&actives, &history),
            &a,
        )
        .await?;
        store.close().await;
    }
    Ok(())
}
