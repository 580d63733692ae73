//! What the tournament tests share: configurations, effects as short lines
//! for tables of cases, a seeded generator and a simulation that plays a
//! tournament to its end with seeded arrivals and results.

#![allow(dead_code)]

use std::collections::BTreeMap;

use tabula_tournament::{
    Announcement, Effect, Format, GameId, GameKind, Input, Outcome, PlayerId, Status, Tournament,
    TournamentConfig,
};

pub const START: u64 = 1_000_000;
pub const GRACE: u64 = 60_000;

pub fn config(format: Format) -> TournamentConfig {
    TournamentConfig {
        format,
        game: GameKind::Backgammon,
        match_points: 5,
        clock: Some("blitz".to_owned()),
        rated: true,
        start_at_ms: START,
        grace_ms: GRACE,
        max_players: None,
    }
}

pub fn swiss(rounds: u32) -> Format {
    Format::Swiss {
        rounds,
        late_join_until_round: rounds / 2,
    }
}

pub fn arena(duration_ms: u64) -> Format {
    Format::Arena {
        duration_ms,
        rematch_wait_ms: 10_000,
    }
}

pub fn p(s: &str) -> PlayerId {
    PlayerId::from(s)
}

pub fn g(s: &str) -> GameId {
    GameId::from(s)
}

pub fn join(s: &str, rating: i32) -> Input {
    Input::Join {
        player: p(s),
        rating,
    }
}

pub fn result(game: &str, outcome: Outcome) -> Input {
    Input::GameResult {
        game_id: g(game),
        outcome,
    }
}

pub fn started(game: &str) -> Input {
    Input::GameStarted { game_id: g(game) }
}

/// A tournament `t` with these players registered.
pub fn with_players(format: Format, players: &[(&str, i32)]) -> Tournament {
    let mut t = Tournament::new("t", config(format)).unwrap();
    for (i, (name, rating)) in players.iter().enumerate() {
        let fx = t.apply(join(name, *rating), i as u64);
        assert!(fx.is_empty(), "{fx:?}");
    }
    t
}

/// An effect as a short line.
pub fn line(e: &Effect) -> String {
    match e {
        Effect::Started { players } => format!("started {players}"),
        Effect::RoundStarted { round } => format!("round {round}"),
        Effect::Pair {
            game_id,
            white,
            black,
            ..
        } => format!("pair {game_id} {white}-{black}"),
        Effect::Bye { player, .. } => format!("bye {player}"),
        Effect::Forfeit { game_id, loser } => format!("forfeit {game_id} {loser}"),
        Effect::StandingsChanged => "standings".to_owned(),
        Effect::Finished { standings } => {
            let names: Vec<String> = standings.players().map(|p| p.0.clone()).collect();
            format!("finished {}", names.join(","))
        }
        Effect::Cancelled { .. } => "cancelled".to_owned(),
        Effect::Announce(Announcement::Started { players }) => {
            format!("announce started {players}")
        }
        Effect::Announce(Announcement::Round { round, .. }) => format!("announce round {round}"),
        Effect::Announce(Announcement::Finished { podium }) => {
            let names: Vec<String> = podium.iter().map(|p| p.0.clone()).collect();
            format!("announce podium {}", names.join(","))
        }
        Effect::Announce(Announcement::Cancelled { .. }) => "announce cancelled".to_owned(),
        Effect::Rejected(r) => format!("rejected {r:?}"),
    }
}

/// Applies each input at its time and checks the effects, as lines.
pub fn table(t: &mut Tournament, cases: &[(Input, u64, &[&str])]) {
    for (k, (input, now, want)) in cases.iter().enumerate() {
        let got: Vec<String> = t.apply(input.clone(), *now).iter().map(line).collect();
        assert_eq!(got, *want, "case {k}: {input:?} at {now}");
    }
}

/// splitmix64: a seeded generator for the tests' random results.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// In `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// How the simulated players behave.
#[derive(Debug, Clone)]
pub struct Behaviour {
    /// Percent of a player's games he does not come to.
    pub no_show: u64,
    /// Percent of games drawn.
    pub draws: u64,
    /// Percent of results sent twice.
    pub duplicates: u64,
    /// A game's length, at least and at most, after both came.
    pub game_ms: (u64, u64),
    /// The higher rated always wins (otherwise a coin decides).
    pub favourites_win: bool,
    /// Inputs sent at given times besides the games' (joins, pauses).
    pub extra: Vec<(u64, Input)>,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            no_show: 0,
            draws: 0,
            duplicates: 0,
            game_ms: (60_000, 600_000),
            favourites_win: false,
            extra: Vec::new(),
        }
    }
}

/// A tournament played to its end: every input applied with its time, and
/// every effect, in order.
#[derive(Debug)]
pub struct Played {
    pub tournament: Tournament,
    pub inputs: Vec<(Input, u64)>,
    pub effects: Vec<Vec<Effect>>,
}

/// Plays `t` (players registered) from its start to its end. `check` sees
/// the tournament after each input with that input's effects.
pub fn play(
    mut t: Tournament,
    seed: u64,
    how: &Behaviour,
    mut check: impl FnMut(&Tournament, &Input, &[Effect], u64),
) -> Played {
    let mut rng = Rng(seed);
    let mut events: BTreeMap<(u64, u64), Input> = BTreeMap::new();
    let mut seq = 0u64;
    let mut inputs = Vec::new();
    let mut effects = Vec::new();
    let mut ratings: BTreeMap<PlayerId, i32> = t.players().into_iter().collect();
    for (at, input) in &how.extra {
        seq += 1;
        events.insert((*at, seq), input.clone());
        if let Input::Join { player, rating } = input {
            ratings.insert(player.clone(), *rating);
        }
    }
    for _ in 0..1_000_000 {
        if matches!(t.status(), Status::Finished | Status::Cancelled) {
            break;
        }
        let next_event = events.keys().next().copied();
        let deadline = t.next_deadline();
        let (input, now) = match next_event {
            Some((at, k)) if deadline.is_none_or(|d| at < d) => {
                (events.remove(&(at, k)).expect("the event"), at)
            }
            _ => (
                Input::Tick,
                deadline.expect("stuck: nothing to do and not finished"),
            ),
        };
        let fx = t.apply(input.clone(), now);
        let ends = fx
            .iter()
            .filter(|e| matches!(e, Effect::Finished { .. } | Effect::Cancelled { .. }))
            .count();
        assert!(ends <= 1, "ended twice: {fx:?}");
        let last = fx
            .iter()
            .rposition(|e| matches!(e, Effect::Finished { .. }));
        if let Some(k) = last {
            assert!(
                fx[k + 1..].iter().all(|e| matches!(e, Effect::Announce(_))),
                "effects after the end: {fx:?}"
            );
        }
        check(&t, &input, &fx, now);
        for e in &fx {
            if let Effect::Pair {
                game_id,
                white,
                black,
                ..
            } = e
            {
                let mut came = Vec::new();
                for who in [white, black] {
                    if !rng.chance(how.no_show) {
                        seq += 1;
                        let at = now + rng.below(GRACE / 2);
                        let arrived = Input::PlayerArrived {
                            game_id: game_id.clone(),
                            player: who.clone(),
                        };
                        events.insert((at, seq), arrived);
                        came.push(at);
                    }
                }
                if came.len() == 2 {
                    let (lo, hi) = how.game_ms;
                    let at = now + GRACE / 2 + lo + rng.below(hi - lo);
                    let outcome = if rng.chance(how.draws) {
                        Outcome::Draw
                    } else if how.favourites_win {
                        if ratings[white] >= ratings[black] {
                            Outcome::WhiteWon
                        } else {
                            Outcome::BlackWon
                        }
                    } else if rng.chance(50) {
                        Outcome::WhiteWon
                    } else {
                        Outcome::BlackWon
                    };
                    let input = Input::GameResult {
                        game_id: game_id.clone(),
                        outcome,
                    };
                    seq += 1;
                    events.insert((at, seq), input.clone());
                    if rng.chance(how.duplicates) {
                        seq += 1;
                        events.insert((at + 1 + rng.below(1000), seq), input);
                    }
                }
            }
        }
        inputs.push((input, now));
        effects.push(fx);
    }
    assert!(
        matches!(t.status(), Status::Finished | Status::Cancelled),
        "the simulation ran out of steps"
    );
    Played {
        tournament: t,
        inputs,
        effects,
    }
}

/// The standings of `t` equal their recount from its records.
pub fn assert_recount(t: &Tournament) {
    let recounted = tabula_tournament::recount(t.config(), &t.players(), t.records());
    assert_eq!(t.standings(), recounted);
}
