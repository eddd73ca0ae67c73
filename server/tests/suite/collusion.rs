//! The collusion report end to end, in process: four accounts queue for ranked tables from
//! their own loopback addresses and play several short matches. Two are honest (they play
//! the Normal bot's choice); one pair colludes: the partner publishes his concealed hand out
//! of band (both clients are in this process), the feeder discards any tile that completes
//! it, and the partner always takes the win. The admin endpoint must flag that pair and no
//! other, and refuse anyone without the admin token.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tongcheng_client::{HttpApi, Identity, OnlineOptions, OnlineSession, OnlineUpdate};
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Action, DecisionKind, SeatView};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::shanten::shanten_number;
use tongcheng_core::tile::{Tile, TileCounts};
use tongcheng_server::Config;
use tongcheng_server::play::OnlineConfig;
use tongcheng_server::play::queue::QueueConfig;

use crate::support;
use support::online::{TestServer, short_rules};

const ADMIN_TOKEN: &str = "collusion-test-admin-token";
const RULES: &str = "collusion-e2e";
const MATCHES: usize = 8;
const HANDS_PER_MATCH: u8 = 8;

/// Short matches where any complete hand wins (many wins in few hands).
fn rules() -> RuleSet {
    let mut r = short_rules(RULES, HANDS_PER_MATCH);
    r.mcr.min_points = 0;
    r
}

fn start(admin_token: Option<&str>) -> TestServer {
    let online = OnlineConfig {
        rules: Some(rules()),
        contribute_ms: 1_000,
        ready_ms: 1_000,
        lobby_ms: 5_000,
        linger_ms: 300,
        queue: QueueConfig {
            // Everyone is always within the band: the same four meet every time.
            band: 1_000.0,
            widen_per_sec: 1.0,
            bot_fill_ms: 20_000,
        },
        queue_tick_ms: 20,
        ..OnlineConfig::default()
    };
    support::online::start_with(Config {
        online,
        admin_token: admin_token.map(str::to_string),
        ..Config::default()
    })
}

/// How a client plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Honest,
    /// Discards any tile that completes the partner's published hand.
    Feeder,
    /// Publishes his concealed hand after each discard; always wins when he may.
    Partner,
}

/// The partner's concealed hand after his last discard, by hand number, and his meld count.
type Published = Arc<Mutex<Option<(u32, Vec<Tile>, usize)>>>;

struct Player {
    token: String,
    account: i64,
    from: [u8; 4],
    role: Role,
}

fn login(url: &str, n: u8, role: Role) -> Player {
    let id = Identity::generate().unwrap();
    let r = HttpApi::new(url).unwrap().login(&id, "test", None).unwrap();
    Player {
        token: r.token,
        account: r.account.id,
        from: [127, 0, 0, n],
        role,
    }
}

/// Queues for a ranked table from the player's own address; the table's id.
fn queue(url: &str, p: &Player) -> String {
    let client = reqwest::blocking::Client::builder()
        .local_address(IpAddr::from(p.from))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let r = client
        .post(format!("{url}/v1/queue"))
        .bearer_auth(&p.token)
        .json(&json!({"ranked": true}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(
        (v["people"].as_u64(), v["ranked"].as_bool()),
        (Some(4), Some(true)),
        "{v}"
    );
    v["table"].as_str().unwrap().to_string()
}

fn own_melds(view: &SeatView) -> usize {
    view.seats
        .iter()
        .find(|s| s.seat == view.seat)
        .map_or(0, |s| s.melds.len())
}

/// A discard that completes the partner's published hand of this hand, if any.
fn feeding_discard(
    view: &SeatView,
    legal: &[Action],
    hand: u32,
    partner: &Published,
) -> Option<Action> {
    let (h, tiles, melds) = partner.lock().unwrap().clone()?;
    if h != hand {
        return None;
    }
    let counts = TileCounts::from_tiles(&tiles);
    legal.iter().copied().find(|a| match a {
        Action::Discard(t) => {
            let mut with = counts;
            with.add(*t);
            view.decision.is_some() && shanten_number(&with, melds) == -1
        }
        _ => false,
    })
}

/// Plays one match out in `role`; the number of hands played.
fn play(session: OnlineSession, role: Role, partner: Published, seed: u64) -> u32 {
    let mut bot = LevelBot::new(Level::Normal, seed);
    let mut hands = 0;
    let until = Instant::now() + Duration::from_secs(40);
    while Instant::now() < until {
        match session.next_update(Duration::from_millis(200)) {
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let Some(view) = session.table() else {
                    continue;
                };
                let hand = session.hand();
                let mut action = bot.choose(&view);
                match role {
                    Role::Honest => {}
                    Role::Partner => {
                        if decision.legal.contains(&Action::Win) {
                            action = Action::Win;
                        }
                    }
                    Role::Feeder => {
                        if decision.kind == DecisionKind::Turn
                            && let Some(a) = feeding_discard(&view, &decision.legal, hand, &partner)
                        {
                            action = a;
                        }
                    }
                }
                if !decision.legal.contains(&action) {
                    action = decision.on_timeout;
                }
                if role == Role::Partner
                    && let Action::Discard(t) = action
                {
                    let mut tiles = view.hand.clone();
                    tiles.extend(view.drawn);
                    if let Some(i) = tiles.iter().position(|&x| x == t) {
                        tiles.remove(i);
                    }
                    *partner.lock().unwrap() = Some((hand, tiles, own_melds(&view)));
                }
                let _ = session.act(action);
            }
            Some(OnlineUpdate::HandEnd { .. }) => hands += 1,
            Some(OnlineUpdate::MatchEnd { .. }) => break,
            _ => {}
        }
    }
    assert!(session.is_over(), "{role:?}: the match did not finish");
    hands
}

fn admin_get(url: &str, query: &str, token: Option<&str>) -> (u16, Value) {
    let mut r = reqwest::blocking::Client::new().get(format!("{url}/v1/admin/collusion{query}"));
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let r = r.send().unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

#[test]
fn the_report_flags_a_feeding_pair_and_not_honest_players() {
    let server = start(Some(ADMIN_TOKEN));
    let url = server.url.clone();
    let players = [
        login(&url, 1, Role::Feeder),
        login(&url, 2, Role::Partner),
        login(&url, 3, Role::Honest),
        login(&url, 4, Role::Honest),
    ];
    let (feeder, partner) = (players[0].account, players[1].account);
    let mut played = 0;
    for m in 0..MATCHES {
        let tables: Vec<String> = std::thread::scope(|s| {
            let queued: Vec<_> = players.iter().map(|p| s.spawn(|| queue(&url, p))).collect();
            queued.into_iter().map(|q| q.join().unwrap()).collect()
        });
        assert!(tables.iter().all(|t| *t == tables[0]), "{tables:?}");
        let published: Published = Arc::default();
        let sessions: Vec<(OnlineSession, Role)> = players
            .iter()
            .map(|p| {
                let options = OnlineOptions {
                    table: Some(tables[0].clone()),
                    people: None,
                    rules: None,
                    capture_frames: false,
                };
                (
                    OnlineSession::connect(&url, &p.token, options).unwrap(),
                    p.role,
                )
            })
            .collect();
        let hands: Vec<u32> = std::thread::scope(|s| {
            let threads: Vec<_> = sessions
                .into_iter()
                .enumerate()
                .map(|(i, (session, role))| {
                    let published = published.clone();
                    s.spawn(move || play(session, role, published, (m * 4 + i) as u64))
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        played += hands[0];
    }
    assert!(
        played >= (MATCHES * usize::from(HANDS_PER_MATCH)) as u32,
        "{played}"
    );

    // Without the token, or with a wrong one: refused, and nothing about the players.
    let (status, body) = admin_get(&url, &format!("?rules={RULES}"), None);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    let (status, _) = admin_get(&url, &format!("?rules={RULES}"), Some("not-the-token"));
    assert_eq!(status, 401);
    let (status, _) = admin_get(&url, &format!("?rules={RULES}"), Some(&players[0].token));
    assert_eq!(status, 401, "a player's session is no admin token");
    // Hands from the future: none.
    let later = tongcheng_server::now() + 3600;
    let (status, body) = admin_get(
        &url,
        &format!("?rules={RULES}&since={later}"),
        Some(ADMIN_TOKEN),
    );
    assert_eq!((status, body["hands"].as_u64()), (200, Some(0)), "{body}");
    let (status, body) = admin_get(&url, "?min_hands=3", Some(ADMIN_TOKEN));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("bad_query"))
    );

    // The hands are kept just after each hand ends: wait for the last ones.
    let query = format!("?rules={RULES}&min_hands=10");
    let until = Instant::now() + Duration::from_secs(5);
    let mut report = Value::Null;
    while Instant::now() < until {
        let (status, body) = admin_get(&url, &query, Some(ADMIN_TOKEN));
        assert_eq!(status, 200, "{body}");
        report = body;
        if report["hands"].as_u64() == Some(u64::from(played)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        report["hands"].as_u64(),
        Some(u64::from(played)),
        "{report}"
    );
    assert_eq!(report["unreadable"], 0);
    let pairs = report["pairs"].as_array().unwrap();
    // Four people always together: twelve ordered pairs, and no bot among them.
    assert_eq!(pairs.len(), 12, "{report}");
    let accounts: Vec<i64> = players.iter().map(|p| p.account).collect();
    let mut seen: HashMap<(i64, i64), &Value> = HashMap::new();
    for p in pairs {
        let pair = (
            p["account"].as_i64().unwrap(),
            p["partner"].as_i64().unwrap(),
        );
        assert!(
            accounts.contains(&pair.0) && accounts.contains(&pair.1),
            "{p}"
        );
        assert_eq!(p["hands"].as_u64(), Some(u64::from(played)));
        seen.insert(pair, p);
    }
    let flagged: Vec<(i64, i64)> = pairs
        .iter()
        .filter(|p| !p["flagged_by"].as_array().unwrap().is_empty())
        .map(|p| {
            (
                p["account"].as_i64().unwrap(),
                p["partner"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(flagged, [(feeder, partner)], "{report:#}");
    let colluders = seen[&(feeder, partner)];
    assert!(
        colluders["flagged_by"]
            .as_array()
            .unwrap()
            .contains(&json!("feeds")),
        "{colluders}"
    );
    assert!(
        colluders["feeds"]["observed"].as_f64().unwrap()
            > 2.0 * colluders["feeds"]["expected"].as_f64().unwrap(),
        "{colluders}"
    );
    // The other pairs' highest z-score, for the log: (z, measure, account, partner).
    let role = |a: i64| players.iter().find(|p| p.account == a).map(|p| p.role);
    let honest_top = pairs
        .iter()
        .filter(|p| p["account"].as_i64() != Some(feeder) || p["partner"].as_i64() != Some(partner))
        .flat_map(|p| {
            ["feeds", "passed_claims", "wins_on_discards"].map(|m| {
                let (a, b) = (
                    p["account"].as_i64().unwrap(),
                    p["partner"].as_i64().unwrap(),
                );
                (p[m]["z"].as_f64().unwrap(), m, role(a), role(b))
            })
        })
        .max_by(|x, y| x.0.total_cmp(&y.0));
    eprintln!(
        "{played} hands; feeder→partner: {}; the other pairs' highest z: {honest_top:?}",
        serde_json::to_string(colluders).unwrap()
    );
}

#[test]
fn without_an_admin_token_the_report_is_refused() {
    let server = start(None);
    let (status, body) = admin_get(&server.url, "?rules=guobiao", Some("anything"));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("admin_disabled"))
    );
    let server = start(Some(ADMIN_TOKEN));
    let (status, body) = admin_get(&server.url, "?rules=guobiao", Some(ADMIN_TOKEN));
    assert_eq!(status, 200);
    assert_eq!(
        (
            body["hands"].as_u64(),
            body["pairs"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
}
