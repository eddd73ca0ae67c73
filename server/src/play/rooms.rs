//! Private rooms (开房): the owner picks the rule set, the number of hands, the time limits,
//! how many people are invited and the levels of the bots in the other seats, and gets a
//! 6-digit code. Friends join by code until exactly the invited number are in; each then sits
//! down over `GET /v1/play` with the room's table id, whose seats are kept for the admitted
//! accounts. A room lives as long as its table: a table nobody connected to by the end of its
//! lobby time closes, and the code is free again.
//!
//! Anti-collusion in rooms is a warning, not a refusal (friends often share a network, as
//! real apps' 同IP提醒 assume): every join answer and `GET /v1/rooms/{code}` (for the
//! admitted players) list each pair of admitted accounts that joined from one IP address.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use tongcheng_core::bot::Level;

use super::table::{Cmd, TableTask};
use super::{lock, rules_for, spawn_table, table_id};
use crate::app::AppState;
use crate::error::ApiError;
use crate::routes::{Authed, ClientIp, blocking};
use crate::store::{RoomJoin, RoomMember, StoredRoom};

/// Limits on what an owner may pick.
pub const MAX_HANDS: u8 = 16;
pub const TIME_SECS: std::ops::RangeInclusive<u16> = 3..=120;

/// `POST /v1/rooms`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRoom {
    pub rules: Option<String>,
    /// Hands in the match (dealer turns), 1 to 16; the rule set's own when absent.
    pub hands: Option<u8>,
    pub first_discard_secs: Option<u16>,
    pub discard_secs: Option<u16>,
    pub claim_secs: Option<u16>,
    /// People invited, the owner included (1 to 4).
    pub people: u8,
    /// The levels of the bots in the other seats: exactly `4 - people` of them.
    #[serde(default)]
    pub bots: Vec<String>,
}

/// A room as its players see it.
#[derive(serde::Serialize)]
pub struct RoomInfo {
    pub code: String,
    pub table: String,
    /// The base URL of the node that runs the table: players sit down there.
    pub server: String,
    pub people: usize,
    pub admitted: usize,
    /// Who is in, owner first, so a room screen can say who joined.
    pub players: Vec<RoomPlayer>,
    /// Pairs of admitted accounts that joined from one IP address (a warning).
    pub same_ip: Vec<[i64; 2]>,
}

#[derive(serde::Serialize)]
pub struct RoomPlayer {
    pub account: i64,
    pub name: String,
}

/// The name an account plays under.
async fn display_name(state: &AppState, account: i64) -> Result<String, ApiError> {
    let store = state.store.clone();
    let found = blocking(move || Ok(store.account(account)?)).await?;
    Ok(found.map_or_else(|| format!("player {account}"), |a| a.display_name))
}

fn info(room: &StoredRoom) -> RoomInfo {
    let mut same_ip = Vec::new();
    for (i, a) in room.members.iter().enumerate() {
        for b in &room.members[i + 1..] {
            if a.ip.is_some() && a.ip == b.ip {
                same_ip.push([a.account_id, b.account_id]);
            }
        }
    }
    RoomInfo {
        code: room.code.clone(),
        table: room.table_id.clone(),
        server: room.node_url.clone(),
        people: usize::from(room.people),
        admitted: room.members.len(),
        players: room
            .members
            .iter()
            .map(|m| RoomPlayer {
                account: m.account_id,
                name: m.name.clone(),
            })
            .collect(),
        same_ip,
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::bad_request("bad_room", message)
}

/// A random 6-digit code (uniform: rejection sampling over the OS's random bytes); the
/// store refuses one that is taken, and another is drawn.
fn new_code() -> Option<String> {
    loop {
        let mut b = [0u8; 4];
        getrandom::getrandom(&mut b).ok()?;
        let n = u32::from_le_bytes(b);
        // 4_294_000_000 is a multiple of 1_000_000: no bias towards low codes.
        if n < 4_294_000_000 {
            return Some(format!("{:06}", n % 1_000_000));
        }
    }
}

/// `POST /v1/rooms`: makes a room (and its table) and admits its owner.
pub async fn create(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    body: Result<Json<CreateRoom>, JsonRejection>,
) -> Result<Json<RoomInfo>, ApiError> {
    let Json(req) = body?;
    if !(1..=4).contains(&req.people) {
        return Err(bad("people: 1 to 4, the owner included"));
    }
    if req.bots.len() != usize::from(4 - req.people) {
        return Err(bad(format!(
            "bots: name {} levels, one per seat nobody is invited to",
            4 - req.people
        )));
    }
    let levels = req
        .bots
        .iter()
        .map(|b| b.parse::<Level>())
        .collect::<Result<Vec<Level>, _>>()
        .map_err(|_| bad("bots: each level is easy, normal or hard"))?;
    let mut rules = rules_for(&state, req.rules)
        .map_err(|(_, m)| ApiError::bad_request("rules_not_accepted", m))?;
    if let Some(h) = req.hands {
        if !(1..=MAX_HANDS).contains(&h) {
            return Err(bad(format!("hands: 1 to {MAX_HANDS}")));
        }
        // Whole rounds of four when they fit (the winds go round), else one round of `h`.
        (rules.rounds, rules.hands_per_round) = if h % 4 == 0 { (h / 4, 4) } else { (1, h) };
    }
    for (v, field) in [
        (req.first_discard_secs, &mut rules.time.first_discard_secs),
        (req.discard_secs, &mut rules.time.discard_secs),
        (req.claim_secs, &mut rules.time.claim_secs),
    ] {
        if let Some(v) = v {
            if !TIME_SECS.contains(&v) {
                return Err(bad(format!(
                    "time limits: {} to {} seconds",
                    TIME_SECS.start(),
                    TIME_SECS.end()
                )));
            }
            *field = v.into();
        }
    }
    let owner = RoomMember {
        account_id: auth.session.account_id,
        ip: ip.0.parse::<std::net::IpAddr>().ok().map(|a| a.to_string()),
        name: display_name(&state, auth.session.account_id).await?,
    };
    let online = &state.config.online;
    let id = table_id();
    {
        let mut tables = lock(&state.lobby.tables)?;
        if tables.len() >= online.max_tables {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "no_room",
                "the server has no room for a table",
            ));
        }
        let task = |rx| {
            TableTask::new(
                id.clone(),
                online.clone(),
                rules,
                req.people,
                state.store.clone(),
                rx,
            )
            .room(vec![owner.account_id], levels)
        };
        spawn_table(&state, &mut tables, &id, task);
    }
    // The table is up before its code is handed out; a table whose room could not be stored
    // closes by itself when nobody sits down in its lobby time.
    let store = state.store.clone();
    let node = state.node.url().to_string();
    let several = state.several_nodes();
    let people = req.people;
    let room = blocking(move || {
        if several {
            store.put_table_home(&id, &node, crate::now())?;
        }
        for _ in 0..64 {
            let Some(code) = new_code() else { break };
            if store.create_room(&code, &id, &node, people, &owner, crate::now())? {
                return Ok(store.room(&code)?);
            }
        }
        Ok(None)
    })
    .await?
    .ok_or_else(|| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "no_room", "no free code"))?;
    Ok(Json(info(&room)))
}

/// `POST /v1/rooms/{code}/join`: admits the account if the room has a free invitation (an
/// account already admitted gets the same answer again). The room may have been made on any
/// node; when its table runs here, the table learns of the seat at once, else when the
/// player sits down (see [`super::join`]).
pub async fn join(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    Path(code): Path<String>,
) -> Result<Json<RoomInfo>, ApiError> {
    let gone = || ApiError::not_found("no room has that code");
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(gone());
    }
    let member = RoomMember {
        account_id: auth.session.account_id,
        ip: ip.0.parse::<std::net::IpAddr>().ok().map(|a| a.to_string()),
        name: display_name(&state, auth.session.account_id).await?,
    };
    let account = member.account_id;
    let store = state.store.clone();
    let room = match blocking(move || Ok(store.join_room(&code, &member)?)).await? {
        RoomJoin::NoRoom => return Err(gone()),
        RoomJoin::Full => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "room_full",
                "every invitation to this room is taken",
            ));
        }
        RoomJoin::Admitted(room) => room,
    };
    let local = lock(&state.lobby.tables)?.get(&room.table_id).cloned();
    if let Some(tx) = local {
        // A table gone meanwhile is a room gone (its row goes as the table closes).
        tx.try_send(Cmd::Admit { account }).map_err(|_| gone())?;
    }
    Ok(Json(info(&room)))
}

/// `GET /v1/rooms/{code}`: the room as its admitted players see it, so every one of them (not
/// only the latest to join) learns of a same-IP pair. Others get `not_found`.
pub async fn show(
    State(state): State<AppState>,
    auth: Authed,
    Path(code): Path<String>,
) -> Result<Json<RoomInfo>, ApiError> {
    let gone = || ApiError::not_found("no room has that code");
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(gone());
    }
    let store = state.store.clone();
    let room = blocking(move || Ok(store.room(&code)?))
        .await?
        .ok_or_else(gone)?;
    if !room
        .members
        .iter()
        .any(|m| m.account_id == auth.session.account_id)
    {
        return Err(gone());
    }
    Ok(Json(info(&room)))
}
