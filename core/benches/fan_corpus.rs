//! Fan scoring side by side with the reference C++ calculator (ChineseOfficialMahjongHelper):
//! one corpus file of varied winning hands, timed the same way by both.
//!
//! - `cargo bench -p tongcheng-core --bench fan_corpus -- --write FILE` writes the corpus: one
//!   hand a line, `kind<TAB>hand<TAB>win_flag<TAB>flowers<TAB>prevalent<TAB>seat`, the hand in
//!   the reference's notation (melds in brackets — a kong without a digit is concealed — then the
//!   concealed tiles, the winning tile last; honors `ESWN` and `CFP` for 中发白), `win_flag` its
//!   bits (1 self-drawn, 2 last copy, 4 kong involved, 8 last wall tile), winds 0–3 = E S W N.
//! - `cargo bench -p tongcheng-core --bench fan_corpus -- --time FILE` reads a corpus file and
//!   times our scoring of each hand; without `--time` it times the corpus it would write.
//!
//! Method (the C++ harness in scripts/fan_reference does the same; see docs/performance.md):
//! every hand is parsed first, outside the timing. Then `ROUNDS` passes over the corpus; in
//! each pass every hand is scored `REPS` times in a row and the mean of those is that hand's
//! time in that pass. A hand's figure is its median over the passes; printed are the median
//! over the hands of each kind and over all, and the streaming time (one call per hand through
//! the whole corpus, mean per hand, median over the passes).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tongcheng_core::hand::{KongKind, Meld, MeldKind, is_complete_counts};
use tongcheng_core::score::mcr::{McrOptions, WinContext, score};
use tongcheng_core::seat::Wind;
use tongcheng_core::tile::{KINDS, Tile, TileCounts};

const HANDS_PER_KIND: usize = 250;
const ROUNDS: usize = 9;
const REPS: u32 = 50;

/// One corpus line, parsed.
struct Hand {
    kind: String,
    concealed: Vec<Tile>,
    melds: Vec<Meld>,
    win: Tile,
    flag: u8,
    flowers: u8,
    prevalent: Wind,
    seat: Wind,
}

impl Hand {
    fn ctx(&self) -> WinContext<'_> {
        let self_drawn = self.flag & 1 != 0;
        let kong = self.flag & 4 != 0;
        WinContext {
            self_drawn,
            last_copy: self.flag & 2 != 0,
            on_kong: kong && self_drawn,
            robbing_kong: kong && !self_drawn,
            last_tile: self.flag & 8 != 0,
            seat_wind: self.seat,
            round_wind: self.prevalent,
            flowers: self.flowers,
            ..WinContext::new(&self.concealed, &self.melds, self.win)
        }
    }
}

/// Our kind index (0–33: 1–9m, 1–9p, 1–9s, E S W N White Green Red) in the reference notation.
fn tile_text(k: usize) -> String {
    match k {
        0..=26 => format!("{}{}", k % 9 + 1, ['m', 'p', 's'][k / 9]),
        _ => ["E", "S", "W", "N", "P", "F", "C"][k - 27].to_string(),
    }
}

fn parse_tiles(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut digits = Vec::new();
    for ch in s.chars() {
        match ch {
            '1'..='9' => digits.push(ch as usize - '1' as usize),
            'm' | 'p' | 's' => {
                let suit = "mps".find(ch).unwrap();
                out.extend(digits.drain(..).map(|d| suit * 9 + d));
            }
            _ => out.push(27 + "ESWNPFC".find(ch).expect("tile letter")),
        }
    }
    assert!(digits.is_empty(), "digits without a suit in {s}");
    out
}

fn parse_line(line: &str) -> Hand {
    let f: Vec<&str> = line.split('\t').collect();
    assert_eq!(f.len(), 6, "{line}");
    let mut rest = f[1];
    let mut melds = Vec::new();
    while let Some(open) = rest.find('[') {
        let close = rest.find(']').unwrap();
        let inner = &rest[open + 1..close];
        // A trailing digit after the suit letter (or an honor) is the meld's source.
        let (body, offer) = match inner.char_indices().last() {
            Some((i, c))
                if c.is_ascii_digit() && i > 0 && !inner[..i].ends_with(char::is_numeric) =>
            {
                (&inner[..i], Some(c))
            }
            _ => (inner, None),
        };
        let t = parse_tiles(body);
        let low = Tile::kind(*t.iter().min().unwrap());
        let meld = if t.len() == 4 {
            let kind = match offer {
                None => KongKind::Concealed,
                Some('5'..='7') => KongKind::Added,
                Some(_) => KongKind::Exposed,
            };
            Meld::kong(low, kind, None)
        } else if t[0] == t[1] {
            Meld::pung(low, None, None)
        } else {
            Meld::chow(low, None, None)
        };
        melds.push(meld.unwrap());
        rest = &rest[close + 1..];
    }
    let mut concealed: Vec<Tile> = parse_tiles(rest).into_iter().map(Tile::kind).collect();
    let win = concealed.pop().unwrap();
    let wind = |s: &str| Wind::from_index(s.parse().unwrap());
    Hand {
        kind: f[0].to_string(),
        concealed,
        melds,
        win,
        flag: f[2].parse().unwrap(),
        flowers: f[3].parse().unwrap(),
        prevalent: wind(f[4]),
        seat: wind(f[5]),
    }
}

/// What a generator returns: concealed counts with the winning tile, and melds (as
/// `(low kind, 0 chow / 1 pung / 2 exposed kong / 3 concealed kong)`).
type Drawn = ([u8; KINDS], Vec<(usize, u8)>);

/// A set for a regular hand within `suits` (a mask over m p s honors): a chow (when the kind
/// allows) or a pung.
fn random_set(rng: &mut ChaCha8Rng, suits: u8, chows: f64) -> (usize, bool) {
    loop {
        let g = rng.gen_range(0..4);
        if suits & (1 << g) == 0 {
            continue;
        }
        if g < 3 && rng.gen_bool(chows) {
            return (g * 9 + rng.gen_range(0..7), true);
        }
        let k = if g < 3 {
            g * 9 + rng.gen_range(0..9)
        } else {
            27 + rng.gen_range(0..7)
        };
        return (k, false);
    }
}

/// A regular hand (four sets and a pair), styled by a random choice of suits, with `melds`
/// of the sets declared.
fn regular(rng: &mut ChaCha8Rng, melds: usize) -> Drawn {
    let suits = *[0b1111u8, 0b1111, 0b0111, 0b1001, 0b0001, 0b1010, 0b1000]
        .choose(rng)
        .unwrap();
    let chows = *[0.0, 0.5, 0.7, 1.0].choose(rng).unwrap();
    let mut c = [0u8; KINDS];
    let mut out = Vec::new();
    for n in 0..4 {
        let (k, chow) = random_set(rng, suits, chows);
        if n < melds {
            let kind = if chow {
                0
            } else {
                *[1u8, 1, 2, 3].choose(rng).unwrap()
            };
            out.push((k, kind));
        } else if chow {
            (0..3).for_each(|d| c[k + d] += 1);
        } else {
            c[k] += 3;
        }
    }
    let (pair, _) = random_set(rng, suits, 0.0);
    c[pair] += 2;
    (c, out)
}

fn knit_tiles(rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut suits = [0usize, 1, 2];
    suits.shuffle(rng);
    (0..3)
        .flat_map(|p| (0..3).map(move |j| suits[p] * 9 + p + 3 * j))
        .collect()
}

/// Hands of well-known high-scoring patterns.
fn big(rng: &mut ChaCha8Rng) -> Drawn {
    let mut c = [0u8; KINDS];
    let mut melds = Vec::new();
    let suit = rng.gen_range(0..3) * 9;
    match rng.gen_range(0..8) {
        // Big four winds, big three dragons, all honors.
        0 => {
            (27..31).for_each(|k| c[k] = 3);
            c[rng.gen_range(31..34)] = 2;
        }
        1 => {
            (31..34).for_each(|k| c[k] = 3);
            let low = suit + rng.gen_range(0..7);
            (0..3).for_each(|d| c[low + d] += 1);
            c[27 + rng.gen_range(0..4)] += 2;
        }
        2 => {
            let mut h: Vec<usize> = (27..34).collect();
            h.shuffle(rng);
            h[..4].iter().for_each(|&k| c[k] = 3);
            c[h[4]] = 2;
        }
        // Nine gates: 1112345678999 and one more of the suit.
        3 => {
            c[suit..suit + 9].copy_from_slice(&[3, 1, 1, 1, 1, 1, 1, 1, 3]);
            c[suit + rng.gen_range(0..9)] += 1;
        }
        // All green.
        4 => {
            let greens = [19, 20, 21, 23, 25, 32];
            c[19] += 1;
            c[20] += 1;
            c[21] += 1;
            for &k in &[23, 25, 32] {
                c[k] += 3;
            }
            c[*greens.choose(rng).unwrap()] += 2;
        }
        // Four kongs.
        5 => {
            let mut ks: Vec<usize> = (0..KINDS).collect();
            ks.shuffle(rng);
            for &k in &ks[..4] {
                melds.push((k, *[2u8, 3].choose(rng).unwrap()));
            }
            c[ks[4]] = 2;
        }
        // Four concealed pungs.
        6 => {
            let mut ks: Vec<usize> = (0..KINDS).collect();
            ks.shuffle(rng);
            ks[..4].iter().for_each(|&k| c[k] = 3);
            c[ks[4]] = 2;
        }
        // Pure terminals / all terminals and honors.
        _ => {
            let mut ks: Vec<usize> = vec![0, 8, 9, 17, 18, 26];
            if rng.gen_bool(0.5) {
                ks.extend(27..34);
            }
            ks.shuffle(rng);
            ks[..4].iter().for_each(|&k| c[k] = 3);
            c[ks[4]] = 2;
        }
    }
    (c, melds)
}

fn draw(rng: &mut ChaCha8Rng, kind: &str) -> Drawn {
    let mut c = [0u8; KINDS];
    match kind {
        "regular_concealed" => regular(rng, 0),
        "regular_melded" => {
            let m = rng.gen_range(1..=4);
            regular(rng, m)
        }
        "seven_pairs" => {
            let mut ks: Vec<usize> = (0..KINDS).collect();
            ks.shuffle(rng);
            ks[..7].iter().for_each(|&k| c[k] = 2);
            (c, vec![])
        }
        "seven_shifted_pairs" => {
            let low = rng.gen_range(0..3) * 9 + rng.gen_range(0..3);
            (low..low + 7).for_each(|k| c[k] = 2);
            (c, vec![])
        }
        "thirteen_orphans" => {
            let orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
            orphans.iter().for_each(|&k| c[k] = 1);
            c[*orphans.choose(rng).unwrap()] += 1;
            (c, vec![])
        }
        "honors_knitted" | "greater_honors_knitted" => {
            let honors = if kind == "honors_knitted" {
                rng.gen_range(5..=6)
            } else {
                7
            };
            let knit = knit_tiles(rng);
            knit.choose_multiple(rng, 14 - honors)
                .for_each(|&k| c[k] = 1);
            let all: Vec<usize> = (27..34).collect();
            all.choose_multiple(rng, honors).for_each(|&k| c[k] = 1);
            (c, vec![])
        }
        "knitted_straight" => {
            knit_tiles(rng).iter().for_each(|&k| c[k] = 1);
            let mut melds = vec![];
            let (k, chow) = random_set(rng, 0b1111, 0.5);
            if rng.gen_bool(0.3) {
                melds.push((k, if chow { 0 } else { 1 }));
            } else if chow {
                (0..3).for_each(|d| c[k + d] += 1);
            } else {
                c[k] += 3;
            }
            c[rng.gen_range(0..KINDS)] += 2;
            (c, melds)
        }
        _ => big(rng),
    }
}

const KINDS_OF_HAND: [&str; 9] = [
    "regular_concealed",
    "regular_melded",
    "seven_pairs",
    "seven_shifted_pairs",
    "thirteen_orphans",
    "honors_knitted",
    "greater_honors_knitted",
    "knitted_straight",
    "big_fan",
];

/// The corpus: `HANDS_PER_KIND` complete hands of each kind, with random win conditions.
fn corpus_lines() -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x14f4);
    let mut lines = Vec::new();
    for kind in KINDS_OF_HAND {
        let mut n = 0;
        while n < HANDS_PER_KIND {
            let (c, melds) = draw(&mut rng, kind);
            let mut used = [0u8; KINDS];
            for &(k, m) in &melds {
                match m {
                    0 => (0..3).for_each(|d| used[k + d] += 1),
                    1 => used[k] += 3,
                    _ => used[k] += 4,
                }
            }
            if (0..KINDS).any(|i| c[i] + used[i] > 4)
                || !is_complete_counts(&TileCounts(c), melds.len())
            {
                continue;
            }
            let tiles = TileCounts(c).tiles();
            let win = tiles.choose(&mut rng).unwrap().index();
            let mut c13 = c;
            c13[win] -= 1;
            let mut text = String::new();
            for &(k, m) in &melds {
                let body = match m {
                    0 => (0..3).map(|d| tile_text(k + d)).collect::<String>(),
                    1 => tile_text(k).repeat(3),
                    _ => tile_text(k).repeat(4),
                };
                // Exposed melds say who gave the tile (1–3); a concealed kong says nothing.
                let offer = if m == 3 {
                    String::new()
                } else {
                    rng.gen_range(1..=3).to_string()
                };
                text += &format!("[{body}{offer}]");
            }
            for (k, &x) in c13.iter().enumerate() {
                for _ in 0..x {
                    text += &tile_text(k);
                }
            }
            text += &tile_text(win);
            let self_drawn = rng.gen_bool(0.4);
            let mut flag = u8::from(self_drawn);
            // Flags only where they can be true: the last copy of a tile not held elsewhere; a
            // kong's replacement with a kong declared; robbing a kong of a tile not held.
            if c13[win] == 0 && used[win] == 0 && rng.gen_bool(0.15) {
                flag |= 2;
            }
            let has_kong = melds.iter().any(|&(_, m)| m >= 2);
            if (self_drawn && has_kong && rng.gen_bool(0.3))
                || (!self_drawn
                    && c13[win] == 0
                    && used[win] == 0
                    && flag & 2 == 0
                    && rng.gen_bool(0.05))
            {
                flag |= 4;
            }
            if rng.gen_bool(0.05) {
                flag |= 8;
            }
            lines.push(format!(
                "{kind}\t{text}\t{flag}\t{}\t{}\t{}",
                rng.gen_range(0..4),
                rng.gen_range(0..4),
                rng.gen_range(0..4)
            ));
            n += 1;
        }
    }
    lines
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time(hands: &[Hand]) {
    let opts = McrOptions::default();
    let ctxs: Vec<WinContext> = hands.iter().map(Hand::ctx).collect();
    for (h, ctx) in hands.iter().zip(&ctxs) {
        score(ctx, &opts).unwrap_or_else(|e| panic!("{}: {e}", h.kind));
    }
    let mut per_hand = vec![Vec::with_capacity(ROUNDS); hands.len()];
    let mut streaming = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for ctx in &ctxs {
            black_box(score(black_box(ctx), &opts).unwrap());
        }
        streaming.push(start.elapsed().as_nanos() as f64 / ctxs.len() as f64);
        for (i, ctx) in ctxs.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..REPS {
                black_box(score(black_box(ctx), &opts).unwrap());
            }
            per_hand[i].push(start.elapsed().as_nanos() as f64 / REPS as f64);
        }
    }
    let figures: Vec<f64> = per_hand.iter_mut().map(|v| median(v)).collect();
    let mut by_kind: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (h, &f) in hands.iter().zip(&figures) {
        by_kind.entry(&h.kind).or_default().push(f);
    }
    for (kind, v) in &mut by_kind {
        println!("ours\t{kind}\t{}\t{:.0}", v.len(), median(v));
    }
    let mut all = figures.clone();
    println!("ours\tall\t{}\t{:.0}", all.len(), median(&mut all));
    println!(
        "ours\tstreaming\t{}\t{:.0}",
        hands.len(),
        median(&mut streaming)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    if let Some(path) = arg("--write") {
        let lines = corpus_lines();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        println!("wrote {} hands to {path}", lines.len());
        return;
    }
    let text = match arg("--time") {
        Some(path) => std::fs::read_to_string(path).unwrap(),
        None => corpus_lines().join("\n"),
    };
    // `--kind K` keeps one kind of hand (for profiling).
    let only = arg("--kind");
    let hands: Vec<Hand> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(parse_line)
        .filter(|h| only.as_ref().is_none_or(|k| *k == h.kind))
        .collect();
    // The melds read back are what was written: a check of the notation both sides read.
    assert!(hands.iter().all(|h| {
        h.melds
            .iter()
            .all(|m| m.kind != MeldKind::Chow || m.tile.index() < 27)
    }));
    time(&hands);
}
