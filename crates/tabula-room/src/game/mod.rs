//! One game (of a match): the board, the dice, the cube, the action log.
//!
//! [`Game`] knows nothing of players, connections or matches; the room
//! drives it, and the verifier replays a [`crate::GameRecord`] through it.
//!
//! What differs per game is behind one trait, [`Engine`] (`engine.rs`),
//! with one file per game: `long.rs` (long nardy), `backgammon.rs`,
//! `thud.rs` (Thud!). The flow they share — the opening roll, rolls and
//! steps, automatic passes, the cube, the action log, the summary, the
//! result scored by the cube — is [`Game`]'s, here; the arbiter's words
//! are [`crate::narration`]'s. [`Board`] holds one engine and the
//! `engine!` macro is the one `match` that calls into it (static
//! dispatch, no `dyn`: a call costs what the old per-game `match` did).
//!
//! Adding a game: its file implementing [`Engine`]; here one variant of
//! [`Board`], one arm of `engine!` and one of [`Board::new`]; in
//! `wire.rs` its [`GameKind`], its field of [`GameOptions`], its
//! [`BoardView`] (and a [`StartPosition`] or [`Action`]s if it has any).

mod backgammon;
mod engine;
mod long;
mod thud;
mod wire;

use tabula_dice::Dice;

use crate::error::{EngineError, RoomError};
use crate::event::{Audience, Event};
use crate::fair::FairDice;
use crate::narration::{self, Fact};
use crate::result::{EndReason, GameResult, GameSummary};
use crate::types::{SeatId, Spot};

pub(crate) use backgammon::{BackgammonGame, points_of as bg_points};
pub use engine::PlayedTurn;
pub(crate) use engine::{Engine, Moves, Outcome, Played, RoundOver, Stepped, Turn};
pub(crate) use long::{LongGame, step_of as long_step};
pub(crate) use thud::ThudGame;
pub use wire::{Action, BoardView, Cube, GameKind, GameOptions, GameSetup, StartPosition};

/// The highest cube value.
pub const MAX_CUBE: u32 = 64;

type Out = Vec<(Audience, Event)>;

/// The engine of the game being played.
#[derive(Debug, Clone)]
pub(crate) enum Board {
    Long(LongGame),
    Backgammon(BackgammonGame),
    Thud(Box<ThudGame>),
}

/// Runs `$body` with `$e` bound to the [`Board`]'s engine: the one place
/// that lists the engines for a call.
macro_rules! engine {
    ($board:expr, $e:ident => $body:expr) => {
        match $board {
            Board::Long($e) => $body,
            Board::Backgammon($e) => $body,
            Board::Thud($e) => $body,
        }
    };
}

// After `engine!`, which they use (a macro is in scope below its
// definition only).
mod offers;
mod reads;

impl GameSetup {
    /// Checks that the start position (if any) is legal for the game.
    pub fn check(&self) -> Result<(), RoomError> {
        match &self.start {
            None => Ok(()),
            Some(start) => Board::new(&self.options, Some(start)).map(|_| ()),
        }
    }
}

impl Board {
    /// The engine of `options.game`, at the initial position or at
    /// `start` (checked; with who moves first in it): the one place that
    /// maps a [`GameKind`] to its engine.
    pub(crate) fn new(
        options: &GameOptions,
        start: Option<&StartPosition>,
    ) -> Result<(Board, Option<SeatId>), RoomError> {
        match options.game {
            GameKind::LongNardy => start_with(options, start, Board::Long),
            GameKind::Backgammon => start_with(options, start, Board::Backgammon),
            GameKind::Thud => start_with(options, start, |g| Board::Thud(Box::new(g))),
        }
    }
}

fn start_with<E: Engine>(
    options: &GameOptions,
    start: Option<&StartPosition>,
    board: impl FnOnce(E) -> Board,
) -> Result<(Board, Option<SeatId>), RoomError> {
    Ok(match start {
        None => (board(E::new(options)), None),
        Some(s) => {
            let (e, starter) = E::from_start(s, options)?;
            (board(e), Some(starter))
        }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    AwaitRoll(SeatId),
    Moving(SeatId),
    CubeOffered(SeatId),
    /// A game with its own turn order (no dice): the engine says who acts.
    OwnTurns,
    Over,
}

/// One game in progress or finished.
#[derive(Debug, Clone)]
pub struct Game {
    options: GameOptions,
    dice: FairDice,
    board: Board,
    stage: Stage,
    cube: Cube,
    actions: Vec<Action>,
    summary: GameSummary,
    result: Option<GameResult>,
    /// What it was started from: a takeback replays its actions from it.
    setup: std::sync::Arc<GameSetup>,
}

fn pair(d: Dice) -> [u8; 2] {
    [d.first(), d.second()]
}

impl Game {
    /// Starts a game: pushes `GameStarted`, the opening roll and the first
    /// turn into `out`. The setup must pass [`GameSetup::check`].
    pub(crate) fn start(setup: &GameSetup, out: &mut Out) -> Result<Game, RoomError> {
        let options = setup.options;
        let (board, starter) = Board::new(&options, setup.start.as_ref())?;
        let client_seeds = setup.client_seeds.clone();
        let dice = FairDice::new(&setup.server_seed, &client_seeds[0], &client_seeds[1])
            .scripted(setup.dice_script.clone().unwrap_or_default());
        let uses_dice = engine!(&board, e => e.dice());
        let cube_enabled = setup.cube_enabled && uses_dice;
        out.push((
            Audience::All,
            Event::GameStarted {
                game_number: setup.game_number,
                commitment: dice.commitment(),
                client_seeds,
                crawford: setup.crawford,
                cube_enabled,
            },
        ));
        let mut g = Game {
            options,
            dice,
            board,
            stage: Stage::Over,
            cube: Cube {
                value: 1,
                owner: None,
                enabled: cube_enabled,
            },
            actions: Vec::new(),
            summary: GameSummary::default(),
            result: None,
            setup: std::sync::Arc::new(setup.clone()),
        };
        if !uses_dice {
            g.stage = Stage::OwnTurns;
            return Ok(g);
        }
        if let Some(starter) = starter {
            g.update_borne_off();
            g.await_roll(starter, out);
            return Ok(g);
        }
        let opening = engine!(&g.board, e => e.opening(&options));
        let dec = tabula_long::decide_opening(opening, &mut g.dice);
        let starter = SeatId::of_long(dec.starter);
        let rolls: Vec<[u8; 2]> = dec.rolls.iter().map(|&(w, b)| [w, b]).collect();
        let first_roll = dec.first_roll.map(pair);
        g.actions.push(Action::Opening {
            rolls: rolls.clone(),
            starter,
            first_roll,
        });
        out.push((
            Audience::All,
            Event::OpeningRoll {
                rolls,
                starter,
                first_roll,
            },
        ));
        engine!(&mut g.board, e => e.set_starter(starter, &options));
        match dec.first_roll {
            Some(d) => g.begin_turn(starter, d, out)?,
            None => g.await_roll(starter, out),
        }
        Ok(g)
    }

    fn await_roll(&mut self, seat: SeatId, out: &mut Out) {
        self.stage = Stage::AwaitRoll(seat);
        out.push((
            Audience::All,
            Event::TurnStarted {
                seat,
                may_double: self.may_double(seat),
            },
        ));
    }

    /// `seat` rolls.
    pub(crate) fn roll(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        match self.stage {
            Stage::OwnTurns => return Err(RoomError::WrongGame),
            Stage::Over => return Err(RoomError::GameNotStarted),
            Stage::CubeOffered(_) => return Err(RoomError::DoublePending),
            Stage::Moving(s) if s == seat => return Err(RoomError::AlreadyRolled),
            Stage::AwaitRoll(s) if s == seat => {}
            _ => return Err(RoomError::NotYourTurn),
        }
        let k = self.dice.next_roll_index();
        let [a, b] = self.dice.roll_pair();
        let d = Dice::new(a, b).expect("derived dice are 1..=6");
        self.actions.push(Action::Roll { seat, dice: [a, b] });
        out.push((
            Audience::All,
            Event::DiceRolled {
                seat,
                dice: [a, b],
                roll_index: k,
            },
        ));
        self.begin_turn(seat, d, out)
    }

    fn begin_turn(&mut self, seat: SeatId, d: Dice, out: &mut Out) -> Result<(), RoomError> {
        if d.is_double() {
            self.summary.doubles[seat.index()] += 1;
        }
        match engine!(&mut self.board, e => e.begin_turn(d))? {
            Turn::Passed => {
                self.actions.push(Action::Pass { seat });
                out.push((
                    Audience::All,
                    Event::TurnPassed {
                        seat,
                        dice: pair(d),
                    },
                ));
                narration::arbiter(
                    out,
                    Fact::AutoPass {
                        seats: self.seats(),
                        seat,
                        dice: pair(d),
                    },
                );
                self.summary.moves[seat.index()] += 1;
                self.await_roll(seat.other(), out);
            }
            Turn::Moves(m) => {
                out.push((Audience::All, possible_moves(seat, m)));
                self.stage = Stage::Moving(seat);
            }
        }
        Ok(())
    }

    /// `seat` plays one step.
    pub(crate) fn step(
        &mut self,
        seat: SeatId,
        from: Spot,
        to: Spot,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        match self.stage {
            Stage::OwnTurns => return Err(RoomError::WrongGame),
            Stage::Over => return Err(RoomError::GameNotStarted),
            Stage::CubeOffered(_) => return Err(RoomError::DoublePending),
            Stage::AwaitRoll(s) if s == seat => return Err(RoomError::MustRollFirst),
            Stage::Moving(s) if s == seat => {}
            _ => return Err(RoomError::NotYourTurn),
        }
        let s = engine!(&mut self.board, e => e.step(from, to))?;
        self.actions.push(Action::Step { seat, from, to });
        if s.hit {
            self.summary.hits[seat.index()] += 1;
        }
        out.push((
            Audience::All,
            Event::Moved {
                seat,
                from,
                to,
                notation: s.notation,
                hit: s.hit,
            },
        ));
        if let Some(m) = s.next {
            out.push((Audience::All, possible_moves(seat, m)));
            return Ok(());
        }
        self.summary.moves[seat.index()] += 1;
        self.update_borne_off();
        match engine!(&self.board, e => e.outcome(&self.options)) {
            Some(o) => self.finish(o, EndReason::BorneOff),
            None => self.await_roll(seat.other(), out),
        }
        Ok(())
    }

    /// A whole turn ([`crate::Command::Turn`]): the steps are played on a
    /// copy, and the copy becomes the game only if each is legal and the
    /// last one ends the turn. The `possibleMoves` between the steps are
    /// left out (nobody chooses from them).
    pub(crate) fn whole_turn(
        &mut self,
        seat: SeatId,
        steps: &[(Spot, Spot)],
        out: &mut Out,
    ) -> Result<(), RoomError> {
        if steps.is_empty() {
            return Err(RoomError::IncompleteTurn);
        }
        let mut trial = self.clone();
        let mut events = Vec::with_capacity(steps.len() + 2);
        for (i, &(from, to)) in steps.iter().enumerate() {
            // Past the first step the turn is the mover's own: a step after
            // the turn ended, or one this game cannot read, makes the turn
            // malformed (`illegal_move`), not someone else's turn.
            if i > 0 && !matches!(trial.stage, Stage::Moving(s) if s == seat) {
                return Err(EngineError::AfterTurn {
                    played: i,
                    given: steps.len(),
                }
                .into());
            }
            match trial.step(seat, from, to, &mut events) {
                Err(RoomError::BadPoints { from, to }) => {
                    return Err(EngineError::Notation(format!(
                        "not a step of this game: {from} to {to}"
                    ))
                    .into());
                }
                r => r?,
            }
        }
        if matches!(trial.stage, Stage::Moving(s) if s == seat) {
            return Err(RoomError::IncompleteTurn);
        }
        *self = trial;
        out.extend(
            events
                .into_iter()
                .filter(|(_, e)| !matches!(e, Event::PossibleMoves { seat: s, .. } if *s == seat)),
        );
        Ok(())
    }

    /// What the rest of the turn offers after `steps` (a `preview`, which
    /// a client that lets its player undo asks for before he confirms):
    /// the steps are played on a copy that is then dropped, so nothing
    /// changes and nobody else sees them. `None` when they finish the turn.
    pub(crate) fn preview(
        &self,
        seat: SeatId,
        steps: &[(Spot, Spot)],
    ) -> Result<Option<crate::MovesView>, RoomError> {
        let mut trial = self.clone();
        let mut events = Vec::with_capacity(steps.len() + 2);
        for &(from, to) in steps {
            trial.step(seat, from, to, &mut events)?;
        }
        if !matches!(trial.stage, Stage::Moving(s) if s == seat) {
            return Ok(None);
        }
        Ok(events.into_iter().rev().find_map(|(_, e)| match e {
            Event::PossibleMoves {
                seat: s,
                dice_left,
                first_steps,
                sequences,
            } if s == seat => Some(crate::MovesView {
                seat,
                dice_left,
                first_steps,
                sequences,
            }),
            _ => None,
        }))
    }

    fn update_borne_off(&mut self) {
        if let Some(off) = engine!(&self.board, e => e.borne_off()) {
            self.summary.borne_off = off;
        }
    }

    /// Ends the game with `o` for `reason`, scored at the cube's value.
    fn finish(&mut self, o: Outcome, reason: EndReason) {
        self.stage = Stage::Over;
        self.result = Some(GameResult {
            winner: o.winner,
            kind: o.kind,
            reason,
            base_points: o.base,
            cube: self.cube.value,
            points: o.base * self.cube.value,
            thud_totals: o.thud_totals,
        });
    }

    /// `seat` resigns (resign, stand up, disconnect forfeit).
    pub(crate) fn resign(&mut self, seat: SeatId, reason: EndReason) -> Result<(), RoomError> {
        if self.stage == Stage::Over {
            return Err(RoomError::GameNotStarted);
        }
        self.actions.push(Action::Resign { seat, reason });
        let o = engine!(&self.board, e => e.resign(seat, &self.options));
        self.update_borne_off();
        self.finish(o, reason);
        Ok(())
    }

    /// `seat`'s clock ran out. A dice game: a resignation for
    /// [`EndReason::Timeout`] (nardy: mars if he has borne off nothing,
    /// else oin; backgammon: at the cube, gammons per the scoring). Thud!:
    /// the round ends, the opponent credited with all the pieces left
    /// ([`tabula_thud::Round::time_out`]), and the game goes on to the
    /// next round or ends after the second.
    pub(crate) fn time_out(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        match self.stage {
            Stage::Over => Err(RoomError::GameNotStarted),
            Stage::OwnTurns => {
                engine!(&mut self.board, e => e.time_out(seat))?;
                self.actions.push(Action::TimeOut { seat });
                narration::arbiter(
                    out,
                    Fact::RoundTimeout {
                        seats: self.seats(),
                        seat,
                    },
                );
                self.after_own_move(out);
                Ok(())
            }
            _ => self.resign(seat, EndReason::Timeout),
        }
    }

    /// Refuses a command of a game with its own turn order at any other
    /// moment (or in a dice game).
    fn own_turns(&self) -> Result<(), RoomError> {
        match self.stage {
            Stage::Over => Err(RoomError::GameNotStarted),
            Stage::OwnTurns => Ok(()),
            _ => Err(RoomError::WrongGame),
        }
    }

    /// `seat` plays a Thud! move.
    pub(crate) fn thud_move(
        &mut self,
        seat: SeatId,
        notation: &str,
        out: &mut Out,
    ) -> Result<(), RoomError> {
        self.own_turns()?;
        let played = engine!(&mut self.board, e => e.play(seat, notation))?;
        self.summary.hits[seat.index()] += played.captured;
        self.summary.moves[seat.index()] += 1;
        self.actions.push(Action::ThudMove {
            seat,
            notation: played.notation.clone(),
        });
        out.push((
            Audience::All,
            Event::ThudMoved {
                seat,
                notation: played.notation,
                captured: played.captured,
            },
        ));
        self.after_own_move(out);
        Ok(())
    }

    /// The end of a round, and of the game after the last one.
    fn after_own_move(&mut self, out: &mut Out) {
        let Some(r) = engine!(&mut self.board, e => e.round_over()) else {
            return;
        };
        out.push((
            Audience::All,
            Event::RoundEnded {
                round: r.round,
                reason: r.reason,
                points: r.points,
            },
        ));
        narration::arbiter(
            out,
            Fact::RoundOver {
                seats: self.seats(),
                round: r.round,
                points: r.points,
            },
        );
        if let Some(o) = r.outcome {
            self.finish(o, EndReason::RoundsOver);
        }
    }

    /// Replays one non-derived action (used by the verifier). Derived
    /// actions (opening, pass) are skipped: they follow from the others.
    pub(crate) fn replay(&mut self, a: &Action, out: &mut Out) -> Result<(), RoomError> {
        match a {
            Action::Opening { .. } | Action::Pass { .. } => Ok(()),
            Action::Roll { seat, .. } => self.roll(*seat, out),
            Action::Step { seat, from, to } => self.step(*seat, *from, *to, out),
            Action::Double { seat } => self.double(*seat, out),
            Action::Take { seat } => self.take(*seat, out),
            Action::Drop { seat } => self.drop_double(*seat, out),
            Action::Resign { seat, reason } => self.resign(*seat, *reason),
            Action::ThudMove { seat, notation } => self.thud_move(*seat, notation, out),
            Action::TimeOut { seat } => self.time_out(*seat, out),
            Action::ProposeEnd { seat } => self.propose_end(*seat, out),
            Action::AcceptEnd { seat } => self.accept_end(*seat, out),
            Action::DeclineEnd { seat } => self.decline_end(*seat, out),
        }
    }
}

fn possible_moves(seat: SeatId, m: Moves) -> Event {
    Event::PossibleMoves {
        seat,
        dice_left: m.dice_left,
        first_steps: m.first_steps,
        sequences: m.sequences,
    }
}
