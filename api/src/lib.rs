//! Tongcheng Mahjong's HTTP contract: every `/v1` request and response body, the error body
//! and its stable codes, and each endpoint's method, path, authentication and body types.
//!
//! The server implements these endpoints and the client calls them with the same types, so
//! the two cannot disagree on a field; the server's OpenAPI document (`GET /v1/openapi.json`,
//! feature `openapi`) is generated from them. (The online table's WebSocket messages are the
//! core's `protocol` module: this crate covers the HTTP side.)
//!
//! Serde only: the app model will run this crate in WebAssembly.
//!
//! - [`Endpoint`]: one unit struct per endpoint in [`endpoints`];
//! - [`error`]: [`ErrorBody`] and [`ErrorCode`];
//! - [`auth`], [`sync`], [`play`], [`admin`], [`sanctions`]: the bodies, by concern;
//! - [`openapi`] (feature `openapi`): the document's pieces.

#![forbid(unsafe_code)]

pub mod admin;
pub mod auth;
mod codes;
pub mod endpoints;
pub mod error;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod play;
pub mod sanctions;
pub mod sync;
pub mod text;
pub mod tournament;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use endpoints::Endpoint;
pub use error::{ErrorBody, ErrorCode, ErrorDetail};

/// The HTTP methods the API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// Who may call an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Auth {
    /// Anybody.
    None,
    /// A player's session: `Authorization: Bearer <token from login>`.
    Session,
    /// The server's admin token as the bearer token, never a player's session.
    Admin,
}

/// An endpoint without path or query parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoParams {}

/// A request without a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoBody;

/// `204 No Content`: the answer of an endpoint that only acts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoContent;

/// `101 Switching Protocols`: the request becomes a WebSocket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Upgrade;

/// A `text/plain` answer (Prometheus metrics).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text(pub String);

/// The OpenAPI document itself, as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Document(pub serde_json::Value);

/// Liveness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthResponse {
    /// `ok`.
    pub status: String,
    /// The store backend: `sqlite` or `postgres`.
    pub store: String,
}

/// Fills an endpoint's path with its parameters.
pub trait PathParams {
    /// `pattern` (an endpoint's [`Endpoint::PATH`]) with each `{name}` replaced.
    fn fill(&self, pattern: &str) -> String;
}

impl PathParams for NoParams {
    fn fill(&self, pattern: &str) -> String {
        pattern.to_string()
    }
}

impl PathParams for auth::DeviceId {
    fn fill(&self, pattern: &str) -> String {
        pattern.replace("{id}", &self.id.to_string())
    }
}

impl PathParams for sanctions::ItemId {
    fn fill(&self, pattern: &str) -> String {
        pattern.replace("{id}", &self.id.to_string())
    }
}

impl PathParams for sanctions::HandId {
    fn fill(&self, pattern: &str) -> String {
        pattern.replace("{id}", &self.id)
    }
}

impl PathParams for play::RoomCode {
    fn fill(&self, pattern: &str) -> String {
        pattern.replace("{code}", &self.code)
    }
}

impl PathParams for tournament::TournamentId {
    fn fill(&self, pattern: &str) -> String {
        pattern.replace("{id}", &self.id)
    }
}

impl PathParams for tournament::RoundId {
    fn fill(&self, pattern: &str) -> String {
        pattern
            .replace("{id}", &self.id)
            .replace("{round}", &self.round.to_string())
    }
}

/// A request body as a client sends it: JSON, or nothing.
pub trait RequestBody {
    /// The body's bytes (`None`: no body).
    fn to_json(&self) -> Option<serde_json::Result<Vec<u8>>>;
}

impl<T: Serialize> RequestBody for T {
    fn to_json(&self) -> Option<serde_json::Result<Vec<u8>>> {
        Some(serde_json::to_vec(self))
    }
}

impl RequestBody for NoBody {
    fn to_json(&self) -> Option<serde_json::Result<Vec<u8>>> {
        None
    }
}

/// A successful answer's body as a client reads it.
pub trait ResponseBody: Sized {
    fn from_body(text: &str) -> serde_json::Result<Self>;
}

impl<T: DeserializeOwned> ResponseBody for T {
    fn from_body(text: &str) -> serde_json::Result<T> {
        serde_json::from_str(text)
    }
}

impl ResponseBody for NoContent {
    fn from_body(_: &str) -> serde_json::Result<NoContent> {
        Ok(NoContent)
    }
}

impl ResponseBody for Text {
    fn from_body(text: &str) -> serde_json::Result<Text> {
        Ok(Text(text.to_string()))
    }
}
