//! The one error shape of the API: `{"error":{"code":"stable_code","message":"..."}}`.
//!
//! Codes are a contract (clients branch on them); messages are for people and may change.
//! Each code has one HTTP status, so the two never disagree.

use serde::{Deserialize, Serialize};

use crate::codes::string_codes;

string_codes! {
    /// The server's stable error codes.
    pub enum ErrorCode {
        /// A field is malformed (a key that is not 64 hex digits, a device id not a number).
        BadRequest = "bad_request",
        /// The body is JSON of the wrong shape (a missing or unknown field, a wrong type).
        BadJson = "bad_json",
        /// The query string is of the wrong shape.
        BadQuery = "bad_query",
        /// A pull cursor this server did not give.
        BadCursor = "bad_cursor",
        /// Room settings out of bounds (people, bots, hands, time limits).
        BadRoom = "bad_room",
        /// A tournament out of bounds (entrants, rounds, cut lines, hands, schedule).
        BadTournament = "bad_tournament",
        /// More records in one upload than the server takes.
        BatchTooLarge = "batch_too_large",
        /// The rule set named is not played on this server.
        RulesNotAccepted = "rules_not_accepted",
        /// No session, or one unknown, expired or revoked (log in again); a bad signature or
        /// challenge; a missing or wrong admin token.
        Unauthorized = "unauthorized",
        /// The server has no admin token: its admin endpoints are off.
        AdminDisabled = "admin_disabled",
        /// This device was revoked from its account.
        DeviceRevoked = "device_revoked",
        /// The account (or this device) is suspended: the body's `until` and `reason` say
        /// until when and why.
        AccountSuspended = "account_suspended",
        /// The account (or this device) is banned: the body's `reason` says why.
        AccountBanned = "account_banned",
        /// The link code is wrong, expired or used (the three read the same).
        InvalidLinkCode = "invalid_link_code",
        /// No such route, device or room.
        NotFound = "not_found",
        MethodNotAllowed = "method_not_allowed",
        /// A concurrent request changed the same data: try again.
        Conflict = "conflict",
        /// This device's key already belongs to another account.
        KeyInUse = "key_in_use",
        /// A newer queue request of the same account took this one's place.
        QueueReplaced = "queue_replaced",
        /// Every invitation to the room is taken.
        RoomFull = "room_full",
        /// The tournament's sign-up is over (full, started, finished or cancelled).
        SignUpClosed = "sign_up_closed",
        BodyTooLarge = "body_too_large",
        /// The body is not JSON (Content-Type: application/json).
        NotJson = "not_json",
        /// Too many attempts: wait what `Retry-After` says.
        RateLimited = "rate_limited",
        /// The account holds as many table connections as it may: close one first.
        TooManyConnections = "too_many_connections",
        Internal = "internal",
        /// The server has no room for another table, or no free room code.
        NoRoom = "no_room",
        /// No table could be made in time: queue again.
        QueueTimeout = "queue_timeout",
        /// The server's store failed: try again later.
        StoreUnavailable = "store_unavailable",
        /// The server took longer than its request timeout to answer: try again.
        Timeout = "timeout",

    }
}

impl ErrorCode {
    /// The HTTP status this code is answered with.
    pub fn status(&self) -> u16 {
        use ErrorCode::*;
        match self {
            BadRequest | BadJson | BadQuery | BadCursor | BadRoom | BadTournament
            | BatchTooLarge | RulesNotAccepted => 400,
            Unauthorized => 401,
            AdminDisabled | DeviceRevoked | InvalidLinkCode | AccountSuspended | AccountBanned => {
                403
            }
            NotFound => 404,
            MethodNotAllowed => 405,
            Conflict | KeyInUse | QueueReplaced | RoomFull | SignUpClosed => 409,
            BodyTooLarge => 413,
            NotJson => 415,
            RateLimited | TooManyConnections => 429,
            Internal | Other(_) => 500,
            NoRoom | QueueTimeout | StoreUnavailable | Timeout => 503,
        }
    }
}

/// Every error answer's body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    pub code: ErrorCode,
    /// For people; may change.
    pub message: String,
    /// `account_suspended`: when the suspension ends (unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// `account_suspended`, `account_banned`: the operator's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code,
                message: message.into(),
                until: None,
                reason: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_body_keeps_its_shape_and_codes() {
        let body = ErrorBody::new(ErrorCode::QueueTimeout, "no table");
        assert_eq!(
            serde_json::to_string(&body).unwrap(),
            r#"{"error":{"code":"queue_timeout","message":"no table"}}"#
        );
        let newer: ErrorBody =
            serde_json::from_str(r#"{"error":{"code":"banned","message":"m"}}"#).unwrap();
        assert_eq!(newer.error.code.as_str(), "banned");
        for code in ErrorCode::KNOWN {
            assert_eq!(&ErrorCode::parse(code.as_str()), code);
            assert!((400..600).contains(&code.status()), "{code}");
        }
    }
}
