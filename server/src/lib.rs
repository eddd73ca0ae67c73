//! Tongcheng Mahjong server: one-tap login, record sync and verification, online tables.
//!
//! The server trusts no client: every uploaded record is replayed by the same core the phones
//! run, against the rule sets this server accepts, and a record that does not replay exactly is
//! refused with a reason. Storage sits behind one synchronous trait ([`store::Store`]) with a
//! SQLite backend (the default: one file, no setup) and a PostgreSQL backend (several nodes);
//! handlers run store calls and verification on tokio's blocking pool. Every request and
//! answer body is a type of the `tongcheng-api` crate, which clients share.
//!
//! By concern, from the top: `app` (the router and serving it), `routes` (one module per
//! group of endpoints, each with its router), `listen` (the accept loop: timeouts and connections per address), `state` (configuration
//! and the handlers' shared state), `play` (online tables, the queue, rooms), `store` (the trait, its backends and
//! their migrations), `auth` (signatures, tokens, codes), `logs` (the subscriber, request ids
//! and request lines), `ratelimit`, `metrics`, `error`,
//! `blocking`, `cluster` (several nodes over NATS), `rating`, `collusion` (the report over
//! ranked history behind the admin endpoint), `sanctions` (sanctions, voided matches, the
//! assist report and the review queue). The load generator is a crate of its own
//! (`tongcheng-loadgen`); the bench is `server/benches/bench.rs`.

// Request and response bodies, handler state and stores: Debug would add nothing but the
// risk of printing tokens, so the workspace lint is relaxed for this crate.
#![allow(missing_debug_implementations)]
#![forbid(unsafe_code)]

pub mod app;
pub mod auth;
pub mod blocking;
pub mod cluster;
pub mod collusion;
pub mod error;
pub mod listen;
pub mod logs;
pub mod metrics;
pub mod play;
pub mod ratelimit;
pub mod rating;
pub mod routes;
pub mod sanctions;
pub mod state;
pub mod store;

pub use app::{router, serve};
pub use error::ApiError;
pub use state::{AppState, Config, Shared};

/// Unix seconds now.
pub use tongcheng_core::clock::unix_secs as now;
