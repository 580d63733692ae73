-- tabula-store, migration 4: each player's final result in each finished
-- tournament (issue 49), for his profile and GET /api/me/tournaments.
--
-- Only adds. One text for SQLite and PostgreSQL, as migration 1. The
-- module docs of src/sql/mod.rs describe the table and its queries.

-- One row per (tournament, player), written once when the tournament
-- ends (INSERT … ON CONFLICT DO NOTHING: the first write wins, so an
-- owner's successor writing them again after a failover stores nothing).
-- format: the tournament's format as JSON ({"type":"swiss","rounds":5,…}).
CREATE TABLE tournament_results (
    tournament_id TEXT NOT NULL,
    player_id     TEXT NOT NULL,
    format        TEXT NOT NULL,
    game_kind     TEXT NOT NULL,
    place         BIGINT NOT NULL,
    points        BIGINT NOT NULL,
    games         BIGINT NOT NULL,
    wins          BIGINT NOT NULL,
    players       BIGINT NOT NULL,
    finished_ms   BIGINT NOT NULL,
    stored_ms     BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);

-- A player's results, newest first (and his count of wins: place = 1).
CREATE INDEX tournament_results_player
    ON tournament_results (player_id, finished_ms, tournament_id);
