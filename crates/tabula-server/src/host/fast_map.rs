//! The host's hash map.

use std::collections::HashMap;

/// The room's small per-command maps (connections, players, seqs), looked
/// up on every command: foldhash rather than SipHash, which was 1.5 % of a
/// stressed node's CPU. The keys are a handful per room, so flooding one
/// bucket gains an attacker nothing.
pub(super) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
