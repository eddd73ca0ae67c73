//! What a table shows and keeps, against a hostile or unlucky client.

use super::*;

/// Finding 9: after every discard the table waits the same floor plus jitter whoever may
/// claim, so a person who thinks a little before passing shows nothing. Two people and two
/// bots play; the claimer thinks 30 ms before each claim decision, the observer answers at
/// once and times each discard to the next event. Without the pause, discards nobody could
/// claim were followed within a millisecond and claimable ones after the claimer's 30 ms.
/// (Times are taken as the observer reads its updates, so a busy machine makes a few gaps
/// short: the floor is checked on the 10th percentile.)
#[test]
fn the_pause_after_a_discard_does_not_say_who_could_claim() {
    use std::sync::Arc;
    use support::online::{login as online_login, quick, short_rules, start_paced};
    use tongcheng_client::{OnlineOptions, OnlineSession, OnlineUpdate};
    use tongcheng_core::game::{Action, Event};
    use tongcheng_server::store::sqlite::SqliteStore;

    const FLOOR: u64 = 60;
    const JITTER: u64 = 40;
    let mut config = tongcheng_server::Config::default();
    config.online.rules = Some(short_rules("pause-test", 4));
    config.online.contribute_ms = 500;
    config.online.ready_ms = 200;
    config.online.claim_pause_ms = FLOOR;
    config.online.claim_jitter_ms = JITTER;
    let server = start_paced(Arc::new(SqliteStore::open_in_memory().unwrap()), config);
    let sessions: Vec<OnlineSession> = (0..2)
        .map(|_| {
            let (token, _) = online_login(&server.url);
            OnlineSession::connect(
                &server.url,
                &token,
                OnlineOptions {
                    table: Some("pause".into()),
                    people: Some(2),
                    rules: None,
                    capture_frames: false,
                },
            )
            .unwrap()
        })
        .collect();
    // Each seat: (arrival, hand, event index, event) and (hand, events index of each claim
    // decision); the claimer (seat 1) thinks before answering one.
    type Seen = (Vec<(Instant, u32, u32, Event)>, Vec<u64>);
    let threads: Vec<std::thread::JoinHandle<Seen>> = sessions
        .into_iter()
        .enumerate()
        .map(|(who, s)| {
            std::thread::spawn(move || {
                let (mut events, mut claims) = (Vec::new(), Vec::new());
                let until = Instant::now() + Duration::from_secs(90);
                while Instant::now() < until {
                    match s.next_update(Duration::from_millis(200)) {
                        Some(OnlineUpdate::Event { hand, index, event }) => {
                            events.push((Instant::now(), hand, index, event))
                        }
                        Some(OnlineUpdate::Decision { id, decision }) => {
                            let claim = decision.legal.contains(&Action::Pass);
                            if claim {
                                claims.push(id);
                                if who == 1 {
                                    std::thread::sleep(Duration::from_millis(30));
                                }
                            }
                            let a = quick(&decision);
                            let _ = s.act(a);
                        }
                        Some(OnlineUpdate::MatchEnd { .. }) => break,
                        _ => {}
                    }
                }
                assert!(s.is_over(), "the match did not finish");
                (events, claims)
            })
        })
        .collect();
    let seen: Vec<Seen> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let (observer, claimer) = (&seen[0].0, &seen[1].1);
    // A claim decision's id holds its hand above and the events so far below.
    let claimable: std::collections::HashSet<(u32, u32)> = claimer
        .iter()
        .map(|id| ((id >> 32) as u32, (id & 0xFFFF_FFFF) as u32 - 1))
        .collect();
    let (mut could, mut nobody) = (Vec::new(), Vec::new());
    for w in observer.windows(2) {
        let ((t0, h0, i0, e0), (t1, h1, i1, _)) = (&w[0], &w[1]);
        if h0 != h1 || *i1 != i0 + 1 || !matches!(e0, Event::Discarded { .. }) {
            continue;
        }
        let gap = t1.duration_since(*t0).as_secs_f64() * 1e3;
        if claimable.contains(&(*h0, *i0)) {
            could.push(gap);
        } else {
            nobody.push(gap);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let min = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
    let p10 = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 10).copied().unwrap_or(0.0)
    };
    println!(
        "pause after a discard: {} the claimer could claim (mean {:.1} ms, min {:.1}), {} nobody \
         could (mean {:.1} ms, 10th percentile {:.1}, min {:.1}); floor {FLOOR} ms, jitter \
         {JITTER} ms",
        could.len(),
        mean(&could),
        min(&could),
        nobody.len(),
        mean(&nobody),
        p10(&nobody),
        min(&nobody)
    );
    assert!(
        could.len() >= 2 && nobody.len() >= 20,
        "{could:?} {nobody:?}"
    );
    let floor = FLOOR as f64 - 2.0;
    assert!(p10(&nobody) >= floor, "nobody could claim: {nobody:?}");
    assert!(mean(&could) >= floor, "the claimer could: {could:?}");
    // The claimer's 30 ms hide inside the pause: the two look alike.
    assert!(
        (mean(&could) - mean(&nobody)).abs() < JITTER as f64 / 2.0 + 10.0,
        "could {:.1} ms, nobody {:.1} ms",
        mean(&could),
        mean(&nobody)
    );
}

/// Finding 8: a person whose connection drops between hands still has his say in the next
/// wall. The table waits the contribution deadline for him (it used to deal at once, with no
/// contribution but the server's), his client comes back within it and contributes; and a
/// contribution that comes after the deal is told it is too late.
#[test]
fn a_dropped_seat_still_contributes_and_a_late_contribution_is_told_so() {
    use futures_util::{SinkExt, StreamExt};
    use support::online::{login as online_login, quick, short_rules, start_with};
    use tokio_tungstenite::tungstenite::Message;
    use tongcheng_client::{OnlineOptions, OnlineSession, OnlineUpdate};
    use tongcheng_core::protocol::{ClientMsg, ErrorCode, PROTOCOL_VERSION, ServerMsg};

    let mut config = tongcheng_server::Config::default();
    config.online.rules = Some(short_rules("contribute-test", 2));
    config.online.contribute_ms = 1_500;
    config.online.ready_ms = 200;
    let server = start_with(config);
    let (token, _) = online_login(&server.url);
    let session = OnlineSession::connect(
        &server.url,
        &token,
        OnlineOptions {
            table: Some("drops-between-hands".into()),
            people: Some(1),
            rules: None,
            capture_frames: false,
        },
    )
    .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    let mut dropped = false;
    while Instant::now() < until && !session.is_over() {
        match session.next_update(Duration::from_millis(200)) {
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let a = quick(&decision);
                let _ = session.act(a);
            }
            Some(OnlineUpdate::HandEnd { hand: 0, .. }) if !dropped => {
                dropped = true;
                session.drop_connection();
                std::thread::sleep(Duration::from_millis(300));
                session.reconnect().unwrap();
            }
            Some(OnlineUpdate::MatchEnd { .. }) => break,
            _ => {}
        }
    }
    assert!(session.is_over() && dropped, "the match did not finish");
    let records = session.records();
    assert_eq!(records.len(), 2);
    for (hand, (record, seat, fair)) in records.iter().enumerate() {
        assert!(fair.is_ok(), "{fair:?}");
        let proof = record.fairness.as_ref().unwrap();
        assert!(
            proof.contributions[seat.index()].is_some(),
            "hand {hand} was dealt without the person's contribution"
        );
    }

    // A contribution after the deal.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (token, _) = online_login(&server.url);
    rt.block_on(async {
        let mut req = format!("{}/v1/play", server.url.replace("http://", "ws://"))
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        let join = ClientMsg::Join {
            version: PROTOCOL_VERSION,
            table: Some("late-contribution".into()),
            people: Some(1),
            rules: None,
            after: None,
        };
        ws.send(Message::Text(serde_json::to_string(&join).unwrap().into()))
            .await
            .unwrap();
        let mut late = None;
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            let Ok(Some(Ok(Message::Text(t)))) =
                tokio::time::timeout(Duration::from_secs(5), ws.next()).await
            else {
                continue;
            };
            match ServerMsg::parse(t.as_str()).unwrap() {
                // Dealt without us: now contribute to it.
                ServerMsg::Decision { hand, .. } | ServerMsg::Event { hand, .. }
                    if late.is_none() =>
                {
                    late = Some(hand);
                    let c = format!(
                        "{{\"type\":\"contribute\",\"hand\":{hand},\"contribution\":\"{}\"}}",
                        "ab".repeat(32)
                    );
                    ws.send(Message::Text(c.into())).await.unwrap();
                }
                ServerMsg::Error { code, message } if late.is_some() => {
                    assert_eq!(code, ErrorCode::BadContribution);
                    assert!(message.contains("too late"), "{message}");
                    return;
                }
                _ => {}
            }
        }
        panic!("no answer to a late contribution");
    });
}

/// Finding 6: a private room with its own hands and time limits plays them, and every hand
/// verifies for its player against the rules the table announced (the client once checked
/// them against the preset and threw every hand away).
#[test]
fn a_rooms_own_settings_verify_and_are_kept() {
    use support::online::{login as online_login, post_from, quick, start_with};
    use tongcheng_client::{OnlineOptions, OnlineSession, OnlineUpdate};

    let mut config = tongcheng_server::Config::default();
    config.online.contribute_ms = 500;
    config.online.ready_ms = 200;
    let server = start_with(config);
    let (token, _) = online_login(&server.url);
    let (status, room) = post_from(
        &server.url,
        &token,
        101,
        "/v1/rooms",
        json!({"rules": "guobiao", "people": 1, "bots": ["easy", "easy", "easy"],
               "hands": 2, "claim_secs": 5, "discard_secs": 7}),
    );
    assert_eq!(status, 200, "{room}");
    let session = OnlineSession::connect(
        &server.url,
        &token,
        OnlineOptions {
            table: Some(room["table"].as_str().unwrap().into()),
            people: None,
            rules: None,
            capture_frames: false,
        },
    )
    .unwrap();
    let mut announced = None;
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until && !session.is_over() {
        match session.next_update(Duration::from_millis(200)) {
            Some(OnlineUpdate::Joined { rules, .. }) => announced = Some(rules),
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let a = quick(&decision);
                let _ = session.act(a);
            }
            Some(OnlineUpdate::MatchEnd { .. }) => break,
            _ => {}
        }
    }
    assert!(session.is_over(), "the room's match did not finish");
    let rules = announced.expect("the welcome announces the rules");
    assert_eq!(
        (
            rules.rounds,
            rules.hands_per_round,
            rules.time.claim_secs,
            rules.time.discard_secs
        ),
        (1, 2, 5, 7)
    );
    let records = session.records();
    assert_eq!(records.len(), 2, "both hands of the room's match");
    for (record, _, fair) in &records {
        assert_eq!(fair, &Ok(()), "a room's hand does not verify");
        assert_eq!(record.setup.rules, *rules);
    }
}

/// Finding 4: a hand anyone was told had ended is stored. A real server process is killed
/// (SIGKILL) at a different moment of a match each time, while one person plays against
/// three bots at machine speed; after each kill, every hand end the person received must be
/// in the store's records for his account (the server writes them, then announces).
#[test]
fn a_hand_told_to_have_ended_survives_a_kill_at_any_moment() {
    use support::online::quick;
    use tongcheng_client::{OnlineOptions, OnlineSession, OnlineUpdate};

    let mut told_in_all = 0;
    let mut kills_after_an_end = 0;
    for trial in 0..12u64 {
        let dir = tempfile_dir();
        let db = dir.join("server.db");
        let url_db = format!("sqlite:{}", db.display());
        let mut srv = support::spawn_server(&[
            "--database",
            &url_db,
            "--ready-ms",
            "0",
            "--match-hands",
            "16",
        ]);
        let url = srv.url().to_string();
        let http = client_from("127.0.0.111");
        let dev = login(&http, &url);
        let session = OnlineSession::connect(
            &url,
            &dev.token,
            OnlineOptions {
                table: None,
                people: Some(1),
                rules: None,
                capture_frames: false,
            },
        )
        .unwrap();
        // Kill after 150 ms to 1.8 s of play: before, between and right after hand ends.
        let kill_at = Instant::now() + Duration::from_millis(150 + trial * 150);
        let mut told = Vec::new();
        while Instant::now() < kill_at {
            match session.next_update(Duration::from_millis(5)) {
                Some(OnlineUpdate::Decision { decision, .. }) => {
                    let a = quick(&decision);
                    let _ = session.act(a);
                }
                Some(OnlineUpdate::HandEnd { record, .. }) => told.push(record.id.to_string()),
                _ => {}
            }
        }
        srv.kill();
        // What arrived before the kill counts as told too.
        while let Some(u) = session.next_update(Duration::from_millis(50)) {
            if let OnlineUpdate::HandEnd { record, .. } = u {
                told.push(record.id.to_string());
            }
        }
        drop(session);
        let conn = rusqlite::Connection::open(&db).unwrap();
        let stored: Vec<String> = conn
            .prepare("SELECT record_id FROM records WHERE account_id = ?1")
            .unwrap()
            .query_map([dev.account], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for id in &told {
            assert!(
                stored.contains(id),
                "trial {trial}: hand {id} was told to have ended but is not stored ({} stored)",
                stored.len()
            );
        }
        told_in_all += told.len();
        kills_after_an_end += usize::from(!told.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!(
        "kill loop: 12 kills, {kills_after_an_end} after at least one hand end, {told_in_all} \
         hand ends told, every one stored"
    );
    assert!(
        kills_after_an_end >= 3,
        "the kills came before any hand ended"
    );
}

/// The browser face's files at `/` (same origin as the API), with the security headers; a
/// path that is neither a file nor a route is the API's `not_found`, and nothing outside
/// the face's folder is served.
#[test]
fn the_face_is_served_at_the_root_and_nothing_outside_it() {
    let dir = tempfile_dir();
    let face = dir.join("face");
    std::fs::create_dir_all(face.join("assets")).unwrap();
    std::fs::write(
        face.join("index.html"),
        "<!doctype html><title>桐城麻将</title>",
    )
    .unwrap();
    std::fs::write(face.join("assets/app.wasm"), b"\0asm").unwrap();
    std::fs::write(dir.join("secret.txt"), "not for the web").unwrap();
    let srv = start(&["--web-dir", face.to_str().unwrap()]);
    let url = srv.url().to_string();
    let http = client_from("127.0.0.121");
    let page = http.get(format!("{url}/")).send().unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert_eq!(page.headers()["x-frame-options"], "DENY");
    assert!(page.text().unwrap().contains("桐城麻将"));
    let wasm = http.get(format!("{url}/assets/app.wasm")).send().unwrap();
    assert_eq!(wasm.headers()["content-type"], "application/wasm");
    for path in ["/../secret.txt", "/%2e%2e/secret.txt", "/nope.js"] {
        let (s, body) = send(http.get(format!("{url}{path}")));
        assert_eq!(s, 404, "{path}: {body}");
    }
    let (s, body) = send(http.get(format!("{url}/v1/nope")));
    assert_eq!((s, code(&body)), (404, "not_found"));
    honest_player_is_served(&url, "127.0.0.122");
    let _ = std::fs::remove_dir_all(dir);
}
