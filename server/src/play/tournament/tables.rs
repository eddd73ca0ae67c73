//! A round's tables: what any node needs to open one (its seats, its seed, its rules), on
//! whichever node the round's runner gave it to, from its first hand or from the progress
//! another node kept.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc;
use tongcheng_core::fair::Commitment;
use tongcheng_core::protocol::RoundTable;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::tournament::fair::{round_commitment, table_seed};
use tongcheng_core::tournament::{EntrantId, TableResult};
use tongcheng_core::wall::Seed;

use super::super::checkpoint::TableProgress;
use super::super::table::{RoundEntrant, RoundSeating, TableDone, TableTask};
use super::super::{Online, lock};
use super::Tournament;
use super::kept::{KeptSeating, seed_of};
use crate::store::StoredRoundTable;

/// A seated round, as its tables are opened from it.
pub(super) struct RoundPlan {
    pub tournament: String,
    pub number: u32,
    commitment: Commitment,
    seed: Seed,
    duplicate: bool,
    pub rules: RuleSet,
    rated: bool,
    entrants: HashMap<EntrantId, RoundEntrant>,
    tables: Vec<[Option<EntrantId>; 4]>,
    /// Where this node's tables tell their end when the round's runner is here.
    done: Option<mpsc::UnboundedSender<TableDone>>,
}

impl RoundPlan {
    pub fn new(
        t: &Tournament,
        number: u32,
        secret: &Seed,
        seating: &KeptSeating,
        done: Option<mpsc::UnboundedSender<TableDone>>,
    ) -> Result<RoundPlan, String> {
        let s = t.state.lock().map_err(|_| "poisoned")?;
        let entrants = seating
            .tables
            .iter()
            .flatten()
            .flatten()
            .filter_map(|&e| {
                s.entrant(e).map(|x| {
                    let seat = RoundEntrant {
                        account: x.who.account,
                        device: x.device,
                        name: x.name.clone(),
                    };
                    (e, seat)
                })
            })
            .collect();
        Ok(RoundPlan {
            tournament: t.id.clone(),
            number,
            commitment: round_commitment(secret),
            seed: seed_of(secret, seating),
            duplicate: t.config.duplicate,
            rules: t.config.table_rules().map_err(|e| e.to_string())?,
            rated: t.settings.rated,
            entrants,
            tables: seating.tables.clone(),
            done,
        })
    }

    /// Table `i`'s result for the standings.
    pub fn result(&self, i: usize, scores: [i32; 4]) -> TableResult {
        TableResult {
            players: self.tables.get(i).copied().unwrap_or([None; 4]),
            scores,
        }
    }

    /// Opens the tables the seating gave this node.
    pub fn open_here(&self, online: &Online, tables: &[StoredRoundTable]) -> Result<(), String> {
        let me = online.node.url();
        for row in tables.iter().filter(|r| r.node_url == me) {
            self.open(online, row.table_no as usize, &row.table_id, None)?;
        }
        Ok(())
    }

    /// Opens table `i` here as `id`: from its first hand, or from `progress`.
    pub fn open(
        &self,
        online: &Online,
        i: usize,
        id: &str,
        progress: Option<TableProgress>,
    ) -> Result<(), String> {
        let players = self.tables.get(i).ok_or("no such table in the round")?;
        let seated = RoundSeating {
            seat: RoundTable {
                tournament: self.tournament.clone(),
                round: self.number,
                table: i as u32,
                commitment: self.commitment,
            },
            match_seed: table_seed(&self.seed, self.duplicate, i),
            entrants: players.map(|p| p.and_then(|e| self.entrants.get(&e).cloned())),
            done: self.done.clone(),
        };
        let (tx, rx) = mpsc::channel(super::super::TABLE_QUEUE);
        let task = TableTask::new(
            id.to_string(),
            online.config.clone(),
            self.rules.clone(),
            0,
            online.store.clone(),
            rx,
        )
        .tournament(seated);
        let task = if self.rated { task.ranked() } else { task };
        let task = match progress {
            Some(p) => task.resume_round(p)?,
            None => task,
        };
        let mut tables = lock(&online.lobby.tables).map_err(|e| e.message)?;
        online.spawn_built(&mut tables, id, tx, task);
        Ok(())
    }
}

/// The nodes alive now (seen within a lease), this one first.
pub(super) async fn live_nodes(online: &Online) -> Vec<String> {
    let me = online.node.url().to_string();
    let since = crate::now() - online.config.tournament_lease_secs.max(1) as i64;
    let store = online.store.clone();
    let mut nodes = tokio::task::spawn_blocking(move || store.live_nodes(since))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    nodes.retain(|n| *n != me);
    nodes.insert(0, me);
    nodes
}

/// Opens the round tables runners gave this node (or moved here) and it has not opened.
pub(super) async fn open_assigned(online: &Arc<Online>) {
    let (store, me) = (online.store.clone(), online.node.url().to_string());
    let Ok(Ok(rows)) = tokio::task::spawn_blocking(move || store.unopened_tables(&me)).await else {
        return;
    };
    let mut by_round: Vec<((String, u32), Vec<StoredRoundTable>)> = Vec::new();
    for (tid, round, row) in rows {
        match by_round.last_mut() {
            Some((key, v)) if key.0 == tid && key.1 == round => v.push(row),
            _ => by_round.push(((tid, round), vec![row])),
        }
    }
    for ((tid, round), rows) in by_round {
        if let Err(e) = open_round(online, &tid, round, rows).await {
            tracing::error!(tournament = %tid, round, error = %e, "cannot open the round's tables");
        }
    }
}

async fn open_round(
    online: &Arc<Online>,
    tid: &str,
    round: u32,
    rows: Vec<StoredRoundTable>,
) -> Result<(), String> {
    let (t, resume) = super::kept::load(online, tid)
        .await
        .map_err(|e| e.message)?
        .ok_or("no such tournament")?;
    let super::kept::Resume::Round {
        round: r,
        secret,
        seated: Some((seating, _)),
    } = resume
    else {
        return Err("the round is not in play".into());
    };
    if r as u32 + 1 != round {
        return Err("the round is not in play".into());
    }
    // The round's runner may be on this node: its tables tell it their end directly.
    let done = online
        .tournaments
        .get(tid)
        .ok()
        .and_then(|here| here.state.lock().ok().and_then(|s| s.round_done.clone()));
    let plan = RoundPlan::new(&t, round, &secret, &seating, done)?;
    let me = online.node.url().to_string();
    for row in rows {
        let (store, id, no, node) = (
            online.store.clone(),
            tid.to_string(),
            row.table_no,
            me.clone(),
        );
        let won =
            tokio::task::spawn_blocking(move || store.open_round_table(&id, round, no, &node))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
        if !won {
            continue;
        }
        let progress = match &row.progress {
            Some(p) => Some(serde_json::from_str(p).map_err(|e| e.to_string())?),
            None => None,
        };
        plan.open(online, no as usize, &row.table_id, progress)?;
    }
    Ok(())
}
