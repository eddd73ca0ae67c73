//! The SQLite backend: one file, one connection behind a mutex, WAL mode.
//!
//! One connection serializes every write, which is what keeps record sequence numbers in
//! commit order for pulls; SQLite allows one writer at a time anyway. Calls block: handlers
//! make them on tokio's blocking pool.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{
    Account, Device, LoginOutcome, NewRecord, QueueClaim, QueueEntry, QueueState, RankedHand,
    Result, RoomJoin, RoomMember, Session, Store, StoreError, StoredRating, StoredRecord,
    StoredRoom, migrations,
};

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        match e {
            rusqlite::Error::SqliteFailure(f, _)
                if f.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                StoreError::Conflict(e.to_string())
            }
            _ => StoreError::Backend(e.to_string()),
        }
    }
}

pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens (creating it and its directory if missing) and migrates the database at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Open(format!("{}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path)
            .map_err(|e| StoreError::Open(format!("{}: {e}", path.display())))?;
        SqliteStore::with_connection(conn)
    }

    /// A store in memory (tests).
    pub fn open_in_memory() -> Result<SqliteStore> {
        SqliteStore::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(mut conn: Connection) -> Result<SqliteStore> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // WAL: readers never wait for the writer; NORMAL sync is durable across a process
        // kill (the failure the server must survive), fsyncing at checkpoints.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        migrate(&mut conn)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a transaction half-applied (rusqlite
        // rolls back on drop), so a poisoned lock is still a usable connection.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn migrate(conn: &mut Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
    )?;
    let current: i64 = conn.query_row(
        "SELECT coalesce(max(version), 0) FROM schema_migrations",
        [],
        |r| r.get(0),
    )?;
    let known = migrations::latest();
    if current > known {
        return Err(StoreError::Newer {
            found: current,
            known,
        });
    }
    for (i, step) in migrations::SQLITE.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(step)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
            params![i as i64 + 1, crate::now()],
        )?;
        tx.commit()?;
    }
    Ok(())
}

fn device_row(r: &rusqlite::Row) -> rusqlite::Result<Device> {
    Ok(Device {
        id: r.get(0)?,
        account_id: r.get(1)?,
        name: r.get(2)?,
        created_at: r.get(3)?,
        last_seen_at: r.get(4)?,
        revoked: r.get::<_, Option<i64>>(5)?.is_some(),
    })
}

const DEVICE_COLUMNS: &str = "id, account_id, name, created_at, last_seen_at, revoked_at";

/// A room and its members, by `column` (`code` or `table_id`).
fn load_room(c: &Connection, column: &str, key: &str) -> Result<Option<StoredRoom>> {
    let Some((code, table_id, node_url, people)) = c
        .query_row(
            &format!("SELECT code, table_id, node_url, people FROM rooms WHERE {column} = ?1"),
            params![key],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            },
        )
        .optional()?
    else {
        return Ok(None);
    };
    let mut st = c.prepare_cached(
        "SELECT account_id, ip, name FROM room_players WHERE code = ?1 ORDER BY pos",
    )?;
    let members = st
        .query_map(params![code], |m| {
            Ok(RoomMember {
                account_id: m.get(0)?,
                ip: m.get(1)?,
                name: m.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(StoredRoom {
        code,
        table_id,
        node_url,
        people: u8::try_from(people).map_err(|_| StoreError::Corrupt("room size".into()))?,
        members,
    }))
}

impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    fn put_challenge(&self, nonce: &str, expires_at: i64, now: i64) -> Result<()> {
        let c = self.conn();
        c.prepare_cached("DELETE FROM challenges WHERE expires_at <= ?1")?
            .execute([now])?;
        c.prepare_cached("INSERT INTO challenges (nonce, expires_at) VALUES (?1, ?2)")?
            .execute(params![nonce, expires_at])?;
        Ok(())
    }

    fn take_challenge(&self, nonce: &str, now: i64) -> Result<bool> {
        let c = self.conn();
        let exp: Option<i64> = c
            .prepare_cached("DELETE FROM challenges WHERE nonce = ?1 RETURNING expires_at")?
            .query_row([nonce], |r| r.get(0))
            .optional()?;
        Ok(exp.is_some_and(|e| e > now))
    }

    fn login_device(
        &self,
        public_key: &str,
        link_account: Option<i64>,
        new_account_name: &str,
        device_name: &str,
        now: i64,
    ) -> Result<LoginOutcome> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let existing = tx
            .prepare_cached(&format!(
                "SELECT {DEVICE_COLUMNS} FROM devices WHERE public_key = ?1"
            ))?
            .query_row([public_key], device_row)
            .optional()?;
        let outcome = match existing {
            Some(d) if d.revoked => LoginOutcome::Revoked,
            Some(d) if link_account.is_some_and(|a| a != d.account_id) => LoginOutcome::KeyInUse,
            Some(mut d) => {
                tx.prepare_cached("UPDATE devices SET last_seen_at = ?2 WHERE id = ?1")?
                    .execute(params![d.id, now])?;
                d.last_seen_at = now;
                LoginOutcome::Existing(d)
            }
            None => {
                let account_id = match link_account {
                    Some(a) => a,
                    None => {
                        tx.prepare_cached(
                            "INSERT INTO accounts (display_name, created_at) VALUES (?1, ?2)",
                        )?
                        .execute(params![new_account_name, now])?;
                        tx.last_insert_rowid()
                    }
                };
                tx.prepare_cached(
                    "INSERT INTO devices (account_id, public_key, name, created_at, last_seen_at)
                     VALUES (?1, ?2, ?3, ?4, ?4)",
                )?
                .execute(params![account_id, public_key, device_name, now])?;
                LoginOutcome::Created(Device {
                    id: tx.last_insert_rowid(),
                    account_id,
                    name: device_name.to_string(),
                    created_at: now,
                    last_seen_at: now,
                    revoked: false,
                })
            }
        };
        tx.commit()?;
        Ok(outcome)
    }

    fn create_session(
        &self,
        token_hash: &str,
        device_id: i64,
        now: i64,
        expires_at: i64,
    ) -> Result<()> {
        self.conn()
            .prepare_cached(
                "INSERT INTO sessions (token_hash, device_id, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![token_hash, device_id, now, expires_at])?;
        Ok(())
    }

    fn session(&self, token_hash: &str, now: i64) -> Result<Option<Session>> {
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT d.account_id, d.id FROM sessions s JOIN devices d ON d.id = s.device_id
                 WHERE s.token_hash = ?1 AND s.revoked_at IS NULL AND s.expires_at > ?2
                   AND d.revoked_at IS NULL",
            )?
            .query_row(params![token_hash, now], |r| {
                Ok(Session {
                    account_id: r.get(0)?,
                    device_id: r.get(1)?,
                })
            })
            .optional()?)
    }

    fn revoke_session(&self, token_hash: &str, now: i64) -> Result<()> {
        self.conn()
            .prepare_cached(
                "UPDATE sessions SET revoked_at = ?2 WHERE token_hash = ?1 AND revoked_at IS NULL",
            )?
            .execute(params![token_hash, now])?;
        Ok(())
    }

    fn account(&self, id: i64) -> Result<Option<Account>> {
        Ok(self
            .conn()
            .prepare_cached("SELECT id, display_name, created_at FROM accounts WHERE id = ?1")?
            .query_row([id], |r| {
                Ok(Account {
                    id: r.get(0)?,
                    display_name: r.get(1)?,
                    created_at: r.get(2)?,
                })
            })
            .optional()?)
    }

    fn devices(&self, account_id: i64) -> Result<Vec<Device>> {
        let c = self.conn();
        let mut st = c.prepare_cached(&format!(
            "SELECT {DEVICE_COLUMNS} FROM devices WHERE account_id = ?1 ORDER BY id"
        ))?;
        let rows = st
            .query_map([account_id], device_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn revoke_device(&self, account_id: i64, device_id: i64, now: i64) -> Result<bool> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let exists = tx
            .prepare_cached("SELECT 1 FROM devices WHERE id = ?1 AND account_id = ?2")?
            .exists(params![device_id, account_id])?;
        if exists {
            tx.prepare_cached(
                "UPDATE devices SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            )?
            .execute(params![device_id, now])?;
            tx.prepare_cached(
                "UPDATE sessions SET revoked_at = ?2 WHERE device_id = ?1 AND revoked_at IS NULL",
            )?
            .execute(params![device_id, now])?;
        }
        tx.commit()?;
        Ok(exists)
    }

    fn put_link_code(
        &self,
        code_hash: &str,
        account_id: i64,
        expires_at: i64,
        now: i64,
    ) -> Result<()> {
        let c = self.conn();
        c.prepare_cached("DELETE FROM link_codes WHERE expires_at <= ?1")?
            .execute([now])?;
        c.prepare_cached(
            "INSERT INTO link_codes (code_hash, account_id, expires_at) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![code_hash, account_id, expires_at])?;
        Ok(())
    }

    fn take_link_code(&self, code_hash: &str, now: i64) -> Result<Option<i64>> {
        let row: Option<(i64, i64)> = self
            .conn()
            .prepare_cached(
                "DELETE FROM link_codes WHERE code_hash = ?1 RETURNING account_id, expires_at",
            )?
            .query_row([code_hash], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        Ok(row.filter(|&(_, exp)| exp > now).map(|(a, _)| a))
    }

    fn store_records(
        &self,
        account_id: i64,
        device_id: i64,
        records: &[NewRecord],
        now: i64,
    ) -> Result<Vec<bool>> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut inserted = Vec::with_capacity(records.len());
        {
            let mut st = tx.prepare_cached(
                "INSERT INTO records (account_id, record_id, device_id, seat, played_at, rules,
                     offline, record, uploaded_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT (account_id, record_id) DO NOTHING",
            )?;
            for r in records {
                let n = st.execute(params![
                    account_id,
                    r.record_id,
                    device_id,
                    r.seat,
                    r.played_at,
                    r.rules,
                    r.offline,
                    r.json,
                    now
                ])?;
                inserted.push(n == 1);
            }
        }
        tx.commit()?;
        Ok(inserted)
    }

    fn pull(
        &self,
        account_id: i64,
        exclude_device: i64,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<StoredRecord>> {
        let c = self.conn();
        let mut st = c.prepare_cached(
            "SELECT seq, record_id, device_id, seat, played_at, offline, record FROM records
             WHERE account_id = ?1 AND device_id <> ?2 AND seq > ?3 ORDER BY seq LIMIT ?4",
        )?;
        let rows = st
            .query_map(params![account_id, exclude_device, after_seq, limit], |r| {
                Ok(StoredRecord {
                    seq: r.get(0)?,
                    record_id: r.get(1)?,
                    device_id: r.get(2)?,
                    seat: r.get(3)?,
                    played_at: r.get(4)?,
                    offline: r.get(5)?,
                    json: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn count_records(&self, account_id: i64) -> Result<u64> {
        let n: i64 = self
            .conn()
            .prepare_cached("SELECT count(*) FROM records WHERE account_id = ?1")?
            .query_row([account_id], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    fn rating(&self, account_id: i64, rules: &str) -> Result<Option<StoredRating>> {
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT mu, sigma, games FROM ratings WHERE account_id = ?1 AND rules = ?2",
            )?
            .query_row(params![account_id, rules], |r| {
                Ok(StoredRating {
                    account_id,
                    rules: rules.to_string(),
                    mu: r.get(0)?,
                    sigma: r.get(1)?,
                    games: r.get(2)?,
                })
            })
            .optional()?)
    }

    fn ratings(&self, account_id: i64) -> Result<Vec<StoredRating>> {
        let c = self.conn();
        let mut st = c.prepare_cached(
            "SELECT rules, mu, sigma, games FROM ratings WHERE account_id = ?1 ORDER BY rules",
        )?;
        let rows = st.query_map([account_id], |r| {
            Ok(StoredRating {
                account_id,
                rules: r.get(0)?,
                mu: r.get(1)?,
                sigma: r.get(2)?,
                games: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn put_ratings(&self, ratings: &[StoredRating], now: i64) -> Result<()> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut st = tx.prepare_cached(
                "INSERT INTO ratings (account_id, rules, mu, sigma, games, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (account_id, rules) DO UPDATE SET
                    mu = excluded.mu, sigma = excluded.sigma, games = excluded.games,
                    updated_at = excluded.updated_at",
            )?;
            for r in ratings {
                st.execute(params![r.account_id, r.rules, r.mu, r.sigma, r.games, now])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn put_ranked_hand(&self, h: &RankedHand) -> Result<bool> {
        let n = self
            .conn()
            .prepare_cached(
                "INSERT INTO ranked_hands (table_id, record_id, rules, seat0, seat1, seat2, seat3,
                     played_at, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT (table_id, record_id) DO NOTHING",
            )?
            .execute(params![
                h.table_id,
                h.record_id,
                h.rules,
                h.accounts[0],
                h.accounts[1],
                h.accounts[2],
                h.accounts[3],
                h.played_at,
                h.json
            ])?;
        Ok(n == 1)
    }

    fn ranked_hands(
        &self,
        rules: &str,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<(i64, RankedHand)>> {
        let c = self.conn();
        let mut st = c.prepare_cached(
            "SELECT seq, table_id, record_id, seat0, seat1, seat2, seat3, played_at, record
             FROM ranked_hands WHERE rules = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
        )?;
        let rows = st
            .query_map(params![rules, after_seq, limit], |r| {
                Ok((
                    r.get(0)?,
                    RankedHand {
                        table_id: r.get(1)?,
                        record_id: r.get(2)?,
                        rules: rules.to_string(),
                        accounts: [r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?],
                        played_at: r.get(7)?,
                        json: r.get(8)?,
                    },
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn put_table_home(&self, table_id: &str, node_url: &str, now: i64) -> Result<()> {
        self.conn().execute(
            "INSERT INTO table_homes (table_id, node_url, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (table_id) DO UPDATE SET node_url = excluded.node_url",
            params![table_id, node_url, now],
        )?;
        Ok(())
    }

    fn table_home(&self, table_id: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT node_url FROM table_homes WHERE table_id = ?1",
                params![table_id],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn move_table_home(&self, table_id: &str, from: &str, to: &str, now: i64) -> Result<bool> {
        let mut c = self.conn();
        let tx = c.transaction()?;
        let moved = tx.execute(
            "UPDATE table_homes SET node_url = ?3 WHERE table_id = ?1 AND node_url = ?2",
            params![table_id, from, to],
        )? + tx.execute(
            "INSERT INTO table_homes (table_id, node_url, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (table_id) DO NOTHING",
            params![table_id, to, now],
        )?;
        tx.commit()?;
        Ok(moved == 1)
    }

    fn drop_table(&self, table_id: &str) -> Result<()> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "DELETE FROM table_homes WHERE table_id = ?1",
            params![table_id],
        )?;
        tx.execute("DELETE FROM rooms WHERE table_id = ?1", params![table_id])?;
        tx.commit()?;
        Ok(())
    }

    fn create_room(
        &self,
        code: &str,
        table_id: &str,
        node_url: &str,
        people: u8,
        owner: &RoomMember,
        now: i64,
    ) -> Result<bool> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let n = tx.execute(
            "INSERT INTO rooms (code, table_id, node_url, people, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (code) DO NOTHING",
            params![code, table_id, node_url, people, now],
        )?;
        if n == 0 {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO room_players (code, pos, account_id, ip, name) VALUES (?1, 0, ?2, ?3, ?4)",
            params![code, owner.account_id, owner.ip, owner.name],
        )?;
        tx.commit()?;
        Ok(true)
    }

    fn join_room(&self, code: &str, member: &RoomMember) -> Result<RoomJoin> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(mut room) = load_room(&tx, "code", code)? else {
            return Ok(RoomJoin::NoRoom);
        };
        if !room
            .members
            .iter()
            .any(|m| m.account_id == member.account_id)
        {
            if room.members.len() >= usize::from(room.people) {
                return Ok(RoomJoin::Full);
            }
            tx.execute(
                "INSERT INTO room_players (code, pos, account_id, ip, name)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    code,
                    room.members.len() as i64,
                    member.account_id,
                    member.ip,
                    member.name
                ],
            )?;
            room.members.push(member.clone());
        }
        tx.commit()?;
        Ok(RoomJoin::Admitted(room))
    }

    fn room(&self, code: &str) -> Result<Option<StoredRoom>> {
        load_room(&self.conn(), "code", code)
    }

    fn room_of_table(&self, table_id: &str) -> Result<Option<StoredRoom>> {
        load_room(&self.conn(), "table_id", table_id)
    }

    fn queue_put(&self, e: &QueueEntry, now_ms: i64) -> Result<()> {
        self.conn().execute(
            "INSERT INTO queue (account_id, ticket, rules, ranked, rating, devices, ip, since_ms,
                 seen_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (account_id) DO UPDATE SET
                ticket = excluded.ticket, rules = excluded.rules, ranked = excluded.ranked,
                rating = excluded.rating, devices = excluded.devices, ip = excluded.ip,
                since_ms = excluded.since_ms, seen_ms = excluded.seen_ms,
                table_id = NULL, node_url = NULL, people = NULL",
            params![
                e.account_id,
                e.ticket,
                e.rules,
                e.ranked,
                e.rating,
                super::join_devices(&e.devices),
                e.ip,
                e.since_ms,
                now_ms
            ],
        )?;
        Ok(())
    }

    fn queue_poll(&self, account_id: i64, ticket: &str, now_ms: i64) -> Result<QueueState> {
        let mut c = self.conn();
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some((theirs, table_id, node_url, people)) = tx
            .query_row(
                "SELECT ticket, table_id, node_url, people FROM queue WHERE account_id = ?1",
                params![account_id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                    ))
                },
            )
            .optional()?
        else {
            return Ok(QueueState::Gone);
        };
        if theirs != ticket {
            return Ok(QueueState::Replaced);
        }
        let state = match (table_id, node_url, people) {
            (Some(table_id), Some(node_url), Some(people)) => {
                tx.execute(
                    "DELETE FROM queue WHERE account_id = ?1",
                    params![account_id],
                )?;
                QueueState::Seated {
                    table_id,
                    node_url,
                    people: u8::try_from(people)
                        .map_err(|_| StoreError::Corrupt("table size".into()))?,
                }
            }
            _ => {
                tx.execute(
                    "UPDATE queue SET seen_ms = ?2 WHERE account_id = ?1",
                    params![account_id, now_ms],
                )?;
                QueueState::Waiting
            }
        };
        tx.commit()?;
        Ok(state)
    }

    fn queue_leave(&self, account_id: i64, ticket: &str) -> Result<()> {
        self.conn().execute(
            "DELETE FROM queue WHERE account_id = ?1 AND ticket = ?2 AND table_id IS NULL",
            params![account_id, ticket],
        )?;
        Ok(())
    }

    fn queue_len(&self, rules: &str, ranked: bool) -> Result<u64> {
        let n: i64 = self.conn().query_row(
            "SELECT count(*) FROM queue WHERE rules = ?1 AND ranked = ?2 AND table_id IS NULL",
            params![rules, ranked],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    fn queue_claim(
        &self,
        rules: &str,
        ranked: bool,
        stale_before_ms: i64,
        choose: &mut dyn FnMut(Vec<QueueEntry>) -> Vec<QueueClaim>,
    ) -> Result<Vec<QueueClaim>> {
        let mut c = self.conn();
        // One writer at a time: the whole run is serialized, so no row is claimed twice.
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "DELETE FROM queue WHERE rules = ?1 AND ranked = ?2 AND table_id IS NULL
                 AND seen_ms < ?3",
            params![rules, ranked, stale_before_ms],
        )?;
        let waiting = {
            let mut st = tx.prepare_cached(
                "SELECT account_id, ticket, rules, ranked, rating, devices, ip, since_ms
                 FROM queue WHERE rules = ?1 AND ranked = ?2 AND table_id IS NULL
                 ORDER BY since_ms",
            )?;
            let rows = st
                .query_map(params![rules, ranked], |r| {
                    Ok((
                        QueueEntry {
                            account_id: r.get(0)?,
                            ticket: r.get(1)?,
                            rules: r.get(2)?,
                            ranked: r.get(3)?,
                            rating: r.get(4)?,
                            devices: Vec::new(),
                            ip: r.get(6)?,
                            since_ms: r.get(7)?,
                        },
                        r.get::<_, String>(5)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            rows.into_iter()
                .map(|(mut e, devices)| {
                    e.devices = super::parse_devices(&devices)?;
                    Ok(e)
                })
                .collect::<Result<Vec<_>>>()?
        };
        if waiting.is_empty() {
            tx.commit()?;
            return Ok(Vec::new());
        }
        let held: Vec<i64> = waiting.iter().map(|e| e.account_id).collect();
        let claims = choose(waiting);
        for claim in &claims {
            for a in &claim.accounts {
                if !held.contains(a) {
                    return Err(StoreError::Conflict(format!(
                        "account {a} was not held by this matcher run"
                    )));
                }
                tx.execute(
                    "UPDATE queue SET table_id = ?2, node_url = ?3, people = ?4
                     WHERE account_id = ?1",
                    params![
                        a,
                        claim.table_id,
                        claim.node_url,
                        claim.accounts.len() as i64
                    ],
                )?;
            }
        }
        tx.commit()?;
        Ok(claims)
    }
}
