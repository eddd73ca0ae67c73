//! Shanten with wilds (财神) as jokers: every wild fills whatever the hand lacks most.

#![allow(clippy::needless_range_loop)]

use super::*;

/// Shanten of a hand with wild tiles: only the regular shape and seven pairs take wilds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WildShanten {
    pub shanten: i8,
    pub regular: ShapeShanten,
    pub seven_pairs: Option<ShapeShanten>,
}

/// Shanten with wilds: `real` holds the non-wild tiles, `wilds` how many wilds the hand holds,
/// `wild` the wild kind (drawing one is always useful while fewer than four are held).
pub fn analyze_wild(
    real: &TileCounts,
    wilds: u8,
    wild: Tile,
    melds: usize,
) -> Result<WildShanten, ShantenError> {
    let full = check(real, wilds as usize, melds)?;
    if wilds > 0 && real.get(wild) > 0 {
        // The wild kind's tiles are the wilds: they must not also be counted as real.
        return Err(ShantenError::FifthCopy(wild));
    }
    let regular = per_shape_wild(&real.0, wilds, wild, full, |c, w| {
        crate::hand::shapes_regular_distance(c, 4 - melds) as i8 - w as i8 - 1
    });
    let seven_pairs = (melds == 0).then(|| {
        per_shape_wild(&real.0, wilds, wild, full, |c, w| {
            let pairs: u8 = c.iter().map(|&x| x / 2).sum();
            let singles = c.iter().filter(|&&x| x % 2 == 1).count() as u8;
            let matched = singles.min(w);
            let total = pairs + matched + (w - matched) / 2;
            6 - total.min(7) as i8
        })
    });
    let shanten = seven_pairs.map_or(regular.shanten, |s| s.shanten.min(regular.shanten));
    Ok(WildShanten {
        shanten,
        regular,
        seven_pairs,
    })
}

/// The wild-hand counterpart of [`per_shape`]: `f(real, wilds)` gives the shanten number.
pub(super) fn per_shape_wild(
    c: &[u8; KINDS],
    wilds: u8,
    wild: Tile,
    full: bool,
    f: impl Fn(&[u8; KINDS], u8) -> i8,
) -> ShapeShanten {
    let useful13 = |c: &[u8; KINDS], w: u8| -> ShapeShanten {
        let base = f(c, w);
        let mut useful = TileSet::EMPTY;
        if w < 4 && f(c, w + 1) < base {
            useful.insert(wild);
        }
        let mut work = *c;
        for i in 0..KINDS {
            if i == wild.index() || c[i] >= 4 {
                continue;
            }
            work[i] += 1;
            if f(&work, w) < base {
                useful.insert(Tile::kind(i));
            }
            work[i] -= 1;
        }
        ShapeShanten {
            shanten: base,
            useful,
        }
    };
    if !full {
        return useful13(c, wilds);
    }
    let base = f(c, wilds);
    if base < 0 {
        return ShapeShanten {
            shanten: -1,
            useful: TileSet::EMPTY,
        };
    }
    let mut best = ShapeShanten {
        shanten: i8::MAX,
        useful: TileSet::EMPTY,
    };
    let mut consider = |s: ShapeShanten| {
        if s.shanten < best.shanten {
            best = s;
        } else if s.shanten == best.shanten {
            best.useful |= s.useful;
        }
    };
    let mut work = *c;
    for i in 0..KINDS {
        if c[i] > 0 {
            work[i] -= 1;
            consider(useful13(&work, wilds));
            work[i] += 1;
        }
    }
    if wilds > 0 {
        consider(useful13(c, wilds - 1));
    }
    best
}
