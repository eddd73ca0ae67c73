//! The PostgreSQL backend, for several server nodes sharing one database.
//!
//! It uses the synchronous `postgres` client on the blocking pool, like SQLite, so both
//! backends share one synchronous trait. A small pool keeps idle connections. Uploads for one
//! account lock the account's row first (`SELECT ... FOR UPDATE`): two devices uploading at
//! once then take sequence numbers in commit order, so a pull's cursor never skips a record
//! that commits late.

use std::sync::{Condvar, Mutex};

use postgres::{Client, Config, GenericClient, NoTls, Row};

use super::{
    Account, Device, LoginOutcome, NewRecord, QueueClaim, QueueEntry, QueueState, RankedHand,
    Result, RoomJoin, RoomMember, Session, Store, StoreError, StoredRating, StoredRecord,
    StoredRoom, migrations,
};

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        use postgres::error::SqlState;
        // The plain Display of a server error is just "db error": take the server's message.
        let text = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        };
        match e.code() {
            Some(c)
                if *c == SqlState::UNIQUE_VIOLATION
                    || *c == SqlState::T_R_SERIALIZATION_FAILURE =>
            {
                StoreError::Conflict(text)
            }
            _ => StoreError::Backend(text),
        }
    }
}

/// Connections open at once, at most (callers beyond it wait for one to come back): the
/// blocking pool has hundreds of threads, PostgreSQL allows ~100 connections in all.
const MAX_OPEN: usize = 16;

pub struct PgStore {
    config: Config,
    idle: Mutex<Vec<Client>>,
    /// Connections out of the pool or idle in it.
    open: Mutex<usize>,
    returned: Condvar,
}

impl PgStore {
    /// Connects to `url` (a `postgres://` URL; `?options=-c%20search_path%3D...` picks a
    /// schema) and migrates it.
    pub fn open(url: &str) -> Result<PgStore> {
        let config: Config = url
            .parse()
            .map_err(|e| StoreError::Open(format!("bad PostgreSQL URL: {e}")))?;
        let store = PgStore {
            config,
            idle: Mutex::new(Vec::new()),
            open: Mutex::new(0),
            returned: Condvar::new(),
        };
        store.with(migrate)?;
        Ok(store)
    }

    /// Runs `f` on a pooled connection.
    fn with<T>(&self, f: impl FnOnce(&mut Client) -> Result<T>) -> Result<T> {
        let mut client = self.checkout()?;
        let out = f(&mut client);
        if client.is_closed() {
            self.closed();
        } else {
            // Under the `open` lock, which a waiter holds from looking at the idle list until
            // it waits: the wake-up cannot fall between the two.
            let _open = self.open.lock().unwrap_or_else(|p| p.into_inner());
            self.idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(client);
            self.returned.notify_one();
        }
        out
    }

    /// An idle connection, or a new one while fewer than [`MAX_OPEN`] are open, or the next
    /// one returned.
    fn checkout(&self) -> Result<Client> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(c) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
                if !c.is_closed() {
                    return Ok(c);
                }
                *open -= 1;
                continue;
            }
            if *open < MAX_OPEN {
                *open += 1;
                drop(open);
                return self.config.connect(NoTls).map_err(|e| {
                    self.closed();
                    StoreError::Open(e.to_string())
                });
            }
            open = self.returned.wait(open).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// A connection went away: make room for a new one.
    fn closed(&self) {
        *self.open.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        self.returned.notify_one();
    }
}

impl Drop for PgStore {
    /// The synchronous client closes its connection by blocking on its own runtime, which
    /// panics on an async worker thread (where the last reference to the store may go):
    /// idle connections are closed on a plain thread instead.
    fn drop(&mut self) {
        let idle = std::mem::take(self.idle.get_mut().unwrap_or_else(|p| p.into_inner()));
        if !idle.is_empty() {
            let _ = std::thread::spawn(move || drop(idle)).join();
        }
    }
}

fn migrate(c: &mut Client) -> Result<()> {
    let mut tx = c.transaction()?;
    // Several nodes may start at once: one migrates, the others wait and find it done.
    tx.execute("SELECT pg_advisory_xact_lock(7242011)", &[])?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
    )?;
    let current: i64 = tx
        .query_one(
            "SELECT coalesce(max(version), 0)::BIGINT FROM schema_migrations",
            &[],
        )?
        .get(0);
    let known = migrations::latest();
    if current > known {
        return Err(StoreError::Newer {
            found: current,
            known,
        });
    }
    for (i, step) in migrations::POSTGRES
        .iter()
        .enumerate()
        .skip(current as usize)
    {
        tx.batch_execute(step)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
            &[&(i as i64 + 1), &crate::now()],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn device_row(r: &Row) -> Device {
    Device {
        id: r.get(0),
        account_id: r.get(1),
        name: r.get(2),
        created_at: r.get(3),
        last_seen_at: r.get(4),
        revoked: r.get::<_, Option<i64>>(5).is_some(),
    }
}

const DEVICE_COLUMNS: &str = "id, account_id, name, created_at, last_seen_at, revoked_at";

fn seat_of(v: i16) -> Result<u8> {
    u8::try_from(v)
        .ok()
        .filter(|s| *s <= 3)
        .ok_or_else(|| StoreError::Corrupt(format!("seat {v}")))
}

/// A room and its members, by `column` (`code` or `table_id`).
fn load_room(c: &mut impl GenericClient, column: &str, key: &str) -> Result<Option<StoredRoom>> {
    let Some(r) = c.query_opt(
        &format!("SELECT code, table_id, node_url, people FROM rooms WHERE {column} = $1"),
        &[&key],
    )?
    else {
        return Ok(None);
    };
    let code: String = r.get(0);
    let members = c
        .query(
            "SELECT account_id, ip, name FROM room_players WHERE code = $1 ORDER BY pos",
            &[&code],
        )?
        .iter()
        .map(|m| RoomMember {
            account_id: m.get(0),
            ip: m.get(1),
            name: m.get(2),
        })
        .collect();
    let people: i16 = r.get(3);
    Ok(Some(StoredRoom {
        code,
        table_id: r.get(1),
        node_url: r.get(2),
        people: u8::try_from(people).map_err(|_| StoreError::Corrupt("room size".into()))?,
        members,
    }))
}

fn queue_row(r: &Row) -> Result<QueueEntry> {
    let devices: String = r.get(5);
    Ok(QueueEntry {
        account_id: r.get(0),
        ticket: r.get(1),
        rules: r.get(2),
        ranked: r.get(3),
        rating: r.get(4),
        devices: super::parse_devices(&devices)?,
        ip: r.get(6),
        since_ms: r.get(7),
    })
}

const QUEUE_COLUMNS: &str = "account_id, ticket, rules, ranked, rating, devices, ip, since_ms";

impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    fn put_challenge(&self, nonce: &str, expires_at: i64, now: i64) -> Result<()> {
        self.with(|c| {
            c.execute("DELETE FROM challenges WHERE expires_at <= $1", &[&now])?;
            c.execute(
                "INSERT INTO challenges (nonce, expires_at) VALUES ($1, $2)",
                &[&nonce, &expires_at],
            )?;
            Ok(())
        })
    }

    fn take_challenge(&self, nonce: &str, now: i64) -> Result<bool> {
        self.with(|c| {
            let row = c.query_opt(
                "DELETE FROM challenges WHERE nonce = $1 RETURNING expires_at",
                &[&nonce],
            )?;
            Ok(row.is_some_and(|r| r.get::<_, i64>(0) > now))
        })
    }

    fn login_device(
        &self,
        public_key: &str,
        link_account: Option<i64>,
        new_account_name: &str,
        device_name: &str,
        now: i64,
    ) -> Result<LoginOutcome> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let existing = tx
                .query_opt(
                    &format!("SELECT {DEVICE_COLUMNS} FROM devices WHERE public_key = $1"),
                    &[&public_key],
                )?
                .map(|r| device_row(&r));
            let outcome = match existing {
                Some(d) if d.revoked => LoginOutcome::Revoked,
                Some(d) if link_account.is_some_and(|a| a != d.account_id) => {
                    LoginOutcome::KeyInUse
                }
                Some(mut d) => {
                    tx.execute(
                        "UPDATE devices SET last_seen_at = $2 WHERE id = $1",
                        &[&d.id, &now],
                    )?;
                    d.last_seen_at = now;
                    LoginOutcome::Existing(d)
                }
                None => {
                    let account_id: i64 = match link_account {
                        Some(a) => a,
                        None => tx
                            .query_one(
                                "INSERT INTO accounts (display_name, created_at) VALUES ($1, $2)
                                 RETURNING id",
                                &[&new_account_name, &now],
                            )?
                            .get(0),
                    };
                    let id: i64 = tx
                        .query_one(
                            "INSERT INTO devices (account_id, public_key, name, created_at,
                                 last_seen_at)
                             VALUES ($1, $2, $3, $4, $4) RETURNING id",
                            &[&account_id, &public_key, &device_name, &now],
                        )?
                        .get(0);
                    LoginOutcome::Created(Device {
                        id,
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
        })
    }

    fn create_session(
        &self,
        token_hash: &str,
        device_id: i64,
        now: i64,
        expires_at: i64,
    ) -> Result<()> {
        self.with(|c| {
            c.execute(
                "INSERT INTO sessions (token_hash, device_id, created_at, expires_at)
                 VALUES ($1, $2, $3, $4)",
                &[&token_hash, &device_id, &now, &expires_at],
            )?;
            Ok(())
        })
    }

    fn session(&self, token_hash: &str, now: i64) -> Result<Option<Session>> {
        self.with(|c| {
            Ok(c.query_opt(
                "SELECT d.account_id, d.id FROM sessions s JOIN devices d ON d.id = s.device_id
                 WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2
                   AND d.revoked_at IS NULL",
                &[&token_hash, &now],
            )?
            .map(|r| Session {
                account_id: r.get(0),
                device_id: r.get(1),
            }))
        })
    }

    fn revoke_session(&self, token_hash: &str, now: i64) -> Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL",
                &[&token_hash, &now],
            )?;
            Ok(())
        })
    }

    fn account(&self, id: i64) -> Result<Option<Account>> {
        self.with(|c| {
            Ok(c.query_opt(
                "SELECT id, display_name, created_at FROM accounts WHERE id = $1",
                &[&id],
            )?
            .map(|r| Account {
                id: r.get(0),
                display_name: r.get(1),
                created_at: r.get(2),
            }))
        })
    }

    fn devices(&self, account_id: i64) -> Result<Vec<Device>> {
        self.with(|c| {
            Ok(c.query(
                &format!("SELECT {DEVICE_COLUMNS} FROM devices WHERE account_id = $1 ORDER BY id"),
                &[&account_id],
            )?
            .iter()
            .map(device_row)
            .collect())
        })
    }

    fn revoke_device(&self, account_id: i64, device_id: i64, now: i64) -> Result<bool> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let exists = tx
                .query_opt(
                    "SELECT 1 FROM devices WHERE id = $1 AND account_id = $2 FOR UPDATE",
                    &[&device_id, &account_id],
                )?
                .is_some();
            if exists {
                tx.execute(
                    "UPDATE devices SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                    &[&device_id, &now],
                )?;
                tx.execute(
                    "UPDATE sessions SET revoked_at = $2 WHERE device_id = $1 AND revoked_at IS NULL",
                    &[&device_id, &now],
                )?;
            }
            tx.commit()?;
            Ok(exists)
        })
    }

    fn put_link_code(
        &self,
        code_hash: &str,
        account_id: i64,
        expires_at: i64,
        now: i64,
    ) -> Result<()> {
        self.with(|c| {
            c.execute("DELETE FROM link_codes WHERE expires_at <= $1", &[&now])?;
            c.execute(
                "INSERT INTO link_codes (code_hash, account_id, expires_at) VALUES ($1, $2, $3)",
                &[&code_hash, &account_id, &expires_at],
            )?;
            Ok(())
        })
    }

    fn take_link_code(&self, code_hash: &str, now: i64) -> Result<Option<i64>> {
        self.with(|c| {
            let row = c.query_opt(
                "DELETE FROM link_codes WHERE code_hash = $1 RETURNING account_id, expires_at",
                &[&code_hash],
            )?;
            Ok(row
                .map(|r| (r.get::<_, i64>(0), r.get::<_, i64>(1)))
                .filter(|&(_, exp)| exp > now)
                .map(|(a, _)| a))
        })
    }

    fn store_records(
        &self,
        account_id: i64,
        device_id: i64,
        records: &[NewRecord],
        now: i64,
    ) -> Result<Vec<bool>> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            // Serializes this account's uploads: see the module doc.
            tx.execute(
                "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE",
                &[&account_id],
            )?;
            let st = tx.prepare(
                "INSERT INTO records (account_id, record_id, device_id, seat, played_at, rules,
                     offline, record, uploaded_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (account_id, record_id) DO NOTHING",
            )?;
            let mut inserted = Vec::with_capacity(records.len());
            for r in records {
                let n = tx.execute(
                    &st,
                    &[
                        &account_id,
                        &r.record_id,
                        &device_id,
                        &i16::from(r.seat),
                        &r.played_at,
                        &r.rules,
                        &r.offline,
                        &r.json,
                        &now,
                    ],
                )?;
                inserted.push(n == 1);
            }
            tx.commit()?;
            Ok(inserted)
        })
    }

    fn pull(
        &self,
        account_id: i64,
        exclude_device: i64,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<StoredRecord>> {
        self.with(|c| {
            c.query(
                "SELECT seq, record_id, device_id, seat, played_at, offline, record FROM records
                 WHERE account_id = $1 AND device_id <> $2 AND seq > $3 ORDER BY seq LIMIT $4",
                &[&account_id, &exclude_device, &after_seq, &i64::from(limit)],
            )?
            .iter()
            .map(|r| {
                Ok(StoredRecord {
                    seq: r.get(0),
                    record_id: r.get(1),
                    device_id: r.get(2),
                    seat: seat_of(r.get(3))?,
                    played_at: r.get(4),
                    offline: r.get(5),
                    json: r.get(6),
                })
            })
            .collect()
        })
    }

    fn count_records(&self, account_id: i64) -> Result<u64> {
        self.with(|c| {
            let n: i64 = c
                .query_one(
                    "SELECT count(*) FROM records WHERE account_id = $1",
                    &[&account_id],
                )?
                .get(0);
            Ok(n.max(0) as u64)
        })
    }

    fn rating(&self, account_id: i64, rules: &str) -> Result<Option<StoredRating>> {
        self.with(|c| {
            let row = c.query_opt(
                "SELECT mu, sigma, games FROM ratings WHERE account_id = $1 AND rules = $2",
                &[&account_id, &rules],
            )?;
            Ok(row.map(|r| StoredRating {
                account_id,
                rules: rules.to_string(),
                mu: r.get(0),
                sigma: r.get(1),
                games: r.get(2),
            }))
        })
    }

    fn ratings(&self, account_id: i64) -> Result<Vec<StoredRating>> {
        self.with(|c| {
            let rows = c.query(
                "SELECT rules, mu, sigma, games FROM ratings WHERE account_id = $1 ORDER BY rules",
                &[&account_id],
            )?;
            Ok(rows
                .iter()
                .map(|r| StoredRating {
                    account_id,
                    rules: r.get(0),
                    mu: r.get(1),
                    sigma: r.get(2),
                    games: r.get(3),
                })
                .collect())
        })
    }

    fn put_ratings(&self, ratings: &[StoredRating], now: i64) -> Result<()> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let st = tx.prepare(
                "INSERT INTO ratings (account_id, rules, mu, sigma, games, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (account_id, rules) DO UPDATE SET
                    mu = excluded.mu, sigma = excluded.sigma, games = excluded.games,
                    updated_at = excluded.updated_at",
            )?;
            for r in ratings {
                tx.execute(
                    &st,
                    &[&r.account_id, &r.rules, &r.mu, &r.sigma, &r.games, &now],
                )?;
            }
            tx.commit()?;
            Ok(())
        })
    }

    fn put_ranked_hand(&self, h: &RankedHand) -> Result<bool> {
        self.with(|c| {
            let n = c.execute(
                "INSERT INTO ranked_hands (table_id, record_id, rules, seat0, seat1, seat2, seat3,
                     played_at, record)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (table_id, record_id) DO NOTHING",
                &[
                    &h.table_id,
                    &h.record_id,
                    &h.rules,
                    &h.accounts[0],
                    &h.accounts[1],
                    &h.accounts[2],
                    &h.accounts[3],
                    &h.played_at,
                    &h.json,
                ],
            )?;
            Ok(n == 1)
        })
    }

    fn ranked_hands(
        &self,
        rules: &str,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<(i64, RankedHand)>> {
        self.with(|c| {
            Ok(c.query(
                "SELECT seq, table_id, record_id, seat0, seat1, seat2, seat3, played_at, record
                 FROM ranked_hands WHERE rules = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                &[&rules, &after_seq, &i64::from(limit)],
            )?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    RankedHand {
                        table_id: r.get(1),
                        record_id: r.get(2),
                        rules: rules.to_string(),
                        accounts: [r.get(3), r.get(4), r.get(5), r.get(6)],
                        played_at: r.get(7),
                        json: r.get(8),
                    },
                )
            })
            .collect())
        })
    }

    fn put_table_home(&self, table_id: &str, node_url: &str, now: i64) -> Result<()> {
        self.with(|c| {
            c.execute(
                "INSERT INTO table_homes (table_id, node_url, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (table_id) DO UPDATE SET node_url = excluded.node_url",
                &[&table_id, &node_url, &now],
            )?;
            Ok(())
        })
    }

    fn table_home(&self, table_id: &str) -> Result<Option<String>> {
        self.with(|c| {
            Ok(c.query_opt(
                "SELECT node_url FROM table_homes WHERE table_id = $1",
                &[&table_id],
            )?
            .map(|r| r.get(0)))
        })
    }

    fn move_table_home(&self, table_id: &str, from: &str, to: &str, now: i64) -> Result<bool> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let moved = tx.execute(
                "UPDATE table_homes SET node_url = $3 WHERE table_id = $1 AND node_url = $2",
                &[&table_id, &from, &to],
            )? + tx.execute(
                "INSERT INTO table_homes (table_id, node_url, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (table_id) DO NOTHING",
                &[&table_id, &to, &now],
            )?;
            tx.commit()?;
            Ok(moved == 1)
        })
    }

    fn drop_table(&self, table_id: &str) -> Result<()> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            tx.execute("DELETE FROM table_homes WHERE table_id = $1", &[&table_id])?;
            tx.execute("DELETE FROM rooms WHERE table_id = $1", &[&table_id])?;
            tx.commit()?;
            Ok(())
        })
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
        self.with(|c| {
            let mut tx = c.transaction()?;
            let n = tx.execute(
                "INSERT INTO rooms (code, table_id, node_url, people, created_at)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (code) DO NOTHING",
                &[&code, &table_id, &node_url, &i16::from(people), &now],
            )?;
            if n == 0 {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO room_players (code, pos, account_id, ip, name)
                 VALUES ($1, 0, $2, $3, $4)",
                &[&code, &owner.account_id, &owner.ip, &owner.name],
            )?;
            tx.commit()?;
            Ok(true)
        })
    }

    fn join_room(&self, code: &str, member: &RoomMember) -> Result<RoomJoin> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            // The room's row is the lock: joins through any node are serialized here.
            if tx
                .query_opt("SELECT 1 FROM rooms WHERE code = $1 FOR UPDATE", &[&code])?
                .is_none()
            {
                return Ok(RoomJoin::NoRoom);
            }
            let Some(mut room) = load_room(&mut tx, "code", code)? else {
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
                let pos = room.members.len() as i16;
                tx.execute(
                    "INSERT INTO room_players (code, pos, account_id, ip, name)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&code, &pos, &member.account_id, &member.ip, &member.name],
                )?;
                room.members.push(member.clone());
            }
            tx.commit()?;
            Ok(RoomJoin::Admitted(room))
        })
    }

    fn room(&self, code: &str) -> Result<Option<StoredRoom>> {
        self.with(|c| load_room(c, "code", code))
    }

    fn room_of_table(&self, table_id: &str) -> Result<Option<StoredRoom>> {
        self.with(|c| load_room(c, "table_id", table_id))
    }

    fn queue_put(&self, e: &QueueEntry, now_ms: i64) -> Result<()> {
        let devices = super::join_devices(&e.devices);
        self.with(|c| {
            c.execute(
                "INSERT INTO queue (account_id, ticket, rules, ranked, rating, devices, ip,
                     since_ms, seen_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (account_id) DO UPDATE SET
                    ticket = excluded.ticket, rules = excluded.rules, ranked = excluded.ranked,
                    rating = excluded.rating, devices = excluded.devices, ip = excluded.ip,
                    since_ms = excluded.since_ms, seen_ms = excluded.seen_ms,
                    table_id = NULL, node_url = NULL, people = NULL",
                &[
                    &e.account_id,
                    &e.ticket,
                    &e.rules,
                    &e.ranked,
                    &e.rating,
                    &devices,
                    &e.ip,
                    &e.since_ms,
                    &now_ms,
                ],
            )?;
            Ok(())
        })
    }

    fn queue_poll(&self, account_id: i64, ticket: &str, now_ms: i64) -> Result<QueueState> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let Some(r) = tx.query_opt(
                "SELECT ticket, table_id, node_url, people FROM queue WHERE account_id = $1
                 FOR UPDATE",
                &[&account_id],
            )?
            else {
                return Ok(QueueState::Gone);
            };
            let theirs: String = r.get(0);
            if theirs != ticket {
                return Ok(QueueState::Replaced);
            }
            let state = match (r.get::<_, Option<String>>(1), r.get(2), r.get(3)) {
                (Some(table_id), Some(node_url), Some(people)) => {
                    let people: i16 = people;
                    tx.execute("DELETE FROM queue WHERE account_id = $1", &[&account_id])?;
                    QueueState::Seated {
                        table_id,
                        node_url,
                        people: u8::try_from(people)
                            .map_err(|_| StoreError::Corrupt("table size".into()))?,
                    }
                }
                _ => {
                    tx.execute(
                        "UPDATE queue SET seen_ms = $2 WHERE account_id = $1",
                        &[&account_id, &now_ms],
                    )?;
                    QueueState::Waiting
                }
            };
            tx.commit()?;
            Ok(state)
        })
    }

    fn queue_leave(&self, account_id: i64, ticket: &str) -> Result<()> {
        self.with(|c| {
            c.execute(
                "DELETE FROM queue WHERE account_id = $1 AND ticket = $2 AND table_id IS NULL",
                &[&account_id, &ticket],
            )?;
            Ok(())
        })
    }

    fn queue_len(&self, rules: &str, ranked: bool) -> Result<u64> {
        self.with(|c| {
            let n: i64 = c
                .query_one(
                    "SELECT count(*) FROM queue
                     WHERE rules = $1 AND ranked = $2 AND table_id IS NULL",
                    &[&rules, &ranked],
                )?
                .get(0);
            Ok(n as u64)
        })
    }

    fn queue_claim(
        &self,
        rules: &str,
        ranked: bool,
        stale_before_ms: i64,
        choose: &mut dyn FnMut(Vec<QueueEntry>) -> Vec<QueueClaim>,
    ) -> Result<Vec<QueueClaim>> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            // Rows another node's matcher holds are skipped, not waited for: each run seats
            // from what it alone holds, and both commit without ever sharing a player.
            let rows = tx.query(
                &format!(
                    "SELECT {QUEUE_COLUMNS}, seen_ms FROM queue
                     WHERE rules = $1 AND ranked = $2 AND table_id IS NULL
                     ORDER BY since_ms FOR UPDATE SKIP LOCKED"
                ),
                &[&rules, &ranked],
            )?;
            let mut waiting = Vec::with_capacity(rows.len());
            for r in &rows {
                let e = queue_row(r)?;
                if r.get::<_, i64>(8) < stale_before_ms {
                    tx.execute("DELETE FROM queue WHERE account_id = $1", &[&e.account_id])?;
                } else {
                    waiting.push(e);
                }
            }
            if waiting.is_empty() {
                tx.commit()?;
                return Ok(Vec::new());
            }
            let held: Vec<i64> = waiting.iter().map(|e| e.account_id).collect();
            let claims = choose(waiting);
            for claim in &claims {
                let people = claim.accounts.len() as i16;
                for a in &claim.accounts {
                    if !held.contains(a) {
                        return Err(StoreError::Conflict(format!(
                            "account {a} was not held by this matcher run"
                        )));
                    }
                    tx.execute(
                        "UPDATE queue SET table_id = $2, node_url = $3, people = $4
                         WHERE account_id = $1",
                        &[a, &claim.table_id, &claim.node_url, &people],
                    )?;
                }
            }
            tx.commit()?;
            Ok(claims)
        })
    }
}
