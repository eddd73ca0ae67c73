//! What can go wrong talking to the server.

use tongcheng_api::ErrorBody;
use tongcheng_core::history::HistoryError;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with an error (`code` is its stable error code).
    #[error("the server refused ({status} {code}): {message}")]
    Server {
        status: u16,
        code: String,
        message: String,
    },
    /// The server could not be reached, or the connection broke (after the retries).
    #[error("cannot reach the server: {0}")]
    Network(String),
    /// The server's answer does not make sense (a different server, or a bug).
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// The caller's input cannot be sent as it is (a room code that is not 6 digits, a room
    /// with 5 people); nothing was sent.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The caller gave up waiting (a queue wait cancelled).
    #[error("cancelled")]
    Cancelled,
    #[error("device key: {0}")]
    Identity(String),
    #[error("session file: {0}")]
    SessionFile(String),
    #[error(transparent)]
    History(#[from] HistoryError),
}

impl ClientError {
    /// The session is not (or no longer) valid: log in again.
    pub fn is_unauthorized(&self) -> bool {
        matches!(self, ClientError::Server { status: 401, .. })
    }

    /// The server's refusal from its status and body: its error code when the body is the
    /// API's error body, `http_error` and the start of the body otherwise (a proxy's page).
    pub(crate) fn refused(status: u16, text: &str) -> ClientError {
        match serde_json::from_str::<ErrorBody>(text) {
            Ok(b) => ClientError::Server {
                status,
                code: b.error.code.as_str().to_string(),
                message: b.error.message,
            },
            Err(_) => ClientError::Server {
                status,
                code: "http_error".into(),
                message: text.chars().take(200).collect(),
            },
        }
    }
}

/// A reqwest error with its causes (its Display alone is often just "error sending request").
pub(crate) fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}
