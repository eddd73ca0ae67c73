//! Private rooms (see [`crate::play::rooms`]): make one, join one by its code, look at one.
//! Every answer lists each pair of admitted accounts that joined from one IP address (the
//! 同IP warning), so every player at the table learns of it.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use tongcheng_api::endpoints::{CreateRoom, JoinRoom, ShowRoom};
use tongcheng_api::play::{RoomCode, RoomInfo, RoomPlayer, RoomSettings};
use utoipa_axum::router::OpenApiRouter;

use super::{Authed, ClientIp, endpoint, limit, refused};
use crate::error::ApiError;
use crate::play::rooms;
use crate::ratelimit::{RateLimiter, network_of};
use crate::state::AppState;
use crate::store::{RoomMember, StoredRoom};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<CreateRoom, _, _>(create))
        .routes(endpoint::<ShowRoom, _, _>(show))
        .routes(endpoint::<JoinRoom, _, _>(join))
}

/// A room as its players see it.
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
        people: room.people,
        admitted: room.members.len() as u8,
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

/// Counts one use of `per_account` and `per_ip` by this account and address (refused with
/// `429 rate_limited` when either is used up).
fn quota(
    state: &AppState,
    auth: &Authed,
    ip: &ClientIp,
    per_account: &RateLimiter,
    per_ip: &RateLimiter,
) -> Result<(), ApiError> {
    limit(state, per_account, &auth.session.account_id.to_string())?;
    limit(state, per_ip, &ip.0)
}

/// A lookup of a room by code: refused while the source is locked out for wrong codes, or
/// over its quota of codes (per account, address and network). Then `find` runs; a wrong
/// code spends one of the source's misses, and the last miss locks it out (the answer is
/// still `not_found`: a lock says nothing about the code).
pub(super) async fn by_code<T>(
    state: &AppState,
    auth: &Authed,
    ip: &ClientIp,
    find: impl Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    let l = &state.limits;
    let account = format!("account:{}", auth.session.account_id);
    let address = format!("ip:{}", ip.0);
    for key in [&account, &address] {
        l.room_lockout
            .check(key)
            .map_err(|secs| refused(state, "room_lockout", secs))?;
    }
    quota(state, auth, ip, &l.room_codes_account, &l.room_codes_ip)?;
    limit(state, &l.room_codes_network, &network_of(&ip.0))?;
    let found = find.await;
    if matches!(&found, Err(e) if e.code == tongcheng_api::ErrorCode::NotFound) {
        for key in [&account, &address] {
            if l.room_misses.check(key).is_err() {
                tracing::info!(source = %key, "locked out of room codes: too many wrong codes");
                l.room_lockout.lock(key);
            }
        }
    }
    found
}

/// The requesting account as a room member.
async fn member(state: &AppState, auth: &Authed, ip: &ClientIp) -> Result<RoomMember, ApiError> {
    let account_id = auth.session.account_id;
    Ok(RoomMember {
        account_id,
        ip: ip.0.parse::<std::net::IpAddr>().ok().map(|a| a.to_string()),
        name: state.online.display_name(account_id).await?,
    })
}

/// `POST /v1/rooms`: makes a room (and its table) and admits its owner.
async fn create(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    body: Result<Json<RoomSettings>, JsonRejection>,
) -> Result<Json<RoomInfo>, ApiError> {
    let Json(settings) = body?;
    crate::sanctions::ensure_free(
        &state.store,
        auth.session.account_id,
        auth.session.device_id,
    )
    .await?;
    let l = &state.limits;
    let spend = || quota(&state, &auth, &ip, &l.rooms_made_account, &l.rooms_made_ip);
    let owner = member(&state, &auth, &ip).await?;
    let room = rooms::open(&state.online, &settings, owner, spend).await?;
    Ok(Json(info(&room)))
}

/// `POST /v1/rooms/{code}/join`.
async fn join(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    Path(RoomCode { code }): Path<RoomCode>,
) -> Result<Json<RoomInfo>, ApiError> {
    crate::sanctions::ensure_free(
        &state.store,
        auth.session.account_id,
        auth.session.device_id,
    )
    .await?;
    let room = by_code(&state, &auth, &ip, async {
        let who = member(&state, &auth, &ip).await?;
        rooms::admit(&state.online, code, who).await
    })
    .await?;
    Ok(Json(info(&room)))
}

/// `GET /v1/rooms/{code}`.
async fn show(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    Path(RoomCode { code }): Path<RoomCode>,
) -> Result<Json<RoomInfo>, ApiError> {
    let account = auth.session.account_id;
    crate::sanctions::ensure_free(&state.store, account, auth.session.device_id).await?;
    let room = by_code(
        &state,
        &auth,
        &ip,
        rooms::show(&state.online, code, account),
    )
    .await?;
    Ok(Json(info(&room)))
}
