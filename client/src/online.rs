//! The online session: one seat at a server-hosted table, over a WebSocket.
//!
//! Shaped like the offline game (a table model, `act`, hints, events) so a shell drives both
//! the same way. The socket lives on a small tokio runtime in the session's own thread; the
//! caller's side is blocking and thread-safe, which is what the terminal and the FFI want.
//!
//! The session keeps the stream's order: frames carry sequence numbers, a frame already held
//! is dropped and a gap is counted (the tests assert there is none), and a reconnect asks for
//! exactly the frames after the last one held. Every hand is checked for fairness when it
//! ends ([`tongcheng_core::protocol::verify_hand`]): the client sent its own random
//! contribution after the server's commitment, and checks the reveal, the wall seed, the
//! replay and every event it was shown. A mismatch is reported, never hidden.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tongcheng_core::fair::{Bytes32, Commitment, Contribution, FairnessError};
use tongcheng_core::game::{Action, Decision, Event, SeatView};
use tongcheng_core::hint::{Hint, hint};
use tongcheng_core::protocol::{
    ClientMsg, ErrorCode, MAX_SERVER_MESSAGE, PROTOCOL_VERSION, PlayerInfo, ServerMsg, verify_hand,
};
use tongcheng_core::record::HandRecord;
use tongcheng_core::seat::Seat;

use crate::ClientError;
use crate::locks::{CondvarExt, LockExt};

/// What to sit down at.
#[derive(Clone, Debug, Default)]
pub struct OnlineOptions {
    /// The table's id; none: a new table of one's own.
    pub table: Option<String>,
    /// A new table's people (1–4; the server's bots take the other seats).
    pub people: Option<u8>,
    /// A new table's rule-set preset.
    pub rules: Option<String>,
    /// Keep every frame received, as text (tests prove what went over the wire).
    pub capture_frames: bool,
}

/// Something that happened, in order, for the shell to show.
#[derive(Clone, Debug, PartialEq)]
pub enum OnlineUpdate {
    Joined {
        table: String,
        player: u8,
        players: Vec<PlayerInfo>,
        resumed: bool,
    },
    /// A new hand's wall is committed (our contribution is already on its way).
    Committed {
        hand: u32,
    },
    Event {
        hand: u32,
        index: u32,
        event: Event,
    },
    /// Our decision: answer with [`OnlineSession::act`].
    Decision {
        id: u64,
        decision: Decision,
    },
    AutoPlay {
        on: bool,
    },
    /// A hand ended; `fair` says whether it verified.
    HandEnd {
        hand: u32,
        record: Box<HandRecord>,
        seat: Seat,
        fair: Result<(), FairnessError>,
    },
    MatchEnd {
        scores: [i32; 4],
    },
    /// An error frame from the server (the session goes on).
    Error {
        code: ErrorCode,
        message: String,
    },
    /// The connection is gone; [`OnlineSession::reconnect`] takes the seat again.
    Disconnected {
        reason: String,
    },
}

/// Counters of the stream, for shells and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// The last stream frame held.
    pub last_seq: u64,
    /// Frames received again (dropped).
    pub duplicates: u64,
    /// Frames that skipped numbers.
    pub gaps: u64,
    pub hands_verified: u32,
    pub hands_unfair: u32,
}

/// One hand as this client saw it, for the fairness check at its end.
#[derive(Debug, Default)]
struct HandSeen {
    hand: u32,
    commitment: Option<Commitment>,
    /// Our contribution, while the server has not refused it (it arrived after the deal:
    /// we were away); a refused one is expected to be absent from the proof.
    contribution: Option<Contribution>,
    refused: bool,
    events: Vec<(u32, Event)>,
}

#[derive(Debug, Default)]
struct State {
    table: Option<String>,
    player: Option<u8>,
    view: Option<SeatView>,
    decision: Option<(u64, Decision)>,
    deadline: Option<Instant>,
    auto_play: bool,
    scores: [i32; 4],
    match_over: bool,
    connected: bool,
    stats: StreamStats,
    seen: HandSeen,
    updates: VecDeque<OnlineUpdate>,
    records: Vec<(HandRecord, Seat, Result<(), FairnessError>)>,
    frames: Vec<String>,
    capture: bool,
    /// Welcomes, error frames and lost connections so far: a join waits for the next one.
    joins: u64,
    errors: u64,
    losses: u64,
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
            .field("table", &s.table)
            .field("player", &s.player)
            .field("stats", &s.stats)
            .finish_non_exhaustive()
    }
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.0.locked()
}

/// `http://host/…` → `ws://host/v1/play` (and https → wss).
fn play_url(server: &str) -> Result<String, ClientError> {
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
    Ok(format!("{rest}/v1/play"))
}

fn random_contribution() -> Contribution {
    let mut b = [0u8; 32];
    // Without the OS's randomness the contribution is zeros: the wall is then as fair as
    // the server's commitment alone makes it, and the check still runs.
    let _ = getrandom::getrandom(&mut b);
    Bytes32(b)
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
        let shared: Shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        lock(&shared).capture = options.capture_frames;
        lock(&shared).table = options.table.clone();
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
            options,
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
            if s.joins > before.0 && s.connected {
                return Ok(());
            }
            if s.errors > before.1
                && let Some(OnlineUpdate::Error { code, message }) = s
                    .updates
                    .iter()
                    .rev()
                    .find(|u| matches!(u, OnlineUpdate::Error { .. }))
            {
                return Err(ClientError::Server {
                    status: 0,
                    code: serde_json::to_value(code)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    message: message.clone(),
                });
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
        let id = {
            let mut s = lock(&self.shared);
            let Some((id, d)) = &s.decision else {
                return Err(ClientError::Protocol("no decision is pending".into()));
            };
            if !d.legal.contains(&action) {
                return Err(ClientError::Protocol(format!(
                    "{action:?} is not legal now"
                )));
            }
            let id = *id;
            s.decision = None;
            id
        };
        self.send(ClientMsg::Act {
            decision: id,
            action,
        })
    }

    /// Sends a message as it is (tests send what a hostile client would).
    pub fn send(&self, msg: ClientMsg) -> Result<(), ClientError> {
        self.ctl
            .send(Ctl::Send(msg))
            .map_err(|_| ClientError::Network("the session is closed".into()))
    }

    /// The table as this seat last saw it (at its last decision, or the snapshot).
    pub fn table(&self) -> Option<SeatView> {
        lock(&self.shared).view.clone()
    }

    /// The pending decision and its id.
    pub fn decision(&self) -> Option<(u64, Decision)> {
        lock(&self.shared).decision.clone()
    }

    /// Time left for the pending decision.
    pub fn time_left(&self) -> Option<Duration> {
        lock(&self.shared)
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// The core's hint for the pending decision.
    pub fn hint(&self) -> Option<Hint> {
        let s = lock(&self.shared);
        s.decision.as_ref()?;
        s.view.as_ref().and_then(hint)
    }

    /// The hand being played (0-based), or the last one.
    pub fn hand(&self) -> u32 {
        lock(&self.shared).seen.hand
    }

    pub fn player(&self) -> Option<u8> {
        lock(&self.shared).player
    }

    pub fn table_id(&self) -> Option<String> {
        lock(&self.shared).table.clone()
    }

    pub fn scores(&self) -> [i32; 4] {
        lock(&self.shared).scores
    }

    pub fn is_over(&self) -> bool {
        lock(&self.shared).match_over
    }

    pub fn is_connected(&self) -> bool {
        lock(&self.shared).connected
    }

    pub fn auto_play(&self) -> bool {
        lock(&self.shared).auto_play
    }

    pub fn stats(&self) -> StreamStats {
        lock(&self.shared).stats.clone()
    }

    /// Every finished hand: its record, our seat in it, and its fairness check.
    pub fn records(&self) -> Vec<(HandRecord, Seat, Result<(), FairnessError>)> {
        lock(&self.shared).records.clone()
    }

    /// Every frame received, as text, when captured.
    pub fn frames(&self) -> Vec<String> {
        lock(&self.shared).frames.clone()
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

/// The socket side: connects, reads frames into the shared state, writes what the caller
/// sends.
struct Worker {
    url: String,
    bearer: HeaderValue,
    shared: Shared,
    options: OnlineOptions,
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
        let mut first = true;
        loop {
            let ended = self.connection(&mut ctl, first).await;
            if let Ended::ReconnectTo(url) = &ended {
                self.url = url.clone();
            }
            first = false;
            {
                let mut s = lock(&self.shared);
                s.connected = false;
                if let Ended::Lost(reason) = &ended {
                    s.losses += 1;
                    s.updates.push_back(OnlineUpdate::Disconnected {
                        reason: reason.clone(),
                    });
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

    async fn connection(&self, ctl: &mut mpsc::UnboundedReceiver<Ctl>, first: bool) -> Ended {
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
        let join = {
            let s = lock(&self.shared);
            ClientMsg::Join {
                version: PROTOCOL_VERSION,
                table: s.table.clone(),
                people: self.options.people.filter(|_| first),
                rules: self.options.rules.clone().filter(|_| first),
                after: (!first).then_some(s.stats.last_seq),
            }
        };
        if sink
            .send(Message::Text(join.to_json().into()))
            .await
            .is_err()
        {
            return Ended::Lost("the connection closed at once".into());
        }
        let mut ping = tokio::time::interval(Duration::from_secs(15));
        let mut nonce = 0u64;
        loop {
            tokio::select! {
                c = ctl.recv() => match c {
                    None | Some(Ctl::Close) => {
                        let _ = sink.send(Message::Text(ClientMsg::Leave.to_json().into())).await;
                        let _ = sink.close().await;
                        return Ended::Closed;
                    }
                    Some(Ctl::Drop) => return Ended::Lost("dropped".into()),
                    Some(Ctl::Reconnect) => return Ended::Reconnect,
                    Some(Ctl::ReconnectTo(url)) => return Ended::ReconnectTo(url),
                    Some(Ctl::Send(m)) => {
                        if sink.send(Message::Text(m.to_json().into())).await.is_err() {
                            return Ended::Lost("the connection broke".into());
                        }
                    }
                },
                f = stream.next() => match f {
                    Some(Ok(Message::Text(t))) => {
                        let replies = self.frame(t.as_str());
                        for r in replies {
                            if sink.send(Message::Text(r.to_json().into())).await.is_err() {
                                return Ended::Lost("the connection broke".into());
                            }
                        }
                    }
                    Some(Ok(Message::Close(_))) | None => {
                        return Ended::Lost("the server closed the connection".into());
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Ended::Lost(format!("the connection broke: {e}")),
                },
                _ = ping.tick() => {
                    nonce += 1;
                    let p = ClientMsg::Ping { nonce };
                    if sink.send(Message::Text(p.to_json().into())).await.is_err() {
                        return Ended::Lost("the connection broke".into());
                    }
                }
            }
        }
    }

    /// Takes one frame into the state; returns what to answer (contributions, ready).
    fn frame(&self, text: &str) -> Vec<ClientMsg> {
        let mut replies = Vec::new();
        let mut s = lock(&self.shared);
        if s.capture {
            s.frames.push(text.to_string());
        }
        let msg = match ServerMsg::parse(text) {
            Ok(m) => m,
            Err(e) => {
                s.errors += 1;
                s.updates.push_back(OnlineUpdate::Error {
                    code: ErrorCode::BadMessage,
                    message: format!("from the server: {e}"),
                });
                drop(s);
                self.shared.1.notify_all();
                return replies;
            }
        };
        if let Some(seq) = msg.seq() {
            if seq <= s.stats.last_seq {
                s.stats.duplicates += 1;
                return replies;
            }
            if seq != s.stats.last_seq + 1 {
                s.stats.gaps += 1;
            }
            s.stats.last_seq = seq;
        }
        match msg {
            ServerMsg::Welcome {
                table,
                player,
                players,
                resumed,
                ..
            } => {
                s.table = Some(table.clone());
                s.player = Some(player);
                s.connected = true;
                s.joins += 1;
                s.updates.push_back(OnlineUpdate::Joined {
                    table,
                    player,
                    players,
                    resumed,
                });
            }
            ServerMsg::Snapshot(snap) => {
                if let Some(v) = snap.view {
                    s.decision = snap.decision.zip(v.decision.clone());
                    s.view = Some(v);
                } else {
                    s.decision = None;
                }
                s.deadline = snap
                    .deadline_ms
                    .map(|ms| Instant::now() + Duration::from_millis(ms));
                s.scores = snap.scores;
                s.auto_play = snap.auto_play;
                s.match_over = snap.match_over;
                if s.seen.hand != snap.hand {
                    s.seen = HandSeen {
                        hand: snap.hand,
                        ..HandSeen::default()
                    };
                }
                if s.seen.commitment.is_none() {
                    s.seen.commitment = snap.commitment;
                }
                if let Some((id, d)) = s.decision.clone() {
                    s.updates
                        .push_back(OnlineUpdate::Decision { id, decision: d });
                }
            }
            ServerMsg::Commit {
                hand, commitment, ..
            } => {
                let contribution = random_contribution();
                s.seen = HandSeen {
                    hand,
                    commitment: Some(commitment),
                    contribution: Some(contribution),
                    refused: false,
                    events: Vec::new(),
                };
                s.view = None;
                s.decision = None;
                replies.push(ClientMsg::Contribute { hand, contribution });
                s.updates.push_back(OnlineUpdate::Committed { hand });
            }
            ServerMsg::Event {
                hand, index, event, ..
            } => {
                if hand == s.seen.hand {
                    s.seen.events.push((index, event.clone()));
                }
                s.updates
                    .push_back(OnlineUpdate::Event { hand, index, event });
            }
            ServerMsg::Decision {
                id,
                decision,
                view,
                deadline_ms,
                ..
            } => {
                s.view = Some(*view);
                s.decision = Some((id, decision.clone()));
                s.deadline = deadline_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
                s.updates.push_back(OnlineUpdate::Decision { id, decision });
            }
            ServerMsg::AutoPlay { on, .. } => {
                s.auto_play = on;
                s.updates.push_back(OnlineUpdate::AutoPlay { on });
            }
            ServerMsg::HandEnd(end) => {
                let fair = match &s.seen.commitment {
                    Some(c) if s.seen.hand == end.hand => {
                        let refused = s.seen.refused;
                        let ours = end
                            .record
                            .fairness
                            .as_ref()
                            .and_then(|f| f.contributions[end.seat.index()]);
                        if refused && ours.is_some() {
                            // Refused, yet "used": the server is not telling the truth.
                            Err(FairnessError::Contribution)
                        } else {
                            verify_hand(
                                &end.record,
                                c,
                                end.seat,
                                s.seen.contribution.as_ref().filter(|_| !refused),
                                &s.seen.events,
                            )
                        }
                    }
                    _ => Err(FairnessError::Replay(
                        "the wall's commitment for this hand was never received".into(),
                    )),
                };
                if fair.is_ok() {
                    s.stats.hands_verified += 1;
                } else {
                    s.stats.hands_unfair += 1;
                }
                s.scores = end.scores;
                s.decision = None;
                s.records.push((end.record.clone(), end.seat, fair.clone()));
                s.updates.push_back(OnlineUpdate::HandEnd {
                    hand: end.hand,
                    record: Box::new(end.record),
                    seat: end.seat,
                    fair,
                });
                replies.push(ClientMsg::Ready);
            }
            ServerMsg::MatchEnd { scores, .. } => {
                s.scores = scores;
                s.match_over = true;
                s.decision = None;
                s.updates.push_back(OnlineUpdate::MatchEnd { scores });
            }
            ServerMsg::Pong { .. } | ServerMsg::Superseded { .. } => {}
            ServerMsg::Error { code, message } => {
                s.errors += 1;
                if code == ErrorCode::BadContribution {
                    s.seen.refused = true;
                }
                s.updates.push_back(OnlineUpdate::Error { code, message });
            }
        }
        drop(s);
        self.shared.1.notify_all();
        replies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_core::game::Event;

    fn worker() -> Worker {
        Worker {
            url: String::new(),
            bearer: HeaderValue::from_static("Bearer x"),
            shared: Arc::new((Mutex::new(State::default()), Condvar::new())),
            options: OnlineOptions::default(),
        }
    }

    fn event(seq: u64, index: u32) -> String {
        ServerMsg::Event {
            seq,
            hand: 0,
            index,
            event: Event::DrawGame,
        }
        .to_json()
    }

    #[test]
    fn server_addresses_become_play_urls() {
        assert_eq!(play_url("http://h:8080").unwrap(), "ws://h:8080/v1/play");
        assert_eq!(play_url("https://h/").unwrap(), "wss://h/v1/play");
        assert_eq!(play_url("ws://h").unwrap(), "ws://h/v1/play");
        assert!(play_url("ftp://h").is_err());
    }

    #[test]
    fn the_stream_drops_doubles_and_counts_gaps() {
        let w = worker();
        for (seq, index) in [(1, 0), (2, 1), (2, 1), (1, 0), (4, 3)] {
            w.frame(&event(seq, index));
        }
        let s = lock(&w.shared);
        assert_eq!(s.stats.last_seq, 4);
        assert_eq!(s.stats.duplicates, 2);
        assert_eq!(s.stats.gaps, 1);
        let shown: Vec<u32> = s
            .updates
            .iter()
            .filter_map(|u| match u {
                OnlineUpdate::Event { index, .. } => Some(*index),
                _ => None,
            })
            .collect();
        assert_eq!(shown, [0, 1, 3]);
    }

    #[test]
    fn a_commitment_is_answered_with_a_fresh_contribution_and_garbage_is_an_error() {
        let w = worker();
        let commit = ServerMsg::Commit {
            seq: 1,
            hand: 0,
            commitment: Bytes32([1; 32]),
            deadline_ms: 100,
        };
        let replies = w.frame(&commit.to_json());
        let [
            ClientMsg::Contribute {
                hand: 0,
                contribution,
            },
        ] = replies.as_slice()
        else {
            panic!("{replies:?}");
        };
        assert_eq!(lock(&w.shared).seen.contribution, Some(*contribution));
        assert!(w.frame("{not json").is_empty());
        assert!(matches!(
            lock(&w.shared).updates.back(),
            Some(OnlineUpdate::Error {
                code: ErrorCode::BadMessage,
                ..
            })
        ));
    }
}
