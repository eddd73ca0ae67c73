//! Shared helpers of the `mcr_*` tests: hands written the way the rules file writes them.
//!
//! `[234m]` an exposed chow, pung or kong, `{1111m}` a concealed kong, plain groups the
//! concealed tiles, `+6s` the winning tile; after `|` the conditions: `self`, `seat=W`,
//! `round=S`, `flowers=3`, `last_copy`, `on_kong`, `robbing`, `last_tile`. Honors use the `z`
//! notation (1z East … 4z North, 5z White, 6z Green, 7z Red).

use tongcheng_core::hand::{KongKind, Meld};
use tongcheng_core::score::mcr::{
    Breakdown, FanId, McrOptions, ScoreError, WinContext, fan_by_id, score, set_scoped,
};
use tongcheng_core::seat::Wind;
use tongcheng_core::tile::{Tile, parse_tiles};

/// A hand and how it was won.
#[derive(Clone, Debug)]
pub struct Case {
    pub concealed: Vec<Tile>,
    pub melds: Vec<Meld>,
    pub win: Tile,
    pub self_drawn: bool,
    pub last_copy: bool,
    pub on_kong: bool,
    pub robbing_kong: bool,
    pub last_tile: bool,
    pub seat: Wind,
    pub round: Wind,
    pub flowers: u8,
}

/// Reads a hand written as described in the module docs. Panics on a malformed spec.
pub fn case(spec: &str) -> Case {
    let (hand, flags) = spec.split_once('|').unwrap_or((spec, ""));
    let mut c = Case {
        concealed: Vec::new(),
        melds: Vec::new(),
        win: Tile::EAST,
        self_drawn: false,
        last_copy: false,
        on_kong: false,
        robbing_kong: false,
        last_tile: false,
        seat: Wind::East,
        round: Wind::East,
        flowers: 0,
    };
    let mut win = None;
    for tok in hand.split_whitespace() {
        if let Some(inner) = tok.strip_prefix('[') {
            let tiles = parse_tiles(inner.trim_end_matches(']')).unwrap();
            c.melds
                .push(Meld::from_tiles(&tiles, KongKind::Exposed, None, None).unwrap());
        } else if let Some(inner) = tok.strip_prefix('{') {
            let tiles = parse_tiles(inner.trim_end_matches('}')).unwrap();
            c.melds
                .push(Meld::from_tiles(&tiles, KongKind::Concealed, None, None).unwrap());
        } else if let Some(w) = tok.strip_prefix('+') {
            win = Some(w.parse().unwrap());
        } else {
            c.concealed.extend(parse_tiles(tok).unwrap());
        }
    }
    c.win = win.expect("a winning tile");
    for f in flags.split_whitespace() {
        match f.split_once('=') {
            Some(("seat", w)) => c.seat = w.parse().unwrap(),
            Some(("round", w)) => c.round = w.parse().unwrap(),
            Some(("flowers", n)) => c.flowers = n.parse().unwrap(),
            None if f == "self" => c.self_drawn = true,
            None if f == "last_copy" => c.last_copy = true,
            None if f == "on_kong" => c.on_kong = true,
            None if f == "robbing" => c.robbing_kong = true,
            None if f == "last_tile" => c.last_tile = true,
            _ => panic!("unknown flag {f}"),
        }
    }
    c
}

impl Case {
    pub fn ctx(&self) -> WinContext<'_> {
        WinContext {
            concealed: &self.concealed,
            melds: &self.melds,
            win_tile: self.win,
            self_drawn: self.self_drawn,
            last_copy: self.last_copy,
            on_kong: self.on_kong,
            robbing_kong: self.robbing_kong,
            last_tile: self.last_tile,
            seat_wind: self.seat,
            round_wind: self.round,
            flowers: self.flowers,
        }
    }

    pub fn score(&self) -> Result<Breakdown, ScoreError> {
        score(&self.ctx(), &McrOptions::default())
    }

    pub fn score_with(&self, opts: &McrOptions) -> Result<Breakdown, ScoreError> {
        score(&self.ctx(), opts)
    }
}

/// The breakdown as (id, count) pairs in id order.
pub fn fans(b: &Breakdown) -> Vec<(FanId, u8)> {
    b.fans.iter().map(|f| (f.id, f.count)).collect()
}

/// Scores `spec` and checks the exact fan list, total and validity; returns the breakdown.
pub fn check(spec: &str, want: &[(FanId, u8)], total: u32, valid: bool) -> Breakdown {
    let b = case(spec).score().unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(fans(&b), want, "{spec}");
    assert_eq!(b.total, total, "{spec}: total");
    assert_eq!(b.valid, valid, "{spec}: valid");
    let sum: u32 = b.fans.iter().map(|f| f.points()).sum();
    assert_eq!(sum, b.total, "{spec}: total is the sum of the fans");
    b
}

/// Checks that `fan` is in the breakdown and every fan it excludes outright is not.
pub fn check_exclusions(b: &Breakdown, fan: FanId) {
    assert!(b.count(fan) > 0, "fan {fan} missing");
    for &x in fan_by_id(fan).unwrap().excludes {
        if !set_scoped(fan, x) {
            assert_eq!(b.count(x), 0, "fan {fan} must exclude {x}");
        }
    }
}
