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

use std::collections::HashMap;
use std::net::IpAddr;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use tokio::sync::mpsc;
use tongcheng_core::bot::Level;

use super::table::{Cmd, TableTask};
use super::{lock, rules_for, spawn_table, table_id};
use crate::app::AppState;
use crate::error::ApiError;
use crate::routes::{Authed, ClientIp, blocking};

/// Limits on what an owner may pick.
pub const MAX_HANDS: u8 = 16;
pub const TIME_SECS: std::ops::RangeInclusive<u16> = 3..=120;

/// One room, by code.
pub struct Room {
    table: String,
    tx: mpsc::Sender<Cmd>,
    people: usize,
    /// Admitted accounts, owner first, with the address each joined from and its name.
    admitted: Vec<(i64, Option<IpAddr>, String)>,
}

pub type Rooms = HashMap<String, Room>;

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

fn info(code: &str, room: &Room) -> RoomInfo {
    let mut same_ip = Vec::new();
    for (i, (a, ip, _)) in room.admitted.iter().enumerate() {
        for (b, other, _) in &room.admitted[i + 1..] {
            if ip.is_some() && ip == other {
                same_ip.push([*a, *b]);
            }
        }
    }
    RoomInfo {
        code: code.to_string(),
        table: room.table.clone(),
        people: room.people,
        admitted: room.admitted.len(),
        players: room
            .admitted
            .iter()
            .map(|(account, _, name)| RoomPlayer {
                account: *account,
                name: name.clone(),
            })
            .collect(),
        same_ip,
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::bad_request("bad_room", message)
}

/// A fresh 6-digit code (uniform: rejection sampling over the OS's random bytes).
fn new_code(rooms: &Rooms) -> Option<String> {
    for _ in 0..64 {
        let mut b = [0u8; 4];
        getrandom::getrandom(&mut b).ok()?;
        let n = u32::from_le_bytes(b);
        // 4_294_000_000 is a multiple of 1_000_000: no bias towards low codes.
        if n >= 4_294_000_000 {
            continue;
        }
        let code = format!("{:06}", n % 1_000_000);
        if !rooms.contains_key(&code) {
            return Some(code);
        }
    }
    None
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
    let owner = auth.session.account_id;
    let owner_name = display_name(&state, owner).await?;
    let online = &state.config.online;
    let mut rooms = lock(&state.lobby.rooms)?;
    rooms.retain(|_, r| !r.tx.is_closed());
    let code = new_code(&rooms)
        .ok_or_else(|| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "no_room", "no free code"))?;
    let mut tables = lock(&state.lobby.tables)?;
    if tables.len() >= online.max_tables {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_room",
            "the server has no room for a table",
        ));
    }
    let id = table_id();
    let task = |rx| {
        TableTask::new(
            id.clone(),
            online.clone(),
            rules,
            req.people,
            state.store.clone(),
            rx,
        )
        .room(vec![owner], levels)
    };
    let tx = spawn_table(&state, &mut tables, &id, task);
    drop(tables);
    let room = Room {
        table: id,
        tx,
        people: usize::from(req.people),
        admitted: vec![(owner, ip.0.parse().ok(), owner_name)],
    };
    let shown = info(&code, &room);
    rooms.insert(code, room);
    Ok(Json(shown))
}

/// `POST /v1/rooms/{code}/join`: admits the account if the room has a free invitation (an
/// account already admitted gets the same answer again).
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
    let account = auth.session.account_id;
    let name = display_name(&state, account).await?;
    let mut rooms = lock(&state.lobby.rooms)?;
    rooms.retain(|_, r| !r.tx.is_closed());
    let room = rooms.get_mut(&code).ok_or_else(gone)?;
    if !room.admitted.iter().any(|(a, _, _)| *a == account) {
        if room.admitted.len() >= room.people {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "room_full",
                "every invitation to this room is taken",
            ));
        }
        // The table learns of the seat first; a table gone meanwhile is a room gone.
        room.tx
            .try_send(Cmd::Admit { account })
            .map_err(|_| gone())?;
        room.admitted.push((account, ip.0.parse().ok(), name));
    }
    Ok(Json(info(&code, room)))
}

/// `GET /v1/rooms/{code}`: the room as its admitted players see it, so every one of them (not
/// only the latest to join) learns of a same-IP pair. Others get `not_found`.
pub async fn show(
    State(state): State<AppState>,
    auth: Authed,
    Path(code): Path<String>,
) -> Result<Json<RoomInfo>, ApiError> {
    let gone = || ApiError::not_found("no room has that code");
    let mut rooms = lock(&state.lobby.rooms)?;
    rooms.retain(|_, r| !r.tx.is_closed());
    let room = rooms.get(&code).ok_or_else(gone)?;
    if !room
        .admitted
        .iter()
        .any(|(a, _, _)| *a == auth.session.account_id)
    {
        return Err(gone());
    }
    Ok(Json(info(&code, room)))
}
