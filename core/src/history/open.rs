//! Opening a history: what the file is, the journal mode, migrations; moving an unusable
//! file aside.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::{HistoryError, HistoryStore, SCHEMA_VERSION, schema};

/// How long a write waits for another process (the CLI reading while the app writes) before
/// giving up with an error.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl HistoryStore {
    /// Opens the history at `path`, creating the file (and missing parent directories) if
    /// absent, and migrating an older schema to the current one.
    ///
    /// Only a missing or empty file becomes a new history. A file that is not a history (not
    /// an SQLite database — even a 1-byte one —, or another program's database), a damaged
    /// one, or a history from a newer build is refused with an error and left exactly as it
    /// was ([`HistoryError::is_unusable_file`]; see [`HistoryStore::move_aside`]). A file or
    /// directory that cannot be written is refused with [`HistoryError::ReadOnly`].
    ///
    /// Durability: the database runs in WAL mode with `synchronous=NORMAL`. In WAL mode every
    /// COMMIT appends the transaction's pages to the `-wal` file with `write(2)` before it
    /// returns, so once [`HistoryStore::add_hand`] has returned the hand is in the operating
    /// system's page cache: killing the process (kill -9, the phone OS reaping the app, a
    /// crash) cannot take it back, and the next open recovers every committed transaction and
    /// ignores a half-written one. Hence kill -9 loses at most the hand being written, which
    /// `tests/history_kill.rs` checks. `FULL` would add an fsync of the WAL to every commit;
    /// that only matters for power loss or an OS crash, where NORMAL may roll back the last
    /// few commits (the file still never corrupts) — not worth a flash fsync per hand.
    pub fn open(path: impl AsRef<Path>) -> Result<HistoryStore, HistoryError> {
        let path = path.as_ref();
        let io = |p: &Path, source| HistoryError::Io {
            path: p.to_path_buf(),
            source,
        };
        if path.is_dir() {
            return Err(io(
                path,
                std::io::Error::new(std::io::ErrorKind::IsADirectory, "a directory, not a file"),
            ));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        check_file(path)?;
        // No URI interpretation: the path is a path.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| HistoryError::from_sqlite(e, Some(path)))?;
        // SQLite quietly opens a file it may not write read-only; a history that cannot take
        // the next hand must say so now, not lose the hands of a whole match.
        if conn
            .is_readonly(rusqlite::MAIN_DB)
            .map_err(|e| HistoryError::from_sqlite(e, Some(path)))?
        {
            return Err(HistoryError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        HistoryStore::setup(conn, Some(path.to_path_buf()))
    }

    /// A history that lives in memory only (tests, a guest session).
    pub fn open_in_memory() -> Result<HistoryStore, HistoryError> {
        let conn = Connection::open_in_memory().map_err(|e| HistoryError::from_sqlite(e, None))?;
        HistoryStore::setup(conn, None)
    }

    /// Checks what the file is before writing anything, then sets the journal mode and
    /// migrates to the current schema.
    fn setup(mut conn: Connection, path: Option<PathBuf>) -> Result<HistoryStore, HistoryError> {
        let err = |e| HistoryError::from_sqlite(e, path.as_deref());
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        // Read-only looks first: a garbage file fails here (SQLITE_NOTADB) untouched.
        let version = schema::user_version(&conn).map_err(err)?;
        if version > SCHEMA_VERSION {
            return Err(HistoryError::Newer {
                found: version,
                known: SCHEMA_VERSION,
            });
        }
        let app_id: i32 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .map_err(err)?;
        let foreign = || HistoryError::Foreign {
            path: path.clone().unwrap_or_else(|| PathBuf::from(":memory:")),
        };
        if version == 0 {
            let objects: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
                .map_err(err)?;
            if objects > 0 || (app_id != 0 && app_id != schema::APPLICATION_ID) {
                return Err(foreign());
            }
        } else if app_id != schema::APPLICATION_ID {
            return Err(foreign());
        }
        // See `open` for why WAL + NORMAL is enough for "kill -9 loses at most one hand".
        // (In memory the journal mode stays "memory".)
        let _mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(err)?;
        match schema::migrate(&mut conn, schema::MIGRATIONS, SCHEMA_VERSION).map_err(err)? {
            schema::Migrated::Done => {}
            schema::Migrated::Newer(found) => {
                return Err(HistoryError::Newer {
                    found,
                    known: SCHEMA_VERSION,
                });
            }
        }
        if path.is_some() {
            // Take the write lock once: in WAL mode this is where a `-wal` or `-shm` that
            // cannot be written (a read-only directory) shows.
            conn.execute_batch("BEGIN IMMEDIATE; COMMIT;")
                .map_err(err)?;
        }
        conn.set_prepared_statement_cache_capacity(32);
        Ok(HistoryStore { conn, path })
    }

    /// The file this history lives in (`None` in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version of the open database (always [`SCHEMA_VERSION`] once open).
    pub fn schema_version(&self) -> Result<u32, HistoryError> {
        schema::user_version(&self.conn).map_err(|e| self.err(e))
    }

    pub(super) fn err(&self, e: rusqlite::Error) -> HistoryError {
        HistoryError::from_sqlite(e, self.path.as_deref())
    }

    /// Renames a history file that cannot be used (corrupt, foreign, newer) to
    /// `<name>.corrupt-<unix time>` next to it — with its `-wal`, `-shm` and `-journal`
    /// companions, which belong to it — so the app can start a fresh history at `path`.
    /// Returns the new path. Nothing is deleted. Close every store on the file first.
    pub fn move_aside(path: impl AsRef<Path>) -> Result<PathBuf, HistoryError> {
        let path = path.as_ref();
        let io = |p: &Path, source| HistoryError::Io {
            path: p.to_path_buf(),
            source,
        };
        let Some(name) = path.file_name() else {
            return Err(HistoryError::Invalid(format!(
                "{} names no file",
                path.display()
            )));
        };
        if !path.exists() {
            return Err(io(path, std::io::Error::from(std::io::ErrorKind::NotFound)));
        }
        let now = crate::clock::unix_secs();
        const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];
        let with_suffix = |p: &Path, s: &str| {
            let mut o = p.as_os_str().to_os_string();
            o.push(s);
            PathBuf::from(o)
        };
        let mut n = 0u32;
        let target = loop {
            let mut t = name.to_os_string();
            t.push(format!(".corrupt-{now}"));
            if n > 0 {
                t.push(format!("-{n}"));
            }
            let candidate = path.with_file_name(t);
            let taken = candidate.exists()
                || COMPANIONS
                    .iter()
                    .any(|s| with_suffix(&candidate, s).exists());
            if !taken {
                break candidate;
            }
            n += 1;
        };
        std::fs::rename(path, &target).map_err(|e| io(path, e))?;
        for s in COMPANIONS {
            let from = with_suffix(path, s);
            if from.exists() {
                std::fs::rename(&from, with_suffix(&target, s)).map_err(|e| io(&from, e))?;
            }
        }
        Ok(target)
    }
}

/// The SQLite file header's first 16 bytes.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// What may become a history: a missing or empty file, or an SQLite database (whose own
/// header then says whose it is). Anything else — a text file, a 1-byte file, a truncated
/// header — is refused before SQLite sees it, since SQLite would take a file shorter than a
/// page for an empty database and write a new one over it. Also refuses a file or directory
/// marked read-only: hands saved there would be lost.
fn check_file(path: &Path) -> Result<(), HistoryError> {
    let io = |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    };
    let read_only = || HistoryError::ReadOnly {
        path: path.to_path_buf(),
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    if let Some(meta) = &meta {
        if meta.len() > 0 {
            let mut head = [0u8; 16];
            let mut f = std::fs::File::open(path).map_err(io)?;
            let n = read_up_to(&mut f, &mut head).map_err(io)?;
            let not = |reason: String| HistoryError::NotADatabase {
                path: path.to_path_buf(),
                reason,
            };
            let size = match meta.len() {
                1 => "1 byte".to_string(),
                n => format!("{n} bytes"),
            };
            if n < head.len() || &head != SQLITE_MAGIC {
                return Err(not(format!(
                    "it does not start with an SQLite header ({size})"
                )));
            }
            // The smallest database is one 512-byte page.
            if meta.len() < 512 {
                return Err(not(format!("an SQLite header cut short ({size})")));
            }
        }
        if meta.permissions().readonly() {
            return Err(read_only());
        }
    }
    // WAL mode keeps `-wal` and `-shm` files beside the database, created as needed. (Unix
    // only: elsewhere a directory's read-only attribute does not mean its files are.)
    #[cfg(unix)]
    {
        let dir = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(d) => d.to_path_buf(),
            None => PathBuf::from("."),
        };
        let dir_meta = std::fs::metadata(&dir).map_err(|e| HistoryError::Io {
            path: dir.clone(),
            source: e,
        })?;
        if dir_meta.permissions().readonly() {
            return Err(read_only());
        }
    }
    Ok(())
}

/// Reads until `buf` is full or the file ends; how many bytes were read.
fn read_up_to(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
