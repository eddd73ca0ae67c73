//! The load run's flags.

use std::path::PathBuf;

use tongcheng_core::bot::Level;

#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Args {
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
    /// The server binary to start (default: `tongcheng-server` next to this program).
    #[arg(long, value_name = "PATH")]
    pub server_bin: Option<PathBuf>,
    /// The admin token of `--server` (its `/metrics` need it; default
    /// $TONGCHENG_ADMIN_TOKEN). Started servers get one this run makes.
    #[arg(long, value_name = "TOKEN")]
    pub admin_token: Option<String>,
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
    /// Slow and silent sockets opened from `--slow-from` once every player has arrived, each
    /// held until the server closes it or the play time ends: the honest players' latency
    /// beside an attack, and what it costs the server.
    #[arg(long, default_value_t = 0)]
    pub slow_sockets: usize,
    /// The attacking address of `--slow-sockets` (loopback; the players use 127.0.0.2 on).
    #[arg(long, default_value = "127.200.0.1")]
    pub slow_from: std::net::IpAddr,
    /// Print progress every this many seconds on stderr (0: never).
    #[arg(long, default_value_t = 10)]
    pub progress_secs: u64,
    /// A tournament instead of the queue: `swiss` or `elimination` (打立出局). The run makes
    /// it as the operator for exactly `--players` entrants (sit-and-go), every player signs
    /// up and plays each round he is seated in, and the run ends when the tournament does.
    #[arg(long, value_name = "FORMAT")]
    pub tournament: Option<String>,
    /// Swiss rounds.
    #[arg(long, default_value_t = 3)]
    pub rounds: u8,
    /// Elimination: entrants left after each round, e.g. 2500,500,100,20,4 (default: the
    /// field halves each round).
    #[arg(long, value_delimiter = ',')]
    pub survivors: Vec<u32>,
    /// 复式: every table of a round plays the same walls.
    #[arg(long)]
    pub duplicate: bool,
    /// Entrants ask for each next table by the HTTP long poll (`POST …/seat`, a connection
    /// per table) instead of on their table connection (one socket for the tournament).
    #[arg(long)]
    pub seat_by_http: bool,
}

/// Longest pause a player may take (the rules' own limits are shorter).
pub(crate) const MAX_PAUSE_MS: u64 = 600_000;

/// Most players one run drives: one loopback address and a few descriptors each.
pub(crate) const MAX_PLAYERS: usize = 1_000_000;

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

impl Args {
    /// Refuses flags that cannot make a run.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.players == 0 || self.players > MAX_PLAYERS {
            return Err(format!("--players must be 1 to {MAX_PLAYERS}"));
        }
        if self.slow_sockets > 0 && !self.slow_from.is_loopback() {
            return Err("--slow-from must be a loopback address".into());
        }
        if let Some(f) = &self.tournament
            && f != "swiss"
            && f != "elimination"
        {
            return Err(format!(
                "--tournament must be swiss or elimination, not '{f}'"
            ));
        }
        if self.tournament.is_some()
            && self.server.is_some()
            && self.admin_token.is_none()
            && std::env::var("TONGCHENG_ADMIN_TOKEN").is_err()
        {
            return Err("a tournament on --server needs its --admin-token".into());
        }
        if self.nodes == 0 || self.nodes > 16 {
            return Err("--nodes must be 1 to 16".into());
        }
        if self.nodes > 1
            && !self
                .database
                .as_deref()
                .is_some_and(|d| d.starts_with("postgres"))
        {
            return Err(
                "several nodes share a PostgreSQL store: pass --database postgres://...".into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked() {
        assert_eq!(parse_range("5, 10"), Ok((5, 10)));
        assert!(parse_range("10,5").is_err());
        assert!(parse_range("x").is_err());
        assert!(parse_range("0,18446744073709551615").is_err());
    }
}
