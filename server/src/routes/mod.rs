//! The HTTP handlers, one module per group of endpoints, each with its `router()`: `service`
//! (health, metrics, this document), `auth` (challenge, login, logout, account, link codes),
//! `devices`, `sync` (upload and pull), `play` (the online table's WebSocket), `queue`
//! (matchmaking and ratings), `rooms`, `admin`, `sanctions` (sanctions, reviews, reports).
//!
//! Every route is added with [`endpoint`], from the contract's endpoint type: its method
//! and path route the handler, and its types give its part of the OpenAPI document, so the
//! router and the document are one list. Shared here: extractors for the client's address
//! and the session, and rate limiting.

pub mod admin;
pub mod auth;
pub mod devices;
pub mod play;
pub mod queue;
pub mod rooms;
pub mod sanctions;
pub mod service;
pub mod sync;
pub mod tournaments;

use std::future::Ready;
use std::net::SocketAddr;
use std::time::Duration;

use axum::BoxError;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::routing::{delete, get, post};
use tongcheng_api::openapi::Documented;
use tongcheng_api::{ErrorCode, Method};
use tower::ServiceBuilder;
use tower::layer::util::{Identity, Stack};
use tower::timeout::TimeoutLayer;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

use crate::auth::sha256_hex;
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::state::{AppState, Config};
use crate::store::Session;

/// The API's routes with their document (see [`crate::app::router`] for what wraps them).
/// Every route but the queue's and the tournaments' answers within `config.request_timeout`
/// or with a `timeout` error; the queue is a long poll that bounds its own wait (bots fill
/// after `bot_fill_ms`), and so is a tournament's seat request (25 s).
/// The play route only upgrades within it: the WebSocket then lives on its own task.
pub fn router(config: &Config) -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(tongcheng_api::openapi::base())
        .merge(service::router())
        .merge(auth::router())
        .merge(devices::router())
        .merge(sync::router())
        .merge(play::router())
        .merge(rooms::router())
        .merge(admin::router())
        .merge(sanctions::router())
        .layer(request_timeout(config.request_timeout))
        .merge(queue::router())
        .merge(tournaments::router())
}

/// tower's timeout, its error answered as the API's `timeout` error.
pub type RequestTimeout = ServiceBuilder<
    Stack<TimeoutLayer, Stack<HandleErrorLayer<fn(BoxError) -> Ready<ApiError>, ()>, Identity>>,
>;

/// Requests through this layer answer within `limit`, or with a `timeout` error (503).
pub fn request_timeout(limit: Duration) -> RequestTimeout {
    ServiceBuilder::new()
        .layer(HandleErrorLayer::new(
            timed_out as fn(BoxError) -> Ready<ApiError>,
        ))
        .layer(TimeoutLayer::new(limit))
}

/// The answer to a request the timeout layer stopped (the only error the routes' services
/// can fail with: handlers answer their own errors).
fn timed_out(e: BoxError) -> Ready<ApiError> {
    std::future::ready(if e.is::<tower::timeout::error::Elapsed>() {
        ApiError::new(
            ErrorCode::Timeout,
            "the server took too long to answer; try again",
        )
    } else {
        tracing::error!(error = %e, "a route's service failed");
        ApiError::internal("the request failed")
    })
}

/// Routes `handler` as endpoint `E`, with `E`'s part of the document.
pub fn endpoint<E: Documented, H: Handler<T, AppState>, T: 'static>(
    handler: H,
) -> UtoipaMethodRouter<AppState> {
    let doc = E::operation();
    let method = match E::METHOD {
        Method::Get => get(handler),
        Method::Post => post(handler),
        Method::Delete => delete(handler),
    };
    (doc.schemas, doc.paths, method)
}

/// The answer to a path no route has.
pub async fn not_found() -> ApiError {
    ApiError::not_found("no such route")
}

/// The answer to a route asked with a method it does not take.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    )
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

/// The bearer token of a request, if it has one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .or_else(|| subprotocol_token(headers))
}

/// A WebSocket upgrade's token offered as the subprotocol `tongcheng.token.<token>` (a
/// browser cannot set `Authorization` on a WebSocket); only on upgrades.
fn subprotocol_token(headers: &HeaderMap) -> Option<&str> {
    let upgrade = headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if !upgrade {
        return None;
    }
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|p| {
            p.trim()
                .strip_prefix(tongcheng_api::play::TOKEN_PROTOCOL_PREFIX)
        })
        .filter(|t| !t.is_empty())
}

/// A request with a valid session: `Authorization: Bearer <token>` (or, on a WebSocket
/// upgrade, the token offered as a subprotocol).
pub struct Authed {
    pub session: Session,
    pub token_hash: String,
}

impl FromRequestParts<AppState> for Authed {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Authed, ApiError> {
        let token = bearer(&parts.headers).ok_or_else(|| {
            ApiError::unauthorized("log in first (Authorization: Bearer <token>)")
        })?;
        let token_hash = sha256_hex(token.as_bytes());
        let store = state.store.clone();
        let h = token_hash.clone();
        let session = blocking(move || Ok(store.session(&h, crate::now())?))
            .await?
            .ok_or_else(|| ApiError::unauthorized("the session is unknown, expired or revoked"))?;
        crate::logs::record_account(session.account_id);
        Ok(Authed {
            session,
            token_hash,
        })
    }
}

/// Applies a rate limit, counting refusals by the limit's name and logging them (at INFO,
/// next to the request's line: an operator sees who was refused by what).
pub fn limit(
    state: &AppState,
    limiter: &crate::ratelimit::RateLimiter,
    key: &str,
) -> Result<(), ApiError> {
    limiter
        .check(key)
        .map_err(|secs| refused(state, limiter.name, secs))
}

/// A refusal by quota `name`: counted, logged, answered 429 with `Retry-After`.
pub fn refused(state: &AppState, name: &'static str, secs: u64) -> ApiError {
    state.metrics.refused(name);
    tracing::info!(quota = name, retry_after = secs, "refused by a quota");
    ApiError::rate_limited(secs)
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use tower::ServiceExt;

    use super::*;

    #[tokio::test]
    async fn a_request_past_the_timeout_gets_the_timeout_error() {
        // Toy routers (fallbacks: no endpoint of the API) behind the layer.
        let behind = |app: axum::Router| app.layer(request_timeout(Duration::from_millis(20)));
        let ask = |app: axum::Router| app.oneshot(Request::new(Body::empty()));
        let slow = axum::Router::new().fallback(|| tokio::time::sleep(Duration::from_secs(5)));
        let slow = ask(behind(slow)).await.unwrap();
        assert_eq!(slow.status().as_u16(), 503);
        let body = to_bytes(slow.into_body(), 1 << 16).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["code"], "timeout", "{body}");
        let quick = ask(behind(axum::Router::new().fallback(|| async {})));
        assert_eq!(quick.await.unwrap().status().as_u16(), 200);
    }
}
