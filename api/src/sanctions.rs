//! Cheating caught and punished: sanctions (warn, suspend, ban, with voided matches), the
//! review queue (players' reports and the reports' automatic flags), the audit trail, and
//! the engine-assist report. Everything here but a player's report is behind the admin token.

use serde::{Deserialize, Serialize};

use crate::admin::PairReport;

/// What a sanction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SanctionKind {
    /// On the record only: nothing is blocked.
    Warn,
    /// No login, queue, room or table until `until`.
    Suspend,
    /// No login, queue, room or table, for good (until lifted).
    Ban,
}

/// The longest reason, note or operator name kept (in characters; longer ones are refused).
pub const MAX_REASON_CHARS: usize = 500;
pub const MAX_OPERATOR_CHARS: usize = 60;

/// `POST /v1/admin/sanctions`: exactly one of `account` and `device` names the target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SanctionRequest {
    /// The account sanctioned (every device of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<i64>,
    /// Or one device key (by device id): its logins and its sessions' play are blocked, the
    /// account's other devices are not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<i64>,
    pub kind: SanctionKind,
    /// Unix seconds: required for a suspension (in the future), refused for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// Why, shown to the player (1 to 500 characters).
    pub reason: String,
    /// A ban only: the account's ranked matches finished at or after this time (unix
    /// seconds) are voided and every rating of their rule sets is recomputed without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub void_from: Option<i64>,
    /// The operator, for the audit trail ("admin" when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// A sanction as kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Sanction {
    pub id: i64,
    /// The account (for a device sanction: the device's account).
    pub account: i64,
    /// The device, for a device sanction.
    pub device: Option<i64>,
    pub kind: SanctionKind,
    pub until: Option<i64>,
    pub reason: String,
    pub void_from: Option<i64>,
    pub created_at: i64,
    pub created_by: String,
    pub lifted_at: Option<i64>,
    pub lifted_by: Option<String>,
    /// In force now: not lifted, and a suspension not past its `until`.
    pub active: bool,
}

/// The answer to a sanction: it, and what voiding did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SanctionResponse {
    pub sanction: Sanction,
    /// Ranked matches voided by this sanction.
    pub voided_matches: u32,
    /// Ratings written again by the recomputation (0 when nothing was voided).
    pub ratings_recomputed: u32,
}

/// `GET /v1/admin/sanctions?account=`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct SanctionsQuery {
    /// The account whose sanctions (its devices' included) are listed, newest first.
    pub account: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SanctionsResponse {
    pub sanctions: Vec<Sanction>,
}

/// A sanction or a review, in the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct ItemId {
    pub id: i64,
}

/// `DELETE /v1/admin/sanctions/{id}?by=&reason=`: who lifts it and why (audited).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct LiftQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a review is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReviewKind {
    /// A player reported an opponent (举报).
    Report,
    /// The collusion report flagged a pair.
    Collusion,
    /// The assist report flagged an account.
    Assist,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    Open,
    /// Looked at: nothing to act on.
    Dismissed,
    /// Looked at and acted on (a sanction, usually).
    Actioned,
}

/// `POST /v1/reports`: a player reports an opponent of one hand they played together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportRequest {
    /// The opponent reported.
    pub account: i64,
    /// The hand (its record id, 64 hex digits) both played online.
    #[cfg_attr(feature = "openapi", schema(min_length = 64, max_length = 64))]
    pub record_id: String,
    /// What happened (1 to 500 characters).
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReportResponse {
    /// The review the report is in (the same one when the hand was reported already).
    pub review: i64,
}

/// A player's report, as evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerReport {
    pub reporter: i64,
    pub record_id: String,
    pub reason: String,
}

/// What a review rests on: one of the three, by its kind; `hands` are record ids to replay
/// (`GET /v1/admin/hands/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Evidence {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<PlayerReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<PairReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assist: Option<AssistAccount>,
    pub hands: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Review {
    pub id: i64,
    pub kind: ReviewKind,
    /// The account under review (for a pair: the one who may be helping).
    pub account: i64,
    /// The other account of a collusion pair.
    pub partner: Option<i64>,
    /// The rule set of an automatic flag.
    pub rules: Option<String>,
    pub status: ReviewStatus,
    pub evidence: Evidence,
    pub created_at: i64,
    /// When the evidence was last brought up to date (a flag found again by a later scan).
    pub updated_at: i64,
    pub decided_at: Option<i64>,
    pub decided_by: Option<String>,
    pub note: Option<String>,
}

/// `GET /v1/admin/reviews?status=&kind=&account=`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct ReviewsQuery {
    /// `open` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ReviewStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ReviewKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewsResponse {
    /// Oldest first.
    pub reviews: Vec<Review>,
}

/// `POST /v1/admin/reviews/{id}`: the decision on an open review.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReviewDecision {
    /// `dismissed` or `actioned`.
    pub decision: ReviewStatus,
    /// Why (1 to 500 characters).
    pub note: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// `POST /v1/admin/reviews/scan`: runs the collusion and assist reports over a rule set's
/// ranked history and files their flags in the review queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ScanRequest {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 64))]
    pub rules: String,
    /// Only hands played at or after this time (unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    /// The collusion report's `min_hands` (20 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_hands: Option<u32>,
    /// The assist report's `min_decisions` (200 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_decisions: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScanResponse {
    pub hands: u32,
    pub collusion_flags: u32,
    pub assist_flags: u32,
    /// Flags not in the queue before (the others brought their open review up to date).
    pub filed: u32,
}

/// One row of the audit trail: who did what, when, why. Rows are only ever added.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditEntry {
    pub id: i64,
    pub at: i64,
    pub actor: String,
    /// `sanction`, `lift`, `void`, `review` or `report`.
    pub action: String,
    pub account: Option<i64>,
    /// What the row is about, e.g. `sanction 3: ban` or `review 7: dismissed`.
    pub subject: String,
    pub reason: String,
}

/// `GET /v1/admin/audit?account=`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditResponse {
    /// Oldest first.
    pub entries: Vec<AuditEntry>,
}

/// A ranked hand, in the path (its record id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct HandId {
    pub id: String,
}

/// `GET /v1/admin/hands/{id}`: a ranked hand to replay, with the account in each seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankedHandResponse {
    pub record_id: String,
    pub table: String,
    pub rules: String,
    pub played_at: i64,
    /// The account in each of the record's seats (`null`: a bot).
    pub accounts: Vec<Option<i64>>,
    /// The record as the core writes it (`tongcheng replay` reads it).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub record: serde_json::Value,
}

/// `GET /v1/admin/assist?rules=&min_decisions=&since=`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct AssistQuery {
    #[cfg_attr(feature = "openapi", param(min_length = 1, max_length = 64))]
    pub rules: String,
    /// Non-forced decisions an account must have made to be judged (200 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_decisions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
}

/// When an account is flagged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AssistThresholds {
    pub min_decisions: u32,
    /// The z-score of the top-choice rate over its peers that flags on its own.
    pub z: f64,
    /// A lower z-score that flags together with flat decision times.
    pub z_with_timing: f64,
    /// How flat decision times must be: the z-score of the account's hard-over-easy time
    /// ratio below its peers'.
    pub timing_z: f64,
    /// Peers are accounts within this many rating points (Weng-Lin mu).
    pub peer_band: f64,
    /// With fewer peers than this, the nearest in rating are taken.
    pub min_peers: u32,
}

impl Default for AssistThresholds {
    /// Calibrated on a simulated honest population (the server's `assist_rates` test prints
    /// the hit and false-positive rates they give).
    fn default() -> AssistThresholds {
        AssistThresholds {
            min_decisions: 200,
            z: 3.0,
            z_with_timing: 2.0,
            timing_z: 1.5,
            peer_band: 3.0,
            min_peers: 12,
        }
    }
}

/// One figure of an account against its peers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeerMeasure {
    pub value: f64,
    /// The peers' median.
    pub peers: f64,
    /// The spread the z-score divides by (the peers' robust spread and this account's
    /// sampling error).
    pub spread: f64,
    /// In the direction of assistance (higher: more like the engine).
    pub z: f64,
}

/// Why an account was flagged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AssistFlag {
    /// Plays the engine's first choice far more often than its peers.
    TopChoice,
    /// Plays it well above its peers, and takes as long over easy decisions as hard ones.
    TopChoiceFlatTiming,
}

/// One account's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AssistAccount {
    pub account: i64,
    /// Its rating (mu) in the rule set, 25 before its first rated match.
    pub rating: f64,
    pub hands: u32,
    /// Non-forced decisions judged.
    pub decisions: u32,
    /// Of those, the hard bot's first choice.
    pub top_choices: u32,
    /// The share of decisions that were the hard bot's first choice.
    pub top_choice: PeerMeasure,
    /// How far down the hard bot's ranking its choices fall on average (0: always first);
    /// the z-score is positive when nearer the top than its peers.
    pub mean_rank: PeerMeasure,
    /// Decisions with a recorded think time.
    pub timed: u32,
    /// Median think time (ms) on easy and on hard decisions.
    pub easy_ms: Option<u32>,
    pub hard_ms: Option<u32>,
    /// ln(mean hard time / mean easy time) (geometric means): people take longer over hard
    /// decisions; a relay of engine moves does not. Its z-score is positive when flatter than
    /// its peers. Absent with too few timed decisions of either kind.
    pub timing: Option<PeerMeasure>,
    /// Peers the account was measured against.
    pub peers: u32,
    pub flagged_by: Vec<AssistFlag>,
    /// Some of its hands (record ids), to replay.
    pub hands_sample: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AssistReport {
    pub hands: u32,
    pub unreadable: u32,
    pub thresholds: AssistThresholds,
    /// The bot whose choices are the reference.
    pub bot_level: String,
    /// Accounts with at least `min_decisions`: flagged first, then by top-choice z-score.
    pub accounts: Vec<AssistAccount>,
}
