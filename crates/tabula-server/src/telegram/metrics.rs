//! The bot's Prometheus metrics (`tabula_telegram_*`, `tabula_notices_*`).

use prometheus::{Histogram, HistogramOpts, IntCounterVec, IntGauge, Opts, Registry};

/// The bot's metrics.
#[derive(Debug, Clone)]
pub struct TelegramMetrics {
    /// Webhook updates by what was done (`handled`, `duplicate`,
    /// `unauthorized`, `bad_request`, `too_large`, `ignored`).
    pub updates: IntCounterVec,
    /// From a webhook request's arrival to its answer, seconds.
    pub webhook_latency: Histogram,
    /// Notices queued, by kind.
    pub queued: IntCounterVec,
    /// Notices sent, by kind.
    pub sent: IntCounterVec,
    /// Notices not sent, by reason (`not_started`, `blocked`, `opted_out`,
    /// `quiet`, `expired`, `stale`, `bad_request`, `rate_limited`: put
    /// back after a 429, `unavailable`: put back after a 5xx or no answer).
    pub refused: IntCounterVec,
    /// From a notice's cause to its send, seconds.
    pub delay: Histogram,
    /// Notices in the queue (as this node's sender last read it).
    pub backlog: IntGauge,
    /// How late the most overdue notice in the queue is, seconds (0: none
    /// is due).
    pub oldest_due: prometheus::Gauge,
    /// Bot API calls by method and outcome (`ok` or the refusal).
    pub api_calls: IntCounterVec,
    /// Tournament posts to groups queued, by post (`announce`, `round`,
    /// `top`, `final`, `cancelled`, `started`).
    pub group_queued: IntCounterVec,
    /// Tournament posts to groups sent (or edited, an arena's top), by
    /// post.
    pub group_sent: IntCounterVec,
    /// Tournament posts to groups not sent or put back, by reason (as the
    /// notices': `rate_limited`, `chat_busy`, `unavailable`, `blocked`,
    /// `bad_request`, `expired`, `gave_up`, …).
    pub group_failed: IntCounterVec,
}

const WEB: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];
const DELAY: &[f64] = &[
    0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0,
];

impl TelegramMetrics {
    /// Registers them in `registry`.
    pub fn register(registry: &Registry) -> TelegramMetrics {
        let counter = |name: &str, help: &str, labels: &[&str]| {
            let c = IntCounterVec::new(Opts::new(name, help), labels).expect("metric");
            registry.register(Box::new(c.clone())).expect("unique");
            c
        };
        let histogram = |name: &str, help: &str, buckets: &[f64]| {
            let h = Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets.to_vec()))
                .expect("metric");
            registry.register(Box::new(h.clone())).expect("unique");
            h
        };
        let updates = counter(
            "tabula_telegram_updates_total",
            "Webhook updates from Telegram, by what was done",
            &["outcome"],
        );
        let webhook_latency = histogram(
            "tabula_telegram_webhook_seconds",
            "From a webhook request's arrival to its answer",
            WEB,
        );
        let queued = counter(
            "tabula_notices_queued_total",
            "Bot notices queued, by kind",
            &["kind"],
        );
        let sent = counter(
            "tabula_notices_sent_total",
            "Bot notices sent to Telegram, by kind",
            &["kind"],
        );
        let refused = counter(
            "tabula_notices_refused_total",
            "Bot notices not sent (or put back), by reason",
            &["reason"],
        );
        let delay = histogram(
            "tabula_notice_delay_seconds",
            "From a notice's cause to its send",
            DELAY,
        );
        let backlog = IntGauge::new("tabula_notices_backlog", "Bot notices waiting in the queue")
            .expect("metric");
        registry
            .register(Box::new(backlog.clone()))
            .expect("unique");
        let oldest_due = prometheus::Gauge::new(
            "tabula_notices_oldest_due_seconds",
            "How late the most overdue queued notice is (0: none is due)",
        )
        .expect("metric");
        registry
            .register(Box::new(oldest_due.clone()))
            .expect("unique");
        let api_calls = counter(
            "tabula_telegram_api_calls_total",
            "Bot API calls by method and outcome",
            &["method", "outcome"],
        );
        let group_queued = counter(
            "tabula_group_posts_queued_total",
            "Tournament posts to Telegram groups queued, by post",
            &["post"],
        );
        let group_sent = counter(
            "tabula_group_posts_sent_total",
            "Tournament posts to Telegram groups sent, by post",
            &["post"],
        );
        let group_failed = counter(
            "tabula_group_posts_failed_total",
            "Tournament posts to Telegram groups not sent (or put back), by reason",
            &["reason"],
        );
        TelegramMetrics {
            group_queued,
            group_sent,
            group_failed,
            updates,
            webhook_latency,
            queued,
            sent,
            refused,
            delay,
            backlog,
            oldest_due,
            api_calls,
        }
    }
}
