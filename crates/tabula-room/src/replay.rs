//! Replays of finished games: the positions a viewer steps through.
//!
//! [`replay`] verifies a [`GameRecord`] (as [`crate::verify`] does) and
//! replays it through the same [`Game`] the room plays, giving one
//! [`Frame`] per position worth showing:
//!
//! * `frames[0]`: the start position (`seat`, `dice` and `notation` null).
//! * **Long nardy and backgammon**: one frame per turn, the board after the
//!   whole turn, with the mover's seat, the roll and the turn's notation —
//!   long nardy in seed 000's form (`"24-18,18-15"`, the steps in the order
//!   played), backgammon in GNU Backgammon's standard notation
//!   (`"24/18 13/11"`, `"bar/22*"`, `"8/5(2)"`). A roll with no legal play
//!   (the automatic pass) is a frame too, with its seat and dice and
//!   `notation` **null**, so the frames hold every roll that was played or
//!   passed. A turn cut short by the end of the game (a resignation or a
//!   timeout after some steps) is a frame with the steps played; a roll
//!   followed by a resignation before any step changes nothing and has no
//!   frame. Cube actions (double, take, drop) and resignations are **not**
//!   frames: they move no checker (the record's `actions` keep them).
//! * **Thud!**: one frame per ply (`dice` null, `notation` the ply as the
//!   engine writes it, `"Da6-b6"`); a round ended by agreement or on time
//!   is a frame of its own (`seat`: who accepted, or whose time ran out;
//!   `notation` null). A frame that ends round 1 shows round 1's last
//!   position (`round` 1, no legal moves), and round 2's start follows as a
//!   frame with `seat` null, like the game's start. Proposals to end a
//!   round are not frames.
//!
//! Every frame's `board` is the [`BoardView`] the room's state showed
//! after that frame's action (so the Mini App draws it with its board
//! renderer), except that the frame ending Thud!'s round 1 shows the
//! round's end rather than round 2's start (the frame after it does).
//!
//! [`played_turn_frames`] gives each turn that its steps finished, with
//! the index of its frame: the analysis (`tabula_bots::analysis`) numbers
//! its turns by it, so turn N of an analysis is `frames[N]`.

use serde::{Deserialize, Serialize};
use tabula_backgammon as bg;

use crate::game::{Action, BoardView, Game, PlayedTurn, bg_points, long_step};
use crate::record::{GameRecord, VerifyError, verify};
use crate::types::SeatId;

/// One position of a replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// Who moved to reach it (`None`: a start position).
    pub seat: Option<SeatId>,
    /// The roll of the turn (`None`: Thud!, or a start position).
    pub dice: Option<[u8; 2]>,
    /// The turn or ply in the game's notation (`None`: a start position, a
    /// pass, or a Thud! round ended without a ply).
    pub notation: Option<String>,
    /// The board after it, as the room's state shows it.
    pub board: BoardView,
}

/// The frames of a finished game: the start, then one per turn (long
/// nardy, backgammon) or ply (Thud!), as the module documentation says.
/// The record is verified first; a record that does not check out is
/// refused with [`crate::verify`]'s error.
pub fn replay(record: &GameRecord) -> Result<Vec<Frame>, VerifyError> {
    Ok(walk(record)?.into_iter().map(|(f, _)| f).collect())
}

/// Each turn of a long nardy or backgammon game that its steps finished,
/// with the index of its frame in [`replay`]'s frames. Passes and a turn
/// cut short by a resignation or a timeout are left out (their frames
/// have no turn here); Thud! has none.
pub fn played_turn_frames(record: &GameRecord) -> Result<Vec<(usize, PlayedTurn)>, VerifyError> {
    Ok(walk(record)?
        .into_iter()
        .enumerate()
        .filter_map(|(i, (_, t))| t.map(|t| (i, t)))
        .collect())
}

/// A dice turn's notation as [`Frame::notation`] writes it: long nardy
/// `24-18,18-15` (the steps in the order given), backgammon GNU
/// Backgammon's standard notation (highest origin first, hits marked,
/// repeats folded: `24/18 13/11*`, `8/5(2)`). Steps that are not legal from
/// the turn's start are written as given (`from/to`, no hits).
pub fn turn_notation(turn: &PlayedTurn) -> String {
    match turn {
        PlayedTurn::LongNardy { steps, .. } => steps
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(","),
        PlayedTurn::Backgammon {
            dice, start, steps, ..
        } => {
            let mut t = bg::Turn::new(start, *dice);
            let standard = steps.iter().all(|&(f, to)| t.step_to(f, to).is_ok());
            if standard {
                bg::Play::from_steps(t.steps().to_vec()).to_string()
            } else {
                steps
                    .iter()
                    .map(|&(f, to)| format!("{}/{}", bg_spot(f), bg_spot(to)))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        }
    }
}

fn bg_spot(p: u8) -> String {
    match p {
        bg::BAR => "bar".to_string(),
        bg::OFF => "off".to_string(),
        n => n.to_string(),
    }
}

/// The frames, each with the turn its steps finished (if it is one).
fn walk(record: &GameRecord) -> Result<Vec<(Frame, Option<PlayedTurn>)>, VerifyError> {
    verify(record)?;
    let mut out = Vec::new();
    let mut game = Game::start(&record.setup, &mut out)
        .map_err(|error| VerifyError::Rejected { index: 0, error })?;
    let mut w = Walk {
        frames: vec![(
            Frame {
                seat: None,
                dice: None,
                notation: None,
                board: game.board_view(),
            },
            None,
        )],
        dice: None,
        seen: 0,
    };
    w.derived(&game);
    for (index, a) in record.actions.iter().enumerate() {
        if index < game.actions().len() {
            continue; // derived by the replay itself
        }
        let before = game.turn_in_progress();
        let view_before = game.board_view();
        game.replay(a, &mut out)
            .map_err(|error| VerifyError::Rejected { index, error })?;
        out.clear();
        w.after(&game, a, before, view_before);
        w.derived(&game);
    }
    Ok(w.frames)
}

/// The replay's state between actions.
struct Walk {
    frames: Vec<(Frame, Option<PlayedTurn>)>,
    /// The roll of the turn being played.
    dice: Option<[u8; 2]>,
    /// How many of the game's actions have been looked at.
    seen: usize,
}

impl Walk {
    fn push(&mut self, seat: Option<SeatId>, notation: Option<String>, board: BoardView) {
        let dice = if seat.is_some() { self.dice } else { None };
        self.frames.push((
            Frame {
                seat,
                dice,
                notation,
                board,
            },
            None,
        ));
    }

    /// The actions the game derived itself (the opening, passes) since the
    /// last look, and the rolls.
    fn derived(&mut self, game: &Game) {
        let new = game.actions().get(self.seen..).unwrap_or_default();
        self.seen = game.actions().len();
        for b in new {
            match b {
                Action::Opening { first_roll, .. } => self.dice = *first_roll,
                Action::Roll { dice, .. } => self.dice = Some(*dice),
                Action::Pass { seat } => {
                    self.push(Some(*seat), None, game.board_view());
                    self.dice = None;
                }
                _ => {}
            }
        }
    }

    /// The frame (if any) of the replayed action `a`; `before` is the turn
    /// in progress and `view_before` the board before it.
    fn after(
        &mut self,
        game: &Game,
        a: &Action,
        before: Option<PlayedTurn>,
        view_before: BoardView,
    ) {
        match a {
            Action::Step { from, to, .. } => {
                if game.turn_in_progress().is_some() {
                    return; // the turn goes on
                }
                let Some(mut turn) = before else { return };
                match &mut turn {
                    PlayedTurn::LongNardy { steps, .. } => steps.extend(long_step(*from, *to)),
                    PlayedTurn::Backgammon { steps, .. } => steps.extend(bg_points(*from, *to)),
                }
                self.turn(turn, game.board_view(), true);
            }
            Action::Resign { .. } => {
                if let Some(turn) = before.filter(|t| !t.is_unplayed()) {
                    self.turn(turn, game.board_view(), false);
                }
            }
            Action::ThudMove { seat, notation } => {
                self.thud(game, *seat, Some(notation.clone()), view_before);
            }
            Action::TimeOut { seat } | Action::AcceptEnd { seat } => {
                self.thud(game, *seat, None, view_before);
            }
            _ => {}
        }
    }

    /// A dice turn's frame; `finished`: its steps ended it.
    fn turn(&mut self, turn: PlayedTurn, board: BoardView, finished: bool) {
        let (seat, dice) = match &turn {
            PlayedTurn::LongNardy { seat, dice, .. }
            | PlayedTurn::Backgammon { seat, dice, .. } => (*seat, [dice.first(), dice.second()]),
        };
        self.frames.push((
            Frame {
                seat: Some(seat),
                dice: Some(dice),
                notation: Some(turn_notation(&turn)),
                board,
            },
            finished.then_some(turn),
        ));
        self.dice = None;
    }

    /// A Thud! frame after a ply or a round's end, and round 2's start
    /// when the action ended round 1.
    fn thud(&mut self, game: &Game, seat: SeatId, notation: Option<String>, before: BoardView) {
        let now = game.board_view();
        let (
            BoardView::Thud {
                round: was, dwarfs, ..
            },
            BoardView::Thud { round: is, .. },
        ) = (&before, &now)
        else {
            self.push(Some(seat), notation, now);
            return;
        };
        let ended = game
            .thud_game()
            .filter(|_| is > was)
            .and_then(|g| g.rounds().get((*was as usize).checked_sub(1)?));
        match ended {
            Some(r) => {
                let end = BoardView::Thud {
                    position: r.position().to_setup(),
                    round: *was,
                    dwarfs: *dwarfs,
                    proposal: None,
                    legal_moves: Vec::new(),
                };
                self.push(Some(seat), notation, end);
                self.push(None, None, now);
            }
            None => self.push(Some(seat), notation, now),
        }
    }
}
