//! Matchmaking queues, one per rule set and kind (ranked or casual).
//!
//! The matcher is plain data and a function of the time passed in, so it is tested without
//! waiting and costs no task of its own: the lobby calls [`Queue::tick`] on a timer.
//!
//! Ranked: the player who has waited longest is seated first, with the three waiting players
//! closest to his rating among those inside both his band and theirs (a band is
//! `band + widen_per_sec × seconds waited` around a rating, so it widens with waiting time and
//! two players meet only when each would accept the other). Players who may not share a table
//! (the same device key, link group or IP address: [`Queue::conflict`]) are never seated
//! together. Once the longest waiter has waited `bot_fill_ms`, whoever fits is seated with him
//! and bots take the empty seats. Casual: ratings are ignored, every band is unbounded.

use std::time::{Duration, Instant};

/// How a queue seats people.
#[derive(Clone, Debug)]
pub struct QueueConfig {
    /// Half-width of a new arrival's rating band (Weng-Lin mu points).
    pub band: f64,
    /// How fast a band widens while its player waits.
    pub widen_per_sec: f64,
    /// Wait after which the longest waiter plays with bots in the empty seats.
    pub bot_fill_ms: u64,
}

impl Default for QueueConfig {
    fn default() -> QueueConfig {
        QueueConfig {
            band: 2.0,
            widen_per_sec: 0.2,
            bot_fill_ms: 60_000,
        }
    }
}

/// Who a waiting player is, for seating and for anti-collusion.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub account: i64,
    /// Every device key the account has (a key is one device; linked devices share an
    /// account, so an account's devices are its link group).
    pub devices: Vec<i64>,
    /// The address the player queued from.
    pub ip: Option<std::net::IpAddr>,
    /// Weng-Lin mu in the queue's rule set (ignored when casual).
    pub rating: f64,
}

struct Waiting<T> {
    who: Candidate,
    since: Instant,
    ticket: T,
}

/// One table's worth of players, with `4 - players.len()` seats for bots.
#[derive(Debug)]
pub struct Seating<T> {
    pub players: Vec<(Candidate, T)>,
}

impl<T> Seating<T> {
    pub fn bots(&self) -> usize {
        4 - self.players.len()
    }
}

/// A queue of players for one rule set; `T` is how a seated player is told (a channel).
pub struct Queue<T> {
    config: QueueConfig,
    ranked: bool,
    waiting: Vec<Waiting<T>>,
    last_tick: Option<Instant>,
}

impl<T> Queue<T> {
    pub fn new(config: QueueConfig, ranked: bool) -> Queue<T> {
        Queue {
            config,
            ranked,
            waiting: Vec::new(),
            last_tick: None,
        }
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Adds a player; one already waiting (a second connection) is replaced.
    pub fn push(&mut self, who: Candidate, ticket: T, now: Instant) {
        self.waiting.retain(|w| w.who.account != who.account);
        self.waiting.push(Waiting {
            who,
            since: now,
            ticket,
        });
    }

    /// Drops the players `gone` says left (their connection closed).
    pub fn drop_gone(&mut self, gone: impl Fn(&T) -> bool) {
        self.waiting.retain(|w| !gone(&w.ticket));
    }

    /// Two players who may not sit at one ranked table: one account, a shared device key
    /// (the same link group) or the same address.
    pub fn conflict(a: &Candidate, b: &Candidate) -> bool {
        a.account == b.account
            || a.devices.iter().any(|d| b.devices.contains(d))
            || (a.ip.is_some() && a.ip == b.ip)
    }

    fn band(&self, w: &Waiting<T>, now: Instant) -> f64 {
        if !self.ranked {
            return f64::INFINITY;
        }
        let waited = now.saturating_duration_since(w.since).as_secs_f64();
        self.config.band + self.config.widen_per_sec * waited
    }

    /// Whether the matcher last ran less than `every` before `now`. Every waiting request
    /// offers to run it; this keeps it to one run per interval however many wait.
    pub fn ran_within(&self, every: Duration, now: Instant) -> bool {
        self.last_tick
            .is_some_and(|t| now.saturating_duration_since(t) < every)
    }

    /// Seats whoever can be seated now, longest waiters first.
    pub fn tick(&mut self, now: Instant) -> Vec<Seating<T>> {
        self.last_tick = Some(now);
        // Longest waiter first.
        self.waiting.sort_by_key(|w| w.since);
        let n = self.waiting.len();
        let rating = |i: usize| self.waiting[i].who.rating;
        // Everyone in rating order, as a doubly linked list over positions, so that seated
        // players are unlinked and each anchor walks outwards only over those still waiting:
        // a tick costs O(n log n) however many are seated.
        let mut by_rating: Vec<usize> = (0..n).collect();
        by_rating.sort_by(|&a, &b| rating(a).total_cmp(&rating(b)).then(a.cmp(&b)));
        let mut pos = vec![0; n];
        for (p, &i) in by_rating.iter().enumerate() {
            pos[i] = p;
        }
        const NONE: usize = usize::MAX;
        let mut prev: Vec<usize> = (0..n).map(|p| p.checked_sub(1).unwrap_or(NONE)).collect();
        let mut next: Vec<usize> = (0..n)
            .map(|p| if p + 1 < n { p + 1 } else { NONE })
            .collect();
        let mut taken = vec![false; n];
        let mut tables: Vec<Vec<usize>> = Vec::new();
        for i in 0..n {
            if taken[i] {
                continue;
            }
            let anchor = &self.waiting[i];
            let band = self.band(anchor, now);
            let r = anchor.who.rating;
            let mut table = vec![i];
            let (mut lo, mut hi) = (prev[pos[i]], next[pos[i]]);
            while table.len() < 4 {
                // The closer of the two nearest still waiting on either side.
                let j = match (lo, hi) {
                    (NONE, NONE) => break,
                    (l, NONE) => {
                        lo = prev[l];
                        by_rating[l]
                    }
                    (NONE, h) => {
                        hi = next[h];
                        by_rating[h]
                    }
                    (l, h) => {
                        if r - rating(by_rating[l]) <= rating(by_rating[h]) - r {
                            lo = prev[l];
                            by_rating[l]
                        } else {
                            hi = next[h];
                            by_rating[h]
                        }
                    }
                };
                let gap = (rating(j) - r).abs();
                if gap > band {
                    break; // everyone further out is further still
                }
                let w = &self.waiting[j];
                let ok = gap <= self.band(w, now)
                    && (!self.ranked
                        || table
                            .iter()
                            .all(|&k| !Self::conflict(&self.waiting[k].who, &w.who)));
                if ok {
                    table.push(j);
                }
            }
            let waited = now.saturating_duration_since(anchor.since);
            if table.len() == 4 || waited >= Duration::from_millis(self.config.bot_fill_ms) {
                for &k in &table {
                    taken[k] = true;
                    let p = pos[k];
                    if prev[p] != NONE {
                        next[prev[p]] = next[p];
                    }
                    if next[p] != NONE {
                        prev[next[p]] = prev[p];
                    }
                }
                tables.push(table);
            }
        }
        if tables.is_empty() {
            return Vec::new();
        }
        let mut slots: Vec<Option<Waiting<T>>> = self.waiting.drain(..).map(Some).collect();
        let out = tables
            .into_iter()
            .map(|mut table| {
                table.sort_unstable();
                Seating {
                    players: table
                        .into_iter()
                        .filter_map(|k| slots[k].take())
                        .map(|w| (w.who, w.ticket))
                        .collect(),
                }
            })
            .collect();
        self.waiting = slots.into_iter().flatten().collect();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(account: i64, rating: f64) -> Candidate {
        Candidate {
            account,
            devices: vec![account * 10],
            ip: Some(std::net::IpAddr::from([
                10,
                0,
                (account / 256) as u8,
                account as u8,
            ])),
            rating,
        }
    }

    fn accounts(s: &Seating<()>) -> Vec<i64> {
        let mut a: Vec<i64> = s.players.iter().map(|p| p.0.account).collect();
        a.sort_unstable();
        a
    }

    fn config() -> QueueConfig {
        QueueConfig {
            band: 2.0,
            widen_per_sec: 1.0,
            bot_fill_ms: 30_000,
        }
    }

    #[test]
    fn close_ratings_are_seated_first_and_the_band_widens_with_time() {
        let t0 = Instant::now();
        let mut q = Queue::new(config(), true);
        // Two groups of four, far apart, arriving interleaved.
        for (a, r) in [
            (1, 20.0),
            (5, 40.0),
            (2, 21.0),
            (6, 41.0),
            (3, 19.5),
            (7, 39.0),
        ] {
            q.push(who(a, r), (), t0);
        }
        q.push(who(4, 20.5), (), t0);
        q.push(who(8, 40.5), (), t0);
        let seated = q.tick(t0);
        assert_eq!(seated.len(), 2);
        assert_eq!(accounts(&seated[0]), [1, 2, 3, 4]);
        assert_eq!(accounts(&seated[1]), [5, 6, 7, 8]);
        assert!(q.is_empty());

        // Four players 3 points apart: nobody fits a 2-point band at first ...
        for (a, r) in [(11, 20.0), (12, 23.0), (13, 26.0), (14, 29.0)] {
            q.push(who(a, r), (), t0);
        }
        assert!(q.tick(t0).is_empty());
        // ... after 2 s the bands are 4 wide: still no four within one anchor's band ...
        assert!(q.tick(t0 + Duration::from_secs(2)).is_empty());
        // ... after 8 s (10 wide) they are one table, with no bots.
        let seated = q.tick(t0 + Duration::from_secs(8));
        assert_eq!(seated.len(), 1);
        assert_eq!(accounts(&seated[0]), [11, 12, 13, 14]);
        assert_eq!(seated[0].bots(), 0);

        // Five close players: the four closest to the longest waiter are seated.
        for (a, r) in [(21, 30.0), (22, 31.9), (23, 30.5), (24, 29.0), (25, 30.2)] {
            q.push(who(a, r), (), t0);
        }
        let seated = q.tick(t0);
        assert_eq!(accounts(&seated[0]), [21, 23, 24, 25]);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn bots_fill_after_the_wait() {
        let t0 = Instant::now();
        let mut q = Queue::new(config(), true);
        q.push(who(1, 25.0), 'a', t0);
        q.push(who(2, 25.5), 'b', t0 + Duration::from_secs(5));
        q.push(who(3, 80.0), 'c', t0 + Duration::from_secs(5));
        assert!(q.tick(t0 + Duration::from_millis(29_999)).is_empty());
        let seated = q.tick(t0 + Duration::from_secs(30));
        assert_eq!(seated.len(), 1);
        let tickets: Vec<char> = seated[0].players.iter().map(|p| p.1).collect();
        assert_eq!(tickets, ['a', 'b']);
        assert_eq!(seated[0].bots(), 2);
        // The far player waits on alone until his own wait is over.
        assert_eq!(q.len(), 1);
        assert!(q.tick(t0 + Duration::from_secs(34)).is_empty());
        let seated = q.tick(t0 + Duration::from_secs(35));
        assert_eq!((seated[0].players.len(), seated[0].bots()), (1, 3));
    }

    #[test]
    fn casual_ignores_ratings_and_gone_players_leave() {
        let t0 = Instant::now();
        let mut q = Queue::new(config(), false);
        for (a, r) in [(1, 0.0), (2, 100.0), (3, 50.0), (4, -30.0), (5, 9.0)] {
            q.push(who(a, r), a, t0);
        }
        q.drop_gone(|&t| t == 2);
        let seated = q.tick(t0);
        assert!(q.ran_within(Duration::from_secs(1), t0 + Duration::from_millis(999)));
        assert!(!q.ran_within(Duration::from_secs(1), t0 + Duration::from_secs(1)));
        assert_eq!(seated.len(), 1);
        assert_eq!(seated[0].players.len(), 4);
        assert!(seated[0].players.iter().all(|p| p.1 != 2));
        assert!(q.is_empty());
    }

    #[test]
    fn same_device_link_group_or_ip_never_meet_at_a_ranked_table() {
        let t0 = Instant::now();
        let mut q = Queue::new(config(), true);
        let mut same_ip = who(2, 25.0);
        same_ip.ip = who(1, 0.0).ip;
        let mut same_device = who(3, 25.0);
        same_device.devices.extend([10, 20]); // the keys of accounts 1 and 2
        let mut no_ip = who(4, 25.0);
        no_ip.ip = None;
        let mut also_no_ip = who(5, 25.0);
        also_no_ip.ip = None;
        assert!(Queue::<()>::conflict(&who(1, 25.0), &same_ip));
        assert!(Queue::<()>::conflict(&who(1, 25.0), &same_device));
        assert!(!Queue::<()>::conflict(&no_ip, &also_no_ip));
        for w in [who(1, 25.0), same_ip, same_device, no_ip, also_no_ip] {
            q.push(w, (), t0);
        }
        // Five equal ratings, but 1, 2 and 3 may not meet: no full table ...
        assert!(q.tick(t0).is_empty());
        // ... and when the bots come, they still sit apart.
        let seated = q.tick(t0 + Duration::from_secs(30));
        let tables: Vec<Vec<i64>> = seated.iter().map(accounts).collect();
        assert_eq!(tables, [vec![1, 4, 5], vec![2], vec![3]]);
        // A casual queue seats them together.
        let mut casual = Queue::new(config(), false);
        let mut twin = who(2, 25.0);
        twin.ip = who(1, 0.0).ip;
        for w in [who(1, 25.0), twin, who(3, 25.0), who(4, 25.0)] {
            casual.push(w, (), t0);
        }
        assert_eq!(casual.tick(t0).len(), 1);
    }

    #[test]
    fn ten_thousand_players_are_seated_in_one_tick() {
        let t0 = Instant::now();
        let mut q = Queue::new(config(), true);
        // Ratings spread over 0..50 (close neighbours everywhere), distinct addresses.
        for a in 0..10_000i64 {
            q.push(who(a, (a * 7919 % 10_000) as f64 / 200.0), (), t0);
        }
        let started = Instant::now();
        let seated = q.tick(t0);
        let took = started.elapsed();
        // A few stragglers whose neighbours were all seated wait for their bands to widen.
        assert!(seated.len() >= 2_490, "seated {}", seated.len());
        assert_eq!(seated.len() * 4 + q.len(), 10_000);
        assert!(seated.iter().all(|s| s.players.len() == 4));
        // Each table is within the anchor's band.
        for s in &seated {
            let r: Vec<f64> = s.players.iter().map(|p| p.0.rating).collect();
            let spread = r.iter().cloned().fold(f64::MIN, f64::max)
                - r.iter().cloned().fold(f64::MAX, f64::min);
            assert!(spread <= 4.0, "{r:?}");
        }
        assert!(took < Duration::from_secs(1), "{took:?}");
    }
}
