//! The store's contract, the same test functions against both backends:
//! `sqlite::<test>` on a temporary file, `postgres::<test>` on a database
//! of its own on a real PostgreSQL these tests start (Debian's binaries,
//! a temporary data directory, a free port; see `tabula_store::testing`).

mod support;

use std::collections::{BTreeMap, BTreeSet};

use tabula_room::{GameKind, GameRecord, PlayerDelta, PlayerId, PlayerResult, PlayerStats, SeatId};
use tabula_store::sql::{Backend, SeedRating};
use tabula_store::{
    Applied, Archived, Deleted, FinishedGame, GameKey, Games, HistoryCursor, HistoryQuery,
    Leaderboards, MAX_ANALYSIS_BYTES, Opponent, PlayerTournaments, Profiles, Rating, RatingUpdate,
    Ratings, Record, Seat, StoreError, TournamentResult, TournamentResults, week_start_ms,
};

use support::{Db, finished, login, player, resigned_record};

/// Each test function once per backend.
macro_rules! contract {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = crate::support::sqlite().await;
                    crate::$name(&db).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = crate::support::postgres().await;
                    crate::$name(&db).await;
                }
            )*
        }
    };
}

contract!(
    migrations_twice_are_harmless,
    profile_upsert_refresh_and_chosen_name,
    profile_input_is_checked,
    delete_player_is_real,
    archive_is_idempotent,
    archive_keeps_a_real_record_verifiable,
    archive_refuses_bad_games,
    history_pages_newest_first_without_gaps_or_repeats,
    history_filters_by_kind_and_opponent,
    rating_application_is_atomic_and_idempotent,
    an_unrateable_game_is_settled_without_a_rating_change,
    concurrent_applications_of_one_game_apply_once,
    leaderboard_order_and_rank_with_ties,
    stats_are_added_once_per_game,
    concurrent_archives_of_one_players_games_all_count,
    stats_are_deleted_with_the_player,
    weekly_board_ranks_only_players_rated_since,
    weekly_counts_follow_every_rating_change,
    concurrent_applies_keep_the_week_counted,
    analysis_cache_round_trip_and_cascade,
    a_batch_stores_each_game_once_and_counts_each_players_games,
    a_batch_failing_midway_writes_nothing_and_its_retry_stores_each_once,
    a_batch_of_ratings_applies_in_order_per_player_as_one_by_one_does,
    a_batch_of_ratings_refused_midway_writes_nothing,
    tournament_results_are_stored_once_and_read_newest_first,
    tournament_results_input_is_checked,
    concurrent_writes_of_one_tournaments_results_store_each_once,
);

fn update(player: &str, previous_games: u32, rating: f64) -> RatingUpdate {
    RatingUpdate {
        player: player.to_owned(),
        previous_games,
        rating,
        deviation: 200.0,
        volatility: 0.06,
    }
}

async fn migrations_twice_are_harmless(db: &Db) {
    let store = &db.store;
    store.upsert_profile(&login("tg:1", "Ann")).await.unwrap();
    store.migrate().await.unwrap();
    store.migrate().await.unwrap();
    // A second node connecting runs them again: nothing changes.
    let again = db.reconnect().await;
    again.migrate().await.unwrap();
    assert_eq!(
        again.migrations().await.unwrap(),
        vec![
            (1, "init".to_owned(), true),
            (2, "stats_and_analyses".to_owned(), true),
            (3, "period_buckets".to_owned(), true),
            (4, "tournament_results".to_owned(), true)
        ]
    );
    let ann = again.profile("tg:1").await.unwrap().unwrap();
    assert_eq!(ann.display_name, "Ann");
}

async fn profile_upsert_refresh_and_chosen_name(db: &Db) {
    let store = &db.store;
    assert_eq!(store.profile("tg:1").await.unwrap(), None);
    let first = store.upsert_profile(&login("tg:1", "Ann")).await.unwrap();
    assert_eq!(first.player, "tg:1");
    assert_eq!(first.display_name, "Ann");
    assert_eq!(first.username.as_deref(), Some("Ann_tg"));
    assert_eq!(first.language.as_deref(), Some("ru"));
    assert_eq!(first.name(), "Ann");
    assert_eq!(store.profile("tg:1").await.unwrap().as_ref(), Some(&first));

    // The next login replaces every login field, None included.
    let mut next = login("tg:1", "Anna");
    next.username = None;
    next.photo_url = None;
    next.language = Some("en".into());
    let refreshed = store.upsert_profile(&next).await.unwrap();
    assert_eq!(refreshed.display_name, "Anna");
    assert_eq!(refreshed.username, None);
    assert_eq!(refreshed.photo_url, None);
    assert_eq!(refreshed.language.as_deref(), Some("en"));
    assert_eq!(refreshed.created_ms, first.created_ms);
    assert!(refreshed.updated_ms >= first.updated_ms);

    // A chosen name wins over the login's and survives the next login.
    assert!(store.set_chosen_name("tg:1", Some("Queen")).await.unwrap());
    store.upsert_profile(&login("tg:1", "Anna")).await.unwrap();
    let shown = store.profile("tg:1").await.unwrap().unwrap();
    assert_eq!(shown.chosen_name.as_deref(), Some("Queen"));
    assert_eq!(shown.name(), "Queen");
    assert!(store.set_chosen_name("tg:1", None).await.unwrap());
    assert_eq!(store.profile("tg:1").await.unwrap().unwrap().name(), "Anna");

    // Without a profile nothing is written.
    assert!(!store.set_chosen_name("guest:x", Some("X")).await.unwrap());
    assert_eq!(store.profile("guest:x").await.unwrap(), None);
    // Another player is another row.
    store
        .upsert_profile(&login("guest:x", "Brave Otter 42"))
        .await
        .unwrap();
    assert_eq!(store.profile("tg:1").await.unwrap().unwrap().name(), "Anna");
}

async fn profile_input_is_checked(db: &Db) {
    let store = &db.store;
    for bad in [
        login("", "Ann"),
        login(&"x".repeat(129), "Ann"),
        login("tg:1", ""),
    ] {
        assert!(matches!(
            store.upsert_profile(&bad).await,
            Err(StoreError::Invalid(_))
        ));
    }
    let mut long = login("tg:1", "Ann");
    long.photo_url = Some("h".repeat(5000));
    assert!(matches!(
        store.upsert_profile(&long).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.profile("tg:1").await.unwrap(), None);
}

async fn delete_player_is_real(db: &Db) {
    let store = &db.store;
    for (id, name) in [("tg:1", "Ann"), ("tg:2", "Bob"), ("tg:3", "Cid")] {
        store.upsert_profile(&login(id, name)).await.unwrap();
    }
    let vs_bob = finished(
        "r1",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        1000,
        true,
    );
    let vs_bot = finished(
        "r2",
        1,
        GameKind::LongNardy,
        [player("tg:1"), Seat::Bot(2)],
        2000,
        false,
    );
    let bob_cid = finished(
        "r3",
        1,
        GameKind::Backgammon,
        [player("tg:3"), player("tg:2")],
        3000,
        false,
    );
    // Rated, its ratings not applied yet when Ann deletes her data.
    let unapplied = finished(
        "r4",
        1,
        GameKind::LongNardy,
        [player("tg:2"), player("tg:1")],
        500,
        true,
    );
    for g in [&vs_bob, &vs_bot, &bob_cid, &unapplied] {
        assert_eq!(store.archive(g).await.unwrap(), Archived::Stored);
    }
    let applied = store
        .apply_rated_game(
            &vs_bob.key,
            &[update("tg:1", 0, 1600.0), update("tg:2", 0, 1400.0)],
        )
        .await
        .unwrap();
    assert_eq!(applied, Applied::Applied);
    assert_eq!(
        store
            .standing("tg:2", GameKind::LongNardy)
            .await
            .unwrap()
            .unwrap()
            .rank,
        2
    );

    assert_eq!(
        store.pending_ratings(10).await.unwrap(),
        vec![unapplied.key.clone()]
    );

    let deleted = store.delete_player("tg:1").await.unwrap();
    assert_eq!(
        deleted,
        Deleted {
            profile: true,
            games: 3,
            games_deleted: 1,
            ratings: 1,
            stats: false,
            tournaments: 0
        }
    );
    // Gone: profile, history, ratings, his place on the board.
    assert_eq!(store.profile("tg:1").await.unwrap(), None);
    let his = store
        .history(&HistoryQuery::newest("tg:1", 100))
        .await
        .unwrap();
    assert!(his.entries.is_empty() && his.next.is_none());
    assert!(store.ratings("tg:1").await.unwrap().is_empty());
    assert_eq!(
        store.standing("tg:1", GameKind::LongNardy).await.unwrap(),
        None
    );
    let board = store
        .standing("tg:2", GameKind::LongNardy)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((board.rank, board.of), (1, 1));
    let top = store.top(GameKind::LongNardy, 100).await.unwrap();
    assert_eq!(
        top.iter().map(|e| e.player.as_str()).collect::<Vec<_>>(),
        ["tg:2"]
    );
    // His game against the computer had nobody else: deleted whole.
    assert_eq!(store.game(&vs_bot.key).await.unwrap(), None);
    // Bob keeps his game, with Ann's seat shown as deleted.
    let kept = store.game(&vs_bob.key).await.unwrap().unwrap();
    assert_eq!(kept.game.seats, [Seat::Deleted, player("tg:2")]);
    let bobs = store
        .history(&HistoryQuery::newest("tg:2", 100))
        .await
        .unwrap();
    let keys: Vec<_> = bobs.entries.iter().map(|e| e.key.clone()).collect();
    assert_eq!(
        keys,
        [
            bob_cid.key.clone(),
            vs_bob.key.clone(),
            unapplied.key.clone()
        ]
    );
    assert_eq!(bobs.entries[1].seats[0], Seat::Deleted);
    assert_eq!(bobs.entries[1].opponent, Opponent::Person);
    assert_eq!(bobs.entries[2].seats[1], Seat::Deleted);
    // A rated game with a deleted player can no longer be applied.
    assert!(store.pending_ratings(10).await.unwrap().is_empty());
    assert_eq!(
        store
            .apply_rated_game(
                &unapplied.key,
                &[update("tg:2", 1, 1500.0), update("tg:1", 1, 1500.0)]
            )
            .await,
        Err(StoreError::WrongPlayers {
            game: unapplied.key.clone()
        })
    );
    // Others are untouched; deleting again finds nothing.
    assert!(store.profile("tg:2").await.unwrap().is_some());
    assert_eq!(
        store
            .history(&HistoryQuery::newest("tg:3", 100))
            .await
            .unwrap()
            .entries
            .len(),
        1
    );
    assert_eq!(
        store.delete_player("tg:1").await.unwrap(),
        Deleted::default()
    );

    // Bob deletes his data too: the game he had with Ann has nobody left.
    let bob = store.delete_player("tg:2").await.unwrap();
    assert_eq!((bob.games, bob.games_deleted, bob.ratings), (3, 2, 1));
    assert_eq!(store.game(&vs_bob.key).await.unwrap(), None);
    assert_eq!(store.top(GameKind::LongNardy, 100).await.unwrap(), vec![]);
    let cid = store.game(&bob_cid.key).await.unwrap().unwrap();
    assert_eq!(cid.game.seats, [player("tg:3"), Seat::Deleted]);
}

async fn archive_is_idempotent(db: &Db) {
    let store = &db.store;
    let mut game = finished(
        "r1",
        2,
        GameKind::Thud,
        [player("tg:1"), player("tg:2")],
        5000,
        true,
    );
    game.result.winner = None;
    game.result.kind = tabula_room::ResultKind::Draw;
    game.result.reason = tabula_room::EndReason::RoundsOver;
    game.result.thud_totals = Some([7, 7]);
    game.match_length = 1;
    assert_eq!(store.archive(&game).await.unwrap(), Archived::Stored);
    // The archiver retrying (or a second node archiving the same record),
    // even with different contents: stored once, the first wins.
    assert_eq!(store.archive(&game).await.unwrap(), Archived::AlreadyStored);
    let mut changed = game.clone();
    changed.finished_ms = 9999;
    changed.record = (&serde_json::json!({"other": true})).into();
    assert_eq!(
        store.archive(&changed).await.unwrap(),
        Archived::AlreadyStored
    );

    let stored = store.game(&game.key).await.unwrap().unwrap();
    assert_eq!(stored.game, game);
    assert!(stored.archived_ms > 0);
    assert_eq!(stored.ratings_applied_ms, None);
    for p in ["tg:1", "tg:2"] {
        let page = store.history(&HistoryQuery::newest(p, 100)).await.unwrap();
        assert_eq!(page.entries.len(), 1);
        assert_eq!(page.entries[0].outcome(), PlayerResult::Draw);
        assert_eq!(page.entries[0].result.thud_totals, Some([7, 7]));
    }
    // Another game of the same room is another key.
    let next = finished(
        "r1",
        3,
        GameKind::Thud,
        [player("tg:1"), player("tg:2")],
        6000,
        true,
    );
    assert_eq!(store.archive(&next).await.unwrap(), Archived::Stored);
    assert_eq!(store.game(&GameKey::new("r1", 4)).await.unwrap(), None);
    assert_eq!(store.game(&GameKey::new("r2", 2)).await.unwrap(), None);
}

async fn archive_keeps_a_real_record_verifiable(db: &Db) {
    let store = &db.store;
    let record = resigned_record();
    let game = FinishedGame::from_record(
        "room-x",
        &record,
        [player("tg:1"), Seat::Bot(3)],
        1,
        false,
        42_000,
    )
    .unwrap();
    assert_eq!(game.key, GameKey::new("room-x", record.setup.game_number));
    assert_eq!(store.archive(&game).await.unwrap(), Archived::Stored);
    let stored = store.game(&game.key).await.unwrap().unwrap();
    let back: GameRecord = stored.game.record.parse().unwrap();
    assert_eq!(back, record);
    tabula_room::verify(&back).unwrap();
    assert_eq!(stored.game.result, record.result);
    assert_eq!(stored.game.seats, [player("tg:1"), Seat::Bot(3)]);
    let page = store
        .history(&HistoryQuery::newest("tg:1", 10))
        .await
        .unwrap();
    assert_eq!(page.entries[0].opponent, Opponent::Computer);
    assert_eq!(page.entries[0].seat, SeatId::A);
    // From the record's JSON text (as an archiver reads it off the queue):
    // the same game, its text kept as it was.
    let text = serde_json::to_string(&record).unwrap();
    let raw = FinishedGame::from_record_json(
        "room-x",
        Record::from_text(text.clone()).unwrap(),
        [player("tg:1"), Seat::Bot(3)],
        1,
        false,
        42_000,
    )
    .unwrap();
    assert_eq!(raw, game);
    assert_eq!(raw.record.as_str(), text);
    assert_eq!(store.archive(&raw).await.unwrap(), Archived::AlreadyStored);
    assert_eq!(stored.game.record.as_str(), text);
    // Not a record: refused before the store.
    let bad = Record::from_text(r#"{"game":"long_nardy"}"#.into()).unwrap();
    assert!(matches!(
        FinishedGame::from_record_json("room-x", bad, [player("tg:1"), Seat::Bot(3)], 1, false, 1),
        Err(StoreError::Invalid(_))
    ));
    assert!(Record::from_text("{not json".into()).is_err());
    // PostgreSQL keeps records with lz4 (Debian's 15 has it).
    match store.backend() {
        Backend::Postgres => assert_eq!(
            store.record_compression().await.unwrap().as_deref(),
            Some("l")
        ),
        Backend::Sqlite => assert_eq!(store.record_compression().await.unwrap(), None),
    }
}

async fn archive_refuses_bad_games(db: &Db) {
    let store = &db.store;
    let bad = [
        finished(
            "r1",
            1,
            GameKind::LongNardy,
            [player("tg:1"), Seat::Bot(1)],
            1,
            true,
        ),
        finished(
            "r1",
            1,
            GameKind::LongNardy,
            [player("tg:1"), player("tg:1")],
            1,
            true,
        ),
        finished(
            "r1",
            1,
            GameKind::LongNardy,
            [player("tg:1"), Seat::Deleted],
            1,
            false,
        ),
        finished(
            "r1",
            1,
            GameKind::LongNardy,
            [player(""), Seat::Bot(1)],
            1,
            false,
        ),
        finished(
            "",
            1,
            GameKind::LongNardy,
            [player("tg:1"), Seat::Bot(1)],
            1,
            false,
        ),
        finished(
            "r1",
            1,
            GameKind::LongNardy,
            [player("tg:1"), Seat::Bot(1)],
            u64::MAX,
            false,
        ),
    ];
    for game in &bad {
        assert!(
            matches!(store.archive(game).await, Err(StoreError::Invalid(_))),
            "{game:?}"
        );
    }
    assert_eq!(store.game(&GameKey::new("r1", 1)).await.unwrap(), None);
    assert!(
        store
            .history(&HistoryQuery::newest("tg:1", 10))
            .await
            .unwrap()
            .entries
            .is_empty()
    );
}

async fn history_pages_newest_first_without_gaps_or_repeats(db: &Db) {
    let store = &db.store;
    // 23 games, many ending in the same millisecond, across rooms and
    // game numbers, archived out of order.
    let mut expected = Vec::new();
    for i in 0..23u32 {
        let room = format!("room{}", (i * 7) % 5);
        let finished_ms = 10_000 + u64::from(i / 4) * 1000;
        let g = finished(
            &room,
            i + 1,
            GameKind::LongNardy,
            [player("tg:1"), player("tg:2")],
            finished_ms,
            false,
        );
        expected.push((finished_ms, room, i + 1));
        store.archive(&g).await.unwrap();
    }
    expected.sort();
    expected.reverse();
    for size in [1, 5, 23, 100] {
        let mut seen = Vec::new();
        let mut query = HistoryQuery::newest("tg:1", size);
        loop {
            let page = store.history(&query).await.unwrap();
            assert!(page.entries.len() <= size as usize);
            seen.extend(
                page.entries
                    .iter()
                    .map(|e| (e.finished_ms, e.key.room.clone(), e.key.game)),
            );
            match page.next {
                Some(next) => {
                    assert_eq!(
                        Some(&next),
                        page.entries.last().map(|e| e.cursor()).as_ref()
                    );
                    query.after = Some(next);
                }
                None => break,
            }
        }
        assert_eq!(seen, expected, "page size {size}");
    }
    // A game archived between two pages (newer than all) does not shift
    // the pages that follow.
    let mut query = HistoryQuery::newest("tg:1", 10);
    let first = store.history(&query).await.unwrap();
    store
        .archive(&finished(
            "late",
            1,
            GameKind::LongNardy,
            [player("tg:1"), player("tg:2")],
            99_000,
            false,
        ))
        .await
        .unwrap();
    query.after = first.next.clone();
    let second = store.history(&query).await.unwrap();
    let got: Vec<_> = first
        .entries
        .iter()
        .chain(&second.entries)
        .map(|e| (e.finished_ms, e.key.room.clone(), e.key.game))
        .collect();
    assert_eq!(got, expected[..20]);
    // Page sizes out of range are refused.
    for limit in [0, 101] {
        assert!(matches!(
            store.history(&HistoryQuery::newest("tg:1", limit)).await,
            Err(StoreError::Invalid(_))
        ));
    }
    // A cursor past everything reads an empty last page.
    let mut past = HistoryQuery::newest("tg:1", 10);
    past.after = Some(HistoryCursor {
        finished_ms: 0,
        room: String::new(),
        game: 0,
    });
    let empty = store.history(&past).await.unwrap();
    assert!(empty.entries.is_empty() && empty.next.is_none());
}

async fn history_filters_by_kind_and_opponent(db: &Db) {
    let store = &db.store;
    let kinds = [GameKind::LongNardy, GameKind::Backgammon, GameKind::Thud];
    for i in 0..30u32 {
        let kind = kinds[(i % 3) as usize];
        let opponent = if i % 2 == 0 {
            player("tg:2")
        } else {
            Seat::Bot(1 + (i % 3) as u8)
        };
        // Ann sits in seat A or B.
        let seats = if i % 4 < 2 {
            [player("tg:1"), opponent]
        } else {
            [opponent, player("tg:1")]
        };
        store
            .archive(&finished(
                &format!("f{i}"),
                1,
                kind,
                seats,
                1000 + u64::from(i),
                false,
            ))
            .await
            .unwrap();
    }
    // Someone else's games never show.
    store
        .archive(&finished(
            "other",
            1,
            GameKind::LongNardy,
            [player("tg:3"), Seat::Bot(1)],
            5000,
            false,
        ))
        .await
        .unwrap();
    for kind in [
        None,
        Some(GameKind::LongNardy),
        Some(GameKind::Backgammon),
        Some(GameKind::Thud),
    ] {
        for opponent in [None, Some(Opponent::Person), Some(Opponent::Computer)] {
            let want: Vec<u32> = (0..30u32)
                .rev()
                .filter(|i| kind.is_none_or(|k| k == kinds[(i % 3) as usize]))
                .filter(|i| opponent.is_none_or(|o| (o == Opponent::Person) == (i % 2 == 0)))
                .collect();
            let mut got = Vec::new();
            let mut query = HistoryQuery {
                kind,
                opponent,
                ..HistoryQuery::newest("tg:1", 4)
            };
            loop {
                let page = store.history(&query).await.unwrap();
                for e in &page.entries {
                    assert!(kind.is_none_or(|k| k == e.kind));
                    assert!(opponent.is_none_or(|o| o == e.opponent));
                    let i: u32 = e.key.room[1..].parse().unwrap();
                    assert_eq!(e.seat, if i % 4 < 2 { SeatId::A } else { SeatId::B });
                    assert_eq!(e.seats[e.seat as usize], player("tg:1"));
                    assert_eq!(
                        e.outcome(),
                        if e.seat == SeatId::A {
                            PlayerResult::Win
                        } else {
                            PlayerResult::Lose
                        }
                    );
                    got.push(i);
                }
                match page.next {
                    Some(next) => query.after = Some(next),
                    None => break,
                }
            }
            assert_eq!(got, want, "kind {kind:?} opponent {opponent:?}");
        }
    }
}

async fn rating_application_is_atomic_and_idempotent(db: &Db) {
    let store = &db.store;
    let g1 = finished(
        "r1",
        1,
        GameKind::Backgammon,
        [player("tg:1"), player("tg:2")],
        1000,
        true,
    );
    let g2 = finished(
        "r1",
        2,
        GameKind::Backgammon,
        [player("tg:2"), player("tg:1")],
        2000,
        true,
    );
    let casual = finished(
        "r2",
        1,
        GameKind::Backgammon,
        [player("tg:1"), player("tg:2")],
        3000,
        false,
    );
    for g in [&g1, &g2, &casual] {
        store.archive(g).await.unwrap();
    }
    assert_eq!(
        store.pending_ratings(10).await.unwrap(),
        vec![g1.key.clone(), g2.key.clone()]
    );

    let first = [update("tg:1", 0, 1662.5), update("tg:2", 0, 1337.5)];
    assert_eq!(
        store.apply_rated_game(&g1.key, &first).await.unwrap(),
        Applied::Applied
    );
    let ann = store
        .rating("tg:1", GameKind::Backgammon)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ann,
        Rating {
            rating: 1662.5,
            deviation: 200.0,
            volatility: 0.06,
            games: 1,
            last_rated_ms: 1000
        }
    );
    assert!(
        store
            .game(&g1.key)
            .await
            .unwrap()
            .unwrap()
            .ratings_applied_ms
            .is_some()
    );
    assert_eq!(
        store.pending_ratings(10).await.unwrap(),
        vec![g2.key.clone()]
    );
    // Applied again (a worker retrying, with any figures): nothing changes.
    let replay = [update("tg:1", 1, 9.0), update("tg:2", 1, 9.0)];
    assert_eq!(
        store.apply_rated_game(&g1.key, &replay).await.unwrap(),
        Applied::AlreadyApplied
    );
    assert_eq!(
        store.apply_rated_game(&g1.key, &first).await.unwrap(),
        Applied::AlreadyApplied
    );
    assert_eq!(
        store.rating("tg:1", GameKind::Backgammon).await.unwrap(),
        Some(ann)
    );
    assert_eq!(
        store.rating("tg:1", GameKind::LongNardy).await.unwrap(),
        None
    );

    // Refusals write nothing: not archived, casual, wrong players, bad
    // figures, and a stale rating (Bob's was computed from 0 games, he has
    // 1) — Ann's update, checked first and right, is rolled back with it.
    let unknown = GameKey::new("nowhere", 1);
    assert_eq!(
        store.apply_rated_game(&unknown, &first).await,
        Err(StoreError::UnknownGame(unknown.clone()))
    );
    assert_eq!(
        store.apply_rated_game(&casual.key, &first).await,
        Err(StoreError::NotRated(casual.key.clone()))
    );
    let strangers = [update("tg:1", 1, 1700.0), update("tg:9", 0, 1300.0)];
    assert_eq!(
        store.apply_rated_game(&g2.key, &strangers).await,
        Err(StoreError::WrongPlayers {
            game: g2.key.clone()
        })
    );
    let twice = [update("tg:1", 1, 1700.0), update("tg:1", 1, 1300.0)];
    assert!(matches!(
        store.apply_rated_game(&g2.key, &twice).await,
        Err(StoreError::WrongPlayers { .. })
    ));
    let mut nan = [update("tg:1", 1, 1700.0), update("tg:2", 1, 1300.0)];
    nan[1].deviation = f64::NAN;
    assert!(matches!(
        store.apply_rated_game(&g2.key, &nan).await,
        Err(StoreError::Invalid(_))
    ));
    let stale = [update("tg:1", 1, 1700.0), update("tg:2", 0, 1300.0)];
    assert_eq!(
        store.apply_rated_game(&g2.key, &stale).await,
        Err(StoreError::RatingConflict {
            player: "tg:2".into(),
            games: 1
        })
    );
    assert_eq!(
        store.rating("tg:1", GameKind::Backgammon).await.unwrap(),
        Some(ann)
    );
    assert_eq!(
        store.pending_ratings(10).await.unwrap(),
        vec![g2.key.clone()]
    );
    assert_eq!(
        store
            .game(&g2.key)
            .await
            .unwrap()
            .unwrap()
            .ratings_applied_ms,
        None
    );

    // Recomputed from what is stored: applied, in either order of updates.
    let second = [update("tg:2", 1, 1400.0), update("tg:1", 1, 1600.0)];
    assert_eq!(
        store.apply_rated_game(&g2.key, &second).await.unwrap(),
        Applied::Applied
    );
    let ann = store
        .rating("tg:1", GameKind::Backgammon)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (ann.rating, ann.games, ann.last_rated_ms),
        (1600.0, 2, 2000)
    );
    assert_eq!(
        store
            .ratings("tg:2")
            .await
            .unwrap()
            .iter()
            .map(|(k, r)| (*k, r.rating, r.games))
            .collect::<Vec<_>>(),
        vec![(GameKind::Backgammon, 1400.0, 2)]
    );
    // Each applied change in the history, oldest first (the profile's
    // graph); the latest `limit` of them; none in another kind.
    assert_eq!(
        store
            .rating_history("tg:1", GameKind::Backgammon, 10)
            .await
            .unwrap(),
        vec![(1000, 1662.5), (2000, 1600.0)]
    );
    assert_eq!(
        store
            .rating_history("tg:1", GameKind::Backgammon, 1)
            .await
            .unwrap(),
        vec![(2000, 1600.0)]
    );
    assert!(
        store
            .rating_history("tg:1", GameKind::LongNardy, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.pending_ratings(10).await.unwrap().is_empty());
    assert_eq!(
        store
            .standing("tg:1", GameKind::Backgammon)
            .await
            .unwrap()
            .unwrap()
            .rank,
        1
    );
}

async fn an_unrateable_game_is_settled_without_a_rating_change(db: &Db) {
    let store = &db.store;
    let stuck = finished(
        "r1",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        1000,
        true,
    );
    let next = finished(
        "r2",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        2000,
        true,
    );
    let casual = finished(
        "r3",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        3000,
        false,
    );
    for g in [&stuck, &next, &casual] {
        store.archive(g).await.unwrap();
    }
    assert_eq!(
        store.settle_unrateable(&stuck.key).await.unwrap(),
        Applied::Applied
    );
    // Off the pending list, nobody rated, still rated in history.
    assert_eq!(
        store.pending_ratings(10).await.unwrap(),
        vec![next.key.clone()]
    );
    assert_eq!(
        store.rating("tg:1", GameKind::LongNardy).await.unwrap(),
        None
    );
    let stored = store.game(&stuck.key).await.unwrap().unwrap();
    assert!(stored.game.rated && stored.ratings_applied_ms.is_some());
    // Again, or after a real application: nothing changes.
    assert_eq!(
        store.settle_unrateable(&stuck.key).await.unwrap(),
        Applied::AlreadyApplied
    );
    let ups = [update("tg:1", 0, 1600.0), update("tg:2", 0, 1400.0)];
    assert_eq!(
        store.apply_rated_game(&next.key, &ups).await.unwrap(),
        Applied::Applied
    );
    assert_eq!(
        store.settle_unrateable(&next.key).await.unwrap(),
        Applied::AlreadyApplied
    );
    assert_eq!(
        store
            .rating("tg:1", GameKind::LongNardy)
            .await
            .unwrap()
            .map(|r| (r.rating, r.games)),
        Some((1600.0, 1))
    );
    // A casual game or an unknown one is refused.
    assert!(matches!(
        store.settle_unrateable(&casual.key).await,
        Err(StoreError::NotRated(_))
    ));
    assert!(matches!(
        store.settle_unrateable(&GameKey::new("nope", 1)).await,
        Err(StoreError::UnknownGame(_))
    ));
}

async fn concurrent_applications_of_one_game_apply_once(db: &Db) {
    let store = &db.store;
    let g = finished(
        "r1",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        1000,
        true,
    );
    store.archive(&g).await.unwrap();
    let updates = [update("tg:1", 0, 1550.0), update("tg:2", 0, 1450.0)];
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            let key = g.key.clone();
            let updates = updates.clone();
            tokio::spawn(async move { store.apply_rated_game(&key, &updates).await })
        })
        .collect();
    let mut results = Vec::new();
    for run in runs {
        results.push(run.await.unwrap().unwrap());
    }
    assert_eq!(
        results.iter().filter(|r| **r == Applied::Applied).count(),
        1,
        "{results:?}"
    );
    assert_eq!(
        results
            .iter()
            .filter(|r| **r == Applied::AlreadyApplied)
            .count(),
        3
    );
    let ann = store
        .rating("tg:1", GameKind::LongNardy)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((ann.rating, ann.games), (1550.0, 1));
    assert_eq!(
        store
            .standing("tg:2", GameKind::LongNardy)
            .await
            .unwrap()
            .unwrap()
            .of,
        2
    );

    // Two games of one player applied at once, both computed from his
    // rating before either: one is applied, the other refused as stale
    // (nothing lost), then recomputed and applied.
    let g2 = finished(
        "r2",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:3")],
        2000,
        true,
    );
    let g3 = finished(
        "r3",
        1,
        GameKind::LongNardy,
        [player("tg:4"), player("tg:1")],
        2000,
        true,
    );
    store.archive(&g2).await.unwrap();
    store.archive(&g3).await.unwrap();
    let runs: Vec<_> = [
        (
            g2.key.clone(),
            [update("tg:1", 1, 1600.0), update("tg:3", 0, 1400.0)],
        ),
        (
            g3.key.clone(),
            [update("tg:4", 0, 1450.0), update("tg:1", 1, 1590.0)],
        ),
    ]
    .into_iter()
    .map(|(key, updates)| {
        let store = store.clone();
        tokio::spawn(async move { (key.clone(), store.apply_rated_game(&key, &updates).await) })
    })
    .collect();
    let mut refused = Vec::new();
    for run in runs {
        match run.await.unwrap() {
            (_, Ok(Applied::Applied)) => {}
            (key, Err(StoreError::RatingConflict { player, games })) => {
                assert_eq!((player.as_str(), games), ("tg:1", 2));
                refused.push(key);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(refused.len(), 1);
    assert_eq!(store.pending_ratings(10).await.unwrap(), refused);
    let ann = store
        .rating("tg:1", GameKind::LongNardy)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ann.games, 2);
    let retry = if refused[0] == g2.key {
        [update("tg:1", 2, 1610.0), update("tg:3", 0, 1400.0)]
    } else {
        [update("tg:4", 0, 1450.0), update("tg:1", 2, 1610.0)]
    };
    assert_eq!(
        store.apply_rated_game(&refused[0], &retry).await.unwrap(),
        Applied::Applied
    );
    let ann = store
        .rating("tg:1", GameKind::LongNardy)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((ann.rating, ann.games), (1610.0, 3));
    assert_eq!(
        store
            .standing("tg:1", GameKind::LongNardy)
            .await
            .unwrap()
            .unwrap()
            .of,
        4
    );
}

async fn games_of(db: &Db, player: &str) -> u32 {
    let rating = db.store.rating(player, GameKind::LongNardy).await.unwrap();
    rating.map_or(0, |r| r.games)
}

/// The leaderboard as a sort would give it: rating down, then id up.
async fn check_board(db: &Db, kind: GameKind, ratings: &[(String, f64)]) {
    let store = &db.store;
    let mut want: Vec<(String, f64)> = ratings.to_vec();
    want.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let top = store.top(kind, 100).await.unwrap();
    let got: Vec<(u64, String, f64)> = top
        .iter()
        .map(|e| (e.rank, e.player.clone(), e.rating.rating))
        .collect();
    let expect: Vec<(u64, String, f64)> = want
        .iter()
        .take(100)
        .zip(1u64..)
        .map(|((p, r), rank)| (rank, p.clone(), *r))
        .collect();
    assert_eq!(got, expect);
    for (rank, (p, r)) in (1u64..).zip(&want) {
        let s = store.standing(p, kind).await.unwrap().unwrap();
        assert_eq!(
            (s.rank, s.of, s.rating.rating),
            (rank, want.len() as u64, *r),
            "{p}"
        );
    }
}

async fn leaderboard_order_and_rank_with_ties(db: &Db) {
    let store = &db.store;
    // 250 players: ratings with exact ties, several in one whole point,
    // and far apart; every tenth has a profile.
    let mut ratings = Vec::new();
    let mut seeds = Vec::new();
    let mut profiles = Vec::new();
    for i in 0..250u32 {
        let id = format!("p{:03}", (i * 37) % 250);
        let rating = match i % 5 {
            0 => 1500.0,
            1 => 1500.25 + f64::from(i % 3) * 0.25,
            2 => 1200.0 + f64::from(i) * 3.5,
            3 => 2100.0 - f64::from(i % 7),
            _ => 900.5 + f64::from(i % 11) * 0.125,
        };
        ratings.push((id.clone(), rating));
        seeds.push(SeedRating {
            player: id.clone(),
            kind: GameKind::LongNardy,
            rating: Rating {
                rating,
                deviation: 60.0,
                volatility: 0.06,
                games: 30,
                last_rated_ms: 1,
            },
        });
        if i % 10 == 0 {
            profiles.push(login(&id, &format!("Name{id}")));
        }
    }
    // Another kind's board is apart.
    seeds.push(SeedRating {
        player: "p000".into(),
        kind: GameKind::Thud,
        rating: Rating {
            rating: 3000.0,
            deviation: 60.0,
            volatility: 0.06,
            games: 3,
            last_rated_ms: 1,
        },
    });
    // COPY's text format escapes these; SQLite's JSON quotes them.
    profiles[1].display_name = "Tab\there, back\\slash\nnew line \\N ☃".into();
    store.bulk_load(&profiles, &seeds).await.unwrap();
    let odd = store.profile(&profiles[1].player).await.unwrap().unwrap();
    assert_eq!(odd.display_name, profiles[1].display_name);
    assert_eq!(odd.username, profiles[1].username);
    check_board(db, GameKind::LongNardy, &ratings).await;
    let thud = store.top(GameKind::Thud, 10).await.unwrap();
    assert_eq!(
        thud.iter()
            .map(|e| (e.rank, e.player.as_str()))
            .collect::<Vec<_>>(),
        [(1, "p000")]
    );
    assert_eq!(store.standing("p001", GameKind::Thud).await.unwrap(), None);
    assert_eq!(
        store.standing("nobody", GameKind::LongNardy).await.unwrap(),
        None
    );
    assert!(
        store
            .top(GameKind::Backgammon, 100)
            .await
            .unwrap()
            .is_empty()
    );
    // Names come from the profiles (the chosen one first), none without.
    store
        .set_chosen_name("p000", Some("Champion"))
        .await
        .unwrap();
    let top = store.top(GameKind::LongNardy, 100).await.unwrap();
    for e in &top {
        let want = profiles.iter().find(|p| p.player == e.player).map(|p| {
            if p.player == "p000" {
                "Champion".to_owned()
            } else {
                p.display_name.clone()
            }
        });
        assert_eq!(e.name, want, "{}", e.player);
    }
    for limit in [0, 101] {
        assert!(matches!(
            store.top(GameKind::LongNardy, limit).await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert_eq!(store.top(GameKind::LongNardy, 3).await.unwrap().len(), 3);

    // Rated games move players across buckets and into ties; the counts
    // follow. A new player enters exactly on a tie.
    let mut board: std::collections::BTreeMap<String, f64> = ratings.iter().cloned().collect();
    let moves = [
        ("p010", "p020", 1500.0, 2099.0),
        ("p030", "newbie", 900.5, 1500.25),
        ("p040", "p010", 3000.0, 100.0),
    ];
    for (n, (a, b, ra, rb)) in moves.iter().enumerate() {
        let key = GameKey::new("rated", n as u32 + 1);
        store
            .archive(&finished(
                &key.room,
                key.game,
                GameKind::LongNardy,
                [player(a), player(b)],
                10 + n as u64,
                true,
            ))
            .await
            .unwrap();
        let ups = [
            update(a, games_of(db, a).await, *ra),
            update(b, games_of(db, b).await, *rb),
        ];
        assert_eq!(
            store.apply_rated_game(&key, &ups).await.unwrap(),
            Applied::Applied
        );
        board.insert(a.to_string(), *ra);
        board.insert(b.to_string(), *rb);
    }
    let now: Vec<(String, f64)> = board.clone().into_iter().collect();
    check_board(db, GameKind::LongNardy, &now).await;
    // A deletion takes the player off the board.
    store.delete_player("p040").await.unwrap();
    board.remove("p040");
    let now: Vec<(String, f64)> = board.clone().into_iter().collect();
    check_board(db, GameKind::LongNardy, &now).await;
    // A recount from the ratings finds the counts already right.
    store.recount_buckets(GameKind::LongNardy).await.unwrap();
    check_board(db, GameKind::LongNardy, &now).await;
    let distinct: BTreeSet<_> = now.iter().map(|(_, r)| r.to_bits()).collect();
    assert!(distinct.len() < now.len(), "the board has ties");
}

/// One seat's statistics delta; `player` `None` for a bot's seat.
fn delta(seat: SeatId, player: Option<&str>, result: PlayerResult, points: u32) -> PlayerDelta {
    PlayerDelta {
        seat,
        player: player.map(PlayerId::new),
        bot_level: None,
        opponent_bot_level: None,
        result,
        points_won: if result == PlayerResult::Win {
            points
        } else {
            0
        },
        points_lost: if result == PlayerResult::Lose {
            points
        } else {
            0
        },
        mars: points >= 2,
        game: None,
    }
}

/// The deltas of a game between two players won by seat A.
fn a_beats_b(game: &mut FinishedGame, points: u32) {
    let a = game.seats[0].player().map(str::to_owned);
    let b = game.seats[1].player().map(str::to_owned);
    game.deltas = vec![
        delta(SeatId::A, a.as_deref(), PlayerResult::Win, points),
        delta(SeatId::B, b.as_deref(), PlayerResult::Lose, points),
    ];
}

/// What `PlayerStats::record` makes of `deltas` (each of `kind`).
fn expected_stats<'d>(
    kind: GameKind,
    deltas: impl IntoIterator<Item = &'d PlayerDelta>,
) -> PlayerStats {
    let mut stats = PlayerStats::default();
    for d in deltas {
        let mut d = d.clone();
        d.game = Some(kind);
        stats.record(&d);
    }
    stats
}

async fn stats_are_added_once_per_game(db: &Db) {
    let store = &db.store;
    assert_eq!(store.stats("tg:1").await.unwrap(), None);
    // Against the computer: the bot's delta names no player.
    let mut vs_bot = finished(
        "r1",
        1,
        GameKind::LongNardy,
        [player("tg:1"), Seat::Bot(2)],
        1000,
        false,
    );
    let mut ann = delta(SeatId::A, Some("tg:1"), PlayerResult::Win, 2);
    ann.opponent_bot_level = Some(2);
    let mut bot = delta(SeatId::B, None, PlayerResult::Lose, 2);
    bot.bot_level = Some(2);
    vs_bot.deltas = vec![ann.clone(), bot];
    assert_eq!(store.archive(&vs_bot).await.unwrap(), Archived::Stored);
    let once = store.stats("tg:1").await.unwrap().unwrap();
    assert_eq!(once, expected_stats(GameKind::LongNardy, [&ann]));
    assert_eq!((once.games, once.wins, once.mars_wins), (1, 2, 1));
    assert_eq!(once.by_bot_level[&2].wins, 1);
    assert_eq!(once.by_game[&GameKind::LongNardy].games, 1);
    // Archived again, or again with other deltas: nothing added.
    assert_eq!(
        store.archive(&vs_bot).await.unwrap(),
        Archived::AlreadyStored
    );
    let mut other = vs_bot.clone();
    other.deltas[0].points_won = 64;
    assert_eq!(
        store.archive(&other).await.unwrap(),
        Archived::AlreadyStored
    );
    assert_eq!(store.stats("tg:1").await.unwrap(), Some(once.clone()));
    // The deltas are not read back with the game.
    let stored = store.game(&vs_bot.key).await.unwrap().unwrap();
    assert!(stored.game.deltas.is_empty());

    // A game between two players counts for both; Ann, in seat B, loses.
    let mut vs_bob = finished(
        "r2",
        1,
        GameKind::Backgammon,
        [player("tg:2"), player("tg:1")],
        2000,
        false,
    );
    a_beats_b(&mut vs_bob, 1);
    assert_eq!(store.archive(&vs_bob).await.unwrap(), Archived::Stored);
    let both = store.stats("tg:1").await.unwrap().unwrap();
    assert_eq!(
        both,
        expected_stats(GameKind::LongNardy, [&ann])
            .tap_record(GameKind::Backgammon, &vs_bob.deltas[1])
    );
    assert_eq!((both.games, both.wins, both.losses), (2, 2, 1));
    assert_eq!(both.by_game[&GameKind::Backgammon].losses, 1);
    assert_eq!(
        store.stats("tg:2").await.unwrap().unwrap(),
        expected_stats(GameKind::Backgammon, [&vs_bob.deltas[0]])
    );
    // A game without deltas (or with only a bot's) adds nothing.
    let quiet = finished(
        "r3",
        1,
        GameKind::Thud,
        [player("tg:1"), Seat::Bot(1)],
        3000,
        false,
    );
    store.archive(&quiet).await.unwrap();
    assert_eq!(store.stats("tg:1").await.unwrap(), Some(both.clone()));

    // Refused, nothing written (not the game, not a statistic): a delta
    // for someone not in its seat, for a bot's seat, two for one seat, a
    // delta of another kind.
    let base = finished(
        "bad",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        4000,
        false,
    );
    let mut stranger = base.clone();
    stranger.deltas = vec![delta(SeatId::B, Some("tg:3"), PlayerResult::Lose, 1)];
    let mut swapped = base.clone();
    swapped.deltas = vec![delta(SeatId::B, Some("tg:1"), PlayerResult::Lose, 1)];
    let mut on_bot = vs_bot.clone();
    on_bot.key = base.key.clone();
    on_bot.deltas = vec![delta(SeatId::B, Some("tg:1"), PlayerResult::Lose, 1)];
    let mut twice = base.clone();
    a_beats_b(&mut twice, 1);
    twice.deltas[1].seat = SeatId::A;
    twice.deltas[1].player = Some(PlayerId::new("tg:1"));
    let mut other_kind = base.clone();
    a_beats_b(&mut other_kind, 1);
    other_kind.deltas[0].game = Some(GameKind::Thud);
    for bad in [&stranger, &swapped, &on_bot, &twice, &other_kind] {
        assert!(
            matches!(store.archive(bad).await, Err(StoreError::Invalid(_))),
            "{:?}",
            bad.deltas
        );
    }
    assert_eq!(store.game(&base.key).await.unwrap(), None);
    assert_eq!(store.stats("tg:3").await.unwrap(), None);
    assert_eq!(store.stats("tg:1").await.unwrap(), Some(both));
    // A delta that names its kind is counted as it says.
    let mut named = base.clone();
    a_beats_b(&mut named, 1);
    named.deltas[0].game = Some(GameKind::LongNardy);
    assert_eq!(store.archive(&named).await.unwrap(), Archived::Stored);
    let after = store.stats("tg:1").await.unwrap().unwrap();
    assert_eq!(after.by_game[&GameKind::LongNardy].games, 2);
}

/// `record` as a builder, for the expectations.
trait TapRecord {
    fn tap_record(self, kind: GameKind, d: &PlayerDelta) -> Self;
}

impl TapRecord for PlayerStats {
    fn tap_record(mut self, kind: GameKind, d: &PlayerDelta) -> PlayerStats {
        let mut d = d.clone();
        d.game = Some(kind);
        self.record(&d);
        self
    }
}

async fn concurrent_archives_of_one_players_games_all_count(db: &Db) {
    let store = &db.store;
    // Eight games of Ann against four opponents, in both seats, each
    // archived twice at once: every game counted once, none lost.
    let mut games = Vec::new();
    for i in 0..8u32 {
        let opponent = format!("tg:{}", 2 + i % 4);
        let seats = if i % 2 == 0 {
            [player("tg:1"), player(&opponent)]
        } else {
            [player(&opponent), player("tg:1")]
        };
        let mut g = finished(
            &format!("c{i}"),
            1,
            GameKind::LongNardy,
            seats,
            1000 + u64::from(i),
            false,
        );
        a_beats_b(&mut g, 1 + i % 3);
        games.push(g);
    }
    let runs: Vec<_> = games
        .iter()
        .chain(&games)
        .map(|g| {
            let store = store.clone();
            let g = g.clone();
            tokio::spawn(async move { store.archive(&g).await })
        })
        .collect();
    let mut stored = 0;
    for run in runs {
        if run.await.unwrap().unwrap() == Archived::Stored {
            stored += 1;
        }
    }
    assert_eq!(stored, games.len());
    let mut want: BTreeMap<String, Vec<&PlayerDelta>> = BTreeMap::new();
    for g in &games {
        for d in &g.deltas {
            want.entry(d.player.clone().unwrap().0).or_default().push(d);
        }
    }
    for (p, deltas) in &want {
        let got = store.stats(p).await.unwrap().unwrap();
        assert_eq!(
            got,
            expected_stats(GameKind::LongNardy, deltas.iter().copied()),
            "{p}"
        );
    }
    let ann = store.stats("tg:1").await.unwrap().unwrap();
    assert_eq!(ann.games, 8);
    assert_eq!(
        ann.wins + ann.losses,
        (0..8).map(|i| 1 + i % 3).sum::<u32>()
    );
}

async fn stats_are_deleted_with_the_player(db: &Db) {
    let store = &db.store;
    let mut g = finished(
        "r1",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        1000,
        false,
    );
    a_beats_b(&mut g, 2);
    store.archive(&g).await.unwrap();
    assert!(store.stats("tg:1").await.unwrap().is_some());
    let deleted = store.delete_player("tg:1").await.unwrap();
    assert_eq!(
        deleted,
        Deleted {
            profile: false,
            games: 1,
            games_deleted: 0,
            ratings: 0,
            stats: true,
            tournaments: 0
        }
    );
    assert_eq!(store.stats("tg:1").await.unwrap(), None);
    // His opponent keeps his own.
    assert_eq!(store.stats("tg:2").await.unwrap().unwrap().losses, 2);
    assert_eq!(
        store.delete_player("tg:1").await.unwrap(),
        Deleted::default()
    );
    assert!(store.delete_player("tg:2").await.unwrap().stats);
    assert_eq!(store.stats("tg:2").await.unwrap(), None);
}

/// Monday 2024-01-01 00:00 UTC.
const WEEK: u64 = 1_704_067_200_000;
const HOUR: u64 = 3_600_000;

/// Archives a rated game of `kind` ending at `at` and applies its new
/// ratings; keeps `model` (player → current rating, ends of his rated
/// games) in step.
#[allow(clippy::too_many_arguments)]
async fn rated_game(
    db: &Db,
    model: &mut BTreeMap<String, (f64, Vec<u64>)>,
    room: &str,
    kind: GameKind,
    (a, b): (&str, &str),
    at: u64,
    (ra, rb): (f64, f64),
) {
    let store = &db.store;
    let g = finished(room, 1, kind, [player(a), player(b)], at, true);
    store.archive(&g).await.unwrap();
    let games = |p: &str| {
        let store = store.clone();
        let p = p.to_owned();
        async move { store.rating(&p, kind).await.unwrap().map_or(0, |r| r.games) }
    };
    let ups = [update(a, games(a).await, ra), update(b, games(b).await, rb)];
    assert_eq!(
        store.apply_rated_game(&g.key, &ups).await.unwrap(),
        Applied::Applied
    );
    if kind == GameKind::LongNardy {
        for (p, r) in [(a, ra), (b, rb)] {
            let entry = model.entry(p.to_owned()).or_insert((r, Vec::new()));
            entry.0 = r;
            entry.1.push(at);
        }
    }
}

/// The period's board against the model: the players rated since `since`
/// by current rating, ties by id; every one's standing; and `absent`
/// players not on it.
async fn check_week(
    db: &Db,
    model: &BTreeMap<String, (f64, Vec<u64>)>,
    since: u64,
    absent: &[&str],
) -> Vec<String> {
    let store = &db.store;
    let kind = GameKind::LongNardy;
    let mut want: Vec<(&str, f64)> = model
        .iter()
        .filter(|(_, (_, ends))| ends.iter().any(|t| *t >= since))
        .map(|(p, (r, _))| (p.as_str(), *r))
        .collect();
    want.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(y.0)));
    let top = store.top_since(kind, since, 100).await.unwrap();
    let got: Vec<(u64, &str, f64)> = top
        .iter()
        .map(|e| (e.rank, e.player.as_str(), e.rating.rating))
        .collect();
    let expect: Vec<(u64, &str, f64)> = (1u64..)
        .zip(&want)
        .map(|(rank, (p, r))| (rank, *p, *r))
        .collect();
    assert_eq!(got, expect, "since {since}");
    for (rank, (p, r)) in (1u64..).zip(&want) {
        let s = store.standing_since(p, kind, since).await.unwrap().unwrap();
        assert_eq!(
            (s.rank, s.of, s.rating.rating),
            (rank, want.len() as u64, *r),
            "{p} since {since}"
        );
    }
    for p in absent {
        assert_eq!(
            store.standing_since(p, kind, since).await.unwrap(),
            None,
            "{p} since {since}"
        );
    }
    want.iter().map(|(p, _)| (*p).to_owned()).collect()
}

async fn weekly_board_ranks_only_players_rated_since(db: &Db) {
    let store = &db.store;
    let kind = GameKind::LongNardy;
    assert_eq!(week_start_ms(WEEK + 3 * 24 * HOUR), WEEK);
    let mut model = BTreeMap::new();
    let m = &mut model;
    for p in ["p1", "p2", "p3", "p5", "p6"] {
        store
            .upsert_profile(&login(p, &format!("N{p}")))
            .await
            .unwrap();
    }
    // Last week only: p1 (who plays again this week) and p2.
    rated_game(
        db,
        m,
        "g1",
        kind,
        ("p1", "p2"),
        WEEK - 24 * HOUR,
        (1600.0, 1400.0),
    )
    .await;
    // This week, the first at its very first millisecond; p5 and p6 tie.
    rated_game(
        db,
        m,
        "g2",
        kind,
        ("p3", "p4"),
        WEEK + HOUR,
        (1550.0, 1450.0),
    )
    .await;
    rated_game(db, m, "g3", kind, ("p5", "p6"), WEEK, (1500.0, 1500.0)).await;
    rated_game(
        db,
        m,
        "g4",
        kind,
        ("p7", "p1"),
        WEEK + 2 * HOUR,
        (1480.0, 1620.0),
    )
    .await;
    // A game of last week's last millisecond applied late: p8 is not
    // this week's, p3's current rating (this week's board shows) moves.
    rated_game(db, m, "g5", kind, ("p3", "p8"), WEEK - 1, (1590.0, 1410.0)).await;
    // Not on the long nardy board: another kind's game, a casual game, a
    // rated game whose ratings wait.
    rated_game(
        db,
        m,
        "g6",
        GameKind::Backgammon,
        ("p2", "p9"),
        WEEK + HOUR,
        (1700.0, 1300.0),
    )
    .await;
    let casual = finished(
        "g7",
        1,
        kind,
        [player("p2"), player("p8")],
        WEEK + HOUR,
        false,
    );
    store.archive(&casual).await.unwrap();
    let waiting = finished(
        "g8",
        1,
        kind,
        [player("p10"), player("p11")],
        WEEK + HOUR,
        true,
    );
    store.archive(&waiting).await.unwrap();

    // What the period's board reads: each rating's last_rated_ms is the
    // latest end of the games applied to it (g5, applied last, ended
    // before g2), so "last rated since" is "a rated game since".
    for (p, (_, ends)) in &model {
        let rating = store.rating(p, kind).await.unwrap().unwrap();
        assert_eq!(Some(&rating.last_rated_ms), ends.iter().max(), "{p}");
    }
    let absent = ["p2", "p8", "p9", "p10", "p11", "nobody"];
    let board = check_week(db, &model, WEEK, &absent).await;
    assert_eq!(board, ["p1", "p3", "p5", "p6", "p7", "p4"]);
    // Names come with the page, as on the all-time board.
    let top = store.top_since(kind, WEEK, 100).await.unwrap();
    assert_eq!(top[0].name.as_deref(), Some("Np1"));
    assert_eq!(top[4].name, None);
    assert_eq!(
        store
            .standing_since("p6", kind, WEEK)
            .await
            .unwrap()
            .unwrap()
            .rating,
        store.rating("p6", kind).await.unwrap().unwrap()
    );
    // A page is the board's head.
    let two = store.top_since(kind, WEEK, 2).await.unwrap();
    assert_eq!(two, top[..2]);
    // Other periods: from this week's second hour; from the epoch (the
    // all-time board); from after every game (empty).
    let later = check_week(db, &model, WEEK + HOUR + 1, &["p3", "p4", "p5"]).await;
    assert_eq!(later, ["p1", "p7"]);
    let all = check_week(db, &model, 0, &["p9"]).await;
    let all_time: Vec<String> = store
        .top(kind, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.player)
        .collect();
    assert_eq!(all, all_time);
    assert!(check_week(db, &model, u64::MAX, &["p1"]).await.is_empty());
    // Another kind's week is its own.
    let bg = store
        .top_since(GameKind::Backgammon, WEEK, 10)
        .await
        .unwrap();
    assert_eq!(
        bg.iter()
            .map(|e| (e.rank, e.player.as_str()))
            .collect::<Vec<_>>(),
        [(1, "p2"), (2, "p9")]
    );
    assert_eq!(
        store
            .standing_since("p2", GameKind::Backgammon, WEEK)
            .await
            .unwrap()
            .map(|s| (s.rank, s.of)),
        Some((1, 2))
    );
    for limit in [0, 101] {
        assert!(matches!(
            store.top_since(kind, WEEK, limit).await,
            Err(StoreError::Invalid(_))
        ));
    }
    // A player who deletes his data leaves the week's board.
    store.delete_player("p5").await.unwrap();
    model.remove("p5");
    let board = check_week(db, &model, WEEK, &["p5"]).await;
    assert_eq!(board, ["p1", "p3", "p6", "p7", "p4"]);
    // Provisional at a deviation of 110 or more (these: 200).
    assert!(top[0].rating.provisional());
}

/// The period's board as `check_week` checks it, and each page size from
/// 1 to one past its size the board's head (a small page walks the
/// board's order, a large one sorts the period's range).
async fn check_week_pages(
    db: &Db,
    model: &BTreeMap<String, (f64, Vec<u64>)>,
    since: u64,
    absent: &[&str],
) -> Vec<String> {
    let board = check_week(db, model, since, absent).await;
    let kind = GameKind::LongNardy;
    for limit in 1..=board.len() as u32 + 1 {
        let page: Vec<String> = db
            .store
            .top_since(kind, since, limit)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.player)
            .collect();
        let n = (limit as usize).min(board.len());
        assert_eq!(page, board[..n], "since {since}, {limit} rows");
    }
    board
}

/// The period counts the writes kept equal a recount from the ratings
/// (which tracks the week of the latest rating): the tracked week, and
/// each period's buckets.
async fn check_counts(db: &Db, week: u64) {
    let kept = support::period_counts(&db.url).await;
    let long = kept.0.iter().find(|(k, _)| k == "long_nardy").map(|w| w.1);
    assert_eq!(long, Some(week as i64), "the tracked week");
    for kind in [GameKind::LongNardy, GameKind::Backgammon] {
        db.store.recount_buckets(kind).await.unwrap();
    }
    assert_eq!(support::period_counts(&db.url).await, kept);
}

async fn weekly_counts_follow_every_rating_change(db: &Db) {
    let store = &db.store;
    let kind = GameKind::LongNardy;
    let day = 24 * HOUR;
    let last = WEEK - 7 * day;
    let mut model = BTreeMap::new();
    // Last week: p1 and p2, then p3 and p4 (p3 plays again this week).
    rated_game(
        db,
        &mut model,
        "g1",
        kind,
        ("p1", "p2"),
        last + HOUR,
        (1600.0, 1400.0),
    )
    .await;
    rated_game(
        db,
        &mut model,
        "g2",
        kind,
        ("p3", "p4"),
        last + 2 * HOUR,
        (1520.5, 1479.5),
    )
    .await;
    check_counts(db, last).await;
    check_week_pages(db, &model, last, &["p5"]).await;
    // This week: p3 (rated last week) and p5, the first game of the week
    // (the counts of both weeks recounted); then p3's rating moves twice
    // within the week, to another whole point and inside it, and p5's
    // to a tie with p6.
    rated_game(
        db,
        &mut model,
        "g3",
        kind,
        ("p3", "p5"),
        WEEK + HOUR,
        (1540.0, 1460.0),
    )
    .await;
    check_counts(db, WEEK).await;
    rated_game(
        db,
        &mut model,
        "g4",
        kind,
        ("p3", "p6"),
        WEEK + 2 * HOUR,
        (1610.25, 1455.0),
    )
    .await;
    rated_game(
        db,
        &mut model,
        "g5",
        kind,
        ("p5", "p3"),
        WEEK + 3 * HOUR,
        (1455.0, 1610.75),
    )
    .await;
    check_counts(db, WEEK).await;
    let board = check_week_pages(db, &model, WEEK, &["p1", "p2", "p4"]).await;
    assert_eq!(board, ["p3", "p5", "p6"]);
    check_week_pages(db, &model, last, &["p7"]).await;
    // Last week's game applied late: p2 (last week's) moves on last
    // week's board, p7 enters it and not this week's; p1 (last week's)
    // then plays this week.
    rated_game(
        db,
        &mut model,
        "g6",
        kind,
        ("p2", "p7"),
        last + 5 * day,
        (1420.0, 1380.0),
    )
    .await;
    rated_game(
        db,
        &mut model,
        "g7",
        kind,
        ("p1", "p8"),
        WEEK + 4 * HOUR,
        (1590.0, 1500.0),
    )
    .await;
    // Another kind's week is counted apart.
    rated_game(
        db,
        &mut model,
        "g8",
        GameKind::Backgammon,
        ("p1", "p9"),
        WEEK + HOUR,
        (1700.0, 1300.0),
    )
    .await;
    check_counts(db, WEEK).await;
    let board = check_week_pages(db, &model, WEEK, &["p2", "p4", "p7", "p9"]).await;
    assert_eq!(board, ["p3", "p1", "p8", "p5", "p6"]);
    let board = check_week_pages(db, &model, last, &["p9"]).await;
    assert_eq!(board, ["p3", "p1", "p8", "p4", "p5", "p6", "p2", "p7"]);
    // A deletion leaves both weeks' counts (and another kind's).
    store.delete_player("p1").await.unwrap();
    model.remove("p1");
    check_counts(db, WEEK).await;
    check_week_pages(db, &model, WEEK, &["p1"]).await;
    check_week_pages(db, &model, last, &["p1"]).await;
    assert_eq!(
        store
            .standing_since("p9", GameKind::Backgammon, WEEK)
            .await
            .unwrap()
            .map(|s| (s.rank, s.of)),
        Some((1, 1))
    );
    // The week rolls over: next week's first game tracks it and this
    // week (recounted); the week before last is read from the ratings.
    let next = WEEK + 7 * day;
    assert_eq!(week_start_ms(next), next);
    rated_game(
        db,
        &mut model,
        "g9",
        kind,
        ("p10", "p6"),
        next,
        (1650.0, 1440.0),
    )
    .await;
    check_counts(db, next).await;
    let board = check_week_pages(db, &model, next, &["p3", "p5"]).await;
    assert_eq!(board, ["p10", "p6"]);
    check_week_pages(db, &model, WEEK, &[]).await;
    check_week_pages(db, &model, last, &[]).await;
    // A game of the week before last applied now: p4 moves (in no
    // tracked week), p3 (this week's) moves on this week's board too.
    rated_game(
        db,
        &mut model,
        "g10",
        kind,
        ("p4", "p3"),
        last + 6 * day,
        (1300.0, 1700.0),
    )
    .await;
    check_counts(db, next).await;
    check_week_pages(db, &model, next, &[]).await;
    let board = check_week_pages(db, &model, WEEK, &[]).await;
    assert_eq!(board[0], "p3");
    check_week_pages(db, &model, last, &[]).await;
    // Weeks with no game between: the week three later and the one
    // before it (no game) both count that week's players only.
    let later = next + 21 * day;
    rated_game(
        db,
        &mut model,
        "g11",
        kind,
        ("p11", "p12"),
        later + HOUR,
        (1500.0, 1500.0),
    )
    .await;
    check_counts(db, later).await;
    for since in [later, later - 7 * day] {
        let board = check_week_pages(db, &model, since, &["p10"]).await;
        assert_eq!(board, ["p11", "p12"]);
    }
    check_week_pages(db, &model, next, &[]).await;
    store.delete_player("p12").await.unwrap();
    model.remove("p12");
    check_counts(db, later).await;
    check_week_pages(db, &model, later, &["p12"]).await;
}

/// A game to apply: its room, players, end and the ratings after it.
type Played = (String, (String, String), u64, (f64, f64));

/// Applies `games` at once, each player in one of them; each update
/// counting the stored rating's games.
async fn apply_at_once(db: &Db, model: &mut BTreeMap<String, (f64, Vec<u64>)>, games: &[Played]) {
    let store = &db.store;
    let kind = GameKind::LongNardy;
    let mut runs = Vec::new();
    for (room, (a, b), at, (ra, rb)) in games {
        let g = finished(room, 1, kind, [player(a), player(b)], *at, true);
        store.archive(&g).await.unwrap();
        let games = |p: &str| {
            let store = store.clone();
            let p = p.to_owned();
            async move { store.rating(&p, kind).await.unwrap().map_or(0, |r| r.games) }
        };
        let ups = [
            update(a, games(a).await, *ra),
            update(b, games(b).await, *rb),
        ];
        let store = store.clone();
        runs.push(tokio::spawn(async move {
            store.apply_rated_game(&g.key, &ups).await
        }));
        for (p, r) in [(a, ra), (b, rb)] {
            let entry = model.entry(p.clone()).or_insert((*r, Vec::new()));
            entry.0 = *r;
            entry.1.push(*at);
        }
    }
    for run in runs {
        assert_eq!(run.await.unwrap().unwrap(), Applied::Applied);
    }
}

async fn concurrent_applies_keep_the_week_counted(db: &Db) {
    let day = 24 * HOUR;
    let (last, next) = (WEEK - 7 * day, WEEK + 7 * day);
    let mut model = BTreeMap::new();
    let name = |i: usize| format!("c{i:02}");
    // The kind's first games at once, last week's and this week's: one
    // makes the tracked week, the others queue behind it.
    let first: Vec<_> = (0..12)
        .map(|i| {
            let at = if i % 2 == 0 { last + HOUR } else { WEEK + HOUR };
            let r = 1400.0 + 17.5 * i as f64;
            (
                format!("k{i}"),
                (name(2 * i), name(2 * i + 1)),
                at,
                (r, r - 33.25),
            )
        })
        .collect();
    apply_at_once(db, &mut model, &first).await;
    check_counts(db, WEEK).await;
    check_week_pages(db, &model, WEEK, &[]).await;
    check_week_pages(db, &model, last, &[]).await;
    // Then each player again, paired otherwise, some games this week and
    // some next (the week rolls over among them), while two players of
    // the first round delete their data.
    let second: Vec<_> = (0..11)
        .map(|i| {
            let at = if i % 3 == 0 {
                next + HOUR
            } else {
                WEEK + 2 * HOUR
            };
            let r = 1390.0 + 23.0 * i as f64;
            (
                format!("l{i}"),
                (name(2 * i + 1), name(2 * i + 2)),
                at,
                (r, r + 41.5),
            )
        })
        .collect();
    let deleting: Vec<_> = [name(0), name(23)]
        .into_iter()
        .map(|p| {
            let store = db.store.clone();
            tokio::spawn(async move { store.delete_player(&p).await })
        })
        .collect();
    apply_at_once(db, &mut model, &second).await;
    for d in deleting {
        d.await.unwrap().unwrap();
    }
    model.remove(&name(0));
    model.remove(&name(23));
    check_counts(db, next).await;
    check_week_pages(db, &model, next, &[]).await;
    check_week_pages(db, &model, WEEK, &[]).await;
    check_week_pages(db, &model, last, &[]).await;
}

async fn analysis_cache_round_trip_and_cascade(db: &Db) {
    let store = &db.store;
    let vs_bot = finished(
        "r1",
        1,
        GameKind::Backgammon,
        [player("tg:1"), Seat::Bot(3)],
        1000,
        false,
    );
    let vs_bob = finished(
        "r2",
        1,
        GameKind::Backgammon,
        [player("tg:1"), player("tg:2")],
        2000,
        false,
    );
    store.archive(&vs_bot).await.unwrap();
    store.archive(&vs_bob).await.unwrap();
    assert_eq!(store.analysis(&vs_bot.key).await.unwrap(), None);
    let first = r#"{"moves":[{"ply":1,"equityLost":0.012}],"engine":"hard"}"#;
    store.save_analysis(&vs_bot.key, first).await.unwrap();
    assert_eq!(
        store.analysis(&vs_bot.key).await.unwrap().as_deref(),
        Some(first)
    );
    // Saved again: the latest replaces it. Another game is apart.
    let second = r#"{"moves":[],"engine":"hard-2","note":"ünïcødé ☃"}"#;
    store.save_analysis(&vs_bot.key, second).await.unwrap();
    assert_eq!(
        store.analysis(&vs_bot.key).await.unwrap().as_deref(),
        Some(second)
    );
    assert_eq!(store.analysis(&vs_bob.key).await.unwrap(), None);
    store.save_analysis(&vs_bob.key, first).await.unwrap();
    // Up to 1 MiB is kept; more, or text that is not JSON, is refused.
    let big = format!("\"{}\"", "x".repeat(MAX_ANALYSIS_BYTES - 2));
    assert_eq!(big.len(), MAX_ANALYSIS_BYTES);
    store.save_analysis(&vs_bob.key, &big).await.unwrap();
    assert_eq!(
        store.analysis(&vs_bob.key).await.unwrap().map(|j| j.len()),
        Some(MAX_ANALYSIS_BYTES)
    );
    let too_big = format!("\"{}\"", "x".repeat(MAX_ANALYSIS_BYTES - 1));
    for bad in [too_big.as_str(), "not json", "{\"open\":", ""] {
        assert!(matches!(
            store.save_analysis(&vs_bot.key, bad).await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert_eq!(
        store.analysis(&vs_bot.key).await.unwrap().as_deref(),
        Some(second)
    );
    // Only for an archived game.
    let unknown = GameKey::new("nowhere", 1);
    assert_eq!(
        store.save_analysis(&unknown, first).await,
        Err(StoreError::UnknownGame(unknown.clone()))
    );
    assert_eq!(store.analysis(&unknown).await.unwrap(), None);
    assert!(matches!(
        store.save_analysis(&GameKey::new("", 1), first).await,
        Err(StoreError::Invalid(_))
    ));

    // Ann deletes her data: her game against the computer has no player
    // left and goes, its analysis with it; Bob's game keeps its own.
    store.delete_player("tg:1").await.unwrap();
    assert_eq!(store.game(&vs_bot.key).await.unwrap(), None);
    assert_eq!(store.analysis(&vs_bot.key).await.unwrap(), None);
    assert_eq!(
        store.save_analysis(&vs_bot.key, first).await,
        Err(StoreError::UnknownGame(vs_bot.key.clone()))
    );
    assert_eq!(
        store.analysis(&vs_bob.key).await.unwrap().map(|j| j.len()),
        Some(MAX_ANALYSIS_BYTES)
    );
    // And with Bob gone, his game and its analysis go too.
    store.delete_player("tg:2").await.unwrap();
    assert_eq!(store.analysis(&vs_bob.key).await.unwrap(), None);
    // Archived again (a retrying archiver), it starts without one.
    store.archive(&vs_bob).await.unwrap();
    assert_eq!(store.analysis(&vs_bob.key).await.unwrap(), None);
}

/// Issue 47: a batch (`archive_many`, one transaction) stores each game
/// once, a key twice in it included, and adds the statistics of a player
/// with several games in it once per game; the same batch again stores
/// nothing.
async fn a_batch_stores_each_game_once_and_counts_each_players_games(db: &Db) {
    let store = &db.store;
    let mut games = Vec::new();
    // tg:1 plays three of the four games (seat A, B, A).
    for (i, seats) in [
        ("tg:1", "tg:2"),
        ("tg:3", "tg:1"),
        ("tg:1", "tg:4"),
        ("tg:5", "tg:6"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut g = finished(
            &format!("b{i}"),
            1,
            GameKind::LongNardy,
            [player(seats.0), player(seats.1)],
            1000 + i as u64,
            false,
        );
        a_beats_b(&mut g, 1);
        games.push(g);
    }
    // The first game again, with other deltas: the first one wins.
    let mut again = games[0].clone();
    again.deltas[0].result = PlayerResult::Draw;
    games.push(again);
    let done = store.archive_many(&games).await.unwrap();
    assert_eq!(
        done,
        vec![
            Archived::Stored,
            Archived::Stored,
            Archived::Stored,
            Archived::Stored,
            Archived::AlreadyStored
        ]
    );
    let ann = store.stats("tg:1").await.unwrap().unwrap();
    assert_eq!((ann.games, ann.wins, ann.losses), (3, 2, 1), "{ann:?}");
    assert_eq!(ann.draws, 0, "the second archive of b0 added nothing");
    let page = store
        .history(&HistoryQuery::newest("tg:1", 10))
        .await
        .unwrap();
    let rooms: Vec<&str> = page.entries.iter().map(|e| e.key.room.as_str()).collect();
    assert_eq!(rooms, ["b2", "b1", "b0"]);
    // The batch again: nothing stored, nothing counted twice.
    assert_eq!(
        store.archive_many(&games).await.unwrap(),
        vec![Archived::AlreadyStored; 5]
    );
    assert_eq!(store.stats("tg:1").await.unwrap().unwrap(), ann);
    assert_eq!(
        store
            .history(&HistoryQuery::newest("tg:1", 10))
            .await
            .unwrap()
            .entries
            .len(),
        3
    );
    // One refused game refuses the batch: nothing of it is written.
    let mut fresh = finished(
        "b9",
        1,
        GameKind::LongNardy,
        [player("tg:7"), player("tg:8")],
        9,
        false,
    );
    a_beats_b(&mut fresh, 1);
    let mut bad = finished(
        "b10",
        1,
        GameKind::LongNardy,
        [player("tg:7"), player("tg:7")],
        9,
        false,
    );
    bad.deltas = vec![delta(SeatId::A, Some("tg:8"), PlayerResult::Win, 1)];
    assert!(matches!(
        store.archive_many(&[fresh.clone(), bad]).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.game(&fresh.key).await.unwrap(), None);
    assert_eq!(store.stats("tg:7").await.unwrap(), None);
    assert_eq!(store.archive_many(&[]).await.unwrap(), vec![]);
}

/// Issue 47: a batch that fails after some of its games were written in
/// its transaction (here a player's stored statistics do not read, after
/// the games and their history rows) leaves nothing of it; retried once
/// the cause is gone, every game is stored once and counted once.
async fn a_batch_failing_midway_writes_nothing_and_its_retry_stores_each_once(db: &Db) {
    let store = &db.store;
    let mut first = finished(
        "m0",
        1,
        GameKind::Backgammon,
        [player("tg:9"), player("tg:1")],
        10,
        false,
    );
    a_beats_b(&mut first, 1);
    assert_eq!(store.archive(&first).await.unwrap(), Archived::Stored);
    // tg:9's statistics row made unreadable behind the store's back.
    set_stats_raw(&db.url, "tg:9", "not json").await;
    let mut batch = Vec::new();
    for i in 0..4u32 {
        let seats = if i == 2 {
            [player("tg:2"), player("tg:9")]
        } else {
            [player("tg:2"), player(&format!("tg:{}", 20 + i))]
        };
        let mut g = finished(
            &format!("m{}", i + 1),
            1,
            GameKind::Backgammon,
            seats,
            20 + u64::from(i),
            false,
        );
        a_beats_b(&mut g, 1);
        batch.push(g);
    }
    assert!(matches!(
        store.archive_many(&batch).await,
        Err(StoreError::Corrupt(_))
    ));
    for g in &batch {
        assert_eq!(
            store.game(&g.key).await.unwrap(),
            None,
            "{} was kept",
            g.key
        );
    }
    assert_eq!(store.stats("tg:2").await.unwrap(), None);
    assert!(
        store
            .history(&HistoryQuery::newest("tg:2", 10))
            .await
            .unwrap()
            .entries
            .is_empty()
    );
    // Repaired: the retry stores all four, once; a third try stores none.
    let fine = serde_json::to_string(&store_stats_of_one(&first, "tg:9")).unwrap();
    set_stats_raw(&db.url, "tg:9", &fine).await;
    assert_eq!(
        store.archive_many(&batch).await.unwrap(),
        vec![Archived::Stored; 4]
    );
    assert_eq!(
        store.archive_many(&batch).await.unwrap(),
        vec![Archived::AlreadyStored; 4]
    );
    let bob = store.stats("tg:2").await.unwrap().unwrap();
    assert_eq!((bob.games, bob.wins), (4, 4));
    assert_eq!(store.stats("tg:9").await.unwrap().unwrap().games, 2);
    assert_eq!(
        store
            .history(&HistoryQuery::newest("tg:2", 10))
            .await
            .unwrap()
            .entries
            .len(),
        4
    );
}

/// `player`'s statistics after `game` alone.
fn store_stats_of_one(game: &FinishedGame, player: &str) -> PlayerStats {
    let mut stats = PlayerStats::default();
    for d in &game.deltas {
        if d.player.as_ref().map(|p| p.0.as_str()) == Some(player) {
            let mut d = d.clone();
            d.game.get_or_insert(game.kind);
            stats.record(&d);
        }
    }
    stats
}

/// Writes a player's statistics row as raw text, past the store.
async fn set_stats_raw(url: &str, player: &str, json: &str) {
    const SET: &str = "UPDATE player_stats SET stats = $2 WHERE player_id = $1";
    let changed = if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(url).await.unwrap();
        let n = sqlx::query(SET)
            .bind(player)
            .bind(json)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        n.rows_affected()
    } else {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        let n = sqlx::query(SET)
            .bind(player)
            .bind(json)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        n.rows_affected()
    };
    assert_eq!(changed, 1);
}

/// Rated games for the ratings batches: tg:1 plays three of them (the
/// first two in one week, the third in the next, so the period counts
/// roll over inside the batch), tg:2 two.
fn rated_games() -> Vec<FinishedGame> {
    let monday = 1_704_067_200_000u64;
    [
        ("tg:1", "tg:2", monday + 1000),
        ("tg:3", "tg:1", monday + 2000),
        ("tg:4", "tg:5", monday + 3000),
        ("tg:2", "tg:1", monday + 8 * 86_400_000),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (a, b, at))| {
        finished(
            &format!("q{i}"),
            1,
            GameKind::LongNardy,
            [player(a), player(b)],
            at,
            true,
        )
    })
    .collect()
}

/// Each game's updates, computed in order from the ratings the games
/// before it left (seat A wins 10 points, B loses them).
fn chained(games: &[FinishedGame]) -> Vec<(GameKey, [RatingUpdate; 2])> {
    let mut now: BTreeMap<String, (u32, f64)> = BTreeMap::new();
    games
        .iter()
        .map(|g| {
            let ids = [g.seats[0].player().unwrap(), g.seats[1].player().unwrap()];
            let ups = [0, 1].map(|i| {
                let (games, rating) = now.get(ids[i]).copied().unwrap_or((0, 1500.0));
                let r = if i == 0 { rating + 10.0 } else { rating - 10.0 };
                now.insert(ids[i].to_owned(), (games + 1, r));
                update(ids[i], games, r)
            });
            (g.key.clone(), ups)
        })
        .collect()
}

/// Issue 47: `apply_rated_games` applies a batch in order in one
/// transaction — one player in several of its games, each update from
/// the rating the one before left — and leaves exactly what applying the
/// games one by one leaves: ratings, their history, the board's ranks and
/// the period counts. Applied again: already applied, nothing moves.
async fn a_batch_of_ratings_applies_in_order_per_player_as_one_by_one_does(db: &Db) {
    let store = &db.store;
    let games = rated_games();
    let updates = chained(&games);
    let other = db.other().await;
    for s in [store, &other.store] {
        assert_eq!(
            s.archive_many(&games).await.unwrap(),
            vec![Archived::Stored; 4]
        );
    }
    assert_eq!(
        store.apply_rated_games(&updates).await.unwrap(),
        vec![Applied::Applied; 4]
    );
    for (key, ups) in &updates {
        assert_eq!(
            other.store.apply_rated_game(key, ups).await.unwrap(),
            Applied::Applied
        );
    }
    assert!(store.pending_ratings(10).await.unwrap().is_empty());
    for p in ["tg:1", "tg:2", "tg:3", "tg:4", "tg:5"] {
        let batch = store.rating(p, GameKind::LongNardy).await.unwrap().unwrap();
        let single = other
            .store
            .rating(p, GameKind::LongNardy)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(batch, single, "{p}");
        let standing = store.standing(p, GameKind::LongNardy).await.unwrap();
        assert_eq!(
            standing,
            other.store.standing(p, GameKind::LongNardy).await.unwrap()
        );
    }
    let ann = store
        .rating("tg:1", GameKind::LongNardy)
        .await
        .unwrap()
        .unwrap();
    // 1500 + 10 (q0, seat A) - 10 (q1, seat B) - 10 (q3, seat B).
    assert_eq!((ann.games, ann.rating), (3, 1490.0));
    assert_eq!(ann.last_rated_ms, games[3].finished_ms);
    assert_eq!(
        crate::support::period_counts(&db.url).await,
        crate::support::period_counts(&other.url).await
    );
    let week = week_start_ms(games[3].finished_ms);
    let top = store
        .top_since(GameKind::LongNardy, week, 10)
        .await
        .unwrap();
    let ids: Vec<&str> = top.iter().map(|e| e.player.as_str()).collect();
    assert_eq!(ids, ["tg:2", "tg:1"]);
    // Again: each already applied, nothing moves.
    assert_eq!(
        store.apply_rated_games(&updates).await.unwrap(),
        vec![Applied::AlreadyApplied; 4]
    );
    assert_eq!(
        store
            .rating("tg:1", GameKind::LongNardy)
            .await
            .unwrap()
            .unwrap(),
        ann
    );
    assert_eq!(store.apply_rated_games(&[]).await.unwrap(), vec![]);
}

/// Issue 47: a ratings batch whose third game's update was computed from
/// a rating that is not the one the batch's earlier games leave (tg:1's
/// second game counted as his first) is refused whole: the first two
/// games' ratings, written in the transaction, are gone with it, every
/// game still waits, and the batch recomputed applies.
async fn a_batch_of_ratings_refused_midway_writes_nothing(db: &Db) {
    let store = &db.store;
    let games = rated_games();
    store.archive_many(&games).await.unwrap();
    let mut wrong = chained(&games);
    wrong[3].1[1].previous_games = 1;
    assert!(matches!(
        store.apply_rated_games(&wrong).await,
        Err(StoreError::RatingConflict { .. })
    ));
    for p in ["tg:1", "tg:2", "tg:3"] {
        assert_eq!(
            store.rating(p, GameKind::LongNardy).await.unwrap(),
            None,
            "{p}"
        );
    }
    assert_eq!(store.pending_ratings(10).await.unwrap().len(), 4);
    assert!(store.top(GameKind::LongNardy, 10).await.unwrap().is_empty());
    // A game the batch names that is not rated refuses it too.
    let casual = finished(
        "c1",
        1,
        GameKind::LongNardy,
        [player("tg:1"), player("tg:2")],
        5,
        false,
    );
    store.archive(&casual).await.unwrap();
    let mut with_casual = chained(&games);
    with_casual.insert(
        1,
        (
            casual.key.clone(),
            [update("tg:1", 1, 1500.0), update("tg:2", 1, 1500.0)],
        ),
    );
    assert!(matches!(
        store.apply_rated_games(&with_casual).await,
        Err(StoreError::NotRated(_))
    ));
    assert_eq!(
        store.rating("tg:1", GameKind::LongNardy).await.unwrap(),
        None
    );
    // Recomputed: applied, in order.
    let right = chained(&games);
    assert_eq!(
        store.apply_rated_games(&right).await.unwrap(),
        vec![Applied::Applied; 4]
    );
    let pending: Vec<FinishedGame> = store.pending_rated_games(10).await.unwrap();
    assert!(pending.is_empty());
    assert_eq!(
        store
            .rating("tg:1", GameKind::LongNardy)
            .await
            .unwrap()
            .unwrap()
            .games,
        3
    );
}

/// The final standings of tournament `id` as its owner writes them: the
/// players best first, each with his points, games and wins.
fn standings(id: &str, finished_ms: u64, rows: &[(&str, u32, u32, u32)]) -> Vec<TournamentResult> {
    rows.iter()
        .enumerate()
        .map(|(i, (player, points, games, wins))| TournamentResult {
            tournament: id.to_owned(),
            player: (*player).to_owned(),
            format: r#"{"type":"swiss","rounds":3,"lateJoinUntilRound":0}"#.to_owned(),
            game: GameKind::Backgammon,
            place: i as u32 + 1,
            points: *points,
            games: *games,
            wins: *wins,
            players: rows.len() as u32,
            finished_ms,
        })
        .collect()
}

async fn tournament_results_are_stored_once_and_read_newest_first(db: &Db) {
    let store = &db.store;
    assert_eq!(
        store.player_tournaments("tg:1", 10).await.unwrap(),
        PlayerTournaments::default()
    );
    let cup = standings(
        "cup",
        5_000,
        &[("tg:1", 6, 3, 3), ("tg:2", 4, 3, 2), ("tg:3", 2, 3, 1)],
    );
    assert_eq!(store.store_tournament_results(&cup).await.unwrap(), 3);
    // Written again (an owner's successor after a failover, or a retry
    // after an unanswered commit), with other figures: nothing changes.
    let mut again = cup.clone();
    again[0].place = 2;
    again[0].points = 0;
    again[1].place = 1;
    assert_eq!(store.store_tournament_results(&again).await.unwrap(), 0);
    // A later one that tg:1 did not win, and one before both.
    let mut later = standings("league", 9_000, &[("tg:2", 4, 2, 2), ("tg:1", 0, 2, 0)]);
    later[1].game = GameKind::Thud;
    later[1].format = r#"{"type":"knockout"}"#.to_owned();
    assert_eq!(store.store_tournament_results(&later).await.unwrap(), 2);
    let early = standings("early", 1_000, &[("tg:1", 2, 1, 1), ("tg:9", 0, 1, 0)]);
    assert_eq!(store.store_tournament_results(&early).await.unwrap(), 2);
    // An empty batch is nothing.
    assert_eq!(store.store_tournament_results(&[]).await.unwrap(), 0);

    let ann = store.player_tournaments("tg:1", 10).await.unwrap();
    assert_eq!((ann.played, ann.won), (3, 2));
    let ids: Vec<_> = ann.recent.iter().map(|r| r.tournament.as_str()).collect();
    assert_eq!(ids, ["league", "cup", "early"]);
    // Read back as written the first time.
    assert_eq!(ann.recent[1], cup[0]);
    assert_eq!(ann.recent[0], later[1]);
    assert!(ann.recent[1].won() && !ann.recent[0].won());
    // A page.
    let page = store.player_tournaments("tg:1", 2).await.unwrap();
    assert_eq!((page.played, page.won, page.recent.len()), (3, 2, 2));
    // Two ending at once: the larger id first.
    let twin = standings("cup2", 5_000, &[("tg:1", 2, 1, 1), ("tg:2", 0, 1, 0)]);
    store.store_tournament_results(&twin).await.unwrap();
    let ids: Vec<_> = store
        .player_tournaments("tg:1", 10)
        .await
        .unwrap()
        .recent
        .iter()
        .map(|r| r.tournament.clone())
        .collect();
    assert_eq!(ids, ["league", "cup2", "cup", "early"]);
    let bob = store.player_tournaments("tg:2", 10).await.unwrap();
    assert_eq!((bob.played, bob.won), (3, 1));

    // Deleting his data deletes his results; the others keep theirs.
    let deleted = store.delete_player("tg:1").await.unwrap();
    assert_eq!(deleted.tournaments, 4);
    assert_eq!(
        store.player_tournaments("tg:1", 10).await.unwrap(),
        PlayerTournaments::default()
    );
    assert_eq!(
        store.player_tournaments("tg:2", 10).await.unwrap().played,
        3
    );
}

async fn tournament_results_input_is_checked(db: &Db) {
    let store = &db.store;
    let good = standings("cup", 5_000, &[("tg:1", 2, 1, 1), ("tg:2", 0, 1, 0)]);
    type Spoil = fn(&mut TournamentResult);
    let bad: Vec<(&str, Spoil)> = vec![
        ("empty id", |r: &mut TournamentResult| r.tournament.clear()),
        ("long id", |r: &mut TournamentResult| {
            r.tournament = "t".repeat(129)
        }),
        ("empty player", |r: &mut TournamentResult| r.player.clear()),
        ("place 0", |r: &mut TournamentResult| r.place = 0),
        ("place past the field", |r: &mut TournamentResult| {
            r.place = 3
        }),
        ("wins over games", |r: &mut TournamentResult| r.wins = 2),
        ("format not JSON", |r: &mut TournamentResult| {
            r.format = "knockout".into()
        }),
        ("format not an object", |r: &mut TournamentResult| {
            r.format = "[1]".into()
        }),
        ("format too long", |r: &mut TournamentResult| {
            r.format = format!(r#"{{"type":"{}"}}"#, "k".repeat(1100))
        }),
        ("time", |r: &mut TournamentResult| r.finished_ms = u64::MAX),
    ];
    for (what, spoil) in bad {
        let mut rows = good.clone();
        spoil(&mut rows[1]);
        match store.store_tournament_results(&rows).await {
            Err(StoreError::Invalid(_)) => {}
            other => panic!("{what}: {other:?}"),
        }
        // Nothing of the batch was written, its good row neither.
        assert_eq!(
            store.player_tournaments("tg:1", 10).await.unwrap().played,
            0,
            "{what}"
        );
    }
    for limit in [0, 101] {
        assert!(matches!(
            store.player_tournaments("tg:1", limit).await,
            Err(StoreError::Invalid(_))
        ));
    }
    assert_eq!(store.store_tournament_results(&good).await.unwrap(), 2);
}

async fn concurrent_writes_of_one_tournaments_results_store_each_once(db: &Db) {
    let store = &db.store;
    let players: Vec<String> = (0..40).map(|i| format!("tg:{i}")).collect();
    let rows: Vec<(&str, u32, u32, u32)> = players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), 80 - 2 * i as u32, 5, 0))
        .collect();
    let results = standings("big", 7_000, &rows);
    // Four writers at once (a deposed owner and its successor, retries),
    // some in reverse order: each row once.
    let runs: Vec<_> = (0..4)
        .map(|i| {
            let store = store.clone();
            let mut results = results.clone();
            if i % 2 == 1 {
                results.reverse();
            }
            tokio::spawn(async move { store.store_tournament_results(&results).await })
        })
        .collect();
    let mut new = 0;
    for run in runs {
        new += run.await.unwrap().unwrap();
    }
    assert_eq!(new, 40);
    for (i, p) in players.iter().enumerate() {
        let mine = store.player_tournaments(p, 5).await.unwrap();
        assert_eq!(mine.played, 1);
        assert_eq!(mine.recent[0].place, i as u32 + 1);
        assert_eq!(mine.won, u64::from(i == 0));
    }
}
