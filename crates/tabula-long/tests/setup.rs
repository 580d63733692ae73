//! The JSON form, setup validation, variant options and the opening.

mod common;

use common::make_setup;
use tabula_dice::{Dice, DiceSource, ScriptedDice};
use tabula_long::{
    Color, Opening, Position, PrimeRule, Scoring, Setup, SetupError, Variant, VariantError,
    decide_opening,
};

fn parse(json: &str) -> Result<Position, SetupError> {
    let s: Setup = serde_json::from_str(json).expect("well-formed JSON");
    Position::try_from(s)
}

#[test]
fn the_documented_json_form_parses() {
    // Given the CLI contract's example,
    let p = parse(
        r#"{"turn":"white","white":{"24":14,"19":1},"black":{"12":15},"off":{"white":0,"black":0},"first_turn":false}"#,
    )
    .unwrap();
    // Then it reads in seed-000 numbering.
    assert_eq!(p.turn(), Color::White);
    assert_eq!(p.checkers(Color::White, 24), 14);
    assert_eq!(p.checkers(Color::White, 19), 1);
    assert_eq!(p.checkers(Color::Black, 12), 15);
    assert!(!p.is_first_turn(Color::White));
    // And `off` and `first_turn` may be left out.
    let q = parse(r#"{"turn":"white","white":{"24":14,"19":1},"black":{"12":15}}"#).unwrap();
    assert_eq!(p, q);
}

#[test]
fn json_round_trips() {
    let p = Position::initial();
    let text = serde_json::to_string(&p.to_setup()).unwrap();
    assert_eq!(
        text,
        r#"{"turn":"white","white":{"24":15},"black":{"12":15},"off":{"white":0,"black":0},"first_turn":true}"#
    );
    assert_eq!(parse(&text).unwrap(), p);
    for f in p.legal_moves(Dice::new(6, 5).unwrap()) {
        let t = serde_json::to_string(&f.to_setup()).unwrap();
        assert_eq!(parse(&t).unwrap(), f);
    }
}

#[test]
fn setup_errors_are_typed() {
    let w = Color::White;
    let cases: Vec<(Setup, SetupError)> = vec![
        (
            make_setup(w, &[(24, 16)], &[(12, 15)], false),
            SetupError::CheckerCount {
                color: w,
                total: 15,
            },
        ),
        (
            make_setup(w, &[(24, 14), (12, 1)], &[(12, 15)], false),
            SetupError::PointHeldByBoth { point: 12 },
        ),
        (
            make_setup(w, &[(25, 15)], &[(12, 15)], false),
            SetupError::UnknownPoint {
                color: w,
                name: "25".into(),
            },
        ),
        (
            make_setup(w, &[(24, 16), (20, -1)], &[(12, 15)], false),
            SetupError::NegativeCount {
                color: w,
                point: 20,
                count: -1,
            },
        ),
        (
            make_setup(w, &[(24, 14), (19, 1)], &[(12, 15)], true),
            SetupError::FirstTurnNotOnHead { color: w },
        ),
    ];
    for (mut s, want) in cases {
        if let SetupError::CheckerCount { .. } = want {
            // make_setup fills off with 15 - board (here -1): fix it to 0 so
            // the count itself is what is wrong.
            s.off.white = 0;
            let got = Position::try_from(&s).unwrap_err();
            assert_eq!(
                got,
                SetupError::CheckerCount {
                    color: w,
                    total: 16
                }
            );
            assert!(got.to_string().contains("16 checkers"));
            continue;
        }
        if let SetupError::NegativeCount { .. } = want {
            s.off.white = 0;
        }
        assert_eq!(Position::try_from(&s).unwrap_err(), want);
    }
    // A name that is not a number.
    let e = parse(r#"{"turn":"white","white":{"x":15},"black":{"12":15}}"#).unwrap_err();
    assert!(matches!(e, SetupError::UnknownPoint { .. }));
    // Off counts out of range.
    let e =
        parse(r#"{"turn":"white","white":{},"black":{"12":15},"off":{"white":16}}"#).unwrap_err();
    assert_eq!(e, SetupError::OffOutOfRange { color: w, off: 16 });
    let e = parse(r#"{"turn":"white","white":{"24":15},"black":{"12":15},"off":{"black":-1}}"#)
        .unwrap_err();
    assert_eq!(
        e,
        SetupError::OffOutOfRange {
            color: Color::Black,
            off: -1
        }
    );
    // Both sides finished.
    let e = parse(r#"{"turn":"white","white":{},"black":{},"off":{"white":15,"black":15}}"#)
        .unwrap_err();
    assert_eq!(e, SetupError::BothBorneOff);
    // Unknown fields and colours are rejected by serde.
    assert!(serde_json::from_str::<Setup>(r#"{"turn":"red","white":{},"black":{}}"#).is_err());
    assert!(serde_json::from_str::<Setup>(r#"{"turn":"white","bar":{}}"#).is_err());
}

#[test]
fn variant_options_parse_from_key_value() {
    // Given key=value options, Then each sets its option.
    let v =
        Variant::from_options([("prime_rule", "opponent_home"), ("scoring", "single")]).unwrap();
    assert_eq!(v.prime_rule, PrimeRule::OpponentHome);
    assert_eq!(v.scoring, Scoring::Single);
    assert_eq!(v.opening, Opening::OpeningRollPlays);
    assert_eq!(
        "opening=white_first,scoring=oin_mars"
            .parse::<Variant>()
            .unwrap(),
        Variant {
            opening: Opening::WhiteFirst,
            prime_rule: PrimeRule::OpponentAhead,
            scoring: Scoring::OinMars
        }
    );
    // The defaults are RULES.md's.
    let d = Variant::default();
    assert_eq!(
        (d.opening, d.prime_rule, d.scoring),
        (
            Opening::OpeningRollPlays,
            PrimeRule::OpponentAhead,
            Scoring::OinMarsKoks
        )
    );
    // Bad keys and values are named in the error.
    let e = Variant::from_options([("prime", "x")]).unwrap_err();
    assert_eq!(
        e,
        VariantError::UnknownKey {
            key: "prime".into()
        }
    );
    let e = Variant::from_options([("prime_rule", "sometimes")]).unwrap_err();
    assert!(e.to_string().contains("sometimes") && e.to_string().contains("prime_rule"));
    assert!(e.to_string().contains("opponent_ahead"));
    // serde uses the same snake_case names.
    assert_eq!(
        serde_json::to_string(&PrimeRule::OpponentHome).unwrap(),
        "\"opponent_home\""
    );
    assert_eq!(
        serde_json::to_string(&Opening::OpeningRollRerolls).unwrap(),
        "\"opening_roll_rerolls\""
    );
    let v: Variant = serde_json::from_str(r#"{"scoring":"oin_mars"}"#).unwrap();
    assert_eq!(v.scoring, Scoring::OinMars);
    assert_eq!(v.to_string().parse::<Variant>().unwrap(), v);
}

#[test]
fn opening_roll_plays_rerolls_ties_and_the_roll_is_the_first_move() {
    // Given the dice roll 3/3 (a tie), then white 5, black 2,
    let mut d = ScriptedDice::new(vec![3, 3, 5, 2]).unwrap();
    let o = decide_opening(Opening::OpeningRollPlays, &mut d);
    // Then white starts and plays 5-2 as his first move.
    assert_eq!(o.starter, Color::White);
    assert_eq!(o.first_roll, Some(Dice::new(5, 2).unwrap()));
    assert_eq!(o.rolls, vec![(3, 3), (5, 2)]);
    // Given white 1, black 4, Then black starts with 4-1.
    let mut d = ScriptedDice::new(vec![1, 4]).unwrap();
    let o = decide_opening(Opening::OpeningRollPlays, &mut d);
    assert_eq!(
        (o.starter, o.first_roll),
        (Color::Black, Some(Dice::new(4, 1).unwrap()))
    );
    let p = Position::new_game(Variant::default(), o.starter);
    assert_eq!(p.turn(), Color::Black);
    assert!(p.is_first_turn(Color::Black) && p.is_first_turn(Color::White));
}

#[test]
fn opening_roll_rerolls_and_white_first() {
    let mut d = ScriptedDice::new(vec![6, 2]).unwrap();
    let o = decide_opening(Opening::OpeningRollRerolls, &mut d);
    assert_eq!((o.starter, o.first_roll), (Color::White, None));
    let mut d = ScriptedDice::new(vec![1, 2]).unwrap();
    let o = decide_opening(Opening::WhiteFirst, &mut d);
    assert_eq!((o.starter, o.first_roll), (Color::White, None));
    assert!(o.rolls.is_empty());
    // No die was used.
    assert_eq!(d.roll(), Dice::new(1, 2).unwrap());
}

#[test]
fn step_and_sequence_notation_is_from_dash_to_or_off() {
    use tabula_long::{Sequence, Step};
    for from in 0..=u8::MAX {
        assert_eq!(Step::off(from).to_string(), format!("{from}-off"));
        for to in 0..=u8::MAX {
            let s = Step::new(from, to);
            assert_eq!(s.to_string(), format!("{from}-{to}"));
            assert_eq!(s.to_string().parse::<Step>(), Ok(s));
            let mut pushed = String::from("x");
            s.push_to(&mut pushed);
            assert_eq!(pushed, format!("x{from}-{to}"));
        }
    }
    let seq = Sequence(vec![Step::new(24, 18), Step::new(18, 13), Step::off(5)]);
    assert_eq!(seq.to_string(), "24-18,18-13,5-off");
    let mut pushed = String::new();
    seq.push_to(&mut pushed);
    assert_eq!(pushed, "24-18,18-13,5-off");
    assert_eq!(format!("[{seq:>3}]"), "[24-18,18-13,5-off]");
    assert_eq!(Sequence(vec![]).to_string(), "");
}
