//! The searches over the long nardy network: its ranking and greedy play,
//! and one roll ahead.

use tabula_dice::Dice;
use tabula_long::{Color, Position};

use super::net::{Net, Scratch};

/// Every final's equity for `me`, the side to move before them (`finals`
/// are the positions after each of its legal plays), by the network alone
/// (0-ply) or the bear-off database.
pub fn rank(
    net: &Net,
    scratch: &mut Scratch,
    me: Color,
    finals: &[Position],
    bearoff: bool,
) -> Vec<f32> {
    finals
        .iter()
        .map(|f| scratch.equity(net, f, me, bearoff))
        .collect()
}

/// The index of `me`'s best play in `finals` by [`rank`] (the first of
/// equal ones), `None` for none: the network's greedy (0-ply) choice. A
/// play that ends the game is always taken (it wins, and waiting can only
/// let the loser bear off a checker; the network may rate an unfinished
/// play above a single win).
pub fn greedy(
    net: &Net,
    scratch: &mut Scratch,
    me: Color,
    finals: &[Position],
    bearoff: bool,
) -> Option<usize> {
    if let Some(i) = finals.iter().position(Position::is_game_over) {
        return Some(i);
    }
    let s = rank(net, scratch, me, finals, bearoff);
    (0..s.len()).max_by(|&a, &b| s[a].total_cmp(&s[b]).then(b.cmp(&a)))
}

/// The equity for `me` of `after` (the opponent to roll) looking one roll
/// ahead: the average over the opponent's 21 rolls of its best reply by
/// the network (or the bear-off database), seen from `me`'s side.
pub fn one_ply(
    net: &Net,
    scratch: &mut Scratch,
    after: &Position,
    me: Color,
    bearoff: bool,
    buf: &mut Vec<Position>,
) -> f32 {
    if after.is_game_over() {
        return scratch.equity(net, after, me, bearoff);
    }
    let opp = me.other();
    let mut total = 0.0f32;
    for dice in Dice::ALL_21 {
        buf.clear();
        after.legal_moves_into(dice, buf);
        let best = buf
            .iter()
            .map(|p| scratch.equity(net, p, opp, bearoff))
            .fold(f32::NEG_INFINITY, f32::max);
        total += dice.probability() as f32 * -best;
    }
    total
}

#[cfg(test)]
mod tests {
    use tabula_long::Variant;

    use super::*;

    #[test]
    fn greedy_play_always_takes_a_win() {
        // Two left (on 6 and 1) with 6-1: bearing both off wins an oin
        // (black has borne one off); 6-5 then 5-off does not. A network
        // sure of a koks everywhere rates every unfinished play near 3
        // points, above the oin; the win is taken all the same.
        let setup: tabula_long::Setup = serde_json::from_str(
            r#"{"turn":"white","white":{"6":1,"1":1},"black":{"12":14},"off":{"white":13,"black":1}}"#,
        )
        .unwrap();
        let pos = Position::from_setup(&setup, Variant::default()).unwrap();
        let finals = pos.legal_moves(Dice::new(6, 1).unwrap());
        assert!(finals.iter().any(|f| !f.is_game_over()));
        let mut sure = Net::random(8, 2);
        sure.core_mut().b2 = vec![20.0, 20.0, 20.0, -20.0, -20.0];
        let mut scratch = Scratch::new(&sure);
        let unfinished = finals.iter().find(|f| !f.is_game_over()).unwrap();
        assert!(scratch.equity(&sure, unfinished, Color::White, false) > 2.9);
        for net in [Net::shipped(), &sure] {
            for bearoff in [false, true] {
                let i = greedy(net, &mut scratch, Color::White, &finals, bearoff).unwrap();
                assert!(finals[i].is_game_over());
            }
        }
    }
}
