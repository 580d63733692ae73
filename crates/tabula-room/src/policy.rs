//! The rules a room's host follows around the core: when a bot seat must
//! act ([`Room::bot_request`]) and when a person may ask for a hint
//! ([`Room::hint_turn`], [`hint_rollouts`], [`hint_seed`]).
//!
//! The core emits `botRequest` to [`crate::Audience::Host`] when a bot's
//! turn comes; a host that was not listening then (a room restored from a
//! snapshot, a bot whose brain failed) asks [`Room::bot_request`], which
//! names the same seat, level and need from the room as it stands.

use crate::{BotLevel, BotNeed, Game, Phase, PlayedTurn, PlayerId, Room, SeatId};

/// A bot seat that must act: what `botRequest` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotRequest {
    /// The bot's seat.
    pub seat: SeatId,
    /// Its level.
    pub level: BotLevel,
    /// What it must do.
    pub need: BotNeed,
}

/// Why a hint is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintRefusal {
    /// Hints help a person against the computer, never against another
    /// person: the room has no bot.
    NoBot,
    /// A hint is for the asker's own turn of a dice game, after rolling.
    NotYourTurn,
    /// More rollouts than [`MAX_HINT_ROLLOUTS`] were asked for.
    TooManyRollouts,
}

/// The most rollouts a `hint` may ask for (per candidate).
pub const MAX_HINT_ROLLOUTS: u32 = 64;

/// The rollouts per candidate when a `hint` names none.
pub const DEFAULT_HINT_ROLLOUTS: u32 = 16;

/// The rollouts a `hint` asking for `asked` gets: the default when it
/// names none; refused over [`MAX_HINT_ROLLOUTS`] (not clamped: the client
/// asked for something the protocol does not offer).
pub fn hint_rollouts(asked: Option<u32>) -> Result<u32, HintRefusal> {
    match asked {
        None => Ok(DEFAULT_HINT_ROLLOUTS),
        Some(n) if n <= MAX_HINT_ROLLOUTS => Ok(n),
        Some(_) => Err(HintRefusal::TooManyRollouts),
    }
}

/// What a hint of `rollouts` costs against its asker's budget: the
/// rollouts of each candidate, plus one for ranking every play (a hint
/// with no rollouts is not free).
pub fn hint_cost(rollouts: u32) -> u32 {
    rollouts.saturating_add(1)
}

/// The seed of a hint's rollouts in room `room` at `version`: the same
/// question in the same position gets the same answer.
pub fn hint_seed(room: &str, version: u64) -> u64 {
    version
        ^ room
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b))
}

impl Room {
    /// The bot seat that must act now, if any: in play, the bot on the
    /// move (or asked about the cube or an end proposal); before a game,
    /// a bot not yet Ready facing a seated person. The core's `botRequest`
    /// events name the same thing as it becomes due.
    pub fn bot_request(&self) -> Option<BotRequest> {
        match self.phase() {
            Phase::Finished => None,
            Phase::Playing if self.paused() => None,
            Phase::Playing => {
                let (seat, need) = self.game()?.to_act()?;
                Some(BotRequest {
                    seat,
                    level: self.bot_in(seat)?,
                    need,
                })
            }
            Phase::WaitingForPlayer => SeatId::BOTH.into_iter().find_map(|seat| {
                let level = self.bot_in(seat)?;
                let human = self.player_in(seat.other()).is_some();
                (human && !self.seat_view(seat).ready).then_some(BotRequest {
                    seat,
                    level,
                    need: BotNeed::Ready,
                })
            }),
        }
    }

    /// The turn `player` may get a hint on: his own turn of a dice game,
    /// after rolling, in a room with a bot.
    pub fn hint_turn(&self, player: &PlayerId) -> Result<PlayedTurn, HintRefusal> {
        if SeatId::BOTH.iter().all(|&s| self.bot_in(s).is_none()) {
            return Err(HintRefusal::NoBot);
        }
        let turn = self.game().and_then(Game::turn_in_progress);
        let seat = match &turn {
            Some(PlayedTurn::LongNardy { seat, .. })
            | Some(PlayedTurn::Backgammon { seat, .. }) => Some(*seat),
            _ => None,
        };
        match turn {
            Some(turn) if seat.is_some() && seat == self.seat_of(player) => Ok(turn),
            _ => Err(HintRefusal::NotYourTurn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Actor, Command, Event, GameKind, GameOptions, RoomConfig};

    fn bot_room(game: GameKind) -> Room {
        Room::new(RoomConfig {
            options: GameOptions {
                game,
                ..GameOptions::default()
            },
            bot: Some(2),
            master_seed: "policy".into(),
            ..RoomConfig::default()
        })
    }

    fn person() -> Actor {
        Actor::Player(PlayerId::new("p"))
    }

    /// Plays a bot room for a while, the person and the bot each doing the
    /// first thing they may, and checks at every step that every
    /// `botRequest` the core emits is what [`Room::bot_request`] says.
    #[test]
    fn bot_request_names_what_the_core_requests() {
        for game in [GameKind::LongNardy, GameKind::Backgammon, GameKind::Thud] {
            let mut room = bot_room(game);
            assert_eq!(room.bot_request(), None, "{game:?}: nobody to play against");
            let envs = room
                .apply(
                    Command::Sit {
                        seat: Some(SeatId::A),
                    },
                    person(),
                    1,
                )
                .unwrap();
            let mut requests = 0;
            let mut check = |room: &Room, envs: &[crate::Envelope]| {
                for e in envs {
                    if let Event::BotRequest { seat, level, need } = &*e.event {
                        requests += 1;
                        assert_eq!(
                            room.bot_request(),
                            Some(BotRequest {
                                seat: *seat,
                                level: *level,
                                need: *need
                            }),
                            "{game:?}"
                        );
                    }
                }
            };
            check(&room, &envs);
            assert_eq!(
                room.bot_request().map(|r| r.need),
                Some(BotNeed::Ready),
                "{game:?}"
            );
            for now in 2..400u64 {
                let (actor, cmd) = match room.bot_request() {
                    Some(r) => (
                        Actor::Bot(r.seat),
                        match r.need {
                            BotNeed::Ready => Command::Ready,
                            BotNeed::Roll => Command::RollDice,
                            BotNeed::CubeDecision => Command::Take,
                            BotNeed::EndProposal => Command::DeclineEnd,
                            BotNeed::Move => first_move(&room),
                        },
                    ),
                    None if room.phase() == Phase::WaitingForPlayer => (person(), Command::Ready),
                    None => match room.game().and_then(Game::to_act) {
                        Some((_, BotNeed::Roll)) => (person(), Command::RollDice),
                        Some((_, BotNeed::Move)) => (person(), first_move(&room)),
                        _ => break,
                    },
                };
                let Ok(envs) = room.apply(cmd, actor, now) else {
                    break;
                };
                check(&room, &envs);
            }
            assert!(requests > 3, "{game:?}: {requests} requests");
        }
    }

    fn first_move(room: &Room) -> Command {
        if let Some(m) = room.view().moves
            && let Some(step) = m.first_steps.first()
            && let Ok((from, to)) = crate::Spot::parse_step(step)
        {
            return Command::Move { from, to };
        }
        Command::ProposeEnd
    }

    #[test]
    fn hints_only_against_a_bot_on_ones_own_rolled_turn() {
        // Two people: never.
        let mut pvp = Room::new(RoomConfig::default());
        let b = Actor::Player(PlayerId::new("q"));
        pvp.apply(
            Command::Sit {
                seat: Some(SeatId::A),
            },
            person(),
            1,
        )
        .unwrap();
        pvp.apply(
            Command::Sit {
                seat: Some(SeatId::B),
            },
            b,
            1,
        )
        .unwrap();
        assert_eq!(pvp.hint_turn(&PlayerId::new("p")), Err(HintRefusal::NoBot));
        // Against a bot: not before the game, not before rolling.
        let mut room = bot_room(GameKind::LongNardy);
        let p = PlayerId::new("p");
        room.apply(
            Command::Sit {
                seat: Some(SeatId::A),
            },
            person(),
            1,
        )
        .unwrap();
        assert_eq!(room.hint_turn(&p), Err(HintRefusal::NotYourTurn));
        room.apply(Command::Ready, person(), 2).unwrap();
        room.apply(Command::Ready, Actor::Bot(SeatId::B), 3)
            .unwrap();
        // Play until the person is on the move after rolling.
        let mut now = 4;
        let mut saw_turn = false;
        while now < 200 {
            now += 1;
            let to_act = room.game().and_then(Game::to_act);
            let (actor, cmd) = match to_act {
                Some((SeatId::A, BotNeed::Move)) => {
                    assert!(room.hint_turn(&p).is_ok());
                    // Not for the spectator nor for the bot's seat.
                    assert_eq!(
                        room.hint_turn(&PlayerId::new("someone")),
                        Err(HintRefusal::NotYourTurn)
                    );
                    saw_turn = true;
                    break;
                }
                Some((SeatId::A, BotNeed::Roll)) => {
                    assert_eq!(room.hint_turn(&p), Err(HintRefusal::NotYourTurn));
                    (person(), Command::RollDice)
                }
                Some((SeatId::B, BotNeed::Move)) => {
                    assert_eq!(room.hint_turn(&p), Err(HintRefusal::NotYourTurn));
                    (Actor::Bot(SeatId::B), first_move(&room))
                }
                Some((SeatId::B, _)) => (Actor::Bot(SeatId::B), Command::RollDice),
                _ => break,
            };
            room.apply(cmd, actor, now).unwrap();
        }
        assert!(saw_turn);
    }

    #[test]
    fn hint_rollouts_over_the_maximum_are_refused_and_seeds_follow_the_position() {
        assert_eq!(hint_rollouts(None), Ok(16));
        assert_eq!(hint_rollouts(Some(0)), Ok(0));
        assert_eq!(hint_rollouts(Some(3)), Ok(3));
        assert_eq!(hint_rollouts(Some(64)), Ok(MAX_HINT_ROLLOUTS));
        for over in [65, 1000, u32::MAX] {
            assert_eq!(hint_rollouts(Some(over)), Err(HintRefusal::TooManyRollouts));
        }
        assert_eq!(hint_cost(0), 1);
        assert_eq!(hint_cost(64), 65);
        assert_eq!(hint_cost(u32::MAX), u32::MAX);
        assert_eq!(hint_seed("r1", 5), hint_seed("r1", 5));
        assert_ne!(hint_seed("r1", 5), hint_seed("r1", 6));
        assert_ne!(hint_seed("r1", 5), hint_seed("r2", 5));
        // The seed the node has always used (a hint must not change).
        let old = |id: &str, v: u64| {
            v ^ id
                .bytes()
                .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b))
        };
        assert_eq!(hint_seed("0123456789ab", 42), old("0123456789ab", 42));
    }
}
