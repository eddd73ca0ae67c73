//! Rate limits: token buckets in memory, keyed by client IP, public key or account.
//!
//! Login and link attempts are limited both per IP and per key/account, so neither one
//! address nor one key can hammer the server or guess link codes. In memory, per node: a
//! limit that resets on restart is still a limit, and several nodes multiply it by their
//! number at worst. The map is pruned when it grows, so a flood of addresses cannot exhaust
//! memory.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// A bucket's size and how fast it refills.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    pub burst: f64,
    pub per_sec: f64,
}

/// Keys kept before the map is pruned of full (idle) buckets.
const PRUNE_AT: usize = 100_000;

pub struct RateLimiter {
    limit: Limit,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    pub fn new(limit: Limit) -> RateLimiter {
        RateLimiter {
            limit,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `key`; `Err(seconds)` until one is available.
    pub fn check(&self, key: &str) -> Result<(), u64> {
        let now = Instant::now();
        let Limit { burst, per_sec } = self.limit;
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= PRUNE_AT {
            map.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per_sec < burst
            });
        }
        let (tokens, at) = map.entry(key.to_string()).or_insert((burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * per_sec).min(burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - *tokens) / per_sec.max(1e-9);
            Err(wait.ceil().max(1.0) as u64)
        }
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
