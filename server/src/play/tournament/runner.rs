//! The task that runs one tournament: it waits for the field (full, or the start time), then
//! plays each round — commit, take contributions, seat, deal, wait for every table, book,
//! cut, publish — and keeps what must last in the store.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tongcheng_api::tournament::TournamentStatus;
use tongcheng_core::fair::Contribution;
use tongcheng_core::protocol::RoundTable;
use tongcheng_core::tournament::fair::{round_commitment, round_seed, table_seed};
use tongcheng_core::tournament::simulate::{RoundRecord, draw};
use tongcheng_core::tournament::{EntrantId, Seating, Standings, TableResult, seat_round};
use tongcheng_core::wall::Seed;

use super::super::Online;
use super::super::queue::Queue;
use super::super::table::{RoundEntrant, RoundSeating, TableDone, TableTask};
use super::{RoundSeat, Tournament, standing_rows};
use crate::auth::{random_bytes, random_id};

/// Runs `t` to its end.
pub(super) async fn run(online: Arc<Online>, t: Arc<Tournament>) {
    let entrants = wait_for_field(&t).await;
    let started = entrants >= 4 && t.config.check(entrants).is_ok();
    set_status(
        &online,
        &t,
        if started {
            TournamentStatus::Running
        } else {
            TournamentStatus::Cancelled
        },
    )
    .await;
    if !started {
        tracing::info!(tournament = %t.id, entrants, "tournament cancelled: too few entrants");
        return;
    }
    tracing::info!(tournament = %t.id, entrants, rounds = t.config.rounds(), "tournament starts");
    for round in 0..t.config.rounds() {
        if let Err(e) = play_round(&online, &t, round).await {
            tracing::error!(tournament = %t.id, round = round + 1, error = %e, "tournament stopped");
            set_status(&online, &t, TournamentStatus::Cancelled).await;
            return;
        }
    }
    set_status(&online, &t, TournamentStatus::Finished).await;
    tracing::info!(tournament = %t.id, "tournament finished");
}

/// Waits until the sign-up is over: every place taken (sit-and-go) or the start time. The
/// entrants then.
async fn wait_for_field(t: &Tournament) -> usize {
    loop {
        let n = t.state.lock().map_or(0, |s| s.entrants.len());
        let now = crate::now();
        match t.settings.starts_at {
            Some(at) if now >= at => return n,
            None if n >= t.settings.entrants as usize => return n,
            Some(at) => {
                let wait = Duration::from_secs((at - now).max(1) as u64);
                let _ = tokio::time::timeout(wait, t.runner.notified()).await;
            }
            None => t.runner.notified().await,
        }
    }
}

/// Sets the status (the standings start when the tournament does) and keeps it.
async fn set_status(online: &Online, t: &Tournament, status: TournamentStatus) {
    let standings = match t.state.lock() {
        Ok(mut s) => {
            if status == TournamentStatus::Running {
                let ids: Vec<EntrantId> = (1..=s.entrants.len() as EntrantId).collect();
                s.standings = Standings::new(&ids);
            }
            s.status = status.clone();
            serde_json::to_string(&standing_rows(&s)).ok()
        }
        Err(_) => None,
    };
    t.touch();
    let (store, id) = (online.store.clone(), t.id.clone());
    let kept = tokio::task::spawn_blocking(move || {
        store.set_tournament_status(&id, status.as_str(), standings.as_deref())
    })
    .await;
    if !matches!(kept, Ok(Ok(()))) {
        tracing::error!(tournament = %t.id, "cannot keep the tournament's status");
    }
}

/// One round, from its commitment to its published record.
async fn play_round(online: &Arc<Online>, t: &Arc<Tournament>, round: usize) -> Result<(), String> {
    // The commitment first, kept and published before a contribution is taken.
    let secret = Seed(random_bytes::<32>().map_err(|e| e.message)?);
    let commitment = round_commitment(&secret);
    let number = round as u32 + 1;
    {
        let (store, id, hex) = (online.store.clone(), t.id.clone(), commitment.to_hex());
        tokio::task::spawn_blocking(move || store.announce_round(&id, number, &hex))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    }
    {
        let mut s = t.state.lock().map_err(|_| "poisoned")?;
        s.round = number;
        s.commitment = Some(commitment);
        s.seats.clear();
        s.contributions.clear();
        s.contributing = true;
    }
    t.touch();
    wait_for_contributions(online, t).await;

    // The round's seed, the order, the seating.
    let seating_started = std::time::Instant::now();
    let (seating, order_len, contributions, entrants) = {
        let mut s = t.state.lock().map_err(|_| "poisoned")?;
        s.contributing = false;
        let mut contributions: Vec<(EntrantId, Contribution)> =
            s.contributions.iter().map(|(&e, &c)| (e, c)).collect();
        contributions.sort_by_key(|(e, _)| *e);
        let seed = round_seed(&secret, &contributions);
        let order = if round == 0 {
            draw(&s.standings.order(), &seed.derive(u64::MAX))
        } else {
            s.standings.order()
        };
        let conflict = |a: EntrantId, b: EntrantId| match (s.entrant(a), s.entrant(b)) {
            (Some(x), Some(y)) => Queue::<()>::conflict(&x.who, &y.who),
            _ => false,
        };
        let seating = seat_round(&order, round, t.config.bots_allowed, conflict);
        let entrants: HashMap<EntrantId, RoundEntrant> = order
            .iter()
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
        (seating, order.len(), (contributions, seed), entrants)
    };
    let (contributions, seed) = contributions;
    let rules = t.config.table_rules().map_err(|e| e.to_string())?;

    // The tables, each dealt from the round's seed.
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<TableDone>();
    let mut seats = HashMap::new();
    {
        let mut tables = super::super::lock(&online.lobby.tables).map_err(|e| e.message)?;
        for (i, players) in seating.tables.iter().enumerate() {
            let id = random_id();
            let people = players.map(|p| p.and_then(|e| entrants.get(&e).cloned()));
            for e in players.iter().flatten() {
                seats.insert(*e, RoundSeat::Table(id.clone()));
            }
            let seated = RoundSeating {
                seat: RoundTable {
                    tournament: t.id.clone(),
                    round: number,
                    table: i as u32,
                    commitment,
                },
                match_seed: table_seed(&seed, t.config.duplicate, i),
                entrants: people,
                done: done_tx.clone(),
            };
            let rated = t.settings.rated;
            let task = |rx| {
                let task = TableTask::new(
                    id.clone(),
                    online.config.clone(),
                    rules.clone(),
                    0,
                    online.store.clone(),
                    rx,
                )
                .tournament(seated);
                if rated { task.ranked() } else { task }
            };
            online.spawn_table(&mut tables, &id, task);
        }
    }
    drop(done_tx);
    for e in &seating.byes {
        seats.insert(*e, RoundSeat::Bye);
    }
    if let Ok(mut s) = t.state.lock() {
        s.seats = seats;
        s.seating_ms
            .push((seating_started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0);
    }
    t.touch();
    tracing::info!(
        tournament = %t.id,
        round = number,
        tables = seating.tables.len(),
        entrants = order_len,
        "round seated"
    );

    // Every table's match.
    let Seating { tables, byes } = seating;
    let mut results: Vec<Option<TableDone>> = (0..tables.len()).map(|_| None).collect();
    let mut left = tables.len();
    while left > 0 {
        let done = done_rx
            .recv()
            .await
            .ok_or("a table closed without its result")?;
        let i = done.table as usize;
        if results.get(i).is_some_and(Option::is_none) {
            results[i] = Some(done);
            left -= 1;
        }
    }
    let mut booked = Vec::new();
    let mut hands = Vec::new();
    for (players, done) in tables.iter().zip(results.into_iter().flatten()) {
        booked.push(TableResult {
            players: *players,
            scores: done.scores,
        });
        hands.push(done.hands);
    }

    // Book, cut, publish.
    let record = RoundRecord {
        round: number,
        commitment,
        secret,
        contributions,
        duplicate: t.config.duplicate,
        rules,
        seating: tables,
        byes: byes.clone(),
        tables: hands,
    };
    let json = serde_json::to_string(&record).map_err(|e| e.to_string())?;
    let standings = {
        let mut s = t.state.lock().map_err(|_| "poisoned")?;
        let total = s.entrants.len();
        s.standings.add_round(&t.config, &booked, &byes);
        let next = t.config.field_after(total, round + 1);
        let survivors: Vec<EntrantId> = s.standings.order().into_iter().take(next).collect();
        s.standings.cut_to(&survivors);
        s.rounds_finished = number;
        serde_json::to_string(&standing_rows(&s)).map_err(|e| e.to_string())?
    };
    let (store, id) = (online.store.clone(), t.id.clone());
    tokio::task::spawn_blocking(move || {
        store.publish_round(&id, number, &json)?;
        store.set_tournament_status(&id, TournamentStatus::Running.as_str(), Some(&standings))
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    t.touch();
    tracing::info!(tournament = %t.id, round = number, "round booked and published");
    Ok(())
}

/// Until every entrant still in has contributed, or the contribution time is up.
async fn wait_for_contributions(online: &Online, t: &Tournament) {
    let until = tokio::time::Instant::now() + Duration::from_millis(online.config.contribute_ms);
    // Only entrants still in contribute (the others are told they are out).
    let field = t.state.lock().map_or(0, |s| s.standings.order().len());
    loop {
        if t.state.lock().is_ok_and(|s| s.contributions.len() >= field) {
            return;
        }
        if tokio::time::timeout_at(until, t.runner.notified())
            .await
            .is_err()
        {
            return;
        }
    }
}
