//! The server's router (the routes with their OpenAPI document, and what wraps them), and
//! serving it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Extension};
use axum::http::{HeaderName, HeaderValue, header};
use tower::ServiceBuilder;
use tower_http::map_request_body::MapRequestBodyLayer;
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutBody;
use tower_http::trace::TraceLayer;
use utoipa::openapi::OpenApi;

use crate::routes::{self, service::DocumentJson};
use crate::state::AppState;

/// The HTTP API and its OpenAPI document, built from one list of routes: the document is
/// what the router routes, and is served at `GET /v1/openapi.json`. Every request gets an
/// id (echoed in `x-request-id`), a span and one log line when answered (see [`crate::logs`]).
pub fn router_and_document(state: AppState) -> (Router, OpenApi) {
    let (api, doc) = routes::router(&state.config).split_for_parts();
    let traced = ServiceBuilder::new()
        .layer(SetRequestIdLayer::x_request_id(
            crate::logs::NodeRequestIds::new(&state.online.node.id),
        ))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(crate::logs::request_span)
                .on_response(crate::logs::on_response)
                // The response line has the status: no second line for a 5xx.
                .on_failure(()),
        )
        .layer(PropagateRequestIdLayer::x_request_id());
    let json = serde_json::to_string(&doc).unwrap_or_else(|_| "{}".into());
    // The browser face's files at `/` when the server is given them (same origin as the
    // API); any other path is the API's `not_found`.
    let api = match &state.config.web_dir {
        Some(dir) => api.fallback_service(
            ServeDir::new(dir)
                .append_index_html_on_directories(true)
                .fallback(axum::handler::HandlerWithoutStateExt::into_service(
                    routes::not_found,
                )),
        ),
        None => api.fallback(routes::not_found),
    };
    let router = api
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(Extension(DocumentJson(json.into())))
        .layer(DefaultBodyLimit::max(state.config.body_limit))
        .layer(MapRequestBodyLayer::new(body_timeout(
            state.config.body_timeout,
        )))
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            crate::metrics::track,
        ))
        .layer(traced)
        .layer(always(header::CACHE_CONTROL, "no-store"))
        .layer(always(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(always(header::X_FRAME_OPTIONS, "DENY"))
        .layer(always(header::REFERRER_POLICY, "no-referrer"))
        .with_state(state);
    (router, doc)
}

/// A header every answer carries, whatever the handler set. Together they say: nothing is
/// cached (answers carry tokens and private hands), nothing is sniffed into another type, no
/// page frames the API, and no referrer leaves.
fn always(name: HeaderName, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
}

/// A body that waits at most `limit` for each next piece (a client sending a byte every
/// few seconds holds nothing for long), as axum's body again.
fn body_timeout(limit: Duration) -> impl Fn(Body) -> Body + Clone {
    move |body| Body::new(TimeoutBody::new(limit, body))
}

/// `GET /metrics` alone, with no token: for a separate address only the operator's
/// scraper reaches (`--metrics-listen`).
pub fn metrics_router(state: AppState) -> Router {
    utoipa_axum::router::OpenApiRouter::new()
        .routes(routes::endpoint::<tongcheng_api::endpoints::Metrics, _, _>(
            routes::service::rendered,
        ))
        .split_for_parts()
        .0
        .with_state(state)
}

/// The HTTP API.
pub fn router(state: AppState) -> Router {
    router_and_document(state).0
}

/// Connects this node to NATS: it answers liveness requests and sweeps for tables of
/// stopped nodes from now on.
async fn join_cluster(state: &AppState, url: &str) -> std::io::Result<()> {
    let fail = |m: String| std::io::Error::other(m);
    let online = &state.online;
    if !online.several_nodes() {
        return Err(fail(
            "NATS joins nodes that share a PostgreSQL store; pass --database postgres://...".into(),
        ));
    }
    let cluster = crate::cluster::Cluster::connect(url, &state.config.nats_prefix)
        .await
        .map_err(|e| fail(e.to_string()))?;
    cluster
        .answer_liveness(online.node.url())
        .await
        .map_err(|e| fail(e.to_string()))?;
    let _ = online.cluster.set(Arc::new(cluster));
    tokio::spawn(crate::play::moved::sweep(
        online.clone(),
        Duration::from_millis(state.config.sweep_ms.max(100)),
    ));
    Ok(())
}

/// Serves until `shutdown` completes, with each connection's address known to the handlers
/// (rate limits per IP), through [`crate::listen`]'s accept loop (its timeouts and cap on
/// connections per address).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_router(listener, state.clone(), router(state), shutdown).await
}

/// [`serve`] with a router made by the caller from [`router`] (a test wraps it in a layer
/// that checks every request and answer against the document).
pub async fn serve_router(
    listener: tokio::net::TcpListener,
    state: AppState,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let Ok(addr) = listener.local_addr() {
        state.online.node.serving_at(format!("http://{addr}"));
    }
    if let Some(url) = state.config.nats_url.clone() {
        join_cluster(&state, &url).await?;
    }
    let tournaments = tokio::spawn(crate::play::tournament::sweep(state.online.clone()));
    let metrics = state.metrics.clone();
    let upkeep = tokio::spawn(async move {
        let mut every = tokio::time::interval(crate::metrics::UPKEEP_EVERY);
        loop {
            every.tick().await;
            metrics.upkeep();
        }
    });
    let served = crate::listen::serve_connections(
        listener,
        router,
        state.config.conn,
        state.metrics.clone(),
        shutdown,
    )
    .await;
    upkeep.abort();
    tournaments.abort();
    served
}
