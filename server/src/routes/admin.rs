//! Admin endpoints, behind a token given to the server (`--admin-token` or
//! `TONGCHENG_ADMIN_TOKEN`), never a player's session: `GET /v1/admin/collusion`.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use sha2::{Digest, Sha256};
use tongcheng_api::ErrorCode;
use tongcheng_api::admin::{CollusionQuery, MAX_RULES_NAME, Report, Thresholds};
use tongcheng_api::endpoints::Collusion;
use utoipa_axum::router::OpenApiRouter;

use super::{bearer, endpoint};
use crate::blocking::blocking;
use crate::collusion;
use crate::error::ApiError;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(endpoint::<Collusion, _, _>(collusion))
}

/// Whether two secrets are equal, in time independent of where they differ and of their
/// lengths: both are hashed first, then every byte of the digests is compared.
pub fn same_secret(given: &str, expected: &str) -> bool {
    let a = Sha256::digest(given.as_bytes());
    let b = Sha256::digest(expected.as_bytes());
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// Lets the request through only with the server's admin token as its bearer token.
pub(crate) fn check_admin(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(expected) = state
        .config
        .admin_token
        .as_deref()
        .filter(|t| !t.is_empty())
    else {
        return Err(ApiError::new(
            ErrorCode::AdminDisabled,
            "this server has no admin token (start it with --admin-token or \
             TONGCHENG_ADMIN_TOKEN)",
        ));
    };
    let given = bearer(headers).unwrap_or("");
    if given.is_empty() || !same_secret(given, expected) {
        return Err(ApiError::unauthorized(
            "the admin token is missing or wrong (Authorization: Bearer <admin token>)",
        ));
    }
    Ok(())
}

/// `GET /v1/admin/collusion?rules=&min_hands=&since=`: the collusion report over the rule set's
/// ranked history (see [`crate::collusion`]). Every hand is replayed, so the work runs on the
/// blocking pool.
async fn collusion(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<CollusionQuery>, QueryRejection>,
) -> Result<Json<Report>, ApiError> {
    check_admin(&state, &headers)?;
    let Query(q) = query?;
    if q.rules.is_empty() || q.rules.chars().count() > MAX_RULES_NAME {
        return Err(ApiError::new(
            ErrorCode::BadQuery,
            format!("rules must be a rule-set name of 1 to {MAX_RULES_NAME} characters"),
        ));
    }
    let thresholds = Thresholds {
        min_hands: q
            .min_hands
            .unwrap_or(Thresholds::default().min_hands)
            .max(1),
        ..Thresholds::default()
    };
    let store = state.store.clone();
    let report = blocking(move || {
        Ok(collusion::from_store(
            store.as_ref(),
            &q.rules,
            q.since.unwrap_or(0),
            &thresholds,
        )?)
    })
    .await?;
    Ok(Json(report))
}

#[cfg(test)]
mod tests {
    use super::same_secret;

    #[test]
    fn secrets_compare_equal_only_when_equal() {
        assert!(same_secret("s3cret-token", "s3cret-token"));
        assert!(!same_secret("s3cret-tokeN", "s3cret-token"));
        assert!(!same_secret("s3cret", "s3cret-token"));
        assert!(!same_secret("", "s3cret-token"));
    }
}
