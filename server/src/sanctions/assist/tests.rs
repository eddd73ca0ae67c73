use std::collections::BTreeMap;

use super::*;
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Game, HandSetup};
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::wall::Seed;
use tongcheng_core::{Seat, Wind};

use crate::store::Think;

/// A small deterministic generator for the simulations (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-12), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// How a seat plays, and how long it takes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Policy {
    /// A client relaying the hard bot's choice (its own seed), after a human-looking delay
    /// of 0.8–2.5 s whatever the decision.
    Relay,
    /// A bot's play at human pace (longer over hard decisions).
    Bot(Level),
    /// The hard bot's choice but for a human share of mistakes (any of its next three),
    /// at human pace.
    Noisy(f64),
}

/// A person's think time: log-normal around 1.5 s, 1.6 times longer over hard decisions.
fn human_ms(rng: &mut Rng, hard: bool, pace: f64, sensitivity: f64) -> u32 {
    let ln = (1500.0 * pace).ln() + if hard { sensitivity } else { 0.0 } + 0.6 * rng.normal();
    ln.exp().clamp(200.0, 30_000.0) as u32
}

fn relay_ms(rng: &mut Rng) -> u32 {
    800 + (rng.unit() * 1700.0) as u32
}

/// One guobiao hand played by `policies`, with each seat's think times.
fn play(i: u64, policies: [Policy; 4], rng: &mut Rng) -> (HandRecord, Vec<Think>) {
    let setup = HandSetup {
        rules: RuleSet::guobiao(),
        seed: Seed::from_u64(7_000 + i),
        dealer: Seat((i % 4) as u8),
        prevalent: Wind::East,
        dealer_level: 0,
    };
    let mut g = Game::new(setup);
    let mut bots: [LevelBot; 4] = std::array::from_fn(|s| {
        let level = match policies[s] {
            Policy::Bot(l) => l,
            Policy::Relay | Policy::Noisy(_) => Level::Hard,
        };
        LevelBot::new(level, i * 13 + s as u64 + 5)
    });
    let mut think = Vec::new();
    while !g.is_finished() {
        let seat = g.pending_seats()[0];
        let s = seat.index();
        let view = g.view(seat);
        let mut a = bots[s].choose(&view);
        let judged = ranking(&view);
        if let (Policy::Noisy(err), Some((order, _))) = (policies[s], &judged)
            && rng.unit() < err
            && order.len() > 1
        {
            a = order[1 + rng.below((order.len() - 1).min(3))];
        }
        let hard = judged.as_ref().is_some_and(|j| j.1);
        let ms = match policies[s] {
            Policy::Relay => relay_ms(rng),
            _ => human_ms(rng, hard, 1.0, 0.47),
        };
        think.push(Think {
            seat: s as u8,
            at: g.events().len() as u32,
            ms,
        });
        g.apply(seat, a).unwrap();
    }
    (HandRecord::of(&g).unwrap(), think)
}

#[test]
fn a_relay_of_the_hard_bot_is_flagged_and_bot_players_at_human_pace_are_not() {
    let policies = [
        Policy::Relay,
        Policy::Bot(Level::Normal),
        Policy::Noisy(0.15),
        Policy::Bot(Level::Easy),
    ];
    let accounts = [Some(1), Some(2), Some(3), Some(4)];
    let mut rng = Rng(99);
    let mut tally = Tally::default();
    for i in 0..40 {
        let (record, think) = play(i, policies, &mut rng);
        tally.add(&RankedRecord { accounts, record }, &think);
    }
    assert_eq!((tally.hands, tally.unreadable), (40, 0));
    let t = AssistThresholds {
        min_decisions: 100,
        ..AssistThresholds::default()
    };
    // Four accounts: too few peers, so the honest population's reference is the yardstick.
    let r = tally.report(&BTreeMap::new(), &t);
    assert_eq!(r.accounts.len(), 4, "{r:#?}");
    for a in &r.accounts {
        eprintln!(
            "account {} ({:?}): {} decisions, top {:.3} (z {}), mean rank {:.3}, easy/hard ms \
             {:?}/{:?}, timing {:?}, flagged {:?}",
            a.account,
            policies[(a.account - 1) as usize],
            a.decisions,
            a.top_choice.value,
            a.top_choice.z,
            a.mean_rank.value,
            a.easy_ms,
            a.hard_ms,
            a.timing.as_ref().map(|m| (m.value, m.z)),
            a.flagged_by
        );
        assert_eq!(a.peers, 0);
    }
    let flagged: Vec<i64> = r
        .accounts
        .iter()
        .filter(|a| !a.flagged_by.is_empty())
        .map(|a| a.account)
        .collect();
    assert_eq!(flagged, [1], "{r:#?}");
    let relay = &r.accounts[0];
    assert!(relay.top_choice.value > 0.95, "{relay:?}");
    assert!(
        relay.timing.as_ref().is_some_and(|m| m.value.abs() < 0.2),
        "{relay:?}"
    );
    // The ranking says more than agreement: the easy bot's choices fall further down.
    let rank = |id: i64| {
        r.accounts
            .iter()
            .find(|a| a.account == id)
            .unwrap()
            .mean_rank
            .value
    };
    assert!(
        rank(1) < rank(3) && rank(3) < rank(2) && rank(2) < rank(4),
        "{r:#?}"
    );
    // The same hands give the same report.
    assert_eq!(tally.report(&BTreeMap::new(), &t), r);
}

/// A decision as the simulations replay it: whether it was hard, and where each level's
/// choice (and a relay's hard bot, with another seed) falls in the hard bot's ranking.
#[derive(Clone, Copy, Debug)]
struct Situation {
    hard: bool,
    candidates: u32,
    relay: u32,
    normal: u32,
    easy: u32,
}

/// Decisions of real hands (four normal bots), each judged and answered by every level.
fn situations(hands: u64) -> Vec<Situation> {
    let mut out = Vec::new();
    let mut rng = Rng(5);
    for i in 0..hands {
        let (record, _) = play(i + 500, [Policy::Bot(Level::Normal); 4], &mut rng);
        let mut g = Game::new(record.setup.clone());
        for a in &record.actions {
            let view = g.view(a.seat);
            if view.decision.is_some()
                && let Some((order, hard)) = ranking(&view)
            {
                let by = |level, seed| rank_of(&order, LevelBot::new(level, seed).choose(&view));
                out.push(Situation {
                    hard,
                    candidates: order.len() as u32,
                    relay: by(Level::Hard, i + 1),
                    normal: by(Level::Normal, i + 2),
                    easy: by(Level::Easy, i + 3),
                });
            }
            g.apply(a.seat, a.action).unwrap();
        }
    }
    out
}

/// A simulated account's play: the chance of the hard bot's choice, of the normal bot's,
/// of the easy bot's (else any of the hard bot's top five), and its timing.
#[derive(Clone, Copy, Debug)]
struct Player {
    p_hard: f64,
    p_normal: f64,
    p_easy: f64,
    /// `None`: a relay (the hard bot's choice with the relay's delay) on this share of
    /// decisions.
    relay: Option<f64>,
    pace: f64,
    sensitivity: f64,
}

fn simulate(p: &Player, pool: &[Situation], n: u32, rng: &mut Rng) -> AccountCounts {
    let mut c = AccountCounts::default();
    for _ in 0..n {
        let s = pool[rng.below(pool.len())];
        let relayed = p.relay.is_some_and(|share| rng.unit() < share);
        let rank = if relayed {
            s.relay
        } else {
            let u = rng.unit();
            if u < p.p_hard {
                0
            } else if u < p.p_hard + p.p_normal {
                s.normal
            } else if u < p.p_hard + p.p_normal + p.p_easy {
                s.easy
            } else {
                rng.below(s.candidates.min(5) as usize) as u32
            }
        };
        let ms = if relayed {
            relay_ms(rng)
        } else {
            human_ms(rng, s.hard, p.pace, p.sensitivity)
        };
        c.add(&Judged {
            rank,
            hard: s.hard,
            think_ms: Some(ms),
        });
    }
    c
}

/// The detector's hit rate on scripted assisted accounts and its false-positive rate on
/// 1,000 simulated honest ones (plus 100 hard-bot players with human noise), measured over
/// decisions of real hands. Run with `--nocapture` for the figures.
#[test]
fn assist_rates() {
    let pool = situations(30);
    assert!(pool.len() > 500, "{}", pool.len());
    let agree = |f: fn(&Situation) -> u32| {
        pool.iter().filter(|s| f(s) == 0).count() as f64 / pool.len() as f64
    };
    eprintln!(
        "{} decisions of 30 hands; the hard bot's first choice is the relay's {:.3}, the \
         normal bot's {:.3}, the easy bot's {:.3}; hard decisions {:.3}",
        pool.len(),
        agree(|s| s.relay),
        agree(|s| s.normal),
        agree(|s| s.easy),
        pool.iter().filter(|s| s.hard).count() as f64 / pool.len() as f64
    );
    let mut rng = Rng(2024);
    let mut tally = Tally::default();
    let mut ratings = BTreeMap::new();
    let mut kinds: BTreeMap<i64, &str> = BTreeMap::new();
    let mut id = 0i64;
    let mut add = |tally: &mut Tally, rng: &mut Rng, p: Player, mu: f64, kind: &'static str| {
        id += 1;
        let n = 200 + rng.below(1300) as u32;
        tally.accounts.insert(id, simulate(&p, &pool, n, rng));
        ratings.insert(id, mu);
        kinds.insert(id, kind);
    };
    // Honest people of every strength: stronger ones play the hard bot's choice more often
    // and are rated higher.
    for _ in 0..1_000 {
        let s = rng.unit();
        let p_hard = 0.25 + 0.55 * s;
        let p = Player {
            p_hard,
            p_normal: 0.55 * (1.0 - p_hard),
            p_easy: 0.25 * (1.0 - p_hard),
            relay: None,
            pace: (0.3 * rng.normal()).exp(),
            sensitivity: 0.45 + 0.15 * rng.normal(),
        };
        let mu = 18.0 + 16.0 * s + 1.5 * rng.normal();
        add(&mut tally, &mut rng, p, mu, "honest");
    }
    // Hard-bot players with human noise (15 % other choices), at human pace, rated high.
    for _ in 0..100 {
        let p = Player {
            p_hard: 0.85,
            p_normal: 0.0,
            p_easy: 0.0,
            relay: None,
            pace: (0.3 * rng.normal()).exp(),
            sensitivity: 0.45 + 0.15 * rng.normal(),
        };
        let mu = 30.0 + 4.0 * rng.unit();
        add(&mut tally, &mut rng, p, mu, "noisy_hard");
    }
    // Scripted clients relaying the hard bot on every decision, at every rating (their wins
    // lift them: most sit high).
    let relay = |share| Player {
        p_hard: 0.5,
        p_normal: 0.3,
        p_easy: 0.1,
        relay: Some(share),
        pace: 1.0,
        sensitivity: 0.45,
    };
    for _ in 0..200 {
        let mu = 20.0 + 16.0 * rng.unit();
        add(&mut tally, &mut rng, relay(1.0), mu, "relay");
    }
    // Relaying only half the decisions (own play, at own pace, otherwise): harder to see.
    for _ in 0..100 {
        let mu = 20.0 + 16.0 * rng.unit();
        add(&mut tally, &mut rng, relay(0.5), mu, "half_relay");
    }
    let r = tally.report(&ratings, &AssistThresholds::default());
    let rate = |kind: &str| {
        let all: Vec<&AssistAccount> = r
            .accounts
            .iter()
            .filter(|a| kinds[&a.account] == kind)
            .collect();
        let flagged = all.iter().filter(|a| !a.flagged_by.is_empty()).count();
        (flagged, all.len(), flagged as f64 / all.len() as f64)
    };
    let (honest, noisy, full, half) = (
        rate("honest"),
        rate("noisy_hard"),
        rate("relay"),
        rate("half_relay"),
    );
    eprintln!(
        "assist detector: hit rate {}/{} = {:.3} on scripted relays of every decision, {}/{} = \
         {:.3} on relays of half; false positives {}/{} = {:.4} on honest accounts, {}/{} = \
         {:.4} on hard-bot players with human noise",
        full.0,
        full.1,
        full.2,
        half.0,
        half.1,
        half.2,
        honest.0,
        honest.1,
        honest.2,
        noisy.0,
        noisy.1,
        noisy.2
    );
    for kind in ["honest", "noisy_hard", "relay", "half_relay"] {
        let mut tz: Vec<f64> = r
            .accounts
            .iter()
            .filter(|a| kinds[&a.account] == kind)
            .map(|a| a.top_choice.z)
            .collect();
        let mut mz: Vec<f64> = r
            .accounts
            .iter()
            .filter(|a| kinds[&a.account] == kind)
            .filter_map(|a| a.timing.as_ref().map(|m| m.z))
            .collect();
        tz.sort_by(f64::total_cmp);
        mz.sort_by(f64::total_cmp);
        let q = |v: &[f64], f: f64| v[((v.len() - 1) as f64 * f) as usize];
        eprintln!(
            "{kind}: top-choice z 5/50/95 % {:.2} {:.2} {:.2}, max {:.2}; timing z {:.2} {:.2} \
             {:.2}, max {:.2}",
            q(&tz, 0.05),
            q(&tz, 0.5),
            q(&tz, 0.95),
            q(&tz, 1.0),
            q(&mz, 0.05),
            q(&mz, 0.5),
            q(&mz, 0.95),
            q(&mz, 1.0)
        );
    }
    assert!(full.2 >= 0.95, "hit rate {full:?}");
    assert!(
        honest.2 <= 0.01 && noisy.2 <= 0.02,
        "false positives {honest:?} {noisy:?}"
    );
}
