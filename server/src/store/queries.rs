//! The store's queries, written once for both engines: [`SqlStore`] over a pool of either
//! engine's connections ([`Db`]). Statements are in PostgreSQL's dialect; the row locks in
//! them (`FOR UPDATE`) are what several nodes sharing PostgreSQL need, and SQLite, whose
//! transactions hold the whole database, reads them without (see `sqlite::to_sqlite`).

use std::time::Duration;

use r2d2::ManageConnection;

use super::db::{Arg, Db, FromCell, FromRow, args, transaction};
use super::nodes;
use super::{
    Account, Device, LoginOutcome, NewRecord, QueueClaim, QueueEntry, QueueState, RankedHand,
    Result, RoomJoin, RoomMember, Session, Store, StoreError, StoredRating, StoredRecord,
    StoredRoom,
};

/// How long a call waits for a connection when all are busy, before it fails.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(30);

/// The store over a pool of connections `M` makes: [`super::sqlite::SqliteStore`] or
/// [`super::postgres::PgStore`].
#[derive(Debug)]
pub struct SqlStore<M: ManageConnection> {
    pool: r2d2::Pool<M>,
}

impl<M> SqlStore<M>
where
    M: ManageConnection<Error = StoreError>,
    M::Connection: Db,
{
    pub(super) fn new(manager: M, pool: r2d2::Builder<M>) -> Result<Self> {
        let pool = pool
            .connection_timeout(CHECKOUT_TIMEOUT)
            .build(manager)
            .map_err(|e| StoreError::Open(e.to_string()))?;
        Ok(SqlStore { pool })
    }

    /// Runs `f` on a pooled connection.
    pub(super) fn with<T>(&self, f: impl FnOnce(&mut M::Connection) -> Result<T>) -> Result<T> {
        let mut c = self
            .pool
            .get()
            .map_err(|e| StoreError::Backend(format!("no database connection: {e}")))?;
        f(&mut c)
    }

    /// Runs `f` in a transaction on a pooled connection.
    pub(super) fn tx<T>(&self, f: impl FnOnce(&mut M::Connection) -> Result<T>) -> Result<T> {
        self.with(|c| transaction(c, f))
    }

    /// One statement on a pooled connection: how many rows it changed.
    pub(super) fn execute(&self, sql: &str, args: &[Arg<'_>]) -> Result<u64> {
        self.with(|c| c.execute(sql, args))
    }

    /// One statement on a pooled connection: its first row, if any.
    pub(super) fn row<T: FromRow>(&self, sql: &str, args: &[Arg<'_>]) -> Result<Option<T>> {
        self.with(|c| c.row(sql, args))
    }

    /// One statement on a pooled connection: its rows.
    pub(super) fn rows<T: FromRow>(&self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<T>> {
        self.with(|c| c.rows(sql, args))
    }

    /// One statement on a pooled connection: its one value.
    pub(super) fn value<T: FromCell>(&self, sql: &str, args: &[Arg<'_>]) -> Result<T> {
        self.with(|c| c.value(sql, args))
    }
}

macro_rules! device_columns {
    () => {
        "id, account_id, name, created_at, last_seen_at, revoked_at"
    };
}

type DeviceRow = (i64, i64, String, i64, i64, Option<i64>);

fn device((id, account_id, name, created_at, last_seen_at, revoked_at): DeviceRow) -> Device {
    Device {
        id,
        account_id,
        name,
        created_at,
        last_seen_at,
        revoked: revoked_at.is_some(),
    }
}

/// Think times as kept (JSON; `NULL` for hands kept before schema v5).
pub(super) fn read_think(text: Option<&str>) -> Result<Vec<super::Think>> {
    text.map_or(Ok(Vec::new()), |t| {
        serde_json::from_str(t).map_err(|e| StoreError::Corrupt(format!("think times: {e}")))
    })
}

fn seat(seat: u8) -> Result<u8> {
    if seat <= 3 {
        Ok(seat)
    } else {
        Err(StoreError::Corrupt(format!("seat {seat}")))
    }
}

/// Serializes an account's record writes (uploads, online hands): see `postgres`'s module
/// doc.
fn lock_account(c: &mut impl Db, account_id: i64) -> Result<()> {
    c.query(
        "SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE",
        args![account_id],
    )?;
    Ok(())
}

/// Inserts one record of an account; whether it was new.
fn insert_record(
    c: &mut impl Db,
    account_id: i64,
    device_id: i64,
    r: &NewRecord,
    now: i64,
) -> Result<bool> {
    let n = c.execute(
        "INSERT INTO records (account_id, record_id, device_id, seat, played_at,
             rules, offline, record, uploaded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (account_id, record_id) DO NOTHING",
        args![
            account_id,
            &r.record_id,
            device_id,
            r.seat,
            r.played_at,
            &r.rules,
            r.offline,
            &r.json,
            now
        ],
    )?;
    Ok(n == 1)
}

impl<M> Store for SqlStore<M>
where
    M: ManageConnection<Error = StoreError>,
    M::Connection: Db,
{
    fn backend(&self) -> &'static str {
        <M::Connection as Db>::DIALECT.name()
    }

    fn put_challenge(&self, nonce: &str, expires_at: i64, now: i64) -> Result<()> {
        self.with(|c| {
            c.execute("DELETE FROM challenges WHERE expires_at <= $1", args![now])?;
            c.execute(
                "INSERT INTO challenges (nonce, expires_at) VALUES ($1, $2)",
                args![nonce, expires_at],
            )?;
            Ok(())
        })
    }

    fn take_challenge(&self, nonce: &str, now: i64) -> Result<bool> {
        let exp: Option<(i64,)> = self.row(
            "DELETE FROM challenges WHERE nonce = $1 RETURNING expires_at",
            args![nonce],
        )?;
        Ok(exp.is_some_and(|(e,)| e > now))
    }

    fn login_device(
        &self,
        public_key: &str,
        link_account: Option<i64>,
        new_account_name: &str,
        device_name: &str,
        now: i64,
    ) -> Result<LoginOutcome> {
        self.tx(|c| {
            let existing = c.row(
                concat!(
                    "SELECT ",
                    device_columns!(),
                    " FROM devices WHERE public_key = $1"
                ),
                args![public_key],
            )?;
            Ok(match existing.map(device) {
                Some(d) if d.revoked => LoginOutcome::Revoked,
                Some(mut d) if link_account.is_some_and(|a| a != d.account_id) => {
                    // A device may leave an account nothing else holds to: the one its own
                    // one-tap login made, never played, rated or sanctioned, with no other
                    // device. Anything more would be lost to its owner (or would slip a
                    // sanction): refused.
                    let others: i64 = c.value(
                        "SELECT count(*) FROM devices WHERE account_id = $1 AND id <> $2",
                        args![d.account_id, d.id],
                    )?;
                    let used: i64 = c.value(
                        "SELECT (SELECT count(*) FROM records WHERE account_id = $1)
                              + (SELECT count(*) FROM ratings WHERE account_id = $1)
                              + (SELECT count(*) FROM sanctions WHERE account_id = $1)
                              + (SELECT count(*) FROM tournament_entrants WHERE account_id = $1)",
                        args![d.account_id],
                    )?;
                    let fresh = others == 0 && used == 0;
                    match link_account {
                        Some(a) if fresh => {
                            c.execute(
                                "UPDATE devices SET account_id = $2, last_seen_at = $3 WHERE id = $1",
                                args![d.id, a, now],
                            )?;
                            d.account_id = a;
                            d.last_seen_at = now;
                            LoginOutcome::Moved(d)
                        }
                        _ => LoginOutcome::KeyInUse,
                    }
                }
                Some(mut d) => {
                    c.execute(
                        "UPDATE devices SET last_seen_at = $2 WHERE id = $1",
                        args![d.id, now],
                    )?;
                    d.last_seen_at = now;
                    LoginOutcome::Existing(d)
                }
                None => {
                    let account_id = match link_account {
                        Some(a) => a,
                        None => c.value(
                            "INSERT INTO accounts (display_name, created_at) VALUES ($1, $2)
                             RETURNING id",
                            args![new_account_name, now],
                        )?,
                    };
                    let id = c.value(
                        "INSERT INTO devices (account_id, public_key, name, created_at,
                             last_seen_at)
                         VALUES ($1, $2, $3, $4, $4) RETURNING id",
                        args![account_id, public_key, device_name, now],
                    )?;
                    LoginOutcome::Created(Device {
                        id,
                        account_id,
                        name: device_name.to_string(),
                        created_at: now,
                        last_seen_at: now,
                        revoked: false,
                    })
                }
            })
        })
    }

    fn create_session(
        &self,
        token_hash: &str,
        device_id: i64,
        now: i64,
        expires_at: i64,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO sessions (token_hash, device_id, created_at, expires_at)
                 VALUES ($1, $2, $3, $4)",
            args![token_hash, device_id, now, expires_at],
        )?;
        Ok(())
    }

    fn session(&self, token_hash: &str, now: i64) -> Result<Option<Session>> {
        let row: Option<(i64, i64)> = self.row(
            "SELECT d.account_id, d.id FROM sessions s JOIN devices d ON d.id = s.device_id
                 WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2
                   AND d.revoked_at IS NULL",
            args![token_hash, now],
        )?;
        Ok(row.map(|(account_id, device_id)| Session {
            account_id,
            device_id,
        }))
    }

    fn revoke_session(&self, token_hash: &str, now: i64) -> Result<()> {
        self.execute(
            "UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL",
            args![token_hash, now],
        )?;
        Ok(())
    }

    fn account(&self, id: i64) -> Result<Option<Account>> {
        let row: Option<(i64, String, i64)> = self.row(
            "SELECT id, display_name, created_at FROM accounts WHERE id = $1",
            args![id],
        )?;
        Ok(row.map(|(id, display_name, created_at)| Account {
            id,
            display_name,
            created_at,
        }))
    }

    fn devices(&self, account_id: i64) -> Result<Vec<Device>> {
        let rows = self.rows(
            concat!(
                "SELECT ",
                device_columns!(),
                " FROM devices WHERE account_id = $1 ORDER BY id"
            ),
            args![account_id],
        )?;
        Ok(rows.into_iter().map(device).collect())
    }

    fn revoke_device(&self, account_id: i64, device_id: i64, now: i64) -> Result<bool> {
        self.tx(|c| {
            // One statement finds the account's device and revokes it (keeping an earlier
            // revocation's time); it matches nothing when the device is another account's.
            let found = c.execute(
                "UPDATE devices SET revoked_at = coalesce(revoked_at, $3)
                 WHERE id = $1 AND account_id = $2",
                args![device_id, account_id, now],
            )? == 1;
            if found {
                c.execute(
                    "UPDATE sessions SET revoked_at = $2 WHERE device_id = $1 AND revoked_at IS NULL",
                    args![device_id, now],
                )?;
            }
            Ok(found)
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
            c.execute("DELETE FROM link_codes WHERE expires_at <= $1", args![now])?;
            c.execute(
                "INSERT INTO link_codes (code_hash, account_id, expires_at) VALUES ($1, $2, $3)",
                args![code_hash, account_id, expires_at],
            )?;
            Ok(())
        })
    }

    fn take_link_code(&self, code_hash: &str, now: i64) -> Result<Option<i64>> {
        let row: Option<(i64, i64)> = self.row(
            "DELETE FROM link_codes WHERE code_hash = $1 RETURNING account_id, expires_at",
            args![code_hash],
        )?;
        Ok(row.filter(|&(_, exp)| exp > now).map(|(a, _)| a))
    }

    fn store_hand(&self, people: &[(i64, i64, NewRecord)], now: i64) -> Result<()> {
        let mut order: Vec<&(i64, i64, NewRecord)> = people.iter().collect();
        // Accounts locked in one order: two hands of the same people never wait on each other.
        order.sort_by_key(|(account, _, _)| *account);
        self.tx(|c| {
            for (account, device, r) in order {
                lock_account(c, *account)?;
                insert_record(c, *account, *device, r, now)?;
            }
            Ok(())
        })
    }

    fn store_records(
        &self,
        account_id: i64,
        device_id: i64,
        records: &[NewRecord],
        now: i64,
    ) -> Result<Vec<bool>> {
        self.tx(|c| {
            lock_account(c, account_id)?;
            records
                .iter()
                .map(|r| insert_record(c, account_id, device_id, r, now))
                .collect()
        })
    }

    fn pull(
        &self,
        account_id: i64,
        exclude_device: i64,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<StoredRecord>> {
        let rows: Vec<(i64, String, i64, u8, i64, bool, String)> = self.rows(
            "SELECT seq, record_id, device_id, seat, played_at, offline, record FROM records
                 WHERE account_id = $1 AND device_id <> $2 AND seq > $3 ORDER BY seq LIMIT $4",
            args![account_id, exclude_device, after_seq, limit],
        )?;
        rows.into_iter()
            .map(|(seq, record_id, device_id, s, played_at, offline, json)| {
                Ok(StoredRecord {
                    seq,
                    record_id,
                    device_id,
                    seat: seat(s)?,
                    played_at,
                    offline,
                    json,
                })
            })
            .collect()
    }

    fn count_records(&self, account_id: i64) -> Result<u64> {
        let n: i64 = self.value(
            "SELECT count(*) FROM records WHERE account_id = $1",
            args![account_id],
        )?;
        Ok(n.max(0) as u64)
    }

    fn rating(&self, account_id: i64, rules: &str) -> Result<Option<StoredRating>> {
        let row: Option<(f64, f64, i64)> = self.row(
            "SELECT mu, sigma, games FROM ratings WHERE account_id = $1 AND rules = $2",
            args![account_id, rules],
        )?;
        Ok(row.map(|(mu, sigma, games)| StoredRating {
            account_id,
            rules: rules.to_string(),
            mu,
            sigma,
            games,
        }))
    }

    fn ratings(&self, account_id: i64) -> Result<Vec<StoredRating>> {
        let rows: Vec<(String, f64, f64, i64)> = self.rows(
            "SELECT rules, mu, sigma, games FROM ratings WHERE account_id = $1 ORDER BY rules",
            args![account_id],
        )?;
        Ok(rows
            .into_iter()
            .map(|(rules, mu, sigma, games)| StoredRating {
                account_id,
                rules,
                mu,
                sigma,
                games,
            })
            .collect())
    }

    fn put_ratings(&self, ratings: &[StoredRating], now: i64) -> Result<()> {
        self.tx(|c| {
            for r in ratings {
                c.execute(
                    "INSERT INTO ratings (account_id, rules, mu, sigma, games, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (account_id, rules) DO UPDATE SET
                        mu = excluded.mu, sigma = excluded.sigma, games = excluded.games,
                        updated_at = excluded.updated_at",
                    args![r.account_id, &r.rules, r.mu, r.sigma, r.games, now],
                )?;
            }
            Ok(())
        })
    }

    fn put_ranked_hand(&self, h: &RankedHand) -> Result<bool> {
        let think = serde_json::to_string(&h.think)
            .map_err(|e| StoreError::Backend(format!("think times: {e}")))?;
        let n = self.execute(
            "INSERT INTO ranked_hands (table_id, record_id, rules, seat0, seat1, seat2, seat3,
                     played_at, record, think)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (table_id, record_id) DO NOTHING",
            args![
                &h.table_id,
                &h.record_id,
                &h.rules,
                h.accounts[0],
                h.accounts[1],
                h.accounts[2],
                h.accounts[3],
                h.played_at,
                &h.json,
                &think
            ],
        )?;
        Ok(n == 1)
    }

    fn ranked_hands(
        &self,
        rules: &str,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<(i64, RankedHand)>> {
        type Seat = Option<i64>;
        type Row = (
            i64,
            String,
            String,
            Seat,
            Seat,
            Seat,
            Seat,
            i64,
            String,
            Option<String>,
        );
        let rows: Vec<Row> = self.rows(
            "SELECT seq, table_id, record_id, seat0, seat1, seat2, seat3, played_at, record, think
                 FROM ranked_hands WHERE rules = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            args![rules, after_seq, limit],
        )?;
        rows.into_iter()
            .map(
                |(seq, table_id, record_id, s0, s1, s2, s3, played_at, json, think)| {
                    let hand = RankedHand {
                        table_id,
                        record_id,
                        rules: rules.to_string(),
                        accounts: [s0, s1, s2, s3],
                        played_at,
                        json,
                        think: read_think(think.as_deref())?,
                    };
                    Ok((seq, hand))
                },
            )
            .collect()
    }

    fn put_table_home(&self, table_id: &str, node_url: &str, now: i64) -> Result<()> {
        self.execute(
            "INSERT INTO table_homes (table_id, node_url, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (table_id) DO UPDATE SET node_url = excluded.node_url",
            args![table_id, node_url, now],
        )?;
        Ok(())
    }

    fn table_home(&self, table_id: &str) -> Result<Option<String>> {
        let row: Option<(String,)> = self.row(
            "SELECT node_url FROM table_homes WHERE table_id = $1",
            args![table_id],
        )?;
        Ok(row.map(|(url,)| url))
    }

    fn move_table_home(&self, table_id: &str, from: &str, to: &str, now: i64) -> Result<bool> {
        self.tx(|c| {
            let moved = c.execute(
                "UPDATE table_homes SET node_url = $3 WHERE table_id = $1 AND node_url = $2",
                args![table_id, from, to],
            )? + c.execute(
                "INSERT INTO table_homes (table_id, node_url, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (table_id) DO NOTHING",
                args![table_id, to, now],
            )?;
            Ok(moved == 1)
        })
    }

    fn drop_table(&self, table_id: &str) -> Result<()> {
        self.tx(|c| {
            c.execute(
                "DELETE FROM table_homes WHERE table_id = $1",
                args![table_id],
            )?;
            c.execute("DELETE FROM rooms WHERE table_id = $1", args![table_id])?;
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
        self.tx(|c| {
            let n = c.execute(
                "INSERT INTO rooms (code, table_id, node_url, people, created_at)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (code) DO NOTHING",
                args![code, table_id, node_url, people, now],
            )?;
            if n == 1 {
                nodes::add_member(c, code, 0, owner)?;
            }
            Ok(n == 1)
        })
    }

    fn join_room(&self, code: &str, member: &RoomMember) -> Result<RoomJoin> {
        self.tx(|c| nodes::join_room(c, code, member))
    }

    fn room(&self, code: &str) -> Result<Option<StoredRoom>> {
        self.with(|c| nodes::load_room(c, "code", code))
    }

    fn room_of_table(&self, table_id: &str) -> Result<Option<StoredRoom>> {
        self.with(|c| nodes::load_room(c, "table_id", table_id))
    }

    fn queue_put(&self, entry: &QueueEntry, now_ms: i64) -> Result<()> {
        self.with(|c| nodes::queue_put(c, entry, now_ms))
    }

    fn queue_poll(&self, account_id: i64, ticket: &str, now_ms: i64) -> Result<QueueState> {
        self.tx(|c| nodes::queue_poll(c, account_id, ticket, now_ms))
    }

    fn queue_leave(&self, account_id: i64, ticket: &str) -> Result<()> {
        self.execute(
            "DELETE FROM queue WHERE account_id = $1 AND ticket = $2 AND table_id IS NULL",
            args![account_id, ticket],
        )?;
        Ok(())
    }

    fn queue_len(&self, rules: &str, ranked: bool) -> Result<u64> {
        let n: i64 = self.value(
            "SELECT count(*) FROM queue WHERE rules = $1 AND ranked = $2 AND table_id IS NULL",
            args![rules, ranked],
        )?;
        Ok(n.max(0) as u64)
    }

    fn queue_claim(
        &self,
        rules: &str,
        ranked: bool,
        stale_before_ms: i64,
        choose: &mut dyn FnMut(Vec<QueueEntry>) -> Vec<QueueClaim>,
    ) -> Result<Vec<QueueClaim>> {
        self.tx(|c| nodes::queue_claim(c, rules, ranked, stale_before_ms, choose))
    }
}
