//! Hands: concealed tiles plus melds, and every way a complete hand wins.

mod shapes;
pub(crate) mod table;
mod wild;

pub(crate) use shapes::regular_distance as shapes_regular_distance;
pub use shapes::{
    Decomposition, KNITS, Knit, Set, SetKind, Shape, decompositions, for_each_decomposition,
    is_complete, is_complete_counts,
};
pub(crate) use shapes::{OnlyReading, only_special_reading};
pub use wild::{WildDecomposition, is_complete_with_wilds, wild_decompositions};

use serde::{Deserialize, Serialize};

use crate::seat::Seat;
use crate::tile::{KINDS, Tile, TileCounts, to_notation};

/// The kind of a kong (杠).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KongKind {
    /// 明杠 on a discard, against a concealed pung.
    Exposed,
    /// 暗杠, four self-drawn tiles, declared face down.
    Concealed,
    /// 补杠 / 加杠: a drawn tile added to an exposed pung.
    Added,
}

/// What a meld is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeldKind {
    /// 吃: three in a row of one suit, the claimed tile from the player on the left.
    Chow,
    /// 碰: three of a kind.
    Pung,
    /// 杠: four of a kind.
    Kong(KongKind),
}

/// A declared set: chow, pung or kong, with where its claimed tile came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meld {
    pub kind: MeldKind,
    /// The lowest tile (the tile itself for pungs and kongs).
    pub tile: Tile,
    /// The claimed tile, for melds made on a discard (and the tile added to an added kong).
    pub claimed: Option<Tile>,
    /// The seat the claimed tile came from (for an added kong, the seat of the original pung).
    pub from: Option<Seat>,
    /// 翻财神: how many of the meld's tiles are 白 playing the wild's face (the face itself
    /// is wild and never melded); the tiles above list the face.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub whites: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Why a hand or meld was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandError {
    #[error("a chow must be three consecutive suit tiles starting at 1–7, not {0}")]
    BadChow(Tile),
    #[error("a meld cannot be made of flowers ({0})")]
    FlowerMeld(Tile),
    #[error("claimed tile {claimed} is not part of the meld {meld}")]
    ClaimedNotInMeld { claimed: Tile, meld: String },
    #[error("a concealed kong has no claimed tile")]
    ConcealedKongClaimed,
    #[error(
        "a hand holds 13 or 14 tiles counting each meld as 3, this one has {concealed} concealed + {melds} melds"
    )]
    WrongSize { concealed: usize, melds: usize },
    #[error("more than four copies of {0} between the hand and its melds")]
    FifthCopy(Tile),
    #[error("more than four melds")]
    TooManyMelds,
    #[error("'{0}' is not a meld: expected three tiles in a row, three alike or four alike")]
    NotAMeld(String),
}

impl Meld {
    /// A chow starting at `low` (suit tile ranked 1–7).
    pub fn chow(low: Tile, claimed: Option<Tile>, from: Option<Seat>) -> Result<Meld, HandError> {
        if !low.is_suited() || low.rank() > 7 {
            return Err(HandError::BadChow(low));
        }
        Meld::checked(MeldKind::Chow, low, claimed, from)
    }

    /// A pung of `tile`.
    pub fn pung(tile: Tile, claimed: Option<Tile>, from: Option<Seat>) -> Result<Meld, HandError> {
        Meld::checked(MeldKind::Pung, tile, claimed, from)
    }

    /// A kong of `tile`.
    pub fn kong(tile: Tile, kind: KongKind, from: Option<Seat>) -> Result<Meld, HandError> {
        let claimed = match kind {
            KongKind::Concealed => None,
            _ => Some(tile),
        };
        Meld::checked(MeldKind::Kong(kind), tile, claimed, from)
    }

    fn checked(
        kind: MeldKind,
        tile: Tile,
        claimed: Option<Tile>,
        from: Option<Seat>,
    ) -> Result<Meld, HandError> {
        if tile.is_flower() {
            return Err(HandError::FlowerMeld(tile));
        }
        let meld = Meld {
            kind,
            tile,
            claimed,
            from,
            whites: 0,
        };
        if let Some(c) = claimed {
            if kind == MeldKind::Kong(KongKind::Concealed) {
                return Err(HandError::ConcealedKongClaimed);
            }
            if !meld.tiles().contains(&c) {
                return Err(HandError::ClaimedNotInMeld {
                    claimed: c,
                    meld: meld.notation(),
                });
            }
        }
        Ok(meld)
    }

    /// Reads a meld from its tiles: `"123p"` is a chow, `"666z"` a pung, `"1111m"` a kong
    /// (of `kong_kind`).
    pub fn from_tiles(
        tiles: &[Tile],
        kong_kind: KongKind,
        claimed: Option<Tile>,
        from: Option<Seat>,
    ) -> Result<Meld, HandError> {
        let mut t = tiles.to_vec();
        t.sort();
        let bad = || HandError::NotAMeld(to_notation(tiles));
        match t.as_slice() {
            [a, b, c] if a == b && b == c => Meld::pung(*a, claimed, from),
            [a, b, c] if a.next_in_suit() == Some(*b) && b.next_in_suit() == Some(*c) => {
                Meld::chow(*a, claimed, from)
            }
            [a, b, c, d] if a == b && b == c && c == d => {
                let claimed = if kong_kind == KongKind::Concealed {
                    None
                } else {
                    claimed.or(Some(*a))
                };
                Meld::checked(MeldKind::Kong(kong_kind), *a, claimed, from)
            }
            _ => Err(bad()),
        }
    }

    /// The meld's tiles, lowest first (four for a kong).
    pub fn tiles(&self) -> Vec<Tile> {
        match self.kind {
            MeldKind::Chow => (0..3).filter_map(|d| self.tile.offset(d)).collect(),
            MeldKind::Pung => vec![self.tile; 3],
            MeldKind::Kong(_) => vec![self.tile; 4],
        }
    }

    /// Adds the meld's tiles to `counts`.
    pub fn add_to(&self, counts: &mut TileCounts) {
        match self.kind {
            MeldKind::Chow => {
                for d in 0..3 {
                    counts.0[self.tile.index() + d] += 1;
                }
            }
            MeldKind::Pung => counts.0[self.tile.index()] += 3,
            MeldKind::Kong(_) => counts.0[self.tile.index()] += 4,
        }
    }

    /// A kong of any kind.
    pub fn is_kong(&self) -> bool {
        matches!(self.kind, MeldKind::Kong(_))
    }

    /// Shown face up: everything but a concealed kong.
    pub fn is_exposed(&self) -> bool {
        self.kind != MeldKind::Kong(KongKind::Concealed)
    }

    /// The meld in notation, e.g. `123p`.
    pub fn notation(&self) -> String {
        to_notation(&self.tiles())
    }
}

/// A player's hand: the concealed tiles and the declared melds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hand {
    concealed: Vec<Tile>,
    melds: Vec<Meld>,
}

impl Hand {
    /// A hand of 13 or 14 tiles, counting each meld (kongs too) as three.
    pub fn new(concealed: Vec<Tile>, melds: Vec<Meld>) -> Result<Hand, HandError> {
        if melds.len() > 4 {
            return Err(HandError::TooManyMelds);
        }
        if let Some(&f) = concealed.iter().find(|t| t.is_flower()) {
            return Err(HandError::FlowerMeld(f));
        }
        let size = concealed.len() + 3 * melds.len();
        if size != 13 && size != 14 {
            return Err(HandError::WrongSize {
                concealed: concealed.len(),
                melds: melds.len(),
            });
        }
        let hand = Hand { concealed, melds };
        if let Some(t) = hand.all_counts().over_four() {
            return Err(HandError::FifthCopy(t));
        }
        Ok(hand)
    }

    /// The concealed tiles, in the order given.
    pub fn concealed(&self) -> &[Tile] {
        &self.concealed
    }

    /// The melds, in the order declared.
    pub fn melds(&self) -> &[Meld] {
        &self.melds
    }

    /// Counts of the concealed tiles.
    pub fn concealed_counts(&self) -> TileCounts {
        TileCounts::from_tiles(&self.concealed)
    }

    /// Counts of every tile: concealed and melded.
    pub fn all_counts(&self) -> TileCounts {
        let mut c = self.concealed_counts();
        for m in &self.melds {
            m.add_to(&mut c);
        }
        c
    }

    /// 14 counting each meld as three: a complete hand's size, ready to win or discard.
    pub fn is_full(&self) -> bool {
        self.concealed.len() + 3 * self.melds.len() == 14
    }
}

/// Checks that no kind appears more than four times across the counts and melds.
pub fn check_copies(concealed: &TileCounts, melds: &[Meld]) -> Result<(), HandError> {
    let mut c = *concealed;
    for m in melds {
        m.add_to(&mut c);
    }
    match (0..KINDS).find(|&i| c.0[i] > 4) {
        Some(i) => Err(HandError::FifthCopy(Tile::kind(i))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::parse_tiles;

    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }

    #[test]
    fn melds_from_tiles() {
        let m = Meld::from_tiles(
            &parse_tiles("213p").unwrap(),
            KongKind::Exposed,
            Some(t("1p")),
            None,
        )
        .unwrap();
        assert_eq!(m.kind, MeldKind::Chow);
        assert_eq!(m.notation(), "123p");
        let m = Meld::from_tiles(
            &parse_tiles("1111m").unwrap(),
            KongKind::Concealed,
            None,
            None,
        )
        .unwrap();
        assert_eq!(m.kind, MeldKind::Kong(KongKind::Concealed));
        assert!(!m.is_exposed());
        assert!(
            Meld::from_tiles(&parse_tiles("124p").unwrap(), KongKind::Exposed, None, None).is_err()
        );
        assert!(Meld::chow(t("8m"), None, None).is_err());
        assert!(Meld::chow(t("1z"), None, None).is_err());
        assert!(Meld::pung(t("1m"), Some(t("2m")), None).is_err());
    }

    #[test]
    fn hand_size_and_copies() {
        let pung = Meld::pung(t("1m"), Some(t("1m")), Some(Seat(1))).unwrap();
        assert!(Hand::new(parse_tiles("123456789p11s").unwrap(), vec![pung]).is_ok());
        assert!(matches!(
            Hand::new(parse_tiles("12345678p1s").unwrap(), vec![pung]),
            Err(HandError::WrongSize { .. })
        ));
        assert!(matches!(
            Hand::new(parse_tiles("11m3456789p11s").unwrap(), vec![pung]),
            Err(HandError::FifthCopy(_))
        ));
    }
}
