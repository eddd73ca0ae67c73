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
