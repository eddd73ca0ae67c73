//! Versioned migrations, one list per backend. Step `k` (0-based) takes the schema from
//! version `k` to `k + 1`; steps are never edited once released, only appended, and the two
//! lists always have the same length and meaning. The applied version is kept in
//! `schema_migrations`; a database from a newer build is refused, never altered.

/// SQLite steps.
pub const SQLITE: &[&str] = &[
    // v1: accounts, devices (one Ed25519 key each), sessions and link codes (hashed),
    // login challenges, records.
    "CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        display_name TEXT NOT NULL,
        created_at INTEGER NOT NULL
     );
     CREATE TABLE devices (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        public_key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        revoked_at INTEGER
     );
     CREATE INDEX devices_account ON devices (account_id);
     CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        device_id INTEGER NOT NULL REFERENCES devices (id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER
     );
     CREATE INDEX sessions_device ON sessions (device_id);
     CREATE TABLE challenges (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
     CREATE INDEX challenges_expiry ON challenges (expires_at);
     CREATE TABLE link_codes (
        code_hash TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        expires_at INTEGER NOT NULL
     );
     -- AUTOINCREMENT: sequence numbers are pull cursors and must never be reused.
     CREATE TABLE records (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        record_id TEXT NOT NULL,
        device_id INTEGER NOT NULL REFERENCES devices (id),
        seat INTEGER NOT NULL,
        played_at INTEGER NOT NULL,
        rules TEXT NOT NULL,
        offline INTEGER NOT NULL,
        record TEXT NOT NULL,
        uploaded_at INTEGER NOT NULL,
        UNIQUE (account_id, record_id)
     );
     CREATE INDEX records_pull ON records (account_id, seq);",
    // v2: Weng-Lin ratings, one per account and rule set (see `crate::rating`).
    "CREATE TABLE ratings (
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        rules TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, rules)
     );",
    // v3: ranked history for the collusion report (see `crate::collusion`): each hand a
    // ranked table finished, with the account in each of the record's seats (NULL: a bot).
    "CREATE TABLE ranked_hands (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id TEXT NOT NULL,
        record_id TEXT NOT NULL,
        rules TEXT NOT NULL,
        seat0 INTEGER REFERENCES accounts (id),
        seat1 INTEGER REFERENCES accounts (id),
        seat2 INTEGER REFERENCES accounts (id),
        seat3 INTEGER REFERENCES accounts (id),
        played_at INTEGER NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (table_id, record_id)
     );
     CREATE INDEX ranked_hands_rules ON ranked_hands (rules, seq);",
    // v4: several nodes (see `crate::play::shared` and `crate::play::rooms`): each table's home node, private rooms by code
    // with their admitted players, and the one matchmaking queue every node reads.
    "CREATE TABLE table_homes (
        table_id TEXT PRIMARY KEY,
        node_url TEXT NOT NULL,
        created_at INTEGER NOT NULL
     );
     CREATE TABLE rooms (
        code TEXT PRIMARY KEY,
        table_id TEXT NOT NULL UNIQUE,
        node_url TEXT NOT NULL,
        people INTEGER NOT NULL,
        created_at INTEGER NOT NULL
     );
     CREATE TABLE room_players (
        code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
        pos INTEGER NOT NULL,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        ip TEXT,
        name TEXT NOT NULL,
        PRIMARY KEY (code, pos),
        UNIQUE (code, account_id)
     );
     CREATE TABLE queue (
        account_id INTEGER PRIMARY KEY REFERENCES accounts (id),
        ticket TEXT NOT NULL,
        rules TEXT NOT NULL,
        ranked INTEGER NOT NULL,
        rating REAL NOT NULL,
        devices TEXT NOT NULL,
        ip TEXT,
        since_ms INTEGER NOT NULL,
        seen_ms INTEGER NOT NULL,
        table_id TEXT,
        node_url TEXT,
        people INTEGER
     );
     CREATE INDEX queue_waiting ON queue (rules, ranked, since_ms);",
];

/// PostgreSQL steps (same meaning as [`SQLITE`]).
pub const POSTGRES: &[&str] = &[
    // v1
    "CREATE TABLE accounts (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        display_name TEXT NOT NULL,
        created_at BIGINT NOT NULL
     );
     CREATE TABLE devices (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        public_key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL,
        revoked_at BIGINT
     );
     CREATE INDEX devices_account ON devices (account_id);
     CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        device_id BIGINT NOT NULL REFERENCES devices (id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked_at BIGINT
     );
     CREATE INDEX sessions_device ON sessions (device_id);
     CREATE TABLE challenges (nonce TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
     CREATE INDEX challenges_expiry ON challenges (expires_at);
     CREATE TABLE link_codes (
        code_hash TEXT PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        expires_at BIGINT NOT NULL
     );
     CREATE TABLE records (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        record_id TEXT NOT NULL,
        device_id BIGINT NOT NULL REFERENCES devices (id),
        seat SMALLINT NOT NULL,
        played_at BIGINT NOT NULL,
        rules TEXT NOT NULL,
        offline BOOLEAN NOT NULL,
        record TEXT NOT NULL,
        uploaded_at BIGINT NOT NULL,
        UNIQUE (account_id, record_id)
     );
     CREATE INDEX records_pull ON records (account_id, seq);",
    // v2
    "CREATE TABLE ratings (
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        rules TEXT NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        games BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, rules)
     );",
    // v3
    "CREATE TABLE ranked_hands (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        table_id TEXT NOT NULL,
        record_id TEXT NOT NULL,
        rules TEXT NOT NULL,
        seat0 BIGINT REFERENCES accounts (id),
        seat1 BIGINT REFERENCES accounts (id),
        seat2 BIGINT REFERENCES accounts (id),
        seat3 BIGINT REFERENCES accounts (id),
        played_at BIGINT NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (table_id, record_id)
     );
     CREATE INDEX ranked_hands_rules ON ranked_hands (rules, seq);",
    // v4
    "CREATE TABLE table_homes (
        table_id TEXT PRIMARY KEY,
        node_url TEXT NOT NULL,
        created_at BIGINT NOT NULL
     );
     CREATE TABLE rooms (
        code TEXT PRIMARY KEY,
        table_id TEXT NOT NULL UNIQUE,
        node_url TEXT NOT NULL,
        people SMALLINT NOT NULL,
        created_at BIGINT NOT NULL
     );
     CREATE TABLE room_players (
        code TEXT NOT NULL REFERENCES rooms (code) ON DELETE CASCADE,
        pos SMALLINT NOT NULL,
        account_id BIGINT NOT NULL REFERENCES accounts (id),
        ip TEXT,
        name TEXT NOT NULL,
        PRIMARY KEY (code, pos),
        UNIQUE (code, account_id)
     );
     CREATE TABLE queue (
        account_id BIGINT PRIMARY KEY REFERENCES accounts (id),
        ticket TEXT NOT NULL,
        rules TEXT NOT NULL,
        ranked BOOLEAN NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        devices TEXT NOT NULL,
        ip TEXT,
        since_ms BIGINT NOT NULL,
        seen_ms BIGINT NOT NULL,
        table_id TEXT,
        node_url TEXT,
        people SMALLINT
     );
     CREATE INDEX queue_waiting ON queue (rules, ranked, since_ms);",
];

/// The schema version this build writes.
pub fn latest() -> i64 {
    debug_assert_eq!(SQLITE.len(), POSTGRES.len());
    SQLITE.len() as i64
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_backends_have_every_step() {
        assert_eq!(super::SQLITE.len(), super::POSTGRES.len());
    }
}
