//! Writing: hands (one transaction each, or a batch all-or-nothing) and matches.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{HandId, HistoryError, HistoryStore, MatchId, NewHand, check_seat, schema};
use crate::record::{self, HandRecord, RECORD_VERSION};
use crate::seat::Seat;

impl HistoryStore {
    /// Stores a finished hand played on this device in one transaction, queues it for upload
    /// (see [`HistoryStore::pending_uploads`]), and returns its id.
    ///
    /// The record is verified first — replayed against the presets, its content id, every
    /// event and the result must come out the same — and a record that does not verify is
    /// refused ([`HistoryError::Unverified`], naming what differs) with nothing stored. A hand
    /// already stored (same record id) is not stored again: its id comes back, unless it was
    /// stored for another seat, which is an error.
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

    /// Stores many hands of this device in a single transaction (restoring a backup): all or
    /// none, each checked as [`HistoryStore::add_hand`] checks it, each queued for upload.
    pub fn import(&mut self, hands: &[NewHand]) -> Result<Vec<HandId>, HistoryError> {
        self.store(hands, Origin::Local)
    }

    /// Stores a hand that came from the sync server (played on another device, or on this
    /// one before a reinstall): verified like any other, never queued for upload. The same
    /// record twice is stored once; the existing hand's id comes back.
    pub fn import_synced(
        &mut self,
        record: &HandRecord,
        seat: Seat,
        played_at: i64,
    ) -> Result<HandId, HistoryError> {
        let mut ids = self.store(
            &[NewHand {
                record,
                seat,
                played_at,
                match_id: None,
            }],
            Origin::Synced,
        )?;
        ids.pop()
            .ok_or_else(|| HistoryError::Invalid("no hand was stored".into()))
    }

    fn store(&mut self, hands: &[NewHand], origin: Origin) -> Result<Vec<HandId>, HistoryError> {
        for h in hands {
            check_new_hand(h)?;
            record::replay(h.record).map_err(|source| HistoryError::Unverified {
                record_id: h.record.id.to_string(),
                source,
            })?;
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
            let existing: Option<(i64, i64)> = tx
                .prepare_cached("SELECT id, seat FROM hands WHERE record_id = ?1")
                .and_then(|mut st| {
                    st.query_row([h.record.id.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()
                })
                .map_err(err)?;
            if let Some((id, seat)) = existing {
                if seat != i64::from(h.seat.0) {
                    return Err(HistoryError::Invalid(format!(
                        "hand {} is already stored as hand {id}, for seat {seat}, not seat {}",
                        h.record.id, h.seat.0
                    )));
                }
                ids.push(HandId(id));
                continue;
            }
            let s = Summary::of(h.record, h.seat);
            let json = h.record.to_json();
            let id = {
                let mut st = tx
                    .prepare_cached(
                        "INSERT INTO hands (played_at, rules, seat, winner, won, dealt_in,
                             self_drawn, points, fan_total, match_id, record_id)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
                    h.record.id.as_str(),
                ])
                .map_err(err)?;
                tx.last_insert_rowid()
            };
            tx.prepare_cached("INSERT INTO hand_records (hand_id, record) VALUES (?1, ?2)")
                .and_then(|mut st| st.execute(params![id, json]))
                .map_err(err)?;
            schema::insert_fans(&tx, id, h.record).map_err(err)?;
            if origin == Origin::Local {
                tx.prepare_cached("INSERT INTO outbox (hand_id) VALUES (?1)")
                    .and_then(|mut st| st.execute([id]))
                    .map_err(err)?;
            }
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

/// Where a stored hand comes from: played here (to upload) or pulled from the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Local,
    Synced,
}

/// The summary columns of a hand, from the player's side.
pub(super) struct Summary {
    pub(super) winner: Option<Seat>,
    pub(super) won: bool,
    pub(super) dealt_in: bool,
    pub(super) self_drawn: bool,
    pub(super) points: i32,
    pub(super) fan_total: Option<u32>,
}

impl Summary {
    pub(super) fn of(record: &HandRecord, seat: Seat) -> Summary {
        let r = &record.result;
        let won = r.is_winner(seat);
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
