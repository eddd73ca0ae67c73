//! `tongcheng fan`: Chinese Official fan breakdowns of hands given as JSON lines on stdin.
//! With `--rules hangzhou` (or `hangzhou-mil`) it scores Hangzhou wins instead; see
//! [`HzInput`] for the extra fields and [`HzOutput`] for the answer.
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
use tongcheng_core::rules::{RuleSet, WildRule};
use tongcheng_core::score::hangzhou::{self, Element, HzShape, HzWin, Liable};
use tongcheng_core::score::mcr::{self, Breakdown, McrOptions, WinContext};
use tongcheng_core::seat::Seat;
use tongcheng_core::seat::Wind;
use tongcheng_core::tile::{Tile, TileCounts, parse_hand_tiles, parse_tiles};

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
    /// Rule set preset: guobiao (Chinese Official), hangzhou or hangzhou-mil.
    #[arg(long, default_value = "guobiao")]
    rules: String,
    /// Hangzhou doubling table: score 4个白板 (all four 白 held, or the rest discarded as
    /// 财飘; give them as `wilds_discarded`) ×2 instead of 爆头 for four held.
    #[arg(long)]
    four_whites: bool,
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
    let mut rules = RuleSet::preset(&args.rules).ok_or_else(|| {
        io::Error::other(format!(
            "unknown rules '{}' (known: {})",
            args.rules,
            RuleSet::preset_names().join(", ")
        ))
    })?;
    if let tongcheng_core::rules::Scoring::Hangzhou(h) = &mut rules.scoring {
        h.four_whites_bonus = args.four_whites;
    } else if args.four_whites {
        return Err(io::Error::other("--four-whites needs Hangzhou rules"));
    }
    if rules.hangzhou_scoring().is_some() {
        return run_hangzhou(&rules);
    }
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

/// One Hangzhou input line: the guobiao fields `concealed` (wilds included), `melds`,
/// `win_tile`, `self_drawn` (default true here), plus the wild, the 飘 count, the kong run,
/// the seats and the dealer level.
#[derive(Deserialize)]
struct HzInput {
    concealed: String,
    #[serde(default)]
    melds: Vec<MeldInput>,
    win_tile: String,
    #[serde(default = "yes")]
    self_drawn: bool,
    /// The wild kind (default: 5z, the 白板 财神; for a flipped wild, its face).
    #[serde(default)]
    wild: Option<String>,
    /// 翻财神: 白 plays as the wild's face (default: true when the wild is not 白); a meld
    /// showing the face then holds a 白 there.
    #[serde(default)]
    white_plays_wild_face: Option<bool>,
    /// Consecutive wild discards (财飘) before the win.
    #[serde(default)]
    piao: u8,
    /// Kongs in the unbroken run that led to the win.
    #[serde(default)]
    kongs: u8,
    /// The winning tile is a kong replacement (杠开).
    #[serde(default)]
    on_kong: bool,
    /// A 十风 win; `true` when a 白 was among the ten honors.
    #[serde(default)]
    ten_honors: Option<bool>,
    /// Wilds the winner discarded earlier in the hand (for `--four-whites`).
    #[serde(default)]
    wilds_discarded: u8,
    /// Seats 0–3: the winner, the dealer, the discarder (discard wins).
    #[serde(default = "one_seat")]
    winner: u8,
    #[serde(default)]
    dealer: u8,
    #[serde(default)]
    discarder: Option<u8>,
    /// The dealer's level (老庄) 1–3: multiplier 2, 4, 8.
    #[serde(default = "one_level")]
    dealer_level: u8,
    /// `{"contract": seat}` (承包) or `{"reverse": seat}` (反承包).
    #[serde(default)]
    liable: Option<Liable>,
}

fn yes() -> bool {
    true
}

fn one_seat() -> u8 {
    1
}

fn one_level() -> u8 {
    1
}

/// One Hangzhou answer line.
#[derive(Serialize)]
struct HzOutput {
    shape: HzShape,
    baotou: bool,
    wilds: u8,
    elements: Vec<Element>,
    /// Fan sum before the cap (MIL table; 0 with the doubling table).
    fans: u32,
    /// The hand multiplier M (after the cap).
    multiplier: u32,
    capped: bool,
    /// N = 2^level, applied between the dealer and a non-dealer.
    dealer_multiplier: i64,
    /// Score change per seat 0–3 (base 1); sums to zero.
    payments: [i32; 4],
}

fn run_hangzhou(rules: &RuleSet) -> io::Result<()> {
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
            match one_hangzhou(text, rules) {
                Ok(o) => {
                    serde_json::to_writer(&mut out, &o)?;
                    out.write_all(b"\n")?;
                }
                Err(e) => write_error(&mut out, &e)?,
            }
        }
        if input.buffer().is_empty() {
            out.flush()?;
        }
    }
    out.flush()
}

fn seat(n: u8, what: &str) -> Result<Seat, String> {
    if n > 3 {
        return Err(format!("{what}: seat {n} does not exist (seats are 0–3)"));
    }
    Ok(Seat(n))
}

/// Scores one Hangzhou line.
fn one_hangzhou(text: &str, rules: &RuleSet) -> Result<HzOutput, String> {
    let input: HzInput = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let opts = rules.hangzhou_scoring().ok_or("not a Hangzhou rule set")?;
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
    let mut melds = input
        .melds
        .iter()
        .enumerate()
        .map(|(i, m)| meld(m).map_err(|e| format!("meld {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let wild: Tile = match &input.wild {
        Some(w) => w.trim().parse().map_err(|e| format!("wild: {e}"))?,
        None if rules.wild == WildRule::None => return Err("these rules have no wild".into()),
        None => Tile::WHITE,
    };
    let white_as = match input.white_plays_wild_face {
        Some(false) => None,
        _ if wild == Tile::WHITE => None,
        _ => Some(wild),
    };
    // Wilds are never melded: under a flipped wild a meld showing its face holds 白 there.
    if let Some(face) = white_as {
        for m in &mut melds {
            m.whites = m.tiles().iter().filter(|&&x| x == face).count() as u8;
        }
    }
    let mut counts = TileCounts::from_tiles(&concealed);
    // The winning tile is part of `concealed` when it lists 14 tiles; else it is added.
    if counts.total() + 3 * melds.len() == 13 {
        counts.add(win_tile);
    }
    if counts.get(win_tile) == 0 {
        return Err("win_tile is not in the hand".into());
    }
    if let Some(t) = counts.over_four() {
        return Err(format!("more than four copies of {t}"));
    }
    if counts.get(wild) + input.wilds_discarded > 4 {
        return Err(format!(
            "wilds_discarded: {} held and {} discarded is more than four {wild}",
            counts.get(wild),
            input.wilds_discarded
        ));
    }
    let winner = seat(input.winner, "winner")?;
    let dealer = seat(input.dealer, "dealer")?;
    let discarder = input.discarder.map(|d| seat(d, "discarder")).transpose()?;
    if discarder == Some(winner) {
        return Err("the winner cannot be the discarder".into());
    }
    let self_drawn = input.self_drawn && discarder.is_none();
    let s = hangzhou::score(
        &HzWin {
            concealed: &counts,
            melds: &melds,
            win_tile,
            wild: Some(wild),
            white_as,
            self_drawn,
            piao: input.piao,
            kongs: input.kongs,
            on_kong: input.on_kong,
            ten_honors: input.ten_honors,
            wilds_discarded: input.wilds_discarded,
        },
        opts,
    )
    .map_err(|e| e.to_string())?;
    let level = input.dealer_level.min(rules.dealer_max_level.max(1));
    let payments = hangzhou::payments(s.multiplier, winner, dealer, level, discarder, input.liable);
    Ok(HzOutput {
        shape: s.shape,
        baotou: s.baotou,
        wilds: s.wilds,
        elements: s.elements,
        fans: s.fans,
        multiplier: s.multiplier,
        capped: s.capped,
        dealer_multiplier: hangzhou::dealer_multiplier(level),
        payments,
    })
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

    fn hz(line: &str, rules: &RuleSet) -> HzOutput {
        one_hangzhou(line, rules).unwrap()
    }

    #[test]
    fn hangzhou_worked_examples() {
        let house = RuleSet::hangzhou();
        let mil = RuleSet::hangzhou_mil();
        // H1: non-dealer self-draw at L1.
        let h1 = r#"{"concealed":"123m456m789p234s5s","win_tile":"5s"}"#;
        assert_eq!(hz(h1, &house).payments, [-2, 4, -1, -1]);
        let m = hz(h1, &mil);
        assert_eq!((m.fans, m.multiplier, m.payments), (1, 2, [-4, 8, -2, -2]));
        // H1 on the dealer's discard at L3 (庄三放炮).
        let d =
            r#"{"concealed":"123m456m789p234s5s","win_tile":"5s","discarder":0,"dealer_level":3}"#;
        assert_eq!(hz(d, &house).payments, [-10, 10, 0, 0]);
        // H2: dealer 爆头 at L2.
        let h2 =
            r#"{"concealed":"123m456m789p234s5z","win_tile":"9s","winner":0,"dealer_level":2}"#;
        let o = hz(h2, &house);
        assert!(o.baotou);
        assert_eq!((o.multiplier, o.payments), (2, [24, -8, -8, -8]));
        assert_eq!(hz(h2, &mil).payments, [24, -8, -8, -8]);
        // H3: 财飘.
        let h3 = r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","piao":1}"#;
        assert_eq!(hz(h3, &house).payments, [-8, 16, -4, -4]);
        assert_eq!(hz(h3, &mil).payments, [-8, 16, -4, -4]);
        // H4: 杠暴 and 杠飘.
        let gb = r#"{"concealed":"123m456m234s5z","melds":[{"kind":"kong","tiles":"9999p","concealed":true}],"win_tile":"5z","kongs":1,"on_kong":true}"#;
        assert_eq!(hz(gb, &house).payments, [-8, 16, -4, -4]);
        assert_eq!(hz(gb, &mil).payments, [-8, 16, -4, -4]);
        let gp = r#"{"concealed":"123m456m234s5z","melds":[{"kind":"kong","tiles":"9999p","concealed":true}],"win_tile":"5m","kongs":1,"piao":1}"#;
        assert_eq!(hz(gp, &house).payments, [-16, 32, -8, -8]);
        assert_eq!(hz(gp, &mil).payments, [-8, 16, -4, -4]);
        // H5: 豪华七对 爆头, dealer at L3; liability on the non-dealer version.
        let h5 =
            r#"{"concealed":"1111m22p33p66s77s5z","win_tile":"9s","winner":0,"dealer_level":3}"#;
        let o = hz(h5, &house);
        assert_eq!((o.multiplier, o.payments), (8, [192, -64, -64, -64]));
        let o = hz(h5, &mil);
        assert_eq!((o.fans, o.multiplier, o.capped), (5, 16, true));
        assert_eq!(o.payments, [384, -128, -128, -128]);
        let nd = r#"{"concealed":"1111m22p33p66s77s5z","win_tile":"9s","dealer_level":3,"liable":{"contract":0}}"#;
        assert_eq!(hz(nd, &house).payments, [-80, 80, 0, 0]);
        let rv = r#"{"concealed":"1111m22p33p66s77s5z","win_tile":"9s","dealer_level":3,"liable":{"reverse":0}}"#;
        assert_eq!(hz(rv, &house).payments, [-160, 160, 0, 0]);
        // 4个白板 (--four-whites): one 白 held, three discarded, on top of 爆头 and 双财飘.
        let mut egb = RuleSet::hangzhou();
        if let tongcheng_core::rules::Scoring::Hangzhou(h) = &mut egb.scoring {
            h.four_whites_bonus = true;
        }
        let four =
            r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","piao":2,"wilds_discarded":3}"#;
        assert_eq!(hz(four, &house).multiplier, 8);
        assert_eq!(hz(four, &egb).multiplier, 16);
        let five = r#"{"concealed":"123m456m789p234s5z","win_tile":"7p","wilds_discarded":4}"#;
        assert!(one_hangzhou(five, &egb).is_err_and(|e| e.contains("more than four")));
        // 翻财神 (5m wild, 白 plays 5m): a chow 456m holds a 白, so it is no wild in a meld.
        let flip = r#"{"concealed":"123p456p789s1z","melds":[{"kind":"chow","tiles":"456m"}],"win_tile":"1z","wild":"5m"}"#;
        assert_eq!(hz(flip, &house).multiplier, 1);
        let json = serde_json::to_string(&hz(h3, &house)).unwrap();
        assert!(json.contains(r#""key":"cai_piao","zh":"财飘""#), "{json}");
        assert!(
            one_hangzhou(
                r#"{"concealed":"123m456m789p235s5s","win_tile":"5s"}"#,
                &house
            )
            .is_err()
        );
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
