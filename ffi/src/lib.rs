//! The phone boundary: the UniFFI surface of the Tongcheng Mahjong core.
//!
//! No game logic lives here — every call wraps the core. The shells (Kotlin on Android, Swift
//! on iOS) draw the [`model::TableModel`] and send back [`model::ActionModel`]s.
//!
//! - [`session::GameSession`]: a hand or a match against bots; `table()`, `act()`,
//!   `advance()`, `hint()`, `result()`, `record_json()`, `next_hand()`. Its decision clock
//!   is the core table's, driven by the time the shell passes in.
//! - [`history::HistoryStore`]: the local hand history (SQLite).
//! - [`matchmaking`]: the queue (`OnlineClient.queue` → `QueueTicket`), private rooms by
//!   code and ratings.
//! - [`session::TableListener`]: the shells' callback for every change.
//!
//! Errors cross as one enum, [`TongchengError`]; a panic never crosses (UniFFI catches it
//! and the profile keeps unwinding on). Objects are `Send + Sync`; Kotlin must `close()`
//! them, Swift frees them with the last reference.

#![forbid(unsafe_code)]

pub mod history;
pub mod matchmaking;
pub mod model;
pub mod online;
pub mod session;
pub mod table_online;

uniffi::setup_scaffolding!();

/// The one public error type at the boundary. Flat: each variant reaches Kotlin and Swift as
/// its own exception type whose message is the text below.
#[derive(Clone, Debug, thiserror::Error, uniffi::Error)]
#[uniffi(flat_error)]
pub enum TongchengError {
    /// The action is not legal now; nothing changed.
    #[error("illegal action: {message}")]
    IllegalAction { message: String },
    /// Malformed input: bad tile notation, an unknown rule set or level, a bad record.
    #[error("invalid input: {message}")]
    InvalidInput { message: String },
    /// The history database failed (I/O, a read-only file, a lock held too long).
    #[error("storage: {message}")]
    Storage { message: String },
    /// The history file cannot be used as it is — not a history, damaged, or written by a
    /// newer app. It was left untouched; offer to move it aside (`moveAside`) and start anew.
    #[error("unusable history: {message}")]
    UnusableHistory { message: String },
    /// No such record.
    #[error("not found: {message}")]
    NotFound { message: String },
    /// The server cannot be reached (after retries): try again later.
    #[error("network: {message}")]
    Network { message: String },
    /// The session is not valid (expired or revoked): log in again.
    #[error("not logged in: {message}")]
    NotLoggedIn { message: String },
    /// The server refused the request; the message says why.
    #[error("server: {message}")]
    Server { message: String },
    /// The player gave up waiting (a queue place cancelled).
    #[error("cancelled: {message}")]
    Cancelled { message: String },
}
