//! The rules of seed 003, one test per rule, written Given / When / Then.

mod common;

use common::{notations, notations_from, pos, pos_with};
use tabula_thud::{
    CaptureRule, EndReason, Game, Move, MoveKind, PlayError, Position, Round, RoundError,
    RoundResult, Score, Seat, Setup, SetupError, Side, Square, Variant, VariantError, outcome_of,
};

fn has(p: &Position, n: &str) -> bool {
    notations(p).iter().any(|m| m == n)
}

fn play(p: &Position, n: &str) -> Position {
    let mv: Move = n.parse().expect("notation");
    p.play(&mv).expect("legal")
}

// ---------------------------------------------------------------- board

/// Seed 003's kill-positions, verbatim (h8 is the stone).
const KILL_POSITIONS: &str = "a15 b15 c15 d15 e15 k15 l15 m15 n15 o15
    a14 b14 c14 d14 l14 m14 n14 o14 a13 b13 c13 m13 n13 o13 a12 b12 n12 o12
    a11 o11 h8 a5 o5 a4 b4 n4 o4 a3 b3 c3 m3 n3 o3 a2 b2 c2 d2 l2 m2 n2 o2
    a1 b1 c1 d1 e1 k1 l1 m1 n1 o1";

#[test]
fn board_shape_cut_corners_are_the_seeds_kill_positions() {
    // Given the seed's kill-positions
    let killed: Vec<Square> = KILL_POSITIONS
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    // When we ask every square of the grid whether it is cut or the stone
    let unplayable: Vec<Square> = Square::all().filter(|s| !s.is_playable()).collect();
    // Then exactly the killed squares are unplayable, and 225 - 60 - 1 remain
    let mut killed_sorted = killed.clone();
    killed_sorted.sort();
    assert_eq!(unplayable, killed_sorted);
    assert_eq!(killed.iter().filter(|s| s.is_cut()).count(), 60);
    assert_eq!(Square::STONE.to_string(), "h8");
    assert!(Square::STONE.is_stone() && !Square::STONE.is_cut());
    assert_eq!(Square::playable().count(), 225 - 60 - 1);
}

#[test]
fn squares_are_named_a1_to_o15() {
    let a1: Square = "a1".parse().unwrap();
    let o15: Square = "o15".parse().unwrap();
    assert_eq!((a1.index(), o15.index()), (0, 224));
    assert_eq!(o15.to_string(), "o15");
    for bad in ["p1", "a0", "a16", "", "a", "1a", "a01", "A1", "h8x"] {
        assert!(bad.parse::<Square>().is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------- start

#[test]
fn start_position_is_the_seeds_board_setup() {
    // Given the start position
    let p = Position::start();
    // Then dwarfs move first, 32 dwarfs and 8 trolls stand where the seed puts them
    assert_eq!(p.turn(), Side::Dwarfs);
    let dwarfs: Vec<String> = p.dwarfs().iter().map(|s| s.to_string()).collect();
    let mut seed_dwarfs: Vec<String> = "f1 g1 i1 j1 e2 k2 d3 l3 c4 m4 b5 n5 a6 o6 a7 o7 a9 o9 a10 \
        o10 b11 n11 c12 m12 d13 l13 e14 k14 f15 g15 i15 j15"
        .split_whitespace()
        .map(String::from)
        .collect();
    seed_dwarfs.sort_by_key(|s| s.parse::<Square>().unwrap());
    assert_eq!(dwarfs, seed_dwarfs);
    let trolls: Vec<String> = p.trolls().iter().map(|s| s.to_string()).collect();
    assert_eq!(trolls, ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"]);
    assert_eq!(p.plies_since_capture(), 0);
    assert_eq!(Position::try_from(Setup::start()).unwrap(), p);
}

#[test]
fn start_position_trolls_have_32_steps_and_no_shove() {
    // Given the start position after a quiet dwarf move
    let p = play(&Position::start(), "Da6-b6");
    // When the trolls list their moves
    let moves = p.legal_moves();
    // Then only steps, 32 of them, none capturing
    assert_eq!(moves.len(), 32);
    assert!(
        moves
            .iter()
            .all(|m| m.kind() == MoveKind::Step && !m.is_capture())
    );
}

// ---------------------------------------------------------------- dwarf move

#[test]
fn dwarf_moves_like_a_queen_over_empty_squares_within_the_octagon() {
    // Given a lone dwarf on e5 (and a troll off its lines)
    let p = pos("dwarfs", "e5", "o10");
    // When it lists its moves
    let m = notations_from(&p, "e5");
    // Then 35 queen moves; none onto a cut corner (c3) or the stone, none past the stone
    assert_eq!(m.len(), 35, "{m:?}");
    assert!(m.iter().all(|n| n.starts_with("De5-")));
    for yes in [
        "De5-b5", "De5-n5", "De5-e14", "De5-e2", "De5-g7", "De5-a9", "De5-i1", "De5-d4",
    ] {
        assert!(m.contains(&yes.to_string()), "{yes}");
    }
    for no in ["De5-c3", "De5-h8", "De5-i9", "De5-e1", "De5-e15"] {
        assert!(!m.contains(&no.to_string()), "{no}");
    }
}

#[test]
fn dwarf_move_is_blocked_by_pieces_and_cannot_jump() {
    // Given a dwarf on e5 with a dwarf on e8 and a troll on c5
    let p = pos("dwarfs", "e5 e8", "c5");
    let m = notations_from(&p, "e5");
    // Then it reaches e6, e7 and d5 but nothing at or beyond the blockers
    assert!(m.contains(&"De5-e7".into()) && m.contains(&"De5-d5".into()));
    for no in ["De5-e8", "De5-e9", "De5-c5", "De5-b5"] {
        assert!(!m.contains(&no.to_string()), "{no}");
    }
}

#[test]
fn dwarf_move_cannot_enter_or_pass_the_stone() {
    // Given a dwarf on d8, on the stone's rank
    let p = pos("dwarfs", "d8", "a10");
    let m = notations_from(&p, "d8");
    // Then it stops on g8, next to the stone
    assert!(m.contains(&"Dd8-g8".into()));
    assert!(!m.contains(&"Dd8-h8".into()) && !m.contains(&"Dd8-i8".into()));
}

// ---------------------------------------------------------------- hurl

#[test]
fn lone_dwarf_hurls_one_square_onto_an_adjacent_troll() {
    // Given a lone dwarf on e5 next to a troll on e6
    let p = pos("dwarfs", "e5", "e6 o9");
    // When it hurls onto e6
    assert!(has(&p, "De5xe6"));
    let after = play(&p, "De5xe6");
    // Then the troll is captured and the dwarf stands on e6
    assert_eq!(
        after.piece_at("e6".parse().unwrap()),
        Some(tabula_thud::Piece::Dwarf)
    );
    assert_eq!(after.piece_at("e5".parse().unwrap()), None);
    assert_eq!(after.trolls().len(), 1);
    assert_eq!(after.plies_since_capture(), 0);
}

#[test]
fn lone_dwarf_cannot_hurl_two_squares() {
    // Given a lone dwarf on e5 and a troll two squares ahead
    let p = pos("dwarfs", "e5", "e7");
    // Then no hurl, only moves
    assert!(!has(&p, "De5xe7"));
    assert!(has(&p, "De5-e6"));
}

#[test]
fn hurl_distance_is_limited_by_the_line_length() {
    // Given a line of three dwarfs e3-e4-e5 pointing north
    // When a troll stands three squares ahead of the front dwarf
    assert!(has(&pos("dwarfs", "e3 e4 e5", "e8"), "De5xe8"));
    // Then it can be hurled onto it; but not four squares ahead
    assert!(!has(&pos("dwarfs", "e3 e4 e5", "e9"), "De5xe9"));
    // unless a fourth dwarf lengthens the line
    assert!(has(&pos("dwarfs", "e2 e3 e4 e5", "e9"), "De5xe9"));
    // and a longer line may still hurl a shorter distance
    assert!(has(&pos("dwarfs", "e2 e3 e4 e5", "e7"), "De5xe7"));
}

#[test]
fn hurl_counts_only_dwarfs_directly_behind_the_mover() {
    // Given dwarfs e4 and e5 with a gap to e2: the line behind e5 is e5+e4
    let p = pos("dwarfs", "e2 e4 e5", "e8");
    // Then the hurl of three is not there, and dwarfs beside the line do not count
    assert!(!has(&p, "De5xe8"));
    assert!(!has(&pos("dwarfs", "d4 e5 f4", "e7"), "De5xe7"));
}

#[test]
fn hurl_path_must_be_empty() {
    // Given a line of three with a dwarf two squares ahead, then a troll
    assert!(!has(&pos("dwarfs", "e3 e4 e5 e7", "e8"), "De5xe8"));
    // Given a troll in the way: only the nearer troll can be hit
    let p = pos("dwarfs", "e3 e4 e5", "e6 e8");
    assert!(has(&p, "De5xe6") && !has(&p, "De5xe8"));
}

#[test]
fn hurl_cannot_pass_the_stone() {
    // Given five dwarfs c8..g8 and a troll on i8 beyond the stone
    let p = pos("dwarfs", "c8 d8 e8 f8 g8", "i8");
    // Then no dwarf can be hurled over h8
    assert!(notations(&p).iter().all(|m| !m.contains('x')));
}

#[test]
fn hurl_works_on_diagonals() {
    // Given a diagonal line d4-e5 pointing north-east and a troll on g7
    let p = pos("dwarfs", "d4 e5", "g7");
    assert!(has(&p, "De5xg7"));
}

// ---------------------------------------------------------------- troll step

#[test]
fn troll_step_captures_every_adjacent_dwarf_under_zrf() {
    // Given a troll on h7 and dwarfs on g5 and i5 (and a7 far away)
    let p = pos("trolls", "g5 i5 a7", "h7");
    // When it steps to h6 (next to both)
    assert!(has(&p, "Th7-h6xg5xi5"));
    assert!(!has(&p, "Th7-h6") && !has(&p, "Th7-h6xg5"));
    let after = play(&p, "Th7-h6xg5xi5");
    // Then both are captured
    let left: Vec<String> = after.dwarfs().iter().map(|s| s.to_string()).collect();
    assert_eq!(left, ["a7"]);
    assert_eq!(after.turn(), Side::Dwarfs);
}

#[test]
fn troll_step_captures_at_most_one_dwarf_under_classic() {
    // Given the same position under the classic rule
    let p = pos_with("trolls", "g5 i5 a7", "h7", CaptureRule::Classic);
    // When the troll steps to h6 it may capture none, g5 or i5, not both
    let to_h6: Vec<String> = notations(&p)
        .into_iter()
        .filter(|m| m.starts_with("Th7-h6"))
        .collect();
    assert_eq!(to_h6, ["Th7-h6", "Th7-h6xg5", "Th7-h6xi5"]);
    // Then playing the choice i5 removes exactly that dwarf
    let after = play(&p, "Th7-h6xi5");
    let left: Vec<String> = after.dwarfs().iter().map(|s| s.to_string()).collect();
    assert_eq!(left, ["g5", "a7"]);
}

#[test]
fn troll_step_needs_no_capture_and_not_onto_pieces_or_the_stone() {
    // Given a troll on h7 with a dwarf on g6
    let p = pos("trolls", "g6", "h7");
    let m = notations_from(&p, "h7");
    // Then the quiet step to i8 exists, the occupied g6 and the stone h8 are not targets
    assert!(m.contains(&"Th7-i8".into()));
    assert!(
        m.iter()
            .all(|n| !n.starts_with("Th7-g6") && !n.starts_with("Th7-h8"))
    );
}

// ---------------------------------------------------------------- troll shove

#[test]
fn troll_shove_moves_the_front_troll_up_to_the_line_length() {
    // Given trolls e8 (behind) and e7 (front) pointing south, dwarfs next to e5 and e4
    let p = pos("trolls", "d4 d3", "e7 e8");
    // Then a shove of two lands on e5 and captures d4; three squares needs three trolls
    assert!(has(&p, "Te7-e5xd4"));
    assert!(!notations(&p).iter().any(|m| m.starts_with("Te7-e4")));
    let p3 = pos("trolls", "d4 d3", "e7 e8 e9");
    assert!(has(&p3, "Te7-e4xd3xd4"));
    assert!(!notations(&p3).iter().any(|m| m.starts_with("Te7-e3")));
}

#[test]
fn troll_shove_must_land_next_to_a_dwarf() {
    // Given a line of two trolls and no dwarf near e5
    let p = pos("trolls", "l12", "e7 e8");
    // Then there is no shove at all
    assert!(p.legal_moves().iter().all(|m| m.kind() == MoveKind::Step));
}

#[test]
fn troll_shove_of_one_square_is_a_plain_step() {
    // Given a lone troll (no line) next to nothing
    let p = pos("trolls", "l12", "e7");
    // Then its one-square moves are steps, and there is no longer move
    let moves = p.moves_from("e7".parse().unwrap());
    assert_eq!(moves.len(), 8);
    assert!(
        moves
            .iter()
            .all(|m| m.kind() == MoveKind::Step && m.distance() == 1)
    );
}

#[test]
fn troll_shove_captures_every_adjacent_dwarf_even_under_classic() {
    // Given a line of two trolls and dwarfs d4 and f4 next to e5, classic rule
    let p = pos_with("trolls", "d4 f4", "e7 e8", CaptureRule::Classic);
    // Then the shove captures both, and no one-capture shove exists
    assert!(has(&p, "Te7-e5xd4xf4"));
    assert!(!has(&p, "Te7-e5xd4") && !has(&p, "Te7-e5xf4"));
    let after = play(&p, "Te7-e5xd4xf4");
    assert!(after.dwarfs().is_empty());
}

#[test]
fn troll_shove_is_blocked_by_pieces_and_the_stone() {
    // Given a line of two with a dwarf in the path
    let p = pos("trolls", "e6 d4", "e7 e8");
    assert!(!notations(&p).iter().any(|m| m.starts_with("Te7-e5")));
    // Given trolls f8, g8 pointing east at the stone, a dwarf next to i8
    let p = pos("trolls", "j9", "f8 g8");
    assert!(!notations(&p).iter().any(|m| m.starts_with("Tg8-i8")));
}

// ---------------------------------------------------------------- notation, play

#[test]
fn notation_reads_and_writes_every_kind() {
    for n in ["Dg1-g5", "Dg1xg7", "Th7-h6xg5xi5", "Te7-e5xd4", "Th7-i8"] {
        let m: Move = n.parse().unwrap();
        assert_eq!(m.to_string(), n);
    }
    let m: Move = "Th7-h6xi5xg5".parse().unwrap();
    assert_eq!(
        m.to_string(),
        "Th7-h6xg5xi5",
        "captures are written in ascending order"
    );
    assert_eq!(m.kind(), MoveKind::Step);
    assert_eq!("Te7-e5xd4".parse::<Move>().unwrap().kind(), MoveKind::Shove);
    assert_eq!("Dg1xg7".parse::<Move>().unwrap().kind(), MoveKind::Hurl);
    for bad in [
        "",
        "X",
        "Dg1",
        "Dg1-h3",
        "Dg1-g5xg6",
        "Th7xh6",
        "Th7-h6xa1",
        "Th7-h6xg5xg5",
        "Dz1-g5",
    ] {
        assert!(bad.parse::<Move>().is_err(), "{bad}");
    }
}

#[test]
fn play_rejects_illegal_moves_with_a_typed_error() {
    let p = Position::start();
    // A troll move on the dwarfs' turn, a blocked move, a move of an empty square
    for n in ["Th7-h6", "Df1-f15", "Dh1-h2"] {
        let m: Move = n.parse().unwrap();
        assert!(matches!(p.play(&m), Err(PlayError::Illegal { .. })), "{n}");
    }
    assert!(matches!(
        p.parse_move("nonsense"),
        Err(PlayError::Notation(_))
    ));
}

#[test]
fn parse_move_fills_in_zrf_captures() {
    let p = pos("trolls", "g5 i5 a7", "h7");
    assert_eq!(p.parse_move("Th7-h6").unwrap().to_string(), "Th7-h6xg5xi5");
}

// ---------------------------------------------------------------- setup

#[test]
fn setup_rejects_bad_positions_with_typed_errors() {
    let setup = |turn: &str, d: &[&str], t: &[&str]| Setup {
        turn: turn.into(),
        dwarfs: d.iter().map(|s| s.to_string()).collect(),
        trolls: t.iter().map(|s| s.to_string()).collect(),
        plies_since_capture: 0,
    };
    let err = |s: Setup| Position::try_from(s).unwrap_err();
    assert!(matches!(
        err(setup("dwarfs", &["a1"], &[])),
        SetupError::CutCorner { .. }
    ));
    assert!(matches!(
        err(setup("dwarfs", &[], &["h8"])),
        SetupError::OnStone(_)
    ));
    assert!(matches!(
        err(setup("dwarfs", &["p9"], &[])),
        SetupError::UnknownSquare(_)
    ));
    assert!(matches!(
        err(setup("dwarfs", &["e5"], &["e5"])),
        SetupError::DuplicateSquare(_)
    ));
    assert!(matches!(
        err(setup("elves", &[], &[])),
        SetupError::BadSide(_)
    ));
    let many: Vec<String> = Square::playable().take(33).map(|s| s.to_string()).collect();
    let m: Vec<&str> = many.iter().map(String::as_str).collect();
    assert!(matches!(
        err(setup("dwarfs", &m, &[])),
        SetupError::TooManyDwarfs(33)
    ));
    assert!(matches!(
        err(setup("dwarfs", &[], &m[..9])),
        SetupError::TooManyTrolls(9)
    ));
}

#[test]
fn setup_json_round_trips_and_rejects_unknown_fields() {
    let json = r#"{"turn":"trolls","dwarfs":["e5"],"trolls":["g7"]}"#;
    let s: Setup = serde_json::from_str(json).unwrap();
    let p = Position::try_from(&s).unwrap();
    assert_eq!(p.turn(), Side::Trolls);
    let back = serde_json::to_string(&p.to_setup()).unwrap();
    assert_eq!(
        back,
        r#"{"turn":"trolls","dwarfs":["e5"],"trolls":["g7"],"plies_since_capture":0}"#
    );
    assert!(
        serde_json::from_str::<Setup>(r#"{"turn":"dwarfs","dwarfs":[],"trolls":[],"x":1}"#)
            .is_err()
    );
}

// ---------------------------------------------------------------- variant

#[test]
fn variant_options_parse_with_clear_errors() {
    let v = Variant::from_strs(&["capture_rule=classic", "max_plies_without_capture=50"]).unwrap();
    assert_eq!(v.capture_rule, CaptureRule::Classic);
    assert_eq!(v.max_plies_without_capture, Some(50));
    assert_eq!(Variant::default().capture_rule, CaptureRule::Zrf);
    assert_eq!(Variant::default().max_plies_without_capture, None);
    assert!(matches!(
        Variant::from_strs(&["colour=red"]),
        Err(VariantError::UnknownOption(_))
    ));
    assert!(matches!(
        Variant::from_strs(&["capture_rule=all"]),
        Err(VariantError::BadValue { .. })
    ));
    assert!(matches!(
        Variant::from_strs(&["max_plies_without_capture=-1"]),
        Err(VariantError::BadValue { .. })
    ));
    assert!(matches!(
        Variant::from_strs(&["capture_rule"]),
        Err(VariantError::NotKeyValue(_))
    ));
}

// ---------------------------------------------------------------- scoring

#[test]
fn score_is_one_per_dwarf_and_four_per_troll() {
    assert_eq!(
        Position::start().score(),
        Score {
            dwarfs: 32,
            trolls: 32
        }
    );
    let p = pos("dwarfs", "e5 a7 b8", "e6 o9");
    assert_eq!(
        p.score(),
        Score {
            dwarfs: 3,
            trolls: 8
        }
    );
    assert_eq!(
        play(&p, "De5xe6").score(),
        Score {
            dwarfs: 3,
            trolls: 4
        }
    );
}

// ---------------------------------------------------------------- end of round

#[test]
fn round_ends_when_the_side_to_move_has_no_legal_move() {
    // Given a troll on f1 walled in by dwarfs except g2
    let p = pos("dwarfs", "g1 e2 f2 h3", "f1");
    let mut r = Round::from_position(p, Variant::default(), Seat::First);
    assert!(!r.is_over());
    // When a dwarf closes g2
    r.play(Seat::First, &"Dh3-g2".parse().unwrap()).unwrap();
    // Then the trolls cannot move and the round ends with material counted
    let res = r.result().unwrap();
    assert_eq!(res.reason, EndReason::NoLegalMove);
    assert_eq!(
        res.score,
        Score {
            dwarfs: 4,
            trolls: 4
        }
    );
    assert_eq!(res.points(Seat::First), 4);
}

#[test]
fn round_ends_when_one_side_has_no_pieces() {
    // Given the last troll next to a lone dwarf
    let p = pos("dwarfs", "e5", "e6");
    let mut r = Round::from_position(p, Variant::default(), Seat::Second);
    // When the dwarf captures it
    let res = *r
        .play(Seat::Second, &"De5xe6".parse().unwrap())
        .unwrap()
        .unwrap();
    // Then the round ends: the dwarfs' player (second seat) scores 1, the other 0
    assert_eq!(res.reason, EndReason::NoPieces);
    assert_eq!((res.points(Seat::Second), res.points(Seat::First)), (1, 0));
    assert!(matches!(
        r.play(Seat::First, &"De6-e7".parse().unwrap()),
        Err(RoundError::Over)
    ));
}

#[test]
fn round_ends_after_the_configured_plies_without_capture() {
    let v = Variant {
        max_plies_without_capture: Some(4),
        ..Variant::default()
    };
    let mut r = Round::new(v, Seat::First);
    for (i, n) in ["Da6-b6", "Tg7-f6", "Db6-a6", "Tf6-g7"].iter().enumerate() {
        assert!(!r.is_over(), "ply {i}");
        let seat = r.to_move();
        r.play(seat, &n.parse().unwrap()).unwrap();
    }
    assert_eq!(r.result().unwrap().reason, EndReason::PliesWithoutCapture);
    assert_eq!(r.result().unwrap().plies, 4);
}

#[test]
fn round_ends_on_the_third_occurrence_of_a_position() {
    // Given a dwarf and a troll far apart shuffling back and forth
    let mut r = Round::from_position(pos("dwarfs", "a7", "o7"), Variant::default(), Seat::First);
    let cycle = ["Da7-a8", "To7-o8", "Da8-a7", "To8-o7"];
    for (i, n) in cycle.iter().chain(cycle.iter()).enumerate() {
        // Then it does not end before the start position occurs the third time
        assert!(!r.is_over(), "ply {i}");
        let seat = r.to_move();
        r.play(seat, &n.parse().unwrap()).unwrap();
    }
    assert_eq!(r.repetitions(), 3);
    assert_eq!(r.result().unwrap().reason, EndReason::Repetition);
}

#[test]
fn round_ends_by_agreement_proposed_and_accepted() {
    let mut r = Round::new(Variant::default(), Seat::First);
    // A player cannot accept his own proposal, nor accept nothing
    assert_eq!(r.accept_end(Seat::Second), Err(RoundError::NoProposal));
    r.propose_end(Seat::First).unwrap();
    assert_eq!(
        r.accept_end(Seat::First),
        Err(RoundError::OwnProposal(Seat::First))
    );
    // The proposer's own move keeps the proposal; the opponent's move declines it
    r.play(Seat::First, &"Da6-b6".parse().unwrap()).unwrap();
    assert_eq!(r.proposal(), Some(Seat::First));
    r.play(Seat::Second, &"Tg7-f6".parse().unwrap()).unwrap();
    assert_eq!(r.proposal(), None);
    // Playing out of turn is refused
    assert_eq!(
        r.play(Seat::Second, &"Tf6-g7".parse().unwrap())
            .unwrap_err(),
        RoundError::NotYourTurn(Seat::Second)
    );
    r.propose_end(Seat::Second).unwrap();
    let res = r.accept_end(Seat::First).unwrap();
    assert_eq!(res.reason, EndReason::Agreement);
    assert_eq!(
        res.score,
        Score {
            dwarfs: 32,
            trolls: 32
        }
    );
}

#[test]
fn round_ends_on_a_timeout_crediting_the_other_side_with_all_the_material() {
    // Given a round with a pending proposal, the dwarfs (first seat) to move
    let mut r = Round::new(Variant::default(), Seat::First);
    r.propose_end(Seat::Second).unwrap();
    // When the dwarfs' player runs out of time
    let res = r.time_out(Seat::First).unwrap();
    // Then the round is over: the dwarfs score nothing, the trolls their
    // own 32 plus the dwarfs' 32 left on the board; the proposal is gone
    assert_eq!(res.reason, EndReason::Timeout);
    assert_eq!(
        res.score,
        Score {
            dwarfs: 0,
            trolls: 64
        }
    );
    assert_eq!((res.points(Seat::First), res.points(Seat::Second)), (0, 64));
    assert_eq!(r.proposal(), None);
    assert_eq!(r.time_out(Seat::Second), Err(RoundError::Over));
    // And the trolls' player running out credits the dwarfs instead
    let mut r = Round::new(Variant::default(), Seat::First);
    r.play(Seat::First, &"Da6-b6".parse().unwrap()).unwrap();
    let res = r.time_out(Seat::Second).unwrap();
    assert_eq!(
        res.score,
        Score {
            dwarfs: 64,
            trolls: 0
        }
    );
}

// ---------------------------------------------------------------- two rounds

#[test]
fn two_round_game_swaps_sides_and_totals_decide() {
    // Given a new game
    let mut g = Game::new(Variant::default());
    assert_eq!(g.round().side_of(Seat::First), Side::Dwarfs);
    assert!(g.next_round().is_err(), "round 1 still on");
    // When round 1 ends by agreement at once
    g.round_mut().propose_end(Seat::Second).unwrap();
    g.round_mut().accept_end(Seat::First).unwrap();
    // Then round 2 swaps sides
    let r2 = g.next_round().unwrap();
    assert_eq!(r2.side_of(Seat::First), Side::Trolls);
    assert_eq!(r2.to_move(), Seat::Second);
    r2.propose_end(Seat::First).unwrap();
    r2.accept_end(Seat::Second).unwrap();
    assert!(g.next_round().is_err(), "only two rounds");
    // And equal material over both rounds is a draw: 32 + 32 each
    let o = g.outcome().unwrap();
    assert_eq!(o.totals, [64, 64]);
    assert_eq!(o.winner, None);
}

#[test]
fn two_round_totals_sum_each_players_material() {
    // Given round 1: first seat (dwarfs) kept 20 dwarfs, second kept 7 trolls;
    // round 2: second seat (dwarfs) kept 25, first kept 8 trolls
    let r1 = RoundResult {
        reason: EndReason::Agreement,
        score: Score {
            dwarfs: 20,
            trolls: 28,
        },
        dwarfs_player: Seat::First,
        plies: 10,
    };
    let r2 = RoundResult {
        reason: EndReason::NoLegalMove,
        score: Score {
            dwarfs: 25,
            trolls: 32,
        },
        dwarfs_player: Seat::Second,
        plies: 12,
    };
    // Then first = 20 + 32 = 52, second = 28 + 25 = 53: second wins
    let o = outcome_of(&[r1, r2]);
    assert_eq!(o.totals, [52, 53]);
    assert_eq!(o.winner, Some(Seat::Second));
}
