//! Cheating caught and punished (see [`crate::sanctions`]): the operator's sanctions, review
//! queue, audit trail, assist report and hands to replay (behind the admin token), and the
//! player's report of an opponent (behind his session).

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use tongcheng_api::ErrorCode;
use tongcheng_api::admin::MAX_RULES_NAME;
use tongcheng_api::endpoints::{
    AdminHand, Assist, Audit, CreateSanction, DecideReview, LiftSanction, ListSanctions,
    ReportPlayer, Reviews, ScanReviews,
};
use tongcheng_api::sanctions::{
    AssistQuery, AssistReport, AssistThresholds, AuditEntry, AuditQuery, AuditResponse, HandId,
    ItemId, LiftQuery, MAX_OPERATOR_CHARS, MAX_REASON_CHARS, RankedHandResponse, ReportRequest,
    ReportResponse, Review, ReviewDecision, ReviewStatus, ReviewsQuery, ReviewsResponse, Sanction,
    SanctionKind, SanctionRequest, SanctionResponse, SanctionsQuery, SanctionsResponse,
    ScanRequest, ScanResponse,
};
use tongcheng_api::text::clean_text;
use utoipa_axum::router::OpenApiRouter;

use super::admin::check_admin;
use super::{Authed, endpoint};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::sanctions::{self, assist, in_force, reviews, void};
use crate::state::AppState;
use crate::store::NewSanction;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<ReportPlayer, _, _>(report_player))
        .routes(endpoint::<CreateSanction, _, _>(create_sanction))
        .routes(endpoint::<ListSanctions, _, _>(list_sanctions))
        .routes(endpoint::<LiftSanction, _, _>(lift_sanction))
        .routes(endpoint::<Reviews, _, _>(list_reviews))
        .routes(endpoint::<ScanReviews, _, _>(scan_reviews))
        .routes(endpoint::<DecideReview, _, _>(decide_review))
        .routes(endpoint::<Audit, _, _>(audit))
        .routes(endpoint::<AdminHand, _, _>(admin_hand))
        .routes(endpoint::<Assist, _, _>(assist_report))
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}

/// A reason or note: 1 to [`MAX_REASON_CHARS`] characters once cleaned (never cut short).
fn reason_text(field: &str, text: &str) -> Result<String, ApiError> {
    let clean = clean_text(text, MAX_REASON_CHARS + 1);
    if clean.is_empty() || clean.chars().count() > MAX_REASON_CHARS {
        return Err(bad(format!(
            "{field} must be 1 to {MAX_REASON_CHARS} characters"
        )));
    }
    Ok(clean)
}

/// The operator named for the audit trail ("admin" when none is given).
fn operator(by: Option<&str>) -> Result<String, ApiError> {
    let Some(by) = by else {
        return Ok("admin".into());
    };
    let clean = clean_text(by, MAX_OPERATOR_CHARS + 1);
    if clean.is_empty() || clean.chars().count() > MAX_OPERATOR_CHARS {
        return Err(bad(format!(
            "by must be 1 to {MAX_OPERATOR_CHARS} characters"
        )));
    }
    Ok(clean)
}

fn rules_name(rules: &str) -> Result<(), ApiError> {
    if rules.is_empty() || rules.chars().count() > MAX_RULES_NAME {
        return Err(ApiError::new(
            ErrorCode::BadQuery,
            format!("rules must be a rule-set name of 1 to {MAX_RULES_NAME} characters"),
        ));
    }
    Ok(())
}

/// The request checked: the sanction to impose, before its target is looked up.
fn checked(req: &SanctionRequest, now: i64) -> Result<(SanctionKind, String, String), ApiError> {
    if req.account.is_some() == req.device.is_some() {
        return Err(bad("name exactly one target: account or device"));
    }
    match (req.kind, req.until) {
        (SanctionKind::Suspend, Some(u)) if u > now => {}
        (SanctionKind::Suspend, _) => {
            return Err(bad(
                "a suspension needs until: a time in the future (unix seconds)",
            ));
        }
        (_, Some(_)) => return Err(bad("until is for suspensions only")),
        _ => {}
    }
    match (req.kind, req.void_from) {
        (SanctionKind::Ban, Some(f)) if f > now => {
            return Err(bad("void_from must not be in the future"));
        }
        (SanctionKind::Ban, _) | (_, None) => {}
        (_, Some(_)) => return Err(bad("void_from comes with a ban only")),
    }
    Ok((
        req.kind,
        reason_text("reason", &req.reason)?,
        operator(req.by.as_deref())?,
    ))
}

/// `POST /v1/admin/sanctions`.
async fn create_sanction(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<SanctionRequest>, JsonRejection>,
) -> Result<Json<SanctionResponse>, ApiError> {
    check_admin(&state, &headers)?;
    let Json(req) = body?;
    let now = crate::now();
    let (kind, reason, by) = checked(&req, now)?;
    let store = state.store.clone();
    let (s, voided, recomputed) = blocking(move || {
        let account = match (req.account, req.device) {
            (Some(a), _) => store.account(a)?.map(|a| a.id),
            (None, Some(d)) => store.device_account(d)?,
            (None, None) => None,
        }
        .ok_or_else(|| ApiError::not_found("no such account or device"))?;
        let new = NewSanction {
            account_id: account,
            device_id: req.device,
            kind: sanctions::kind_name(kind).to_string(),
            until: req.until,
            reason,
            void_from: req.void_from,
            by: by.clone(),
        };
        let id = store.add_sanction(&new, now)?;
        let (voided, recomputed) = match req.void_from {
            Some(from) => store.void_matches(id, account, from, &by, &void::recompute, now)?,
            None => (0, 0),
        };
        let s = store
            .sanction(id)?
            .ok_or_else(|| ApiError::internal("the sanction just made is missing"))?;
        Ok((s, voided, recomputed))
    })
    .await?;
    if in_force(&s, now) {
        state
            .online
            .bar(s.account_id, s.device_id, Some(sanctions::frame(&s)));
    }
    tracing::info!(sanction = s.id, account = s.account_id, kind = %s.kind, voided, "sanction imposed");
    Ok(Json(SanctionResponse {
        sanction: sanctions::shown(&s, now),
        voided_matches: voided,
        ratings_recomputed: recomputed,
    }))
}

/// `GET /v1/admin/sanctions?account=`.
async fn list_sanctions(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<SanctionsQuery>, QueryRejection>,
) -> Result<Json<SanctionsResponse>, ApiError> {
    check_admin(&state, &headers)?;
    let Query(q) = query?;
    let store = state.store.clone();
    let list = blocking(move || Ok(store.sanctions(q.account)?)).await?;
    let now = crate::now();
    Ok(Json(SanctionsResponse {
        sanctions: list.iter().map(|s| sanctions::shown(s, now)).collect(),
    }))
}

/// `DELETE /v1/admin/sanctions/{id}?by=&reason=`.
async fn lift_sanction(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(ItemId { id }): Path<ItemId>,
    query: Result<Query<LiftQuery>, QueryRejection>,
) -> Result<Json<Sanction>, ApiError> {
    check_admin(&state, &headers)?;
    let Query(q) = query?;
    let by = operator(q.by.as_deref())?;
    let reason = match q.reason.as_deref() {
        Some(r) => reason_text("reason", r)?,
        None => "lifted".to_string(),
    };
    let now = crate::now();
    let store = state.store.clone();
    let (s, still) = blocking(move || {
        let (s, lifted) = store
            .lift_sanction(id, &by, &reason, now)?
            .ok_or_else(|| ApiError::not_found("no such sanction"))?;
        if !lifted {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("sanction {id} was lifted already"),
            ));
        }
        let still = store.blocking_sanction(s.account_id, s.device_id, now)?;
        Ok((s, still))
    })
    .await?;
    // The tables free his seat only when nothing else bars him.
    let refusal = still.as_ref().map(sanctions::frame);
    state.online.bar(s.account_id, s.device_id, refusal);
    Ok(Json(sanctions::shown(&s, now)))
}

/// `GET /v1/admin/reviews?status=&kind=&account=`.
async fn list_reviews(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<ReviewsQuery>, QueryRejection>,
) -> Result<Json<ReviewsResponse>, ApiError> {
    check_admin(&state, &headers)?;
    let Query(q) = query?;
    let store = state.store.clone();
    let status = reviews::status_name(q.status.unwrap_or(ReviewStatus::Open));
    let kind = q.kind.map(reviews::kind_name);
    let list = blocking(move || Ok(store.reviews(Some(status), kind, q.account)?)).await?;
    let reviews = list
        .iter()
        .map(reviews::shown)
        .collect::<Result<Vec<Review>, _>>()?;
    Ok(Json(ReviewsResponse { reviews }))
}

/// `POST /v1/admin/reviews/scan`.
async fn scan_reviews(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<ScanRequest>, JsonRejection>,
) -> Result<Json<ScanResponse>, ApiError> {
    check_admin(&state, &headers)?;
    let Json(req) = body?;
    rules_name(&req.rules).map_err(|e| bad(e.message))?;
    let store = state.store.clone();
    let answer =
        blocking(move || Ok(reviews::scan(store.as_ref(), &req, "scan", crate::now())?)).await?;
    Ok(Json(answer))
}

/// `POST /v1/admin/reviews/{id}`.
async fn decide_review(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(ItemId { id }): Path<ItemId>,
    body: Result<Json<ReviewDecision>, JsonRejection>,
) -> Result<Json<Review>, ApiError> {
    check_admin(&state, &headers)?;
    let Json(req) = body?;
    if req.decision == ReviewStatus::Open {
        return Err(bad("a decision is dismissed or actioned"));
    }
    let note = reason_text("note", &req.note)?;
    let by = operator(req.by.as_deref())?;
    let status = reviews::status_name(req.decision);
    let store = state.store.clone();
    let r = blocking(move || {
        let (r, decided) = store
            .decide_review(id, status, &note, &by, crate::now())?
            .ok_or_else(|| ApiError::not_found("no such review"))?;
        if !decided {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("review {id} was decided already ({})", r.status),
            ));
        }
        Ok(r)
    })
    .await?;
    Ok(Json(reviews::shown(&r)?))
}

/// `GET /v1/admin/audit?account=`.
async fn audit(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<AuditQuery>, QueryRejection>,
) -> Result<Json<AuditResponse>, ApiError> {
    check_admin(&state, &headers)?;
    let Query(q) = query?;
    let store = state.store.clone();
    let rows = blocking(move || Ok(store.audit(q.account)?)).await?;
    Ok(Json(AuditResponse {
        entries: rows
            .into_iter()
            .map(|r| AuditEntry {
                id: r.id,
                at: r.at,
                actor: r.actor,
                action: r.action,
                account: r.account_id,
                subject: r.subject,
                reason: r.reason,
            })
            .collect(),
    }))
}

/// `GET /v1/admin/hands/{id}`.
async fn admin_hand(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(HandId { id }): Path<HandId>,
) -> Result<Json<RankedHandResponse>, ApiError> {
    check_admin(&state, &headers)?;
    let store = state.store.clone();
    let h = blocking(move || {
        store
            .ranked_hand(&id)?
            .ok_or_else(|| ApiError::not_found("no ranked hand with this id"))
    })
    .await?;
    let record = serde_json::from_str(&h.json)
        .map_err(|e| ApiError::internal(format!("the kept record does not read: {e}")))?;
    Ok(Json(RankedHandResponse {
        record_id: h.record_id,
        table: h.table_id,
        rules: h.rules,
        played_at: h.played_at,
        accounts: h.accounts.to_vec(),
        record,
    }))
}

/// `GET /v1/admin/assist?rules=&min_decisions=&since=`.
async fn assist_report(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<AssistQuery>, QueryRejection>,
) -> Result<Json<AssistReport>, ApiError> {
    check_admin(&state, &headers)?;
    let Query(q) = query?;
    rules_name(&q.rules)?;
    let t = AssistThresholds {
        min_decisions: q
            .min_decisions
            .unwrap_or(AssistThresholds::default().min_decisions)
            .max(1),
        ..AssistThresholds::default()
    };
    let store = state.store.clone();
    let report = blocking(move || {
        Ok(assist::from_store(
            store.as_ref(),
            &q.rules,
            q.since.unwrap_or(0),
            &t,
        )?)
    })
    .await?;
    Ok(Json(report))
}

/// `POST /v1/reports`: a player reports an opponent of a hand both hold.
async fn report_player(
    State(state): State<AppState>,
    auth: Authed,
    body: Result<Json<ReportRequest>, JsonRejection>,
) -> Result<Json<ReportResponse>, ApiError> {
    let Json(req) = body?;
    let reporter = auth.session.account_id;
    if req.record_id.len() != 64 || !req.record_id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad("record_id must be a hand's record id: 64 hex digits"));
    }
    if req.account == reporter {
        return Err(bad("you cannot report yourself"));
    }
    let reason = reason_text("reason", &req.reason)?;
    let record = req.record_id.to_ascii_lowercase();
    let store = state.store.clone();
    let review = blocking(move || {
        if !store.holds_online_hand(reporter, &record)?
            || !store.holds_online_hand(req.account, &record)?
        {
            return Err(ApiError::not_found(
                "you and that player have no online hand with this record id",
            ));
        }
        let r = reviews::report_review(reporter, req.account, &record, &reason)?;
        Ok(store
            .file_review(&r, &format!("account {reporter}"), crate::now())?
            .0)
    })
    .await?;
    Ok(Json(ReportResponse { review }))
}
