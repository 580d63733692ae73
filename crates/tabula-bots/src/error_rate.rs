//! Long nardy's error rate: how much equity each level gives up per move,
//! judged by rollouts, on a fixed set of decisions from play (what gnubg's
//! error rate is for backgammon; no public long-nardy engine exists to
//! judge by, so the judge is rollouts).
//!
//! 1. **Decisions** ([`sample_decisions`]): one unforced decision (a
//!    position and a roll with at least two distinct plays) from each of
//!    a run of seeded games between Medium, Hard and the classic Hard,
//!    at a ply drawn uniformly from that game's unforced decisions, so the
//!    set spans openings, middle games, races and bear-offs as play meets
//!    them.
//! 2. **Candidates** ([`candidates`]): the plays each player picks
//!    ([`Player`]: Easy, Medium, Hard, the classic Hard) and Hard's best
//!    [`TOP_CANDIDATES`] by its own ranking, each distinct final once.
//! 3. **Rollouts** ([`rollout`]): every candidate is played out
//!    `trials` times by the network's greedy play on both sides (the
//!    bear-off database where both sides bear off, which is exact, so a
//!    trial ends there), with the same dice for every candidate in a
//!    trial (paired) and quasi-random first rolls: trial `t` opens with
//!    ordered roll `t mod 36` and follows with `(t / 36) mod 36`, so 1,296
//!    trials see every pair of the first two rolls exactly once, as gnubg's
//!    rollouts rotate them. A trial may be truncated after a number of
//!    plies and scored by the network there.
//! 4. **Losses** ([`judge`]): a player's loss at a decision is the best
//!    candidate's rollout equity minus that of the play it picked; its
//!    error rate is the mean over the decisions, in points per move (×1000
//!    for gnubg's millipoints).
//!
//! Deterministic for the seeds; no clock, no IO (the CLI's `tabula
//! error-rate` runs it on threads and writes the files).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_dice::{Dice, DiceSource, SeededDice};
use tabula_long::{Color, Position, Variant, decide_opening};

use crate::bot::Bot;
use crate::level::Level;
use crate::long::net::{Net, Scratch};
use crate::long::search;
use crate::long::{self, Engine};

/// How many of Hard's best plays (by its own ranking) are rolled out
/// besides every player's pick.
pub const TOP_CANDIDATES: usize = 3;

/// Plies after which an untruncated trial is scored by the network anyway
/// (no real game lasts this long).
const MAX_PLIES: u32 = 1000;

/// Who is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// Random play.
    Easy,
    /// The greedy static evaluation.
    Medium,
    /// The network and its look-ahead (as shipped).
    Hard,
    /// Hard before the network: the hand-made evaluation's expectimax.
    HardClassic,
}

impl Player {
    /// Every player, weakest first.
    pub const ALL: [Player; 4] = [
        Player::Easy,
        Player::Medium,
        Player::HardClassic,
        Player::Hard,
    ];

    /// `easy`, `medium`, `hard`, `hard-classic`.
    pub fn name(self) -> &'static str {
        match self {
            Player::Easy => "easy",
            Player::Medium => "medium",
            Player::Hard => "hard",
            Player::HardClassic => "hard-classic",
        }
    }

    fn level(self) -> Level {
        match self {
            Player::Easy => Level::Easy,
            Player::Medium => Level::Medium,
            Player::Hard | Player::HardClassic => Level::Hard,
        }
    }

    fn engine(self) -> Engine {
        Engine {
            bearoff: true,
            network: self != Player::HardClassic,
        }
    }

    /// The index into `finals` (`pos`'s legal plays of some roll) this
    /// player picks, its ties and Easy's choice drawn from `seed`.
    pub fn pick(self, pos: &Position, finals: &[Position], seed: u64) -> usize {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        long::pick_with(self.level(), &mut rng, pos, finals, self.engine())
    }
}

/// One decision: a position and the roll its mover has to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The position, its mover on roll.
    pub position: Position,
    /// The roll.
    pub dice: Dice,
}

/// A seed mixed from a run's seed and two indices (SplitMix64's finaliser).
pub fn mix(seed: u64, a: u64, b: u64) -> u64 {
    let mut x =
        seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// `count` unforced decisions of the default variant, one from each of
/// seeded games between two of Medium, Hard and the classic Hard (drawn
/// per game), at a ply drawn uniformly from the game's unforced decisions.
pub fn sample_decisions(count: usize, seed: u64) -> Vec<Decision> {
    const PLAYERS: [Player; 3] = [Player::Medium, Player::Hard, Player::HardClassic];
    let mut out = Vec::with_capacity(count);
    let mut game = 0u64;
    while out.len() < count {
        let mut rng = ChaCha8Rng::seed_from_u64(mix(seed, game, 0));
        let sides = [
            PLAYERS[rng.random_range(0..PLAYERS.len())],
            PLAYERS[rng.random_range(0..PLAYERS.len())],
        ];
        let mut bots = sides.map(|p| {
            let b = Bot::new(p.level(), rng.random());
            if p == Player::HardClassic {
                b.with_classic_long()
            } else {
                b
            }
        });
        let mut dice = SeededDice::new(mix(seed, game, 1));
        let v = Variant::default();
        let opening = decide_opening(v.opening, &mut dice);
        let mut pos = Position::new_game(v, opening.starter);
        let mut pending = opening.first_roll;
        let mut unforced = Vec::new();
        let mut plies = 0;
        while !pos.is_game_over() && plies < MAX_PLIES {
            let roll = pending.take().unwrap_or_else(|| dice.roll());
            let finals = pos.legal_moves(roll);
            if finals.len() >= 2 {
                unforced.push(Decision {
                    position: pos,
                    dice: roll,
                });
            }
            let bot = &mut bots[usize::from(pos.turn() != Color::White)];
            let steps = bot
                .choose_play(crate::Position::Long(&pos), Some(roll))
                .and_then(crate::Play::into_long)
                .unwrap_or_default();
            pos = pos.play_unchecked(&steps);
            plies += 1;
        }
        if !unforced.is_empty() {
            out.push(unforced[rng.random_range(0..unforced.len())]);
        }
        game += 1;
    }
    out
}

/// A play to roll out: the position after it, and who picked it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The position after the play, the opponent to roll.
    pub after: Position,
    /// The players whose pick it is.
    pub picked_by: Vec<Player>,
    /// Its place in Hard's ranking (0 = Hard's choice), if among the
    /// [`TOP_CANDIDATES`].
    pub hard_rank: Option<usize>,
}

/// The candidates of decision `d`: every player's pick (seeded by
/// `seed`) and Hard's best [`TOP_CANDIDATES`], each distinct play once.
pub fn candidates(d: &Decision, seed: u64) -> Vec<Candidate> {
    let pos = &d.position;
    let finals = pos.legal_moves(d.dice);
    let mut out: Vec<Candidate> = Vec::new();
    let mut add = |after: Position, by: Option<Player>, rank: Option<usize>| {
        let i = match out.iter().position(|c| c.after == after) {
            Some(i) => i,
            None => {
                out.push(Candidate {
                    after,
                    picked_by: Vec::new(),
                    hard_rank: None,
                });
                out.len() - 1
            }
        };
        if let Some(p) = by {
            out[i].picked_by.push(p);
        }
        if rank.is_some() {
            out[i].hard_rank = rank;
        }
    };
    for (k, p) in Player::ALL.into_iter().enumerate() {
        let i = p.pick(pos, &finals, mix(seed, k as u64, 2));
        add(finals[i], Some(p), None);
    }
    for (rank, i) in long::hard_ranking(pos, &finals)
        .into_iter()
        .take(TOP_CANDIDATES)
        .enumerate()
    {
        add(finals[i], None, Some(rank));
    }
    out
}

/// How candidates are rolled out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolloutSettings {
    /// Trials per candidate (1,296 = every pair of first two rolls once).
    pub trials: u32,
    /// Plies after which a trial is scored by the network (0: played to
    /// the end, or to a bear-off the database values exactly).
    pub truncate: u32,
    /// Seed of the dice after the first two rolls.
    pub seed: u64,
}

/// A rollout's estimate of a candidate, for the side that played it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    /// Mean points per game.
    pub equity: f64,
    /// The standard error of the mean (trials taken as independent, which
    /// overstates it: the quasi-random first rolls reduce the variance).
    pub std_err: f64,
    /// The share of trials won.
    pub win: f64,
}

/// The 36 ordered rolls.
fn ordered_roll(k: u32) -> Dice {
    let k = k % 36;
    Dice::new((k / 6) as u8 + 1, (k % 6) as u8 + 1).unwrap_or(Dice::ALL_21[0])
}

/// Trial `t`'s dice: the quasi-random first two rolls, then a seeded
/// stream.
struct TrialDice {
    first: [Dice; 2],
    next: usize,
    rest: SeededDice,
}

impl TrialDice {
    fn new(t: u32, seed: u64) -> TrialDice {
        TrialDice {
            first: [ordered_roll(t), ordered_roll(t / 36)],
            next: 0,
            rest: SeededDice::new(mix(seed, u64::from(t), 3)),
        }
    }

    fn roll(&mut self) -> Dice {
        match self.first.get(self.next) {
            Some(&d) => {
                self.next += 1;
                d
            }
            None => self.rest.roll(),
        }
    }
}

/// One trial of `after` (`me` just moved): points for `me`.
fn trial(
    net: &Net,
    scratch: &mut Scratch,
    after: &Position,
    me: Color,
    dice: &mut TrialDice,
    truncate: u32,
    buf: &mut Vec<Position>,
) -> f64 {
    let mut pos = *after;
    let mut moved = me;
    let sign = |side: Color, e: f64| if side == me { e } else { -e };
    for ply in 0..MAX_PLIES {
        // A finished game's points, or a bear-off's exact equity.
        if let Some(e) = crate::bearoff::long_equity(&pos, moved) {
            return sign(moved, e);
        }
        if truncate > 0 && ply >= truncate {
            break;
        }
        let roll = dice.roll();
        buf.clear();
        pos.legal_moves_into(roll, buf);
        let mover = pos.turn();
        let i = search::greedy(net, scratch, mover, buf, true).unwrap_or(0);
        pos = buf.get(i).copied().unwrap_or_else(|| pos.pass_turn());
        moved = mover;
    }
    let e = scratch.equity(net, &pos, moved, true);
    sign(moved, f64::from(e))
}

/// Rolls out every position in `afters` (each after a play of `me`'s from
/// the same decision), trial `t` with the same dice for all of them.
pub fn rollout(afters: &[Position], me: Color, s: &RolloutSettings) -> Vec<Estimate> {
    let net = Net::shipped();
    let mut scratch = Scratch::new(net);
    let mut buf = Vec::with_capacity(64);
    afters
        .iter()
        .map(|after| {
            let (mut sum, mut sq, mut wins) = (0.0, 0.0, 0u32);
            for t in 0..s.trials {
                let mut dice = TrialDice::new(t, s.seed);
                let r = trial(
                    net,
                    &mut scratch,
                    after,
                    me,
                    &mut dice,
                    s.truncate,
                    &mut buf,
                );
                sum += r;
                sq += r * r;
                wins += u32::from(r > 0.0);
            }
            let n = f64::from(s.trials.max(1));
            let mean = sum / n;
            let var = (sq / n - mean * mean).max(0.0);
            Estimate {
                equity: mean,
                std_err: (var / (n - 1.0).max(1.0)).sqrt(),
                win: f64::from(wins) / n,
            }
        })
        .collect()
}

/// A judged decision: its candidates with their rollouts.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The decision.
    pub decision: Decision,
    /// Its candidates, each with its estimate.
    pub candidates: Vec<(Candidate, Estimate)>,
}

impl Judged {
    /// The best rollout equity among the candidates.
    pub fn best(&self) -> f64 {
        self.candidates
            .iter()
            .map(|(_, e)| e.equity)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// What `p`'s pick lost against the best candidate (0 when it is the
    /// best), `None` if `p` was not judged here.
    pub fn loss(&self, p: Player) -> Option<f64> {
        let best = self.best();
        self.candidates
            .iter()
            .find(|(c, _)| c.picked_by.contains(&p))
            .map(|(_, e)| best - e.equity)
    }
}

/// Rolls out decision `d`'s candidates (decision number `index` of the
/// set, which seeds the players' picks and the dice).
pub fn judge(d: &Decision, index: u64, s: &RolloutSettings) -> Judged {
    let cands = candidates(d, mix(s.seed, index, 4));
    let afters: Vec<Position> = cands.iter().map(|c| c.after).collect();
    let settings = RolloutSettings {
        seed: mix(s.seed, index, 5),
        ..*s
    };
    let est = rollout(&afters, d.position.turn(), &settings);
    Judged {
        decision: *d,
        candidates: cands.into_iter().zip(est).collect(),
    }
}

/// A player's figures over judged decisions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    /// Decisions judged.
    pub decisions: usize,
    /// Mean equity lost per move, in points.
    pub mean_loss: f64,
    /// Decisions where its pick was the rollouts' best.
    pub best: usize,
    /// Decisions where it lost at least 0.08 points (gnubg's "bad").
    pub errors: usize,
    /// Decisions where it lost at least 0.16 points (gnubg's "very bad").
    pub blunders: usize,
}

impl Summary {
    /// The figures of a player's losses, one per decision.
    pub fn of(losses: &[f64]) -> Summary {
        let n = losses.len();
        Summary {
            decisions: n,
            mean_loss: losses.iter().sum::<f64>() / n.max(1) as f64,
            best: losses.iter().filter(|&&l| l <= 0.0).count(),
            errors: losses.iter().filter(|&&l| l >= 0.08).count(),
            blunders: losses.iter().filter(|&&l| l >= 0.16).count(),
        }
    }
}

/// `p`'s figures over `judged`.
pub fn summarise(judged: &[Judged], p: Player) -> Summary {
    let losses: Vec<f64> = judged.iter().filter_map(|j| j.loss(p)).collect();
    Summary::of(&losses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_two_rolls_of_1296_trials_are_every_pair_once() {
        let mut seen = std::collections::HashSet::new();
        for t in 0..1296 {
            let mut d = TrialDice::new(t, 9);
            let a = d.roll();
            let b = d.roll();
            assert!(seen.insert(([a.first(), a.second()], [b.first(), b.second()])));
        }
        assert_eq!(seen.len(), 1296);
        // Afterwards the seeded stream, the same for the same trial.
        let mut x = TrialDice::new(7, 1);
        let mut y = TrialDice::new(7, 1);
        for _ in 0..10 {
            assert_eq!(x.roll(), y.roll());
        }
    }

    #[test]
    fn every_candidate_of_a_decision_sees_the_same_dice() {
        // Paired: the same play twice in one rollout gets the same
        // estimate, trial by trial the same dice; another seed changes the
        // rolls after the first two.
        let d = sample_decisions(1, 2)[0];
        let after = d.position.legal_moves(d.dice)[0];
        let me = d.position.turn();
        let s = RolloutSettings {
            trials: 36,
            truncate: 8,
            seed: 4,
        };
        let e = rollout(&[after, after], me, &s);
        assert_eq!(e[0], e[1]);
        let other = rollout(&[after], me, &RolloutSettings { seed: 5, ..s });
        assert_ne!(other[0], e[0]);
    }

    #[test]
    fn decisions_are_unforced_and_reproducible() {
        let a = sample_decisions(6, 3);
        assert_eq!(a, sample_decisions(6, 3));
        assert_eq!(a.len(), 6);
        for d in &a {
            assert!(!d.position.is_game_over());
            assert!(d.position.legal_moves(d.dice).len() >= 2);
        }
        assert_ne!(a, sample_decisions(6, 4));
    }

    #[test]
    fn every_player_is_a_candidate_once_and_hards_best_are_rolled_out() {
        for (k, d) in sample_decisions(8, 5).iter().enumerate() {
            let c = candidates(d, k as u64);
            for p in Player::ALL {
                assert_eq!(
                    c.iter().filter(|c| c.picked_by.contains(&p)).count(),
                    1,
                    "{p:?}"
                );
            }
            let n = d.position.legal_moves(d.dice).len();
            let ranked = c.iter().filter(|c| c.hard_rank.is_some()).count();
            assert_eq!(ranked, n.min(TOP_CANDIDATES));
            assert!(c.len() <= Player::ALL.len() + TOP_CANDIDATES);
            // Distinct plays.
            for (i, x) in c.iter().enumerate() {
                assert!(c[i + 1..].iter().all(|y| y.after != x.after));
            }
        }
    }

    #[test]
    fn a_bear_off_rolls_out_exactly_and_losses_are_measured_from_the_best() {
        // Both sides bearing off: the database is exact, every trial the
        // same.
        let setup: tabula_long::Setup = serde_json::from_str(
            r#"{"turn":"black","white":{"1":2},"black":{"13":15},"off":{"white":13,"black":0}}"#,
        )
        .unwrap();
        let after = Position::from_setup(&setup, Variant::default()).unwrap();
        let s = RolloutSettings {
            trials: 36,
            truncate: 0,
            seed: 1,
        };
        let e = rollout(&[after], Color::White, &s)[0];
        let exact = crate::bearoff::long_equity(&after, Color::White).unwrap();
        assert!((e.equity - exact).abs() < 1e-12, "{e:?} {exact}");
        assert_eq!(e.std_err, 0.0);

        // Losses: the best candidate loses nothing, the rest their gap.
        let d = sample_decisions(1, 11)[0];
        let j = judge(
            &d,
            0,
            &RolloutSettings {
                trials: 72,
                truncate: 6,
                seed: 2,
            },
        );
        let again = judge(
            &d,
            0,
            &RolloutSettings {
                trials: 72,
                truncate: 6,
                seed: 2,
            },
        );
        assert_eq!(j, again);
        let best = j.best();
        assert!(j.candidates.iter().any(|(_, e)| e.equity == best));
        for p in Player::ALL {
            let l = j.loss(p).unwrap();
            assert!(l >= 0.0, "{p:?} {l}");
        }
        let s = summarise(std::slice::from_ref(&j), Player::Hard);
        assert_eq!(s.decisions, 1);
        assert_eq!(s.best, usize::from(j.loss(Player::Hard) == Some(0.0)));
        let t = Summary::of(&[0.0, 0.1, 0.2, 0.02]);
        assert_eq!((t.decisions, t.best, t.errors, t.blunders), (4, 1, 2, 1));
        assert!((t.mean_loss - 0.08).abs() < 1e-12);
    }
}
