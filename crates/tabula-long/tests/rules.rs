//! One test per rule of RULES.md "Long nardy", including every example in
//! the seeds. Positions are built with `pos!` (borne-off counts are what is
//! missing from 15).

mod common;

use std::collections::BTreeSet;

use common::{dice, variant};
use tabula_long::{Color, Position, Sequence, Step, StepError, Turn};

fn seqs(p: &Position, a: u8, b: u8) -> Vec<String> {
    p.moves(dice(a, b))
        .sequences
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn firsts(p: &Position, a: u8, b: u8) -> Vec<String> {
    p.first_steps(dice(a, b))
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn step(s: &str) -> Step {
    s.parse().unwrap()
}

/// The boards (as one-line text) of the distinct finals.
fn finals(p: &Position, a: u8, b: u8) -> BTreeSet<String> {
    p.legal_moves(dice(a, b))
        .iter()
        .map(|f| f.to_string())
        .collect()
}

// ---------------------------------------------------------------- head rule

#[test]
fn head_rule_seed_000_critical_case_first_6_6_is_exactly_24_18_twice() {
    // Given the initial position, white's own first turn,
    let p = Position::initial();
    // When white rolls 6-6,
    let m = p.moves(dice(6, 6));
    // Then the only legal turn takes two checkers 24→18 and stops: the
    // other sixes would land on black's head (12); two dice is the maximum.
    assert_eq!(seqs(&p, 6, 6), vec!["24-18,24-18"]);
    assert_eq!(m.max_dice, 2);
    assert_eq!(m.finals.len(), 1);
    let f = &m.finals[0].position;
    assert_eq!(f.checkers(Color::White, 24), 13);
    assert_eq!(f.checkers(Color::White, 18), 2);
    assert_eq!(m.first_steps(), vec![step("24-18")]);
    // And played step by step the turn is complete after the two steps.
    let mut t = Turn::new(&p, dice(6, 6));
    t.play_step(step("24-18")).unwrap();
    assert!(!t.is_complete());
    t.play_step(step("24-18")).unwrap();
    assert!(t.is_complete());
    assert_eq!(t.finish().unwrap(), *f);
}

#[test]
fn head_rule_black_first_6_6_is_exactly_12_6_twice() {
    // Given white has played 6-5 from the start and black is on his first turn,
    let p = Position::initial().play_unchecked(&[step("24-18"), step("18-13")]);
    assert!(p.is_first_turn(Color::Black));
    // When black rolls 6-6, Then 12-6 twice and nothing else (24 is white's head).
    assert_eq!(seqs(&p, 6, 6), vec!["12-6,12-6"]);
    assert_eq!(p.max_dice(dice(6, 6)), 2);
}

#[test]
fn head_rule_first_turn_4_4_takes_two_from_the_head() {
    // Given the start, When white rolls 4-4 on his first turn,
    let p = Position::initial();
    // Then two checkers leave the head and each goes 24→20→16 (12 is black's).
    assert_eq!(p.max_dice(dice(4, 4)), 4);
    assert_eq!(
        finals(&p, 4, 4),
        BTreeSet::from([
            "black to move; white 24:13 16:2; black 12:15; off 0/0; first turn".to_string()
        ])
    );
    assert!(seqs(&p, 4, 4).contains(&"24-20,24-20,20-16,20-16".to_string()));
}

#[test]
fn head_rule_first_turn_3_3_takes_two_from_the_head() {
    let p = Position::initial();
    // When white rolls 3-3 on his first turn, Then two leave the head, four
    // moves are played, ending on {21, 15} or {18, 18}.
    assert_eq!(p.max_dice(dice(3, 3)), 4);
    let got = finals(&p, 3, 3);
    assert_eq!(got.len(), 2);
    assert!(got.contains("black to move; white 24:13 21:1 15:1; black 12:15; off 0/0; first turn"));
    assert!(got.contains("black to move; white 24:13 18:2; black 12:15; off 0/0; first turn"));
}

#[test]
fn head_rule_3_3_after_the_first_turn_takes_only_one() {
    // Given white still all on the head but his first turn already passed,
    let p = pos!(white; w [24:15]; b [12:15]);
    // When he rolls 3-3, Then one checker goes 24→21→18→15 (three dice).
    assert_eq!(p.max_dice(dice(3, 3)), 3);
    assert_eq!(seqs(&p, 3, 3), vec!["24-21,21-18,18-15"]);
}

#[test]
fn head_rule_other_doubles_on_the_first_turn_take_one() {
    // Given the start, When white rolls 5-5, Then one checker runs 24→4.
    let p = Position::initial();
    assert_eq!(seqs(&p, 5, 5), vec!["24-19,19-14,14-9,9-4"]);
    // And 2-2 moves one checker four times.
    assert_eq!(seqs(&p, 2, 2), vec!["24-22,22-20,20-18,18-16"]);
}

#[test]
fn head_rule_one_checker_per_turn_later() {
    // Given white has left the head once already (not his first turn),
    let p = pos!(white; w [24:14, 19:1]; b [12:15]);
    // When he rolls 6-5, Then no sequence takes two from the head,
    for s in seqs(&p, 6, 5) {
        assert!(s.matches("24-").count() <= 1, "{s}");
    }
    // And a second head step is refused with HeadRule.
    let mut t = Turn::new(&p, dice(6, 5));
    t.play_step(step("24-18")).unwrap();
    assert_eq!(
        t.play_step(step("24-19")),
        Err(StepError::HeadRule { limit: 1 })
    );
}

#[test]
fn non_double_opening_moves_one_checker_from_the_head() {
    let p = Position::initial();
    assert_eq!(seqs(&p, 6, 5), vec!["24-18,18-13", "24-19,19-13"]);
    assert_eq!(firsts(&p, 6, 5), vec!["24-18", "24-19"]);
    assert_eq!(p.legal_moves(dice(6, 5)).len(), 1);
}

// ---------------------------------------------------------------- dice use

#[test]
fn no_landing_on_any_opponent_checker() {
    // Given white on 18 and black's head on 12,
    let p = pos!(white; w [24:14, 18:1]; b [12:15]);
    // When white rolls 6-5, Then 18-12 is refused and never listed.
    assert!(seqs(&p, 6, 5).iter().all(|s| !s.contains("18-12")));
    let mut t = Turn::new(&p, dice(6, 5));
    assert_eq!(
        t.play_step(step("18-12")),
        Err(StepError::LandsOnOpponent { point: 12 })
    );
}

#[test]
fn larger_die_rule_when_only_one_die_can_be_played() {
    // Given white's only movable checker on 20 and black on 13: 20-14 or
    // 20-19 can each be played, but then the other die is blocked at 13,
    let p = pos!(white; w [20:1, 1:14]; b [13:15]);
    // When white rolls 6-1, Then only the larger die is played.
    assert_eq!(seqs(&p, 6, 1), vec!["20-14"]);
    assert_eq!(p.max_dice(dice(6, 1)), 1);
    let mut t = Turn::new(&p, dice(6, 1));
    assert_eq!(
        t.play_step(step("20-19")),
        Err(StepError::MustPlayLargerDie)
    );
    // Given the six is blocked too (black on 14), Then the smaller die is played.
    let p = pos!(white; w [20:1, 1:14]; b [13:14, 14:1]);
    assert_eq!(seqs(&p, 6, 1), vec!["20-19"]);
}

#[test]
fn max_dice_rule_forces_the_order_that_plays_both() {
    // Given white on 20 and 17, black on 19, 16 and 10,
    let p = pos!(white; w [20:1, 17:1, 1:13]; b [19:5, 16:5, 10:5]);
    // When white rolls 6-1, Then 17-11 (after which the 1 is unplayable) is
    // not allowed: both dice can be played only as 20-14,14-13.
    assert_eq!(seqs(&p, 6, 1), vec!["20-14,14-13"]);
    assert_eq!(p.max_dice(dice(6, 1)), 2);
    let mut t = Turn::new(&p, dice(6, 1));
    assert_eq!(
        t.play_step(step("17-11")),
        Err(StepError::LeavesDieUnplayed)
    );
    t.play_step(step("20-14")).unwrap();
    assert_eq!(t.finish(), Err(StepError::TurnIncomplete));
    assert_eq!(t.legal_steps(), vec![step("14-13")]);
}

#[test]
fn doubles_play_four_times() {
    let p = pos!(white; w [24:10, 20:5]; b [12:15]);
    let m = p.moves(dice(2, 2));
    assert_eq!(m.max_dice, 4);
    assert!(m.sequences.iter().all(|s| s.len() == 4));
}

#[test]
fn no_legal_play_passes_the_turn() {
    // Given white's head faces black on 23..18,
    let p = pos!(white; w [24:15]; b [23:3, 22:3, 21:3, 20:3, 19:2, 18:1]);
    // When white rolls 6-5, Then nothing is playable: the turn passes.
    let m = p.moves(dice(6, 5));
    assert_eq!(m.max_dice, 0);
    assert!(m.sequences.is_empty());
    assert_eq!(m.finals.len(), 1);
    assert!(m.finals[0].sequence.is_empty());
    let t = Turn::new(&p, dice(6, 5));
    assert!(t.is_complete());
    assert!(t.legal_steps().is_empty());
    let after = t.finish().unwrap();
    assert_eq!(after, p.pass_turn());
    assert_eq!(p.legal_moves(dice(6, 5)), vec![p.pass_turn()]);
}

// ---------------------------------------------------------------- six-block

/// Seed 000's example: white on 10,9,8,7,6 (two each), able to close 5
/// (10-5 with a five); black with no checker home.
fn block_example(black: &[(u8, i64)], v: &str) -> Position {
    common::build(
        Color::White,
        &[(24, 5), (10, 2), (9, 2), (8, 2), (7, 2), (6, 2)],
        black,
        false,
        variant(v),
    )
}

fn closes_10_to_5(f: &Position) -> bool {
    (5..=10).all(|p| f.checkers(Color::White, p) > 0)
}

#[test]
fn six_block_seed_000_example_under_opponent_home() {
    // Given seed 000's example under prime_rule=opponent_home (black all on
    // his head, none home),
    let p = block_example(&[(12, 15)], "prime_rule=opponent_home");
    // When white rolls 6-5, Then no final closes 10..5 and 10-5 is refused.
    assert!(p.legal_moves(dice(6, 5)).iter().all(|f| !closes_10_to_5(f)));
    assert!(seqs(&p, 6, 5).iter().all(|s| !s.contains("-5")));
    assert_eq!(
        Turn::new(&p, dice(6, 5)).play_step(step("10-5")),
        Err(StepError::SixBlock)
    );
    // Given black has one checker home (15), Then the block is allowed.
    let p = block_example(&[(12, 14), (15, 1)], "prime_rule=opponent_home");
    assert!(firsts(&p, 6, 5).contains(&"10-5".to_string()));
    assert!(p.legal_moves(dice(6, 5)).iter().any(closes_10_to_5));
    // Given black's checker has passed the block but is not home (4),
    // Then under opponent_home the block is still forbidden.
    let p = block_example(&[(12, 14), (4, 1)], "prime_rule=opponent_home");
    assert!(p.legal_moves(dice(6, 5)).iter().all(|f| !closes_10_to_5(f)));
}

#[test]
fn six_block_seed_000_example_under_opponent_ahead() {
    // Given the same example under the default (opponent_ahead), black all
    // behind the block, Then it is forbidden too.
    let p = block_example(&[(12, 15)], "");
    assert_eq!(
        Turn::new(&p, dice(6, 5)).play_step(step("10-5")),
        Err(StepError::SixBlock)
    );
    assert!(p.legal_moves(dice(6, 5)).iter().all(|f| !closes_10_to_5(f)));
    // Given one black checker has passed it (on 4), Then it is allowed.
    let p = block_example(&[(12, 14), (4, 1)], "");
    assert!(p.legal_moves(dice(6, 5)).iter().any(closes_10_to_5));
    // Given black's most advanced checker is behind it (11), Then forbidden.
    let p = block_example(&[(12, 14), (11, 1)], "");
    assert!(p.legal_moves(dice(6, 5)).iter().all(|f| !closes_10_to_5(f)));
}

#[test]
fn six_block_counts_borne_off_opponent_checkers_as_passed() {
    // Given black has borne off one (the rest home), white can close a prime.
    let p = block_example(&[(13, 14)], "");
    assert!(p.legal_moves(dice(6, 5)).iter().any(closes_10_to_5));
}

#[test]
fn six_block_does_not_continue_across_blacks_route_end() {
    // Given white on 15,14,13 and 12,11 (black's route: 13 is its end and 12
    // its start, so they are not consecutive for black) and a checker on 16
    // that can go to 10, black with no checker home and none ahead,
    for v in ["", "prime_rule=opponent_home"] {
        let p = common::build(
            Color::White,
            &[
                (24, 9),
                (16, 1),
                (15, 1),
                (14, 1),
                (13, 1),
                (12, 1),
                (11, 1),
            ],
            &[(5, 15)],
            false,
            variant(v),
        );
        // When white rolls 6-1, Then 16-10 (six points 15..10 in a row on
        // the board, but not on black's route) is legal.
        assert!(firsts(&p, 6, 1).contains(&"16-10".to_string()), "{v}");
        assert!(
            p.legal_moves(dice(6, 1))
                .iter()
                .any(|f| (10..=15).all(|q| f.checkers(Color::White, q) > 0)),
            "{v}"
        );
    }
}

#[test]
fn six_block_does_not_continue_across_whites_route_end() {
    // Given black on 3,2,1,24,23 (consecutive on black's route, but 1 is
    // white's route end and 24 its start) and a checker on 4 that can go to
    // 22, white with no checker home and none ahead,
    for v in ["", "prime_rule=opponent_home"] {
        let p = common::build(
            Color::Black,
            &[(10, 15)],
            &[(12, 9), (4, 1), (3, 1), (2, 1), (1, 1), (24, 1), (23, 1)],
            false,
            variant(v),
        );
        // When black rolls 6-1, Then 4-22 is legal.
        assert!(firsts(&p, 6, 1).contains(&"4-22".to_string()), "{v}");
    }
}

#[test]
fn six_block_is_checked_after_every_single_step() {
    // Given white on 10,9,8,7,6 (one each) and 17, black all on his head:
    // 17-11 closes 11..6 for a moment, and 6-5 would open it again,
    let p = common::build(
        Color::White,
        &[(24, 9), (17, 1), (10, 1), (9, 1), (8, 1), (7, 1), (6, 1)],
        &[(12, 15)],
        false,
        variant(""),
    );
    // When white rolls 6-1,
    let s = seqs(&p, 6, 1);
    // Then 6-5 then 17-11 is legal, but not the other order,
    assert!(s.contains(&"6-5,17-11".to_string()), "{s:?}");
    assert!(!s.contains(&"17-11,6-5".to_string()), "{s:?}");
    assert_eq!(
        Turn::new(&p, dice(6, 1)).play_step(step("17-11")),
        Err(StepError::SixBlock)
    );
    // And the final 11,10,9,8,7,5 is reachable.
    assert!(p.legal_moves(dice(6, 1)).iter().any(|f| {
        [11, 10, 9, 8, 7, 5]
            .iter()
            .all(|&q| f.checkers(Color::White, q) == 1)
            && f.checkers(Color::White, 6) == 0
    }));
}

#[test]
fn six_block_already_on_the_board_must_be_broken_at_once() {
    // Given a set-up position already holding a forbidden prime (11..6),
    let p = common::build(
        Color::White,
        &[(24, 9), (11, 1), (10, 1), (9, 1), (8, 1), (7, 1), (6, 1)],
        &[(12, 15)],
        false,
        variant(""),
    );
    // When white rolls 6-5, Then every step leaves no forbidden prime: the
    // first step must break it.
    let m = p.moves(dice(6, 5));
    assert!(!m.sequences.is_empty());
    for s in m.sequences {
        let mut t = Turn::new(&p, dice(6, 5));
        for st in s.steps() {
            t.play_step(*st).unwrap();
            assert!(!white_prime_on_blacks_route(&t.position()), "{s}");
        }
    }
}

/// Whether white holds six consecutive points along black's route
/// (12, 11, ..., 1, 24, ..., 13; no wrap).
fn white_prime_on_blacks_route(p: &Position) -> bool {
    let route: Vec<u8> = (0..24)
        .map(|r| tabula_long::point_of(Color::Black, r))
        .collect();
    route
        .windows(6)
        .any(|w| w.iter().all(|&q| p.checkers(Color::White, q) > 0))
}

// ---------------------------------------------------------------- bearing off

#[test]
fn bear_off_with_the_exact_die() {
    // Given white on 5 and 3 only, When 5-3, Then each goes off with its
    // own die (or 5 moves inside to 2 and the 5 takes 3, now farthest).
    let p = pos!(white; w [5:1, 3:1]; b [13:15]);
    assert_eq!(
        seqs(&p, 5, 3),
        vec!["5-off,3-off", "5-2,3-off", "3-off,5-off"]
    );
}

#[test]
fn bear_off_with_a_larger_die_only_from_the_farthest_point() {
    // Given white on 4 and 2 only,
    let p = pos!(white; w [4:1, 2:1]; b [13:15]);
    // When white rolls 6-5, Then 4 goes off first (farthest), then 2.
    assert_eq!(seqs(&p, 6, 5), vec!["4-off,2-off"]);
    // Given white on 5 and 2, When 6-3, Then 2-off is refused (5 is farther).
    let p = pos!(white; w [5:1, 2:1]; b [13:15]);
    let mut t = Turn::new(&p, dice(6, 3));
    assert!(matches!(
        t.play_step(step("2-off")),
        Err(StepError::BearOffWrongDie {
            point: 2,
            distance: 2,
            ..
        })
    ));
    t.play_step(step("5-off")).unwrap();
    t.play_step(step("2-off")).unwrap();
    assert!(t.is_complete());
}

#[test]
fn bear_off_only_when_all_fifteen_are_home() {
    let p = pos!(white; w [7:1, 3:14]; b [13:15]);
    let mut t = Turn::new(&p, dice(6, 3));
    assert_eq!(t.play_step(step("3-off")), Err(StepError::BearOffTooEarly));
    assert!(seqs(&p, 6, 3).iter().all(|s| !s.starts_with("3-off")));
}

#[test]
fn a_checker_entering_home_lets_the_second_die_bear_off() {
    // Given white on 8 and 3: 8-6 with the 2 brings all home, then the 3 bears off.
    let p = pos!(white; w [8:1, 3:14]; b [13:15]);
    assert!(seqs(&p, 3, 2).contains(&"8-6,3-off".to_string()));
}

#[test]
fn moving_inside_home_is_allowed_instead_of_bearing_off() {
    let p = pos!(white; w [6:1, 3:14]; b [13:15]);
    let f = firsts(&p, 3, 1);
    assert!(f.contains(&"3-off".to_string()));
    assert!(f.contains(&"6-3".to_string()));
    assert!(f.contains(&"3-2".to_string()));
}

#[test]
fn black_point_12_plus_n_is_distance_n() {
    // Given black on 13 (distance 1) and 18 (distance 6),
    let p = pos!(black; w [10:15]; b [13:1, 18:1]);
    assert_eq!(
        seqs(&p, 6, 1),
        vec!["18-off,13-off", "18-17,17-off", "13-off,18-off"]
    );
    // Given black on 15 (distance 3, not 2 as seed 000's slip says),
    let p = pos!(black; w [10:15]; b [15:1]);
    // When black rolls 2-1, Then 15 cannot go off with the 2.
    assert_eq!(seqs(&p, 2, 1), vec!["15-13,13-off", "15-14,14-off"]);
    let mut t = Turn::new(&p, dice(2, 1));
    assert!(matches!(
        t.play_step(step("15-off")),
        Err(StepError::BearOffWrongDie {
            point: 15,
            distance: 3,
            ..
        })
    ));
    // When black rolls 3-1, Then 15-off with the 3 ends the game.
    assert!(seqs(&p, 3, 1).contains(&"15-off".to_string()));
}

#[test]
fn bearing_off_the_last_checker_ends_the_turn_with_dice_left() {
    // Given white's last checker on 2, When 6-5, Then one step wins.
    let p = pos!(white; w [2:1]; b [13:15]);
    let m = p.moves(dice(6, 5));
    assert_eq!(seqs(&p, 6, 5), vec!["2-off"]);
    assert_eq!(m.max_dice, 1);
    assert_eq!(m.finals.len(), 1);
    let o = m.finals[0].position.outcome().unwrap();
    assert_eq!(o.winner, Color::White);
    let mut t = Turn::new(&p, dice(6, 5));
    t.play_step(step("2-off")).unwrap();
    assert!(t.is_complete());
    // (the step uses the smallest die that bears the checker off)
    assert_eq!(t.dice_left(), &[6]);
    // Given the last checker on 3 and 6-1, Then both the one-die win and
    // the two-die win are complete sequences.
    let p = pos!(white; w [3:1]; b [13:15]);
    assert_eq!(seqs(&p, 6, 1), vec!["3-off", "3-2,2-off"]);
    assert_eq!(p.legal_moves(dice(6, 1)).len(), 1);
}

// ---------------------------------------------------------------- results

#[test]
fn scoring_oin_mars_koks_under_each_option() {
    use tabula_long::WinKind::*;
    let cases: [(&[(u8, i64)], tabula_long::WinKind); 4] = [
        (&[(13, 14)], Oin),           // black bore off one
        (&[(20, 15)], Mars),          // none off, none in white's home or on 12
        (&[(20, 14), (3, 1)], Koks),  // one in white's home (1-6)
        (&[(20, 14), (12, 1)], Koks), // one on black's own head
    ];
    for (black, kind) in cases {
        for (opt, expect) in [
            ("", kind),
            ("scoring=oin_mars", if kind == Koks { Mars } else { kind }),
            ("scoring=single", Oin),
        ] {
            let p = common::build(Color::Black, &[], black, false, variant(opt));
            let o = p.outcome().unwrap();
            assert_eq!(o.winner, Color::White);
            assert_eq!(o.kind, expect, "{black:?} {opt}");
            assert_eq!(o.points, expect.points());
        }
    }
    // Black wins: koks reading mirrored (white on 13-18 or on 24).
    let v = variant("");
    assert_eq!(
        common::build(Color::White, &[(15, 15)], &[], false, v)
            .outcome()
            .unwrap()
            .kind,
        Koks
    );
    assert_eq!(
        common::build(Color::White, &[(24, 15)], &[], false, v)
            .outcome()
            .unwrap()
            .kind,
        Koks
    );
    assert_eq!(
        common::build(Color::White, &[(10, 15)], &[], false, v)
            .outcome()
            .unwrap()
            .kind,
        Mars
    );
    assert_eq!(
        common::build(Color::White, &[(3, 14)], &[], false, v)
            .outcome()
            .unwrap()
            .kind,
        Oin
    );
    assert!(Position::initial().outcome().is_none());
}

#[test]
fn resign_scores_mars_if_nothing_is_borne_off_else_oin() {
    use tabula_long::{WinKind, resign_outcome};
    let o = resign_outcome(&Position::initial(), Color::White);
    assert_eq!(
        (o.winner, o.kind, o.points),
        (Color::Black, WinKind::Mars, 2)
    );
    let p = pos!(white; w [3:12]; b [20:15]);
    let o = resign_outcome(&p, Color::White);
    assert_eq!(
        (o.winner, o.kind, o.points),
        (Color::Black, WinKind::Oin, 1)
    );
    let p = p.with_variant(variant("scoring=single"));
    assert_eq!(resign_outcome(&p, Color::Black).points, 1);
}

// ---------------------------------------------------------------- step errors

#[test]
fn every_step_error_kind() {
    let start = Position::initial();
    let mut t = Turn::new(&start, dice(6, 5));
    assert_eq!(
        t.play_step_as(Color::Black, step("12-6")),
        Err(StepError::NotYourTurn {
            mover: Color::White,
            player: Color::Black
        })
    );
    assert_eq!(
        t.play_step(step("25-19")),
        Err(StepError::NotOnBoard { point: 25 })
    );
    assert_eq!(
        t.play_step(Step::new(24, 0)),
        Err(StepError::NotOnBoard { point: 0 })
    );
    assert_eq!(
        t.play_step(step("12-6")),
        Err(StepError::NoOwnChecker {
            color: Color::White,
            point: 12
        })
    );
    assert_eq!(
        t.play_step(step("20-15")),
        Err(StepError::NoOwnChecker {
            color: Color::White,
            point: 20
        })
    );
    assert_eq!(
        t.play_step(step("24-20")),
        Err(StepError::DieNotAvailable {
            distance: 4,
            dice: vec![6, 5]
        })
    );
    assert_eq!(t.finish(), Err(StepError::TurnIncomplete));
    t.play_step(step("24-18")).unwrap();
    assert_eq!(t.legal_steps(), vec![step("18-13")]);
    assert_eq!(t.continuations(), vec![Sequence(vec![step("18-13")])]);
    assert_eq!(t.dice_left(), &[5]);
    assert_eq!(
        t.play_step(step("24-19")),
        Err(StepError::HeadRule { limit: 1 })
    );
    t.play_step(step("18-13")).unwrap();
    assert_eq!(t.play_step(step("13-8")), Err(StepError::TurnComplete));

    let p = pos!(white; w [24:14, 20:1]; b [12:15]);
    assert_eq!(
        Turn::new(&p, dice(2, 1)).play_step(step("20-22")),
        Err(StepError::WrongDirection {
            color: Color::White,
            from: 20,
            to: 22
        })
    );
    // LandsOnOpponent, SixBlock, BearOffTooEarly, BearOffWrongDie,
    // MustPlayLargerDie and LeavesDieUnplayed have their own rule tests above.
    let e = StepError::LeavesDieUnplayed.to_string();
    assert!(e.contains("unplayed"));
}

// ---------------------------------------------------------------- first turns

#[test]
fn first_turn_flags_are_kept_for_both_players() {
    let p = Position::initial();
    assert!(p.is_first_turn(Color::White) && p.is_first_turn(Color::Black));
    let after_white = Turn::new(&p, dice(6, 5));
    let mut t = after_white;
    t.play_step(step("24-18")).unwrap();
    t.play_step(step("18-13")).unwrap();
    let p = t.finish().unwrap();
    assert_eq!(p.turn(), Color::Black);
    assert!(p.is_first_turn(Color::Black));
    assert!(!p.is_first_turn(Color::White));
    // The JSON form carries the mover's flag; the opponent's is inferred.
    let s = p.to_setup();
    assert!(s.first_turn);
    assert_eq!(Position::try_from(&s).unwrap(), p);
    for f in p.legal_moves(dice(4, 2)) {
        assert!(!f.is_first_turn(Color::White) && !f.is_first_turn(Color::Black));
    }
}

#[test]
fn a_passed_first_turn_still_counts_as_the_first_turn() {
    // Given black on his first turn with every landing point taken,
    let p = pos!(black; w [24:9, 11:1, 10:1, 9:1, 8:1, 7:1, 6:1]; b [12:15]; first);
    assert!(p.is_first_turn(Color::Black));
    // When black rolls 6-6 (which would allow two from the head), Then he passes,
    let t = Turn::new(&p, dice(6, 6));
    assert!(t.is_complete());
    let after = t.finish().unwrap();
    // And his first turn is used up.
    assert_eq!(after.turn(), Color::White);
    assert!(!after.is_first_turn(Color::Black));
    assert_eq!(p.legal_moves(dice(6, 6)), vec![after]);
}

// ---------------------------------------------------------------- listing

#[test]
fn every_final_has_a_canonical_sequence_that_reaches_it() {
    let p = pos!(white; w [24:10, 20:2, 17:1, 13:2]; b [12:10, 8:3, 3:2]);
    for d in tabula_dice::Dice::ALL_21 {
        let m = p.moves(d);
        for f in &m.finals {
            assert_eq!(
                p.play_unchecked(f.sequence.steps()),
                f.position,
                "{d} {}",
                f.sequence
            );
        }
        for s in &m.sequences {
            let text = s.to_string();
            assert_eq!(text.parse::<Sequence>().unwrap(), *s);
        }
    }
}
