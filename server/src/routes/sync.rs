//! Sync: upload finished hands (verified, idempotent by record id) and pull the hands of the
//! account's other devices since a cursor.
//!
//! Every uploaded record is replayed by the core against the rule sets this server accepts;
//! a record that does not read or does not replay exactly is refused with a stable code and
//! a reason, and never blocks the rest of its batch. Results come back in request order.
//! Uploaded hands are stored as offline: a client cannot make a hand count for a rating by
//! saying so — only tables the server hosts will.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::value::RawValue;
use tongcheng_api::ErrorCode;
use tongcheng_api::endpoints::{Pull, Upload};
use tongcheng_api::sync::{
    PullItem, PullQuery, PullResponse, RejectCode, UploadItem, UploadRequest, UploadResponse,
    UploadResult, UploadStatus,
};
use tongcheng_core::record::{HandRecord, RecordError, ReplayError, Verifier};
use utoipa_axum::router::OpenApiRouter;

use super::{Authed, endpoint};
use crate::blocking::blocking;
use crate::error::{ApiError, clip};
use crate::state::AppState;
use crate::store::NewRecord;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<Upload, _, _>(upload))
        .routes(endpoint::<Pull, _, _>(pull))
}

/// `POST /v1/sync/upload`.
async fn upload(
    State(state): State<AppState>,
    auth: Authed,
    body: Result<Json<UploadRequest>, JsonRejection>,
) -> Result<Json<UploadResponse>, ApiError> {
    let Json(req) = body?;
    if req.records.len() > state.config.max_batch {
        return Err(ApiError::new(
            ErrorCode::BatchTooLarge,
            format!(
                "{} records in one batch; at most {}",
                req.records.len(),
                state.config.max_batch
            ),
        ));
    }
    let st = state.clone();
    let s = auth.session;
    let results = blocking(move || {
        let checked: Vec<Result<NewRecord, UploadResult>> = req
            .records
            .iter()
            .map(|item| {
                // The engine is meant never to panic on any record; should it, that record is
                // refused and the batch goes on.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&st.verifier, item)))
                    .unwrap_or_else(|_| {
                        Err(UploadResult::rejected(
                            None,
                            RejectCode::InternalError,
                            "the record could not be checked",
                        ))
                    })
            })
            .collect();
        let good: Vec<NewRecord> = checked
            .iter()
            .filter_map(|c| c.as_ref().ok().cloned())
            .collect();
        let mut inserted = st
            .store
            .store_records(s.account_id, s.device_id, &good, crate::now())?
            .into_iter();
        Ok(checked
            .into_iter()
            .map(|c| match c {
                Ok(r) => UploadResult {
                    id: Some(r.record_id),
                    status: if inserted.next().unwrap_or(false) {
                        UploadStatus::Accepted
                    } else {
                        UploadStatus::Already
                    },
                    code: None,
                    reason: None,
                },
                Err(rejected) => rejected,
            })
            .collect::<Vec<_>>())
    })
    .await?;
    let answer = UploadResponse::new(results);
    let m = &state.metrics;
    m.sync_batches.increment(1);
    m.records_accepted.increment(answer.accepted);
    m.records_already.increment(answer.already);
    m.records_rejected.increment(answer.rejected);
    tracing::debug!(
        accepted = answer.accepted,
        already = answer.already,
        rejected = answer.rejected,
        "upload verified"
    );
    Ok(Json(answer))
}

/// Reads and verifies one uploaded record.
pub fn check(verifier: &Verifier, item: &UploadItem) -> Result<NewRecord, UploadResult> {
    let reject = |id: Option<String>, code: RejectCode, reason: String| {
        UploadResult::rejected(id, code, clip(&reason))
    };
    let record = read_record(item.record.get())
        .map_err(|e| reject(raw_id(&item.record), RejectCode::Unreadable, e.to_string()))?;
    let id = Some(record.id.to_string());
    if item.seat > 3 {
        return Err(reject(
            id,
            RejectCode::BadSeat,
            format!("seat {} (seats are 0–3)", item.seat),
        ));
    }
    verifier
        .verify(&record)
        .map_err(|e| reject(id.clone(), replay_code(&e), e.to_string()))?;
    Ok(NewRecord {
        record_id: record.id.to_string(),
        seat: item.seat,
        played_at: item.played_at,
        rules: record.setup.rules.name.clone(),
        offline: true,
        json: record.to_json(),
    })
}

/// Reads an uploaded record (core reads a current-version record straight into its types).
pub fn read_record(text: &str) -> Result<HandRecord, RecordError> {
    HandRecord::from_json(text)
}

/// The id a record that does not read claims, if it is a well-formed one (so the device can
/// mark the right hand).
fn raw_id(raw: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct JustId {
        id: tongcheng_core::record::RecordId,
    }
    serde_json::from_str::<JustId>(raw.get())
        .ok()
        .map(|j| j.id.to_string())
}

/// A stable code per kind of verification failure.
pub fn replay_code(e: &ReplayError) -> RejectCode {
    #[allow(unreachable_patterns)]
    match e {
        ReplayError::Version(_) => RejectCode::UnsupportedVersion,
        ReplayError::Id { .. } => RejectCode::IdMismatch,
        ReplayError::RulesNotAccepted { .. } => RejectCode::RulesNotAccepted,
        ReplayError::RulesDiffer { .. } => RejectCode::RulesDiffer,
        ReplayError::Illegal { .. } => RejectCode::IllegalAction,
        ReplayError::Unfinished(_) => RejectCode::Unfinished,
        ReplayError::TrailingActions(_) => RejectCode::TrailingActions,
        ReplayError::EventDiffers { .. } => RejectCode::EventDiffers,
        ReplayError::EventCount { .. } => RejectCode::EventCount,
        ReplayError::ResultDiffers(_) => RejectCode::ResultDiffers,
        ReplayError::Unfair(_) => RejectCode::UnfairWall,
        ReplayError::BadSetup(_) => RejectCode::BadSetup,
        _ => RejectCode::NotVerified,
    }
}

/// Cursors are `v1.<sequence number>`: opaque to clients, versioned for the server.
fn parse_cursor(c: Option<&str>) -> Result<i64, ApiError> {
    match c {
        None | Some("") => Ok(0),
        Some(c) => c
            .strip_prefix("v1.")
            .and_then(|n| n.parse::<i64>().ok())
            .filter(|n| *n >= 0)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::BadCursor,
                    "the cursor is not one this server gave",
                )
            }),
    }
}

/// `GET /v1/sync/pull?cursor=&limit=`. The stored record texts are the core's own output,
/// kept after verification: they go out as they are (checked to be JSON, never parsed into
/// values again).
async fn pull(
    State(state): State<AppState>,
    auth: Authed,
    query: Result<Query<PullQuery>, QueryRejection>,
) -> Result<Json<PullResponse>, ApiError> {
    let Query(q) = query?;
    let after = parse_cursor(q.cursor.as_deref())?;
    let limit = q.limit.unwrap_or(100).clamp(1, state.config.max_pull);
    let store = state.store.clone();
    let s = auth.session;
    let rows = blocking(move || Ok(store.pull(s.account_id, s.device_id, after, limit)?)).await?;
    let more = rows.len() == limit as usize;
    let cursor = format!("v1.{}", rows.last().map_or(after, |r| r.seq));
    let records = rows
        .into_iter()
        .map(|r| {
            let record = RawValue::from_string(r.json).map_err(|e| {
                ApiError::internal(format!("stored record {} is not JSON: {e}", r.record_id))
            })?;
            Ok(PullItem {
                id: r.record_id,
                record,
                seat: r.seat,
                played_at: r.played_at,
                offline: r.offline,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    state.metrics.records_pulled.increment(records.len() as u64);
    Ok(Json(PullResponse {
        records,
        cursor,
        more,
    }))
}
