//! A tournament as the store keeps it, read back: for the node that takes its runner over
//! (its own restart, or another node when the runner's lease ran out), and for any node
//! answering about a tournament another node runs. Standings are rebuilt from each booked
//! round's table results and byes, as the runner booked them.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tongcheng_api::tournament::{NewTournament, TournamentStatus};
use tongcheng_core::fair::{Bytes32, Commitment, Contribution};
use tongcheng_core::tournament::fair::round_seed;
use tongcheng_core::tournament::{EntrantId, Standings, TableResult};
use tongcheng_core::wall::Seed;

use super::super::Online;
use super::super::queue::Candidate;
use super::{Entrant, RoundSeat, State, Tournament, core_config};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::{StoredEntrant, StoredRoundTable, TournamentRow};

/// A round's seating as kept (`tournament_rounds.seating`): with the secret, what gives
/// every table's seed and seats; the tables' ids and nodes are their own rows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct KeptSeating {
    pub contributions: Vec<(EntrantId, Contribution)>,
    /// Each table's entrant by player slot (`None`: a bot).
    pub tables: Vec<[Option<EntrantId>; 4]>,
    pub byes: Vec<EntrantId>,
}

/// A seated round as kept: its seating and its tables' rows.
pub(super) type Seated = (KeptSeating, Vec<StoredRoundTable>);

/// Only the result of a round table's kept progress (its hands are skipped unread).
#[derive(Deserialize)]
struct KeptScores {
    scores: [i32; 4],
}

/// Where a kept tournament's runner goes on from.
pub(super) enum Resume {
    /// Waiting for its field.
    SignUp,
    /// Round `round` (0-based) was announced with this secret; seated or not yet.
    Round {
        round: usize,
        secret: Seed,
        seated: Option<Seated>,
    },
    /// Rounds before `next` are booked.
    Between { next: usize },
    /// Finished or cancelled: nothing to run.
    Over,
}

/// A round's seed from its kept secret and contributions.
pub(super) fn seed_of(secret: &Seed, seating: &KeptSeating) -> Seed {
    round_seed(secret, &seating.contributions)
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("a kept tournament's {what} does not read: {e}"))
}

/// The entrant as seating and the tables need him.
pub(super) fn entrant_of(e: StoredEntrant) -> Entrant {
    Entrant {
        who: Candidate {
            account: e.account,
            devices: e.devices,
            ip: e.ip.as_deref().and_then(|ip| ip.parse().ok()),
            rating: 0.0,
        },
        device: e.device,
        name: e.name,
    }
}

/// Tournament `id` read back from the store (`None`: no such tournament), and where its
/// runner would go on from.
pub(super) async fn load(
    online: &Online,
    id: &str,
) -> Result<Option<(Tournament, Resume)>, ApiError> {
    let (store, tid) = (online.store.clone(), id.to_string());
    #[allow(clippy::type_complexity)]
    let read = blocking(move || {
        let Some(row) = store.tournament(&tid)? else {
            return Ok(None);
        };
        let entrants = store.tournament_entrants(&tid)?;
        let rounds = store.tournament_rounds(&tid)?;
        let mut tables = Vec::new();
        for r in &rounds {
            tables.push(if r.seating.is_some() {
                store.round_tables(&tid, r.round, true)?
            } else {
                Vec::new()
            });
        }
        Ok(Some((row, entrants, rounds, tables)))
    })
    .await?;
    let Some((row, entrants, rounds, tables)) = read else {
        return Ok(None);
    };
    rebuild(online, row, entrants, rounds, tables).map(Some)
}

fn rebuild(
    online: &Online,
    row: TournamentRow,
    stored: Vec<StoredEntrant>,
    rounds: Vec<crate::store::StoredRound>,
    tables: Vec<Vec<StoredRoundTable>>,
) -> Result<(Tournament, Resume), ApiError> {
    let settings: NewTournament =
        serde_json::from_str(&row.made.settings).map_err(|e| corrupt("settings", e))?;
    let config = core_config(online, &settings)?;
    let status = TournamentStatus::parse(&row.status);
    let entrants: Vec<Entrant> = stored.into_iter().map(entrant_of).collect();
    let by_account = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| (e.who.account, i as EntrantId + 1))
        .collect();
    let mut state = State::new(status.clone());
    state.entrants = entrants;
    state.by_account = by_account;
    let started = !matches!(status, TournamentStatus::SignUp) && !rounds.is_empty();
    if started || status == TournamentStatus::Running {
        let ids: Vec<EntrantId> = (1..=state.entrants.len() as EntrantId).collect();
        state.standings = Standings::new(&ids);
    }
    let mut resume = match status {
        TournamentStatus::SignUp => Resume::SignUp,
        TournamentStatus::Running => Resume::Between { next: 0 },
        _ => Resume::Over,
    };
    let total = state.entrants.len();
    for (r, kept_tables) in rounds.into_iter().zip(tables) {
        let number = r.round;
        let commitment =
            Commitment::from_hex(&r.commitment).map_err(|e| corrupt("commitment", e))?;
        state.round = number;
        state.commitment = Some(commitment);
        let seating: Option<KeptSeating> = match &r.seating {
            Some(s) => Some(serde_json::from_str(s).map_err(|e| corrupt("seating", e))?),
            None => None,
        };
        if let Some(ms) = r.seating_ms {
            state.seating_ms.push(ms);
        }
        if r.published {
            let s = seating.ok_or_else(|| corrupt("round", "published but never seated"))?;
            let mut results = Vec::new();
            for (players, t) in s.tables.iter().zip(&kept_tables) {
                let progress = t.progress.as_deref().filter(|_| t.done);
                let kept: KeptScores = serde_json::from_str(progress.unwrap_or("null"))
                    .map_err(|e| corrupt("table result", e))?;
                results.push(TableResult {
                    players: *players,
                    scores: kept.scores,
                });
            }
            state.standings.add_round(&config, &results, &s.byes);
            let next = config.field_after(total, number as usize);
            let survivors: Vec<EntrantId> =
                state.standings.order().into_iter().take(next).collect();
            state.standings.cut_to(&survivors);
            state.rounds_finished = number;
            if matches!(resume, Resume::Between { .. }) {
                resume = Resume::Between {
                    next: number as usize,
                };
            }
            continue;
        }
        // The round in play.
        let secret = r
            .secret
            .as_deref()
            .map(Bytes32::from_hex)
            .transpose()
            .map_err(|e| corrupt("secret", e))?
            .ok_or_else(|| corrupt("round", "no secret kept"))?;
        match &seating {
            Some(s) => {
                state.contributing = false;
                state.seats = seats_of(s, &kept_tables);
            }
            None => state.contributing = true,
        }
        if status == TournamentStatus::Running {
            resume = Resume::Round {
                round: number as usize - 1,
                secret: Seed(secret.0),
                seated: seating.map(|s| (s, kept_tables)),
            };
        }
    }
    let t = Tournament::new(
        row.made.id,
        row.made.code,
        row.made.created_by,
        settings,
        config,
        state,
    );
    Ok((t, resume))
}

/// Each entrant's seat in a seated round.
pub(super) fn seats_of(
    s: &KeptSeating,
    tables: &[StoredRoundTable],
) -> HashMap<EntrantId, RoundSeat> {
    let mut seats = HashMap::new();
    for (players, t) in s.tables.iter().zip(tables) {
        for e in players.iter().flatten() {
            seats.insert(
                *e,
                RoundSeat::Table {
                    id: t.table_id.clone(),
                    node: t.node_url.clone(),
                },
            );
        }
    }
    for e in &s.byes {
        seats.insert(*e, RoundSeat::Bye);
    }
    seats
}

/// A tournament another node runs (or none: finished), read for an answer.
pub(super) async fn view(online: &Online, id: &str) -> Result<Arc<Tournament>, ApiError> {
    match load(online, id).await? {
        Some((t, _)) => Ok(Arc::new(t)),
        None => Err(super::gone()),
    }
}
