//! Structured inputs for the fan fuzz targets: plausible hands built from arbitrary bytes, so
//! that most inputs get past the JSON and notation checks and reach the scorers.

use arbitrary::Arbitrary;
use serde_json::{Value, json};
use tongcheng_core::tile::{KINDS, Tile};

/// One set of a hand: where it sits and what it is.
#[derive(Arbitrary, Debug)]
pub struct SetSpec {
    /// 0–3 chow, pung, kong, pung; other values the same modulo 4.
    pub kind: u8,
    /// The set's tile (a chow's lowest), folded into range.
    pub tile: u8,
    /// 0: concealed in the hand; 1: an exposed meld; 2: a concealed kong meld.
    pub place: u8,
    pub claimed: Option<u8>,
}

/// A hand: up to four sets and a pair, a few tiles replaced by wilds or noise, a winning
/// tile taken from the hand.
#[derive(Arbitrary, Debug)]
pub struct HandSpec {
    pub sets: Vec<SetSpec>,
    pub pair: u8,
    /// Seven pairs instead of sets (the pair list then comes from `pairs`).
    pub seven_pairs: bool,
    pub pairs: [u8; 7],
    /// Tiles of the concealed part replaced: (position, new tile index 0–41).
    pub noise: Vec<(u8, u8)>,
    /// Concealed tiles turned into this many copies of `wild` (Hangzhou).
    pub wilds: u8,
    pub wild: u8,
    /// Which concealed tile is the winning tile.
    pub win: u8,
}

/// A tile of kind `i` folded into the playing tiles, in notation.
pub fn kind(i: u8) -> String {
    Tile::kind(i as usize % KINDS).to_string()
}

/// Any tile 0–41 (flowers included), in notation.
pub fn any_tile(i: u8) -> String {
    Tile::from_index(i % 42).map_or_else(|| "1m".into(), |t| t.to_string())
}

/// The hand as (concealed tiles, melds as JSON, the winning tile), the winning tile still
/// among the concealed ones.
pub fn build(h: &HandSpec, wild: Option<&str>) -> (Vec<String>, Vec<Value>, String) {
    let mut concealed: Vec<String> = Vec::new();
    let mut melds = Vec::new();
    if h.seven_pairs {
        for &p in &h.pairs {
            concealed.push(kind(p));
            concealed.push(kind(p));
        }
    } else {
        for s in h.sets.iter().take(4) {
            let tiles: Vec<String> = match s.kind % 4 {
                0 => {
                    let suit = s.tile % 3;
                    let low = suit * 9 + (s.tile / 3) % 7;
                    (0..3).map(|d| kind(low + d)).collect()
                }
                2 => vec![kind(s.tile); 4],
                _ => vec![kind(s.tile); 3],
            };
            let is_kong = tiles.len() == 4;
            match s.place % 3 {
                0 if !is_kong => concealed.extend(tiles),
                p => {
                    let kind = ["chow", "pung", "kong", "pung"][(s.kind % 4) as usize];
                    let mut m = json!({
                        "kind": kind,
                        "tiles": tiles.concat(),
                    });
                    if p == 2 && is_kong {
                        m["concealed"] = json!(true);
                    } else if let Some(c) = s.claimed {
                        m["claimed"] = json!(tiles[c as usize % tiles.len()]);
                    }
                    melds.push(m);
                }
            }
        }
        concealed.push(kind(h.pair));
        concealed.push(kind(h.pair));
    }
    let n = concealed.len();
    for &(pos, t) in h.noise.iter().take(4) {
        concealed[pos as usize % n] = any_tile(t);
    }
    if let Some(w) = wild {
        for k in 0..(h.wilds % 5) as usize {
            concealed[(h.win as usize + 1 + k * 3) % n] = w.to_string();
        }
    }
    let win = concealed[h.win as usize % n].clone();
    (concealed, melds, win)
}

/// The concealed tiles without one copy of the winning tile.
pub fn without_win(concealed: &[String], win: &str) -> String {
    let mut rest = concealed.to_vec();
    if let Some(i) = rest.iter().position(|t| t == win) {
        rest.remove(i);
    }
    rest.concat()
}
