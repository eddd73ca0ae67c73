//! Judgement shared by the bots and the hints: how far a hand is, which tiles help and how
//! many of them are still live, what the hand could be worth under the 8-point minimum, and
//! how dangerous a tile is to let go.

use super::knowledge::Knowledge;
use crate::hand::{Meld, MeldKind};
use crate::score::mcr;
use crate::shanten::{ShapeShanten, honors_knitted_shanten};
use crate::tile::{KINDS, Tile, TileCounts, TileSet};

/// The shanten and useful tiles of the shapes at the minimum.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub shanten: i8,
    pub useful: TileSet,
    /// Live copies of the useful tiles.
    pub live: u32,
}

/// Overall shanten with the union of useful tiles over the shapes that reach it.
pub fn progress(k: &Knowledge, c: &TileCounts, melds: usize) -> Progress {
    let s = k.best(c, melds).unwrap_or(ShapeShanten {
        // Only reachable with an impossible hand size: hopeless rather than a panic.
        shanten: 8,
        useful: TileSet::EMPTY,
    });
    let live = live_count(k, s.useful);
    Progress {
        shanten: s.shanten,
        useful: s.useful,
        live,
    }
}

/// Live copies of the tiles in `useful`.
#[inline]
pub fn live_count(k: &Knowledge, useful: TileSet) -> u32 {
    useful.iter().map(|t| k.live(t) as u32).sum()
}

/// [`progress`] after each discard in `which` from the 14-tile hand `c`, sharing the work
/// across the discards. Entries for kinds not in `which` are meaningless, and discards more
/// than `slack` steps behind the best get no useful tiles (see [`best_after_each_discard`]).
pub fn progress_after_each_discard(
    k: &Knowledge,
    c: &TileCounts,
    melds: usize,
    which: u64,
    slack: i8,
) -> [Progress; KINDS] {
    let hopeless = Progress {
        shanten: 8,
        useful: TileSet::EMPTY,
        live: 0,
    };
    let Ok(each) = k.best_after_each_discard(c, melds, which, slack) else {
        // Only reachable with an impossible hand size: hopeless rather than a panic.
        return [hopeless; KINDS];
    };
    each.map(|s| Progress {
        shanten: s.shanten,
        useful: s.useful,
        live: live_count(k, s.useful),
    })
}

/// A ready hand's waits that actually pay: (live copies of valid waits, live copies of all
/// waits, best points among them).
pub fn valid_waits(
    k: &Knowledge,
    c: &TileCounts,
    melds: &[Meld],
    waits: TileSet,
) -> (u32, u32, u32) {
    let tiles = c.tiles();
    let opts = k.mcr;
    let mut valid = 0u32;
    let mut all = 0u32;
    let mut best = 0u32;
    for w in waits.iter() {
        let live = k.live(w) as u32;
        all += live;
        let mut ctx = mcr::WinContext::new(&tiles, melds, w);
        ctx.seat_wind = k.seat_wind;
        ctx.round_wind = k.round_wind;
        // Discard wins are the common case; self-draw adds a point or more.
        let pts = mcr::score(&ctx, &opts)
            .map(|b| b.points_without_flowers())
            .unwrap_or(0);
        let pts = if pts >= opts.min_points {
            pts
        } else {
            ctx.self_drawn = true;
            let p = mcr::score(&ctx, &opts)
                .map(|b| b.points_without_flowers())
                .unwrap_or(0);
            // Only the self-draws count then.
            if p >= opts.min_points {
                valid += live / 3;
            }
            best = best.max(p);
            continue;
        };
        valid += live;
        best = best.max(pts);
    }
    (valid, all, best)
}

/// A target the hand could grow into, with its points and how many tiles are missing.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub name: &'static str,
    pub points: u32,
    pub missing: u32,
}

/// Rough fan planning: the big fans this hand is closest to. `c` is the concealed hand.
pub fn targets(k: &Knowledge, c: &TileCounts, melds: &[Meld]) -> Vec<Target> {
    let mut all = *c;
    for m in melds {
        m.add_to(&mut all);
    }
    let a = &all.0;
    let mut out = Vec::with_capacity(12);
    let concealed = melds.iter().all(|m| !m.is_exposed());
    let group = |g: usize| -> u32 { a[g * 9..g * 9 + 9].iter().map(|&x| x as u32).sum() };
    let suits = [group(0), group(1), group(2)];
    let honors: u32 = a[27..].iter().map(|&x| x as u32).sum();
    let total: u32 = suits.iter().sum::<u32>() + honors;
    let meld_group = |m: &Meld| (m.tile.index() / 9).min(3);
    // Flushes: every tile of one suit (清一色), or one suit and honors (混一色).
    let (dom, &dom_n) = suits
        .iter()
        .enumerate()
        .max_by_key(|(_, n)| **n)
        .expect("three suits");
    let off_suit_meld = melds
        .iter()
        .any(|m| meld_group(m) != dom && meld_group(m) != 3);
    if !off_suit_meld {
        let others = total - dom_n - honors;
        out.push(Target {
            name: "混一色 Half Flush",
            points: 6,
            missing: others,
        });
        if melds.iter().all(|m| meld_group(m) == dom) {
            out.push(Target {
                name: "清一色 Full Flush",
                points: 24,
                missing: others + honors,
            });
        }
    }
    // All pungs (碰碰和): every set a pung.
    if !melds.iter().any(|m| m.kind == MeldKind::Chow) {
        let mut pungs = melds.len() as u32;
        let mut pairs = 0u32;
        for &x in &c.0 {
            if x >= 3 {
                pungs += 1;
            } else if x == 2 {
                pairs += 1;
            }
        }
        let need = 4u32.saturating_sub(pungs);
        let eye = u32::from(pairs > 0);
        let from_pairs = need.min(pairs.saturating_sub(eye));
        let missing = from_pairs + 2 * (need - from_pairs) + (1 - eye);
        out.push(Target {
            name: "碰碰和 All Pungs",
            points: 6,
            missing,
        });
    }
    // Straights: 清龙 (one suit) and 花龙 (three suits), counting chows already melded.
    let has = |i: usize| a[i] > 0;
    let chow_melds_ok = |want: &[(usize, usize)]| {
        melds.iter().all(|m| {
            m.kind == MeldKind::Chow && want.iter().any(|&(s, r)| m.tile.index() == s * 9 + r)
                || m.kind != MeldKind::Chow
        })
    };
    for s in 0..3 {
        let missing = (0..9).filter(|&r| !has(s * 9 + r)).count() as u32;
        if chow_melds_ok(&[(s, 0), (s, 3), (s, 6)]) || melds.len() < 2 {
            out.push(Target {
                name: "清龙 Pure Straight",
                points: 16,
                missing,
            });
        }
    }
    const PERMS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut best_mixed = u32::MAX;
    let mut best_triple = u32::MAX;
    let mut best_shifted = u32::MAX;
    for p in PERMS {
        let missing = (0..3)
            .map(|j| (0..3).filter(|&d| !has(p[j] * 9 + 3 * j + d)).count() as u32)
            .sum::<u32>();
        best_mixed = best_mixed.min(missing);
        for r in 0..6 {
            let shifted = (0..3)
                .map(|j| (0..3).filter(|&d| !has(p[j] * 9 + r + j + d)).count() as u32)
                .sum::<u32>();
            best_shifted = best_shifted.min(shifted);
        }
    }
    for r in 0..7 {
        let missing = (0..3)
            .map(|s| (0..3).filter(|&d| !has(s * 9 + r + d)).count() as u32)
            .sum::<u32>();
        best_triple = best_triple.min(missing);
    }
    out.push(Target {
        name: "花龙 Mixed Straight",
        points: 8,
        missing: best_mixed,
    });
    out.push(Target {
        name: "三色三同顺 Mixed Triple Chow",
        points: 8,
        missing: best_triple,
    });
    out.push(Target {
        name: "三色三步高 Mixed Shifted Chows",
        points: 6,
        missing: best_shifted,
    });
    if concealed && melds.is_empty() {
        let pairs: u32 = c.0.iter().map(|&x| (x / 2) as u32).sum();
        out.push(Target {
            name: "七对 Seven Pairs",
            points: 24,
            missing: 7u32.saturating_sub(pairs),
        });
        if let Some(s) = honors_knitted_shanten(c) {
            let knit = s as i32 + 1;
            out.push(Target {
                name: "全不靠 Lesser Honors and Knitted Tiles",
                points: 12,
                missing: knit.max(0) as u32,
            });
        }
    }
    // 五门齐: all three suits, a wind and a dragon.
    let wind = a[27..31].iter().any(|&x| x > 0);
    let dragon = a[31..34].iter().any(|&x| x > 0);
    let groups = suits.iter().filter(|&&n| n > 0).count() as u32 + wind as u32 + dragon as u32;
    out.push(Target {
        name: "五门齐 All Types",
        points: 6,
        missing: 5 - groups,
    });
    let _ = k;
    out
}

/// Points the hand collects on the way regardless of its big fan: dragon and seat/prevalent
/// wind pungs (pairs count half), concealment, all simples.
pub fn small_fans(k: &Knowledge, c: &TileCounts, melds: &[Meld]) -> f32 {
    let mut all = *c;
    for m in melds {
        m.add_to(&mut all);
    }
    let mut pts = 0.0;
    let valued = |i: usize| {
        (31..34).contains(&i) || i == k.seat_wind.tile().index() || i == k.round_wind.tile().index()
    };
    for i in 27..34 {
        if valued(i) {
            match all.0[i] {
                x if x >= 3 => pts += 2.0,
                2 => pts += 0.7,
                _ => {}
            }
        }
    }
    if melds.iter().all(|m| !m.is_exposed()) {
        pts += 2.0;
    }
    let simples = (0..KINDS)
        .all(|i| all.0[i] == 0 || Tile::kind(i).is_suited() && !Tile::kind(i).is_terminal());
    if simples {
        pts += 2.0;
    }
    pts
}

/// An estimate of the points this hand is heading for, discounting targets by distance.
pub fn value(k: &Knowledge, c: &TileCounts, melds: &[Meld]) -> f32 {
    let small = small_fans(k, c, melds);
    let mut best: f32 = 0.0;
    for t in targets(k, c, melds) {
        let v = t.points as f32 * 0.55f32.powi(t.missing as i32);
        best = best.max(v);
    }
    best + small
}

/// How threatening each opponent looks (0–1): several melds or a long hand suggest ready.
pub fn threat(k: &Knowledge, o: &super::knowledge::Opponent) -> f32 {
    let late = (o.discards as f32 / 14.0).min(1.0);
    let melded = match o.melds {
        0 => 0.0,
        1 => 0.15,
        2 => 0.4,
        _ => 0.8,
    };
    let _ = k;
    (melded + 0.5 * late).min(1.0)
}

/// How likely discarding `t` feeds a ready opponent (higher is worse).
pub fn danger(k: &Knowledge, t: Tile) -> f32 {
    if k.live(t) == 0 && k.hand.get(t) + k.seen[t.index()] >= 4 {
        // Every copy is accounted for by this seat: nobody else can be waiting on a pair or
        // set that needs it. (A wait on it needs someone else to hold one.)
    }
    let base = if t.is_honor() {
        match k.live(t) {
            0 => 0.05,
            1 => 0.3,
            _ => 0.6,
        }
    } else if t.is_terminal() {
        0.65
    } else if t.rank() == 2 || t.rank() == 8 {
        0.85
    } else {
        1.0
    };
    let mut d = 0.0;
    for o in &k.opponents {
        let mut x = base * threat(k, o);
        if o.discarded & (1 << t.index()) != 0 {
            x *= 0.35;
        }
        // A seat melding one suit is collecting it.
        if t.is_suited() && o.meld_groups[t.index() / 9] >= 2 {
            x *= 1.5;
        }
        d += x;
    }
    d
}
