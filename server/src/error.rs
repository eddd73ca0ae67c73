//! The one error shape of the API: `{"error":{"code":"stable_code","message":"..."}}`.
//!
//! Codes are a contract (clients branch on them); messages are for people and may change.
//! Every failure a handler can meet becomes one of these, so nothing in the server panics on
//! hostile input and a client always gets JSON back.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    /// Stable, snake_case.
    pub code: &'static str,
    pub message: String,
    /// Seconds, sent as `Retry-After` (rate limits).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    pub fn rate_limited(retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after.max(1)),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                "too many attempts; try again later",
            )
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        let mut resp = (self.status, Json(body)).into_response();
        if let Some(s) = self.retry_after
            && let Ok(v) = HeaderValue::from_str(&s.to_string())
        {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        // The details are for the operator's log, not for the client.
        eprintln!("tongcheng-server: store error: {e}");
        match e {
            StoreError::Conflict(_) => ApiError::new(
                StatusCode::CONFLICT,
                "conflict",
                "a concurrent request changed the same data; try again",
            ),
            _ => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                "the server's store failed; try again later",
            ),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                "the request body is larger than this server takes",
            )
        } else if r.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "not_json",
                "the request body must be JSON (Content-Type: application/json)",
            )
        } else {
            ApiError::bad_request("bad_json", clip(&r.body_text()))
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::bad_request("bad_query", clip(&r.body_text()))
    }
}

/// At most 300 characters of a message that may quote untrusted input.
pub fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(300).collect();
    if c.len() < s.len() {
        c.push('…');
    }
    c
}
