//! What the two backends share below the store's methods: a write
//! transaction, a row's columns read the same way, the conversions between
//! stored and Rust values, and sqlx's errors as the store's.

use std::future::Future;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::postgres::{PgDatabaseError, PgPool, PgRow};
use sqlx::sqlite::{SqliteError, SqlitePool, SqliteRow};
use sqlx::{Database, Row, Transaction};

use crate::{Result, StoreError};

/// A write transaction: SQLite's takes the write lock at once (a deferred
/// one that reads first could fail to upgrade), PostgreSQL's is a plain
/// `BEGIN`.
pub(crate) trait BeginWrite {
    type Db: Database;
    fn begin_write(
        &self,
    ) -> impl Future<Output = std::result::Result<Transaction<'static, Self::Db>, sqlx::Error>> + Send;
}

impl BeginWrite for SqlitePool {
    type Db = sqlx::Sqlite;
    fn begin_write(
        &self,
    ) -> impl Future<Output = std::result::Result<Transaction<'static, Self::Db>, sqlx::Error>> + Send
    {
        self.begin_with("BEGIN IMMEDIATE")
    }
}

impl BeginWrite for PgPool {
    type Db = sqlx::Postgres;
    fn begin_write(
        &self,
    ) -> impl Future<Output = std::result::Result<Transaction<'static, Self::Db>, sqlx::Error>> + Send
    {
        self.begin()
    }
}

/// Reading a row's columns the same way on both backends.
pub(crate) trait Cols {
    fn i64(&self, col: &str) -> Result<i64>;
    fn opt_i64(&self, col: &str) -> Result<Option<i64>>;
    fn f64(&self, col: &str) -> Result<f64>;
    fn text(&self, col: &str) -> Result<String>;
    fn opt_text(&self, col: &str) -> Result<Option<String>>;
    fn boolean(&self, col: &str) -> Result<bool>;
}

macro_rules! cols {
    ($row:ty) => {
        impl Cols for $row {
            fn i64(&self, col: &str) -> Result<i64> {
                self.try_get(col).map_err(|e| decode(col, e))
            }
            fn opt_i64(&self, col: &str) -> Result<Option<i64>> {
                self.try_get(col).map_err(|e| decode(col, e))
            }
            fn f64(&self, col: &str) -> Result<f64> {
                self.try_get(col).map_err(|e| decode(col, e))
            }
            fn text(&self, col: &str) -> Result<String> {
                self.try_get(col).map_err(|e| decode(col, e))
            }
            fn opt_text(&self, col: &str) -> Result<Option<String>> {
                self.try_get(col).map_err(|e| decode(col, e))
            }
            fn boolean(&self, col: &str) -> Result<bool> {
                self.try_get(col).map_err(|e| decode(col, e))
            }
        }
    };
}
cols!(SqliteRow);
cols!(PgRow);

fn decode(col: &str, e: sqlx::Error) -> StoreError {
    StoreError::Corrupt(format!("column {col}: {e}"))
}

/// A stored integer as a `u64`.
pub(crate) fn to_u64(what: &str, v: i64) -> Result<u64> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("{what} is negative: {v}")))
}

/// A stored integer as a `u32`.
pub(crate) fn to_u32(what: &str, v: i64) -> Result<u32> {
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{what} is out of range: {v}")))
}

/// An input integer as a column's `i64`.
pub(crate) fn to_i64(what: &str, v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| StoreError::Invalid(format!("{what} is out of range: {v}")))
}

/// A value's serde name (`long_nardy`, `a`, `oin`, `borneOff`): what the
/// wire and the record call it, stored as text.
pub(crate) fn name_of<T: serde::Serialize>(v: &T) -> Result<String> {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => Ok(s),
        _ => Err(StoreError::Invalid("a name that is not a string".into())),
    }
}

/// A value from its stored serde name.
pub(crate) fn parse_name<T: serde::de::DeserializeOwned>(what: &str, s: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(s.to_owned()))
        .map_err(|e| StoreError::Corrupt(format!("{what} {s:?}: {e}")))
}

/// Now, in ms since the epoch (the store's own stamps: created, updated,
/// archived, applied).
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        match &e {
            sqlx::Error::Configuration(_) => StoreError::Config(e.to_string()),
            sqlx::Error::Migrate(_) => StoreError::Migrate(e.to_string()),
            sqlx::Error::Database(db) => {
                if passing(db.as_ref()) {
                    StoreError::Unavailable(e.to_string())
                } else {
                    StoreError::Database(e.to_string())
                }
            }
            sqlx::Error::RowNotFound
            | sqlx::Error::TypeNotFound { .. }
            | sqlx::Error::ColumnIndexOutOfBounds { .. }
            | sqlx::Error::ColumnNotFound(_)
            | sqlx::Error::ColumnDecode { .. }
            | sqlx::Error::Decode(_) => StoreError::Corrupt(e.to_string()),
            sqlx::Error::Encode(_) | sqlx::Error::InvalidArgument(_) => {
                StoreError::Invalid(e.to_string())
            }
            _ => StoreError::Unavailable(e.to_string()),
        }
    }
}

/// Whether a database's refusal is for a passing reason (retry).
fn passing(db: &dyn sqlx::error::DatabaseError) -> bool {
    if let Some(pg) = db.try_downcast_ref::<PgDatabaseError>() {
        // Class 08 connection exception, 40 transaction rollback
        // (serialisation failure, deadlock), 53 insufficient resources,
        // 57 operator intervention (shutdown, cancel), 55P03 lock not
        // available.
        let code = pg.code();
        return ["08", "40", "53", "57"].iter().any(|c| code.starts_with(c)) || code == "55P03";
    }
    if db.try_downcast_ref::<SqliteError>().is_some() {
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), extended codes included.
        let primary = db
            .code()
            .and_then(|c| c.parse::<i64>().ok())
            .map(|c| c & 0xff);
        return matches!(primary, Some(5 | 6));
    }
    false
}
