//! `tongcheng fan --rules hangzhou|hangzhou-mil` (and the 4个白板 table): any line gets a JSON
//! object back, never a panic; a score's payments sum to zero; structured hands reach the
//! scorer with the wild, 飘, kongs, seats, dealer level and liability all varied, in range and
//! out of it.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use tongcheng_core::rules::{RuleSet, Scoring};
use tongcheng_core::score::fan_json::{FanRules, score_line};
use tongcheng_fuzz::{HandSpec, any_tile, build, without_win};

#[derive(Arbitrary, Debug)]
enum Input {
    Raw(u8, String),
    Hand(u8, Box<HzHand>),
}

#[derive(Arbitrary, Debug)]
struct HzHand {
    hand: HandSpec,
    /// None: the default 白; Some: that tile (flowers included, now and then).
    wild: Option<u8>,
    white_plays_wild_face: Option<bool>,
    with_win_tile: bool,
    self_drawn: Option<bool>,
    piao: u8,
    kongs: u8,
    on_kong: bool,
    ten_honors: Option<bool>,
    wilds_discarded: u8,
    winner: Option<u8>,
    dealer: Option<u8>,
    discarder: Option<u8>,
    dealer_level: Option<u8>,
    liable: Option<(bool, u8)>,
    /// Numbers in range (mostly) or raw.
    wide: bool,
}

fn small(n: u8, wide: bool, top: u8) -> u8 {
    if wide { n } else { n % (top + 1) }
}

fn line(h: &HzHand) -> String {
    let wild = h.wild.map(any_tile);
    let (concealed, melds, win) = build(&h.hand, Some(wild.as_deref().unwrap_or("5z")));
    let w = h.wide;
    let mut v = json!({
        "concealed": if h.with_win_tile { concealed.concat() } else { without_win(&concealed, &win) },
        "melds": melds,
        "win_tile": win,
        "piao": small(h.piao, w, 4),
        "kongs": small(h.kongs, w, 4),
        "on_kong": h.on_kong,
        "wilds_discarded": small(h.wilds_discarded, w, 4),
    });
    let mut set = |k: &str, x: Value| v[k] = x;
    if let Some(t) = &wild {
        set("wild", json!(t));
    }
    if let Some(b) = h.white_plays_wild_face {
        set("white_plays_wild_face", json!(b));
    }
    if let Some(b) = h.self_drawn {
        set("self_drawn", json!(b));
    }
    if let Some(b) = h.ten_honors {
        set("ten_honors", json!(b));
    }
    for (k, x) in [
        ("winner", h.winner),
        ("dealer", h.dealer),
        ("discarder", h.discarder),
    ] {
        if let Some(s) = x {
            set(k, json!(small(s, w, 3)));
        }
    }
    if let Some(l) = h.dealer_level {
        set("dealer_level", json!(small(l, w, 3)));
    }
    if let Some((contract, s)) = h.liable {
        let key = if contract { "contract" } else { "reverse" };
        set("liable", json!({ key: small(s, w, 3) }));
    }
    v.to_string()
}

fn rules(which: u8) -> FanRules {
    let r = match which % 4 {
        0 => RuleSet::hangzhou(),
        1 => RuleSet::hangzhou_mil(),
        2 => {
            let mut r = RuleSet::hangzhou();
            if let Scoring::Hangzhou(h) = &mut r.scoring {
                h.four_whites_bonus = true;
            }
            r
        }
        _ => {
            // No cap and an absurd highest dealer level: the checks must hold without them.
            let mut r = RuleSet::hangzhou();
            if let Scoring::Hangzhou(h) = &mut r.scoring {
                h.cap = 0;
                h.kong_chain_stacks = true;
            }
            r.dealer_max_level = u8::MAX;
            r
        }
    };
    FanRules::hangzhou(r).expect("a Hangzhou rule set")
}

fuzz_target!(|input: Input| {
    let (rules, text) = match &input {
        Input::Raw(r, s) => (rules(*r), s.clone()),
        Input::Hand(r, h) => (rules(*r), line(h)),
    };
    let out = score_line(&text, &rules);
    let v: Value = serde_json::from_str(&out).expect("the answer is JSON");
    if let Some(p) = v.get("payments") {
        let p: Vec<i64> = p
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        assert_eq!(p.len(), 4);
        assert_eq!(p.iter().sum::<i64>(), 0, "{text} -> {out}");
        assert!(v["multiplier"].as_u64().unwrap() >= 1, "{text} -> {out}");
    } else {
        assert!(v["error"].is_string(), "{text} -> {out}");
    }
});
