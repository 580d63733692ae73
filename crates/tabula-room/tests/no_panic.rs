//! Arbitrary input never panics the decoders at the room's edge: game
//! records (`verify`), room snapshots (`Room::restore`), start positions
//! (long nardy's JSON setup, backgammon's setup and GNU Backgammon Position
//! IDs), and the step notation (`Spot::parse_step`).

use proptest::prelude::*;
use serde_json::Value;
use tabula_room::{GameRecord, Room, RoomSnapshot, Spot};

const WORDS: &[&str] = &[
    "options",
    "game",
    "long_nardy",
    "backgammon",
    "thud",
    "inputs",
    "type",
    "apply",
    "command",
    "actor",
    "now",
    "seeds",
    "white",
    "black",
    "bar",
    "off",
    "turn",
    "points",
    "dice",
    "moves",
    "serverSeed",
    "clientSeeds",
    "result",
    "config",
    "masterSeed",
    "a",
    "b",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(WORDS).prop_map(str::to_string),
        "[a-zA-Z0-9_]{0,10}",
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (0u64..40).prop_map(Value::from),
        word().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn records_snapshots_and_positions_from_any_json(v in json()) {
        if let Ok(r) = serde_json::from_value::<GameRecord>(v.clone()) {
            let _ = tabula_room::verify(&r);
        }
        if let Ok(s) = serde_json::from_value::<RoomSnapshot>(v.clone()) {
            let _ = Room::restore(&s);
        }
        if let Ok(setup) = serde_json::from_value::<tabula_long::Setup>(v.clone()) {
            let _ = tabula_long::Position::try_from(setup);
        }
        if let Ok(setup) = serde_json::from_value::<tabula_backgammon::Setup>(v) {
            let _ = tabula_backgammon::Position::try_from(setup);
        }
    }

    #[test]
    fn any_text_as_bytes_of_json_a_position_id_or_a_step(s in ".{0,80}") {
        let _ = serde_json::from_str::<GameRecord>(&s).map(|r| tabula_room::verify(&r));
        let _ = serde_json::from_str::<RoomSnapshot>(&s).map(|r| Room::restore(&r));
        let _ = tabula_backgammon::Position::from_gnubg_id(&s);
        let _ = Spot::parse_step(&s);
    }

    #[test]
    fn position_id_shaped_strings(s in "[A-Za-z0-9+/]{14}") {
        if let Ok(p) = tabula_backgammon::Position::from_gnubg_id(&s) {
            // What is read writes back as a Position ID that reads the same.
            let again = tabula_backgammon::Position::from_gnubg_id(&p.gnubg_id()).unwrap();
            prop_assert_eq!(again.gnubg_id(), p.gnubg_id());
        }
    }

    #[test]
    fn step_shaped_strings(s in "(bar|off|[0-9]{1,3})[-/](bar|off|[0-9]{1,3})\\*?") {
        let _ = Spot::parse_step(&s);
    }
}
