//! The system tests, one binary (`cargo test -p tabula-tests --test system`;
//! one area: `... --test system cluster::`): whole nodes over real sockets,
//! node processes (`tabula-node`, the server's own `main`) with their own
//! Redis, the chart's drain, network partitions, routing faults. The
//! support — a node on a free port, our own Redis, a protocol client, the
//! `initData` signer — is the `tabula-tests` library (`tests/src`).
//!
//! Every test holds [`tabula_tests::ONE`] for its whole run, so they run
//! one at a time (its documentation says why). Per-crate unit, property
//! and perft tests stay in their crates.

mod auth;
mod binary;
mod chart_drain;
mod clocks;
mod cluster;
mod crash_archive;
mod failover;
mod games;
mod http_golden;
mod live;
mod node_proc;
mod notices;
mod partition;
mod players;
mod profiles;
mod quickmatch_rating;
mod quotas;
mod rematch;
mod resilience;
mod routing;
mod security;
mod telegram;
mod telegram_cluster;
mod telegram_groups;
mod tournaments;
mod web;
