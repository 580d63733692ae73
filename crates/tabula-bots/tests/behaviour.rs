//! Wins are taken, captures are made, Medium beats Easy.

use std::collections::BTreeMap;

use rand::Rng;
use tabula_bots::{Bot, Level};
use tabula_dice::{Dice, DiceSource, SeededDice};

fn long_setup(white: &[(u8, i64)], black: &[(u8, i64)], off_white: i64) -> tabula_long::Position {
    let map = |xs: &[(u8, i64)]| {
        xs.iter()
            .map(|&(p, n)| (p.to_string(), n))
            .collect::<BTreeMap<_, _>>()
    };
    tabula_long::Position::try_from(tabula_long::Setup {
        turn: tabula_long::Color::White,
        white: map(white),
        black: map(black),
        off: tabula_long::OffCounts {
            white: off_white,
            black: 0,
        },
        first_turn: false,
    })
    .unwrap()
}

#[test]
fn an_immediate_win_is_always_taken_in_long_nardy() {
    let pos = long_setup(&[(6, 1), (1, 1)], &[(12, 15)], 13);
    let dice = Dice::new(6, 1).unwrap();
    // Some legal plays do not win (6-5 then 5-off leaves the checker on 1).
    assert!(pos.legal_moves(dice).iter().any(|p| !p.is_game_over()));
    for level in [Level::Medium, Level::Hard] {
        for seed in 0..5 {
            let steps = Bot::new(level, seed)
                .choose_play(tabula_bots::Position::Long(&pos), Some(dice))
                .and_then(tabula_bots::Play::into_long)
                .unwrap_or_default();
            let after = pos.play_unchecked(&steps);
            assert!(after.is_game_over(), "{level} missed the win: {steps:?}");
        }
    }
}

#[test]
fn an_immediate_win_is_always_taken_in_backgammon() {
    let mut b = [0i8; 26];
    b[6] = 1;
    b[1] = 1;
    b[19] = -15;
    let pos = tabula_backgammon::Position::from_board(b, tabula_backgammon::Side::White).unwrap();
    let dice = Dice::new(6, 1).unwrap();
    assert!(pos.legal_positions(dice).iter().any(|p| !p.is_over()));
    for level in [Level::Medium, Level::Hard] {
        for seed in 0..5 {
            let steps = Bot::new(level, seed)
                .choose_play(tabula_bots::Position::Backgammon(&pos), Some(dice))
                .and_then(tabula_bots::Play::into_backgammon)
                .unwrap_or_default();
            let mut turn = tabula_backgammon::Turn::new(&pos, dice);
            for (f, t) in steps {
                turn.step_to(f, t).unwrap();
            }
            assert!(turn.finish().unwrap().is_over(), "{level} missed the win");
        }
    }
}

fn thud(turn: &str, dwarfs: &[&str], trolls: &[&str]) -> tabula_thud::Position {
    tabula_thud::Position::try_from(tabula_thud::Setup {
        turn: turn.to_string(),
        dwarfs: dwarfs.iter().map(|s| s.to_string()).collect(),
        trolls: trolls.iter().map(|s| s.to_string()).collect(),
        plies_since_capture: 0,
    })
    .unwrap()
}

#[test]
fn thud_medium_and_hard_capture_when_they_can() {
    let dwarfs_to_move = thud("dwarfs", &["g5", "a6", "o9"], &["g6", "h12"]);
    let trolls_to_move = thud("trolls", &["g5", "i5", "a6"], &["h7", "h12"]);
    for level in [Level::Medium, Level::Hard] {
        for seed in 0..5 {
            let mv = Bot::new(level, seed)
                .choose_play(tabula_bots::Position::Thud(&dwarfs_to_move), None)
                .and_then(tabula_bots::Play::into_thud)
                .unwrap();
            assert!(mv.is_capture(), "{level} dwarfs missed a capture: {mv}");
            let mv = Bot::new(level, seed)
                .choose_play(tabula_bots::Position::Thud(&trolls_to_move), None)
                .and_then(tabula_bots::Play::into_thud)
                .unwrap();
            assert!(mv.is_capture(), "{level} trolls missed a capture: {mv}");
        }
    }
}

/// `games` long nardy games (white always starts; seats alternate, each
/// pair of games with the same dice), the win rate of `a`.
fn long_match(a: Level, b: Level, games: u64, seed: u64) -> f64 {
    long_match_bots(|s| Bot::new(a, s), |s| Bot::new(b, s), games, seed).0
}

/// [`long_match`] between bots made by `a` and `b` from a seed: `a`'s win
/// rate, and the points each won (oin 1, mars 2, koks 3).
fn long_match_bots(
    a: impl Fn(u64) -> Bot,
    b: impl Fn(u64) -> Bot,
    games: u64,
    seed: u64,
) -> (f64, u32, u32) {
    let (mut wins, mut points) = (0, [0u32; 2]);
    for g in 0..games {
        let mut dice = SeededDice::new(seed + g / 2);
        let mut bots = [a(seed ^ (g << 8)), b(seed ^ (g << 8) ^ 1)];
        let a_white = g.is_multiple_of(2);
        let mut pos = tabula_long::Position::initial();
        while !pos.is_game_over() {
            let roll = dice.roll();
            let white = pos.turn() == tabula_long::Color::White;
            let who = usize::from(white != a_white);
            let steps = bots[who]
                .choose_play(tabula_bots::Position::Long(&pos), Some(roll))
                .and_then(tabula_bots::Play::into_long)
                .unwrap_or_default();
            pos = pos.play_unchecked(&steps);
        }
        let o = pos.outcome().unwrap();
        let a_won = (o.winner == tabula_long::Color::White) == a_white;
        wins += u32::from(a_won);
        points[usize::from(!a_won)] += u32::from(o.points);
    }
    (f64::from(wins) / games as f64, points[0], points[1])
}

fn bg_match(a: Level, b: Level, games: u64, seed: u64) -> f64 {
    let mut wins = 0;
    for g in 0..games {
        let mut dice = SeededDice::new(seed + g / 2);
        let mut bots = [
            Bot::new(a, seed ^ (g << 8)),
            Bot::new(b, seed ^ (g << 8) ^ 1),
        ];
        let a_white = g.is_multiple_of(2);
        let mut pos = tabula_backgammon::Position::initial();
        if dice.rng().random_bool(0.5) {
            pos = pos.pass_turn();
        }
        loop {
            let roll = dice.roll();
            let white = pos.turn() == tabula_backgammon::Side::White;
            let who = usize::from(white != a_white);
            let steps = bots[who]
                .choose_play(tabula_bots::Position::Backgammon(&pos), Some(roll))
                .and_then(tabula_bots::Play::into_backgammon)
                .unwrap_or_default();
            let mut turn = tabula_backgammon::Turn::new(&pos, roll);
            for (f, t) in steps {
                turn.step_to(f, t).unwrap();
            }
            let next = turn.finish().unwrap();
            if next.is_over() {
                wins += u32::from(white == a_white);
                break;
            }
            pos = next.pass_turn();
        }
    }
    f64::from(wins) / games as f64
}

#[test]
fn medium_beats_easy_in_a_small_arena() {
    let long = long_match(Level::Medium, Level::Easy, 100, 1);
    assert!(long >= 0.75, "long nardy: medium won {long}");
    let bg = bg_match(Level::Medium, Level::Easy, 100, 1);
    assert!(bg >= 0.75, "backgammon: medium won {bg}");
}

#[test]
fn hard_with_the_trained_network_beats_medium_at_backgammon() {
    // The 2,000-game arena measures 85%; 80 games at that rate fall under
    // 65% with a chance below one in ten thousand. An untrained network
    // plays about as well as Medium.
    let bg = bg_match(Level::Hard, Level::Medium, 80, 3);
    assert!(bg >= 0.65, "backgammon: hard won {bg}");
}

#[test]
fn hard_with_the_trained_network_beats_the_classic_hard_at_long_nardy() {
    // Hard as shipped (the network, one roll deeper for the best few)
    // against Hard as it was (the hand-made evaluation and its
    // expectimax). RESULTS.md measures it over 2,000 paired games; a
    // regression of the network or the search fails this smaller sample.
    let (rate, ours, theirs) = long_match_bots(
        |s| Bot::new(Level::Hard, s),
        |s| Bot::new(Level::Hard, s).with_classic_long(),
        40,
        11,
    );
    assert!(
        rate >= 0.6,
        "long nardy: hard won {rate} against the classic hard"
    );
    assert!(
        ours >= 2 * theirs,
        "long nardy: hard won {ours} points to the classic hard's {theirs}"
    );
}

#[test]
fn each_level_loses_less_equity_per_move_than_the_one_below_it() {
    // The error rate's method on the first 16 of the committed decisions
    // (RESULTS.md has the full 500 × 1,296): paired, quasi-random rollouts
    // of every level's pick and Hard's best three, truncated here to keep
    // the test short (on this sample: easy 0.154, medium 0.101, the
    // classic Hard 0.038, Hard 0.013 points a move). Deterministic for the
    // seeds.
    use tabula_bots::error_rate::{Player, RolloutSettings, judge, sample_decisions, summarise};
    let settings = RolloutSettings {
        trials: 144,
        truncate: 12,
        seed: 1,
    };
    let judged: Vec<_> = sample_decisions(16, 1)
        .iter()
        .enumerate()
        .map(|(i, d)| judge(d, i as u64, &settings))
        .collect();
    let loss = |p: Player| summarise(&judged, p).mean_loss;
    let (easy, medium, hard) = (loss(Player::Easy), loss(Player::Medium), loss(Player::Hard));
    assert!(
        hard < 0.5 * medium && medium < easy,
        "mean loss per move: easy {easy:.4}, medium {medium:.4}, hard {hard:.4}"
    );
    assert!(hard < 0.06, "Hard lost {hard:.4} a move");
    let classic = loss(Player::HardClassic);
    assert!(
        hard < classic,
        "Hard {hard:.4}, the classic Hard {classic:.4}"
    );
}
