//! What a run measures: HdrHistograms of latencies (microseconds) and
//! counters, shared by every match task.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency histogram from 1 µs to 10 min, 3 significant digits.
#[derive(Debug)]
pub struct Latency(Mutex<Histogram<u64>>);

impl Default for Latency {
    fn default() -> Latency {
        // Bounds are constants that hdrhistogram accepts.
        Latency(Mutex::new(
            Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid histogram bounds"),
        ))
    }
}

impl Latency {
    /// Records one sample (saturating at the upper bound).
    pub fn record(&self, d: Duration) {
        let us = (d.as_micros() as u64).clamp(1, 600_000_000);
        let mut h = self.0.lock().unwrap_or_else(|e| e.into_inner());
        h.saturating_record(us);
    }

    /// Every recorded value with its count (what a worker process sends
    /// the parent, which merges them exactly).
    pub fn recorded(&self) -> Vec<(u64, u64)> {
        let h = self.0.lock().unwrap_or_else(|e| e.into_inner());
        h.iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// Adds values recorded elsewhere (see [`Latency::recorded`]).
    pub fn merge(&self, recorded: &[(u64, u64)]) {
        let mut h = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for &(value, count) in recorded {
            h.saturating_record_n(value.clamp(1, 600_000_000), count);
        }
    }

    /// The summary so far.
    pub fn summary(&self) -> Summary {
        let h = self.0.lock().unwrap_or_else(|e| e.into_inner());
        Self::summarise(&h)
    }

    fn summarise(h: &Histogram<u64>) -> Summary {
        let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
        Summary {
            count: h.len(),
            p50_ms: ms(0.50),
            p90_ms: ms(0.90),
            p99_ms: ms(0.99),
            p999_ms: ms(0.999),
            max_ms: h.max() as f64 / 1000.0,
            mean_ms: h.mean() / 1000.0,
        }
    }
}

/// Percentiles of one histogram, in milliseconds.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct Summary {
    /// Samples.
    pub count: u64,
    /// Median.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// 99.9th percentile.
    pub p999_ms: f64,
    /// The largest.
    pub max_ms: f64,
    /// The mean.
    pub mean_ms: f64,
}

/// Everything counted during a run.
#[derive(Debug, Default)]
pub struct Stats {
    /// Action sent → the event (or ack) answering it, from the intended
    /// send time.
    pub action: Latency,
    /// Action's intended send time → the other player's copy of its event.
    pub fanout: Latency,
    /// TCP connect + WebSocket upgrade + `welcome`.
    pub connect: Latency,
    /// `--tournaments`: a player's game ended (both players saw it) → his
    /// next game seen in `GET /api/tournaments/{id}` (polled).
    pub pairing_wait: Latency,
    /// Actions scheduled, and actually sent.
    pub scheduled: AtomicU64,
    /// Actions sent.
    pub sent: AtomicU64,
    /// Actions answered.
    pub answered: AtomicU64,
    /// Games played to `game_over`.
    pub games: AtomicU64,
    /// Matches running now.
    pub active: AtomicI64,
    /// Sockets open now.
    pub sockets: AtomicI64,
    /// The most sockets open at once.
    pub max_sockets: AtomicI64,
    /// Reconnects after a lost or closed socket.
    pub reconnects: AtomicU64,
    /// Errors by kind (`connect`, `timeout`, `close_1012`, `error_<code>`…).
    pub errors: Mutex<BTreeMap<String, u64>>,
    /// Records checked, and the ones that differ from what was
    /// acknowledged (`lost_or_duplicated`).
    pub verified: AtomicU64,
    /// Games whose record differs from the acknowledged moves.
    pub mismatches: AtomicU64,
    /// Per match active at the chaos time: its longest wait for an answer
    /// after it.
    pub chaos_pauses: Mutex<Vec<Duration>>,
}

impl Stats {
    /// Counts an error of `kind`.
    pub fn error(&self, kind: impl Into<String>) {
        let mut e = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        *e.entry(kind.into()).or_default() += 1;
    }

    /// All errors.
    pub fn error_total(&self) -> u64 {
        self.errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .sum()
    }

    /// A socket opened.
    pub fn socket_opened(&self) {
        let n = self.sockets.fetch_add(1, Ordering::Relaxed) + 1;
        self.max_sockets.fetch_max(n, Ordering::Relaxed);
    }

    /// A socket closed.
    pub fn socket_closed(&self) {
        self.sockets.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_recordings_give_the_percentiles_of_all_samples() {
        let (a, b, all) = (Latency::default(), Latency::default(), Latency::default());
        for us in 1..=1000u64 {
            let d = Duration::from_micros(us * 37 % 5000 + 1);
            if us % 3 == 0 { &a } else { &b }.record(d);
            all.record(d);
        }
        let merged = Latency::default();
        merged.merge(&a.recorded());
        merged.merge(&b.recorded());
        let (m, x) = (merged.summary(), all.summary());
        assert_eq!(m.count, 1000);
        assert_eq!(
            (m.p50_ms, m.p99_ms, m.p999_ms, m.max_ms),
            (x.p50_ms, x.p99_ms, x.p999_ms, x.max_ms)
        );
    }
}
