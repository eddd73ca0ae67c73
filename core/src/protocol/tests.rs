use super::*;
use crate::fair::{Bytes32, FairWall};
use crate::table::{Player, Table, TableConfig};
use crate::tile::Tile;
use crate::wall::Seed;

fn one_hand(
    seed: u64,
    contribution: Option<Contribution>,
) -> (HandRecord, Commitment, Vec<(u32, Event)>) {
    one_hand_of(None, seed, contribution)
}

/// [`one_hand`] of a match played under `rules` (the preset's when `None`).
fn one_hand_of(
    rules: Option<RuleSet>,
    seed: u64,
    contribution: Option<Contribution>,
) -> (HandRecord, Commitment, Vec<(u32, Event)>) {
    let mut config = TableConfig::match_against_bots(crate::bot::Level::Easy, seed);
    if let Some(rules) = rules {
        config.deal = crate::table::Deal::Match {
            rules,
            seed: Seed::from_u64(seed),
        };
    }
    config.players = [
        Player::Remote,
        Player::Random,
        Player::Random,
        Player::Random,
    ];
    let mut t = Table::new(config);
    let server = Seed::from_u64(seed ^ 0xFEED);
    let proof = FairWall::new(server, [contribution, None, None, None]);
    assert!(t.redeal(proof.wall_seed()));
    let seat = t.seat_of(0);
    let mut seen = Vec::new();
    loop {
        seen.extend(seat_events(t.game(), seat, seen.len()));
        match t.run(0) {
            crate::table::Step::HandOver => break,
            _ => {
                let d = t.decision(0).unwrap();
                t.act(0, d.on_timeout, 0).unwrap();
            }
        }
    }
    seen.extend(seat_events(t.game(), seat, seen.len()));
    let mut record = t.record().unwrap();
    record.fairness = Some(proof.clone());
    (record, proof.commitment, seen)
}

#[test]
fn client_messages_round_trip() {
    let msgs = [
        ClientMsg::Join {
            version: PROTOCOL_VERSION,
            table: Some("t-1".into()),
            people: Some(2),
            rules: Some("guobiao".into()),
            after: Some(17),
        },
        ClientMsg::Join {
            version: 1,
            table: None,
            people: None,
            rules: None,
            after: None,
        },
        ClientMsg::Contribute {
            hand: 3,
            contribution: Bytes32([9; 32]),
        },
        ClientMsg::Act {
            decision: decision_id(2, 40),
            action: Action::Discard("5m".parse::<Tile>().unwrap()),
        },
        ClientMsg::Act {
            decision: 1,
            action: Action::Pass,
        },
        ClientMsg::Ready,
        ClientMsg::AutoPlay { on: true },
        ClientMsg::AutoPlay { on: false },
        ClientMsg::Leave,
        ClientMsg::Ping { nonce: 5 },
    ];
    for m in msgs {
        let j = m.to_json();
        assert_eq!(ClientMsg::parse(&j).unwrap(), m, "{j}");
    }
    assert_eq!(
        ClientMsg::parse(r#"{"type":"auto_play","on":true}"#).unwrap(),
        ClientMsg::AutoPlay { on: true }
    );
    assert!(
        ClientMsg::parse(r#"{"type":"auto_play"}"#).is_err(),
        "on is required"
    );
    assert_eq!(
        ClientMsg::parse(r#"{"type":"act","decision":4,"action":{"type":"discard","tile":"1z"}}"#)
            .unwrap(),
        ClientMsg::Act {
            decision: 4,
            action: Action::Discard("1z".parse::<Tile>().unwrap())
        }
    );
}

#[test]
fn malformed_client_input_is_a_typed_error() {
    let bad = [
        "",
        "null",
        "[]",
        "{}",
        r#"{"type":"fly"}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"ping","nonce":-1}"#,
        r#"{"type":"ping","nonce":1,"extra":true}"#,
        r#"{"type":"act","decision":1,"action":{"type":"discard","tile":"0m"}}"#,
        r#"{"type":"act","decision":1,"action":{"type":"discard","tile":"9z"}}"#,
        r#"{"type":"act","decision":1,"action":{"type":"explode"}}"#,
        r#"{"type":"contribute","hand":0,"contribution":"abc"}"#,
        r#"{"type":"join","version":1,"table":"has space"}"#,
        r#"{"type":"join","version":1,"table":""}"#,
        r#"{"type":"join","version":1,"people":0}"#,
        r#"{"type":"join","version":1,"people":5}"#,
        "\u{0}\u{1}",
    ];
    for b in bad {
        let e = ClientMsg::parse(b).unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadMessage, "{b}: {e}");
    }
    let long = format!(
        r#"{{"type":"join","version":1,"table":"{}"}}"#,
        "a".repeat(MAX_TABLE_ID + 1)
    );
    assert!(matches!(
        ClientMsg::parse(&long),
        Err(ProtocolError::Invalid(_))
    ));
    let huge = " ".repeat(MAX_CLIENT_MESSAGE + 1);
    assert_eq!(
        ClientMsg::parse(&huge),
        Err(ProtocolError::TooLarge(MAX_CLIENT_MESSAGE + 1))
    );
}

#[test]
fn server_messages_round_trip_and_seats_are_bounded() {
    let (record, commitment, seen) = one_hand(11, Some(Bytes32([3; 32])));
    let mut t = Table::new(TableConfig::match_against_bots(crate::bot::Level::Easy, 1));
    t.run(0);
    let view = t.view(0);
    let msgs = vec![
        ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            table: "abc".into(),
            player: 0,
            players: vec![
                PlayerInfo {
                    name: "me".into(),
                    person: true,
                };
                4
            ],
            resumed: false,
            rules: Box::new(RuleSet::guobiao()),
            round: None,
        },
        ServerMsg::Snapshot(Box::new(Snapshot {
            seq: 4,
            hand: 0,
            events: 9,
            decision: view.decision.as_ref().map(|_| decision_id(0, 9)),
            view: Some(view),
            deadline_ms: Some(1500),
            scores: [0; 4],
            auto_play: false,
            commitment: Some(commitment),
            match_over: false,
        })),
        ServerMsg::Commit {
            seq: 1,
            hand: 0,
            commitment,
            deadline_ms: 2000,
        },
        ServerMsg::Event {
            seq: 2,
            hand: 0,
            index: seen[0].0,
            event: seen[0].1.clone(),
        },
        ServerMsg::Decision {
            seq: 3,
            hand: 0,
            id: 7,
            decision: t.decision(0).unwrap(),
            view: Box::new(t.view(0)),
            deadline_ms: None,
        },
        ServerMsg::AutoPlay { seq: 5, on: true },
        ServerMsg::PiaoAsk {
            seq: 4,
            hand: 0,
            view: Box::new(t.view(0)),
            deadline_ms: 15_000,
        },
        ServerMsg::Piao {
            seq: 4,
            hand: 0,
            stakes: [2, 0, 1, 0],
        },
        ServerMsg::HandEnd(Box::new(HandEnd {
            seq: 6,
            hand: 0,
            record,
            scores: [1, -1, 0, 0],
            seat: Seat(0),
        })),
        ServerMsg::MatchEnd {
            seq: 7,
            scores: [1, -1, 0, 0],
        },
        ServerMsg::Pong { nonce: 3 },
        ServerMsg::Players {
            players: vec![PlayerInfo {
                name: "阿明".into(),
                person: true,
            }],
        },
        ServerMsg::Superseded { seq: 9 },
        ServerMsg::error(ErrorCode::StaleDecision, "late"),
    ];
    for m in msgs {
        let j = m.to_json();
        assert_eq!(ServerMsg::parse(&j).unwrap(), m);
    }
    assert!(ServerMsg::parse(r#"{"type":"event","seq":1,"hand":0,"index":0,"event":{"event":"discarded","seat":4,"tile":"1m"}}"#).is_err());
    assert!(ServerMsg::parse(r#"{"type":"event","seq":1,"hand":0,"index":0,"event":{"event":"discarded","seat":3,"tile":"1m"}}"#).is_ok());
    assert!(ServerMsg::parse(r#"{"type":"error","code":"no_such_code","message":""}"#).is_err());
    assert_eq!(
        serde_json::to_string(&ErrorCode::StaleDecision).unwrap(),
        "\"stale_decision\""
    );
    // A redirect to the node running the table: its base URL is the message.
    assert_eq!(
        ServerMsg::parse(
            r#"{"type":"error","code":"wrong_node","message":"http://10.0.0.2:8080"}"#
        )
        .unwrap(),
        ServerMsg::error(ErrorCode::WrongNode, "http://10.0.0.2:8080")
    );
}

#[test]
fn seat_events_hide_other_seats_draws() {
    let (record, _, seen) = one_hand(5, None);
    assert_eq!(seen.len(), record.events.len());
    for (i, e) in &seen {
        match e {
            Event::Dealt { seat, tiles } => assert_eq!(tiles.is_some(), *seat == Seat(0)),
            Event::Drew { seat, tile, .. } if *seat != Seat(0) => {
                assert!(tile.is_none_or(|t| t.is_flower()), "event {i}")
            }
            _ => {}
        }
    }
}

#[test]
fn a_fair_hand_verifies_and_lies_are_caught() {
    let mine = Bytes32([42; 32]);
    let (record, commitment, seen) = one_hand(77, Some(mine));
    assert_eq!(
        verify_hand(&record, &commitment, Seat(0), Some(&mine), &seen, None),
        Ok(())
    );
    // Offline records still verify with the plain verifier, and so does this one.
    assert!(crate::record::replay(&record).is_ok());

    // The server reveals another seed than the one it committed to.
    let mut lie = record.clone();
    lie.fairness.as_mut().unwrap().reveal = Seed::from_u64(1);
    assert_eq!(
        verify_hand(&lie, &commitment, Seat(0), Some(&mine), &seen, None),
        Err(FairnessError::Commitment)
    );
    // A commitment other than the one sent before the deal.
    assert_eq!(
        verify_hand(
            &record,
            &Bytes32([1; 32]),
            Seat(0),
            Some(&mine),
            &seen,
            None
        ),
        Err(FairnessError::Commitment)
    );
    // Our contribution left out.
    assert_eq!(
        verify_hand(
            &record,
            &commitment,
            Seat(0),
            Some(&Bytes32([43; 32])),
            &seen,
            None
        ),
        Err(FairnessError::Contribution)
    );
    // A wall dealt from another seed (the server chose it): the record's proof does not fit.
    let mut chosen = record.clone();
    chosen.setup.seed = Seed::from_u64(99);
    assert_eq!(
        verify_hand(&chosen, &commitment, Seat(0), Some(&mine), &seen, None),
        Err(FairnessError::WallSeed)
    );
    // What the seat was shown differs from the hand the record replays.
    let mut shown = seen.clone();
    let k = shown
        .iter()
        .position(|(_, e)| matches!(e, Event::Discarded { .. }))
        .unwrap();
    if let Event::Discarded { tile, .. } = &mut shown[k].1 {
        let one: Tile = "1m".parse().unwrap();
        *tile = Some(if *tile == Some(one) {
            "2m".parse::<Tile>().unwrap()
        } else {
            one
        });
    }
    assert_eq!(
        verify_hand(&record, &commitment, Seat(0), Some(&mine), &shown, None),
        Err(FairnessError::EventShown {
            index: shown[k].0 as usize
        })
    );
    // The plain verifier catches a bad proof too.
    assert!(matches!(
        crate::record::replay(&lie),
        Err(crate::record::ReplayError::Unfair(_))
    ));
}

#[test]
fn records_with_a_proof_round_trip_and_old_ones_are_unchanged() {
    let (record, _, _) = one_hand(3, Some(Bytes32([8; 32])));
    let j = record.to_json();
    assert!(j.contains("\"fairness\""));
    assert_eq!(HandRecord::from_json(&j).unwrap(), record);
    let mut plain = record.clone();
    plain.fairness = None;
    assert!(!plain.to_json().contains("fairness"));
    assert_eq!(plain.id, record.id);
}

#[test]
fn decision_ids_order_by_hand_then_events() {
    assert!(decision_id(0, 500) < decision_id(1, 0));
    assert_ne!(decision_id(2, 3), decision_id(3, 2));
}

#[test]
fn a_hand_is_redealt_only_before_its_first_action() {
    let mut t = Table::new(TableConfig::match_against_bots(crate::bot::Level::Easy, 4));
    let before = t.game().events().to_vec();
    assert!(t.redeal(Seed::from_u64(77)));
    assert_eq!(t.game().setup().seed, Seed::from_u64(77));
    assert_ne!(t.game().events(), &before[..]);
    t.run(0);
    let d = t.decision(0).unwrap();
    t.act(0, d.on_timeout, 0).unwrap();
    let played = t.game().actions().len();
    assert!(!t.redeal(Seed::from_u64(78)));
    assert_eq!(t.game().setup().seed, Seed::from_u64(77));
    assert_eq!(t.game().actions().len(), played);
}

/// A private room's own rules (a preset's name, its hands and time limits changed) verify
/// against what the table announced, and only those: the presets alone refuse them, and a
/// record of other rules than the announced ones is caught.
#[test]
fn a_rooms_own_rules_verify_against_what_the_table_announced() {
    let mut room = RuleSet::guobiao();
    room.rounds = 2;
    room.time.claim_secs = 5;
    let mine = Bytes32([7; 32]);
    let (record, commitment, seen) = one_hand_of(Some(room.clone()), 21, Some(mine));
    let check = |announced: Option<&RuleSet>| {
        verify_hand(&record, &commitment, Seat(0), Some(&mine), &seen, announced)
    };
    assert_eq!(check(Some(&room)), Ok(()));
    let Err(FairnessError::Replay(why)) = check(None) else {
        panic!("the presets alone took a room's rules")
    };
    assert!(why.contains("claim_secs 5"), "{why}");
    let mut other = room.clone();
    other.time.claim_secs = 3;
    let Err(FairnessError::Replay(why)) = check(Some(&other)) else {
        panic!("rules other than the announced ones")
    };
    assert!(
        why.contains("announced") && why.contains("claim_secs"),
        "{why}"
    );
}

#[test]
fn a_hand_end_frame_from_the_records_json_is_the_message_itself() {
    let (record, _, _) = one_hand(12, Some(Bytes32([5; 32])));
    let json = record.to_json();
    for (seq, seat, scores) in [(1, 0, [0, 0, 0, 0]), (77, 3, [-24, 8, 8, 8])] {
        let msg = ServerMsg::HandEnd(Box::new(HandEnd {
            seq,
            hand: 2,
            record: record.clone(),
            scores,
            seat: Seat(seat),
        }));
        let frame = HandEnd::frame(seq, 2, &json, scores, Seat(seat));
        assert_eq!(frame, msg.to_json());
        assert_eq!(ServerMsg::parse(&frame).unwrap(), msg);
    }
}
