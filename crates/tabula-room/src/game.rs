//! One game (of a match): the board, the dice, the cube, the action log.
//!
//! [`Game`] knows nothing of players, connections or matches; the room
//! drives it, and the verifier replays a [`crate::GameRecord`] through it.

use serde::{Deserialize, Serialize};
use tabula_backgammon as bg;
use tabula_dice::Dice;
use tabula_long as long;
use tabula_thud as thud;

use crate::error::{EngineError, RoomError};
use crate::event::{
    Audience, BotNeed, ChatAuthor, EndReason, Event, GameResult, GameSummary, ResultKind,
};
use crate::fair::FairDice;
use crate::types::{SeatId, Spot};

/// The highest cube value.
pub const MAX_CUBE: u32 = 64;

/// Which game a room plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Long nardy.
    #[default]
    LongNardy,
    /// Short nardy = backgammon.
    Backgammon,
    /// Thud!.
    Thud,
}

/// The game and its variant options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GameOptions {
    /// Which game.
    pub game: GameKind,
    /// Long nardy options (opening, prime rule, scoring).
    pub long: long::Variant,
    /// Backgammon options (scoring).
    pub backgammon: bg::Options,
    /// Who starts in backgammon (long nardy uses `long.opening`).
    pub backgammon_opening: long::Opening,
    /// Thud! options (capture rule, plies without capture).
    pub thud: thud::Variant,
}

impl GameOptions {
    /// Long nardy with these options.
    pub fn long(variant: long::Variant) -> GameOptions {
        GameOptions {
            game: GameKind::LongNardy,
            long: variant,
            ..GameOptions::default()
        }
    }

    /// Backgammon with these options.
    pub fn backgammon(options: bg::Options) -> GameOptions {
        GameOptions {
            game: GameKind::Backgammon,
            backgammon: options,
            ..GameOptions::default()
        }
    }

    /// Thud! with these options.
    pub fn thud(variant: thud::Variant) -> GameOptions {
        GameOptions {
            game: GameKind::Thud,
            thud: variant,
            ..GameOptions::default()
        }
    }

    fn opening(&self) -> long::Opening {
        match self.game {
            GameKind::LongNardy => self.long.opening,
            _ => self.backgammon_opening,
        }
    }
}

/// A position to start from instead of the initial one (tests, lessons,
/// resumed games). The side to move in it starts; there is no opening roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StartPosition {
    /// A long nardy position (seed 000's JSON form).
    LongNardy(long::Setup),
    /// A backgammon position.
    Backgammon(bg::Setup),
}

/// Everything that fixes a game before its first action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSetup {
    /// The game and variant options.
    pub options: GameOptions,
    /// 1-based game number in its match.
    pub game_number: u32,
    /// Whether the cube is in play.
    pub cube_enabled: bool,
    /// Whether this is the Crawford game.
    pub crawford: bool,
    /// The server seed (secret until the end).
    pub server_seed: String,
    /// Client seeds of seats A and B.
    pub client_seeds: [String; 2],
    /// A start position other than the initial one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StartPosition>,
    /// Scripted dice (tests and training only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_script: Option<Vec<[u8; 2]>>,
}

impl GameSetup {
    /// Checks that the start position (if any) is legal for the game.
    pub fn check(&self) -> Result<(), RoomError> {
        match (&self.start, self.options.game) {
            (None, _) => Ok(()),
            (Some(StartPosition::LongNardy(s)), GameKind::LongNardy) => {
                long::Position::from_setup(s, self.options.long)
                    .map(|_| ())
                    .map_err(|e| RoomError::BadStartPosition(e.to_string()))
            }
            (Some(StartPosition::Backgammon(s)), GameKind::Backgammon) => s
                .validate()
                .map(|_| ())
                .map_err(|e| RoomError::BadStartPosition(e.to_string())),
            _ => Err(RoomError::BadStartPosition(
                "the start position is for another game".into(),
            )),
        }
    }
}

/// One recorded action of a game, in order (the verifier's input).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Action {
    /// The opening procedure (derived from the dice).
    #[serde(rename_all = "camelCase")]
    Opening {
        /// Each opening roll as (seat A's die, seat B's die).
        rolls: Vec<[u8; 2]>,
        /// Who starts.
        starter: SeatId,
        /// The starter's first roll when the opening roll plays.
        first_roll: Option<[u8; 2]>,
    },
    /// A roll (derived from the dice).
    #[serde(rename_all = "camelCase")]
    Roll {
        /// Who rolled.
        seat: SeatId,
        /// The dice.
        dice: [u8; 2],
    },
    /// One step.
    #[serde(rename_all = "camelCase")]
    Step {
        /// Who.
        seat: SeatId,
        /// From.
        from: Spot,
        /// To.
        to: Spot,
    },
    /// An automatic pass (derived).
    #[serde(rename_all = "camelCase")]
    Pass {
        /// Who could not move.
        seat: SeatId,
    },
    /// A double offered.
    #[serde(rename_all = "camelCase")]
    Double {
        /// Who.
        seat: SeatId,
    },
    /// A double taken.
    #[serde(rename_all = "camelCase")]
    Take {
        /// Who.
        seat: SeatId,
    },
    /// A double dropped.
    #[serde(rename_all = "camelCase")]
    Drop {
        /// Who.
        seat: SeatId,
    },
    /// A resignation (resign, stand up, or disconnect forfeit).
    #[serde(rename_all = "camelCase")]
    Resign {
        /// Who.
        seat: SeatId,
        /// Which of the three.
        reason: EndReason,
    },
    /// A Thud! move.
    #[serde(rename_all = "camelCase")]
    ThudMove {
        /// Who.
        seat: SeatId,
        /// Notation, e.g. `Da6-b6`.
        notation: String,
    },
    /// Thud!: proposal to end the round.
    #[serde(rename_all = "camelCase")]
    ProposeEnd {
        /// Who.
        seat: SeatId,
    },
    /// Thud!: acceptance.
    #[serde(rename_all = "camelCase")]
    AcceptEnd {
        /// Who.
        seat: SeatId,
    },
    /// Thud!: decline or withdrawal.
    #[serde(rename_all = "camelCase")]
    DeclineEnd {
        /// Who.
        seat: SeatId,
    },
}

#[derive(Debug, Clone)]
enum Board {
    Long {
        pos: long::Position,
        turn: Option<long::Turn>,
    },
    Bg {
        pos: bg::Position,
        turn: Option<bg::Turn>,
        dice: Option<Dice>,
    },
    Thud(Box<thud::Game>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    AwaitRoll(SeatId),
    Moving(SeatId),
    CubeOffered(SeatId),
    Thud,
    Over,
}

/// The doubling cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cube {
    /// Current value (1, 2, 4, … 64).
    pub value: u32,
    /// The owner; `None` while centred.
    pub owner: Option<SeatId>,
    /// Whether doubling is allowed at all this game.
    pub enabled: bool,
}

type Out = Vec<(Audience, Event)>;

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
}

fn arbiter(out: &mut Out, text: String) {
    out.push((
        Audience::All,
        Event::Chat {
            from: ChatAuthor::Arbiter,
            text,
        },
    ));
}

fn seat_ru(game: GameKind, seat: SeatId) -> &'static str {
    match (game, seat) {
        (GameKind::Thud, SeatId::A) => "Первый игрок",
        (GameKind::Thud, SeatId::B) => "Второй игрок",
        (_, SeatId::A) => "Белые",
        (_, SeatId::B) => "Чёрные",
    }
}

fn pair(d: Dice) -> [u8; 2] {
    [d.first(), d.second()]
}

pub(crate) fn long_step(from: Spot, to: Spot) -> Option<long::Step> {
    let Spot::Point(f) = from else { return None };
    match to {
        Spot::Point(t) => Some(long::Step::new(f, t)),
        Spot::Off => Some(long::Step::off(f)),
        Spot::Bar => None,
    }
}

pub(crate) fn bg_points(from: Spot, to: Spot) -> Option<(u8, u8)> {
    let f = match from {
        Spot::Point(n) => n,
        Spot::Bar => bg::BAR,
        Spot::Off => return None,
    };
    let t = match to {
        Spot::Point(n) => n,
        Spot::Off => bg::OFF,
        Spot::Bar => return None,
    };
    Some((f, t))
}

fn long_possible(turn: &long::Turn) -> (Vec<String>, Vec<String>) {
    // Each text sized up front ("24-18," is six bytes): one allocation per
    // offered step or sequence rather than a few as the text grows.
    let first = turn
        .legal_steps()
        .iter()
        .map(|s| {
            let mut text = String::with_capacity(7);
            s.push_to(&mut text);
            text
        })
        .collect();
    (first, turn.continuation_texts_by_result())
}

/// The rest of a backgammon turn after its first steps: one sequence of
/// the remaining steps per distinct final position (the same shape the
/// roll's `legal_plays` gives, so a client sees whole plays at every step).
fn bg_rest_sequences(turn: &bg::Turn) -> Vec<String> {
    turn.completions()
        .into_iter()
        .filter(|(rest, _)| !rest.is_empty())
        .map(|(rest, _)| bg::Play::from_steps(rest).to_string())
        .collect()
}

fn bg_first_steps(turn: &bg::Turn) -> Vec<String> {
    let mut dice: Vec<u8> = turn.remaining_dice().to_vec();
    dice.sort_unstable();
    dice.dedup();
    let mut out = Vec::new();
    for from in (1..=bg::BAR).rev() {
        for &d in &dice {
            let mut t = turn.clone();
            if let Ok(s) = t.step(from, d) {
                out.push(s.to_string());
            }
        }
    }
    out
}

impl Game {
    /// Starts a game: pushes `GameStarted`, the opening roll and the first
    /// turn into `out`. The setup must pass [`GameSetup::check`].
    pub(crate) fn start(setup: &GameSetup, out: &mut Out) -> Result<Game, RoomError> {
        setup.check()?;
        let options = setup.options;
        let client_seeds = setup.client_seeds.clone();
        let game_number = setup.game_number;
        let crawford = setup.crawford;
        let cube_enabled = setup.cube_enabled;
        let server_seed = setup.server_seed.as_str();
        let dice = FairDice::new(server_seed, &client_seeds[0], &client_seeds[1])
            .scripted(setup.dice_script.clone().unwrap_or_default());
        let cube_enabled = cube_enabled && options.game != GameKind::Thud;
        out.push((
            Audience::All,
            Event::GameStarted {
                game_number,
                commitment: dice.commitment(),
                client_seeds,
                crawford,
                cube_enabled,
            },
        ));
        let board = match options.game {
            GameKind::LongNardy => Board::Long {
                pos: long::Position::new_game(options.long, long::Color::White),
                turn: None,
            },
            GameKind::Backgammon => Board::Bg {
                pos: bg::Position::initial(),
                turn: None,
                dice: None,
            },
            GameKind::Thud => Board::Thud(Box::new(thud::Game::new(options.thud))),
        };
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
        };
        if options.game == GameKind::Thud {
            g.stage = Stage::Thud;
            return Ok(g);
        }
        if let Some(start) = &setup.start {
            let starter = match (start, &mut g.board) {
                (StartPosition::LongNardy(s), Board::Long { pos, .. }) => {
                    *pos = long::Position::from_setup(s, options.long)
                        .map_err(|e| RoomError::BadStartPosition(e.to_string()))?;
                    SeatId::of_long(pos.turn())
                }
                (StartPosition::Backgammon(s), Board::Bg { pos, .. }) => {
                    *pos = s
                        .validate()
                        .map_err(|e| RoomError::BadStartPosition(e.to_string()))?;
                    SeatId::of_bg(pos.turn())
                }
                _ => unreachable!("checked above"),
            };
            g.update_borne_off();
            g.await_roll(starter, out);
            return Ok(g);
        }
        let dec = long::decide_opening(options.opening(), &mut g.dice);
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
        match &mut g.board {
            Board::Long { pos, .. } => *pos = long::Position::new_game(options.long, dec.starter),
            Board::Bg { pos, .. } => {
                if starter == SeatId::B {
                    *pos = pos.pass_turn();
                }
            }
            Board::Thud(_) => {}
        }
        match dec.first_roll {
            Some(d) => g.begin_turn(starter, d, out),
            None => g.await_roll(starter, out),
        }
        Ok(g)
    }

    /// The options.
    pub fn options(&self) -> &GameOptions {
        &self.options
    }

    /// The actions so far.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The dice (seeds and how many were used).
    pub fn dice(&self) -> &FairDice {
        &self.dice
    }

    /// The cube.
    pub fn cube(&self) -> Cube {
        self.cube
    }

    /// The result once over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// The results summary so far.
    pub fn summary(&self) -> &GameSummary {
        &self.summary
    }

    /// The long nardy position (start of the current turn).
    pub fn long_position(&self) -> Option<long::Position> {
        match &self.board {
            Board::Long { pos, turn } => Some(turn.as_ref().map_or(*pos, |t| t.position())),
            _ => None,
        }
    }

    /// At the start of a dice game's turn (rolled, nothing played yet): who
    /// is to play, the roll and the position, as an empty
    /// [`crate::PlayedTurn`]. `None` at any other moment.
    pub fn turn_start(&self) -> Option<crate::PlayedTurn> {
        let Stage::Moving(seat) = self.stage else {
            return None;
        };
        match &self.board {
            Board::Long { pos, turn: Some(t) } if t.played().is_empty() => {
                Some(crate::PlayedTurn::LongNardy {
                    seat,
                    dice: t.dice(),
                    start: *pos,
                    steps: Vec::new(),
                })
            }
            Board::Bg {
                pos,
                turn: Some(t),
                dice: Some(d),
            } if t.steps().is_empty() => Some(crate::PlayedTurn::Backgammon {
                seat,
                dice: *d,
                start: *pos,
                steps: Vec::new(),
            }),
            _ => None,
        }
    }

    /// During a dice game's turn (rolled; some steps may be played): who
    /// is to play, the roll, the position before the turn's first step and
    /// the steps played so far. `None` at any other moment.
    pub fn turn_in_progress(&self) -> Option<crate::PlayedTurn> {
        let Stage::Moving(seat) = self.stage else {
            return None;
        };
        match &self.board {
            Board::Long { pos, turn: Some(t) } => Some(crate::PlayedTurn::LongNardy {
                seat,
                dice: t.dice(),
                start: *pos,
                steps: t.played().to_vec(),
            }),
            Board::Bg {
                pos,
                turn: Some(t),
                dice: Some(d),
            } => Some(crate::PlayedTurn::Backgammon {
                seat,
                dice: *d,
                start: *pos,
                steps: t.steps().iter().map(|s| (s.from(), s.to())).collect(),
            }),
            _ => None,
        }
    }

    /// The Thud! game.
    pub fn thud_game(&self) -> Option<&thud::Game> {
        match &self.board {
            Board::Thud(g) => Some(g),
            _ => None,
        }
    }

    /// Who must act next and how; `None` once over.
    pub fn to_act(&self) -> Option<(SeatId, BotNeed)> {
        match self.stage {
            Stage::AwaitRoll(s) => Some((s, BotNeed::Roll)),
            Stage::Moving(s) => Some((s, BotNeed::Move)),
            Stage::CubeOffered(by) => Some((by.other(), BotNeed::CubeDecision)),
            Stage::Thud => {
                let Board::Thud(g) = &self.board else {
                    return None;
                };
                let r = g.round();
                match r.proposal() {
                    Some(p) => Some((SeatId::of_thud(p.other()), BotNeed::EndProposal)),
                    None => Some((SeatId::of_thud(r.to_move()), BotNeed::Move)),
                }
            }
            Stage::Over => None,
        }
    }

    /// Whether `seat` may double now.
    pub fn may_double(&self, seat: SeatId) -> bool {
        self.cube.enabled
            && self.stage == Stage::AwaitRoll(seat)
            && self.cube.value < MAX_CUBE
            && self.cube.owner.is_none_or(|o| o == seat)
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
            Stage::Thud => return Err(RoomError::WrongGame),
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
        self.begin_turn(seat, d, out);
        Ok(())
    }

    fn begin_turn(&mut self, seat: SeatId, d: Dice, out: &mut Out) {
        if d.is_double() {
            self.summary.doubles[seat.index()] += 1;
        }
        let game = self.options.game;
        let pass_line = |out: &mut Out| {
            arbiter(
                out,
                format!(
                    "{}: выпало {}:{}, допустимых ходов нет — ход пропускается автоматически.",
                    seat_ru(game, seat),
                    d.first(),
                    d.second()
                ),
            );
        };
        match &mut self.board {
            Board::Long { pos, turn } => {
                let t = pos.turn_with(d);
                if t.is_complete() {
                    *pos = t.finish().expect("a complete turn finishes");
                    self.actions.push(Action::Pass { seat });
                    out.push((
                        Audience::All,
                        Event::TurnPassed {
                            seat,
                            dice: pair(d),
                        },
                    ));
                    pass_line(out);
                    self.summary.moves[seat.index()] += 1;
                    self.await_roll(seat.other(), out);
                } else {
                    let (first_steps, sequences) = long_possible(&t);
                    out.push((
                        Audience::All,
                        Event::PossibleMoves {
                            seat,
                            dice_left: t.dice_left().to_vec(),
                            first_steps,
                            sequences,
                        },
                    ));
                    *turn = Some(t);
                    self.stage = Stage::Moving(seat);
                }
            }
            Board::Bg { pos, turn, dice } => {
                let t = bg::Turn::new(pos, d);
                if t.max_dice() == 0 {
                    *pos = pos.pass_turn();
                    self.actions.push(Action::Pass { seat });
                    out.push((
                        Audience::All,
                        Event::TurnPassed {
                            seat,
                            dice: pair(d),
                        },
                    ));
                    pass_line(out);
                    self.summary.moves[seat.index()] += 1;
                    self.await_roll(seat.other(), out);
                } else {
                    let sequences = pos
                        .legal_plays(d)
                        .into_iter()
                        .map(|(p, _)| p.to_string())
                        .collect();
                    out.push((
                        Audience::All,
                        Event::PossibleMoves {
                            seat,
                            dice_left: t.remaining_dice().to_vec(),
                            first_steps: bg_first_steps(&t),
                            sequences,
                        },
                    ));
                    *turn = Some(t);
                    *dice = Some(d);
                    self.stage = Stage::Moving(seat);
                }
            }
            Board::Thud(_) => {}
        }
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
            Stage::Thud => return Err(RoomError::WrongGame),
            Stage::Over => return Err(RoomError::GameNotStarted),
            Stage::CubeOffered(_) => return Err(RoomError::DoublePending),
            Stage::AwaitRoll(s) if s == seat => return Err(RoomError::MustRollFirst),
            Stage::Moving(s) if s == seat => {}
            _ => return Err(RoomError::NotYourTurn),
        }
        let bad = || RoomError::BadPoints {
            from: from.to_string(),
            to: to.to_string(),
        };
        let mut finished = false;
        match &mut self.board {
            Board::Long { pos, turn } => {
                let step = long_step(from, to).ok_or_else(bad)?;
                let t = turn.as_mut().expect("moving has a turn");
                t.play_step(step).map_err(EngineError::from)?;
                self.actions.push(Action::Step { seat, from, to });
                out.push((
                    Audience::All,
                    Event::Moved {
                        seat,
                        from,
                        to,
                        notation: step.to_string(),
                        hit: false,
                    },
                ));
                if t.is_complete() {
                    *pos = t.finish().expect("a complete turn finishes");
                    *turn = None;
                    finished = true;
                } else {
                    let (first_steps, sequences) = long_possible(t);
                    out.push((
                        Audience::All,
                        Event::PossibleMoves {
                            seat,
                            dice_left: t.dice_left().to_vec(),
                            first_steps,
                            sequences,
                        },
                    ));
                }
            }
            Board::Bg { pos, turn, dice } => {
                let (f, t_) = bg_points(from, to).ok_or_else(bad)?;
                let t = turn.as_mut().expect("moving has a turn");
                let s = t.step_to(f, t_).map_err(EngineError::from)?;
                self.actions.push(Action::Step { seat, from, to });
                if s.is_hit() {
                    self.summary.hits[seat.index()] += 1;
                }
                out.push((
                    Audience::All,
                    Event::Moved {
                        seat,
                        from,
                        to,
                        notation: s.to_string(),
                        hit: s.is_hit(),
                    },
                ));
                if t.is_complete() {
                    let after = t.finish().expect("a complete play finishes");
                    *pos = if after.is_over() {
                        after
                    } else {
                        after.pass_turn()
                    };
                    *turn = None;
                    *dice = None;
                    finished = true;
                } else {
                    out.push((
                        Audience::All,
                        Event::PossibleMoves {
                            seat,
                            dice_left: t.remaining_dice().to_vec(),
                            first_steps: bg_first_steps(t),
                            sequences: bg_rest_sequences(t),
                        },
                    ));
                }
            }
            Board::Thud(_) => unreachable!("stage says dice game"),
        }
        if finished {
            self.summary.moves[seat.index()] += 1;
            self.update_borne_off();
            if let Some(r) = self.borne_off_result() {
                self.finish(r);
            } else {
                self.await_roll(seat.other(), out);
            }
        }
        Ok(())
    }

    fn update_borne_off(&mut self) {
        match &self.board {
            Board::Long { pos, .. } => {
                for s in SeatId::BOTH {
                    self.summary.borne_off[s.index()] = pos.off(s.long_color());
                }
            }
            Board::Bg { pos, .. } => {
                for s in SeatId::BOTH {
                    self.summary.borne_off[s.index()] = pos.off(s.bg_side());
                }
            }
            Board::Thud(_) => {}
        }
    }

    fn borne_off_result(&self) -> Option<GameResult> {
        let (winner, kind, base) = match &self.board {
            Board::Long { pos, .. } => {
                let o = pos.outcome()?;
                (SeatId::of_long(o.winner), long_kind(o.kind), o.points)
            }
            Board::Bg { pos, .. } => {
                let scoring = self.options.backgammon.scoring;
                let o = pos.outcome(scoring)?;
                let kind = match scoring {
                    bg::Scoring::Single => ResultKind::Single,
                    _ => bg_kind(o.kind),
                };
                (SeatId::of_bg(o.winner), kind, o.points)
            }
            Board::Thud(_) => return None,
        };
        Some(self.scored(Some(winner), kind, EndReason::BorneOff, u32::from(base)))
    }

    fn scored(
        &self,
        winner: Option<SeatId>,
        kind: ResultKind,
        reason: EndReason,
        base: u32,
    ) -> GameResult {
        GameResult {
            winner,
            kind,
            reason,
            base_points: base,
            cube: self.cube.value,
            points: base * self.cube.value,
            thud_totals: None,
        }
    }

    fn finish(&mut self, r: GameResult) {
        self.stage = Stage::Over;
        self.result = Some(r);
    }

    /// `seat` resigns (resign, stand up, disconnect forfeit).
    pub(crate) fn resign(&mut self, seat: SeatId, reason: EndReason) -> Result<(), RoomError> {
        if self.stage == Stage::Over {
            return Err(RoomError::GameNotStarted);
        }
        self.actions.push(Action::Resign { seat, reason });
        let r = match &self.board {
            Board::Long { pos, .. } => {
                let o = long::resign_outcome(pos, seat.long_color());
                self.scored(
                    Some(seat.other()),
                    long_kind(o.kind),
                    reason,
                    u32::from(o.points),
                )
            }
            Board::Bg { pos, .. } => {
                let gammon = self.options.backgammon.scoring == bg::Scoring::Gammons
                    && pos.off(seat.bg_side()) == 0;
                let (kind, base) = if gammon {
                    (ResultKind::Gammon, 2)
                } else {
                    (ResultKind::Single, 1)
                };
                self.scored(Some(seat.other()), kind, reason, base)
            }
            Board::Thud(g) => {
                let mut r = self.scored(Some(seat.other()), ResultKind::ThudTotals, reason, 1);
                r.thud_totals = Some(thud::outcome_of(&g.results()).totals);
                r
            }
        };
        self.update_borne_off();
        self.finish(r);
        Ok(())
    }

    /// `seat` offers a double.
    pub(crate) fn double(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        if !self.cube.enabled {
            return Err(RoomError::NoCube);
        }
        if let Stage::CubeOffered(_) = self.stage {
            return Err(RoomError::DoublePending);
        }
        if self.stage != Stage::AwaitRoll(seat) {
            return Err(RoomError::NotTimeToDouble);
        }
        if self.cube.owner.is_some_and(|o| o != seat) {
            return Err(RoomError::NotYourCube);
        }
        if self.cube.value >= MAX_CUBE {
            return Err(RoomError::CubeAtMaximum);
        }
        self.actions.push(Action::Double { seat });
        self.stage = Stage::CubeOffered(seat);
        out.push((
            Audience::All,
            Event::DoubleOffered {
                seat,
                value: self.cube.value * 2,
            },
        ));
        Ok(())
    }

    fn offer_to(&self, seat: SeatId) -> Result<SeatId, RoomError> {
        match self.stage {
            Stage::CubeOffered(by) if by.other() == seat => Ok(by),
            Stage::CubeOffered(_) => Err(RoomError::NotYourTurn),
            _ => Err(RoomError::NoDoublePending),
        }
    }

    /// `seat` takes the pending double.
    pub(crate) fn take(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let by = self.offer_to(seat)?;
        self.actions.push(Action::Take { seat });
        self.cube.value *= 2;
        self.cube.owner = Some(seat);
        out.push((
            Audience::All,
            Event::DoubleTaken {
                seat,
                value: self.cube.value,
            },
        ));
        self.await_roll(by, out);
        Ok(())
    }

    /// `seat` drops the pending double: the doubler wins at the current
    /// cube value.
    pub(crate) fn drop_double(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let by = self.offer_to(seat)?;
        self.actions.push(Action::Drop { seat });
        out.push((Audience::All, Event::DoubleDropped { seat }));
        let r = self.scored(Some(by), ResultKind::Drop, EndReason::Dropped, 1);
        self.update_borne_off();
        self.finish(r);
        Ok(())
    }

    fn thud_parts(&mut self, seat: SeatId) -> Result<&mut thud::Game, RoomError> {
        match self.stage {
            Stage::Over => return Err(RoomError::GameNotStarted),
            Stage::Thud => {}
            _ => return Err(RoomError::WrongGame),
        }
        let _ = seat;
        match &mut self.board {
            Board::Thud(g) => Ok(g),
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
        let mv = {
            let g = self.thud_parts(seat)?;
            let round = g.round_mut();
            if round.to_move() != seat.thud_seat() {
                return Err(RoomError::NotYourTurn);
            }
            let mv = round
                .position()
                .parse_move(notation)
                .map_err(|e| EngineError::Thud(e.into()))?;
            round
                .play(seat.thud_seat(), &mv)
                .map_err(EngineError::from)?;
            mv
        };
        let captured = mv.captures().count() as u32;
        self.summary.hits[seat.index()] += captured;
        self.summary.moves[seat.index()] += 1;
        self.actions.push(Action::ThudMove {
            seat,
            notation: mv.to_string(),
        });
        out.push((
            Audience::All,
            Event::ThudMoved {
                seat,
                notation: mv.to_string(),
                captured,
            },
        ));
        self.after_thud(out);
        Ok(())
    }

    fn after_thud(&mut self, out: &mut Out) {
        let Board::Thud(g) = &mut self.board else {
            return;
        };
        let Some(res) = g.round().result().copied() else {
            return;
        };
        let round = g.round_number() as u32;
        let points = [
            res.points(thud::Seat::First),
            res.points(thud::Seat::Second),
        ];
        let reason = serde_json::to_value(res.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        out.push((
            Audience::All,
            Event::RoundEnded {
                round,
                reason,
                points,
            },
        ));
        arbiter(
            out,
            format!(
                "Раунд {round} окончен: {} — {}, {} — {}.",
                seat_ru(GameKind::Thud, SeatId::A),
                crate::types::points_ru(points[0]),
                seat_ru(GameKind::Thud, SeatId::B),
                crate::types::points_ru(points[1]),
            ),
        );
        if round == 1 {
            g.next_round().expect("round 1 is over");
            return;
        }
        let o = g.outcome().expect("both rounds are over");
        let winner = o.winner.map(SeatId::of_thud);
        let (kind, base) = match winner {
            Some(_) => (ResultKind::ThudTotals, 1),
            None => (ResultKind::Draw, 0),
        };
        let mut r = self.scored(winner, kind, EndReason::RoundsOver, base);
        r.thud_totals = Some(o.totals);
        self.finish(r);
    }

    /// Thud!: `seat` proposes to end the round.
    pub(crate) fn propose_end(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let g = self.thud_parts(seat)?;
        g.round_mut()
            .propose_end(seat.thud_seat())
            .map_err(EngineError::from)?;
        self.actions.push(Action::ProposeEnd { seat });
        out.push((Audience::All, Event::EndProposed { seat }));
        Ok(())
    }

    /// Thud!: `seat` accepts the other's proposal.
    pub(crate) fn accept_end(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let g = self.thud_parts(seat)?;
        g.round_mut()
            .accept_end(seat.thud_seat())
            .map_err(EngineError::from)?;
        self.actions.push(Action::AcceptEnd { seat });
        self.after_thud(out);
        Ok(())
    }

    /// Thud!: `seat` declines (or withdraws) the proposal.
    pub(crate) fn decline_end(&mut self, seat: SeatId, out: &mut Out) -> Result<(), RoomError> {
        let g = self.thud_parts(seat)?;
        g.round_mut()
            .decline_end(seat.thud_seat())
            .map_err(EngineError::from)?;
        self.actions.push(Action::DeclineEnd { seat });
        out.push((Audience::All, Event::EndDeclined { seat }));
        Ok(())
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
            Action::ProposeEnd { seat } => self.propose_end(*seat, out),
            Action::AcceptEnd { seat } => self.accept_end(*seat, out),
            Action::DeclineEnd { seat } => self.decline_end(*seat, out),
        }
    }
}

fn long_kind(k: long::WinKind) -> ResultKind {
    match k {
        long::WinKind::Oin => ResultKind::Oin,
        long::WinKind::Mars => ResultKind::Mars,
        long::WinKind::Koks => ResultKind::Koks,
    }
}

fn bg_kind(k: bg::WinKind) -> ResultKind {
    match k {
        bg::WinKind::Single => ResultKind::Single,
        bg::WinKind::Gammon => ResultKind::Gammon,
        bg::WinKind::Backgammon => ResultKind::Backgammon,
    }
}

/// The board as the wire shows it (edge numbering, never internal indexes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BoardView {
    /// Long nardy: seed 000's JSON position form.
    LongNardy {
        /// The position (current, mid-turn included).
        position: long::Setup,
    },
    /// Backgammon: each side's own numbering, plus the GNU Backgammon
    /// Position ID.
    #[serde(rename_all = "camelCase")]
    Backgammon {
        /// The position (current, mid-turn included).
        position: bg::Setup,
        /// GNU Backgammon Position ID.
        position_id: String,
    },
    /// Thud!: squares `a1`..`o15`.
    #[serde(rename_all = "camelCase")]
    Thud {
        /// The current round's position.
        position: thud::Setup,
        /// 1 or 2.
        round: u32,
        /// The seat playing the dwarfs this round.
        dwarfs: SeatId,
        /// A pending proposal to end the round.
        proposal: Option<SeatId>,
        /// The legal moves of the side to move, in notation.
        legal_moves: Vec<String>,
    },
}

fn bg_setup(pos: &bg::Position) -> bg::Setup {
    let mut white = std::collections::BTreeMap::new();
    let mut black = std::collections::BTreeMap::new();
    for p in 1..=24u8 {
        let w = pos.checkers(bg::Side::White, p);
        if w > 0 {
            white.insert(p.to_string(), w);
        }
        let b = pos.checkers(bg::Side::Black, p);
        if b > 0 {
            black.insert(p.to_string(), b);
        }
    }
    bg::Setup {
        turn: pos.turn(),
        white,
        black,
        bar: bg::SideCounts {
            white: pos.bar(bg::Side::White),
            black: pos.bar(bg::Side::Black),
        },
        off: Some(bg::SideCounts {
            white: pos.off(bg::Side::White),
            black: pos.off(bg::Side::Black),
        }),
    }
}

impl Game {
    /// The board as it stands now (mid-turn included).
    pub fn board_view(&self) -> BoardView {
        match &self.board {
            Board::Long { pos, turn } => BoardView::LongNardy {
                position: turn.as_ref().map_or(*pos, |t| t.position()).to_setup(),
            },
            Board::Bg { pos, turn, .. } => {
                let p = turn.as_ref().map_or(*pos, |t| *t.position());
                BoardView::Backgammon {
                    position: bg_setup(&p),
                    position_id: p.gnubg_id(),
                }
            }
            Board::Thud(g) => {
                let r = g.round();
                let dwarfs = if g.round_number() <= 1 {
                    SeatId::A
                } else {
                    SeatId::B
                };
                BoardView::Thud {
                    position: r.position().to_setup(),
                    round: g.round_number() as u32,
                    dwarfs,
                    proposal: r.proposal().map(SeatId::of_thud),
                    legal_moves: if r.result().is_some() {
                        Vec::new()
                    } else {
                        r.position()
                            .legal_moves()
                            .iter()
                            .map(|m| m.to_string())
                            .collect()
                    },
                }
            }
        }
    }
}
