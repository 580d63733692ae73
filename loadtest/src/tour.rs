//! `--tournaments N`: N arenas of `--tournament-players` players each, as
//! issue 49's load run asks (10,000 players in 100 tournaments). Each
//! tournament is created on one node, its players get session tokens
//! (`GET /api/session`) and register (`POST …/join`) during the ramp-up,
//! and the arena runs for `--duration` from the end of the ramp-up. The
//! harness plays every game of every player: it polls each tournament's
//! view (`GET /api/tournaments/{id}`, every `--tournament-poll`) for new
//! games, as a client without push must, and plays each one with both
//! its players' sockets ([`crate::play::play_room`]).
//!
//! Measured: `pairing_wait`, from a player's game end (both sockets saw
//! `gameOver`) to his next game in the view, which includes up to one
//! poll interval of the harness; the node's own part is its
//! `tabula_tournaments_pairing_seconds`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};
use serde_json::json;

use crate::play::{http, play_room};
use crate::shared::Shared;

/// One arena's settings.
#[derive(Debug, Clone, Copy)]
pub struct Arena {
    /// Its number in the run (its id is `lt<tag>t<k>`).
    pub k: usize,
    /// Players registered.
    pub players: usize,
    /// When it starts, from now.
    pub start_in: Duration,
    /// Its window.
    pub window: Duration,
    /// `rematchWaitMs`.
    pub rematch_wait: Duration,
    /// How often its view is read.
    pub poll: Duration,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Creates the arena, registers its players, and plays every game it
/// pairs until it finishes or the run stops.
pub async fn run(shared: Arc<Shared>, a: Arena) -> anyhow::Result<()> {
    let cfg = &shared.cfg;
    let hosts = &cfg.hosts;
    let home = a.k % hosts.len();
    let id = format!("lt{}t{}", cfg.run_tag, a.k);
    let body = json!({
        "id": id,
        "format": {
            "type": "arena",
            "durationMs": a.window.as_millis() as u64,
            "rematchWaitMs": a.rematch_wait.as_millis() as u64,
        },
        "game": cfg.game,
        "timeControl": "none",
        "startAtMs": now_ms() + a.start_in.as_millis() as u64,
        "graceMs": 60_000,
    });
    let (status, v) = http(&hosts[home], "POST", "/api/tournaments", Some(&body))
        .await
        .map_err(|e| anyhow!("create_tournament: {e}"))?;
    if status != 201 {
        bail!("create_tournament_{status}: {v}");
    }
    // Player id → (name, token).
    let mut who: HashMap<String, (String, String)> = HashMap::new();
    for i in 0..a.players {
        let name = format!("lt{}t{}p{i}", cfg.run_tag, a.k);
        let host = &hosts[(home + i) % hosts.len()];
        let path = format!("/api/session?{}", cfg.credentials(&name));
        let (status, v) = http(host, "GET", &path, None)
            .await
            .map_err(|e| anyhow!("session: {e}"))?;
        let (Some(player), Some(token)) = (v["player"].as_str(), v["token"].as_str()) else {
            bail!("session_{status}");
        };
        let path = format!("/api/tournaments/{id}/join?token={token}");
        let (status, _) = http(host, "POST", &path, None)
            .await
            .map_err(|e| anyhow!("join_tournament: {e}"))?;
        if status != 202 {
            bail!("join_tournament_{status}");
        }
        who.insert(player.to_string(), (name, token.to_string()));
    }
    // A player's last game end (both sockets saw it), until his next game.
    let ended: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut n = 0usize;
    while !shared.stopped() {
        n += 1;
        let host = &hosts[(home + n) % hosts.len()];
        let view = match http(host, "GET", &format!("/api/tournaments/{id}"), None).await {
            Ok((200, v)) => v,
            Ok((status, _)) => {
                shared.stats.error(format!("tournament_view_{status}"));
                tokio::time::sleep(a.poll).await;
                continue;
            }
            Err(_) => {
                shared.stats.error("tournament_view");
                tokio::time::sleep(a.poll).await;
                continue;
            }
        };
        if matches!(view["status"].as_str(), Some("finished" | "cancelled")) {
            break;
        }
        let games = view["games"].as_array().cloned().unwrap_or_default();
        for g in games.iter().filter(|g| g.get("outcome").is_none()) {
            let (Some(room), Some(white), Some(black)) = (
                g["roomId"].as_str(),
                g["white"].as_str(),
                g["black"].as_str(),
            ) else {
                continue;
            };
            if !seen.insert(room.to_string()) {
                continue;
            }
            {
                let mut e = ended.lock().unwrap_or_else(|e| e.into_inner());
                for p in [white, black] {
                    if let Some(at) = e.remove(p) {
                        shared.stats.pairing_wait.record(at.elapsed());
                    }
                }
            }
            let (Some(w), Some(b)) = (who.get(white).cloned(), who.get(black).cloned()) else {
                shared.stats.error("tournament_stranger");
                continue;
            };
            let (shared, ended, room) = (shared.clone(), ended.clone(), room.to_string());
            let (white, black) = (white.to_string(), black.to_string());
            let host = home + seen.len();
            tokio::spawn(async move {
                match play_room(shared.clone(), &room, host, [w, b]).await {
                    Ok(true) => {
                        let now = Instant::now();
                        let mut e = ended.lock().unwrap_or_else(|e| e.into_inner());
                        e.insert(white, now);
                        e.insert(black, now);
                    }
                    Ok(false) => {}
                    Err(e) => {
                        let kind = e.to_string();
                        let kind = kind.split(':').next().unwrap_or("game").to_string();
                        shared
                            .stats
                            .error(format!("tournament_{}", kind.replace(' ', "_")));
                    }
                }
            });
        }
        tokio::time::sleep(a.poll).await;
    }
    Ok(())
}
