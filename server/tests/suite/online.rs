//! Online tables end to end, in process: the real server on 127.0.0.1:0 (in-memory SQLite)
//! and real `tongcheng-client` online sessions, each in its own thread, over loopback.
//! Matches are short (custom rules: one round of two hands, 1 s limits) so the whole file
//! runs in seconds.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tongcheng_client::online::StreamStats;
use tongcheng_client::{HttpApi, OnlineOptions, OnlineSession, OnlineUpdate};
use tongcheng_core::fair::FairnessError;
use tongcheng_core::game::{Action, Event, Game};
use tongcheng_core::protocol::{ErrorCode, ServerMsg};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::Tile;
use tongcheng_server::play::OnlineConfig;

use crate::support;
use support::online::{TestServer, login, quick, short_rules, start};

fn online(rules: Option<RuleSet>) -> OnlineConfig {
    OnlineConfig {
        rules,
        contribute_ms: 2_000,
        ready_ms: 2_000,
        lobby_ms: 10_000,
        auth_ms: 2_000,
        idle_ms: 10_000,
        linger_ms: 2_000,
        // The real rate limits: the test players answer at machine speed, and answers the
        // server asked for are never refused.
        ..OnlineConfig::default()
    }
}

/// What one seat saw of a whole match.
#[derive(Debug, Default)]
struct Played {
    player: u8,
    records: Vec<(HandRecord, Seat, Result<(), FairnessError>)>,
    stats: StreamStats,
    frames: Vec<String>,
    /// (hand, index) → when the event arrived.
    arrivals: HashMap<(u32, u32), Instant>,
    /// decision id → when we answered it.
    answered: HashMap<u64, Instant>,
    /// Event indices seen per hand, in arrival order.
    indices: BTreeMap<u32, Vec<u32>>,
    auto_play_seen: bool,
    /// Taken off auto-play after it was on.
    auto_play_off_seen: bool,
    /// Welcomed back to a seat held (after a reconnect).
    resumed: bool,
    errors: Vec<ErrorCode>,
}

/// How a test seat plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    /// Wins when it may, else the decision's timeout action, at once.
    Quick,
    /// Never answers a decision.
    Silent,
    /// Silent until its seat is on auto-play, then quick: a person coming back.
    Returns,
    /// Quick, but drops its connection at its `n`th decision of hand 0, stays away a while
    /// and comes back.
    DropAt(u32),
    /// Answers after this many milliseconds (keeps a match going for a while).
    Paced(u64),
}

fn play(session: OnlineSession, style: Style, limit: Duration) -> Played {
    let mut out = Played {
        player: session.player().unwrap(),
        ..Played::default()
    };
    let until = Instant::now() + limit;
    let mut decisions = 0;
    let mut dropped = false;
    let debug = std::env::var_os("ONLINE_DEBUG").is_some();
    while Instant::now() < until {
        let Some(u) = session.next_update(Duration::from_millis(200)) else {
            continue;
        };
        if debug {
            eprintln!("{:?} player {}: {u:?}", Instant::now(), out.player);
        }
        match u {
            OnlineUpdate::Event { hand, index, .. } => {
                out.arrivals.insert((hand, index), Instant::now());
                out.indices.entry(hand).or_default().push(index);
            }
            OnlineUpdate::Decision { id, decision } => {
                decisions += 1;
                if let Style::DropAt(n) = style
                    && !dropped
                    && decisions == n
                {
                    dropped = true;
                    session.drop_connection();
                    // Away long enough for the seat to play on by itself for a while.
                    std::thread::sleep(Duration::from_millis(150));
                    session.reconnect().unwrap();
                    continue;
                }
                if style == Style::Silent || (style == Style::Returns && !out.auto_play_seen) {
                    continue;
                }
                if let Style::Paced(ms) = style {
                    std::thread::sleep(Duration::from_millis(ms));
                }
                let action = quick(&decision);
                out.answered.insert(id, Instant::now());
                // A decision already gone (answered by auto-play meanwhile) is fine.
                let _ = session.act(action);
            }
            OnlineUpdate::AutoPlay { on } => {
                out.auto_play_off_seen |= !on && out.auto_play_seen;
                out.auto_play_seen |= on;
            }
            OnlineUpdate::Joined { resumed, .. } => out.resumed |= resumed,
            OnlineUpdate::Error { code, .. } => out.errors.push(code),
            OnlineUpdate::MatchEnd { .. } => break,
            _ => {}
        }
    }
    assert!(session.is_over(), "the match did not finish in {limit:?}");
    out.records = session.records();
    out.stats = session.stats();
    out.frames = session.frames();
    out
}

fn connect(url: &str, token: &str, table: &str, people: u8) -> OnlineSession {
    OnlineSession::connect(
        url,
        token,
        OnlineOptions {
            table: Some(table.into()),
            people: Some(people),
            rules: None,
            capture_frames: true,
        },
    )
    .unwrap()
}

/// `people` sessions at one table, each played in its own thread.
fn match_of(server: &TestServer, table: &str, styles: &[Style]) -> Vec<Played> {
    let people = styles.len() as u8;
    let sessions: Vec<OnlineSession> = styles
        .iter()
        .map(|_| {
            let (token, _) = login(&server.url);
            connect(&server.url, &token, table, people)
        })
        .collect();
    let threads: Vec<_> = sessions
        .into_iter()
        .zip(styles.iter().copied())
        .map(|(s, style)| std::thread::spawn(move || play(s, style, Duration::from_secs(40))))
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

/// The frames a seat received, read.
fn messages(p: &Played) -> Vec<ServerMsg> {
    p.frames
        .iter()
        .map(|f| ServerMsg::parse(f).unwrap())
        .collect()
}

fn assert_clean_stream(p: &Played) {
    assert_eq!(p.stats.gaps, 0, "player {}: frames lost", p.player);
    assert_eq!(p.stats.duplicates, 0, "player {}: frames doubled", p.player);
    for (hand, idx) in &p.indices {
        let expect: Vec<u32> = (0..idx.len() as u32).collect();
        assert_eq!(
            idx, &expect,
            "player {} hand {hand}: events lost, doubled or out of order",
            p.player
        );
    }
}

fn assert_all_fair(p: &Played, hands: usize) {
    assert_eq!(p.records.len(), hands, "player {}", p.player);
    assert_each_fair(p);
}

/// Every hand the player saw verified fair, however many the match had.
fn assert_each_fair(p: &Played) {
    let hands = p.records.len();
    for (r, _, fair) in &p.records {
        assert_eq!(fair, &Ok(()), "player {} hand {}", p.player, r.id);
    }
    assert_eq!(p.stats.hands_verified as usize, hands);
    assert_eq!(p.stats.hands_unfair, 0);
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[test]
fn four_people_play_a_match_and_every_hand_is_fair() {
    let server = start(online(Some(short_rules("online-test", 2))));
    let played = match_of(&server, "four", &[Style::Quick; 4]);
    for p in &played {
        assert_clean_stream(p);
        assert_all_fair(p, 2);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
    }
    // Everyone saw the same hands.
    let ids: Vec<Vec<String>> = played
        .iter()
        .map(|p| p.records.iter().map(|r| r.0.id.to_string()).collect())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] == w[1]));
    // Latency: from a seat answering its turn to every other seat holding the event the
    // answer made (a turn's answer is the hand's next event: its id names that index).
    let mut lat = Vec::new();
    for actor in &played {
        for (&id, &sent) in &actor.answered {
            let key = ((id >> 32) as u32, (id & 0xFFFF_FFFF) as u32);
            for other in played.iter().filter(|o| o.player != actor.player) {
                if let Some(&at) = other.arrivals.get(&key)
                    && at >= sent
                {
                    lat.push(at - sent);
                }
            }
        }
    }
    lat.sort();
    assert!(lat.len() > 20, "only {} latency samples", lat.len());
    let (p50, p99) = (percentile(&lat, 0.5), percentile(&lat, 0.99));
    println!(
        "action → other seats' event on loopback: p50 {:.3} ms, p99 {:.3} ms ({} samples)",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        lat.len()
    );
    assert!(p99 < Duration::from_millis(500));
}

#[test]
fn one_person_against_server_bots_and_hands_are_stored_for_sync() {
    // A real preset here (a whole 16-hand guobiao match), so the stored hands are ones any
    // device's history takes.
    let server = start(online(None));
    let (token, _) = login(&server.url);
    let session = OnlineSession::connect(
        &server.url,
        &token,
        OnlineOptions {
            rules: Some("guobiao".into()),
            ..OnlineOptions::default()
        },
    )
    .unwrap();
    let p = play(session, Style::Quick, Duration::from_secs(40));
    assert_clean_stream(&p);
    assert!(!p.records.is_empty());
    assert_all_fair(&p, p.records.len());
    // Stored server-side for this account, as hands the server hosted (not offline).
    let mut api = HttpApi::new(&server.url).unwrap();
    api.set_token(Some(token));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let n = api.account().unwrap().records;
        if n as usize == p.records.len() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{n} of {} stored",
            p.records.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every tile that a frame shows, by what it claims to be.
fn tiles_in(v: &serde_json::Value, out: &mut Vec<Tile>) {
    match v {
        serde_json::Value::String(s) => {
            if let Ok(t) = s.parse::<Tile>()
                && s.len() == 2
            {
                out.push(t);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| tiles_in(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| tiles_in(x, out)),
        _ => {}
    }
}

/// Checks every frame one seat received during play against the truth (the hands'
/// records, replayed): each event frame is exactly the event as that seat may see it, each
/// view is exactly the seat's view at that moment, and no frame before a hand's end holds a
/// tile beyond what the seat may know then (its own concealed tiles plus everything public).
fn check_frames(p: &Played) -> usize {
    let records: HashMap<u32, (&HandRecord, Seat)> = p
        .records
        .iter()
        .enumerate()
        .map(|(i, (r, s, _))| (i as u32, (r, *s)))
        .collect();
    let mut checked = 0;
    for text in &p.frames {
        let msg = ServerMsg::parse(text).unwrap();
        let (hand, upto) = match &msg {
            ServerMsg::Event { hand, index, .. } => (*hand, *index as usize + 1),
            ServerMsg::Decision { hand, id, .. } => (*hand, (id & 0xFFFF_FFFF) as usize),
            ServerMsg::Snapshot(s) if s.view.is_some() && !s.match_over => {
                (s.hand, s.events as usize)
            }
            // Welcome, commitments, auto-play, pongs and errors hold no tiles; hand ends
            // come after the hand, when every hand is shown.
            _ => continue,
        };
        let (record, seat) = records[&hand];
        // The truth at that moment: the hand replayed up to the frame's event.
        // (The deal's events all come at once: a frame of one of them is checked against
        // the state after the deal.)
        let mut game = Game::new(record.setup.clone());
        for a in &record.actions {
            if game.events().len() >= upto {
                break;
            }
            game.apply(a.seat, a.action).unwrap();
        }
        assert!(
            game.events().len() >= upto,
            "hand {hand}: no moment with {upto} events"
        );
        match &msg {
            ServerMsg::Event { index, event, .. } => {
                assert_eq!(event, &record.events[*index as usize].for_seat(seat));
            }
            ServerMsg::Decision { view, .. } => assert_eq!(**view, game.view(seat)),
            ServerMsg::Snapshot(s) => assert_eq!(s.view.as_ref(), Some(&game.view(seat))),
            _ => unreachable!(),
        }
        checked += 1;
        if game.is_finished() {
            // The hand's last event (a win, or the wall run out): every hand is shown.
            continue;
        }
        // What the seat may know: its concealed tiles, and the public table.
        let view = game.view(seat);
        let mut known: Vec<Tile> = view.hand.clone();
        known.extend(view.drawn);
        for s in &view.seats {
            // 暗牌: another seat's discard is shown without its tile.
            known.extend(s.discards.iter().filter_map(|d| d.tile));
            known.extend(
                s.melds
                    .iter()
                    .flat_map(|m| m.tile.into_iter().chain(m.claimed)),
            );
            known.extend(s.flowers.iter().copied());
        }
        known.extend(view.wild_indicator);
        known.extend(view.wild);
        let mut shown = Vec::new();
        tiles_in(&serde_json::from_str(text).unwrap(), &mut shown);
        for t in shown {
            assert!(
                known.contains(&t),
                "player {} hand {hand}: frame shows {t}, which the seat cannot know: {text}",
                p.player
            );
        }
        // Other seats' hidden tiles: never in any frame, by kind and count.
        let hidden_kinds_only_elsewhere: Vec<Tile> = Seat::ALL
            .into_iter()
            .filter(|&s| s != seat)
            .flat_map(|s| game.view(s).hand)
            .filter(|t| !known.contains(t))
            .collect();
        for t in hidden_kinds_only_elsewhere {
            assert!(!text.contains(&format!("\"{t}\"")), "{t} leaked: {text}");
        }
    }
    checked
}

#[test]
fn no_frame_holds_another_seats_concealed_tile_or_the_wall() {
    let server = start(online(Some(short_rules("online-test", 2))));
    let mut frames = 0;
    let mut total = 0;
    for (table, styles) in [
        ("leak-four", vec![Style::Quick; 4]),
        ("leak-two", vec![Style::Quick; 2]),
    ] {
        for p in match_of(&server, table, &styles) {
            total += p.frames.len();
            frames += check_frames(&p);
        }
    }
    println!(
        "frame capture: {frames} frames with tiles checked ({total} frames in all), none leaked"
    );
    assert!(frames > 200);
}

/// 暗牌: another seat's discard goes on the wire as `"tile": null`, in events and views alike;
/// the full record at the hand's end keeps every tile and verifies.
#[test]
fn blind_discards_never_reach_another_seats_frames() {
    let short = short_rules("online-blind", 2);
    let rules = RuleSet {
        name: short.name,
        rounds: short.rounds,
        hands_per_round: short.hands_per_round,
        time: short.time,
        blind_discards: true,
        ..RuleSet::tongcheng_dianpao()
    };
    let server = start(online(Some(rules)));
    let mut face_down = 0;
    for p in match_of(&server, "blind", &[Style::Quick; 2]) {
        assert_clean_stream(&p);
        // 桐城 dealer rule: the deal stays with a winning dealer, so two deal moves can take
        // more hands than two (up to the match's cap of four per move).
        assert!(
            (2..=8).contains(&p.records.len()),
            "{} hands",
            p.records.len()
        );
        assert_each_fair(&p);
        check_frames(&p);
        for text in &p.frames {
            let ServerMsg::Event { event, .. } = ServerMsg::parse(text).unwrap() else {
                continue;
            };
            if let Event::Discarded {
                tile, face_down: f, ..
            } = &event
            {
                assert!(f, "every discard is face down: {text}");
                face_down += usize::from(tile.is_none());
            }
        }
        for (record, seat, _) in &p.records {
            let theirs = record
                .events
                .iter()
                .any(|e| matches!(e, Event::Discarded { seat: s, tile: Some(_), .. } if s != seat));
            assert!(theirs, "the record keeps the other seats' discards");
        }
    }
    assert!(face_down > 20, "{face_down} face-down discards seen");
}

#[test]
fn a_dropped_seat_plays_on_and_reconnects_without_losing_or_doubling_anything() {
    let server = start(online(Some(short_rules("online-test", 2))));
    let played = match_of(&server, "drop", &[Style::DropAt(3), Style::Paced(15)]);
    for p in &played {
        assert_clean_stream(p);
        assert_all_fair(p, 2);
    }
    // The dropped player's events of hand 0 are whole: every index once, in order — or, when
    // the hand ended while he was away, those he missed come in its record, their frames
    // resent as `superseded` (a hand's end makes its event frames unnecessary).
    let dropped = played.iter().find(|p| p.player == 0).unwrap();
    assert!(dropped.resumed, "the seat was not taken back");
    let n = dropped.records[0].0.events.len();
    let seen = dropped.indices[&0].len();
    if seen < n {
        let superseded = dropped
            .frames
            .iter()
            .filter(|t| matches!(ServerMsg::parse(t), Ok(ServerMsg::Superseded { .. })))
            .count();
        assert!(
            superseded >= n - seen,
            "{seen} of {n} events, {superseded} superseded"
        );
    } else {
        assert_eq!(seen, n);
    }
}

#[test]
fn a_silent_person_goes_on_auto_play_and_the_match_finishes() {
    // With one second of bank time: the first decision has 1 s + 1 s, and once the bank is
    // spent by a timeout, the limit alone.
    let mut rules = short_rules("online-test", 2);
    rules.time.bank_secs = 1;
    let server = start(online(Some(rules)));
    let t0 = Instant::now();
    let played = match_of(&server, "silent", &[Style::Quick, Style::Silent]);
    let silent = played.iter().find(|p| p.player == 1).unwrap();
    assert!(silent.auto_play_seen, "no auto-play after two timeouts");
    for p in &played {
        assert_all_fair(p, 2);
        assert_clean_stream(p);
    }
    // The silent seat's decisions: timed until auto-play, then untimed (played at once).
    let deadlines: Vec<Option<u64>> = silent
        .frames
        .iter()
        .filter_map(|f| match ServerMsg::parse(f).unwrap() {
            ServerMsg::Decision { deadline_ms, .. } => Some(deadline_ms),
            _ => None,
        })
        .collect();
    assert_eq!(deadlines[..2], [Some(2000), Some(1000)], "{deadlines:?}");
    assert!(deadlines[2..].iter().all(Option::is_none), "{deadlines:?}");
    // Two timeouts (2 s and 1 s), then the seat plays at once.
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
}

#[test]
fn a_person_who_answers_again_is_taken_off_auto_play_and_timed_again() {
    let server = start(online(Some(short_rules("online-test", 2))));
    let played = match_of(&server, "back", &[Style::Quick, Style::Returns]);
    let back = played.iter().find(|p| p.player == 1).unwrap();
    assert!(back.auto_play_seen, "no auto-play after two timeouts");
    assert!(back.auto_play_off_seen, "answering did not end auto-play");
    for p in &played {
        assert_all_fair(p, 2);
        assert_clean_stream(p);
    }
    // The decisions after auto-play ends are timed again.
    let frames = messages(back);
    let off = frames
        .iter()
        .position(|m| matches!(m, ServerMsg::AutoPlay { on: false, .. }))
        .unwrap();
    assert!(
        frames[off..].iter().any(|m| matches!(
            m,
            ServerMsg::Decision {
                deadline_ms: Some(_),
                ..
            }
        )),
        "no timed decision after auto-play ended"
    );
}

#[test]
fn bots_take_the_seats_nobody_came_for() {
    let mut o = online(Some(short_rules("online-test", 2)));
    o.lobby_ms = 300;
    let server = start(o);
    let (token, _) = login(&server.url);
    // A table for three people; only one comes.
    let session = connect(&server.url, &token, "lonely", 3);
    let t0 = Instant::now();
    let p = play(session, Style::Quick, Duration::from_secs(20));
    assert!(
        t0.elapsed() >= Duration::from_millis(250),
        "started before the lobby closed"
    );
    assert_all_fair(&p, 2);
    assert_clean_stream(&p);
    // Everyone else at the table was a bot: their seats never needed an answer.
    let frames = messages(&p);
    let welcome = frames
        .iter()
        .find_map(|m| match m {
            ServerMsg::Welcome { players, .. } => Some(players.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(welcome.iter().filter(|p| p.person).count(), 1);
}

#[test]
fn a_server_that_lies_about_its_seed_is_caught() {
    let mut o = online(Some(short_rules("online-test", 2)));
    o.dishonest_reveal = true;
    let server = start(o);
    let played = match_of(&server, "liar", &[Style::Quick]);
    let p = &played[0];
    assert_eq!(p.records.len(), 2);
    for (_, _, fair) in &p.records {
        assert_eq!(fair, &Err(FairnessError::Commitment));
    }
    assert_eq!(p.stats.hands_unfair, 2);
}

/// A raw WebSocket for hostile input.
async fn raw(
    url: &str,
    token: Option<&str>,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    tokio_tungstenite::tungstenite::Error,
> {
    let mut req = format!("{}/v1/play", url.replace("http://", "ws://"))
        .into_client_request()
        .unwrap();
    if let Some(t) = token {
        req.headers_mut()
            .insert("authorization", format!("Bearer {t}").parse().unwrap());
    }
    tokio_tungstenite::connect_async(req)
        .await
        .map(|(ws, _)| ws)
}

async fn next_error<S>(ws: &mut S) -> Option<ErrorCode>
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                if let Ok(ServerMsg::Error { code, .. }) = ServerMsg::parse(t.as_str()) {
                    return Some(code);
                }
            }
            Ok(Some(Ok(_))) => {}
            _ => return None,
        }
    }
}

#[test]
fn hostile_input_gets_error_frames_and_changes_nothing() {
    let mut o = online(Some(short_rules("online-test", 2)));
    o.auth_ms = 300;
    o.burst = 30.0;
    o.per_sec = 1.0;
    let server = start(o);
    let (token, _) = login(&server.url);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // No token: refused before the upgrade.
        assert!(raw(&server.url, None).await.is_err());
        assert!(raw(&server.url, Some("nonsense")).await.is_err());

        // Silence after the upgrade: closed at the auth deadline.
        let mut ws = raw(&server.url, Some(&token)).await.unwrap();
        assert_eq!(next_error(&mut ws).await, Some(ErrorCode::Timeout));

        let mut ws = raw(&server.url, Some(&token)).await.unwrap();
        for (text, code) in [
            ("not json", ErrorCode::BadMessage),
            (
                "{\"type\":\"act\",\"decision\":1,\"action\":{\"type\":\"pass\"}}",
                ErrorCode::NotJoined,
            ),
            (
                "{\"type\":\"join\",\"version\":99}",
                ErrorCode::UnsupportedVersion,
            ),
            (
                "{\"type\":\"join\",\"version\":1,\"table\":\"../etc\"}",
                ErrorCode::BadMessage,
            ),
            (
                "{\"type\":\"join\",\"version\":1,\"people\":9}",
                ErrorCode::BadMessage,
            ),
            ("{\"type\":\"event\",\"seq\":1}", ErrorCode::BadMessage),
        ] {
            ws.send(Message::Text(text.into())).await.unwrap();
            assert_eq!(next_error(&mut ws).await, Some(code), "{text}");
        }
        // Too large: the socket is closed rather than read.
        ws.send(Message::Text("x".repeat(100_000).into()))
            .await
            .ok();
        assert_eq!(next_error(&mut ws).await, None);

        // Rate: a burst beyond the bucket gets rate_limited.
        let mut ws = raw(&server.url, Some(&token)).await.unwrap();
        for n in 0..40 {
            let ping = format!("{{\"type\":\"ping\",\"nonce\":{n}}}");
            ws.send(Message::Text(ping.into())).await.unwrap();
        }
        assert_eq!(next_error(&mut ws).await, Some(ErrorCode::RateLimited));
    });

    // Garbage of every shape at a table the server is playing: error frames, no panic,
    // and the table plays on (the client below still gets its decisions and the match ends).
    let (token2, _) = login(&server.url);
    let rt2 = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt2.block_on(async {
        let mut ws = raw(&server.url, Some(&token2)).await.unwrap();
        let join = "{\"type\":\"join\",\"version\":1,\"table\":\"garbage\"}";
        ws.send(Message::Text(join.into())).await.unwrap();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..25u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let text = match i % 5 {
                0 => format!("{{\"type\":\"act\",\"decision\":{x},\"action\":{{\"type\":\"pass\"}}}}"),
                1 => format!("{{\"type\":\"contribute\",\"hand\":{},\"contribution\":\"{:064x}\"}}", x % 7, x),
                2 => format!("{{\"type\":\"act\",\"decision\":{},\"action\":{{\"type\":\"discard\",\"tile\":\"{}m\"}}}}", x % 100, 1 + x % 9),
                3 => String::from_utf8_lossy(&x.to_le_bytes()).into_owned(),
                _ => "{\"type\":\"ready\"}{".to_string(),
            };
            ws.send(Message::Text(text.into())).await.unwrap();
        }
        ws.send(Message::Binary(vec![0xFF; 64].into())).await.unwrap();
        let mut frames = 0;
        while let Ok(Some(Ok(_))) =
            tokio::time::timeout(Duration::from_millis(300), ws.next()).await
        {
            frames += 1;
        }
        assert!(frames > 5, "the server went quiet");
    });

    // Late, stale and illegal actions at a real table change nothing.
    let session = connect(&server.url, &token, "hostile", 1);
    let (id, decision) = loop {
        match session.next_update(Duration::from_secs(5)).unwrap() {
            OnlineUpdate::Decision { id, decision } => break (id, decision),
            _ => continue,
        }
    };
    let before = session.table().unwrap();
    let illegal = (0..34u8)
        .filter_map(Tile::from_index)
        .map(Action::Discard)
        .find(|a| !decision.legal.contains(a))
        .unwrap();
    session
        .send(tongcheng_core::protocol::ClientMsg::Act {
            decision: id,
            action: illegal,
        })
        .unwrap();
    session
        .send(tongcheng_core::protocol::ClientMsg::Act {
            decision: id + 1,
            action: decision.on_timeout,
        })
        .unwrap();
    let mut codes = Vec::new();
    while codes.len() < 2 {
        if let Some(OnlineUpdate::Error { code, .. }) = session.next_update(Duration::from_secs(5))
        {
            codes.push(code);
        }
    }
    assert_eq!(codes, [ErrorCode::IllegalAction, ErrorCode::StaleDecision]);
    // Still the same decision, and the same table.
    assert_eq!(session.decision().map(|d| d.0), Some(id));
    assert_eq!(session.table().unwrap(), before);
    session.act(decision.on_timeout).unwrap();
    // A second connection of the same account takes the seat; the first is told.
    let again = connect(&server.url, &token, "hostile", 1);
    let mut replaced = false;
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until && !replaced {
        if let Some(OnlineUpdate::Error {
            code: ErrorCode::Replaced,
            ..
        }) = session.next_update(Duration::from_millis(100))
        {
            replaced = true;
        }
    }
    assert!(replaced);
    assert_eq!(again.player(), Some(0));
}
