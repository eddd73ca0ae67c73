//! Engine speed: a whole hand driven by the simple players (deal to payment), one bot
//! decision per level and a hint, over seeded hands.
//!
//! `cargo bench -p tongcheng-core --bench game`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tongcheng_core::bot::{Bot, Level, LevelBot, SimplePlayer};
use tongcheng_core::game::{Game, HandSetup};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::wall::Seed;

fn setup(i: u64) -> HandSetup {
    HandSetup {
        rules: RuleSet::guobiao(),
        seed: Seed::from_u64(i),
        dealer: Seat((i % 4) as u8),
        prevalent: Wind::East,
        dealer_level: 0,
    }
}

fn play_simple(i: u64) -> Game {
    let mut g = Game::new(setup(i));
    let mut players: [SimplePlayer; 4] =
        std::array::from_fn(|s| SimplePlayer::new(i * 4 + s as u64));
    while !g.is_finished() {
        for s in g.pending_seats() {
            let a = players[s.index()].pick(&g.legal_actions(s));
            g.apply(s, a).unwrap();
        }
    }
    g
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("game");
    let mut i = 0u64;
    g.bench_function("hand_with_simple_players", |b| {
        b.iter(|| {
            i += 1;
            black_box(play_simple(i & 1023))
        })
    });
    // Decision points taken from real hands: every turn of the first seat in 64 hands.
    let mut views = Vec::new();
    for h in 0..64u64 {
        let mut game = Game::new(setup(h));
        let mut bots: [LevelBot; 4] =
            std::array::from_fn(|s| LevelBot::new(Level::Normal, h * 4 + s as u64));
        while !game.is_finished() {
            for s in game.pending_seats() {
                let v = game.view(s);
                if s == Seat(0) && v.drawn.is_some() {
                    views.push(v.clone());
                }
                let a = bots[s.index()].choose(&v);
                game.apply(s, a).unwrap();
            }
        }
    }
    for level in Level::ALL {
        let mut bot = LevelBot::new(level, 7);
        let mut n = 0usize;
        g.bench_function(format!("decision_{}", level.name()), |b| {
            b.iter(|| {
                n = (n + 1) % views.len();
                bot.choose(black_box(&views[n]))
            })
        });
    }
    // The hint for the same turns (the human's view, judged like the hard bot).
    let mut n = 0usize;
    g.bench_function("hint", |b| {
        b.iter(|| {
            n = (n + 1) % views.len();
            tongcheng_core::hint::hint(black_box(&views[n]))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
