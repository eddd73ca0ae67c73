//! Sync: upload finished hands (verified, idempotent by record id) and pull the hands of the
//! account's other devices since a cursor.
//!
//! Every uploaded record is replayed by the core against the rule sets this server accepts;
//! a record that does not read or does not replay exactly is refused with a stable code and
//! a reason, and never blocks the rest of its batch. Results come back in request order.
//! Uploaded hands are stored as offline: a client cannot make a hand count for a rating by
//! saying so — only tables the server hosts will.

use std::sync::atomic::Ordering::Relaxed;

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;
use tongcheng_core::record::{HandRecord, RecordError, ReplayError, Verifier};

use super::{Authed, blocking};
use crate::app::AppState;
use crate::error::{ApiError, clip};
use crate::store::NewRecord;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadRequest {
    pub records: Vec<UploadItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadItem {
    /// The hand record, as the core writes it (any version the core reads).
    pub record: Box<RawValue>,
    /// The player's seat in that hand.
    pub seat: u8,
    /// When the hand finished, unix seconds (the device's clock).
    pub played_at: i64,
}

#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct UploadResult {
    /// The record id, when the record reads.
    pub id: Option<String>,
    /// `accepted` (new), `already` (the account had it) or `rejected`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Serialize)]
pub struct UploadResponse {
    pub results: Vec<UploadResult>,
    pub accepted: u64,
    pub already: u64,
    pub rejected: u64,
}

/// `POST /v1/sync/upload`.
pub async fn upload(
    State(state): State<AppState>,
    auth: Authed,
    body: Result<Json<UploadRequest>, JsonRejection>,
) -> Result<Json<UploadResponse>, ApiError> {
    let Json(req) = body?;
    if req.records.len() > state.config.max_batch {
        return Err(ApiError::bad_request(
            "batch_too_large",
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
                        Err(UploadResult {
                            id: None,
                            status: "rejected",
                            code: Some("internal_error"),
                            reason: Some("the record could not be checked".into()),
                        })
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
                        "accepted"
                    } else {
                        "already"
                    },
                    code: None,
                    reason: None,
                },
                Err(rejected) => rejected,
            })
            .collect::<Vec<_>>())
    })
    .await?;
    let count = |s: &str| results.iter().filter(|r| r.status == s).count() as u64;
    let (accepted, already, rejected) = (count("accepted"), count("already"), count("rejected"));
    let m = &state.metrics;
    m.sync_batches.fetch_add(1, Relaxed);
    m.records_accepted.fetch_add(accepted, Relaxed);
    m.records_already.fetch_add(already, Relaxed);
    m.records_rejected.fetch_add(rejected, Relaxed);
    Ok(Json(UploadResponse {
        results,
        accepted,
        already,
        rejected,
    }))
}

/// Reads and verifies one uploaded record.
pub fn check(verifier: &Verifier, item: &UploadItem) -> Result<NewRecord, UploadResult> {
    let reject = |id: Option<String>, code: &'static str, reason: String| UploadResult {
        id,
        status: "rejected",
        code: Some(code),
        reason: Some(clip(&reason)),
    };
    let record = read_record(item.record.get())
        .map_err(|e| reject(raw_id(&item.record), "unreadable", e.to_string()))?;
    let id = Some(record.id.to_string());
    if item.seat > 3 {
        return Err(reject(
            id,
            "bad_seat",
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
pub fn replay_code(e: &ReplayError) -> &'static str {
    #[allow(unreachable_patterns)]
    match e {
        ReplayError::Version(_) => "unsupported_version",
        ReplayError::Id { .. } => "id_mismatch",
        ReplayError::RulesNotAccepted { .. } => "rules_not_accepted",
        ReplayError::RulesDiffer { .. } => "rules_differ",
        ReplayError::Illegal { .. } => "illegal_action",
        ReplayError::Unfinished(_) => "unfinished",
        ReplayError::TrailingActions(_) => "trailing_actions",
        ReplayError::EventDiffers { .. } => "event_differs",
        ReplayError::EventCount { .. } => "event_count",
        ReplayError::ResultDiffers(_) => "result_differs",
        ReplayError::Unfair(_) => "unfair_wall",
        ReplayError::BadSetup(_) => "bad_setup",
        _ => "not_verified",
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PullQuery {
    /// Where the last pull stopped (opaque); none: from the beginning.
    pub cursor: Option<String>,
    pub limit: Option<u32>,
}

#[derive(Serialize)]
pub struct PullItem {
    pub id: String,
    pub record: Box<RawValue>,
    pub seat: u8,
    pub played_at: i64,
    pub offline: bool,
}

#[derive(Serialize)]
pub struct PullResponse {
    pub records: Vec<PullItem>,
    /// Pass back to continue after these records.
    pub cursor: String,
    /// More records may follow: pull again.
    pub more: bool,
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
                ApiError::bad_request("bad_cursor", "the cursor is not one this server gave")
            }),
    }
}

/// `GET /v1/sync/pull?cursor=&limit=`.
///
/// The body is written by hand around the stored record texts: they are the core's own
/// output, stored after verification, so re-parsing them only to embed them would double the
/// cost of a pull. (The shape is [`PullResponse`]'s; a test reads it back.)
pub async fn pull(
    State(state): State<AppState>,
    auth: Authed,
    query: Result<Query<PullQuery>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Query(q) = query?;
    let after = parse_cursor(q.cursor.as_deref())?;
    let limit = q.limit.unwrap_or(100).clamp(1, state.config.max_pull);
    let store = state.store.clone();
    let s = auth.session;
    let rows = blocking(move || Ok(store.pull(s.account_id, s.device_id, after, limit)?)).await?;
    let more = rows.len() == limit as usize;
    let cursor = format!("v1.{}", rows.last().map_or(after, |r| r.seq));
    let mut body =
        String::with_capacity(rows.iter().map(|r| r.json.len() + 160).sum::<usize>() + 64);
    body.push_str("{\"records\":[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        let head = json!({"id": r.record_id, "seat": r.seat, "played_at": r.played_at, "offline": r.offline});
        let head = head.to_string();
        // `{"id":..,...}` with `,"record":<text>` before its closing brace.
        body.push_str(&head[..head.len() - 1]);
        body.push_str(",\"record\":");
        body.push_str(&r.json);
        body.push('}');
    }
    body.push_str("],\"cursor\":");
    body.push_str(&json!(cursor).to_string());
    body.push_str(",\"more\":");
    body.push_str(if more { "true" } else { "false" });
    body.push('}');
    state
        .metrics
        .records_pulled
        .fetch_add(rows.len() as u64, Relaxed);
    Ok(([(header::CONTENT_TYPE, "application/json")], body))
}
