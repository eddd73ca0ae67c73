//! `tongcheng shanten`: one JSON line per hand read from stdin.

use std::io::{self, BufRead, BufWriter, Write};

use serde_json::{Map, Value, json};
use tongcheng_core::shanten::{ShapeShanten, analyze, analyze_wild};
use tongcheng_core::tile::{Tile, TileCounts, parse_hand_tiles};

#[derive(clap::Args)]
pub struct Args {
    /// Make this tile kind wild (e.g. 5z); then only `regular` and `seven_pairs` are reported.
    #[arg(long, value_name = "TILE")]
    wild: Option<String>,
}

pub fn run(args: Args) -> io::Result<()> {
    let wild = match args.wild.as_deref().map(str::parse::<Tile>) {
        None => None,
        Some(Ok(t)) if !t.is_flower() => Some(t),
        Some(Ok(t)) => {
            return Err(io::Error::other(format!(
                "--wild {t}: a flower cannot be wild"
            )));
        }
        Some(Err(e)) => return Err(io::Error::other(format!("--wild: {e}"))),
    };
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lines() {
        let line = line?;
        let hand = line.trim();
        if hand.is_empty() {
            continue;
        }
        let value = match one(hand, wild) {
            Ok(v) => v,
            Err(e) => json!({ "error": e }),
        };
        serde_json::to_writer(&mut out, &value)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

fn shape(s: &ShapeShanten) -> Value {
    json!({ "shanten": s.shanten, "useful": s.useful.to_notation() })
}

/// Analyses one line: a 13-tile hand in notation.
pub fn one(hand: &str, wild: Option<Tile>) -> Result<Value, String> {
    let tiles = parse_hand_tiles(hand).map_err(|e| e.to_string())?;
    if tiles.len() != 13 {
        return Err(format!("a hand has 13 tiles, this one has {}", tiles.len()));
    }
    let mut shapes = Map::new();
    let shanten = match wild {
        None => {
            let s = analyze(&TileCounts::from_tiles(&tiles), 0).map_err(|e| e.to_string())?;
            shapes.insert("regular".into(), shape(&s.regular));
            for (name, v) in [
                ("seven_pairs", s.seven_pairs),
                ("thirteen_orphans", s.thirteen_orphans),
                ("honors_knitted", s.honors_knitted),
                ("knitted_straight", s.knitted_straight),
            ] {
                if let Some(v) = v {
                    shapes.insert(name.into(), shape(&v));
                }
            }
            s.shanten
        }
        Some(w) => {
            let real: Vec<Tile> = tiles.iter().copied().filter(|&t| t != w).collect();
            let wilds = (tiles.len() - real.len()) as u8;
            let s = analyze_wild(&TileCounts::from_tiles(&real), wilds, w, 0)
                .map_err(|e| e.to_string())?;
            shapes.insert("regular".into(), shape(&s.regular));
            if let Some(v) = s.seven_pairs {
                shapes.insert("seven_pairs".into(), shape(&v));
            }
            s.shanten
        }
    };
    Ok(json!({ "hand": hand, "shanten": shanten, "shapes": shapes }))
}
