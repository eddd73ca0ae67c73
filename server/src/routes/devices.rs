//! The account's devices: list them, revoke one (its sessions end, its key never logs in
//! again).

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use tongcheng_api::ErrorCode;
use tongcheng_api::auth::{DeviceId, DeviceInfo, DevicesResponse};
use tongcheng_api::endpoints::{Devices, RevokeDevice};
use utoipa_axum::router::OpenApiRouter;

use super::{Authed, endpoint};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<Devices, _, _>(list))
        .routes(endpoint::<RevokeDevice, _, _>(revoke))
}

/// `GET /v1/devices`.
async fn list(
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
async fn revoke(
    State(state): State<AppState>,
    auth: Authed,
    id: Result<Path<DeviceId>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    let Path(DeviceId { id }) =
        id.map_err(|_| ApiError::new(ErrorCode::BadRequest, "the device id is a number"))?;
    let store = state.store.clone();
    let account = auth.session.account_id;
    let found = blocking(move || Ok(store.revoke_device(account, id, crate::now())?)).await?;
    if found {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("this account has no such device"))
    }
}
