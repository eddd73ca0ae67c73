//! The app model's login against a real server in process: this test is the face (its key
//! store holds an Ed25519 key, it signs what the model asks and makes the model's requests);
//! every exchange is checked against the server's OpenAPI document.

use crate::support;

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use support::online::{TestServer, start_with};
use tongcheng_app::{App, Effect, Event, OnlineView, Settings, Tap, View};
use tongcheng_core::hex::{hex, unhex};
use tongcheng_server::Config;

/// A face: a key store, the network, and the requests it made.
pub(crate) struct Face {
    key: Option<SigningKey>,
    pub(crate) url: String,
    pub(crate) up: bool,
    pub(crate) requests: Vec<String>,
    /// The last successful login's answer (its device id).
    login: Option<Value>,
}

impl Face {
    pub(crate) fn new(url: &str) -> Face {
        Face::with_key(url, 7)
    }

    /// A face whose device key is made from `byte` (another device, another account).
    pub(crate) fn with_key(url: &str, byte: u8) -> Face {
        Face {
            key: Some(SigningKey::from_bytes(&[byte; 32])),
            url: url.to_string(),
            up: true,
            requests: Vec::new(),
            login: None,
        }
    }

    /// Sends `event` and performs every effect, answers included, until none is left.
    pub(crate) fn send(&mut self, app: &mut App, event: Event) {
        let mut queue = vec![event];
        while let Some(e) = queue.pop() {
            for fx in app.update(e) {
                queue.extend(self.perform(fx));
            }
        }
    }

    pub(crate) fn perform(&mut self, fx: Effect) -> Option<Event> {
        match fx {
            Effect::LoadKey => Some(Event::KeyLoaded {
                public_key: self.key.as_ref().map(|k| hex(k.verifying_key().as_bytes())),
            }),
            Effect::Sign { message } => Some(Event::Signed {
                signature: self
                    .key
                    .as_ref()
                    .map(|k| hex(&k.sign(&unhex(&message).unwrap()).to_bytes())),
            }),
            Effect::Request {
                id,
                method,
                path,
                token,
                body,
            } => {
                self.requests.push(format!("{method} {path}"));
                let (status, body) = if self.up {
                    call(&self.url, &method, &path, token.as_deref(), body)
                } else {
                    (0, Value::Null)
                };
                if path == "/v1/auth/login" && status == 200 {
                    self.login = Some(body.clone());
                }
                Some(Event::Answered { id, status, body })
            }
            _ => None,
        }
    }
}

fn call(
    url: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let http = reqwest::blocking::Client::new();
    let mut req = http.request(method.parse().unwrap(), format!("{url}{path}"));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = req.send().unwrap();
    let status = r.status().as_u16();
    (status, r.json().unwrap_or(Value::Null))
}

fn online(app: &App) -> OnlineView {
    match app.view() {
        View::Home(h) => h.online,
        other => panic!("not home: {other:?}"),
    }
}

fn server() -> TestServer {
    start_with(Config {
        admin_token: Some("admin".into()),
        ..Config::default()
    })
}

#[test]
fn the_app_logs_in_when_the_network_is_there_and_shows_the_account() {
    let srv = server();
    let mut face = Face::new(&srv.url);
    let mut app = App::new(Settings::default(), None, 1, 0);
    // Before the face says the network is there, nothing is asked.
    assert!(!online(&app).signed_in);
    face.send(&mut app, Event::Network { up: true });
    let o = online(&app);
    assert!(o.signed_in, "{o:?}");
    assert!(o.status.starts_with("已登录："), "{}", o.status);
    assert_eq!(o.ratings, ["还没有排位成绩"]);
    assert_eq!(
        face.requests,
        [
            "POST /v1/auth/challenge",
            "POST /v1/auth/login",
            "GET /v1/ratings"
        ]
    );
    // The same key logs in to the same account next time (a new app, as after a restart).
    let first = o.status.clone();
    let mut again = App::new(Settings::default(), None, 2, 0);
    face.send(&mut again, Event::Network { up: true });
    assert_eq!(online(&again).status, first);
}

#[test]
fn without_a_server_the_app_plays_offline_and_tries_again_on_a_tap() {
    let srv = server();
    let mut face = Face::new(&srv.url);
    face.up = false;
    let mut app = App::new(Settings::default(), None, 1, 0);
    face.send(&mut app, Event::Network { up: true });
    let o = online(&app);
    assert!(!o.signed_in);
    assert_eq!(o.status, "未连接服务器：单机对战照常可玩");
    let retry = o.retry.expect("a retry button");
    // Offline play never waited: the match against bots starts as before.
    face.send(&mut app, Event::Tap { tap: Tap::PlayBots });
    face.send(&mut app, Event::Tap { tap: Tap::Start });
    assert!(matches!(app.view(), View::Table(_)));
    face.send(&mut app, Event::Tap { tap: Tap::Back });
    face.up = true;
    face.send(&mut app, Event::Tap { tap: retry.tap });
    assert!(online(&app).signed_in);
}

#[test]
fn a_banned_device_is_told_why_and_a_face_without_a_key_store_plays_offline() {
    let srv = server();
    let mut face = Face::new(&srv.url);
    let mut app = App::new(Settings::default(), None, 1, 0);
    face.send(&mut app, Event::Network { up: true });
    assert!(online(&app).signed_in);
    let device = face.login.as_ref().unwrap()["device_id"].as_i64().unwrap();
    let http = reqwest::blocking::Client::new();
    let r = http
        .post(format!("{}/v1/admin/sanctions", srv.url))
        .bearer_auth("admin")
        .json(&json!({"device": device, "kind": "ban", "reason": "测试：外挂", "by": "test"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().unwrap());
    let mut banned = App::new(Settings::default(), None, 2, 0);
    face.send(&mut banned, Event::Network { up: true });
    let o = online(&banned);
    assert!(!o.signed_in);
    assert!(
        o.status.contains("测试：外挂"),
        "the server's words: {}",
        o.status
    );

    face.key = None;
    let mut keyless = App::new(Settings::default(), None, 3, 0);
    face.send(&mut keyless, Event::Network { up: true });
    let o = online(&keyless);
    assert_eq!(o.status, "这个浏览器不能保存登录密钥：只能单机对战");
    assert!(o.retry.is_none());
}

#[test]
fn a_new_phone_joins_the_players_account_by_the_code_his_other_phone_shows() {
    let srv = server();
    let (mut old_face, mut new_face) = (Face::with_key(&srv.url, 21), Face::with_key(&srv.url, 22));
    let mut old = App::new(Settings::default(), None, 1, 0);
    let mut new = App::new(Settings::default(), None, 2, 0);
    old_face.send(&mut old, Event::Network { up: true });
    new_face.send(&mut new, Event::Network { up: true });
    let name = online(&old).status;
    assert_ne!(
        online(&new).status,
        name,
        "the new phone began with an account of its own"
    );
    // The old phone shows a code.
    for tap in [Tap::Settings, Tap::LinkDevices, Tap::ShowLinkCode] {
        old_face.send(&mut old, Event::Tap { tap });
    }
    let View::Link(l) = old.view() else {
        panic!("not the link screen: {:?}", old.view())
    };
    let shown = l.shown.expect("a code shown");
    let code: String = shown.chars().take(9).filter(|c| *c != '-').collect();
    assert_eq!(code.len(), 8, "{shown}");
    assert!(shown.contains("分钟内有效"), "{shown}");
    // The new phone types it on the code's keypad and joins.
    for tap in [Tap::Settings, Tap::LinkDevices] {
        new_face.send(&mut new, Event::Tap { tap });
    }
    let keys = |app: &App| match app.view() {
        View::Link(l) => l.keypad,
        other => panic!("not the link screen: {other:?}"),
    };
    for c in code.chars() {
        let key = keys(&new)
            .into_iter()
            .find(|b| b.name == c.to_string())
            .unwrap();
        new_face.send(&mut new, Event::Tap { tap: key.tap });
    }
    let View::Link(l) = new.view() else {
        unreachable!()
    };
    assert_eq!(l.typed.replace('-', ""), code);
    assert!(l.join.enabled);
    new_face.send(&mut new, Event::Tap { tap: l.join.tap });
    let View::Link(l) = new.view() else {
        unreachable!()
    };
    let player = name.trim_start_matches("已登录：");
    assert_eq!(
        l.notice.as_deref(),
        Some(format!("本机已关联到：{player}").as_str())
    );
    for tap in [Tap::Back, Tap::Back] {
        new_face.send(&mut new, Event::Tap { tap });
    }
    assert_eq!(
        online(&new).status,
        name,
        "the new phone plays as the player's account"
    );
    // The code is used up; the old phone, whose account holds two devices now, cannot leave it.
    for c in code.chars() {
        let key = keys(&old)
            .into_iter()
            .find(|b| b.name == c.to_string())
            .unwrap();
        old_face.send(&mut old, Event::Tap { tap: key.tap });
    }
    old_face.send(
        &mut old,
        Event::Tap {
            tap: Tap::JoinByCode,
        },
    );
    let View::Link(l) = old.view() else {
        unreachable!()
    };
    assert_eq!(
        l.notice.as_deref(),
        Some("关联码无效、已用过或已过期，请在另一台设备上重新显示")
    );
    old_face.send(&mut old, Event::Tap { tap: Tap::Back });
    old_face.send(&mut old, Event::Tap { tap: Tap::Back });
    assert_eq!(
        online(&old).status,
        name,
        "a refused link keeps the session"
    );
}
