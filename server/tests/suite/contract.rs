//! The contract checker itself (`support::contract`) can fail: wrong answers, wrongly taken
//! and wrongly refused requests are each reported, on made-up exchanges and through the
//! layer around a router that drifted from the document.

use crate::support;

use std::sync::Arc;

use axum::Json;
use axum::routing::get;
use serde_json::{Value, json};
use support::contract::{Contract, Exchange};

fn contract() -> Arc<Contract> {
    Contract::new(serde_json::to_value(tongcheng_api::openapi::document()).unwrap())
}

fn exchange(method: &str, route: &str, status: u16, request: Value, answer: Value) -> Exchange {
    Exchange {
        method: method.into(),
        route: Some(route.into()),
        path: route.into(),
        request_body: if request.is_null() {
            Default::default()
        } else {
            request.to_string().into()
        },
        status,
        content_type: Some("application/json".into()),
        response_body: answer.to_string().into(),
        ..Exchange::default()
    }
}

fn account(v: Value) -> Exchange {
    exchange("get", "/v1/account", 200, Value::Null, v)
}

#[test]
fn answers_that_break_the_document_are_reported() {
    let c = contract();
    let good = json!({"account": {"id": 1, "display_name": "P"}, "device_id": 2, "records": 0});
    assert_eq!(c.check(&account(good.clone())), Vec::<String>::new());
    let mut wrong_type = good.clone();
    wrong_type["device_id"] = json!("two");
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("records");
    let mut extra = good.clone();
    extra["account"]["email"] = json!("p@example.com");
    for bad in [wrong_type, missing, extra] {
        assert!(!c.check(&account(bad.clone())).is_empty(), "{bad}");
    }
    // An error answer must be the error body, with a known code.
    let refused = |body: Value| exchange("get", "/v1/account", 401, Value::Null, body);
    let known = json!({"error": {"code": "unauthorized", "message": "log in"}});
    assert!(c.check(&refused(known)).is_empty());
    let unknown = json!({"error": {"code": "go_away", "message": "no"}});
    assert!(!c.check(&refused(unknown)).is_empty());
    // A success the document does not give.
    let created = exchange("get", "/v1/account", 201, Value::Null, good);
    assert!(!c.check(&created).is_empty());
}

#[test]
fn requests_taken_or_refused_against_the_document_are_reported() {
    let c = contract();
    let seated = json!({"table": "t", "rules": "guobiao", "ranked": true, "people": 1,
                        "bots": 3, "server": "http://n1"});
    let queue =
        |req: Value, status: u16, answer: Value| exchange("post", "/v1/queue", status, req, answer);
    assert!(
        c.check(&queue(json!({"ranked": true}), 200, seated.clone()))
            .is_empty()
    );
    // Taken, though the document refuses it: a wrong type, an unknown field.
    for req in [
        json!({"ranked": "yes"}),
        json!({"ranked": true, "colour": "red"}),
    ] {
        assert!(
            !c.check(&queue(req.clone(), 200, seated.clone())).is_empty(),
            "{req}"
        );
    }
    // Refused as malformed, though the document accepts it.
    let bad_json = json!({"error": {"code": "bad_json", "message": "no"}});
    assert!(
        !c.check(&queue(json!({"ranked": true}), 400, bad_json.clone()))
            .is_empty()
    );
    assert!(
        c.check(&queue(json!({"ranked": 3}), 400, bad_json))
            .is_empty()
    );
    // Query and path parameters count too.
    let pull = |query: &str| Exchange {
        method: "get".into(),
        route: Some("/v1/sync/pull".into()),
        path: "/v1/sync/pull".into(),
        query: Some(query.into()),
        status: 200,
        content_type: Some("application/json".into()),
        response_body: json!({"records": [], "cursor": "v1.0", "more": false})
            .to_string()
            .into(),
        ..Exchange::default()
    };
    assert!(c.check(&pull("limit=5&cursor=v1.0")).is_empty());
    assert!(!c.check(&pull("limit=five")).is_empty());
    assert!(!c.check(&pull("page=2")).is_empty());
}

#[tokio::test]
// A route made by hand on purpose: a router that drifted from the document.
#[allow(clippy::disallowed_methods)]
async fn the_layer_catches_a_router_that_drifted() {
    // `GET /v1/account` answering a field the document does not have, and a count as text.
    let drifted = axum::Router::new().route(
        "/v1/account",
        get(|| async {
            Json(
                json!({"account": {"id": 1, "display_name": "P"}, "device_id": 2,
                        "records": "3", "premium": true}),
            )
        }),
    );
    let c = contract();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/account", listener.local_addr().unwrap());
    tokio::spawn(axum::serve(listener, c.around(drifted)).into_future());
    let answer = reqwest::get(&url).await.unwrap();
    assert_eq!(
        answer.status(),
        200,
        "the layer passes answers on unchanged"
    );
    let problems = c.problems();
    assert_eq!(c.exchanges(), 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("premium") && problems[0].contains("records"),
        "{problems:?}"
    );
}
