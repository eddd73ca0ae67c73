use serde_json::json;
use tongcheng_core::bot::play_simple_hand;
use tongcheng_core::game::HandSetup;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::wall::Seed;

use super::*;

fn hands(from: u64, n: u64) -> Vec<HandRecord> {
    (from..from + n)
        .map(|i| {
            let setup = HandSetup {
                rules: RuleSet::preset("guobiao").unwrap(),
                seed: Seed::from_u64(70).derive(i),
                dealer: Seat(0),
                prevalent: Wind::from_index(0),
                dealer_level: 0,
            };
            HandRecord::of(&play_simple_hand(setup, i)).unwrap()
        })
        .collect()
}

fn shelf(records: &[HandRecord]) -> Shelf {
    let mut s = Shelf::default();
    for (i, r) in records.iter().enumerate() {
        s.keep(r.clone(), 0, 1_700_000_000 + i as i64);
    }
    s
}

/// The request a step sends: its id, method, path and body.
fn sent(step: SyncStep) -> (u64, String, String, serde_json::Value) {
    match step {
        SyncStep::Send(Effect::Request {
            id,
            method,
            path,
            token,
            body,
        }) => {
            assert_eq!(token.as_deref(), Some("tok"));
            (id, method, path, body.unwrap_or_default())
        }
        other => panic!("a request: {other:?}"),
    }
}

fn status(s: &Shelf) -> (u64, usize) {
    match s.answer(&Effect::LoadSyncStatus) {
        Some(Event::SyncStatus { pending, refused }) => (pending, refused.len()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn hands_go_up_refusals_are_kept_and_the_other_devices_hands_come_down_once() {
    let mine = hands(0, 3);
    let mut shelf = shelf(&mine);
    assert_eq!(status(&shelf), (3, 0));
    let (mut sync, step) = ShelfSync::start(&shelf, "tok".into());
    let (id, method, path, body) = sent(step);
    assert!(sync.owns(id) && id > SYNC_REQUESTS);
    assert_eq!(
        (method.as_str(), path.as_str()),
        ("POST", "/v1/sync/upload")
    );
    assert_eq!(body["records"].as_array().unwrap().len(), 3);
    assert_eq!(body["records"][0]["played_at"], 1_700_000_000);
    let answer = json!({
        "results": [
            {"id": mine[0].id.to_string(), "status": "accepted"},
            {"id": mine[1].id.to_string(), "status": "already"},
            {"id": mine[2].id.to_string(), "status": "rejected", "code": "not_verified", "reason": "no"},
        ],
        "accepted": 1, "already": 1, "rejected": 1,
    });
    // Nothing waits any more: the pull, from the start.
    let (id, method, path, _) = sent(sync.answer(&mut shelf, 200, answer));
    assert!(sync.owns(id));
    assert_eq!(
        (method.as_str(), path.as_str()),
        ("GET", "/v1/sync/pull?limit=200")
    );
    assert_eq!(status(&shelf), (0, 1));
    // One hand from another device, one already here, one that does not replay.
    let theirs = hands(10, 1);
    let mut broken = serde_json::to_value(&theirs[0]).unwrap();
    broken["actions"] = json!([]);
    let item = |r: serde_json::Value| json!({"id": "x", "record": r, "seat": 1, "played_at": 1_700_000_100, "offline": true});
    let page = json!({
        "records": [
            item(serde_json::to_value(&theirs[0]).unwrap()),
            item(serde_json::to_value(&mine[0]).unwrap()),
            item(broken),
        ],
        "cursor": "a b/1",
        "more": false,
    });
    let done = sync.answer(&mut shelf, 200, page);
    assert_eq!(
        done,
        SyncStep::Finished(Event::Synced {
            done: Some(SyncDone {
                uploaded: 1,
                already: 1,
                pulled: 1
            }),
            error: None
        })
    );
    assert_eq!(shelf.len(), 4);
    assert_eq!(
        status(&shelf),
        (0, 1),
        "the pulled hand is the server's already"
    );
    // Kept and read again: the flags and the cursor stay; the next pull starts there.
    let again = Shelf::from_json(&shelf.to_json());
    assert_eq!(again.len(), 4);
    assert_eq!(status(&again), (0, 1));
    let (_, step) = ShelfSync::start(&again, "tok".into());
    let (_, _, path, _) = sent(step);
    assert_eq!(path, "/v1/sync/pull?limit=200&cursor=a%20b%2F1");
}

#[test]
fn a_batch_too_large_is_halved_and_a_failure_says_why_and_keeps_the_outbox() {
    let mut shelf = shelf(&hands(20, 3));
    let (mut sync, step) = ShelfSync::start(&shelf, "tok".into());
    assert_eq!(sent(step).3["records"].as_array().unwrap().len(), 3);
    let (_, _, _, body) = sent(sync.answer(&mut shelf, 413, json!({})));
    assert_eq!(body["records"].as_array().unwrap().len(), 1);
    let refused = json!({"error": {"code": "unauthorized", "message": "sign in again"}});
    let SyncStep::Finished(Event::Synced { done: None, error }) =
        sync.answer(&mut shelf, 401, refused)
    else {
        panic!("a failed sync")
    };
    assert_eq!(error.as_deref(), Some("sign in again"));
    assert_eq!(status(&shelf), (3, 0), "nothing left the outbox");
}

#[test]
fn a_shelf_kept_before_sync_reads_as_waiting() {
    let records = hands(30, 2);
    let old: Vec<serde_json::Value> = records
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"id": i + 1, "played_at": 1_700_000_000, "seat": 0, "record": r}))
        .collect();
    let shelf = Shelf::from_json(&serde_json::to_string(&old).unwrap());
    assert_eq!(shelf.len(), 2);
    assert_eq!(status(&shelf), (2, 0));
}
