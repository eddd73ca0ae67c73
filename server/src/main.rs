//! `tongcheng-server`: serves the API (SQLite by default, PostgreSQL with
//! `--database postgres://...`); `tongcheng-server admin …` are the operator's commands
//! against a running server.

#![forbid(unsafe_code)]

use std::io::Write;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tongcheng_server::{Config, Shared, store};

mod operator;

#[derive(Parser)]
#[command(
    name = "tongcheng-server",
    version,
    about = "Tongcheng Mahjong server: login, sync, verification"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Address to listen on (port 0: any free port; the chosen one is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// `sqlite:PATH` or `postgres://...` (default: a SQLite file in the data directory,
    /// $XDG_DATA_HOME/tongcheng-server/server.db or ~/.local/share/tongcheng-server/server.db).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// Rule-set presets whose records are accepted, comma-separated (default: every preset).
    #[arg(long, value_delimiter = ',')]
    rules: Option<Vec<String>>,
    /// Matchmaking: milliseconds the longest waiter waits before bots take the empty seats.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    bot_fill_ms: u64,
    /// Online tables: milliseconds between hands unless every person is ready sooner.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    ready_ms: u64,
    /// Tournaments: seconds a node holds the one it runs unless it renews (every third of
    /// it); after that another node sharing the store takes it over.
    #[arg(long, value_name = "SECS", default_value_t = 15)]
    tournament_lease_secs: u64,
    /// Online tables: every match is this many hands (one round) instead of its preset's.
    #[arg(long, value_name = "N")]
    match_hands: Option<u8>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Online tables: the most tables this node runs at once.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_tables: usize,
    /// Bearer token of the admin endpoints (the collusion report); else
    /// $TONGCHENG_ADMIN_TOKEN; neither: those endpoints are refused.
    #[arg(long, value_name = "TOKEN")]
    admin_token: Option<String>,
    /// The base URL players reach this node at, when several nodes share a PostgreSQL store
    /// (default: http:// and the listening address).
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// This node's name in logs (default: a random one).
    #[arg(long, value_name = "ID")]
    node_id: Option<String>,
    /// Several nodes: the NATS server (with JetStream) where nodes see which of them are
    /// alive and tables keep checkpoints, so another node finishes the matches of a node that
    /// stops. Needs --database postgres://...
    #[arg(long, value_name = "URL")]
    nats: Option<String>,
    /// The prefix of this deployment's NATS subjects and bucket.
    #[arg(long, value_name = "NAME", default_value = "tongcheng")]
    nats_prefix: String,
    /// Milliseconds between a node's looks for tables of stopped nodes to take over.
    #[arg(long, value_name = "MS", default_value_t = 5_000)]
    sweep_ms: u64,
    /// Seconds a request may take before it is answered with a `timeout` error (the
    /// matchmaking long poll and open table connections are not cut by it).
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    request_timeout_secs: u64,
    /// Seconds a connection has to send a request's head, from its accept or its previous
    /// answer (so also how long an idle keep-alive connection stays open).
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    header_timeout_secs: u64,
    /// Seconds a request body may pause between its pieces.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    body_timeout_secs: u64,
    /// Connections one address may hold open at once, table connections included (more are
    /// closed as they arrive).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_connections_per_ip: usize,
    /// Online tables where a person sits: after each discard the table waits FLOOR ms plus a
    /// random part of up to JITTER ms before it moves on, whoever may claim, so a person's
    /// pause does not tell the others he could claim.
    #[arg(long, value_name = "FLOOR,JITTER", default_value = "500,500", value_parser = pause)]
    claim_pause_ms: (u64, u64),
    /// Table connections one account may hold open at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    sockets_per_account: usize,
    /// A rate limit or quota other than its default: `NAME=BURST/PER_HOUR` (repeatable; the
    /// names and defaults are in docs/server.md, e.g. `room_codes_per_source=10/90`).
    #[arg(long = "limit", value_name = "NAME=BURST/PER_HOUR")]
    limits: Vec<String>,
    /// Also serve `GET /metrics` without the admin token on this address (a scrape network
    /// of its own); on the main address it always needs the admin token.
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<String>,
    /// The browser face's built files (`bash scripts/web.sh` makes them in web/dist), served
    /// at `/` beside the API.
    #[arg(long, value_name = "DIR")]
    web_dir: Option<std::path::PathBuf>,
    /// Logs as JSON lines (on stderr; `RUST_LOG` picks the levels, default `info`).
    #[arg(long)]
    log_json: bool,
}

#[derive(Subcommand)]
enum Command {
    /// The operator's commands against cheats (sanctions, reviews, the assist report, the
    /// audit trail), sent to a running server with the admin token.
    Admin(operator::AdminArgs),
}

fn pause(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once(',').ok_or("expected FLOOR,JITTER (ms)")?;
    let ms = |v: &str| v.trim().parse::<u64>().ok().filter(|n| *n <= 10_000);
    match (ms(a), ms(b)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err("each is 0 to 10000 ms".into()),
    }
}

fn default_database() -> Result<String, String> {
    let dir = tongcheng_core::dirs::data_dir("tongcheng-server")
        .ok_or("neither $XDG_DATA_HOME nor $HOME is set; pass --database")?;
    Ok(format!("sqlite:{}", dir.join("server.db").display()))
}

fn main() {
    let cli = Cli::parse();
    if let Some(Command::Admin(args)) = cli.command {
        std::process::exit(operator::run(args));
    }
    tongcheng_server::logs::init(cli.log_json);
    let mut config = Config::default();
    if let Some(r) = cli.rules {
        config.accepted_rules = r;
    }
    config.online.queue.bot_fill_ms = cli.bot_fill_ms;
    config.online.ready_ms = cli.ready_ms;
    config.online.tournament_lease_secs = cli.tournament_lease_secs.max(1);
    config.online.max_tables = cli.max_tables;
    config.online.match_hands = cli.match_hands;
    config.public_url = cli.public_url;
    config.web_dir = cli.web_dir;
    config.node_id = cli.node_id;
    config.nats_url = cli.nats;
    config.nats_prefix = cli.nats_prefix;
    config.sweep_ms = cli.sweep_ms;
    config.request_timeout = Duration::from_secs(cli.request_timeout_secs.max(1));
    config.body_timeout = Duration::from_secs(cli.body_timeout_secs.max(1));
    config.conn.header_timeout = Duration::from_secs(cli.header_timeout_secs.max(1));
    config.conn.per_address = cli.max_connections_per_ip.max(1);
    config.online.sockets_per_account = cli.sockets_per_account.max(1);
    (config.online.claim_pause_ms, config.online.claim_jitter_ms) = cli.claim_pause_ms;
    for spec in &cli.limits {
        if let Err(e) = config.limits.set(spec) {
            eprintln!("tongcheng-server: --limit {spec}: {e}");
            std::process::exit(2);
        }
    }
    config.admin_token = cli
        .admin_token
        .or_else(|| std::env::var("TONGCHENG_ADMIN_TOKEN").ok())
        .filter(|t| !t.is_empty());
    if let Err(e) = run(
        cli.listen,
        cli.metrics_listen,
        cli.database,
        config,
        cli.threads,
    ) {
        tracing::error!(error = %e, "the server stopped");
        std::process::exit(1);
    }
}

fn run(
    listen: String,
    metrics_listen: Option<String>,
    database: Option<String>,
    config: Config,
    threads: Option<usize>,
) -> Result<(), String> {
    let database = database.map_or_else(default_database, Ok)?;
    let store = store::open(&database).map_err(|e| e.to_string())?;
    let state = Shared::new(store, config)?;
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = threads {
        rt.worker_threads(n.max(1));
    }
    let rt = rt.enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let listener = tongcheng_server::listen::bind(&listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        // The first line of output: tests and scripts read the port from it.
        println!(
            "tongcheng-server listening on http://{addr} (store: {}, node {})",
            state.store.backend(),
            state.online.node.id
        );
        let _ = std::io::stdout().flush();
        if let Some(at) = metrics_listen {
            let scrape = tokio::net::TcpListener::bind(&at)
                .await
                .map_err(|e| format!("cannot listen on {at} for metrics: {e}"))?;
            tracing::info!(addr = %at, "metrics on their own address");
            let router = tongcheng_server::app::metrics_router(state.clone());
            tokio::spawn(async move { axum::serve(scrape, router).await });
        }
        tracing::info!(%addr, store = %state.store.backend(), node = %state.online.node.id, "listening");
        tongcheng_server::serve(listener, state, shutdown_signal())
            .await
            .map_err(|e| e.to_string())
    })
}

/// Ctrl-C or SIGTERM: stop taking connections and finish the requests under way.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("stopping: finishing the requests under way");
}
