-- tabula-store, migration 2: players' statistics and the analysis cache.
--
-- Only adds (a node of the previous version keeps running beside it).
-- One text for SQLite and PostgreSQL, as migration 1. The module docs of
-- src/sql/mod.rs describe each table and every query's contract.

-- A player's statistics: tabula_room::PlayerStats as JSON, every delta
-- of every archived game added once (in the archive's transaction).
CREATE TABLE player_stats (
    player_id  TEXT PRIMARY KEY,
    stats      TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);

-- One analysis per archived game (the analyser's JSON), deleted with
-- its game.
CREATE TABLE analyses (
    room_id     TEXT NOT NULL,
    game_number BIGINT NOT NULL,
    json        TEXT NOT NULL,
    created_ms  BIGINT NOT NULL,
    PRIMARY KEY (room_id, game_number),
    FOREIGN KEY (room_id, game_number) REFERENCES games (room_id, game_number)
        ON DELETE CASCADE
);

-- A period's leaderboard ("this week"): the ratings of a kind last rated
-- since the period began are one range of it, and it holds what the rank
-- compares (rating, then player id), so the range is read index-only.
-- last_rated_ms is the end of the latest game applied to the rating,
-- the latest rated_ms of the player's rating_history rows of the kind.
CREATE INDEX ratings_period ON ratings (game_kind, last_rated_ms, rating, player_id);
