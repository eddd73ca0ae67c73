//! Tongcheng Mahjong client: the phone's network side — login, link and sync with the server.
//!
//! Sync *state* (which hands are uploaded, the pull cursor) lives in core's local history;
//! this crate only moves it over the network. The pieces, each small:
//!
//! - [`identity`]: the device's Ed25519 key, made on first launch, kept in a 0600 file;
//! - [`session`]: the session token kept next to it;
//! - [`http`]: the HTTP transport (reqwest with rustls), with retries, backoff and
//!   `Retry-After`;
//! - [`sync`]: the sync engine — the outbox up, other devices' hands down — written against
//!   the [`sync::SyncTransport`] trait, so it has no network code of its own and maps
//!   directly to Kotlin/Swift (which may bring their own transport);
//! - [`seat_stream`]: one seat's side of an online table's protocol as a machine without
//!   socket, clock or randomness (order, resumes, every hand's wall checked): the core's,
//!   shared with the app model, fed here with the OS's entropy ([`entropy`]);
//! - [`online`]: the online session — the blocking driver of that machine over a WebSocket;
//!   [`seat_async`]: its async driver, for many seats on one runtime;
//! - [`http_async`]: the same HTTP contract executed on an async runtime;
//! - [`matchmaking`]: the queue's cancellable long poll and the checks on room requests;
//! - [`api`]: the server's HTTP contract (the `tongcheng-api` crate): every request and
//!   answer body, shared with the server.

#![forbid(unsafe_code)]

pub mod error;
pub mod http;
pub mod http_async;
mod http_call;
pub mod identity;
pub mod locks;
pub mod matchmaking;
pub mod online;
pub mod seat_async;
pub mod session;
pub mod sync;
pub mod tournament;

pub use tongcheng_api as api;
pub use tongcheng_core::protocol::stream as seat_stream;

pub use error::ClientError;
pub use http::{HttpApi, HttpOptions, RetryPolicy};
pub use http_async::AsyncHttpApi;
pub use http_call::Api;
pub use identity::Identity;
pub use locks::{CondvarExt, LockExt};
pub use matchmaking::{QueueWait, check_room, check_room_code};
pub use online::OnlineSession;
pub use seat_async::AsyncSeat;
pub use seat_stream::{OnlineOptions, OnlineUpdate, SeatStream};
pub use session::Session;
pub use sync::{SyncOptions, SyncReport, SyncTransport, sync};

/// 32 bytes of the OS's secure randomness: a seat stream's wall contributions are keyed by
/// them. Without the OS's randomness they are zeros (the wall is then as fair as the
/// server's commitment alone makes it, and the check still runs).
pub fn entropy() -> [u8; 32] {
    let mut b = [0u8; 32];
    let _ = getrandom::getrandom(&mut b);
    b
}
