use super::*;
use crate::http::results::result_line;
use tabula_tournament::GameKind as TGame;

fn cup(format: Format) -> Tournament {
    Tournament::new(
        "cup",
        TournamentConfig {
            format,
            game: TGame::Backgammon,
            match_points: 1,
            clock: None,
            rated: false,
            start_at_ms: 1_000,
            grace_ms: 0,
            max_players: Some(3),
        },
    )
    .unwrap()
}

fn join(t: &mut Tournament, p: &str, now: u64) {
    t.apply(
        Input::Join {
            player: PlayerId::from(p),
            rating: 1500,
        },
        now,
    );
}

#[test]
fn requests_are_refused_as_the_core_would_refuse_them() {
    let mut t = cup(Format::Knockout);
    assert_eq!(refusal(&t, "a", Action::Join), None);
    assert!(refusal(&t, "a", Action::Withdraw).is_some());
    join(&mut t, "a", 0);
    join(&mut t, "b", 0);
    assert!(refusal(&t, "a", Action::Join).is_some());
    assert!(refusal(&t, "a", Action::Pause).is_some());
    assert_eq!(refusal(&t, "a", Action::Withdraw), None);
    join(&mut t, "c", 0);
    assert_eq!(
        refusal(&t, "d", Action::Join).as_deref(),
        Some("the tournament is full")
    );
    t.apply(Input::Tick, 1_000);
    assert_eq!(t.status(), Status::Running);
    let mut t2 = t.clone();
    t2.apply(
        Input::Withdraw {
            player: PlayerId::from("c"),
        },
        1_001,
    );
    assert_eq!(
        refusal(&t2, "d", Action::Join).as_deref(),
        Some("a knockout takes no players once it started")
    );
    let mut s = cup(Format::Swiss {
        rounds: 3,
        late_join_until_round: 0,
    });
    join(&mut s, "a", 0);
    join(&mut s, "b", 0);
    s.apply(Input::Tick, 1_000);
    assert!(refusal(&s, "c", Action::Join).is_some());
    assert!(refusal(&s, "a", Action::Resume).is_some());
    assert_eq!(refusal(&s, "a", Action::Pause), None);
}

#[test]
fn mine_lists_his_live_tournaments_and_merges_the_finished_ones() {
    use tabula_tournament::Outcome;
    let side = tournaments::Side::default;
    // Registering, with him in it; another without him.
    let mut up = cup(Format::Knockout);
    join(&mut up, "a", 0);
    let mut other = Tournament::new("other", up.config().clone()).unwrap();
    join(&mut other, "z", 0);
    // Running, his game waiting; and one he withdrew from.
    let mut run = Tournament::new("run", up.config().clone()).unwrap();
    join(&mut run, "a", 0);
    join(&mut run, "b", 0);
    run.apply(Input::Tick, 1_000);
    let mut left = Tournament::new("left", up.config().clone()).unwrap();
    join(&mut left, "a", 0);
    join(&mut left, "b", 0);
    join(&mut left, "c", 0);
    left.apply(Input::Tick, 1_000);
    left.apply(
        Input::Withdraw {
            player: PlayerId::from("a"),
        },
        1_001,
    );
    // Finished a moment ago (its results due), he lost the final.
    let mut done = Tournament::new("done", up.config().clone()).unwrap();
    join(&mut done, "b", 0);
    join(&mut done, "a", 0);
    done.apply(Input::Tick, 1_000);
    let g = done.running().next().unwrap().id.clone();
    let white = done.game(&g).unwrap().white.clone();
    let outcome = if white.0 == "b" {
        Outcome::WhiteWon
    } else {
        Outcome::BlackWon
    };
    done.apply(
        Input::GameResult {
            game_id: g,
            outcome,
        },
        2_000,
    );
    assert_eq!(done.status(), Status::Finished);
    let due = tournaments::Side {
        results_due: Some(2_000),
        ..side()
    };
    let live = vec![
        (done.clone(), due),
        (left, side()),
        (run, side()),
        (other, side()),
        (up, side()),
    ];
    let m = mine_of("a", &live, None);
    let ids = |v: &[MyTournament]| v.iter().map(|l| l.summary.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&m.upcoming), ["cup"]);
    assert_eq!(ids(&m.running), ["run"]);
    assert_eq!(
        m.running[0].my_game.as_ref().map(|g| g.room_id.as_str()),
        Some("run:1:1")
    );
    assert_eq!(m.running[0].rank, Some(1));
    assert!(m.upcoming[0].my_game.is_none() && m.upcoming[0].rank.is_none());
    assert!(!m.stored);
    assert_eq!(m.finished.len(), 1);
    assert_eq!(
        (
            m.finished[0].id.as_str(),
            m.finished[0].place,
            m.finished[0].players
        ),
        ("done", 2, 2)
    );
    assert_eq!(m.finished[0].finished_at_ms, Some(2_000));
    // With the store: its results, and the one it lacks yet first
    // and counted; one it has already is not doubled.
    let stored = |ids: &[&str]| ProfileTournaments {
        played: ids.len() as u64,
        won: 1,
        recent: ids
            .iter()
            .map(|id| TournamentResultLine {
                id: (*id).to_string(),
                format: Format::Knockout,
                game: TGame::Backgammon,
                place: 1,
                points: 1,
                games: 1,
                wins: 1,
                players: 2,
                finished_at_ms: Some(500),
            })
            .collect(),
    };
    let m = mine_of("a", &live, Some(stored(&["old"])));
    assert!(m.stored);
    let ids: Vec<_> = m.finished.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["done", "old"]);
    assert_eq!((m.played, m.won), (2, 1));
    let m = mine_of("a", &live, Some(stored(&["done"])));
    assert_eq!(m.finished.len(), 1);
    assert_eq!(m.finished[0].place, 1, "the store's line wins");
    assert_eq!((m.played, m.won), (1, 1));
    // Someone in none of them.
    let m = mine_of("nobody", &live, None);
    assert!(m.upcoming.is_empty() && m.running.is_empty() && m.finished.is_empty());
}

#[test]
fn a_stored_result_reads_back_as_the_route_shows_it() {
    let mut t = cup(Format::Swiss {
        rounds: 1,
        late_join_until_round: 0,
    });
    join(&mut t, "a", 0);
    join(&mut t, "b", 0);
    t.apply(Input::Tick, 1_000);
    let g = t.running().next().unwrap().id.clone();
    t.apply(
        Input::GameResult {
            game_id: g,
            outcome: tabula_tournament::Outcome::Draw,
        },
        5_000,
    );
    assert_eq!(t.status(), Status::Finished);
    let rows = tournaments::results_of(&t, 5_000);
    assert_eq!(rows.len(), 2);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.place, i as u32 + 1);
        assert_eq!((r.points, r.games, r.wins, r.players), (1, 1, 0, 2));
        assert_eq!(r.game, GameKind::Backgammon);
        let line = result_line(r).unwrap();
        assert_eq!(line.format, t.config().format);
        assert_eq!(line.game, TGame::Backgammon);
        assert_eq!(line.finished_at_ms, Some(5_000));
    }
    // A format the node never wrote reads as nothing, not a panic.
    let mut odd = rows[0].clone();
    odd.format = "{\"type\":\"ladder\"}".into();
    assert!(result_line(&odd).is_none());
}

#[test]
fn a_view_shows_the_round_and_the_callers_game() {
    let mut t = cup(Format::Knockout);
    join(&mut t, "a", 0);
    join(&mut t, "b", 0);
    t.apply(Input::Tick, 1_000);
    let v = view(&t, Some("a"));
    assert_eq!(v.round, 1);
    assert_eq!(v.games.len(), 1);
    assert_eq!(
        v.my_game.as_ref().map(|g| g.room_id.as_str()),
        Some("cup:1:1")
    );
    assert!(view(&t, Some("zed")).my_game.is_none());
    assert!(v.bracket.is_some());
}
