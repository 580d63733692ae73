//! Bots in seats: the [`BotBrain`] seam the room actor drives off its
//! thread (`spawn_blocking`), and the brains behind it.
//!
//! [`SimpleBrain`] plays legal moves picked by a seeded RNG from what the
//! room offers (the `possibleMoves` steps, the Thud! legal moves); it is
//! the brain until `tabula-bots` is wired in through the same trait.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_room::{BotLevel, BotNeed, Command, Game, MovesView, SeatId, Spot};

/// What a bot sees when it must act.
#[derive(Debug, Clone)]
pub struct BotInput {
    /// Its seat.
    pub seat: SeatId,
    /// What is needed.
    pub need: BotNeed,
    /// The game being played (a copy).
    pub game: Option<Game>,
    /// The legal continuations when moving in a dice game.
    pub moves: Option<MovesView>,
}

/// A computer player.
pub trait BotBrain: Send + std::fmt::Debug + 'static {
    /// The commands to send, in order (e.g. every step of a turn). The room
    /// validates each like anyone's.
    fn act(&mut self, input: &BotInput) -> Vec<Command>;
}

/// Makes a brain for a bot seat.
pub trait BotFactory: Send + Sync + std::fmt::Debug + 'static {
    /// A brain at `level`, seeded with `seed`.
    fn make(&self, level: BotLevel, seed: u64) -> Box<dyn BotBrain>;
}

/// The factory of [`SimpleBrain`]s.
#[derive(Debug, Default, Clone, Copy)]
pub struct SimpleFactory;

impl BotFactory for SimpleFactory {
    fn make(&self, _level: BotLevel, seed: u64) -> Box<dyn BotBrain> {
        Box::new(SimpleBrain {
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }
}

/// Random legal play (see the module docs).
#[derive(Debug)]
pub struct SimpleBrain {
    rng: ChaCha8Rng,
}

/// `24-18`, `5-off`, `bar/22*`, `6/off` → (from, to).
pub fn parse_step(s: &str) -> Option<(Spot, Spot)> {
    let s = s.trim_end_matches('*');
    let (a, b) = s.split_once(['-', '/'])?;
    Some((a.parse().ok()?, b.trim_end_matches('*').parse().ok()?))
}

impl BotBrain for SimpleBrain {
    fn act(&mut self, input: &BotInput) -> Vec<Command> {
        match input.need {
            BotNeed::Ready => vec![Command::Ready],
            BotNeed::Roll => vec![Command::RollDice],
            BotNeed::CubeDecision => vec![Command::Take],
            BotNeed::EndProposal => vec![Command::AcceptEnd],
            BotNeed::Move => {
                if let Some(g) = input.game.as_ref().and_then(Game::thud_game) {
                    let moves = g.round().position().legal_moves();
                    if moves.is_empty() {
                        return vec![Command::ProposeEnd];
                    }
                    let m = moves[self.rng.random_range(0..moves.len())];
                    return vec![Command::ThudMove {
                        notation: m.to_string(),
                    }];
                }
                let Some(mv) = &input.moves else {
                    return Vec::new();
                };
                if mv.first_steps.is_empty() {
                    return Vec::new();
                }
                let s = &mv.first_steps[self.rng.random_range(0..mv.first_steps.len())];
                parse_step(s)
                    .map(|(from, to)| vec![Command::Move { from, to }])
                    .unwrap_or_default()
            }
        }
    }
}
