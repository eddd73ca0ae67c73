//! Matchmaking end to end, in process: players queue over `POST /v1/queue` from their own
//! loopback addresses (127.0.0.N, so the same-IP rule can be met or broken on purpose), join
//! the table the queue made over `GET /v1/play`, play a short match, and their ratings move.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tongcheng_client::OnlineSession;
use tongcheng_server::play::OnlineConfig;
use tongcheng_server::play::queue::QueueConfig;

use crate::support;
use support::online::{TestServer, connect, play, short_rules};

fn start(bot_fill_ms: u64) -> TestServer {
    let online = OnlineConfig {
        rules: Some(short_rules("queue-test", 1)),
        contribute_ms: 1_000,
        ready_ms: 1_000,
        lobby_ms: 5_000,
        linger_ms: 1_000,
        queue: QueueConfig {
            band: 2.0,
            widen_per_sec: 1.0,
            bot_fill_ms,
        },
        queue_tick_ms: 20,
        ..OnlineConfig::default()
    };
    support::online::start(online)
}

fn login(url: &str) -> String {
    support::online::login(url).0
}

/// Queues from `from` (a loopback address) and returns the answer.
fn queue(url: &str, token: &str, from: [u8; 4], ranked: bool) -> (u16, Value) {
    let client = reqwest::blocking::Client::builder()
        .local_address(IpAddr::from(from))
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let r = client
        .post(format!("{url}/v1/queue"))
        .bearer_auth(token)
        .json(&json!({"ranked": ranked}))
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

fn queue_all(url: &str, players: &[(String, [u8; 4])], ranked: bool) -> Vec<Value> {
    let threads: Vec<_> = players
        .iter()
        .cloned()
        .map(|(token, from)| {
            let url = url.to_string();
            std::thread::spawn(move || queue(&url, &token, from, ranked))
        })
        .collect();
    threads
        .into_iter()
        .map(|t| {
            let (status, body) = t.join().unwrap();
            assert_eq!(status, 200, "{body}");
            body
        })
        .collect()
}

fn ratings(url: &str, token: &str) -> Value {
    reqwest::blocking::Client::new()
        .get(format!("{url}/v1/ratings"))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap()
}

#[test]
fn a_ranked_queue_seats_four_people_who_play_and_are_rated() {
    let server = start(10_000);
    let players: Vec<(String, [u8; 4])> = (1..=4)
        .map(|n| (login(&server.url), [127, 0, 0, n]))
        .collect();
    let t0 = Instant::now();
    let seated = queue_all(&server.url, &players, true);
    // Four new players (equal ratings, four addresses): one table at once, no bots.
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    let table = seated[0]["table"].as_str().unwrap().to_string();
    for s in &seated {
        assert_eq!(s["table"], table.as_str());
        assert_eq!(
            (s["people"].as_u64(), s["bots"].as_u64()),
            (Some(4), Some(0))
        );
        assert_eq!(s["ranked"], true);
    }
    // The seats are kept: a stranger cannot take one.
    let stranger = login(&server.url);
    let refused = connect(&server.url, &stranger, &table);
    assert!(
        refused
            .as_ref()
            .err()
            .is_some_and(|e| e.contains("table_full") || e.contains("TableFull")),
        "{:?}",
        refused.err()
    );
    let sessions: Vec<OnlineSession> = players
        .iter()
        .map(|(t, _)| connect(&server.url, t, &table).unwrap())
        .collect();
    let threads: Vec<_> = sessions
        .into_iter()
        .map(|s| std::thread::spawn(move || play(s)))
        .collect();
    let scores: Vec<[i32; 4]> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    // Ratings are written just after the match end: wait for them.
    let until = Instant::now() + Duration::from_secs(5);
    let mut shown = Vec::new();
    while Instant::now() < until {
        shown = players
            .iter()
            .map(|(t, _)| ratings(&server.url, t))
            .collect();
        if shown.iter().all(|r| r["ratings"][0]["games"] == 1) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    for r in &shown {
        let r = &r["ratings"][0];
        assert_eq!(
            (r["rules"].as_str(), r["games"].as_u64()),
            (Some("queue-test"), Some(1))
        );
        assert_eq!(
            (r["provisional"].as_bool(), r["tier"].is_null()),
            (Some(true), true)
        );
        assert!(r["sigma"].as_f64().unwrap() < 25.0 / 3.0);
    }
    // Whoever scored best rose the most (unless every score tied, when nobody moved much).
    let final_scores = scores[0];
    if final_scores.iter().any(|&s| s != final_scores[0]) {
        let mus: Vec<f64> = shown
            .iter()
            .map(|r| r["ratings"][0]["mu"].as_f64().unwrap())
            .collect();
        assert!(
            mus.iter().any(|&m| m > 25.0) && mus.iter().any(|&m| m < 25.0),
            "{mus:?}"
        );
    }
}

#[test]
fn same_ip_players_never_share_a_ranked_table_and_bots_fill_after_the_wait() {
    let server = start(300);
    let players: Vec<(String, [u8; 4])> = (0..2)
        .map(|_| (login(&server.url), [127, 0, 0, 9]))
        .collect();
    let t0 = Instant::now();
    let seated = queue_all(&server.url, &players, true);
    assert!(
        t0.elapsed() >= Duration::from_millis(300),
        "seated before the wait"
    );
    assert_ne!(seated[0]["table"], seated[1]["table"]);
    for s in &seated {
        assert_eq!(
            (s["people"].as_u64(), s["bots"].as_u64()),
            (Some(1), Some(3))
        );
    }
    // Casual: the same two are one table (and bots fill the rest after the wait).
    let seated = queue_all(&server.url, &players, false);
    assert_eq!(seated[0]["table"], seated[1]["table"]);
    assert_eq!(
        (seated[0]["people"].as_u64(), seated[0]["bots"].as_u64()),
        (Some(2), Some(2))
    );
    // A bot-filled table plays through for its people.
    let table = seated[0]["table"].as_str().unwrap().to_string();
    let threads: Vec<_> = players
        .iter()
        .map(|(t, _)| {
            let s = connect(&server.url, t, &table).unwrap();
            std::thread::spawn(move || play(s))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn bad_queue_requests_get_typed_errors() {
    let server = start(300);
    let token = login(&server.url);
    let c = reqwest::blocking::Client::new();
    let post = |body: &str, auth: bool| {
        let mut r = c
            .post(format!("{}/v1/queue", server.url))
            .header("content-type", "application/json")
            .body(body.to_string());
        if auth {
            r = r.bearer_auth(&token);
        }
        let r = r.send().unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().unwrap();
        (
            status,
            v["error"]["code"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(post("{}", false), (401, "unauthorized".into()));
    assert_eq!(post("{\"ranked\": \"yes\"}", true).0, 400);
    assert_eq!(post("{\"nonsense\": 1}", true).0, 400);
    assert_eq!(post("not json", true).0, 400);
}
