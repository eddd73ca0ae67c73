//! A seat request for a tournament another node runs, answered from the store: the same
//! answers as the runner's ([`super::Tournament::seat_now`]), read from the rows the runner
//! keeps (the round, its seats, the entrant's cut), and a contribution kept for the runner
//! to take when it seats the round. Polled every quarter second for the long poll's time.

use std::time::Duration;

use tongcheng_api::tournament::{SeatRequest, SeatState, TournamentSeat, TournamentStatus};
use tongcheng_core::fair::{Bytes32, Commitment, Contribution};

use super::super::Online;
use super::{SEAT_POLL, gone};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::SeatLookup;

/// How often the long poll reads the store again.
const STORE_POLL: Duration = Duration::from_millis(250);

pub(super) async fn seat(
    online: &Online,
    id: &str,
    account: i64,
    req: &SeatRequest,
    contribution: Option<Contribution>,
) -> Result<TournamentSeat, ApiError> {
    let until = tokio::time::Instant::now() + SEAT_POLL;
    let mut given = false;
    loop {
        let (store, tid) = (online.store.clone(), id.to_string());
        let look = blocking(move || Ok(store.seat_lookup(&tid, account)?))
            .await?
            .ok_or_else(gone)?;
        let Some(entrant) = look.entrant else {
            return Err(ApiError::not_found("not signed up for this tournament"));
        };
        let round = look.round.as_ref().map_or(0, |r| r.0);
        let commitment = look
            .round
            .as_ref()
            .and_then(|r| Commitment::from_hex(&r.1).ok());
        let answer = |state, table: Option<(String, String)>| TournamentSeat {
            state,
            round,
            commitment: commitment.map(|c| c.to_hex()),
            server: table
                .as_ref()
                .map_or_else(|| online.node.url().to_string(), |t| t.1.clone()),
            table: table.map(|t| t.0),
        };
        match now(&look, req) {
            Now::Answer(state) => return Ok(answer(state, None)),
            Now::Table(table) => return Ok(answer(SeatState::Seated, Some(table))),
            Now::Wait => {}
            Now::Contribute => {
                let named = req.commitment.as_deref().map(Bytes32::from_hex);
                let same = matches!((named, commitment), (Some(Ok(n)), Some(c)) if n == c);
                match contribution {
                    Some(c) if same && req.round == round => {
                        if !given {
                            let (store, tid) = (online.store.clone(), id.to_string());
                            let hex = c.to_hex();
                            blocking(move || {
                                Ok(store.add_contribution(&tid, round, entrant, &hex)?)
                            })
                            .await?;
                            given = true;
                        }
                    }
                    _ => return Ok(answer(SeatState::Commit, None)),
                }
            }
        }
        if tokio::time::Instant::now() + STORE_POLL >= until {
            return Ok(TournamentSeat {
                state: SeatState::Waiting,
                round: req.round,
                commitment: None,
                table: None,
                server: online.node.url().to_string(),
            });
        }
        tokio::time::sleep(STORE_POLL).await;
    }
}

/// What the rows say now.
enum Now {
    Answer(SeatState),
    Table((String, String)),
    /// The round takes contributions.
    Contribute,
    /// Nothing to tell yet (seated at a table its node has not opened yet among them: a join
    /// now would find no table there).
    Wait,
}

fn now(look: &SeatLookup, req: &SeatRequest) -> Now {
    let Some((round, _, seated)) = look.round.clone() else {
        return match TournamentStatus::parse(&look.status) {
            TournamentStatus::Cancelled => Now::Answer(SeatState::Cancelled),
            _ => Now::Wait,
        };
    };
    match TournamentStatus::parse(&look.status) {
        TournamentStatus::Cancelled => Now::Answer(SeatState::Cancelled),
        TournamentStatus::Finished => Now::Answer(SeatState::Finished),
        TournamentStatus::SignUp => Now::Wait,
        _ if look.out_after.is_some() => Now::Answer(SeatState::Out),
        _ if req.round > round => Now::Wait,
        _ if seated => match look.seat.clone() {
            Some(Some((table, node, true))) => Now::Table((table, node)),
            Some(Some(_)) => Now::Wait,
            Some(None) => Now::Answer(SeatState::Bye),
            None => Now::Answer(SeatState::Out),
        },
        _ => Now::Contribute,
    }
}
