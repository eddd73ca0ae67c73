//! The phone boundary: the UniFFI surface of the Tongcheng Mahjong core.
//!
//! No game logic lives here — every call wraps the core or the app model.
//!
//! - [`app::AppModel`]: the whole app for the phones' shells — the app crate's model, its
//!   effects performed here (clock, history, files, requests, the table's socket); the shell
//!   draws the views it is given and passes on taps.
//!
//! The engine, for apps of their own that embed it:
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

pub mod app;
pub mod history;
pub mod matchmaking;
pub mod model;
pub mod online;
pub mod session;
pub mod table_online;

uniffi::setup_scaffolding!();

/// The one public error type at the boundary. Each variant reaches Kotlin and Swift as its
/// own exception type (a Swift enum case) with these fields: `detail`, the words for people,
/// and for answers of the server `code`, its stable error code (`queue_timeout`,
/// `room_full`, …), which the shells switch on — never on the words.
#[derive(Clone, Debug, thiserror::Error, uniffi::Error)]
pub enum TongchengError {
    /// The action is not legal now; nothing changed.
    #[error("illegal action: {detail}")]
    IllegalAction { detail: String },
    /// Malformed input: bad tile notation, an unknown rule set or level, a bad record.
    #[error("invalid input: {detail}")]
    InvalidInput { detail: String },
    /// The history database failed (I/O, a read-only file, a lock held too long).
    #[error("storage: {detail}")]
    Storage { detail: String },
    /// The history file cannot be used as it is — not a history, damaged, or written by a
    /// newer app. It was left untouched; offer to move it aside (`moveAside`) and start anew.
    #[error("unusable history: {detail}")]
    UnusableHistory { detail: String },
    /// No such record here, or the server has no such thing (a room code no room has:
    /// `code` is then the server's, `not_found`).
    #[error("not found: {detail}")]
    NotFound {
        code: Option<String>,
        detail: String,
    },
    /// The server cannot be reached (after retries): try again later.
    #[error("network: {detail}")]
    Network { detail: String },
    /// The session is not valid (expired or revoked; `code` is the server's,
    /// `unauthorized`), or there is none yet: log in again.
    #[error("not logged in: {detail}")]
    NotLoggedIn {
        code: Option<String>,
        detail: String,
    },
    /// The server refused the request: `code` is its stable error code. Without a code, its
    /// answer made no sense or the device's own files failed.
    #[error("server: {detail}")]
    Server {
        code: Option<String>,
        detail: String,
    },
    /// The player gave up waiting (a queue place cancelled).
    #[error("cancelled: {detail}")]
    Cancelled { detail: String },
}
