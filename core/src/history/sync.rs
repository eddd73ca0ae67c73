//! Sync state: the outbox of hands to upload, and the pull cursor.
//!
//! Every hand played here goes into the outbox when it is stored (and every hand stored before
//! schema v4, which none were ever uploaded). A sync client lists the next few
//! ([`HistoryStore::pending_uploads`]), sends them, and marks what the server took
//! ([`HistoryStore::mark_uploaded`]) or refused ([`HistoryStore::mark_rejected`]). A refused
//! hand stays in the history and in the outbox with the server's reason, visible, and is not
//! sent again unless the player asks ([`HistoryStore::retry_rejected`]). Hands pulled from the
//! server come in through [`HistoryStore::import_synced`], deduplicated by record id, and
//! never go into the outbox. Where the last pull stopped is an opaque string the server gave
//! ([`HistoryStore::pull_cursor`]).

use rusqlite::{OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

use super::{HandId, HistoryError, HistoryStore, corrupt};
use crate::record::{HandRecord, RecordId};

/// The `sync_state` key of the pull cursor.
pub const PULL_CURSOR: &str = "pull_cursor";

/// A hand waiting to be uploaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PendingUpload {
    pub hand: HandId,
    pub record_id: RecordId,
    /// The record as this build writes it (records stored by older builds are upgraded).
    pub record_json: String,
}

/// A hand the server refused (or whose stored record cannot be read, so it cannot be sent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RejectedUpload {
    pub hand: HandId,
    /// `None` when the stored record does not read.
    pub record_id: Option<RecordId>,
    pub reason: String,
}

impl HistoryStore {
    /// The next `limit` hands to upload, oldest first.
    pub fn pending_uploads(&self, limit: u32) -> Result<Vec<PendingUpload>, HistoryError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT o.hand_id, h.record_id, r.record FROM outbox o
                 JOIN hands h ON h.id = o.hand_id
                 LEFT JOIN hand_records r ON r.hand_id = o.hand_id
                 WHERE o.rejected IS NULL
                 ORDER BY o.hand_id LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, Option<String>, Option<String>)> = st
            .query_map([limit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(hand, id, text)| {
                let bad = |reason: String| HistoryError::BadRecord { id: hand, reason };
                let id = id.ok_or_else(|| bad("queued for upload without a record id".into()))?;
                let record_id = RecordId::parse(&id).map_err(bad)?;
                let text = text.ok_or_else(|| bad("the record is missing".into()))?;
                let record = HandRecord::from_json(&text).map_err(|e| bad(e.to_string()))?;
                if record.id != record_id {
                    return Err(bad(format!(
                        "the record's id {} is not the hand's {record_id}",
                        record.id
                    )));
                }
                Ok(PendingUpload {
                    hand: HandId(hand),
                    record_id,
                    record_json: record.to_json(),
                })
            })
            .collect()
    }

    /// Hands waiting to be uploaded.
    pub fn count_pending_uploads(&self) -> Result<u64, HistoryError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM outbox WHERE rejected IS NULL",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
    }

    /// Takes the hands with these record ids out of the outbox: the server has them. Ids not
    /// waiting (unknown, already uploaded, refused) are skipped. Returns how many were marked.
    pub fn mark_uploaded(&mut self, ids: &[RecordId]) -> Result<u64, HistoryError> {
        let path = self.path.clone();
        let err = |e| HistoryError::from_sqlite(e, path.as_deref());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let mut marked = 0u64;
        {
            let mut st = tx
                .prepare_cached(
                    "DELETE FROM outbox WHERE rejected IS NULL
                     AND hand_id = (SELECT id FROM hands WHERE record_id = ?1)",
                )
                .map_err(err)?;
            for id in ids {
                marked += st.execute([id.as_str()]).map_err(err)? as u64;
            }
        }
        tx.commit().map_err(err)?;
        Ok(marked)
    }

    /// Marks the waiting hand with this record id as refused by the server, with its reason:
    /// it stays in the history and in the outbox, and is not offered for upload again.
    /// Returns whether a waiting hand was marked.
    pub fn mark_rejected(&mut self, id: &RecordId, reason: &str) -> Result<bool, HistoryError> {
        let reason = if reason.trim().is_empty() {
            "refused (no reason given)"
        } else {
            reason
        };
        self.conn
            .prepare_cached(
                "UPDATE outbox SET rejected = ?2 WHERE rejected IS NULL
                 AND hand_id = (SELECT id FROM hands WHERE record_id = ?1)",
            )
            .and_then(|mut st| st.execute(params![id.as_str(), reason]))
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// The refused hands, oldest first.
    pub fn rejected_uploads(
        &self,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<RejectedUpload>, HistoryError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT o.hand_id, h.record_id, o.rejected FROM outbox o
                 JOIN hands h ON h.id = o.hand_id
                 WHERE o.rejected IS NOT NULL
                 ORDER BY o.hand_id LIMIT ?1 OFFSET ?2",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, Option<String>, String)> = st
            .query_map([limit, offset], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(hand, id, reason)| {
                Ok(RejectedUpload {
                    hand: HandId(hand),
                    record_id: id
                        .map(|i| RecordId::parse(&i))
                        .transpose()
                        .map_err(|m| corrupt(format!("hand {hand}: {m}")))?,
                    reason,
                })
            })
            .collect()
    }

    /// Puts a refused hand back in line for upload (the player asked for it). Returns whether
    /// it was refused before; a hand without a readable record cannot be sent and stays.
    pub fn retry_rejected(&mut self, hand: HandId) -> Result<bool, HistoryError> {
        self.conn
            .prepare_cached(
                "UPDATE outbox SET rejected = NULL WHERE hand_id = ?1 AND rejected IS NOT NULL
                 AND (SELECT record_id FROM hands WHERE id = ?1) IS NOT NULL",
            )
            .and_then(|mut st| st.execute([hand.0]))
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// The stored hand with this record id, if any.
    pub fn hand_by_record(&self, id: &RecordId) -> Result<Option<HandId>, HistoryError> {
        self.conn
            .prepare_cached("SELECT id FROM hands WHERE record_id = ?1")
            .and_then(|mut st| st.query_row([id.as_str()], |r| r.get(0)).optional())
            .map(|id| id.map(HandId))
            .map_err(|e| self.err(e))
    }

    /// Where the last pull from the server stopped (the server's opaque cursor), if any.
    pub fn pull_cursor(&self) -> Result<Option<String>, HistoryError> {
        self.conn
            .prepare_cached("SELECT value FROM sync_state WHERE key = ?1")
            .and_then(|mut st| st.query_row([PULL_CURSOR], |r| r.get(0)).optional())
            .map_err(|e| self.err(e))
    }

    /// Stores the pull cursor (`None` forgets it: the next pull starts from the beginning).
    pub fn set_pull_cursor(&mut self, cursor: Option<&str>) -> Result<(), HistoryError> {
        let r = match cursor {
            Some(c) => self.conn.execute(
                "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![PULL_CURSOR, c],
            ),
            None => self
                .conn
                .execute("DELETE FROM sync_state WHERE key = ?1", [PULL_CURSOR]),
        };
        r.map(drop).map_err(|e| self.err(e))
    }
}
