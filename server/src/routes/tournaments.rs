//! Tournaments (see [`crate::play::tournament`]): list, make (the operator's, or a player's
//! 亲友赛), sign up, the long poll for one's table, the standings, the published rounds.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use tongcheng_api::endpoints::{
    CreateFriendsTournament, CreateTournament, EnterTournament, ListTournaments, NextTable,
    ShowTournament, TournamentRound, TournamentStandings,
};
use tongcheng_api::tournament::{
    EntryRequest, NewTournament, PublishedRound, RoundId, STANDINGS_PAGE, SeatRequest,
    StandingsPage, StandingsQuery, TournamentId, TournamentInfo, TournamentList, TournamentQuery,
    TournamentSeat,
};
use utoipa_axum::router::OpenApiRouter;

use super::admin::check_admin;
use super::rooms::by_code;
use super::{Authed, ClientIp, endpoint, limit};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::play::queue::Candidate;
use crate::play::tournament::{self, Entrant};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<ListTournaments, _, _>(list))
        .routes(endpoint::<CreateFriendsTournament, _, _>(create_friends))
        .routes(endpoint::<CreateTournament, _, _>(create))
        .routes(endpoint::<ShowTournament, _, _>(show))
        .routes(endpoint::<EnterTournament, _, _>(enter))
        .routes(endpoint::<NextTable, _, _>(seat))
        .routes(endpoint::<TournamentStandings, _, _>(standings))
        .routes(endpoint::<TournamentRound, _, _>(round))
}

/// The requesting account as seating sees it (its devices and address keep it from sharing
/// a table with its own other accounts), and its name.
async fn entrant(state: &AppState, auth: &Authed, ip: &ClientIp) -> Result<Entrant, ApiError> {
    let account = auth.session.account_id;
    crate::sanctions::ensure_free(&state.store, account, auth.session.device_id).await?;
    let store = state.store.clone();
    let devices =
        blocking(move || Ok(store.devices(account)?.iter().map(|d| d.id).collect())).await?;
    let who = Candidate {
        account,
        devices,
        ip: ip.0.parse().ok(),
        rating: 0.0,
    };
    Ok(Entrant {
        who,
        device: auth.session.device_id,
        name: state.online.display_name(account).await?,
    })
}

/// `GET /v1/tournaments?code=`: open ones, or the 亲友赛 of a code (looked up as room codes
/// are: quotas and a lockout after too many wrong codes).
async fn list(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    query: Result<Query<TournamentQuery>, QueryRejection>,
) -> Result<Json<TournamentList>, ApiError> {
    let Query(q) = query?;
    let account = auth.session.account_id;
    let tournaments = match q.code {
        None => {
            state
                .online
                .tournaments
                .list(&state.online, None, account)
                .await?
        }
        Some(code) => {
            by_code(&state, &auth, &ip, async {
                let found = state
                    .online
                    .tournaments
                    .list(&state.online, Some(&code), account)
                    .await?;
                if found.is_empty() {
                    return Err(ApiError::not_found("no tournament has that code"));
                }
                Ok(found)
            })
            .await?
        }
    };
    Ok(Json(TournamentList { tournaments }))
}

/// `POST /v1/tournaments`: a 亲友赛, its maker signed up.
async fn create_friends(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    body: Result<Json<NewTournament>, JsonRejection>,
) -> Result<Json<TournamentInfo>, ApiError> {
    let Json(settings) = body?;
    let maker = entrant(&state, &auth, &ip).await?;
    // Friends' tournaments spend the rooms' quota of the maker and his address.
    let quota = || {
        let l = &state.limits;
        limit(
            &state,
            &l.rooms_made_account,
            &auth.session.account_id.to_string(),
        )?;
        limit(&state, &l.rooms_made_ip, &ip.0)
    };
    tournament::make(&state.online, settings, Some(maker), quota)
        .await
        .map(Json)
}

/// `POST /v1/admin/tournaments`: a public tournament.
async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<NewTournament>, JsonRejection>,
) -> Result<Json<TournamentInfo>, ApiError> {
    check_admin(&state, &headers)?;
    let Json(settings) = body?;
    tournament::make(&state.online, settings, None, || Ok(()))
        .await
        .map(Json)
}

/// `GET /v1/tournaments/{id}`.
async fn show(
    State(state): State<AppState>,
    auth: Authed,
    Path(TournamentId { id }): Path<TournamentId>,
) -> Result<Json<TournamentInfo>, ApiError> {
    state
        .online
        .tournaments
        .show(&state.online, &id, auth.session.account_id)
        .await
        .map(Json)
}

/// `POST /v1/tournaments/{id}/entry`.
async fn enter(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    Path(TournamentId { id }): Path<TournamentId>,
    body: Result<Json<EntryRequest>, JsonRejection>,
) -> Result<Json<TournamentInfo>, ApiError> {
    let Json(req) = body?;
    let who = entrant(&state, &auth, &ip).await?;
    tournament::enter(&state.online, &id, who, req.code)
        .await
        .map(Json)
}

/// `POST /v1/tournaments/{id}/seat`: the long poll for one's table.
async fn seat(
    State(state): State<AppState>,
    auth: Authed,
    Path(TournamentId { id }): Path<TournamentId>,
    body: Result<Json<SeatRequest>, JsonRejection>,
) -> Result<Json<TournamentSeat>, ApiError> {
    let Json(req) = body?;
    tournament::seat(&state.online, &id, auth.session.account_id, req)
        .await
        .map(Json)
}

/// `GET /v1/tournaments/{id}/standings?offset=&limit=`.
async fn standings(
    State(state): State<AppState>,
    auth: Authed,
    Path(TournamentId { id }): Path<TournamentId>,
    query: Result<Query<StandingsQuery>, QueryRejection>,
) -> Result<Json<StandingsPage>, ApiError> {
    let Query(q) = query?;
    let limit = q.limit.unwrap_or(50).clamp(1, STANDINGS_PAGE);
    tournament::standings(
        &state.online,
        &id,
        auth.session.account_id,
        q.offset.unwrap_or(0),
        limit,
    )
    .await
    .map(Json)
}

/// `GET /v1/tournaments/{id}/rounds/{round}`: a finished round's record, from the store.
async fn round(
    State(state): State<AppState>,
    _auth: Authed,
    Path(RoundId { id, round }): Path<RoundId>,
) -> Result<Json<PublishedRound>, ApiError> {
    let store = state.store.clone();
    let text = blocking(move || Ok(store.round_record(&id, round)?))
        .await?
        .ok_or_else(|| ApiError::not_found("no such round, or it is not over yet"))?;
    let record = serde_json::value::RawValue::from_string(text)
        .map_err(|e| ApiError::internal(format!("a kept round does not read: {e}")))?;
    Ok(Json(PublishedRound { record }))
}
