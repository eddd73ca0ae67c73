//! Cheating caught and punished, end to end over HTTP and the table's WebSocket, on SQLite
//! and on PostgreSQL: four accounts play ranked matches (one relays the hard bot's choice
//! after a delay that does not depend on the decision, three play the normal bot's); the
//! assist report flags the relay alone, a scan files it in the review queue beside a
//! player's report, an operator decides it, warns, suspends (login, queue, rooms and table
//! refused with the reason and the end), lifts, lets a suspension run out, and bans the relay
//! with his matches voided: every opponent's rating is what it was before those matches.
//! Every step is in the audit trail.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tongcheng_client::{HttpApi, Identity, OnlineOptions, OnlineSession, OnlineUpdate};
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::rules::RuleSet;
use tongcheng_server::Config;
use tongcheng_server::play::OnlineConfig;
use tongcheng_server::play::queue::QueueConfig;
use tongcheng_server::store::Store;
use tongcheng_server::store::sqlite::SqliteStore;

use crate::support;
use support::PgSchema;
use support::online::{TestServer, short_rules, start_on};

pub(crate) const ADMIN: &str = "sanctions-test-admin-token";
const RULES: &str = "sanctions-e2e";
const HANDS: u8 = 4;

fn rules() -> RuleSet {
    short_rules(RULES, HANDS)
}

pub(crate) fn start(store: Arc<dyn Store>) -> TestServer {
    let online = OnlineConfig {
        rules: Some(rules()),
        contribute_ms: 1_000,
        ready_ms: 500,
        lobby_ms: 5_000,
        linger_ms: 300,
        queue: QueueConfig {
            band: 1_000.0,
            widen_per_sec: 1.0,
            bot_fill_ms: 20_000,
        },
        queue_tick_ms: 20,
        ..OnlineConfig::default()
    };
    start_on(
        store,
        Config {
            online,
            admin_token: Some(ADMIN.into()),
            ..Config::default()
        },
    )
}

pub(crate) struct Player {
    id: Identity,
    pub(crate) token: String,
    pub(crate) account: i64,
    device: i64,
    from: [u8; 4],
    relay: bool,
}

pub(crate) fn login(url: &str, n: u8, relay: bool) -> Player {
    let id = Identity::generate().unwrap();
    let r = HttpApi::new(url).unwrap().login(&id, "test", None).unwrap();
    Player {
        id,
        token: r.token,
        account: r.account.id,
        device: r.device_id,
        from: [127, 0, 0, n],
        relay,
    }
}

fn client(from: [u8; 4]) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .local_address(IpAddr::from(from))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

fn answer(r: reqwest::blocking::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let text = r.text().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

pub(crate) fn admin(url: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let c = reqwest::blocking::Client::new();
    let mut r = match method {
        "GET" => c.get(format!("{url}{path}")),
        "POST" => c.post(format!("{url}{path}")),
        _ => c.delete(format!("{url}{path}")),
    }
    .bearer_auth(ADMIN);
    if let Some(b) = body {
        r = r.json(&b);
    }
    answer(r.send().unwrap())
}

fn queue(url: &str, p: &Player) -> (u16, Value) {
    answer(
        client(p.from)
            .post(format!("{url}/v1/queue"))
            .bearer_auth(&p.token)
            .json(&json!({"ranked": true}))
            .send()
            .unwrap(),
    )
}

/// Logs in again with the player's key: the status and body.
fn relogin(url: &str, p: &Player) -> (u16, Value) {
    match HttpApi::new(url).unwrap().login(&p.id, "test", None) {
        Ok(_) => (200, Value::Null),
        Err(tongcheng_client::ClientError::Server { status, code, .. }) => {
            (status, json!({"error": {"code": code}}))
        }
        Err(e) => panic!("{e:?}"),
    }
}

/// Plays one match out: the relay answers with the hard bot's choice after 5–25 ms, the
/// others with the normal bot's at once.
fn play(session: OnlineSession, relay: bool, seed: u64) {
    let mut bot = LevelBot::new(if relay { Level::Hard } else { Level::Normal }, seed);
    let mut n = seed;
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        match session.next_update(Duration::from_millis(200)) {
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let Some(view) = session.table() else {
                    continue;
                };
                let mut action = bot.choose(&view);
                if !decision.legal.contains(&action) {
                    action = decision.on_timeout;
                }
                if relay {
                    n = n.wrapping_mul(6364136223846793005).wrapping_add(1);
                    std::thread::sleep(Duration::from_millis(5 + (n >> 33) % 21));
                }
                let _ = session.act(action);
            }
            Some(OnlineUpdate::MatchEnd { .. }) => break,
            _ => {}
        }
    }
    assert!(session.is_over(), "the match did not finish");
}

fn play_match(url: &str, players: &[Player], m: usize) {
    let tables: Vec<String> = std::thread::scope(|s| {
        let q: Vec<_> = players.iter().map(|p| s.spawn(|| queue(url, p))).collect();
        q.into_iter()
            .map(|h| {
                let (status, v) = h.join().unwrap();
                assert_eq!(status, 200, "{v}");
                v["table"].as_str().unwrap().to_string()
            })
            .collect()
    });
    assert!(tables.iter().all(|t| *t == tables[0]), "{tables:?}");
    std::thread::scope(|s| {
        for (i, p) in players.iter().enumerate() {
            let options = OnlineOptions {
                table: Some(tables[0].clone()),
                people: None,
                rules: None,
                capture_frames: false,
            };
            let session = OnlineSession::connect(url, &p.token, options).unwrap();
            s.spawn(move || play(session, p.relay, (m * 4 + i) as u64 + 1));
        }
    });
}

/// The player's rating in the test's rule set, once its `games` reach `games`.
fn rating(url: &str, p: &Player, games: i64) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = answer(
            client(p.from)
                .get(format!("{url}/v1/ratings"))
                .bearer_auth(&p.token)
                .send()
                .unwrap(),
        );
        assert_eq!(status, 200, "{v}");
        let r = v["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rules"] == RULES)
            .cloned();
        if let Some(r) = r.filter(|r| r["games"] == games) {
            return r;
        }
        assert!(Instant::now() < until, "no rating after {games} games: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn scenario(store: Arc<dyn Store>) {
    let server = start(store);
    let url = server.url.clone();
    let players = [
        login(&url, 1, true),
        login(&url, 2, false),
        login(&url, 3, false),
        login(&url, 4, false),
    ];
    let (relay, p1, p2, p3) = (&players[0], &players[1], &players[2], &players[3]);
    play_match(&url, &players, 0);
    let after_first: Vec<Value> = players.iter().map(|p| rating(&url, p, 1)).collect();
    // The second match finishes in a later second than the first: the ban voids from here.
    std::thread::sleep(Duration::from_millis(1_100));
    let void_from = tongcheng_server::now();
    play_match(&url, &players, 1);
    for p in &players {
        rating(&url, p, 2);
    }

    // The assist report: the relay alone is far outside (four accounts: measured against
    // the honest population's reference).
    let until = Instant::now() + Duration::from_secs(5);
    let report = loop {
        let (status, r) = admin(
            &url,
            "GET",
            &format!("/v1/admin/assist?rules={RULES}&min_decisions=20"),
            None,
        );
        assert_eq!(status, 200, "{r}");
        if r["hands"] == 2 * u64::from(HANDS) || Instant::now() > until {
            break r;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(report["hands"], 2 * u64::from(HANDS), "{report:#}");
    let flagged: Vec<i64> = report["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| !a["flagged_by"].as_array().unwrap().is_empty())
        .map(|a| a["account"].as_i64().unwrap())
        .collect();
    assert_eq!(flagged, [relay.account], "{report:#}");
    let figures = &report["accounts"][0];
    assert!(
        figures["top_choice"]["value"].as_f64().unwrap() > 0.95,
        "{figures}"
    );
    eprintln!("the relay's figures: {figures}");
    let hand = figures["hands_sample"][0].as_str().unwrap().to_string();

    // A scan files the flag; a second finds it already open.
    let scan = json!({"rules": RULES, "min_decisions": 20});
    let (status, s) = admin(&url, "POST", "/v1/admin/reviews/scan", Some(scan.clone()));
    assert_eq!(
        (status, &s["assist_flags"], &s["filed"]),
        (200, &json!(1), &json!(1)),
        "{s}"
    );
    let (_, s) = admin(&url, "POST", "/v1/admin/reviews/scan", Some(scan));
    assert_eq!(s["filed"], 0, "{s}");

    // A player's report of an opponent, with the hand.
    let report_by = |p: &Player, body: Value| {
        answer(
            client(p.from)
                .post(format!("{url}/v1/reports"))
                .bearer_auth(&p.token)
                .json(&body)
                .send()
                .unwrap(),
        )
    };
    let body = json!({"account": relay.account, "record_id": hand, "reason": "他每一步都太准了"});
    let (status, first) = report_by(p1, body.clone());
    assert_eq!(status, 200, "{first}");
    let (_, again) = report_by(p1, body);
    assert_eq!(first, again, "the same hand reported twice is one review");
    for (bad, code) in [
        (
            json!({"account": relay.account, "record_id": "ab", "reason": "x"}),
            400,
        ),
        (
            json!({"account": p1.account, "record_id": hand, "reason": "x"}),
            400,
        ),
        (
            json!({"account": relay.account, "record_id": hand, "reason": " "}),
            400,
        ),
        (
            json!({"account": relay.account, "record_id": "0".repeat(64), "reason": "x"}),
            404,
        ),
    ] {
        assert_eq!(report_by(p1, bad.clone()).0, code, "{bad}");
    }

    // The review queue: the flag and the report, with their evidence.
    let (status, q) = admin(&url, "GET", "/v1/admin/reviews", None);
    assert_eq!(status, 200, "{q}");
    let reviews = q["reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 2, "{q:#}");
    let assist = reviews.iter().find(|r| r["kind"] == "assist").unwrap();
    assert_eq!(assist["account"], relay.account);
    assert!(
        assist["evidence"]["assist"]["top_choice"]["z"]
            .as_f64()
            .unwrap()
            >= 3.0
    );
    let reported = reviews.iter().find(|r| r["kind"] == "report").unwrap();
    assert_eq!(reported["evidence"]["report"]["reporter"], p1.account);
    assert_eq!(reported["evidence"]["hands"][0], hand);
    let (status, h) = admin(&url, "GET", &format!("/v1/admin/hands/{hand}"), None);
    assert_eq!((status, &h["record"]["id"]), (200, &json!(hand)), "{h}");
    assert!(
        h["accounts"]
            .as_array()
            .unwrap()
            .contains(&json!(relay.account))
    );
    let decide = format!("/v1/admin/reviews/{}", assist["id"]);
    let decision = json!({"decision": "actioned", "note": "banned below", "by": "ops-li"});
    let (status, d) = admin(&url, "POST", &decide, Some(decision.clone()));
    assert_eq!(
        (status, &d["status"], &d["decided_by"]),
        (200, &json!("actioned"), &json!("ops-li"))
    );
    assert_eq!(admin(&url, "POST", &decide, Some(decision)).0, 409);
    let (_, q) = admin(&url, "GET", "/v1/admin/reviews?status=actioned", None);
    assert_eq!(q["reviews"].as_array().unwrap().len(), 1, "{q}");

    // Bad sanctions change nothing.
    let now = tongcheng_server::now();
    for (bad, code) in [
        (
            json!({"account": p1.account, "device": p1.device, "kind": "warn", "reason": "x"}),
            400,
        ),
        (json!({"kind": "warn", "reason": "x"}), 400),
        (
            json!({"account": p1.account, "kind": "suspend", "reason": "x"}),
            400,
        ),
        (
            json!({"account": p1.account, "kind": "suspend", "until": now - 1, "reason": "x"}),
            400,
        ),
        (
            json!({"account": p1.account, "kind": "warn", "until": now + 60, "reason": "x"}),
            400,
        ),
        (
            json!({"account": p1.account, "kind": "suspend", "until": now + 60, "reason": "x", "void_from": 0}),
            400,
        ),
        (
            json!({"account": p1.account, "kind": "ban", "reason": ""}),
            400,
        ),
        (
            json!({"account": 987_654, "kind": "ban", "reason": "x"}),
            404,
        ),
        (
            json!({"account": p1.account, "kind": "jail", "reason": "x"}),
            400,
        ),
    ] {
        let (status, e) = admin(&url, "POST", "/v1/admin/sanctions", Some(bad.clone()));
        assert_eq!(status, code, "{bad} {e}");
    }
    let unauthorized = reqwest::blocking::Client::new()
        .post(format!("{url}/v1/admin/sanctions"))
        .bearer_auth(&p1.token)
        .json(&json!({"account": p1.account, "kind": "ban", "reason": "x"}))
        .send()
        .unwrap();
    assert_eq!(unauthorized.status().as_u16(), 401);
    let (_, list) = admin(
        &url,
        "GET",
        &format!("/v1/admin/sanctions?account={}", p1.account),
        None,
    );
    assert_eq!(list["sanctions"], json!([]), "nothing was imposed");

    // A warning blocks nothing.
    let warn = json!({"account": p2.account, "kind": "warn", "reason": "slow play"});
    let (status, w) = admin(&url, "POST", "/v1/admin/sanctions", Some(warn));
    assert_eq!(
        (status, &w["sanction"]["active"]),
        (200, &json!(true)),
        "{w}"
    );
    assert_eq!(relogin(&url, p2).0, 200);

    // A suspension: login, queue, rooms and the table are refused with why and until when.
    let until = tongcheng_server::now() + 3_600;
    let suspend = json!({"account": p1.account, "kind": "suspend", "until": until,
                         "reason": "abusive chat", "by": "ops-wang"});
    let (status, s) = admin(&url, "POST", "/v1/admin/sanctions", Some(suspend));
    assert_eq!(status, 200, "{s}");
    let suspension = s["sanction"]["id"].as_i64().unwrap();
    let refused = |(status, body): (u16, Value)| {
        assert_eq!(status, 403, "{body}");
        assert_eq!(body["error"]["code"], "account_suspended", "{body}");
        assert_eq!(body["error"]["until"], until, "{body}");
        assert_eq!(body["error"]["reason"], "abusive chat", "{body}");
    };
    let (status, body) = relogin(&url, p1);
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("account_suspended"))
    );
    refused(queue(&url, p1));
    let rooms = client(p1.from)
        .post(format!("{url}/v1/rooms"))
        .bearer_auth(&p1.token)
        .json(&json!({"people": 2}))
        .send()
        .unwrap();
    refused(answer(rooms));
    let join = OnlineSession::connect(
        &url,
        &p1.token,
        OnlineOptions {
            table: Some("any-table".into()),
            people: Some(1),
            rules: None,
            capture_frames: false,
        },
    );
    let Err(e) = join else {
        panic!("a suspended player sits at no table");
    };
    assert!(format!("{e:?}").contains("account_suspended"), "{e:?}");
    // Lifted (audited): he plays again; lifting twice is a conflict.
    let lift = format!("/v1/admin/sanctions/{suspension}?by=ops-wang&reason=appeal%20upheld");
    let (status, l) = admin(&url, "DELETE", &lift, None);
    assert_eq!((status, &l["active"]), (200, &json!(false)), "{l}");
    assert_eq!(admin(&url, "DELETE", &lift, None).0, 409);
    assert_eq!(
        admin(&url, "DELETE", "/v1/admin/sanctions/987654", None).0,
        404
    );
    assert_eq!(relogin(&url, p1).0, 200);

    // A suspension runs out by itself.
    let short = json!({"account": p3.account, "kind": "suspend",
                       "until": tongcheng_server::now() + 2, "reason": "cooling off"});
    assert_eq!(
        admin(&url, "POST", "/v1/admin/sanctions", Some(short)).0,
        200
    );
    assert_eq!(relogin(&url, p3).0, 403);
    std::thread::sleep(Duration::from_millis(2_600));
    assert_eq!(relogin(&url, p3).0, 200);

    // A device key: that key is refused, the account's other keys are not.
    let device = json!({"device": p2.device, "kind": "ban", "reason": "shared with a cheat"});
    let (status, d) = admin(&url, "POST", "/v1/admin/sanctions", Some(device));
    assert_eq!(
        (status, &d["sanction"]["account"]),
        (200, &json!(p2.account)),
        "{d}"
    );
    let (status, body) = relogin(&url, p2);
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("account_banned"))
    );

    // The ban, voiding the relay's second match: every opponent's rating is what it was
    // after the first.
    let ban = json!({"account": relay.account, "kind": "ban", "reason": "engine assistance",
                     "void_from": void_from, "by": "ops-li"});
    let (status, b) = admin(&url, "POST", "/v1/admin/sanctions", Some(ban));
    assert_eq!(status, 200, "{b}");
    assert_eq!(
        (&b["voided_matches"], &b["ratings_recomputed"]),
        (&json!(1), &json!(4)),
        "{b}"
    );
    for (p, before) in [p1, p3].into_iter().zip([&after_first[1], &after_first[3]]) {
        let now = rating(&url, p, 1);
        for f in ["mu", "sigma", "games"] {
            assert_eq!(now[f], before[f], "{f}: {now} against {before}");
        }
    }
    let (status, body) = relogin(&url, relay);
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("account_banned"))
    );
    let (status, body) = queue(&url, relay);
    assert_eq!(
        (status, &body["error"]["reason"]),
        (403, &json!("engine assistance"))
    );
    assert!(
        body["error"].get("until").is_none(),
        "a ban has no end: {body}"
    );

    // The audit trail: who did what, when, why, in order.
    let (status, a) = admin(&url, "GET", "/v1/admin/audit", None);
    assert_eq!(status, 200, "{a}");
    let actions: Vec<(&str, &str)> = a["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [
            ("file", "scan"),
            ("file", &*format!("account {}", p1.account)),
            ("review", "ops-li"),
            ("sanction", "admin"),
            ("sanction", "ops-wang"),
            ("lift", "ops-wang"),
            ("sanction", "admin"),
            ("sanction", "admin"),
            ("sanction", "ops-li"),
            ("void", "ops-li"),
        ],
        "{a:#}"
    );
    let (_, mine) = admin(
        &url,
        "GET",
        &format!("/v1/admin/audit?account={}", p1.account),
        None,
    );
    assert_eq!(mine["entries"].as_array().unwrap().len(), 2, "{mine}");
    let (_, list) = admin(
        &url,
        "GET",
        &format!("/v1/admin/sanctions?account={}", p1.account),
        None,
    );
    assert_eq!(list["sanctions"][0]["lifted_by"], "ops-wang", "{list}");
}

#[test]
fn sanctions_end_to_end_on_sqlite() {
    scenario(Arc::new(SqliteStore::open_in_memory().unwrap()));
}

#[test]
fn sanctions_end_to_end_on_postgres() {
    let Some(schema) = PgSchema::create() else {
        return;
    };
    let store = tongcheng_server::store::open(&schema.url).unwrap();
    scenario(store);
}
