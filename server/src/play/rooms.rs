//! Private rooms (开房): the owner picks the rule set, the number of hands, the time limits,
//! how many people are invited and the levels of the bots in the other seats, and gets a
//! 6-digit code. Friends join by code until exactly the invited number are in; each then sits
//! down over `GET /v1/play` with the room's table id, whose seats are kept for the admitted
//! accounts. A room lives as long as its table: a table nobody connected to by the end of its
//! lobby time closes, and the code is free again.
//!
//! Anti-collusion in rooms is a warning, not a refusal (friends often share a network, as
//! real apps' 同IP提醒 assume): the room lists each pair of admitted accounts that joined from
//! one IP address.

use tongcheng_api::ErrorCode;
use tongcheng_api::play::RoomSettings;
use tongcheng_core::bot::Level;
use tongcheng_core::rules::RuleSet;

use super::table::{Cmd, TableTask};
use super::{Online, lock};
use crate::auth::random_id;
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::{RoomJoin, RoomMember, StoredRoom};

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRoom, message)
}

fn gone() -> ApiError {
    ApiError::not_found("no room has that code")
}

/// The rules a room's table plays: its preset with the owner's hands and time limits.
fn room_rules(online: &Online, settings: &RoomSettings) -> Result<RuleSet, ApiError> {
    let mut rules = online.rules_for_request(settings.rules.clone())?;
    if let Some(h) = settings.hands {
        rules = rules.with_hands(h);
    }
    for (v, field) in [
        (
            settings.first_discard_secs,
            &mut rules.time.first_discard_secs,
        ),
        (settings.discard_secs, &mut rules.time.discard_secs),
        (settings.claim_secs, &mut rules.time.claim_secs),
    ] {
        if let Some(v) = v {
            *field = v.into();
        }
    }
    Ok(rules)
}

/// A random 6-digit code (uniform: rejection sampling over the OS's random bytes); the
/// store refuses one that is taken, and another is drawn.
pub(crate) fn new_code() -> Option<String> {
    loop {
        let mut b = [0u8; 4];
        getrandom::getrandom(&mut b).ok()?;
        let n = u32::from_le_bytes(b);
        // 4_294_000_000 is a multiple of 1_000_000: no bias towards low codes.
        if n < 4_294_000_000 {
            return Some(format!("{:06}", n % 1_000_000));
        }
    }
}

/// Makes a room with `settings` (checked here) and its table, and admits its `owner`.
pub async fn open(
    online: &Online,
    settings: &RoomSettings,
    owner: RoomMember,
    quota: impl FnOnce() -> Result<(), ApiError>,
) -> Result<StoredRoom, ApiError> {
    let levels = settings.check::<Level>().map_err(bad)?;
    let rules = room_rules(online, settings)?;
    // Only a room that would be made spends the owner's quota (a refused body costs nothing).
    quota()?;
    let config = &online.config;
    let id = random_id();
    {
        let mut tables = lock(&online.lobby.tables)?;
        if tables.len() >= config.max_tables {
            return Err(ApiError::new(
                ErrorCode::NoRoom,
                "the server has no room for a table",
            ));
        }
        let task = |rx| {
            TableTask::new(
                id.clone(),
                config.clone(),
                rules,
                settings.people,
                online.store.clone(),
                rx,
            )
            .room(vec![owner.account_id], levels)
        };
        online.spawn_table(&mut tables, &id, task);
    }
    // The table is up before its code is handed out; a table whose room could not be stored
    // closes by itself when nobody sits down in its lobby time.
    let store = online.store.clone();
    let node = online.node.url().to_string();
    let several = online.several_nodes();
    let people = settings.people;
    blocking(move || {
        if several {
            store.put_table_home(&id, &node, crate::now())?;
        }
        for _ in 0..64 {
            let Some(code) = new_code() else { break };
            if store.create_room(&code, &id, &node, people, &owner, crate::now())? {
                return Ok(store.room(&code)?);
            }
        }
        Ok(None)
    })
    .await?
    .ok_or_else(|| ApiError::new(ErrorCode::NoRoom, "no free code"))
}

/// Admits `member` to the room `code` if it has a free invitation (an account already
/// admitted gets the same room again). The room may have been made on any node; when its
/// table runs here, the table learns of the seat at once, else when the player sits down
/// (see [`super::join`]).
pub async fn admit(
    online: &Online,
    code: String,
    member: RoomMember,
) -> Result<StoredRoom, ApiError> {
    if !tongcheng_api::play::is_room_code(&code) {
        return Err(gone());
    }
    let account = member.account_id;
    let store = online.store.clone();
    let room = match blocking(move || Ok(store.join_room(&code, &member)?)).await? {
        RoomJoin::NoRoom => return Err(gone()),
        RoomJoin::Full => {
            return Err(ApiError::new(
                ErrorCode::RoomFull,
                "every invitation to this room is taken",
            ));
        }
        RoomJoin::Admitted(room) => room,
    };
    let local = lock(&online.lobby.tables)?.get(&room.table_id).cloned();
    if let Some(tx) = local {
        // A table gone meanwhile is a room gone (its row goes as the table closes).
        tx.try_send(Cmd::Admit { account }).map_err(|_| gone())?;
    }
    Ok(room)
}

/// The room `code` as `account` may see it: only its admitted players do (others get
/// `not_found`, like a code no room has).
pub async fn show(online: &Online, code: String, account: i64) -> Result<StoredRoom, ApiError> {
    if !tongcheng_api::play::is_room_code(&code) {
        return Err(gone());
    }
    let store = online.store.clone();
    let room = blocking(move || Ok(store.room(&code)?))
        .await?
        .ok_or_else(gone)?;
    if !room.members.iter().any(|m| m.account_id == account) {
        return Err(gone());
    }
    Ok(room)
}
