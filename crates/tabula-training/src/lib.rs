//! Training the Hard bots' networks, kept out of the node: the bots crate
//! (`tabula-bots`) evaluates and searches with the shipped weights, and
//! this crate makes them (`tabula train-bg`, `train-long`, `fit-bg`,
//! `fit-bg-backgammons`; every command and seed in
//! `crates/tabula-bots/RESULTS.md`).
//!
//! * [`bg_td`] and [`long_td`]: TD(λ) self-play, as TD-Gammon.
//! * [`bg_fit`]: the backgammon network fitted to its own look-ahead.
//! * [`bg_head`]: its backgammon head fitted to rollouts.
//! * [`grad`]: the gradient step they share.
//!
//! Training is deterministic for a seed (single thread per game, `f32`
//! arithmetic in a fixed order), so the same command makes the same bits.

pub mod bg_fit;
pub mod bg_head;
pub mod bg_td;
pub mod grad;
pub mod long_td;
