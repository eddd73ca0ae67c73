//! End to end on loopback: the real `tongcheng-server` process, and "devices" that are real
//! local histories (core's SQLite) synced by the client crate — on SQLite and PostgreSQL.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::{PgSchema, ServerProcess, forge_payment, forge_tile, hands};
use tongcheng_client::{HttpApi, Identity, RetryPolicy, SyncOptions, SyncReport, sync};
use tongcheng_core::history::{HistoryStore, NewHand};
use tongcheng_core::record::{HandRecord, RecordId};
use tongcheng_core::seat::Seat;

/// The servers' admin token (their metrics need it).
const ADMIN: &str = "e2e-admin-token";

/// A running server process, killed when dropped, and what it counts.
struct Server(ServerProcess);

impl Server {
    fn start(database: &str) -> Server {
        Server(support::spawn_server(&[
            "--database",
            database,
            "--admin-token",
            ADMIN,
        ]))
    }

    fn kill(&mut self) {
        self.0.kill();
    }

    fn url(&self) -> &str {
        self.0.url()
    }

    fn metric(&self, name: &str) -> u64 {
        let text = reqwest::blocking::Client::new()
            .get(format!("{}/metrics", self.url()))
            .bearer_auth(ADMIN)
            .send()
            .and_then(|r| r.text())
            .unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0)
    }
}

/// A device: a history file and a key.
struct Device {
    history: HistoryStore,
    identity: Identity,
}

impl Device {
    fn new(dir: &Path, name: &str) -> Device {
        Device {
            history: HistoryStore::open(dir.join(format!("{name}.db"))).unwrap(),
            identity: Identity::load_or_create(&dir.join(format!("{name}.key"))).unwrap(),
        }
    }

    /// Stores finished hands as played here (queued for upload).
    fn play(&mut self, records: &[HandRecord]) {
        let new: Vec<NewHand> = records
            .iter()
            .enumerate()
            .map(|(i, record)| NewHand {
                record,
                seat: Seat(0),
                played_at: 1_700_000_000 + i as i64,
                match_id: None,
            })
            .collect();
        self.history.import(&new).unwrap();
    }

    fn api(&self, server: &Server, link: Option<&str>) -> HttpApi {
        let mut api = HttpApi::new(server.url()).unwrap().with_retry(RetryPolicy {
            attempts: 3,
            base_delay: Duration::from_millis(20),
            ..RetryPolicy::default()
        });
        api.login(&self.identity, "test", link).unwrap();
        api
    }

    fn sync(&mut self, api: &HttpApi) -> SyncReport {
        sync(&mut self.history, api, &SyncOptions::default()).unwrap()
    }

    fn record_ids(&self) -> Vec<RecordId> {
        let mut ids: Vec<RecordId> = self
            .history
            .list_hands(0, 100_000)
            .unwrap()
            .into_iter()
            .filter_map(|h| h.record_id)
            .collect();
        ids.sort();
        ids
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tongcheng-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sqlite_url(dir: &Path) -> String {
    format!("sqlite:{}", dir.join("server.db").display())
}

fn two_devices_end_with_the_same_hands(database: &str, dir: &Path) {
    let server = Server::start(database);
    let mut a = Device::new(dir, "a");
    let mut b = Device::new(dir, "b");
    a.play(&hands(30, 100));
    b.play(&hands(25, 200));
    let api_a = a.api(&server, None);
    let code = api_a.create_link().unwrap().code;
    let api_b = b.api(&server, Some(&code));
    assert_eq!(
        api_a.account().unwrap().account.id,
        api_b.account().unwrap().account.id
    );

    let r = a.sync(&api_a);
    assert_eq!((r.uploaded, r.already, r.pulled), (30, 0, 0));
    let r = b.sync(&api_b);
    assert_eq!((r.uploaded, r.pulled), (25, 30));
    let r = a.sync(&api_a);
    assert_eq!((r.uploaded, r.pulled), (0, 25));
    // Nothing more to do, however often.
    assert_eq!(a.sync(&api_a), SyncReport::default());
    assert_eq!(b.sync(&api_b), SyncReport::default());

    assert_eq!(a.record_ids().len(), 55);
    assert_eq!(a.record_ids(), b.record_ids());
    assert_eq!(a.history.stats().unwrap(), b.history.stats().unwrap());
    a.history.check_integrity().unwrap();
    assert_eq!(api_a.account().unwrap().records, 55);
    assert_eq!(a.history.count_pending_uploads().unwrap(), 0);
}

#[test]
fn two_devices_end_with_the_same_hands_on_sqlite() {
    let dir = temp_dir("two-sqlite");
    two_devices_end_with_the_same_hands(&sqlite_url(&dir), &dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn two_devices_end_with_the_same_hands_on_postgres() {
    let Some(pg) = PgSchema::create() else { return };
    let dir = temp_dir("two-pg");
    two_devices_end_with_the_same_hands(&pg.url, &dir);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Overwrites hand `hand`'s stored record (and record id), as someone editing the file would.
fn tamper(db: &Path, hand: i64, record: &serde_json::Value) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch(
        "DROP TRIGGER IF EXISTS hand_records_are_immutable;
         DROP TRIGGER IF EXISTS hands_are_immutable;",
    )
    .unwrap();
    c.execute(
        "UPDATE hand_records SET record = ?2 WHERE hand_id = ?1",
        rusqlite::params![hand, record.to_string()],
    )
    .unwrap();
    c.execute(
        "UPDATE hands SET record_id = ?2 WHERE id = ?1",
        rusqlite::params![hand, record["id"].as_str().unwrap()],
    )
    .unwrap();
}

#[test]
fn forged_records_are_refused_with_reasons_and_the_rest_go_through() {
    let dir = temp_dir("forged");
    let server = Server::start(&sqlite_url(&dir));
    let hs = hands(10, 300);
    {
        let mut a = Device::new(&dir, "a");
        a.play(&hs);
    }
    // Hands 2, 5 and 8 edited in the local database: a tile, a payment, the rules (with
    // the id recomputed to match).
    let db = dir.join("a.db");
    tamper(&db, 2, &forge_tile(&hs[1]));
    tamper(&db, 5, &forge_payment(&hs[4]));
    let rules = support::forge_rules(&hs[7]);
    tamper(&db, 8, &rules);

    let mut a = Device::new(&dir, "a");
    let api = a.api(&server, None);
    let r = a.sync(&api);
    assert_eq!(r.uploaded, 7);
    let reasons: Vec<(String, String)> = r
        .rejected
        .iter()
        .map(|x| (x.id.clone(), x.reason.clone()))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert_eq!(reasons[0].0, hs[1].id.as_str());
    assert!(reasons[0].1.starts_with("event_differs: "), "{reasons:?}");
    assert!(reasons[1].1.starts_with("result_differs: "), "{reasons:?}");
    assert_eq!(reasons[2].0, rules["id"].as_str().unwrap());
    assert!(reasons[2].1.starts_with("rules_differ: "), "{reasons:?}");

    // Marked locally with the reason, and not sent again.
    let marked = a.history.rejected_uploads(0, 10).unwrap();
    assert_eq!(marked.len(), 3);
    assert_eq!(marked[1].reason, reasons[1].1);
    assert_eq!(a.sync(&api), SyncReport::default());
    assert_eq!(api.account().unwrap().records, 7);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Kills the server while a device uploads; after a restart and a second sync the server
/// and both devices hold every hand exactly once.
fn kill_during_upload(database: &str, dir: &Path) {
    const N: usize = 1000;
    let mut server = Server::start(database);
    let mut a = Device::new(dir, "a");
    a.play(&hands(N, 400));
    let api = a.api(&server, None);
    let before = server.metric("tongcheng_sync_batches_total");
    let uploader = std::thread::spawn(move || {
        let r = sync(&mut a.history, &api, &SyncOptions::default());
        (a, r)
    });
    let start = Instant::now();
    while server.metric("tongcheng_sync_batches_total") < before + 2 {
        assert!(start.elapsed() < Duration::from_secs(60), "no upload seen");
        std::thread::sleep(Duration::from_millis(2));
    }
    server.kill();
    let (mut a, first) = uploader.join().unwrap();
    assert!(first.is_err(), "the first sync was cut off: {first:?}");
    let left = a.history.count_pending_uploads().unwrap();
    assert!(left > 0 && left < N as u64, "{left} hands waiting");

    let server = Server::start(database);
    let api = a.api(&server, None);
    let held = api.account().unwrap().records;
    assert!(
        held >= 100 && held < N as u64,
        "{held} on the server after the kill"
    );
    let second = a.sync(&api);
    assert_eq!(second.uploaded + second.already, left, "{second:?}");
    assert!(second.rejected.is_empty());
    assert_eq!(a.history.count_pending_uploads().unwrap(), 0);
    assert_eq!(
        api.account().unwrap().records,
        N as u64,
        "nothing lost, nothing doubled"
    );

    let mut b = Device::new(dir, "b");
    let api_b = b.api(&server, Some(&api.create_link().unwrap().code));
    assert_eq!(b.sync(&api_b).pulled, N as u64);
    assert_eq!(b.record_ids(), a.record_ids());
    assert_eq!(b.history.stats().unwrap(), a.history.stats().unwrap());
}

#[test]
fn killing_the_server_during_an_upload_loses_and_doubles_nothing_on_sqlite() {
    let dir = temp_dir("kill-sqlite");
    kill_during_upload(&sqlite_url(&dir), &dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn killing_the_server_during_an_upload_loses_and_doubles_nothing_on_postgres() {
    let Some(pg) = PgSchema::create() else { return };
    let dir = temp_dir("kill-pg");
    kill_during_upload(&pg.url, &dir);
    std::fs::remove_dir_all(dir).unwrap();
}
