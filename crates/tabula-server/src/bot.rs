//! Bots in seats: the [`BotBrain`] seam the room actor drives off its
//! thread (`spawn_blocking`), and [`TabulaBrain`], the brain over
//! [`tabula_bots::Bot`].
//!
//! * Dice games: on the move at the start of a turn the bot plays the whole
//!   turn and the brain sends every step as a `move` (long nardy in seed
//!   000's numbering, backgammon in the mover's own with `bar`/`off`).
//!   Should a turn be resumed midway (a step refused), it plays the room's
//!   first legal step. Before rolling it doubles when the room allows it
//!   and the bot wants to; a double offered to it is taken or dropped by
//!   the bot.
//! * Thud!: the bot's move in notation; a proposal to end the round is
//!   accepted or declined by the bot.

use tabula_backgammon as bg;
use tabula_bots::{Bot, Level, Play, Position};
use tabula_dice::Dice;
use tabula_room::{
    Action, BoardView, BotLevel, BotNeed, Command, Game, GameKind, MovesView, SeatId, Spot,
};

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

/// The factory of [`TabulaBrain`]s.
#[derive(Debug, Default, Clone, Copy)]
pub struct TabulaBots {
    /// Play dice games one step at a time, each the room's first legal
    /// step, instead of the bot's whole turn (the room actor's fallback
    /// after repeated refusals).
    pub step_by_step: bool,
}

impl BotFactory for TabulaBots {
    fn make(&self, level: BotLevel, seed: u64) -> Box<dyn BotBrain> {
        Box::new(TabulaBrain::new(level, seed, self.step_by_step))
    }
}

/// The room's bot level (1 easy, 2 medium, 3 hard) as a [`Level`]; below 1
/// is Easy, above 3 Hard.
pub fn level_of(level: BotLevel) -> Level {
    match level {
        0 | 1 => Level::Easy,
        2 => Level::Medium,
        _ => Level::Hard,
    }
}

/// A [`tabula_bots::Bot`] in a seat (see the module docs).
#[derive(Debug)]
pub struct TabulaBrain {
    bot: Bot,
    step_by_step: bool,
}

impl TabulaBrain {
    /// A brain at the room's `level`, seeded with `seed`.
    pub fn new(level: BotLevel, seed: u64, step_by_step: bool) -> TabulaBrain {
        TabulaBrain {
            bot: Bot::new(level_of(level), seed),
            step_by_step,
        }
    }

    fn offers_double(&mut self, game: &Game, seat: SeatId) -> bool {
        game.may_double(seat)
            && Board::of(game, seat).is_some_and(|b| self.bot.offers_double(b.position()))
    }

    fn takes(&mut self, game: &Game, seat: SeatId) -> bool {
        Board::of(game, seat).is_none_or(|b| self.bot.takes_double(b.position()))
    }

    fn accepts_end(&mut self, game: &Game, seat: SeatId) -> bool {
        match Board::of(game, seat) {
            Some(Board::Thud(pos, me)) => self.bot.accepts_end(Position::Thud(pos), me),
            _ => false,
        }
    }

    fn moves(&mut self, game: &Game, seat: SeatId, moves: Option<&MovesView>) -> Vec<Command> {
        if let Some(board) = Board::of(game, seat) {
            // Thud! has no dice (`choose_play` ignores them); a dice game
            // plays its whole turn only from its start.
            let dice = turn_start_dice(game).filter(|_| !self.step_by_step);
            match self.bot.choose_play(board.position(), dice) {
                Some(Play::Thud(m)) => {
                    return vec![Command::ThudMove {
                        notation: m.to_string(),
                    }];
                }
                None if matches!(board, Board::Thud(..)) => return vec![Command::ProposeEnd],
                Some(Play::Long(steps)) => return steps.into_iter().map(long_move).collect(),
                Some(Play::Backgammon(steps)) => return steps.into_iter().map(bg_move).collect(),
                None => {}
            }
        }
        moves
            .and_then(|m| m.first_steps.first())
            .and_then(|s| Spot::parse_step(s).ok())
            .map(|(from, to)| vec![Command::Move { from, to }])
            .unwrap_or_default()
    }
}

/// The room's game as a bot sees it, `seat` the bot's.
#[derive(Debug)]
enum Board<'g> {
    Long(tabula_long::Position),
    Backgammon(bg::Position),
    /// The position and the bot's side.
    Thud(&'g tabula_thud::Position, tabula_thud::Side),
}

impl Board<'_> {
    /// The one place that tells the games apart: every decision asks the
    /// bot about [`Board::position`]. `None` while there is no position.
    fn of(game: &Game, seat: SeatId) -> Option<Board<'_>> {
        match game.options().game {
            GameKind::LongNardy => game.long_position().map(Board::Long),
            GameKind::Backgammon => bg_position(game).map(Board::Backgammon),
            GameKind::Thud => game.thud_game().map(|g| {
                let r = g.round();
                Board::Thud(r.position(), r.side_of(seat.thud_seat()))
            }),
        }
    }

    fn position(&self) -> Position<'_> {
        match self {
            Board::Long(p) => Position::Long(p),
            Board::Backgammon(p) => Position::Backgammon(p),
            Board::Thud(p, _) => Position::Thud(p),
        }
    }
}

impl BotBrain for TabulaBrain {
    fn act(&mut self, input: &BotInput) -> Vec<Command> {
        let seat = input.seat;
        if let Some(g) = &input.game {
            // Hard plays short nardy for the room's scoring.
            self.bot
                .set_backgammon_scoring(g.options().backgammon.scoring);
        }
        match (input.need, &input.game) {
            (BotNeed::Ready, _) => vec![Command::Ready],
            (_, None) => Vec::new(),
            (BotNeed::Roll, Some(g)) if self.offers_double(g, seat) => vec![Command::Double],
            (BotNeed::Roll, Some(_)) => vec![Command::RollDice],
            (BotNeed::CubeDecision, Some(g)) if self.takes(g, seat) => vec![Command::Take],
            (BotNeed::CubeDecision, Some(_)) => vec![Command::Drop],
            (BotNeed::Move, Some(g)) => self.moves(g, seat, input.moves.as_ref()),
            (BotNeed::EndProposal, Some(g)) if self.accepts_end(g, seat) => {
                vec![Command::AcceptEnd]
            }
            (BotNeed::EndProposal, Some(_)) => vec![Command::DeclineEnd],
        }
    }
}

/// The dice of the turn being played when no step of it is played yet.
fn turn_start_dice(game: &Game) -> Option<Dice> {
    match game.actions().last()? {
        Action::Roll { dice, .. }
        | Action::Opening {
            first_roll: Some(dice),
            ..
        } => Dice::new(dice[0], dice[1]).ok(),
        _ => None,
    }
}

/// The backgammon position as it stands, the mover on roll.
fn bg_position(game: &Game) -> Option<bg::Position> {
    match game.board_view() {
        BoardView::Backgammon { position, .. } => position.validate().ok(),
        _ => None,
    }
}

fn long_move(step: tabula_long::Step) -> Command {
    Command::Move {
        from: Spot::Point(step.from),
        to: match step.to {
            tabula_long::Target::Point(p) => Spot::Point(p),
            tabula_long::Target::Off => Spot::Off,
        },
    }
}

fn bg_move((from, to): (u8, u8)) -> Command {
    let spot = |n| match n {
        bg::BAR => Spot::Bar,
        bg::OFF => Spot::Off,
        n => Spot::Point(n),
    };
    Command::Move {
        from: spot(from),
        to: spot(to),
    }
}

/// The hint plays for a turn, in the wire's notation (the same as
/// `possibleMoves`).
pub fn hint_plays(
    turn: &tabula_room::PlayedTurn,
    scoring: tabula_backgammon::Scoring,
    rollouts: u32,
    seed: u64,
    cancel: &std::sync::atomic::AtomicBool,
) -> Vec<tabula_protocol::HintPlay> {
    use tabula_bots::hint;
    use tabula_protocol::HintPlay;
    let wire = |play: String, h: (f64, f64, u32)| HintPlay {
        play,
        win: h.0,
        equity: h.1,
        rollouts: h.2,
    };
    match turn {
        tabula_room::PlayedTurn::LongNardy {
            dice, start, steps, ..
        } => hint::long_nardy_after(start, *dice, steps, rollouts, seed, cancel)
            .into_iter()
            .map(|h| wire(hint::long_notation(&h.play), (h.win, h.equity, h.rollouts)))
            .collect(),
        tabula_room::PlayedTurn::Backgammon {
            dice, start, steps, ..
        } => hint::backgammon_after(start, *dice, steps, scoring, rollouts, seed, cancel)
            .into_iter()
            .map(|h| wire(hint::bg_notation(&h.play), (h.win, h.equity, h.rollouts)))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use tabula_room::{Actor, GameOptions, Phase, PlayerId, Room, RoomConfig};

    use super::*;

    /// What a room driven to the end by [`play_out`] saw.
    #[derive(Debug, Default)]
    struct Seen {
        /// The needs the bot was asked about.
        needs: HashSet<BotNeed>,
        /// The bot's commands, all accepted.
        commands: usize,
        /// Turns the bot resumed midway.
        resumed: usize,
        /// The scoring the bot played short nardy for.
        scoring: Option<tabula_backgammon::Scoring>,
    }

    /// Plays a room to the end of its match: seat B is the bot at `level`,
    /// driven only by a [`TabulaBrain`]'s commands, each of which the room
    /// must accept; seat A is a weak human (the room's first legal step,
    /// Easy otherwise) who doubles when allowed every third action and, in
    /// Thud!, proposes to end the round every seventh. Every fifth bot turn
    /// only its first step is played, so the bot must resume midway.
    fn play_out(options: GameOptions, level: BotLevel, match_length: u32) -> Seen {
        let mut room = Room::new(RoomConfig {
            options,
            match_length,
            bot: Some(level),
            master_seed: format!("bot-{level}-{:?}", options.game),
            ..RoomConfig::default()
        });
        let human = Actor::Player(PlayerId::new("human"));
        let mut now = 1_000;
        room.apply(
            Command::Sit {
                seat: Some(SeatId::A),
            },
            human.clone(),
            now,
        )
        .expect("the human sits");
        // TabulaBots::default().make(level, 7), kept concrete to look in.
        let mut bot = TabulaBrain::new(level, 7, false);
        let mut person = TabulaBrain::new(1, 11, true);
        let mut seen = Seen::default();
        let (mut human_acts, mut bot_turns) = (0u32, 0u32);
        for _ in 0..20_000 {
            let (seat, need) = match room.phase() {
                Phase::Finished => {
                    seen.scoring = Some(bot.bot.backgammon_scoring());
                    return seen;
                }
                Phase::Playing => room
                    .game()
                    .and_then(Game::to_act)
                    .expect("someone must act"),
                Phase::WaitingForPlayer => SeatId::BOTH
                    .into_iter()
                    .find(|&s| !room.seat_view(s).ready)
                    .map(|s| (s, BotNeed::Ready))
                    .expect("someone is not ready"),
            };
            let input = BotInput {
                seat,
                need,
                game: room.game().cloned(),
                moves: room.moves_view(),
            };
            now += 100;
            if seat == SeatId::A {
                human_acts += 1;
                let game = input.game.as_ref();
                let cmd = match need {
                    // Double whenever allowed, so the bot always meets a
                    // cube decision (a strong bot can win a short match
                    // before a sparser doubler ever holds the cube).
                    BotNeed::Roll if game.is_some_and(|g| g.may_double(seat)) => Command::Double,
                    BotNeed::Move
                        if human_acts % 7 == 0 && game.is_some_and(|g| g.thud_game().is_some()) =>
                    {
                        Command::ProposeEnd
                    }
                    _ => person.act(&input).swap_remove(0),
                };
                room.apply(cmd.clone(), human.clone(), now)
                    .unwrap_or_else(|e| panic!("the human's {cmd:?} refused: {e}"));
                continue;
            }
            seen.needs.insert(need);
            let dice_move = need == BotNeed::Move && input.moves.is_some();
            let fresh_turn = dice_move && turn_start_dice(input.game.as_ref().unwrap()).is_some();
            if !fresh_turn && dice_move {
                seen.resumed += 1;
            }
            let mut cmds = bot.act(&input);
            assert!(!cmds.is_empty(), "level {level}: no command for {need:?}");
            if !fresh_turn {
                assert_eq!(cmds.len(), 1, "level {level}: one command for {need:?}");
            }
            bot_turns += u32::from(fresh_turn);
            let cut = fresh_turn && bot_turns % 5 == 0 && cmds.len() > 1;
            if cut {
                cmds.truncate(1);
            }
            for c in cmds {
                seen.commands += 1;
                room.apply(c.clone(), Actor::Bot(SeatId::B), now)
                    .unwrap_or_else(|e| panic!("level {level}: the bot's {c:?} refused: {e}"));
            }
            if fresh_turn && !cut && room.phase() == Phase::Playing {
                assert_ne!(
                    room.game().and_then(Game::to_act),
                    Some((SeatId::B, BotNeed::Move)),
                    "level {level}: the bot left its turn half played"
                );
            }
        }
        panic!("level {level}: the match never ended");
    }

    fn dice_game(game: GameKind) {
        for level in 1..=3 {
            let seen = play_out(
                GameOptions {
                    game,
                    ..GameOptions::default()
                },
                level,
                3,
            );
            for need in [
                BotNeed::Ready,
                BotNeed::Roll,
                BotNeed::Move,
                BotNeed::CubeDecision,
            ] {
                assert!(seen.needs.contains(&need), "level {level}: {seen:?}");
            }
            assert!(seen.resumed > 0, "level {level}: {seen:?}");
        }
    }

    #[test]
    fn the_room_accepts_every_long_nardy_command_of_each_level() {
        dice_game(GameKind::LongNardy);
    }

    #[test]
    fn the_room_accepts_every_backgammon_command_of_each_level() {
        dice_game(GameKind::Backgammon);
    }

    #[test]
    fn the_bot_plays_short_nardy_for_the_rooms_scoring() {
        for scoring in [bg::Scoring::Single, bg::Scoring::Gammons] {
            let mut options = GameOptions {
                game: GameKind::Backgammon,
                ..GameOptions::default()
            };
            options.backgammon.scoring = scoring;
            assert_eq!(play_out(options, 3, 1).scoring, Some(scoring));
        }
    }

    #[test]
    fn the_room_accepts_every_thud_command_of_each_level() {
        for level in 1..=3 {
            let mut options = GameOptions {
                game: GameKind::Thud,
                ..GameOptions::default()
            };
            options.thud.max_plies_without_capture = Some(16);
            let seen = play_out(options, level, 1);
            for need in [BotNeed::Ready, BotNeed::Move, BotNeed::EndProposal] {
                assert!(seen.needs.contains(&need), "level {level}: {seen:?}");
            }
        }
    }

    #[test]
    fn room_levels_map_onto_bot_levels_clamped() {
        assert_eq!(level_of(0), Level::Easy);
        assert_eq!(level_of(1), Level::Easy);
        assert_eq!(level_of(2), Level::Medium);
        assert_eq!(level_of(3), Level::Hard);
        assert_eq!(level_of(9), Level::Hard);
        for (n, level) in [(1, Level::Easy), (2, Level::Medium), (3, Level::Hard)] {
            assert_eq!(TabulaBrain::new(n, 1, false).bot.level(), level);
        }
    }
}
