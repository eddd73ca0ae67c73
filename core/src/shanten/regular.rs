//! The regular shape (four sets and a pair) from the suit tables: the distance and the kinds
//! that lower it.

#![allow(clippy::needless_range_loop)]

use super::useful::{distance_and_improvers_k as by_entries, useful_tables};
use super::*;

/// Regular shape of a 3n+1 hand needing `sets` sets: shanten and the kinds that lower it.
pub(super) fn regular13(c: &[u8; KINDS], sets: usize) -> ShapeShanten {
    let (base, useful) = distance_and_improvers(c, sets);
    ShapeShanten {
        shanten: base as i8 - 1,
        useful: TileSet(useful & below_four(c)),
    }
}

/// Kinds held fewer than four times, as a mask.
#[inline]
pub(super) fn below_four(c: &[u8; KINDS]) -> u64 {
    let mut m = 0u64;
    for (i, &x) in c.iter().enumerate() {
        if x < 4 {
            m |= 1 << i;
        }
    }
    m
}

/// The distance of `c` to `sets` sets and a pair, and the kinds whose addition shortens it.
/// Kind by kind: each group is looked up once; for each kind only its own group is looked up
/// again and merged with the precomputed merge of the other three.
/// Four reads of the useful-tile tables (see [`super::useful`]); a group of more than 13
/// tiles (never in a 13-tile hand) takes the kind-by-kind path.
pub(super) fn distance_and_improvers(c: &[u8; KINDS], sets: usize) -> (u8, u64) {
    if let Some(e) = useful_tables().groups(c) {
        return table::with_sets!(sets, by_entries(e));
    }
    table::with_sets!(sets, distance_and_improvers_k(c))
}

pub(super) fn distance_and_improvers_k<const K: usize>(c: &[u8; KINDS]) -> (u8, u64) {
    let t = tables();
    let groups = Groups::of::<K>(c);
    let base = groups.distance::<K>();
    let Groups {
        keys,
        others,
        g01,
        g23,
        ..
    } = groups;
    // A tile with nothing within two ranks of it (any unheld honor) joins no block with the
    // hand: adding it is like adding a separate one-tile group, the same for all such tiles.
    // One merge answers for all of them, instead of a table read each.
    let all = table::merge_upto::<K>(&g01, &g23);
    let lone_helps = table::merge_final::<K>(&all, &table::LONE_TILE) < base;
    let lone = lone_tiles(c);
    let mut useful = if lone_helps { lone } else { 0 };
    for (j, other) in others.iter().enumerate() {
        let (start, len) = if j == 3 { (27, 7) } else { (j * 9, 9) };
        let side = table::FinalSide::of::<K>(other);
        for r in 0..len {
            if c[start + r] >= 4 || lone & (1 << (start + r)) != 0 {
                continue;
            }
            let d = t.with_added_rows(j, keys[j], r);
            if table::final_against(d, &side) < base {
                useful |= 1 << (start + r);
            }
        }
    }
    (base, useful)
}

/// A hand's four groups (three suits, honors) looked up once: their keys, the merges of the
/// suit pairs, and for each group the merge of the other three — what every "add or remove
/// one tile" query needs.
#[derive(Clone, Copy)]
pub(super) struct Groups {
    pub(super) keys: [usize; 4],
    pub(super) g: [Dist; 4],
    pub(super) others: [Dist; 4],
    pub(super) g01: Dist,
    pub(super) g23: Dist,
}

impl Groups {
    /// The whole hand's distance to `K` sets and a pair.
    #[inline]
    pub(super) fn distance<const K: usize>(&self) -> u8 {
        table::merge_final::<K>(&self.g01, &self.g23)
    }

    #[inline]
    pub(super) fn of<const K: usize>(c: &[u8; KINDS]) -> Groups {
        let t = tables();
        let keys = [
            table::key(&c[0..9]),
            table::key(&c[9..18]),
            table::key(&c[18..27]),
            table::key(&c[27..34]),
        ];
        let g: [Dist; 4] = std::array::from_fn(|j| t.by_key(j, keys[j]));
        let merge = |a: &Dist, b: &Dist| table::merge_upto::<K>(a, b);
        let g01 = merge(&g[0], &g[1]);
        let g23 = merge(&g[2], &g[3]);
        let others = [
            merge(&g[1], &g23),
            merge(&g[0], &g23),
            merge(&g01, &g[3]),
            merge(&g01, &g[2]),
        ];
        Groups {
            keys,
            g,
            others,
            g01,
            g23,
        }
    }
}

/// Kinds not held with no held tile of the same suit within two ranks (honors: not held).
#[inline]
pub(super) fn lone_tiles(c: &[u8; KINDS]) -> u64 {
    let mut held = 0u64;
    for (i, &x) in c.iter().enumerate() {
        held |= u64::from(x > 0) << i;
    }
    let mut near = held & HONORS_MASK;
    for s in 0..3 {
        let m = (held >> (9 * s)) & 0x1ff;
        let spread = (m | m << 1 | m << 2 | m >> 1 | m >> 2) & 0x1ff;
        near |= spread << (9 * s);
    }
    !near & ((1u64 << KINDS) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The table path against the kind-by-kind path, on random hands of every size a hand
    /// needing 0–4 sets has, weighted towards tiles close together.
    #[test]
    fn useful_tables_match_kind_by_kind() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        for n in 0..200_000 {
            let sets = n % 5;
            let size = 3 * sets + 1;
            let mut c = [0u8; KINDS];
            let span = [KINDS, 9, 18][n % 3];
            let mut placed = 0;
            while placed < size {
                let k = rng.gen_range(0..span);
                if c[k] < 4 {
                    c[k] += 1;
                    placed += 1;
                }
            }
            let e = useful_tables().groups(&c).unwrap();
            assert_eq!(
                table::with_sets!(sets, by_entries(e)),
                table::with_sets!(sets, distance_and_improvers_k(&c)),
                "{c:?} {sets}"
            );
        }
    }
}
