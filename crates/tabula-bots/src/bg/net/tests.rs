use rand_chacha::ChaCha8Rng;
use tabula_dice::Dice;

use super::*;

#[test]
fn near_judges_a_parents_children_as_the_network_does() {
    use rand::{Rng, SeedableRng};
    let net = Net::shipped();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut buf = Vec::new();
    let mut pos = Position::initial();
    let mut near = Near::new(net, pos.board());
    let (mut children, mut worst) = (0, 0.0f32);
    let close = |a: Probs, b: Probs| {
        let (a, b) = (a.to_array(), b.to_array());
        a.iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    };
    for _ in 0..400 {
        let dice = Dice::ALL_21[rng.random_range(0..21)];
        pos.legal_positions_into(dice, &mut buf);
        near.reset(pos.board());
        for child in buf.iter().filter(|c| !c.is_over()) {
            worst = worst.max(close(near.probs(child.board()), net.evaluate(child)));
            children += 1;
        }
        // A board far from the parent (the start) is judged alike too.
        let start = Position::initial();
        worst = worst.max(close(near.probs(start.board()), net.evaluate(&start)));
        pos = match buf.get(rng.random_range(0..buf.len().max(1))) {
            Some(next) if !next.is_over() => next.pass_turn(),
            _ => Position::initial(),
        };
    }
    assert!(children > 5_000, "{children} children");
    assert!(worst < 1e-5, "worst difference {worst}");
}

#[test]
fn a_first_network_file_judges_as_it_did_with_the_features_ignored() {
    let net = Net::random(8, 5);
    // The same weights in the old form: the board rows only.
    let mut old = Vec::new();
    old.extend_from_slice(MAGIC_V1);
    old.extend_from_slice(&8u32.to_le_bytes());
    old.extend_from_slice(&(BOARD as u32).to_le_bytes());
    let mut v1 = net.core.clone();
    v1.inputs = BOARD;
    v1.w1.truncate(BOARD * 8);
    v1.write_weights(&mut old);
    let widened = Net::from_bytes(&old).unwrap();
    let pos = Position::initial();
    let mut board_only = Sparse::default();
    let mut full = Sparse::default();
    encode(pos.board(), &mut full);
    for (i, v) in full.iter().filter(|&(i, _)| i < BOARD) {
        board_only.push(i, v);
    }
    let (mut h, mut y1, mut y2) = (Vec::new(), [0.0f32; 3], [0.0f32; 3]);
    widened.core.forward(&full, &mut h, &mut y1);
    v1.forward(&board_only, &mut h, &mut y2);
    assert_eq!(y1, y2);
}

#[test]
fn a_head_counts_backgammons_where_they_can_happen() {
    let mut net = Net::random(8, 5);
    // We bear off, all fifteen home; the other side has one on the bar
    // and none off: a backgammon to win, none to lose.
    let mut winning = [0i8; 26];
    winning[1..=5].copy_from_slice(&[3, 3, 3, 3, 3]);
    winning[0] = -1;
    winning[20] = -14;
    let side = tabula_backgammon::Side::White;
    let winning = Position::from_board(winning, side).unwrap();
    let plain = net.evaluate(&winning);
    assert_eq!((plain.win_backgammon, plain.lose_backgammon), (0.0, 0.0));
    *net.backgammons_mut() = Some(Head::constant(8, [0.01, 0.02]));
    let p = net.evaluate(&winning);
    assert!((p.win_backgammon - 0.01).abs() < 1e-5, "{p:?}");
    assert_eq!(p.lose_backgammon, 0.0);
    assert!((p.equity() - (plain.equity() + 0.01)).abs() < 1e-5);
    assert_eq!(p.flip().lose_backgammon, p.win_backgammon);
    // The same board seen by the other side: one to lose.
    let losing = Position::from_board(crate::bg::features::flip(winning.board()), side).unwrap();
    let q = net.evaluate(&losing);
    assert_eq!(q.win_backgammon, 0.0);
    assert!((q.lose_backgammon - 0.02).abs() < 1e-5, "{q:?}");
    // Where none is in sight the head is not asked.
    let start = net.evaluate(&Position::initial());
    assert_eq!((start.win_backgammon, start.lose_backgammon), (0.0, 0.0));
    // A finished backgammon is exact: the mover is off, the other
    // side has all fifteen in the mover's home board.
    let mut done = [0i8; 26];
    done[1] = -15;
    let done = Position::from_board(done, tabula_backgammon::Side::White).unwrap();
    let o = Probs::of_outcome(&done).unwrap();
    assert_eq!((o.win, o.win_gammon, o.win_backgammon), (1.0, 1.0, 1.0));
    assert_eq!(o.equity(), 3.0);
}

#[test]
fn weights_round_trip_and_bad_files_are_refused() {
    let net = Net::random(8, 3);
    let bytes = net.to_bytes();
    assert_eq!(Net::from_bytes(&bytes).unwrap(), net);
    // With a backgammon head: its own magic, and back the same.
    let mut headed = net.clone();
    headed.backgammons = Some(Head {
        w: (0..16).map(|i| i as f32 / 10.0).collect(),
        b: [-1.0, -2.0],
    });
    let hb = headed.to_bytes();
    assert_eq!(&hb[..8], MAGIC_HEAD);
    assert_eq!(hb.len(), bytes.len() + 4 * 18);
    assert_eq!(Net::from_bytes(&hb).unwrap(), headed);
    for cut in [4, 4 * 18, hb.len() - 16] {
        assert!(
            matches!(
                Net::from_bytes(&hb[..hb.len() - cut]),
                Err(NetError::BadShape(_))
            ),
            "cut {cut}"
        );
    }
    assert_eq!(
        Net::from_bytes(b"nonsense"),
        Err(NetError::BadMagic("backgammon"))
    );
    assert!(matches!(
        Net::from_bytes(&bytes[..bytes.len() - 4]),
        Err(NetError::BadShape(_))
    ));
}

#[test]
fn the_shipped_network_parses_and_likes_being_ahead() {
    let net = Net::shipped();
    // Shipped with its backgammon head (fitted: not the constant a
    // head starts from).
    let head = net
        .backgammons
        .as_ref()
        .expect("bg.bin has a backgammon head");
    assert!(head.w.iter().any(|&w| w != 0.0));
    let p = net.evaluate(&Position::initial());
    assert!((0.3..0.7).contains(&p.win), "{p:?}");
    // All fifteen of the mover's checkers home vs the opponent's
    // untouched start: the mover nearly always wins.
    let mut b = [0i8; 26];
    b[1] = 5;
    b[2] = 5;
    b[3] = 5;
    for (i, n) in [(1usize, 2i8), (12, 5), (17, 3), (19, 5)] {
        b[25 - i] = -n;
    }
    let pos = Position::from_board(b, tabula_backgammon::Side::White).unwrap();
    assert!(net.evaluate(&pos).win > 0.95, "{:?}", net.evaluate(&pos));
}
