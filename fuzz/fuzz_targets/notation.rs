//! Tile notation on arbitrary bytes: the parsers never panic, agree with each other, keep at
//! most 144 tiles, and whatever parses is written back by `to_notation` to the same tiles.
//! A single tile parses exactly when the text is its two-character notation.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_core::tile::{
    MAX_TILES, Tile, TileCounts, parse_hand_tiles, parse_tiles, to_notation,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check_text(&text);
    check_tile_list(data);
});

fn check_text(s: &str) {
    let tiles = parse_tiles(s);
    let hand = parse_hand_tiles(s);
    let counts = TileCounts::parse(s);
    match &tiles {
        Ok(t) => {
            assert!(!t.is_empty() && t.len() <= MAX_TILES);
            let written = to_notation(t);
            assert_eq!(parse_tiles(&written).as_ref(), Ok(t), "{written}");
            let flowers = t.iter().any(|x| x.is_flower());
            assert_eq!(hand.as_ref().ok(), (!flowers).then_some(t));
        }
        Err(e) => {
            assert!(hand.is_err());
            assert!(!e.to_string().is_empty());
        }
    }
    match &hand {
        Ok(h) => assert_eq!(counts, Ok(TileCounts::from_tiles(h))),
        Err(e) => assert_eq!(counts.as_ref().err(), Some(e)),
    }

    let one = s.parse::<Tile>();
    if let Ok(t) = one {
        assert_eq!(t.to_string(), s);
        assert_eq!(tiles, Ok(vec![t]));
    }
    // JSON reads a tile the same way, strictly.
    let json = serde_json::to_string(s).unwrap();
    let from_json = serde_json::from_str::<Tile>(&json);
    assert_eq!(from_json.ok(), one.as_ref().ok().copied());
    if let Err(e) = one {
        assert!(e.to_string().chars().count() < 200);
    }
}

/// Arbitrary tiles written out: they parse back to themselves when they form a legal list
/// (at most four of a kind, one of each flower).
fn check_tile_list(data: &[u8]) {
    let tiles: Vec<Tile> = data
        .iter()
        .filter_map(|&b| Tile::from_index(b % 42))
        .collect();
    let written = to_notation(&tiles);
    let mut seen = [0usize; 42];
    let mut legal = !tiles.is_empty() && tiles.len() <= MAX_TILES;
    for t in &tiles {
        seen[t.index()] += 1;
        let limit = if t.is_flower() { 1 } else { 4 };
        legal &= seen[t.index()] <= limit;
    }
    let parsed = parse_tiles(&written);
    if legal {
        assert_eq!(parsed, Ok(tiles), "{written}");
    } else {
        assert!(parsed.is_err(), "{written}");
    }
}
