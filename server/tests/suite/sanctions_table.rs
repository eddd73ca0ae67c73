//! A player sanctioned while he sits at a table: his seat goes on 托管 and the match goes on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tongcheng_client::{OnlineOptions, OnlineSession, OnlineUpdate};
use tongcheng_core::protocol::ErrorCode;
use tongcheng_server::store::sqlite::SqliteStore;

use crate::sanctions::{admin, login, start};

/// A player sanctioned while he plays: his seat goes on 托管 and the match ends without him.
#[test]
fn a_sanctioned_players_open_table_plays_his_seat_on_auto_play() {
    let server = start(Arc::new(SqliteStore::open_in_memory().unwrap()));
    let url = server.url.clone();
    let p = login(&url, 9, false);
    let session = OnlineSession::connect(
        &url,
        &p.token,
        OnlineOptions {
            table: Some("solo".into()),
            people: Some(1),
            rules: None,
            capture_frames: false,
        },
    )
    .unwrap();
    // Wait for the first decision, then ban him.
    let until = Instant::now() + Duration::from_secs(20);
    while !matches!(
        session.next_update(Duration::from_millis(200)),
        Some(OnlineUpdate::Decision { .. })
    ) {
        assert!(Instant::now() < until, "no decision");
    }
    let ban = json!({"account": p.account, "kind": "ban", "reason": "bot farm"});
    assert_eq!(admin(&url, "POST", "/v1/admin/sanctions", Some(ban)).0, 200);
    let (mut told, mut auto) = (false, false);
    let until = Instant::now() + Duration::from_secs(40);
    while Instant::now() < until && !session.is_over() {
        match session.next_update(Duration::from_millis(200)) {
            Some(OnlineUpdate::Error {
                code: ErrorCode::AccountBanned,
                ..
            }) => {
                told = true;
            }
            Some(OnlineUpdate::AutoPlay { on: true }) => auto = true,
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let _ = session.act(decision.on_timeout);
            }
            _ => {}
        }
    }
    assert!(told && auto, "told {told}, auto-play {auto}");
    assert!(session.is_over(), "the match ends on auto-play");
}
