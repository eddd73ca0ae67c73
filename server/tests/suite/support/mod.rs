//! Shared by the server's tests: hands, forged records, PostgreSQL schemas, login helpers.
#![allow(dead_code)]

pub mod contract;
pub mod online;

use std::path::Path;

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use tongcheng_api::auth::{LoginRequest, login_message};
use tongcheng_core::hex::{hex, unhex};
use tongcheng_core::record::{HandRecord, RecordId};
use tongcheng_core::rules::RuleSet;
use tongcheng_server::auth::random_bytes;
pub use tongcheng_test_support::ServerProcess;

/// `n` finished guobiao hands.
pub fn hands(n: usize, seed: u64) -> Vec<HandRecord> {
    tongcheng_core::bot::simple_hand_records(&RuleSet::preset("guobiao").unwrap(), n, seed)
}

/// A record with one drawn tile changed in its events (the id still matches: it covers only
/// the setup and the actions).
pub fn forge_tile(r: &HandRecord) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    for e in v["events"].as_array_mut().unwrap() {
        if e["event"] == "drew"
            && let Some(t) = e.get_mut("tile").filter(|t| t.is_string())
        {
            *t = json!(if t == "1m" { "2m" } else { "1m" });
            return v;
        }
    }
    panic!("no drawn tile in the record");
}

/// A record whose payments were changed (points moved from seat 1 to seat 0).
pub fn forge_payment(r: &HandRecord) -> Value {
    let mut r = r.clone();
    r.result.deltas[0] += 8;
    r.result.deltas[1] -= 8;
    serde_json::to_value(&r).unwrap()
}

/// A record whose rules were changed (and its id recomputed, as a careful forger would).
pub fn forge_rules(r: &HandRecord) -> Value {
    let mut r = r.clone();
    r.setup.rules.chow_from_left_only = !r.setup.rules.chow_from_left_only;
    r.id = RecordId::of(&r.setup, &r.actions);
    serde_json::to_value(&r).unwrap()
}

/// A fresh PostgreSQL schema on 127.0.0.1:5432 (database `test`), dropped with the guard;
/// `None` (with a message) when PostgreSQL cannot be reached.
pub struct PgSchema {
    pub url: String,
    base: String,
    name: String,
}

pub const PG_BASE: &str = "postgres://postgres@127.0.0.1:5432/test";

impl PgSchema {
    pub fn create() -> Option<PgSchema> {
        let base = std::env::var("TONGCHENG_TEST_PG").unwrap_or_else(|_| PG_BASE.to_string());
        let mut c = match postgres::Client::connect(&base, postgres::NoTls) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("SKIPPED: PostgreSQL at {base} cannot be reached ({e})");
                return None;
            }
        };
        let name = format!("t_{}", hex(&random_bytes::<6>().unwrap()));
        c.batch_execute(&format!("CREATE SCHEMA {name}")).unwrap();
        let sep = if base.contains('?') { '&' } else { '?' };
        Some(PgSchema {
            url: format!("{base}{sep}options=-c%20search_path%3D{name}"),
            base,
            name,
        })
    }
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        let (base, name) = (self.base.clone(), self.name.clone());
        // On a plain thread: the synchronous client must not run on an async worker.
        let _ = std::thread::spawn(move || {
            if let Ok(mut c) = postgres::Client::connect(&base, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP SCHEMA {name} CASCADE"));
            }
        })
        .join();
    }
}

/// A device for the HTTP tests: a key and, once logged in, a token.
pub struct Device {
    pub key: SigningKey,
    pub token: String,
    pub account: i64,
    pub device_id: i64,
}

impl Device {
    pub fn new() -> Device {
        Device {
            key: SigningKey::from_bytes(&random_bytes::<32>().unwrap()),
            token: String::new(),
            account: 0,
            device_id: 0,
        }
    }

    pub fn public_hex(&self) -> String {
        hex(&self.key.verifying_key().to_bytes())
    }

    /// The login request body for `nonce`.
    pub fn login_body(&self, nonce: &str, link_code: Option<&str>) -> Value {
        let n = unhex(nonce).unwrap();
        let sig = self
            .key
            .sign(&login_message(&n, &self.key.verifying_key().to_bytes()));
        serde_json::to_value(LoginRequest {
            public_key: self.public_hex(),
            nonce: nonce.into(),
            signature: hex(&sig.to_bytes()),
            device_name: Some("test".into()),
            link_code: link_code.map(str::to_string),
        })
        .unwrap()
    }
}

/// Starts the `tongcheng-server` binary with `args` (on 127.0.0.1:0); killed when dropped.
pub fn spawn_server(args: &[&str]) -> ServerProcess {
    ServerProcess::start(Path::new(env!("CARGO_BIN_EXE_tongcheng-server")), args)
}
