//! The JSON of the server's `/v1` API, as the client sends and reads it (the server's
//! OpenAPI document, `GET /v1/openapi.json`, is the reference).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

#[derive(Debug, Deserialize)]
pub struct Challenge {
    pub nonce: String,
}

#[derive(Debug, Serialize)]
pub struct LoginRequest<'a> {
    pub public_key: String,
    pub nonce: String,
    pub signature: String,
    pub device_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_code: Option<&'a str>,
}

#[derive(Debug, Deserialize)]
pub struct AccountInfo {
    pub id: i64,
    pub display_name: String,
}

#[derive(Debug, Deserialize)]
pub struct LoginResponse {
    pub token: String,
    pub account: AccountInfo,
    pub device_id: i64,
    pub created_account: bool,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct LinkCode {
    pub code: String,
    pub expires_in: i64,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct DeviceInfo {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_seen_at: i64,
    pub revoked: bool,
    pub current: bool,
}

#[derive(Debug, Deserialize)]
pub struct Devices {
    pub devices: Vec<DeviceInfo>,
}

#[derive(Debug, Deserialize)]
pub struct AccountResponse {
    pub account: AccountInfo,
    pub device_id: i64,
    pub records: u64,
}

#[derive(Debug, Serialize)]
pub struct UploadItem {
    pub record: Box<RawValue>,
    pub seat: u8,
    pub played_at: i64,
}

#[derive(Debug, Serialize)]
pub struct UploadRequest<'a> {
    pub records: &'a [UploadItem],
}

#[derive(Debug, Deserialize)]
pub struct UploadResult {
    pub id: Option<String>,
    pub status: String,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UploadResponse {
    pub results: Vec<UploadResult>,
}

#[derive(Debug, Deserialize)]
pub struct PullItem {
    pub id: String,
    pub record: Box<RawValue>,
    pub seat: u8,
    pub played_at: i64,
    #[serde(default)]
    pub offline: bool,
}

#[derive(Debug, Deserialize)]
pub struct PullResponse {
    pub records: Vec<PullItem>,
    pub cursor: String,
    pub more: bool,
}

#[derive(Debug, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Deserialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
}

/// `POST /v1/queue`'s body.
#[derive(Debug, Serialize)]
pub struct QueueRequest<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<&'a str>,
    pub ranked: bool,
}

/// Where the queue seated the player: join `table` over the online session.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct Seated {
    pub table: String,
    pub rules: String,
    pub ranked: bool,
    /// People seated, this player included (the other seats are bots).
    pub people: u8,
    pub bots: u8,
    /// The base URL of the server node that runs the table (absent from a one-node server:
    /// the same server). A join elsewhere is redirected there anyway.
    #[serde(default)]
    pub server: Option<String>,
}

/// One rating as the server shows it (per rule set).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Rating {
    pub rules: String,
    pub mu: f64,
    pub sigma: f64,
    /// `mu - 3 sigma`: what tiers use.
    pub conservative: f64,
    pub games: i64,
    pub provisional: bool,
    /// Rated matches the provisional period lasts (0 from a server that does not say).
    #[serde(default)]
    pub provisional_games: i64,
    /// `None` while provisional.
    #[serde(default)]
    pub tier: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Ratings {
    pub ratings: Vec<Rating>,
}

/// What the owner of a private room picks (`POST /v1/rooms`). Absent fields keep the rule
/// set's own values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RoomSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Hands in the match (dealer turns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hands: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_discard_secs: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discard_secs: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_secs: Option<u16>,
    /// People invited, the owner included (1 to 4).
    pub people: u8,
    /// Bot levels for the other seats: exactly `4 - people` of them.
    pub bots: Vec<String>,
}

/// An admitted player of a private room.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct RoomPlayer {
    pub account: i64,
    pub name: String,
}

/// A private room as its players see it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct RoomInfo {
    /// The 6-digit code friends join by.
    pub code: String,
    /// The table to sit down at once admitted.
    pub table: String,
    /// The base URL of the server node that runs the table (absent from a one-node server).
    #[serde(default)]
    pub server: Option<String>,
    /// People invited, the owner included.
    pub people: u8,
    /// People admitted so far.
    pub admitted: u8,
    /// Who is in, owner first (empty from a server that does not say).
    #[serde(default)]
    pub players: Vec<RoomPlayer>,
    /// Pairs of admitted accounts that joined from one IP address (a warning, 同IP提醒).
    #[serde(default)]
    pub same_ip: Vec<[i64; 2]>,
}
