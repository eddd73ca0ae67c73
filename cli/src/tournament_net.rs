//! `tongcheng tournament list|create|join|standings|verify --server`: the server's
//! tournaments from the terminal. `join` signs up and plays every round at the online table
//! the round seats you at (moves as lines, as `tongcheng play --online`: a pipe from
//! `/dev/null` lets every decision time out); `verify` fetches every finished round and
//! checks its walls against its commitment.

use std::io::{Error, Result};

use serde_json::json;
use tongcheng_client::HttpApi;
use tongcheng_client::api::endpoints::{
    CreateFriendsTournament, CreateTournament, EnterTournament, ListTournaments, ShowTournament,
    TournamentRound, TournamentStandings,
};
use tongcheng_client::api::tournament::{
    EntryRequest, NewTournament, RoundId, SeatState, StandingsQuery, TournamentFormat,
    TournamentId, TournamentQuery,
};
use tongcheng_client::api::{NoBody, NoParams};
use tongcheng_client::tournament::next_table_blocking;
use tongcheng_core::tournament::simulate::RoundRecord;

use crate::net_cmd::{ServerArgs, call};

#[derive(clap::Args)]
pub struct CreateArgs {
    pub name: String,
    #[arg(long, default_value = "guobiao")]
    pub rules: String,
    /// swiss or elimination (打立出局).
    #[arg(long, default_value = "swiss")]
    pub format: String,
    /// Swiss rounds.
    #[arg(long, default_value_t = 3)]
    pub rounds: u8,
    /// Elimination: entrants left after each round (e.g. 32,16,8,4); none: halving.
    #[arg(long, value_delimiter = ',')]
    pub survivors: Vec<u32>,
    /// 复式: every table of a round plays the same walls.
    #[arg(long)]
    pub duplicate: bool,
    #[arg(long, default_value_t = 1)]
    pub hands: u8,
    /// Sit-and-go: starts when this many have signed up.
    #[arg(long, default_value_t = 8)]
    pub entrants: u32,
    /// Scheduled: starts at this Unix time with whoever signed up.
    #[arg(long)]
    pub starts_at: Option<i64>,
    /// Bots fill a round's last table (else the last entrants sit it out).
    #[arg(long)]
    pub bots: bool,
    /// Matches move ratings.
    #[arg(long)]
    pub rated: bool,
    /// A public tournament of any size, made with the operator's token (read from
    /// $TONGCHENG_ADMIN_TOKEN, which stays out of `ps`); without it, a 亲友赛 for friends,
    /// found by its code.
    #[arg(long)]
    pub public: bool,
}

fn other(e: impl ToString) -> Error {
    Error::other(e.to_string())
}

fn print(v: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string(v)?);
    Ok(())
}

pub fn list(server: &ServerArgs, code: Option<String>) -> Result<()> {
    let list = call(server, |api| {
        api.call::<ListTournaments>(
            &NoParams {},
            &TournamentQuery { code: code.clone() },
            &NoBody,
        )
    })?;
    for t in &list.tournaments {
        print(t)?;
    }
    Ok(())
}

pub fn create(server: &ServerArgs, a: CreateArgs) -> Result<()> {
    let format = match a.format.as_str() {
        "swiss" => TournamentFormat::swiss(a.rounds),
        "elimination" => TournamentFormat::elimination(a.survivors),
        other => {
            return Err(Error::other(format!(
                "no format '{other}' (swiss, elimination)"
            )));
        }
    };
    let settings = NewTournament {
        name: a.name,
        rules: Some(a.rules),
        format,
        duplicate: a.duplicate,
        hands_per_match: a.hands,
        entrants: a.entrants,
        starts_at: a.starts_at,
        bots_allowed: a.bots,
        rated: a.rated,
        table_points: None,
    };
    let made = match a.public.then(|| std::env::var("TONGCHENG_ADMIN_TOKEN")) {
        Some(Err(_)) => {
            return Err(Error::other(
                "--public needs the operator's token in $TONGCHENG_ADMIN_TOKEN",
            ));
        }
        Some(Ok(token)) => {
            let mut api = HttpApi::new(&server.server).map_err(other)?;
            api.set_token(Some(token));
            api.call::<CreateTournament>(&NoParams {}, &NoParams {}, &settings)
                .map_err(other)?
        }
        None => call(server, |api| {
            api.call::<CreateFriendsTournament>(&NoParams {}, &NoParams {}, &settings)
        })?,
    };
    print(&made)
}

pub fn standings(server: &ServerArgs, id: String, offset: u32, limit: u32) -> Result<()> {
    let page = call(server, |api| {
        api.call::<TournamentStandings>(
            &TournamentId { id: id.clone() },
            &StandingsQuery {
                offset: Some(offset),
                limit: Some(limit),
            },
            &NoBody,
        )
    })?;
    print(&page)
}

/// Signs up, then sits at each round's table until the tournament is over for us.
pub fn join(server: &ServerArgs, id: String, code: Option<String>, ascii: bool) -> Result<()> {
    let path = TournamentId { id: id.clone() };
    let info = call(server, |api| {
        api.call::<EnterTournament>(&path, &NoParams {}, &EntryRequest { code: code.clone() })
    })?;
    print(
        &json!({"signed_up": info.id, "name": info.name, "entrants": info.entrants,
                  "signed": info.signed_up, "status": info.status}),
    )?;
    let mut round = 1;
    loop {
        let seat = call(server, |api| next_table_blocking(api, &id, round))?;
        print(
            &json!({"round": seat.round, "state": seat.state, "table": seat.table,
                      "commitment": seat.commitment}),
        )?;
        match seat.state {
            SeatState::Seated => {
                let table = seat.table.clone().unwrap_or_default();
                let node = if seat.server.is_empty() {
                    server.server.clone()
                } else {
                    seat.server.clone()
                };
                crate::play::play_online_table(&node, &table, server.db.clone(), ascii)?;
            }
            SeatState::Bye => {}
            _ => break,
        }
        round = seat.round.saturating_add(1);
    }
    let me = call(server, |api| {
        api.call::<TournamentStandings>(
            &path,
            &StandingsQuery {
                offset: Some(0),
                limit: Some(1),
            },
            &NoBody,
        )
    })?;
    print(&json!({"tournament": id, "me": me.me}))
}

/// Every finished round of `id`, fetched and checked; one JSON line each. An error when any
/// does not verify.
pub fn verify(server: &ServerArgs, id: String) -> Result<()> {
    let path = TournamentId { id: id.clone() };
    let info = call(server, |api| {
        api.call::<ShowTournament>(&path, &NoParams {}, &NoBody)
    })?;
    let mut failed = 0;
    for round in 1..=info.rounds_finished {
        let published = call(server, |api| {
            api.call::<TournamentRound>(
                &RoundId {
                    id: id.clone(),
                    round,
                },
                &NoParams {},
                &NoBody,
            )
        })?;
        let line = match serde_json::from_str::<RoundRecord>(published.record.get()) {
            Err(e) => {
                json!({"round": round, "verified": false, "error": format!("unreadable: {e}")})
            }
            Ok(r) => {
                let hands: usize = r.tables.iter().map(Vec::len).sum();
                match r.verify() {
                    Ok(()) => json!({"round": round, "tables": r.tables.len(), "hands": hands,
                                     "commitment": r.commitment.to_hex(), "verified": true}),
                    Err(e) => json!({"round": round, "verified": false, "error": e.to_string()}),
                }
            }
        };
        if line["verified"] != true {
            failed += 1;
        }
        println!("{line}");
    }
    if failed > 0 {
        return Err(Error::other(format!("{failed} round(s) do not verify")));
    }
    print(
        &json!({"tournament": id, "rounds_verified": info.rounds_finished,
                  "status": info.status}),
    )
}
