//! The server's integration tests in one binary: one link, and the support code (servers in
//! process and as processes, PostgreSQL schemas, devices, the contract check) compiled once.
//! Each module is what used to be a test file of its own; they share nothing but `support`.

mod support;

mod api;
mod app_online;
mod app_table;
mod app_tournament;
mod collusion;
mod contract;
mod e2e;
mod failover;
mod hostile;
mod nodes;
mod online;
mod operator;
mod queue;
mod requests;
mod rooms;
mod sanctions;
mod sanctions_table;
mod store;
mod store_discipline;
mod store_tls;
mod store_tournaments;
mod store_upgrade;
mod tournament;
mod tournament_nodes;
