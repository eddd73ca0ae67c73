//! The store's side of tournaments (see `crate::play::tournament`): each tournament as it
//! was made, its entrants, each round's commitment when the round is announced and its
//! published record when it ends, and the standings after each round — and everything a node
//! needs to take a tournament in play over from another (its runner's lease, each entrant as
//! seating needs him, each round's secret and seating, each round table's node and
//! progress). Statements are written once for both engines (see `queries`).

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
    /// The node that made it (and runs it first).
    pub node_url: String,
}

/// A tournament's row: as made, where it is, and who runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    pub made: StoredTournament,
    pub status: String,
    /// The node running it, until `lease_until` (Unix seconds) unless it renews.
    pub runner_url: Option<String>,
    pub lease_until: Option<i64>,
}

/// A signed-up entrant, as seating and his records need him.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEntrant {
    /// His place in the sign-up (1-based).
    pub entrant: u32,
    pub account: i64,
    /// The device he signed up from.
    pub device: i64,
    pub name: String,
    /// His account's devices at sign-up (his link group).
    pub devices: Vec<i64>,
    pub ip: Option<String>,
    pub entered_at: i64,
}

/// What a sign-up did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Signed up as this entrant.
    Entered(u32),
    /// Signed up before, as this entrant.
    Already(u32),
    /// The sign-up is over.
    Closed,
    /// Every place is taken.
    Full,
}

/// An entrant's seat request answered from the store (on a node not running the
/// tournament).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatLookup {
    pub status: String,
    /// The account's entrant number, if it signed up; and the round it was cut after.
    pub entrant: Option<u32>,
    pub out_after: Option<u32>,
    /// The last round begun: its number and commitment, and whether it is seated.
    pub round: Option<(u32, String, bool)>,
    /// In a seated round: `Some(Some((table, node, opened)))` at a table (`opened`: its
    /// node has opened it), `Some(None)` a bye, `None` not in the round.
    pub seat: Option<Option<(String, String, bool)>>,
}

/// A round as kept: its commitment from its start; its secret (private until the record is
/// published) and seating (JSON) once seated.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRound {
    pub round: u32,
    pub commitment: String,
    pub secret: Option<String>,
    pub seating: Option<String>,
    /// How long seating it took (ms): the order, the rows kept, the runner's tables opened.
    pub seating_ms: Option<f64>,
    pub published: bool,
}

/// A round's table: where it runs and how far its match is (JSON, after each hand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoundTable {
    pub table_no: u32,
    pub table_id: String,
    pub node_url: String,
    /// Its node has opened it.
    pub opened: bool,
    pub progress: Option<String>,
    /// Its match is over (`progress` holds the result).
    pub done: bool,
}

/// Tournaments' rows.
pub trait Tournaments {
    /// Keeps a new tournament, run by the node that made it until `lease_until`; false when
    /// its code is taken (draw another).
    fn create_tournament(&self, t: &StoredTournament, lease_until: i64) -> Result<bool>;
    /// Signs an entrant up (his number is the next free one; `e.entrant` is ignored) while
    /// the sign-up is open and fewer than `places` have: one transaction on the tournament's
    /// row, whichever node asks.
    fn enter_tournament(&self, id: &str, e: &StoredEntrant, places: u32) -> Result<Entry>;
    /// Closes the sign-up (the tournament starts): the entrants then, none after.
    fn close_sign_up(&self, id: &str) -> Result<Vec<StoredEntrant>>;
    /// How many have signed up.
    fn entrant_count(&self, id: &str) -> Result<u32>;
    fn tournament(&self, id: &str) -> Result<Option<TournamentRow>>;
    /// Ids of tournaments in sign-up or in play, with no code (`None`) or with `code`.
    fn open_tournaments(&self, code: Option<&str>) -> Result<Vec<String>>;
    /// The entrants, in sign-up order.
    fn tournament_entrants(&self, id: &str) -> Result<Vec<StoredEntrant>>;
    /// Its status, and the standings after the last booked round (JSON) when given.
    fn set_tournament_status(&self, id: &str, status: &str, standings: Option<&str>) -> Result<()>;
    /// A round announced: its commitment (before any contribution is taken) and its secret.
    fn announce_round(&self, id: &str, round: u32, commitment: &str, secret: &str) -> Result<()>;
    /// A round seated: its seating (JSON), its tables and each entrant's seat (a table's
    /// number, `None` a bye), in one transaction.
    fn seat_round(
        &self,
        id: &str,
        round: u32,
        seating: &str,
        tables: &[StoredRoundTable],
        seats: &[(u32, Option<u32>)],
    ) -> Result<()>;
    /// How long seating round `round` took (ms).
    fn round_seated_in(&self, id: &str, round: u32, ms: f64) -> Result<()>;
    /// An entrant's contribution to a round (the first one stands).
    fn add_contribution(
        &self,
        id: &str,
        round: u32,
        entrant: u32,
        contribution: &str,
    ) -> Result<()>;
    /// A round's contributions taken by any node.
    fn round_contributions(&self, id: &str, round: u32) -> Result<Vec<(u32, String)>>;
    /// Entrants cut after `round`.
    fn cut_entrants(&self, id: &str, round: u32, entrants: &[u32]) -> Result<()>;
    /// What a seat request of `account` is answered from.
    fn seat_lookup(&self, id: &str, account: i64) -> Result<Option<SeatLookup>>;
    /// Every round begun, in order.
    fn tournament_rounds(&self, id: &str) -> Result<Vec<StoredRound>>;
    /// A round over: its published record.
    fn publish_round(&self, id: &str, round: u32, record: &str) -> Result<()>;
    /// A published round's record.
    fn round_record(&self, id: &str, round: u32) -> Result<Option<String>>;
    /// The standings kept after the last booked round.
    fn tournament_standings(&self, id: &str) -> Result<Option<String>>;
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{what}: {e}"))
}

impl<M> Tournaments for SqlStore<M>
where
    M: ManageConnection<Error = StoreError>,
    M::Connection: Db,
{
    fn create_tournament(&self, t: &StoredTournament, lease_until: i64) -> Result<bool> {
        let n = self.execute(
            "INSERT INTO tournaments (id, name, code, settings, created_by, created_at,
                 node_url, status, runner_url, lease_until)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'sign_up', $7, $8) ON CONFLICT DO NOTHING",
            args![
                &t.id,
                &t.name,
                t.code.as_deref(),
                &t.settings,
                t.created_by,
                t.created_at,
                &t.node_url,
                lease_until
            ],
        )?;
        Ok(n == 1)
    }

    fn enter_tournament(&self, id: &str, e: &StoredEntrant, places: u32) -> Result<Entry> {
        let devices = serde_json::to_string(&e.devices).map_err(|x| corrupt("devices", x))?;
        self.tx(|c| {
            let Some((status,)) = c.row::<(String,)>(
                "SELECT status FROM tournaments WHERE id = $1 FOR UPDATE",
                args![id],
            )?
            else {
                return Ok(Entry::Closed);
            };
            if let Some((n,)) = c.row::<(i64,)>(
                "SELECT coalesce(entrant, 0) FROM tournament_entrants
                 WHERE tournament_id = $1 AND account_id = $2",
                args![id, e.account],
            )? {
                return Ok(Entry::Already(n as u32));
            }
            if status != "sign_up" {
                return Ok(Entry::Closed);
            }
            // Numbers are given here only, one after another: the last one is the count.
            let signed: i64 = c.value(
                "SELECT coalesce(max(entrant), 0) FROM tournament_entrants WHERE tournament_id = $1",
                args![id],
            )?;
            if signed >= i64::from(places) {
                return Ok(Entry::Full);
            }
            let n = signed as u32 + 1;
            c.execute(
                "INSERT INTO tournament_entrants (tournament_id, account_id, entered_at, entrant,
                     device_id, name, devices, ip)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                args![
                    id,
                    e.account,
                    e.entered_at,
                    n,
                    e.device,
                    &e.name,
                    &devices,
                    e.ip.as_deref()
                ],
            )?;
            Ok(Entry::Entered(n))
        })
    }

    fn entrant_count(&self, id: &str) -> Result<u32> {
        let n: i64 = self.tx(|c| {
            c.value(
                "SELECT coalesce(max(entrant), 0) FROM tournament_entrants WHERE tournament_id = $1",
                args![id],
            )
        })?;
        Ok(n as u32)
    }

    fn close_sign_up(&self, id: &str) -> Result<Vec<StoredEntrant>> {
        self.tx(|c| {
            c.row::<(i64,)>(
                "SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE",
                args![id],
            )?;
            c.execute(
                "UPDATE tournaments SET status = 'running' WHERE id = $1 AND status = 'sign_up'",
                args![id],
            )?;
            Ok(())
        })?;
        self.tournament_entrants(id)
    }

    fn tournament(&self, id: &str) -> Result<Option<TournamentRow>> {
        type Cols = (
            String,
            String,
            Option<String>,
            String,
            Option<i64>,
            i64,
            String,
            String,
            Option<String>,
            Option<i64>,
        );
        Ok(self
            .row::<Cols>(
                "SELECT id, name, code, settings, created_by, created_at, node_url, status,
                     runner_url, lease_until
                 FROM tournaments WHERE id = $1",
                args![id],
            )?
            .map(
                |(
                    id,
                    name,
                    code,
                    settings,
                    created_by,
                    created_at,
                    node_url,
                    status,
                    runner_url,
                    lease_until,
                )| {
                    TournamentRow {
                        made: StoredTournament {
                            id,
                            name,
                            code,
                            settings,
                            created_by,
                            created_at,
                            node_url,
                        },
                        status,
                        runner_url,
                        lease_until,
                    }
                },
            ))
    }

    fn open_tournaments(&self, code: Option<&str>) -> Result<Vec<String>> {
        let rows: Vec<(String,)> = match code {
            None => self.rows(
                "SELECT id FROM tournaments WHERE code IS NULL
                     AND status IN ('sign_up', 'running') ORDER BY created_at, id",
                args![],
            )?,
            Some(c) => self.rows("SELECT id FROM tournaments WHERE code = $1", args![c])?,
        };
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    fn tournament_entrants(&self, id: &str) -> Result<Vec<StoredEntrant>> {
        type Cols = (
            i64,
            i64,
            Option<i64>,
            Option<String>,
            Option<String>,
            Option<String>,
            i64,
        );
        self.rows::<Cols>(
            "SELECT coalesce(entrant, 0), account_id, device_id, name, devices, ip, entered_at
             FROM tournament_entrants WHERE tournament_id = $1
             ORDER BY coalesce(entrant, 0), entered_at, account_id",
            args![id],
        )?
        .into_iter()
        .enumerate()
        .map(
            |(i, (entrant, account, device, name, devices, ip, entered_at))| {
                let devices = match devices {
                    Some(d) => {
                        serde_json::from_str(&d).map_err(|e| corrupt("an entrant's devices", e))?
                    }
                    None => Vec::new(),
                };
                Ok(StoredEntrant {
                    // Entrants kept before their number was: their order is their number.
                    entrant: if entrant > 0 {
                        entrant as u32
                    } else {
                        i as u32 + 1
                    },
                    account,
                    device: device.unwrap_or(0),
                    name: name.unwrap_or_default(),
                    devices,
                    ip,
                    entered_at,
                })
            },
        )
        .collect()
    }

    fn set_tournament_status(&self, id: &str, status: &str, standings: Option<&str>) -> Result<()> {
        self.execute(
            "UPDATE tournaments SET status = $2, standings = coalesce($3, standings)
             WHERE id = $1",
            args![id, status, standings],
        )?;
        Ok(())
    }

    fn announce_round(&self, id: &str, round: u32, commitment: &str, secret: &str) -> Result<()> {
        self.execute(
            "INSERT INTO tournament_rounds (tournament_id, round, commitment, secret)
             VALUES ($1, $2, $3, $4)",
            args![id, i64::from(round), commitment, secret],
        )?;
        Ok(())
    }

    fn seat_round(
        &self,
        id: &str,
        round: u32,
        seating: &str,
        tables: &[StoredRoundTable],
        seats: &[(u32, Option<u32>)],
    ) -> Result<()> {
        self.tx(|c| {
            for (entrant, table) in seats {
                c.execute(
                    "INSERT INTO tournament_seats (tournament_id, round, entrant, table_no)
                     VALUES ($1, $2, $3, $4)",
                    args![id, i64::from(round), *entrant, *table],
                )?;
            }
            c.execute(
                "UPDATE tournament_rounds SET seating = $3 WHERE tournament_id = $1 AND round = $2",
                args![id, i64::from(round), seating],
            )?;
            for t in tables {
                c.execute(
                    "INSERT INTO tournament_tables (tournament_id, round, table_no, table_id,
                         node_url, opened, progress, done)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    args![
                        id,
                        i64::from(round),
                        t.table_no,
                        &t.table_id,
                        &t.node_url,
                        t.opened,
                        t.progress.as_deref(),
                        t.done
                    ],
                )?;
            }
            Ok(())
        })
    }

    fn round_seated_in(&self, id: &str, round: u32, ms: f64) -> Result<()> {
        self.execute(
            "UPDATE tournament_rounds SET seating_ms = $3 WHERE tournament_id = $1 AND round = $2",
            args![id, i64::from(round), ms],
        )?;
        Ok(())
    }

    fn add_contribution(
        &self,
        id: &str,
        round: u32,
        entrant: u32,
        contribution: &str,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO tournament_contributions (tournament_id, round, entrant, contribution)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            args![id, i64::from(round), entrant, contribution],
        )?;
        Ok(())
    }

    fn round_contributions(&self, id: &str, round: u32) -> Result<Vec<(u32, String)>> {
        Ok(self
            .rows::<(i64, String)>(
                "SELECT entrant, contribution FROM tournament_contributions
                 WHERE tournament_id = $1 AND round = $2 ORDER BY entrant",
                args![id, i64::from(round)],
            )?
            .into_iter()
            .map(|(e, c)| (e as u32, c))
            .collect())
    }

    fn cut_entrants(&self, id: &str, round: u32, entrants: &[u32]) -> Result<()> {
        self.tx(|c| {
            for e in entrants {
                c.execute(
                    "UPDATE tournament_entrants SET out_after = $3
                     WHERE tournament_id = $1 AND entrant = $2",
                    args![id, *e, i64::from(round)],
                )?;
            }
            Ok(())
        })
    }

    fn seat_lookup(&self, id: &str, account: i64) -> Result<Option<SeatLookup>> {
        let Some((status,)) =
            self.row::<(String,)>("SELECT status FROM tournaments WHERE id = $1", args![id])?
        else {
            return Ok(None);
        };
        let me = self.row::<(i64, Option<i64>)>(
            "SELECT coalesce(entrant, 0), out_after FROM tournament_entrants
             WHERE tournament_id = $1 AND account_id = $2",
            args![id, account],
        )?;
        let round = self.row::<(i64, String, bool)>(
            "SELECT round, commitment, seating IS NOT NULL FROM tournament_rounds
             WHERE tournament_id = $1 ORDER BY round DESC LIMIT 1",
            args![id],
        )?;
        let seat = match (&me, &round) {
            (Some((entrant, _)), Some((r, _, true))) => {
                match self.row::<(Option<i64>, Option<String>, Option<String>, Option<bool>)>(
                    "SELECT s.table_no, t.table_id, t.node_url, t.opened FROM tournament_seats s
                     LEFT JOIN tournament_tables t ON t.tournament_id = s.tournament_id
                         AND t.round = s.round AND t.table_no = s.table_no
                     WHERE s.tournament_id = $1 AND s.round = $2 AND s.entrant = $3",
                    args![id, *r, *entrant],
                )? {
                    Some((None, _, _, _)) => Some(None),
                    Some((Some(_), Some(table), Some(node), opened)) => {
                        Some(Some((table, node, opened.unwrap_or(false))))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        Ok(Some(SeatLookup {
            status,
            entrant: me.map(|(e, _)| e as u32),
            out_after: me.and_then(|(_, o)| o.map(|o| o as u32)),
            round: round.map(|(r, c, seated)| (r as u32, c, seated)),
            seat,
        }))
    }

    fn tournament_rounds(&self, id: &str) -> Result<Vec<StoredRound>> {
        Ok(self
            .rows::<(
                i64,
                String,
                Option<String>,
                Option<String>,
                Option<f64>,
                bool,
            )>(
                "SELECT round, commitment, secret, seating, seating_ms, record IS NOT NULL
                 FROM tournament_rounds WHERE tournament_id = $1 ORDER BY round",
                args![id],
            )?
            .into_iter()
            .map(
                |(round, commitment, secret, seating, seating_ms, published)| StoredRound {
                    round: round as u32,
                    commitment,
                    secret,
                    seating,
                    seating_ms,
                    published,
                },
            )
            .collect())
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
