//! THE peer test: our move generator against GNU Backgammon.
//!
//! Seeded random self-play gives at least 2,000 (position, roll) pairs with
//! quotas for contact, race, bar and bear-off positions. One gnubg process
//! (`gnubg -t -q -r -p tests/gnubg_peer.py`) reads them all from a file,
//! and for each pair writes gnubg's Position ID of the board (checking our
//! encoder), whether `set board <our ID>` decoded to the same board
//! (checking our IDs read back in gnubg), and every play of `hint` with the
//! Position ID of its result. For every pair the set of distinct results
//! must be identical (a roll with no legal play is zero plays on both
//! sides), and every gnubg move string must parse with our notation reader
//! to the same result.
//!
//! gnubg missing is a failure, never a silent pass: run `scripts/test`,
//! which installs it (Debian package `gnubg`).
//!
//! Time: about 23 s, nearly all of it idle: gnubg 1.07's `hint` hands its
//! work to a worker thread and polls for it with a 10 ms sleep
//! (`MT_WaitForTasks`), so each pair costs at least ~11 ms of wall time but
//! little CPU. `TABULA_PEER_KEEP=1` keeps the exchanged files in the temp
//! directory for inspection.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use tabula_backgammon::{Options, Position, random_game};
use tabula_dice::{Dice, SeededDice};

fn find_gnubg() -> PathBuf {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let c = dir.join("gnubg");
            if c.is_file() {
                return c;
            }
        }
    }
    let fallback = PathBuf::from("/usr/games/gnubg");
    assert!(
        fallback.is_file(),
        "GNU Backgammon (gnubg) is not installed: the backgammon peer test needs it. \
         Run scripts/test, which installs it (Debian package gnubg)."
    );
    fallback
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Bar,
    BearOff,
    Race,
    Contact,
}

fn kind(p: &Position) -> Kind {
    let me = p.turn();
    if p.bar(me) > 0 {
        Kind::Bar
    } else if (7..=25u8).all(|pt| p.checkers(me, pt) == 0) {
        Kind::BearOff
    } else if p.is_race() {
        Kind::Race
    } else {
        Kind::Contact
    }
}

/// (not on roll, on roll), gnubg's board tuples.
fn tuples(p: &Position) -> [[u8; 25]; 2] {
    let mut t = [[0u8; 25]; 2];
    for (k, side) in [p.turn().opponent(), p.turn()].into_iter().enumerate() {
        for (i, slot) in t[k].iter_mut().take(24).enumerate() {
            *slot = p.checkers(side, i as u8 + 1);
        }
        t[k][24] = p.bar(side);
    }
    t
}

fn sample_pairs() -> Vec<(Position, Dice)> {
    // Quotas: bar, bear-off, race (no contact, not yet all home), contact.
    let quota = [250usize, 350, 600, 800];
    let mut got = [0usize; 4];
    let mut pairs: Vec<(Position, Dice)> = Dice::ALL_21
        .iter()
        .map(|&d| (Position::initial(), d))
        .collect();
    let mut dice = SeededDice::new(0x7ab1_a5ee_d001);
    let mut n = 0u64;
    while got.iter().zip(&quota).any(|(g, q)| g < q) {
        random_game(&mut dice, &Options::default(), 10_000, |p, d, _| {
            n += 1;
            let k = kind(p) as usize;
            // Every 2nd turn, every bar / bear-off / race turn (rarer).
            if (k != Kind::Contact as usize || n.is_multiple_of(2)) && got[k] < quota[k] {
                got[k] += 1;
                pairs.push((*p, d));
            }
        })
        .expect("random game ended");
    }
    pairs
}

#[test]
fn move_generation_matches_gnubg() {
    let gnubg = find_gnubg();
    let started = Instant::now();
    let pairs = sample_pairs();
    assert!(pairs.len() >= 2_000);

    let dir = std::env::temp_dir().join(format!("tabula-bg-peer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("pairs.txt");
    let output = dir.join("gnubg.jsonl");
    let mut text = String::new();
    for (p, d) in &pairs {
        text.push_str(&format!("{} {} {}", p.gnubg_id(), d.first(), d.second()));
        for half in tuples(p) {
            for n in half {
                text.push_str(&format!(" {n}"));
            }
        }
        text.push('\n');
    }
    std::fs::write(&input, text).unwrap();

    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/gnubg_peer.py");
    let gnubg_started = Instant::now();
    let status = Command::new(&gnubg)
        .args(["-t", "-q", "-r", "-p", script])
        .env("TABULA_PEER_IN", &input)
        .env("TABULA_PEER_OUT", &output)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", gnubg.display()));
    let gnubg_secs = gnubg_started.elapsed().as_secs_f64();
    assert!(status.success(), "gnubg exited with {status}");
    let results = std::fs::read_to_string(&output).expect("gnubg wrote no results");
    let lines: Vec<&str> = results.lines().collect();
    assert_eq!(
        lines.len(),
        pairs.len(),
        "gnubg answered {} of {} pairs",
        lines.len(),
        pairs.len()
    );

    let mut problems = Vec::new();
    let mut kinds = [0usize; 4];
    let mut plays_compared = 0usize;
    let mut no_play = 0usize;
    for (index, ((p, d), line)) in pairs.iter().zip(&lines).enumerate() {
        kinds[kind(p) as usize] += 1;
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let ours_id = p.gnubg_id();
        if v["pid"] != ours_id.as_str() {
            problems.push(format!("encoder: ours {ours_id}, gnubg {}", v["pid"]));
        }
        if v["decoded"] != true {
            problems.push(format!("gnubg read {ours_id} back as a different board"));
        }
        let gnubg_moves = v["moves"].as_array().unwrap();
        let theirs: BTreeSet<String> = gnubg_moves
            .iter()
            .map(|m| m[1].as_str().unwrap().to_string())
            .collect();
        let ours: BTreeSet<String> = if p.max_dice(*d) == 0 {
            no_play += 1;
            BTreeSet::new()
        } else {
            p.legal_positions(*d).iter().map(|f| f.gnubg_id()).collect()
        };
        plays_compared += ours.len();
        if theirs.len() != gnubg_moves.len() {
            problems.push(format!("{ours_id} {d}: gnubg listed a result twice"));
        }
        if ours != theirs {
            let only_ours: Vec<_> = ours.difference(&theirs).collect();
            let only_theirs: Vec<_> = theirs.difference(&ours).collect();
            problems.push(format!(
                "{ours_id} {d} ({:?}): ours {} gnubg {}; only ours {only_ours:?}; only gnubg {only_theirs:?}",
                kind(p),
                ours.len(),
                theirs.len()
            ));
        }
        // gnubg's move strings read with our notation parser: the result
        // for every move, the full play (steps, validator) for 1 pair in 8.
        for m in gnubg_moves {
            let text = m[0].as_str().unwrap();
            let read = if index.is_multiple_of(8) {
                p.parse_play(*d, text).and_then(|play| {
                    p.play(*d, &play)
                        .map_err(|e| tabula_backgammon::NotationError::Illegal(e.to_string()))
                })
            } else {
                p.parse_result(*d, text)
            };
            match read {
                Ok(f) if f.gnubg_id() == m[1].as_str().unwrap() => {}
                Ok(f) => problems.push(format!(
                    "{ours_id} {d}: {text:?} parsed to {} but gnubg says {}",
                    f.gnubg_id(),
                    m[1]
                )),
                Err(e) => {
                    problems.push(format!("{ours_id} {d}: cannot read gnubg's {text:?}: {e}"))
                }
            }
        }
    }
    if std::env::var_os("TABULA_PEER_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "gnubg peer: {} pairs (bar {}, bear-off {}, race {}, contact {}), {} results compared, \
             {} no-play rolls; gnubg {:.1}s, whole test {:.1}s",
            pairs.len(),
            kinds[0],
            kinds[1],
            kinds[2],
            kinds[3],
            plays_compared,
            no_play,
            gnubg_secs,
            started.elapsed().as_secs_f64()
        );
    }
    assert!(
        kinds.iter().all(|&k| k >= 250),
        "sample lacks a kind: {kinds:?}"
    );
    assert!(
        problems.is_empty(),
        "{} disagreements with gnubg, first ones:\n{}",
        problems.len(),
        problems
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
