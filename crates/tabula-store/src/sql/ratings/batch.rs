//! [`Ratings::apply_rated_games`](crate::Ratings::apply_rated_games) on
//! PostgreSQL: a batch of rated games in a few statements over arrays.

use super::*;

impl Store {
    /// [`Ratings::apply_rated_games`] on PostgreSQL: a few statements per
    /// batch, each over arrays. The games are marked first; when one is
    /// not (unknown, casual or applied already), the batch is applied game
    /// by game instead, which tells each apart. Then every (player, kind)
    /// of the batch is read and locked in that order, checked against the
    /// games count its first update was computed from, and written once
    /// (his last update, his games count plus his games in the batch), a
    /// history row per game and player (each with the rating before it),
    /// the buckets' counts moved by their sum, and each kind's period
    /// counts moved once, as the batch's games one by one would leave
    /// them.
    pub(super) async fn apply_rated_games_pg(
        &self,
        pool: &sqlx::PgPool,
        games: &[(&GameKey, [&RatingUpdate; 2])],
    ) -> Result<Vec<Applied>> {
        let mut tx = pool.begin_write().await?;
        let marked = sqlx::query(MARK_PG)
            .bind(
                games
                    .iter()
                    .map(|(g, _)| g.room.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(
                games
                    .iter()
                    .map(|(g, _)| i64::from(g.game))
                    .collect::<Vec<_>>(),
            )
            .bind(now_ms())
            .fetch_all(&mut *tx)
            .await?;
        let distinct: std::collections::HashSet<&GameKey> = games.iter().map(|(g, _)| *g).collect();
        if marked.len() != distinct.len() || distinct.len() != games.len() {
            tx.rollback().await?;
            let mut tx = pool.begin_write().await?;
            let mut out = Vec::with_capacity(games.len());
            for (game, ordered) in games {
                out.push(apply_one!(tx, game, ordered)?);
            }
            tx.commit().await?;
            return Ok(out);
        }
        // Each game's kind and end, and a check of its players.
        let mut of_game: std::collections::HashMap<(String, i64), (String, i64)> =
            std::collections::HashMap::with_capacity(marked.len());
        let mut seated_of = std::collections::HashMap::with_capacity(marked.len());
        for row in &marked {
            let key = (row.text("room_id")?, row.i64("game_number")?);
            let mut seated = [row.opt_text("a_player")?, row.opt_text("b_player")?];
            seated.sort();
            seated_of.insert(key.clone(), seated);
            of_game.insert(key, (row.text("game_kind")?, row.i64("finished_ms")?));
        }
        let mut chains: BTreeMap<(String, String), Chain> = BTreeMap::new();
        // (player, kind, end, room, number, chain's rating before or None for the stored one, update)
        let mut history = Vec::with_capacity(games.len() * 2);
        for (game, ordered) in games {
            let key = (game.room.clone(), i64::from(game.game));
            let (Some((kind, finished)), Some(seated)) = (of_game.get(&key), seated_of.get(&key))
            else {
                return Err(StoreError::UnknownGame((*game).clone()));
            };
            let named = [
                Some(ordered[0].player.clone()),
                Some(ordered[1].player.clone()),
            ];
            if *seated != named {
                return Err(StoreError::WrongPlayers {
                    game: (*game).clone(),
                });
            }
            for u in ordered {
                let chain_key = (u.player.clone(), kind.clone());
                let before = match chains.get_mut(&chain_key) {
                    Some(c) => {
                        if i64::from(u.previous_games) != c.first_prev + c.n {
                            return Err(StoreError::RatingConflict {
                                player: u.player.clone(),
                                games: u32::try_from(c.first_prev + c.n).unwrap_or(u32::MAX),
                            });
                        }
                        let before = c.last.0;
                        c.last = (u.rating, u.deviation, u.volatility);
                        c.n += 1;
                        c.latest = c.latest.max(*finished);
                        Some(before)
                    }
                    None => {
                        chains.insert(
                            chain_key,
                            Chain {
                                first_prev: i64::from(u.previous_games),
                                last: (u.rating, u.deviation, u.volatility),
                                n: 1,
                                latest: *finished,
                                old: None,
                            },
                        );
                        None
                    }
                };
                history.push((
                    u.player.clone(),
                    kind.clone(),
                    *finished,
                    key.clone(),
                    before,
                    *u,
                ));
            }
        }
        let (players, kinds): (Vec<String>, Vec<String>) = chains.keys().cloned().unzip();
        let stored = sqlx::query(READ_PG)
            .bind(&players)
            .bind(&kinds)
            .fetch_all(&mut *tx)
            .await?;
        for r in &stored {
            let key = (r.text("player_id")?, r.text("game_kind")?);
            if let Some(c) = chains.get_mut(&key) {
                c.old = Some((
                    r.f64("rating")?,
                    r.i64("bucket")?,
                    r.i64("games")?,
                    r.i64("last_rated_ms")?,
                ));
            }
        }
        for ((player, _), c) in &chains {
            let stored_games = c.old.map_or(0, |(_, _, g, _)| g);
            if stored_games != c.first_prev {
                return Err(StoreError::RatingConflict {
                    player: player.clone(),
                    games: u32::try_from(stored_games).unwrap_or(u32::MAX),
                });
            }
        }
        // The ratings: moved from what was read, or new.
        let (moved, new): (Vec<_>, Vec<_>) = chains.iter().partition(|(_, c)| c.old.is_some());
        let bucket_of = |c: &Chain| crate::ratings::bucket(c.last.0);
        if !moved.is_empty() {
            let n = moved.len();
            let done = sqlx::query(UPDATE_PG)
                .bind(
                    moved
                        .iter()
                        .map(|((p, _), _)| p.clone())
                        .collect::<Vec<_>>(),
                )
                .bind(
                    moved
                        .iter()
                        .map(|((_, k), _)| k.clone())
                        .collect::<Vec<_>>(),
                )
                .bind(moved.iter().map(|(_, c)| c.last.0).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.last.1).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.last.2).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.n).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.latest).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| bucket_of(c)).collect::<Vec<_>>())
                .bind(moved.iter().map(|(_, c)| c.first_prev).collect::<Vec<_>>())
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if done != n as u64 {
                return Err(StoreError::RatingConflict {
                    player: moved[0].0.0.clone(),
                    games: 0,
                });
            }
        }
        if !new.is_empty() {
            let n = new.len();
            let done = sqlx::query(INSERT_PG)
                .bind(new.iter().map(|((p, _), _)| p.clone()).collect::<Vec<_>>())
                .bind(new.iter().map(|((_, k), _)| k.clone()).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.last.0).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.last.1).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.last.2).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.n).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| c.latest).collect::<Vec<_>>())
                .bind(new.iter().map(|(_, c)| bucket_of(c)).collect::<Vec<_>>())
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if done != n as u64 {
                // Another transaction rated one of them first.
                return Err(StoreError::RatingConflict {
                    player: new[0].0.0.clone(),
                    games: 1,
                });
            }
        }
        // A history row per game and player, with the rating before it.
        let n = history.len();
        let (mut ids, mut kinds, mut ends) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut rooms, mut numbers) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut befores: Vec<Option<f64>> = Vec::with_capacity(n);
        let (mut ratings, mut deviations, mut volatilities) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (player, kind, finished, (room, number), before, u) in &history {
            let before = match before {
                Some(r) => Some(*r),
                None => chains
                    .get(&(player.clone(), kind.clone()))
                    .and_then(|c| c.old)
                    .map(|(r, ..)| r),
            };
            ids.push(player.clone());
            kinds.push(kind.clone());
            ends.push(*finished);
            rooms.push(room.clone());
            numbers.push(*number);
            befores.push(before);
            ratings.push(u.rating);
            deviations.push(u.deviation);
            volatilities.push(u.volatility);
        }
        sqlx::query(HISTORY_PG)
            .bind(ids)
            .bind(kinds)
            .bind(ends)
            .bind(rooms)
            .bind(numbers)
            .bind(befores)
            .bind(ratings)
            .bind(deviations)
            .bind(volatilities)
            .execute(&mut *tx)
            .await?;
        // The buckets' counts, by (kind, bucket).
        let mut buckets: BTreeMap<(String, i64), i64> = BTreeMap::new();
        let mut changes: BTreeMap<String, Vec<Change>> = BTreeMap::new();
        let mut weeks: BTreeMap<String, i64> = BTreeMap::new();
        for ((_, kind), c) in &chains {
            if let Some((_, bucket, _, _)) = c.old {
                *buckets.entry((kind.clone(), bucket)).or_default() -= 1;
            }
            *buckets.entry((kind.clone(), bucket_of(c))).or_default() += 1;
            let old_last = c.old.map(|(_, _, _, last)| last);
            changes.entry(kind.clone()).or_default().push(Change {
                old: c.old.map(|(_, bucket, _, last)| (bucket, last)),
                new: Some((bucket_of(c), old_last.map_or(c.latest, |l| l.max(c.latest)))),
            });
            let week = weeks.entry(kind.clone()).or_insert(i64::MIN);
            *week = (*week).max(week_of(c.latest));
        }
        buckets.retain(|_, d| *d != 0);
        if !buckets.is_empty() {
            sqlx::query(BUCKETS_PG)
                .bind(buckets.keys().map(|(k, _)| k.clone()).collect::<Vec<_>>())
                .bind(buckets.keys().map(|(_, b)| *b).collect::<Vec<_>>())
                .bind(buckets.values().copied().collect::<Vec<_>>())
                .execute(&mut *tx)
                .await?;
        }
        // Each kind's period counts, once, from the batch's latest week.
        for (kind, changes) in &changes {
            let week = weeks.get(kind).copied();
            move_periods!(tx, kind.as_str(), week, changes);
        }
        tx.commit().await?;
        Ok(vec![Applied::Applied; games.len()])
    }
}
