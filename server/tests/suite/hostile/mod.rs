//! A hostile client against the real server process on loopback: each test makes one kind of
//! attack from one or a few addresses (127.0.0.x), asserts the refusal, and then checks that
//! an honest player is still served.
//!
//! `requests`: connections, bodies, quotas, metrics and the access log; `tables`: what a
//! table shows and keeps (the pause after a discard, a dropped seat's contribution, a room's
//! own rules, hands stored before they are announced, the face at `/`).

use crate::support;

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::{Value, json};
use support::{Device, ServerProcess};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const ADMIN: &str = "hostile-suite-admin";

/// A server process over a SQLite file of its own, both gone when dropped.
struct Target {
    srv: ServerProcess,
    dir: std::path::PathBuf,
}

impl Target {
    fn url(&self) -> &str {
        self.srv.url()
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        self.srv.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start(extra: &[&str]) -> Target {
    let dir = tempfile_dir();
    let db = format!("sqlite:{}", dir.join("server.db").display());
    let mut args = vec!["--database", &db, "--admin-token", ADMIN];
    args.extend_from_slice(extra);
    Target {
        srv: support::spawn_server(&args),
        dir,
    }
}

/// An HTTP client whose connections leave from `ip` (127.0.0.0/8 is all loopback).
fn client_from(ip: &str) -> Client {
    Client::builder()
        .local_address(ip.parse::<IpAddr>().ok())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// Status and JSON body (or the text as a JSON string).
fn send(r: reqwest::blocking::RequestBuilder) -> (u16, Value) {
    let r = r.send().unwrap();
    let status = r.status().as_u16();
    let text = r.text().unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

/// Logs a new device in; its token.
fn login(http: &Client, url: &str) -> Device {
    let mut dev = Device::new();
    let (s, ch) = send(http.post(format!("{url}/v1/auth/challenge")));
    assert_eq!(s, 200, "{ch}");
    let nonce = ch["nonce"].as_str().unwrap();
    let (s, body) = send(
        http.post(format!("{url}/v1/auth/login"))
            .json(&dev.login_body(nonce, None)),
    );
    assert_eq!(s, 200, "{body}");
    dev.token = body["token"].as_str().unwrap().into();
    dev.account = body["account"]["id"].as_i64().unwrap();
    dev
}

/// An honest player from `ip`: logs in and reads his account.
fn honest_player_is_served(url: &str, ip: &str) {
    let http = client_from(ip);
    let dev = login(&http, url);
    let (s, body) = send(
        http.get(format!("{url}/v1/account"))
            .bearer_auth(&dev.token),
    );
    assert_eq!(s, 200, "an honest player after the attack: {body}");
}

fn addr(url: &str) -> SocketAddr {
    url.trim_start_matches("http://").parse().unwrap()
}

/// A raw connection from `ip`.
fn raw_from(url: &str, ip: &str) -> TcpStream {
    let local: SocketAddr = format!("{ip}:0").parse().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let tcp = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(local).unwrap();
        socket.connect(addr(url)).await.unwrap().into_std().unwrap()
    });
    tcp.set_nonblocking(false).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    tcp
}

/// Seconds until the server closes `tcp` (reads until end of stream or reset).
fn closed_after(mut tcp: TcpStream, start: Instant) -> f64 {
    let mut buf = [0u8; 4096];
    loop {
        match tcp.read(&mut buf) {
            Ok(0) | Err(_) => return start.elapsed().as_secs_f64(),
            Ok(_) => {}
        }
    }
}

/// A fresh directory under the system's temporary one.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tongcheng-hostile-{}-{:016x}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rand_suffix() -> u64 {
    u64::from_le_bytes(tongcheng_server::auth::random_bytes::<8>().unwrap())
}

// The attacks on requests and connections, and those on the tables.
mod requests;
mod tables;
