//! The contract tests' backends and fixtures: a SQLite file in a temporary
//! directory, or a database of its own on the test binary's PostgreSQL
//! (one server for the binary, started by the first test that needs it,
//! stopped when the process ends: [`PgServer`]'s guard).

#![allow(dead_code)]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::json;
use tabula_room::{
    Actor, Command, EndReason, GameKind, GameRecord, GameResult, PlayerId, ResultKind, Room,
    RoomConfig, SeatId,
};
use tabula_store::testing::{PgServer, PgServerError};
use tabula_store::{Backend, FinishedGame, GameKey, ProfileUpdate, Seat, Store, StoreConfig};

/// A store under test and how to reach its database again.
pub struct Db {
    pub store: Store,
    pub url: String,
    _dir: Option<tempfile::TempDir>,
}

impl Db {
    /// Another store on the same database (migrations run again).
    pub async fn reconnect(&self) -> Store {
        connect(&self.url).await
    }

    /// A new, empty database of the same backend.
    pub async fn other(&self) -> Db {
        if self.url.starts_with("sqlite:") {
            sqlite().await
        } else {
            postgres().await
        }
    }
}

async fn connect(url: &str) -> Store {
    Store::connect_with(&StoreConfig {
        url: url.to_owned(),
        max_connections: 4,
        ..StoreConfig::default()
    })
    .await
    .unwrap_or_else(|e| panic!("connect {url}: {e}"))
}

/// A new SQLite file.
pub async fn sqlite() -> Db {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/store.db?mode=rwc", dir.path().display());
    let store = connect(&url).await;
    assert_eq!(store.backend(), Backend::Sqlite);
    Db {
        store,
        url,
        _dir: Some(dir),
    }
}

static PG: OnceLock<Result<PgServer, PgServerError>> = OnceLock::new();
static DATABASES: AtomicU32 = AtomicU32::new(0);

/// The test binary's PostgreSQL server; a test fails with the reason
/// (e.g. "install Debian's `postgresql` package") when it cannot start.
pub fn pg_server() -> &'static PgServer {
    match PG.get_or_init(PgServer::start) {
        Ok(server) => server,
        Err(e) => panic!("the test PostgreSQL did not start: {e}"),
    }
}

/// A new database on the test PostgreSQL.
pub async fn postgres() -> Db {
    let server = pg_server();
    let name = format!("contract_{}", DATABASES.fetch_add(1, Ordering::Relaxed));
    let url = server
        .create_database(&name)
        .unwrap_or_else(|e| panic!("{e}"));
    let store = connect(&url).await;
    assert_eq!(store.backend(), Backend::Postgres);
    Db {
        store,
        url,
        _dir: None,
    }
}

pub fn player(id: &str) -> Seat {
    Seat::Player(id.to_owned())
}

pub fn login(id: &str, name: &str) -> ProfileUpdate {
    ProfileUpdate {
        player: id.to_owned(),
        display_name: name.to_owned(),
        username: Some(format!("{name}_tg")),
        photo_url: Some(format!("https://t.me/i/{name}.jpg")),
        language: Some("ru".into()),
    }
}

/// A finished game won by seat A, its record a small stand-in JSON.
pub fn finished(
    room: &str,
    number: u32,
    kind: GameKind,
    seats: [Seat; 2],
    finished_ms: u64,
    rated: bool,
) -> FinishedGame {
    FinishedGame {
        key: GameKey::new(room, number),
        kind,
        seats,
        result: GameResult {
            winner: Some(SeatId::A),
            kind: ResultKind::Mars,
            reason: EndReason::BorneOff,
            base_points: 2,
            cube: 1,
            points: 2,
            thud_totals: None,
        },
        match_length: 1,
        rated,
        finished_ms,
        record: (&json!({"game": kind, "gameNumber": number, "actions": [], "note": room})).into(),
        deltas: Vec::new(),
    }
}

/// A real record: alice and bob seated, ready, and one of them resigns.
pub fn resigned_record() -> GameRecord {
    let mut room = Room::new(RoomConfig::default());
    let alice = Actor::Player(PlayerId::new("alice"));
    let bob = Actor::Player(PlayerId::new("bob"));
    let mut now = 1_000;
    let mut apply = |room: &mut Room, cmd: Command, who: &Actor| {
        now += 100;
        room.apply(cmd, who.clone(), now).is_ok()
    };
    assert!(apply(
        &mut room,
        Command::Sit {
            seat: Some(SeatId::A)
        },
        &alice
    ));
    assert!(apply(
        &mut room,
        Command::Sit {
            seat: Some(SeatId::B)
        },
        &bob
    ));
    assert!(apply(&mut room, Command::Ready, &alice));
    assert!(apply(&mut room, Command::Ready, &bob));
    if !apply(&mut room, Command::Resign, &alice) {
        assert!(
            apply(&mut room, Command::Resign, &bob),
            "nobody could resign"
        );
    }
    room.records()
        .first()
        .cloned()
        .expect("a resigned game leaves a record")
}

/// The period boards' counts as stored: each kind's tracked week
/// (`period_weeks`), and the non-zero `period_buckets` rows (kind,
/// period, bucket, players), in key order. Read apart from the store, by
/// SQL, to compare what the writes kept with a recount.
pub type PeriodCounts = (Vec<(String, i64)>, Vec<(String, i64, i64, i64)>);

pub async fn period_counts(url: &str) -> PeriodCounts {
    use sqlx::Row;
    const WEEKS: &str = "SELECT game_kind, week_ms FROM period_weeks ORDER BY game_kind";
    const BUCKETS: &str = "\
SELECT game_kind, period_ms, bucket, players FROM period_buckets WHERE players <> 0
ORDER BY game_kind, period_ms, bucket";
    fn weeks<R: Row>(rows: &[R]) -> Vec<(String, i64)>
    where
        for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        usize: sqlx::ColumnIndex<R>,
    {
        rows.iter().map(|r| (r.get(0), r.get(1))).collect()
    }
    fn buckets<R: Row>(rows: &[R]) -> Vec<(String, i64, i64, i64)>
    where
        for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        usize: sqlx::ColumnIndex<R>,
    {
        rows.iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect()
    }
    if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(url).await.unwrap();
        let w = sqlx::query(WEEKS).fetch_all(&pool).await.unwrap();
        let b = sqlx::query(BUCKETS).fetch_all(&pool).await.unwrap();
        pool.close().await;
        (weeks(&w), buckets(&b))
    } else {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        let w = sqlx::query(WEEKS).fetch_all(&pool).await.unwrap();
        let b = sqlx::query(BUCKETS).fetch_all(&pool).await.unwrap();
        pool.close().await;
        (weeks(&w), buckets(&b))
    }
}
