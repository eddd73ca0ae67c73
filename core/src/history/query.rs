//! Reading: hands, matches and records, from the summary columns (records only for replays).

use rusqlite::types::ValueRef;
use rusqlite::{Row, params};

use super::stats::fan_names;
use super::{
    HandEntry, HandId, HistoryError, HistoryStore, MatchEntry, MatchId, StoredFan, corrupt, seat_of,
};
use crate::game::{Game, Scorer};
use crate::record::{self, HandRecord, RecordId};

impl HistoryStore {
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
                    fan_total, match_id, record_id
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
                "SELECT scorer, fan_id, points, count FROM hand_fans WHERE hand_id = ?1
                 ORDER BY points DESC, scorer, fan_id",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<FanRow> = st
            .query_map([hand], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(scorer, id, points, count)| {
                let bad = |m: String| corrupt(format!("hand {hand}: {m}"));
                let scorer =
                    Scorer::from_name(&scorer).ok_or_else(|| bad(format!("scorer '{scorer}'")))?;
                let id = u8::try_from(id).map_err(|_| bad(format!("fan id {id}")))?;
                let (name, en) = fan_names(scorer, id);
                Ok(StoredFan {
                    scorer,
                    id,
                    name,
                    en,
                    points: u32::try_from(points)
                        .map_err(|_| bad(format!("fan {id} worth {points}")))?,
                    count: u32::try_from(count)
                        .map_err(|_| bad(format!("fan {id} counted {count} times")))?,
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

/// A fan of a hand as read: scorer, id, points, count.
type FanRow = (String, i64, i64, i64);

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
    record_id: Option<String>,
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
            record_id: r.get(11)?,
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
            record_id: self
                .record_id
                .map(|r| RecordId::parse(&r).map_err(bad))
                .transpose()?,
        })
    }
}
