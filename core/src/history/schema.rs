//! The history's schema and its migrations.
//!
//! The schema version lives in `PRAGMA user_version`. Migration `k` (0-based) takes a database
//! from version `k` to `k + 1`; they run one step at a time, each in its own `BEGIN IMMEDIATE`
//! transaction that also bumps `user_version`, so a crash (or another process) can only ever
//! see a database at a whole version. A migration is append-only history: once shipped, a step
//! is never edited — a change is a new step.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use crate::game::{FanLine, Scorer};
use crate::record::{HandRecord, RecordId};

/// `PRAGMA application_id` of a tongcheng history: "TCMJ".
pub(crate) const APPLICATION_ID: i32 = 0x5443_4D4A;

/// One step of the schema.
pub(crate) struct Migration {
    /// What the step does, for humans.
    #[allow(dead_code)]
    pub what: &'static str,
    pub up: fn(&Transaction) -> rusqlite::Result<()>,
}

/// Every migration, oldest first. `MIGRATIONS[k]` goes from version `k` to `k + 1`.
pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        what: "hands with their summary columns, and their records",
        up: v1_hands,
    },
    Migration {
        what: "matches, and the fans of each win as a child table (backfilled from the records)",
        up: v2_matches_and_fans,
    },
    Migration {
        what: "running statistics kept by triggers; stored hands become append-only",
        up: v3_running_totals,
    },
    Migration {
        what: "record ids, fans keyed by scorer and id, statistics per rule set, sync outbox",
        up: v4_record_ids_stable_fans_outbox,
    },
    Migration {
        what: "fans of the Tongcheng scorer",
        up: v5_tongcheng_fans,
    },
];

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// v1: one row of summary per hand (compact, so statistics scan little), the record apart.
fn v1_hands(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "
        CREATE TABLE hands (
            id          INTEGER PRIMARY KEY,
            -- unix seconds, as given by the caller
            played_at   INTEGER NOT NULL,
            -- the rule set's name, e.g. guobiao
            rules       TEXT    NOT NULL,
            -- the seat of the player whose history this is
            seat        INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
            -- the winner's seat; NULL for a drawn hand
            winner      INTEGER CHECK (winner BETWEEN 0 AND 3),
            -- the player won / discarded the winning tile / the win was self-drawn
            won         INTEGER NOT NULL CHECK (won IN (0, 1)),
            dealt_in    INTEGER NOT NULL CHECK (dealt_in IN (0, 1)),
            self_drawn  INTEGER NOT NULL CHECK (self_drawn IN (0, 1)),
            -- the player's score change
            points      INTEGER NOT NULL,
            -- the winning hand's fan total; NULL for a drawn hand
            fan_total   INTEGER
        );
        CREATE INDEX hands_by_time ON hands (played_at DESC, id DESC);
        -- the player's wins, biggest first: the biggest hand is its first entry
        CREATE INDEX hands_wins ON hands (fan_total DESC, id) WHERE won = 1;
        -- the full record (JSON of HandRecord), apart so that summary scans stay small
        CREATE TABLE hand_records (
            hand_id  INTEGER PRIMARY KEY REFERENCES hands (id) ON DELETE CASCADE,
            record   TEXT NOT NULL
        );
        ",
    )?;
    tx.pragma_update(None, "application_id", APPLICATION_ID)
}

/// v2: matches (hands attach to one), and every win's fans as rows, so that "most frequent
/// fans" is a GROUP BY instead of parsing every record.
fn v2_matches_and_fans(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "
        CREATE TABLE matches (
            id           INTEGER PRIMARY KEY,
            rules        TEXT    NOT NULL,
            -- the player's seat when the match started (player p starts in seat p)
            seat         INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
            started_at   INTEGER NOT NULL,
            finished_at  INTEGER,
            -- final score per player, set when the match is finished
            score0       INTEGER,
            score1       INTEGER,
            score2       INTEGER,
            score3       INTEGER
        );
        CREATE INDEX matches_by_time ON matches (started_at DESC, id DESC);
        ALTER TABLE hands ADD COLUMN match_id INTEGER REFERENCES matches (id);
        CREATE INDEX hands_by_match ON hands (match_id, id) WHERE match_id IS NOT NULL;
        -- names as the records give them, so the history reads without the scorer's tables
        CREATE TABLE fan_names (
            fan_id  INTEGER PRIMARY KEY,
            name    TEXT    NOT NULL,
            en      TEXT    NOT NULL,
            points  INTEGER NOT NULL
        );
        -- the fans of each hand's win (whoever won it)
        CREATE TABLE hand_fans (
            hand_id  INTEGER NOT NULL REFERENCES hands (id) ON DELETE CASCADE,
            fan_id   INTEGER NOT NULL,
            count    INTEGER NOT NULL CHECK (count > 0),
            PRIMARY KEY (hand_id, fan_id)
        ) WITHOUT ROWID;
        ",
    )?;
    // Backfill from the records already stored. A record that does not parse gets no fan
    // rows (it will report itself as unreadable when it is opened); it must not stop the
    // migration, or one bad row would lock the player out of the whole history.
    let rows: Vec<(i64, String)> = {
        let mut st = tx.prepare(
            "SELECT r.hand_id, r.record FROM hand_records r JOIN hands h ON h.id = r.hand_id
             WHERE h.winner IS NOT NULL AND typeof(r.record) = 'text'",
        )?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    for (id, json) in rows {
        if let Ok(record) = HandRecord::from_json(&json) {
            v2_insert_fans(tx, id, &record)?;
        }
    }
    Ok(())
}

/// v3: the statistics as running totals, kept by triggers in the transaction that stores a
/// hand, so that [`super::HistoryStore::stats`] reads a few rows instead of scanning every
/// hand (scans cost ~20 ms per 100k hands per aggregate here, more on a phone). Totals can
/// only stay exact if what they add up never changes, so stored hands and their fans become
/// append-only — which they always were in meaning: records are immutable. Deleting hands,
/// if it is ever wanted, comes with a migration that also keeps the totals.
fn v3_running_totals(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(&format!(
        "
        CREATE TABLE totals (
            id               INTEGER PRIMARY KEY CHECK (id = 1),
            hands            INTEGER NOT NULL,
            wins             INTEGER NOT NULL,
            deal_ins         INTEGER NOT NULL,
            self_drawn_wins  INTEGER NOT NULL,
            draws            INTEGER NOT NULL,
            points           INTEGER NOT NULL,
            -- the sum of the fan totals of the player's wins, and how many wins it adds up
            win_fan_sum      INTEGER NOT NULL,
            win_fan_count    INTEGER NOT NULL
        );
        INSERT INTO totals {V3_TOTALS_SELECT};
        -- per fan: the player's wins that had it, and how many times it counted in them
        CREATE TABLE fan_totals (
            fan_id  INTEGER PRIMARY KEY,
            wins    INTEGER NOT NULL,
            times   INTEGER NOT NULL
        );
        INSERT INTO fan_totals {V3_FAN_TOTALS_SELECT};

        CREATE TRIGGER hands_add_to_totals AFTER INSERT ON hands BEGIN
            UPDATE totals SET
                hands = hands + 1,
                wins = wins + (NEW.won = 1),
                deal_ins = deal_ins + (NEW.dealt_in = 1),
                self_drawn_wins = self_drawn_wins + (NEW.won = 1 AND NEW.self_drawn = 1),
                draws = draws + (NEW.winner IS NULL),
                points = points + NEW.points,
                win_fan_sum = win_fan_sum + iif(NEW.won = 1, coalesce(NEW.fan_total, 0), 0),
                win_fan_count = win_fan_count + (NEW.won = 1 AND NEW.fan_total IS NOT NULL)
            WHERE id = 1;
        END;
        CREATE TRIGGER hand_fans_add_to_totals AFTER INSERT ON hand_fans
        WHEN (SELECT won FROM hands WHERE id = NEW.hand_id) = 1 BEGIN
            INSERT INTO fan_totals (fan_id, wins, times) VALUES (NEW.fan_id, 1, NEW.count)
            ON CONFLICT (fan_id) DO UPDATE SET wins = wins + 1, times = times + excluded.times;
        END;
        CREATE TRIGGER hands_are_immutable BEFORE UPDATE ON hands BEGIN
            SELECT RAISE(ABORT, 'stored hands are immutable');
        END;
        CREATE TRIGGER hands_are_kept BEFORE DELETE ON hands BEGIN
            SELECT RAISE(ABORT, 'stored hands are kept (this schema keeps running totals over them)');
        END;
        CREATE TRIGGER hand_fans_are_immutable BEFORE UPDATE ON hand_fans BEGIN
            SELECT RAISE(ABORT, 'stored hands are immutable');
        END;
        CREATE TRIGGER hand_fans_are_kept BEFORE DELETE ON hand_fans BEGIN
            SELECT RAISE(ABORT, 'stored hands are kept');
        END;
        CREATE TRIGGER hand_records_are_immutable BEFORE UPDATE ON hand_records BEGIN
            SELECT RAISE(ABORT, 'stored records are immutable');
        END;
        "
    ))
}

/// The row of `totals`, worked out from the hands themselves (v3).
const V3_TOTALS_SELECT: &str = "
    SELECT 1, count(*), coalesce(sum(won = 1), 0), coalesce(sum(dealt_in = 1), 0),
           coalesce(sum(won = 1 AND self_drawn = 1), 0), coalesce(sum(winner IS NULL), 0),
           coalesce(sum(points), 0),
           coalesce(sum(iif(won = 1, coalesce(fan_total, 0), 0)), 0),
           coalesce(sum(won = 1 AND fan_total IS NOT NULL), 0)
    FROM hands";

/// The rows of `fan_totals`, worked out from the hands themselves (v3).
const V3_FAN_TOTALS_SELECT: &str = "
    SELECT f.fan_id, count(*), sum(f.count)
    FROM hand_fans f JOIN hands h ON h.id = f.hand_id
    WHERE h.won = 1
    GROUP BY f.fan_id";

/// Writes the fan rows of a hand's win as schema v2 and v3 kept them (nothing for a drawn
/// hand). Only the v2 step uses it; v4 rebuilds these rows.
fn v2_insert_fans(conn: &Connection, hand_id: i64, record: &HandRecord) -> rusqlite::Result<()> {
    let Some(score) = record.result.score.as_ref() else {
        return Ok(());
    };
    if record.result.winner.is_none() {
        return Ok(());
    }
    let mut name = conn.prepare_cached(
        "INSERT INTO fan_names (fan_id, name, en, points) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (fan_id) DO UPDATE SET name = excluded.name, en = excluded.en,
             points = excluded.points
         WHERE name IS NOT excluded.name OR en IS NOT excluded.en OR points IS NOT excluded.points",
    )?;
    let mut fan =
        conn.prepare_cached("INSERT INTO hand_fans (hand_id, fan_id, count) VALUES (?1, ?2, ?3)")?;
    // One row per fan: a breakdown listing a fan twice counts it twice.
    let mut merged: Vec<(&FanLine, u32)> = Vec::with_capacity(score.fans.len());
    for f in score.fans.iter().filter(|f| f.count > 0) {
        match merged.iter_mut().find(|(m, _)| m.id == f.id) {
            Some((_, n)) => *n = n.saturating_add(f.count),
            None => merged.push((f, f.count)),
        }
    }
    for (f, count) in merged {
        name.execute(params![f.id, f.name(), f.en(), f.points])?;
        fan.execute(params![hand_id, f.id, count])?;
    }
    Ok(())
}

/// v4: what sync needs, and keys that do not collide.
///
/// - Every hand gets its record's content id (`record_id`, unique), read from the stored
///   record (upgraded from version 1 where needed). A record that does not read gets none and
///   is reported in the outbox as refused, with the reason; a second copy of a hand already
///   stored keeps none (it is the same hand, and the first copy carries the id).
/// - Fan rows are keyed by (scorer, fan id), rebuilt from the records: before v4 a Hangzhou
///   element's id was its list position, so id 1 read both as 爆头 and as 大四喜. Names are no
///   longer stored; they are looked up in the scorer's tables for display (`fan_names` goes).
/// - Running totals per rule set (`totals` and `fan_totals` keyed by the rules' name), so the
///   statistics of one rule set never count another's hands, and fans never mix scorers.
/// - The outbox: hands not yet uploaded (every hand stored before v4 is), those the server
///   refused with its reason; and `sync_state` for the pull cursor.
fn v4_record_ids_stable_fans_outbox(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "
        DROP TRIGGER hands_add_to_totals;
        DROP TRIGGER hand_fans_add_to_totals;
        DROP TRIGGER hand_fans_are_immutable;
        DROP TRIGGER hand_fans_are_kept;
        DROP TRIGGER hands_are_immutable;
        DROP TABLE totals;
        DROP TABLE fan_totals;
        DROP TABLE hand_fans;
        DROP TABLE fan_names;
        -- the record's content id (64 hex digits); NULL when the record does not read
        ALTER TABLE hands ADD COLUMN record_id TEXT;
        -- the fans of each hand's win (whoever won it), by stable key
        CREATE TABLE hand_fans (
            hand_id  INTEGER NOT NULL REFERENCES hands (id) ON DELETE CASCADE,
            scorer   TEXT    NOT NULL CHECK (scorer IN ('mcr', 'hangzhou')),
            fan_id   INTEGER NOT NULL CHECK (fan_id BETWEEN 0 AND 255),
            -- points per occurrence (Hangzhou: the element's factor or fans)
            points   INTEGER NOT NULL,
            count    INTEGER NOT NULL CHECK (count > 0),
            PRIMARY KEY (hand_id, scorer, fan_id)
        ) WITHOUT ROWID;
        -- hands to upload; a refused one stays, with the reason, and is not sent again
        CREATE TABLE outbox (
            hand_id   INTEGER PRIMARY KEY REFERENCES hands (id),
            rejected  TEXT
        );
        -- small named values of the sync (the pull cursor)
        CREATE TABLE sync_state (
            key    TEXT PRIMARY KEY,
            value  TEXT NOT NULL
        ) WITHOUT ROWID;
        ",
    )?;
    // One record at a time (a big history's records do not fit in memory at once). A record
    // that does not read must not stop the migration: the player would lose the whole history
    // to one bad row.
    let ids: Vec<i64> = {
        let mut st = tx.prepare("SELECT id FROM hands ORDER BY id")?;
        st.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    let mut seen: HashSet<RecordId> = HashSet::with_capacity(ids.len());
    let mut read = tx.prepare(
        "SELECT h.winner IS NOT NULL, r.record FROM hands h
         LEFT JOIN hand_records r ON r.hand_id = h.id WHERE h.id = ?1",
    )?;
    let mut set_id = tx.prepare("UPDATE hands SET record_id = ?2 WHERE id = ?1")?;
    let mut queue = tx.prepare("INSERT INTO outbox (hand_id, rejected) VALUES (?1, ?2)")?;
    for id in ids {
        let (won, text): (bool, Option<rusqlite::types::Value>) = read
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or((false, None));
        let record = match text {
            Some(rusqlite::types::Value::Text(t)) => HandRecord::from_json(&t)
                .map_err(|e| format!("the stored record cannot be read: {e}")),
            Some(_) => Err("the stored record is not text".to_string()),
            None => Err("the stored record is missing".to_string()),
        }
        .and_then(|r| {
            if RecordId::of(&r.setup, &r.actions) == r.id {
                Ok(r)
            } else {
                Err("the stored record's id does not match its content".to_string())
            }
        });
        match record {
            Ok(r) => {
                if !seen.insert(r.id.clone()) {
                    // A second copy of a stored hand: counted as before, uploaded once.
                    continue;
                }
                set_id.execute(params![id, r.id.as_str()])?;
                queue.execute(params![id, None::<String>])?;
                if won {
                    insert_fans(tx, id, &r)?;
                }
            }
            Err(reason) => {
                queue.execute(params![id, reason])?;
            }
        }
    }
    drop((read, set_id, queue));
    tx.execute_batch(&format!(
        "
        CREATE UNIQUE INDEX hands_by_record ON hands (record_id);
        -- each rule set's wins, biggest first
        CREATE INDEX hands_wins_by_rules ON hands (rules, fan_total DESC, id) WHERE won = 1;
        CREATE TRIGGER hands_are_immutable BEFORE UPDATE ON hands BEGIN
            SELECT RAISE(ABORT, 'stored hands are immutable');
        END;
        CREATE TRIGGER hand_fans_are_immutable BEFORE UPDATE ON hand_fans BEGIN
            SELECT RAISE(ABORT, 'stored hands are immutable');
        END;
        CREATE TRIGGER hand_fans_are_kept BEFORE DELETE ON hand_fans BEGIN
            SELECT RAISE(ABORT, 'stored hands are kept');
        END;

        CREATE TABLE totals (
            rules            TEXT    PRIMARY KEY,
            hands            INTEGER NOT NULL,
            wins             INTEGER NOT NULL,
            deal_ins         INTEGER NOT NULL,
            self_drawn_wins  INTEGER NOT NULL,
            draws            INTEGER NOT NULL,
            points           INTEGER NOT NULL,
            win_fan_sum      INTEGER NOT NULL,
            win_fan_count    INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO totals {TOTALS_SELECT};
        -- per rule set and fan: the player's wins that had it, how many times it counted in
        -- them, and its points per occurrence
        CREATE TABLE fan_totals (
            rules   TEXT    NOT NULL,
            scorer  TEXT    NOT NULL,
            fan_id  INTEGER NOT NULL,
            wins    INTEGER NOT NULL,
            times   INTEGER NOT NULL,
            points  INTEGER NOT NULL,
            PRIMARY KEY (rules, scorer, fan_id)
        ) WITHOUT ROWID;
        INSERT INTO fan_totals {FAN_TOTALS_SELECT};
        -- a rule set's most frequent fans are the first entries: no sort when they are read
        CREATE INDEX fan_totals_ranked ON fan_totals (rules, wins DESC, times DESC, scorer, fan_id);

        CREATE TRIGGER hands_add_to_totals AFTER INSERT ON hands BEGIN
            INSERT INTO totals (rules, hands, wins, deal_ins, self_drawn_wins, draws, points,
                                win_fan_sum, win_fan_count)
            VALUES (NEW.rules, 1, NEW.won = 1, NEW.dealt_in = 1,
                    NEW.won = 1 AND NEW.self_drawn = 1, NEW.winner IS NULL, NEW.points,
                    iif(NEW.won = 1, coalesce(NEW.fan_total, 0), 0),
                    NEW.won = 1 AND NEW.fan_total IS NOT NULL)
            ON CONFLICT (rules) DO UPDATE SET
                hands = hands + 1,
                wins = wins + excluded.wins,
                deal_ins = deal_ins + excluded.deal_ins,
                self_drawn_wins = self_drawn_wins + excluded.self_drawn_wins,
                draws = draws + excluded.draws,
                points = points + excluded.points,
                win_fan_sum = win_fan_sum + excluded.win_fan_sum,
                win_fan_count = win_fan_count + excluded.win_fan_count;
        END;
        CREATE TRIGGER hand_fans_add_to_totals AFTER INSERT ON hand_fans
        WHEN (SELECT won FROM hands WHERE id = NEW.hand_id) = 1 BEGIN
            INSERT INTO fan_totals (rules, scorer, fan_id, wins, times, points)
            VALUES ((SELECT rules FROM hands WHERE id = NEW.hand_id), NEW.scorer, NEW.fan_id, 1,
                    NEW.count, NEW.points)
            ON CONFLICT (rules, scorer, fan_id) DO UPDATE SET
                wins = wins + 1,
                times = times + excluded.times,
                points = max(points, excluded.points);
        END;
        "
    ))
}

/// v5: `hand_fans` accepts the Tongcheng scorer's key. SQLite cannot change a CHECK in
/// place: the table is rebuilt under its triggers, rows and keys unchanged.
fn v5_tongcheng_fans(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "
        DROP TRIGGER hand_fans_add_to_totals;
        DROP TRIGGER hand_fans_are_immutable;
        DROP TRIGGER hand_fans_are_kept;
        CREATE TABLE hand_fans_v5 (
            hand_id  INTEGER NOT NULL REFERENCES hands (id) ON DELETE CASCADE,
            scorer   TEXT    NOT NULL CHECK (scorer IN ('mcr', 'hangzhou', 'tongcheng')),
            fan_id   INTEGER NOT NULL CHECK (fan_id BETWEEN 0 AND 255),
            -- points per occurrence (Hangzhou: the element's factor or fans; Tongcheng: the
            -- element's value)
            points   INTEGER NOT NULL,
            count    INTEGER NOT NULL CHECK (count > 0),
            PRIMARY KEY (hand_id, scorer, fan_id)
        ) WITHOUT ROWID;
        INSERT INTO hand_fans_v5 (hand_id, scorer, fan_id, points, count)
            SELECT hand_id, scorer, fan_id, points, count FROM hand_fans;
        DROP TABLE hand_fans;
        ALTER TABLE hand_fans_v5 RENAME TO hand_fans;
        CREATE TRIGGER hand_fans_are_immutable BEFORE UPDATE ON hand_fans BEGIN
            SELECT RAISE(ABORT, 'stored hands are immutable');
        END;
        CREATE TRIGGER hand_fans_are_kept BEFORE DELETE ON hand_fans BEGIN
            SELECT RAISE(ABORT, 'stored hands are kept');
        END;
        CREATE TRIGGER hand_fans_add_to_totals AFTER INSERT ON hand_fans
        WHEN (SELECT won FROM hands WHERE id = NEW.hand_id) = 1 BEGIN
            INSERT INTO fan_totals (rules, scorer, fan_id, wins, times, points)
            VALUES ((SELECT rules FROM hands WHERE id = NEW.hand_id), NEW.scorer, NEW.fan_id, 1,
                    NEW.count, NEW.points)
            ON CONFLICT (rules, scorer, fan_id) DO UPDATE SET
                wins = wins + 1,
                times = times + excluded.times,
                points = max(points, excluded.points);
        END;
        ",
    )
}

/// The rows of `totals`, worked out from the hands themselves.
pub(crate) const TOTALS_SELECT: &str = "
    SELECT rules, count(*), coalesce(sum(won = 1), 0), coalesce(sum(dealt_in = 1), 0),
           coalesce(sum(won = 1 AND self_drawn = 1), 0), coalesce(sum(winner IS NULL), 0),
           coalesce(sum(points), 0),
           coalesce(sum(iif(won = 1, coalesce(fan_total, 0), 0)), 0),
           coalesce(sum(won = 1 AND fan_total IS NOT NULL), 0)
    FROM hands GROUP BY rules";

/// The rows of `fan_totals`, worked out from the hands themselves.
pub(crate) const FAN_TOTALS_SELECT: &str = "
    SELECT h.rules, f.scorer, f.fan_id, count(*), sum(f.count), max(f.points)
    FROM hand_fans f JOIN hands h ON h.id = f.hand_id
    WHERE h.won = 1
    GROUP BY h.rules, f.scorer, f.fan_id";

/// Writes the fan rows of a hand's win (nothing for a drawn hand). A breakdown listing a fan
/// twice counts it twice, in one row.
pub(crate) fn insert_fans(
    conn: &Connection,
    hand_id: i64,
    record: &HandRecord,
) -> rusqlite::Result<()> {
    let Some(score) = record.result.score.as_ref() else {
        return Ok(());
    };
    if record.result.winner.is_none() {
        return Ok(());
    }
    let mut fan = conn.prepare_cached(
        "INSERT INTO hand_fans (hand_id, scorer, fan_id, points, count)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut merged: Vec<(Scorer, u8, u32, u32)> = Vec::with_capacity(score.fans.len());
    for f in score.fans.iter().filter(|f| f.count > 0) {
        match merged.iter_mut().find(|m| (m.0, m.1) == (f.scorer, f.id)) {
            Some(m) => m.3 = m.3.saturating_add(f.count),
            None => merged.push((f.scorer, f.id, f.points, f.count)),
        }
    }
    for (scorer, id, points, count) in merged {
        fan.execute(params![hand_id, scorer.name(), id, points, count])?;
    }
    Ok(())
}

/// The database's schema version.
pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<u32> {
    let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    // user_version is a signed 32-bit header field: a negative one is "newer than anything".
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

/// What a migration run found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Migrated {
    /// At `target` (or beyond it, up to the newest known step).
    Done,
    /// The database is at a version later than every step given.
    Newer(u32),
}

/// Applies `steps[v..target]` one at a time to a database at version `v`. Each step runs in
/// its own immediate transaction, re-reading the version inside it, so two processes opening
/// the same file at once cannot both apply a step.
pub(crate) fn migrate(
    conn: &mut Connection,
    steps: &[Migration],
    target: u32,
) -> rusqlite::Result<Migrated> {
    let target = target.min(steps.len() as u32);
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let v = user_version(&tx)?;
        if v as usize > steps.len() {
            return Ok(Migrated::Newer(v));
        }
        if v >= target {
            return Ok(Migrated::Done);
        }
        (steps[v as usize].up)(&tx)?;
        tx.pragma_update(None, "user_version", v + 1)?;
        tx.commit()?;
    }
}
