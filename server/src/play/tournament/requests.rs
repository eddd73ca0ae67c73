//! The requests an entrant makes of a tournament: sign up, the long poll for his table, the
//! standings.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use tongcheng_api::ErrorCode;
use tongcheng_api::tournament::{
    SeatRequest, SeatState, StandingRow, StandingsPage, TournamentInfo, TournamentSeat,
};
use tongcheng_core::fair::Bytes32;
use tongcheng_core::protocol::{
    ClientMsg, ErrorCode as WireCode, NextTable, NextTableState, ServerMsg,
};
use tongcheng_core::tournament::Standing;

use super::super::{Online, lock};
use super::{Entrant, SEAT_POLL, State, bad, elsewhere, gone, kept};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::{Entry, StoredEntrant};

/// Signs `entrant` up (again: the same answer).
pub async fn enter(
    online: &Online,
    id: &str,
    entrant: Entrant,
    code: Option<String>,
) -> Result<TournamentInfo, ApiError> {
    let t = online.tournaments.find(online, id).await?;
    if t.code.is_some() && t.code != code {
        return Err(gone());
    }
    let account = entrant.who.account;
    let kept = StoredEntrant {
        entrant: 0,
        account,
        device: entrant.device,
        name: entrant.name.clone(),
        devices: entrant.who.devices.clone(),
        ip: entrant.who.ip.map(|ip| ip.to_string()),
        entered_at: crate::now(),
    };
    // The store numbers entrants, whichever node they sign up through.
    let (store, tid, places) = (online.store.clone(), id.to_string(), t.settings.entrants);
    let entry = blocking(move || Ok(store.enter_tournament(&tid, &kept, places)?)).await?;
    let n = match entry {
        Entry::Closed => {
            return Err(ApiError::new(
                ErrorCode::SignUpClosed,
                "the tournament's sign-up is over",
            ));
        }
        Entry::Full => {
            return Err(ApiError::new(
                ErrorCode::SignUpClosed,
                "every place in the tournament is taken",
            ));
        }
        Entry::Entered(n) | Entry::Already(n) => n,
    };
    match online.tournaments.get(id) {
        Ok(here) => {
            here.add_entrant(n, entrant)?;
            here.runner.notify_one();
            here.info(account)
        }
        // Another node runs it: its runner reads the new entrant from the store.
        Err(_) => kept::view(online, id).await?.info(account),
    }
}

/// Where `account` sits in round `req.round` (or why not): a long poll.
pub async fn seat(
    online: &Online,
    id: &str,
    account: i64,
    req: SeatRequest,
) -> Result<TournamentSeat, ApiError> {
    let contribution = match req.contribution.as_deref().map(Bytes32::from_hex) {
        Some(Err(e)) => return Err(bad(format!("contribution: {e}"))),
        Some(Ok(c)) => Some(c),
        None => None,
    };
    let Ok(t) = online.tournaments.get(id) else {
        // Another node runs it (or nobody: it is over): the store answers.
        return elsewhere::seat(online, id, account, &req, contribution).await;
    };
    if !t.knows(account) {
        // Signed up through another node since this one last read the entrants? The whole
        // list is read only when the store has more of them (a stranger's asking reads a count).
        let (store, tid) = (online.store.clone(), id.to_string());
        let known = t.entrant_count();
        let all = blocking(move || {
            Ok(if store.entrant_count(&tid)? as usize > known {
                Some(store.tournament_entrants(&tid)?)
            } else {
                None
            })
        })
        .await?;
        if let Some(all) = all {
            t.refresh_entrants(all);
        }
    }
    let mut changed = t.changed.subscribe();
    let until = tokio::time::Instant::now() + SEAT_POLL;
    loop {
        if let Some(answer) = t.seat_now(online, account, &req, contribution)? {
            if answer.state != SeatState::Seated || answer.server == online.node.url() {
                return Ok(answer);
            }
            // A table on another node: told once that node has opened it.
            let (store, tid, table) = (
                online.store.clone(),
                id.to_string(),
                answer.table.clone().unwrap_or_default(),
            );
            let round = answer.round;
            if blocking(move || Ok(store.round_table_opened(&tid, round, &table)?)).await? {
                return Ok(answer);
            }
            if tokio::time::Instant::now() >= until {
                return Ok(t.answer(online, SeatState::Waiting, req.round, None, None));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        match tokio::time::timeout_at(until, changed.changed()).await {
            Ok(Ok(())) => continue,
            // The tournament's runner is gone, or the poll's time is up.
            _ => {
                return Ok(t.answer(online, SeatState::Waiting, req.round, None, None));
            }
        }
    }
}

/// 下一桌 asked on a table connection ([`ClientMsg::NextTable`]): the seat request's answer
/// sent as a [`ServerMsg::NextTable`] frame on `out` once there is one — a `waiting` is
/// asked again here, so the entrant's socket carries no polling. The connection aborts this
/// when it closes or asks again.
pub async fn next_table(
    online: Arc<Online>,
    account: i64,
    msg: ClientMsg,
    out: mpsc::Sender<String>,
) {
    let ClientMsg::NextTable {
        tournament,
        round,
        commitment,
        contribution,
    } = msg
    else {
        return;
    };
    let req = SeatRequest {
        round,
        commitment: commitment.map(|c| c.to_hex()),
        contribution: contribution.map(|c| c.to_hex()),
    };
    let frame = loop {
        match seat(&online, &tournament, account, req.clone()).await {
            Ok(answer) => {
                if let Some(notice) = notice(&tournament, answer) {
                    break ServerMsg::NextTable(Box::new(notice));
                }
                // A wait normally ends after the long poll's time; one that ends at once
                // (its runner just went) must not make this a busy loop.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => {
                let code = if e.code.status() >= 500 {
                    WireCode::Internal
                } else {
                    WireCode::BadTournament
                };
                break ServerMsg::error(code, e.message);
            }
        }
    };
    let _ = out.send(frame.to_json()).await;
}

/// The seat answer as the table connection says it (none: still waiting).
fn notice(tournament: &str, a: TournamentSeat) -> Option<NextTable> {
    let state = match a.state {
        SeatState::Commit => NextTableState::Commit,
        SeatState::Seated => NextTableState::Seated,
        SeatState::Bye => NextTableState::Bye,
        SeatState::Out => NextTableState::Out,
        SeatState::Finished => NextTableState::Finished,
        SeatState::Cancelled => NextTableState::Cancelled,
        SeatState::Waiting | SeatState::Other(_) => return None,
    };
    Some(NextTable {
        tournament: tournament.to_string(),
        round: a.round,
        state,
        commitment: a
            .commitment
            .as_deref()
            .and_then(|c| Bytes32::from_hex(c).ok()),
        table: a.table,
        server: a.server,
    })
}

/// An entrant's row in the standings, at `rank` (0-based).
fn standing_row(s: &State, rank: usize, st: &Standing) -> StandingRow {
    let entrant = s.entrant(st.entrant);
    StandingRow {
        rank: rank as u32 + 1,
        entrant: st.entrant,
        account: entrant.map_or(0, |e| e.who.account),
        name: entrant.map_or_else(String::new, |e| e.name.clone()),
        table_points: st.table_points,
        score: st.score,
        matches: st.matches,
        out_after: st.out_after,
    }
}

/// The whole standings, best first (what the store keeps after each round).
pub(super) fn standing_rows(s: &State) -> Vec<StandingRow> {
    s.standings
        .ranked()
        .into_iter()
        .enumerate()
        .map(|(i, st)| standing_row(s, i, st))
        .collect()
}

/// A page of the standings, with `account`'s own row.
pub async fn standings(
    online: &Online,
    id: &str,
    account: i64,
    offset: u32,
    limit: u32,
) -> Result<StandingsPage, ApiError> {
    let t = online.tournaments.find(online, id).await?;
    let s = lock(&t.state)?;
    let ranked = s.standings.ranked();
    let rows = ranked
        .iter()
        .enumerate()
        .skip(offset as usize)
        .take(limit as usize)
        .map(|(i, st)| standing_row(&s, i, st))
        .collect();
    let mine = s.by_account.get(&account);
    let me = ranked
        .iter()
        .enumerate()
        .find(|(_, st)| Some(&st.entrant) == mine)
        .map(|(i, st)| standing_row(&s, i, st));
    Ok(StandingsPage {
        rounds: s.standings.rounds(),
        total: ranked.len() as u32,
        offset,
        rows,
        me,
    })
}
