//! Tongcheng Mahjong server: one-tap login, record sync and verification.
//!
//! The server trusts no client: every uploaded record is replayed by the same core the phones
//! run, against the rule sets this server accepts, and a record that does not replay exactly is
//! refused with a reason. Storage sits behind one synchronous trait ([`store::Store`]) with a
//! SQLite backend (the default: one file, no setup) and a PostgreSQL backend (several nodes);
//! handlers run store calls and verification on tokio's blocking pool.
//!
//! By concern: `app` (state and router), `routes` (one file per group of endpoints), `store`
//! (the trait, its backends and their migrations), `auth` (signatures, tokens, codes),
//! `ratelimit`, `metrics`, `openapi`, `error` (the JSON error shape), `bench`, `loadtest`
//! (many players on loopback), `collusion` (the report over ranked history behind the admin
//! endpoint).

// Request and response bodies, handler state and stores: Debug would add nothing but the
// risk of printing tokens, so the workspace lint is relaxed for this crate.
#![allow(missing_debug_implementations)]
#![forbid(unsafe_code)]

pub mod app;
pub mod auth;
pub mod bench;
pub mod cluster;
pub mod collusion;
pub mod error;
pub mod loadtest;
pub mod metrics;
pub mod openapi;
pub mod play;
pub mod ratelimit;
pub mod rating;
pub mod routes;
pub mod store;

pub use app::{AppState, Config, Shared, router, serve};
pub use error::ApiError;

/// Unix seconds now (the server's clock; the core reads none).
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
