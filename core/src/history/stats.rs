//! Statistics: read from running totals the database keeps as hands are stored.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{
    BiggestHand, FanFrequency, HandId, HistoryError, HistoryStats, HistoryStore, TOP_FANS, corrupt,
    schema,
};
use crate::game::Scorer;
use crate::rules::RuleSet;

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

    /// The player's statistics over the whole history, with the [`TOP_FANS`] most frequent
    /// fans (see [`HistoryStats`] for when fan figures are left out).
    pub fn stats(&self) -> Result<HistoryStats, HistoryError> {
        self.stats_for_with_top(None, TOP_FANS)
    }

    /// The player's statistics over the whole history, with the `top` most frequent fans.
    pub fn stats_with_top(&self, top: usize) -> Result<HistoryStats, HistoryError> {
        self.stats_for_with_top(None, top)
    }

    /// The player's statistics over the hands played under the rule set named `rules`
    /// (`None`: the whole history), with the [`TOP_FANS`] most frequent fans. A rule set with
    /// no hands gives zeros.
    pub fn stats_for(&self, rules: Option<&str>) -> Result<HistoryStats, HistoryError> {
        self.stats_for_with_top(rules, TOP_FANS)
    }

    /// The rule sets the history has hands of, most hands first.
    pub fn rules_played(&self) -> Result<Vec<String>, HistoryError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT rules FROM totals WHERE hands > 0 ORDER BY hands DESC, rules")
            .map_err(|e| self.err(e))?;
        st.query_map([], |r| r.get(0))
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// [`HistoryStore::stats_for`] with the `top` most frequent fans.
    ///
    /// Reads the running totals the database keeps per rule set as hands are stored (schema
    /// v4): the cost does not grow with the history.
    pub fn stats_for_with_top(
        &self,
        rules: Option<&str>,
        top: usize,
    ) -> Result<HistoryStats, HistoryError> {
        let e = |e| self.err(e);
        let rows: Vec<(String, [i64; 8])> = self
            .conn
            .prepare_cached(
                "SELECT rules, hands, wins, deal_ins, self_drawn_wins, draws, points,
                        win_fan_sum, win_fan_count
                 FROM totals WHERE ?1 IS NULL OR rules = ?1",
            )
            .and_then(|mut st| {
                st.query_map([rules], |r| {
                    let mut v = [0i64; 8];
                    for (i, x) in v.iter_mut().enumerate() {
                        *x = r.get(i + 1)?;
                    }
                    Ok((r.get(0)?, v))
                })?
                .collect()
            })
            .map_err(e)?;
        let mut sum = [0i64; 8];
        for (_, v) in &rows {
            for (s, x) in sum.iter_mut().zip(v) {
                *s = s.saturating_add(*x);
            }
        }
        let [
            hands,
            wins,
            deal_ins,
            self_drawn_wins,
            draws,
            total_points,
            fan_sum,
            fan_count,
        ] = sum;
        // Fan figures only within one way of scoring.
        let played: Vec<&str> = rows
            .iter()
            .filter(|(_, v)| v[0] > 0)
            .map(|(r, _)| r.as_str())
            .collect();
        let scorers: Vec<Option<Scorer>> = {
            let mut s: Vec<Option<Scorer>> = played.iter().map(|r| scorer_of(r)).collect();
            s.sort();
            s.dedup();
            s
        };
        let (one_family, scorer) = match (played.len(), scorers.as_slice()) {
            (1, [s]) => (true, *s),
            (_, [Some(s)]) => (true, Some(*s)),
            _ => (false, None),
        };
        // A history of one rule set reads that rule set's rows (the quick way: by index).
        let rules_read = match (rules, played.as_slice()) {
            (None, [only]) => Some(*only),
            _ => rules,
        };
        let (biggest, top_fans) = if one_family {
            (self.biggest(rules_read)?, self.top_fans(rules_read, top)?)
        } else {
            (None, Vec::new())
        };
        let u = |n: i64| n.max(0) as u64;
        let ratio = |a: i64, b: i64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        Ok(HistoryStats {
            rules: rules.map(str::to_string),
            scorer,
            hands: u(hands),
            wins: u(wins),
            deal_ins: u(deal_ins),
            self_drawn_wins: u(self_drawn_wins),
            draws: u(draws),
            win_rate: ratio(wins, hands),
            deal_in_rate: ratio(deal_ins, hands),
            self_draw_rate: ratio(self_drawn_wins, wins),
            average_win_fan: (one_family && fan_count > 0).then(|| ratio(fan_sum, fan_count)),
            biggest,
            top_fans,
            total_points,
        })
    }

    /// The player's biggest win under `rules` (`None`: any).
    fn biggest(&self, rules: Option<&str>) -> Result<Option<BiggestHand>, HistoryError> {
        let sql = match rules {
            Some(_) => {
                "SELECT id, fan_total FROM hands
                 WHERE won = 1 AND rules = ?1 AND fan_total IS NOT NULL
                 ORDER BY fan_total DESC, id LIMIT 1"
            }
            None => {
                "SELECT id, fan_total FROM hands
                 WHERE won = 1 AND fan_total IS NOT NULL AND ?1 IS NULL
                 ORDER BY fan_total DESC, id LIMIT 1"
            }
        };
        self.conn
            .prepare_cached(sql)
            .and_then(|mut st| {
                st.query_row([rules], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                    .optional()
            })
            .map_err(|e| self.err(e))?
            .map(|(id, total)| {
                u32::try_from(total)
                    .map(|total| BiggestHand {
                        id: HandId(id),
                        total,
                    })
                    .map_err(|_| corrupt(format!("hand {id}: fan total {total}")))
            })
            .transpose()
    }

    fn top_fans(&self, rules: Option<&str>, top: usize) -> Result<Vec<FanFrequency>, HistoryError> {
        let sql = match rules {
            // One rule set: its first entries in the ranked index.
            Some(_) => {
                "SELECT scorer, fan_id, wins, times, points FROM fan_totals
                 WHERE rules = ?1 AND wins > 0
                 ORDER BY wins DESC, times DESC, scorer, fan_id
                 LIMIT ?2"
            }
            // Several rule sets of one scorer: added up per fan.
            None => {
                "SELECT scorer, fan_id, sum(wins), sum(times), max(points)
                 FROM fan_totals WHERE ?1 IS NULL
                 GROUP BY scorer, fan_id HAVING sum(wins) > 0
                 ORDER BY 3 DESC, 4 DESC, scorer, fan_id
                 LIMIT ?2"
            }
        };
        let mut st = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let top = i64::try_from(top).unwrap_or(i64::MAX);
        let rows: Vec<FanTotalRow> = st
            .query_map(params![rules, top], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(scorer, id, wins, times, points)| {
                let scorer = Scorer::from_name(&scorer)
                    .ok_or_else(|| corrupt(format!("fan totals: scorer '{scorer}'")))?;
                let id = u8::try_from(id).map_err(|_| corrupt(format!("fan id {id}")))?;
                let (name, en) = fan_names(scorer, id);
                Ok(FanFrequency {
                    scorer,
                    id,
                    name,
                    en,
                    points: u32::try_from(points).unwrap_or(0),
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

/// A fan's running total as read: scorer, id, wins, times, points.
type FanTotalRow = (String, i64, i64, i64, i64);

/// The scorer of the preset named `rules`; `None` for a name this build has no preset of.
pub(super) fn scorer_of(rules: &str) -> Option<Scorer> {
    RuleSet::preset(rules).map(|r| {
        if r.hangzhou_scoring().is_some() {
            Scorer::Hangzhou
        } else {
            Scorer::Mcr
        }
    })
}

/// A fan's names for display, from the scorer's table (never from storage).
pub(super) fn fan_names(scorer: Scorer, id: u8) -> (String, String) {
    match scorer.fan_names(id) {
        Some((zh, en)) => (zh.to_string(), en.to_string()),
        None => (format!("{} fan {id}", scorer.name()), String::new()),
    }
}
