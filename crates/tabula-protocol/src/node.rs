//! The messages between nodes, named by direction as lila-ws names its
//! own: a *front* (the node holding a player's socket) sends the room's
//! *owner* [`ToOwner`]s; the owner answers with [`ToFront`]s. Each node has
//! one inbox, so what arrives there is a [`NodeMsg`], either direction.
//! Clients never see these.
//!
//! On the wire each message is a JSON object tagged `"t"`; the tags of the
//! two directions are distinct, so a [`NodeMsg`] is the message itself
//! with no wrapper (the form nodes of earlier releases write and read).

use serde::{Deserialize, Serialize};
use tabula_room::SeatId;

use crate::{ClientFrame, Rendered, ServerMsg};

/// A node's id (its backplane id).
pub type NodeId = String;

/// Front → owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ToOwner {
    /// A socket joins a room.
    Join {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The player.
        player: String,
        /// Seat wanted.
        seat: Option<SeatId>,
        /// Watch only.
        spectate: bool,
        /// The client's seq.
        seq: Option<u64>,
        /// A re-join: the last version the client saw.
        resume_from: Option<u64>,
    },
    /// A client's game frame, as the front read it (read once, on the
    /// front; the owner takes it as it is).
    Cmd {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The frame (`{"type": "move", ..., "seq": 7}`), which the owner
        /// takes as it is. Absent from a node of the previous release,
        /// which sends only `text`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frame: Option<ClientFrame>,
        /// The frame as JSON text, all a node of the previous release reads
        /// (an owner of this release reads it only when `frame` is absent).
        /// Written beside `frame` for one release, so that a rolling
        /// upgrade routes commands both ways; dropped in the next.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// `resume {version}`.
    Resume {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The last version seen.
        version: u64,
        /// The client's seq.
        seq: Option<u64>,
    },
    /// The socket left.
    Detach {
        /// The room id.
        room: String,
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// The front closed it for a drain (or cut off from its store):
        /// the player is expected back on another node, and marked
        /// disconnected only if he does not return within the takeover
        /// grace. Absent (false) from an older node.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        quiet: bool,
    },
    /// A link was silent; do you still serve it? (Answered with
    /// [`ToFront::Beats`] for it, or [`ToFront::Reroute`].)
    Probe {
        /// The front node.
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
    /// Something was posted to the inbox of a tournament this node owns:
    /// read it now rather than at the owner's next look. Sent by whoever
    /// posted it; a node of an earlier release drops it as unreadable and
    /// reads the inbox at its own pace.
    TournamentMail {
        /// The tournament's id.
        tournament: String,
    },
}

/// Owner → front. Each names its sender: a front drops what comes from a
/// node its link is not on (empty from a node that does not say).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ToFront {
    /// Messages for the socket.
    Out {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// Link sequence number.
        n: u64,
        /// The `seq` it answers.
        seq: Option<u64>,
        /// The room version it carries.
        version: Option<u64>,
        /// The JSON text.
        text: String,
        /// Messages that follow it, numbered `n + 1`, `n + 2`, …: the
        /// events of one command go in one publish. (Left out when empty,
        /// so that a single message reads as before; a node that does not
        /// know the field reads the first and resyncs on the gap.)
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        more: Vec<OutItem>,
    },
    /// Close the socket.
    Close {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
        /// Why.
        reason: String,
    },
    /// The room is not (or no longer) here; re-locate it.
    Reroute {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
    /// The join was refused.
    Unjoined {
        /// The owner.
        #[serde(default)]
        from: NodeId,
        /// The front's connection id.
        conn: u64,
    },
    /// The links the owner serves for the front, each with the number of
    /// the last message published on it.
    Beats {
        /// The owner.
        from: NodeId,
        /// `(front connection id, last link number published)`.
        links: Vec<(u64, u64)>,
    },
}

/// What arrives in a node's inbox: either direction, as it was sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NodeMsg {
    /// For a room this node owns.
    ToOwner(ToOwner),
    /// For a socket this node holds.
    ToFront(ToFront),
}

impl NodeMsg {
    /// Reads an inbox message.
    pub fn decode(text: &str) -> Result<NodeMsg, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The message as JSON text.
    pub fn encode(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

impl From<ToOwner> for NodeMsg {
    fn from(m: ToOwner) -> NodeMsg {
        NodeMsg::ToOwner(m)
    }
}

impl From<ToFront> for NodeMsg {
    fn from(m: ToFront) -> NodeMsg {
        NodeMsg::ToFront(m)
    }
}

/// One message for a socket, already JSON, with what the session notes of
/// it (a batch item, and one more message of a [`ToFront::Out`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutItem {
    /// The `seq` it answers.
    pub seq: Option<u64>,
    /// The room version it carries.
    pub version: Option<u64>,
    /// The JSON text.
    pub text: String,
}

impl From<Rendered> for OutItem {
    fn from(r: Rendered) -> OutItem {
        OutItem {
            seq: r.seq,
            version: Some(r.version),
            text: r.text,
        }
    }
}

impl OutItem {
    /// A message rendered for the wire.
    pub fn of(m: &ServerMsg) -> OutItem {
        OutItem {
            seq: m.seq(),
            version: m.version(),
            text: m.to_json(),
        }
    }
}
