//! Rate limits: governor's GCRA buckets in memory, keyed by client IP, public key or
//! account, and one per table connection.
//!
//! Login and link attempts are limited both per IP and per key/account, so neither one
//! address nor one key can hammer the server or guess link codes. In memory, per node: a
//! limit that resets on restart is still a limit, and several nodes multiply it by their
//! number at worst. The map is pruned when it grows, so a flood of addresses cannot exhaust
//! memory.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota};

/// A bucket's size and how fast it refills.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    pub burst: f64,
    pub per_sec: f64,
}

impl Limit {
    /// As governor's quota: one cell every `1 / per_sec` seconds, `burst` at once (at least
    /// one; a rate of zero or less refills once in about eleven days).
    pub fn quota(self) -> Quota {
        let period = Duration::from_secs_f64(1.0 / self.per_sec.max(1e-6));
        let burst = NonZeroU32::new(self.burst.clamp(1.0, f64::from(u32::MAX)) as u32)
            .unwrap_or(NonZeroU32::MIN);
        Quota::with_period(period)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
            .allow_burst(burst)
    }
}

/// Keys kept before the map is pruned of full (idle) buckets.
const PRUNE_AT: usize = 100_000;

/// Whole seconds until `not_until`, at least one (a `Retry-After` of zero invites a retry
/// that would be refused again).
fn retry_secs(
    clock: &DefaultClock,
    not_until: &governor::NotUntil<<DefaultClock as Clock>::Instant>,
) -> u64 {
    let wait = not_until.wait_time_from(clock.now());
    wait.as_secs_f64().ceil().max(1.0) as u64
}

/// A limit per key.
pub struct RateLimiter {
    buckets: DefaultKeyedRateLimiter<String>,
}

impl RateLimiter {
    pub fn new(limit: Limit) -> RateLimiter {
        RateLimiter {
            buckets: DefaultKeyedRateLimiter::keyed(limit.quota()),
        }
    }

    /// Takes one token for `key`; `Err(seconds)` until one is available.
    pub fn check(&self, key: &str) -> Result<(), u64> {
        if self.buckets.len() >= PRUNE_AT {
            self.buckets.retain_recent();
            self.buckets.shrink_to_fit();
        }
        self.buckets
            .check_key(&key.to_string())
            .map_err(|n| retry_secs(self.buckets.clock(), &n))
    }
}

/// A limit on one thing (a table connection's messages), counting refusals.
pub struct SingleLimiter {
    bucket: DefaultDirectRateLimiter,
    refused: u32,
}

impl SingleLimiter {
    pub fn new(limit: Limit) -> SingleLimiter {
        SingleLimiter {
            bucket: DefaultDirectRateLimiter::direct(limit.quota()),
            refused: 0,
        }
    }

    /// Takes one token; false (and one more refusal) when none is left.
    pub fn take(&mut self) -> bool {
        let ok = self.bucket.check().is_ok();
        if !ok {
            self.refused = self.refused.saturating_add(1);
        }
        ok
    }

    /// Refusals so far.
    pub fn refused(&self) -> u32 {
        self.refused
    }
}

/// The limits a server applies.
#[derive(Clone, Copy, Debug)]
pub struct LimitConfig {
    /// Challenges asked for, per IP.
    pub challenge_per_ip: Limit,
    /// Logins, per IP.
    pub login_per_ip: Limit,
    /// Logins, per public key.
    pub login_per_key: Limit,
    /// Attempts to join with a link code, per IP.
    pub link_per_ip: Limit,
    /// Attempts to join with a link code, per public key.
    pub link_per_key: Limit,
    /// Link codes made, per account.
    pub link_codes_per_account: Limit,
    /// Rooms looked up or joined by code, per account and per IP: at most 100 codes an hour
    /// (0.01% of the million six-digit codes), so guessing a stranger's room is hopeless.
    pub room_codes_per_source: Limit,
    /// Rooms (each with its table) made, per account and per IP.
    pub rooms_made_per_source: Limit,
}

impl Default for LimitConfig {
    fn default() -> LimitConfig {
        LimitConfig {
            challenge_per_ip: Limit {
                burst: 120.0,
                per_sec: 2.0,
            },
            login_per_ip: Limit {
                burst: 60.0,
                per_sec: 1.0,
            },
            login_per_key: Limit {
                burst: 20.0,
                per_sec: 0.2,
            },
            link_per_ip: Limit {
                burst: 10.0,
                per_sec: 1.0 / 30.0,
            },
            link_per_key: Limit {
                burst: 5.0,
                per_sec: 1.0 / 60.0,
            },
            link_codes_per_account: Limit {
                burst: 10.0,
                per_sec: 1.0 / 60.0,
            },
            room_codes_per_source: Limit {
                burst: 10.0,
                per_sec: 90.0 / 3600.0,
            },
            rooms_made_per_source: Limit {
                burst: 5.0,
                per_sec: 1.0 / 60.0,
            },
        }
    }
}

pub struct RateLimits {
    pub challenge_ip: RateLimiter,
    pub login_ip: RateLimiter,
    pub login_key: RateLimiter,
    pub link_ip: RateLimiter,
    pub link_key: RateLimiter,
    pub link_codes: RateLimiter,
    pub room_codes_account: RateLimiter,
    pub room_codes_ip: RateLimiter,
    pub rooms_made_account: RateLimiter,
    pub rooms_made_ip: RateLimiter,
}

impl RateLimits {
    pub fn new(c: &LimitConfig) -> RateLimits {
        RateLimits {
            challenge_ip: RateLimiter::new(c.challenge_per_ip),
            login_ip: RateLimiter::new(c.login_per_ip),
            login_key: RateLimiter::new(c.login_per_key),
            link_ip: RateLimiter::new(c.link_per_ip),
            link_key: RateLimiter::new(c.link_per_key),
            link_codes: RateLimiter::new(c.link_codes_per_account),
            room_codes_account: RateLimiter::new(c.room_codes_per_source),
            room_codes_ip: RateLimiter::new(c.room_codes_per_source),
            rooms_made_account: RateLimiter::new(c.rooms_made_per_source),
            rooms_made_ip: RateLimiter::new(c.rooms_made_per_source),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_bucket_counts_its_refusals() {
        let mut l = SingleLimiter::new(Limit {
            burst: 3.0,
            per_sec: 0.001,
        });
        assert!((0..3).all(|_| l.take()));
        assert!(!l.take() && !l.take());
        assert_eq!(l.refused(), 2);
    }

    #[test]
    fn fractional_rates_and_bursts_make_a_quota() {
        let q = Limit {
            burst: 5.0,
            per_sec: 1.0 / 60.0,
        }
        .quota();
        assert_eq!(q.burst_size().get(), 5);
        assert_eq!(q.replenish_interval(), Duration::from_secs(60));
        let none = Limit {
            burst: 0.0,
            per_sec: 0.0,
        }
        .quota();
        assert_eq!(none.burst_size().get(), 1);
    }

    #[test]
    fn a_bucket_empties_and_says_how_long_to_wait() {
        let l = RateLimiter::new(Limit {
            burst: 2.0,
            per_sec: 0.5,
        });
        assert!(l.check("a").is_ok());
        assert!(l.check("a").is_ok());
        assert_eq!(l.check("a"), Err(2));
        assert!(l.check("b").is_ok(), "keys are independent");
    }
}
