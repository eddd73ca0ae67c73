//! A node killed mid-match (`kill -9`): the players of its table reconnect to another node,
//! which takes the table over from its checkpoint in NATS. The hand in play is void (no
//! record), every hand anyone saw finish stands, the match plays on to its last hand, and the
//! ranked match is rated once. Two real `tongcheng-server` processes over one PostgreSQL
//! schema and one NATS; prints a SKIPPED line and passes when either cannot be reached.

use std::collections::HashSet;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tongcheng_client::{OnlineSession, OnlineUpdate};
use tongcheng_core::protocol::ErrorCode;

use crate::support;
use support::online::{connect, login, post_from as post, quick};
use support::{PgSchema, ServerProcess, spawn_server};

const NATS: &str = "127.0.0.1:4222";
const HANDS: usize = 4;

/// A server process (killed with SIGKILL when dropped) and its URL.
struct Node {
    process: ServerProcess,
    url: String,
}

/// The run's NATS bucket, deleted at the end (as the schema is): NATS keeps streams on disk.
struct Bucket(String);

impl Drop for Bucket {
    fn drop(&mut self) {
        let stream = format!("KV_{}_tables", self.0);
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                if let Ok(c) = async_nats::connect(NATS).await {
                    let _ = async_nats::jetstream::new(c).delete_stream(&stream).await;
                }
            });
        })
        .join();
    }
}

fn node(schema: &PgSchema, prefix: &str) -> Node {
    let nats = format!("nats://{NATS}");
    let hands = HANDS.to_string();
    let process = spawn_server(&[
        "--database",
        &schema.url,
        "--nats",
        &nats,
        "--nats-prefix",
        prefix,
        "--match-hands",
        &hands,
        "--ready-ms",
        "300",
        "--bot-fill-ms",
        "60000",
        "--sweep-ms",
        "300",
    ]);
    Node {
        url: process.url().to_string(),
        process,
    }
}

fn get(url: &str, token: &str, path: &str) -> Value {
    reqwest::blocking::Client::new()
        .get(format!("{url}{path}"))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap()
}

/// Answers what comes until `stop` says so (or the time is up); the record ids of the hands
/// seen to end.
fn play_until(
    s: &OnlineSession,
    secs: u64,
    mut stop: impl FnMut(&OnlineUpdate) -> bool,
    ended: &mut Vec<String>,
) -> bool {
    let until = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < until {
        let Some(u) = s.next_update(Duration::from_millis(100)) else {
            continue;
        };
        match &u {
            OnlineUpdate::Decision { decision, .. } => {
                let a = quick(decision);
                let _ = s.act(a);
            }
            // (`fair` is not checked: `--match-hands` plays a shortened preset, which the
            // client's verifier refuses as not the preset; the online suite checks fairness.)
            OnlineUpdate::HandEnd { record, .. } => ended.push(record.id.to_string()),
            _ => {}
        }
        if stop(&u) {
            return true;
        }
    }
    false
}

#[test]
fn a_killed_nodes_match_is_finished_on_another_node() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    if TcpStream::connect(NATS).is_err() {
        eprintln!("SKIPPED: NATS at {NATS} cannot be reached");
        return;
    }
    let prefix = format!("t{}", std::process::id());
    let _bucket = Bucket(prefix.clone());
    let mut a = node(&schema, &prefix);
    let b = node(&schema, &prefix);
    // Four ranked players, all queued on A (distinct addresses: the same-IP rule), so the
    // table is A's.
    let tokens: Vec<String> = (0..4).map(|_| login(&a.url).0).collect();
    let waits: Vec<_> = tokens
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, token)| {
            let url = a.url.clone();
            std::thread::spawn(move || {
                post(
                    &url,
                    &token,
                    i as u8 + 1,
                    "/v1/queue",
                    json!({"ranked": true}),
                )
            })
        })
        .collect();
    let seated: Vec<Value> = waits.into_iter().map(|w| w.join().unwrap().1).collect();
    let table = seated[0]["table"].as_str().unwrap().to_string();
    assert_eq!(seated[0]["server"], a.url.as_str(), "{seated:?}");
    assert!(seated.iter().all(|s| s["table"] == table.as_str()));

    // Everyone plays the first hand at A; A is killed as soon as it has ended.
    let sessions: Vec<OnlineSession> = tokens
        .iter()
        .map(|t| connect(&a.url, t, &table).unwrap())
        .collect();
    let mut seen: Vec<Vec<String>> = vec![Vec::new(); 4];
    let players: Vec<_> = sessions
        .into_iter()
        .zip(seen.iter_mut().map(std::mem::take))
        .map(|(s, mut ended)| {
            std::thread::spawn(move || {
                let done = play_until(
                    &s,
                    60,
                    |u| matches!(u, OnlineUpdate::HandEnd { .. }),
                    &mut ended,
                );
                assert!(done, "the first hand did not end");
                (s, ended)
            })
        })
        .collect();
    let mut sessions = Vec::new();
    for (i, p) in players.into_iter().enumerate() {
        let (s, ended) = p.join().unwrap();
        seen[i] = ended;
        sessions.push(s);
    }
    a.process.kill(); // SIGKILL: no goodbye, no flush.
    let before_kill: HashSet<String> = seen.iter().flatten().cloned().collect();
    assert_eq!(before_kill.len(), 1, "{seen:?}");

    // Each player notices, reconnects at B (the entry address), and plays to the end.
    let b_url = b.url.clone();
    let players: Vec<_> = sessions
        .into_iter()
        .zip(seen.iter_mut().map(std::mem::take))
        .map(|(s, mut ended)| {
            let b_url = b_url.clone();
            std::thread::spawn(move || {
                let lost = play_until(
                    &s,
                    30,
                    |u| matches!(u, OnlineUpdate::Disconnected { .. }),
                    &mut ended,
                );
                assert!(lost, "the connection to the killed node did not end");
                let mut tries = 0;
                while let Err(e) = s.reconnect_at(&b_url) {
                    tries += 1;
                    assert!(tries < 20, "cannot take the seat back at B: {e}");
                    std::thread::sleep(Duration::from_millis(200));
                }
                let mut voided = false;
                let over = play_until(
                    &s,
                    90,
                    |u| {
                        if let OnlineUpdate::Error { code, .. } = u {
                            voided |= *code == ErrorCode::HandVoided;
                        }
                        matches!(u, OnlineUpdate::MatchEnd { .. })
                    },
                    &mut ended,
                );
                assert!(over, "the match did not finish at B");
                (s.scores(), ended, voided)
            })
        })
        .collect();
    let results: Vec<_> = players.into_iter().map(|p| p.join().unwrap()).collect();
    let scores = results[0].0;
    assert!(results.iter().all(|r| r.0 == scores), "{results:?}");
    assert_eq!(scores.iter().sum::<i32>(), 0);
    assert!(
        results.iter().all(|r| r.2),
        "every returning player is told"
    );

    let store = tongcheng_server::store::open(&schema.url).unwrap();
    // Every account keeps exactly the match's hands: the one finished at A, then the rest
    // at B; the hand in play when A died left nothing.
    for (i, token) in tokens.iter().enumerate() {
        let mut ids: HashSet<String> = before_kill.clone();
        ids.extend(results[i].1.iter().cloned());
        assert_eq!(ids.len(), HANDS, "player {i} saw {ids:?}");
        let account = get(&b.url, token, "/v1/account")["account"]["id"]
            .as_i64()
            .unwrap();
        // Every device's records (the store's pull leaves out one device: none here).
        let stored: HashSet<String> = store
            .pull(account, 0, 0, 1_000)
            .unwrap()
            .into_iter()
            .map(|r| r.record_id)
            .collect();
        assert_eq!(stored, ids, "player {i}");
    }
    // Rated once, when the match ended at B.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let shown: Vec<Value> = tokens
            .iter()
            .map(|t| get(&b.url, t, "/v1/ratings"))
            .collect();
        if shown.iter().all(|r| r["ratings"][0]["games"] == 1) {
            break;
        }
        assert!(Instant::now() < until, "{shown:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
