//! One test per rule, Given / When / Then, on small positions.
//!
//! `pos!(x 25:1, 10:2; o 22:2, 0:1)` builds a position with `x` on roll:
//! every point in x's numbering (1..24, x's home 1..6), 25 = x's bar and
//! 0 = o's bar; checkers not listed are borne off.

use tabula_backgammon::*;
use tabula_dice::Dice;

macro_rules! pos {
    (x $($xp:literal : $xn:literal),* ; o $($op:literal : $on:literal),*) => {{
        let mut b = [0i8; 26];
        $( b[$xp] += $xn; )*
        $( b[$op] -= $on; )*
        Position::from_board(b, Side::White).expect("test position is legal")
    }};
}

fn dice(a: u8, b: u8) -> Dice {
    Dice::new(a, b).unwrap()
}

/// The results of a roll, sorted, as raw boards (for set comparison).
fn results(p: &Position, d: Dice) -> Vec<[i8; 26]> {
    let mut v: Vec<[i8; 26]> = p.legal_positions(d).iter().map(|r| *r.board()).collect();
    v.sort();
    v
}

fn boards(ps: &[Position]) -> Vec<[i8; 26]> {
    let mut v: Vec<[i8; 26]> = ps.iter().map(|r| *r.board()).collect();
    v.sort();
    v
}

fn notations(p: &Position, d: Dice) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_plays(d)
        .iter()
        .map(|(pl, _)| pl.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn initial_position_is_standard() {
    let p = Position::initial();
    for side in [Side::White, Side::Black] {
        assert_eq!(p.checkers(side, 24), 2);
        assert_eq!(p.checkers(side, 13), 5);
        assert_eq!(p.checkers(side, 8), 3);
        assert_eq!(p.checkers(side, 6), 5);
        assert_eq!(p.pip_count(side), 167);
        assert_eq!(p.off(side), 0);
    }
    assert_eq!(p.turn(), Side::White);
}

#[test]
fn opening_six_five_has_seven_plays_and_three_one_sixteen() {
    let p = Position::initial();
    assert_eq!(p.legal_moves(dice(6, 5)).len(), 7);
    assert_eq!(p.legal_positions(dice(3, 1)).len(), 16);
    assert_eq!(p.legal_plays(dice(6, 5)).len(), 7);
    assert_eq!(p.legal_plays(dice(3, 1)).len(), 16);
    assert_eq!(p.max_dice(dice(6, 5)), 2);
    assert_eq!(p.max_dice(dice(1, 1)), 4);
}

#[test]
fn hit_sends_a_single_opponent_checker_to_the_bar() {
    // Given an opponent blot on x's 18-point
    let p = pos!(x 24:1; o 18:1, 1:2);
    // When x plays 24/18* with a 6 (and the 1 after)
    let d = dice(6, 1);
    let play = p.parse_play(d, "24/18* 18/17").unwrap();
    let after = p.play(d, &play).unwrap();
    // Then the blot is on the opponent's bar
    assert_eq!(after.bar(Side::Black), 1);
    assert_eq!(after.checkers(Side::White, 17), 1);
    assert_eq!(after.checkers(Side::Black, 7), 0);
    assert!(play.to_string().contains("24/18*"));
}

#[test]
fn closed_point_cannot_be_landed_on() {
    // Given two opponent checkers on x's 18-point
    let p = pos!(x 24:1; o 18:2);
    // When x rolls 6-6
    let d = dice(6, 6);
    // Then the checker cannot move at all
    assert_eq!(p.max_dice(d), 0);
    assert_eq!(p.legal_positions(d), vec![p]);
    let mut turn = Turn::new(&p, d);
    assert_eq!(turn.step(24, 6), Err(StepError::TurnComplete));
    // and with 6-5 only the 5 is playable
    let mut t = Turn::new(&p, dice(6, 5));
    assert_eq!(t.max_dice(), 2);
    assert_eq!(t.step(24, 6), Err(StepError::PointClosed(18)));
    t.step(24, 5).unwrap();
    t.step(19, 6).unwrap();
}

#[test]
fn checker_on_the_bar_must_enter_before_any_other_move() {
    // Given x has a checker on the bar and one on 13
    let p = pos!(x 25:1, 13:1; o 1:2);
    // When x tries to move the 13 first
    let mut t = Turn::new(&p, dice(6, 5));
    // Then it is refused
    assert_eq!(t.step(13, 6), Err(StepError::MustEnterFirst));
    assert_eq!(t.step(25, 6).unwrap().to(), 19);
    t.step(13, 5).unwrap();
    // And every generated result has the bar empty
    assert!(
        p.legal_positions(dice(6, 5))
            .iter()
            .all(|r| r.bar(Side::White) == 0)
    );
}

#[test]
fn no_entry_means_the_turn_passes() {
    // Given x on the bar against points 19 and 20 closed
    let p = pos!(x 25:1, 10:3; o 19:2, 20:2);
    // When x rolls 6-5
    let d = dice(6, 5);
    // Then nothing moves, not even the checkers on 10
    assert_eq!(p.max_dice(d), 0);
    assert_eq!(p.legal_positions(d), vec![p]);
    assert!(p.legal_plays(d).is_empty());
    assert_eq!(p.play(d, &Play::default()), Ok(p));
    // two on the bar, only one can enter: nothing else moves
    let q = pos!(x 25:2, 10:3; o 19:2);
    let r = q.legal_positions(dice(6, 5));
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].bar(Side::White), 1);
    assert_eq!(r[0].checkers(Side::White, 10), 3);
}

#[test]
fn max_dice_rule_forces_a_play_using_both_dice() {
    // Given x could play the 6 from 13 alone, but then the 1 is blocked;
    // 24/23/17 uses both dice
    let p = pos!(x 24:1, 13:1; o 23:2, 12:2, 6:2);
    let d = dice(6, 1);
    // When / Then every result uses both dice
    assert_eq!(p.max_dice(d), 2);
    let mut t = Turn::new(&p, d);
    assert_eq!(t.step(13, 6), Err(StepError::LeavesDieUnplayed));
    t.step(24, 6).unwrap();
    t.step(18, 1).unwrap();
    assert_eq!(notations(&p, d), vec!["24/18 18/17".to_string()]);
}

#[test]
fn larger_die_must_be_played_when_only_one_can() {
    // Given a lone checker that can move 5 or 3 but not both
    let p = pos!(x 20:1; o 12:2, 14:2, 1:1);
    let d = dice(5, 3);
    // When only one die can be played
    assert_eq!(p.max_dice(d), 1);
    // Then it is the larger
    assert_eq!(results(&p, d), boards(&[pos!(x 15:1; o 12:2, 14:2, 1:1)]));
    let mut t = Turn::new(&p, d);
    assert_eq!(t.step(20, 3), Err(StepError::MustPlayLarger(5)));
    t.step(20, 5).unwrap();
    assert!(t.is_complete());
}

#[test]
fn smaller_die_is_played_when_the_larger_cannot_be() {
    let p = pos!(x 20:1; o 14:2, 11:2);
    let d = dice(6, 3);
    assert_eq!(p.max_dice(d), 1);
    assert_eq!(results(&p, d), boards(&[pos!(x 17:1; o 14:2, 11:2)]));
}

#[test]
fn bear_off_with_the_exact_die() {
    // Given all home: 6, 4 and 2
    let p = pos!(x 6:1, 4:1, 2:1; o 24:2);
    // When 4-2
    let d = dice(4, 2);
    // Then 4/off 2/off is among the plays
    let play = p.parse_play(d, "4/off 2/off").unwrap();
    let after = p.play(d, &play).unwrap();
    assert_eq!(after.off(Side::White), 14);
    assert_eq!(after.checkers(Side::White, 6), 1);
}

#[test]
fn bear_off_with_a_larger_die_only_from_the_farthest_point() {
    // Given checkers on 4 and 2, rolling 6-5
    let p = pos!(x 4:1, 2:1; o 24:2);
    let d = dice(6, 5);
    // Then both come off
    assert_eq!(results(&p, d), boards(&[pos!(x ; o 24:2)]));
    // And a 5 cannot bear off from 2 while 4 is occupied
    let q = pos!(x 4:1, 2:1, 1:1; o 24:2);
    let mut t = Turn::new(&q, dice(5, 1));
    assert_eq!(
        t.step(2, 5),
        Err(StepError::NotFarthest { from: 2, die: 5 })
    );
    t.step(4, 5).unwrap();
}

#[test]
fn no_bear_off_while_a_checker_is_outside_home() {
    // Given one checker on 9
    let p = pos!(x 9:1, 3:2; o 24:2);
    // When 6-3
    let d = dice(6, 3);
    let mut t = Turn::new(&p, d);
    // Then 3/off first is illegal, but 9/3 then 3/off is fine
    assert_eq!(t.step(3, 3), Err(StepError::NotAllHome));
    t.step(9, 6).unwrap();
    t.step(3, 3).unwrap();
    assert_eq!(t.finish().unwrap().off(Side::White), 13);
}

#[test]
fn a_hit_checker_must_come_home_again_before_bearing_off_resumes() {
    // Given x bearing off, one checker just hit to the bar
    let p = pos!(x 25:1, 2:3; o 19:1);
    // When 6-2
    let d = dice(6, 2);
    // Then no checker comes off this turn
    for r in p.legal_positions(d) {
        assert_eq!(r.off(Side::White), 11);
        assert_eq!(r.bar(Side::White), 0);
    }
    let mut t = Turn::new(&p, d);
    assert_eq!(t.step(2, 2), Err(StepError::MustEnterFirst));
    t.step(25, 6).unwrap();
    assert_eq!(t.step(2, 2), Err(StepError::NotAllHome));
}

#[test]
fn single_scoring_counts_every_win_as_one_point() {
    let p = pos!(x ; o 24:15);
    let o = p.outcome(Scoring::Single).unwrap();
    assert_eq!(o.winner, Side::White);
    assert_eq!(o.kind, WinKind::Gammon);
    assert_eq!(o.points, 1);
}

#[test]
fn gammon_and_backgammon_scoring() {
    // Given x has borne everything off
    // When o has borne off some: a single game
    let single = pos!(x ; o 24:14);
    assert_eq!(single.outcome(Scoring::Gammons).unwrap().points, 1);
    // When o has borne off none, all in its home: gammon
    let gammon = pos!(x ; o 24:15);
    let g = gammon.outcome(Scoring::Gammons).unwrap();
    assert_eq!((g.kind, g.points), (WinKind::Gammon, 2));
    // When o still has a checker in x's home: backgammon
    let bg = pos!(x ; o 24:14, 3:1);
    let b = bg.outcome(Scoring::Gammons).unwrap();
    assert_eq!((b.kind, b.points), (WinKind::Backgammon, 3));
    // or on the bar
    let bar = pos!(x ; o 24:14, 0:1);
    assert_eq!(
        bar.outcome(Scoring::Gammons).unwrap().kind,
        WinKind::Backgammon
    );
    assert!(Position::initial().outcome(Scoring::Gammons).is_none());
}

#[test]
fn scoring_options_parse_with_clear_errors() {
    assert_eq!(
        "scoring=gammons".parse::<Options>().unwrap().scoring,
        Scoring::Gammons
    );
    assert_eq!(Options::default().scoring, Scoring::Single);
    assert_eq!(
        Options::from_pairs(&[("scoring", "single")])
            .unwrap()
            .scoring,
        Scoring::Single
    );
    assert!(matches!(
        "scoring=triple".parse::<Options>(),
        Err(OptionError::BadValue { .. })
    ));
    assert!(matches!(
        "cube=on".parse::<Options>(),
        Err(OptionError::UnknownKey(k)) if k == "cube"
    ));
}

#[test]
fn position_id_known_values() {
    assert_eq!(Position::initial().gnubg_id(), "4HPwATDgc/ABMA");
    // Confirmed with gnubg.positionid: after 24/18 13/11 (mover still on roll)
    let d = dice(6, 2);
    let p = Position::initial();
    let after = p.play(d, &p.parse_play(d, "24/18 13/11").unwrap()).unwrap();
    assert_eq!(after.gnubg_id(), "4HPwATDgc+RBIA");
    // x on the bar, o on the bar
    let bar = pos!(x 25:1, 13:5, 8:3, 6:6; o 0:1, 1:2, 12:4, 17:3, 19:5);
    assert_eq!(bar.gnubg_id(), "4HPwAFjg5+ADQA");
    let bearoff = pos!(x 6:3, 1:2; o 24:5, 23:5, 22:5);
    assert_eq!(bearoff.gnubg_id(), "3/cBAACDAwAAAA");
    for id in [
        "4HPwATDgc/ABMA",
        "4HPwATDgc+RBIA",
        "4HPwAFjg5+ADQA",
        "3/cBAACDAwAAAA",
    ] {
        assert_eq!(Position::from_gnubg_id(id).unwrap().gnubg_id(), id);
    }
}

#[test]
fn position_id_round_trip_over_random_games() {
    let mut rng = tabula_dice::SeededDice::new(7);
    for _ in 0..20 {
        random_game(&mut rng, &Options::default(), 10_000, |p, _, _| {
            let id = p.gnubg_id();
            let back = Position::from_gnubg_id_with_turn(&id, p.turn()).unwrap();
            assert_eq!(back, *p);
        })
        .unwrap();
    }
}

#[test]
fn bad_position_ids_are_rejected() {
    assert!(matches!(
        Position::from_gnubg_id("abc"),
        Err(PositionIdError::Length(..))
    ));
    assert!(matches!(
        Position::from_gnubg_id("4HPwATDgc/AB!A"),
        Err(PositionIdError::Character('!'))
    ));
    // all ones: far too many checkers
    assert!(Position::from_gnubg_id("//////////////").is_err());
    assert!(Position::from_gnubg_id("AAAAAAAAAAAAAA").is_err());
}

#[test]
fn notation_prints_and_parses() {
    let p = Position::initial();
    let mut v = notations(&p, dice(6, 5));
    v.sort();
    assert!(v.contains(&"24/18 18/13".to_string()));
    assert!(v.contains(&"13/8 13/7".to_string()));
    // gnubg's compact forms read too
    let d = dice(6, 5);
    let a = p.parse_play(d, "24/13").unwrap();
    let b = p.parse_play(d, "24/18 18/13").unwrap();
    assert_eq!(p.play(d, &a), p.play(d, &b));
    let dd = dice(3, 3);
    let c = p.parse_play(dd, "8/5(2) 6/3(2)").unwrap();
    assert_eq!(c.to_string(), "8/5(2) 6/3(2)");
    let e = p.parse_play(dd, "13/10/7/4 24/21").unwrap();
    assert_eq!(e.dice_used(), 4);
    // bar and off
    let q = pos!(x 25:1, 3:1; o 22:1);
    let f = q.parse_play(dice(3, 2), "bar/22* 3/1").unwrap();
    assert_eq!(f.to_string(), "bar/22* 3/1");
    let r = pos!(x 6:1, 2:1; o 24:2);
    let g = r.parse_play(dice(6, 1), "6/off 2/1").unwrap();
    assert_eq!(g.to_string(), "6/off 2/1");
    // errors
    assert!(matches!(
        p.parse_play(d, "24/x"),
        Err(NotationError::Syntax(_))
    ));
    assert!(matches!(
        p.parse_play(d, "20/14"),
        Err(NotationError::NoChecker(..))
    ));
    assert!(matches!(
        p.parse_play(d, "24/18"),
        Err(NotationError::Illegal(_))
    ));
}

#[test]
fn setup_json_round_trip_and_errors() {
    let json = r#"{"turn":"black","white":{"24":2,"13":5,"8":3,"6":5},"black":{"24":2,"13":5,"8":3,"6":5}}"#;
    let s: Setup = serde_json::from_str(json).unwrap();
    let p = s.validate().unwrap();
    assert_eq!(p.turn(), Side::Black);
    assert_eq!(p.gnubg_id(), "4HPwATDgc/ABMA");
    let back = Setup::from(&p).validate().unwrap();
    assert_eq!(back, p);

    let sixteen: Setup =
        serde_json::from_str(r#"{"turn":"white","white":{"24":16},"black":{"1":1}}"#).unwrap();
    assert!(matches!(
        sixteen.validate(),
        Err(SetupError::TooManyCheckers {
            side: Side::White,
            count: 16
        })
    ));
    let both: Setup =
        serde_json::from_str(r#"{"turn":"white","white":{"24":1},"black":{"1":1}}"#).unwrap();
    assert_eq!(
        both.validate(),
        Err(SetupError::BothColours { white_point: 24 })
    );
    let bad: Setup =
        serde_json::from_str(r#"{"turn":"white","white":{"25":1},"black":{"1":1}}"#).unwrap();
    assert!(matches!(bad.validate(), Err(SetupError::BadPoint(_))));
    let off: Setup = serde_json::from_str(
        r#"{"turn":"white","white":{"6":1},"black":{"1":1},"off":{"white":3,"black":14}}"#,
    )
    .unwrap();
    assert!(matches!(
        off.validate(),
        Err(SetupError::OffMismatch { .. })
    ));
}

#[test]
fn doubles_play_four_and_entering_uses_a_die() {
    // Given two on the bar, 4-4 and open entry
    let p = pos!(x 25:2, 6:2; o 1:2);
    let r = p.legal_positions(dice(4, 4));
    // Both enter and two more fours are played
    assert!(r.iter().all(|q| q.bar(Side::White) == 0));
    assert_eq!(p.max_dice(dice(4, 4)), 4);
}

#[test]
fn step_to_off_uses_the_larger_die_when_only_the_larger_may_be_played() {
    // Given white's last checker on his 1-point and a roll of 5-1,
    let p = pos!(x 1:1; o 20:15);
    let mut turn = Turn::new(&p, dice(5, 1));
    // when the step `1/off` is asked for by its points alone,
    let step = turn.step_to(1, 0).expect("1/off is legal");
    // then it bears off with the 5 (only one die can be played, so the
    // larger), not with the exact 1, and the game is over.
    assert_eq!(step.to_string(), "1/off");
    assert!(turn.is_complete());
    assert!(turn.finish().unwrap().is_over());
    let mut with_one = Turn::new(&p, dice(5, 1));
    assert!(matches!(
        with_one.step(1, 1),
        Err(tabula_backgammon::StepError::MustPlayLarger(5))
    ));
}
