//! `tongcheng fan` under Chinese Official rules: any line gets a JSON object back (a score or
//! an error), never a panic; structured hands reach the scorer.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use tongcheng_core::score::fan_json::{FanRules, score_line};
use tongcheng_core::score::mcr::McrOptions;
use tongcheng_fuzz::{HandSpec, build, without_win};

#[derive(Arbitrary, Debug)]
enum Input {
    Raw(String),
    Hand(Box<McrHand>),
}

#[derive(Arbitrary, Debug)]
struct McrHand {
    hand: HandSpec,
    flags: u8,
    seat: u8,
    round: u8,
    flowers: u8,
    min_points: Option<u32>,
    mixed_kong_5: Option<bool>,
    /// Add one key the input does not know.
    unknown_key: bool,
}

fn line(h: &McrHand) -> String {
    let (concealed, melds, win) = build(&h.hand, None);
    let winds = ["E", "S", "W", "N"];
    let mut v = json!({
        "concealed": without_win(&concealed, &win),
        "melds": melds,
        "win_tile": win,
        "self_drawn": h.flags & 1 != 0,
        "last_copy": h.flags & 2 != 0,
        "on_kong": h.flags & 4 != 0,
        "robbing_kong": h.flags & 8 != 0,
        "last_tile": h.flags & 16 != 0,
        "seat_wind": winds[h.seat as usize % 4],
        "round_wind": winds[h.round as usize % 4],
        "flowers": h.flowers % 10,
    });
    if h.min_points.is_some() || h.mixed_kong_5.is_some() {
        v["options"] = json!({});
        if let Some(m) = h.min_points {
            v["options"]["min_points"] = json!(m);
        }
        if let Some(m) = h.mixed_kong_5 {
            v["options"]["mixed_kong_5"] = json!(m);
        }
    }
    if h.unknown_key {
        v["selfdrawn"] = json!(true);
    }
    v.to_string()
}

fuzz_target!(|input: Input| {
    let rules = FanRules::guobiao(McrOptions::default());
    let (text, structured) = match &input {
        Input::Raw(s) => (s.clone(), None),
        Input::Hand(h) => (line(h), Some(h)),
    };
    let out = score_line(&text, &rules);
    let v: Value = serde_json::from_str(&out).expect("the answer is JSON");
    if let Some(total) = v.get("total") {
        let fans = v["fans"].as_array().expect("fans");
        let points: u64 = fans
            .iter()
            .map(|f| f["points"].as_u64().unwrap() * f["count"].as_u64().unwrap())
            .sum();
        assert_eq!(total.as_u64(), Some(points), "{text} -> {out}");
    } else {
        assert!(v["error"].is_string(), "{text} -> {out}");
    }
    if structured.is_some_and(|h| h.unknown_key) {
        assert!(out.contains("unknown field"), "{out}");
    }
});
