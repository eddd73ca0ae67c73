//! Matchmaking: `POST /v1/queue` waits in a rule set's queue until seated (a long poll; bots
//! fill after the configured wait, so it always ends) and answers with the table to join;
//! `GET /v1/ratings` shows the ratings ranked seating goes by.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use tongcheng_api::endpoints::{Queue, Ratings};
use tongcheng_api::play::{QueueRequest, RatingsResponse, Seated};
use utoipa_axum::router::OpenApiRouter;

use super::{Authed, ClientIp, endpoint, limit};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::play::queue::Candidate;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<Queue, _, _>(queue))
        .routes(endpoint::<Ratings, _, _>(ratings))
}

/// `POST /v1/queue`: the player as the matcher sees them (rating, devices, address), then
/// the wait.
async fn queue(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    body: Result<Json<QueueRequest>, JsonRejection>,
) -> Result<Json<Seated>, ApiError> {
    let Json(req) = body?;
    let l = &state.limits;
    limit(
        &state,
        &l.queue_account,
        &auth.session.account_id.to_string(),
    )?;
    limit(&state, &l.queue_ip, &ip.0)?;
    let rules = state.online.rules_for_request(req.rules)?;
    crate::sanctions::ensure_free(
        &state.store,
        auth.session.account_id,
        auth.session.device_id,
    )
    .await?;
    let store = state.store.clone();
    let account = auth.session.account_id;
    let name = rules.name.clone();
    let (rating, devices) = blocking(move || {
        let rating = store.rating(account, &name)?;
        let devices = store.devices(account)?.iter().map(|d| d.id).collect();
        Ok((rating, devices))
    })
    .await?;
    let who = Candidate {
        account,
        devices,
        ip: ip.0.parse().ok(),
        rating: rating.map_or(crate::rating::initial(account, "").mu, |r| r.mu),
    };
    state.online.queue(who, rules, req.ranked).await.map(Json)
}

/// `GET /v1/ratings`: the account's ratings, one per rule set it was rated in, with tiers.
async fn ratings(
    State(state): State<AppState>,
    auth: Authed,
) -> Result<Json<RatingsResponse>, ApiError> {
    let store = state.store.clone();
    let account = auth.session.account_id;
    let list = blocking(move || Ok(store.ratings(account)?)).await?;
    Ok(Json(RatingsResponse {
        ratings: list.iter().map(crate::rating::shown).collect(),
    }))
}
