//! Cheating caught and punished.
//!
//! - **Sanctions**: an operator warns, suspends (until a time) or bans an account or one of
//!   its device keys, with a reason. A suspension or ban in force refuses the player's login,
//!   queue, rooms and table joins with `account_suspended` / `account_banned` (403, with
//!   `until` and `reason`), and the tables on this node where he sits play his seat on 托管
//!   until the match ends (or the sanction is lifted). A suspension past its `until` blocks
//!   nothing: sanctions expire by themselves, no job has to lift them.
//! - **Voiding** ([`void`]): a ban may void the cheater's rated ranked matches from a date.
//!   Every rated match is kept with each person's rating before it, so a rule set's ratings
//!   are recomputed from that history without the voided matches, deterministically (the
//!   same history gives the same ratings on every node): each opponent's rating is what it
//!   would have been had those matches never been played.
//! - **Engine assistance** ([`assist`]): how often an account's non-forced decisions are the
//!   hard bot's first choice, how far down its ranking they fall, and whether it takes longer
//!   over hard decisions than easy ones, against its peers at its rating.
//! - **Reviews** ([`reviews`]): players' reports and the collusion and assist reports' flags
//!   in one queue with their evidence; an operator decides each.
//!
//! Every sanction, lift, void and review decision is a row of the append-only audit trail,
//! written in the same transaction as the change.

pub mod assist;
pub mod reviews;
pub mod void;

use tongcheng_api::ErrorCode;
use tongcheng_api::sanctions::{Sanction, SanctionKind};

use crate::error::ApiError;
use crate::store::{Store, StoredSanction};

/// The kind as kept.
pub fn kind_name(k: SanctionKind) -> &'static str {
    match k {
        SanctionKind::Warn => "warn",
        SanctionKind::Suspend => "suspend",
        SanctionKind::Ban => "ban",
    }
}

fn kind_of(name: &str) -> SanctionKind {
    match name {
        "ban" => SanctionKind::Ban,
        "suspend" => SanctionKind::Suspend,
        _ => SanctionKind::Warn,
    }
}

/// Whether a sanction blocks play at `now`: a ban or a suspension not yet over, not lifted.
pub fn in_force(s: &StoredSanction, now: i64) -> bool {
    s.lifted_at.is_none()
        && match s.kind.as_str() {
            "ban" => true,
            "suspend" => s.until.is_some_and(|u| u > now),
            _ => false,
        }
}

/// A sanction as the admin endpoints show it.
pub fn shown(s: &StoredSanction, now: i64) -> Sanction {
    Sanction {
        id: s.id,
        account: s.account_id,
        device: s.device_id,
        kind: kind_of(&s.kind),
        until: s.until,
        reason: s.reason.clone(),
        void_from: s.void_from,
        created_at: s.created_at,
        created_by: s.created_by.clone(),
        lifted_at: s.lifted_at,
        lifted_by: s.lifted_by.clone(),
        active: in_force(s, now) || (s.kind == "warn" && s.lifted_at.is_none()),
    }
}

/// What the player is told: the code, and a message naming why and until when.
pub fn refusal_text(s: &StoredSanction) -> (ErrorCode, String) {
    match (s.kind.as_str(), s.until) {
        ("suspend", Some(until)) => (
            ErrorCode::AccountSuspended,
            format!(
                "this account is suspended until {} UTC: {}",
                utc(until),
                s.reason
            ),
        ),
        _ => (
            ErrorCode::AccountBanned,
            format!("this account is banned: {}", s.reason),
        ),
    }
}

/// A time as people read it in a message ("2026-12-13 05:13"); the answer's `until` field
/// keeps the number for faces that show it in the player's own zone.
fn utc(unix_secs: i64) -> tongcheng_core::describe::CivilTime {
    tongcheng_core::describe::CivilTime::of(unix_secs, 0)
}

/// The HTTP refusal, with `until` and `reason` in the body.
pub fn refusal(s: &StoredSanction) -> ApiError {
    let (code, message) = refusal_text(s);
    ApiError {
        until: s.until.filter(|_| s.kind == "suspend"),
        reason: Some(s.reason.clone()),
        ..ApiError::new(code, message)
    }
}

/// The table's error frame for a sanctioned player (the protocol's codes, the same words).
pub fn frame(s: &StoredSanction) -> (tongcheng_core::protocol::ErrorCode, String) {
    use tongcheng_core::protocol::ErrorCode as Frame;
    let (code, message) = refusal_text(s);
    let code = if code == ErrorCode::AccountSuspended {
        Frame::AccountSuspended
    } else {
        Frame::AccountBanned
    };
    (code, message)
}

/// Refuses an account (on this device) that a suspension or ban in force blocks. Runs on the
/// blocking pool.
pub async fn ensure_free(
    store: &std::sync::Arc<dyn Store>,
    account: i64,
    device: i64,
) -> Result<(), ApiError> {
    let store = store.clone();
    let found = crate::blocking::blocking(move || {
        Ok(store.blocking_sanction(account, Some(device), crate::now())?)
    })
    .await?;
    match found {
        Some(s) => Err(refusal(&s)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(kind: &str, until: Option<i64>, lifted: bool) -> StoredSanction {
        StoredSanction {
            id: 1,
            account_id: 7,
            device_id: None,
            kind: kind.into(),
            until,
            reason: "relayed engine moves".into(),
            void_from: None,
            created_at: 100,
            created_by: "ops".into(),
            lifted_at: lifted.then_some(150),
            lifted_by: lifted.then(|| "ops".into()),
        }
    }

    #[test]
    fn suspensions_expire_bans_do_not_and_lifting_ends_both() {
        assert!(in_force(&s("suspend", Some(200), false), 199));
        assert!(!in_force(&s("suspend", Some(200), false), 200));
        assert!(in_force(&s("ban", None, false), i64::MAX));
        assert!(!in_force(&s("ban", None, true), 0));
        assert!(!in_force(&s("warn", None, false), 0));
    }

    #[test]
    fn the_refusal_says_why_and_until_when() {
        let e = refusal(&s("suspend", Some(200), false));
        assert_eq!(e.code, ErrorCode::AccountSuspended);
        assert_eq!(e.status().as_u16(), 403);
        assert_eq!(
            (e.until, e.reason.as_deref()),
            (Some(200), Some("relayed engine moves"))
        );
        assert!(
            e.message
                .contains("until 1970-01-01 00:03 UTC: relayed engine moves"),
            "{}",
            e.message
        );
        let e = refusal(&s("ban", None, false));
        assert_eq!((e.code, e.until), (ErrorCode::AccountBanned, None));
        assert_eq!(
            frame(&s("ban", None, false)).0,
            tongcheng_core::protocol::ErrorCode::AccountBanned
        );
    }
}
