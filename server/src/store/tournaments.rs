//! The store's side of tournaments (see `crate::play::tournament`): each tournament as it
//! was made, its entrants, each round's commitment when the round is announced and its
//! published record when it ends, and the standings after each round. The tournament in play
//! is its node's; the store keeps what must outlive it and what anyone may check. Statements
//! are written once for both engines (see `queries`).

use r2d2::ManageConnection;

use super::db::{Db, args};
use super::{Result, SqlStore, StoreError};

/// A tournament as made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTournament {
    pub id: String,
    pub name: String,
    /// A 亲友赛's code.
    pub code: Option<String>,
    /// The settings it was made with (`tongcheng_api::tournament::NewTournament`, JSON).
    pub settings: String,
    /// The player who made it; `None`: the operator.
    pub created_by: Option<i64>,
    pub created_at: i64,
    pub node_url: String,
}

/// Tournaments' rows.
pub trait Tournaments {
    /// Keeps a new tournament; false when its code is taken (draw another).
    fn create_tournament(&self, t: &StoredTournament) -> Result<bool>;
    fn enter_tournament(&self, id: &str, account: i64, now: i64) -> Result<()>;
    /// Its status, and the standings after the last booked round (JSON) when given.
    fn set_tournament_status(&self, id: &str, status: &str, standings: Option<&str>) -> Result<()>;
    /// A round announced: its commitment, before any contribution is taken.
    fn announce_round(&self, id: &str, round: u32, commitment: &str) -> Result<()>;
    /// A round over: its published record.
    fn publish_round(&self, id: &str, round: u32, record: &str) -> Result<()>;
    /// A published round's record.
    fn round_record(&self, id: &str, round: u32) -> Result<Option<String>>;
    /// The standings kept after the last booked round.
    fn tournament_standings(&self, id: &str) -> Result<Option<String>>;
}

impl<M> Tournaments for SqlStore<M>
where
    M: ManageConnection<Error = StoreError>,
    M::Connection: Db,
{
    fn create_tournament(&self, t: &StoredTournament) -> Result<bool> {
        let n = self.execute(
            "INSERT INTO tournaments (id, name, code, settings, created_by, created_at,
                 node_url, status)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'sign_up') ON CONFLICT DO NOTHING",
            args![
                &t.id,
                &t.name,
                t.code.as_deref(),
                &t.settings,
                t.created_by,
                t.created_at,
                &t.node_url
            ],
        )?;
        Ok(n == 1)
    }

    fn enter_tournament(&self, id: &str, account: i64, now: i64) -> Result<()> {
        self.execute(
            "INSERT INTO tournament_entrants (tournament_id, account_id, entered_at)
             VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            args![id, account, now],
        )?;
        Ok(())
    }

    fn set_tournament_status(&self, id: &str, status: &str, standings: Option<&str>) -> Result<()> {
        self.execute(
            "UPDATE tournaments SET status = $2, standings = coalesce($3, standings)
             WHERE id = $1",
            args![id, status, standings],
        )?;
        Ok(())
    }

    fn announce_round(&self, id: &str, round: u32, commitment: &str) -> Result<()> {
        self.execute(
            "INSERT INTO tournament_rounds (tournament_id, round, commitment)
             VALUES ($1, $2, $3)",
            args![id, i64::from(round), commitment],
        )?;
        Ok(())
    }

    fn publish_round(&self, id: &str, round: u32, record: &str) -> Result<()> {
        self.execute(
            "UPDATE tournament_rounds SET record = $3 WHERE tournament_id = $1 AND round = $2",
            args![id, i64::from(round), record],
        )?;
        Ok(())
    }

    fn round_record(&self, id: &str, round: u32) -> Result<Option<String>> {
        Ok(self
            .row::<(Option<String>,)>(
                "SELECT record FROM tournament_rounds WHERE tournament_id = $1 AND round = $2",
                args![id, i64::from(round)],
            )?
            .and_then(|(r,)| r))
    }

    fn tournament_standings(&self, id: &str) -> Result<Option<String>> {
        Ok(self
            .row::<(Option<String>,)>("SELECT standings FROM tournaments WHERE id = $1", args![id])?
            .and_then(|(r,)| r))
    }
}
