//! The account's devices: list them, revoke one (its sessions end, its key never logs in
//! again).

use axum::Json;
use axum::extract::Path;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;

use super::{Authed, blocking};
use crate::app::AppState;
use crate::error::ApiError;

#[derive(Serialize)]
pub struct DeviceInfo {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_seen_at: i64,
    pub revoked: bool,
    /// The device making this request.
    pub current: bool,
}

#[derive(Serialize)]
pub struct DevicesResponse {
    pub devices: Vec<DeviceInfo>,
}

/// `GET /v1/devices`.
pub async fn list(
    State(state): State<AppState>,
    auth: Authed,
) -> Result<Json<DevicesResponse>, ApiError> {
    let store = state.store.clone();
    let s = auth.session;
    let devices = blocking(move || Ok(store.devices(s.account_id)?)).await?;
    Ok(Json(DevicesResponse {
        devices: devices
            .into_iter()
            .map(|d| DeviceInfo {
                current: d.id == s.device_id,
                id: d.id,
                name: d.name,
                created_at: d.created_at,
                last_seen_at: d.last_seen_at,
                revoked: d.revoked,
            })
            .collect(),
    }))
}

/// `DELETE /v1/devices/{id}`.
pub async fn revoke(
    State(state): State<AppState>,
    auth: Authed,
    id: Result<Path<i64>, axum::extract::rejection::PathRejection>,
) -> Result<StatusCode, ApiError> {
    let Path(id) =
        id.map_err(|_| ApiError::bad_request("bad_request", "the device id is a number"))?;
    let store = state.store.clone();
    let account = auth.session.account_id;
    let found = blocking(move || Ok(store.revoke_device(account, id, crate::now())?)).await?;
    if found {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("this account has no such device"))
    }
}
