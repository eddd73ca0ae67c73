//! [`Discipline`]'s statements, written once for both engines (see `queries`).

use r2d2::ManageConnection;

use super::db::{Db, args, transaction};
use super::discipline::{Discipline, MatchToRate, NewSanction, RateMatch, Recompute};
use super::{
    AuditRow, MatchPlayer, NewReview, RankedHand, RankedMatch, Result, SqlStore, StoreError,
    StoredRating, StoredReview, StoredSanction, queries::read_think,
};

macro_rules! sanction_columns {
    () => {
        "id, account_id, device_id, kind, until, reason, void_from, created_at, created_by,
         lifted_at, lifted_by"
    };
}

type SanctionRow = (
    i64,
    i64,
    Option<i64>,
    String,
    Option<i64>,
    String,
    Option<i64>,
    i64,
    String,
    Option<i64>,
    Option<String>,
);

fn sanction(r: SanctionRow) -> StoredSanction {
    let (id, account_id, device_id, kind, until, reason, void_from, created_at, created_by) =
        (r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8);
    StoredSanction {
        id,
        account_id,
        device_id,
        kind,
        until,
        reason,
        void_from,
        created_at,
        created_by,
        lifted_at: r.9,
        lifted_by: r.10,
    }
}

macro_rules! review_columns {
    () => {
        "id, kind, account_id, partner_id, rules, status, evidence, created_at, updated_at,
         decided_at, decided_by, note"
    };
}

type ReviewRow = (
    i64,
    String,
    i64,
    Option<i64>,
    Option<String>,
    String,
    String,
    i64,
    i64,
    Option<i64>,
    Option<String>,
    Option<String>,
);

fn review(r: ReviewRow) -> StoredReview {
    StoredReview {
        id: r.0,
        kind: r.1,
        account_id: r.2,
        partner_id: r.3,
        rules: r.4,
        status: r.5,
        evidence: r.6,
        created_at: r.7,
        updated_at: r.8,
        decided_at: r.9,
        decided_by: r.10,
        note: r.11,
    }
}

/// Appends one audit row.
fn audit_row(
    c: &mut impl Db,
    now: i64,
    actor: &str,
    action: &str,
    account_id: Option<i64>,
    subject: &str,
    reason: &str,
) -> Result<()> {
    c.execute(
        "INSERT INTO audit_log (at, actor, action, account_id, subject, reason)
         VALUES ($1, $2, $3, $4, $5, $6)",
        args![now, actor, action, account_id, subject, reason],
    )?;
    Ok(())
}

fn read_rating(c: &mut impl Db, account_id: i64, rules: &str) -> Result<Option<StoredRating>> {
    Ok(c.row::<(f64, f64, i64)>(
        "SELECT mu, sigma, games FROM ratings WHERE account_id = $1 AND rules = $2",
        args![account_id, rules],
    )?
    .map(|(mu, sigma, games)| StoredRating {
        account_id,
        rules: rules.to_string(),
        mu,
        sigma,
        games,
    }))
}

fn write_ratings(c: &mut impl Db, ratings: &[StoredRating], now: i64) -> Result<()> {
    for r in ratings {
        c.execute(
            "INSERT INTO ratings (account_id, rules, mu, sigma, games, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (account_id, rules) DO UPDATE SET
                mu = excluded.mu, sigma = excluded.sigma, games = excluded.games,
                updated_at = excluded.updated_at",
            args![r.account_id, &r.rules, r.mu, r.sigma, r.games, now],
        )?;
    }
    Ok(())
}

fn load_matches(c: &mut impl Db, rules: &str) -> Result<Vec<RankedMatch>> {
    let heads: Vec<(i64, String, i64, Option<i64>)> = c.rows(
        "SELECT seq, table_id, finished_at, voided_by FROM ranked_matches
         WHERE rules = $1 ORDER BY seq",
        args![rules],
    )?;
    let people: Vec<(i64, i64, i64, f64, f64, i64)> = c.rows(
        "SELECT p.match_seq, p.account_id, p.score, p.mu, p.sigma, p.games
         FROM ranked_match_players p JOIN ranked_matches m ON m.seq = p.match_seq
         WHERE m.rules = $1 ORDER BY p.match_seq, p.pos",
        args![rules],
    )?;
    let mut people = people.into_iter().peekable();
    let mut out = Vec::with_capacity(heads.len());
    for (seq, table_id, finished_at, voided_by) in heads {
        let mut players = Vec::new();
        while let Some((_, account_id, score, mu, sigma, games)) = people.next_if(|p| p.0 == seq) {
            players.push(MatchPlayer {
                score,
                before: StoredRating {
                    account_id,
                    rules: rules.to_string(),
                    mu,
                    sigma,
                    games,
                },
            });
        }
        out.push(RankedMatch {
            seq,
            table_id,
            rules: rules.to_string(),
            finished_at,
            voided_by,
            players,
        });
    }
    Ok(out)
}

impl<M> Discipline for SqlStore<M>
where
    M: ManageConnection<Error = StoreError>,
    M::Connection: Db,
{
    fn device_account(&self, device_id: i64) -> Result<Option<i64>> {
        Ok(self
            .row::<(i64,)>(
                "SELECT account_id FROM devices WHERE id = $1",
                args![device_id],
            )?
            .map(|(a,)| a))
    }

    fn add_sanction(&self, s: &NewSanction, now: i64) -> Result<i64> {
        self.tx(|c| {
            let id: i64 = c.value(
                "INSERT INTO sanctions (account_id, device_id, kind, until, reason, void_from,
                     created_at, created_by)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                args![
                    s.account_id,
                    s.device_id,
                    &s.kind,
                    s.until,
                    &s.reason,
                    s.void_from,
                    now,
                    &s.by
                ],
            )?;
            let mut subject = format!("sanction {id}: {}", s.kind);
            if let Some(d) = s.device_id {
                subject.push_str(&format!(" on device {d}"));
            }
            if let Some(u) = s.until {
                subject.push_str(&format!(" until {u}"));
            }
            audit_row(
                c,
                now,
                &s.by,
                "sanction",
                Some(s.account_id),
                &subject,
                &s.reason,
            )?;
            Ok(id)
        })
    }

    fn sanction(&self, id: i64) -> Result<Option<StoredSanction>> {
        Ok(self
            .row(
                concat!(
                    "SELECT ",
                    sanction_columns!(),
                    " FROM sanctions WHERE id = $1"
                ),
                args![id],
            )?
            .map(sanction))
    }

    fn sanctions(&self, account_id: i64) -> Result<Vec<StoredSanction>> {
        let rows: Vec<SanctionRow> = self.rows(
            concat!(
                "SELECT ",
                sanction_columns!(),
                " FROM sanctions WHERE account_id = $1 ORDER BY id DESC"
            ),
            args![account_id],
        )?;
        Ok(rows.into_iter().map(sanction).collect())
    }

    fn blocking_sanction(
        &self,
        account_id: i64,
        device_id: Option<i64>,
        now: i64,
    ) -> Result<Option<StoredSanction>> {
        Ok(self
            .row(
                concat!(
                    "SELECT ",
                    sanction_columns!(),
                    " FROM sanctions
                     WHERE account_id = $1 AND lifted_at IS NULL
                       AND (kind = 'ban' OR (kind = 'suspend' AND until > $3))
                       AND (device_id IS NULL OR device_id = $2)
                     ORDER BY CASE kind WHEN 'ban' THEN 0 ELSE 1 END, until DESC, id
                     LIMIT 1"
                ),
                args![account_id, device_id, now],
            )?
            .map(sanction))
    }

    fn lift_sanction(
        &self,
        id: i64,
        by: &str,
        reason: &str,
        now: i64,
    ) -> Result<Option<(StoredSanction, bool)>> {
        self.tx(|c| {
            let lifted = c.execute(
                "UPDATE sanctions SET lifted_at = $2, lifted_by = $3
                 WHERE id = $1 AND lifted_at IS NULL",
                args![id, now, by],
            )? == 1;
            let Some(s) = c
                .row(
                    concat!(
                        "SELECT ",
                        sanction_columns!(),
                        " FROM sanctions WHERE id = $1"
                    ),
                    args![id],
                )?
                .map(sanction)
            else {
                return Ok(None);
            };
            if lifted {
                let subject = format!("sanction {id}: {} lifted", s.kind);
                audit_row(c, now, by, "lift", Some(s.account_id), &subject, reason)?;
            }
            Ok(Some((s, lifted)))
        })
    }

    fn rate_ranked_match(&self, m: &MatchToRate, rate: RateMatch<'_>) -> Result<Vec<StoredRating>> {
        self.with(|c| {
            transaction(c, |c| {
                if let Some(lock) = <M::Connection as Db>::DIALECT.ratings_lock() {
                    c.batch(lock)?;
                }
                let done: Option<(i64,)> = c.row(
                    "SELECT seq FROM ranked_matches WHERE table_id = $1",
                    args![&m.table_id],
                )?;
                if done.is_some() {
                    return Ok(Vec::new());
                }
                let people: Vec<(i64, i32)> =
                    m.seats.iter().filter_map(|&(a, s)| Some((a?, s))).collect();
                let mut now = Vec::with_capacity(people.len());
                for &(a, _) in &people {
                    now.push(read_rating(c, a, &m.rules)?);
                }
                let (before, after) = rate(now);
                if after.is_empty() {
                    return Ok(after);
                }
                let seq: i64 = c.value(
                    "INSERT INTO ranked_matches (table_id, rules, finished_at)
                     VALUES ($1, $2, $3) RETURNING seq",
                    args![&m.table_id, &m.rules, m.finished_at],
                )?;
                for (pos, (b, &(_, score))) in (0i64..).zip(before.iter().zip(&people)) {
                    c.execute(
                        "INSERT INTO ranked_match_players
                             (match_seq, pos, account_id, score, mu, sigma, games)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                        args![
                            seq,
                            pos,
                            b.account_id,
                            i64::from(score),
                            b.mu,
                            b.sigma,
                            b.games
                        ],
                    )?;
                }
                write_ratings(c, &after, m.finished_at)?;
                Ok(after)
            })
        })
    }

    fn ranked_matches(&self, rules: &str) -> Result<Vec<RankedMatch>> {
        self.with(|c| load_matches(c, rules))
    }

    fn void_matches(
        &self,
        sanction_id: i64,
        account_id: i64,
        from: i64,
        by: &str,
        recompute: Recompute<'_>,
        now: i64,
    ) -> Result<(u32, u32)> {
        self.with(|c| {
            transaction(c, |c| {
                if let Some(lock) = <M::Connection as Db>::DIALECT.ratings_lock() {
                    c.batch(lock)?;
                }
                let hit: Vec<(i64, String)> = c.rows(
                    "SELECT m.seq, m.rules FROM ranked_matches m
                     WHERE m.voided_by IS NULL AND m.finished_at >= $2
                       AND EXISTS (SELECT 1 FROM ranked_match_players p
                                   WHERE p.match_seq = m.seq AND p.account_id = $1)
                     ORDER BY m.seq",
                    args![account_id, from],
                )?;
                for (seq, _) in &hit {
                    c.execute(
                        "UPDATE ranked_matches SET voided_by = $2 WHERE seq = $1",
                        args![*seq, sanction_id],
                    )?;
                }
                let mut rule_sets: Vec<&str> = hit.iter().map(|(_, r)| r.as_str()).collect();
                rule_sets.sort_unstable();
                rule_sets.dedup();
                let mut written = 0u32;
                for rules in rule_sets {
                    let ratings = recompute(&load_matches(c, rules)?);
                    write_ratings(c, &ratings, now)?;
                    written += ratings.len() as u32;
                }
                let subject = format!(
                    "sanction {sanction_id}: {} ranked matches voided from {from}, {written} \
                     ratings recomputed",
                    hit.len()
                );
                audit_row(
                    c,
                    now,
                    by,
                    "void",
                    Some(account_id),
                    &subject,
                    "voided by a ban",
                )?;
                Ok((hit.len() as u32, written))
            })
        })
    }

    fn file_review(&self, r: &NewReview, actor: &str, now: i64) -> Result<(i64, bool)> {
        self.tx(|c| {
            let new: Option<(i64,)> = c.row(
                "INSERT INTO reviews (kind, dedupe, account_id, partner_id, rules, status,
                     evidence, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $7)
                 ON CONFLICT (dedupe) DO NOTHING RETURNING id",
                args![
                    &r.kind,
                    &r.dedupe,
                    r.account_id,
                    r.partner_id,
                    r.rules.as_deref(),
                    &r.evidence,
                    now
                ],
            )?;
            if let Some((id,)) = new {
                let subject = format!("review {id}: {} filed", r.kind);
                audit_row(
                    c,
                    now,
                    actor,
                    "file",
                    Some(r.account_id),
                    &subject,
                    &r.dedupe,
                )?;
                return Ok((id, true));
            }
            c.execute(
                "UPDATE reviews SET evidence = $2, updated_at = $3
                 WHERE dedupe = $1 AND status = 'open'",
                args![&r.dedupe, &r.evidence, now],
            )?;
            let id: i64 = c.value("SELECT id FROM reviews WHERE dedupe = $1", args![&r.dedupe])?;
            Ok((id, false))
        })
    }

    fn review(&self, id: i64) -> Result<Option<StoredReview>> {
        Ok(self
            .row(
                concat!("SELECT ", review_columns!(), " FROM reviews WHERE id = $1"),
                args![id],
            )?
            .map(review))
    }

    fn reviews(
        &self,
        status: Option<&str>,
        kind: Option<&str>,
        account_id: Option<i64>,
    ) -> Result<Vec<StoredReview>> {
        let rows: Vec<ReviewRow> = self.rows(
            concat!(
                "SELECT ",
                review_columns!(),
                " FROM reviews
                 WHERE (CAST($1 AS TEXT) IS NULL OR status = $1)
                   AND (CAST($2 AS TEXT) IS NULL OR kind = $2)
                   AND (CAST($3 AS BIGINT) IS NULL OR account_id = $3)
                 ORDER BY id"
            ),
            args![status, kind, account_id],
        )?;
        Ok(rows.into_iter().map(review).collect())
    }

    fn decide_review(
        &self,
        id: i64,
        status: &str,
        note: &str,
        by: &str,
        now: i64,
    ) -> Result<Option<(StoredReview, bool)>> {
        self.tx(|c| {
            let decided = c.execute(
                "UPDATE reviews SET status = $2, note = $3, decided_by = $4, decided_at = $5
                 WHERE id = $1 AND status = 'open'",
                args![id, status, note, by, now],
            )? == 1;
            let Some(r) = c
                .row(
                    concat!("SELECT ", review_columns!(), " FROM reviews WHERE id = $1"),
                    args![id],
                )?
                .map(review)
            else {
                return Ok(None);
            };
            if decided {
                let subject = format!("review {id}: {} {status}", r.kind);
                audit_row(c, now, by, "review", Some(r.account_id), &subject, note)?;
            }
            Ok(Some((r, decided)))
        })
    }

    fn audit(&self, account_id: Option<i64>) -> Result<Vec<AuditRow>> {
        type Row = (i64, i64, String, String, Option<i64>, String, String);
        let rows: Vec<Row> = self.rows(
            "SELECT id, at, actor, action, account_id, subject, reason FROM audit_log
             WHERE (CAST($1 AS BIGINT) IS NULL OR account_id = $1) ORDER BY id",
            args![account_id],
        )?;
        Ok(rows
            .into_iter()
            .map(
                |(id, at, actor, action, account_id, subject, reason)| AuditRow {
                    id,
                    at,
                    actor,
                    action,
                    account_id,
                    subject,
                    reason,
                },
            )
            .collect())
    }

    fn holds_online_hand(&self, account_id: i64, record_id: &str) -> Result<bool> {
        let row: Option<(i64,)> = self.row(
            "SELECT seq FROM records WHERE account_id = $1 AND record_id = $2 AND offline = $3",
            args![account_id, record_id, false],
        )?;
        Ok(row.is_some())
    }

    fn ranked_hand(&self, record_id: &str) -> Result<Option<RankedHand>> {
        type Seat = Option<i64>;
        type Row = (
            String,
            String,
            Seat,
            Seat,
            Seat,
            Seat,
            i64,
            String,
            Option<String>,
        );
        let row: Option<Row> = self.row(
            "SELECT table_id, rules, seat0, seat1, seat2, seat3, played_at, record, think
             FROM ranked_hands WHERE record_id = $1 ORDER BY seq LIMIT 1",
            args![record_id],
        )?;
        row.map(
            |(table_id, rules, s0, s1, s2, s3, played_at, json, think)| {
                Ok(RankedHand {
                    table_id,
                    record_id: record_id.to_string(),
                    rules,
                    accounts: [s0, s1, s2, s3],
                    played_at,
                    json,
                    think: read_think(think.as_deref())?,
                })
            },
        )
        .transpose()
    }
}
