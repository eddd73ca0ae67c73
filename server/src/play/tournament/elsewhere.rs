//! A seat request for a tournament another node runs, answered from the store: the same
//! answers as the runner's ([`super::Tournament::seat_now`]), read from the rows the runner
//! keeps (the round, its seats, the entrant's cut), and a contribution kept for the runner
//! to take when it seats the round. While an answer waits, one watcher per tournament and
//! node reads the tournament's [`TournamentMark`] every quarter second and wakes every
//! entrant waiting on it when it changes: a node's store reads between rounds do not grow
//! with its entrants.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

use tongcheng_api::tournament::{SeatRequest, SeatState, TournamentSeat, TournamentStatus};
use tongcheng_core::fair::{Bytes32, Commitment, Contribution};

use super::super::Online;
use super::{SEAT_POLL, gone};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::{SeatLookup, Store, TournamentMark};

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
    let mut marks = online.tournaments.watches.watch(&online.store, id);
    loop {
        marks.borrow_and_update();
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
        match tokio::time::timeout_at(until, marks.changed()).await {
            Ok(Ok(())) => {}
            // The watcher stopped (nobody else waited a moment ago): a new one, after a poll's
            // pause (so a watcher that cannot start costs a read per poll, not a spin).
            Ok(Err(_)) => {
                tokio::time::sleep(STORE_POLL).await;
                marks = online.tournaments.watches.watch(&online.store, id);
            }
            Err(_) => {
                return Ok(TournamentSeat {
                    state: SeatState::Waiting,
                    round: req.round,
                    commitment: None,
                    table: None,
                    server: online.node.url().to_string(),
                });
            }
        }
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

type Marks = Arc<watch::Sender<Option<TournamentMark>>>;

/// The tournaments this node's entrants wait on, each with its watcher's channel.
#[derive(Default)]
pub struct Watches(Arc<Mutex<HashMap<String, Marks>>>);

impl Watches {
    /// The marks of tournament `id`, read by one watcher however many wait on it (started
    /// here if none runs; it stops when nobody waits).
    fn watch(&self, store: &Arc<dyn Store>, id: &str) -> watch::Receiver<Option<TournamentMark>> {
        let Ok(mut map) = self.0.lock() else {
            // A poisoned map: a channel already closed (its waiter reads the store each poll).
            return watch::channel(None).1;
        };
        if let Some(tx) = map.get(id) {
            return tx.subscribe();
        }
        let (tx, rx) = watch::channel(None);
        let tx = Arc::new(tx);
        map.insert(id.to_string(), tx.clone());
        tokio::spawn(watcher(self.0.clone(), store.clone(), id.to_string(), tx));
        rx
    }
}

/// Reads `id`'s mark every quarter second while anyone waits on it, telling them when it
/// changes.
async fn watcher(
    map: Arc<Mutex<HashMap<String, Marks>>>,
    store: Arc<dyn Store>,
    id: String,
    tx: Marks,
) {
    loop {
        {
            // Nobody waits: stop (under the map's lock, so nobody subscribes meanwhile).
            let Ok(mut m) = map.lock() else { return };
            if tx.receiver_count() == 0 {
                m.remove(&id);
                return;
            }
        }
        let (s, i) = (store.clone(), id.clone());
        if let Ok(Ok(mark)) = tokio::task::spawn_blocking(move || s.tournament_mark(&i)).await {
            tx.send_if_modified(|m| {
                let changed = *m != mark;
                *m = mark;
                changed
            });
        }
        tokio::time::sleep(STORE_POLL).await;
    }
}
