use tabula_bots::bg::search::sample;

use super::*;

#[test]
fn one_ply_probs_agree_with_one_ply_equity_and_labels_ignore_threads() {
    let net = Net::shipped();
    let pos = sample(net, 40, 0.0, 3);
    let mut buf = Vec::new();
    for p in &pos {
        let probs = one_ply_probs(net, p, &mut buf);
        let eq = tabula_bots::bg::search::one_ply(net, p, &mut buf, Scoring::Gammons);
        assert!(
            (probs.equity() - eq).abs() < 1e-4,
            "{} vs {eq}",
            probs.equity()
        );
        assert!((0.0..=1.0).contains(&probs.win));
    }
    assert_eq!(
        label(net, &pos, Depth::OnePly, 1),
        label(net, &pos, Depth::OnePly, 3)
    );
}

#[test]
fn two_ply_probs_agree_with_hards_two_ply_and_labels_ignore_threads() {
    let net = Net::shipped();
    let pos = sample(net, 6, 0.0, 4);
    let (mut buf, mut deeper) = (Vec::new(), Vec::new());
    let labels = label(net, &pos, Depth::TwoPly, 2);
    assert_eq!(labels, label(net, &pos, Depth::TwoPly, 1));
    for (p, probs) in pos.iter().zip(&labels) {
        let mut budget = usize::MAX;
        let eq = tabula_bots::bg::search::two_ply(
            net,
            p,
            &mut buf,
            &mut deeper,
            &mut budget,
            Scoring::Gammons,
        )
        .unwrap();
        assert!(
            (probs.equity() - eq).abs() < 1e-4,
            "{} vs {eq}",
            probs.equity()
        );
        assert!((0.0..=1.0).contains(&probs.win));
        assert!(probs.win_gammon <= probs.win + 1e-6);
    }
    // Deeper is different: not the one-roll label again.
    assert_ne!(labels, label(net, &pos, Depth::OnePly, 1));
}

#[test]
fn fitting_lowers_the_held_out_error_and_replays_for_a_seed() {
    // A fresh network fitted to the shipped one's 1-ply labels.
    let teacher = Net::shipped();
    let pos = sample(teacher, 1500, 0.05, 11);
    let labels = label(teacher, &pos, Depth::OnePly, 2);
    let data: Vec<_> = pos.into_iter().zip(labels).collect();
    let config = FitConfig {
        epochs: 10,
        alpha: 0.1,
        holdout: 0.2,
        seed: 5,
    };
    let run = || {
        let mut net = Net::random(16, 1);
        let mut errors = Vec::new();
        fit(&mut net, &data, config, |_, e, _| errors.push(e));
        (net, errors)
    };
    let (a, errors) = run();
    assert_eq!(errors.len(), 11);
    assert!(
        errors[10] < errors[0] * 0.5,
        "held-out error {errors:?} did not halve"
    );
    assert_eq!(a, run().0, "the same seed gives the same weights");
}

#[test]
fn back_checkers_count_the_bar_and_the_other_home_board() {
    let start = Position::initial();
    assert_eq!(back_checkers(start.board()), [2, 2]);
    assert!(!deep_back(&start));
    let mut b = [0i8; 26];
    b[25] = 1; // on the bar
    b[22] = 2;
    b[6] = 12; // our 6 point: not back
    b[0] = -1; // theirs on the bar
    b[3] = -1; // in our home board
    b[7] = -13;
    assert_eq!(back_checkers(&b), [3, 2]);
    let p = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
    assert!(deep_back(&p));
}

#[test]
fn rollouts_play_out_what_is_sure_and_label_alike_on_any_threads() {
    let net = Net::shipped();
    // Our last checker on our 1 point; all fifteen of theirs on our
    // 12 point (outside our home board): whatever they roll, we bear
    // off next: a gammon, not a backgammon.
    let mut b = [0i8; 26];
    b[1] = 1;
    b[12] = -15;
    let sure = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
    let gammon = Probs {
        win: 1.0,
        win_gammon: 1.0,
        lose_gammon: 0.0,
        win_backgammon: 0.0,
        lose_backgammon: 0.0,
    };
    let mut buf = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for first in Dice::ALL_21 {
        assert_eq!(
            rollout_probs(net, &sure, first, 2, &mut rng, &mut buf),
            gammon
        );
    }
    // No moves played: the network's own judgement.
    let judged = net.evaluate(&sure);
    assert_eq!(
        rollout_probs(net, &sure, Dice::ALL_21[0], 0, &mut rng, &mut buf),
        judged
    );

    let pos = sample(net, 150, 0.1, 5);
    let labels = label(net, &pos, Depth::OnePly, 1);
    let mut one: Vec<_> = pos.iter().copied().zip(labels.iter().copied()).collect();
    let mut three = one.clone();
    let n = label_rollouts(net, &mut one, deep_back, 36, 6, 9, 1);
    assert_eq!(n, label_rollouts(net, &mut three, deep_back, 36, 6, 9, 3));
    assert_eq!(one, three);
    assert_eq!(n, pos.iter().filter(|p| deep_back(p)).count());
    assert!(n > 0 && n < pos.len(), "{n} of {}", pos.len());
    for ((p, l), old) in one.iter().zip(&labels) {
        if deep_back(p) {
            assert_ne!(l, old);
            assert!((0.0..=1.0).contains(&l.win) && l.win_gammon <= l.win + 1e-6);
        } else {
            assert_eq!(l, old);
        }
    }
    let mut sure_data = vec![(sure, labels[0])];
    assert_eq!(
        label_rollouts(net, &mut sure_data, |_| true, 36, 2, 1, 1),
        1
    );
    assert_eq!(sure_data[0].1, gammon);
}

#[test]
fn labelled_positions_round_trip_and_bad_files_are_refused() {
    let net = Net::shipped();
    let pos = sample(net, 50, 0.1, 2);
    let labels = label(net, &pos, Depth::OnePly, 1);
    let data: Vec<_> = pos.into_iter().zip(labels).collect();
    let bytes = write_data(&data);
    let back = read_data(&bytes).expect("reads back");
    assert_eq!(back.len(), data.len());
    for ((p, t), (q, u)) in data.iter().zip(&back) {
        assert_eq!(p.board(), q.board());
        // The file keeps the three outputs the network is fitted to
        // (the backgammon head is fitted apart).
        assert_eq!(
            (t.win, t.win_gammon, t.lose_gammon),
            (u.win, u.win_gammon, u.lose_gammon)
        );
        assert_eq!(net.evaluate(p), net.evaluate(q));
    }
    assert!(read_data(&bytes[..bytes.len() - 1]).is_none());
    assert!(read_data(b"TBGNET2\0\0\0\0\0\0\0\0\0").is_none());
    let mut bad = bytes.clone();
    bad[16] = 20; // the mover's checkers on the opponent's bar
    assert!(read_data(&bad).is_none());
    let mut bad = bytes.clone();
    bad[16 + 26..16 + 30].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(
        read_data(&bad).is_none(),
        "a label that is not a probability"
    );
}
