//! The period boards' bucket counts (`period_weeks`, `period_buckets`):
//! kept by `apply_rated_game` and `delete_player` in their transactions,
//! recounted by [`Store::recount_buckets`](super::Store::recount_buckets)
//! (the contracts: the [module docs](super), *Period boards*).

use std::collections::BTreeMap;

use crate::week_start_ms;

/// A week, in ms.
pub(super) const WEEK_MS: i64 = 7 * 86_400_000;

/// The kind's tracked week, its row locked (PostgreSQL: until the
/// transaction ends; SQLite holds the write lock already). `$1` the kind.
pub(super) const LOCK_WEEK: &str =
    "UPDATE period_weeks SET week_ms = week_ms WHERE game_kind = $1 RETURNING week_ms";

/// The kind's first tracked week (no row: another transaction made it).
pub(super) const CREATE_WEEK: &str = "\
INSERT INTO period_weeks (game_kind, week_ms) VALUES ($1, $2) ON CONFLICT (game_kind) DO NOTHING";

/// A later tracked week (the row locked before).
pub(super) const SET_WEEK: &str = "UPDATE period_weeks SET week_ms = $2 WHERE game_kind = $1";

/// The kind's tracked week, set whatever it was (a recount).
pub(super) const PUT_WEEK: &str = "\
INSERT INTO period_weeks (game_kind, week_ms) VALUES ($1, $2)
ON CONFLICT (game_kind) DO UPDATE SET week_ms = excluded.week_ms";

pub(super) const DROP_WEEK: &str = "DELETE FROM period_weeks WHERE game_kind = $1";

pub(super) const CLEAR_PERIODS: &str = "DELETE FROM period_buckets WHERE game_kind = $1";

/// A period's counts from the ratings: `$1` the kind, `$2` its start.
pub(super) const COUNT_PERIOD: &str = "\
INSERT INTO period_buckets (game_kind, period_ms, bucket, players)
SELECT game_kind, $2, bucket, COUNT(*) FROM ratings
WHERE game_kind = $1 AND last_rated_ms >= $2
GROUP BY game_kind, bucket";

pub(super) const PERIOD_ADD: &str = "\
INSERT INTO period_buckets (game_kind, period_ms, bucket, players) VALUES ($1, $2, $3, $4)
ON CONFLICT (game_kind, period_ms, bucket)
DO UPDATE SET players = period_buckets.players + excluded.players";

/// The latest rating of a kind (the week a recount tracks).
pub(super) const LATEST: &str =
    "SELECT MAX(last_rated_ms) AS latest FROM ratings WHERE game_kind = $1";

/// One rating's change: its `(bucket, last_rated_ms)` before (none: new)
/// and after (none: deleted).
#[derive(Debug, Clone, Copy)]
pub(super) struct Change {
    pub old: Option<(i64, i64)>,
    pub new: Option<(i64, i64)>,
}

/// The week of a game's end, as a period start.
pub(super) fn week_of(ms: i64) -> i64 {
    let week = week_start_ms(u64::try_from(ms).unwrap_or(0));
    i64::try_from(week).unwrap_or(i64::MAX)
}

/// The periods a tracked week keeps: it and the week before.
pub(super) fn periods_of(week: i64) -> [i64; 2] {
    [week, week.saturating_sub(WEEK_MS)]
}

/// What `changes` move in the counts of `periods`, by (period, bucket),
/// zeroes left out: a rating counts in a period while its
/// `last_rated_ms` is at or after the period's start.
pub(super) fn deltas(periods: &[i64], changes: &[Change]) -> BTreeMap<(i64, i64), i64> {
    let mut out: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for p in periods {
        for c in changes {
            if let Some((bucket, last)) = c.old
                && last >= *p
            {
                *out.entry((*p, bucket)).or_default() -= 1;
            }
            if let Some((bucket, last)) = c.new
                && last >= *p
            {
                *out.entry((*p, bucket)).or_default() += 1;
            }
        }
    }
    out.retain(|_, d| *d != 0);
    out
}

/// Moves the kind's period counts for `changes`, in the transaction
/// `$tx` (after its ratings and `rating_buckets` are written): the
/// tracked week's row locked first; `$advance` (a game's end) tracks
/// its week when it is later than the tracked one, recounting both
/// weeks kept from the ratings (which this transaction has written);
/// else the tracked periods' counts are moved by `changes`, in (period,
/// bucket) order. `$kind`: `&str`; `$advance`: `Option<i64>`;
/// `$changes`: `&[Change]`.
macro_rules! move_periods {
    ($tx:expr, $kind:expr, $advance:expr, $changes:expr) => {{
        use $crate::sql::periods::{
            CLEAR_PERIODS, COUNT_PERIOD, CREATE_WEEK, LOCK_WEEK, PERIOD_ADD, SET_WEEK, deltas,
            periods_of,
        };
        let kind: &str = $kind;
        let advance: Option<i64> = $advance;
        let changes: &[$crate::sql::periods::Change] = $changes;
        let mut tracked: Option<i64> = match sqlx::query(LOCK_WEEK)
            .bind(kind)
            .fetch_optional(&mut *$tx)
            .await?
        {
            Some(r) => Some(r.i64("week_ms")?),
            None => None,
        };
        let mut recount: Option<i64> = None;
        match (tracked, advance) {
            (None, Some(week)) => {
                let made = sqlx::query(CREATE_WEEK)
                    .bind(kind)
                    .bind(week)
                    .execute(&mut *$tx)
                    .await?
                    .rows_affected();
                if made == 1 {
                    recount = Some(week);
                } else {
                    tracked = match sqlx::query(LOCK_WEEK)
                        .bind(kind)
                        .fetch_optional(&mut *$tx)
                        .await?
                    {
                        Some(r) => Some(r.i64("week_ms")?),
                        None => None,
                    };
                }
            }
            (Some(now), Some(week)) if week > now => {
                sqlx::query(SET_WEEK)
                    .bind(kind)
                    .bind(week)
                    .execute(&mut *$tx)
                    .await?;
                recount = Some(week);
            }
            _ => {}
        }
        if let Some(week) = recount {
            sqlx::query(CLEAR_PERIODS)
                .bind(kind)
                .execute(&mut *$tx)
                .await?;
            for period in periods_of(week) {
                sqlx::query(COUNT_PERIOD)
                    .bind(kind)
                    .bind(period)
                    .execute(&mut *$tx)
                    .await?;
            }
        } else if let Some(week) = tracked {
            for ((period, bucket), delta) in deltas(&periods_of(week), changes) {
                sqlx::query(PERIOD_ADD)
                    .bind(kind)
                    .bind(period)
                    .bind(bucket)
                    .bind(delta)
                    .execute(&mut *$tx)
                    .await?;
            }
        }
    }};
}
pub(crate) use move_periods;
