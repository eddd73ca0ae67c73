//! An in-process server for the online tests (tables, queue, rooms): real HTTP and WebSocket
//! on 127.0.0.1:0, in-memory SQLite, login limits opened up so tests can make many accounts.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tongcheng_client::{HttpApi, Identity, OnlineOptions, OnlineSession, OnlineUpdate};
use tongcheng_core::game::{Action, Decision};
use tongcheng_core::rules::RuleSet;
use tongcheng_server::play::OnlineConfig;
use tongcheng_server::ratelimit::Limit;
use tongcheng_server::store::Store;
use tongcheng_server::store::sqlite::SqliteStore;
use tongcheng_server::{Config, Shared};

use super::contract::{Contract, spawn_checked};

/// A server on its own runtime thread, every exchange checked against its OpenAPI document
/// (a disagreement fails the test when the server is dropped).
pub struct TestServer {
    pub url: String,
    pub contract: Arc<Contract>,
    _rt: tokio::runtime::Runtime,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.contract.assert_kept();
        }
    }
}

/// One round of `hands` hands with 1 s limits: a short match.
pub fn short_rules(name: &str, hands: u8) -> RuleSet {
    let mut r = RuleSet {
        name: name.into(),
        rounds: 1,
        hands_per_round: hands,
        ..RuleSet::default()
    };
    r.time.first_discard_secs = 1;
    r.time.discard_secs = 1;
    r.time.claim_secs = 1;
    r
}

pub fn start(online: OnlineConfig) -> TestServer {
    start_with(Config {
        online,
        ..Config::default()
    })
}

/// [`start`] with a whole configuration (the login limits are opened up all the same).
pub fn start_with(config: Config) -> TestServer {
    start_on(Arc::new(SqliteStore::open_in_memory().unwrap()), config)
}

/// A server over `store` (several in one test may share one PostgreSQL schema: nodes),
/// playing at machine speed (no pause after each discard).
pub fn start_on(store: Arc<dyn Store>, mut config: Config) -> TestServer {
    config.online.claim_pause_ms = 0;
    config.online.claim_jitter_ms = 0;
    start_paced(store, config)
}

/// [`start_on`] with the configuration's pause after each discard kept.
pub fn start_paced(store: Arc<dyn Store>, mut config: Config) -> TestServer {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let many = Limit {
        burst: 1000.0,
        per_sec: 1000.0,
    };
    config.limits.challenge_per_ip = many;
    config.limits.login_per_ip = many;
    config.limits.login_per_key = many;
    let state = Shared::new(store, config).unwrap();
    let (url, contract) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        (url, spawn_checked(listener, state))
    });
    TestServer {
        url,
        contract,
        _rt: rt,
    }
}

/// A new account's session token, and its device key.
pub fn login(url: &str) -> (String, Identity) {
    let id = Identity::generate().unwrap();
    let mut api = HttpApi::new(url).unwrap();
    let r = api.login(&id, "test", None).unwrap();
    (r.token, id)
}

/// Sits down at `table` (a table the queue or a room made).
pub fn connect(url: &str, token: &str, table: &str) -> Result<OnlineSession, String> {
    OnlineSession::connect(
        url,
        token,
        OnlineOptions {
            table: Some(table.into()),
            people: None,
            rules: None,
            capture_frames: false,
        },
    )
    .map_err(|e| format!("{e} {e:?}"))
}

/// A decision's answer at once: a win when it may, else its timeout action.
pub fn quick(decision: &Decision) -> Action {
    if decision.legal.contains(&Action::Win) {
        Action::Win
    } else {
        decision.on_timeout
    }
}

/// Plays the match out, answering at once; the final scores.
pub fn play(session: OnlineSession) -> [i32; 4] {
    let until = Instant::now() + Duration::from_secs(40);
    while Instant::now() < until {
        match session.next_update(Duration::from_millis(200)) {
            Some(OnlineUpdate::Decision { decision, .. }) => {
                let a = quick(&decision);
                let _ = session.act(a);
            }
            Some(OnlineUpdate::MatchEnd { .. }) => break,
            _ => {}
        }
    }
    assert!(session.is_over(), "the match did not finish");
    session.scores()
}

/// A POST from the loopback address 127.0.0.`from` (the ranked queue's same-IP rule and the
/// rooms' warning tell players apart by address): status and JSON body.
pub fn post_from(
    url: &str,
    token: &str,
    from: u8,
    path: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let r = reqwest::blocking::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, from]))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
        .post(format!("{url}{path}"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap())
}
