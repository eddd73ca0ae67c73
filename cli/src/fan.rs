//! `tongcheng fan`: Chinese Official fan breakdowns of hands given as JSON lines on stdin.
//!
//! One JSON line out per line in, in order: `{"total","valid","fans":[{"id","name","en",
//! "points","count"}...]}` with fans in id order, or `{"error": "..."}` — the run goes on
//! after an error and never panics. Blank lines are skipped (no output line), so a trailing
//! newline or spacing between batches is harmless. Output is buffered and flushed whenever the
//! input has nothing more waiting, so both a 100,000-line pipe and a line-by-line conversation
//! work.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use serde::{Deserialize, Serialize};
use tongcheng_core::hand::{KongKind, Meld, MeldKind};
use tongcheng_core::score::mcr::{self, Breakdown, McrOptions, WinContext};
use tongcheng_core::seat::Wind;
use tongcheng_core::tile::{Tile, parse_hand_tiles, parse_tiles};

#[derive(clap::Args)]
pub struct Args {
    /// Score one melded plus one concealed kong as the 5-point 明暗杠 (later drafts,
    /// pymahjonggb) instead of 明杠 + 暗杠.
    #[arg(long)]
    mixed_kong_5: bool,
    /// Do not score 杠上开花 beside 妙手回春 when the last wall tile is a kong's replacement.
    #[arg(long)]
    kong_flower_no_last_tile: bool,
    /// The minimum a win must reach without flowers.
    #[arg(long, value_name = "POINTS", default_value_t = 8)]
    min_points: u32,
}

/// One input line. Missing optional fields: no melds, flags false, winds East, no flowers.
#[derive(Deserialize)]
struct Input {
    concealed: String,
    #[serde(default)]
    melds: Vec<MeldInput>,
    win_tile: String,
    #[serde(default)]
    self_drawn: bool,
    #[serde(default)]
    last_copy: bool,
    #[serde(default)]
    on_kong: bool,
    #[serde(default)]
    robbing_kong: bool,
    #[serde(default)]
    last_tile: bool,
    #[serde(default = "east")]
    seat_wind: Wind,
    #[serde(default = "east")]
    round_wind: Wind,
    #[serde(default)]
    flowers: u8,
    /// Per-line options; a field given here overrides the command-line flag.
    #[serde(default)]
    options: OptionsInput,
}

fn east() -> Wind {
    Wind::East
}

#[derive(Deserialize)]
struct MeldInput {
    kind: String,
    tiles: String,
    #[serde(default)]
    claimed: Option<String>,
    #[serde(default)]
    concealed: bool,
}

#[derive(Deserialize, Default)]
struct OptionsInput {
    mixed_kong_5: Option<bool>,
    kong_flower_with_last_tile_draw: Option<bool>,
    min_points: Option<u32>,
}

#[derive(Serialize)]
struct Output<'a> {
    total: u32,
    valid: bool,
    fans: &'a [mcr::FanCount],
}

pub fn run(args: Args) -> io::Result<()> {
    let defaults = McrOptions {
        mixed_kong_5: args.mixed_kong_5,
        kong_flower_with_last_tile_draw: !args.kong_flower_no_last_tile,
        min_points: args.min_points,
    };
    let mut input = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(s) => s.trim(),
            Err(_) => {
                write_error(&mut out, "the line is not valid UTF-8")?;
                continue;
            }
        };
        if !text.is_empty() {
            match one(text, &defaults) {
                Ok(b) => {
                    let o = Output {
                        total: b.total,
                        valid: b.valid,
                        fans: &b.fans,
                    };
                    serde_json::to_writer(&mut out, &o)?;
                    out.write_all(b"\n")?;
                }
                Err(e) => write_error(&mut out, &e)?,
            }
        }
        // Nothing more is waiting: whoever feeds us may be waiting for this answer.
        if input.buffer().is_empty() {
            out.flush()?;
        }
    }
    out.flush()
}

fn write_error(out: &mut impl Write, message: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &serde_json::json!({ "error": message }))?;
    out.write_all(b"\n")
}

/// Scores one line of JSON.
fn one(text: &str, defaults: &McrOptions) -> Result<Breakdown, String> {
    let input: Input = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let concealed = if input.concealed.trim().is_empty() {
        Vec::new()
    } else {
        parse_hand_tiles(&input.concealed).map_err(|e| format!("concealed: {e}"))?
    };
    let win_tile: Tile = input
        .win_tile
        .trim()
        .parse()
        .map_err(|e| format!("win_tile: {e}"))?;
    let melds = input
        .melds
        .iter()
        .enumerate()
        .map(|(i, m)| meld(m).map_err(|e| format!("meld {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let o = &input.options;
    let opts = McrOptions {
        mixed_kong_5: o.mixed_kong_5.unwrap_or(defaults.mixed_kong_5),
        kong_flower_with_last_tile_draw: o
            .kong_flower_with_last_tile_draw
            .unwrap_or(defaults.kong_flower_with_last_tile_draw),
        min_points: o.min_points.unwrap_or(defaults.min_points),
    };
    let ctx = WinContext {
        concealed: &concealed,
        melds: &melds,
        win_tile,
        self_drawn: input.self_drawn,
        last_copy: input.last_copy,
        on_kong: input.on_kong,
        robbing_kong: input.robbing_kong,
        last_tile: input.last_tile,
        seat_wind: input.seat_wind,
        round_wind: input.round_wind,
        flowers: input.flowers,
    };
    mcr::score(&ctx, &opts).map_err(|e| e.to_string())
}

/// A meld from `{"kind": "chow"|"pung"|"kong", "tiles", "claimed"?, "concealed"?}`.
fn meld(m: &MeldInput) -> Result<Meld, String> {
    let tiles = parse_tiles(&m.tiles).map_err(|e| e.to_string())?;
    let claimed = match &m.claimed {
        Some(c) => Some(
            c.trim()
                .parse::<Tile>()
                .map_err(|e| format!("claimed: {e}"))?,
        ),
        None => None,
    };
    let (want, kong_kind) = match m.kind.as_str() {
        "chow" => (MeldKind::Chow, KongKind::Exposed),
        "pung" => (MeldKind::Pung, KongKind::Exposed),
        "kong" if m.concealed => (MeldKind::Kong(KongKind::Concealed), KongKind::Concealed),
        "kong" => (MeldKind::Kong(KongKind::Exposed), KongKind::Exposed),
        other => {
            return Err(format!(
                "kind '{other}' is not a meld kind (chow, pung or kong)"
            ));
        }
    };
    if m.concealed && want != MeldKind::Kong(KongKind::Concealed) {
        return Err(format!(
            "only a kong can be declared concealed, not a {}",
            m.kind
        ));
    }
    let claimed = if kong_kind == KongKind::Concealed {
        None
    } else {
        claimed
    };
    let meld = Meld::from_tiles(&tiles, kong_kind, claimed, None).map_err(|e| e.to_string())?;
    if meld.kind != want {
        return Err(format!("'{}' is not a {}", m.tiles, m.kind));
    }
    Ok(meld)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_one(line: &str) -> Result<Breakdown, String> {
        one(line, &McrOptions::default())
    }

    fn ids(b: &Breakdown) -> Vec<(u8, u8)> {
        b.fans.iter().map(|f| (f.id, f.count)).collect()
    }

    #[test]
    fn scores_a_line_with_defaults() {
        let b = run_one(
            r#"{"concealed":"345p45s678s99p","melds":[{"kind":"chow","tiles":"234m","claimed":"2m"}],"win_tile":"6s"}"#,
        )
        .unwrap();
        assert_eq!(ids(&b), [(50, 1), (63, 1)]);
        assert_eq!((b.total, b.valid), (8, true));
        let json = serde_json::to_string(&Output {
            total: b.total,
            valid: b.valid,
            fans: &b.fans,
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"total":8,"valid":true,"fans":[{"id":50,"name":"三色三步高","en":"Mixed Shifted Chows","points":6,"count":1},{"id":63,"name":"平和","en":"All Chows","points":2,"count":1}]}"#
        );
    }

    #[test]
    fn reads_every_field() {
        let b = run_one(
            r#"{"concealed":"234m678m23s88s","melds":[{"kind":"kong","tiles":"5555p"}],"win_tile":"4s",
                "self_drawn":true,"on_kong":true,"last_tile":true,"seat_wind":"S","round_wind":"W","flowers":2}"#,
        )
        .unwrap();
        assert_eq!(
            ids(&b),
            [(44, 1), (46, 1), (68, 1), (70, 1), (74, 1), (81, 2)]
        );
        assert_eq!(b.total, 22);
        let b = run_one(
            r#"{"concealed":"234m678m23s88s","melds":[{"kind":"kong","tiles":"5555p"}],"win_tile":"4s",
                "self_drawn":true,"on_kong":true,"last_tile":true,
                "options":{"kong_flower_with_last_tile_draw":false,"min_points":30}}"#,
        )
        .unwrap();
        assert_eq!(ids(&b), [(44, 1), (68, 1), (70, 1), (74, 1)]);
        assert!(!b.valid);
    }

    #[test]
    fn concealed_kongs_and_mixed_kong_flag() {
        let line = r#"{"concealed":"234m23s88s","melds":[{"kind":"kong","tiles":"5555p"},{"kind":"kong","tiles":"1111m","concealed":true}],"win_tile":"4s"}"#;
        let b = run_one(line).unwrap();
        assert_eq!(b.count(67), 1);
        assert_eq!(b.count(74), 1);
        let opts = McrOptions {
            mixed_kong_5: true,
            ..McrOptions::default()
        };
        let b = one(line, &opts).unwrap();
        assert_eq!((b.count(82), b.count(67), b.count(74)), (1, 0, 0));
    }

    #[test]
    fn bad_lines_are_errors() {
        let cases = [
            ("not json", "expected"),
            (r#"{"win_tile":"1m"}"#, "missing field `concealed`"),
            (r#"{"concealed":"123m"}"#, "missing field `win_tile`"),
            (r#"{"concealed":"12x","win_tile":"1m"}"#, "'x'"),
            (
                r#"{"concealed":"1112345678999m","win_tile":"1f"}"#,
                "flower",
            ),
            (
                r#"{"concealed":"1112345678999m","win_tile":"5m","seat_wind":"Q"}"#,
                "unknown variant",
            ),
            (
                r#"{"concealed":"1112345678999m","win_tile":"5m","flowers":9}"#,
                "only eight",
            ),
            (
                r#"{"concealed":"1112345678999m","win_tile":"5p"}"#,
                "not a complete hand",
            ),
            (
                r#"{"concealed":"111123456789m9p","win_tile":"1m"}"#,
                "more than four copies",
            ),
            (r#"{"concealed":"123m","win_tile":"1m"}"#, "wrong hand size"),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"pung","tiles":"999m","concealed":true}],"win_tile":"5m"}"#,
                "only a kong",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"chow","tiles":"999m"}],"win_tile":"5m"}"#,
                "is not a chow",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"set","tiles":"999m"}],"win_tile":"5m"}"#,
                "not a meld kind",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"pung","tiles":"999m"}],"win_tile":"5m","self_drawn":true,"robbing_kong":true}"#,
                "cannot be self-drawn",
            ),
            (
                r#"{"concealed":"1112345678m","melds":[{"kind":"pung","tiles":"999m"}],"win_tile":"5m","on_kong":true}"#,
                "self-drawn win",
            ),
        ];
        for (line, want) in cases {
            let err = run_one(line).unwrap_err();
            assert!(err.contains(want), "{line}: {err}");
        }
    }
}
