//! Shanten after each possible discard of a 14-tile hand, in one pass per group: the other
//! groups are merged once and each discard only re-merges its own group.

#![allow(clippy::needless_range_loop)]

use super::*;

/// For a hand of 14 (counting melds as 3): after each discard in `which` (a mask over kinds),
/// the overall shanten, with the useful tiles of every shape at that shanten where it is
/// within `slack` of the best of these discards — exactly [`best`] after that discard. Kinds
/// not held or not in `which` stay at `i8::MAX`; discards beyond the slack get no useful
/// tiles. A turn's whole discard choice in one call: the hand's groups are read once, every
/// added kind once, and each discard rereads only its own group.
pub fn best_after_each_discard(
    c: &TileCounts,
    melds: usize,
    which: u64,
    slack: i8,
) -> Result<[ShapeShanten; KINDS], ShantenError> {
    if !check(c, 0, melds)? {
        return Err(ShantenError::WrongSize(c.total() + 3 * melds));
    }
    Ok(table::with_sets!(
        4 - melds,
        best_after_each_discard_k(&c.0, melds, which, slack)
    ))
}

/// Every discard's shanten for a 14-tile hand, with what the useful-tile pass reuses.
pub(super) struct EachDiscard<const K: usize> {
    pub(super) groups: Groups,
    /// The discard's group after the discard, and the regular distance of the hand after it.
    pub(super) removed: [Dist; KINDS],
    pub(super) base: [u8; KINDS],
    pub(super) special: [Special; KINDS],
    /// The discards examined (held and asked for).
    pub(super) held: u64,
}

impl<const K: usize> EachDiscard<K> {
    pub(super) fn of(c: &[u8; KINDS], melds: usize, which: u64) -> EachDiscard<K> {
        let t = tables();
        let groups = Groups::of::<K>(c);
        let masks = SpecialMasks::of(c);
        let held = which & masks.held;
        // A discard never brings a special shape closer (pairs, kinds and knitted tiles held
        // can only go down), so the whole hand's counts bound them all from below: a discard
        // whose regular shanten is under that bound needs no special shape counted.
        let mut floor = masks.shanten_but_straight(melds, i8::MAX).min;
        if melds <= 1 {
            for have in masks.knit {
                floor = floor.min(9 - have - 1);
            }
        }
        let mut each = EachDiscard {
            groups,
            removed: [[[0; 5]; 2]; KINDS],
            base: [u8::MAX; KINDS],
            special: [Special::NONE; KINDS],
            held,
        };
        let sides = each.groups.others.map(|o| table::FinalSide::of::<K>(&o));
        let mut pending = held;
        while pending != 0 {
            let d = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            let (a, r) = group_of(d);
            let removed = t.with_removed_rows(a, each.groups.keys[a], r);
            let base = table::final_against(removed, &sides[a]);
            each.removed[d] = table::dist_of_rows(removed);
            each.base[d] = base;
            let regular = base as i8 - 1;
            each.special[d] = if regular < floor {
                Special {
                    min: regular,
                    ..Special::NONE
                }
            } else {
                // The special shapes from the masks, updated for the discard.
                masks.without(d, c[d]).shanten_but_straight(melds, regular)
            };
        }
        if melds <= 1 {
            straight_after_each_discard(c, &masks, held, melds, &mut each.special);
        }
        each
    }
}

pub(super) fn best_after_each_discard_k<const K: usize>(
    c: &[u8; KINDS],
    melds: usize,
    which: u64,
    slack: i8,
) -> [ShapeShanten; KINDS] {
    let t = tables();
    let each = EachDiscard::<K>::of(c, melds, which);
    let Groups {
        keys, others, g, ..
    } = each.groups;
    let mut out = [ShapeShanten {
        shanten: i8::MAX,
        useful: TileSet::EMPTY,
    }; KINDS];
    let mut best = i8::MAX;
    let mut pending = each.held;
    while pending != 0 {
        let d = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        out[d].shanten = each.special[d].min;
        best = best.min(each.special[d].min);
    }
    let limit = best.saturating_add(slack);
    // untouched[a][b]: the merge of the two groups other than `a` (the discard's) and `b`.
    let mut untouched = [[table::EMPTY; 4]; 4];
    for a in 0..4 {
        for b in a + 1..4 {
            let mut rest = (0..4).filter(|&j| j != a && j != b);
            let (x, y) = (rest.next().unwrap_or(0), rest.next().unwrap_or(0));
            untouched[a][b] = table::merge_upto::<K>(&g[x], &g[y]);
            untouched[b][a] = untouched[a][b];
        }
    }
    // Adding a tile lowers each of its group's distances by one at most. improvers[b][p][k]:
    // the kinds of group `b` whose addition lowers the entry for `k` sets and `p` pairs.
    // They serve discards from other groups only, so a group holding all 14 tiles (which the
    // tables do not extend to 15) is never asked.
    let mut sizes = [0u8; 4];
    for x in 0..KINDS {
        sizes[group_of(x).0] += c[x];
    }
    let mut improvers = [[[0u64; 5]; 2]; 4];
    for x in 0..KINDS {
        let (b, r) = group_of(x);
        if c[x] < 4 && sizes[b] < 14 {
            let added = t.with_added(b, keys[b], r);
            for p in 0..2 {
                for k in 0..=K {
                    if added[p][k] < g[b][p][k] {
                        improvers[b][p][k] |= 1 << x;
                    }
                }
            }
        }
    }
    // (group, what a discard leaves of it, the kinds of other groups that then help).
    let mut seen = [(0usize, table::EMPTY, 0u64); 14];
    let mut seen_len = 0;
    let mut pending = each.held;
    while pending != 0 {
        let d = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        let special = each.special[d];
        if special.min > limit {
            continue;
        }
        let (a, rd) = group_of(d);
        let (removed, base) = (each.removed[d], each.base[d]);
        let mut useful = 0u64;
        if base as i8 - 1 == special.min {
            // A kind of another group helps exactly when it lowers an entry of its group that
            // some best spread of sets and pair over the four groups uses. That depends only
            // on what the discard leaves of its group: discards leaving the same (several
            // loose tiles of a group, typically) share the answer.
            let known = seen[..seen_len]
                .iter()
                .find(|(g_a, dist, _)| *g_a == a && *dist == removed);
            if let Some(&(_, _, cross)) = known {
                useful |= cross;
            } else {
                let mut cross = 0u64;
                for b in (0..4).filter(|&b| b != a) {
                    let rest = table::merge_upto::<K>(&removed, &untouched[a][b]);
                    for k in 0..=K {
                        if g[b][0][k] + rest[1][K - k] == base {
                            cross |= improvers[b][0][k];
                        }
                        if g[b][1][k] + rest[0][K - k] == base {
                            cross |= improvers[b][1][k];
                        }
                    }
                }
                seen[seen_len] = (a, removed, cross);
                seen_len += 1;
                useful |= cross;
            }
            // A kind of the discard's own group: read that group again, and compare the
            // same way, one byte per entry (the gain of a tile is 0 or 1 in each).
            let (mut used0, mut used1) = (0u64, 0u64);
            for k in 0..=K {
                used0 |= u64::from(removed[0][k] + others[a][1][K - k] == base) << (8 * k);
                used1 |= u64::from(removed[1][k] + others[a][0][K - k] == base) << (8 * k);
            }
            let (left0, left1) = table::rows(&removed);
            let (start, len) = if a == 3 { (27, 7) } else { (a * 9, 9) };
            for r in 0..len {
                let x = start + r;
                if c[x] - u8::from(x == d) >= 4 {
                    continue;
                }
                let (with0, with1) = if x == d {
                    table::rows(&g[a])
                } else {
                    t.rows_by_key(a, keys[a] - POW5[rd] + POW5[r])
                };
                if ((left0 - with0) & used0) | ((left1 - with1) & used1) != 0 {
                    useful |= 1 << x;
                }
            }
        }
        if special.any_at_min() {
            let mut rest = *c;
            rest[d] -= 1;
            useful |= special.useful(&rest, melds).0;
        }
        out[d].useful = TileSet(useful);
    }
    out
}

/// The group (0–2 suits, 3 honors) of a kind and its rank within the group.
#[inline(always)]
pub(super) fn group_of(i: usize) -> (usize, usize) {
    // A table: the division by nine showed up in profiles of the discard loops.
    pub(super) const GROUPS: [(u8, u8); KINDS] = {
        let mut out = [(0u8, 0u8); KINDS];
        let mut i = 0;
        while i < KINDS {
            out[i] = if i >= 27 {
                (3, (i - 27) as u8)
            } else {
                ((i / 9) as u8, (i % 9) as u8)
            };
            i += 1;
        }
        out
    };
    let (g, r) = GROUPS[i];
    (g as usize, r as usize)
}

/// For a hand of 14 (counting melds as 3), the overall shanten after discarding each kind
/// held (`i8::MAX` for kinds not held). The regular shape is computed incrementally — the
/// discard changes one group, merged with the precomputed other three — so choosing a
/// discard costs little more than one whole-hand query.
pub fn after_each_discard(c: &TileCounts, melds: usize) -> [i8; KINDS] {
    table::with_sets!(4 - melds.min(4), after_each_discard_k(c, melds))
}

pub(super) fn after_each_discard_k<const K: usize>(c: &TileCounts, melds: usize) -> [i8; KINDS] {
    let each = EachDiscard::<K>::of(&c.0, melds, u64::MAX);
    each.special.map(|s| s.min)
}

/// Sets the knitted-straight (组合龙) shanten after each discard in `held` where it can reach
/// that discard's minimum so far, and lowers the minimum. Per arrangement in reach, the rest
/// of the hand is looked up once and each discard only rereads its own group, instead of a
/// whole-hand query per discard.
pub(super) fn straight_after_each_discard(
    c: &[u8; KINDS],
    masks: &SpecialMasks,
    held: u64,
    melds: usize,
    out: &mut [Special; KINDS],
) {
    let mut worst = i8::MIN;
    let mut pending = held;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        worst = worst.max(out[i].min);
    }
    for (n, &m) in KNIT_MASKS.iter().enumerate() {
        // The whole hand's kinds, not just the discards asked about, decide what is missing.
        let missing = 9 - masks.knit[n];
        // A discard never lowers the missing count: nothing here can beat any discard's best.
        if missing - 1 > worst {
            continue;
        }
        let rest = knit_rest(c, n);
        if melds == 0 {
            straight_rest_k::<1>(c, &rest, held, m, missing, out);
        } else {
            straight_rest_k::<0>(c, &rest, held, m, missing, out);
        }
    }
}

pub(super) fn straight_rest_k<const K: usize>(
    c: &[u8; KINDS],
    rest: &[u8; KINDS],
    held: u64,
    knit: u64,
    missing: i8,
    out: &mut [Special; KINDS],
) {
    let t = tables();
    let groups = Groups::of::<K>(rest);
    let whole = groups.distance::<K>() as i8;
    let Groups { keys, others, .. } = groups;
    let sides = others.map(|o| table::FinalSide::of::<K>(&o));
    let mut pending = held;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        // A knitted tile held once leaves the arrangement; any other discard leaves the rest.
        let (miss, dist) = if knit & (1 << i) != 0 && c[i] == 1 {
            (missing + 1, whole)
        } else {
            // Taking a tile from the rest never brings it closer: the whole rest bounds it.
            if missing + whole - 1 > out[i].min {
                continue;
            }
            let (j, r) = group_of(i);
            let d = t.with_removed_rows(j, keys[j], r);
            (missing, table::final_against(d, &sides[j]) as i8)
        };
        let s = &mut out[i];
        s.straight = s.straight.min(miss + dist - 1);
        s.min = s.min.min(s.straight);
    }
}
