//! Versioned migrations: one list for both engines. Step `k` (0-based) takes the schema from
//! version `k` to `k + 1`; steps are never edited once released, only appended. The applied
//! version is kept in `schema_migrations`; a database from a newer build is refused, never
//! altered.
//!
//! A step names its column types with the tokens below, which [`render`] replaces with each
//! engine's own (SQLite's text is byte for byte what the releases before this list wrote;
//! `tests/store_upgrade.rs` compares both engines' schemas with databases they made):
//!
//! | token     | SQLite                              | PostgreSQL                                       |
//! |-----------|-------------------------------------|--------------------------------------------------|
//! | `{id}`    | `INTEGER PRIMARY KEY`               | `BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY` |
//! | `{seq}`   | `INTEGER PRIMARY KEY AUTOINCREMENT` | `BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY` |
//! | `{int}`   | `INTEGER`                           | `BIGINT`                                         |
//! | `{small}` | `INTEGER`                           | `SMALLINT`                                       |
//! | `{real}`  | `REAL`                              | `DOUBLE PRECISION`                               |
//! | `{bool}`  | `INTEGER`                           | `BOOLEAN`                                        |
//!
//! `{seq}` is for pull cursors, which must never be reused: SQLite's `AUTOINCREMENT` never
//! hands out a deleted row's number again (a plain rowid may), PostgreSQL's identity never
//! goes back.
//!
//! The runner is our own (about 30 lines): the maintained ones (refinery, sqlx's migrator)
//! keep one SQL file per step and engine, which would write every step twice again, keep
//! their own history table where released databases have `schema_migrations`, and do not
//! take a lock for several nodes starting at once.

use super::db::{Db, Dialect, args, transaction};
use super::{Result, StoreError};

/// The history table, created before any step.
const HISTORY: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
            version {int} PRIMARY KEY, applied_at {int} NOT NULL)";

/// The steps, oldest first.
pub const STEPS: &[&str] = &[
    // v1: accounts, devices (one Ed25519 key each), sessions and link codes (hashed),
    // login challenges, records.
    "CREATE TABLE accounts (
        id {id},
        display_name TEXT NOT NULL,
        created_at {int} NOT NULL
     );
     CREATE TABLE devices (
        id {id},
        account_id {int} NOT NULL REFERENCES accounts (id),
        public_key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at {int} NOT NULL,
        last_seen_at {int} NOT NULL,
        revoked_at {int}
     );
     CREATE INDEX devices_account ON devices (account_id);
     CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        device_id {int} NOT NULL REFERENCES devices (id),
        created_at {int} NOT NULL,
        expires_at {int} NOT NULL,
        revoked_at {int}
     );
     CREATE INDEX sessions_device ON sessions (device_id);
     CREATE TABLE challenges (nonce TEXT PRIMARY KEY, expires_at {int} NOT NULL);
     CREATE INDEX challenges_expiry ON challenges (expires_at);
     CREATE TABLE link_codes (
        code_hash TEXT PRIMARY KEY,
        account_id {int} NOT NULL REFERENCES accounts (id),
        expires_at {int} NOT NULL
     );
     CREATE TABLE records (
        seq {seq},
        account_id {int} NOT NULL REFERENCES accounts (id),
        record_id TEXT NOT NULL,
        device_id {int} NOT NULL REFERENCES devices (id),
        seat {small} NOT NULL,
        played_at {int} NOT NULL,
        rules TEXT NOT NULL,
        offline {bool} NOT NULL,
        record TEXT NOT NULL,
        uploaded_at {int} NOT NULL,
        UNIQUE (account_id, record_id)
     );
     CREATE INDEX records_pull ON records (account_id, seq);",
    // v2: Weng-Lin ratings, one per account and rule set (see `crate::rating`).
    "CREATE TABLE ratings (
        account_id {int} NOT NULL REFERENCES accounts (id),
        rules TEXT NOT NULL,
        mu {real} NOT NULL,
        sigma {real} NOT NULL,
        games {int} NOT NULL,
        updated_at {int} NOT NULL,
        PRIMARY KEY (account_id, rules)
     );",
    // v3: ranked history for the collusion report (see `crate::collusion`): each hand a
    // ranked table finished, with the account in each of the record's seats (NULL: a bot).
    "CREATE TABLE ranked_hands (
        seq {seq},
        table_id TEXT NOT NULL,
        record_id TEXT NOT NULL,
        rules TEXT NOT NULL,
        seat0 {int} REFERENCES accounts (id),
        seat1 {int} REFERENCES accounts (id),
        seat2 {int} REFERENCES accounts (id),
        seat3 {int} REFERENCES accounts (id),
        played_at {int} NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (table_id, record_id)
     );
     CREATE INDEX ranked_hands_rules ON ranked_hands (rules, seq);",
    // v4: several nodes (see `crate::play::shared` and `crate::play::rooms`): each table's
    // home node, private rooms by code with their admitted players, and the one matchmaking
    // queue every node reads.
    "CREATE TABLE table_homes (
        table_id TEXT PRIMARY KEY,
        node_url TEXT NOT NULL,
        created_at {int} NOT NULL
     );
     CREATE TABLE rooms (
        code TEXT PRIMARY KEY,
        table_id TEXT NOT NULL UNIQUE,
        node_url TEXT NOT NULL,
        people {small} NOT NULL,
        created_at {int} NOT NULL
     );
     CREATE TABLE room_players (
        code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
        pos {small} NOT NULL,
        account_id {int} NOT NULL REFERENCES accounts (id),
        ip TEXT,
        name TEXT NOT NULL,
        PRIMARY KEY (code, pos),
        UNIQUE (code, account_id)
     );
     CREATE TABLE queue (
        account_id {int} PRIMARY KEY REFERENCES accounts (id),
        ticket TEXT NOT NULL,
        rules TEXT NOT NULL,
        ranked {bool} NOT NULL,
        rating {real} NOT NULL,
        devices TEXT NOT NULL,
        ip TEXT,
        since_ms {int} NOT NULL,
        seen_ms {int} NOT NULL,
        table_id TEXT,
        node_url TEXT,
        people {small}
     );
     CREATE INDEX queue_waiting ON queue (rules, ranked, since_ms);",
    // v5: cheating caught and punished (see `crate::sanctions`): sanctions on accounts and
    // device keys; every rated ranked match with each person's rating before it (ratings
    // are recomputed from these without voided matches); the review queue (reports and the
    // reports' flags, one row per `dedupe` key); the append-only audit trail; and each
    // person's think time per decision of a ranked hand (JSON, for the assist report).
    "CREATE TABLE sanctions (
        id {id},
        account_id {int} NOT NULL REFERENCES accounts (id),
        device_id {int} REFERENCES devices (id),
        kind TEXT NOT NULL,
        until {int},
        reason TEXT NOT NULL,
        void_from {int},
        created_at {int} NOT NULL,
        created_by TEXT NOT NULL,
        lifted_at {int},
        lifted_by TEXT
     );
     CREATE INDEX sanctions_account ON sanctions (account_id);
     CREATE TABLE ranked_matches (
        seq {seq},
        table_id TEXT NOT NULL UNIQUE,
        rules TEXT NOT NULL,
        finished_at {int} NOT NULL,
        voided_by {int} REFERENCES sanctions (id)
     );
     CREATE INDEX ranked_matches_rules ON ranked_matches (rules, seq);
     CREATE TABLE ranked_match_players (
        match_seq {int} NOT NULL REFERENCES ranked_matches (seq),
        pos {small} NOT NULL,
        account_id {int} NOT NULL REFERENCES accounts (id),
        score {int} NOT NULL,
        mu {real} NOT NULL,
        sigma {real} NOT NULL,
        games {int} NOT NULL,
        PRIMARY KEY (match_seq, pos)
     );
     CREATE INDEX ranked_match_players_account ON ranked_match_players (account_id);
     CREATE TABLE reviews (
        id {id},
        kind TEXT NOT NULL,
        dedupe TEXT NOT NULL UNIQUE,
        account_id {int} NOT NULL REFERENCES accounts (id),
        partner_id {int} REFERENCES accounts (id),
        rules TEXT,
        status TEXT NOT NULL,
        evidence TEXT NOT NULL,
        created_at {int} NOT NULL,
        updated_at {int} NOT NULL,
        decided_at {int},
        decided_by TEXT,
        note TEXT
     );
     CREATE INDEX reviews_status ON reviews (status, id);
     CREATE TABLE audit_log (
        id {seq},
        at {int} NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        account_id {int},
        subject TEXT NOT NULL,
        reason TEXT NOT NULL
     );
     CREATE INDEX audit_log_account ON audit_log (account_id, id);
     ALTER TABLE ranked_hands ADD COLUMN think TEXT;",
    // v6: tournaments, their entrants, each round's commitment and published record.
    "CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        code TEXT UNIQUE,
        settings TEXT NOT NULL,
        created_by {int},
        created_at {int} NOT NULL,
        node_url TEXT NOT NULL,
        status TEXT NOT NULL,
        standings TEXT
     );
     CREATE TABLE tournament_entrants (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        account_id {int} NOT NULL REFERENCES accounts (id),
        entered_at {int} NOT NULL,
        PRIMARY KEY (tournament_id, account_id)
     );
     CREATE TABLE tournament_rounds (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        round {int} NOT NULL,
        commitment TEXT NOT NULL,
        record TEXT,
        PRIMARY KEY (tournament_id, round)
     );",
    // v7: a tournament in play outlives its node and any node answers for it: who runs it
    // (a lease any node may take over), each entrant as seating needs him and the round he
    // was cut after, each round's secret (private until its record is published), seating,
    // seats and contributions, and each round table's node and progress.
    "ALTER TABLE tournaments ADD COLUMN runner_url TEXT;
     ALTER TABLE tournaments ADD COLUMN lease_until {int};
     ALTER TABLE tournament_entrants ADD COLUMN entrant {int};
     ALTER TABLE tournament_entrants ADD COLUMN device_id {int};
     ALTER TABLE tournament_entrants ADD COLUMN name TEXT;
     ALTER TABLE tournament_entrants ADD COLUMN devices TEXT;
     ALTER TABLE tournament_entrants ADD COLUMN ip TEXT;
     ALTER TABLE tournament_entrants ADD COLUMN out_after {int};
     CREATE INDEX tournament_entrants_number ON tournament_entrants (tournament_id, entrant);
     ALTER TABLE tournament_rounds ADD COLUMN secret TEXT;
     ALTER TABLE tournament_rounds ADD COLUMN seating TEXT;
     ALTER TABLE tournament_rounds ADD COLUMN seating_ms {real};
     CREATE TABLE tournament_tables (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        round {int} NOT NULL,
        table_no {int} NOT NULL,
        table_id TEXT NOT NULL,
        node_url TEXT NOT NULL,
        opened {bool} NOT NULL,
        progress TEXT,
        done {bool} NOT NULL,
        PRIMARY KEY (tournament_id, round, table_no)
     );
     CREATE INDEX tournament_tables_node ON tournament_tables (node_url, opened);
     CREATE TABLE tournament_seats (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        round {int} NOT NULL,
        entrant {int} NOT NULL,
        table_no {int},
        PRIMARY KEY (tournament_id, round, entrant)
     );
     CREATE TABLE tournament_contributions (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        round {int} NOT NULL,
        entrant {int} NOT NULL,
        contribution TEXT NOT NULL,
        PRIMARY KEY (tournament_id, round, entrant)
     );
     CREATE TABLE cluster_nodes (
        url TEXT PRIMARY KEY,
        seen_at {int} NOT NULL
     );",
];

/// The schema version this build writes.
pub fn latest() -> i64 {
    STEPS.len() as i64
}

/// A step in `dialect`'s column types.
pub fn render(step: &str, dialect: Dialect) -> String {
    let types: [(&str, &str); 6] = match dialect {
        Dialect::Sqlite => [
            ("{id}", "INTEGER PRIMARY KEY"),
            ("{seq}", "INTEGER PRIMARY KEY AUTOINCREMENT"),
            ("{int}", "INTEGER"),
            ("{small}", "INTEGER"),
            ("{real}", "REAL"),
            ("{bool}", "INTEGER"),
        ],
        Dialect::Postgres => [
            ("{id}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
            ("{seq}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
            ("{int}", "BIGINT"),
            ("{small}", "SMALLINT"),
            ("{real}", "DOUBLE PRECISION"),
            ("{bool}", "BOOLEAN"),
        ],
    };
    types
        .iter()
        .fold(step.to_string(), |sql, (token, ty)| sql.replace(token, ty))
}

/// Brings the database to [`latest`], in one transaction.
pub fn run<C: Db>(c: &mut C) -> Result<()> {
    let dialect = C::DIALECT;
    transaction(c, |c| {
        if let Some(lock) = dialect.schema_lock() {
            c.batch(lock)?;
        }
        c.batch(&render(HISTORY, dialect))?;
        let current: i64 = c.value(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            args![],
        )?;
        let known = latest();
        if current > known {
            return Err(StoreError::Newer {
                found: current,
                known,
            });
        }
        for (version, step) in (1i64..).zip(STEPS).skip(current.max(0) as usize) {
            c.batch(&render(step, dialect))?;
            c.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                args![version, crate::now()],
            )?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_replaced_in_both_dialects() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            for step in STEPS.iter().chain([&HISTORY]) {
                let sql = render(step, dialect);
                assert!(!sql.contains(['{', '}']), "{dialect:?}: {sql}");
            }
        }
        assert!(render(STEPS[0], Dialect::Postgres).contains("seat SMALLINT NOT NULL"));
        assert!(
            render(STEPS[0], Dialect::Sqlite).contains("seq INTEGER PRIMARY KEY AUTOINCREMENT")
        );
    }
}
