//! What an owner does about its core's effects once they are persisted
//! ([`carry_out`]): each pairing's room, made idempotently by the game's
//! id, and its players' "your game is ready" notices; and the room a
//! player's join makes when it comes before the owner made it
//! ([`ensure_game_room`]).

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use tabula_protocol::http::TimeControlSpec;
use tabula_room::{PlayerId, RoomConfig};
use tabula_tournament::{Effect, Tournament};

use super::inbox::of_game;
use super::side::room_game;
use crate::AppState;
use crate::time::now_ms;

pub(super) async fn carry_out(state: &Arc<AppState>, t: &Tournament, e: Effect) {
    let id = t.id();
    match e {
        Effect::Pair {
            game_id,
            white,
            black,
            round,
        } => {
            make_room(state, t, &game_id.0, &white.0, &black.0).await;
            tracing::info!(tournament = %id, game = %game_id, %white, %black, round, "paired");
            game_ready(state, t, &game_id.0, &white.0, &black.0);
            // The time from the game's end (of either player's last game)
            // that freed them to this pairing.
            let ended = {
                let mut m = state
                    .tournaments
                    .ended
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                [&white, &black]
                    .iter()
                    .filter_map(|p| m.remove(&format!("{id}/{p}")))
                    .max()
            };
            if let Some(at) = ended {
                let ms = now_ms().saturating_sub(at);
                state.metrics.tournament_pairing.observe(ms as f64 / 1000.0);
            }
        }
        Effect::Bye { player, round } => {
            tracing::info!(tournament = %id, %player, round, "bye");
        }
        Effect::Forfeit { game_id, loser } => {
            tracing::info!(tournament = %id, game = %game_id, %loser, "forfeit");
        }
        Effect::Finished { standings } => {
            let winner = standings.rows.first().map(|r| r.player.0.clone());
            tracing::info!(tournament = %id, winner = ?winner, "tournament finished");
            state
                .metrics
                .tournaments_finished
                .with_label_values(&["finished"])
                .inc();
        }
        Effect::Cancelled { reason } => {
            tracing::info!(tournament = %id, ?reason, "tournament cancelled");
            state
                .metrics
                .tournaments_finished
                .with_label_values(&["cancelled"])
                .inc();
        }
        Effect::Rejected(r) => {
            tracing::debug!(tournament = %id, rejection = ?r, "input refused");
        }
        Effect::Started { .. }
        | Effect::RoundStarted { .. }
        | Effect::StandingsChanged
        | Effect::Announce(_) => {}
    }
}

/// With the bot on, each Telegram player of a new pairing gets a "your
/// game is ready" notice, its id made from the game's (a new owner that
/// pairs the game again queues the same id, which the queue refuses).
fn game_ready(state: &AppState, t: &Tournament, game: &str, white: &str, black: &str) {
    let Some(tg) = &state.telegram else {
        return;
    };
    let (_, kind) = room_game(t);
    let now = now_ms();
    for (me, other) in [(white, black), (black, white)] {
        if crate::telegram::notice::telegram_user(me).is_none() {
            continue;
        }
        let mut notice = crate::telegram::notice::Notice::new(
            crate::telegram::notice::NoticeKind::TournamentGame,
            me.to_string(),
            game.to_string(),
            kind,
            now,
            now,
        );
        notice.opponent = Some(other.to_string());
        tg.outbox.queue(
            state.backplane.clone(),
            crate::telegram::notice::Queued {
                id: format!("tgame:{game}:{me}"),
                notice,
            },
        );
    }
}

/// The room config of a tournament's game between `white` and `black`.
pub fn game_config(state: &AppState, t: &Tournament, white: &str, black: &str) -> RoomConfig {
    let c = t.config();
    let (options, _) = room_game(t);
    let time_control = c
        .clock
        .as_deref()
        .and_then(|s| serde_json::from_str::<TimeControlSpec>(s).ok())
        .and_then(|spec| spec.resolve().ok())
        .flatten();
    let mut seed = [0u8; 32];
    rand::Rng::fill(&mut rand::rng(), &mut seed);
    RoomConfig {
        options,
        match_length: c.match_points,
        grace_ms: state.settings.rooms.grace_ms,
        master_seed: seed.iter().map(|b| format!("{b:02x}")).collect(),
        chat_max_chars: state.settings.rooms.chat_max_chars,
        time_control,
        rated: c.rated,
        players: Some(vec![PlayerId(white.into()), PlayerId(black.into())]),
        ..RoomConfig::default()
    }
}

/// Creates a game's room unless it exists, retried while the backplane
/// fails (a pairing is never lost: a takeover makes it again too).
/// Makes the room of a game its tournament paired, if it is not made yet:
/// a player's `join` may come before the owner made it, because the
/// routes show a pairing from the write that decides it, and the owner
/// makes its rooms after that write (at an arena's start, thousands at
/// once). Any node may do it: [`crate::room_registry::Rooms::create_game`] is
/// idempotent. `true` when the game is one its tournament is playing and
/// its room exists now.
pub async fn ensure_game_room(state: &AppState, room_id: &str) -> bool {
    let Some(id) = of_game(room_id) else {
        return false;
    };
    // Both players of a game, and every player of an arena's start, ask
    // at once: one tournament read a node serves them (a game paired
    // since that read is read again).
    let game = tabula_tournament::GameId(room_id.to_string());
    let read = state
        .tournaments
        .read_where(state.backplane.as_ref(), id, &|r| r.0.game(&game).is_some())
        .await;
    let Ok(Some(read)) = read else {
        return false;
    };
    let t = &read.0;
    let Some(g) = t.game(&game) else {
        return false;
    };
    if g.outcome.is_some() {
        return false;
    }
    let mut wait = Duration::from_millis(50);
    for _ in 0..3 {
        let config = game_config(state, t, &g.white.0, &g.black.0);
        match state.rooms.create_game(room_id, t.id(), config).await {
            Ok(made) => {
                if made {
                    tracing::info!(tournament = %id, game = room_id, "game room made for a join that came first");
                }
                return true;
            }
            Err(e) => {
                tracing::warn!(tournament = %id, game = room_id, error = %e, "game room not made for a join yet");
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
        }
    }
    false
}

pub(super) async fn make_room(
    state: &Arc<AppState>,
    t: &Tournament,
    game: &str,
    white: &str,
    black: &str,
) {
    let mut wait = Duration::from_millis(50);
    for _ in 0..8 {
        let config = game_config(state, t, white, black);
        match state.rooms.create_game(game, t.id(), config).await {
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(tournament = %t.id(), game, error = %e, "game room not created; retrying");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
        }
    }
}
