//! Scores, tie-breaks and standings, kept as results come and recomputed
//! from the plain list of counted results by [`recount`].
//!
//! Points are whole numbers in each format's own unit:
//!
//! * **Swiss**: half-points — a win or a bye 2, a draw 1, a loss 0. The
//!   tie-breaks, in order: Buchholz cut-1 (the opponents' points less the
//!   lowest), Buchholz (the opponents' points), Sonneborn–Berger (in
//!   quarter-points: twice the points of each beaten opponent plus the points
//!   of each drawn one), wins, then the rating and the order of joining. A
//!   bye adds nothing to Buchholz (simpler than FIDE's virtual opponent; the
//!   player's own score counts it). A forfeited game counts as a game
//!   against that opponent.
//! * **Arena**: lichess's — a win 2, a draw 1, a loss 0; a player who has
//!   won his last two games is on fire and scores double (a win 4, a draw 2)
//!   until he fails to win. Ties: wins, then rating, then joining order.
//! * **Knockout**: one point per round passed (a match won or a bye), so
//!   the champion has as many as there are rounds; ties (players out in the
//!   same round): rating, then joining order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Format, GameId, Outcome, PlayerId, TournamentConfig};

/// A counted result, in the order counted: the input of [`recount`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Record {
    /// A game with its result.
    #[serde(rename_all = "camelCase")]
    Game {
        /// Which game.
        game_id: GameId,
        /// Its round (0 in an arena).
        round: u32,
        /// White.
        white: PlayerId,
        /// Black.
        black: PlayerId,
        /// How it ended.
        outcome: Outcome,
        /// Whether it ended by a no-show or a withdrawal, not by play.
        forfeit: bool,
    },
    /// A bye (Swiss) or a walkover into the next round (knockout).
    Bye {
        /// Who.
        player: PlayerId,
        /// Which round.
        round: u32,
    },
}

/// A game's result for one of its players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Res {
    /// He won.
    Win,
    /// Neither won.
    Draw,
    /// He lost.
    Loss,
}

impl Res {
    /// White's and black's results of an outcome.
    pub fn of(outcome: Outcome) -> (Res, Res) {
        match outcome {
            Outcome::WhiteWon => (Res::Win, Res::Loss),
            Outcome::BlackWon => (Res::Loss, Res::Win),
            Outcome::Draw => (Res::Draw, Res::Draw),
            Outcome::BothLost => (Res::Loss, Res::Loss),
        }
    }
}

/// One player's running score.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    /// Points, in the format's unit.
    pub points: u32,
    /// Games counted.
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
    /// Byes and walkovers.
    pub byes: u32,
    /// Wins in a row now.
    pub streak: u32,
    /// Arena: the next win scores double.
    pub on_fire: bool,
    /// Each game's opponent and result, in order.
    pub opponents: Vec<(PlayerId, Res)>,
}

impl Tally {
    /// Counts a game.
    pub fn add_game(&mut self, format: &Format, opponent: &PlayerId, res: Res) {
        let (win, draw) = match format {
            Format::Swiss { .. } => (2, 1),
            Format::Knockout => (1, 0),
            Format::Arena { .. } if self.on_fire => (4, 2),
            Format::Arena { .. } => (2, 1),
        };
        self.games += 1;
        match res {
            Res::Win => {
                self.points += win;
                self.wins += 1;
                self.streak += 1;
            }
            Res::Draw => {
                self.points += draw;
                self.draws += 1;
                self.streak = 0;
            }
            Res::Loss => {
                self.losses += 1;
                self.streak = 0;
            }
        }
        self.on_fire = matches!(format, Format::Arena { .. }) && self.streak >= 2;
        self.opponents.push((opponent.clone(), res));
    }

    /// Counts a bye (Swiss: a win's points; knockout: a round passed).
    pub fn add_bye(&mut self, format: &Format) {
        self.byes += 1;
        self.points += match format {
            Format::Swiss { .. } => 2,
            Format::Knockout => 1,
            Format::Arena { .. } => 0,
        };
    }
}

/// A line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// Place, from 1.
    pub rank: u32,
    /// Who.
    pub player: PlayerId,
    /// His rating at joining.
    pub rating: i32,
    /// Points, in the format's unit (Swiss: half-points).
    pub points: u32,
    /// Games counted.
    pub games: u32,
    /// Won.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
    /// Byes and walkovers.
    pub byes: u32,
    /// The opponents' points.
    pub buchholz: u32,
    /// The opponents' points less the lowest.
    pub buchholz_cut1: u32,
    /// Sonneborn–Berger, in quarter-points (Swiss) or doubled points.
    pub sonneborn_berger: u32,
    /// Arena: on fire now.
    pub on_fire: bool,
}

/// The standings, best first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Standings {
    /// One row per player, best first.
    pub rows: Vec<Row>,
}

impl Standings {
    /// The players in order, best first.
    pub fn players(&self) -> impl Iterator<Item = &PlayerId> {
        self.rows.iter().map(|r| &r.player)
    }

    /// The row of a player.
    pub fn row(&self, player: &PlayerId) -> Option<&Row> {
        self.rows.iter().find(|r| &r.player == player)
    }

    /// Ranks players (given in joining order with their tallies) as the
    /// format does.
    pub fn rank<'a>(
        format: &Format,
        players: impl IntoIterator<Item = (&'a PlayerId, i32, &'a Tally)>,
    ) -> Standings {
        let players: Vec<(&PlayerId, i32, &Tally)> = players.into_iter().collect();
        let points: BTreeMap<&PlayerId, u32> =
            players.iter().map(|(p, _, t)| (*p, t.points)).collect();
        let mut rows: Vec<(usize, Row)> = players
            .iter()
            .enumerate()
            .map(|(joined, (player, rating, t))| {
                let opp: Vec<(u32, Res)> = t
                    .opponents
                    .iter()
                    .map(|(o, r)| (points.get(o).copied().unwrap_or(0), *r))
                    .collect();
                let buchholz: u32 = opp.iter().map(|(p, _)| p).sum();
                let lowest = opp.iter().map(|(p, _)| *p).min().unwrap_or(0);
                let sonneborn_berger = opp
                    .iter()
                    .map(|(p, r)| match r {
                        Res::Win => 2 * p,
                        Res::Draw => *p,
                        Res::Loss => 0,
                    })
                    .sum();
                let row = Row {
                    rank: 0,
                    player: (*player).clone(),
                    rating: *rating,
                    points: t.points,
                    games: t.games,
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.losses,
                    byes: t.byes,
                    buchholz,
                    buchholz_cut1: buchholz - lowest,
                    sonneborn_berger,
                    on_fire: t.on_fire,
                };
                (joined, row)
            })
            .collect();
        rows.sort_by(|(ja, a), (jb, b)| {
            let by_format = match format {
                Format::Swiss { .. } => (b.points, b.buchholz_cut1, b.buchholz)
                    .cmp(&(a.points, a.buchholz_cut1, a.buchholz))
                    .then((b.sonneborn_berger, b.wins).cmp(&(a.sonneborn_berger, a.wins))),
                Format::Arena { .. } => (b.points, b.wins).cmp(&(a.points, a.wins)),
                Format::Knockout => b.points.cmp(&a.points),
            };
            by_format.then(b.rating.cmp(&a.rating)).then(ja.cmp(jb))
        });
        let rows = rows
            .into_iter()
            .enumerate()
            .map(|(i, (_, mut row))| {
                row.rank = i as u32 + 1;
                row
            })
            .collect();
        Standings { rows }
    }
}

/// The standings computed afresh from the players (in joining order, with
/// their ratings) and the counted results in the order they were counted:
/// the reference the incremental standings must equal.
pub fn recount(
    config: &TournamentConfig,
    players: &[(PlayerId, i32)],
    records: &[Record],
) -> Standings {
    let mut tallies: BTreeMap<&PlayerId, Tally> =
        players.iter().map(|(p, _)| (p, Tally::default())).collect();
    for record in records {
        match record {
            Record::Game {
                white,
                black,
                outcome,
                ..
            } => {
                let (w, b) = Res::of(*outcome);
                if let Some(t) = tallies.get_mut(white) {
                    t.add_game(&config.format, black, w);
                }
                if let Some(t) = tallies.get_mut(black) {
                    t.add_game(&config.format, white, b);
                }
            }
            Record::Bye { player, .. } => {
                if let Some(t) = tallies.get_mut(player) {
                    t.add_bye(&config.format);
                }
            }
        }
    }
    Standings::rank(
        &config.format,
        players.iter().map(|(p, r)| (p, *r, &tallies[p])),
    )
}
