//! Shared test helpers: seeded random hands and slow, obviously-correct references.
#![allow(dead_code)]

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tongcheng_core::hand::KNITS;
use tongcheng_core::tile::{KINDS, Tile, TileCounts};

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `n` tiles drawn from a full 136-tile wall.
pub fn random_tiles(rng: &mut ChaCha8Rng, n: usize) -> TileCounts {
    let mut wall: Vec<u8> = (0..KINDS as u8).flat_map(|k| [k; 4]).collect();
    wall.shuffle(rng);
    let mut c = TileCounts::new();
    for &k in &wall[..n] {
        c.0[k as usize] += 1;
    }
    c
}

/// `n` tiles drawn from a wall biased towards one suit, or towards terminals and honors, so
/// that the rarer shapes come up often.
pub fn random_biased(rng: &mut ChaCha8Rng, n: usize) -> TileCounts {
    let style = rng.gen_range(0..4);
    let keep = |k: usize, rng: &mut ChaCha8Rng| -> bool {
        match style {
            0 => true,
            1 => k / 9 == 0 || (k >= 27 && rng.gen_bool(0.2)),
            2 => k >= 27 || k.is_multiple_of(9) || k % 9 == 8 || rng.gen_bool(0.15),
            _ => k >= 27 || ((k % 9) % 3 == k / 9) || rng.gen_bool(0.1),
        }
    };
    let mut wall: Vec<u8> = Vec::new();
    for k in 0..KINDS {
        for _ in 0..4 {
            if keep(k, rng) {
                wall.push(k as u8);
            }
        }
    }
    wall.shuffle(rng);
    let mut c = TileCounts::new();
    for &k in &wall[..n] {
        c.0[k as usize] += 1;
    }
    c
}

/// A random complete regular hand of 14 concealed tiles (four sets and a pair), at most four
/// copies of any kind.
pub fn random_regular_win(rng: &mut ChaCha8Rng) -> TileCounts {
    loop {
        let mut c = TileCounts::new();
        for _ in 0..4 {
            if rng.gen_bool(0.5) {
                let suit = rng.gen_range(0..3);
                let low = suit * 9 + rng.gen_range(0..7);
                for d in 0..3 {
                    c.0[low + d] += 1;
                }
            } else {
                c.0[rng.gen_range(0..KINDS)] += 3;
            }
        }
        c.0[rng.gen_range(0..KINDS)] += 2;
        if c.0.iter().all(|&x| x <= 4) {
            return c;
        }
    }
}

/// A random seven-pairs hand (a kind may be used twice: four alike).
pub fn random_seven_pairs(rng: &mut ChaCha8Rng) -> TileCounts {
    loop {
        let mut c = TileCounts::new();
        for _ in 0..7 {
            c.0[rng.gen_range(0..KINDS)] += 2;
        }
        if c.0.iter().all(|&x| x <= 4) {
            return c;
        }
    }
}

pub const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

pub fn random_thirteen_orphans(rng: &mut ChaCha8Rng) -> TileCounts {
    let mut c = TileCounts::new();
    for &i in &ORPHANS {
        c.0[i] = 1;
    }
    c.0[ORPHANS[rng.gen_range(0..13)]] += 1;
    c
}

pub fn random_honors_knitted(rng: &mut ChaCha8Rng) -> TileCounts {
    let knit = KNITS[rng.gen_range(0..6)];
    let mut pool: Vec<usize> = knit.tiles().iter().map(|t| t.index()).collect();
    pool.extend(27..34);
    // At least five honors and at most nine suit tiles: draw until 14 distinct fit.
    loop {
        pool.shuffle(rng);
        let pick = &pool[..14];
        if pick.iter().filter(|&&k| k >= 27).count() >= 5 {
            let mut c = TileCounts::new();
            for &k in pick {
                c.0[k] = 1;
            }
            return c;
        }
    }
}

pub fn random_knitted_straight(rng: &mut ChaCha8Rng) -> TileCounts {
    loop {
        let knit = KNITS[rng.gen_range(0..6)];
        let mut c = TileCounts::new();
        for t in knit.tiles() {
            c.add(t);
        }
        if rng.gen_bool(0.5) {
            let low = rng.gen_range(0..3) * 9 + rng.gen_range(0..7);
            for d in 0..3 {
                c.0[low + d] += 1;
            }
        } else {
            c.0[rng.gen_range(0..KINDS)] += 3;
        }
        c.0[rng.gen_range(0..KINDS)] += 2;
        if c.0.iter().all(|&x| x <= 4) {
            return c;
        }
    }
}

// ---- slow references -------------------------------------------------------------------

/// Can `c` be split into exactly `sets` sets and `pairs` pairs (any counts, even above four)?
pub fn ref_decomposes(c: &mut [u8; KINDS], sets: usize, pairs: usize) -> bool {
    let Some(i) = c.iter().position(|&x| x > 0) else {
        return sets == 0 && pairs == 0;
    };
    let t = Tile::kind(i);
    if pairs > 0 && c[i] >= 2 {
        c[i] -= 2;
        let ok = ref_decomposes(c, sets, pairs - 1);
        c[i] += 2;
        if ok {
            return true;
        }
    }
    if sets > 0 && c[i] >= 3 {
        c[i] -= 3;
        let ok = ref_decomposes(c, sets - 1, pairs);
        c[i] += 3;
        if ok {
            return true;
        }
    }
    if sets > 0 && t.is_suited() && t.rank() <= 7 && c[i + 1] > 0 && c[i + 2] > 0 {
        c[i] -= 1;
        c[i + 1] -= 1;
        c[i + 2] -= 1;
        let ok = ref_decomposes(c, sets - 1, pairs);
        c[i] += 1;
        c[i + 1] += 1;
        c[i + 2] += 1;
        if ok {
            return true;
        }
    }
    false
}

/// Regular win by brute force.
pub fn ref_regular_win(c: &[u8; KINDS], melds: usize) -> bool {
    let total: usize = c.iter().map(|&x| x as usize).sum();
    total + 3 * melds == 14 && ref_decomposes(&mut c.clone(), 4 - melds, 1)
}

pub fn ref_seven_pairs_win(c: &[u8; KINDS]) -> bool {
    c.iter().map(|&x| x as usize).sum::<usize>() == 14 && c.iter().all(|&x| x % 2 == 0)
}

/// Classic block-counting regular shanten: try every split into sets, partial sets (two tiles
/// of a set) and a pair; shanten = 2·K − 2·sets − partials − pair, with sets + partials ≤ K.
pub fn ref_regular_shanten(c: &[u8; KINDS], k: usize) -> i32 {
    fn go(c: &mut [u8; KINDS], i: usize, k: usize, m: usize, t: usize, p: usize, best: &mut i32) {
        let mut i = i;
        while i < KINDS && c[i] == 0 {
            i += 1;
        }
        if i == KINDS {
            let t = t.min(k - m.min(k));
            let v = 2 * k as i32 - 2 * m as i32 - t as i32 - p as i32;
            *best = (*best).min(v);
            return;
        }
        let tile = Tile::kind(i);
        let chow = tile.is_suited() && tile.rank() <= 7;
        let run2 = tile.is_suited() && tile.rank() <= 8;
        if c[i] >= 3 && m < k {
            c[i] -= 3;
            go(c, i, k, m + 1, t, p, best);
            c[i] += 3;
        }
        if chow && m < k && c[i + 1] > 0 && c[i + 2] > 0 {
            c[i] -= 1;
            c[i + 1] -= 1;
            c[i + 2] -= 1;
            go(c, i, k, m + 1, t, p, best);
            c[i] += 1;
            c[i + 1] += 1;
            c[i + 2] += 1;
        }
        if c[i] >= 2 {
            c[i] -= 2;
            if p == 0 {
                go(c, i, k, m, t, 1, best);
            }
            go(c, i, k, m, t + 1, p, best);
            c[i] += 2;
        }
        if run2 && c[i + 1] > 0 {
            c[i] -= 1;
            c[i + 1] -= 1;
            go(c, i, k, m, t + 1, p, best);
            c[i] += 1;
            c[i + 1] += 1;
        }
        if chow && c[i + 2] > 0 {
            c[i] -= 1;
            c[i + 2] -= 1;
            go(c, i, k, m, t + 1, p, best);
            c[i] += 1;
            c[i + 2] += 1;
        }
        c[i] -= 1;
        go(c, i + 1, k, m, t, p, best);
        c[i] += 1;
    }
    let mut best = i32::MAX;
    go(&mut c.clone(), 0, k, 0, 0, 0, &mut best);
    best
}

/// Regular shanten of a 14-tile hand: −1 when complete, else the best discard's 13-tile value.
pub fn ref_regular_shanten_any(c: &[u8; KINDS], k: usize) -> i32 {
    let total: usize = c.iter().map(|&x| x as usize).sum();
    if total % 3 == 1 {
        return ref_regular_shanten(c, k);
    }
    if ref_decomposes(&mut c.clone(), k, 1) {
        return -1;
    }
    (0..KINDS)
        .filter(|&i| c[i] > 0)
        .map(|i| {
            let mut w = *c;
            w[i] -= 1;
            ref_regular_shanten(&w, k)
        })
        .min()
        .unwrap()
}

pub fn ref_seven_pairs_shanten(c: &[u8; KINDS]) -> i32 {
    // Tiles missing from the best seven pairs: choose the seven pairs (kinds may repeat when
    // four are held) covering most of the hand.
    let pairs: i32 = c.iter().map(|&x| (x / 2) as i32).sum();
    6 - pairs.min(7)
}

pub fn ref_orphans_shanten(c: &[u8; KINDS]) -> i32 {
    // For each choice of the doubled orphan, count the tiles of the target missing.
    ORPHANS
        .iter()
        .map(|&dup| {
            let missing: i32 = ORPHANS
                .iter()
                .map(|&i| {
                    let need = if i == dup { 2 } else { 1 };
                    (need - c[i] as i32).max(0)
                })
                .sum();
            missing - 1
        })
        .min()
        .unwrap()
}

pub fn ref_honors_knitted_shanten(c: &[u8; KINDS]) -> i32 {
    KNITS
        .iter()
        .map(|k| {
            let mut allowed: Vec<usize> = k.tiles().iter().map(|t| t.index()).collect();
            allowed.extend(27..34);
            let have = allowed.iter().filter(|&&i| c[i] > 0).count() as i32;
            13 - have.min(14)
        })
        .min()
        .unwrap()
}

pub fn ref_knitted_straight_shanten(c: &[u8; KINDS], sets: usize) -> i32 {
    KNITS
        .iter()
        .map(|k| {
            let mut rest = *c;
            let mut missing = 0;
            for t in k.tiles() {
                if rest[t.index()] > 0 {
                    rest[t.index()] -= 1;
                } else {
                    missing += 1;
                }
            }
            let v = ref_rest_distance(&rest, sets);
            missing + v - 1
        })
        .min()
        .unwrap()
}

/// Tiles to add to `c` so that it contains `sets` sets and a pair (unlimited copies): try
/// every way of cutting the tiles into blocks — a set, two tiles of a set, a lone tile growing
/// into a set, a pair, a lone tile growing into the pair — or leaving them out.
pub fn ref_rest_distance(c: &[u8; KINDS], sets: usize) -> i32 {
    fn go(c: &mut [u8; KINDS], sets_left: usize, pair_left: bool, cost: i32, best: &mut i32) {
        if cost >= *best {
            return;
        }
        let Some(i) = c.iter().position(|&x| x > 0) else {
            let v = cost + 3 * sets_left as i32 + if pair_left { 2 } else { 0 };
            *best = (*best).min(v);
            return;
        };
        let t = Tile::kind(i);
        let mut try_block = |c: &mut [u8; KINDS], take: &[usize], set: bool, cost_add: i32| {
            if (set && sets_left == 0) || (!set && !pair_left) {
                return;
            }
            if take.iter().any(|&j| j >= KINDS) {
                return;
            }
            let mut need = [0u8; KINDS];
            for &j in take {
                need[j] += 1;
            }
            if (0..KINDS).any(|j| c[j] < need[j]) {
                return;
            }
            for &j in take {
                c[j] -= 1;
            }
            let (s, p) = if set {
                (sets_left - 1, pair_left)
            } else {
                (sets_left, false)
            };
            go(c, s, p, cost + cost_add, best);
            for &j in take {
                c[j] += 1;
            }
        };
        try_block(c, &[i, i, i], true, 0);
        try_block(c, &[i, i], true, 1);
        try_block(c, &[i], true, 2);
        try_block(c, &[i, i], false, 0);
        try_block(c, &[i], false, 1);
        if t.is_suited() {
            if t.rank() <= 7 {
                try_block(c, &[i, i + 1, i + 2], true, 0);
                try_block(c, &[i, i + 2], true, 1);
            }
            if t.rank() <= 8 {
                try_block(c, &[i, i + 1], true, 1);
            }
        }
        c[i] -= 1;
        go(c, sets_left, pair_left, cost, best);
        c[i] += 1;
    }
    let mut best = i32::MAX;
    go(&mut c.clone(), sets, true, 0, &mut best);
    best
}
