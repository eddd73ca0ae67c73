//! Online tables: `GET /v1/play` upgrades to a WebSocket carrying the core's
//! [`tongcheng_core::protocol`] messages.
//!
//! The session token is checked before the upgrade (the same `Authorization: Bearer` as the
//! HTTP API), so nobody unauthenticated holds a socket. A connection then has `auth_ms` to
//! join a table and `idle_ms` between messages; messages are bounded in size and rate. Each
//! table is one task ([`table::TableTask`]); a connection only forwards its messages there
//! and writes out what the table sends, so a hostile client can at worst lose its own seat.

pub mod clock;
mod join;
pub mod moved;
pub mod queue;
pub mod rooms;
pub mod shared;
pub mod table;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tongcheng_core::protocol::{
    ClientMsg, ErrorCode, MAX_CLIENT_MESSAGE, PROTOCOL_VERSION, ServerMsg,
};
use tongcheng_core::rules::RuleSet;

use crate::app::AppState;
use crate::error::ApiError;
use crate::routes::{Authed, ClientIp, blocking};
use join::join;
use queue::{Candidate, Queue, QueueConfig};
use table::{Cmd, TableTask, Tables};

/// How online tables are run. The defaults are the real game's; tests shorten them.
#[derive(Clone, Debug)]
pub struct OnlineConfig {
    /// Every new table plays these rules instead of a preset (tests: short matches, short
    /// timers). `None`: the preset a join names, if the server accepts it, else `guobiao`.
    pub rules: Option<RuleSet>,
    /// Every new table plays this many hands (one round), whatever its preset says: quick
    /// matches for events, and for load runs that must see matches end. `None`: the preset's.
    pub match_hands: Option<u8>,
    /// Time for people to send their wall contributions.
    pub contribute_ms: u64,
    /// Pause between hands unless every person says ready sooner.
    pub ready_ms: u64,
    /// Time for a table's people to arrive before bots take the empty seats.
    pub lobby_ms: u64,
    /// Time from the upgrade to the join.
    pub auth_ms: u64,
    /// Longest silence from a client (clients ping).
    pub idle_ms: u64,
    /// How long a finished table stays for its people to read the end.
    pub linger_ms: u64,
    /// Messages per second per connection, with bursts up to `burst`.
    pub per_sec: f64,
    pub burst: f64,
    pub max_tables: usize,
    /// Matchmaking: rating bands, their widening, the wait before bots fill.
    pub queue: QueueConfig,
    /// How often a waiting player's request runs the matcher.
    pub queue_tick_ms: u64,
    /// Test hook only: reveal another seed than the committed one, so tests can show that
    /// clients catch a lying server. Never set in a real server.
    pub dishonest_reveal: bool,
}

impl Default for OnlineConfig {
    fn default() -> OnlineConfig {
        OnlineConfig {
            rules: None,
            match_hands: None,
            contribute_ms: 3_000,
            ready_ms: 10_000,
            lobby_ms: 120_000,
            auth_ms: 10_000,
            idle_ms: 60_000,
            linger_ms: 30_000,
            per_sec: 20.0,
            burst: 40.0,
            max_tables: 10_000,
            queue: QueueConfig::default(),
            queue_tick_ms: 250,
            dishonest_reveal: false,
        }
    }
}

/// The queues, by rule set name and ranked or not; a seated player is told on his channel.
type Queues = HashMap<(String, bool), Queue<oneshot::Sender<Seated>>>;

/// The lobby: tables by id, connection ids, and the queues by rule set and kind.
#[derive(Default)]
pub struct Lobby {
    tables: Arc<Mutex<Tables>>,
    next_conn: AtomicU64,
    /// Open `GET /v1/play` connections (a gauge for `/metrics` and load runs).
    open_conns: AtomicU64,
    queues: Mutex<Queues>,
    /// When this node last ran the shared queue's matcher, per rule set and kind (several
    /// nodes: one run per tick per node, however many requests wait here).
    shared_runs: Mutex<HashMap<(String, bool), Instant>>,
    /// Requests waiting here in the shared queue (several nodes).
    shared_waiting: AtomicU64,
    /// Held while this node takes a stopped node's table over (one at a time).
    taking: tokio::sync::Mutex<()>,
}

impl Lobby {
    pub fn tables(&self) -> usize {
        self.tables.lock().map(|t| t.len()).unwrap_or(0)
    }

    pub fn connections(&self) -> usize {
        self.open_conns.load(Ordering::Relaxed) as usize
    }

    /// Players waiting in every queue (with several nodes: those whose request waits here).
    pub fn waiting(&self) -> usize {
        self.queues
            .lock()
            .map(|q| q.values().map(Queue::len).sum())
            .unwrap_or(0)
            + self.shared_waiting.load(Ordering::Relaxed) as usize
    }
}

/// Counts an open connection while it lives.
struct OpenConn<'a>(&'a AtomicU64);

impl<'a> OpenConn<'a> {
    fn new(n: &'a AtomicU64) -> OpenConn<'a> {
        n.fetch_add(1, Ordering::Relaxed);
        OpenConn(n)
    }
}

impl Drop for OpenConn<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `GET /v1/play`: a session token is needed before the upgrade.
pub async fn play(State(state): State<AppState>, auth: Authed, ws: WebSocketUpgrade) -> Response {
    // Client messages are small (bounded by MAX_CLIENT_MESSAGE) and every server frame is
    // flushed as it is sent, so small buffers do: tungstenite's 128 KiB defaults, reserved
    // per connection, would dominate a node's memory at ten thousand players.
    ws.max_message_size(MAX_CLIENT_MESSAGE)
        .max_frame_size(MAX_CLIENT_MESSAGE)
        .read_buffer_size(MAX_CLIENT_MESSAGE)
        .write_buffer_size(0)
        .on_upgrade(move |socket| connection(socket, state, auth))
}

/// A per-connection token bucket.
struct Bucket {
    tokens: f64,
    at: Instant,
    per_sec: f64,
    burst: f64,
    refused: u32,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.per_sec)
            .min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.refused += 1;
            false
        }
    }
}

/// Refused messages after which a connection is closed.
const MAX_REFUSED: u32 = 100;

async fn connection(socket: WebSocket, state: AppState, auth: Authed) {
    let _open = OpenConn::new(&state.lobby.open_conns);
    let online = state.config.online.clone();
    let (mut sink, mut stream) = socket.split();
    let (out, mut out_rx) = mpsc::channel::<String>(4096);
    // Answers the server asked for (a decision, a contribution, ready after a hand) are not
    // charged to the rate limit: a client playing at machine speed (auto-answering) sends
    // far more than a person, and must not lose its answers. Everything else is.
    let asked = Arc::new(AtomicU64::new(0));
    let granted = asked.clone();
    // The writer: frames from the table (and this connection) to the socket, in order.
    let writer = tokio::spawn(async move {
        while let Some(text) = out_rx.recv().await {
            // Server messages serialize their tag first.
            if ["decision", "commit", "hand_end"]
                .iter()
                .any(|t| text.starts_with(&format!("{{\"type\":\"{t}\"")))
            {
                granted.fetch_add(1, Ordering::Relaxed);
            }
            // A connection whose seat another one took is told so, then closed.
            let replaced = text.starts_with("{\"type\":\"error\",\"code\":\"replaced\"");
            if sink.send(Message::Text(text.into())).await.is_err() || replaced {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let conn = state.lobby.next_conn.fetch_add(1, Ordering::Relaxed);
    let say = |code: ErrorCode, msg: String| {
        let _ = out.try_send(ServerMsg::error(code, msg).to_json());
    };
    let mut bucket = Bucket {
        tokens: online.burst,
        at: Instant::now(),
        per_sec: online.per_sec,
        burst: online.burst,
        refused: 0,
    };
    let mut seat: Option<(u8, mpsc::Sender<Cmd>)> = None;
    loop {
        let wait = if seat.is_none() {
            online.auth_ms
        } else {
            online.idle_ms
        };
        let frame = match tokio::time::timeout(Duration::from_millis(wait), stream.next()).await {
            Err(_) => {
                say(
                    ErrorCode::Timeout,
                    if seat.is_none() {
                        "no join in time".into()
                    } else {
                        "silent for too long".into()
                    },
                );
                break;
            }
            Ok(None) | Ok(Some(Err(_))) => break,
            Ok(Some(Ok(m))) => m,
        };
        let text = match frame {
            Message::Text(t) => t,
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Binary(_) => {
                say(ErrorCode::BadMessage, "text frames only".into());
                continue;
            }
        };
        let msg = ClientMsg::parse(text.as_str());
        let answer = matches!(
            msg,
            Ok(ClientMsg::Act { .. } | ClientMsg::Contribute { .. } | ClientMsg::Ready)
        ) && asked
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if !answer && !bucket.take() {
            if bucket.refused > MAX_REFUSED {
                break;
            }
            say(ErrorCode::RateLimited, "too many messages".into());
            continue;
        }
        let msg = match msg {
            Ok(m) => m,
            Err(e) => {
                say(e.code(), e.to_string());
                continue;
            }
        };
        match (&seat, msg) {
            (_, ClientMsg::Ping { nonce }) => {
                let _ = out.try_send(ServerMsg::Pong { nonce }.to_json());
            }
            (
                None,
                ClientMsg::Join {
                    version,
                    table,
                    people,
                    rules,
                    after,
                },
            ) => {
                if version != PROTOCOL_VERSION {
                    say(
                        ErrorCode::UnsupportedVersion,
                        format!("this server speaks protocol {PROTOCOL_VERSION}"),
                    );
                    continue;
                }
                match join(
                    &state,
                    &auth,
                    conn,
                    out.clone(),
                    table,
                    people,
                    rules,
                    after,
                )
                .await
                {
                    Ok(s) => seat = Some(s),
                    Err((code, m)) => say(code, m),
                }
            }
            (None, _) => say(ErrorCode::NotJoined, "join a table first".into()),
            (Some(_), ClientMsg::Join { .. }) => {
                say(ErrorCode::AlreadyJoined, "already at a table".into())
            }
            (Some((player, tx)), msg) => {
                let leave = matches!(msg, ClientMsg::Leave);
                if tx
                    .send(Cmd::Msg {
                        player: *player,
                        conn,
                        msg,
                    })
                    .await
                    .is_err()
                {
                    say(ErrorCode::MatchOver, "the table is gone".into());
                    break;
                }
                if leave {
                    break;
                }
            }
        }
    }
    if let Some((player, tx)) = seat {
        let _ = tx.send(Cmd::Gone { player, conn }).await;
    }
    drop(out);
    let _ = writer.await;
}

/// The rules a new table plays: the test override, else the named preset if this server
/// accepts it, else the default.
pub(crate) fn rules_for(
    state: &AppState,
    name: Option<String>,
) -> Result<RuleSet, (ErrorCode, String)> {
    let mut rules = match (&state.config.online.rules, name) {
        (Some(r), _) => return Ok(r.clone()),
        (None, None) => RuleSet::default(),
        (None, Some(name)) => {
            if !state.config.accepted_rules.contains(&name) {
                return Err((
                    ErrorCode::RulesNotAccepted,
                    format!("rules '{}' are not played here", crate::error::clip(&name)),
                ));
            }
            RuleSet::preset(&name)
                .ok_or_else(|| (ErrorCode::RulesNotAccepted, "no such preset".to_string()))?
        }
    };
    if let Some(hands) = state.config.online.match_hands {
        rules.rounds = 1;
        rules.hands_per_round = hands.max(1);
    }
    Ok(rules)
}

/// A table's command queue: joins, messages, its saver's answers.
pub(crate) const TABLE_QUEUE: usize = 1024;

/// Starts a table's task under `id` in the lobby (whose lock the caller holds); it leaves
/// the lobby when its match is over.
pub(crate) fn spawn_table(
    state: &AppState,
    tables: &mut Tables,
    id: &str,
    task: impl FnOnce(mpsc::Receiver<Cmd>) -> TableTask,
) -> mpsc::Sender<Cmd> {
    let (tx, rx) = mpsc::channel(TABLE_QUEUE);
    let task = task(rx);
    spawn_built(state, tables, id, tx.clone(), task);
    tx
}

/// [`spawn_table`] for a task already made on the channel `tx` feeds.
pub(crate) fn spawn_built(
    state: &AppState,
    tables: &mut Tables,
    id: &str,
    tx: mpsc::Sender<Cmd>,
    task: TableTask,
) {
    let lobby = state.lobby.tables.clone();
    let closing = id.to_string();
    let mine = tx.clone();
    let store = state.store.clone();
    let cluster = state
        .cluster
        .get()
        .map(|c| (c.clone(), state.node.url().to_string()));
    let task = task.in_cluster(cluster, tx.downgrade());
    tokio::spawn(task.run(Box::new(move |forget| {
        if let Ok(mut t) = lobby.lock()
            && t.get(&closing).is_some_and(|s| s.same_channel(&mine))
        {
            t.remove(&closing);
            if !forget {
                // Another node runs the table now: its rows are that node's.
                return;
            }
            // Its room's code is free again, and no node sends players here for it.
            tokio::task::spawn_blocking(move || {
                if let Err(e) = store.drop_table(&closing) {
                    eprintln!("table {closing}: cannot forget it in the store: {e}");
                }
            });
        }
    })));
    tables.insert(id.to_string(), tx);
    if state.several_nodes() {
        let (store, id, node) = (
            state.store.clone(),
            id.to_string(),
            state.node.url().to_string(),
        );
        tokio::task::spawn_blocking(move || {
            if let Err(e) = store.put_table_home(&id, &node, crate::now()) {
                eprintln!("table {id}: cannot note its node in the store: {e}");
            }
        });
    }
}

/// A random table id.
pub(crate) fn table_id() -> String {
    let mut b = [0u8; 8];
    let _ = getrandom::getrandom(&mut b);
    tongcheng_core::record::hex(&b)
}

/// `POST /v1/queue` asks for this.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueRequest {
    /// A preset this server accepts; the default rule set when absent.
    pub rules: Option<String>,
    /// Ranked (rated, seated by rating, anti-collusion) or casual.
    #[serde(default)]
    pub ranked: bool,
}

/// Where the queue seated a player: join this table over `GET /v1/play`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Seated {
    pub table: String,
    pub rules: String,
    pub ranked: bool,
    /// People seated (the others are bots).
    pub people: usize,
    pub bots: usize,
    /// The base URL of the node that runs the table: join it there.
    pub server: String,
}

/// `POST /v1/queue`: waits in the rule set's queue until seated (a long poll; bots fill after
/// the configured wait, so it always ends), then answers with the table to join. While
/// requests wait, each one runs the matcher every `queue_tick_ms`; a request whose client
/// hung up leaves the queue at the next run.
pub async fn queue(
    State(state): State<AppState>,
    auth: Authed,
    ip: ClientIp,
    body: Result<Json<QueueRequest>, JsonRejection>,
) -> Result<Json<Seated>, ApiError> {
    let Json(req) = body?;
    let rules = rules_for(&state, req.rules)
        .map_err(|(_, m)| ApiError::bad_request("rules_not_accepted", m))?;
    let store = state.store.clone();
    let account = auth.session.account_id;
    let name = rules.name.clone();
    let (rating, devices) = blocking(move || {
        let rating = store.rating(account, &name)?;
        let devices = store.devices(account)?.iter().map(|d| d.id).collect();
        Ok((rating, devices))
    })
    .await?;
    let who = Candidate {
        account,
        devices,
        ip: ip.0.parse().ok(),
        rating: rating.map_or(crate::rating::initial(account, "").mu, |r| r.mu),
    };
    if state.several_nodes() {
        return shared::wait(&state, who, rules, req.ranked).await.map(Json);
    }
    let key = (rules.name.clone(), req.ranked);
    let (ticket, mut seated) = oneshot::channel();
    {
        let mut queues = lock(&state.lobby.queues)?;
        let online = &state.config.online;
        queues
            .entry(key.clone())
            .or_insert_with(|| Queue::new(online.queue.clone(), req.ranked))
            .push(who, ticket, Instant::now());
    }
    let online = &state.config.online;
    let give_up = Instant::now() + Duration::from_millis(online.queue.bot_fill_ms + 30_000);
    let tick = Duration::from_millis(online.queue_tick_ms.max(1));
    loop {
        match tokio::time::timeout(tick, &mut seated).await {
            Ok(Ok(s)) => return Ok(Json(s)),
            Ok(Err(_)) => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "queue_replaced",
                    "another request of this account took its place in the queue",
                ));
            }
            Err(_) if Instant::now() >= give_up => {
                return Err(ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "queue_timeout",
                    "no table could be made in time",
                ));
            }
            Err(_) => match_queue(&state, &key, &rules)?,
        }
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> Result<std::sync::MutexGuard<'_, T>, ApiError> {
    m.lock()
        .map_err(|_| ApiError::internal("the lobby is unavailable"))
}

/// Runs one queue's matcher and opens a table for every group it seats.
fn match_queue(state: &AppState, key: &(String, bool), rules: &RuleSet) -> Result<(), ApiError> {
    let mut queues = lock(&state.lobby.queues)?;
    let Some(q) = queues.get_mut(key) else {
        return Ok(());
    };
    let now = Instant::now();
    let every = Duration::from_millis(state.config.online.queue_tick_ms.max(1));
    if q.ran_within(every / 2, now) {
        return Ok(());
    }
    q.drop_gone(|t| t.is_closed());
    let seatings = q.tick(now);
    if q.is_empty() {
        queues.remove(key);
    }
    drop(queues);
    if seatings.is_empty() {
        return Ok(());
    }
    let online = &state.config.online;
    let mut tables = lock(&state.lobby.tables)?;
    for seating in seatings {
        let accounts: Vec<i64> = seating.players.iter().map(|p| p.0.account).collect();
        if tables.len() >= online.max_tables {
            // Nobody is told: their requests end with `queue_timeout`.
            eprintln!("queue: no room for a table");
            continue;
        }
        let id = table_id();
        let people = accounts.len();
        let ranked = key.1;
        let task = |rx| {
            let t = TableTask::new(
                id.clone(),
                online.clone(),
                rules.clone(),
                people as u8,
                state.store.clone(),
                rx,
            )
            .reserved_for(accounts);
            if ranked { t.ranked() } else { t }
        };
        spawn_table(state, &mut tables, &id, task);
        for (_, ticket) in seating.players {
            let _ = ticket.send(Seated {
                table: id.clone(),
                rules: rules.name.clone(),
                ranked,
                people,
                bots: 4 - people,
                server: state.node.url().to_string(),
            });
        }
    }
    Ok(())
}

/// `GET /v1/ratings`: the account's ratings, one per rule set it was rated in, with tiers.
pub async fn ratings(
    State(state): State<AppState>,
    auth: Authed,
) -> Result<Json<serde_json::Value>, ApiError> {
    let store = state.store.clone();
    let account = auth.session.account_id;
    let list = blocking(move || Ok(store.ratings(account)?)).await?;
    let shown: Vec<crate::rating::Shown> = list.iter().map(crate::rating::shown).collect();
    Ok(Json(serde_json::json!({ "ratings": shown })))
}
