//! Failover: a tournament serialized after any input and restored by
//! another owner continues exactly as the first would have: the same
//! effects (the same game ids), the same final state.

mod support;

use proptest::prelude::*;
use support::*;
use tabula_tournament::{Effect, Format, Input, Outcome, Rejection, Status, Tournament};

fn field(n: usize) -> Vec<(String, i32)> {
    (0..n)
        .map(|i| (format!("p{i:02}"), 1300 + ((i * 53) % 17) as i32 * 20))
        .collect()
}

fn start(format: Format, n: usize) -> Tournament {
    let players = field(n);
    let names: Vec<(&str, i32)> = players.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    with_players(format, &names)
}

fn behaviour() -> Behaviour {
    Behaviour {
        no_show: 5,
        draws: 10,
        duplicates: 10,
        game_ms: (20_000, 120_000),
        ..Behaviour::default()
    }
}

/// Replays `inputs` on `initial`, moving the state through JSON (a new
/// owner) after input `cut`, and checks every effect and the end state.
fn continue_after(
    initial: &Tournament,
    inputs: &[(Input, u64)],
    effects: &[Vec<Effect>],
    end: &Tournament,
    cut: usize,
) {
    let mut t = initial.clone();
    for (k, (input, now)) in inputs.iter().enumerate() {
        let fx = t.apply(input.clone(), *now);
        assert_eq!(fx, effects[k], "input {k} after a failover at {cut}");
        if k == cut {
            let deadline = t.next_deadline();
            let json = serde_json::to_string(&t).unwrap();
            t = serde_json::from_str(&json).unwrap();
            assert_eq!(t.next_deadline(), deadline);
            // The new owner's first input, at once: nothing to forgive.
            assert_eq!(t.apply(Input::Restored, *now), []);
        }
    }
    assert_eq!(&t, end);
}

fn formats() -> [Format; 3] {
    [Format::Knockout, swiss(4), arena(900_000)]
}

#[test]
fn every_cut_of_three_tournaments_continues_identically() {
    for (seed, format) in formats().into_iter().enumerate() {
        let initial = start(format, 11);
        let played = play(initial.clone(), seed as u64, &behaviour(), |_, _, _, _| {});
        assert!(played.inputs.len() > 20);
        for cut in 0..played.inputs.len() {
            continue_after(
                &initial,
                &played.inputs,
                &played.effects,
                &played.tournament,
                cut,
            );
        }
    }
}

/// Inputs every tournament refuses, whatever its state.
fn refused(t: &Tournament) -> Vec<(Input, Rejection)> {
    let mut out = vec![
        (
            Input::Withdraw {
                player: p("nobody"),
            },
            if matches!(t.status(), Status::Finished | Status::Cancelled) {
                Rejection::Closed
            } else {
                Rejection::UnknownPlayer
            },
        ),
        (
            Input::GameResult {
                game_id: g("t:99:99"),
                outcome: Outcome::Draw,
            },
            Rejection::UnknownGame,
        ),
    ];
    if let Some(done) = t.games().find(|g| g.outcome.is_some()) {
        out.push((
            Input::GameResult {
                game_id: done.id.clone(),
                outcome: Outcome::WhiteWon,
            },
            Rejection::DuplicateResult {
                game_id: done.id.clone(),
            },
        ));
        out.push((
            Input::PlayerArrived {
                game_id: done.id.clone(),
                player: done.white.clone(),
            },
            Rejection::GameOver {
                game_id: done.id.clone(),
            },
        ));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_restored_tournament_continues_identically(
        format in 0usize..3,
        players in 2usize..20,
        seed in any::<u64>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let initial = start(formats()[format], players);
        let played = play(initial.clone(), seed, &behaviour(), |_, _, _, _| {});
        let cut = cut.index(played.inputs.len());
        continue_after(&initial, &played.inputs, &played.effects, &played.tournament, cut);
        assert_recount(&played.tournament);
        // A refused input changes nothing: the state after it is the state
        // after a tick at the same time.
        let mut t = initial.clone();
        for (input, now) in &played.inputs[..=cut] {
            t.apply(input.clone(), *now);
        }
        let now = played.inputs[cut].1 + 1;
        for (input, why) in refused(&t) {
            let mut ticked = t.clone();
            let mut fx = ticked.apply(Input::Tick, now);
            fx.push(Effect::Rejected(why));
            let mut other = t.clone();
            prop_assert_eq!(other.apply(input, now), fx);
            prop_assert_eq!(&other, &ticked);
        }
    }
}
