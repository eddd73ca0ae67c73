//! The online table's wire protocol: JSON messages between a client and the server, defined
//! once here so both sides share the types (and the core stays free of I/O).
//!
//! One WebSocket text frame carries one message. A client first sends [`ClientMsg::Join`]
//! (naming [`PROTOCOL_VERSION`]); the server answers [`ServerMsg::Welcome`], then a
//! [`Snapshot`] of that seat's view, then the seat's *stream*: every frame with a `seq`, in
//! order, numbered from 1 per player and match. A client that reconnects says the last `seq`
//! it holds and receives the frames after it, then a fresh snapshot, so nothing is lost or
//! shown twice.
//!
//! What a seat receives is built only from [`Game::view`] and [`Event::for_seat`], the
//! core's own hiding: another seat's concealed tiles and the undrawn wall never go on the
//! wire while the hand is played. After the hand the full record (with the wall's
//! [`FairWall`] proof) is sent to everyone, as the rules reveal every hand at the end anyway.

mod next_table;
pub mod stream;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::fair::{Commitment, Contribution, FairnessError};
use crate::game::{Action, Decision, Event, Game, SeatView};
use crate::record::{HandRecord, Verifier};
use crate::rules::RuleSet;
use crate::seat::Seat;

pub use next_table::{NextTable, NextTableState};

/// The protocol version this build speaks; a join naming another is refused.
pub const PROTOCOL_VERSION: u32 = 2;

/// Largest client message the server reads: the biggest real one (a join) is ~200 bytes.
pub const MAX_CLIENT_MESSAGE: usize = 4096;

/// Largest server message a client reads (a hand's record with its events is 10–30 KB).
pub const MAX_SERVER_MESSAGE: usize = 1 << 20;

/// Longest table id: letters, digits, `-` and `_`.
pub const MAX_TABLE_ID: usize = 32;

/// A message from a client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Sit down at a table (made when its id is new), or come back to it.
    Join {
        version: u32,
        /// The table; none: a new table of one's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        table: Option<String>,
        /// A new table's people (1–4); the other seats are the server's bots.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        people: Option<u8>,
        /// A new table's rule-set preset (the server's default when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rules: Option<String>,
        /// On reconnect: the last stream `seq` this client holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u64>,
    },
    /// This seat's random contribution to hand `hand`'s wall (after its commitment).
    Contribute {
        hand: u32,
        contribution: Contribution,
    },
    /// The answer to decision `decision` (the id its [`ServerMsg::Decision`] carried).
    Act {
        decision: u64,
        action: Action,
    },
    /// 飘: this seat's stake on hand `hand` (0 to [`crate::rules::MAX_PIAO`]), answering
    /// [`ServerMsg::PiaoAsk`] before the hand's first move.
    Piao {
        hand: u32,
        stake: u8,
    },
    /// Ready for the next hand.
    Ready,
    /// 托管 on or off: on, the server's stand-in plays this seat's decisions at once (the
    /// person answering a decision turns it off too). The server confirms with
    /// [`ServerMsg::AutoPlay`].
    AutoPlay {
        on: bool,
    },
    /// Leaving the table: the seat plays on by itself until the match ends.
    Leave,
    /// 下一桌: one's table in round `round` of tournament `tournament`, asked on any table
    /// connection (before a join, or after one's match is over). The server answers with
    /// [`ServerMsg::NextTable`] once it has something to say; a contribution goes only with
    /// the commitment it answers, so nobody contributes before the server is bound.
    NextTable {
        tournament: String,
        round: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        commitment: Option<Commitment>,
        /// 32 random bytes mixed into the round's walls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        contribution: Option<Contribution>,
    },
    Ping {
        nonce: u64,
    },
}

/// Who sits in a player slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerInfo {
    pub name: String,
    /// A person (else one of the server's bots).
    pub person: bool,
}

/// A seat's whole state, sent on join and reconnect: everything the stream up to `seq` said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The last stream frame this snapshot includes.
    pub seq: u64,
    pub hand: u32,
    /// Events of this hand the view reflects (the next event's index).
    pub events: u32,
    /// What the seat may see, with its pending decision; none before the hand is dealt
    /// (while contributions are collected) and between hands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<SeatView>,
    /// The pending decision's id and time left, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// Running match scores by player slot.
    pub scores: [i32; 4],
    /// The seat is on auto-play (托管).
    pub auto_play: bool,
    /// This hand's wall commitment, once sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<Commitment>,
    pub match_over: bool,
}

/// A tournament table's place in its round (see [`crate::tournament::fair`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundTable {
    pub tournament: String,
    /// 1-based.
    pub round: u32,
    /// The table's index in the round (0-based), as the round's record lists it.
    pub table: u32,
    /// The round's commitment, published before any contribution was taken.
    pub commitment: Commitment,
}

/// The end of a hand: its full record, with the wall's proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandEnd {
    pub seq: u64,
    pub hand: u32,
    pub record: HandRecord,
    /// Running match scores by player slot, this hand included.
    pub scores: [i32; 4],
    /// The player slot this client plays and its seat in this hand.
    pub seat: Seat,
}

impl HandEnd {
    /// The `hand_end` frame for one seat, its record already written as JSON
    /// ([`HandRecord::to_json`], the same for every seat of a table): the text
    /// `ServerMsg::HandEnd(..).to_json()` gives, without cloning or writing the record again
    /// for each seat.
    pub fn frame(seq: u64, hand: u32, record_json: &str, scores: [i32; 4], seat: Seat) -> String {
        let [a, b, c, d] = scores;
        format!(
            "{{\"type\":\"hand_end\",\"seq\":{seq},\"hand\":{hand},\"record\":{record_json},\
             \"scores\":[{a},{b},{c},{d}],\"seat\":{}}}",
            seat.0
        )
    }
}

/// A message from the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServerMsg {
    Welcome {
        version: u32,
        table: String,
        /// Your player slot (0–3).
        player: u8,
        players: Vec<PlayerInfo>,
        /// A seat taken again (reconnect), not a new one.
        resumed: bool,
        /// The rules the table plays (since version 2): a private room's hands and time
        /// limits included. Every hand's record must play exactly these.
        rules: Box<RuleSet>,
        /// A tournament round's table: its walls come from the round's seed, not a commitment
        /// per hand, and are checked against [`RoundTable::commitment`] when the round ends
        /// (absent at any other table).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<Box<RoundTable>>,
    },
    Snapshot(Box<Snapshot>),
    /// Who sits at the table, by player slot, sent to the people already there when another
    /// person takes a seat (a welcome lists the table as it was then).
    Players {
        players: Vec<PlayerInfo>,
    },
    /// The server's commitment to hand `hand`'s secret seed: send a contribution now.
    Commit {
        seq: u64,
        hand: u32,
        commitment: Commitment,
        /// Time to contribute.
        deadline_ms: u64,
    },
    /// Event `index` of hand `hand`, as this seat may see it.
    Event {
        seq: u64,
        hand: u32,
        index: u32,
        event: Event,
    },
    /// A decision this seat must make; answer with [`ClientMsg::Act`] and this `id`. It
    /// carries the seat's view at that moment, so a client has its table model (and hints)
    /// without re-implementing the engine's bookkeeping.
    Decision {
        seq: u64,
        hand: u32,
        id: u64,
        decision: Decision,
        view: Box<SeatView>,
        /// Time to answer (the rules' limit plus any bank time left).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// 飘 each hand (the rules' `Piao::Chosen`): the hand is dealt and waits for every
    /// person's stake ([`ClientMsg::Piao`]; none by the deadline, or on 托管: 0). It carries
    /// the seat's view, so the hand can be drawn while the stake is chosen.
    PiaoAsk {
        seq: u64,
        hand: u32,
        view: Box<SeatView>,
        deadline_ms: u64,
    },
    /// Every seat's 飘 on hand `hand`, by seat: the stakes are in and the hand starts.
    Piao {
        seq: u64,
        hand: u32,
        stakes: [u8; 4],
    },
    /// In resent frames (a reconnect), the place of a frame a later one made unnecessary: a
    /// decision answered or timed out since, or an event of a hand whose end (with the whole
    /// record) follows. The stream stays gap-free without the server keeping, and resending,
    /// what nobody can use any more.
    Superseded {
        seq: u64,
    },
    /// The seat went on auto-play (托管) or came back from it.
    AutoPlay {
        seq: u64,
        on: bool,
    },
    HandEnd(Box<HandEnd>),
    /// The answer to [`ClientMsg::NextTable`] (not a stream frame: it belongs to no table).
    NextTable(Box<NextTable>),
    /// The match is over: final scores by player slot.
    MatchEnd {
        seq: u64,
        scores: [i32; 4],
    },
    Pong {
        nonce: u64,
    },
    Error {
        code: ErrorCode,
        message: String,
    },
}

impl ServerMsg {
    /// The stream number, for frames of the stream.
    pub fn seq(&self) -> Option<u64> {
        match self {
            ServerMsg::Commit { seq, .. }
            | ServerMsg::Event { seq, .. }
            | ServerMsg::Decision { seq, .. }
            | ServerMsg::Superseded { seq }
            | ServerMsg::AutoPlay { seq, .. }
            | ServerMsg::PiaoAsk { seq, .. }
            | ServerMsg::Piao { seq, .. }
            | ServerMsg::MatchEnd { seq, .. } => Some(*seq),
            ServerMsg::HandEnd(h) => Some(h.seq),
            ServerMsg::Welcome { .. }
            | ServerMsg::Snapshot(_)
            | ServerMsg::Players { .. }
            | ServerMsg::NextTable(_)
            | ServerMsg::Pong { .. }
            | ServerMsg::Error { .. } => None,
        }
    }

    /// An error frame.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("server messages serialize")
    }

    /// Reads a server message (bounded in size; seats out of range and unknown fields are
    /// errors).
    pub fn parse(s: &str) -> Result<ServerMsg, ProtocolError> {
        if s.len() > MAX_SERVER_MESSAGE {
            return Err(ProtocolError::TooLarge(s.len()));
        }
        serde_json::from_str(s).map_err(|e| ProtocolError::Malformed(e.to_string()))
    }
}

/// Stable error codes: clients branch on these, never on messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, or not a message of this protocol.
    BadMessage,
    TooLarge,
    UnsupportedVersion,
    /// No valid session token (or it expired).
    Unauthorized,
    /// No join within the auth deadline, or silent past the idle deadline.
    Timeout,
    RateLimited,
    /// A message that needs a table before joining one, or a second join.
    NotJoined,
    AlreadyJoined,
    BadTable,
    TableFull,
    RulesNotAccepted,
    /// An answer to a decision that is no longer pending (late, or already answered).
    StaleDecision,
    /// The engine refused the action; nothing changed.
    IllegalAction,
    /// A contribution for another hand than the one committed, or a second one.
    BadContribution,
    /// Another connection of the same account took this seat.
    Replaced,
    MatchOver,
    Internal,
    /// The table runs on another server node; the message is that node's base URL, where
    /// the client joins again.
    WrongNode,
    /// The node that ran the table stopped and another took it over: the hand in play then
    /// was voided (no record, no score) and is dealt again; finished hands stand. A notice,
    /// sent once after the welcome; the message names the hand.
    HandVoided,
    /// The account is suspended (the message says until when and why): it may not sit at
    /// a table, and a seat it holds plays on 托管.
    AccountSuspended,
    /// The account is banned (the message says why).
    AccountBanned,
    /// A question about a tournament that cannot be answered: no such tournament, not
    /// signed up for it, or a malformed contribution (the message says which).
    BadTournament,
}

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("the message is {0} bytes, more than allowed")]
    TooLarge(usize),
    #[error("not a message of this protocol: {0}")]
    Malformed(String),
    #[error("{0}")]
    Invalid(String),
}

impl ProtocolError {
    /// The code an error frame carries for it.
    pub fn code(&self) -> ErrorCode {
        match self {
            ProtocolError::TooLarge(_) => ErrorCode::TooLarge,
            ProtocolError::Malformed(_) | ProtocolError::Invalid(_) => ErrorCode::BadMessage,
        }
    }
}

impl ClientMsg {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("client messages serialize")
    }

    /// Reads a client message from untrusted text: bounded, strict, and checked (table ids,
    /// people per table).
    pub fn parse(s: &str) -> Result<ClientMsg, ProtocolError> {
        if s.len() > MAX_CLIENT_MESSAGE {
            return Err(ProtocolError::TooLarge(s.len()));
        }
        let m: ClientMsg =
            serde_json::from_str(s).map_err(|e| ProtocolError::Malformed(clip(&e.to_string())))?;
        if let ClientMsg::Join {
            table,
            people,
            rules,
            ..
        } = &m
        {
            if let Some(t) = table {
                check_table_id(t)?;
            }
            if let Some(p) = people
                && !(1..=4).contains(p)
            {
                return Err(ProtocolError::Invalid(format!(
                    "people {p} (a table seats 1–4 people)"
                )));
            }
            if let Some(r) = rules
                && (r.is_empty() || r.len() > 64)
            {
                return Err(ProtocolError::Invalid("rules: a preset name".into()));
            }
        }
        if let ClientMsg::NextTable { tournament, .. } = &m {
            check_id("tournament", tournament)?;
        }
        Ok(m)
    }
}

/// A table id: 1–[`MAX_TABLE_ID`] letters, digits, `-` or `_`.
pub fn check_table_id(t: &str) -> Result<(), ProtocolError> {
    check_id("table", t)
}

/// An id of `kind` (a table's, a tournament's): 1–[`MAX_TABLE_ID`] letters, digits, `-` or `_`.
fn check_id(kind: &str, t: &str) -> Result<(), ProtocolError> {
    if t.is_empty()
        || t.len() > MAX_TABLE_ID
        || !t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(ProtocolError::Invalid(format!(
            "{kind} '{}': 1–{MAX_TABLE_ID} letters, digits, - or _",
            clip(t)
        )));
    }
    Ok(())
}

fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(120).collect();
    if c.len() < s.len() {
        c.push('…');
    }
    c
}

/// A decision's id: the hand and how many events came before it. Every decision of a seat
/// follows at least one new event (a draw, a discard, a meld), so the id names one decision
/// even across a reconnect, and a claim window keeps its id while other seats answer.
pub fn decision_id(hand: u32, events_before: usize) -> u64 {
    (u64::from(hand) << 32) | (events_before as u64 & 0xFFFF_FFFF)
}

/// The events of `game` from index `from` on, as `seat` may see them, with their indices:
/// the only way the server turns events into frames.
pub fn seat_events(game: &Game, seat: Seat, from: usize) -> Vec<(u32, Event)> {
    game.events()
        .iter()
        .enumerate()
        .skip(from)
        .map(|(i, e)| (i as u32, e.for_seat(seat)))
        .collect()
}

/// What a client checks of a finished online hand: the record plays the rules the table
/// announced (when it did: `announced`); the record carries a proof; the reveal
/// matches the commitment the client was sent before the deal; its own contribution is the
/// one used; the wall seed is the one the reveal and contributions give; the hand replays
/// from that seed through the engine to the same events and result; and every event this
/// seat was shown (by index) is that event as the seat may see it.
pub fn verify_hand(
    record: &HandRecord,
    commitment: &Commitment,
    seat: Seat,
    contribution: Option<&Contribution>,
    seen: &[(u32, Event)],
    announced: Option<&RuleSet>,
) -> Result<(), FairnessError> {
    let proof = record
        .fairness
        .as_ref()
        .ok_or_else(|| FairnessError::Replay("the record carries no wall proof".into()))?;
    if proof.commitment != *commitment {
        return Err(FairnessError::Commitment);
    }
    if let Some(c) = contribution
        && proof.contributions[seat.index()].as_ref() != Some(c)
    {
        return Err(FairnessError::Contribution);
    }
    proof.check(&record.setup.seed)?;
    verify_replay(record, seat, seen, announced)
}

/// The part of [`verify_hand`] that needs no wall proof: the record replays under the
/// announced rules and every event this seat was shown is the record's. A tournament
/// table's hands are checked so when they end; their walls once the round's secret is out.
pub fn verify_replay(
    record: &HandRecord,
    seat: Seat,
    seen: &[(u32, Event)],
    announced: Option<&RuleSet>,
) -> Result<(), FairnessError> {
    let verifier = Verifier::any_preset().allow_custom().any_match_length();
    match announced {
        Some(rules) => verifier.announced(rules.clone()),
        None => verifier,
    }
    .verify(record)
    .map_err(|e| FairnessError::Replay(e.to_string()))?;
    for (index, shown) in seen {
        let i = *index as usize;
        match record.events.get(i) {
            Some(e) if e.for_seat(seat) == *shown => {}
            _ => return Err(FairnessError::EventShown { index: i }),
        }
    }
    Ok(())
}
