//! The local hand history: every finished hand and match of one player, in SQLite.
//!
//! This is the store the terminal game writes and the phone apps open through FFI. Each hand
//! is kept whole — its [`HandRecord`], which replays and verifies itself — plus a row of
//! summary columns (when, which rules, the player's seat, won / dealt in / self-drawn, the
//! player's points, the win's fan total and fans) so that listings and statistics never parse
//! a record.
//!
//! Guarantees:
//! - One transaction per hand: a hand is stored whole or not at all, and `kill -9` at any
//!   moment loses at most the hand being written (see [`HistoryStore::open`] for why).
//! - The schema is versioned (`PRAGMA user_version`) and migrated one step at a time, each step
//!   in its own transaction; a database written by a newer build is refused, never altered.
//! - A corrupt file, another program's database or a newer history is never deleted or
//!   overwritten: the error says so, and [`HistoryStore::move_aside`] lets the app put it
//!   aside and start afresh.
//! - Nothing panics on bad input: damaged files, missing ids and garbage in a column come back
//!   as [`HistoryError`]s.

mod error;
mod schema;

pub use error::HistoryError;
pub use schema::SCHEMA_VERSION;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, TransactionBehavior, params};
use serde::Serialize;

use crate::game::Game;
use crate::record::{self, HandRecord, RECORD_VERSION};
use crate::seat::Seat;

/// How many fans [`HistoryStore::stats`] ranks.
pub const TOP_FANS: usize = 5;

/// How long a write waits for another process (the CLI reading while the app writes) before
/// giving up with an error.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A stored hand's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct HandId(pub i64);

/// A stored match's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct MatchId(pub i64);

/// A finished hand to store.
#[derive(Clone, Copy, Debug)]
pub struct NewHand<'a> {
    pub record: &'a HandRecord,
    /// The seat of the player whose history this is.
    pub seat: Seat,
    /// When the hand finished, in unix seconds (the caller's clock: the core reads none).
    pub played_at: i64,
    /// The match the hand belongs to, if any (it must exist).
    pub match_id: Option<MatchId>,
}

/// One fan of a stored win.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredFan {
    pub id: u8,
    /// Chinese name.
    pub name: String,
    /// English name.
    pub en: String,
    /// Points per occurrence.
    pub points: u32,
    pub count: u32,
}

/// A stored hand as listings show it (from the summary columns, without the record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HandEntry {
    pub id: HandId,
    pub played_at: i64,
    /// The rule set's name.
    pub rules: String,
    /// The player's seat.
    pub seat: Seat,
    /// Who won; `None` for a drawn hand.
    pub winner: Option<Seat>,
    /// The player won.
    pub won: bool,
    /// The player discarded the winning tile (or had a kong robbed).
    pub dealt_in: bool,
    /// The win (whoever won) was self-drawn.
    pub self_drawn: bool,
    /// The player's score change.
    pub points: i32,
    /// The win's fan total (flowers included); `None` for a drawn hand.
    pub fan_total: Option<u32>,
    /// The fans of the win, biggest first; empty for a drawn hand.
    pub fans: Vec<StoredFan>,
    pub match_id: Option<MatchId>,
}

/// A stored match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchEntry {
    pub id: MatchId,
    pub rules: String,
    /// The player's seat at the start (player `p` starts in seat `p`, so this is also the
    /// player's index in `final_scores`).
    pub seat: Seat,
    pub started_at: i64,
    /// `None` while the match is unfinished (or was abandoned).
    pub finished_at: Option<i64>,
    /// Final score per player, once finished.
    pub final_scores: Option<[i32; 4]>,
    /// Hands stored for this match.
    pub hands: u64,
    /// The player's wins among them.
    pub wins: u64,
    /// The player's points over those hands.
    pub points: i64,
}

/// The player's biggest win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BiggestHand {
    pub id: HandId,
    pub total: u32,
}

/// How often a fan came up in the player's wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FanFrequency {
    pub id: u8,
    pub name: String,
    pub en: String,
    pub points: u32,
    /// Wins that had it.
    pub wins: u64,
    /// Times it was counted over those wins (a fan may count more than once in one hand).
    pub times: u64,
}

/// The player's statistics over the whole history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryStats {
    pub hands: u64,
    pub wins: u64,
    /// Hands where the player discarded the winning tile (or had a kong robbed).
    pub deal_ins: u64,
    /// The player's wins on a self-drawn tile.
    pub self_drawn_wins: u64,
    /// Hands that ended with the wall exhausted (荒牌).
    pub draws: u64,
    /// wins / hands (0 with no hands).
    pub win_rate: f64,
    /// deal_ins / hands (0 with no hands).
    pub deal_in_rate: f64,
    /// self_drawn_wins / wins — the share of wins that were self-drawn (0 with no wins).
    pub self_draw_rate: f64,
    /// The average fan total of the player's wins; `None` with no wins.
    pub average_win_fan: Option<f64>,
    pub biggest: Option<BiggestHand>,
    /// The fans most often in the player's wins, most frequent first.
    pub top_fans: Vec<FanFrequency>,
    /// The player's points over every hand.
    pub total_points: i64,
}

/// The history: one SQLite database file (or an in-memory one for tests).
///
/// `Send`, not `Sync`: share it behind a `Mutex`. Several processes may open the same file;
/// writes wait up to a few seconds for each other.
pub struct HistoryStore {
    conn: Connection,
    /// `None` in memory.
    path: Option<PathBuf>,
}

// The FFI layer keeps a store in a Mutex shared between threads.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<HistoryStore>();
};

impl std::fmt::Debug for HistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl HistoryStore {
    /// Opens the history at `path`, creating the file (and missing parent directories) if
    /// absent, and migrating an older schema to the current one.
    ///
    /// A file that is not a database, another program's database, or a history from a newer
    /// build is refused with an error and left exactly as it was; see
    /// [`HistoryStore::move_aside`].
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
        // No URI interpretation: the path is a path.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| HistoryError::from_sqlite(e, Some(path)))?;
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

    fn err(&self, e: rusqlite::Error) -> HistoryError {
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
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
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

    /// Runs SQLite's consistency check over the whole file, and checks that the running
    /// statistics add up to the stored hands (slow on a big history: for a "repair" screen,
    /// not for every start).
    pub fn check_integrity(&self) -> Result<(), HistoryError> {
        let mut st = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.err(e))?;
        let problems: Vec<String> = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        if problems.len() != 1 || problems[0] != "ok" {
            return Err(HistoryError::Corrupt(problems.join("; ")));
        }
        if !self.statistics_add_up().map_err(|e| self.err(e))? {
            return Err(HistoryError::Corrupt(
                "the running statistics do not add up to the stored hands (rebuild_statistics recomputes them)"
                    .into(),
            ));
        }
        Ok(())
    }

    // ----- writing -----

    /// Stores a finished hand in one transaction and returns its id.
    pub fn add_hand(
        &mut self,
        record: &HandRecord,
        seat: Seat,
        played_at: i64,
        match_id: Option<MatchId>,
    ) -> Result<HandId, HistoryError> {
        let mut ids = self.import(&[NewHand {
            record,
            seat,
            played_at,
            match_id,
        }])?;
        ids.pop()
            .ok_or_else(|| HistoryError::Invalid("no hand was stored".into()))
    }

    /// Stores many hands in a single transaction (restoring a backup, a sync): all or none.
    pub fn import(&mut self, hands: &[NewHand]) -> Result<Vec<HandId>, HistoryError> {
        for h in hands {
            check_new_hand(h)?;
        }
        let path = self.path.clone();
        let err = |e| HistoryError::from_sqlite(e, path.as_deref());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let mut ids = Vec::with_capacity(hands.len());
        for h in hands {
            if let Some(m) = h.match_id {
                let exists = tx
                    .prepare_cached("SELECT 1 FROM matches WHERE id = ?1")
                    .and_then(|mut st| st.exists([m.0]))
                    .map_err(err)?;
                if !exists {
                    return Err(HistoryError::NotFound {
                        what: "match",
                        id: m.0,
                    });
                }
            }
            let s = Summary::of(h.record, h.seat);
            let json = h.record.to_json();
            let id = {
                let mut st = tx
                    .prepare_cached(
                        "INSERT INTO hands (played_at, rules, seat, winner, won, dealt_in,
                             self_drawn, points, fan_total, match_id)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    )
                    .map_err(err)?;
                st.execute(params![
                    h.played_at,
                    h.record.setup.rules.name,
                    h.seat.0,
                    s.winner.map(|w| w.0),
                    s.won,
                    s.dealt_in,
                    s.self_drawn,
                    s.points,
                    s.fan_total,
                    h.match_id.map(|m| m.0),
                ])
                .map_err(err)?;
                tx.last_insert_rowid()
            };
            tx.prepare_cached("INSERT INTO hand_records (hand_id, record) VALUES (?1, ?2)")
                .and_then(|mut st| st.execute(params![id, json]))
                .map_err(err)?;
            schema::insert_fans(&tx, id, h.record).map_err(err)?;
            ids.push(HandId(id));
        }
        tx.commit().map_err(err)?;
        Ok(ids)
    }

    /// Starts a match; hands attach to it with its id.
    pub fn start_match(
        &mut self,
        rules: &str,
        seat: Seat,
        started_at: i64,
    ) -> Result<MatchId, HistoryError> {
        check_seat(seat)?;
        self.conn
            .prepare_cached("INSERT INTO matches (rules, seat, started_at) VALUES (?1, ?2, ?3)")
            .and_then(|mut st| st.execute(params![rules, seat.0, started_at]))
            .map_err(|e| self.err(e))?;
        Ok(MatchId(self.conn.last_insert_rowid()))
    }

    /// Records a match's end and final score per player. A match finishes once.
    pub fn finish_match(
        &mut self,
        id: MatchId,
        final_scores: [i32; 4],
        finished_at: i64,
    ) -> Result<(), HistoryError> {
        let path = self.path.clone();
        let err = |e| HistoryError::from_sqlite(e, path.as_deref());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let finished: Option<Option<i64>> = tx
            .query_row(
                "SELECT finished_at FROM matches WHERE id = ?1",
                [id.0],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        match finished {
            None => {
                return Err(HistoryError::NotFound {
                    what: "match",
                    id: id.0,
                });
            }
            Some(Some(_)) => {
                return Err(HistoryError::Invalid(format!(
                    "match {} is already finished",
                    id.0
                )));
            }
            Some(None) => {}
        }
        let [a, b, c, d] = final_scores;
        tx.execute(
            "UPDATE matches SET finished_at = ?2, score0 = ?3, score1 = ?4, score2 = ?5, score3 = ?6
             WHERE id = ?1",
            params![id.0, finished_at, a, b, c, d],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    // ----- reading -----

    /// Hands stored.
    pub fn count_hands(&self) -> Result<u64, HistoryError> {
        self.conn
            .query_row("SELECT count(*) FROM hands", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
    }

    /// Matches stored.
    pub fn count_matches(&self) -> Result<u64, HistoryError> {
        self.conn
            .query_row("SELECT count(*) FROM matches", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
    }

    /// A page of hands, newest first (by `played_at`, then by id).
    pub fn list_hands(&self, offset: u32, limit: u32) -> Result<Vec<HandEntry>, HistoryError> {
        self.hands_where(
            "ORDER BY played_at DESC, id DESC LIMIT ?1 OFFSET ?2",
            params![limit, offset],
        )
    }

    /// The hands of a match, in the order they were stored.
    pub fn match_hands(&self, id: MatchId) -> Result<Vec<HandEntry>, HistoryError> {
        self.get_match(id)?;
        self.hands_where("WHERE match_id = ?1 ORDER BY id", params![id.0])
    }

    /// One hand's summary.
    pub fn get_hand(&self, id: HandId) -> Result<HandEntry, HistoryError> {
        self.hands_where("WHERE id = ?1", params![id.0])?
            .pop()
            .ok_or(HistoryError::NotFound {
                what: "hand",
                id: id.0,
            })
    }

    fn hands_where(
        &self,
        tail: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<HandEntry>, HistoryError> {
        let sql = format!(
            "SELECT id, played_at, rules, seat, winner, won, dealt_in, self_drawn, points,
                    fan_total, match_id
             FROM hands {tail}"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows: Vec<RawHand> = st
            .query_map(args, RawHand::read)
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|raw| {
                let fans = self.fans_of(raw.id)?;
                raw.entry(fans)
            })
            .collect()
    }

    fn fans_of(&self, hand: i64) -> Result<Vec<StoredFan>, HistoryError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT f.fan_id, f.count, n.name, n.en, n.points
                 FROM hand_fans f LEFT JOIN fan_names n ON n.fan_id = f.fan_id
                 WHERE f.hand_id = ?1
                 ORDER BY n.points DESC, f.fan_id",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<FanRow> = st
            .query_map([hand], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(id, count, name, en, points)| {
                let id = fan_id(id, hand)?;
                Ok(StoredFan {
                    id,
                    name: name.unwrap_or_else(|| format!("fan {id}")),
                    en: en.unwrap_or_default(),
                    points: points.and_then(|p| u32::try_from(p).ok()).unwrap_or(0),
                    count: u32::try_from(count).map_err(|_| {
                        corrupt(format!("hand {hand}: fan {id} counted {count} times"))
                    })?,
                })
            })
            .collect()
    }

    /// A page of matches, newest first.
    pub fn list_matches(&self, offset: u32, limit: u32) -> Result<Vec<MatchEntry>, HistoryError> {
        self.matches_where(
            "ORDER BY m.started_at DESC, m.id DESC LIMIT ?1 OFFSET ?2",
            params![limit, offset],
        )
    }

    /// One match.
    pub fn get_match(&self, id: MatchId) -> Result<MatchEntry, HistoryError> {
        self.matches_where("WHERE m.id = ?1", params![id.0])?
            .pop()
            .ok_or(HistoryError::NotFound {
                what: "match",
                id: id.0,
            })
    }

    fn matches_where(
        &self,
        tail: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<MatchEntry>, HistoryError> {
        let sql = format!(
            "SELECT m.id, m.rules, m.seat, m.started_at, m.finished_at,
                    m.score0, m.score1, m.score2, m.score3,
                    (SELECT count(*) FROM hands h WHERE h.match_id = m.id),
                    (SELECT coalesce(sum(h.won), 0) FROM hands h WHERE h.match_id = m.id),
                    (SELECT coalesce(sum(h.points), 0) FROM hands h WHERE h.match_id = m.id)
             FROM matches m {tail}"
        );
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map(args, |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    [
                        r.get::<_, Option<i32>>(5)?,
                        r.get::<_, Option<i32>>(6)?,
                        r.get::<_, Option<i32>>(7)?,
                        r.get::<_, Option<i32>>(8)?,
                    ],
                    r.get::<_, i64>(9)?,
                    r.get::<_, i64>(10)?,
                    r.get::<_, i64>(11)?,
                ))
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(
                |(id, rules, seat, started_at, finished_at, scores, hands, wins, points)| {
                    let final_scores = match scores {
                        [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
                        _ => None,
                    };
                    Ok(MatchEntry {
                        id: MatchId(id),
                        rules,
                        seat: seat_of(seat).map_err(|m| corrupt(format!("match {id}: {m}")))?,
                        started_at,
                        finished_at,
                        final_scores,
                        hands: hands.max(0) as u64,
                        wins: wins.max(0) as u64,
                        points,
                    })
                },
            )
            .collect()
    }

    /// The player's statistics, with the [`TOP_FANS`] most frequent fans.
    pub fn stats(&self) -> Result<HistoryStats, HistoryError> {
        self.stats_with_top(TOP_FANS)
    }

    /// The player's statistics, with the `top` most frequent fans.
    ///
    /// Reads the running totals the database keeps as hands are stored (schema v3): the cost
    /// does not grow with the history.
    pub fn stats_with_top(&self, top: usize) -> Result<HistoryStats, HistoryError> {
        let e = |e| self.err(e);
        let totals = self
            .conn
            .prepare_cached(
                "SELECT hands, wins, deal_ins, self_drawn_wins, draws, points, win_fan_sum,
                        win_fan_count
                 FROM totals WHERE id = 1",
            )
            .and_then(|mut st| {
                st.query_row([], |r| {
                    let mut v = [0i64; 8];
                    for (i, x) in v.iter_mut().enumerate() {
                        *x = r.get(i)?;
                    }
                    Ok(v)
                })
                .optional()
            })
            .map_err(e)?
            .ok_or_else(|| corrupt("the running statistics are missing".into()))?;
        let [
            hands,
            wins,
            deal_ins,
            self_drawn_wins,
            draws,
            total_points,
            fan_sum,
            fan_count,
        ] = totals;
        let biggest = self
            .conn
            .prepare_cached(
                "SELECT id, fan_total FROM hands
                 WHERE won = 1 AND fan_total IS NOT NULL
                 ORDER BY fan_total DESC, id LIMIT 1",
            )
            .and_then(|mut st| {
                st.query_row([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                    .optional()
            })
            .map_err(e)?
            .map(|(id, total)| {
                u32::try_from(total)
                    .map(|total| BiggestHand {
                        id: HandId(id),
                        total,
                    })
                    .map_err(|_| corrupt(format!("hand {id}: fan total {total}")))
            })
            .transpose()?;
        let top_fans = self.top_fans(top)?;
        let u = |n: i64| n.max(0) as u64;
        let ratio = |a: i64, b: i64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        Ok(HistoryStats {
            hands: u(hands),
            wins: u(wins),
            deal_ins: u(deal_ins),
            self_drawn_wins: u(self_drawn_wins),
            draws: u(draws),
            win_rate: ratio(wins, hands),
            deal_in_rate: ratio(deal_ins, hands),
            self_draw_rate: ratio(self_drawn_wins, wins),
            average_win_fan: (fan_count > 0).then(|| ratio(fan_sum, fan_count)),
            biggest,
            top_fans,
            total_points,
        })
    }

    fn top_fans(&self, top: usize) -> Result<Vec<FanFrequency>, HistoryError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT t.fan_id, t.wins, t.times, n.name, n.en, n.points
                 FROM fan_totals t LEFT JOIN fan_names n ON n.fan_id = t.fan_id
                 WHERE t.wins > 0
                 ORDER BY t.wins DESC, t.times DESC, t.fan_id
                 LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let top = i64::try_from(top).unwrap_or(i64::MAX);
        let rows: Vec<FanTotalRow> = st
            .query_map([top], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(id, wins, times, name, en, points)| {
                let id = u8::try_from(id).map_err(|_| corrupt(format!("fan id {id}")))?;
                Ok(FanFrequency {
                    id,
                    name: name.unwrap_or_else(|| format!("fan {id}")),
                    en: en.unwrap_or_default(),
                    points: points.and_then(|p| u32::try_from(p).ok()).unwrap_or(0),
                    wins: wins.max(0) as u64,
                    times: times.max(0) as u64,
                })
            })
            .collect()
    }

    /// Whether the running statistics add up to the stored hands (they always do unless the
    /// file was edited by hand or damaged).
    fn statistics_add_up(&self) -> rusqlite::Result<bool> {
        let differs = |a: &str, b: &str| -> rusqlite::Result<bool> {
            let sql = format!(
                "SELECT EXISTS (SELECT * FROM ({a}) EXCEPT SELECT * FROM ({b}))
                     OR EXISTS (SELECT * FROM ({b}) EXCEPT SELECT * FROM ({a}))"
            );
            self.conn.query_row(&sql, [], |r| r.get(0))
        };
        let totals = "SELECT * FROM totals";
        let fans = "SELECT * FROM fan_totals WHERE wins > 0";
        Ok(!differs(totals, schema::TOTALS_SELECT)? && !differs(fans, schema::FAN_TOTALS_SELECT)?)
    }

    /// Recomputes the running statistics from the stored hands (after
    /// [`HistoryStore::check_integrity`] found them out of step).
    pub fn rebuild_statistics(&mut self) -> Result<(), HistoryError> {
        let path = self.path.clone();
        let err = |e| HistoryError::from_sqlite(e, path.as_deref());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        tx.execute_batch(&format!(
            "DELETE FROM totals; INSERT INTO totals {};
             DELETE FROM fan_totals; INSERT INTO fan_totals {};",
            schema::TOTALS_SELECT,
            schema::FAN_TOTALS_SELECT
        ))
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    /// The full record of a stored hand.
    pub fn get_record(&self, id: HandId) -> Result<HandRecord, HistoryError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT h.id, r.record FROM hands h LEFT JOIN hand_records r ON r.hand_id = h.id WHERE h.id = ?1")
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([id.0]).map_err(|e| self.err(e))?;
        let Some(row) = rows.next().map_err(|e| self.err(e))? else {
            return Err(HistoryError::NotFound {
                what: "hand",
                id: id.0,
            });
        };
        let bad = |reason: &str| HistoryError::BadRecord {
            id: id.0,
            reason: reason.to_string(),
        };
        let text = match row.get_ref(1).map_err(|e| self.err(e))? {
            ValueRef::Text(b) | ValueRef::Blob(b) => {
                std::str::from_utf8(b).map_err(|_| bad("the record is not UTF-8 text"))?
            }
            ValueRef::Null => return Err(bad("the record is missing")),
            ValueRef::Integer(_) | ValueRef::Real(_) => {
                return Err(bad("the record is a number, not JSON"));
            }
        };
        let record = HandRecord::from_json(text).map_err(|reason| HistoryError::BadRecord {
            id: id.0,
            reason: reason.to_string(),
        })?;
        // A seat is any byte in JSON; the engine indexes by the dealer's seat, so a record
        // naming a fifth seat must stop here.
        if record.setup.dealer.0 > 3 {
            return Err(bad("the record's dealer is not a seat (0–3)"));
        }
        Ok(record)
    }

    /// Loads a stored hand and replays it, checking that it reproduces every event and the
    /// result; the finished game on success.
    pub fn replay(&self, id: HandId) -> Result<Game, HistoryError> {
        let record = self.get_record(id)?;
        record::replay(&record).map_err(|source| HistoryError::ReplayFailed { id: id.0, source })
    }
}

/// A fan of a hand as read: id, count, and its name, English name and points if known.
type FanRow = (i64, i64, Option<String>, Option<String>, Option<i64>);

/// A fan's running total as read: id, wins, times, and its name, English name and points.
type FanTotalRow = (i64, i64, i64, Option<String>, Option<String>, Option<i64>);

fn corrupt(m: String) -> HistoryError {
    HistoryError::Corrupt(m)
}

fn check_seat(seat: Seat) -> Result<(), HistoryError> {
    if seat.0 > 3 {
        return Err(HistoryError::Invalid(format!(
            "seat {} does not exist (seats are 0–3)",
            seat.0
        )));
    }
    Ok(())
}

fn check_new_hand(h: &NewHand) -> Result<(), HistoryError> {
    check_seat(h.seat)?;
    if h.record.version != RECORD_VERSION {
        return Err(HistoryError::Invalid(format!(
            "a version {} record cannot be stored (this build writes version {RECORD_VERSION})",
            h.record.version
        )));
    }
    let r = &h.record.result;
    if r.winner.is_some_and(|w| w.0 > 3) || r.discarder.is_some_and(|d| d.0 > 3) {
        return Err(HistoryError::Invalid(
            "the record names a seat outside 0–3".into(),
        ));
    }
    Ok(())
}

fn seat_of(v: i64) -> Result<Seat, String> {
    match u8::try_from(v) {
        Ok(s) if s <= 3 => Ok(Seat(s)),
        _ => Err(format!("seat {v} does not exist")),
    }
}

fn fan_id(v: i64, hand: i64) -> Result<u8, HistoryError> {
    u8::try_from(v).map_err(|_| corrupt(format!("hand {hand}: fan id {v}")))
}

/// The summary columns of a hand, from the player's side.
struct Summary {
    winner: Option<Seat>,
    won: bool,
    dealt_in: bool,
    self_drawn: bool,
    points: i32,
    fan_total: Option<u32>,
}

impl Summary {
    fn of(record: &HandRecord, seat: Seat) -> Summary {
        let r = &record.result;
        let won = r.winner == Some(seat);
        Summary {
            winner: r.winner,
            won,
            dealt_in: r.winner.is_some() && !won && r.discarder == Some(seat),
            self_drawn: r.winner.is_some() && r.self_drawn,
            points: r.deltas[seat.index()],
            fan_total: r.winner.and(r.score.as_ref()).map(|s| s.total),
        }
    }
}

/// A `hands` row as stored, before it is checked.
struct RawHand {
    id: i64,
    played_at: i64,
    rules: String,
    seat: i64,
    winner: Option<i64>,
    won: bool,
    dealt_in: bool,
    self_drawn: bool,
    points: i64,
    fan_total: Option<i64>,
    match_id: Option<i64>,
}

impl RawHand {
    fn read(r: &Row) -> rusqlite::Result<RawHand> {
        Ok(RawHand {
            id: r.get(0)?,
            played_at: r.get(1)?,
            rules: r.get(2)?,
            seat: r.get(3)?,
            winner: r.get(4)?,
            won: r.get(5)?,
            dealt_in: r.get(6)?,
            self_drawn: r.get(7)?,
            points: r.get(8)?,
            fan_total: r.get(9)?,
            match_id: r.get(10)?,
        })
    }

    fn entry(self, fans: Vec<StoredFan>) -> Result<HandEntry, HistoryError> {
        let id = self.id;
        let bad = |m: String| corrupt(format!("hand {id}: {m}"));
        Ok(HandEntry {
            id: HandId(id),
            played_at: self.played_at,
            rules: self.rules,
            seat: seat_of(self.seat).map_err(bad)?,
            winner: self.winner.map(seat_of).transpose().map_err(bad)?,
            won: self.won,
            dealt_in: self.dealt_in,
            self_drawn: self.self_drawn,
            points: i32::try_from(self.points)
                .map_err(|_| bad(format!("points {}", self.points)))?,
            fan_total: self
                .fan_total
                .map(|t| u32::try_from(t).map_err(|_| bad(format!("fan total {t}"))))
                .transpose()?,
            fans,
            match_id: self.match_id.map(MatchId),
        })
    }
}

#[cfg(test)]
mod tests;
