//! The server's store: one synchronous trait, one set of queries, two engines.
//!
//! The trait is synchronous on purpose: SQLite is synchronous anyway, the PostgreSQL backend
//! uses the synchronous client, and the handlers call the store on tokio's blocking pool
//! (where record verification, the heavy part of a sync, runs too). One implementation,
//! [`SqlStore`], serves both engines from an r2d2 pool of their connections: each statement
//! is written once (`queries`, `nodes`), each migration step once ([`migrations`]), and what the
//! engines do differently is said in one place (`db::Dialect`, `sqlite::to_sqlite`). One
//! test suite runs against both.
//!
//! Invariants the store keeps:
//! - challenges and link codes are single use: `take_*` deletes what it returns;
//! - session tokens and link codes are stored only as SHA-256 hashes;
//! - a record is stored once per account (`UNIQUE (account_id, record_id)`), so uploading the
//!   same batch twice changes nothing;
//! - record sequence numbers only grow, and a pull never misses a record committed before it:
//!   uploads for one account are serialized (SQLite: one writer; PostgreSQL: the account's
//!   row is locked), so sequence order is commit order within an account;
//! - several nodes may share the PostgreSQL store: a room admits at most `people` accounts
//!   (joins lock the room's row), and a queue row is claimed by one matcher run only (runs
//!   lock the rows they take and skip those another run holds), so no player is seated twice.

mod db;
mod discipline;
mod discipline_sql;
pub mod migrations;
mod nodes;
pub mod postgres;
mod queries;
pub mod sqlite;
mod tournament_nodes;
mod tournaments;

pub use discipline::{Discipline, MatchToRate, NewSanction, RateMatch, Recompute};
pub use queries::SqlStore;
pub use tournament_nodes::{TournamentMark, TournamentNodes};
pub use tournaments::{
    Entry, SeatLookup, StoredEntrant, StoredRound, StoredRoundTable, StoredTournament,
    TournamentRow, Tournaments,
};

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
    /// A link was asked for a key whose device belongs to an account it made and never used:
    /// the device now belongs to the link's account.
    Moved(Device),
    /// A link was asked for a key that already belongs to another account in use.
    KeyInUse,
}

/// A valid session's owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Session {
    pub account_id: i64,
    pub device_id: i64,
}

/// A verified record to store.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RankedHand {
    pub table_id: String,
    pub record_id: String,
    pub rules: String,
    /// The account in each of the record's seats (not the table's slots); `None` for a bot.
    pub accounts: [Option<i64>; 4],
    pub played_at: i64,
    /// The record as the core writes it.
    pub json: String,
    /// Each person's think time per decision they answered themselves (not their stand-in's
    /// moves): what the assist report reads. Empty for hands kept before schema v5.
    #[serde(default)]
    pub think: Vec<Think>,
}

/// How long a person took over one decision of a ranked hand: the decision of `seat` (the
/// record's seat) when the hand had `at` events, answered after `ms` milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Think {
    pub seat: u8,
    pub at: u32,
    pub ms: u32,
}

/// A sanction as kept (`kind`: `warn`, `suspend` or `ban`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSanction {
    pub id: i64,
    pub account_id: i64,
    pub device_id: Option<i64>,
    pub kind: String,
    pub until: Option<i64>,
    pub reason: String,
    pub void_from: Option<i64>,
    pub created_at: i64,
    pub created_by: String,
    pub lifted_at: Option<i64>,
    pub lifted_by: Option<String>,
}

/// One person of a rated ranked match: the slot's score and the rating before the match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchPlayer {
    pub score: i64,
    pub before: StoredRating,
}

/// A rated ranked match, in the order matches were rated.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedMatch {
    pub seq: i64,
    pub table_id: String,
    pub rules: String,
    pub finished_at: i64,
    /// The sanction that voided it.
    pub voided_by: Option<i64>,
    /// The people, in slot order.
    pub players: Vec<MatchPlayer>,
}

/// A review in the queue (`kind`: `report`, `collusion`, `assist`; `status`: `open`,
/// `dismissed`, `actioned`; `evidence`: JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredReview {
    pub id: i64,
    pub kind: String,
    pub account_id: i64,
    pub partner_id: Option<i64>,
    pub rules: Option<String>,
    pub status: String,
    pub evidence: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub decided_at: Option<i64>,
    pub decided_by: Option<String>,
    pub note: Option<String>,
}

/// A review to file: one per `dedupe` key (a flag found again updates its open review).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReview {
    pub kind: String,
    pub dedupe: String,
    pub account_id: i64,
    pub partner_id: Option<i64>,
    pub rules: Option<String>,
    pub evidence: String,
}

/// One row of the audit trail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRow {
    pub id: i64,
    pub at: i64,
    pub actor: String,
    pub action: String,
    pub account_id: Option<i64>,
    pub subject: String,
    pub reason: String,
}

/// A player admitted to a private room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomMember {
    pub account_id: i64,
    /// The address the player joined from (for the same-IP warning).
    pub ip: Option<String>,
    pub name: String,
}

/// A private room: its table lives on the node at `node_url`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoom {
    pub code: String,
    pub table_id: String,
    pub node_url: String,
    pub people: u8,
    /// Owner first, then in the order they were admitted.
    pub members: Vec<RoomMember>,
}

/// What asking to join a room found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoomJoin {
    NoRoom,
    /// Every invitation is taken (and the account is not among them).
    Full,
    /// The account is in (now or already).
    Admitted(StoredRoom),
}

/// A player waiting in the shared matchmaking queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueEntry {
    pub account_id: i64,
    /// The waiting request's own random ticket: a later request of the account replaces it.
    pub ticket: String,
    pub rules: String,
    pub ranked: bool,
    pub rating: f64,
    pub devices: Vec<i64>,
    pub ip: Option<String>,
    /// When the player queued (unix milliseconds).
    pub since_ms: i64,
}

/// A table a node's matcher seated: the accounts it claimed from the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueClaim {
    pub table_id: String,
    pub node_url: String,
    pub accounts: Vec<i64>,
}

/// A waiting request's view of its queue row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueueState {
    Waiting,
    /// Seated at `table_id` on the node at `node_url`, with `people` people (the row is gone).
    Seated {
        table_id: String,
        node_url: String,
        people: u8,
    },
    /// Another request of the account took its place.
    Replaced,
    /// No row: it went stale and a matcher dropped it.
    Gone,
}

/// The server's persistent state. All times are unix seconds passed in by the caller.
/// Sanctions, reviews, the audit trail and rated matches are [`Discipline`]'s.
pub trait Store: Send + Sync + Discipline + Tournaments + TournamentNodes {
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

    /// Stores an online hand's record for each of its people — (account, device, record) —
    /// in one transaction (a record an account already has is left as it is).
    fn store_hand(&self, people: &[(i64, i64, NewRecord)], now: i64) -> Result<()>;

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

    /// Notes which node runs a table, so a node asked for a table it does not run can send
    /// the player there.
    fn put_table_home(&self, table_id: &str, node_url: &str, now: i64) -> Result<()>;
    /// The URL of the node running the table, if any node noted it.
    fn table_home(&self, table_id: &str) -> Result<Option<String>>;
    /// Moves a table from the node at `from` (which stopped) to the node at `to`, only if its
    /// home is still `from` (or unnoted): of several nodes taking over one table at once,
    /// exactly one gets true.
    fn move_table_home(&self, table_id: &str, from: &str, to: &str, now: i64) -> Result<bool>;
    /// A table's match is over: forgets its home and its room (the code is free again).
    fn drop_table(&self, table_id: &str) -> Result<()>;

    /// Makes a room with its owner admitted; false if the code is taken (nothing changes).
    fn create_room(
        &self,
        code: &str,
        table_id: &str,
        node_url: &str,
        people: u8,
        owner: &RoomMember,
        now: i64,
    ) -> Result<bool>;
    /// Admits `member` while the room has a free invitation, in one transaction (two nodes
    /// admitting at once never exceed `people`).
    fn join_room(&self, code: &str, member: &RoomMember) -> Result<RoomJoin>;
    fn room(&self, code: &str) -> Result<Option<StoredRoom>>;
    /// The room whose table this is, if it is a room's.
    fn room_of_table(&self, table_id: &str) -> Result<Option<StoredRoom>>;

    /// Puts the account in the queue, replacing any row it had (waiting or seated).
    fn queue_put(&self, entry: &QueueEntry, now_ms: i64) -> Result<()>;
    /// The waiting request `ticket` looks at its row: a waiting row is marked seen at
    /// `now_ms`; a seated row is handed over once and deleted.
    fn queue_poll(&self, account_id: i64, ticket: &str, now_ms: i64) -> Result<QueueState>;
    /// The request `ticket` gave up: its row goes if still waiting.
    fn queue_leave(&self, account_id: i64, ticket: &str) -> Result<()>;
    /// Players waiting for `rules`/`ranked`.
    fn queue_len(&self, rules: &str, ranked: bool) -> Result<u64>;
    /// One matcher run over the shared queue, in one transaction: takes the waiting rows of
    /// `rules`/`ranked` no other matcher holds (rows not seen since `stale_before_ms` are
    /// deleted, their requests are gone), lets `choose` group them into tables, and marks
    /// the chosen players seated. A player is claimed by one run only, so never seated twice.
    fn queue_claim(
        &self,
        rules: &str,
        ranked: bool,
        stale_before_ms: i64,
        choose: &mut dyn FnMut(Vec<QueueEntry>) -> Vec<QueueClaim>,
    ) -> Result<Vec<QueueClaim>>;
}

/// Device ids as the queue stores them (comma-separated).
pub(crate) fn join_devices(devices: &[i64]) -> String {
    devices
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

pub(crate) fn parse_devices(text: &str) -> Result<Vec<i64>> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| StoreError::Corrupt(format!("device list '{text}'")))
        })
        .collect()
}

/// Opens the store a `--database` value names: `sqlite:PATH` (or a bare path) or
/// `postgres://...` / `postgresql://...` (`?sslmode=require` for TLS, with
/// `&sslrootcert=PATH` for a private CA: see [`postgres`]). Migrates it to this build's
/// schema.
pub fn open(database: &str) -> Result<Arc<dyn Store>> {
    if database.starts_with("postgres://") || database.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::open(database)?))
    } else {
        let path = database.strip_prefix("sqlite:").unwrap_or(database);
        Ok(Arc::new(sqlite::SqliteStore::open(path)?))
    }
}
