//! The HTTP transport: reqwest (blocking, rustls) with retries.
//!
//! Transient failures — no connection, a timeout, a cut connection, 429 and 502–504 — are
//! retried with exponential backoff (and jitter), waiting what `Retry-After` says when the
//! server says it. Retrying an upload is safe: the server keeps each record once. Any other
//! answer is final and comes back as [`ClientError::Server`] with the server's error code.

use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use serde::Serialize;
use tongcheng_api::auth::{AccountResponse, DeviceId, DeviceInfo, LinkResponse, LoginResponse};
use tongcheng_api::endpoints::{
    Account, Challenge, CreateLink, CreateRoom, Devices, JoinRoom, Login, Logout, Pull, Ratings,
    RevokeDevice, ShowRoom, Upload,
};
use tongcheng_api::play::{Rating, RoomInfo, RoomSettings, Seated};
use tongcheng_api::sync::{PullQuery, PullResponse, UploadRequest, UploadResponse};
use tongcheng_api::{Endpoint, Method, NoBody, NoParams, RequestBody, ResponseBody};

use crate::error::{ClientError, describe};
use crate::http_call::{
    Api, Tried, USER_AGENT, answer, base_url, login_retryable, prepare, reqwest_method, retry_after,
};
pub use crate::http_call::{HttpOptions, RetryPolicy};
use crate::identity::Identity;
use crate::matchmaking::{QUEUE_POLL_LIMIT, QueueWait, check_room, check_room_code};
use crate::sync::SyncTransport;

/// The server's API over HTTP, blocking.
pub type HttpApi = Api<Client>;

impl HttpApi {
    /// An API client for the server at `server` (`http://host:port` or `https://...`).
    pub fn new(server: &str) -> Result<HttpApi, ClientError> {
        HttpApi::with_options(server, HttpOptions::default())
    }

    /// [`HttpApi::new`] with its connections made as `options` say.
    pub fn with_options(server: &str, options: HttpOptions) -> Result<HttpApi, ClientError> {
        let base = base_url(server)?;
        let mut http = Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(60))
            .user_agent(USER_AGENT)
            .local_address(options.local_address);
        if !options.keep_alive {
            http = http.pool_max_idle_per_host(0);
        }
        let http = http
            .build()
            .map_err(|e| ClientError::Network(e.to_string()))?;
        Ok(Api::from_parts(base, http))
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let r = self
            .http
            .request(reqwest_method(method), format!("{}{path}", self.base));
        match &self.token {
            Some(t) => r.bearer_auth(t),
            None => r,
        }
    }

    /// Sends what `build` makes, retrying transient failures; the successful response.
    fn send(&self, build: impl Fn() -> RequestBuilder) -> Result<Response, ClientError> {
        let mut tries = 0;
        loop {
            let (tried, err) = match build().send() {
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = retry_after(resp.headers());
                    let tried = Tried::Refused {
                        status,
                        retry_after,
                    };
                    (tried, server_error(status, resp))
                }
                Err(e) => (Tried::NoAnswer, ClientError::Network(describe(&e))),
            };
            match self.retry.again(tries, tried) {
                Some(wait) => std::thread::sleep(wait),
                None => return Err(err),
            }
            tries += 1;
        }
    }

    /// Calls endpoint `E` with its path parameters, query and body (retrying transient
    /// failures): its answer.
    pub fn call<E>(
        &self,
        params: &E::Params,
        query: &E::Query,
        body: &E::Request,
    ) -> Result<E::Response, ClientError>
    where
        E: Endpoint,
        E::Query: Serialize,
        E::Request: RequestBody,
        E::Response: ResponseBody,
    {
        let (path, body) = prepare::<E>(params, body)?;
        let resp = self.send(|| {
            let r = self.request(E::METHOD, &path).query(query);
            match &body {
                Some(b) => r
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(b.clone()),
                None => r,
            }
        })?;
        let text = resp
            .text()
            .map_err(|e| ClientError::Network(describe(&e)))?;
        answer::<E>(&text)
    }

    /// [`HttpApi::call`] for an endpoint without path or query parameters.
    fn simple<E>(&self, body: &E::Request) -> Result<E::Response, ClientError>
    where
        E: Endpoint<Params = NoParams, Query = NoParams>,
        E::Request: RequestBody,
        E::Response: ResponseBody,
    {
        self.call::<E>(&NoParams {}, &NoParams {}, body)
    }

    /// Logs in with the device's key (asking a challenge and signing it), joining the
    /// account of `link_code` when given. Sets the session token on success. A failure of
    /// the network is retried with a fresh challenge (each is single use).
    pub fn login(
        &mut self,
        identity: &Identity,
        device_name: &str,
        link_code: Option<&str>,
    ) -> Result<LoginResponse, ClientError> {
        self.token = None;
        let mut tries = 0;
        loop {
            let challenge = self.simple::<Challenge>(&NoBody)?;
            let req = identity.login_request(challenge.nonce, device_name, link_code)?;
            // Each challenge is single use: this login is sent once (without a token, as
            // `self` has none now), and a failure starts again from a new challenge.
            let once = self.clone().with_retry(RetryPolicy {
                attempts: 1,
                ..self.retry
            });
            match once.simple::<Login>(&req) {
                Ok(r) => {
                    self.token = Some(r.token.clone());
                    return Ok(r);
                }
                Err(e) if login_retryable(&e) && tries + 1 < self.retry.attempts => {
                    std::thread::sleep(self.retry.backoff(tries));
                    tries += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// A link code for another device to join this account.
    pub fn create_link(&self) -> Result<LinkResponse, ClientError> {
        self.simple::<CreateLink>(&NoBody)
    }

    pub fn account(&self) -> Result<AccountResponse, ClientError> {
        self.simple::<Account>(&NoBody)
    }

    pub fn devices(&self) -> Result<Vec<DeviceInfo>, ClientError> {
        Ok(self.simple::<Devices>(&NoBody)?.devices)
    }

    pub fn revoke_device(&self, id: i64) -> Result<(), ClientError> {
        self.call::<RevokeDevice>(&DeviceId { id }, &NoParams {}, &NoBody)
            .map(drop)
    }

    pub fn logout(&self) -> Result<(), ClientError> {
        self.simple::<Logout>(&NoBody).map(drop)
    }

    /// Joins the queue of `rules` (a preset; the server's default when `None`), ranked or
    /// casual, and returns at once: the wait goes on in the background until the server
    /// seats the player (a long poll, held up to [`QUEUE_POLL_LIMIT`]), and may be cancelled.
    /// Not retried: a new request is a new place at the back of the queue.
    pub fn start_queue(&self, rules: Option<&str>, ranked: bool) -> Result<QueueWait, ClientError> {
        QueueWait::start(&self.base, self.token.clone(), rules, ranked)
    }

    /// Waits in the queue until seated: the table to join with an online session.
    pub fn queue(&self, rules: Option<&str>, ranked: bool) -> Result<Seated, ClientError> {
        let wait = self.start_queue(rules, ranked)?;
        wait.wait(QUEUE_POLL_LIMIT + Duration::from_secs(10))
            .unwrap_or_else(|| Err(ClientError::Network("the queue did not answer".into())))
    }

    /// The account's ratings, one per rule set it was rated in (none for a new account).
    pub fn ratings(&self) -> Result<Vec<Rating>, ClientError> {
        Ok(self.simple::<Ratings>(&NoBody)?.ratings)
    }

    /// Makes a private room with these settings (checked first: bad ones are not sent); the
    /// owner is admitted. The answer carries the 6-digit code to give to friends.
    pub fn create_room(&self, settings: &RoomSettings) -> Result<RoomInfo, ClientError> {
        check_room(settings)?;
        self.simple::<CreateRoom>(settings)
    }

    /// A room this account was admitted to, as it is now (who joined, same-IP pairs).
    pub fn room(&self, code: &str) -> Result<RoomInfo, ClientError> {
        self.call::<ShowRoom>(&check_room_code(code)?, &NoParams {}, &NoBody)
    }

    /// Joins a friend's room by its code (joining again gives the same answer).
    pub fn join_room(&self, code: &str) -> Result<RoomInfo, ClientError> {
        self.call::<JoinRoom>(&check_room_code(code)?, &NoParams {}, &NoBody)
    }
}

impl SyncTransport for HttpApi {
    fn upload(&self, request: &UploadRequest) -> Result<UploadResponse, ClientError> {
        self.simple::<Upload>(request)
    }

    fn pull(&self, cursor: Option<&str>, limit: u32) -> Result<PullResponse, ClientError> {
        let query = PullQuery {
            cursor: cursor.map(str::to_string),
            limit: Some(limit),
        };
        self.call::<Pull>(&NoParams {}, &query, &NoBody)
    }
}

fn server_error(status: u16, resp: Response) -> ClientError {
    ClientError::refused(status, &resp.text().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::time::Instant;
    use tongcheng_api::play::Tier;

    /// A one-thread HTTP server that answers each connection with the next canned response.
    fn canned(responses: Vec<String>) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        std::thread::spawn(move || {
            for r in responses {
                let (mut s, _) = l.accept().unwrap();
                let mut buf = [0u8; 4096];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = s.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                let _ = s.write_all(r.as_bytes());
            }
        });
        url
    }

    fn response(status: &str, headers: &str, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
            body.len()
        )
    }

    const ACCOUNT: &str =
        r#"{"account":{"id":7,"display_name":"Player-1"},"device_id":3,"records":5}"#;

    #[test]
    fn retry_after_is_honoured_and_transient_errors_retried() {
        let busy = r#"{"error":{"code":"rate_limited","message":"later"}}"#;
        let url = canned(vec![
            response("429 Too Many Requests", "retry-after: 1\r\n", busy),
            response("503 Service Unavailable", "", "{}"),
            response("200 OK", "", ACCOUNT),
        ]);
        let api = HttpApi::new(&url).unwrap().with_retry(RetryPolicy {
            attempts: 3,
            base_delay: Duration::from_millis(10),
            ..RetryPolicy::default()
        });
        let start = Instant::now();
        let a = api.account().unwrap();
        assert_eq!((a.account.id, a.records), (7, 5));
        assert!(start.elapsed() >= Duration::from_secs(1), "waited as told");
    }

    #[test]
    fn final_errors_carry_the_servers_code_and_long_waits_give_up() {
        let url = canned(vec![
            response(
                "401 Unauthorized",
                "",
                r#"{"error":{"code":"unauthorized","message":"no"}}"#,
            ),
            response("429 Too Many Requests", "retry-after: 3600\r\n", "{}"),
        ]);
        let api = HttpApi::new(&url).unwrap();
        let e = api.account().unwrap_err();
        assert!(e.is_unauthorized(), "{e}");
        let start = Instant::now();
        let e = api.account().unwrap_err();
        assert!(matches!(e, ClientError::Server { status: 429, .. }), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
        // Nobody listening: a network error after the retries.
        let api = HttpApi::new("http://127.0.0.1:9")
            .unwrap()
            .with_retry(RetryPolicy {
                attempts: 2,
                base_delay: Duration::from_millis(1),
                ..RetryPolicy::default()
            });
        assert!(matches!(api.account(), Err(ClientError::Network(_))));
        assert!(HttpApi::new("ftp://x").is_err());
    }

    /// Like `canned`, and hands each request (head and body) to the test.
    fn canned_seen(responses: Vec<String>) -> (String, std::sync::mpsc::Receiver<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for r in responses {
                let (mut s, _) = l.accept().unwrap();
                let mut got = Vec::new();
                let mut buf = [0u8; 4096];
                let head_end = loop {
                    if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                    let n = s.read(&mut buf).unwrap();
                    if n == 0 {
                        break got.len();
                    }
                    got.extend_from_slice(&buf[..n]);
                };
                let head = String::from_utf8_lossy(&got[..head_end]).to_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                while got.len() < head_end + len {
                    let n = s.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                let _ = tx.send(String::from_utf8_lossy(&got).into_owned());
                let _ = s.write_all(r.as_bytes());
            }
        });
        (url, rx)
    }

    fn logged_in(url: &str) -> HttpApi {
        let mut api = HttpApi::new(url).unwrap().with_retry(RetryPolicy {
            attempts: 1,
            ..RetryPolicy::default()
        });
        api.set_token(Some("t0k".into()));
        api
    }

    #[test]
    fn ratings_are_read_with_tiers_and_provisional_status() {
        let body = r#"{"ratings":[
            {"rules":"guobiao","mu":27.5,"sigma":3.1,"conservative":18.2,"games":14,"provisional":false,"provisional_games":10,"tier":"gold"},
            {"rules":"hangzhou","mu":25.0,"sigma":8.3,"conservative":0.0,"games":2,"provisional":true,"provisional_games":10,"tier":null}]}"#;
        let (url, seen) = canned_seen(vec![
            response("200 OK", "", body),
            response("200 OK", "", r#"{"ratings":[]}"#),
        ]);
        let api = logged_in(&url);
        let r = api.ratings().unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].tier.clone(), r[0].games, r[0].provisional),
            (Some(Tier::Gold), 14, false)
        );
        assert_eq!((r[1].tier.clone(), r[1].provisional), (None, true));
        let req = seen.recv().unwrap();
        assert!(req.starts_with("GET /v1/ratings "), "{req}");
        assert!(
            req.to_lowercase().contains("authorization: bearer t0k"),
            "{req}"
        );
        assert!(api.ratings().unwrap().is_empty(), "a new account has none");
    }

    #[test]
    fn a_room_is_made_joined_and_shown_with_same_ip_pairs() {
        let made = r#"{"code":"042917","table":"ab12","server":"http://n1","people":2,"admitted":1,
            "players":[{"account":7,"name":"A"}],"same_ip":[]}"#;
        let joined = r#"{"code":"042917","table":"ab12","server":"http://n1","people":2,"admitted":2,
            "players":[{"account":7,"name":"A"},{"account":9,"name":"B"}],"same_ip":[[7,9]]}"#;
        let full =
            r#"{"error":{"code":"room_full","message":"every invitation to this room is taken"}}"#;
        let (url, seen) = canned_seen(vec![
            response("200 OK", "", made),
            response("200 OK", "", joined),
            response("200 OK", "", joined),
            response("409 Conflict", "", full),
        ]);
        let api = logged_in(&url);
        let settings = RoomSettings {
            rules: Some("guobiao".into()),
            hands: Some(4),
            discard_secs: Some(15),
            people: 2,
            bots: vec!["hard".into(), "easy".into()],
            ..RoomSettings::default()
        };
        let room = api.create_room(&settings).unwrap();
        assert_eq!(
            (room.code.as_str(), room.people, room.admitted),
            ("042917", 2, 1)
        );
        let req = seen.recv().unwrap();
        assert!(req.starts_with("POST /v1/rooms "), "{req}");
        let body: serde_json::Value =
            serde_json::from_str(&req[req.find("\r\n\r\n").unwrap() + 4..]).unwrap();
        // Unset choices are left out (the server refuses unknown fields, and null is not a
        // number of hands).
        assert_eq!(
            body,
            serde_json::json!({"rules":"guobiao","hands":4,"discard_secs":15,"people":2,"bots":["hard","easy"]})
        );
        let j = api.join_room("042917").unwrap();
        assert_eq!((j.admitted, j.same_ip.clone()), (2, vec![[7, 9]]));
        assert!(
            seen.recv()
                .unwrap()
                .starts_with("POST /v1/rooms/042917/join ")
        );
        assert_eq!(api.room("042917").unwrap(), j);
        assert!(seen.recv().unwrap().starts_with("GET /v1/rooms/042917 "));
        let e = api.join_room("042917").unwrap_err();
        assert!(
            matches!(&e, ClientError::Server { status: 409, code, .. } if code == "room_full"),
            "{e}"
        );
    }

    #[test]
    fn bad_room_input_is_refused_without_a_request() {
        // Nobody listens here: a request would be a network error, not an input error.
        let api = logged_in("http://127.0.0.1:9");
        for code in ["12345", "abcdef", "1/../x"] {
            assert!(matches!(
                api.join_room(code),
                Err(ClientError::InvalidInput(_))
            ));
            assert!(matches!(api.room(code), Err(ClientError::InvalidInput(_))));
        }
        let five = RoomSettings {
            people: 5,
            ..RoomSettings::default()
        };
        assert!(matches!(
            api.create_room(&five),
            Err(ClientError::InvalidInput(_))
        ));
    }

    #[test]
    fn the_queue_answers_the_table_and_its_refusals_are_not_retried() {
        let seated = r#"{"table":"t1","rules":"guobiao","ranked":false,"people":1,"bots":3,"server":"http://n1"}"#;
        let timeout =
            r#"{"error":{"code":"queue_timeout","message":"no table could be made in time"}}"#;
        let (url, seen) = canned_seen(vec![
            response("200 OK", "", seated),
            response("503 Service Unavailable", "", timeout),
        ]);
        let api = logged_in(&url);
        let s = api.queue(Some("guobiao"), false).unwrap();
        assert_eq!(
            (s.table.as_str(), s.people, s.bots, s.ranked),
            ("t1", 1, 3, false)
        );
        let req = seen.recv().unwrap();
        assert!(req.starts_with("POST /v1/queue "), "{req}");
        assert!(
            req.ends_with(r#"{"rules":"guobiao","ranked":false}"#),
            "{req}"
        );
        assert!(
            req.to_lowercase().contains("authorization: bearer t0k"),
            "{req}"
        );
        // 503 is transient elsewhere, but a queue request again would be a new place.
        let e = api.queue(None, true).unwrap_err();
        assert!(
            matches!(&e, ClientError::Server { status: 503, code, .. } if code == "queue_timeout"),
            "{e}"
        );
        assert!(seen.recv().unwrap().ends_with(r#"{"ranked":true}"#));
    }

    #[test]
    fn a_queue_wait_is_cancelled_by_closing_its_connection() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let (tx, closed) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            // Never answers; reports when the client hangs up.
            let mut buf = [0u8; 4096];
            loop {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            let _ = tx.send(());
        });
        let api = logged_in(&url);
        let wait = api.start_queue(Some("guobiao"), false).unwrap();
        assert!(
            wait.wait(Duration::from_millis(300)).is_none(),
            "still waiting"
        );
        assert!(!wait.is_finished());
        assert!(wait.waited() >= Duration::from_millis(300));
        assert!(wait.cancel(), "the wait was under way");
        assert!(matches!(
            wait.wait(Duration::from_secs(1)),
            Some(Err(ClientError::Cancelled))
        ));
        assert!(
            wait.wait(Duration::ZERO).is_none(),
            "the outcome is handed over once"
        );
        assert!(!wait.cancel(), "already over");
        closed
            .recv_timeout(Duration::from_secs(5))
            .expect("the server saw the connection close");
    }
}
