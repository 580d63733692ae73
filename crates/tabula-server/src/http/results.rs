//! A player's tournament results from the durable store, as the routes
//! show them (`GET /api/me/tournaments`, the profile routes).

use tabula_protocol::http::{ProfileTournaments, TournamentResultLine};
use tabula_room::GameKind;

use crate::AppState;

/// How many finished tournaments `GET /api/me/tournaments` and the
/// profile show.
pub const RECENT_RESULTS: u32 = 10;

/// A stored result as the routes show it (`None`: a format that does not
/// read, which the node never writes).
pub fn result_line(r: &tabula_store::TournamentResult) -> Option<TournamentResultLine> {
    let game = match r.game {
        GameKind::LongNardy => tabula_tournament::GameKind::LongNardy,
        GameKind::Backgammon => tabula_tournament::GameKind::Backgammon,
        GameKind::Thud => tabula_tournament::GameKind::Thud,
    };
    Some(TournamentResultLine {
        id: r.tournament.clone(),
        format: serde_json::from_str(&r.format).ok()?,
        game,
        place: r.place,
        points: r.points,
        games: r.games,
        wins: r.wins,
        players: r.players,
        finished_at_ms: Some(r.finished_ms),
    })
}

/// A player's tournaments from the durable store (his counts and latest
/// results); `None` without a store or while it is not reached.
pub async fn stored_results(state: &AppState, player: &str) -> Option<ProfileTournaments> {
    let store = state.durable.get().ok()?.clone();
    match store.player_tournaments(player, RECENT_RESULTS).await {
        Ok(p) => Some(ProfileTournaments {
            played: p.played,
            won: p.won,
            recent: p.recent.iter().filter_map(result_line).collect(),
        }),
        Err(e) => {
            tracing::warn!(%player, error = %e, "tournament results not read");
            None
        }
    }
}
