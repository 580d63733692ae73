//! [`DurableStore`]: every concern together.

use crate::{Games, Leaderboards, Profiles, Ratings, TournamentResults};

/// Every concern of the durable store together.
pub trait DurableStore: Profiles + Games + Ratings + Leaderboards + TournamentResults {}

impl<T: Profiles + Games + Ratings + Leaderboards + TournamentResults> DurableStore for T {}
