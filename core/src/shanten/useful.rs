//! Useful tiles of the regular shape from per-group tables: four reads instead of one per
//! candidate kind.
//!
//! For every arrangement of one group (a suit, or the honors) of at most 13 tiles, and every
//! target of `k` sets with or without the pair, the table holds the group's distance to the
//! target and the ranks whose addition lowers it. Adding one tile lowers a distance by at most
//! one, so a kind is useful to the whole hand exactly when some best spread of the sets and
//! the pair over the groups has its group at a target that the tile lowers: the hand's useful
//! tiles are the union, over each group's targets that lie on a best spread, of those masks.
//!
//! Distinct entries (about 76,000) are stored once in a pool that the arrangements index, 4
//! bytes an arrangement, ranked densely among the suit arrangements of at most 13 tiles
//! (286,550 of the 1,953,125 base-5 keys).

#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::hand::table::{self, Dist, POW5, tables};
use crate::tile::KINDS;

/// Tiles of a group the table covers: what a 13-tile hand can hold in one group.
const MAX_TILES: usize = 13;

/// One pool entry: a group's distances and, per target (`pair * 5 + sets`), the ranks whose
/// addition lowers that distance.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Entry {
    pub(super) d: Dist,
    pub(super) masks: [u16; 10],
}

pub(super) struct UsefulTables {
    pool: Vec<Entry>,
    /// Pool index of every suit arrangement of at most 13 tiles, by rank (see `suit_rank`).
    suit: Vec<u32>,
    /// Pool index of every honors arrangement, by base-5 key.
    honors: Vec<u32>,
    /// Ranking: the arrangement's ranks 1–5 (base-5 key) and 6–9 (key) give the rank as
    /// `start[high] + low_rank[low]`, lows ordered by their tile count.
    low_rank: Vec<u32>,
    low_sum: Vec<u8>,
    high_sum: Vec<u8>,
    start: Vec<u32>,
}

/// The tables, built on first use (about as long as the distance tables).
pub(super) fn useful_tables() -> &'static UsefulTables {
    static T: OnceLock<UsefulTables> = OnceLock::new();
    T.get_or_init(build)
}

fn digit_sum(mut key: usize) -> u8 {
    let mut s = 0;
    while key > 0 {
        s += (key % 5) as u8;
        key /= 5;
    }
    s
}

fn build() -> UsefulTables {
    let low_sum: Vec<u8> = (0..POW5[5]).map(digit_sum).collect();
    let high_sum: Vec<u8> = (0..POW5[4]).map(digit_sum).collect();
    let mut order: Vec<usize> = (0..POW5[5]).collect();
    order.sort_by_key(|&l| (low_sum[l], l));
    let mut low_rank = vec![0u32; POW5[5]];
    for (r, &l) in order.iter().enumerate() {
        low_rank[l] = r as u32;
    }
    // Lows of at most `s` tiles.
    let mut upto = [0u32; MAX_TILES + 1];
    for &s in &low_sum {
        if (s as usize) <= MAX_TILES {
            upto[s as usize] += 1;
        }
    }
    for s in 1..=MAX_TILES {
        upto[s] += upto[s - 1];
    }
    let mut start = vec![0u32; POW5[4]];
    let mut next = 0u32;
    for h in 0..POW5[4] {
        start[h] = next;
        if (high_sum[h] as usize) <= MAX_TILES {
            next += upto[MAX_TILES - high_sum[h] as usize];
        }
    }
    let mut pool = Vec::new();
    let mut seen: HashMap<Entry, u32> = HashMap::new();
    let mut intern = |e: Entry| -> u32 {
        *seen.entry(e).or_insert_with(|| {
            pool.push(e);
            u32::try_from(pool.len() - 1).expect("pool fits 32 bits")
        })
    };
    let mut suit = vec![0u32; next as usize];
    for key in 0..POW5[9] {
        let (low, high) = (key % POW5[5], key / POW5[5]);
        if (low_sum[low] + high_sum[high]) as usize > MAX_TILES {
            continue;
        }
        suit[(start[high] + low_rank[low]) as usize] = intern(entry(0, key, 9));
    }
    let honors = (0..POW5[7])
        .map(|key| {
            if digit_sum(key) as usize > MAX_TILES {
                0
            } else {
                intern(entry(3, key, 7))
            }
        })
        .collect();
    UsefulTables {
        pool,
        suit,
        honors,
        low_rank,
        low_sum,
        high_sum,
        start,
    }
}

/// The entry of group `group`'s arrangement `key` (`len` ranks).
fn entry(group: usize, key: usize, len: usize) -> Entry {
    let t = tables();
    let d = t.by_key(group, key);
    let mut masks = [0u16; 10];
    for r in 0..len {
        if (key / POW5[r]) % 5 >= 4 {
            continue;
        }
        let more = t.with_added(group, key, r);
        for p in 0..2 {
            for k in 0..5 {
                if more[p][k] < d[p][k] {
                    masks[p * 5 + k] |= 1 << r;
                }
            }
        }
    }
    Entry { d, masks }
}

impl UsefulTables {
    /// The entry of a suit's nine counts, if it holds at most 13 tiles.
    #[inline(always)]
    fn suit(&self, c: &[u8]) -> Option<&Entry> {
        let low = table::key(&c[..5]);
        let high = table::key(&c[5..9]);
        if (self.low_sum[low] + self.high_sum[high]) as usize > MAX_TILES {
            return None;
        }
        let rank = (self.start[high] + self.low_rank[low]) as usize;
        Some(&self.pool[self.suit[rank] as usize])
    }

    #[inline(always)]
    fn honors(&self, c: &[u8]) -> Option<&Entry> {
        let key = table::key(c);
        (digit_sum(key) as usize <= MAX_TILES).then(|| &self.pool[self.honors[key] as usize])
    }

    /// The four groups' entries of a hand, if none holds more than 13 tiles.
    #[inline(always)]
    pub(super) fn groups(&self, c: &[u8; KINDS]) -> Option<[&Entry; 4]> {
        Some([
            self.suit(&c[0..9])?,
            self.suit(&c[9..18])?,
            self.suit(&c[18..27])?,
            self.honors(&c[27..34])?,
        ])
    }
}

/// The distance of `c` to `K` sets and a pair, and the kinds whose addition shortens it
/// (kinds held four times excluded), from the groups' entries.
#[inline(always)]
pub(super) fn distance_and_improvers_k<const K: usize>(e: [&Entry; 4]) -> (u8, u64) {
    let g = [e[0].d, e[1].d, e[2].d, e[3].d];
    let merge = |a: &Dist, b: &Dist| table::merge_upto::<K>(a, b);
    let g01 = merge(&g[0], &g[1]);
    let g23 = merge(&g[2], &g[3]);
    let others = [
        merge(&g[1], &g23),
        merge(&g[0], &g23),
        merge(&g01, &g[3]),
        merge(&g01, &g[2]),
    ];
    let base = table::merge_final::<K>(&g01, &g23);
    let mut useful = 0u64;
    for j in 0..4 {
        let mut m = 0u16;
        for k in 0..=K {
            // The group takes k sets and the pair, the others the rest; or the other way.
            let with_pair = g[j][1][k] as u16 + others[j][0][K - k] as u16;
            let without = g[j][0][k] as u16 + others[j][1][K - k] as u16;
            if with_pair == base as u16 {
                m |= e[j].masks[5 + k];
            }
            if without == base as u16 {
                m |= e[j].masks[k];
            }
        }
        useful |= (m as u64) << (9 * j);
    }
    (base, useful)
}
