//! What a tournament spread over several nodes keeps in the store besides the tournament
//! itself (see `crate::play::tournament`): the runner's lease, which node runs each round
//! table and how far its match is, and which nodes are alive. Statements are written once
//! for both engines (see `queries`).

use r2d2::ManageConnection;

use super::db::{Db, args};
use super::{Result, SqlStore, StoreError, StoredRoundTable};

/// Round tables, leases and nodes.
pub trait TournamentNodes {
    /// A round's tables, in order; without their progress unless `progress` (it holds every
    /// finished hand's record).
    fn round_tables(&self, id: &str, round: u32, progress: bool) -> Result<Vec<StoredRoundTable>>;
    /// One round table's progress.
    fn round_table_progress(&self, id: &str, round: u32, table_no: u32) -> Result<Option<String>>;
    /// A round table's match after a hand (`done`: its end).
    fn table_progress(
        &self,
        id: &str,
        round: u32,
        table_no: u32,
        progress: &str,
        done: bool,
    ) -> Result<()>;
    /// Round tables given to `node` and not opened yet: (tournament, round, table).
    fn unopened_tables(&self, node: &str) -> Result<Vec<(String, u32, StoredRoundTable)>>;
    /// Marks a round table opened by `node`, moving it there; false when another node has it.
    fn open_round_table(&self, id: &str, round: u32, table_no: u32, node: &str) -> Result<bool>;
    /// Round table `table_id` of round `round` has been opened by its node.
    fn round_table_opened(&self, id: &str, round: u32, table_id: &str) -> Result<bool>;
    /// Gives a round table to another node (its own stopped); it opens it anew.
    fn move_round_table(&self, id: &str, round: u32, table_no: u32, to: &str) -> Result<()>;
    /// The runner keeps its lease; false when another node has taken the tournament over.
    fn renew_tournament(&self, id: &str, node: &str, until: i64) -> Result<bool>;
    /// Tournaments in sign-up or play whose runner's lease ran out before `now`, and those
    /// `mine` (a node's URL) runs, leased or not.
    fn orphaned_tournaments(&self, now: i64, mine: Option<&str>) -> Result<Vec<String>>;
    /// Takes an orphaned tournament over (one node wins; its own node always may).
    fn claim_tournament(&self, id: &str, node: &str, now: i64, until: i64) -> Result<bool>;
    /// The round tables `node` runs and has not finished are to be opened again (it restarted).
    fn reset_round_tables(&self, node: &str) -> Result<()>;
    /// A node says it is alive.
    fn node_seen(&self, url: &str, now: i64) -> Result<()>;
    /// The nodes seen since `since`, by URL.
    fn live_nodes(&self, since: i64) -> Result<Vec<String>>;
    /// What an entrant waiting for his table watches: none when there is no such
    /// tournament.
    fn tournament_mark(&self, id: &str) -> Result<Option<TournamentMark>>;
}

/// A tournament's state as far as any entrant's seat answer goes: it changes whenever one
/// might (the status, a new round, its seating, a table opened).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TournamentMark {
    pub status: String,
    /// The last round begun (0: none), and whether it is seated.
    pub round: i64,
    pub seated: bool,
    /// That round's tables opened so far.
    pub opened: i64,
}

/// A table row's columns, read.
type TableCols = (i64, String, String, bool, Option<String>, bool);

fn table_row(
    (table_no, table_id, node_url, opened, progress, done): TableCols,
) -> StoredRoundTable {
    StoredRoundTable {
        table_no: table_no as u32,
        table_id,
        node_url,
        opened,
        progress,
        done,
    }
}

impl<M> TournamentNodes for SqlStore<M>
where
    M: ManageConnection<Error = StoreError>,
    M::Connection: Db,
{
    fn round_tables(&self, id: &str, round: u32, progress: bool) -> Result<Vec<StoredRoundTable>> {
        let sql = if progress {
            "SELECT table_no, table_id, node_url, opened, progress, done
             FROM tournament_tables WHERE tournament_id = $1 AND round = $2 ORDER BY table_no"
        } else {
            "SELECT table_no, table_id, node_url, opened, NULL, done
             FROM tournament_tables WHERE tournament_id = $1 AND round = $2 ORDER BY table_no"
        };
        Ok(self
            .rows::<TableCols>(sql, args![id, i64::from(round)])?
            .into_iter()
            .map(table_row)
            .collect())
    }

    fn round_table_progress(&self, id: &str, round: u32, table_no: u32) -> Result<Option<String>> {
        Ok(self
            .row::<(Option<String>,)>(
                "SELECT progress FROM tournament_tables
                 WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
                args![id, i64::from(round), table_no],
            )?
            .and_then(|(p,)| p))
    }

    fn table_progress(
        &self,
        id: &str,
        round: u32,
        table_no: u32,
        progress: &str,
        done: bool,
    ) -> Result<()> {
        self.execute(
            "UPDATE tournament_tables SET progress = $4, done = $5
             WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
            args![id, i64::from(round), table_no, progress, done],
        )?;
        Ok(())
    }

    fn unopened_tables(&self, node: &str) -> Result<Vec<(String, u32, StoredRoundTable)>> {
        Ok(self
            .rows::<(String, i64, i64, String, String, bool, Option<String>, bool)>(
                "SELECT tournament_id, round, table_no, table_id, node_url, opened, progress, done
                 FROM tournament_tables WHERE node_url = $1 AND NOT opened
                 ORDER BY tournament_id, round, table_no",
                args![node],
            )?
            .into_iter()
            .map(|(tid, round, no, table, url, opened, progress, done)| {
                (
                    tid,
                    round as u32,
                    table_row((no, table, url, opened, progress, done)),
                )
            })
            .collect())
    }

    fn open_round_table(&self, id: &str, round: u32, table_no: u32, node: &str) -> Result<bool> {
        let n = self.execute(
            "UPDATE tournament_tables SET opened = $5
             WHERE tournament_id = $1 AND round = $2 AND table_no = $3 AND node_url = $4
                 AND NOT opened",
            args![id, i64::from(round), table_no, node, true],
        )?;
        Ok(n == 1)
    }

    fn round_table_opened(&self, id: &str, round: u32, table_id: &str) -> Result<bool> {
        Ok(self
            .row::<(bool,)>(
                "SELECT opened FROM tournament_tables
                 WHERE tournament_id = $1 AND round = $2 AND table_id = $3",
                args![id, i64::from(round), table_id],
            )?
            .is_some_and(|(o,)| o))
    }

    fn move_round_table(&self, id: &str, round: u32, table_no: u32, to: &str) -> Result<()> {
        self.execute(
            "UPDATE tournament_tables SET node_url = $4, opened = $5
             WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
            args![id, i64::from(round), table_no, to, false],
        )?;
        Ok(())
    }

    fn renew_tournament(&self, id: &str, node: &str, until: i64) -> Result<bool> {
        let n = self.execute(
            "UPDATE tournaments SET lease_until = $3 WHERE id = $1 AND runner_url = $2",
            args![id, node, until],
        )?;
        Ok(n == 1)
    }

    fn orphaned_tournaments(&self, now: i64, mine: Option<&str>) -> Result<Vec<String>> {
        Ok(self
            .rows::<(String,)>(
                "SELECT id FROM tournaments WHERE status IN ('sign_up', 'running')
                     AND (lease_until IS NULL OR lease_until < $1 OR runner_url = $2)
                 ORDER BY created_at, id",
                args![now, mine],
            )?
            .into_iter()
            .map(|(id,)| id)
            .collect())
    }

    fn claim_tournament(&self, id: &str, node: &str, now: i64, until: i64) -> Result<bool> {
        let n = self.execute(
            "UPDATE tournaments SET runner_url = $2, lease_until = $4
             WHERE id = $1 AND status IN ('sign_up', 'running')
                 AND (lease_until IS NULL OR lease_until < $3 OR runner_url = $2)",
            args![id, node, now, until],
        )?;
        Ok(n == 1)
    }

    fn reset_round_tables(&self, node: &str) -> Result<()> {
        self.execute(
            "UPDATE tournament_tables SET opened = $2 WHERE node_url = $1 AND NOT done",
            args![node, false],
        )?;
        Ok(())
    }

    fn node_seen(&self, url: &str, now: i64) -> Result<()> {
        self.execute(
            "INSERT INTO cluster_nodes (url, seen_at) VALUES ($1, $2)
             ON CONFLICT (url) DO UPDATE SET seen_at = excluded.seen_at",
            args![url, now],
        )?;
        Ok(())
    }

    fn tournament_mark(&self, id: &str) -> Result<Option<TournamentMark>> {
        let Some((status,)) =
            self.row::<(String,)>("SELECT status FROM tournaments WHERE id = $1", args![id])?
        else {
            return Ok(None);
        };
        let (round, seated) = self
            .row::<(i64, bool)>(
                "SELECT round, seating IS NOT NULL FROM tournament_rounds
                 WHERE tournament_id = $1 ORDER BY round DESC LIMIT 1",
                args![id],
            )?
            .unwrap_or((0, false));
        let opened = if seated {
            self.value::<i64>(
                "SELECT count(*) FROM tournament_tables
                 WHERE tournament_id = $1 AND round = $2 AND opened",
                args![id, round],
            )?
        } else {
            0
        };
        Ok(Some(TournamentMark {
            status,
            round,
            seated,
            opened,
        }))
    }

    fn live_nodes(&self, since: i64) -> Result<Vec<String>> {
        Ok(self
            .rows::<(String,)>(
                "SELECT url FROM cluster_nodes WHERE seen_at >= $1 ORDER BY url",
                args![since],
            )?
            .into_iter()
            .map(|(u,)| u)
            .collect())
    }
}
