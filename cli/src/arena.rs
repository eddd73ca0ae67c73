//! The bot arena behind `tongcheng simulate --seats …`: plays hands between bot levels and
//! summarises each level's results with 95% confidence intervals.

use std::time::{Duration, Instant};

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tongcheng_client::LockExt;
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Action, Game, HandResult, HandSetup, SeatView};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::table::{Clock, Deal, Player, Step, Table, TableConfig};
use tongcheng_core::wall::Seed;

use crate::botzone::bridge::{BotzoneSeat, Form};

/// Per-level tallies.
#[derive(Default, Clone)]
pub struct LevelStats {
    /// Points of each seat-hand played by this level.
    pub points: Vec<f64>,
    /// Per-wall mean points (duplicate runs): the unit of the confidence interval.
    pub wall_means: Vec<f64>,
    pub wins: u64,
    pub deal_ins: u64,
    pub fan_total: u64,
    pub ready_but_short: u64,
    pub decisions_ns: Vec<u64>,
}

impl LevelStats {
    pub fn seat_hands(&self) -> u64 {
        self.points.len() as u64
    }
}

/// Mean and 95% interval of `xs` (normal approximation).
pub fn mean_ci(xs: &[f64]) -> (f64, [f64; 2]) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, [0.0, 0.0]);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, [mean, mean]);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (var / n).sqrt();
    (mean, [mean - half, mean + half])
}

fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// A bot whose every decision is timed (the arena's decision-time figures).
struct TimedBot {
    bot: LevelBot,
    times: Arc<Mutex<Vec<u64>>>,
}

impl Bot for TimedBot {
    fn choose(&mut self, view: &SeatView) -> Action {
        let start = Instant::now();
        let action = self.bot.choose(view);
        let ns = start.elapsed().as_nanos() as u64;
        self.times.locked().push(ns);
        action
    }

    fn new_hand(&mut self, seed: u64) {
        self.bot.new_hand(seed);
    }
}

/// Who plays a seat in the arena: one of our bots, or an outside Botzone program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatSpec {
    Bot(Level),
    /// `botzone:CMD` (JSON input) or `botzone-simple:CMD` (simple input).
    Botzone {
        cmd: String,
        form: Form,
    },
}

impl SeatSpec {
    pub fn parse(s: &str) -> Result<SeatSpec, String> {
        let s = s.trim();
        if let Some(cmd) = s.strip_prefix("botzone:") {
            return Ok(SeatSpec::Botzone {
                cmd: cmd.to_string(),
                form: Form::Json,
            });
        }
        if let Some(cmd) = s.strip_prefix("botzone-simple:") {
            return Ok(SeatSpec::Botzone {
                cmd: cmd.to_string(),
                form: Form::Simple,
            });
        }
        s.parse::<Level>()
            .map(SeatSpec::Bot)
            .map_err(|e| format!("{e}; a seat is a level or botzone:CMD / botzone-simple:CMD"))
    }

    /// The name its results are gathered under.
    pub fn label(&self) -> String {
        match self {
            SeatSpec::Bot(l) => l.name().to_string(),
            SeatSpec::Botzone { cmd, .. } => format!("botzone:{cmd}"),
        }
    }
}

/// Plays one hand on a [`Table`] with the given seats (bots seeded from `bot_seed`; outside
/// programs through their `bridges`), timing each decision per seat.
pub fn play(
    setup: HandSetup,
    seats: &[SeatSpec; 4],
    bridges: &mut [Option<&mut BotzoneSeat>; 4],
    bot_seed: u64,
    times: &[Arc<Mutex<Vec<u64>>>; 4],
) -> Game {
    let players = std::array::from_fn(|p| match &seats[p] {
        SeatSpec::Bot(level) => Player::Bot(*level),
        SeatSpec::Botzone { .. } => Player::Remote,
    });
    let (dealer, prevalent) = (setup.dealer, setup.prevalent);
    let mut table = Table::new(TableConfig {
        deal: Deal::Hand(setup),
        players,
        bot_seed,
        clock: Clock::Off,
    });
    for (p, spec) in seats.iter().enumerate() {
        if let SeatSpec::Bot(level) = spec {
            let bot = TimedBot {
                bot: LevelBot::new(*level, 0),
                times: times[p].clone(),
            };
            table
                .set_bot(p, Box::new(bot))
                .expect("every bot seat is a bot's");
        }
    }
    for (p, b) in bridges.iter_mut().enumerate() {
        if let Some(b) = b {
            b.new_hand(table.seat_of(p), dealer, prevalent);
        }
    }
    loop {
        match table.step(0) {
            Step::HandOver => break,
            Step::Acted { .. } => {}
            Step::Waiting { .. } => {
                // Only outside programs are waited for: ask the first one due.
                let Some((p, d)) = (0..4).find_map(|p| {
                    bridges[p].as_ref()?;
                    table.decision(p).map(|d| (p, d))
                }) else {
                    break;
                };
                let Some(b) = bridges[p].as_mut() else { break };
                let events = table.take_events(p);
                b.feed(&events);
                let start = Instant::now();
                let a = b.decide(&d);
                times[p].locked().push(start.elapsed().as_nanos() as u64);
                // Outside programs keep their own time limit (the bridge's); the table's
                // clock is off.
                if table.act(p, a, 0).is_err() {
                    table
                        .act(p, d.on_timeout, 0)
                        .expect("a decision's timeout action is legal");
                }
            }
        }
    }
    table.game().clone()
}

/// Did `seat` end the hand ready but unable to reach the minimum on any wait?
pub fn ready_but_short(game: &Game, result: &HandResult, seat: Seat) -> bool {
    if result.is_winner(seat) {
        return false;
    }
    let hand = game.concealed(seat);
    let melds = &result.melds[seat.index()];
    let Ok(s) = tongcheng_core::shanten::analyze(hand, melds.len()) else {
        return false;
    };
    if s.shanten != 0 {
        return false;
    }
    let mut waits = tongcheng_core::tile::TileSet::EMPTY;
    for sh in [
        Some(s.regular),
        s.seven_pairs,
        s.thirteen_orphans,
        s.honors_knitted,
        s.knitted_straight,
    ]
    .into_iter()
    .flatten()
    {
        if sh.shanten == 0 {
            waits |= sh.useful;
        }
    }
    let tiles = hand.tiles();
    let opts = game.rules().mcr;
    !waits.iter().any(|w| {
        let mut ctx = tongcheng_core::score::mcr::WinContext::new(&tiles, melds, w);
        ctx.self_drawn = true;
        ctx.seat_wind = game.seat_wind(seat);
        ctx.round_wind = game.setup().prevalent;
        tongcheng_core::score::mcr::score(&ctx, &opts).is_ok_and(|b| b.valid)
    })
}

/// Plays the arena between bot levels.
#[cfg(test)]
pub fn run(rules: &RuleSet, levels: [Level; 4], hands: u64, seed: u64, duplicate: bool) -> Value {
    run_seats(
        rules,
        levels.map(SeatSpec::Bot),
        hands,
        seed,
        duplicate,
        Duration::from_secs(2),
    )
    .expect("bots need no outside program")
}

/// Plays the arena with any seats, outside programs included (each decision within
/// `limit`); one JSON summary, with a report per outside program and a digest of every
/// hand's events (two runs that played the same hands have the same digest).
pub fn run_seats(
    rules: &RuleSet,
    seats: [SeatSpec; 4],
    hands: u64,
    seed: u64,
    duplicate: bool,
    limit: Duration,
) -> Result<Value, String> {
    let outside = seats.iter().any(|s| matches!(s, SeatSpec::Botzone { .. }));
    if outside && rules.flowers {
        return Err(format!(
            "Botzone programs play without flowers; the {} rules have them (use --rules botzone)",
            rules.name
        ));
    }
    if outside && rules.blind_discards {
        return Err(format!(
            "Botzone programs see every discard; the {} rules lay them face down (暗牌)",
            rules.name
        ));
    }
    let mut programs: Vec<Option<BotzoneSeat>> = seats
        .iter()
        .map(|s| match s {
            SeatSpec::Botzone { cmd, form } => Some(BotzoneSeat::new(cmd, *form, limit)),
            SeatSpec::Bot(_) => None,
        })
        .collect();
    let mut digest = std::hash::DefaultHasher::new();
    let master = Seed::from_u64(seed);
    let mut stats: std::collections::BTreeMap<String, LevelStats> = Default::default();
    let rotations = if duplicate { 4 } else { 1 };
    let mut played = Duration::ZERO;
    let mut total_hands = 0u64;
    let mut draws = 0u64;
    for wall in 0..hands {
        let mut wall_points: std::collections::BTreeMap<String, (f64, u32)> = Default::default();
        for r in 0..rotations {
            // Rotation r moves every level one seat on; the wall and the dealer stay.
            let which: [usize; 4] = std::array::from_fn(|s| (s + 4 - r as usize) % 4);
            let seat_spec: [SeatSpec; 4] = which.map(|i| seats[i].clone());
            let setup = HandSetup {
                rules: rules.clone(),
                seed: master.derive(wall),
                dealer: Seat((wall % 4) as u8),
                prevalent: Wind::from_index((wall / 4 % 4) as usize),
                dealer_level: 0,
            };
            let times: [Arc<Mutex<Vec<u64>>>; 4] = Default::default();
            let start = Instant::now();
            let mut bridges: [Option<&mut BotzoneSeat>; 4] = Default::default();
            for (slot, p) in bridges.iter_mut().zip(programs.iter_mut()) {
                *slot = p.as_mut();
            }
            // Seat s is played by spec which[s]: move the bridges along with their specs.
            let mut seated: [Option<&mut BotzoneSeat>; 4] = Default::default();
            for (i, b) in bridges.into_iter().enumerate() {
                let s = (i + r as usize) % 4;
                seated[s] = b;
            }
            let game = play(
                setup,
                &seat_spec,
                &mut seated,
                seed ^ (wall << 8) ^ ((r as u64) << 4),
                &times,
            );
            {
                use std::hash::Hash;
                serde_json::to_string(game.events())
                    .unwrap_or_default()
                    .hash(&mut digest);
            }
            played += start.elapsed();
            total_hands += 1;
            let result = game.result().expect("finished").clone();
            if result.winner.is_none() {
                draws += 1;
            }
            for s in Seat::ALL {
                let level = seat_spec[s.index()].label();
                let st = stats.entry(level.clone()).or_default();
                let pts = result.deltas[s.index()] as f64;
                st.points.push(pts);
                let wp = wall_points.entry(level).or_insert((0.0, 0));
                wp.0 += pts;
                wp.1 += 1;
                if result.is_winner(s) {
                    st.wins += 1;
                    st.fan_total += result.score_of(s).map_or(0, |sc| sc.total as u64);
                } else if result.discarder == Some(s) && result.winner.is_some() {
                    st.deal_ins += 1;
                }
                if ready_but_short(&game, &result, s) {
                    st.ready_but_short += 1;
                }
                st.decisions_ns.append(&mut times[s.index()].locked());
            }
        }
        for (level, (sum, n)) in wall_points {
            stats
                .get_mut(&level)
                .expect("seen")
                .wall_means
                .push(sum / n as f64);
        }
    }
    let bots: Vec<Value> = stats
        .iter_mut()
        .map(|(level, st)| {
            let (mean, ci) = if duplicate {
                mean_ci(&st.wall_means)
            } else {
                mean_ci(&st.points)
            };
            let n = st.seat_hands().max(1) as f64;
            st.decisions_ns.sort_unstable();
            json!({
                "bot": level,
                "seat_hands": st.seat_hands(),
                "mean_points": mean,
                "ci95": ci,
                "win_rate": st.wins as f64 / n,
                "deal_in_rate": st.deal_ins as f64 / n,
                "mean_fan": if st.wins > 0 { st.fan_total as f64 / st.wins as f64 } else { 0.0 },
                "ready_but_short_rate": st.ready_but_short as f64 / n,
                "decision_us_median": percentile(&st.decisions_ns, 0.5),
                "decision_us_p99": percentile(&st.decisions_ns, 0.99),
            })
        })
        .collect();
    let reports: Vec<Value> = seats
        .iter()
        .zip(&programs)
        .filter_map(|(s, p)| {
            p.as_ref().map(|p| {
                let mut r = p.report.json();
                r["seat"] = json!(s.label());
                r
            })
        })
        .collect();
    Ok(json!({
        "rules": rules.name,
        "hands": total_hands,
        "walls": hands,
        "duplicate": duplicate,
        "hands_per_sec": (total_hands as f64 / played.as_secs_f64().max(1e-9)).round(),
        "draw_rate": draws as f64 / total_hands.max(1) as f64,
        "bots": bots,
        "botzone": reports,
        "hands_digest": format!("{:016x}", std::hash::Hasher::finish(&digest)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_interval_by_hand() {
        // Four values: mean 2.5, sample sd = 1.29099, se = 0.645497, half-width 1.96·se = 1.265174.
        let (m, ci) = mean_ci(&[1.0, 2.0, 3.0, 4.0]);
        assert!((m - 2.5).abs() < 1e-12);
        assert!(
            (ci[0] - 1.234_826).abs() < 1e-5 && (ci[1] - 3.765_174).abs() < 1e-5,
            "{ci:?}"
        );
        assert_eq!(mean_ci(&[]).0, 0.0);
        assert_eq!(percentile(&[1000, 2000, 3000], 0.5), 2.0);
    }

    #[test]
    fn a_small_duplicate_arena_is_consistent() {
        let v = run(
            &RuleSet::guobiao(),
            [Level::Hard, Level::Normal, Level::Easy, Level::Normal],
            6,
            3,
            true,
        );
        assert_eq!(v["hands"], 24);
        let bots = v["bots"].as_array().unwrap();
        assert_eq!(bots.len(), 3);
        // Points are zero-sum: each level's mean weighted by its seat-hands adds up to zero.
        let total: f64 = bots
            .iter()
            .map(|b| b["mean_points"].as_f64().unwrap() * b["seat_hands"].as_f64().unwrap())
            .sum();
        assert!(total.abs() < 1e-6, "points do not sum to zero: {total}");
        let seat_hands: u64 = bots.iter().map(|b| b["seat_hands"].as_u64().unwrap()).sum();
        assert_eq!(seat_hands, 96);
        // The same seed gives the same summary apart from timing.
        let again = run(
            &RuleSet::guobiao(),
            [Level::Hard, Level::Normal, Level::Easy, Level::Normal],
            6,
            3,
            true,
        );
        for (a, b) in bots.iter().zip(again["bots"].as_array().unwrap()) {
            assert_eq!(a["mean_points"], b["mean_points"]);
            assert_eq!(a["win_rate"], b["win_rate"]);
        }
    }
}
