//! Arbitrary bytes and arbitrary JSON never panic a decoder of the wire:
//! client frames (`parse_client`) and node-to-node messages
//! (`NodeMsg::decode`). Every refusal of a client frame has a code and a
//! message.

use proptest::prelude::*;
use serde_json::Value;
use tabula_protocol::{ErrorCode, NodeMsg, parse_client};

/// Keys and strings the decoders know, so that random JSON reaches past
/// the first check.
const WORDS: &[&str] = &[
    "type", "seq", "room", "seat", "spectate", "from", "to", "notation", "text", "seed", "version",
    "rollouts", "t", "conn", "frame", "n", "more", "links", "player", "join", "move", "thudMove",
    "chat", "resume", "hint", "ping", "rollDice", "cmd", "out", "beats", "probe", "reroute", "a",
    "b", "bar", "off", "24",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(WORDS).prop_map(str::to_string),
        ".{0,12}",
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        word().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_are_refused_or_read(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse_client(&text) {
            prop_assert!(!e.message.is_empty());
        }
        let _ = NodeMsg::decode(&text);
    }

    #[test]
    fn any_json_is_refused_or_read(v in json()) {
        let text = v.to_string();
        match parse_client(&text) {
            Ok(f) => {
                // What is read is an object with a string `type`.
                prop_assert!(v.get("type").is_some_and(Value::is_string), "{}", text);
                // And it reads back the same.
                let again = serde_json::to_string(&f).unwrap();
                prop_assert_eq!(parse_client(&again).unwrap(), f);
            }
            Err(e) => {
                prop_assert!(!e.message.is_empty());
                prop_assert!(matches!(
                    e.code,
                    ErrorCode::BadJson | ErrorCode::BadMessage | ErrorCode::UnknownType
                ));
            }
        }
        let _ = NodeMsg::decode(&text);
    }

    #[test]
    fn client_shaped_json_is_refused_or_read(
        ty in proptest::sample::select(tabula_protocol::CLIENT_TYPES),
        fields in prop::collection::vec((word(), json()), 0..5),
        seq in proptest::option::of(json()),
    ) {
        let mut o = serde_json::Map::new();
        o.insert("type".into(), Value::from(ty));
        for (k, v) in fields {
            o.insert(k, v);
        }
        if let Some(s) = seq {
            o.insert("seq".into(), s);
        }
        let text = Value::Object(o).to_string();
        let _ = parse_client(&text);
        let _ = NodeMsg::decode(&text);
    }
}
