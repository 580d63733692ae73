//! `EventText` writes exactly what `to_wire` + `to_json` write, for every
//! event of whole games of each kind, every viewer, with and without `seq`.

use tabula_protocol::{EventText, Viewer, to_wire};
use tabula_room::{
    Actor, BotNeed, Command, Envelope, Event, GameKind, GameOptions, PlayerId, Room, RoomConfig,
    SeatId, Spot,
};

fn actor(seat: SeatId) -> Actor {
    Actor::Player(PlayerId::new(match seat {
        SeatId::A => "alice",
        SeatId::B => "bob",
    }))
}

fn step(s: &str) -> (Spot, Spot) {
    Spot::parse_step(s).expect("a step")
}

/// Seats, a spectator, chat, ready, then the first legal play until the
/// game ends: the room and every event it emitted (its log keeps only the
/// latest).
fn played(game: GameKind) -> (Room, Vec<Envelope>) {
    let mut room = Room::new(RoomConfig {
        options: GameOptions {
            game,
            ..GameOptions::default()
        },
        master_seed: "event-text".into(),
        ..RoomConfig::default()
    });
    let mut now = 1_000;
    let mut history = Vec::new();
    let mut apply = |room: &mut Room, who: Actor, c: Command| {
        now += 100;
        history.extend(room.apply(c, who, now).expect("accepted"));
    };
    for seat in [SeatId::A, SeatId::B] {
        apply(&mut room, actor(seat), Command::Sit { seat: Some(seat) });
    }
    apply(
        &mut room,
        Actor::Player(PlayerId::new("carol")),
        Command::Spectate,
    );
    apply(
        &mut room,
        actor(SeatId::A),
        Command::Chat {
            text: "привет \"всем\"\n".into(),
        },
    );
    apply(&mut room, actor(SeatId::A), Command::Ready);
    apply(&mut room, actor(SeatId::B), Command::Ready);
    for _ in 0..5_000 {
        let Some(g) = room.game() else { break };
        if g.result().is_some() {
            break;
        }
        let Some((seat, need)) = g.to_act() else {
            break;
        };
        let c = match need {
            BotNeed::Roll => Command::RollDice,
            BotNeed::Move => {
                if let Some(t) = g.thud_game() {
                    Command::ThudMove {
                        notation: t.round().position().legal_moves()[0].to_string(),
                    }
                } else {
                    let first = room
                        .log()
                        .iter()
                        .rev()
                        .find_map(|e| match &*e.event {
                            Event::PossibleMoves { first_steps, .. } => {
                                Some(first_steps[0].clone())
                            }
                            _ => None,
                        })
                        .expect("possibleMoves");
                    let (from, to) = step(&first);
                    Command::Move { from, to }
                }
            }
            _ => Command::Resign,
        };
        apply(&mut room, actor(seat), c);
    }
    if room.game().is_some_and(|g| g.result().is_none()) {
        let seat = room
            .game()
            .and_then(|g| g.to_act())
            .map_or(SeatId::A, |s| s.0);
        apply(&mut room, actor(seat), Command::Resign);
    }
    (room, history)
}

#[test]
fn event_text_is_to_wire_to_json_for_every_event_and_viewer() {
    for game in [GameKind::LongNardy, GameKind::Backgammon, GameKind::Thud] {
        let (_, log) = played(game);
        assert!(
            log.len() > 50,
            "{game:?}: a whole game ({} events)",
            log.len()
        );
        assert!(
            log.iter()
                .any(|e| matches!(*e.event, Event::GameOver { .. })),
            "{game:?} ended"
        );
        let mut rendered = 0;
        for env in &log {
            let mut text = EventText::new(env);
            for viewer in [
                Viewer::Seat(SeatId::A),
                Viewer::Seat(SeatId::B),
                Viewer::Spectator,
            ] {
                for seq in [None, Some(7), Some(u64::MAX)] {
                    let want = to_wire(env, viewer, seq);
                    let got = text.render(viewer, seq);
                    let at = format!("{game:?} v{} {viewer:?} {seq:?}", env.version);
                    assert_eq!(
                        got.as_ref().map(|r| &r.text),
                        want.as_ref().map(|m| m.to_json()).as_ref(),
                        "{at}"
                    );
                    if let (Some(got), Some(want)) = (got, want) {
                        assert_eq!(got.version, env.version, "{at}");
                        let echoed = serde_json::to_value(&want).unwrap()["seq"].as_u64();
                        assert_eq!(got.seq, echoed, "{at}");
                        rendered += 1;
                    }
                }
            }
        }
        assert!(rendered > log.len(), "{game:?}: most events are seen");
    }
}
