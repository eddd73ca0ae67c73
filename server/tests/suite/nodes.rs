//! Several server nodes sharing one PostgreSQL schema, in one test process on loopback:
//! players queued on different nodes sit at one table; a room made on node A is joined from
//! node B and its players play at A's table (B's player is redirected there); and two nodes'
//! matchers running at once over a busy queue never seat a player twice. Each test prints a
//! SKIPPED line and passes when PostgreSQL cannot be reached.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tongcheng_server::play::OnlineConfig;
use tongcheng_server::play::queue::QueueConfig;
use tongcheng_server::store::{self, QueueEntry, QueueState};
use tongcheng_server::{Config, Shared};

use crate::support;
use support::PgSchema;
use support::online::{TestServer, connect, play, post_from as post, short_rules};

fn online() -> OnlineConfig {
    OnlineConfig {
        rules: Some(short_rules("queue-test", 1)),
        contribute_ms: 1_000,
        ready_ms: 1_000,
        lobby_ms: 5_000,
        linger_ms: 1_000,
        queue: QueueConfig {
            band: 2.0,
            widen_per_sec: 1.0,
            bot_fill_ms: 10_000,
        },
        queue_tick_ms: 50,
        ..OnlineConfig::default()
    }
}

/// A node over the shared schema, with its own store (its own connection pool).
fn node(schema: &PgSchema) -> TestServer {
    support::online::start_on(
        store::open(&schema.url).unwrap(),
        Config {
            online: online(),
            ..Config::default()
        },
    )
}

fn login(url: &str) -> String {
    support::online::login(url).0
}

/// Every player connects at `url` (its own node) to `table` and plays; all scores.
fn play_all(players: Vec<(String, String)>, table: &str) -> Vec<[i32; 4]> {
    let threads: Vec<_> = players
        .into_iter()
        .map(|(url, token)| {
            let table = table.to_string();
            std::thread::spawn(move || play(connect(&url, &token, &table).unwrap()))
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn players_queued_on_two_nodes_sit_at_one_table_and_are_rated() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    let (a, b) = (node(&schema), node(&schema));
    // Two players on each node (sessions made on one node hold on the other: one store).
    let players: Vec<(String, String, u8)> = (1..=4u8)
        .map(|n| {
            let url = if n % 2 == 0 { &b.url } else { &a.url };
            (url.clone(), login(url), n)
        })
        .collect();
    let waits: Vec<_> = players
        .iter()
        .cloned()
        .map(|(url, token, from)| {
            std::thread::spawn(move || {
                post(&url, &token, from, "/v1/queue", json!({"ranked": true}))
            })
        })
        .collect();
    let seated: Vec<Value> = waits
        .into_iter()
        .map(|t| {
            let (status, body) = t.join().unwrap();
            assert_eq!(status, 200, "{body}");
            body
        })
        .collect();
    let table = seated[0]["table"].as_str().unwrap().to_string();
    let server = seated[0]["server"].as_str().unwrap().to_string();
    assert!(server == a.url || server == b.url, "{server}");
    for s in &seated {
        assert_eq!(s["table"], table.as_str(), "{seated:?}");
        assert_eq!(s["server"], server.as_str());
        assert_eq!(
            (s["people"].as_u64(), s["bots"].as_u64()),
            (Some(4), Some(0))
        );
    }
    // Each connects to the node it queued on; those on the other node are redirected.
    let scores = play_all(
        players
            .iter()
            .map(|(u, t, _)| (u.clone(), t.clone()))
            .collect(),
        &table,
    );
    assert!(scores.windows(2).all(|w| w[0] == w[1]), "{scores:?}");
    // The ranked match moved every player's rating, seen from the other node (ratings are
    // written just after the match end: wait for them).
    let rating = |url: &str, token: &str| -> Value {
        reqwest::blocking::Client::new()
            .get(format!("{url}/v1/ratings"))
            .bearer_auth(token)
            .send()
            .unwrap()
            .json()
            .unwrap()
    };
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let shown: Vec<Value> = players
            .iter()
            .enumerate()
            .map(|(i, (_, token, _))| rating(if i % 2 == 0 { &b.url } else { &a.url }, token))
            .collect();
        if shown.iter().all(|r| r["ratings"][0]["games"] == 1) {
            break;
        }
        assert!(Instant::now() < until, "{shown:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_room_made_on_one_node_is_joined_and_played_from_another() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    let (a, b) = (node(&schema), node(&schema));
    let owner = login(&a.url);
    let friend = login(&b.url);
    let stranger = login(&b.url);
    let (status, room) = post(
        &a.url,
        &owner,
        1,
        "/v1/rooms",
        json!({"people": 2, "bots": ["easy", "hard"], "hands": 1}),
    );
    assert_eq!(status, 200, "{room}");
    assert_eq!(room["server"], a.url.as_str());
    let code = room["code"].as_str().unwrap().to_string();
    let table = room["table"].as_str().unwrap().to_string();
    // Joined through B: the answer names A, where the table runs.
    let (status, joined) = post(
        &b.url,
        &friend,
        2,
        &format!("/v1/rooms/{code}/join"),
        json!({}),
    );
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["server"], a.url.as_str());
    assert_eq!(joined["table"], table.as_str());
    assert_eq!(joined["admitted"], 2);
    // The room is full on every node.
    let (status, full) = post(
        &a.url,
        &stranger,
        3,
        &format!("/v1/rooms/{code}/join"),
        json!({}),
    );
    assert_eq!(
        (status, full["error"]["code"].as_str()),
        (409, Some("room_full")),
        "{full}"
    );
    // On B, a join to A's table is answered with a redirect to A...
    let refused = connect_raw_error(&b.url, &friend, &table);
    assert_eq!(refused, ("wrong_node".to_string(), a.url.clone()));
    // ...which the client follows; A's table lets in the player B admitted.
    let scores = play_all(
        vec![(a.url.clone(), owner), (b.url.clone(), friend)],
        &table,
    );
    assert_eq!(scores[0], scores[1]);
    // A stranger redirected to A is still refused a seat there.
    assert!(connect(&b.url, &stranger, &table).is_err());
}

/// The first error frame a join at `url` gets, as (code, message), without following it.
fn connect_raw_error(url: &str, token: &str, table: &str) -> (String, String) {
    use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use futures_util::{SinkExt, StreamExt};
        let mut req = format!("{}/v1/play", url.replacen("http", "ws", 1))
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        let join = json!({"type": "join", "version": tongcheng_core::protocol::PROTOCOL_VERSION,
                          "table": table});
        ws.send(Message::Text(join.to_string().into()))
            .await
            .unwrap();
        loop {
            let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            if let Message::Text(t) = m {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["type"] == "error" {
                    return (
                        v["code"].as_str().unwrap().to_string(),
                        v["message"].as_str().unwrap().to_string(),
                    );
                }
            }
        }
    })
}

#[test]
fn two_nodes_matching_at_once_never_seat_a_player_twice() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    const PLAYERS: usize = 200;
    let config = || Config {
        online: OnlineConfig {
            queue_tick_ms: 2,
            queue: QueueConfig {
                bot_fill_ms: 600_000,
                ..QueueConfig::default()
            },
            lobby_ms: 2_000,
            ..online()
        },
        public_url: None,
        ..Config::default()
    };
    // Two nodes (their own stores, so their own connections) and one more for the arrivals.
    let nodes: Vec<_> = ["http://node-a", "http://node-b"]
        .into_iter()
        .map(|url| {
            Shared::new(
                store::open(&schema.url).unwrap(),
                Config {
                    public_url: Some(url.into()),
                    ..config()
                },
            )
            .unwrap()
        })
        .collect();
    let arrivals = store::open(&schema.url).unwrap();
    let accounts: Vec<i64> = (0..PLAYERS)
        .map(|i| {
            match arrivals
                .login_device(&format!("key-{i}"), None, "p", "d", 0)
                .unwrap()
            {
                store::LoginOutcome::Created(d) => d.account_id,
                o => panic!("{o:?}"),
            }
        })
        .collect();
    let rules = short_rules("queue-test", 1);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let start = Arc::new(Barrier::new(3));
    // Each node's matcher runs in a loop while players arrive one by one.
    let matchers: Vec<_> = nodes
        .iter()
        .cloned()
        .map(|state| {
            let (rules, done, start) = (rules.clone(), done.clone(), start.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                    .unwrap();
                start.wait();
                let mut claims = Vec::new();
                rt.block_on(async {
                    loop {
                        let finished = done.load(std::sync::atomic::Ordering::SeqCst);
                        let got = tongcheng_server::play::shared::run_matcher(
                            &state.online,
                            &rules,
                            false,
                        )
                        .await
                        .unwrap();
                        claims.extend(got);
                        if finished {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    // The tables were opened on this node.
                    assert_eq!(state.online.lobby.tables(), claims.len());
                });
                claims
            })
        })
        .collect();
    start.wait();
    for (i, a) in accounts.iter().enumerate() {
        let entry = QueueEntry {
            account_id: *a,
            ticket: format!("t{i}"),
            rules: rules.name.clone(),
            ranked: false,
            rating: 25.0,
            devices: vec![i as i64 + 1],
            ip: None,
            since_ms: tongcheng_server::play::shared::now_ms(),
        };
        arrivals
            .queue_put(&entry, tongcheng_server::play::shared::now_ms())
            .unwrap();
        if i % 7 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    // Let the matchers empty the queue, then stop them.
    let until = Instant::now() + Duration::from_secs(30);
    while arrivals.queue_len(&rules.name, false).unwrap() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let per_node: Vec<Vec<store::QueueClaim>> =
        matchers.into_iter().map(|t| t.join().unwrap()).collect();
    // Both nodes seated tables, and every player was seated exactly once.
    assert!(
        per_node.iter().all(|c| !c.is_empty()),
        "one node seated nobody"
    );
    let mut seat_of: HashMap<i64, String> = HashMap::new();
    for claim in per_node.iter().flatten() {
        assert_eq!(claim.accounts.len(), 4);
        for a in &claim.accounts {
            assert!(
                seat_of.insert(*a, claim.table_id.clone()).is_none(),
                "account {a} seated twice"
            );
        }
    }
    assert_eq!(seat_of.len(), PLAYERS);
    let tables: HashSet<&String> = seat_of.values().collect();
    assert_eq!(tables.len(), PLAYERS / 4);
    // Each player's own request finds its one table, once.
    for (i, a) in accounts.iter().enumerate() {
        match arrivals.queue_poll(*a, &format!("t{i}"), 0).unwrap() {
            QueueState::Seated { table_id, .. } => assert_eq!(table_id, seat_of[a]),
            s => panic!("account {a}: {s:?}"),
        }
        assert_eq!(
            arrivals.queue_poll(*a, &format!("t{i}"), 0).unwrap(),
            QueueState::Gone
        );
    }
}
