//! `tabula-ws-floor`: the socket stack alone, with no rooms, no rules and
//! no JSON, so that `measure.sh floor` can say how many actions per core
//! the stack the product card prescribes (actix-web + actix-ws on tokio,
//! mimalloc, the kernel's loopback TCP) can carry on this machine at all.
//!
//! One stressed action of a node is: a client frame in (one `recvfrom`),
//! an answer out to the mover and the event out to the other player (one
//! `sendto` each). `serve` does exactly that and nothing else: a frame from
//! one socket of a pair is answered with a fixed text to that socket and
//! another fixed text to its partner, from the socket's own task (each
//! text a fresh copy of a prepared one, as a node writes each recipient's
//! own). `drive` opens the pairs and has one socket of each send a frame
//! as soon as the previous answer arrived (zero think time), the other
//! socket only reading, and prints the actions answered (and the events
//! the partners received).
//!
//! ```sh
//! tabula-ws-floor serve --listen 127.0.0.1:9000 --rooms 2 &
//! tabula-ws-floor drive --url 127.0.0.1:9000 --pairs 200 --seconds 30
//! ```
//!
//! With `--rooms N` each pair's frames go through an `actix` actor (one per
//! pair, spread over N arbiters, as a node's rooms are) that sends both
//! texts back through each socket's channel, as a node's room does: the
//! stack plus the hop the product card's design (rooms as actors) implies,
//! still with no rules and no JSON.
//!
//! The node's CPU per action against this server's says how much of a
//! node's work is ours rather than the stack's.

use std::collections::HashMap;
use std::io::Write as _;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::{Actor, Addr, Context, Handler, Message};
use actix_rt::{Arbiter, ArbiterHandle};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use actix_ws::{AggregatedMessage, Session};
use anyhow::{Context as _, anyhow, bail};
use clap::{Parser, Subcommand};
use futures_util::{SinkExt as _, StreamExt as _};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{Message as WsMessage, protocol::WebSocketConfig};

/// The same allocator as the node and the harness.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "tabula-ws-floor",
    about = "The socket stack's own cost per action"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Serve `/ws?pair=N&seat=a|b` on actix-web + actix-ws.
    Serve {
        /// Address to listen on (`host:port`; port 0 picks one, printed).
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: String,
        /// actix-web workers (the node's default is 2).
        #[arg(long, default_value_t = 2)]
        workers: usize,
        /// Bytes of the answer to the mover. A stressed long nardy action
        /// moves ~650 payload bytes on loopback (`/proc/net/dev`, lo): a
        /// ~64-byte command and ~300 bytes to each player.
        #[arg(long, default_value_t = 300)]
        answer_bytes: usize,
        /// Bytes of the event to the other player.
        #[arg(long, default_value_t = 300)]
        event_bytes: usize,
        /// Route each frame through the pair's room actor on one of this
        /// many arbiters (0: answer from the socket's own task).
        #[arg(long, default_value_t = 0)]
        rooms: usize,
    },
    /// Drive `pairs` pairs at zero think time and print actions answered.
    Drive {
        /// The server's `host:port`.
        #[arg(long)]
        url: String,
        #[arg(long, default_value_t = 200)]
        pairs: usize,
        #[arg(long, default_value_t = 30)]
        seconds: u64,
        /// Bytes of each client frame (a node's command, ~64).
        #[arg(long, default_value_t = 64)]
        frame_bytes: usize,
        /// Open the pairs, send each socket one frame (as a player's
        /// `join`) and then hold them idle for the duration, sending
        /// nothing: the stack's own memory per idle pair of sockets.
        #[arg(long)]
        idle: bool,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().cmd {
        Cmd::Serve {
            listen,
            workers,
            answer_bytes,
            event_bytes,
            rooms,
        } => serve(&listen, workers, answer_bytes, event_bytes, rooms),
        Cmd::Drive {
            url,
            pairs,
            seconds,
            frame_bytes,
            idle,
        } => drive(&url, pairs, Duration::from_secs(seconds), frame_bytes, idle),
    }
}

/// The sockets of each pair, by seat, once connected.
type Pairs = Arc<Mutex<HashMap<u64, [Option<Session>; 2]>>>;

#[derive(Clone)]
struct Floor {
    pairs: Pairs,
    answer: String,
    event: String,
    /// With `--rooms`: the arbiters, and each pair's room once started.
    arbiters: Arc<Vec<ArbiterHandle>>,
    rooms: Arc<Mutex<HashMap<u64, Addr<PairRoom>>>>,
}

impl std::fmt::Debug for Floor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Floor")
            .field("answer_bytes", &self.answer.len())
            .field("event_bytes", &self.event.len())
            .finish_non_exhaustive()
    }
}

/// A text of `n` bytes that looks like JSON to nobody in particular.
fn filler(n: usize) -> String {
    let mut s = String::with_capacity(n);
    s.push_str("{\"t\":\"");
    while s.len() + 2 < n {
        s.push('x');
    }
    s.push_str("\"}");
    s
}

fn serve(
    listen: &str,
    workers: usize,
    answer: usize,
    event: usize,
    rooms: usize,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(listen).with_context(|| format!("bind {listen}"))?;
    let addr = listener.local_addr()?;
    writeln!(std::io::stdout().lock(), "listening on {addr}")?;
    actix_rt::System::new().block_on(async move {
        // Arbiters outlive the server: kept here until it stops.
        let arbiters: Vec<Arbiter> = (0..rooms).map(|_| Arbiter::new()).collect();
        let floor = Floor {
            pairs: Arc::default(),
            answer: filler(answer),
            event: filler(event),
            arbiters: Arc::new(arbiters.iter().map(Arbiter::handle).collect()),
            rooms: Arc::default(),
        };
        HttpServer::new(move || {
            App::new()
                .app_data(web::Data::new(floor.clone()))
                .route("/ws", web::get().to(ws))
        })
        .workers(workers)
        .listen(listener)?
        .run()
        .await
    })?;
    Ok(())
}

#[derive(Debug, serde::Deserialize)]
struct Seat {
    pair: u64,
    seat: String,
}

async fn ws(
    req: HttpRequest,
    body: web::Payload,
    q: web::Query<Seat>,
    floor: web::Data<Floor>,
) -> Result<HttpResponse, actix_web::Error> {
    let me = usize::from(q.seat == "b");
    let (resp, session, stream) = actix_ws::handle(&req, body)?;
    let stream = stream.aggregate_continuations();
    let floor = floor.into_inner();
    let pair = q.pair;
    if floor.arbiters.is_empty() {
        floor
            .pairs
            .lock()
            .map_err(|_| poisoned())?
            .entry(pair)
            .or_default()[me] = Some(session.clone());
        actix_rt::spawn(run(floor, pair, me, session, stream));
    } else {
        let room = {
            let mut rooms = floor.rooms.lock().map_err(|_| poisoned())?;
            rooms
                .entry(pair)
                .or_insert_with(|| {
                    #[expect(clippy::cast_possible_truncation, reason = "a pair number mod a few")]
                    let arbiter = &floor.arbiters[(pair % floor.arbiters.len() as u64) as usize];
                    let (answer, event) = (floor.answer.clone(), floor.event.clone());
                    PairRoom::start_in_arbiter(arbiter, move |_| PairRoom {
                        outs: [None, None],
                        answer,
                        event,
                    })
                })
                .clone()
        };
        // Attached before the handshake's answer, so that the partner's
        // first frame, sent once both handshakes are done, finds it.
        let (tx, rx) = mpsc::unbounded_channel();
        room.do_send(Attach(me, tx));
        actix_rt::spawn(run_via(floor, pair, room, me, rx, session, stream));
    }
    Ok(resp)
}

/// A pair's room: a frame from one seat is answered to both, through
/// their sockets' channels.
#[derive(Debug)]
struct PairRoom {
    outs: [Option<mpsc::UnboundedSender<String>>; 2],
    answer: String,
    event: String,
}

impl Actor for PairRoom {
    type Context = Context<Self>;
}

#[derive(Debug, Message)]
#[rtype(result = "()")]
struct Attach(usize, mpsc::UnboundedSender<String>);

/// A client frame, owned, as a node's session hands a command to its room.
#[derive(Debug, Message)]
#[rtype(result = "()")]
struct Frame(
    usize,
    #[expect(dead_code, reason = "carried, as a node carries the command, not read")] String,
);

impl Handler<Attach> for PairRoom {
    type Result = ();
    fn handle(&mut self, Attach(seat, tx): Attach, _: &mut Context<Self>) {
        self.outs[seat] = Some(tx);
    }
}

impl Handler<Frame> for PairRoom {
    type Result = ();
    fn handle(&mut self, Frame(seat, _): Frame, _: &mut Context<Self>) {
        if let Some(tx) = &self.outs[seat] {
            let _ = tx.send(self.answer.clone());
        }
        if let Some(tx) = &self.outs[1 - seat] {
            let _ = tx.send(self.event.clone());
        }
    }
}

/// One socket whose frames go to its pair's room and whose writes come
/// back from it.
async fn run_via(
    floor: Arc<Floor>,
    pair: u64,
    room: Addr<PairRoom>,
    me: usize,
    mut rx: mpsc::UnboundedReceiver<String>,
    mut session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
) {
    loop {
        tokio::select! {
            m = stream.recv() => match m {
                Some(Ok(AggregatedMessage::Text(t))) => room.do_send(Frame(me, t.to_string())),
                Some(Ok(AggregatedMessage::Ping(b))) => {
                    if session.pong(&b).await.is_err() {
                        break;
                    }
                }
                Some(Ok(AggregatedMessage::Binary(_) | AggregatedMessage::Pong(_))) => {}
                _ => break,
            },
            out = rx.recv() => {
                let Some(text) = out else { break };
                if session.text(text).await.is_err() {
                    break;
                }
            }
        }
    }
    // The room stops once its partner's socket lets go of it too.
    if let Ok(mut rooms) = floor.rooms.lock() {
        rooms.remove(&pair);
    }
    let _ = session.close(None).await;
}

fn poisoned() -> actix_web::Error {
    actix_web::error::ErrorInternalServerError("poisoned")
}

/// One socket: every text frame is answered to it and to its partner.
async fn run(
    floor: Arc<Floor>,
    pair: u64,
    me: usize,
    mut session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
) {
    let mut partner: Option<Session> = None;
    while let Some(Ok(m)) = stream.recv().await {
        match m {
            AggregatedMessage::Text(_) => {
                if partner.is_none() {
                    partner = floor
                        .pairs
                        .lock()
                        .ok()
                        .and_then(|p| p.get(&pair).and_then(|s| s[1 - me].clone()));
                }
                if session.text(floor.answer.clone()).await.is_err() {
                    break;
                }
                if let Some(p) = partner.as_mut() {
                    // A partner gone is not this socket's business.
                    let _ = p.text(floor.event.clone()).await;
                }
            }
            AggregatedMessage::Ping(b) => {
                if session.pong(&b).await.is_err() {
                    break;
                }
            }
            AggregatedMessage::Close(_) => break,
            AggregatedMessage::Binary(_) | AggregatedMessage::Pong(_) => {}
        }
    }
    if let Ok(mut p) = floor.pairs.lock()
        && let Some(s) = p.get_mut(&pair)
    {
        s[me] = None;
        if s.iter().all(Option::is_none) {
            p.remove(&pair);
        }
    }
    let _ = session.close(None).await;
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Both sockets of a pair; with `hello`, each sends it once and reads the
/// two answers it causes (its own and its partner's), as a joined player.
async fn open_pair(
    url: &str,
    pair: usize,
    cfg: WebSocketConfig,
    hello: Option<&str>,
) -> anyhow::Result<(Ws, Ws)> {
    let mut ws = Vec::with_capacity(2);
    for seat in ["a", "b"] {
        let (s, _) = tokio_tungstenite::connect_async_with_config(
            format!("ws://{url}/ws?pair={pair}&seat={seat}"),
            Some(cfg),
            true,
        )
        .await
        .with_context(|| format!("connect pair {pair} seat {seat}"))?;
        ws.push(s);
    }
    let (mut a, mut b) = (ws.remove(0), ws.remove(0));
    if let Some(hello) = hello {
        a.send(WsMessage::text(hello)).await?;
        b.send(WsMessage::text(hello)).await?;
        for s in [&mut a, &mut b] {
            for _ in 0..2 {
                tokio::time::timeout(Duration::from_secs(10), s.next())
                    .await
                    .with_context(|| format!("pair {pair}: an answer to the first frames"))?
                    .context("closed")??;
            }
        }
    }
    Ok((a, b))
}

fn drive(
    url: &str,
    pairs: usize,
    length: Duration,
    frame: usize,
    idle: bool,
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let answered = Arc::new(AtomicU64::new(0));
    let events = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let frame = filler(frame);
    let (secs, n, e) = rt.block_on(async {
        let cfg = WebSocketConfig::default()
            .read_buffer_size(8 * 1024)
            .write_buffer_size(0);
        // Pairs open 64 at a time: one by one, 3,000 pairs took minutes.
        let opened: Vec<anyhow::Result<(Ws, Ws)>> = futures_util::stream::iter(0..pairs)
            .map(|pair| open_pair(url, pair, cfg, idle.then_some(frame.as_str())))
            .buffer_unordered(64)
            .collect()
            .await;
        let mut movers = Vec::with_capacity(pairs);
        for p in opened {
            let (mut a, mut b) = p?;
            if idle {
                movers.push(tokio::spawn(async move {
                    let _held = (a, b);
                    std::future::pending::<anyhow::Result<()>>().await
                }));
                continue;
            }
            let (stop_b, events) = (stop.clone(), events.clone());
            tokio::spawn(async move {
                while !stop_b.load(Ordering::Relaxed) {
                    match b.next().await {
                        Some(Ok(WsMessage::Text(_))) => {
                            events.fetch_add(1, Ordering::Relaxed);
                        }
                        Some(Ok(_)) => {}
                        _ => break,
                    }
                }
            });
            let (stop, answered, frame) = (stop.clone(), answered.clone(), frame.clone());
            movers.push(tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    a.send(WsMessage::text(frame.clone())).await?;
                    match a.next().await {
                        Some(Ok(WsMessage::Text(_))) => {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Some(Ok(_)) => {}
                        Some(Err(e)) => return Err(anyhow!(e)),
                        None => bail!("closed"),
                    }
                }
                Ok::<_, anyhow::Error>(())
            }));
        }
        if idle {
            writeln!(std::io::stdout().lock(), "holding {pairs} pairs")?;
        }
        let t = Instant::now();
        let (n0, e0) = (
            answered.load(Ordering::Relaxed),
            events.load(Ordering::Relaxed),
        );
        tokio::time::sleep(length).await;
        let n = answered.load(Ordering::Relaxed) - n0;
        let e = events.load(Ordering::Relaxed) - e0;
        let secs = t.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        if idle {
            return Ok((secs, n, e));
        }
        for m in movers {
            if let Ok(Err(e)) = m.await {
                bail!("a mover failed: {e}");
            }
        }
        Ok::<_, anyhow::Error>((secs, n, e))
    })?;
    #[expect(clippy::cast_precision_loss, reason = "a count of actions")]
    let rate = n as f64 / secs;
    writeln!(
        std::io::stdout().lock(),
        "{{\"pairs\":{pairs},\"seconds\":{secs:.3},\"actions\":{n},\"events\":{e},\"actions_per_s\":{rate:.1}}}"
    )?;
    Ok(())
}
