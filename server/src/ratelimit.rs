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

/// A limit per key, named (logs and metrics say which refused).
pub struct RateLimiter {
    pub name: &'static str,
    buckets: DefaultKeyedRateLimiter<String>,
}

impl RateLimiter {
    pub fn new(name: &'static str, limit: Limit) -> RateLimiter {
        RateLimiter {
            name,
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

/// Sources locked out for a while (a guesser of room codes), with when each lock ends.
/// Not a bucket (governor's buckets count what is spent; this remembers that a bucket ran
/// out): a source locked stays locked until its time, whatever it sends meanwhile.
pub struct Lockout {
    lasts: Duration,
    until: std::sync::Mutex<std::collections::HashMap<String, std::time::Instant>>,
}

impl Lockout {
    pub fn new(lasts: Duration) -> Lockout {
        Lockout {
            lasts,
            until: std::sync::Mutex::default(),
        }
    }

    /// Locks `key` out from now.
    pub fn lock(&self, key: &str) {
        let now = std::time::Instant::now();
        if let Ok(mut m) = self.until.lock() {
            if m.len() >= PRUNE_AT {
                m.retain(|_, t| *t > now);
            }
            m.insert(key.to_string(), now + self.lasts);
        }
    }

    /// `Err(seconds)` while `key` is locked out.
    pub fn check(&self, key: &str) -> Result<(), u64> {
        let now = std::time::Instant::now();
        match self.until.lock().ok().and_then(|m| m.get(key).copied()) {
            Some(t) if t > now => Err((t - now).as_secs_f64().ceil().max(1.0) as u64),
            _ => Ok(()),
        }
    }
}

/// The network an address is counted in with its neighbours: its /24 (IPv4) or /64
/// (IPv6), where one person's many addresses usually sit.
pub fn network_of(ip: &str) -> String {
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(a)) => {
            let [x, y, z, _] = a.octets();
            format!("{x}.{y}.{z}.0/24")
        }
        Ok(std::net::IpAddr::V6(a)) => {
            let s = a.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Err(_) => ip.to_string(),
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
    /// The same, per /24 (IPv4) or /64 (IPv6) network: one guesser with many addresses.
    pub room_codes_per_network: Limit,
    /// Wrong room codes per account and per IP; when they run out the source is locked out
    /// of codes for `room_lockout`, right codes included.
    pub room_misses_per_source: Limit,
    pub room_lockout: Duration,
    /// Rooms (each with its table) made, per account and per IP.
    pub rooms_made_per_source: Limit,
    /// Queue requests (each may seat a table), per account.
    pub queue_per_account: Limit,
    /// The same, per IP (a household or an office shares one).
    pub queue_per_ip: Limit,
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
            room_codes_per_network: Limit {
                burst: 40.0,
                per_sec: 360.0 / 3600.0,
            },
            room_misses_per_source: Limit {
                burst: 5.0,
                per_sec: 1.0 / 300.0,
            },
            room_lockout: Duration::from_secs(15 * 60),
            rooms_made_per_source: Limit {
                burst: 5.0,
                per_sec: 1.0 / 60.0,
            },
            queue_per_account: Limit {
                burst: 20.0,
                per_sec: 360.0 / 3600.0,
            },
            queue_per_ip: Limit {
                burst: 60.0,
                per_sec: 1800.0 / 3600.0,
            },
        }
    }
}

impl LimitConfig {
    /// Every limit by its name (the `--limit` flag's), for reading and setting.
    fn by_name(&mut self) -> [(&'static str, &mut Limit); 12] {
        [
            ("challenge_per_ip", &mut self.challenge_per_ip),
            ("login_per_ip", &mut self.login_per_ip),
            ("login_per_key", &mut self.login_per_key),
            ("link_per_ip", &mut self.link_per_ip),
            ("link_per_key", &mut self.link_per_key),
            ("link_codes_per_account", &mut self.link_codes_per_account),
            ("room_codes_per_source", &mut self.room_codes_per_source),
            ("room_codes_per_network", &mut self.room_codes_per_network),
            ("room_misses_per_source", &mut self.room_misses_per_source),
            ("rooms_made_per_source", &mut self.rooms_made_per_source),
            ("queue_per_account", &mut self.queue_per_account),
            ("queue_per_ip", &mut self.queue_per_ip),
        ]
    }

    /// Sets one limit from `NAME=BURST/PER_HOUR` (a burst of at least one; a rate of zero
    /// never refills in practice).
    pub fn set(&mut self, spec: &str) -> Result<(), String> {
        let (name, value) = spec.split_once('=').ok_or("expected NAME=BURST/PER_HOUR")?;
        let (burst, per_hour) = value
            .split_once('/')
            .ok_or("expected BURST/PER_HOUR after the name")?;
        let number = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n >= 0.0)
                .ok_or(format!("{s:?} is not a number of at least 0"))
        };
        let (burst, per_hour) = (number(burst)?, number(per_hour)?);
        if burst < 1.0 {
            return Err("the burst must be at least 1".into());
        }
        let mut all = self.by_name();
        let names: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
        let names = names.join(", ");
        let (_, limit) = all
            .iter_mut()
            .find(|(n, _)| *n == name.trim())
            .ok_or(format!("no limit is named {name:?} (the names: {names})"))?;
        **limit = Limit {
            burst,
            per_sec: per_hour / 3600.0,
        };
        Ok(())
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
    pub room_codes_network: RateLimiter,
    pub room_misses: RateLimiter,
    pub room_lockout: Lockout,
    pub rooms_made_account: RateLimiter,
    pub rooms_made_ip: RateLimiter,
    pub queue_account: RateLimiter,
    pub queue_ip: RateLimiter,
}

impl RateLimits {
    pub fn new(c: &LimitConfig) -> RateLimits {
        RateLimits {
            challenge_ip: RateLimiter::new("challenge_per_ip", c.challenge_per_ip),
            login_ip: RateLimiter::new("login_per_ip", c.login_per_ip),
            login_key: RateLimiter::new("login_per_key", c.login_per_key),
            link_ip: RateLimiter::new("link_per_ip", c.link_per_ip),
            link_key: RateLimiter::new("link_per_key", c.link_per_key),
            link_codes: RateLimiter::new("link_codes_per_account", c.link_codes_per_account),
            room_codes_account: RateLimiter::new("room_codes_per_account", c.room_codes_per_source),
            room_codes_ip: RateLimiter::new("room_codes_per_ip", c.room_codes_per_source),
            room_codes_network: RateLimiter::new(
                "room_codes_per_network",
                c.room_codes_per_network,
            ),
            room_misses: RateLimiter::new("room_misses", c.room_misses_per_source),
            room_lockout: Lockout::new(c.room_lockout),
            rooms_made_account: RateLimiter::new("rooms_made_per_account", c.rooms_made_per_source),
            rooms_made_ip: RateLimiter::new("rooms_made_per_ip", c.rooms_made_per_source),
            queue_account: RateLimiter::new("queue_per_account", c.queue_per_account),
            queue_ip: RateLimiter::new("queue_per_ip", c.queue_per_ip),
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
    fn a_limit_is_set_by_its_name() {
        let mut c = LimitConfig::default();
        c.set("queue_per_ip=3/36").unwrap();
        assert_eq!(c.queue_per_ip.burst, 3.0);
        assert!((c.queue_per_ip.per_sec - 0.01).abs() < 1e-12);
        for bad in [
            "queue_per_ip",
            "nope=1/1",
            "queue_per_ip=0/5",
            "queue_per_ip=x/1",
        ] {
            assert!(c.set(bad).is_err(), "{bad}");
        }
        assert_eq!(c.queue_per_ip.burst, 3.0, "a refused spec changes nothing");
    }

    #[test]
    fn networks_group_neighbouring_addresses() {
        assert_eq!(network_of("203.0.113.77"), "203.0.113.0/24");
        assert_eq!(network_of("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
        assert_eq!(network_of("unknown"), "unknown");
    }

    #[test]
    fn a_lockout_holds_until_its_time() {
        let l = Lockout::new(Duration::from_secs(600));
        assert!(l.check("a").is_ok());
        l.lock("a");
        let left = l.check("a").unwrap_err();
        assert!((599..=600).contains(&left), "{left}");
        assert!(l.check("b").is_ok());
        let brief = Lockout::new(Duration::ZERO);
        brief.lock("a");
        assert!(brief.check("a").is_ok(), "a lock of no time has ended");
    }

    #[test]
    fn a_bucket_empties_and_says_how_long_to_wait() {
        let l = RateLimiter::new(
            "t",
            Limit {
                burst: 2.0,
                per_sec: 0.5,
            },
        );
        assert!(l.check("a").is_ok());
        assert!(l.check("a").is_ok());
        assert_eq!(l.check("a"), Err(2));
        assert!(l.check("b").is_ok(), "keys are independent");
    }
}
