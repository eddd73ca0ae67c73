//! The HTTP contract held against real traffic: a layer around the router under test checks
//! every request and answer against the OpenAPI document the server serves, by its JSON
//! schemas (the `jsonschema` crate), and keeps every disagreement for the test to fail on.
//!
//! A request the server took (2xx, 101) must be one the document accepts: its path and query
//! parameters and its body. A request the server refused as malformed (`bad_json`,
//! `bad_query`) must be one the document refuses. Every answer must be what the document
//! gives for its status — a success only where documented, an error as the error body — and
//! answers are read strictly: an object may hold no field the document does not name, so a
//! field added to a body without the document is caught too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{Value, json};

/// One request and its answer, as the layer saw them.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    /// Lower case: `get`, `post`, `delete`.
    pub method: String,
    /// The route pattern the router matched (`None`: no route, the fallback answered).
    pub route: Option<String>,
    pub path: String,
    pub query: Option<String>,
    pub request_body: Bytes,
    pub status: u16,
    pub content_type: Option<String>,
    pub response_body: Bytes,
}

/// The document and what was found against it.
pub struct Contract {
    doc: Value,
    /// The document's components as written (requests), and with every object closed to
    /// fields it does not name (answers).
    requests: Value,
    answers: Value,
    validators: Mutex<HashMap<(bool, String), Arc<jsonschema::Validator>>>,
    problems: Mutex<Vec<String>>,
    exchanges: AtomicUsize,
}

impl Contract {
    /// A contract over `doc` (an OpenAPI 3.1 document as JSON).
    pub fn new(doc: Value) -> Arc<Contract> {
        let components = doc["components"].clone();
        let mut closed = components.clone();
        close_objects(&mut closed);
        Arc::new(Contract {
            requests: root(components),
            answers: root(closed),
            doc,
            validators: Mutex::default(),
            problems: Mutex::default(),
            exchanges: AtomicUsize::new(0),
        })
    }

    /// `router` with every exchange checked.
    pub fn around(self: &Arc<Contract>, router: Router) -> Router {
        router.layer(axum::middleware::from_fn_with_state(self.clone(), watch))
    }

    /// The disagreements found so far.
    pub fn problems(&self) -> Vec<String> {
        self.problems.lock().unwrap().clone()
    }

    /// Exchanges checked so far.
    pub fn exchanges(&self) -> usize {
        self.exchanges.load(Ordering::Relaxed)
    }

    /// Panics with every disagreement, if there is one.
    pub fn assert_kept(&self) {
        let p = self.problems();
        assert!(
            p.is_empty(),
            "the server and its OpenAPI document disagree:\n{}",
            p.join("\n")
        );
    }

    /// Checks one exchange, keeping what disagrees.
    pub fn record(&self, ex: &Exchange) {
        self.exchanges.fetch_add(1, Ordering::Relaxed);
        let found = self.check(ex);
        let at = format!("{} {}", ex.method.to_uppercase(), ex.path);
        self.problems.lock().unwrap().extend(
            found
                .into_iter()
                .map(|p| format!("{at} ({}): {p}", ex.status)),
        );
    }

    /// What in `ex` disagrees with the document.
    pub fn check(&self, ex: &Exchange) -> Vec<String> {
        let mut problems = Vec::new();
        let op = ex
            .route
            .as_ref()
            .and_then(|r| self.doc["paths"][r.as_str()].get(&ex.method));
        let accepted = (200..300).contains(&ex.status) || ex.status == 101;
        let Some(op) = op else {
            if accepted {
                problems.push("answered, but the document has no such operation".into());
            }
            self.check_answer(
                ex,
                &json!({"$ref": "#/components/responses/Error"}),
                &mut problems,
            );
            return problems;
        };
        let refusals = self.check_request(ex, op);
        let code = serde_json::from_slice::<Value>(&ex.response_body)
            .ok()
            .and_then(|v| v["error"]["code"].as_str().map(str::to_string));
        if accepted && !refusals.is_empty() {
            problems.push(format!(
                "the server took a request the document refuses: {}",
                refusals.join("; ")
            ));
        }
        if matches!(code.as_deref(), Some("bad_json" | "bad_query")) && refusals.is_empty() {
            problems.push(format!(
                "the server refused as {} a request the document accepts",
                code.unwrap_or_default()
            ));
        }
        let status = ex.status.to_string();
        match op["responses"].get(&status) {
            Some(answer) => self.check_answer(ex, answer, &mut problems),
            None if accepted => problems.push(format!("status {status} is not documented")),
            None => self.check_answer(ex, &op["responses"]["default"], &mut problems),
        }
        problems
    }

    /// Why the document refuses the request of `ex` to `op` (nothing: it accepts it).
    fn check_request(&self, ex: &Exchange, op: &Value) -> Vec<String> {
        let mut refusals = Vec::new();
        let mut given: HashMap<(String, String), String> = HashMap::new();
        if let Some(route) = &ex.route {
            for (pattern, value) in route.split('/').zip(ex.path.split('/')) {
                if let Some(name) = pattern.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                    given.insert(("path".into(), name.into()), value.into());
                }
            }
        }
        if let Some(q) = &ex.query
            && let Ok(url) = reqwest::Url::parse(&format!("http://x/?{q}"))
        {
            for (k, v) in url.query_pairs() {
                given.insert(("query".into(), k.into_owned()), v.into_owned());
            }
        }
        let params = op["parameters"].as_array().cloned().unwrap_or_default();
        for p in &params {
            let key = (
                p["in"].as_str().unwrap_or_default().to_string(),
                p["name"].as_str().unwrap_or_default().to_string(),
            );
            match given.remove(&key) {
                Some(text) => {
                    let value = typed(&text, &p["schema"]);
                    if let Some(why) = self.refuse(false, &p["schema"], &value) {
                        refusals.push(format!("{} parameter {}: {why}", key.0, key.1));
                    }
                }
                None if p["required"] == true => {
                    refusals.push(format!("{} parameter {} is missing", key.0, key.1));
                }
                None => {}
            }
        }
        for (kind, name) in given.keys() {
            refusals.push(format!("{kind} parameter {name} is not documented"));
        }
        if let Some(body) = op.get("requestBody") {
            let schema = &body["content"]["application/json"]["schema"];
            match serde_json::from_slice::<Value>(&ex.request_body) {
                Ok(v) => refusals.extend(self.refuse(false, schema, &v)),
                Err(e) => refusals.push(format!("the body is not JSON ({e})")),
            }
        }
        refusals
    }

    /// Checks the answer of `ex` against the documented response `answer` (or a reference
    /// to one).
    fn check_answer(&self, ex: &Exchange, answer: &Value, problems: &mut Vec<String>) {
        let answer = self.resolve(answer);
        let Some(content) = answer["content"].as_object().filter(|c| !c.is_empty()) else {
            if !ex.response_body.is_empty() {
                problems.push("the answer has a body the document does not give".into());
            }
            return;
        };
        let given = ex.content_type.as_deref().unwrap_or("");
        let Some((media, spec)) = content.iter().find(|(m, _)| given.starts_with(m.as_str()))
        else {
            problems.push(format!(
                "content type '{given}', documented: {:?}",
                content.keys().collect::<Vec<_>>()
            ));
            return;
        };
        if media == "application/json" {
            match serde_json::from_slice::<Value>(&ex.response_body) {
                Ok(v) => problems.extend(self.refuse(true, &spec["schema"], &v)),
                Err(e) => problems.push(format!("the answer is not JSON ({e})")),
            }
        } else if std::str::from_utf8(&ex.response_body).is_err() {
            problems.push("the answer is not text".into());
        }
    }

    /// `value`'s disagreement with `schema` (a request's, or an answer's: closed objects).
    pub fn refuse(&self, answer: bool, schema: &Value, value: &Value) -> Option<String> {
        let validator = self.validator(answer, schema);
        let errors: Vec<String> = validator
            .iter_errors(value)
            .take(3)
            .map(|e| format!("{} at '{}'", e, e.instance_path()))
            .collect();
        (!errors.is_empty()).then(|| errors.join("; "))
    }

    fn validator(&self, answer: bool, schema: &Value) -> Arc<jsonschema::Validator> {
        let key = (answer, schema.to_string());
        let mut cache = self.validators.lock().unwrap();
        cache
            .entry(key)
            .or_insert_with(|| {
                let mut root = if answer {
                    &self.answers
                } else {
                    &self.requests
                }
                .clone();
                let mut schema = schema.clone();
                if answer {
                    close_objects(&mut schema);
                }
                root["allOf"] = json!([schema]);
                Arc::new(
                    jsonschema::draft202012::new(&root)
                        .unwrap_or_else(|e| panic!("the document's schema does not compile: {e}")),
                )
            })
            .clone()
    }

    /// A `$ref` to a documented response, followed.
    fn resolve<'a>(&'a self, v: &'a Value) -> &'a Value {
        match v["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => self.doc.pointer(pointer).unwrap_or(&Value::Null),
            None => v,
        }
    }
}

/// A schema root holding the document's components, so `#/components/...` resolves.
fn root(components: Value) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": components,
    })
}

/// Every object schema that names its properties gets `additionalProperties: false` unless
/// it says otherwise.
fn close_objects(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("properties").is_some_and(Value::is_object)
                && !m.contains_key("additionalProperties")
            {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            m.values_mut().for_each(close_objects);
        }
        Value::Array(a) => a.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// A path or query parameter's text as the JSON value its schema describes.
fn typed(text: &str, schema: &Value) -> Value {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"integer") || types.contains(&"number") {
        if let Ok(n) = text.parse::<i64>() {
            return json!(n);
        }
        if let Ok(n) = text.parse::<f64>() {
            return json!(n);
        }
    }
    if types.contains(&"boolean") && (text == "true" || text == "false") {
        return json!(text == "true");
    }
    Value::String(text.into())
}

/// The layer: reads the request and the answer whole, passes them on unchanged, and checks
/// them.
async fn watch(State(contract): State<Arc<Contract>>, req: Request, next: Next) -> Response {
    let mut ex = Exchange {
        method: req.method().as_str().to_lowercase(),
        route: req
            .extensions()
            .get::<MatchedPath>()
            .map(|m| m.as_str().to_string()),
        path: req.uri().path().to_string(),
        query: req.uri().query().map(str::to_string),
        ..Exchange::default()
    };
    let (parts, body) = req.into_parts();
    ex.request_body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let resp = next
        .run(Request::from_parts(
            parts,
            Body::from(ex.request_body.clone()),
        ))
        .await;
    let (parts, body) = resp.into_parts();
    ex.response_body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    ex.status = parts.status.as_u16();
    ex.content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    contract.record(&ex);
    Response::from_parts(parts, Body::from(ex.response_body))
}

/// Serves `state` on `listener` (on the current tokio runtime) with every exchange checked
/// against the document the server serves.
pub fn spawn_checked(
    listener: tokio::net::TcpListener,
    state: tongcheng_server::AppState,
) -> Arc<Contract> {
    let (router, doc) = tongcheng_server::app::router_and_document(state.clone());
    let contract = Contract::new(serde_json::to_value(&doc).expect("the document is JSON"));
    tokio::spawn(tongcheng_server::app::serve_router(
        listener,
        state,
        contract.around(router),
        std::future::pending(),
    ));
    contract
}
