//! The HTTP handlers, one file per group: `auth` (challenge, login, logout, account, link
//! codes), `devices`, `sync` (upload and pull). Shared here: extractors for the client's
//! address and the session, and running blocking work off the async threads.

pub mod admin;
pub mod auth;
pub mod devices;
pub mod sync;

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde_json::{Value, json};

use crate::app::AppState;
use crate::auth::sha256_hex;
use crate::error::ApiError;
use crate::store::Session;

/// Every route, as (method, path pattern): the router's and the OpenAPI document's list.
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/healthz"),
    ("get", "/metrics"),
    ("get", "/v1/openapi.json"),
    ("post", "/v1/auth/challenge"),
    ("post", "/v1/auth/login"),
    ("post", "/v1/auth/logout"),
    ("get", "/v1/account"),
    ("post", "/v1/link"),
    ("get", "/v1/devices"),
    ("delete", "/v1/devices/{id}"),
    ("post", "/v1/sync/upload"),
    ("get", "/v1/sync/pull"),
    ("get", "/v1/play"),
    ("post", "/v1/queue"),
    ("get", "/v1/ratings"),
    ("post", "/v1/rooms"),
    ("get", "/v1/rooms/{code}"),
    ("post", "/v1/rooms/{code}/join"),
    ("get", "/v1/admin/collusion"),
];

/// `GET /healthz`.
pub async fn health(axum::extract::State(state): axum::extract::State<AppState>) -> Json<Value> {
    Json(json!({"status": "ok", "store": state.store.backend()}))
}

pub async fn not_found() -> ApiError {
    ApiError::not_found("no such route")
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method",
    )
}

/// Runs blocking work (the store, verification) on the blocking pool.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("a task failed: {e}")))?
}

/// The client's IP address, for rate limits. Only the connection's peer address counts:
/// forwarded-for headers are not trusted (a proxy in front would need its own limits).
pub struct ClientIp(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<ClientIp, Self::Rejection> {
        Ok(ClientIp(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip().to_string())
                .unwrap_or_else(|| "unknown".into()),
        ))
    }
}

/// A request with a valid session: `Authorization: Bearer <token>`.
pub struct Authed {
    pub session: Session,
    pub token_hash: String,
}

impl FromRequestParts<AppState> for Authed {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Authed, ApiError> {
        let token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                ApiError::unauthorized("log in first (Authorization: Bearer <token>)")
            })?;
        let token_hash = sha256_hex(token.as_bytes());
        let store = state.store.clone();
        let h = token_hash.clone();
        let session = blocking(move || Ok(store.session(&h, crate::now())?))
            .await?
            .ok_or_else(|| ApiError::unauthorized("the session is unknown, expired or revoked"))?;
        Ok(Authed {
            session,
            token_hash,
        })
    }
}

/// Applies a rate limit, counting refusals.
pub fn limit(
    state: &AppState,
    limiter: &crate::ratelimit::RateLimiter,
    key: &str,
) -> Result<(), ApiError> {
    limiter.check(key).map_err(|secs| {
        state
            .metrics
            .rate_limited
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ApiError::rate_limited(secs)
    })
}
