//! The wall clock, for the crates around the rules (the history, the server, the clients):
//! the rules engine itself reads none (records carry their times and seeds). Behind the
//! `host` feature, which `history` turns on, so the pure core and its WebAssembly build
//! have no clock. A clock before 1970 reads as 0.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// Unix seconds now.
pub fn unix_secs() -> i64 {
    i64::try_from(since_epoch().as_secs()).unwrap_or(i64::MAX)
}

/// Unix milliseconds now.
pub fn unix_millis() -> i64 {
    i64::try_from(since_epoch().as_millis()).unwrap_or(i64::MAX)
}

/// Unix nanoseconds now: the low digits vary from call to call, for jitter and names unique
/// to a moment (not randomness anyone relies on).
pub fn unix_nanos() -> u128 {
    since_epoch().as_nanos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_units_agree() {
        let (s, ms) = (unix_secs(), unix_millis());
        assert!(s > 1_700_000_000, "{s}");
        assert!((ms / 1000 - s).abs() <= 1, "{ms} {s}");
        assert!(unix_nanos() / 1_000_000 >= ms as u128);
    }
}
