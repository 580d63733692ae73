//! `tabula play` and `tabula verify`: whole games through the room core,
//! with provably fair dice, and the check anyone can run on a game record.
//!
//! `play` exists so that a record can be produced without a server (for
//! demos, fixtures and the verifier's own tests); `verify` is a thin wrapper
//! over [`tabula_room::verify`], which recomputes every roll from the
//! revealed server seed and replays every action through the engines.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_room::{
    Actor, BotNeed, Command, Event, GameKind, GameOptions, GameRecord, PlayerId, Room, RoomConfig,
    SeatId, Spot,
};

use crate::args::{Game, parse_options};

/// `tabula play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// Which game.
    #[arg(long, value_enum)]
    pub game: Game,
    /// Seed for the room's secret master seed and for the random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Variant options as `key=value`, repeatable (long nardy, backgammon
    /// `scoring=…`, Thud! `capture_rule=…`).
    #[arg(long = "option", short = 'o')]
    pub options: Vec<String>,
    /// Write the finished game's record (JSON) here; `-` for stdout.
    #[arg(long)]
    pub record: PathBuf,
}

/// `tabula verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The game record (JSON), as a room publishes it at the end of a game.
    pub record: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn winner(w: Option<SeatId>) -> String {
    w.map_or_else(|| "none (a draw)".to_string(), |s| format!("seat {s:?}"))
}

fn game_options(game: Game, raw: &[String]) -> anyhow::Result<GameOptions> {
    let mut o = GameOptions {
        game: match game {
            Game::LongNardy => GameKind::LongNardy,
            Game::Backgammon => GameKind::Backgammon,
            Game::Thud => GameKind::Thud,
        },
        ..GameOptions::default()
    };
    // Random Thud! play rarely ends by agreement; a capture-free limit makes
    // every generated game finish.
    o.thud.max_plies_without_capture = Some(100);
    for (k, v) in parse_options(raw)? {
        match game {
            Game::LongNardy => o.long.set(&k, &v)?,
            Game::Backgammon => o.backgammon.set(&k, &v)?,
            Game::Thud => o.thud.set(&k, &v)?,
        }
    }
    Ok(o)
}

/// Plays one complete game between two uniformly random players and
/// returns its record.
pub fn play_game(game: Game, seed: u64, raw_options: &[String]) -> anyhow::Result<GameRecord> {
    let options = game_options(game, raw_options)?;
    let mut room = Room::new(RoomConfig {
        options,
        master_seed: format!("tabula-cli-play-{seed}"),
        ..RoomConfig::default()
    });
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let players = [
        Actor::Player(PlayerId::new("a")),
        Actor::Player(PlayerId::new("b")),
    ];
    let who = |seat: SeatId| match seat {
        SeatId::A => players[0].clone(),
        SeatId::B => players[1].clone(),
    };
    let mut now = 1_000u64;
    let mut apply = |room: &mut Room, actor: Actor, cmd: Command| -> anyhow::Result<()> {
        now += 100;
        let desc = format!("{cmd:?}");
        room.apply(cmd, actor, now)
            .map(|_| ())
            .with_context(|| format!("the room refused {desc}"))
    };
    apply(
        &mut room,
        who(SeatId::A),
        Command::Sit {
            seat: Some(SeatId::A),
        },
    )?;
    apply(
        &mut room,
        who(SeatId::B),
        Command::Sit {
            seat: Some(SeatId::B),
        },
    )?;
    apply(&mut room, who(SeatId::A), Command::Ready)?;
    apply(&mut room, who(SeatId::B), Command::Ready)?;

    // Bounded so a rules bug shows up as an error, not a hang.
    for _ in 0..100_000 {
        let Some(g) = room.game() else {
            bail!("the game did not start")
        };
        if g.result().is_some() {
            break;
        }
        let Some((seat, need)) = g.to_act() else {
            break;
        };
        let cmd = match need {
            BotNeed::Roll => Command::RollDice,
            BotNeed::CubeDecision => Command::Take,
            BotNeed::EndProposal => Command::AcceptEnd,
            BotNeed::Ready => Command::Ready,
            BotNeed::Move => {
                if let Some(t) = g.thud_game() {
                    let moves = t.round().position().legal_moves();
                    let mv = moves.choose(&mut rng).context("no Thud! move offered")?;
                    Command::ThudMove {
                        notation: mv.to_string(),
                    }
                } else {
                    let steps = room
                        .log()
                        .iter()
                        .rev()
                        .find_map(|e| match &*e.event {
                            Event::PossibleMoves { first_steps, .. } => Some(first_steps.clone()),
                            _ => None,
                        })
                        .context("no possibleMoves event before a move")?;
                    let step = steps.choose(&mut rng).context("no legal step offered")?;
                    let (from, to) = Spot::parse_step(step).map_err(anyhow::Error::msg)?;
                    Command::Move { from, to }
                }
            }
        };
        // Give the random players a little variety in Thud! round endings.
        let cmd = if matches!(cmd, Command::ThudMove { .. }) && rng.random_ratio(1, 2000) {
            Command::ProposeEnd
        } else {
            cmd
        };
        apply(&mut room, who(seat), cmd)?;
    }
    room.records()
        .last()
        .cloned()
        .context("the game did not finish within 100000 commands")
}

pub fn play(a: &PlayArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let record = play_game(a.game, a.seed, &a.options)?;
    let json = serde_json::to_string_pretty(&record)?;
    if a.record.as_os_str() == "-" {
        writeln!(out, "{json}")?;
    } else {
        std::fs::write(&a.record, json + "\n")
            .with_context(|| format!("cannot write {}", a.record.display()))?;
        writeln!(
            out,
            "wrote {} ({} actions, winner {}, {} points)",
            a.record.display(),
            record.actions.len(),
            winner(record.result.winner),
            record.result.points
        )?;
    }
    Ok(())
}

pub fn verify(a: &VerifyArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&a.record)
        .with_context(|| format!("cannot read {}", a.record.display()))?;
    let record: GameRecord = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a game record", a.record.display()))?;
    let v = tabula_room::verify(&record).context("verification failed")?;
    // Under a time control: the periods checked, and who ran out.
    let clock = record.clock.as_ref().map(|c| {
        let timeouts: Vec<_> = c
            .turns
            .iter()
            .filter(|t| t.timed_out(&c.control))
            .map(|t| t.seat)
            .collect();
        (c, timeouts)
    });
    if a.json {
        let j = serde_json::json!({
            "ok": true,
            "game": record.game,
            "commitment": record.commitment,
            "rolls": v.rolls,
            "actions": v.actions,
            "result": v.result,
            "clock": clock.as_ref().map(|(c, timeouts)| serde_json::json!({
                "control": c.control,
                "periods": c.turns.len(),
                "timeouts": timeouts,
            })),
        });
        writeln!(out, "{j}")?;
    } else {
        let clock = match &clock {
            None => String::new(),
            Some((c, timeouts)) => format!(
                "; clock {} s + {} s, {} periods checked{}",
                c.control.delay_ms / 1000,
                c.control.reserve_ms / 1000,
                c.turns.len(),
                match timeouts.as_slice() {
                    [] => String::new(),
                    seats => format!(
                        ", ran out of time: {}",
                        seats
                            .iter()
                            .map(|s| winner(Some(*s)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            ),
        };
        writeln!(
            out,
            "ok: commitment matches the revealed seed; {} rolls recomputed, {} actions replayed; winner {}, {} points{clock}",
            v.rolls,
            v.actions,
            winner(v.result.winner),
            v.result.points
        )?;
    }
    Ok(())
}
