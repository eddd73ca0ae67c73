//! Statistics: read from running totals the database keeps as hands are stored.

use rusqlite::{OptionalExtension, TransactionBehavior};

use super::{
    BiggestHand, FanFrequency, HandId, HistoryError, HistoryStats, HistoryStore, TOP_FANS, corrupt,
    schema,
};

impl HistoryStore {
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
    pub(super) fn statistics_add_up(&self) -> rusqlite::Result<bool> {
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
}

/// A fan's running total as read: id, wins, times, and its name, English name and points.
type FanTotalRow = (i64, i64, i64, Option<String>, Option<String>, Option<i64>);
