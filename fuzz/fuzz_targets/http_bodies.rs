//! The HTTP API's request bodies as the server reads them: the first byte picks a body type,
//! the rest is read as its JSON the way the server's `Json` extractor reads it (serde_json over
//! the contract's types, unknown fields refused). Then:
//!
//! - nothing panics, whatever the bytes;
//! - a body read is written back and reads again to the same value;
//! - room settings are checked as the server checks them (bounds, bot levels), and settings
//!   that pass are in bounds;
//! - device names are cleaned as the server keeps them: no control, bidirectional or
//!   zero-width characters, bounded, and cleaning twice changes nothing;
//! - an upload's records are read and verified by the core as the server does, each alone;
//! - a tournament's settings are checked as the server checks them, and settings that pass
//!   (for friends or the operator) are in bounds; a seat request reads and writes back.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_api::ErrorBody;
use tongcheng_api::auth::{DEVICE_NAME_CHARS as NAME_CHARS, LoginRequest};
use tongcheng_api::play::{QueueRequest, ROOM_HANDS, ROOM_PEOPLE, ROOM_TIME_SECS, RoomSettings};
use tongcheng_api::sync::UploadRequest;
use tongcheng_api::text::clean_text;
use tongcheng_api::tournament::{
    FRIENDS_ENTRANTS, FormatKind, NewTournament, SWISS_ROUNDS, SeatRequest, TOURNAMENT_ENTRANTS,
    TOURNAMENT_HANDS,
};
use tongcheng_core::bot::Level;
use tongcheng_core::record::{HandRecord, Verifier};

fn round_trip<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(value).expect("a body read is written");
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(&back, value, "changed through JSON: {json}");
}

fn name(raw: &str) {
    let clean = clean_text(raw, NAME_CHARS);
    assert!(clean.chars().count() <= NAME_CHARS);
    assert!(!clean.chars().any(char::is_control), "{clean:?}");
    assert!(
        !clean.chars().any(|c| matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}'..='\u{200F}' | '\u{FEFF}'
        )),
        "{clean:?}"
    );
    assert_eq!(clean, clean.trim(), "{clean:?}");
    assert_eq!(clean_text(&clean, NAME_CHARS), clean, "cleaning twice");
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    match which % 8 {
        0 => {
            if let Ok(login) = serde_json::from_slice::<LoginRequest>(body) {
                round_trip(&login);
                if let Some(n) = &login.device_name {
                    name(n);
                }
            }
        }
        1 => {
            if let Ok(room) = serde_json::from_slice::<RoomSettings>(body) {
                round_trip(&room);
                if let Ok(levels) = room.check::<Level>() {
                    assert!(ROOM_PEOPLE.contains(&room.people));
                    assert_eq!(levels.len(), usize::from(4 - room.people));
                    assert!(room.hands.is_none_or(|h| ROOM_HANDS.contains(&h)));
                    for s in [room.first_discard_secs, room.discard_secs, room.claim_secs]
                        .into_iter()
                        .flatten()
                    {
                        assert!(ROOM_TIME_SECS.contains(&s));
                    }
                }
            }
        }
        2 => {
            if let Ok(q) = serde_json::from_slice::<QueueRequest>(body) {
                round_trip(&q);
            }
        }
        3 => {
            if let Ok(upload) = serde_json::from_slice::<UploadRequest>(body) {
                let verifier = Verifier::any_preset();
                for item in upload.records.iter().take(4) {
                    if let Ok(record) = HandRecord::from_json(item.record.get()) {
                        let _ = verifier.verify(&record);
                    }
                }
            }
        }
        4 => {
            // What a client reads back when a request is refused.
            if let Ok(e) = serde_json::from_slice::<ErrorBody>(body) {
                round_trip(&e);
            }
        }
        5 => {
            if let Ok(t) = serde_json::from_slice::<NewTournament>(body) {
                round_trip(&t);
                for friends in [false, true] {
                    if t.check(friends).is_ok() {
                        let range = if friends {
                            FRIENDS_ENTRANTS
                        } else {
                            TOURNAMENT_ENTRANTS
                        };
                        assert!(range.contains(&t.entrants));
                        assert!(TOURNAMENT_HANDS.contains(&t.hands_per_match));
                        assert!((1..=40).contains(&t.name.trim().chars().count()));
                        match t.format.kind {
                            FormatKind::Swiss => {
                                assert!(t.format.rounds.is_some_and(|r| SWISS_ROUNDS.contains(&r)))
                            }
                            FormatKind::Elimination => assert!(t.format.rounds.is_none()),
                            FormatKind::Other(_) => panic!("an unknown format passed"),
                        }
                    }
                }
            }
        }
        6 => {
            if let Ok(r) = serde_json::from_slice::<SeatRequest>(body) {
                round_trip(&r);
            }
        }
        _ => {
            if let Ok(s) = std::str::from_utf8(body) {
                name(s);
            }
        }
    }
});
