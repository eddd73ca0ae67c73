//! `tongcheng simulate`: plays hands and prints one JSON summary line.
//!
//! Without `--seats`, four simple players (win when allowed, otherwise a random legal action)
//! exercise the engine. With `--seats hard,normal,normal,normal` it is the bot arena: each
//! level's points, wins, deal-ins, fans and decision times; `--duplicate` plays every wall
//! once per seat rotation so that the luck of the tiles cancels out.
//!
//! Each hand is played once at full speed (that is what `hands_per_sec` measures), then
//! replayed from its record step by step with the engine's invariants checked after every
//! action: tiles conserved, hands of legal size, payments summing to zero, nothing hidden in a
//! seat's view, and the replay reproducing every event and the result.

use std::time::{Duration, Instant};

use serde_json::json;
use tongcheng_core::bot::play_simple_hand;
use tongcheng_core::game::{Game, HandSetup};
use tongcheng_core::record::{HandRecord, replay};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::wall::Seed;

#[derive(clap::Args)]
pub struct Args {
    /// Rule set preset (guobiao).
    #[arg(long, default_value = "guobiao")]
    pub rules: String,
    /// Number of hands to play; with --duplicate, the number of walls (each played 4 times).
    #[arg(long, default_value_t = 1000)]
    pub hands: u64,
    /// Seed of the whole run: the same seed gives the same summary apart from timing.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seats 0–3, comma-separated: bot levels (easy, normal, hard) or outside Botzone programs
    /// (`botzone:CMD` reads JSON, `botzone-simple:CMD` the simple form), e.g.
    /// `hard,normal,normal,normal`: runs the bot arena instead of the simple players.
    #[arg(long, value_name = "LEVELS")]
    pub seats: Option<String>,
    /// Duplicate format: every wall is played once per seat rotation (4 times), so the bots
    /// meet the same tiles from every seat and luck cancels out.
    #[arg(long)]
    pub duplicate: bool,
    /// Time an outside Botzone program (`--seats botzone:CMD,…`) has per decision; a late
    /// answer is reported and the seat plays the decision's timeout action.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    pub decision_ms: u64,
}

/// Plays one hand with simple players; returns the finished game.
pub fn play_hand(setup: HandSetup, player_seed: u64) -> Game {
    play_simple_hand(setup, player_seed)
}

/// Replays a finished hand's record with every invariant checked at every step.
pub fn verify(record: &HandRecord) -> Result<(), String> {
    let mut game = Game::new(record.setup.clone());
    game.check_invariants()
        .map_err(|e| format!("after the deal: {e}"))?;
    // One view per seat, rewritten in place after every action (as hosts do).
    let mut views = Seat::ALL.map(|s| game.view(s));
    for (i, a) in record.actions.iter().enumerate() {
        game.apply(a.seat, a.action)
            .map_err(|e| format!("action {i}: {e}"))?;
        game.check_invariants()
            .map_err(|e| format!("after action {i}: {e}"))?;
        for viewer in Seat::ALL {
            let v = &mut views[viewer.index()];
            game.view_into(viewer, v);
            let own = game.concealed(viewer).total();
            if v.hand.len() + usize::from(v.drawn.is_some()) != own {
                return Err(format!(
                    "after action {i}: {viewer}'s view shows the wrong hand"
                ));
            }
        }
    }
    replay(record).map_err(|e| e.to_string())?;
    Ok(())
}

pub fn run(args: Args) -> std::io::Result<()> {
    let rules = RuleSet::preset(&args.rules).ok_or_else(|| {
        std::io::Error::other(format!(
            "unknown rules '{}' (known: {})",
            args.rules,
            RuleSet::preset_names().join(", ")
        ))
    })?;
    if let Some(seats) = &args.seats {
        let specs: Vec<crate::arena::SeatSpec> = seats
            .split(',')
            .map(crate::arena::SeatSpec::parse)
            .collect::<Result<_, _>>()
            .map_err(std::io::Error::other)?;
        let specs: [crate::arena::SeatSpec; 4] = specs
            .try_into()
            .map_err(|_| std::io::Error::other("--seats takes exactly four seats"))?;
        let summary = crate::arena::run_seats(
            &rules,
            specs,
            args.hands,
            args.seed,
            args.duplicate,
            Duration::from_millis(args.decision_ms),
        )
        .map_err(std::io::Error::other)?;
        println!("{summary}");
        return Ok(());
    }
    let seed = Seed::from_u64(args.seed);
    let mut played = Duration::ZERO;
    let mut draws = 0u64;
    let mut wins = [0u64; 4];
    let mut violations: Vec<String> = Vec::new();
    for i in 0..args.hands {
        let setup = HandSetup {
            rules: rules.clone(),
            seed: seed.derive(i),
            dealer: Seat((i % 4) as u8),
            prevalent: Wind::from_index((i / 4 % 4) as usize),
            dealer_level: 0,
        };
        let start = Instant::now();
        let game = play_hand(setup, args.seed.wrapping_mul(1_000_003).wrapping_add(i));
        played += start.elapsed();
        let result = game.result().expect("played to the end");
        let winners = result.all_winners();
        for w in &winners {
            wins[w.index()] += 1;
        }
        if winners.is_empty() {
            draws += 1;
        }
        let record = HandRecord::of(&game).expect("finished");
        if let Err(e) = verify(&record)
            && violations.len() < 10
        {
            violations.push(format!("hand {i}: {e}"));
        }
    }
    let n = args.hands.max(1) as f64;
    let summary = json!({
        "rules": rules.name,
        "hands": args.hands,
        "hands_per_sec": (args.hands as f64 / played.as_secs_f64().max(1e-9)).round(),
        "draw_rate": draws as f64 / n,
        "win_rate_by_seat": wins.map(|w| w as f64 / n),
        "invariants_ok": violations.is_empty(),
        "violations": violations,
    });
    println!("{summary}");
    Ok(())
}
