//! The wall: a seeded, reproducible shuffle of the tile set.
//!
//! # The shuffle, so anyone can re-derive a wall
//!
//! 1. Lay the tiles out in notation order, four copies of each kind (`1m 1m 1m 1m 2m … 7z`),
//!    then the flowers `1f … 8f` when the rules use them: 144 tiles (136 without flowers).
//! 2. Start the ChaCha20 keystream with the 32-byte seed as key, nonce 0, block counter 0, and
//!    read it as little-endian 32-bit words (this is `rand_chacha::ChaCha20Rng::from_seed`).
//! 3. Fisher–Yates from the end: for `i` from `n − 1` down to 1, draw a word `x`, rejecting it
//!    while `x ≥ ⌊2³²/(i+1)⌋·(i+1)`, and swap positions `i` and `x mod (i+1)`.
//!
//! The result is the wall in drawing order: the live end (position 0) is drawn from, the
//! replacement tiles for flowers and kongs come from the other end (从牌墙最后补一张). Laid out
//! on a table it is four walls of 18 stacks of two (17 without flowers).

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::tile::{FLOWERS, KINDS, Tile};

/// A 32-byte shuffle seed, written as 64 hex digits in records.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// A seed from a small number (tests, the command line): the number's 8 little-endian
    /// bytes, then zeros.
    pub fn from_u64(n: u64) -> Seed {
        let mut s = [0u8; 32];
        s[..8].copy_from_slice(&n.to_le_bytes());
        Seed(s)
    }

    /// Derives the seed of sub-game `index` (e.g. hand 3 of a match): the first 32 bytes of
    /// the ChaCha20 stream keyed by this seed after skipping `index` × 32 bytes.
    pub fn derive(&self, index: u64) -> Seed {
        let mut rng = ChaCha20Rng::from_seed(self.0);
        rng.set_word_pos(index as u128 * 8);
        let mut s = [0u8; 32];
        rng.fill_bytes(&mut s);
        Seed(s)
    }

    pub fn to_hex(&self) -> String {
        crate::hex::hex(&self.0)
    }

    pub fn from_hex(s: &str) -> Result<Seed, String> {
        crate::hex::unhex_array(s)
            .map(Seed)
            .ok_or_else(|| format!("a seed is 64 hex digits, got '{s}'"))
    }
}

impl Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Seed, D::Error> {
        let s = String::deserialize(d)?;
        Seed::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

/// The shuffled wall, drawn from both ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wall {
    tiles: Vec<Tile>,
    front: usize,
    back: usize,
}

impl Wall {
    /// Every tile of a set, in notation order: four of each kind, and the eight flowers.
    pub fn full_set(flowers: bool) -> Vec<Tile> {
        let mut tiles: Vec<Tile> = (0..KINDS).flat_map(|k| [Tile::kind(k); 4]).collect();
        if flowers {
            tiles.extend((0..FLOWERS as u8).filter_map(|f| Tile::from_index(KINDS as u8 + f)));
        }
        tiles
    }

    /// The wall for `seed`, with or without the eight flowers.
    pub fn shuffled(seed: &Seed, flowers: bool) -> Wall {
        let mut tiles = Wall::full_set(flowers);
        let mut rng = ChaCha20Rng::from_seed(seed.0);
        for i in (1..tiles.len()).rev() {
            let bound = i as u32 + 1;
            let zone = (u32::MAX / bound) * bound;
            let x = loop {
                let x = rng.next_u32();
                if x < zone {
                    break x;
                }
            };
            tiles.swap(i, (x % bound) as usize);
        }
        let back = tiles.len();
        Wall {
            tiles,
            front: 0,
            back,
        }
    }

    /// A wall in a given drawing order: tests that need a particular deal, and a seat that
    /// rebuilds a hand it saw only part of (see [`crate::game::Game::with_wall_order`]).
    pub(crate) fn from_order(tiles: Vec<Tile>) -> Wall {
        let back = tiles.len();
        Wall {
            tiles,
            front: 0,
            back,
        }
    }

    /// Tiles not yet drawn.
    pub fn remaining(&self) -> usize {
        self.back - self.front
    }

    /// Draws from the live end.
    pub fn draw(&mut self) -> Option<Tile> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.tiles[self.front - 1]
        })
    }

    /// Draws a replacement tile from the far end (after a flower or a kong).
    pub fn draw_replacement(&mut self) -> Option<Tile> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.tiles[self.back]
        })
    }

    /// Every tile of the full wall in drawing order (for tests and verification only: this is
    /// exactly what a seat must never see).
    pub fn order(&self) -> &[Tile] {
        &self.tiles
    }

    /// The undrawn tiles, front first.
    pub fn undrawn(&self) -> &[Tile] {
        &self.tiles[self.front..self.back]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_wall_and_all_tiles_present() {
        let a = Wall::shuffled(&Seed::from_u64(7), true);
        let b = Wall::shuffled(&Seed::from_u64(7), true);
        let c = Wall::shuffled(&Seed::from_u64(8), true);
        assert_eq!(a, b);
        assert_ne!(a.order(), c.order());
        assert_eq!(a.remaining(), 144);
        let mut sorted = a.order().to_vec();
        sorted.sort();
        let mut expected: Vec<Tile> = (0..KINDS).flat_map(|k| [Tile::kind(k); 4]).collect();
        expected.extend((34..42).filter_map(Tile::from_index));
        assert_eq!(sorted, expected);
        assert_eq!(Wall::shuffled(&Seed::from_u64(1), false).remaining(), 136);
    }

    #[test]
    fn the_documented_algorithm_is_pinned() {
        // A change to the shuffle would silently change every recorded game: pin its output.
        let w = Wall::shuffled(&Seed::from_u64(0), true);
        let first: Vec<String> = w.order()[..8].iter().map(|t| t.to_string()).collect();
        assert_eq!(first.join(" "), PINNED_FIRST_EIGHT);
    }

    const PINNED_FIRST_EIGHT: &str = "5p 7m 3z 3s 4s 5m 2f 2z";

    #[test]
    fn draws_from_both_ends() {
        let mut w = Wall::shuffled(&Seed::from_u64(3), false);
        let order = w.order().to_vec();
        assert_eq!(w.draw(), Some(order[0]));
        assert_eq!(w.draw_replacement(), Some(order[135]));
        assert_eq!(w.remaining(), 134);
        while w.draw().is_some() {}
        assert_eq!(w.draw_replacement(), None);
    }

    #[test]
    fn seeds_round_trip_and_derive() {
        let s = Seed::from_u64(99);
        assert_eq!(Seed::from_hex(&s.to_hex()).unwrap(), s);
        assert!(Seed::from_hex("xyz").is_err());
        let plus = format!("+f{}", "0".repeat(62));
        assert!(Seed::from_hex(&plus).is_err(), "a sign is not a hex digit");
        assert_ne!(s.derive(0), s.derive(1));
        assert_eq!(s.derive(5), s.derive(5));
    }
}
