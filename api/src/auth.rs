//! Login (challenge → signature → session token), the account, its devices and link codes.
//!
//! A device proves it holds its Ed25519 key by signing [`login_message`] over a challenge
//! nonce. The message is domain-separated ([`LOGIN_DOMAIN`]) and binds the nonce and the public
//! key, so a signature made for this purpose can never be replayed elsewhere.

use serde::{Deserialize, Serialize};

/// The prefix of every login signature: what the signature is for, and the protocol version.
pub const LOGIN_DOMAIN: &[u8] = b"tongcheng-login-v1\n";

/// The bytes a device signs to log in with `public_key` against challenge `nonce` (both raw
/// bytes, not hex).
pub fn login_message(nonce: &[u8], public_key: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(LOGIN_DOMAIN.len() + nonce.len() + public_key.len());
    m.extend_from_slice(LOGIN_DOMAIN);
    m.extend_from_slice(nonce);
    m.extend_from_slice(public_key);
    m
}

/// A single-use login challenge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChallengeResponse {
    /// 32 random bytes, hex: sign [`login_message`] over them.
    pub nonce: String,
    /// Seconds the nonce stays valid.
    pub expires_in: i64,
}

/// The most characters of a device's name the server keeps (see [`crate::text::clean_text`]).
pub const DEVICE_NAME_CHARS: usize = 60;

/// A signed login.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    /// Ed25519 public key, 64 hex digits.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{64}$"))]
    pub public_key: String,
    /// The challenge's nonce, 64 hex digits.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{64}$"))]
    pub nonce: String,
    /// The signature of [`login_message`], 128 hex digits.
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{128}$"))]
    pub signature: String,
    /// Shown in the account's device list, kept as [`crate::text::clean_text`] makes it
    /// (no control or bidirectional characters, at most 60 characters); "device" when absent
    /// or empty after cleaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_name: Option<String>,
    /// Join the account that showed this code instead of making a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_code: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountInfo {
    pub id: i64,
    pub display_name: String,
}

/// A session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoginResponse {
    /// 32 random bytes, hex; send as `Authorization: Bearer <token>`.
    pub token: String,
    /// Unix seconds.
    pub expires_at: i64,
    pub account: AccountInfo,
    pub device_id: i64,
    /// This login made the account.
    pub created_account: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccountResponse {
    pub account: AccountInfo,
    pub device_id: i64,
    /// Records the account holds on the server.
    pub records: u64,
}

/// Link codes: 8 characters of an alphabet without look-alikes (no I, O, 0, 1), 40 bits,
/// shown as `ABCD-EFGH`.
pub const LINK_CODE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// Characters in a link code (the dash not counted).
pub const LINK_CODE_LEN: usize = 8;

/// A code for another device to join this account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LinkResponse {
    /// Shown on this device, typed on the other: `ABCD-EFGH`.
    pub code: String,
    /// Seconds it stays valid.
    pub expires_in: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceInfo {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_seen_at: i64,
    pub revoked: bool,
    /// The device making this request.
    pub current: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DevicesResponse {
    pub devices: Vec<DeviceInfo>,
}

/// A device of the account, in the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
pub struct DeviceId {
    pub id: i64,
}
