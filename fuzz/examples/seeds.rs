//! Writes the checked-in seed corpus of the `record` target to `seeds/record/` (run from
//! fuzz/: `cargo run --example seeds`): hands played by the simple players under each preset
//! and two custom rule sets, won ones where a seed gives one. Deterministic: running it again
//! rewrites the same files. (`scripts/fuzz.sh` adds the version-1 fixtures of core's tests.)

use std::fs;
use std::path::Path;

use tongcheng_core::bot::play_simple_hand;
use tongcheng_core::game::HandSetup;
use tongcheng_core::record::{HandRecord, Verifier};
use tongcheng_core::rules::{DiscardWins, RuleSet, WildRule};
use tongcheng_core::wall::Seed;
use tongcheng_core::{Seat, Wind};

/// The first record under `rules` (seeds 0, 1, …) that `want` accepts.
fn record(rules: &RuleSet, dealer_level: u8, want: impl Fn(&HandRecord) -> bool) -> HandRecord {
    (0..500u64)
        .map(|s| {
            let setup = HandSetup {
                rules: rules.clone(),
                seed: Seed::from_u64(s),
                dealer: Seat((s % 4) as u8),
                prevalent: Wind::from_index((s / 4 % 4) as usize),
                dealer_level,
            };
            HandRecord::of(&play_simple_hand(setup, s)).expect("the hand is over")
        })
        .find(|r| want(r))
        .expect("some seed gives such a hand")
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/record");
    fs::create_dir_all(&out).unwrap();
    let won = |r: &HandRecord| r.result.winner.is_some();
    let drawn = |r: &HandRecord| r.result.winner.is_none();
    let mut paofeng = RuleSet::hangzhou();
    paofeng.name = "custom-flipped".into();
    paofeng.wild = WildRule::Flipped;
    paofeng.discard_wins = DiscardWins::DealerLevel3;
    paofeng.dealer_start_dice = true;
    let mut guobiao_low = RuleSet::guobiao();
    guobiao_low.name = "custom-guobiao".into();
    guobiao_low.mcr.min_points = 0;
    guobiao_low.mcr.mixed_kong_5 = true;
    let cases: Vec<(&str, HandRecord)> = vec![
        ("guobiao-won", record(&RuleSet::guobiao(), 0, won)),
        ("guobiao-drawn", record(&RuleSet::guobiao(), 0, drawn)),
        ("hangzhou-won", record(&RuleSet::hangzhou(), 2, won)),
        ("hangzhou-mil-won", record(&RuleSet::hangzhou_mil(), 0, won)),
        ("custom-flipped", record(&paofeng, 0, won)),
        ("custom-guobiao", record(&guobiao_low, 0, won)),
    ];
    for (name, r) in cases {
        Verifier::any_preset()
            .allow_custom()
            .verify(&r)
            .expect("a played hand verifies");
        let json = r.to_json();
        println!("{name}: {} bytes, {} actions", json.len(), r.actions.len());
        fs::write(out.join(format!("{name}.json")), json).unwrap();
    }
}
