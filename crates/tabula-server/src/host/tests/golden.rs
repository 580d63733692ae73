//! Golden transcripts: a whole turn of each game as the JSON each client
//! sends and the JSON each connection gets, byte for byte, pinned in
//! `golden/*.txt`, so that any change to the wire is a visible diff.
//!
//! A transcript line is `> C {json}` (connection C sends) or `< C {json}`
//! (C receives). Connections 1 and 2 are the players `alice` and `bob`,
//! 3 a spectator. Each client frame goes the way the node takes it: read by
//! [`parse_client`], a `join` or `resume` to the host as such, any other
//! game message as its room command; every write the host asks for
//! succeeds. The moves played are the first legal ones the room offers.
//!
//! After a deliberate change to the wire, regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p tabula-server golden` and review the
//! diff.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use tabula_protocol::{ClientMsg, parse_client};
use tabula_room::{BotNeed, Event, GameKind, GameOptions, PlayerId, Room, RoomConfig, Spot};

use super::*;

/// A host driven by client frames, keeping the transcript.
struct Transcript {
    h: RoomHost<u64>,
    now: u64,
    seq: BTreeMap<u64, u64>,
    text: String,
    /// What the connections got for the frame being handled.
    got: Vec<(u64, String)>,
}

impl Transcript {
    fn new(title: &str, game: GameKind) -> Transcript {
        let room = Room::new(RoomConfig {
            options: GameOptions {
                game,
                ..GameOptions::default()
            },
            master_seed: "golden".into(),
            ..RoomConfig::default()
        });
        let mut h = RoomHost::new(entry(), room, BTreeMap::new(), false, CFG);
        let mut fx = Vec::new();
        h.start(1_000, &mut fx);
        Transcript {
            h,
            now: 1_000,
            seq: BTreeMap::new(),
            text: format!("# {title}\n"),
            got: Vec::new(),
        }
    }

    /// The next `seq` of connection `conn`.
    fn next_seq(&mut self, conn: u64) -> u64 {
        let s = self.seq.entry(conn).or_insert(0);
        *s += 1;
        *s
    }

    /// Connection `conn` sends `json` (a `"seq"` is added).
    fn send(&mut self, conn: u64, json: &str) {
        let seq = self.next_seq(conn);
        let text = format!("{},\"seq\":{seq}}}", json.trim_end_matches('}'));
        self.raw(conn, &text);
    }

    /// Connection `conn` sends exactly `text`.
    fn raw(&mut self, conn: u64, text: &str) {
        self.now += 100;
        let now = self.now;
        let _ = writeln!(self.text, "> {conn} {text}");
        let mut fx = Vec::new();
        let frame = match parse_client(text) {
            Ok(f) => f,
            Err(e) => {
                let m = tabula_protocol::ServerMsg::error(e.code, e.message, e.seq);
                let _ = writeln!(self.text, "< {conn} {}", m.to_json());
                return;
            }
        };
        let h = &mut self.h;
        match frame.msg {
            ClientMsg::Join { seat, spectate, .. } => {
                let player = match conn {
                    1 => "alice",
                    2 => "bob",
                    _ => "carol",
                };
                h.join(
                    JoinReq {
                        conn,
                        player: PlayerId::new(player),
                        tx: conn,
                        seat,
                        spectate,
                        seq: frame.seq,
                        resume_from: None,
                        received: Instant::now(),
                    },
                    now,
                    &mut fx,
                );
            }
            ClientMsg::Resume { version } => h.resume(conn, version, frame.seq, &mut fx),
            ref m => {
                let command = m.to_command().expect("a game message");
                h.command(
                    conn,
                    frame.seq,
                    command,
                    m.kind(),
                    Instant::now(),
                    now,
                    &mut fx,
                );
            }
        }
        self.run(fx);
        // Each connection's messages in their order; the connections in
        // theirs (the host fans out in its map's order, which is not the
        // wire's business).
        let mut got = std::mem::take(&mut self.got);
        got.sort_by_key(|(conn, _)| *conn);
        for (conn, line) in got {
            let _ = writeln!(self.text, "< {conn} {line}");
        }
    }

    /// Executes effects as the actor would: every write succeeds; every
    /// send is written down.
    fn run(&mut self, fx: Vec<Effect<u64>>) {
        let mut queue = fx;
        while !queue.is_empty() {
            let mut next = Vec::new();
            for e in queue {
                match e {
                    Effect::Send { conn, out } | Effect::Last { tx: conn, out } => {
                        self.out(conn, &out);
                    }
                    Effect::Write(_) => self.h.written(Ok(()), self.now, &mut next),
                    _ => {}
                }
            }
            queue = next;
        }
    }

    fn out(&mut self, conn: u64, o: &Outbound) {
        match o {
            Outbound::Msg(m) => self.got.push((conn, m.to_json())),
            Outbound::Batch(items) => {
                for i in items {
                    self.got.push((conn, i.text.clone()));
                }
            }
            other => self.got.push((conn, format!("({other:?})"))),
        }
    }

    /// The connection of the seat to act and what it must do.
    fn to_act(&self) -> Option<(u64, BotNeed)> {
        let (seat, need) = self.h.room().game()?.to_act()?;
        Some((if seat == SeatId::A { 1 } else { 2 }, need))
    }

    /// Plays until the seat to act changes (one whole turn), choosing the
    /// first legal move the room offers.
    fn play_turn(&mut self) {
        let Some((mover, _)) = self.to_act() else {
            panic!("nobody to act");
        };
        while let Some((conn, need)) = self.to_act() {
            if conn != mover {
                return;
            }
            match need {
                BotNeed::Roll => self.send(conn, r#"{"type":"rollDice"}"#),
                BotNeed::Move => {
                    let json = self.first_move();
                    self.send(conn, &json);
                }
                other => panic!("unexpected need {other:?}"),
            }
        }
    }

    /// The first legal move, as a client message.
    fn first_move(&self) -> String {
        let room = self.h.room();
        if let Some(g) = room.game().and_then(|g| g.thud_game()) {
            let mv = g.round().position().legal_moves()[0];
            return format!(r#"{{"type":"thudMove","notation":"{mv}"}}"#);
        }
        let first = room
            .log()
            .iter()
            .rev()
            .find_map(|e| match &*e.event {
                Event::PossibleMoves { first_steps, .. } => first_steps.first().cloned(),
                _ => None,
            })
            .expect("a possibleMoves event with a step");
        let (from, to) = Spot::parse_step(&first).expect("a step");
        let spot = |s: Spot| serde_json::to_string(&s).expect("a spot");
        format!(
            r#"{{"type":"move","from":{},"to":{}}}"#,
            spot(from),
            spot(to)
        )
    }

    /// Compares with (or, with `UPDATE_GOLDEN=1`, writes) `golden/{name}.txt`.
    fn check(&self, name: &str) {
        let path = format!(
            "{}/src/host/tests/golden/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &self.text).expect("golden file written");
            return;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if want != self.text {
            let line = want
                .lines()
                .zip(self.text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| want.lines().count().min(self.text.lines().count()));
            panic!(
                "the wire changed: {path} differs from line {}\n want: {}\n  got: {}\n\
                 (if the change is meant, regenerate with UPDATE_GOLDEN=1 and review the diff)",
                line + 1,
                want.lines().nth(line).unwrap_or("<end>"),
                self.text.lines().nth(line).unwrap_or("<end>"),
            );
        }
    }
}

/// Both players and a spectator join, both press ready, the first mover
/// plays a whole turn; then the edges a client meets: a resend of the last
/// `seq`, an out-of-turn command, chat, a `resume`, frames that cannot be
/// read.
fn transcript(title: &str, game: GameKind) -> Transcript {
    let mut t = Transcript::new(title, game);
    t.send(1, r#"{"type":"join","room":"r1"}"#);
    t.send(2, r#"{"type":"join","room":"ABCDEF","seat":"b"}"#);
    t.send(3, r#"{"type":"join","room":"r1","spectate":true}"#);
    t.send(1, r#"{"type":"ready"}"#);
    t.send(2, r#"{"type":"ready"}"#);
    let version = t.h.room().version();
    t.play_turn();
    // The mover resends its last frame: acknowledged as a duplicate.
    let last = t
        .text
        .lines()
        .rev()
        .find(|l| l.starts_with("> 1 ") || l.starts_with("> 2 "))
        .map(|l| (l[2..3].parse::<u64>().unwrap_or(1), l[4..].to_string()));
    if let Some((conn, text)) = last {
        t.raw(conn, &text);
        // And, out of turn, tries again with a new seq.
        let seq = t.next_seq(conn);
        let again = text.replace(&format!("\"seq\":{}", seq - 1), &format!("\"seq\":{seq}"));
        t.raw(conn, &again);
    }
    t.send(2, r#"{"type":"chat","text":"gg"}"#);
    t.send(3, &format!(r#"{{"type":"resume","version":{version}}}"#));
    t.raw(1, "{nope");
    t.raw(1, r#"{"type":"fly","seq":99}"#);
    t.raw(1, r#"{"type":"move","from":"x","seq":100}"#);
    t
}

#[test]
fn long_nardy_turn_on_the_wire() {
    transcript("long nardy: one whole turn", GameKind::LongNardy).check("long_nardy");
}

#[test]
fn backgammon_turn_on_the_wire() {
    transcript(
        "short nardy (backgammon): one whole turn",
        GameKind::Backgammon,
    )
    .check("backgammon");
}

#[test]
fn thud_turn_on_the_wire() {
    transcript("Thud!: one whole turn", GameKind::Thud).check("thud");
}
