//! Sync: finished hands up (verified, idempotent by record id), the account's other devices'
//! hands down, a page at a time.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::codes::string_codes;

/// Finished hands to keep on the server.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UploadRequest {
    /// At most the server's batch size (100 unless configured): more is `batch_too_large`.
    pub records: Vec<UploadItem>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UploadItem {
    /// The hand record as the core writes it (any version the core reads).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub record: Box<RawValue>,
    /// The player's seat in that hand (a seat above 3 is refused for that record alone).
    #[cfg_attr(feature = "openapi", schema(maximum = 255))]
    pub seat: u8,
    /// When the hand finished, unix seconds (the device's clock): from
    /// [`EARLIEST_PLAYED_AT`] to a day after the server's now, else that record alone is
    /// refused (`bad_time`).
    pub played_at: i64,
}

/// 2020-01-01T00:00:00Z: no hand of this game was played before it.
pub const EARLIEST_PLAYED_AT: i64 = 1_577_836_800;
/// How far ahead of the server's clock a device's clock may run.
pub const PLAYED_AT_SLACK_SECS: i64 = 86_400;

/// What became of one uploaded record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum UploadStatus {
    /// Verified and kept: new to the account.
    Accepted,
    /// The account had it already (an upload sent again).
    Already,
    /// Not kept: `code` and `reason` say why.
    Rejected,
}

string_codes! {
    /// Why an uploaded record was refused.
    pub enum RejectCode {
        /// It is not a record the core reads.
        Unreadable = "unreadable",
        /// Its seat is not 0–3.
        BadSeat = "bad_seat",
        /// Its `played_at` is before [`EARLIEST_PLAYED_AT`] or more than a day ahead of the
        /// server's clock.
        BadTime = "bad_time",
        /// Checking it failed inside the server.
        InternalError = "internal_error",
        UnsupportedVersion = "unsupported_version",
        /// Its id is not the hash of its setup and actions.
        IdMismatch = "id_mismatch",
        RulesNotAccepted = "rules_not_accepted",
        /// Its rules differ from the preset of that name.
        RulesDiffer = "rules_differ",
        IllegalAction = "illegal_action",
        Unfinished = "unfinished",
        TrailingActions = "trailing_actions",
        /// Replayed, an event came out differently.
        EventDiffers = "event_differs",
        EventCount = "event_count",
        /// Replayed, the result (scores, payments) came out differently.
        ResultDiffers = "result_differs",
        /// The wall does not follow from the hand's committed seeds.
        UnfairWall = "unfair_wall",
        BadSetup = "bad_setup",
        NotVerified = "not_verified",
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UploadResult {
    /// The record id, when the record reads.
    pub id: Option<String>,
    pub status: UploadStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<RejectCode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl UploadResult {
    /// A refusal in words, as a history keeps it: `code: reason`, or whichever came.
    pub fn refusal(&self) -> String {
        match (&self.code, &self.reason) {
            (Some(c), Some(m)) => format!("{c}: {m}"),
            (Some(c), None) => c.to_string(),
            (None, Some(m)) => m.clone(),
            (None, None) => "refused".into(),
        }
    }

    /// A refused record.
    pub fn rejected(id: Option<String>, code: RejectCode, reason: impl Into<String>) -> Self {
        UploadResult {
            id,
            status: UploadStatus::Rejected,
            code: Some(code),
            reason: Some(reason.into()),
        }
    }
}

/// Results in request order, and their counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UploadResponse {
    pub results: Vec<UploadResult>,
    pub accepted: u64,
    pub already: u64,
    pub rejected: u64,
}

impl UploadResponse {
    /// The answer for `results`, counted.
    pub fn new(results: Vec<UploadResult>) -> UploadResponse {
        let count = |s| results.iter().filter(|r| r.status == s).count() as u64;
        UploadResponse {
            accepted: count(UploadStatus::Accepted),
            already: count(UploadStatus::Already),
            rejected: count(UploadStatus::Rejected),
            results,
        }
    }
}

/// Where a pull starts and how much it takes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct PullQuery {
    /// Where the last pull stopped (opaque); none: from the beginning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Records in this page (100 when absent; the server takes at most its own page size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PullItem {
    pub id: String,
    /// The hand record as the core wrote it.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub record: Box<RawValue>,
    pub seat: u8,
    pub played_at: i64,
    /// Played offline (never rated).
    pub offline: bool,
}

/// Records uploaded by the account's other devices after the cursor, oldest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PullResponse {
    pub records: Vec<PullItem>,
    /// Pass back to continue after these records.
    pub cursor: String,
    /// More records may follow: pull again.
    pub more: bool,
}
