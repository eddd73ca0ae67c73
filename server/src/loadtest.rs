//! `tongcheng-server loadtest`: many players on loopback against one server, as phones would
//! be: each logs in with its own device key, queues, sits at the table the queue made, plays
//! every decision with a bot's choice after a human-like pause, says ready after each hand,
//! and queues again when its match ends, until the play time is over.
//!
//! By default it starts a server process of its own (this binary, a temporary SQLite file) so
//! that the server's memory can be read from `/proc` apart from the load generator's. Each
//! player connects from its own loopback address (127.0.x.y), so the ranked queue's same-IP
//! rule sees what it would see with real phones, and no address runs out of ports.
//!
//! Action → event latency is timed for turn actions (discard, kong, self-drawn win): the next
//! frame after a turn action is always its own event, which every other seat receives in the
//! same flush; a claim's answer is not timed, since its event waits for the other seats.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ed25519_dalek::{Signer, SigningKey};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::fair::Bytes32;
use tongcheng_core::game::DecisionKind;
use tongcheng_core::protocol::{ClientMsg, PROTOCOL_VERSION, ServerMsg};

use crate::auth::random_bytes;

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Players (one connection each).
    #[arg(long, default_value_t = 400)]
    pub players: usize,
    /// Seconds over which the players arrive.
    #[arg(long, default_value_t = 10)]
    pub ramp_secs: u64,
    /// Seconds of play after the last arrival; then nobody queues again, and the matches
    /// under way are played to their end.
    #[arg(long, default_value_t = 60)]
    pub secs: u64,
    /// Seconds the matches under way may take to end after the play time.
    #[arg(long, default_value_t = 300)]
    pub grace_secs: u64,
    /// A player's pause before each answer, in milliseconds: MIN,MAX (uniform).
    #[arg(long, default_value = "800,2500", value_parser = parse_range)]
    pub think_ms: (u64, u64),
    /// The bot whose choices the players make.
    #[arg(long, default_value = "normal")]
    pub level: Level,
    /// The rule-set preset queued for.
    #[arg(long, default_value = "guobiao")]
    pub rules: String,
    /// Queue casual instead of ranked.
    #[arg(long)]
    pub casual: bool,
    /// An already running server (http://HOST:PORT on loopback) instead of starting one.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The process id of `--server`, to read its memory.
    #[arg(long, value_name = "PID")]
    pub server_pid: Option<u32>,
    /// Started server: hands per match (one round), so matches end within a run.
    #[arg(long, default_value_t = 1)]
    pub match_hands: u8,
    /// Started server: the queue's wait before bots fill empty seats, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub bot_fill_ms: u64,
    /// Started server: its worker threads (default: one per core).
    #[arg(long)]
    pub server_threads: Option<usize>,
    /// Started servers: this many nodes sharing `--database` (PostgreSQL) and `--nats`;
    /// player i logs in and queues at node i mod N and plays where the queue seats it.
    #[arg(long, default_value_t = 1)]
    pub nodes: usize,
    /// Started servers' store (default: a temporary SQLite file; several nodes need
    /// postgres://...).
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// Started servers' NATS (several nodes: tables checkpointed, taken over on a node's death).
    #[arg(long, value_name = "URL")]
    pub nats: Option<String>,
    /// Worker threads of the load generator.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Print progress every this many seconds on stderr (0: never).
    #[arg(long, default_value_t = 10)]
    pub progress_secs: u64,
}

/// Longest pause a player may take (the rules' own limits are shorter).
const MAX_PAUSE_MS: u64 = 600_000;

/// Most players one run drives: one loopback address and a few descriptors each.
const MAX_PLAYERS: usize = 1_000_000;

fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not MIN,MAX"))?;
    let a: u64 = a
        .trim()
        .parse()
        .map_err(|_| format!("'{a}' is not a number"))?;
    let b: u64 = b
        .trim()
        .parse()
        .map_err(|_| format!("'{b}' is not a number"))?;
    if a > b {
        return Err(format!("{a} is more than {b}"));
    }
    if b > MAX_PAUSE_MS {
        return Err(format!("pauses are at most {MAX_PAUSE_MS} ms"));
    }
    Ok((a, b))
}

/// What the run measured; printed as one JSON object.
#[derive(Debug, serde::Serialize)]
pub struct Report {
    pub players: usize,
    /// Server nodes the players were spread over.
    pub nodes: usize,
    /// Most table connections open on the server at once (its `/metrics` gauge).
    pub connected_peak: usize,
    /// Most tables running on the server at once.
    pub tables_peak: usize,
    pub matches_started: u64,
    pub matches_finished: u64,
    /// Hands ended, counted once per player at the table.
    pub hands_played: u64,
    pub actions: u64,
    pub actions_per_sec: f64,
    pub latency_samples: usize,
    pub latency_p50_ms: f64,
    pub latency_p99_ms: f64,
    pub latency_max_ms: f64,
    /// Errors of any kind: refused requests, error frames, lost connections, matches not
    /// finished in time. The first few are in `error_examples`.
    pub errors: u64,
    pub error_examples: Vec<String>,
    /// Decisions the server played for a player because its answer came too late.
    pub auto_play: u64,
    /// The server process's resident memory before the players came and at its peak.
    pub server_rss_baseline_mb: Option<f64>,
    pub server_rss_peak_mb: Option<f64>,
    /// (peak − baseline) / most connections at once.
    pub server_kb_per_player: Option<f64>,
    /// CPU seconds the server process used during the run.
    pub server_cpu_secs: Option<f64>,
    pub secs: f64,
}

/// Counters shared by the players and the monitor.
#[derive(Default)]
struct Counters {
    logged_in: AtomicU64,
    playing: AtomicU64,
    matches_started: AtomicU64,
    matches_finished: AtomicU64,
    hands_played: AtomicU64,
    actions: AtomicU64,
    errors: AtomicU64,
    auto_play: AtomicU64,
    examples: Mutex<Vec<String>>,
    latencies_us: Mutex<Vec<u32>>,
}

impl Counters {
    fn error(&self, what: String) {
        self.errors.fetch_add(1, Relaxed);
        let mut ex = self.examples.lock().unwrap_or_else(|p| p.into_inner());
        if ex.len() < 10 {
            ex.push(what);
        }
    }
}

struct Ctx {
    args: Args,
    /// The nodes' addresses: player i enters at node i mod N.
    addrs: Vec<SocketAddr>,
    counters: Counters,
    /// Past the play time: players do not queue again.
    stopping: AtomicBool,
}

/// Runs the load and returns its report.
pub fn run(args: &Args) -> Result<Report, String> {
    if args.players == 0 || args.players > MAX_PLAYERS {
        return Err(format!("--players must be 1 to {MAX_PLAYERS}"));
    }
    if args.nodes == 0 || args.nodes > 16 {
        return Err("--nodes must be 1 to 16".into());
    }
    if args.nodes > 1
        && !args
            .database
            .as_deref()
            .is_some_and(|d| d.starts_with("postgres"))
    {
        return Err(
            "several nodes share a PostgreSQL store: pass --database postgres://...".into(),
        );
    }
    let mut servers = Vec::new();
    match &args.server {
        Some(url) => servers.push(ServerProcess::existing(url, args.server_pid)?),
        None => {
            for n in 0..args.nodes {
                servers.push(ServerProcess::start(args, n)?);
            }
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = rt.block_on(drive(args, &servers));
    for s in &mut servers {
        s.stop();
    }
    if let (Some(nats), None) = (&args.nats, &args.server) {
        // The run's checkpoint bucket: NATS keeps streams on disk.
        let stream = format!("KV_{}_tables", nats_prefix());
        rt.block_on(async {
            if let Ok(c) = async_nats::connect(nats.as_str()).await {
                let _ = async_nats::jetstream::new(c).delete_stream(&stream).await;
            }
        });
    }
    result
}

/// The NATS prefix of this run's nodes: their checkpoints stay apart from any other's.
fn nats_prefix() -> String {
    format!("loadtest{}", std::process::id())
}

/// A figure summed over the nodes, when every node has it.
fn summed<T: std::iter::Sum<T>>(
    servers: &[ServerProcess],
    f: impl Fn(u32) -> Option<T>,
) -> Option<T> {
    servers.iter().map(|s| s.pid.and_then(&f)).sum()
}

async fn drive(args: &Args, servers: &[ServerProcess]) -> Result<Report, String> {
    let ctx = Arc::new(Ctx {
        args: args.clone(),
        addrs: servers.iter().map(|s| s.addr).collect(),
        counters: Counters::default(),
        stopping: AtomicBool::new(false),
    });
    let pids: Vec<u32> = servers.iter().filter_map(|s| s.pid).collect();
    let baseline = summed(servers, rss_kb);
    let cpu_start = summed(servers, cpu_secs);
    let start = Instant::now();
    let done = Arc::new(AtomicBool::new(false));
    let monitor = tokio::spawn(monitor(ctx.clone(), pids, done.clone(), start));
    let mut players = Vec::with_capacity(args.players);
    let ramp = Duration::from_secs(args.ramp_secs);
    for i in 0..args.players {
        let at = start + ramp.mul_f64(i as f64 / args.players as f64);
        let ctx = ctx.clone();
        players.push(tokio::spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            player(ctx, i).await;
        }));
    }
    let play_end = start + ramp + Duration::from_secs(args.secs);
    tokio::time::sleep_until(play_end.into()).await;
    ctx.stopping.store(true, Relaxed);
    let grace = tokio::time::sleep(Duration::from_secs(args.grace_secs));
    tokio::pin!(grace);
    let mut left = players.len();
    for p in &mut players {
        tokio::select! {
            _ = p => left -= 1,
            () = &mut grace => break,
        }
    }
    if left > 0 {
        ctx.counters.error(format!(
            "{left} players still playing {} s after the play time",
            args.grace_secs
        ));
        for p in &players {
            p.abort();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    done.store(true, Relaxed);
    let peaks = monitor.await.map_err(|e| e.to_string())?;
    let c = &ctx.counters;
    let mut lat = std::mem::take(&mut *c.latencies_us.lock().unwrap_or_else(|p| p.into_inner()));
    lat.sort_unstable();
    let pick = |q: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((lat.len() as f64 - 1.0) * q).round() as usize;
        f64::from(lat[i]) / 1000.0
    };
    let actions = c.actions.load(Relaxed);
    let kb_per_player = match (baseline, peaks.rss_kb) {
        (Some(b), Some(p)) if peaks.connections > 0 => {
            Some(p.saturating_sub(b) as f64 / peaks.connections as f64)
        }
        _ => None,
    };
    Ok(Report {
        players: args.players,
        nodes: servers.len(),
        connected_peak: peaks.connections,
        tables_peak: peaks.tables,
        matches_started: c.matches_started.load(Relaxed),
        matches_finished: c.matches_finished.load(Relaxed),
        hands_played: c.hands_played.load(Relaxed),
        actions,
        actions_per_sec: actions as f64 / secs,
        latency_samples: lat.len(),
        latency_p50_ms: pick(0.5),
        latency_p99_ms: pick(0.99),
        latency_max_ms: lat.last().map_or(0.0, |m| f64::from(*m) / 1000.0),
        errors: c.errors.load(Relaxed),
        error_examples: c.examples.lock().map(|e| e.clone()).unwrap_or_default(),
        auto_play: c.auto_play.load(Relaxed),
        server_rss_baseline_mb: baseline.map(|b| b as f64 / 1024.0),
        server_rss_peak_mb: peaks.rss_kb.map(|p| p as f64 / 1024.0),
        server_kb_per_player: kb_per_player,
        server_cpu_secs: match (cpu_start, summed(servers, cpu_secs)) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        },
        secs,
    })
}

#[derive(Default)]
struct Peaks {
    connections: usize,
    tables: usize,
    rss_kb: Option<u64>,
}

/// Reads the server's gauges and memory every second; prints progress.
async fn monitor(ctx: Arc<Ctx>, pids: Vec<u32>, done: Arc<AtomicBool>, start: Instant) -> Peaks {
    let mut peaks = Peaks::default();
    let mut last_print = Instant::now();
    let local = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let rss_now = || -> Option<u64> {
        (!pids.is_empty()).then(|| pids.iter().filter_map(|p| rss_kb(*p)).sum())
    };
    while !done.load(Relaxed) {
        // Every node's gauges, summed.
        let (mut connections, mut tables) = (0, 0);
        for addr in &ctx.addrs {
            if let Ok((200, text)) = http(
                local,
                *addr,
                "GET",
                "/metrics",
                None,
                "",
                Duration::from_secs(5),
            )
            .await
            {
                let gauge = |name: &str| -> usize {
                    text.lines()
                        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
                        .unwrap_or(0)
                };
                connections += gauge("tongcheng_online_connections ");
                tables += gauge("tongcheng_online_tables ");
            }
        }
        peaks.connections = peaks.connections.max(connections);
        peaks.tables = peaks.tables.max(tables);
        if let Some(rss) = rss_now() {
            peaks.rss_kb = Some(peaks.rss_kb.map_or(rss, |p| p.max(rss)));
        }
        let every = ctx.args.progress_secs;
        if every > 0 && last_print.elapsed() >= Duration::from_secs(every) {
            last_print = Instant::now();
            let c = &ctx.counters;
            eprintln!(
                "loadtest {:>5.0} s: {} logged in, {} at tables, {} matches finished, {} actions, {} errors, server {} MB",
                start.elapsed().as_secs_f64(),
                c.logged_in.load(Relaxed),
                c.playing.load(Relaxed),
                c.matches_finished.load(Relaxed),
                c.actions.load(Relaxed),
                c.errors.load(Relaxed),
                rss_now().map_or(0, |k| k / 1024),
            );
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    peaks
}

/// Player `i`'s own loopback address: 127.0.0.2 onwards.
fn address(i: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(
        u32::from(Ipv4Addr::new(127, 0, 0, 2)) + i as u32,
    ))
}

/// A small deterministic generator for pauses and contributions' order; the contributions
/// themselves come from the OS.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn between(&mut self, (a, b): (u64, u64)) -> u64 {
        a + self.next() % (b - a + 1)
    }
}

async fn player(ctx: Arc<Ctx>, i: usize) {
    let ip = address(i);
    let entry = ctx.addrs[i % ctx.addrs.len()];
    let token = match login(&ctx, ip, entry).await {
        Ok(t) => t,
        Err(e) => return ctx.counters.error(format!("login: {e}")),
    };
    ctx.counters.logged_in.fetch_add(1, Relaxed);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1));
    let mut bot = LevelBot::new(ctx.args.level, i as u64);
    while !ctx.stopping.load(Relaxed) {
        let (table, node) = match queue(&ctx, ip, &token, entry).await {
            Ok(t) => t,
            Err(e) => return ctx.counters.error(format!("queue: {e}")),
        };
        ctx.counters.matches_started.fetch_add(1, Relaxed);
        ctx.counters.playing.fetch_add(1, Relaxed);
        let result = play_match(&ctx, ip, &token, &table, node, &mut rng, &mut bot).await;
        ctx.counters.playing.fetch_sub(1, Relaxed);
        match result {
            Ok(()) => {
                ctx.counters.matches_finished.fetch_add(1, Relaxed);
            }
            Err(e) => return ctx.counters.error(format!("table {table}: {e}")),
        }
    }
}

async fn login(_ctx: &Ctx, ip: IpAddr, node: SocketAddr) -> Result<String, String> {
    let key =
        SigningKey::from_bytes(&random_bytes::<32>().map_err(|_| "no randomness from the OS")?);
    let t = Duration::from_secs(30);
    let (status, body) = http(ip, node, "POST", "/v1/auth/challenge", None, "{}", t).await?;
    let challenge: Value = parse_ok(status, &body)?;
    let nonce = challenge["nonce"].as_str().ok_or("no nonce")?.to_string();
    let public = key.verifying_key().to_bytes();
    let n = tongcheng_core::hex::unhex(&nonce).ok_or("the nonce is not hex")?;
    let signature = key.sign(&tongcheng_api::auth::login_message(&n, &public));
    let body = json!({
        "public_key": tongcheng_core::hex::hex(&public),
        "nonce": nonce,
        "signature": tongcheng_core::hex::hex(&signature.to_bytes()),
        "device_name": "loadtest",
    })
    .to_string();
    let (status, body) = http(ip, node, "POST", "/v1/auth/login", None, &body, t).await?;
    let login: Value = parse_ok(status, &body)?;
    login["token"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "no token in the login answer".into())
}

/// Queues at `node`; the table and the node that runs it.
async fn queue(
    ctx: &Ctx,
    ip: IpAddr,
    token: &str,
    node: SocketAddr,
) -> Result<(String, SocketAddr), String> {
    let body = json!({"rules": ctx.args.rules, "ranked": !ctx.args.casual}).to_string();
    // The queue answers once seated: bots fill after the server's wait, plus slack.
    let t = Duration::from_millis(ctx.args.bot_fill_ms) + Duration::from_secs(120);
    let (status, body) = http(ip, node, "POST", "/v1/queue", Some(token), &body, t).await?;
    let seated: Value = parse_ok(status, &body)?;
    let table = seated["table"]
        .as_str()
        .map(str::to_string)
        .ok_or("no table in the queue's answer")?;
    let at = match seated["server"].as_str() {
        Some(url) if !url.is_empty() => ServerProcess::existing(url, None)?.addr,
        _ => node,
    };
    Ok((table, at))
}

fn parse_ok(status: u16, body: &str) -> Result<Value, String> {
    if status != 200 {
        return Err(format!("HTTP {status}: {}", crate::error::clip(body)));
    }
    serde_json::from_str(body).map_err(|e| format!("unreadable answer: {e}"))
}

/// One match at `table`: join, contribute, answer every decision after a pause, ready after
/// each hand, until the match ends.
async fn play_match(
    ctx: &Ctx,
    ip: IpAddr,
    token: &str,
    table: &str,
    node: SocketAddr,
    rng: &mut Rng,
    bot: &mut LevelBot,
) -> Result<(), String> {
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(SocketAddr::new(ip, 0))
        .map_err(|e| format!("bind {ip}: {e}"))?;
    let stream = socket
        .connect(node)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut request = format!("ws://{node}/v1/play")
        .into_client_request()
        .map_err(|e| e.to_string())?;
    request.headers_mut().insert(
        "Authorization",
        format!("Bearer {token}")
            .parse()
            .map_err(|_| "the token is not a header value")?,
    );
    let config = WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20));
    let (ws, _) = tokio_tungstenite::client_async_with_config(request, stream, Some(config))
        .await
        .map_err(|e| format!("websocket: {e}"))?;
    let (mut sink, mut stream) = ws.split();
    let send =
        |msg: ClientMsg| Message::Text(serde_json::to_string(&msg).unwrap_or_default().into());
    sink.send(send(ClientMsg::Join {
        version: PROTOCOL_VERSION,
        table: Some(table.to_string()),
        people: None,
        rules: None,
        after: None,
    }))
    .await
    .map_err(|e| format!("join: {e}"))?;
    let c = &ctx.counters;
    let far = Instant::now() + Duration::from_secs(3600);
    // Answers waiting for their pause: (when, message, a turn action to time).
    let mut pending: VecDeque<(Instant, ClientMsg, bool)> = VecDeque::new();
    let mut timing: Option<Instant> = None;
    let mut next_ping = Instant::now() + Duration::from_secs(20);
    let mut latencies = Vec::new();
    let result = loop {
        let wake = pending.front().map_or(far, |p| p.0).min(next_ping);
        let frame = tokio::select! {
            f = stream.next() => f,
            () = tokio::time::sleep_until(wake.into()) => {
                let now = Instant::now();
                if now >= next_ping {
                    next_ping = now + Duration::from_secs(20);
                    if let Err(e) = sink.send(send(ClientMsg::Ping { nonce: 0 })).await {
                        break Err(format!("ping: {e}"));
                    }
                }
                let mut failed = None;
                while pending.front().is_some_and(|p| p.0 <= now) {
                    let Some((_, msg, timed)) = pending.pop_front() else { break };
                    if matches!(msg, ClientMsg::Act { .. }) {
                        c.actions.fetch_add(1, Relaxed);
                    }
                    if timed {
                        timing = Some(Instant::now());
                    }
                    if let Err(e) = sink.send(send(msg)).await {
                        failed = Some(format!("send: {e}"));
                        break;
                    }
                }
                match failed {
                    Some(e) => break Err(e),
                    None => continue,
                }
            }
        };
        let text = match frame {
            None => break Err("the server closed the connection".into()),
            Some(Err(e)) => break Err(format!("connection lost: {e}")),
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(_))) => break Err("the server closed the connection".into()),
            Some(Ok(_)) => continue,
        };
        let msg = match ServerMsg::parse(text.as_str()) {
            Ok(m) => m,
            Err(e) => break Err(format!("unreadable frame: {e}")),
        };
        match msg {
            ServerMsg::Commit { hand, .. } => {
                let mut b = [0u8; 32];
                let _ = getrandom::getrandom(&mut b);
                let at = Instant::now() + Duration::from_millis(rng.between((0, 300)));
                pending.push_back((
                    at,
                    ClientMsg::Contribute {
                        hand,
                        contribution: Bytes32(b),
                    },
                    false,
                ));
            }
            ServerMsg::Event { .. } => {
                if let Some(at) = timing.take() {
                    latencies.push(at.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
                }
                // Every event moves the game on: an answer not yet sent is stale.
                pending.retain(|p| !matches!(p.1, ClientMsg::Act { .. }));
            }
            ServerMsg::Decision {
                id, decision, view, ..
            } => {
                pending.retain(|p| !matches!(p.1, ClientMsg::Act { .. }));
                let action = bot.choose(&view);
                let turn = decision.kind == DecisionKind::Turn;
                let at = Instant::now() + Duration::from_millis(rng.between(ctx.args.think_ms));
                pending.push_back((
                    at,
                    ClientMsg::Act {
                        decision: id,
                        action,
                    },
                    turn,
                ));
                pending.make_contiguous().sort_by_key(|p| p.0);
            }
            ServerMsg::HandEnd(_) => {
                c.hands_played.fetch_add(1, Relaxed);
                bot.new_hand(rng.next());
                let at = Instant::now() + Duration::from_millis(rng.between(ctx.args.think_ms));
                pending.push_back((at, ClientMsg::Ready, false));
                pending.make_contiguous().sort_by_key(|p| p.0);
            }
            ServerMsg::AutoPlay { on: true, .. } => {
                c.auto_play.fetch_add(1, Relaxed);
            }
            ServerMsg::MatchEnd { .. } => break Ok(()),
            ServerMsg::Error { code, message } => {
                c.error(format!("error frame {code:?}: {message}"));
            }
            ServerMsg::Welcome { .. }
            | ServerMsg::Snapshot(_)
            | ServerMsg::AutoPlay { .. }
            | ServerMsg::Superseded { .. }
            | ServerMsg::Pong { .. } => {}
        }
    };
    let _ = sink.close().await;
    if !latencies.is_empty() {
        c.latencies_us
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(latencies);
    }
    result
}

/// One HTTP/1.1 exchange from `ip` (a new connection each time, closed after the answer):
/// the load generator needs a source address per player, which a pooled client does not give.
async fn http(
    ip: IpAddr,
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
    timeout: Duration,
) -> Result<(u16, String), String> {
    let exchange = async {
        let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
        socket
            .bind(SocketAddr::new(ip, 0))
            .map_err(|e| format!("bind {ip}: {e}"))?;
        let mut s = socket
            .connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n{auth}\r\n{body}",
            body.len()
        );
        s.write_all(request.as_bytes())
            .await
            .map_err(|e| format!("write: {e}"))?;
        let mut raw = Vec::new();
        s.read_to_end(&mut raw)
            .await
            .map_err(|e| format!("read: {e}"))?;
        parse_response(&raw)
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| format!("no answer to {method} {path} in {} s", timeout.as_secs()))?
}

/// Status and body of a whole HTTP/1.1 response (content-length or chunked).
fn parse_response(raw: &[u8]) -> Result<(u16, String), String> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers in the answer")?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut body = &raw[split + 4..];
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status in the answer")?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    if !chunked {
        return Ok((status, String::from_utf8_lossy(body).into_owned()));
    }
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size without its end")?;
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&body[..line_end])
                .split(';')
                .next()
                .unwrap_or("")
                .trim(),
            16,
        )
        .map_err(|_| "an unreadable chunk size")?;
        body = &body[line_end + 2..];
        if size == 0 {
            break;
        }
        let chunk = body.get(..size).ok_or("a chunk cut short")?;
        out.extend_from_slice(chunk);
        body = body.get(size + 2..).unwrap_or(&[]);
    }
    Ok((status, String::from_utf8_lossy(&out).into_owned()))
}

/// The server under load: a process this run started, or one given by address.
struct ServerProcess {
    addr: SocketAddr,
    pid: Option<u32>,
    child: Option<Child>,
    dir: Option<PathBuf>,
}

impl ServerProcess {
    fn existing(url: &str, pid: Option<u32>) -> Result<ServerProcess, String> {
        let hostport = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("'{url}' is not an http:// address"))?
            .trim_end_matches('/');
        let addr = hostport
            .to_socket_addrs()
            .map_err(|e| format!("'{url}': {e}"))?
            .find(SocketAddr::is_ipv4)
            .ok_or_else(|| format!("'{url}' has no IPv4 address"))?;
        if !addr.ip().is_loopback() {
            return Err("the load generator connects from loopback addresses: the server must listen on 127.0.0.1".into());
        }
        Ok(ServerProcess {
            addr,
            pid,
            child: None,
            dir: None,
        })
    }

    /// This binary as a server on a free loopback port, with a temporary SQLite store.
    /// Node `n` of this run.
    fn start(args: &Args, n: usize) -> Result<ServerProcess, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let dir =
            std::env::temp_dir().join(format!("tongcheng-loadtest-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let stderr = std::fs::File::create(dir.join("server.log")).map_err(|e| e.to_string())?;
        let database = args
            .database
            .clone()
            .unwrap_or_else(|| format!("sqlite:{}", dir.join("server.db").display()));
        let mut cmd = Command::new(exe);
        cmd.arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--database")
            .arg(database)
            .arg("--bot-fill-ms")
            .arg(args.bot_fill_ms.to_string())
            .arg("--ready-ms")
            .arg("5000")
            .arg("--match-hands")
            .arg(args.match_hands.to_string())
            .arg("--max-tables")
            .arg((args.players / 2 + 100).to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(n) = args.server_threads {
            cmd.arg("--threads").arg(n.to_string());
        }
        if let Some(nats) = &args.nats {
            cmd.arg("--nats")
                .arg(nats)
                .arg("--nats-prefix")
                .arg(nats_prefix());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the server: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout from the server")?;
        let mut lines = BufReader::new(stdout).lines();
        let first = lines
            .next()
            .and_then(Result::ok)
            .ok_or("the server printed nothing (see its log)")?;
        // Keep reading so a chatty server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let url = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .ok_or_else(|| format!("no address in '{first}'"))?;
        let mut s = ServerProcess::existing(url, Some(child.id()))?;
        s.child = Some(child);
        s.dir = Some(dir);
        Ok(s)
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if let Some(dir) = self.dir.take() {
            if let Ok(log) = std::fs::read_to_string(dir.join("server.log"))
                && !log.trim().is_empty()
            {
                let lines: Vec<&str> = log.lines().collect();
                eprintln!(
                    "loadtest: the server wrote {} lines on stderr; the last ones:",
                    lines.len()
                );
                for l in lines.iter().rev().take(5).rev() {
                    eprintln!("  {l}");
                }
            }
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A process's resident memory in KiB (Linux `/proc`).
fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A process's user + system CPU seconds (Linux `/proc`, at the usual 100 ticks a second).
fn cpu_secs(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_with_length_or_chunks_are_read() {
        let plain = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(parse_response(plain).unwrap(), (200, "{}".to_string()));
        let chunked =
            b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(parse_response(chunked).unwrap(), (409, "abcde".to_string()));
        assert!(parse_response(b"HTTP/1.1 200 OK\r\n").is_err());
        assert!(
            parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").is_err()
        );
    }

    #[test]
    fn players_have_their_own_loopback_addresses() {
        assert_eq!(address(0).to_string(), "127.0.0.2");
        assert_eq!(address(254).to_string(), "127.0.1.0");
        let all: std::collections::HashSet<IpAddr> = (0..20_000).map(address).collect();
        assert_eq!(all.len(), 20_000);
        assert!(all.iter().all(IpAddr::is_loopback));
    }

    #[test]
    fn ranges_are_checked() {
        assert_eq!(parse_range("5, 10"), Ok((5, 10)));
        assert!(parse_range("10,5").is_err());
        assert!(parse_range("x").is_err());
        assert!(parse_range("0,18446744073709551615").is_err());
        let mut r = Rng(7);
        assert!((0..1000).all(|_| (3..=9).contains(&r.between((3, 9)))));
    }
}
