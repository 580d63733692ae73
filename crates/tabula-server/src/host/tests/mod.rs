//! The host as tables of inputs → effects, without actix or a store.
//! Each effect is shown as a short line (see [`show`]); a connection's
//! sender is its own number.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tabula_backplane::{BackplaneError, RoomEntry};
use tabula_room::{BotNeed, Command, GameKind, GameOptions, PlayerId, Room, RoomConfig, SeatId};

use super::*;

mod admission;
mod golden;
mod hints;
mod notices;
mod persistence;

pub(super) const CFG: HostConfig = HostConfig {
    archive: false,
    unload_after: Duration::from_millis(1000),
    open_wait: Duration::from_millis(10_000),
    takeover_grace: Duration::from_millis(500),
    hint_rollouts_per_minute: 256,
    notify: false,
};

pub(super) fn entry() -> RoomEntry {
    RoomEntry {
        id: "r1".into(),
        invite: "ABCDEF".into(),
        options: Default::default(),
        created_ms: 0,
        open: false,
        tournament: None,
    }
}

/// A correspondence room (a day a move), its other settings `config`'s.
pub(super) fn correspondence_with(config: tabula_room::RoomConfig) -> Room {
    Room::new(tabula_room::RoomConfig {
        master_seed: "host-tests".into(),
        time_control: Some(tabula_room::TimeControl::DAYS_1),
        ..config
    })
}

/// A correspondence room (a day a move).
pub(super) fn correspondence() -> Room {
    correspondence_with(tabula_room::RoomConfig::default())
}

pub(super) fn pvp() -> Room {
    Room::new(RoomConfig {
        master_seed: "host-tests".into(),
        ..RoomConfig::default()
    })
}

pub(super) fn bot_room() -> Room {
    bot_room_of(GameOptions {
        game: GameKind::LongNardy,
        ..GameOptions::default()
    })
}

/// [`bot_room`] playing the game of `options`.
pub(super) fn bot_room_of(options: GameOptions) -> Room {
    Room::new(RoomConfig {
        options,
        bot: Some(1),
        master_seed: "host-tests".into(),
        ..RoomConfig::default()
    })
}

pub(super) fn fenced() -> BackplaneError {
    BackplaneError::Fenced {
        room: "r1".into(),
        epoch: 1,
    }
}

pub(super) fn down() -> BackplaneError {
    BackplaneError::Unavailable("connection refused".into())
}

/// One input to the host.
#[derive(Debug, Clone)]
pub(super) enum In {
    /// Player `p{conn}` joins on `conn`, sitting down.
    Join(u64),
    /// Player `p{player}` joins again on a new `conn`.
    Rejoin {
        conn: u64,
        player: u64,
    },
    /// Player `p{player}` re-joins on `conn` after a re-route, having
    /// seen `from`.
    Back {
        conn: u64,
        player: u64,
        from: u64,
    },
    /// Telegram player `tg:{user}` joins on `conn`, sitting down.
    JoinTg(u64, u64),
    /// A spectator `s{conn}` joins.
    Watch(u64),
    /// A command with a seq.
    Cmd(u64, u64, Command),
    Resume(u64, u64, Option<u64>),
    Detach(u64),
    /// The socket on `conn` closed by its node's drain.
    Drained(u64),
    /// The takeover grace's timer fires.
    Grace,
    Hint(u64, u64),
    /// A hint asking for so many rollouts.
    HintOf(u64, u64, u32),
    /// The hint asked on `conn` with `seq` is computed.
    HintDone(u64, u64),
    /// Time passes (ms), nothing else.
    Wait(u64),
    Ok,
    Fail(fn() -> BackplaneError),
    Gap,
    Retry,
    Persist,
    Shutdown,
    HandedOff(bool, bool),
    LeaseLost,
    Idle,
    Released(Result<(), fn() -> BackplaneError>),
    Bot(SeatId, BotNeed, Option<Vec<Command>>),
}

pub(super) fn chat(text: &str) -> Command {
    Command::Chat { text: text.into() }
}

/// A host, started at `now` = 1000, fed inputs at `now` + 10 each.
pub(super) struct Run {
    pub(super) h: RoomHost<u64>,
    pub(super) now: u64,
}

impl Run {
    pub(super) fn new(room: Room) -> Run {
        Run::with(RoomHost::new(entry(), room, BTreeMap::new(), false, CFG))
    }

    pub(super) fn with(mut h: RoomHost<u64>) -> Run {
        let mut fx = Vec::new();
        h.start(1000, &mut fx);
        Run { h, now: 1000 }
    }

    /// Feeds one input; its effects, shown.
    pub(super) fn feed(&mut self, input: In) -> Vec<String> {
        self.now += 10;
        let now = self.now;
        let mut fx = Vec::new();
        let h = &mut self.h;
        let join = |conn, player: String, resume_from, spectate| JoinReq {
            conn,
            player: PlayerId::new(player),
            tx: conn,
            seat: None,
            spectate,
            seq: Some(1),
            resume_from,
            received: Instant::now(),
        };
        match input {
            In::Join(c) => {
                h.join(join(c, format!("p{c}"), None, false), now, &mut fx);
            }
            In::JoinTg(c, user) => {
                h.join(join(c, format!("tg:{user}"), None, false), now, &mut fx);
            }
            In::Rejoin { conn, player } => {
                h.join(join(conn, format!("p{player}"), None, false), now, &mut fx);
            }
            In::Back { conn, player, from } => {
                h.join(
                    join(conn, format!("p{player}"), Some(from), false),
                    now,
                    &mut fx,
                );
            }
            In::Watch(c) => {
                h.join(join(c, format!("s{c}"), None, true), now, &mut fx);
            }
            In::Cmd(c, seq, cmd) => {
                h.command(c, Some(seq), cmd, "cmd", Instant::now(), now, &mut fx)
            }
            In::Resume(c, v, seq) => h.resume(c, v, seq, &mut fx),
            In::Detach(c) => h.detach(c, now, &mut fx),
            In::Drained(c) => h.detach_for_drain(c, now, &mut fx),
            In::Grace => h.grace(now, &mut fx),
            In::Hint(c, seq) => h.hint(c, Some(seq), None, now, &mut fx),
            In::HintOf(c, seq, rollouts) => h.hint(c, Some(seq), Some(rollouts), now, &mut fx),
            In::HintDone(c, seq) => h.hint_answered(c, Some(seq), Some(vec![]), &mut fx),
            In::Wait(ms) => self.now += ms,
            In::Ok => h.written(Ok(()), now, &mut fx),
            In::Fail(e) => h.written(Err(e()), now, &mut fx),
            In::Gap => h.written(
                Err(BackplaneError::Gap { stored: 0, base: 3 }),
                now,
                &mut fx,
            ),
            In::Retry => h.retry(&mut fx),
            In::Persist => h.persist(&mut fx),
            In::Shutdown => h.shutdown(&mut fx),
            In::HandedOff(saved, released) => h.handed_off(saved, released, &mut fx),
            In::LeaseLost => h.lease_lost(&mut fx),
            In::Idle => h.idle(now, &mut fx),
            In::Released(r) => h.idle_released(r.map_err(|e| e()), now, &mut fx),
            In::Bot(seat, need, cmds) => h.bot_answered(seat, need, cmds, now, &mut fx),
        }
        show(&fx)
    }

    /// Feeds a table: each input and the effects it must have.
    pub(super) fn table(&mut self, rows: &[(In, &[&str])]) {
        for (i, (input, want)) in rows.iter().enumerate() {
            let got = self.feed(input.clone());
            assert_eq!(got, *want, "row {i}: {input:?}");
        }
    }

    /// Feeds inputs whose effects do not matter here.
    pub(super) fn setup(&mut self, inputs: &[In]) {
        for i in inputs {
            self.feed(i.clone());
        }
    }
}

fn json_type(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
    let t = v["type"].as_str().unwrap_or("?").to_string();
    match t.as_str() {
        "error" => format!("error:{}", v["code"].as_str().unwrap_or("?")),
        "ack" if v["duplicate"] == true => "ack(dup)".into(),
        "event" => v["event"]["type"].as_str().unwrap_or("?").to_string(),
        _ => t,
    }
}

fn out(o: &Outbound) -> String {
    match o {
        Outbound::Msg(m) => {
            let seq = m.seq().map(|s| format!("#{s}")).unwrap_or_default();
            format!("{}{seq}", json_type(&m.to_json()))
        }
        Outbound::Batch(items) => {
            let seq = items
                .iter()
                .find_map(|i| i.seq)
                .map(|s| format!("#{s}"))
                .unwrap_or_default();
            let types: Vec<String> = items.iter().map(|i| json_type(&i.text)).collect();
            format!("[{}]{seq}", types.join(" "))
        }
        Outbound::Close(_) => "close".into(),
        Outbound::Reroute => "reroute".into(),
        other => format!("{other:?}"),
    }
}

/// One line per effect; sends to several connections in a row (a
/// fan-out, whose order is the map's) sorted by connection, whether to a
/// connection the host holds (`1: …`) or one it just let go (`last 2: …`).
pub(super) fn show(fx: &[Effect<u64>]) -> Vec<String> {
    let mut lines = lines(fx);
    let conn = |l: &String| -> Option<u64> {
        let l = l.strip_prefix("last ").unwrap_or(l);
        l.split(':').next().and_then(|n| n.parse::<u64>().ok())
    };
    let mut i = 0;
    while i < lines.len() {
        let fan = lines[i..].iter().take_while(|l| conn(l).is_some()).count();
        lines[i..i + fan].sort_by_key(conn);
        i += fan.max(1);
    }
    lines
}

fn lines(fx: &[Effect<u64>]) -> Vec<String> {
    fx.iter()
        .map(|e| match e {
            Effect::Send { conn, out: o } => format!("{conn}: {}", out(o)),
            Effect::Last { tx, out: o } => format!("last {tx}: {}", out(o)),
            Effect::Write(Write::Whole(s)) => format!("write whole {}", s.snapshot.inputs.len()),
            Effect::Write(Write::Append(a)) => {
                format!("write append {}+{}", a.base, a.inputs.len())
            }
            Effect::Handoff {
                stored,
                needs_owner,
            } => format!(
                "handoff {} owner={needs_owner}",
                stored.snapshot.inputs.len()
            ),
            Effect::ReleaseIdle { waits, wake } => format!(
                "release idle{}{}",
                if *waits { " paused" } else { "" },
                wake.map(|w| format!(" wake {w}")).unwrap_or_default()
            ),
            Effect::Unfinished { player, game } => match game {
                Some(g) => match (g.time_control, g.turn) {
                    (Some(_), turn) => format!(
                        "unfinished {} {} {:?} turn {turn:?} deadline {:?} vs {:?}",
                        player.0, g.room_id, g.score, g.deadline, g.opponent
                    ),
                    (None, _) => format!("unfinished {} {} {:?}", player.0, g.room_id, g.score),
                },
                None => format!("finished {}", player.0),
            },
            Effect::Set { timer, at } => format!("set {timer:?} {at}"),
            Effect::Cancel(t) => format!("cancel {t:?}"),
            Effect::Think(t) => format!(
                "think {:?} {:?}{}",
                t.seat,
                t.need,
                if t.fallback { " fallback" } else { "" }
            ),
            Effect::Hint(h) => format!("hint {} x{}", h.conn, h.rollouts),
            Effect::CancelHint(c) => format!("cancel hint {c}"),
            Effect::RecordStats { player, .. } => format!("stats {}", player.0),
            Effect::SaveRecord { game_number, .. } => format!("record {game_number}"),
            Effect::Archive { key, .. } => format!("archive {key}"),
            Effect::Notify(q) => format!(
                "notify {} {} {} due {}{}",
                q.notice.kind.name(),
                q.notice.player,
                q.id,
                q.notice.due_ms,
                q.notice
                    .deadline_ms
                    .map(|d| format!(" until {d}"))
                    .unwrap_or_default()
            ),
            Effect::Count(Count::Command { kind, outcome }) => format!("#{kind}/{outcome}"),
            Effect::Count(Count::Fenced(op)) => format!("#fenced {op}"),
            Effect::Count(Count::StoreError(op)) => format!("#error/{op}"),
            Effect::Count(Count::Release(why)) => format!("#release/{why}"),
            Effect::Count(Count::GameFinished(k)) => format!("#finished/{k}"),
            Effect::Latency(_) => "latency".into(),
            Effect::Stop => "stop".into(),
        })
        .collect()
}

/// Guests `p1` and `p2` seated on connections 1 and 2 in a room hosted
/// with `config`, both ready: the game has begun, everything written.
pub(super) fn guests_playing(config: HostConfig) -> Run {
    let mut r = Run::with(RoomHost::new(
        entry(),
        pvp(),
        BTreeMap::new(),
        false,
        config,
    ));
    r.setup(&[
        In::Join(1),
        In::Ok,
        In::Join(2),
        In::Ok,
        In::Cmd(1, 2, Command::Ready),
        In::Ok,
        In::Cmd(2, 2, Command::Ready),
        In::Ok,
    ]);
    r
}

/// Two players seated on connections 1 and 2, everything written.
pub(super) fn two_seated() -> Run {
    let mut r = Run::new(pvp());
    r.setup(&[In::Join(1), In::Ok, In::Join(2), In::Ok]);
    assert_eq!(r.h.lifecycle(), Lifecycle::Serving);
    r
}

pub(super) const SENT_HI: &[&str] = &["1: [chat]#5", "2: [chat]", "latency", "cancel Room"];
