//! Databases written by the released server (schema version 4, before the store's queries
//! were written once; see tests/fixtures/README.md) open with this build: every kind of row
//! reads back through the trait, new rows continue the old sequences, the schema version is
//! current, and the schema is the one this build makes from scratch.

use crate::support;

use std::path::Path;

use support::PgSchema;
use tongcheng_server::store::{
    self, Device, LoginOutcome, NewRecord, QueueState, RoomMember, Session, Store, StoredRating,
    StoredRoom, migrations,
};

/// The fixtures' clock: what they were written at.
const NOW: i64 = 1_750_000_000;

fn record_id(n: u64) -> String {
    format!("{:064x}", 0xfeed_0000 + n)
}

fn reads_back(s: &dyn Store) {
    // Accounts and devices.
    let a = s.account(1).unwrap().unwrap();
    assert_eq!((a.display_name.as_str(), a.created_at), ("Player-A", NOW));
    assert_eq!(s.account(3).unwrap().unwrap().display_name, "玩家C");
    let devices = s.devices(1).unwrap();
    assert_eq!(
        devices
            .iter()
            .map(|d| (d.id, d.name.as_str(), d.revoked))
            .collect::<Vec<_>>(),
        [(1, "phone", false), (2, "tablet", true)]
    );
    assert_eq!(
        s.login_device("key-b", None, "", "", NOW + 200).unwrap(),
        LoginOutcome::Existing(Device {
            id: 3,
            account_id: 2,
            name: "pc".into(),
            created_at: NOW + 20,
            last_seen_at: NOW + 200,
            revoked: false,
        })
    );
    assert_eq!(
        s.login_device("key-a-tablet", None, "", "", NOW).unwrap(),
        LoginOutcome::Revoked
    );

    // Sessions: live ones only (not expired, not revoked, device not revoked).
    let session = |token| s.session(token, NOW + 100).unwrap();
    let owner = |account_id, device_id| {
        Some(Session {
            account_id,
            device_id,
        })
    };
    assert_eq!(session("hash-a"), owner(1, 1));
    assert_eq!(session("hash-a2"), None);
    assert_eq!(session("hash-b"), owner(2, 3));
    assert_eq!(session("hash-b-expired"), None);
    assert_eq!(session("hash-c-revoked"), None);
    assert_eq!(session("hash-c"), owner(3, 4));

    // Challenges and link codes: single use.
    assert!(s.take_challenge("c0ffee", NOW).unwrap());
    assert!(!s.take_challenge("c0ffee", NOW).unwrap());
    assert_eq!(s.take_link_code("link-a", NOW).unwrap(), Some(1));
    assert_eq!(s.take_link_code("link-a", NOW).unwrap(), None);

    // Records, with their sequence numbers, seats and offline flags.
    assert_eq!(s.count_records(1).unwrap(), 4);
    assert_eq!(s.count_records(2).unwrap(), 2);
    let pulled = s.pull(1, 2, 0, 100).unwrap();
    assert_eq!(
        pulled
            .iter()
            .map(|r| (r.seq, r.record_id.clone(), r.device_id, r.seat, r.offline))
            .collect::<Vec<_>>(),
        [
            (1, record_id(0), 1, 0, true),
            (2, record_id(1), 1, 1, false),
            (3, record_id(2), 1, 2, true)
        ]
    );
    assert_eq!(pulled[1].played_at, NOW - 999);
    assert_eq!(pulled[1].json, r#"{"fixture":1,"text":"东南西北"}"#);
    assert_eq!(s.pull(1, 1, 0, 100).unwrap()[0].seq, 4);
    let of_b: Vec<i64> = s
        .pull(2, 0, 0, 100)
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(of_b, [5, 6]);

    // Ratings.
    let rating = |account_id, rules: &str, mu, sigma, games| StoredRating {
        account_id,
        rules: rules.into(),
        mu,
        sigma,
        games,
    };
    assert_eq!(
        s.ratings(1).unwrap(),
        [
            rating(1, "guobiao", 27.25, 7.5, 3),
            rating(1, "tongcheng", 25.5, 8.0, 1)
        ]
    );
    assert_eq!(
        s.rating(2, "guobiao").unwrap(),
        Some(rating(2, "guobiao", 22.125, 7.75, 3))
    );

    // Ranked hands, with bots' seats empty.
    let hands = s.ranked_hands("guobiao", 0, 10).unwrap();
    assert_eq!(
        hands
            .iter()
            .map(|(seq, h)| (*seq, h.table_id.as_str(), h.accounts))
            .collect::<Vec<_>>(),
        [
            (1, "table-r1", [Some(1), Some(2), None, Some(3)]),
            (2, "table-r1", [None, Some(1), Some(2), Some(3)])
        ]
    );
    assert_eq!(hands[1].1.record_id, record_id(2));
    assert_eq!(hands[1].1.json, r#"{"hand":2}"#);
    assert_eq!(s.ranked_hands("tongcheng", 0, 10).unwrap().len(), 1);

    // What several nodes share: table homes, a room, the queue.
    let node_a = "http://10.0.0.1:8080";
    assert_eq!(s.table_home("table-1").unwrap().as_deref(), Some(node_a));
    let room = StoredRoom {
        code: "123456".into(),
        table_id: "table-1".into(),
        node_url: node_a.into(),
        people: 4,
        members: vec![
            RoomMember {
                account_id: 1,
                ip: Some("192.0.2.1".into()),
                name: "Player-A".into(),
            },
            RoomMember {
                account_id: 3,
                ip: None,
                name: "玩家C".into(),
            },
        ],
    };
    assert_eq!(s.room("123456").unwrap(), Some(room.clone()));
    assert_eq!(s.room_of_table("table-1").unwrap(), Some(room));
    assert_eq!(s.queue_len("guobiao", false).unwrap(), 1);
    assert_eq!(s.queue_len("guobiao", true).unwrap(), 0);
    let later = NOW * 1000 + 60_000;
    assert_eq!(
        s.queue_poll(2, "ticket-b", later).unwrap(),
        QueueState::Seated {
            table_id: "table-2".into(),
            node_url: "http://10.0.0.2:8080".into(),
            people: 1
        }
    );
    assert_eq!(
        s.queue_poll(1, "ticket-a", later).unwrap(),
        QueueState::Waiting
    );
    let mut waiting = Vec::new();
    s.queue_claim("guobiao", false, 0, &mut |w| {
        waiting = w;
        Vec::new()
    })
    .unwrap();
    assert_eq!(
        waiting
            .iter()
            .map(|e| (e.account_id, e.devices.clone(), e.ip.clone(), e.rating))
            .collect::<Vec<_>>(),
        [(1, vec![1, 2], None, 24.5)]
    );

    // New rows continue the sequences the release left.
    let LoginOutcome::Created(d) = s
        .login_device("key-new", None, "New", "phone", NOW)
        .unwrap()
    else {
        panic!("not created");
    };
    assert_eq!((d.id, d.account_id), (5, 4));
    let new = NewRecord {
        record_id: record_id(9),
        seat: 3,
        played_at: NOW,
        rules: "guobiao".into(),
        offline: false,
        json: "{}".into(),
    };
    assert_eq!(s.store_records(2, 3, &[new], NOW).unwrap(), [true]);
    assert_eq!(s.pull(2, 0, 6, 10).unwrap()[0].seq, 7);
}

#[test]
fn a_released_sqlite_database_opens() {
    let dir = std::env::temp_dir().join(format!("tongcheng-upgrade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A copy: opening writes to the file.
    let old = dir.join("released.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/released-v4.sqlite");
    std::fs::copy(fixture, &old).unwrap();
    let s = store::open(&format!("sqlite:{}", old.display())).unwrap();
    reads_back(s.as_ref());
    drop(s);

    let fresh = dir.join("fresh.db");
    drop(store::open(&format!("sqlite:{}", fresh.display())).unwrap());
    let schema = |path: &Path| {
        let c = rusqlite::Connection::open(path).unwrap();
        let version: i64 = c
            .query_row("SELECT max(version) FROM schema_migrations", [], |r| {
                r.get(0)
            })
            .unwrap();
        let mut st = c
            .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
            .unwrap();
        let objects = st
            .query_map([], |r| {
                Ok([
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get::<_, Option<String>>(3)?,
                ])
            })
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap();
        (version, objects)
    };
    let (old_version, old_schema) = schema(&old);
    let (new_version, new_schema) = schema(&fresh);
    assert_eq!(
        (old_version, new_version),
        (migrations::latest(), migrations::latest())
    );
    // Byte for byte: SQLite keeps each table's CREATE statement as written.
    assert_eq!(old_schema, new_schema);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The fixture's schema name, replaced by the test's own when loading it.
const DUMPED_SCHEMA: &str = "tongcheng_fixture_v4";

/// Loads the released dump into `schema`: psql's meta-commands (`\restrict`) dropped, the
/// schema renamed (it exists already).
fn load_dump(base: &str, schema: &str) {
    let dump = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/released-v4-postgres.sql"),
    )
    .unwrap();
    let sql: String = dump
        .lines()
        .filter(|l| !l.starts_with('\\'))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(&format!("CREATE SCHEMA {DUMPED_SCHEMA};"), "")
        .replace(DUMPED_SCHEMA, schema);
    let mut c = postgres::Client::connect(base, postgres::NoTls).unwrap();
    c.batch_execute(&sql).unwrap();
}

/// The schema's version and its tables, columns, constraints and indexes, with the schema's
/// own name taken out.
fn describe(base: &str, schema: &str) -> (i64, Vec<String>) {
    let mut c = postgres::Client::connect(base, postgres::NoTls).unwrap();
    let version: i64 = c
        .query_one(
            &format!("SELECT max(version) FROM {schema}.schema_migrations"),
            &[],
        )
        .unwrap()
        .get(0);
    let mut lines = Vec::new();
    for sql in [
        "SELECT concat_ws(' ', table_name, column_name, data_type, is_nullable,
             column_default, is_identity, identity_generation, ordinal_position)
         FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1",
        "SELECT concat_ws(' ', t.relname, c.conname, c.contype, pg_get_constraintdef(c.oid))
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = $1 ORDER BY 1",
        "SELECT concat_ws(' ', tablename, indexname, indexdef)
         FROM pg_indexes WHERE schemaname = $1 ORDER BY 1",
        "SELECT concat_ws(' ', sequencename, data_type, increment_by, cycle)
         FROM pg_sequences WHERE schemaname = $1 ORDER BY 1",
    ] {
        for row in c.query(sql, &[&schema]).unwrap() {
            lines.push(row.get::<_, String>(0).replace(schema, "S"));
        }
    }
    (version, lines)
}

fn schema_name(s: &PgSchema) -> String {
    // PgSchema::create puts the schema into the URL as `search_path%3D<name>`.
    s.url.rsplit("%3D").next().unwrap().to_string()
}

#[test]
fn a_released_postgres_database_opens() {
    let Some(old) = PgSchema::create() else {
        return;
    };
    let Some(fresh) = PgSchema::create() else {
        return;
    };
    let base = std::env::var("TONGCHENG_TEST_PG").unwrap_or_else(|_| support::PG_BASE.into());
    let base = base.as_str();
    let (old_name, fresh_name) = (schema_name(&old), schema_name(&fresh));
    load_dump(base, &old_name);
    let s = store::open(&old.url).unwrap();
    reads_back(s.as_ref());
    drop(s);
    drop(store::open(&fresh.url).unwrap());
    let (old_version, old_schema) = describe(base, &old_name);
    let (new_version, new_schema) = describe(base, &fresh_name);
    assert_eq!(
        (old_version, new_version),
        (migrations::latest(), migrations::latest())
    );
    assert!(old_schema.len() > 60, "{old_schema:#?}");
    assert_eq!(old_schema, new_schema);
}
