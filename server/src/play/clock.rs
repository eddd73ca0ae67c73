//! The process's one monotonic clock, in milliseconds since its first reading: what drives
//! the core tables' decision clocks (time limits, bank time, timeouts, 托管) and the online
//! tables' own lobby, contribution, ready and linger timers.

use std::sync::OnceLock;
use std::time::Duration;

use tokio::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();

fn start() -> Instant {
    *START.get_or_init(Instant::now)
}

/// Milliseconds now.
pub fn now_ms() -> u64 {
    start().elapsed().as_millis() as u64
}

/// The instant `ms` stands for (a timer to sleep until).
pub fn instant(ms: u64) -> Instant {
    start() + Duration::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_moves_forward_and_its_instants_match_its_readings() {
        let a = now_ms();
        std::thread::sleep(Duration::from_millis(5));
        let b = now_ms();
        assert!(b >= a + 5, "{a} {b}");
        assert!(instant(b) <= Instant::now());
        assert!(instant(b + 1_000) > Instant::now());
    }
}
