//! What wraps every request: an id echoed in `x-request-id`, the server's own or the
//! client's (the timeout's JSON error is tested next to its layer, in `routes`).

use crate::support;

use std::sync::Arc;

use support::contract::Contract;
use tongcheng_server::store::sqlite::SqliteStore;
use tongcheng_server::{Config, Shared};

/// A server in process on a free port, checked against its document; its base URL.
async fn start(config: Config) -> (String, Arc<Contract>) {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let state = Shared::new(store, config).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    (base, support::contract::spawn_checked(listener, state))
}

fn request_id(r: &reqwest::Response) -> String {
    r.headers()["x-request-id"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn every_answer_carries_a_request_id_and_a_clients_own_is_kept() {
    let (base, contract) = start(Config {
        node_id: Some("n7".into()),
        ..Config::default()
    })
    .await;
    let http = reqwest::Client::new();
    let first = http.get(format!("{base}/healthz")).send().await.unwrap();
    let missing = http.get(format!("{base}/nowhere")).send().await.unwrap();
    assert_eq!(request_id(&first), "n7-1");
    assert_eq!(
        (missing.status().as_u16(), request_id(&missing).as_str()),
        (404, "n7-2"),
        "unrouted requests are counted too"
    );
    let own = http
        .get(format!("{base}/healthz"))
        .header("x-request-id", "phone-42")
        .send()
        .await
        .unwrap();
    assert_eq!(request_id(&own), "phone-42");
    contract.assert_kept();
}

/// Every answer, refusals included, says not to cache it, not to sniff it and not to frame it.
#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let (base, contract) = start(Config::default()).await;
    let http = reqwest::Client::new();
    for r in [
        http.get(format!("{base}/healthz")).send().await.unwrap(),
        http.get(format!("{base}/nowhere")).send().await.unwrap(),
        http.post(format!("{base}/v1/auth/challenge"))
            .send()
            .await
            .unwrap(),
        http.get(format!("{base}/v1/account")).send().await.unwrap(),
    ] {
        let h = r.headers();
        let url = r.url().to_string();
        assert_eq!(h["cache-control"], "no-store", "{url}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{url}");
        assert_eq!(h["x-frame-options"], "DENY", "{url}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{url}");
    }
    contract.assert_kept();
}
