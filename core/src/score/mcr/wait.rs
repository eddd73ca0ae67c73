//! The winning tiles of the 13 tiles held before the win: the wait fans (边张, 坎张, 单钓将)
//! need the wait to be a single kind (独听, mcr-scoring.md §3.4).
//!
//! The wait is a matter of shape: a kind whose four copies are all held still counts as a
//! wait (4444666 waits on 5 and, formally, on a fifth 4), so neither the copies in melds nor
//! the table are consulted. Every shape counts: regular, seven pairs, thirteen orphans, honors
//! and knitted, knitted straight.
//!
//! The regular check is per group: in a regular reading each suit (and the honors) is made of
//! whole sets on its own, so a group is either complete or not. Which arrangements of one group
//! are complete is a bit table over the base-5 key of its counts, built once; a candidate tile
//! is then one bit read. Fifth copies fall outside the key and take a small exact search.

use std::sync::OnceLock;

use crate::hand::KNITS;
use crate::tile::{KINDS, held_mask};

const POW5: [usize; 10] = [1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125];

/// Group `g` (0 m, 1 p, 2 s, 3 honors): first kind and number of kinds.
const GROUPS: [(usize, usize); 4] = [(0, 9), (9, 9), (18, 9), (27, 7)];

const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
const ORPHAN_MASK: u64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < ORPHANS.len() {
        m |= 1 << ORPHANS[i];
        i += 1;
    }
    m
};
const HONOR_MASK: u64 = 0x7f << 27;

struct Complete {
    suit: Vec<u64>,
    honors: Vec<u64>,
}

pub(super) fn prepare() {
    complete();
}

/// Bit tables of the complete arrangements of one group: up to four sets and at most one
/// pair, each kind at most four times.
fn complete() -> &'static Complete {
    static TABLE: OnceLock<Complete> = OnceLock::new();
    TABLE.get_or_init(|| Complete {
        suit: build(9, true),
        honors: build(7, false),
    })
}

fn build(len: usize, chows: bool) -> Vec<u64> {
    let mut bits = vec![0u64; POW5[len].div_ceil(64)];
    // Sets numbered 0..len are pungs of rank i, len.. are chows starting at rank i - len.
    let set_kinds = if chows { len + len - 2 } else { len };
    let mut counts = [0u8; 9];
    fill(&mut bits, &mut counts, len, set_kinds, 0, 4);
    bits
}

/// Marks every arrangement made of the current sets plus up to `left` more sets numbered from
/// `from` (nondecreasing, so each multiset once), each with and without a pair.
fn fill(bits: &mut [u64], counts: &mut [u8; 9], len: usize, kinds: usize, from: usize, left: u8) {
    let mark = |bits: &mut [u64], counts: &[u8; 9]| {
        let k = key(&counts[..len]);
        bits[k / 64] |= 1 << (k % 64);
    };
    mark(bits, counts);
    for r in 0..len {
        if counts[r] <= 2 {
            counts[r] += 2;
            mark(bits, counts);
            counts[r] -= 2;
        }
    }
    if left == 0 {
        return;
    }
    for s in from..kinds {
        let ranks: &[usize] = if s < len {
            &[s, s, s]
        } else {
            let r = s - len;
            &[r, r + 1, r + 2]
        };
        if ranks
            .iter()
            .any(|&r| counts[r] >= 4 - u8::from(s < len) * 2)
        {
            // A pung needs three free copies, a chow one of each.
            continue;
        }
        for &r in ranks {
            counts[r] += 1;
        }
        fill(bits, counts, len, kinds, s, left - 1);
        for &r in ranks {
            counts[r] -= 1;
        }
    }
}

/// Base-5 key of a group's counts (all at most 4), lowest rank the lowest digit.
#[inline]
fn key(counts: &[u8]) -> usize {
    counts
        .iter()
        .rev()
        .fold(0usize, |acc, &c| acc * 5 + c as usize)
}

#[inline]
fn bit(bits: &[u64], k: usize) -> bool {
    bits[k / 64] >> (k % 64) & 1 == 1
}

/// Per-group facts of a count array.
struct Groups {
    n: [u8; 4],
    key: [usize; 4],
    complete: [bool; 4],
}

fn groups(c: &[u8; KINDS]) -> Groups {
    let t = complete();
    let mut g = Groups {
        n: [0; 4],
        key: [0; 4],
        complete: [false; 4],
    };
    for (j, &(start, len)) in GROUPS.iter().enumerate() {
        let part = &c[start..start + len];
        // Count, largest count and key in one pass.
        let (mut n, mut most, mut k) = (0u8, 0u8, 0usize);
        for &x in part.iter().rev() {
            n += x;
            most = most.max(x);
            k = k * 5 + x as usize;
        }
        g.n[j] = n;
        if most > 4 {
            g.complete[j] = exact(part, j == 3, g.n[j] % 3 == 2);
            continue;
        }
        g.key[j] = k;
        let bits = if j == 3 { &t.honors } else { &t.suit };
        g.complete[j] = bit(bits, g.key[j]);
    }
    g
}

/// Is `c` (3n+2 tiles) four-or-fewer sets and a pair, each group complete on its own?
pub(crate) fn regular_complete(c: &[u8; KINDS]) -> bool {
    let g = groups(c);
    let mut pairs = 0;
    for j in 0..4 {
        match g.n[j] % 3 {
            0 => {}
            2 => pairs += 1,
            _ => return false,
        }
        if !g.complete[j] {
            return false;
        }
    }
    pairs == 1
}

/// The kinds that complete `c` (3n+1 tiles) in the regular shape, as a mask over kinds.
fn regular_waits(c: &[u8; KINDS]) -> u64 {
    regular_waits_among(c, !0, false)
}

/// The kinds among `wanted` that complete `c` in the regular shape; with `first`, only the
/// first one found (enough to know whether there is any).
fn regular_waits_among(c: &[u8; KINDS], wanted: u64, first: bool) -> u64 {
    let t = complete();
    let g = groups(c);
    let mut mask = 0u64;
    for (j, &(start, len)) in GROUPS.iter().enumerate() {
        // After adding to group j, every group must hold a multiple of three tiles, exactly
        // one of them three-plus-two, and the other groups must already be complete.
        let mut pairs = 0;
        let mut ok = true;
        for h in 0..4 {
            let n = if h == j { g.n[h] + 1 } else { g.n[h] };
            match n % 3 {
                0 => {}
                2 => pairs += 1,
                _ => ok = false,
            }
            if h != j && !g.complete[h] {
                ok = false;
            }
        }
        if !ok || pairs != 1 {
            continue;
        }
        let bits = if j == 3 { &t.honors } else { &t.suit };
        let big = c[start..start + len].iter().any(|&x| x > 4);
        // A kind joins a set or the pair only beside a held tile: of the same kind, or (in a
        // suit) within two ranks.
        let mut near = 0u64;
        for r in 0..len {
            if c[start + r] > 0 {
                // Ranks r-2..=r+2 in a suit (shifted up by two, then down), r alone in honors.
                near |= if j == 3 {
                    1 << r
                } else {
                    (0b11111u64 << r) >> 2
                };
            }
        }
        let mut todo = near & ((1 << len) - 1) & (wanted >> start);
        while todo != 0 {
            let r = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let i = start + r;
            let wins = if big || c[i] >= 4 {
                let mut part = [0u8; 9];
                part[..len].copy_from_slice(&c[start..start + len]);
                part[r] += 1;
                exact(&part[..len], j == 3, (g.n[j] + 1) % 3 == 2)
            } else {
                bit(bits, g.key[j] + POW5[r])
            };
            if wins {
                mask |= 1 << i;
                if first {
                    return mask;
                }
            }
        }
    }
    mask
}

/// Exact search: can this group be split into sets plus `pair` pairs? For counts beyond the
/// table (a hypothetical fifth copy).
fn exact(part: &[u8], honors: bool, pair: bool) -> bool {
    let mut c = [0u8; 9];
    c[..part.len()].copy_from_slice(part);
    split(&mut c, part.len(), !honors, pair)
}

fn split(c: &mut [u8; 9], len: usize, chows: bool, pair: bool) -> bool {
    let Some(i) = (0..len).find(|&i| c[i] > 0) else {
        return !pair;
    };
    if pair && c[i] >= 2 {
        c[i] -= 2;
        let ok = split(c, len, chows, false);
        c[i] += 2;
        if ok {
            return true;
        }
    }
    if c[i] >= 3 {
        c[i] -= 3;
        let ok = split(c, len, chows, pair);
        c[i] += 3;
        if ok {
            return true;
        }
    }
    if chows && i + 2 < len && c[i + 1] > 0 && c[i + 2] > 0 {
        c[i] -= 1;
        c[i + 1] -= 1;
        c[i + 2] -= 1;
        let ok = split(c, len, chows, pair);
        c[i] += 1;
        c[i + 1] += 1;
        c[i + 2] += 1;
        if ok {
            return true;
        }
    }
    false
}

/// Whether `win` is the only kind that completes the 13 held tiles `c13` in any shape (独听),
/// given the number of melds: [`winning_kinds`] without `win`, stopping at the first other.
pub(crate) fn only_wait_is(c13: &[u8; KINDS], melds: usize, win: usize) -> bool {
    let others = !(1u64 << win);
    regular_waits_among(c13, others, true) == 0 && special_waits(c13, melds) & others == 0
}

/// Every kind that completes the 13 held tiles `c13` (concealed, without the winning tile)
/// in any shape, given the number of melds, as a mask over kinds (the scorer asks only
/// [`only_wait_is`]; this is what it is tested against).
#[cfg(test)]
fn winning_kinds(c13: &[u8; KINDS], melds: usize) -> u64 {
    regular_waits(c13) | special_waits(c13, melds)
}

/// The kinds that complete `c13` in a shape other than the regular one.
///
/// The special shapes are tried only when the kinds held allow them: thirteen orphans holds
/// orphans only, honors and knitted thirteen kinds once each, a knitted straight at least
/// eight of its nine tiles.
fn special_waits(c13: &[u8; KINDS], melds: usize) -> u64 {
    let held = held_mask(c13);
    let mut mask = 0;
    if melds == 0 {
        mask |= seven_pairs_wait(c13);
        if held & !ORPHAN_MASK == 0 {
            mask |= orphans_wait(c13);
        }
        if held.count_ones() == 13 {
            mask |= honors_knitted_wait(c13);
        }
    }
    if melds <= 1
        && KNITS
            .iter()
            .any(|k| (held & k.mask() as u64).count_ones() >= 8)
    {
        mask |= knitted_straight_wait(c13);
    }
    mask
}

fn seven_pairs_wait(c: &[u8; KINDS]) -> u64 {
    let mut odd = 0u64;
    for (i, &x) in c.iter().enumerate() {
        if x % 2 == 1 {
            odd |= 1 << i;
        }
    }
    if odd.count_ones() == 1 { odd } else { 0 }
}

fn orphans_wait(c: &[u8; KINDS]) -> u64 {
    let mut held = 0u64;
    let mut doubled = false;
    for (i, &x) in c.iter().enumerate() {
        if x > 0 {
            held |= 1 << i;
        }
        doubled |= x >= 2;
    }
    if held & !ORPHAN_MASK != 0 {
        return 0;
    }
    match (held.count_ones(), doubled) {
        (13, _) => ORPHAN_MASK,
        (12, true) if c.iter().all(|&x| x <= 2) => ORPHAN_MASK & !held,
        _ => 0,
    }
}

fn honors_knitted_wait(c: &[u8; KINDS]) -> u64 {
    if c.iter().any(|&x| x > 1) {
        return 0;
    }
    let held = c
        .iter()
        .enumerate()
        .fold(0u64, |m, (i, &x)| if x > 0 { m | 1 << i } else { m });
    let mut mask = 0u64;
    for k in KNITS {
        let allowed = k.mask() as u64 | HONOR_MASK;
        if held & !allowed == 0 {
            mask |= allowed & !held;
        }
    }
    mask
}

fn knitted_straight_wait(c: &[u8; KINDS]) -> u64 {
    let mut mask = 0u64;
    for k in KNITS {
        let mut rest = *c;
        let mut missing = None;
        let mut missing_count = 0;
        for t in k.tiles() {
            if rest[t.index()] > 0 {
                rest[t.index()] -= 1;
            } else {
                missing_count += 1;
                missing = Some(t.index());
            }
        }
        match (missing_count, missing) {
            (0, _) => mask |= regular_waits(&rest),
            (1, Some(i)) if regular_complete(&rest) => mask |= 1 << i,
            _ => {}
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::{Tile, TileCounts};

    fn waits(s: &str, melds: usize) -> String {
        let c = TileCounts::parse(s).unwrap();
        let m = winning_kinds(&c.0, melds);
        let tiles: Vec<Tile> = (0..KINDS)
            .filter(|&i| m >> i & 1 == 1)
            .map(Tile::kind)
            .collect();
        crate::tile::to_notation(&tiles)
    }

    #[test]
    fn regular_waits_by_shape() {
        assert_eq!(waits("123456789m13s88s", 0), "2s");
        assert_eq!(waits("123456789m23s88s", 0), "14s");
        assert_eq!(waits("12345m99p", 2), "36m");
        assert_eq!(waits("45567m99p", 2), "36m");
        // A fifth copy is still a formal wait.
        assert_eq!(waits("4444666m", 2), "45m");
        assert_eq!(waits("4444m", 3), "4m");
        // 九莲宝灯: all nine.
        assert_eq!(waits("1112345678999m", 0), "123456789m");
    }

    #[test]
    fn special_shape_waits() {
        assert_eq!(waits("1133m55p77p99s11z7z", 0), "7z");
        assert_eq!(waits("19m19p19s1234567z", 0), "19m19p19s1234567z");
        assert_eq!(waits("19m19p19s1234566z", 0), "7z");
        assert_eq!(waits("147m25p36s123456z", 0), "8p9s7z");
        assert_eq!(waits("147m258p369s2345s", 0), "25s");
        assert_eq!(waits("47m258p369s234s55z", 0), "1m");
    }

    /// The filters of [`winning_kinds`] drop no wait: against every shape tried on random
    /// 13-tile hands, weighted towards the special shapes.
    #[test]
    fn filtered_waits_match_every_shape() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as usize
        };
        let mut special = 0;
        for n in 0..100_000 {
            let melds = [0, 0, 0, 1, 2][n % 5];
            let pool: Vec<usize> = match n % 4 {
                0 => ORPHANS.to_vec(),
                1 => {
                    let k = KNITS[next(6)];
                    k.tiles()
                        .iter()
                        .map(|t| t.index())
                        .chain(27..34)
                        .chain([next(34)])
                        .collect()
                }
                _ => (0..KINDS).collect(),
            };
            let mut c = [0u8; KINDS];
            let mut placed = 0;
            while placed < 13 - 3 * melds {
                let k = pool[next(pool.len() as u64)];
                if c[k] < 4 {
                    c[k] += 1;
                    placed += 1;
                }
            }
            let mut all = regular_waits(&c);
            if melds == 0 {
                all |= seven_pairs_wait(&c) | orphans_wait(&c) | honors_knitted_wait(&c);
            }
            if melds <= 1 {
                all |= knitted_straight_wait(&c);
            }
            if all != regular_waits(&c) {
                special += 1;
            }
            assert_eq!(winning_kinds(&c, melds), all, "{c:?} {melds}");
            // The single-wait question, for a winning kind and for an arbitrary one.
            let lowest = if all == 0 {
                0
            } else {
                all.trailing_zeros() as usize
            };
            for w in [lowest, next(34)] {
                assert_eq!(
                    only_wait_is(&c, melds, w),
                    all & !(1u64 << w) == 0,
                    "{c:?} {melds} {w}"
                );
            }
        }
        assert!(special > 100, "{special}");
    }

    #[test]
    fn complete_groups() {
        let c = TileCounts::parse("111m").unwrap();
        assert!(groups(&c.0).complete[0]);
        let c = TileCounts::parse("11m").unwrap();
        assert!(groups(&c.0).complete[0]);
        let c = TileCounts::parse("123m").unwrap();
        assert!(groups(&c.0).complete[0]);
        let c = TileCounts::parse("11122233344455m").unwrap();
        assert!(regular_complete(&c.0));
        let c = TileCounts::parse("11122233344459m").unwrap();
        assert!(!regular_complete(&c.0));
    }
}
