//! Tabula's wire protocol: every message between clients and nodes, and
//! between nodes.
//!
//! This crate is the only place the wire format is defined (see
//! `docs/protocol.md` for the prose version with example exchanges). The
//! room core ([`tabula_room`]) keeps the domain types; this crate maps
//! them to and from the wire.
//!
//! * [`client`]: [`ClientFrame`] = an optional client sequence number
//!   `seq` plus a [`ClientMsg`] (`{"type": "rollDice", "seq": 7}`), read
//!   by [`parse_client`]; each game message is one room [`Command`] and
//!   back.
//! * [`server`]: [`ServerMsg`]: `welcome`, `state` (full, versioned),
//!   `event` (incremental, versioned, echoing `seq`), `game_over`,
//!   `opponent_left`, `chat`, `ack`, `hint`, `pong`, `error {code,
//!   message}`; [`to_wire`]: which room events a viewer sees, and as which
//!   message; [`EventText`] writes the same as JSON text, serialising each
//!   event once for all its viewers.
//! * [`error`]: [`ErrorCode`], stable snake_case codes;
//!   [`room_error_code`] maps every refusal of the room core to one.
//! * [`http`]: the HTTP API's request and response bodies.
//! * [`node`]: node-to-node messages, named by direction ([`ToOwner`],
//!   [`ToFront`]).
//!
//! The step notation (`"24-18"`, `"bar/20"`) is read in one place,
//! [`tabula_room::Spot::parse_step`].
//!
//! [`Command`]: tabula_room::Command

pub mod client;
pub mod error;
pub mod http;
pub mod node;
pub mod schema;
pub mod server;
#[cfg(test)]
mod tests;

pub use client::{CLIENT_TYPES, ClientFrame, ClientMsg, ParseError, parse_client};
pub use error::{ErrorCode, room_error_code};
pub use node::{NodeMsg, OutItem, ToFront, ToOwner};
pub use server::{EventText, HintPlay, Rendered, ServerMsg, Viewer, to_wire};

/// The protocol version, sent in `welcome`. Bumped on any incompatible
/// change; additions (new message types, new fields) do not bump it.
pub const PROTOCOL_VERSION: u32 = 1;
