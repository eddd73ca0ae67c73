//! The server's store: one synchronous trait, two backends.
//!
//! The trait is synchronous on purpose: SQLite is synchronous anyway, the PostgreSQL backend
//! uses the synchronous client, and the handlers call the store on tokio's blocking pool
//! (where record verification, the heavy part of a sync, runs too). One trait object serves
//! both backends, and one test suite runs against both.
//!
//! Invariants every backend keeps:
//! - challenges and link codes are single use: `take_*` deletes what it returns;
//! - session tokens and link codes are stored only as SHA-256 hashes;
//! - a record is stored once per account (`UNIQUE (account_id, record_id)`), so uploading the
//!   same batch twice changes nothing;
//! - record sequence numbers only grow, and a pull never misses a record committed before it:
//!   uploads for one account are serialized (see each backend), so sequence order is commit
//!   order within an account.

pub mod migrations;
pub mod postgres;
pub mod sqlite;

use std::sync::Arc;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Backend(String),
    /// A concurrent writer won a race (a unique key); the request may be retried.
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("the database is at schema version {found}, newer than this build's {known}")]
    Newer { found: i64, known: i64 },
    #[error("cannot open the store: {0}")]
    Open(String),
    #[error("stored data does not read: {0}")]
    Corrupt(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// An account: one player, with any number of devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: i64,
    pub display_name: String,
    pub created_at: i64,
}

/// A device: one Ed25519 public key of an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub id: i64,
    pub account_id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_seen_at: i64,
    pub revoked: bool,
}

/// What a login found for a public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoginOutcome {
    /// The key belongs to this device.
    Existing(Device),
    /// A new device (and, without a link, a new account).
    Created(Device),
    /// The key's device was revoked: it never logs in again.
    Revoked,
    /// A link was asked for a key that already belongs to another account.
    KeyInUse,
}

/// A valid session's owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Session {
    pub account_id: i64,
    pub device_id: i64,
}

/// A verified record to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRecord {
    pub record_id: String,
    pub seat: u8,
    pub played_at: i64,
    pub rules: String,
    /// Played offline (against bots): kept, shown, never rated.
    pub offline: bool,
    /// The record as the core writes it.
    pub json: String,
}

/// A stored record as a pull returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRecord {
    pub seq: i64,
    pub record_id: String,
    pub device_id: i64,
    pub seat: u8,
    pub played_at: i64,
    pub offline: bool,
    pub json: String,
}

/// A player's rating in one rule set (Weng-Lin: `mu` the skill estimate, `sigma` its
/// uncertainty), and how many rated matches it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRating {
    pub account_id: i64,
    pub rules: String,
    pub mu: f64,
    pub sigma: f64,
    pub games: i64,
}

/// A hand a ranked table finished, kept for the collusion report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankedHand {
    pub table_id: String,
    pub record_id: String,
    pub rules: String,
    /// The account in each of the record's seats (not the table's slots); `None` for a bot.
    pub accounts: [Option<i64>; 4],
    pub played_at: i64,
    /// The record as the core writes it.
    pub json: String,
}

/// The server's persistent state. All times are unix seconds passed in by the caller.
pub trait Store: Send + Sync {
    /// "sqlite" or "postgres".
    fn backend(&self) -> &'static str;

    /// Keeps a login challenge until `expires_at` (and forgets expired ones).
    fn put_challenge(&self, nonce: &str, expires_at: i64, now: i64) -> Result<()>;
    /// Uses up a challenge: true if it existed and had not expired.
    fn take_challenge(&self, nonce: &str, now: i64) -> Result<bool>;

    /// The device of `public_key`, creating it when unknown: in `link_account` when given,
    /// else in a new account named `new_account_name`. One transaction.
    fn login_device(
        &self,
        public_key: &str,
        link_account: Option<i64>,
        new_account_name: &str,
        device_name: &str,
        now: i64,
    ) -> Result<LoginOutcome>;

    fn create_session(
        &self,
        token_hash: &str,
        device_id: i64,
        now: i64,
        expires_at: i64,
    ) -> Result<()>;
    /// The owner of a session that exists, is not revoked or expired, and whose device is not
    /// revoked.
    fn session(&self, token_hash: &str, now: i64) -> Result<Option<Session>>;
    fn revoke_session(&self, token_hash: &str, now: i64) -> Result<()>;

    fn account(&self, id: i64) -> Result<Option<Account>>;
    fn devices(&self, account_id: i64) -> Result<Vec<Device>>;
    /// Revokes a device of the account and all its sessions; false if the account has no
    /// such device.
    fn revoke_device(&self, account_id: i64, device_id: i64, now: i64) -> Result<bool>;

    fn put_link_code(
        &self,
        code_hash: &str,
        account_id: i64,
        expires_at: i64,
        now: i64,
    ) -> Result<()>;
    /// Uses up a link code: its account if it existed and had not expired.
    fn take_link_code(&self, code_hash: &str, now: i64) -> Result<Option<i64>>;

    /// Stores verified records in one transaction; per record, whether it was new (false:
    /// the account already had it).
    fn store_records(
        &self,
        account_id: i64,
        device_id: i64,
        records: &[NewRecord],
        now: i64,
    ) -> Result<Vec<bool>>;
    /// The account's records uploaded by other devices than `exclude_device`, with sequence
    /// numbers above `after_seq`, in order.
    fn pull(
        &self,
        account_id: i64,
        exclude_device: i64,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<StoredRecord>>;
    fn count_records(&self, account_id: i64) -> Result<u64>;

    /// The account's rating in `rules`; `None` before its first rated match.
    fn rating(&self, account_id: i64, rules: &str) -> Result<Option<StoredRating>>;
    /// The account's ratings in every rule set it was rated in, by rule set name.
    fn ratings(&self, account_id: i64) -> Result<Vec<StoredRating>>;
    /// Writes the ratings of one rated match in one transaction (all or none move).
    fn put_ratings(&self, ratings: &[StoredRating], now: i64) -> Result<()>;

    /// Keeps a ranked hand for the collusion report; false if this table's hand was already
    /// kept (storing it twice changes nothing).
    fn put_ranked_hand(&self, hand: &RankedHand) -> Result<bool>;
    /// Ranked hands of `rules` with sequence numbers above `after_seq`, in order, with their
    /// sequence numbers (the cursor of the next page).
    fn ranked_hands(
        &self,
        rules: &str,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<(i64, RankedHand)>>;
}

/// Opens the store a `--database` value names: `sqlite:PATH` (or a bare path) or
/// `postgres://...` / `postgresql://...`. Migrates it to this build's schema.
pub fn open(database: &str) -> Result<Arc<dyn Store>> {
    if database.starts_with("postgres://") || database.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::open(database)?))
    } else {
        let path = database.strip_prefix("sqlite:").unwrap_or(database);
        Ok(Arc::new(sqlite::SqliteStore::open(path)?))
    }
}
