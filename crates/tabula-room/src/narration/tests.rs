use super::*;

#[test]
fn russian_points_plural() {
    assert_eq!(points_ru(1), "1 очко");
    assert_eq!(points_ru(2), "2 очка");
    assert_eq!(points_ru(5), "5 очков");
    assert_eq!(points_ru(11), "11 очков");
    assert_eq!(points_ru(21), "21 очко");
}

fn result(winner: Option<SeatId>, kind: ResultKind, reason: EndReason) -> GameResult {
    GameResult {
        winner,
        kind,
        reason,
        base_points: 2,
        cube: 2,
        points: 4,
        thud_totals: None,
    }
}

/// The arbiter's lines for `fact`: each Russian text with its key and
/// params as they go on the wire.
fn said(fact: Fact<'_>) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    arbiter(&mut out, fact);
    out.into_iter()
        .map(|(to, e)| {
            assert_eq!(to, Audience::All);
            match e {
                Event::Chat {
                    from: ChatAuthor::Arbiter,
                    text,
                    narration: Some(n),
                } => (text, serde_json::to_value(n).expect("serialises")),
                other => panic!("not an arbiter line with a key: {other:?}"),
            }
        })
        .collect()
}

fn lines(fact: Fact<'_>) -> Vec<String> {
    said(fact).into_iter().map(|(text, _)| text).collect()
}

fn keys(fact: Fact<'_>) -> Vec<serde_json::Value> {
    said(fact).into_iter().map(|(_, key)| key).collect()
}

#[test]
fn game_over_says_how_then_the_kind_of_win() {
    let r = result(Some(SeatId::A), ResultKind::Mars, EndReason::Resigned);
    assert_eq!(
        lines(Fact::GameOver {
            seats: Seats::Colours,
            result: &r
        }),
        ["Чёрные сдаются.", "Победа: марс (4 очка)"]
    );
    let r = result(Some(SeatId::B), ResultKind::Oin, EndReason::BorneOff);
    assert_eq!(
        lines(Fact::GameOver {
            seats: Seats::Colours,
            result: &r
        }),
        ["Победа: оин (4 очка)"]
    );
    let mut r = result(
        Some(SeatId::B),
        ResultKind::ThudTotals,
        EndReason::RoundsOver,
    );
    r.thud_totals = Some([10, 12]);
    assert_eq!(
        lines(Fact::GameOver {
            seats: Seats::Order,
            result: &r
        }),
        ["Победа: второй игрок (10 : 12)."]
    );
}

#[test]
fn each_way_a_game_ends_has_its_key_naming_the_loser() {
    for (reason, key, text) in [
        (EndReason::Resigned, "resigned", "Белые сдаются."),
        (
            EndReason::StoodUp,
            "stoodUp",
            "Белые встали из-за стола — это поражение.",
        ),
        (
            EndReason::Disconnected,
            "disconnected",
            "Белые покинули игру и не вернулись вовремя — это поражение.",
        ),
        (
            EndReason::Dropped,
            "dropped",
            "Белые отказались от удвоения.",
        ),
        (
            EndReason::Timeout,
            "timeout",
            "Белые: время вышло — это поражение.",
        ),
    ] {
        let r = result(Some(SeatId::B), ResultKind::Mars, reason);
        let fact = Fact::GameOver {
            seats: Seats::Colours,
            result: &r,
        };
        assert_eq!(
            said(fact),
            [
                (
                    text.to_string(),
                    serde_json::json!({"key": key, "params": {"seat": "a"}})
                ),
                (
                    "Победа: марс (4 очка)".to_string(),
                    serde_json::json!({"key": "win", "params": {"seat": "b", "kind": "mars", "points": 4}})
                ),
            ]
        );
    }
    // A game played out says only the kind of win.
    let r = result(Some(SeatId::A), ResultKind::Gammon, EndReason::BorneOff);
    assert_eq!(
        keys(Fact::GameOver {
            seats: Seats::Colours,
            result: &r
        }),
        [serde_json::json!({"key": "win", "params": {"seat": "a", "kind": "gammon", "points": 4}})]
    );
    // A dropped double: the kind is `drop`.
    let mut r = result(Some(SeatId::A), ResultKind::Drop, EndReason::Dropped);
    r.points = 2;
    assert_eq!(
        keys(Fact::GameOver {
            seats: Seats::Colours,
            result: &r
        }),
        [
            serde_json::json!({"key": "dropped", "params": {"seat": "b"}}),
            serde_json::json!({"key": "win", "params": {"seat": "a", "kind": "drop", "points": 2}}),
        ]
    );
}

#[test]
fn thud_results_have_their_keys_with_the_totals() {
    let mut r = result(
        Some(SeatId::B),
        ResultKind::ThudTotals,
        EndReason::RoundsOver,
    );
    r.thud_totals = Some([10, 12]);
    assert_eq!(
        keys(Fact::GameOver {
            seats: Seats::Order,
            result: &r
        }),
        [serde_json::json!({"key": "thudWin", "params": {"seat": "b", "totals": [10, 12]}})]
    );
    let mut r = result(None, ResultKind::Draw, EndReason::RoundsOver);
    r.thud_totals = Some([11, 11]);
    assert_eq!(
        said(Fact::GameOver {
            seats: Seats::Order,
            result: &r
        }),
        [(
            "Ничья: 11 : 11.".to_string(),
            serde_json::json!({"key": "draw", "params": {"totals": [11, 11]}})
        )]
    );
}

#[test]
fn auto_pass_and_round_lines() {
    assert_eq!(
        said(Fact::AutoPass {
            seats: Seats::Colours,
            seat: SeatId::B,
            dice: [6, 6]
        }),
        [(
            "Чёрные: выпало 6:6, допустимых ходов нет — ход пропускается автоматически."
                .to_string(),
            serde_json::json!({"key": "autoPass", "params": {"seat": "b", "dice": [6, 6]}})
        )]
    );
    assert_eq!(
        said(Fact::RoundOver {
            seats: Seats::Order,
            round: 1,
            points: [1, 21]
        }),
        [(
            "Раунд 1 окончен: Первый игрок — 1 очко, Второй игрок — 21 очко.".to_string(),
            serde_json::json!({"key": "roundOver", "params": {"round": 1, "points": [1, 21]}})
        )]
    );
}

#[test]
fn a_bot_taking_a_seat_names_the_seat_and_level() {
    assert_eq!(
        said(Fact::BotTookSeat {
            seat: SeatId::A,
            level: 2
        }),
        [(
            "Игрок покинул игру; его место занял компьютер.".to_string(),
            serde_json::json!({"key": "botTookSeat", "params": {"seat": "a", "level": 2}})
        )]
    );
}

#[test]
fn opponent_left_names_the_leaver() {
    let e = opponent_left(SeatId::B);
    assert_eq!(
        serde_json::to_value(&e).expect("serialises"),
        serde_json::json!({"type": "opponentLeft", "message": "Соперник покинул игру.",
            "key": "opponentLeft", "params": {"seat": "b"}})
    );
}

/// `gameOver`'s message and its key and params.
fn over(result: PlayerResult, points: u32, stake: Option<&Stake>) -> (String, serde_json::Value) {
    match game_over(result, points, ResultKind::Mars, stake) {
        Event::GameOver {
            message,
            narration: Some(n),
            ..
        } => (message, serde_json::to_value(n).expect("serialises")),
        other => panic!("not a gameOver with a key: {other:?}"),
    }
}

#[test]
fn game_over_messages() {
    let ton = Stake {
        amount: 100,
        currency: "TON".into(),
    };
    assert_eq!(
        over(PlayerResult::Win, 2, Some(&ton)),
        (
            "WIN 200 TON.".to_string(),
            serde_json::json!({"key": "gameWon", "params": {"points": 2, "amount": 200, "currency": "TON"}})
        )
    );
    assert_eq!(
        over(PlayerResult::Lose, 3, None),
        (
            "LOST 3 pt.".to_string(),
            serde_json::json!({"key": "gameLost", "params": {"points": 3}})
        )
    );
    // A stake that would overflow (refused at the edge) never wraps.
    let huge = Stake {
        amount: 1 << 63,
        currency: "TON".into(),
    };
    assert_eq!(
        over(PlayerResult::Lose, 2, Some(&huge)),
        (
            "LOST 2 pt.".to_string(),
            serde_json::json!({"key": "gameLost", "params": {"points": 2}})
        )
    );
    assert_eq!(
        over(PlayerResult::Draw, 0, None),
        (
            "DRAW.".to_string(),
            serde_json::json!({"key": "gameDrawn", "params": {}})
        )
    );
}

#[test]
fn lines_without_a_key_still_read_and_unknown_keys_are_dropped() {
    // A chat line as states wrote it before keys existed.
    let old: crate::view::ChatLine = serde_json::from_value(serde_json::json!(
        {"version": 7, "from": {"kind": "arbiter"}, "text": "Белые сдаются."}
    ))
    .expect("an old line reads");
    assert_eq!(old.narration, None);
    assert_eq!(old.text, "Белые сдаются.");
    let keyed: crate::view::ChatLine = serde_json::from_value(serde_json::json!(
        {"version": 7, "from": {"kind": "arbiter"}, "text": "Белые сдаются.",
         "key": "resigned", "params": {"seat": "a"}}
    ))
    .expect("a keyed line reads");
    assert_eq!(
        keyed.narration,
        Some(Narration::Resigned { seat: SeatId::A })
    );
    // It writes back as it was read.
    assert_eq!(
        serde_json::to_value(&keyed).expect("serialises"),
        serde_json::json!({"version": 7, "from": {"kind": "arbiter"}, "text": "Белые сдаются.",
            "key": "resigned", "params": {"seat": "a"}})
    );
    // A key from a later release is not an error: the text is kept.
    let later: crate::view::ChatLine = serde_json::from_value(serde_json::json!(
        {"version": 7, "from": {"kind": "arbiter"}, "text": "…",
         "key": "somethingNew", "params": {"x": 1}}
    ))
    .expect("an unknown key reads");
    assert_eq!(later.narration, None);
    // A player's line has no key on the wire.
    let e = Event::Chat {
        from: ChatAuthor::Player(crate::types::PlayerId::new("guest:bob")),
        text: "gg".into(),
        narration: None,
    };
    assert_eq!(
        serde_json::to_value(&e).expect("serialises"),
        serde_json::json!({"type": "chat", "from": {"kind": "player", "id": "guest:bob"}, "text": "gg"})
    );
}
