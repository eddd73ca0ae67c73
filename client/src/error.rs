//! What can go wrong talking to the server.

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
}
