//! What a seat knows, distilled from its view: its own tiles, the tiles it has seen, and what
//! the other seats have shown. Bots and hints reason only from this.

use crate::game::{SeatView, TableMeld};
use crate::hand::{Meld, MeldKind};
use crate::rules::{Scoring, WildRule};
use crate::score::mcr::McrOptions;
use crate::seat::{Seat, Wind};
use crate::shanten::{ShantenError, ShapeShanten};
use crate::tile::{KINDS, Tile, TileCounts};

/// Another seat as this seat sees it.
#[derive(Clone, Copy, Debug)]
pub struct Opponent {
    pub seat: Seat,
    pub melds: usize,
    /// Kinds this opponent has discarded (a hint to what it does not need), one bit per kind.
    pub discarded: u64,
    pub discards: usize,
    /// Suits (0–2) and honors (3) this opponent has melded: a flush player shows one suit.
    pub meld_groups: [u8; 4],
}

/// One seat's knowledge of the table.
#[derive(Clone, Debug)]
pub struct Knowledge {
    pub seat: Seat,
    /// Own concealed tiles, the drawn tile included.
    pub hand: TileCounts,
    pub drawn: Option<Tile>,
    pub melds: Vec<Meld>,
    /// Copies of each kind this seat can see: own hand and melds, every exposed meld and
    /// every discard on the table.
    pub seen: [u8; KINDS],
    pub seat_wind: Wind,
    pub round_wind: Wind,
    pub flowers: u8,
    pub wall_remaining: usize,
    /// The other three seats, in seat order.
    pub opponents: [Opponent; 3],
    /// The Chinese Official options the table scores with (from the view's rules). Under
    /// another scorer there is no minimum: every wait pays.
    pub mcr: McrOptions,
    /// Whether a win's price grows with its fans (国标, and Hangzhou's elements roughly
    /// follow them); under the Tongcheng games it does not, so the hard bot plays the
    /// fastest hand there, with defence.
    pub fans_pay: bool,
    /// Whether the Chinese Official shapes (thirteen orphans, the knitted hands) win here;
    /// under the Tongcheng games only the standard shape and seven pairs count.
    pub official_shapes: bool,
    /// The stand-in tile and the face it plays as a natural tile: 白 as the turned-up face
    /// (翻财神), 中 as the wild's face (跑风).
    pub stand_in: Option<(Tile, Tile)>,
}

fn meld_of(tm: &TableMeld) -> Option<Meld> {
    Some(Meld {
        kind: tm.kind,
        tile: tm.tile?,
        claimed: tm.claimed,
        from: tm.from,
        whites: tm.whites,
    })
}

impl Knowledge {
    pub fn from_view(v: &SeatView) -> Knowledge {
        let mut hand = TileCounts::from_tiles(&v.hand);
        if let Some(d) = v.drawn {
            hand.add(d);
        }
        let mut seen = TileCounts(hand.0);
        let mut melds = Vec::new();
        let mut opponents = [Opponent {
            seat: v.seat,
            melds: 0,
            discarded: 0,
            discards: 0,
            meld_groups: [0; 4],
        }; 3];
        let mut others = 0;
        let mut me = None;
        for s in &v.seats {
            for tm in &s.melds {
                if let Some(m) = meld_of(tm) {
                    m.add_to(&mut seen);
                    if s.seat == v.seat {
                        melds.push(m);
                    }
                }
            }
            // 暗牌: a face-down discard says nothing about its tile.
            for t in s
                .discards
                .iter()
                .filter(|d| !d.claimed)
                .filter_map(|d| d.tile)
            {
                seen.0[t.index()] += 1;
            }
            if s.seat == v.seat {
                me = Some(s);
                continue;
            }
            let mut discarded = 0u64;
            for t in s.discards.iter().filter_map(|d| d.tile) {
                discarded |= 1 << t.index();
            }
            let mut meld_groups = [0u8; 4];
            for tm in &s.melds {
                if let Some(t) = tm.tile {
                    meld_groups[(t.index() / 9).min(3)] += 1;
                }
            }
            // A view lists four seats; anything more is ignored rather than a panic.
            if let Some(o) = opponents.get_mut(others) {
                *o = Opponent {
                    seat: s.seat,
                    melds: s.melds.len(),
                    discarded,
                    discards: s.discards.len(),
                    meld_groups,
                };
                others += 1;
            }
        }
        let mut seen = seen.0;
        for x in seen.iter_mut() {
            *x = (*x).min(4);
        }
        let me = me.expect("the view lists the viewer's seat");
        Knowledge {
            seat: v.seat,
            hand,
            drawn: v.drawn,
            melds,
            seen,
            seat_wind: me.wind,
            round_wind: v.prevalent,
            flowers: me.flowers.len() as u8,
            wall_remaining: v.wall_remaining,
            opponents,
            fans_pay: v.rules.tongcheng_table().is_none(),
            official_shapes: v.rules.tongcheng_table().is_none(),
            stand_in: stand_in_face(v),
            mcr: match v.rules.scoring {
                Scoring::Mcr => v.rules.mcr,
                Scoring::Hangzhou(_) | Scoring::Tongcheng(_) => McrOptions {
                    min_points: 0,
                    ..v.rules.mcr
                },
            },
        }
    }

    /// Shanten over the shapes that win under these rules.
    pub fn shanten(&self, c: &TileCounts, melds: usize) -> i8 {
        if self.official_shapes {
            crate::shanten::shanten_number(c, melds)
        } else {
            crate::shanten::standard_or_seven_pairs_number(c, melds)
        }
    }

    /// Shanten after each discard from the 14-tile hand `c`, over the shapes that win here;
    /// kinds not held stay at `i8::MAX`.
    pub fn after_each_discard(&self, c: &TileCounts, melds: usize) -> [i8; KINDS] {
        if self.official_shapes {
            return crate::shanten::after_each_discard(c, melds);
        }
        match crate::shanten::standard_or_seven_pairs_after_each_discard(c, melds, u64::MAX) {
            Ok(each) => each.map(|s| s.shanten),
            // Only reachable with an impossible hand size: hopeless rather than a panic.
            Err(_) => [i8::MAX; KINDS],
        }
    }

    /// Shanten and useful tiles after each discard in `which` from the 14-tile hand `c`, over
    /// the shapes that win here (see [`crate::shanten::best_after_each_discard`]).
    pub fn best_after_each_discard(
        &self,
        c: &TileCounts,
        melds: usize,
        which: u64,
        slack: i8,
    ) -> Result<[ShapeShanten; KINDS], ShantenError> {
        if self.official_shapes {
            crate::shanten::best_after_each_discard(c, melds, which, slack)
        } else {
            crate::shanten::standard_or_seven_pairs_after_each_discard(c, melds, which)
        }
    }

    /// The shanten and useful tiles of the 13- or 14-tile hand `c`, over the shapes that win.
    pub fn best(&self, c: &TileCounts, melds: usize) -> Result<ShapeShanten, ShantenError> {
        if self.official_shapes {
            crate::shanten::best(c, melds)
        } else {
            crate::shanten::standard_or_seven_pairs(c, melds)
        }
    }

    /// Splits `c` into natural tiles and a count of wilds, the stand-in read as its face.
    pub fn split_wilds(&self, c: &TileCounts, wild: Tile) -> (TileCounts, u8) {
        let (mut real, wilds) = crate::score::hangzhou::split_wilds(c, Some(wild), None);
        if let Some((tile, face)) = self.stand_in {
            let n = real.0[tile.index()];
            real.0[tile.index()] = 0;
            real.0[face.index()] += n;
        }
        (real, wilds)
    }

    /// Copies of `t` this seat has not seen: still in the wall or in other hands.
    #[inline]
    pub fn live(&self, t: Tile) -> u8 {
        4 - self.seen[t.index()]
    }

    /// No chow, pung or exposed kong yet (concealed kongs keep the hand concealed).
    pub fn is_concealed(&self) -> bool {
        self.melds.iter().all(|m| !m.is_exposed())
    }

    /// Declared melds that are chows.
    pub fn has_chow_meld(&self) -> bool {
        self.melds.iter().any(|m| m.kind == MeldKind::Chow)
    }
}

/// The stand-in and its face from a view: under 跑风 中 plays the wild's own face, under
/// 翻财神 白 plays the turned-up tile's.
fn stand_in_face(v: &SeatView) -> Option<(Tile, Tile)> {
    let tile = v.stand_in?;
    let face = if v.rules.wild == WildRule::FlippedNext {
        v.wild?
    } else {
        v.wild_indicator?
    };
    Some((tile, face))
}
