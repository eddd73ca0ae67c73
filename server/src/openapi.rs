//! The OpenAPI document, written by hand next to the code (`openapi.json`) and served at
//! `GET /v1/openapi.json`. A test checks that every route is documented and nothing else is.

use axum::http::header;
use axum::response::IntoResponse;

pub const DOCUMENT: &str = include_str!("openapi.json");

pub async fn serve() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT)
}
