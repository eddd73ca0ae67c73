//! The service's own endpoints: liveness, Prometheus metrics, and the OpenAPI document.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, header};
use axum::response::IntoResponse;
use tongcheng_api::HealthResponse;
use tongcheng_api::endpoints::{Health, Metrics, OpenApiDocument};
use utoipa_axum::router::OpenApiRouter;

use super::endpoint;
use crate::error::ApiError;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<Health, _, _>(health))
        .routes(endpoint::<Metrics, _, _>(metrics))
        .routes(endpoint::<OpenApiDocument, _, _>(document))
}

/// `GET /healthz`.
async fn health(State(state): State<AppState>) -> Json<HealthResponse> {
    Json(HealthResponse {
        status: "ok".into(),
        store: state.store.backend().into(),
    })
}

/// The document the router was built with, as JSON text (made once, when the router is).
#[derive(Clone)]
pub struct DocumentJson(pub Arc<str>);

/// `GET /v1/openapi.json`.
async fn document(Extension(doc): Extension<DocumentJson>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        doc.0.to_string(),
    )
}

/// `GET /metrics` (the admin token needed: the counts by route and status are for the
/// operator): the counters, and this node's online gauges as of now.
async fn metrics(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<impl IntoResponse, ApiError> {
    super::admin::check_admin(&state, &headers)?;
    Ok(rendered(State(state)).await)
}

/// The metrics as Prometheus text (also on `--metrics-listen`'s address, with no token).
pub async fn rendered(State(state): State<AppState>) -> impl IntoResponse {
    let (m, lobby) = (&state.metrics, &state.online.lobby);
    m.online_tables.set(lobby.tables() as f64);
    m.online_connections.set(lobby.connections() as f64);
    m.queue_waiting.set(lobby.waiting() as f64);
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        m.render(),
    )
}
