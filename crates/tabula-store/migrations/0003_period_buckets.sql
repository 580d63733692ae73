-- tabula-store, migration 3: bucket counts of the period boards ("this
-- week"), so that a week's rank and top page read a few thousand rows
-- whatever the week's size.
--
-- Only adds (a node of the previous version keeps running beside it; the
-- applies it makes are not counted here: Store::recount_buckets repairs,
-- and the next week's first apply recounts both weeks kept).
-- One text for SQLite and PostgreSQL, as migration 1. The module docs of
-- src/sql/mod.rs describe each table and every query's contract.

-- The newest week tracked per game kind: period_buckets holds the counts
-- of the periods starting at week_ms and at week_ms - 7 days. Every
-- write of the period counts takes this row first (its lock orders them).
CREATE TABLE period_weeks (
    game_kind TEXT PRIMARY KEY,
    week_ms   BIGINT NOT NULL
);

-- How many ratings of a kind last rated at or after period_ms have each
-- whole part (bucket): rating_buckets restricted to a period's players.
CREATE TABLE period_buckets (
    game_kind TEXT NOT NULL,
    period_ms BIGINT NOT NULL,
    bucket    BIGINT NOT NULL,
    players   BIGINT NOT NULL,
    PRIMARY KEY (game_kind, period_ms, bucket)
);

-- The board's order with each rating's last_rated_ms: a period's top page
-- walks it keeping the period's players, and a period's rank counts one
-- whole point of it, both index-only.
CREATE INDEX ratings_board_period ON ratings (game_kind, rating DESC, player_id, last_rated_ms);
