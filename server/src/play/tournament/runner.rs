//! The task that runs one tournament: it waits for the field (full, or the start time), then
//! plays each round — commit, take contributions, seat, deal, wait for every table, book,
//! cut, publish — keeping in the store, before anyone relies on it, whatever another node
//! needs to go on from where it stopped ([`super::kept`]). It holds the tournament by a
//! lease it renews; a node that finds the lease run out takes the tournament over.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tongcheng_api::tournament::TournamentStatus;
use tongcheng_core::fair::Contribution;
use tongcheng_core::tournament::fair::{round_commitment, round_seed};
use tongcheng_core::tournament::simulate::{RoundRecord, draw};
use tongcheng_core::tournament::{EntrantId, Standings, TableResult, seat_round};
use tongcheng_core::wall::Seed;

use super::super::Online;
use super::super::checkpoint::TableProgress;
use super::super::queue::Queue;
use super::super::table::TableDone;
use super::kept::{KeptSeating, Resume, Seated, seats_of};
use super::tables::{RoundPlan, live_nodes};
use super::{Tournament, standing_rows};
use crate::auth::{random_bytes, random_id};
use crate::store::StoredRoundTable;

/// Runs `t` to its end from `from`, unless another node takes it over (this node's lease
/// lost); then forgets it here (the store answers for it).
pub(super) async fn run(online: Arc<Online>, t: Arc<Tournament>, from: Resume) {
    tokio::select! {
        () = play(&online, &t, from) => {}
        () = keep_lease(&online, &t.id) => {
            tracing::warn!(tournament = %t.id, "another node took the tournament over");
        }
    }
    online.tournaments.forget(&t.id);
    // Long polls waiting on this copy ask again and are answered from the store.
    t.touch();
}

/// Renews the runner's lease every third of it; returns when another node has it.
async fn keep_lease(online: &Online, id: &str) {
    let lease = online.config.tournament_lease_secs.max(1);
    let mut tick = tokio::time::interval(Duration::from_millis(lease * 1000 / 3));
    loop {
        tick.tick().await;
        let (store, tid, me) = (
            online.store.clone(),
            id.to_string(),
            online.node.url().to_string(),
        );
        let until = crate::now() + lease as i64;
        match tokio::task::spawn_blocking(move || store.renew_tournament(&tid, &me, until)).await {
            Ok(Ok(false)) => return,
            Ok(Ok(true)) => {}
            // A store that fails now may answer next time; the lease has two more chances.
            _ => tracing::warn!(tournament = %id, "cannot renew the tournament's lease"),
        }
    }
}

async fn play(online: &Arc<Online>, t: &Arc<Tournament>, from: Resume) {
    let start = match from {
        Resume::Over => return,
        Resume::SignUp => {
            let entrants = wait_for_field(online, t).await;
            let started = entrants >= 4 && t.config.check(entrants).is_ok();
            let status = if started {
                TournamentStatus::Running
            } else {
                TournamentStatus::Cancelled
            };
            set_status(online, t, status).await;
            if !started {
                tracing::info!(tournament = %t.id, entrants, "tournament cancelled: too few entrants");
                return;
            }
            tracing::info!(tournament = %t.id, entrants, rounds = t.config.rounds(), "tournament starts");
            0
        }
        Resume::Between { next } => next,
        Resume::Round {
            round,
            secret,
            seated,
        } => {
            tracing::info!(tournament = %t.id, round = round + 1, "tournament taken over in a round");
            if let Err(e) = play_round(online, t, round, Some((secret, seated))).await {
                return stopped(online, t, round, e).await;
            }
            round + 1
        }
    };
    for round in start..t.config.rounds() {
        if let Err(e) = play_round(online, t, round, None).await {
            return stopped(online, t, round, e).await;
        }
    }
    set_status(online, t, TournamentStatus::Finished).await;
    tracing::info!(tournament = %t.id, "tournament finished");
}

async fn stopped(online: &Online, t: &Tournament, round: usize, e: String) {
    tracing::error!(tournament = %t.id, round = round + 1, error = %e, "tournament stopped");
    set_status(online, t, TournamentStatus::Cancelled).await;
}

/// Waits until the sign-up is over: every place taken (sit-and-go) or the start time; then
/// closes it in the store. The entrants then (those who signed up through other nodes too).
async fn wait_for_field(online: &Online, t: &Tournament) -> usize {
    loop {
        let n = t.entrant_count();
        let now = crate::now();
        let over = match t.settings.starts_at {
            Some(at) => now >= at,
            None => n >= t.settings.entrants as usize,
        };
        if over {
            break;
        }
        // Woken by a sign-up here; after a quiet second, the store's count (sign-ups through
        // other nodes).
        if tokio::time::timeout(Duration::from_secs(1), t.runner.notified())
            .await
            .is_ok()
        {
            continue;
        }
        let (store, id) = (online.store.clone(), t.id.clone());
        if let Ok(count) = stored(move || store.entrant_count(&id)).await
            && count as usize > t.entrant_count()
        {
            let (store, id) = (online.store.clone(), t.id.clone());
            if let Ok(all) = stored(move || store.tournament_entrants(&id)).await {
                t.refresh_entrants(all);
            }
        }
    }
    let (store, id) = (online.store.clone(), t.id.clone());
    match stored(move || store.close_sign_up(&id)).await {
        Ok(all) => t.refresh_entrants(all),
        Err(e) => tracing::error!(tournament = %t.id, error = %e, "cannot close the sign-up"),
    }
    t.entrant_count()
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

/// Runs a blocking store call off the runtime.
async fn stored<T: Send + 'static>(
    f: impl FnOnce() -> crate::store::Result<T> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// One round, from its commitment to its published record; `resumed`: its secret and, if
/// it was seated, its seating and tables as another runner kept them.
async fn play_round(
    online: &Arc<Online>,
    t: &Arc<Tournament>,
    round: usize,
    resumed: Option<(Seed, Option<Seated>)>,
) -> Result<(), String> {
    let number = round as u32 + 1;
    let (secret, seated) = match resumed {
        Some((secret, seated)) => (secret, seated),
        None => {
            // The commitment first, kept (with the secret, private till the round's end) and
            // published before a contribution is taken.
            let secret = Seed(random_bytes::<32>().map_err(|e| e.message)?);
            let commitment = round_commitment(&secret);
            let (store, id, hex, hidden) = (
                online.store.clone(),
                t.id.clone(),
                commitment.to_hex(),
                hex_of(&secret),
            );
            stored(move || store.announce_round(&id, number, &hex, &hidden)).await?;
            {
                let mut s = t.state.lock().map_err(|_| "poisoned")?;
                s.round = number;
                s.commitment = Some(commitment);
                s.seats.clear();
                s.contributions.clear();
                s.contributing = true;
            }
            t.touch();
            (secret, None)
        }
    };
    let commitment = round_commitment(&secret);
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<TableDone>();
    let (seating, tables) = match seated {
        Some(kept) => kept,
        None => {
            wait_for_contributions(online, t, number).await;
            seat(online, t, round, &secret, done_tx.clone()).await?
        }
    };
    let plan = RoundPlan::new(t, number, &secret, &seating, Some(done_tx.clone()))?;
    if let Ok(mut s) = t.state.lock() {
        s.round_done = Some(done_tx.clone());
        s.seats = seats_of(&seating, &tables);
        s.contributing = false;
    }
    t.touch();
    drop(done_tx);

    // Every table's match: each told here by the tables this node runs, and read from the
    // store for the others (and for any this runner did not see end).
    let mut results: Vec<Option<(TableResult, Vec<_>)>> = vec![None; tables.len()];
    let mut left = tables.len();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first look takes over what a stopped runner's node left.
    let mut look = true;
    while left > 0 {
        if look {
            look = false;
            let known: Vec<bool> = results.iter().map(Option::is_some).collect();
            for (i, p) in look_after_tables(online, &plan, &known).await? {
                if results[i].is_none() {
                    results[i] = Some((plan.result(i, p.scores), p.hands));
                    left -= 1;
                }
            }
            continue;
        }
        tokio::select! {
            done = done_rx.recv() => {
                let Some(done) = done else {
                    // Every table here has ended: the others are read from the store.
                    look = true;
                    tick.tick().await;
                    continue;
                };
                let i = done.table as usize;
                if results.get(i).is_some_and(Option::is_none) {
                    results[i] = Some((plan.result(i, done.scores), done.hands));
                    left -= 1;
                }
            }
            _ = tick.tick() => look = true,
        }
    }
    if let Ok(mut s) = t.state.lock() {
        s.round_done = None;
    }
    let mut booked = Vec::new();
    let mut hands = Vec::new();
    for (result, h) in results.into_iter().flatten() {
        booked.push(result);
        hands.push(h);
    }

    // Book, cut, publish.
    let record = RoundRecord {
        round: number,
        commitment,
        secret,
        contributions: seating.contributions.clone(),
        duplicate: t.config.duplicate,
        rules: plan.rules.clone(),
        seating: seating.tables.clone(),
        byes: seating.byes.clone(),
        tables: hands,
    };
    let json = serde_json::to_string(&record).map_err(|e| e.to_string())?;
    let standings = {
        let mut s = t.state.lock().map_err(|_| "poisoned")?;
        let total = s.entrants.len();
        s.standings.add_round(&t.config, &booked, &seating.byes);
        let next = t.config.field_after(total, round + 1);
        let survivors: Vec<EntrantId> = s.standings.order().into_iter().take(next).collect();
        s.standings.cut_to(&survivors);
        s.rounds_finished = number;
        let cut: Vec<u32> = s
            .standings
            .ranked()
            .iter()
            .filter(|st| st.out_after == Some(number))
            .map(|st| st.entrant as u32)
            .collect();
        (
            serde_json::to_string(&standing_rows(&s)).map_err(|e| e.to_string())?,
            cut,
        )
    };
    let (standings, cut) = standings;
    let (store, id) = (online.store.clone(), t.id.clone());
    stored(move || {
        store.cut_entrants(&id, number, &cut)?;
        store.publish_round(&id, number, &json)?;
        store.set_tournament_status(&id, TournamentStatus::Running.as_str(), Some(&standings))
    })
    .await?;
    t.touch();
    tracing::info!(tournament = %t.id, round = number, "round booked and published");
    Ok(())
}

fn hex_of(seed: &Seed) -> String {
    tongcheng_core::fair::Bytes32(seed.0).to_hex()
}

/// Seats round `round`: the seed, the order, the tables (spread over the live nodes), all
/// kept before anyone is told; then opens this node's tables.
async fn seat(
    online: &Arc<Online>,
    t: &Arc<Tournament>,
    round: usize,
    secret: &Seed,
    done: mpsc::UnboundedSender<TableDone>,
) -> Result<(KeptSeating, Vec<StoredRoundTable>), String> {
    let started = std::time::Instant::now();
    let number = round as u32 + 1;
    let (seating, contributions) = {
        let mut s = t.state.lock().map_err(|_| "poisoned")?;
        s.contributing = false;
        let mut contributions: Vec<(EntrantId, Contribution)> =
            s.contributions.iter().map(|(&e, &c)| (e, c)).collect();
        contributions.sort_by_key(|(e, _)| *e);
        let seed = round_seed(secret, &contributions);
        let order = if round == 0 {
            draw(&s.standings.order(), &seed.derive(u64::MAX))
        } else {
            s.standings.order()
        };
        let conflict = |a: EntrantId, b: EntrantId| match (s.entrant(a), s.entrant(b)) {
            (Some(x), Some(y)) => Queue::<()>::conflict(&x.who, &y.who),
            _ => false,
        };
        (
            seat_round(&order, round, t.config.bots_allowed, conflict),
            contributions,
        )
    };
    let me = online.node.url().to_string();
    let nodes = live_nodes(online).await;
    let tables: Vec<StoredRoundTable> = (0..seating.tables.len())
        .map(|i| {
            let node = nodes[i % nodes.len()].clone();
            StoredRoundTable {
                table_no: i as u32,
                table_id: random_id(),
                opened: node == me,
                node_url: node,
                progress: None,
                done: false,
            }
        })
        .collect();
    let kept = KeptSeating {
        contributions,
        tables: seating.tables.clone(),
        byes: seating.byes.clone(),
    };
    let plan = RoundPlan::new(t, number, secret, &kept, Some(done))?;
    let json = serde_json::to_string(&kept).map_err(|e| e.to_string())?;
    let mut seats: Vec<(u32, Option<u32>)> = Vec::new();
    for (i, players) in kept.tables.iter().enumerate() {
        seats.extend(
            players
                .iter()
                .flatten()
                .map(|&e| (e as u32, Some(i as u32))),
        );
    }
    seats.extend(kept.byes.iter().map(|&e| (e as u32, None)));
    let (store, id, rows) = (online.store.clone(), t.id.clone(), tables.clone());
    stored(move || store.seat_round(&id, number, &json, &rows, &seats)).await?;
    plan.open_here(online, &tables)?;
    // The whole seating: the order, its rows kept, this node's tables opened.
    let ms = (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0;
    if let Ok(mut s) = t.state.lock() {
        s.seating_ms.push(ms);
    }
    let (store, id) = (online.store.clone(), t.id.clone());
    stored(move || store.round_seated_in(&id, number, ms)).await?;
    tracing::info!(
        tournament = %t.id,
        round = number,
        tables = tables.len(),
        nodes = nodes.len(),
        "round seated"
    );
    Ok((kept, tables))
}

/// The round's tables as the store has them: the progress of each finished one not in
/// `known`; and every unfinished one whose node has stopped (or is this node in an earlier
/// life) opened here.
async fn look_after_tables(
    online: &Arc<Online>,
    plan: &RoundPlan,
    known: &[bool],
) -> Result<Vec<(usize, TableProgress)>, String> {
    let (store, id, number) = (online.store.clone(), plan.tournament.clone(), plan.number);
    let rows = stored(move || store.round_tables(&id, number, false)).await?;
    let live = live_nodes(online).await;
    let me = online.node.url();
    let mut out = Vec::new();
    for row in rows {
        let i = row.table_no as usize;
        if known.get(i).copied().unwrap_or(true) {
            continue;
        }
        let stopped = !live.contains(&row.node_url);
        let lost_here = row.node_url == me && row.opened && !online.runs_table(&row.table_id);
        if !row.done && !stopped && !lost_here {
            continue;
        }
        let (store, id, no) = (online.store.clone(), plan.tournament.clone(), row.table_no);
        let progress = stored(move || store.round_table_progress(&id, number, no)).await?;
        let progress: Option<TableProgress> = match progress {
            Some(p) => Some(serde_json::from_str(&p).map_err(|e| e.to_string())?),
            None => None,
        };
        if row.done {
            out.extend(progress.map(|p| (i, p)));
            continue;
        }
        tracing::info!(table = %row.table_id, from = %row.node_url, "round table taken over");
        let (store, id, to) = (
            online.store.clone(),
            plan.tournament.clone(),
            me.to_string(),
        );
        let won = stored(move || {
            store.move_round_table(&id, number, no, &to)?;
            store.open_round_table(&id, number, no, &to)
        })
        .await?;
        if won {
            plan.open(online, i, &row.table_id, progress)?;
        }
    }
    Ok(out)
}

/// Until every entrant still in has contributed (here, or through another node: read from
/// the store every quarter second), or the contribution time is up.
async fn wait_for_contributions(online: &Online, t: &Tournament, number: u32) {
    let until = tokio::time::Instant::now() + Duration::from_millis(online.config.contribute_ms);
    // Only entrants still in contribute (the others are told they are out).
    let field = t.state.lock().map_or(0, |s| s.standings.order().len());
    loop {
        let (store, id) = (online.store.clone(), t.id.clone());
        if let Ok(elsewhere) = stored(move || store.round_contributions(&id, number)).await
            && let Ok(mut s) = t.state.lock()
        {
            for (e, hex) in elsewhere {
                if let Ok(c) = Contribution::from_hex(&hex) {
                    s.contributions.entry(EntrantId::from(e)).or_insert(c);
                }
            }
        }
        if t.state.lock().is_ok_and(|s| s.contributions.len() >= field) {
            return;
        }
        let next = (tokio::time::Instant::now() + Duration::from_millis(250)).min(until);
        if tokio::time::timeout_at(next, t.runner.notified())
            .await
            .is_err()
            && tokio::time::Instant::now() >= until
        {
            return;
        }
    }
}
