//! The protocol's unit tests (the golden transcripts of whole turns are
//! the room host's: `crates/tabula-server/src/host/tests/golden.rs`).

use tabula_room::{Audience, Command, Envelope, Event, PlayerResult, ResultKind, SeatId, Spot};

use crate::*;

#[test]
fn client_frames_read_with_seq() {
    let f = parse_client(r#"{"type":"move","from":24,"to":"off","seq":3}"#).unwrap();
    assert_eq!(f.seq, Some(3));
    assert_eq!(
        f.msg,
        ClientMsg::Move {
            from: Spot::Point(24),
            to: Spot::Off
        }
    );
    let f = parse_client(r#"{"type":"rollDice"}"#).unwrap();
    assert_eq!((f.seq, f.msg), (None, ClientMsg::RollDice));
    let f = parse_client(r#"{"type":"join","room":"abc"}"#).unwrap();
    assert!(matches!(
        f.msg,
        ClientMsg::Join {
            spectate: false,
            seat: None,
            ..
        }
    ));
}

#[test]
fn every_client_type_is_listed() {
    for t in CLIENT_TYPES {
        let e = parse_client(&format!(r#"{{"type":"{t}"}}"#));
        if let Err(e) = e {
            assert_eq!(e.code, ErrorCode::BadMessage, "{t}");
        }
    }
}

#[test]
fn bad_frames_get_distinct_codes() {
    assert_eq!(parse_client("{nope").unwrap_err().code, ErrorCode::BadJson);
    let e = parse_client(r#"{"type":"fly","seq":9}"#).unwrap_err();
    assert_eq!((e.code, e.seq), (ErrorCode::UnknownType, Some(9)));
    assert_eq!(
        parse_client(r#"{"type":"move","from":"x"}"#)
            .unwrap_err()
            .code,
        ErrorCode::BadMessage
    );
    assert_eq!(parse_client("[1]").unwrap_err().code, ErrorCode::BadMessage);
}

#[test]
fn error_codes_serialize_as_their_names() {
    for c in [
        ErrorCode::BadJson,
        ErrorCode::NotYourTurn,
        ErrorCode::FrameTooLarge,
    ] {
        assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
    }
}

#[test]
fn events_map_to_messages_by_audience() {
    let env = Envelope {
        version: 5,
        to: Audience::Seat(SeatId::A),
        event: Event::GameOver {
            result: PlayerResult::Win,
            points: 2,
            kind: ResultKind::Mars,
            message: "WIN 2 pt.".into(),
            narration: None,
        }
        .into(),
    };
    assert!(to_wire(&env, Viewer::Seat(SeatId::B), None).is_none());
    let m = to_wire(&env, Viewer::Seat(SeatId::A), Some(4)).unwrap();
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(v["type"], "game_over");
    assert_eq!(v["version"], 5);
    assert_eq!(v["kind"], "mars");
    let env = Envelope {
        version: 6,
        to: Audience::All,
        event: Event::DiceRolled {
            seat: SeatId::A,
            dice: [3, 5],
            roll_index: 2,
        }
        .into(),
    };
    let v = serde_json::to_value(to_wire(&env, Viewer::Spectator, Some(1)).unwrap()).unwrap();
    assert_eq!(v["type"], "event");
    assert_eq!(v["seq"], 1);
    assert_eq!(v["event"]["type"], "diceRolled");
    let host = Envelope {
        version: 7,
        to: Audience::Host,
        event: Event::BotRequest {
            seat: SeatId::B,
            level: 1,
            need: tabula_room::BotNeed::Roll,
        }
        .into(),
    };
    assert!(to_wire(&host, Viewer::Seat(SeatId::B), None).is_none());
}

/// Every room command has exactly one wire form, and it reads back as the
/// same command; the node's own commands have none. (The match lists every
/// command, so a new one does not build until it is placed here.)
#[test]
fn every_room_command_has_one_wire_form_and_back() {
    let commands = [
        Command::Sit { seat: None },
        Command::Spectate,
        Command::StandUp,
        Command::Leave,
        Command::Ready,
        Command::SetClientSeed { seed: "s".into() },
        Command::RollDice,
        Command::Move {
            from: Spot::Bar,
            to: Spot::Point(20),
        },
        Command::ThudMove {
            notation: "Da6-b6".into(),
        },
        Command::Turn {
            steps: vec![(Spot::Bar, Spot::Point(22)), (Spot::Point(6), Spot::Off)],
        },
        Command::Resign,
        Command::Double,
        Command::Take,
        Command::Drop,
        Command::ProposeEnd,
        Command::AcceptEnd,
        Command::DeclineEnd,
        Command::Chat { text: "hi".into() },
        Command::Rematch,
        Command::DeclineRematch,
        Command::Takeback,
        Command::AcceptTakeback,
        Command::DeclineTakeback,
        Command::Connected,
        Command::Disconnected,
    ];
    let mut kinds = std::collections::BTreeSet::new();
    for c in &commands {
        let node_made = match c {
            Command::Sit { .. }
            | Command::Spectate
            | Command::Connected
            | Command::Disconnected => true,
            Command::StandUp
            | Command::Leave
            | Command::Ready
            | Command::SetClientSeed { .. }
            | Command::RollDice
            | Command::Move { .. }
            | Command::ThudMove { .. }
            | Command::Turn { .. }
            | Command::Resign
            | Command::Double
            | Command::Take
            | Command::Drop
            | Command::ProposeEnd
            | Command::AcceptEnd
            | Command::DeclineEnd
            | Command::Chat { .. }
            | Command::Rematch
            | Command::DeclineRematch
            | Command::Takeback
            | Command::AcceptTakeback
            | Command::DeclineTakeback => false,
            _ => panic!("a room command the protocol does not place: {c:?}"),
        };
        let wire = ClientMsg::of_command(c);
        if node_made {
            assert_eq!(wire, None, "{c:?} is the node's own");
            continue;
        }
        let wire = wire.unwrap_or_else(|| panic!("{c:?} has no wire form"));
        assert_eq!(wire.to_command().as_ref(), Some(c), "{c:?} reads back");
        // Through JSON too, as a client would send it.
        let text = serde_json::to_string(&ClientFrame {
            seq: Some(1),
            msg: wire.clone(),
        })
        .unwrap();
        let back = parse_client(&text).unwrap();
        assert_eq!(back.msg, wire, "{text}");
        assert!(
            kinds.insert(wire.kind()),
            "two commands share {}",
            wire.kind()
        );
        assert!(
            CLIENT_TYPES.contains(&wire.kind()),
            "{} not listed",
            wire.kind()
        );
    }
    // And the other way: every client type that is a command is one above.
    for t in CLIENT_TYPES {
        if !["join", "resume", "ping", "hint", "preview"].contains(t) {
            assert!(kinds.contains(t), "{t} maps to no command");
        }
    }
}

#[test]
fn node_messages_read_back_by_direction() {
    let to_owner = ToOwner::Cmd {
        room: "r".into(),
        from: "n1".into(),
        conn: 7,
        frame: Some(parse_client(r#"{"type":"rollDice","seq":3}"#).unwrap()),
        text: None,
    };
    let text = NodeMsg::from(to_owner.clone()).encode().unwrap();
    assert_eq!(
        text,
        r#"{"t":"cmd","room":"r","from":"n1","conn":7,"frame":{"seq":3,"type":"rollDice"}}"#
    );
    assert_eq!(NodeMsg::decode(&text).unwrap(), NodeMsg::ToOwner(to_owner));
    let to_front = ToFront::Reroute {
        from: "n2".into(),
        conn: 7,
    };
    let text = NodeMsg::from(to_front.clone()).encode().unwrap();
    assert_eq!(text, r#"{"t":"reroute","from":"n2","conn":7}"#);
    assert_eq!(NodeMsg::decode(&text).unwrap(), NodeMsg::ToFront(to_front));
    // What a node of an earlier release sends: the frame as text, no
    // sender on owner messages.
    let old = r#"{"t":"cmd","room":"r","from":"n1","conn":7,"text":"{\"type\":\"ready\"}"}"#;
    assert!(matches!(
        NodeMsg::decode(old).unwrap(),
        NodeMsg::ToOwner(ToOwner::Cmd {
            frame: None,
            text: Some(_),
            ..
        })
    ));
    let old = r#"{"t":"unjoined","conn":7}"#;
    assert!(matches!(
        NodeMsg::decode(old).unwrap(),
        NodeMsg::ToFront(ToFront::Unjoined { conn: 7, .. })
    ));
    assert!(NodeMsg::decode(r#"{"t":"fly"}"#).is_err());
}

#[test]
fn a_single_out_message_keeps_its_old_wire_form_and_a_batch_round_trips() {
    let one = NodeMsg::from(ToFront::Out {
        from: String::new(),
        conn: 7,
        n: 3,
        seq: Some(2),
        version: Some(9),
        text: "{}".into(),
        more: Vec::new(),
    });
    let text = one.encode().unwrap();
    assert!(!text.contains("more"), "{text}");
    // What a node without batches sends reads as a batch of one.
    let old = r#"{"t":"out","conn":7,"n":3,"seq":2,"version":9,"text":"{}"}"#;
    let NodeMsg::ToFront(ToFront::Out { n, more, .. }) = NodeMsg::decode(old).unwrap() else {
        panic!("not an out message");
    };
    assert_eq!((n, more.len()), (3, 0));

    let batch = NodeMsg::from(ToFront::Out {
        from: "n3".into(),
        conn: 7,
        n: 4,
        seq: Some(3),
        version: Some(10),
        text: "a".into(),
        more: vec![OutItem {
            seq: None,
            version: Some(11),
            text: "b".into(),
        }],
    });
    let back = NodeMsg::decode(&batch.encode().unwrap()).unwrap();
    assert_eq!(back, batch);
}

/// A tag must be the type's name: serde alone would read a number as the
/// index of a variant.
#[test]
fn a_numeric_type_is_refused() {
    for text in [
        r#"{"type":17}"#,
        r#"{"type": 0, "seq": 4}"#,
        r#"{"seq":1,"type" :3}"#,
        r#"{"type":true}"#,
        r#"{"type":null}"#,
    ] {
        let e = parse_client(text).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadMessage, "{text}");
    }
    // A string that merely contains or equals "type" is no key.
    let f = parse_client(r#"{"type":"chat","text":"type"}"#).unwrap();
    assert_eq!(
        f.msg,
        ClientMsg::Chat {
            text: "type".into()
        }
    );
    let f = parse_client(r#"{"text":"\"type\": 5","type":"chat"}"#).unwrap();
    assert_eq!(
        f.msg,
        ClientMsg::Chat {
            text: "\"type\": 5".into()
        }
    );
    assert!(parse_client(r#"{ "type" : "rollDice" }"#).is_ok());
}

#[test]
fn a_preview_reads_as_a_turn_does_and_its_answer_spells_the_steps() {
    let steps = |text: &str| match parse_client(text).map(|f| f.msg) {
        Ok(ClientMsg::Preview { play }) => Ok(play),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err(e.code),
    };
    let p = |n| Spot::Point(n);
    assert_eq!(
        steps(r#"{"type":"preview","play":"13/7 8/7*"}"#),
        Ok(vec![(p(13), p(7)), (p(8), p(7))])
    );
    assert_eq!(
        steps(r#"{"type":"preview","play":""}"#),
        Err(ErrorCode::BadMessage)
    );
    assert_eq!(
        steps(r#"{"type":"preview","play":"1-2,2-3,3-4,4-5,5-6"}"#),
        Err(ErrorCode::BadMessage)
    );
    assert_eq!(ClientMsg::Preview { play: vec![] }.to_command(), None);
    let answer = ServerMsg::Preview {
        seq: Some(3),
        play: vec![(p(13), p(7)), (Spot::Bar, p(22))],
        complete: false,
        dice_left: vec![6],
        first_steps: vec!["24/18".into()],
        sequences: vec!["24/18".into()],
    };
    assert_eq!(
        serde_json::to_value(&answer).unwrap(),
        serde_json::json!({"type": "preview", "seq": 3, "play": "13-7,bar-22", "complete": false,
            "diceLeft": [6], "firstSteps": ["24/18"], "sequences": ["24/18"]})
    );
    assert_eq!(answer.seq(), Some(3));
    assert_eq!(answer.version(), None);
}

#[test]
fn a_whole_turn_reads_either_notation_and_refuses_bad_plays() {
    let steps = |text: &str| match parse_client(text).map(|f| f.msg) {
        Ok(ClientMsg::Turn { play }) => Ok(play),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err(e.code),
    };
    let p = |n| Spot::Point(n);
    assert_eq!(
        steps(r#"{"type":"turn","play":"24-18,18-13"}"#),
        Ok(vec![(p(24), p(18)), (p(18), p(13))])
    );
    assert_eq!(
        steps(r#"{"type":"turn","play":"bar/22* 6/off"}"#),
        Ok(vec![(Spot::Bar, p(22)), (p(6), Spot::Off)])
    );
    assert_eq!(
        steps(r#"{"type":"turn","play":"13/8(2) 6/1*(2)"}"#),
        Ok(vec![
            (p(13), p(8)),
            (p(13), p(8)),
            (p(6), p(1)),
            (p(6), p(1))
        ])
    );
    for bad in [
        r#"{"type":"turn","play":"8/5(0)"}"#,
        r#"{"type":"turn","play":"8/5(5)"}"#,
        r#"{"type":"turn","play":"8/5(2) 6/1(2) 4/3"}"#,
        r#"{"type":"turn","play":""}"#,
        r#"{"type":"turn","play":"24"}"#,
        r#"{"type":"turn","play":"24-x"}"#,
        r#"{"type":"turn","play":"1-2,2-3,3-4,4-5,5-6"}"#,
        r#"{"type":"turn","play":7}"#,
        r#"{"type":"turn"}"#,
    ] {
        assert_eq!(steps(bad), Err(ErrorCode::BadMessage), "{bad}");
    }
}

/// The arbiter's lines, `game_over` and `opponent_left` carry `key` and
/// `params` beside their Russian text (a client renders them in its
/// player's language); a player's chat line has neither, as before.
#[test]
fn narration_goes_on_the_wire_as_a_key_with_params() {
    use tabula_room::{ChatAuthor, Narration, PlayerId};
    let env = |version, to, event: Event| Envelope {
        version,
        to,
        event: event.into(),
    };
    let auto_pass = env(
        9,
        Audience::All,
        Event::Chat {
            from: ChatAuthor::Arbiter,
            text: "Чёрные: выпало 6:6, допустимых ходов нет — ход пропускается автоматически."
                .into(),
            narration: Some(Narration::AutoPass {
                seat: SeatId::B,
                dice: [6, 6],
            }),
        },
    );
    let text = to_wire(&auto_pass, Viewer::Spectator, None)
        .unwrap()
        .to_json();
    assert_eq!(
        text,
        r#"{"type":"chat","version":9,"from":{"kind":"arbiter"},"text":"Чёрные: выпало 6:6, допустимых ходов нет — ход пропускается автоматически.","key":"autoPass","params":{"seat":"b","dice":[6,6]}}"#
    );
    // The one-serialisation path writes the same bytes.
    let rendered = EventText::new(&auto_pass)
        .render(Viewer::Spectator, None)
        .unwrap();
    assert_eq!(rendered.text, text);
    // And it reads back.
    let back: ServerMsg = serde_json::from_str(&text).unwrap();
    assert_eq!(Some(back), to_wire(&auto_pass, Viewer::Spectator, None));

    let over = env(
        12,
        Audience::Seat(SeatId::A),
        Event::GameOver {
            result: PlayerResult::Win,
            points: 2,
            kind: ResultKind::Mars,
            message: "WIN 200 TON.".into(),
            narration: Some(Narration::GameWon {
                points: 2,
                amount: Some(200),
                currency: Some("TON".into()),
            }),
        },
    );
    let m = to_wire(&over, Viewer::Seat(SeatId::A), Some(4)).unwrap();
    assert_eq!(
        m.to_json(),
        r#"{"type":"game_over","version":12,"seq":4,"result":"win","points":2,"kind":"mars","message":"WIN 200 TON.","key":"gameWon","params":{"points":2,"amount":200,"currency":"TON"}}"#
    );
    assert_eq!(serde_json::from_str::<ServerMsg>(&m.to_json()).unwrap(), m);

    let left = env(
        11,
        Audience::Seat(SeatId::A),
        Event::OpponentLeft {
            message: "Соперник покинул игру.".into(),
            narration: Some(Narration::OpponentLeft { seat: SeatId::B }),
        },
    );
    assert_eq!(
        to_wire(&left, Viewer::Seat(SeatId::A), None)
            .unwrap()
            .to_json(),
        r#"{"type":"opponent_left","version":11,"message":"Соперник покинул игру.","key":"opponentLeft","params":{"seat":"b"}}"#
    );

    let player = env(
        13,
        Audience::All,
        Event::Chat {
            from: ChatAuthor::Player(PlayerId::new("bob")),
            text: "gg".into(),
            narration: None,
        },
    );
    assert_eq!(
        to_wire(&player, Viewer::Seat(SeatId::B), Some(3))
            .unwrap()
            .to_json(),
        r#"{"type":"chat","version":13,"seq":3,"from":{"kind":"player","id":"bob"},"text":"gg"}"#
    );
    // A message from a node that wrote no key reads as before.
    let old: ServerMsg = serde_json::from_str(
        r#"{"type":"game_over","version":12,"result":"lose","points":1,"kind":"oin","message":"LOST 1 pt."}"#,
    )
    .unwrap();
    assert!(matches!(
        old,
        ServerMsg::GameOver {
            narration: None,
            ..
        }
    ));
}

/// `rematch` and `declineRematch` are client commands without fields.
#[test]
fn rematch_commands_read() {
    let f = parse_client(r#"{"type":"rematch","seq":40}"#).unwrap();
    assert_eq!(
        (f.seq, f.msg.to_command()),
        (Some(40), Some(Command::Rematch))
    );
    let f = parse_client(r#"{"type":"declineRematch"}"#).unwrap();
    assert_eq!(f.msg.to_command(), Some(Command::DeclineRematch));
    for code in [
        ErrorCode::MatchNotFinished,
        ErrorCode::RematchWithBot,
        ErrorCode::NoOpponent,
        ErrorCode::RematchAlreadyOffered,
        ErrorCode::NoRematchOffered,
    ] {
        assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
    }
    assert_eq!(
        room_error_code(&tabula_room::RoomError::RematchWithBot),
        ErrorCode::RematchWithBot
    );
}
