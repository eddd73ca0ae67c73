//! The online session: one seat at a server-hosted table, over a WebSocket — the blocking
//! driver of the [`SeatStream`] machine.
//!
//! Shaped like the offline game (a table model, `act`, hints, events) so a shell drives both
//! the same way. The socket lives on a small tokio runtime in the session's own thread; the
//! caller's side is blocking and thread-safe, which is what the terminal and the FFI want.
//! What the stream means (order, resumes, the fairness check) is the machine's; this module
//! only moves frames and wakes the caller.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tongcheng_core::fair::FairnessError;
use tongcheng_core::game::{Action, Decision, SeatView};
use tongcheng_core::hint::Hint;
use tongcheng_core::protocol::{ClientMsg, ErrorCode, MAX_SERVER_MESSAGE};
use tongcheng_core::record::HandRecord;
use tongcheng_core::seat::Seat;

use crate::ClientError;
use crate::locks::{CondvarExt, LockExt};
pub use crate::seat_stream::{OnlineOptions, OnlineUpdate, SeatStream, StreamStats};

#[derive(Debug)]
struct State {
    stream: SeatStream,
    /// The origin of the stream's clock.
    epoch: Instant,
    updates: VecDeque<OnlineUpdate>,
    /// Welcomes, error frames and lost connections so far: a join waits for the next one.
    joins: u64,
    errors: u64,
    losses: u64,
}

impl State {
    fn new(options: OnlineOptions) -> State {
        State {
            stream: SeatStream::new(options, crate::entropy()),
            epoch: Instant::now(),
            updates: VecDeque::new(),
            joins: 0,
            errors: 0,
            losses: 0,
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn push(&mut self, update: OnlineUpdate) {
        match &update {
            OnlineUpdate::Joined { .. } => self.joins += 1,
            OnlineUpdate::Error { .. } => self.errors += 1,
            OnlineUpdate::Disconnected { .. } => self.losses += 1,
            _ => {}
        }
        self.updates.push_back(update);
    }
}

/// What the caller's side asks the socket thread.
#[derive(Debug)]
enum Ctl {
    Send(ClientMsg),
    /// Drop the connection at once (tests: a phone losing its network).
    Drop,
    Reconnect,
    /// Reconnect at another server node (`ws(s)://…/v1/play`).
    ReconnectTo(String),
    Close,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

/// A seat at an online table.
pub struct OnlineSession {
    shared: Shared,
    ctl: mpsc::UnboundedSender<Ctl>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for OnlineSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = lock(&self.shared);
        f.debug_struct("OnlineSession")
            .field("table", &s.stream.table_id())
            .field("player", &s.stream.player())
            .field("stats", s.stream.stats())
            .finish_non_exhaustive()
    }
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.0.locked()
}

/// `http://host/…` → `ws://host/v1/play` (and https → wss).
pub(crate) fn play_url(server: &str) -> Result<String, ClientError> {
    socket_url(server, "/v1/play")
}

/// The WebSocket address of `path` on `server` (an `http(s)://` or `ws(s)://` base).
pub fn socket_url(server: &str, path: &str) -> Result<String, ClientError> {
    let base = server.trim_end_matches('/');
    let rest = if let Some(r) = base.strip_prefix("https://") {
        format!("wss://{r}")
    } else if let Some(r) = base.strip_prefix("http://") {
        format!("ws://{r}")
    } else if base.starts_with("ws://") || base.starts_with("wss://") {
        base.to_string()
    } else {
        return Err(ClientError::Protocol(format!(
            "'{server}' is not an http(s) or ws(s) address"
        )));
    };
    Ok(format!("{rest}{path}"))
}

/// The error a refused join comes back as (the server's code, as its HTTP errors carry it).
pub(crate) fn refused_join(code: ErrorCode, message: String) -> ClientError {
    ClientError::Server {
        status: 0,
        code: serde_json::to_value(code)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        message,
    }
}

impl OnlineSession {
    /// Connects with session `token`, joins the table, and waits for the welcome. A server
    /// node that does not run the table names the one that does (`wrong_node`): the join is
    /// made there instead, once (a second redirect is an error, never a loop).
    pub fn connect(
        server: &str,
        token: &str,
        options: OnlineOptions,
    ) -> Result<OnlineSession, ClientError> {
        match OnlineSession::connect_once(server, token, options.clone()) {
            Err(ClientError::Server { code, message, .. })
                if code == "wrong_node" && message != server =>
            {
                OnlineSession::connect_once(&message, token, options)
            }
            other => other,
        }
    }

    fn connect_once(
        server: &str,
        token: &str,
        options: OnlineOptions,
    ) -> Result<OnlineSession, ClientError> {
        let url = play_url(server)?;
        let shared: Shared = Arc::new((Mutex::new(State::new(options)), Condvar::new()));
        let (ctl, ctl_rx) = mpsc::unbounded_channel();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Network(format!("no runtime: {e}")))?;
        let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| ClientError::Protocol("the session token is not header text".into()))?;
        let worker = Worker {
            url,
            bearer,
            shared: shared.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("tongcheng-online".into())
            .spawn(move || runtime.block_on(worker.run(ctl_rx)))
            .map_err(|e| ClientError::Network(format!("no thread: {e}")))?;
        let session = OnlineSession {
            shared,
            ctl,
            thread: Some(thread),
        };
        session.wait_joined((0, 0, 0), Duration::from_secs(15))?;
        Ok(session)
    }

    fn counters(&self) -> (u64, u64, u64) {
        let s = lock(&self.shared);
        (s.joins, s.errors, s.losses)
    }

    /// Waits for a welcome after the counters `before`; an error frame or a lost
    /// connection after them fails the join.
    fn wait_joined(&self, before: (u64, u64, u64), limit: Duration) -> Result<(), ClientError> {
        let until = Instant::now() + limit;
        let (m, cv) = &*self.shared;
        let mut s = m.locked();
        loop {
            if s.joins > before.0 && s.stream.is_connected() {
                return Ok(());
            }
            if s.errors > before.1
                && let Some(OnlineUpdate::Error { code, message }) = s
                    .updates
                    .iter()
                    .rev()
                    .find(|u| matches!(u, OnlineUpdate::Error { .. }))
            {
                return Err(refused_join(*code, message.clone()));
            }
            if s.losses > before.2 {
                let reason = s
                    .updates
                    .iter()
                    .rev()
                    .find_map(|u| match u {
                        OnlineUpdate::Disconnected { reason } => Some(reason.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| "the connection was lost".into());
                return Err(ClientError::Network(reason));
            }
            let now = Instant::now();
            if now >= until {
                return Err(ClientError::Network("no welcome from the server".into()));
            }
            s = cv.wait_at_most(s, until - now);
        }
    }

    /// The next update, waiting up to `timeout`.
    pub fn next_update(&self, timeout: Duration) -> Option<OnlineUpdate> {
        let until = Instant::now() + timeout;
        let (m, cv) = &*self.shared;
        let mut s = m.locked();
        loop {
            if let Some(u) = s.updates.pop_front() {
                return Some(u);
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            s = cv.wait_at_most(s, until - now);
        }
    }

    /// Answers the pending decision. Refused here when it is not one of the legal actions
    /// (the server would refuse it too); the engine on the server has the last word.
    pub fn act(&self, action: Action) -> Result<(), ClientError> {
        let answer = lock(&self.shared)
            .stream
            .act(action)
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.send(answer)
    }

    /// This hand's 飘, when the server asks for it; false when nothing is asked now.
    pub fn piao(&self, stake: u8) -> Result<bool, ClientError> {
        let msg = lock(&self.shared).stream.piao(stake);
        match msg {
            Some(m) => self.send(m).map(|()| true),
            None => Ok(false),
        }
    }

    /// Sends a message as it is (tests send what a hostile client would).
    pub fn send(&self, msg: ClientMsg) -> Result<(), ClientError> {
        self.ctl
            .send(Ctl::Send(msg))
            .map_err(|_| ClientError::Network("the session is closed".into()))
    }

    /// The table as this seat last saw it (at its last decision, or the snapshot).
    pub fn table(&self) -> Option<SeatView> {
        lock(&self.shared).stream.view().cloned()
    }

    /// The pending decision and its id.
    pub fn decision(&self) -> Option<(u64, Decision)> {
        lock(&self.shared).stream.decision().cloned()
    }

    /// Time left for the pending decision.
    pub fn time_left(&self) -> Option<Duration> {
        let s = lock(&self.shared);
        let now = s.now();
        s.stream
            .deadline()
            .map(|d| Duration::from_millis(d.saturating_sub(now)))
    }

    /// The core's hint for the pending decision.
    pub fn hint(&self) -> Option<Hint> {
        lock(&self.shared).stream.hint()
    }

    /// The hand being played (0-based), or the last one.
    pub fn hand(&self) -> u32 {
        lock(&self.shared).stream.hand()
    }

    pub fn player(&self) -> Option<u8> {
        lock(&self.shared).stream.player()
    }

    /// The tournament round this table belongs to, when it is a round's table.
    pub fn round(&self) -> Option<tongcheng_core::protocol::RoundTable> {
        lock(&self.shared).stream.round().cloned()
    }

    pub fn table_id(&self) -> Option<String> {
        lock(&self.shared).stream.table_id().map(str::to_string)
    }

    pub fn scores(&self) -> [i32; 4] {
        lock(&self.shared).stream.scores()
    }

    pub fn is_over(&self) -> bool {
        lock(&self.shared).stream.is_over()
    }

    pub fn is_connected(&self) -> bool {
        lock(&self.shared).stream.is_connected()
    }

    pub fn auto_play(&self) -> bool {
        lock(&self.shared).stream.auto_play()
    }

    pub fn stats(&self) -> StreamStats {
        lock(&self.shared).stream.stats().clone()
    }

    /// Every finished hand: its record, our seat in it, and its fairness check.
    pub fn records(&self) -> Vec<(HandRecord, Seat, Result<(), FairnessError>)> {
        lock(&self.shared).stream.records().to_vec()
    }

    /// Every frame received, as text, when captured.
    pub fn frames(&self) -> Vec<String> {
        lock(&self.shared).stream.frames().to_vec()
    }

    /// Drops the connection at once, keeping the session (the seat plays on by itself).
    pub fn drop_connection(&self) {
        let _ = self.ctl.send(Ctl::Drop);
    }

    /// Connects again and takes the seat back: the frames missed, then a snapshot. When the
    /// table has moved to another server node (`wrong_node`), the seat is taken there.
    pub fn reconnect(&self) -> Result<(), ClientError> {
        self.follow(self.reconnect_with(Ctl::Reconnect))
    }

    /// [`OnlineSession::reconnect`] at another server node: when the node running the table
    /// stopped, any other node (a deployment's entry address) finds the table, or takes it
    /// over and deals its next hand (a notice with code `hand_voided` says so).
    pub fn reconnect_at(&self, server: &str) -> Result<(), ClientError> {
        let url = play_url(server)?;
        self.follow(self.reconnect_with(Ctl::ReconnectTo(url)))
    }

    fn reconnect_with(&self, how: Ctl) -> Result<(), ClientError> {
        let before = self.counters();
        self.ctl
            .send(how)
            .map_err(|_| ClientError::Network("the session is closed".into()))?;
        self.wait_joined(before, Duration::from_secs(15))
    }

    /// Follows one `wrong_node` answer to the node it names (never a loop).
    fn follow(&self, result: Result<(), ClientError>) -> Result<(), ClientError> {
        match result {
            Err(ClientError::Server { code, message, .. }) if code == "wrong_node" => {
                let url = play_url(&message)?;
                self.reconnect_with(Ctl::ReconnectTo(url))
            }
            other => other,
        }
    }
}

impl Drop for OnlineSession {
    fn drop(&mut self) {
        let _ = self.ctl.send(Ctl::Close);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The socket side: connects, feeds frames to the stream, writes what it and the caller
/// send.
struct Worker {
    url: String,
    bearer: HeaderValue,
    shared: Shared,
}

/// How one connection ended.
enum Ended {
    Closed,
    Reconnect,
    ReconnectTo(String),
    Lost(String),
}

impl Worker {
    async fn run(mut self, mut ctl: mpsc::UnboundedReceiver<Ctl>) {
        loop {
            let ended = self.connection(&mut ctl).await;
            if let Ended::ReconnectTo(url) = &ended {
                self.url = url.clone();
            }
            {
                let mut s = lock(&self.shared);
                let reason = match &ended {
                    Ended::Lost(reason) => Some(reason.clone()),
                    _ => None,
                };
                if let Some(u) = s.stream.disconnected(reason) {
                    s.push(u);
                }
            }
            self.shared.1.notify_all();
            match ended {
                Ended::Closed => return,
                Ended::Reconnect | Ended::ReconnectTo(_) => continue,
                // Wait for the caller to ask for a reconnect (or to close).
                Ended::Lost(_) => loop {
                    match ctl.recv().await {
                        None | Some(Ctl::Close) => return,
                        Some(Ctl::Reconnect) => break,
                        Some(Ctl::ReconnectTo(url)) => {
                            self.url = url;
                            break;
                        }
                        Some(_) => {}
                    }
                },
            }
        }
    }

    async fn connection(&self, ctl: &mut mpsc::UnboundedReceiver<Ctl>) -> Ended {
        let mut request = match self.url.as_str().into_client_request() {
            Ok(r) => r,
            Err(e) => return Ended::Lost(format!("bad address: {e}")),
        };
        request
            .headers_mut()
            .insert("authorization", self.bearer.clone());
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_SERVER_MESSAGE))
            .max_frame_size(Some(MAX_SERVER_MESSAGE));
        let ws =
            match tokio_tungstenite::connect_async_with_config(request, Some(config), true).await {
                Ok((ws, _)) => ws,
                Err(e) => return Ended::Lost(format!("cannot connect: {e}")),
            };
        let (mut sink, mut stream) = ws.split();
        let (join, mut wake) = {
            let mut s = lock(&self.shared);
            let now = s.now();
            let join = s.stream.join(now);
            (join, self.wake(&s))
        };
        if sink
            .send(Message::Text(join.to_json().into()))
            .await
            .is_err()
        {
            return Ended::Lost("the connection closed at once".into());
        }
        loop {
            let out = tokio::select! {
                c = ctl.recv() => match c {
                    None | Some(Ctl::Close) => {
                        let _ = sink.send(Message::Text(ClientMsg::Leave.to_json().into())).await;
                        let _ = sink.close().await;
                        return Ended::Closed;
                    }
                    Some(Ctl::Drop) => return Ended::Lost("dropped".into()),
                    Some(Ctl::Reconnect) => return Ended::Reconnect,
                    Some(Ctl::ReconnectTo(url)) => return Ended::ReconnectTo(url),
                    Some(Ctl::Send(m)) => vec![m],
                },
                f = stream.next() => match f {
                    Some(Ok(Message::Text(t))) => self.frame(t.as_str()),
                    Some(Ok(Message::Close(_))) | None => {
                        return Ended::Lost("the server closed the connection".into());
                    }
                    Some(Ok(_)) => Vec::new(),
                    Some(Err(e)) => return Ended::Lost(format!("the connection broke: {e}")),
                },
                () = tokio::time::sleep_until(wake.into()) => {
                    let mut s = lock(&self.shared);
                    let now = s.now();
                    s.stream.tick(now).into_iter().collect()
                }
            };
            for m in out {
                if sink.send(Message::Text(m.to_json().into())).await.is_err() {
                    return Ended::Lost("the connection broke".into());
                }
            }
            wake = self.wake(&lock(&self.shared));
        }
    }

    /// When the stream next has something of its own to send.
    fn wake(&self, s: &State) -> Instant {
        s.epoch + Duration::from_millis(s.stream.next_tick())
    }

    /// Takes one frame into the stream; returns what to answer (contributions, ready).
    fn frame(&self, text: &str) -> Vec<ClientMsg> {
        let step = {
            let mut s = lock(&self.shared);
            let now = s.now();
            let step = s.stream.receive(text, now);
            for u in step.updates {
                s.push(u);
            }
            step.send
        };
        self.shared.1.notify_all();
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_addresses_become_play_urls() {
        assert_eq!(play_url("http://h:8080").unwrap(), "ws://h:8080/v1/play");
        assert_eq!(play_url("https://h/").unwrap(), "wss://h/v1/play");
        assert_eq!(play_url("ws://h").unwrap(), "ws://h/v1/play");
        assert!(play_url("ftp://h").is_err());
    }

    #[test]
    fn frames_reach_the_caller_through_the_stream_and_errors_are_counted() {
        let w = Worker {
            url: String::new(),
            bearer: HeaderValue::from_static("Bearer x"),
            shared: Arc::new((
                Mutex::new(State::new(OnlineOptions::default())),
                Condvar::new(),
            )),
        };
        assert!(w.frame("{not json").is_empty());
        let s = lock(&w.shared);
        assert_eq!((s.joins, s.errors, s.losses), (0, 1, 0));
        assert!(matches!(
            s.updates.back(),
            Some(OnlineUpdate::Error {
                code: ErrorCode::BadMessage,
                ..
            })
        ));
    }
}
