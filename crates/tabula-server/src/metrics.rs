//! Prometheus metrics (prefix `tabula_`, base units, histograms).

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Every metric of a node.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Registry,
    /// Open WebSocket connections.
    pub connections: IntGauge,
    /// Rooms by game and state.
    pub rooms: IntGaugeVec,
    /// Commands by type and outcome (`accepted`, or the error code).
    pub commands: IntCounterVec,
    /// From a command's arrival to its events being sent, seconds.
    pub command_latency: Histogram,
    /// Snapshot write time, seconds.
    pub snapshot_latency: Histogram,
    /// How long a room held a finished game's end until the game was kept
    /// (stored, or queued where the queue outlives the node).
    pub archive_hold: Histogram,
    /// Games finished by game and kind of win.
    pub games_finished: IntCounterVec,
    /// Bot think time by game, seconds.
    pub bot_think: HistogramVec,
    /// Room claims by reason (`create`, `join`, `sweep`).
    pub claims: IntCounterVec,
    /// Rooms taken over from a dead or departed owner.
    pub takeovers: IntCounterVec,
    /// Rooms released (drain, lease loss).
    pub releases: IntCounterVec,
    /// Snapshot writes refused by the fence (the room stopped here).
    pub fenced: IntCounterVec,
    /// Commands sent to a room owned by another node.
    pub routed_commands: IntCounterVec,
    /// From sending a routed command to its first answer, seconds.
    pub routed_latency: Histogram,
    /// Gaps in the stream from an owner, and full resyncs asked for.
    pub route_gaps: IntCounterVec,
    /// Sessions re-routed to a room's new owner.
    pub reroutes: IntCounterVec,
    /// Faults the link watch found on links to remote owners, by kind
    /// (`owner_dead`, `silent`, `beat_gap`, `stale_sender`, `orphan_proxy`).
    pub link_faults: IntCounterVec,
    /// Sockets refused or closed by a limit (`node_full`, `player_full`,
    /// `idle`, `no_pong`, `flood`).
    pub socket_limits: IntCounterVec,
    /// Requests refused by a quota, by route (`create`, `quickmatch`,
    /// and for the room cap also `join`, `rejoin`, `sweep`) and quota
    /// (`player`, `address`, `room_cap`).
    pub quota_refusals: IntCounterVec,
    /// Backplane (Redis) errors by operation.
    pub backplane_errors: IntCounterVec,
    /// Tournaments this node owns and runs.
    pub tournaments_running: IntGauge,
    /// Tournaments that ended on this node, by how (`finished`,
    /// `cancelled`).
    pub tournaments_finished: IntCounterVec,
    /// From a tournament game's end (its room's post) to its players' next
    /// pairing, seconds.
    pub tournament_pairing: Histogram,
    /// 1 while this node has closed its sockets because it alone is cut
    /// off from the store ([`crate::partition`]).
    pub cut_off: IntGauge,
    /// Times this node found itself alone cut off from the store.
    pub cut_offs: IntCounter,
    /// Finished games waiting in the archive queue (as this node's
    /// archiver last read it).
    pub archive_backlog: IntGauge,
    /// Age of the oldest game waiting in the archive queue, seconds (0
    /// when none waits).
    pub archive_lag: prometheus::Gauge,
    /// 1 while this node drains the archive queue (archives and rates:
    /// one node at a time, under a lease), else 0.
    pub archive_drainer: IntGauge,
    /// Games taken off the archive queue, by outcome (`stored`,
    /// `already_stored`, `refused`).
    pub archived: IntCounterVec,
    /// Durable store errors, by operation.
    pub store_errors: IntCounterVec,
    /// Rated games whose ratings were applied, by outcome (`applied`,
    /// `already_applied`, `conflict`, `unrateable`: settled with no change).
    pub ratings_applied: IntCounterVec,
    /// The Telegram bot's ([`crate::telegram::TelegramMetrics`]).
    pub telegram: crate::telegram::TelegramMetrics,
}

const FAST: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];

impl Metrics {
    /// Registers every metric in a fresh registry.
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let connections =
            IntGauge::new("tabula_connections", "Open WebSocket connections").expect("metric");
        let rooms = IntGaugeVec::new(
            Opts::new("tabula_rooms", "Rooms by game and state"),
            &["game", "state"],
        )
        .expect("metric");
        let commands = IntCounterVec::new(
            Opts::new(
                "tabula_commands_total",
                "Client commands by type and outcome",
            ),
            &["type", "outcome"],
        )
        .expect("metric");
        let command_latency = Histogram::with_opts(
            HistogramOpts::new(
                "tabula_command_latency_seconds",
                "From a command's arrival to its events being sent",
            )
            .buckets(FAST.to_vec()),
        )
        .expect("metric");
        let snapshot_latency = Histogram::with_opts(
            HistogramOpts::new(
                "tabula_snapshot_write_seconds",
                "Time to write a room snapshot through the backplane",
            )
            .buckets(FAST.to_vec()),
        )
        .expect("metric");
        let archive_hold = Histogram::with_opts(
            HistogramOpts::new(
                "tabula_archive_hold_seconds",
                "Time a room holds a finished game's end until the game is kept beyond the node (stored, or queued in Redis)",
            )
            .buckets(FAST.to_vec()),
        )
        .expect("metric");
        let games_finished = IntCounterVec::new(
            Opts::new(
                "tabula_games_finished_total",
                "Games finished by game and kind",
            ),
            &["game", "kind"],
        )
        .expect("metric");
        let bot_think = HistogramVec::new(
            HistogramOpts::new("tabula_bot_think_seconds", "Bot think time by game")
                .buckets(FAST.to_vec()),
            &["game"],
        )
        .expect("metric");
        let counter = |name: &str, help: &str, labels: &[&str]| {
            IntCounterVec::new(Opts::new(name, help), labels).expect("metric")
        };
        let claims = counter(
            "tabula_room_claims_total",
            "Room claims by reason",
            &["reason"],
        );
        let takeovers = counter(
            "tabula_room_takeovers_total",
            "Rooms taken over from their last snapshot",
            &["reason"],
        );
        let releases = counter(
            "tabula_room_releases_total",
            "Rooms released by this node",
            &["reason"],
        );
        let fenced = counter(
            "tabula_fencing_refusals_total",
            "Snapshot writes refused by the fencing epoch",
            &["op"],
        );
        let routed_commands = counter(
            "tabula_routed_commands_total",
            "Commands routed to another node, by outcome",
            &["outcome"],
        );
        let routed_latency = Histogram::with_opts(
            HistogramOpts::new(
                "tabula_routed_command_latency_seconds",
                "From routing a command to its first answer",
            )
            .buckets(FAST.to_vec()),
        )
        .expect("metric");
        let route_gaps = counter(
            "tabula_route_gaps_total",
            "Gaps and resyncs on routed streams",
            &["kind"],
        );
        let reroutes = counter(
            "tabula_reroutes_total",
            "Sessions re-routed to a room's new owner",
            &["reason"],
        );
        let link_faults = counter(
            "tabula_link_faults_total",
            "Faults found on links to rooms owned elsewhere, by kind",
            &["kind"],
        );
        let socket_limits = counter(
            "tabula_socket_limits_total",
            "Sockets refused or closed by a limit, by reason",
            &["reason"],
        );
        let quota_refusals = counter(
            "tabula_quota_refusals_total",
            "Requests refused by a quota (429 per player or address, the room cap), by route and quota",
            &["route", "quota"],
        );
        let backplane_errors = counter(
            "tabula_backplane_errors_total",
            "Backplane errors by operation",
            &["op"],
        );
        let tournaments_running = IntGauge::new(
            "tabula_tournaments_running",
            "Tournaments this node owns and runs",
        )
        .expect("metric");
        let tournaments_finished = counter(
            "tabula_tournaments_finished_total",
            "Tournaments that ended on this node, by how (finished, cancelled)",
            &["outcome"],
        );
        let tournament_pairing = Histogram::with_opts(
            HistogramOpts::new(
                "tabula_tournaments_pairing_seconds",
                "From a tournament game's end to its players' next pairing",
            )
            .buckets(vec![0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0]),
        )
        .expect("metric");
        let cut_off = IntGauge::new(
            "tabula_node_cut_off",
            "1 while this node is cut off from the store alone and refuses sockets",
        )
        .expect("metric");
        let cut_offs = IntCounter::new(
            "tabula_node_cut_offs_total",
            "Times this node found itself alone cut off from the store and closed its sockets",
        )
        .expect("metric");
        let archive_backlog = IntGauge::new(
            "tabula_archive_backlog_games",
            "Finished games waiting in the archive queue for the durable store",
        )
        .expect("metric");
        let archive_lag = prometheus::Gauge::new(
            "tabula_archive_lag_seconds",
            "Age of the oldest finished game waiting in the archive queue (0: none waits)",
        )
        .expect("metric");
        let archive_drainer = IntGauge::new(
            "tabula_archive_drainer",
            "1 while this node drains the archive queue (one node at a time), else 0",
        )
        .expect("metric");
        let archived = counter(
            "tabula_archived_total",
            "Finished games taken off the archive queue, by outcome",
            &["outcome"],
        );
        let store_errors = counter(
            "tabula_store_errors_total",
            "Durable store errors by operation",
            &["op"],
        );
        let ratings_applied = counter(
            "tabula_ratings_applied_total",
            "Rated games whose ratings were applied, by outcome",
            &["outcome"],
        );
        for c in [
            Box::new(connections.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(rooms.clone()),
            Box::new(commands.clone()),
            Box::new(command_latency.clone()),
            Box::new(snapshot_latency.clone()),
            Box::new(archive_hold.clone()),
            Box::new(games_finished.clone()),
            Box::new(bot_think.clone()),
            Box::new(claims.clone()),
            Box::new(takeovers.clone()),
            Box::new(releases.clone()),
            Box::new(fenced.clone()),
            Box::new(routed_commands.clone()),
            Box::new(routed_latency.clone()),
            Box::new(route_gaps.clone()),
            Box::new(reroutes.clone()),
            Box::new(link_faults.clone()),
            Box::new(socket_limits.clone()),
            Box::new(quota_refusals.clone()),
            Box::new(backplane_errors.clone()),
            Box::new(tournaments_running.clone()),
            Box::new(tournaments_finished.clone()),
            Box::new(tournament_pairing.clone()),
            Box::new(cut_off.clone()),
            Box::new(cut_offs.clone()),
            Box::new(archive_backlog.clone()),
            Box::new(archive_lag.clone()),
            Box::new(archive_drainer.clone()),
            Box::new(archived.clone()),
            Box::new(store_errors.clone()),
            Box::new(ratings_applied.clone()),
        ] {
            registry.register(c).expect("unique metric names");
        }
        let telegram = crate::telegram::TelegramMetrics::register(&registry);
        Metrics {
            telegram,
            registry,
            connections,
            rooms,
            commands,
            command_latency,
            snapshot_latency,
            archive_hold,
            games_finished,
            bot_think,
            claims,
            takeovers,
            releases,
            fenced,
            routed_commands,
            routed_latency,
            route_gaps,
            reroutes,
            link_faults,
            socket_limits,
            quota_refusals,
            backplane_errors,
            tournaments_running,
            tournaments_finished,
            tournament_pairing,
            cut_off,
            cut_offs,
            archive_backlog,
            archive_lag,
            archive_drainer,
            archived,
            store_errors,
            ratings_applied,
        }
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut buf);
        String::from_utf8(buf).unwrap_or_default()
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}
