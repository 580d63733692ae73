//! Test helpers: a room driven by a scripted clock.
#![allow(dead_code)]

use tabula_room::{
    Actor, BotNeed, Command, Envelope, Event, PlayerId, Room, RoomConfig, RoomError, SeatId, Spot,
};

pub fn alice() -> Actor {
    Actor::Player(PlayerId::new("alice"))
}

pub fn bob() -> Actor {
    Actor::Player(PlayerId::new("bob"))
}

pub fn actor(seat: SeatId) -> Actor {
    match seat {
        SeatId::A => alice(),
        SeatId::B => bob(),
    }
}

/// A room plus a scripted clock, and every event it emitted (the room's
/// own log keeps only the latest `EVENT_LOG_KEEP`).
pub struct Table {
    pub room: Room,
    pub now: u64,
    pub history: Vec<Envelope>,
}

impl Table {
    pub fn new(config: RoomConfig) -> Table {
        Table::of(Room::new(config), 1_000)
    }

    /// A table for a room that already exists (a restored one): its
    /// history starts with what the room's log holds.
    pub fn of(room: Room, now: u64) -> Table {
        let history = room.log().iter().cloned().collect();
        Table { room, now, history }
    }

    /// Alice in seat A, Bob in seat B, nobody ready.
    pub fn seated(config: RoomConfig) -> Table {
        let mut t = Table::new(config);
        t.ok(
            alice(),
            Command::Sit {
                seat: Some(SeatId::A),
            },
        );
        t.ok(
            bob(),
            Command::Sit {
                seat: Some(SeatId::B),
            },
        );
        t
    }

    /// Seated and both ready: the game has started.
    pub fn started(config: RoomConfig) -> Table {
        let mut t = Table::seated(config);
        t.ok(alice(), Command::Ready);
        t.ok(bob(), Command::Ready);
        t
    }

    pub fn try_cmd(&mut self, who: Actor, cmd: Command) -> Result<Vec<Envelope>, RoomError> {
        self.now += 100;
        let events = self.room.apply(cmd, who, self.now)?;
        self.history.extend_from_slice(&events);
        Ok(events)
    }

    pub fn ok(&mut self, who: Actor, cmd: Command) -> Vec<Event> {
        let c = format!("{cmd:?}");
        match self.try_cmd(who, cmd) {
            Ok(v) => v.into_iter().map(|e| (*e.event).clone()).collect(),
            Err(e) => panic!("{c} refused: {e}"),
        }
    }

    pub fn step(&mut self, seat: SeatId, notation: &str) -> Vec<Event> {
        let (from, to) = parse_step(notation);
        self.ok(actor(seat), Command::Move { from, to })
    }

    /// The latest `possibleMoves` in the log.
    pub fn possible(&self) -> (Vec<String>, Vec<String>, Vec<u8>) {
        self.room
            .log()
            .iter()
            .rev()
            .find_map(|e| match &*e.event {
                Event::PossibleMoves {
                    first_steps,
                    sequences,
                    dice_left,
                    ..
                } => Some((first_steps.clone(), sequences.clone(), dice_left.clone())),
                _ => None,
            })
            .expect("a possibleMoves event")
    }

    /// Plays automatically (roll, first legal step; Thud!: first legal
    /// move) until the game ends or `max` commands were sent.
    pub fn autoplay(&mut self, max: usize) {
        for _ in 0..max {
            let Some(game) = self.room.game() else { return };
            let Some((seat, need)) = game.to_act() else {
                return;
            };
            if game.result().is_some() {
                return;
            }
            match need {
                BotNeed::Roll => {
                    self.ok(actor(seat), Command::RollDice);
                }
                BotNeed::Move => {
                    if let Some(g) = game.thud_game() {
                        let mv = g.round().position().legal_moves()[0];
                        self.ok(
                            actor(seat),
                            Command::ThudMove {
                                notation: mv.to_string(),
                            },
                        );
                    } else {
                        let (first, ..) = self.possible();
                        self.step(seat, &first[0]);
                    }
                }
                _ => return,
            }
        }
    }
}

/// `24-18`, `5-off`, `bar/22*`, `6/off` → (from, to), through the room's
/// one step reader.
pub fn parse_step(s: &str) -> (Spot, Spot) {
    Spot::parse_step(s).expect("a step")
}

pub fn has(events: &[Event], pred: impl Fn(&Event) -> bool) -> bool {
    events.iter().any(pred)
}

pub fn arbiter_lines(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat {
                from: tabula_room::ChatAuthor::Arbiter,
                text,
                ..
            } => Some(text.clone()),
            _ => None,
        })
        .collect()
}
