//! A run: the server(s) started, the players spread over the ramp, the play time, the
//! matches under way played to their end, and the report.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use tongcheng_client::api::endpoints::{CreateTournament, Metrics, ShowTournament};
use tongcheng_client::api::tournament::{
    NewTournament, TournamentFormat, TournamentId, TournamentInfo,
};
use tongcheng_client::api::{NoBody, NoParams};
use tongcheng_client::{AsyncHttpApi, HttpOptions, LockExt, RetryPolicy};

use crate::args::Args;
use crate::attack;
use crate::player::{entrant, player};
use crate::report::{Counters, Report, SlowSockets, quantile_ms};
use crate::server::{ServerProcess, cpu_secs, nats_prefix, rss_kb};

/// What the players share.
pub(crate) struct Ctx {
    pub(crate) args: Args,
    /// The nodes' addresses: player i enters at node i mod N.
    pub(crate) urls: Vec<String>,
    /// The servers' admin token (their metrics).
    pub(crate) admin: String,
    pub(crate) counters: Counters,
    /// Past the play time: players do not queue again.
    pub(crate) stopping: AtomicBool,
}

/// An admin token for the servers this run starts (only this process knows it): 128 bits
/// from two of the standard library's randomly keyed hashers.
fn run_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let half = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        h.finish()
    };
    format!("loadgen-{:016x}{:016x}", half(), half())
}

/// Runs the load and returns its report.
pub(crate) fn run(args: &Args) -> Result<Report, String> {
    args.check()?;
    let mut servers = Vec::new();
    let admin = match &args.server {
        Some(url) => {
            servers.push(ServerProcess::existing(url, args.server_pid)?);
            args.admin_token
                .clone()
                .or_else(|| std::env::var("TONGCHENG_ADMIN_TOKEN").ok())
                .unwrap_or_default()
        }
        None => {
            let admin = run_token();
            for n in 0..args.nodes {
                servers.push(ServerProcess::start(args, n, &admin)?);
            }
            admin
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = rt.block_on(drive(args, &servers, admin));
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

/// A figure summed over the nodes, when every node has it.
fn summed<T: std::iter::Sum<T>>(
    servers: &[ServerProcess],
    f: impl Fn(u32) -> Option<T>,
) -> Option<T> {
    servers.iter().map(|s| s.pid.and_then(&f)).sum()
}

async fn drive(args: &Args, servers: &[ServerProcess], admin: String) -> Result<Report, String> {
    let ctx = Arc::new(Ctx {
        admin,
        args: args.clone(),
        urls: servers.iter().map(|s| s.url.clone()).collect(),
        counters: Counters::default(),
        stopping: AtomicBool::new(false),
    });
    let pids: Vec<u32> = servers.iter().filter_map(|s| s.pid).collect();
    let baseline = summed(servers, rss_kb);
    let cpu_start = summed(servers, cpu_secs);
    let start = Instant::now();
    let done = Arc::new(AtomicBool::new(false));
    let monitor = tokio::spawn(monitor(ctx.clone(), pids.clone(), done.clone(), start));
    let tournament = match &args.tournament {
        Some(format) => Some(make_tournament(&ctx, format).await?),
        None => None,
    };
    let mut players = Vec::with_capacity(args.players);
    let ramp = Duration::from_secs(args.ramp_secs);
    for i in 0..args.players {
        let at = start + ramp.mul_f64(i as f64 / args.players as f64);
        let ctx = ctx.clone();
        let tournament = tournament.clone();
        players.push(tokio::spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            match tournament {
                Some(id) => entrant(ctx, i, id).await,
                None => player(ctx, i).await,
            }
        }));
    }
    // A tournament lasts as long as its rounds do: the play time bounds it with the grace.
    let play_end = if tournament.is_some() {
        start + ramp
    } else {
        start + ramp + Duration::from_secs(args.secs)
    };
    let attack = if args.slow_sockets > 0 {
        tokio::time::sleep_until((start + ramp).into()).await;
        match slow_sockets(args, &ctx.urls[0], pids.clone(), play_end) {
            Ok(a) => Some(a),
            // The players still play and finish: the report says what went wrong.
            Err(e) => {
                ctx.counters.error(format!("--slow-sockets: {e}"));
                None
            }
        }
    } else {
        None
    };
    tokio::time::sleep_until(play_end.into()).await;
    ctx.stopping.store(true, Relaxed);
    let slow_sockets = match attack {
        Some(a) => Some(a.finish().await),
        None => None,
    };
    let grace_secs = if tournament.is_some() {
        args.secs + args.grace_secs
    } else {
        args.grace_secs
    };
    let grace = tokio::time::sleep(Duration::from_secs(grace_secs));
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
            "{left} players still playing {grace_secs} s after the play time"
        ));
        for p in &players {
            p.abort();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let rounds = match &tournament {
        Some(id) => Some(tournament_info(&ctx, id).await?),
        None => None,
    };
    done.store(true, Relaxed);
    let peaks = monitor.await.map_err(|e| e.to_string())?;
    let c = &ctx.counters;
    let mut lat = std::mem::take(&mut *c.latencies_us.locked());
    lat.sort_unstable();
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
        latency_p50_ms: quantile_ms(&lat, 0.5),
        latency_p99_ms: quantile_ms(&lat, 0.99),
        latency_max_ms: quantile_ms(&lat, 1.0),
        errors: c.errors.load(Relaxed),
        error_examples: c.examples.locked().clone(),
        auto_play: c.auto_play.load(Relaxed),
        server_rss_baseline_mb: baseline.map(|b| b as f64 / 1024.0),
        server_rss_peak_mb: peaks.rss_kb.map(|p| p as f64 / 1024.0),
        server_kb_per_player: kb_per_player,
        server_cpu_secs: match (cpu_start, summed(servers, cpu_secs)) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        },
        secs,
        rounds: rounds.as_ref().map(|t| t.rounds),
        rounds_finished: rounds.as_ref().map(|t| t.rounds_finished),
        seating_ms: rounds.map(|t| t.seating_ms),
        slow_sockets,
    })
}

/// The operator's API client on the first node.
fn operator(ctx: &Ctx) -> Result<AsyncHttpApi, String> {
    let mut api =
        AsyncHttpApi::new(&ctx.urls[0], HttpOptions::default()).map_err(|e| e.to_string())?;
    api.set_token(Some(ctx.admin.clone()));
    Ok(api)
}

/// Makes the run's tournament (sit-and-go for exactly `--players`): its id.
async fn make_tournament(ctx: &Ctx, format: &str) -> Result<String, String> {
    let a = &ctx.args;
    let settings = NewTournament {
        name: format!("loadgen {format} {}", a.players),
        rules: Some(a.rules.clone()),
        format: if format == "swiss" {
            TournamentFormat::swiss(a.rounds)
        } else {
            TournamentFormat::elimination(a.survivors.clone())
        },
        duplicate: a.duplicate,
        hands_per_match: a.match_hands,
        entrants: a.players as u32,
        starts_at: None,
        bots_allowed: true,
        rated: !a.casual,
        table_points: None,
    };
    let made = operator(ctx)?
        .call::<CreateTournament>(&NoParams {}, &NoParams {}, &settings)
        .await
        .map_err(|e| format!("the tournament cannot be made: {e}"))?;
    Ok(made.id)
}

/// The tournament as it ended (any entrant may read it; the operator's token is not a
/// session, so the first player's view is asked through a fresh login).
async fn tournament_info(ctx: &Ctx, id: &str) -> Result<TournamentInfo, String> {
    let mut api =
        AsyncHttpApi::new(&ctx.urls[0], HttpOptions::default()).map_err(|e| e.to_string())?;
    let identity = tongcheng_client::Identity::generate().map_err(|e| e.to_string())?;
    api.login(&identity, "loadgen", None)
        .await
        .map_err(|e| e.to_string())?;
    api.call::<ShowTournament>(&TournamentId { id: id.into() }, &NoParams {}, &NoBody)
        .await
        .map_err(|e| e.to_string())
}

/// The attack under way: its counters, its sockets and the sampler of the server's memory
/// and of the connections it holds from the attacker.
struct Attack {
    sockets: usize,
    counts: Arc<attack::AttackCounts>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    rss_at_start: Option<u64>,
    sampler: tokio::task::JoinHandle<Sampled>,
}

/// What the sampler saw every 250 ms.
#[derive(Default)]
struct Sampled {
    rss_peak: Option<u64>,
    held_peak: Option<usize>,
    held_at_end: Option<usize>,
}

/// Starts `--slow-sockets` against the first node, with its sampler.
fn slow_sockets(args: &Args, url: &str, pids: Vec<u32>, end: Instant) -> Result<Attack, String> {
    let server = attack::server_addr(url)?;
    let from = match args.slow_from {
        std::net::IpAddr::V4(ip) => ip,
        std::net::IpAddr::V6(_) => return Err("--slow-from must be an IPv4 address".into()),
    };
    let rss_at_start = rss_of(&pids);
    let (counts, tasks) = attack::start(server, args.slow_from, args.slow_sockets, end);
    let sampler = tokio::spawn(async move {
        let mut seen = Sampled::default();
        loop {
            if let Some(r) = rss_of(&pids) {
                seen.rss_peak = Some(seen.rss_peak.map_or(r, |p| p.max(r)));
            }
            seen.held_at_end = attack::server_held(server.port(), from);
            if let Some(h) = seen.held_at_end {
                seen.held_peak = Some(seen.held_peak.map_or(h, |p| p.max(h)));
            }
            if Instant::now() >= end {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    });
    Ok(Attack {
        sockets: args.slow_sockets,
        counts,
        tasks,
        rss_at_start,
        sampler,
    })
}

impl Attack {
    async fn finish(self) -> SlowSockets {
        for t in self.tasks {
            let _ = t.await;
        }
        let seen = self.sampler.await.unwrap_or_default();
        let c = &self.counts;
        SlowSockets {
            sockets: self.sockets,
            opened: c.opened.load(Relaxed),
            closed: c.closed.load(Relaxed),
            refused: c.refused.load(Relaxed),
            open_at_end: c.open_at_end.load(Relaxed),
            longest_closed_secs: c.longest_closed_ms.load(Relaxed) as f64 / 1000.0,
            server_held_peak: seen.held_peak,
            server_held_at_end: seen.held_at_end,
            server_rss_delta_mb: match (self.rss_at_start, seen.rss_peak) {
                (Some(a), Some(p)) => Some(p.saturating_sub(a) as f64 / 1024.0),
                _ => None,
            },
        }
    }
}

#[derive(Default)]
struct Peaks {
    connections: usize,
    tables: usize,
    rss_kb: Option<u64>,
}

/// A gauge's value in Prometheus text (0 when absent).
fn gauge(text: &str, name: &str) -> usize {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0)
}

/// The processes' resident memory summed, in KB (none without processes).
fn rss_of(pids: &[u32]) -> Option<u64> {
    (!pids.is_empty()).then(|| pids.iter().filter_map(|p| rss_kb(*p)).sum())
}

/// Reads the servers' gauges and memory every second; prints progress.
async fn monitor(ctx: Arc<Ctx>, pids: Vec<u32>, done: Arc<AtomicBool>, start: Instant) -> Peaks {
    let mut peaks = Peaks::default();
    let mut last_print = Instant::now();
    let rss_now = || rss_of(&pids);
    // One try each second: a late answer is read again at the next.
    let once = RetryPolicy {
        attempts: 1,
        ..RetryPolicy::default()
    };
    let nodes: Vec<AsyncHttpApi> = ctx
        .urls
        .iter()
        .filter_map(|u| {
            AsyncHttpApi::new(u, HttpOptions::default()).ok().map(|a| {
                let mut a = a.with_retry(once);
                a.set_token(Some(ctx.admin.clone()));
                a
            })
        })
        .collect();
    while !done.load(Relaxed) {
        // Every node's gauges, summed.
        let (mut connections, mut tables) = (0, 0);
        for node in &nodes {
            let read = node.call::<Metrics>(&NoParams {}, &NoParams {}, &NoBody);
            if let Ok(Ok(text)) = tokio::time::timeout(Duration::from_secs(5), read).await {
                connections += gauge(&text.0, "tongcheng_online_connections");
                tables += gauge(&text.0, "tongcheng_online_tables");
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
                "loadgen {:>5.0} s: {} logged in, {} at tables, {} matches finished, {} actions, {} errors, server {} MB",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauges_are_read_by_their_whole_name() {
        let text = "# TYPE x gauge\ntongcheng_online_connections_total 9\ntongcheng_online_connections 12\ntongcheng_online_tables 3\n";
        assert_eq!(gauge(text, "tongcheng_online_connections"), 12);
        assert_eq!(gauge(text, "tongcheng_online_tables"), 3);
        assert_eq!(gauge(text, "tongcheng_absent"), 0);
    }
}
