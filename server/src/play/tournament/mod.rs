//! 比赛 on the server: tournaments made by the operator or, for friends, by a player (亲友赛,
//! found by a code), signed up for, and run round by round by one task on the node that made
//! them ([`runner`]). The rules — formats, seating, standings, each round's walls — are the
//! core's [`tongcheng_core::tournament`]; this is their host: sign-up, the long poll that
//! tells an entrant his table, the tables themselves (the same table task as every online
//! table, seated and dealt by the round), the live standings, and what the store keeps.
//!
//! A round: its secret is drawn and its commitment published (kept in the store) before any
//! contribution is taken; each entrant who asks for his table with that commitment adds 32
//! random bytes; when all have, or the contribution time is up, the round's seed is fixed,
//! the entrants seated (by standing; the first round by a draw from the seed), and every
//! table dealt from the round's seed. When every table's match is over, the standings book
//! the round, the cut (elimination) is made, and the round's record — secret included — is
//! published for anyone to check.

mod elsewhere;
mod kept;
mod registry;
mod requests;
mod runner;
mod sweep;
mod tables;

pub use registry::Registry;
use requests::standing_rows;
pub use requests::{enter, next_table, seat, standings};
pub use sweep::sweep;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tongcheng_api::ErrorCode;
use tongcheng_api::tournament::{
    FormatKind, NewTournament, SeatRequest, SeatState, TournamentFormat, TournamentInfo,
    TournamentSeat, TournamentStatus,
};
use tongcheng_core::fair::{Bytes32, Commitment, Contribution};
use tongcheng_core::tournament::{EntrantId, Format, Standings, TournamentConfig};

use super::Online;
use super::queue::Candidate;
use crate::auth::random_id;
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::{StoredEntrant, StoredTournament};

/// How long a seat request waits for something to tell before it answers `waiting`.
const SEAT_POLL: Duration = Duration::from_secs(25);

/// One tournament: what it was made with, and where it is (behind a lock the runner and the
/// requests share; `changed` wakes the requests waiting on it).
pub struct Tournament {
    pub id: String,
    code: Option<String>,
    made_by: Option<i64>,
    settings: NewTournament,
    config: TournamentConfig,
    state: Mutex<State>,
    /// Bumped when an answer to a seat request may change (a round announced or seated, the
    /// status): wakes the long polls.
    changed: watch::Sender<u64>,
    /// Wakes the runner (an entrant signed up, a contribution came) without waking the
    /// thousands of long polls, whose answers that does not change.
    runner: Notify,
}

/// A signed-up entrant. His [`EntrantId`] is his place in the sign-up (1-based): the earlier
/// entry wins the last tie-break.
pub struct Entrant {
    /// Who he is to seating (his devices and address keep his own accounts apart).
    pub who: Candidate,
    /// The device he signed up from: his hands are kept in his records under it, even when
    /// he never comes to the table.
    pub device: i64,
    pub name: String,
}

/// A round's seat of an entrant: the table's id and the node running it, or a bye.
#[derive(Clone, Debug)]
enum RoundSeat {
    Table { id: String, node: String },
    Bye,
}

struct State {
    status: TournamentStatus,
    entrants: Vec<Entrant>,
    by_account: HashMap<i64, EntrantId>,
    /// Rounds begun (the one in play, 1-based).
    round: u32,
    rounds_finished: u32,
    commitment: Option<Commitment>,
    /// Contributions to the round in play, while they are taken.
    contributing: bool,
    contributions: HashMap<EntrantId, Contribution>,
    /// The round in play's seats, once seated.
    seats: HashMap<EntrantId, RoundSeat>,
    standings: Standings,
    /// Each round's seating time (ms).
    seating_ms: Vec<f64>,
    /// Entrants signed up here whose earlier numbers are not known here yet, by number.
    arriving: std::collections::BTreeMap<u32, Entrant>,
    /// The round in play's tables on this node tell the runner their end here.
    round_done: Option<tokio::sync::mpsc::UnboundedSender<super::table::TableDone>>,
}

impl State {
    fn new(status: TournamentStatus) -> State {
        State {
            status,
            entrants: Vec::new(),
            by_account: HashMap::new(),
            round: 0,
            rounds_finished: 0,
            commitment: None,
            contributing: false,
            contributions: HashMap::new(),
            seats: HashMap::new(),
            standings: Standings::default(),
            seating_ms: Vec::new(),
            round_done: None,
            arriving: std::collections::BTreeMap::new(),
        }
    }

    fn entrant(&self, id: EntrantId) -> Option<&Entrant> {
        self.entrants.get((id as usize).checked_sub(1)?)
    }

    /// Still in the tournament (not cut).
    fn still_in(&self, id: EntrantId) -> bool {
        self.standings
            .get(id)
            .is_some_and(|s| s.out_after.is_none())
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadTournament, message)
}

fn gone() -> ApiError {
    ApiError::not_found("no such tournament")
}

/// The core's configuration for `settings` (checked against the API's bounds), and the
/// number of entrants it is made for.
fn configure(
    online: &Online,
    s: &NewTournament,
    friends: bool,
) -> Result<TournamentConfig, ApiError> {
    s.check(friends).map_err(bad)?;
    if let Some(at) = s.starts_at
        && at <= crate::now()
    {
        return Err(bad("the start time has passed"));
    }
    let config = core_config(online, s)?;
    // A scheduled one is checked again at its start, with the field it then has.
    config
        .check(s.entrants as usize)
        .map_err(|e| bad(e.to_string()))?;
    Ok(config)
}

/// The core's configuration of settings already checked (a kept tournament's too).
fn core_config(online: &Online, s: &NewTournament) -> Result<TournamentConfig, ApiError> {
    let format = match (&s.format.kind, s.format.rounds) {
        (FormatKind::Swiss, Some(rounds)) => Format::Swiss { rounds },
        (FormatKind::Elimination, _) if s.format.survivors.is_empty() => {
            Format::halving(s.entrants as usize)
        }
        (FormatKind::Elimination, _) => Format::Elimination {
            survivors: s.format.survivors.clone(),
        },
        _ => return Err(bad("no such format")),
    };
    let rules = online.rules_for_request(s.rules.clone())?;
    Ok(TournamentConfig {
        rules: rules.name.clone(),
        format,
        duplicate: s.duplicate,
        hands_per_match: s.hands_per_match,
        table_points: s.table_points.unwrap_or([4, 2, 1, 0]),
        bots_allowed: s.bots_allowed,
    })
}

/// Makes a tournament: an operator's (`made_by` none) or a player's 亲友赛, whose maker is
/// signed up. Its runner starts at once (it waits for the field).
pub async fn make(
    online: &Arc<Online>,
    settings: NewTournament,
    made_by: Option<Entrant>,
    quota: impl FnOnce() -> Result<(), ApiError>,
) -> Result<TournamentInfo, ApiError> {
    let friends = made_by.is_some();
    let config = configure(online, &settings, friends)?;
    // Only a tournament that would be made spends its maker's quota.
    quota()?;
    let id = random_id();
    let settings_json =
        serde_json::to_string(&settings).map_err(|e| ApiError::internal(e.to_string()))?;
    let mut code = None;
    for _ in 0..64 {
        // A 亲友赛's code as a room's is drawn (uniform over six digits).
        let c = match friends.then(super::rooms::new_code) {
            Some(None) => break,
            c => c.flatten(),
        };
        let row = StoredTournament {
            id: id.clone(),
            name: settings.name.trim().to_string(),
            code: c.clone(),
            settings: settings_json.clone(),
            created_by: made_by.as_ref().map(|e| e.who.account),
            created_at: crate::now(),
            node_url: online.node.url().to_string(),
        };
        let store = online.store.clone();
        let lease = crate::now() + online.config.tournament_lease_secs as i64;
        if blocking(move || Ok(store.create_tournament(&row, lease)?)).await? {
            code = Some(c);
            break;
        }
    }
    let code = code.ok_or_else(|| ApiError::new(ErrorCode::NoRoom, "no free code"))?;
    let t = Arc::new(Tournament::new(
        id.clone(),
        code,
        made_by.as_ref().map(|e| e.who.account),
        settings,
        config,
        State::new(TournamentStatus::SignUp),
    ));
    online
        .tournaments
        .run(online, t.clone(), kept::Resume::SignUp)?;
    let account = made_by.as_ref().map_or(0, |e| e.who.account);
    if let Some(maker) = made_by {
        enter(online, &id, maker, t.code.clone()).await?;
    }
    t.info(account)
}

impl Tournament {
    fn new(
        id: String,
        code: Option<String>,
        made_by: Option<i64>,
        settings: NewTournament,
        config: TournamentConfig,
        state: State,
    ) -> Tournament {
        let (changed, _) = watch::channel(0);
        Tournament {
            id,
            code,
            made_by,
            settings,
            config,
            runner: Notify::new(),
            state: Mutex::new(state),
            changed,
        }
    }

    /// Entrant `n` signed up (through this node): known at once. One who signed up through
    /// another node in between leaves a gap the runner fills from the store.
    fn add_entrant(&self, n: u32, entrant: Entrant) -> Result<(), ApiError> {
        let mut s = super::lock(&self.state)?;
        if n as usize > s.entrants.len() {
            // Sign-ups here finish in any order: each waits for the ones before it.
            s.arriving.insert(n, entrant);
        }
        loop {
            let e = s.entrants.len() as EntrantId + 1;
            let Some(next) = s.arriving.remove(&(e as u32)) else {
                break;
            };
            s.by_account.insert(next.who.account, e);
            s.entrants.push(next);
        }
        Ok(())
    }

    /// The entrants as the store has them, when it has more than this node knows.
    fn refresh_entrants(&self, stored: Vec<StoredEntrant>) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        if stored.len() <= s.entrants.len() {
            return;
        }
        s.entrants = stored.into_iter().map(kept::entrant_of).collect();
        let known = s.entrants.len() as u32;
        s.arriving.retain(|&n, _| n > known);
        s.by_account = s
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| (e.who.account, i as EntrantId + 1))
            .collect();
    }

    fn entrant_count(&self) -> usize {
        self.state.lock().map_or(0, |s| s.entrants.len())
    }

    fn knows(&self, account: i64) -> bool {
        self.state
            .lock()
            .is_ok_and(|s| s.by_account.contains_key(&account))
    }

    fn status_now(&self) -> Option<TournamentStatus> {
        self.state.lock().ok().map(|s| s.status.clone())
    }

    /// Wakes everyone waiting on the tournament.
    fn touch(&self) {
        self.changed.send_modify(|v| *v += 1);
    }

    fn info(&self, account: i64) -> Result<TournamentInfo, ApiError> {
        let s = super::lock(&self.state)?;
        let entered = s.by_account.contains_key(&account);
        let st = &self.settings;
        Ok(TournamentInfo {
            id: self.id.clone(),
            name: st.name.trim().to_string(),
            code: self
                .code
                .clone()
                .filter(|_| entered || self.made_by == Some(account)),
            rules: self.config.rules.clone(),
            format: match &self.config.format {
                Format::Swiss { rounds } => TournamentFormat::swiss(*rounds),
                Format::Elimination { survivors } => {
                    TournamentFormat::elimination(survivors.clone())
                }
            },
            duplicate: st.duplicate,
            hands_per_match: st.hands_per_match,
            entrants: st.entrants,
            signed_up: s.entrants.len() as u32,
            starts_at: st.starts_at,
            bots_allowed: st.bots_allowed,
            rated: st.rated,
            table_points: self.config.table_points,
            status: s.status.clone(),
            round: s.round,
            rounds: self.config.rounds() as u32,
            rounds_finished: s.rounds_finished,
            commitment: s.commitment.map(|c| c.to_hex()),
            entered,
            seating_ms: s.seating_ms.clone(),
        })
    }

    fn answer(
        &self,
        online: &Online,
        state: SeatState,
        round: u32,
        commitment: Option<Commitment>,
        table: Option<String>,
    ) -> TournamentSeat {
        TournamentSeat {
            state,
            round,
            commitment: commitment.map(|c| c.to_hex()),
            table,
            server: online.node.url().to_string(),
        }
    }

    /// The answer to a seat request if there is one now (taking its contribution when the
    /// round takes them and it names the round's commitment); `None`: wait.
    fn seat_now(
        &self,
        online: &Online,
        account: i64,
        req: &SeatRequest,
        contribution: Option<Contribution>,
    ) -> Result<Option<TournamentSeat>, ApiError> {
        let mut s = super::lock(&self.state)?;
        let Some(&e) = s.by_account.get(&account) else {
            return Err(ApiError::not_found("not signed up for this tournament"));
        };
        let (round, commitment, status) = (s.round, s.commitment, s.status.clone());
        let answer = |state, table| Some(self.answer(online, state, round, commitment, table));
        Ok(match status {
            TournamentStatus::Cancelled => answer(SeatState::Cancelled, None),
            TournamentStatus::Finished => answer(SeatState::Finished, None),
            TournamentStatus::SignUp => None,
            _ if !s.still_in(e) && round > 0 => answer(SeatState::Out, None),
            // The round asked for is not announced yet.
            _ if req.round > round => None,
            _ => match s.seats.get(&e).cloned() {
                Some(RoundSeat::Table { id, node }) => {
                    let mut a = answer(SeatState::Seated, Some(id));
                    if let Some(a) = a.as_mut() {
                        a.server = node;
                    }
                    a
                }
                Some(RoundSeat::Bye) => answer(SeatState::Bye, None),
                None if !s.contributing => None,
                None => {
                    let named = req.commitment.as_deref().map(Bytes32::from_hex);
                    let same = matches!((named, commitment), (Some(Ok(n)), Some(c)) if n == c);
                    match contribution {
                        Some(c) if same && req.round == round => {
                            if let std::collections::hash_map::Entry::Vacant(v) =
                                s.contributions.entry(e)
                            {
                                v.insert(c);
                                drop(s);
                                self.runner.notify_one();
                            }
                            None
                        }
                        _ => answer(SeatState::Commit, None),
                    }
                }
            },
        })
    }
}
