//! What can go wrong with the history, as typed errors with messages a player can act on.

use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

use crate::record::ReplayError;

/// Why a history operation failed. Nothing in the history panics on bad input: a damaged
/// file, a missing id or garbage in a column all come back as one of these.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The database was written by a later build; this one refuses to touch it.
    #[error(
        "this history was written by a newer version (schema v{found}, this build knows up to v{known}); \
         update the app, or move the file aside to start a new history"
    )]
    Newer { found: u32, known: u32 },

    /// The file is not an SQLite database at all, or its header is damaged.
    #[error(
        "{path} is not a tongcheng history (not an SQLite database, or a damaged one): {reason}; \
         it was left untouched"
    )]
    NotADatabase { path: PathBuf, reason: String },

    /// The file is an SQLite database, but another program's.
    #[error("{path} is an SQLite database but not a tongcheng hand history; it was left untouched")]
    Foreign { path: PathBuf },

    /// The file (or its directory, where the write-ahead log goes) cannot be written: hands
    /// could not be saved, so the history is not opened at all.
    #[error(
        "{path} cannot be written (a read-only file or directory), so no hand could be saved \
         there; make it writable or use another file"
    )]
    ReadOnly { path: PathBuf },

    /// SQLite found damage inside the database.
    #[error("the history database is damaged: {0}")]
    Corrupt(String),

    /// The file system refused: missing permissions, a full disk, a path that is a directory.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// No hand or match with that id.
    #[error("no {what} with id {id} in the history")]
    NotFound { what: &'static str, id: i64 },

    /// The stored record of a hand cannot be read back as a hand record.
    #[error("the stored record of hand {id} cannot be read: {reason}")]
    BadRecord { id: i64, reason: String },

    /// The stored record of a hand reads, but does not replay to what it says happened.
    #[error("the stored record of hand {id} does not verify: {source}")]
    ReplayFailed {
        id: i64,
        #[source]
        source: ReplayError,
    },

    /// A record given to store does not verify: nothing was stored.
    #[error("record {record_id} was refused, nothing was stored: it does not verify: {source}")]
    Unverified {
        record_id: String,
        #[source]
        source: ReplayError,
    },

    /// The caller passed something the history cannot store.
    #[error("{0}")]
    Invalid(String),

    /// Any other database failure (a lock held too long by another process, …).
    #[error("history database error: {0}")]
    Database(#[source] rusqlite::Error),
}

impl HistoryError {
    /// Classifies an SQLite failure on the database at `path` (`None`: in memory).
    pub(crate) fn from_sqlite(e: rusqlite::Error, path: Option<&Path>) -> HistoryError {
        let shown = || path.map_or_else(|| PathBuf::from(":memory:"), Path::to_path_buf);
        match &e {
            rusqlite::Error::SqliteFailure(f, msg) => {
                let reason = msg.clone().unwrap_or_else(|| f.to_string());
                match f.code {
                    ErrorCode::NotADatabase => HistoryError::NotADatabase {
                        path: shown(),
                        reason,
                    },
                    ErrorCode::DatabaseCorrupt => HistoryError::Corrupt(reason),
                    ErrorCode::ReadOnly => HistoryError::ReadOnly { path: shown() },
                    ErrorCode::CannotOpen
                    | ErrorCode::SystemIoFailure
                    | ErrorCode::DiskFull
                    | ErrorCode::PermissionDenied
                    | ErrorCode::NoLargeFileSupport => HistoryError::Io {
                        path: shown(),
                        source: std::io::Error::other(reason),
                    },
                    _ => HistoryError::Database(e),
                }
            }
            // A column holding something that is not what the schema says: damage, or a
            // hand-edited file.
            rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..) => {
                HistoryError::Corrupt(format!("unexpected value in the database: {e}"))
            }
            _ => HistoryError::Database(e),
        }
    }

    /// Whether the file itself is unusable (corrupt, foreign or newer): the app may offer to
    /// move it aside with [`super::HistoryStore::move_aside`] and start a new history.
    pub fn is_unusable_file(&self) -> bool {
        matches!(
            self,
            HistoryError::Newer { .. }
                | HistoryError::NotADatabase { .. }
                | HistoryError::Foreign { .. }
                | HistoryError::Corrupt(_)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_happened() {
        let e = HistoryError::Newer { found: 7, known: 2 };
        assert!(e.to_string().starts_with(
            "this history was written by a newer version (schema v7, this build knows up to v2)"
        ));
        assert!(e.is_unusable_file());
        let e = HistoryError::NotFound {
            what: "hand",
            id: 42,
        };
        assert_eq!(e.to_string(), "no hand with id 42 in the history");
        assert!(!e.is_unusable_file());
        let notadb = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_NOTADB),
            Some("file is not a database".into()),
        );
        let e = HistoryError::from_sqlite(notadb, Some(Path::new("/x/h.db")));
        assert!(matches!(e, HistoryError::NotADatabase { .. }), "{e:?}");
        assert!(e.to_string().contains("/x/h.db"));
        let corrupt = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            None,
        );
        assert!(matches!(
            HistoryError::from_sqlite(corrupt, None),
            HistoryError::Corrupt(_)
        ));
    }
}
