//! Complete hands with wild tiles (Hangzhou's 财神): a wild stands for any tile, its own face
//! included. Only the regular shape and seven pairs take wilds.
//!
//! The hand is given as its real (non-wild) tiles plus a number of wilds. A hand is complete
//! when the real tiles are short of a complete hand by exactly as many tiles as there are
//! wilds — the same suit tables as the plain check answer that.

// Index arithmetic over parallel per-kind arrays reads clearer as ranges.
#![allow(clippy::needless_range_loop)]

use super::Meld;
use super::shapes::{Decomposition, Set, SetKind, Shape, regular_distance};
use crate::tile::{KINDS, Tile, TileCounts};

/// A decomposition of a hand with wilds, and what each wild stood for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WildDecomposition {
    pub decomposition: Decomposition,
    /// One tile per wild, in notation order.
    pub stood_for: Vec<Tile>,
}

/// Is the hand complete (regular or seven pairs) with `wilds` wild tiles standing in?
/// `real` holds the concealed non-wild tiles including the winning tile. Allocation-free.
pub fn is_complete_with_wilds(real: &TileCounts, wilds: u8, melds: usize) -> bool {
    let total = real.total() + wilds as usize;
    if melds > 4 || total + 3 * melds != 14 {
        return false;
    }
    if regular_distance(&real.0, 4 - melds) <= wilds {
        return true;
    }
    melds == 0 && seven_pairs_singles(real) <= wilds as usize
}

/// Kinds held an odd number of times: each needs a wild to become a pair.
fn seven_pairs_singles(real: &TileCounts) -> usize {
    real.0.iter().filter(|&&c| c % 2 == 1).count()
}

/// Every decomposition of a complete hand with wilds, with what the wilds stood for. Sets made
/// wholly of wilds are listed for every tile they could be, so a hand with many wilds has many
/// readings.
pub fn wild_decompositions(real: &TileCounts, wilds: u8, melds: &[Meld]) -> Vec<WildDecomposition> {
    let mut out = Vec::new();
    if !is_complete_with_wilds(real, wilds, melds.len()) {
        return out;
    }
    if regular_distance(&real.0, 4 - melds.len()) <= wilds {
        let mut d = Decomposition::regular_with(melds);
        let mut subs = Vec::with_capacity(wilds as usize);
        let mut search = Search {
            c: &real.0,
            d: &mut d,
            subs: &mut subs,
            out: &mut out,
        };
        search.regular(0, 0, 0, wilds);
    }
    if melds.is_empty() && seven_pairs_singles(real) <= wilds as usize {
        let mut subs: Vec<Tile> = real.kinds().filter(|t| real.get(*t) % 2 == 1).collect();
        let spare_pairs = (wilds as usize - subs.len()) / 2;
        let mut choice = vec![0usize; spare_pairs];
        loop {
            let mut counts = *real;
            let mut all = subs.clone();
            for &k in &choice {
                all.push(Tile::kind(k));
                all.push(Tile::kind(k));
            }
            for t in &all {
                counts.0[t.index()] += 1;
            }
            let mut pairs = [Tile::EAST; 7];
            let mut n = 0;
            for (i, &x) in counts.0.iter().enumerate() {
                for _ in 0..x / 2 {
                    pairs[n] = Tile::kind(i);
                    n += 1;
                }
            }
            let mut d = Decomposition::regular_with(&[]);
            d.shape = Shape::SevenPairs;
            d.pairs = Some(pairs);
            all.sort();
            out.push(WildDecomposition {
                decomposition: d,
                stood_for: all,
            });
            // Next non-decreasing choice of kinds for the wild pairs.
            let mut i = spare_pairs;
            loop {
                if i == 0 {
                    subs.clear();
                    return out;
                }
                i -= 1;
                if choice[i] + 1 < KINDS {
                    choice[i] += 1;
                    for j in i + 1..spare_pairs {
                        choice[j] = choice[i];
                    }
                    break;
                }
            }
        }
    }
    out
}

struct Search<'a> {
    c: &'a [u8; KINDS],
    d: &'a mut Decomposition,
    subs: &'a mut Vec<Tile>,
    out: &'a mut Vec<WildDecomposition>,
}

impl Search<'_> {
    /// At kind `i`: `pend1`/`pend2` chows started one and two kinds earlier still need a tile
    /// here; choose the pair, pungs and chows starting here, fill any shortfall with wilds.
    fn regular(&mut self, i: usize, pend1: u8, pend2: u8, wilds: u8) {
        if i == KINDS {
            if wilds == 0 && self.d.pair.is_some() && self.d.sets().len() == 4 {
                let mut stood_for = self.subs.clone();
                stood_for.sort();
                self.out.push(WildDecomposition {
                    decomposition: *self.d,
                    stood_for,
                });
            }
            return;
        }
        let have = self.c[i];
        let t = Tile::kind(i);
        if have == 0 && pend1 == 0 && pend2 == 0 && wilds == 0 {
            return self.regular(i + 1, 0, 0, 0);
        }
        let can_chow = t.is_suited() && t.rank() <= 7;
        let sets_left = (4 - self.d.sets().len()) as u8;
        for pair in 0..=u8::from(self.d.pair.is_none()) {
            for pung in 0..=sets_left {
                let max_chows = if can_chow { sets_left - pung } else { 0 };
                for chows in 0..=max_chows {
                    let demand = 2 * pair + 3 * pung + chows + pend1 + pend2;
                    if demand < have || demand - have > wilds {
                        continue;
                    }
                    let extra = demand - have;
                    if pair == 1 {
                        self.d.pair = Some(t);
                    }
                    for _ in 0..pung {
                        self.d.push_set(Set::concealed(SetKind::Pung, t));
                    }
                    for _ in 0..chows {
                        self.d.push_set(Set::concealed(SetKind::Chow, t));
                    }
                    for _ in 0..extra {
                        self.subs.push(t);
                    }
                    self.regular(i + 1, chows, pend1, wilds - extra);
                    for _ in 0..extra {
                        self.subs.pop();
                    }
                    for _ in 0..pung + chows {
                        self.d.pop_set();
                    }
                    if pair == 1 {
                        self.d.pair = None;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::to_notation;

    fn real(s: &str) -> TileCounts {
        if s.is_empty() {
            TileCounts::new()
        } else {
            TileCounts::parse(s).unwrap()
        }
    }

    #[test]
    fn wilds_fill_what_is_missing() {
        assert!(is_complete_with_wilds(&real("123m456p789s113z"), 2, 0));
        assert!(!is_complete_with_wilds(&real("123m456p789s135z"), 2, 0));
        assert!(is_complete_with_wilds(&real("123m456p789s1133z"), 1, 0));
        assert!(!is_complete_with_wilds(&real("123m456p789s1135z"), 1, 0));
        // A wild may stand for its own face or for a fifth copy.
        assert!(is_complete_with_wilds(&real("1111999m456p789s"), 1, 0));
    }

    #[test]
    fn wild_stands_for_what_completes() {
        let ds = wild_decompositions(&real("23m456p789s111z99s"), 1, &[]);
        let subs: Vec<String> = ds.iter().map(|d| to_notation(&d.stood_for)).collect();
        assert!(
            subs.contains(&"1m".to_string()) && subs.contains(&"4m".to_string()),
            "{subs:?}"
        );
        for d in &ds {
            assert_eq!(d.stood_for.len(), 1);
        }
    }

    #[test]
    fn seven_pairs_with_wilds() {
        let r = real("1133m5577p99s124z");
        assert!(!is_complete_with_wilds(&r, 1, 0));
        let r = real("1133m5577p99s12z");
        assert!(is_complete_with_wilds(&r, 2, 0));
        let ds = wild_decompositions(&r, 2, &[]);
        assert!(
            ds.iter().any(|d| d.decomposition.shape == Shape::SevenPairs
                && to_notation(&d.stood_for) == "12z")
        );
    }

    #[test]
    fn all_wilds() {
        let r = real("");
        assert!(is_complete_with_wilds(&r, 2, 4));
        let kong = Meld::pung(Tile::kind(0), None, None).unwrap();
        let melds = [kong; 4];
        let ds = wild_decompositions(&r, 2, &melds);
        assert_eq!(ds.len(), KINDS); // the pair can be any kind
    }
}
