//! Login (challenge → signature → session token), logout, the account, and link codes.
//!
//! An unknown key makes a new account on its first login; with a link code it joins the
//! code's account instead. A wrong, expired or used link code all give the same error, so a
//! guess learns nothing, and attempts are rate limited per IP and per key.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use tongcheng_api::ErrorCode;
use tongcheng_api::auth::{
    AccountInfo, AccountResponse, ChallengeResponse, LinkResponse, LoginRequest, LoginResponse,
};
use tongcheng_api::endpoints::{Account, Challenge, CreateLink, Login, Logout};
use tongcheng_api::text::clean_text;
use tongcheng_core::hex::hex;
use utoipa_axum::router::OpenApiRouter;

use super::{Authed, ClientIp, endpoint, limit};
use crate::auth::{
    display_name, link_code_hash, new_link_code, random_bytes, sha256_hex, unhex_exact,
    verify_login,
};
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{Account as StoredAccount, LoginOutcome};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(endpoint::<Challenge, _, _>(challenge))
        .routes(endpoint::<Login, _, _>(login))
        .routes(endpoint::<Logout, _, _>(logout))
        .routes(endpoint::<Account, _, _>(account))
        .routes(endpoint::<CreateLink, _, _>(create_link))
}

fn account_info(a: StoredAccount) -> AccountInfo {
    AccountInfo {
        id: a.id,
        display_name: a.display_name,
    }
}

/// `POST /v1/auth/challenge`.
async fn challenge(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
) -> Result<Json<ChallengeResponse>, ApiError> {
    limit(&state, &state.limits.challenge_ip, &ip)?;
    let nonce = hex(&random_bytes::<32>()?);
    let ttl = state.config.challenge_ttl_secs;
    let store = state.store.clone();
    let n = nonce.clone();
    blocking(move || {
        let now = crate::now();
        Ok(store.put_challenge(&n, now + ttl, now)?)
    })
    .await?;
    Ok(Json(ChallengeResponse {
        nonce,
        expires_in: ttl,
    }))
}

/// `POST /v1/auth/login`.
async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    body: Result<Json<LoginRequest>, JsonRejection>,
) -> Result<Json<LoginResponse>, ApiError> {
    let Json(req) = body?;
    limit(&state, &state.limits.login_ip, &ip)?;
    let key = unhex_exact::<32>(&req.public_key, "public_key")?;
    let public_key = hex(&key);
    if req.link_code.is_some() {
        limit(&state, &state.limits.link_ip, &ip)?;
    }
    let nonce = unhex_exact::<32>(&req.nonce, "nonce")?;
    let signature = unhex_exact::<64>(&req.signature, "signature")?;
    verify_login(&key, &nonce, &signature)?;
    // Per-key limits count only attempts signed by the key: nobody else can use up a
    // player's logins by sending garbage in their name.
    limit(&state, &state.limits.login_key, &public_key)?;
    if req.link_code.is_some() {
        limit(&state, &state.limits.link_key, &public_key)?;
    }
    let device_name = req
        .device_name
        .as_deref()
        .map(|n| clean_text(n, tongcheng_api::auth::DEVICE_NAME_CHARS))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "device".into());
    let new_name = display_name()?;
    let token = random_bytes::<32>()?;
    let token_hex = hex(&token);
    let token_hash = sha256_hex(token_hex.as_bytes());
    let st = state.clone();
    let link_code = req.link_code;
    let nonce_hex = hex(&nonce);
    let (device, created, account) = blocking(move || {
        let store = &st.store;
        let now = crate::now();
        if !store.take_challenge(&nonce_hex, now)? {
            return Err(ApiError::unauthorized(
                "the challenge is unknown, expired or used; ask for a new one",
            ));
        }
        let link_account = match link_code {
            Some(code) => Some(
                store
                    .take_link_code(&link_code_hash(&code), now)?
                    .ok_or_else(|| {
                        ApiError::new(ErrorCode::InvalidLinkCode, "the link code is not valid")
                    })?,
            ),
            None => None,
        };
        let (device, created) =
            match store.login_device(&public_key, link_account, &new_name, &device_name, now)? {
                LoginOutcome::Existing(d) | LoginOutcome::Moved(d) => (d, false),
                LoginOutcome::Created(d) => (d, link_account.is_none()),
                LoginOutcome::Revoked => {
                    return Err(ApiError::new(
                        ErrorCode::DeviceRevoked,
                        "this device was revoked from its account",
                    ));
                }
                LoginOutcome::KeyInUse => {
                    return Err(ApiError::new(
                        ErrorCode::KeyInUse,
                        "this device already belongs to another account",
                    ));
                }
            };
        // A suspended or banned player gets no session (and is told why and until when).
        if let Some(s) = store.blocking_sanction(device.account_id, Some(device.id), now)? {
            return Err(crate::sanctions::refusal(&s));
        }
        let expires_at = now + st.config.session_ttl_secs;
        store.create_session(&token_hash, device.id, now, expires_at)?;
        let account = store
            .account(device.account_id)?
            .ok_or_else(|| ApiError::internal("the device's account is missing"))?;
        Ok((device, created, (account, expires_at)))
    })
    .await?;
    state.metrics.logins.increment(1);
    if created {
        state.metrics.accounts_created.increment(1);
    }
    tracing::debug!(
        account = device.account_id,
        device = device.id,
        created,
        "logged in"
    );
    let (account, expires_at) = account;
    Ok(Json(LoginResponse {
        token: token_hex,
        expires_at,
        account: account_info(account),
        device_id: device.id,
        created_account: created,
    }))
}

/// `POST /v1/auth/logout`: revokes the session used.
async fn logout(State(state): State<AppState>, auth: Authed) -> Result<StatusCode, ApiError> {
    let store = state.store.clone();
    blocking(move || Ok(store.revoke_session(&auth.token_hash, crate::now())?)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v1/account`.
async fn account(
    State(state): State<AppState>,
    auth: Authed,
) -> Result<Json<AccountResponse>, ApiError> {
    let store = state.store.clone();
    let s = auth.session;
    let (account, records) = blocking(move || {
        let a = store
            .account(s.account_id)?
            .ok_or_else(|| ApiError::not_found("no such account"))?;
        Ok((a, store.count_records(s.account_id)?))
    })
    .await?;
    Ok(Json(AccountResponse {
        account: account_info(account),
        device_id: s.device_id,
        records,
    }))
}

/// `POST /v1/link`: a single-use code for another device to join this account.
async fn create_link(
    State(state): State<AppState>,
    auth: Authed,
) -> Result<Json<LinkResponse>, ApiError> {
    limit(
        &state,
        &state.limits.link_codes,
        &auth.session.account_id.to_string(),
    )?;
    let code = new_link_code()?;
    let hash = link_code_hash(&code);
    let ttl = state.config.link_code_ttl_secs;
    let store = state.store.clone();
    let account = auth.session.account_id;
    blocking(move || {
        let now = crate::now();
        Ok(store.put_link_code(&hash, account, now + ttl, now)?)
    })
    .await?;
    Ok(Json(LinkResponse {
        code,
        expires_in: ttl,
    }))
}
