//! What a run measured, and the counters the players keep while it runs.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use tongcheng_client::LockExt;

/// What the run measured; printed as one JSON object.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Report {
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
    /// `--tournament`: the rounds it has, those finished, and how long the server took to
    /// seat each round (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds_finished: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seating_ms: Option<Vec<f64>>,
    /// `--slow-sockets`: what the attack beside the players saw (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_sockets: Option<SlowSockets>,
}

/// The slow and silent sockets of one address beside the load.
#[derive(Debug, serde::Serialize)]
pub(crate) struct SlowSockets {
    /// Sockets the attacker tried to hold.
    pub sockets: usize,
    /// Connections opened.
    pub opened: u64,
    /// Connections the server closed.
    pub closed: u64,
    /// Connections the operating system refused.
    pub refused: u64,
    /// Connections that still looked open to the attacker when the play time ended: the
    /// kernel completed them but the server never accepted them (its listen queue was full),
    /// so the server holds nothing for them (see `server_held_at_end`).
    pub open_at_end: u64,
    /// The longest a connection lived before the server closed it.
    pub longest_closed_secs: f64,
    /// The most connections from the attacking address the server's side held at once, and
    /// how many it held when the play time ended (the kernel's table, sampled every 250 ms;
    /// a sample taken during a burst also counts connections still in the listen queue).
    pub server_held_peak: Option<usize>,
    pub server_held_at_end: Option<usize>,
    /// The server's resident memory at its most during the attack, less what it was when
    /// the attack began.
    pub server_rss_delta_mb: Option<f64>,
}

/// Counters shared by the players and the monitor.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) logged_in: AtomicU64,
    pub(crate) playing: AtomicU64,
    pub(crate) matches_started: AtomicU64,
    pub(crate) matches_finished: AtomicU64,
    pub(crate) hands_played: AtomicU64,
    pub(crate) actions: AtomicU64,
    pub(crate) errors: AtomicU64,
    pub(crate) auto_play: AtomicU64,
    pub(crate) examples: Mutex<Vec<String>>,
    pub(crate) latencies_us: Mutex<Vec<u32>>,
}

impl Counters {
    pub(crate) fn error(&self, what: String) {
        self.errors.fetch_add(1, Relaxed);
        let mut ex = self.examples.locked();
        if ex.len() < 10 {
            ex.push(what);
        }
    }

    /// A player's action → event latencies, kept for the report.
    pub(crate) fn latencies(&self, samples: Vec<u32>) {
        if !samples.is_empty() {
            self.latencies_us.locked().extend(samples);
        }
    }
}

/// The `q` quantile of sorted microseconds, in milliseconds (0 without samples).
pub(crate) fn quantile_ms(sorted_us: &[u32], q: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let i = ((sorted_us.len() as f64 - 1.0) * q).round() as usize;
    f64::from(sorted_us[i]) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_the_nearest_sample() {
        assert_eq!(quantile_ms(&[], 0.5), 0.0);
        let us: Vec<u32> = (1..=101).map(|i| i * 1000).collect();
        assert_eq!(quantile_ms(&us, 0.5), 51.0);
        assert_eq!(quantile_ms(&us, 0.99), 100.0);
        assert_eq!(quantile_ms(&us, 1.0), 101.0);
    }

    #[test]
    fn errors_are_counted_and_the_first_ten_kept() {
        let c = Counters::default();
        for i in 0..12 {
            c.error(format!("e{i}"));
        }
        assert_eq!(c.errors.load(Relaxed), 12);
        assert_eq!(c.examples.lock().unwrap().len(), 10);
    }
}
