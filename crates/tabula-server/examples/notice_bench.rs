//! The cost per game action of the bot's notices (issue 44): the pure
//! room host ([`RoomHost`]) plays whole long-nardy games between two
//! Telegram players, with notices off and on, and prints the time per
//! action of each. Everything the host asks for is written at once (as a
//! store that never fails); effects are dropped, so this is the room's own
//! cost of deciding notices and listings, not the queue's round trip to
//! Redis (one `ZADD` per notice, off the path of the acknowledgement).
//!
//! Three ways of playing:
//! - `live`: a game with no clock, both players in the room throughout
//!   (nothing is queued; the checks alone);
//! - `correspondence`: a day a move, both in the room (each turn lists
//!   the room for both players and queues a "little time left");
//! - `correspondence, away`: each player opens the game, plays his turn
//!   and closes it (each turn also queues a "your turn").
//!
//! ```sh
//! cargo run --release -p tabula-server --example notice_bench [games]
//! # instructions per action, exactly (one way, notices on or off):
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/notice_bench 20 live on
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tabula_backplane::RoomEntry;
use tabula_room::{BotNeed, Command, Event, PlayerId, Room, RoomConfig, SeatId, Spot, TimeControl};
use tabula_server::host::{Effect, HostConfig, JoinReq, RoomHost};

/// One way of playing.
#[derive(Clone, Copy)]
struct Way {
    name: &'static str,
    correspondence: bool,
    away: bool,
}

const WAYS: [Way; 3] = [
    Way {
        name: "live",
        correspondence: false,
        away: false,
    },
    Way {
        name: "correspondence",
        correspondence: true,
        away: false,
    },
    Way {
        name: "correspondence, away",
        correspondence: true,
        away: true,
    },
];

/// A host of one room between `tg:11` (seat a, conn 1) and `tg:22`.
struct Play {
    h: RoomHost<u64>,
    now: u64,
    seq: u64,
    fx: Vec<Effect<u64>>,
    actions: u64,
    notices: u64,
}

impl Play {
    fn new(game: u32, way: Way, notify: bool) -> Play {
        let room = Room::new(RoomConfig {
            master_seed: format!("notice-bench-{game}"),
            time_control: way.correspondence.then_some(TimeControl::DAYS_1),
            ..RoomConfig::default()
        });
        let entry = RoomEntry {
            id: format!("r{game}"),
            invite: "ABCDEF".into(),
            options: Default::default(),
            created_ms: 0,
            open: false,
            tournament: None,
        };
        let config = HostConfig {
            unload_after: Duration::from_secs(3600),
            open_wait: Duration::from_secs(3600),
            takeover_grace: Duration::from_millis(500),
            hint_rollouts_per_minute: 0,
            archive: false,
            notify,
        };
        let mut h = RoomHost::new(entry, room, BTreeMap::new(), false, config);
        let mut fx = Vec::new();
        h.start(1_000, &mut fx);
        Play {
            h,
            now: 1_000,
            seq: 0,
            fx,
            actions: 0,
            notices: 0,
        }
    }

    /// The effects so far: written where a write was asked for; counted.
    fn settle(&mut self) {
        loop {
            let writes = self
                .fx
                .iter()
                .filter(|e| matches!(e, Effect::Write(_)))
                .count();
            self.notices += self
                .fx
                .iter()
                .filter(|e| matches!(e, Effect::Notify(_)))
                .count() as u64;
            self.fx.clear();
            if writes == 0 {
                return;
            }
            for _ in 0..writes {
                self.h.written(Ok(()), self.now, &mut self.fx);
            }
        }
    }

    fn join(&mut self, conn: u64) {
        self.now += 60_000;
        self.seq += 1;
        let j = JoinReq {
            conn,
            player: PlayerId::new(format!("tg:{}", conn * 11)),
            tx: conn,
            seat: None,
            spectate: false,
            seq: Some(self.seq),
            resume_from: None,
            received: Instant::now(),
        };
        self.h.join(j, self.now, &mut self.fx);
        self.settle();
    }

    fn leave(&mut self, conn: u64) {
        self.now += 60_000;
        self.h.detach(conn, self.now, &mut self.fx);
        self.settle();
    }

    fn command(&mut self, conn: u64, cmd: Command) {
        self.now += 60_000;
        self.seq += 1;
        self.h.command(
            conn,
            Some(self.seq),
            cmd,
            "cmd",
            Instant::now(),
            self.now,
            &mut self.fx,
        );
        self.actions += 1;
        self.settle();
    }

    /// The seat to act, as its connection, and what it must do.
    fn to_act(&self) -> Option<(u64, BotNeed)> {
        let (seat, need) = self.h.room().game()?.to_act()?;
        Some((if seat == SeatId::A { 1 } else { 2 }, need))
    }

    /// The first step the room offers.
    fn first_step(&self) -> Command {
        let step = self
            .h
            .room()
            .log()
            .iter()
            .rev()
            .find_map(|e| match &*e.event {
                Event::PossibleMoves { first_steps, .. } => first_steps.first().cloned(),
                _ => None,
            })
            .expect("a possibleMoves event with a step");
        let (from, to): (Spot, Spot) = Spot::parse_step(&step).expect("a step");
        Command::Move { from, to }
    }

    /// One whole game, the way `way` plays it.
    fn game(&mut self, way: Way) {
        self.join(1);
        self.join(2);
        self.command(1, Command::Ready);
        self.command(2, Command::Ready);
        let mut turns = 0;
        while let Some((mover, _)) = self.to_act() {
            turns += 1;
            assert!(turns < 2_000, "a game that does not end");
            if way.away {
                self.leave(3 - mover);
            }
            while let Some((conn, need)) = self.to_act() {
                if conn != mover {
                    break;
                }
                let cmd = match need {
                    BotNeed::Roll => Command::RollDice,
                    BotNeed::Move => self.first_step(),
                    other => panic!("unexpected need {other:?}"),
                };
                self.command(conn, cmd);
            }
            if way.away {
                self.join(3 - mover);
            }
        }
    }
}

/// Plays `games` games; the time per action, actions and notices.
fn run(games: u32, way: Way, notify: bool) -> (Duration, u64, u64) {
    let t0 = Instant::now();
    let (mut actions, mut notices) = (0, 0);
    for g in 0..games {
        let mut p = Play::new(g, way, notify);
        p.game(way);
        actions += p.actions;
        notices += p.notices;
    }
    let per = t0.elapsed() / u32::try_from(actions.max(1)).unwrap_or(u32::MAX);
    (per, actions, notices)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    // One row, one setting, once: for an instruction count under
    // callgrind (`notice_bench 20 live on`).
    if let (Some(name), Some(on)) = (args.get(2), args.get(3)) {
        let way = match name.as_str() {
            "live" => WAYS[0],
            "correspondence" => WAYS[1],
            "away" => WAYS[2],
            _ => {
                eprintln!("no such way: {name} (live, correspondence, away)");
                std::process::exit(2);
            }
        };
        let (_, actions, notices) = run(games, way, on == "on");
        println!("{}: {actions} actions, {notices} notices", way.name);
        return;
    }
    println!("{games} long-nardy games per row; time per action, best of 5 runs");
    println!(
        "{:<22} {:>9} {:>9} {:>8} {:>9} {:>9}",
        "way", "off", "on", "change", "actions", "notices"
    );
    for way in WAYS {
        let mut best = [Duration::MAX; 2];
        let (mut actions, mut notices) = (0, 0);
        for round in 0..5 {
            // Off first, then on first: neither gains from going second.
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for notify in order {
                let (per, a, n) = run(games, way, notify);
                let i = usize::from(notify);
                best[i] = best[i].min(per);
                if notify {
                    (actions, notices) = (a, n);
                }
            }
        }
        let change = best[1].as_secs_f64() / best[0].as_secs_f64() - 1.0;
        println!(
            "{:<22} {:>7.2}µs {:>7.2}µs {:>+7.1}% {:>9} {:>9}",
            way.name,
            best[0].as_secs_f64() * 1e6,
            best[1].as_secs_f64() * 1e6,
            change * 100.0,
            actions,
            notices
        );
    }
}
