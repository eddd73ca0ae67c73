//! The one error shape of the API (the contract's [`ErrorBody`]), answered with its code's
//! status.
//!
//! Every failure a handler can meet becomes one of these, so nothing in the server panics on
//! hostile input and a client always gets JSON back.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tongcheng_api::{ErrorBody, ErrorCode};

use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// Seconds, sent as `Retry-After` (rate limits).
    pub retry_after: Option<u64>,
    /// A sanction's end and reason, in the body (`account_suspended`, `account_banned`).
    pub until: Option<i64>,
    pub reason: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after: None,
            until: None,
            reason: None,
        }
    }

    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Unauthorized, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }

    pub fn rate_limited(retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after.max(1)),
            ..ApiError::new(ErrorCode::RateLimited, "too many attempts; try again later")
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut body = ErrorBody::new(self.code, self.message);
        body.error.until = self.until;
        body.error.reason = self.reason;
        let mut resp = (status, Json(body)).into_response();
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
        tracing::error!(error = %e, "store error");
        match e {
            StoreError::Conflict(_) => ApiError::new(
                ErrorCode::Conflict,
                "a concurrent request changed the same data; try again",
            ),
            _ => ApiError::new(
                ErrorCode::StoreUnavailable,
                "the server's store failed; try again later",
            ),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                ErrorCode::BodyTooLarge,
                "the request body is larger than this server takes",
            )
        } else if r.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
            ApiError::new(
                ErrorCode::NotJson,
                "the request body must be JSON (Content-Type: application/json)",
            )
        } else {
            ApiError::new(ErrorCode::BadJson, clip(&r.body_text()))
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::new(ErrorCode::BadQuery, clip(&r.body_text()))
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
