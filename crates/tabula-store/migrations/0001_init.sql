-- tabula-store, migration 1: the first schema.
--
-- One text for SQLite and PostgreSQL: only types and statements both
-- read the same way (TEXT, BIGINT, DOUBLE PRECISION, BOOLEAN, composite
-- keys, ON DELETE CASCADE, partial and descending indexes). Every integer
-- is a BIGINT, so one Rust type (i64) decodes every integer column on both.
-- Times are milliseconds since the Unix epoch. The module docs of
-- src/sql/mod.rs describe each table and every query's contract.

-- A player's profile: what his latest login said, and the name he chose.
CREATE TABLE players (
    id           TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    chosen_name  TEXT,
    username     TEXT,
    photo_url    TEXT,
    language     TEXT,
    created_ms   BIGINT NOT NULL,
    updated_ms   BIGINT NOT NULL
);

-- A finished game: the summary columns and the whole record (JSON text).
-- A seat is a player (x_player), a bot (x_bot) or, after its player
-- deleted his data, neither.
CREATE TABLE games (
    room_id            TEXT NOT NULL,
    game_number        BIGINT NOT NULL,
    game_kind          TEXT NOT NULL,
    a_player           TEXT,
    a_bot              BIGINT,
    b_player           TEXT,
    b_bot              BIGINT,
    winner             TEXT,
    result_kind        TEXT NOT NULL,
    end_reason         TEXT NOT NULL,
    base_points        BIGINT NOT NULL,
    cube               BIGINT NOT NULL,
    points             BIGINT NOT NULL,
    thud_a             BIGINT,
    thud_b             BIGINT,
    match_length       BIGINT NOT NULL,
    rated              BOOLEAN NOT NULL,
    finished_ms        BIGINT NOT NULL,
    archived_ms        BIGINT NOT NULL,
    ratings_applied_ms BIGINT,
    record             TEXT NOT NULL,
    PRIMARY KEY (room_id, game_number)
);

-- Rated games whose ratings are not applied yet, oldest first.
CREATE INDEX games_pending_ratings ON games (finished_ms, room_id, game_number)
    WHERE rated AND ratings_applied_ms IS NULL;

-- One row per player seated in a game: his history, newest first.
CREATE TABLE game_players (
    player_id   TEXT NOT NULL,
    room_id     TEXT NOT NULL,
    game_number BIGINT NOT NULL,
    seat        TEXT NOT NULL,
    game_kind   TEXT NOT NULL,
    opponent    TEXT NOT NULL,
    finished_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, room_id, game_number),
    FOREIGN KEY (room_id, game_number) REFERENCES games (room_id, game_number)
        ON DELETE CASCADE
);

CREATE INDEX game_players_history
    ON game_players (player_id, finished_ms, room_id, game_number);
CREATE INDEX game_players_game ON game_players (room_id, game_number);

-- A player's rating in one game kind (Glicko-2's three figures).
-- bucket = floor(rating): the player's row in rating_buckets.
CREATE TABLE ratings (
    player_id     TEXT NOT NULL,
    game_kind     TEXT NOT NULL,
    rating        DOUBLE PRECISION NOT NULL,
    deviation     DOUBLE PRECISION NOT NULL,
    volatility    DOUBLE PRECISION NOT NULL,
    games         BIGINT NOT NULL,
    last_rated_ms BIGINT NOT NULL,
    bucket        BIGINT NOT NULL,
    PRIMARY KEY (player_id, game_kind)
);

-- The leaderboard's order: rating descending, then player id.
CREATE INDEX ratings_board ON ratings (game_kind, rating DESC, player_id);

-- How many rated players each whole rating point holds, per game kind:
-- a rank is the sum of the buckets above plus a count inside one bucket.
CREATE TABLE rating_buckets (
    game_kind TEXT NOT NULL,
    bucket    BIGINT NOT NULL,
    players   BIGINT NOT NULL,
    PRIMARY KEY (game_kind, bucket)
);

-- Every applied rating change, stamped with its game's end: a player's
-- rating graph, and the rows a "this week" leaderboard will read.
CREATE TABLE rating_history (
    player_id     TEXT NOT NULL,
    game_kind     TEXT NOT NULL,
    rated_ms      BIGINT NOT NULL,
    room_id       TEXT NOT NULL,
    game_number   BIGINT NOT NULL,
    rating_before DOUBLE PRECISION,
    rating        DOUBLE PRECISION NOT NULL,
    deviation     DOUBLE PRECISION NOT NULL,
    volatility    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player_id, game_kind, rated_ms, room_id, game_number)
);

CREATE INDEX rating_history_week ON rating_history (game_kind, rated_ms);
