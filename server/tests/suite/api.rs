//! The HTTP API in process: a real listener on 127.0.0.1:0 over an in-memory SQLite store.

use crate::support;

use std::collections::BTreeSet;
use std::sync::Arc;

use reqwest::Method;
use serde_json::{Value, json};
use support::contract::{Contract, spawn_checked};
use support::{Device, forge_payment, forge_rules, forge_tile, hands};
use tongcheng_core::rules::RuleSet;
use tongcheng_server::ratelimit::Limit;
use tongcheng_server::store::sqlite::SqliteStore;
use tongcheng_server::{Config, Shared};

/// A server in process; every exchange with it is checked against its OpenAPI document, and a
/// disagreement fails the test when it is dropped.
struct Srv {
    base: String,
    http: reqwest::Client,
    contract: Arc<Contract>,
}

impl Drop for Srv {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.contract.assert_kept();
        }
    }
}

struct Resp {
    status: u16,
    body: Value,
    headers: reqwest::header::HeaderMap,
}

/// The admin token of every server here but those that test its absence.
const ADMIN: &str = "admin-secret";

async fn start(mut config: Config) -> Srv {
    config.admin_token.get_or_insert_with(|| ADMIN.into());
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let state = Shared::new(store, config).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let contract = spawn_checked(listener, state.clone());
    Srv {
        base,
        http: reqwest::Client::new(),
        contract,
    }
}

impl Srv {
    async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Resp {
            status,
            body,
            headers,
        }
    }

    async fn challenge(&self) -> String {
        let r = self
            .call(Method::POST, "/v1/auth/challenge", None, None)
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["nonce"].as_str().unwrap().to_string()
    }

    async fn login(&self, dev: &mut Device, link: Option<&str>) -> Resp {
        let nonce = self.challenge().await;
        let r = self
            .call(
                Method::POST,
                "/v1/auth/login",
                None,
                Some(dev.login_body(&nonce, link)),
            )
            .await;
        if r.status == 200 {
            dev.token = r.body["token"].as_str().unwrap().to_string();
            dev.account = r.body["account"]["id"].as_i64().unwrap();
            dev.device_id = r.body["device_id"].as_i64().unwrap();
        }
        r
    }

    async fn upload(&self, dev: &Device, records: Vec<Value>) -> Resp {
        let items: Vec<Value> = records
            .into_iter()
            .map(|r| json!({"record": r, "seat": 0, "played_at": 1_700_000_000}))
            .collect();
        self.call(
            Method::POST,
            "/v1/sync/upload",
            Some(&dev.token),
            Some(json!({"records": items})),
        )
        .await
    }
}

fn code(r: &Resp) -> &str {
    r.body["error"]["code"].as_str().unwrap_or("")
}

/// Every (method, path) of an OpenAPI document.
fn operations(doc: &Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            ops.insert((method.clone(), path.clone()));
        }
    }
    ops
}

#[tokio::test]
async fn the_router_routes_exactly_the_contracts_endpoints() {
    let srv = start(Config {
        admin_token: Some(ADMIN.into()),
        ..Config::default()
    })
    .await;
    let served = srv.call(Method::GET, "/v1/openapi.json", None, None).await;
    assert_eq!(served.status, 200);
    let contract = serde_json::to_value(tongcheng_api::openapi::document()).unwrap();
    assert_eq!(
        operations(&served.body),
        operations(&contract),
        "the router routes other endpoints than the contract has"
    );
    assert_eq!(
        served.body, contract,
        "the served document is not the contract's"
    );
    // The router itself: every documented operation is routed (the fallback answers `no
    // such route` and 405 otherwise), every other method on its path is not, and an
    // operation the document secures refuses a request without a token.
    let methods = ["get", "post", "delete", "put", "patch"];
    let ops = operations(&served.body);
    let paths: BTreeSet<&String> = ops.iter().map(|(_, p)| p).collect();
    // Every path is asked with every method (some paths carry several operations).
    let probes = paths.len() * methods.len();
    for path in paths {
        let concrete = path.replace("{id}", "1").replace("{code}", "000000");
        for m in methods {
            let verb = Method::from_bytes(m.to_uppercase().as_bytes()).unwrap();
            let r = srv.call(verb, &concrete, None, None).await;
            let routed = r.status != 405 && r.body["error"]["message"] != "no such route";
            let documented = ops.contains(&(m.to_string(), path.clone()));
            assert_eq!(routed, documented, "{m} {path}: {} {}", r.status, r.body);
            if documented {
                let secured = served.body["paths"][path][m]["security"].is_array();
                assert_eq!(
                    r.status == 401,
                    secured,
                    "{m} {path}: {} {}",
                    r.status,
                    r.body
                );
            }
        }
    }
    let h = srv.call(Method::GET, "/healthz", None, None).await;
    assert_eq!(h.body, json!({"status": "ok", "store": "sqlite"}));
    let missing = srv.call(Method::GET, "/v1/nothing", None, None).await;
    assert_eq!((missing.status, code(&missing)), (404, "not_found"));
    let wrong = srv.call(Method::DELETE, "/healthz", None, None).await;
    assert_eq!((wrong.status, code(&wrong)), (405, "method_not_allowed"));
    assert!(srv.contract.exchanges() > probes);
}

#[tokio::test]
async fn login_makes_an_account_once_and_challenges_are_single_use() {
    let srv = start(Config::default()).await;
    let mut a = Device::new();
    let r = srv.login(&mut a, None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["created_account"], true);
    assert!(
        r.body["account"]["display_name"]
            .as_str()
            .unwrap()
            .starts_with("Player-")
    );
    assert_eq!(r.body["token"].as_str().unwrap().len(), 64);
    let first = (a.account, a.device_id);
    let again = srv.login(&mut a, None).await;
    assert_eq!(again.body["created_account"], false);
    assert_eq!(
        (a.account, a.device_id),
        first,
        "the same key is the same device"
    );

    // A nonce is used up by a login, even a successful one.
    let nonce = srv.challenge().await;
    let body = a.login_body(&nonce, None);
    assert_eq!(
        srv.call(Method::POST, "/v1/auth/login", None, Some(body.clone()))
            .await
            .status,
        200
    );
    let replay = srv
        .call(Method::POST, "/v1/auth/login", None, Some(body))
        .await;
    assert_eq!((replay.status, code(&replay)), (401, "unauthorized"));

    // A signature by another key, or over another nonce, does not verify.
    let nonce = srv.challenge().await;
    let mut body = a.login_body(&nonce, None);
    body["public_key"] = json!(Device::new().public_hex());
    let r = srv
        .call(Method::POST, "/v1/auth/login", None, Some(body))
        .await;
    assert_eq!(r.status, 401);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("signature")
    );
    let other = srv.challenge().await;
    let mut body = a.login_body(&nonce, None);
    body["nonce"] = json!(other);
    assert_eq!(
        srv.call(Method::POST, "/v1/auth/login", None, Some(body))
            .await
            .status,
        401
    );
    // Made-up nonces and malformed fields.
    let body = a.login_body(&"ab".repeat(32), None);
    assert_eq!(
        srv.call(Method::POST, "/v1/auth/login", None, Some(body))
            .await
            .status,
        401
    );
    let mut body = a.login_body(&srv.challenge().await, None);
    body["signature"] = json!("zz");
    let r = srv
        .call(Method::POST, "/v1/auth/login", None, Some(body))
        .await;
    assert_eq!((r.status, code(&r)), (400, "bad_request"));

    // The token works, logout ends it, and a made-up token never works.
    let me = srv
        .call(Method::GET, "/v1/account", Some(&a.token), None)
        .await;
    assert_eq!(me.body["account"]["id"], a.account);
    assert_eq!(me.body["records"], 0);
    assert_eq!(
        srv.call(Method::POST, "/v1/auth/logout", Some(&a.token), None)
            .await
            .status,
        204
    );
    assert_eq!(
        srv.call(Method::GET, "/v1/account", Some(&a.token), None)
            .await
            .status,
        401
    );
    assert_eq!(
        srv.call(Method::GET, "/v1/account", Some(&"00".repeat(32)), None)
            .await
            .status,
        401
    );
}

#[tokio::test]
async fn expired_challenges_and_link_codes_are_refused() {
    let srv = start(Config {
        challenge_ttl_secs: 0,
        ..Config::default()
    })
    .await;
    let mut a = Device::new();
    assert_eq!(srv.login(&mut a, None).await.status, 401);

    let srv = start(Config {
        link_code_ttl_secs: 0,
        ..Config::default()
    })
    .await;
    srv.login(&mut a, None).await;
    let code = srv
        .call(Method::POST, "/v1/link", Some(&a.token), None)
        .await;
    let code = code.body["code"].as_str().unwrap().to_string();
    let r = srv.login(&mut Device::new(), Some(&code)).await;
    assert_eq!(
        (r.status, code_of(&r)),
        (403, "invalid_link_code".to_string())
    );
}

fn code_of(r: &Resp) -> String {
    code(r).to_string()
}

#[tokio::test]
async fn a_second_device_joins_with_a_link_code_and_can_be_revoked() {
    let srv = start(Config::default()).await;
    let mut a = Device::new();
    srv.login(&mut a, None).await;
    let link = srv
        .call(Method::POST, "/v1/link", Some(&a.token), None)
        .await;
    assert_eq!(link.status, 200);
    let code = link.body["code"].as_str().unwrap().to_string();
    assert_eq!(code.len(), 9);
    assert_eq!(link.body["expires_in"], 300);

    // Wrong, used and expired codes all read the same.
    let mut b = Device::new();
    let wrong = srv.login(&mut b, Some("AAAA-AAAA")).await;
    let garbage = srv
        .login(&mut Device::new(), Some("not a code at all"))
        .await;
    let joined = srv.login(&mut b, Some(&code.to_lowercase())).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.body["created_account"], false);
    assert_eq!(b.account, a.account);
    assert_ne!(b.device_id, a.device_id);
    let used = srv.login(&mut Device::new(), Some(&code)).await;
    for r in [&wrong, &garbage, &used] {
        assert_eq!(r.status, 403);
        assert_eq!(r.body, wrong.body, "every bad code gives the same answer");
    }

    // A key whose account holds more than itself (here a second device) cannot be linked.
    let mut c = Device::new();
    srv.login(&mut c, None).await;
    let c_code = srv
        .call(Method::POST, "/v1/link", Some(&c.token), None)
        .await;
    let mut c2 = Device::new();
    assert_eq!(
        srv.login(&mut c2, c_code.body["code"].as_str())
            .await
            .status,
        200
    );
    let code2 = srv
        .call(Method::POST, "/v1/link", Some(&a.token), None)
        .await;
    let r = srv.login(&mut c, code2.body["code"].as_str()).await;
    assert_eq!((r.status, code_of(&r)), (409, "key_in_use".to_string()));

    let list = srv
        .call(Method::GET, "/v1/devices", Some(&a.token), None)
        .await;
    let devices = list.body["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2);
    assert_eq!(devices.iter().filter(|d| d["current"] == true).count(), 1);

    let path = format!("/v1/devices/{}", b.device_id);
    assert_eq!(
        srv.call(Method::DELETE, &path, Some(&a.token), None)
            .await
            .status,
        204
    );
    assert_eq!(
        srv.call(Method::GET, "/v1/account", Some(&b.token), None)
            .await
            .status,
        401
    );
    let r = srv.login(&mut b, None).await;
    assert_eq!((r.status, code_of(&r)), (403, "device_revoked".to_string()));
    // Another account's device, or none.
    let other = format!("/v1/devices/{}", c.device_id);
    assert_eq!(
        srv.call(Method::DELETE, &other, Some(&a.token), None)
            .await
            .status,
        404
    );
    let r = srv
        .call(Method::DELETE, "/v1/devices/x", Some(&a.token), None)
        .await;
    assert_eq!(r.status, 400);

    // A new phone's first login made it an account it never used: typing A's code there
    // moves the phone to A's account (the app's 输入关联码 after its one-tap login).
    let mut d = Device::new();
    srv.login(&mut d, None).await;
    let first = d.account;
    let code3 = srv
        .call(Method::POST, "/v1/link", Some(&a.token), None)
        .await;
    let r = srv.login(&mut d, code3.body["code"].as_str()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["created_account"], false);
    assert_eq!(d.account, a.account);
    assert_ne!(d.account, first);
}

#[tokio::test]
async fn login_and_link_attempts_are_rate_limited() {
    let mut config = Config::default();
    config.limits.login_per_key = Limit {
        burst: 2.0,
        per_sec: 0.01,
    };
    config.limits.link_per_ip = Limit {
        burst: 3.0,
        per_sec: 0.01,
    };
    let srv = start(config).await;
    let mut a = Device::new();
    // Unsigned attempts in A's name do not use up A's logins.
    for _ in 0..4 {
        let mut body = a.login_body(&srv.challenge().await, None);
        body["signature"] = serde_json::json!("00".repeat(64));
        let r = srv
            .call(Method::POST, "/v1/auth/login", None, Some(body))
            .await;
        assert_eq!(r.status, 401);
    }
    assert_eq!(srv.login(&mut a, None).await.status, 200);
    assert_eq!(srv.login(&mut a, None).await.status, 200);
    let r = srv.login(&mut a, None).await;
    assert_eq!((r.status, code(&r)), (429, "rate_limited"));
    let wait: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(wait >= 1);
    // Guessing link codes from one address stops after a few tries, whatever the key.
    let statuses: Vec<u16> = {
        let mut v = Vec::new();
        for _ in 0..4 {
            v.push(
                srv.login(&mut Device::new(), Some("ZZZZ-ZZZZ"))
                    .await
                    .status,
            );
        }
        v
    };
    assert_eq!(statuses, [403, 403, 403, 429]);
    let metrics = srv.call(Method::GET, "/metrics", Some(ADMIN), None).await;
    assert!(
        metrics
            .body
            .as_str()
            .unwrap()
            .contains("tongcheng_rate_limited_total 2")
    );
}

#[tokio::test]
async fn uploads_are_verified_idempotent_and_pulled_by_the_other_device() {
    let srv = start(Config::default()).await;
    let (mut a, mut b) = (Device::new(), Device::new());
    srv.login(&mut a, None).await;
    let link = srv
        .call(Method::POST, "/v1/link", Some(&a.token), None)
        .await;
    srv.login(&mut b, link.body["code"].as_str()).await;

    let hs = hands(6, 11);
    let good: Vec<Value> = hs[..3]
        .iter()
        .map(|h| serde_json::to_value(h).unwrap())
        .collect();
    let mut batch = good.clone();
    batch.push(forge_tile(&hs[3]));
    batch.push(forge_payment(&hs[4]));
    batch.push(forge_rules(&hs[5]));
    batch.push(json!({"not": "a record"}));
    let r = srv.upload(&a, batch.clone()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (
            r.body["accepted"].as_u64(),
            r.body["already"].as_u64(),
            r.body["rejected"].as_u64()
        ),
        (Some(3), Some(0), Some(4))
    );
    let results = r.body["results"].as_array().unwrap();
    for (i, h) in hs[..3].iter().enumerate() {
        assert_eq!(results[i]["id"], h.id.as_str());
        assert_eq!(results[i]["status"], "accepted");
    }
    let codes: Vec<&str> = results[3..]
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "event_differs",
            "result_differs",
            "rules_differ",
            "unreadable"
        ]
    );
    assert_eq!(
        results[3]["id"],
        hs[3].id.as_str(),
        "a forgery is named by its id"
    );
    assert!(
        results[5]["reason"]
            .as_str()
            .unwrap()
            .contains("chow_from_left_only")
    );
    assert!(results[6]["id"].is_null());

    // The same batch again changes nothing.
    let again = srv.upload(&a, batch).await;
    assert_eq!(
        (
            again.body["accepted"].as_u64(),
            again.body["already"].as_u64(),
            again.body["rejected"].as_u64()
        ),
        (Some(0), Some(3), Some(4))
    );
    let me = srv
        .call(Method::GET, "/v1/account", Some(&a.token), None)
        .await;
    assert_eq!(me.body["records"], 3);

    // B pulls A's three hands, a page at a time; A pulls nothing of its own.
    let p1 = srv
        .call(Method::GET, "/v1/sync/pull?limit=2", Some(&b.token), None)
        .await;
    assert_eq!(p1.body["records"].as_array().unwrap().len(), 2);
    assert_eq!(p1.body["more"], true);
    let cursor = p1.body["cursor"].as_str().unwrap();
    let p2 = srv
        .call(
            Method::GET,
            &format!("/v1/sync/pull?limit=2&cursor={cursor}"),
            Some(&b.token),
            None,
        )
        .await;
    let rest = p2.body["records"].as_array().unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(p2.body["more"], false);
    assert_eq!(rest[0]["id"], hs[2].id.as_str());
    assert_eq!(rest[0]["offline"], true);
    assert_eq!(rest[0]["record"], good[2]);
    let p3 = srv
        .call(
            Method::GET,
            &format!(
                "/v1/sync/pull?cursor={}",
                p2.body["cursor"].as_str().unwrap()
            ),
            Some(&b.token),
            None,
        )
        .await;
    assert_eq!(p3.body["records"], json!([]));
    let own = srv
        .call(Method::GET, "/v1/sync/pull", Some(&a.token), None)
        .await;
    assert_eq!(own.body["records"], json!([]));
    let bad = srv
        .call(Method::GET, "/v1/sync/pull?cursor=12", Some(&b.token), None)
        .await;
    assert_eq!((bad.status, code(&bad)), (400, "bad_cursor"));

    let anyone = srv.call(Method::GET, "/metrics", None, None).await;
    assert_eq!((anyone.status, code(&anyone)), (401, "unauthorized"));
    let player = srv
        .call(Method::GET, "/metrics", Some(&a.token), None)
        .await;
    assert_eq!(
        player.status, 401,
        "a player's session is not the admin token"
    );
    let m = srv.call(Method::GET, "/metrics", Some(ADMIN), None).await;
    let m = m.body.as_str().unwrap();
    for line in [
        "tongcheng_sync_batches_total 2",
        "tongcheng_records_accepted_total 3",
        "tongcheng_records_already_total 3",
        "tongcheng_records_rejected_total 8",
        "tongcheng_records_pulled_total 3",
    ] {
        assert!(m.contains(line), "{line} missing from\n{m}");
    }
    assert!(m.contains("route=\"/v1/sync/upload\",status=\"200\"} 2"));
}

#[tokio::test]
async fn refused_rules_oversized_batches_and_bodies() {
    let srv = start(Config {
        accepted_rules: vec!["guobiao".into()],
        max_batch: 5,
        body_limit: 256 << 10,
        ..Config::default()
    })
    .await;
    let mut a = Device::new();
    srv.login(&mut a, None).await;
    let hz = tongcheng_core::bot::simple_hand_records(&RuleSet::preset("hangzhou").unwrap(), 1, 3);
    let r = srv
        .upload(&a, vec![serde_json::to_value(&hz[0]).unwrap()])
        .await;
    assert_eq!(r.body["results"][0]["code"], "rules_not_accepted");

    let six: Vec<Value> = hands(6, 5)
        .iter()
        .map(|h| serde_json::to_value(h).unwrap())
        .collect();
    let r = srv.upload(&a, six).await;
    assert_eq!((r.status, code(&r)), (400, "batch_too_large"));

    let big =
        json!({"records": [{"record": {"pad": "x".repeat(300 << 10)}, "seat": 0, "played_at": 0}]});
    let r = srv
        .call(Method::POST, "/v1/sync/upload", Some(&a.token), Some(big))
        .await;
    assert_eq!((r.status, code(&r)), (413, "body_too_large"));

    let r = srv
        .call(
            Method::POST,
            "/v1/sync/upload",
            Some(&a.token),
            Some(json!({"records": "no"})),
        )
        .await;
    assert_eq!((r.status, code(&r)), (400, "bad_json"));
    let r = srv
        .call(
            Method::POST,
            "/v1/sync/upload",
            None,
            Some(json!({"records": []})),
        )
        .await;
    assert_eq!((r.status, code(&r)), (401, "unauthorized"));
    let mut seat9 = json!({"records": [{"record": serde_json::to_value(&hands(1, 9)[0]).unwrap(), "seat": 9, "played_at": 0}]});
    let r = srv
        .call(
            Method::POST,
            "/v1/sync/upload",
            Some(&a.token),
            Some(seat9.take()),
        )
        .await;
    assert_eq!(r.body["results"][0]["code"], "bad_seat");
}

/// Free text and times from a device are kept within sane bounds: a device name loses its
/// control and bidirectional characters, and a hand's time must be from 2020 to a day ahead.
#[tokio::test]
async fn device_names_are_cleaned_and_times_bounded() {
    let srv = start(Config::default()).await;
    let mut a = Device::new();
    let nonce = srv.challenge().await;
    let mut body = a.login_body(&nonce, None);
    body["device_name"] = json!("my\u{0}\u{202E}phone\u{2066}\n  二号");
    let r = srv
        .call(Method::POST, "/v1/auth/login", None, Some(body))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    a.token = r.body["token"].as_str().unwrap().to_string();
    let devices = srv
        .call(Method::GET, "/v1/devices", Some(&a.token), None)
        .await;
    assert_eq!(
        devices.body["devices"][0]["name"], "myphone 二号",
        "{}",
        devices.body
    );

    let record = serde_json::to_value(&hands(1, 4)[0]).unwrap();
    let now = tongcheng_core::clock::unix_secs();
    for (played_at, want) in [
        (json!(i64::MIN), "bad_time"),
        (json!(0), "bad_time"),
        (json!(now + 3 * 86_400), "bad_time"),
        (json!(now), "accepted"),
    ] {
        let r = srv
            .call(
                Method::POST,
                "/v1/sync/upload",
                Some(&a.token),
                Some(json!({"records": [{"record": record, "seat": 0, "played_at": played_at}]})),
            )
            .await;
        let got = &r.body["results"][0];
        let code = got["code"].as_str().or(got["status"].as_str());
        assert_eq!(code, Some(want), "played_at {played_at}: {}", r.body);
    }
}

/// Every leaf of a JSON value, as a JSON pointer.
fn leaves(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| leaves(x, format!("{path}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{path}/{i}"), out)),
        _ => out.push(path),
    }
}

#[tokio::test]
async fn mutated_records_never_break_the_server() {
    let srv = start(Config::default()).await;
    let mut a = Device::new();
    srv.login(&mut a, None).await;
    let originals: Vec<Value> = hands(3, 21)
        .iter()
        .map(|h| serde_json::to_value(h).unwrap())
        .collect();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let replacements = [
        json!(null),
        json!(-1),
        json!(255),
        json!(4_294_967_296u64),
        json!("9z"),
        json!(""),
        json!("1m"),
        json!([]),
        json!({}),
        json!(true),
        json!(1.5),
    ];
    let mut batch = Vec::new();
    for _ in 0..300 {
        let mut v = originals[(next() % 3) as usize].clone();
        let mut paths = Vec::new();
        leaves(&v, String::new(), &mut paths);
        for _ in 0..1 + next() % 3 {
            let p = &paths[(next() % paths.len() as u64) as usize];
            *v.pointer_mut(p).unwrap() =
                replacements[(next() % replacements.len() as u64) as usize].clone();
        }
        batch.push(v);
        if batch.len() == 100 {
            let r = srv.upload(&a, std::mem::take(&mut batch)).await;
            assert_eq!(r.status, 200, "{}", r.body);
            let results = r.body["results"].as_array().unwrap();
            assert_eq!(results.len(), 100);
            for x in results {
                assert!(
                    ["accepted", "already", "rejected"].contains(&x["status"].as_str().unwrap())
                );
                assert_ne!(x["code"], "internal_error", "{x}");
            }
        }
    }
    assert_eq!(
        srv.call(Method::GET, "/healthz", None, None).await.status,
        200
    );
}

/// The phone's side through the checked server: login and linking, sync up and down, the
/// devices, a room, logout — every request the client crate makes held against the
/// document as it happens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_requests_and_answers_keep_the_contract() {
    use tongcheng_client::api::play::RoomSettings;
    use tongcheng_client::{HttpApi, Identity, SyncOptions, sync};
    use tongcheng_core::history::HistoryStore;
    use tongcheng_core::seat::Seat;

    let srv = start(Config::default()).await;
    let base = srv.base.clone();
    tokio::task::spawn_blocking(move || {
        let (ida, idb) = (Identity::generate().unwrap(), Identity::generate().unwrap());
        let mut a = HttpApi::new(&base).unwrap();
        let login = a.login(&ida, "phone A", None).unwrap();
        assert!(login.created_account);
        let code = a.create_link().unwrap().code;
        let mut b = HttpApi::new(&base).unwrap();
        let joined = b.login(&idb, "phone B", Some(&code)).unwrap();
        assert_eq!(joined.account.id, login.account.id);

        let mut mine = HistoryStore::open_in_memory().unwrap();
        for (i, h) in hands(3, 41).iter().enumerate() {
            mine.add_hand(h, Seat(0), 1_700_000_000 + i as i64, None)
                .unwrap();
        }
        let opts = SyncOptions {
            batch: 2,
            pull_limit: 2,
        };
        assert_eq!(sync(&mut mine, &a, &opts).unwrap().uploaded, 3);
        let mut theirs = HistoryStore::open_in_memory().unwrap();
        assert_eq!(sync(&mut theirs, &b, &opts).unwrap().pulled, 3);
        assert_eq!(a.account().unwrap().records, 3);
        assert_eq!(a.devices().unwrap().len(), 2);
        assert!(a.ratings().unwrap().is_empty());

        let room = a
            .create_room(&RoomSettings {
                people: 2,
                bots: vec!["normal".into(), "hard".into()],
                hands: Some(4),
                ..RoomSettings::default()
            })
            .unwrap();
        // A friend: another account.
        let mut friend = HttpApi::new(&base).unwrap();
        friend
            .login(&Identity::generate().unwrap(), "phone C", None)
            .unwrap();
        assert_eq!(friend.join_room(&room.code).unwrap().admitted, 2);
        assert_eq!(a.room(&room.code).unwrap().players.len(), 2);

        a.revoke_device(joined.device_id).unwrap();
        assert!(b.account().unwrap_err().is_unauthorized());
        a.logout().unwrap();
        assert!(a.account().unwrap_err().is_unauthorized());
    })
    .await
    .unwrap();
    assert!(
        srv.contract.exchanges() >= 20,
        "{}",
        srv.contract.exchanges()
    );
}
