//! How online tables are run: timers, abuse limits, the queue's settings.

use std::time::Duration;

use tongcheng_core::rules::RuleSet;

use super::queue::QueueConfig;

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
    /// A tournament's runner holds it this long (seconds) unless it renews (it does, every
    /// third of it): after that any node takes the tournament over.
    pub tournament_lease_secs: u64,
    /// Time for people to choose their 飘 before a hand where the rules ask it.
    pub piao_ms: u64,
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
    /// After each discard at a table where a person sits, the table waits this long plus a
    /// random part of up to `claim_jitter_ms` before it moves on, whoever may claim (see
    /// `play::table::playing`): a quick pass then tells the others nothing.
    pub claim_pause_ms: u64,
    pub claim_jitter_ms: u64,
    /// Messages per second per connection, with bursts up to `burst`.
    pub per_sec: f64,
    pub burst: f64,
    pub max_tables: usize,
    /// Table connections one account may hold open at once.
    pub sockets_per_account: usize,
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
            tournament_lease_secs: 15,
            piao_ms: 15_000,
            ready_ms: 10_000,
            lobby_ms: 120_000,
            auth_ms: 10_000,
            idle_ms: 60_000,
            linger_ms: 30_000,
            claim_pause_ms: 500,
            claim_jitter_ms: 500,
            per_sec: 20.0,
            burst: 40.0,
            max_tables: 10_000,
            sockets_per_account: 4,
            queue: QueueConfig::default(),
            queue_tick_ms: 250,
            dishonest_reveal: false,
        }
    }
}

impl OnlineConfig {
    /// How long a queue request waits before giving up: bots fill the empty seats after
    /// `bot_fill_ms`, so this only ends a request whose table could not be made.
    pub fn queue_wait_limit(&self) -> Duration {
        Duration::from_millis(self.queue.bot_fill_ms + 30_000)
    }
}
