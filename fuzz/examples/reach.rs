//! How often do the structured hands of the fan targets reach a score (not an error)?
//! `cargo run --example reach` in fuzz/: a check on the generators, not a fuzz target.

use arbitrary::{Arbitrary, Unstructured};
use serde_json::json;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::score::fan_json::{FanRules, score_line};
use tongcheng_core::score::mcr::McrOptions;
use tongcheng_fuzz::{HandSpec, build, without_win};

fn main() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut bytes = vec![0u8; 256];
    let (mut mcr_ok, mut hz_ok, n) = (0, 0, 20_000);
    let g = FanRules::guobiao(McrOptions::default());
    let h = FanRules::hangzhou(RuleSet::hangzhou()).unwrap();
    for _ in 0..n {
        for b in bytes.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *b = seed as u8;
        }
        let Ok(spec) = HandSpec::arbitrary(&mut Unstructured::new(&bytes)) else {
            continue;
        };
        let (concealed, melds, win) = build(&spec, None);
        let line =
            json!({"concealed": without_win(&concealed, &win), "melds": melds, "win_tile": win});
        mcr_ok += usize::from(!score_line(&line.to_string(), &g).contains("\"error\""));
        let (concealed, melds, win) = build(&spec, Some("5z"));
        let line = json!({"concealed": concealed.concat(), "melds": melds, "win_tile": win});
        hz_ok += usize::from(!score_line(&line.to_string(), &h).contains("\"error\""));
    }
    println!("scored: guobiao {mcr_ok}/{n}, hangzhou {hz_ok}/{n}");
}
