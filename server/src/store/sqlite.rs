//! The SQLite backend: one file in WAL mode, behind a pool of one connection.
//!
//! One connection serializes every call, which is what keeps record sequence numbers in
//! commit order for pulls; SQLite allows one writer at a time anyway, and callers waiting in
//! the pool's queue are served in turn, where writers on several connections would poll
//! SQLite's busy handler. An in-memory database also lives exactly as long as its one
//! connection (the pool never retires it). Calls block: handlers make them on tokio's
//! blocking pool.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{CachedStatement, Connection, params_from_iter};

use super::db::{Arg, Cell, Db, Dialect};
use super::{Result, SqlStore, StoreError, migrations};

/// The store on SQLite.
pub type SqliteStore = SqlStore<Manager>;

impl SqlStore<Manager> {
    /// Opens (creating it and its directory if missing) and migrates the database at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Open(format!("{}: {e}", dir.display())))?;
        }
        let manager = Manager {
            path: Some(path.to_path_buf()),
        };
        // Opened here first: a bad path or a newer schema fails now with its own error
        // rather than as the pool's timeout.
        r2d2::ManageConnection::connect(&manager)?;
        SqliteStore::with_manager(manager)
    }

    /// A store in memory (tests).
    pub fn open_in_memory() -> Result<SqliteStore> {
        SqliteStore::with_manager(Manager { path: None })
    }

    fn with_manager(manager: Manager) -> Result<SqliteStore> {
        SqlStore::new(
            manager,
            r2d2::Pool::builder()
                .max_size(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .test_on_check_out(false),
        )
    }
}

/// Opens SQLite connections for the pool: set up and migrated.
#[derive(Debug)]
pub struct Manager {
    /// `None`: in memory.
    path: Option<PathBuf>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = StoreError;

    fn connect(&self) -> Result<Conn> {
        let conn = match &self.path {
            Some(path) => Connection::open(path)
                .map_err(|e| StoreError::Open(format!("{}: {e}", path.display())))?,
            None => Connection::open_in_memory()?,
        };
        conn.busy_timeout(Duration::from_secs(5))?;
        // WAL: readers never wait for the writer; NORMAL sync is durable across a process
        // kill (the failure the server must survive), fsyncing at checkpoints.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        // Room for every statement of the store (the default keeps 16).
        conn.set_prepared_statement_cache_capacity(64);
        let mut conn = Conn {
            conn,
            sql: HashMap::new(),
            broken: false,
        };
        migrations::run(&mut conn)?;
        Ok(conn)
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<()> {
        conn.batch("")
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.broken
    }
}

/// A SQLite connection with its statements translated once.
#[derive(Debug)]
pub struct Conn {
    conn: Connection,
    /// Each statement as written (PostgreSQL's dialect) and as SQLite reads it.
    sql: HashMap<String, String>,
    broken: bool,
}

impl Conn {
    fn prepare(&mut self, sql: &str) -> Result<CachedStatement<'_>> {
        if !self.sql.contains_key(sql) {
            self.sql.insert(sql.to_owned(), to_sqlite(sql));
        }
        Ok(self.conn.prepare_cached(&self.sql[sql])?)
    }
}

impl Db for Conn {
    const DIALECT: Dialect = Dialect::Sqlite;

    fn execute(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<u64> {
        let n = self.prepare(sql)?.execute(params_from_iter(args))?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Vec<Cell>>> {
        let mut st = self.prepare(sql)?;
        let columns = st.column_count();
        let mut rows = st.query(params_from_iter(args))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(
                (0..columns)
                    .map(|i| cell(row.get_ref(i)?))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        Ok(self.conn.execute_batch(sql)?)
    }

    fn set_broken(&mut self) {
        self.broken = true;
    }
}

fn cell(v: ValueRef<'_>) -> Result<Cell> {
    Ok(match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Int(i),
        ValueRef::Real(f) => Cell::Real(f),
        ValueRef::Text(t) => Cell::Text(
            std::str::from_utf8(t)
                .map_err(|e| StoreError::Corrupt(format!("text that is not UTF-8: {e}")))?
                .to_owned(),
        ),
        ValueRef::Blob(_) => return Err(StoreError::Corrupt("a blob where none is kept".into())),
    })
}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Arg::Null => ToSqlOutput::from(rusqlite::types::Null),
            Arg::Int(v) => ToSqlOutput::from(v),
            Arg::Real(v) => ToSqlOutput::from(v),
            Arg::Bool(v) => ToSqlOutput::from(v),
            Arg::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
        })
    }
}

/// A statement in PostgreSQL's dialect as SQLite reads it. `$N` becomes `?N` (SQLite would
/// take `$N` for a named parameter, numbered by first appearance, not by N). A trailing row
/// lock (`FOR UPDATE`, `FOR UPDATE SKIP LOCKED`) goes: SQLite has none and needs none, since
/// its transactions begin `IMMEDIATE` and so hold the whole database (see [`Dialect::begin`]).
pub fn to_sqlite(sql: &str) -> String {
    let mut body = sql.trim_end();
    for lock in ["FOR UPDATE SKIP LOCKED", "FOR UPDATE"] {
        if let Some(rest) = body.strip_suffix(lock) {
            body = rest.trim_end();
            break;
        }
    }
    let mut out = String::with_capacity(body.len());
    let mut quoted = false;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        quoted ^= c == '\'';
        let placeholder = c == '$' && !quoted && chars.peek().is_some_and(char::is_ascii_digit);
        out.push(if placeholder { '?' } else { c });
    }
    out
}

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

#[cfg(test)]
mod tests {
    use super::to_sqlite;

    #[test]
    fn statements_translate_to_sqlite() {
        assert_eq!(
            to_sqlite("UPDATE t SET a = $2 WHERE id = $1"),
            "UPDATE t SET a = ?2 WHERE id = ?1"
        );
        assert_eq!(
            to_sqlite("SELECT 1 FROM t WHERE code = $1 FOR UPDATE"),
            "SELECT 1 FROM t WHERE code = ?1"
        );
        assert_eq!(
            to_sqlite("SELECT a FROM queue\n ORDER BY since_ms FOR UPDATE SKIP LOCKED\n"),
            "SELECT a FROM queue\n ORDER BY since_ms"
        );
        // Only placeholders: not a dollar in a literal, nor one without a number.
        assert_eq!(
            to_sqlite("SELECT '$1', $10 || 'it''s $2', a$b"),
            "SELECT '$1', ?10 || 'it''s $2', a$b"
        );
    }
}
