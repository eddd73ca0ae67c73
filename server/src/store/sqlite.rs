//! The SQLite backend: one file, one connection behind a mutex, WAL mode.
//!
//! One connection serializes every write, which is what keeps record sequence numbers in
//! commit order for pulls; SQLite allows one writer at a time anyway. Calls block: handlers
//! make them on tokio's blocking pool.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{
    Account, Device, LoginOutcome, NewRecord, RankedHand, Result, Session, Store, StoreError,
    StoredRating, StoredRecord, migrations,
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
}
