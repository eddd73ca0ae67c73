//! Tiles and their notation.
//!
//! A [`Tile`] is one byte: kinds 0–33 are the playing tiles (9 characters, 9 dots, 9 bamboo,
//! 4 winds, 3 dragons) and 34–41 the eight flowers. The text notation (the README's):
//! digits followed by a suit letter (`m` 万, `p` 饼, `s` 条, `z` honors, `f` flowers), e.g.
//! `123m456p789s1122z`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Number of playing tile kinds (suits and honors, no flowers).
pub const KINDS: usize = 34;
/// Number of flower tiles (one copy each).
pub const FLOWERS: usize = 8;

/// The four suits of playing tiles plus flowers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    /// 万 characters, letter `m`.
    Characters,
    /// 饼 dots, letter `p`.
    Dots,
    /// 条 bamboo, letter `s`.
    Bamboo,
    /// Winds and dragons, letter `z`.
    Honors,
    /// 花 flowers and seasons, letter `f`.
    Flowers,
}

impl Suit {
    /// The notation letter.
    pub const fn letter(self) -> char {
        match self {
            Suit::Characters => 'm',
            Suit::Dots => 'p',
            Suit::Bamboo => 's',
            Suit::Honors => 'z',
            Suit::Flowers => 'f',
        }
    }

    fn from_letter(c: char) -> Option<Suit> {
        Some(match c {
            'm' => Suit::Characters,
            'p' => Suit::Dots,
            's' => Suit::Bamboo,
            'z' => Suit::Honors,
            'f' => Suit::Flowers,
            _ => return None,
        })
    }

    /// Highest rank in this suit.
    const fn max_rank(self) -> u8 {
        match self {
            Suit::Honors => 7,
            Suit::Flowers => 8,
            _ => 9,
        }
    }

    const fn base(self) -> u8 {
        match self {
            Suit::Characters => 0,
            Suit::Dots => 9,
            Suit::Bamboo => 18,
            Suit::Honors => 27,
            Suit::Flowers => 34,
        }
    }
}

/// One tile, by kind. Copies of a kind are not distinguished.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile(u8);

impl Tile {
    /// East wind 东.
    pub const EAST: Tile = Tile(27);
    /// South wind 南.
    pub const SOUTH: Tile = Tile(28);
    /// West wind 西.
    pub const WEST: Tile = Tile(29);
    /// North wind 北.
    pub const NORTH: Tile = Tile(30);
    /// White dragon 白 (`5z`), the Hangzhou 财神.
    pub const WHITE: Tile = Tile(31);
    /// Green dragon 发 (`6z`).
    pub const GREEN: Tile = Tile(32);
    /// Red dragon 中 (`7z`).
    pub const RED: Tile = Tile(33);

    /// The tile with index `index` (0–41), if any.
    pub const fn from_index(index: u8) -> Option<Tile> {
        if (index as usize) < KINDS + FLOWERS {
            Some(Tile(index))
        } else {
            None
        }
    }

    /// The playing tile (not a flower) with index 0–33. Panics on larger values: for tables
    /// and loops over `0..KINDS`, where the index is known to be in range.
    pub const fn kind(index: usize) -> Tile {
        assert!(index < KINDS);
        Tile(index as u8)
    }

    /// A tile of `suit` with `rank` (1-based), if that tile exists.
    pub const fn new(suit: Suit, rank: u8) -> Option<Tile> {
        if rank == 0 || rank > suit.max_rank() {
            None
        } else {
            Some(Tile(suit.base() + rank - 1))
        }
    }

    /// The index: 0–33 for playing tiles, 34–41 for flowers.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The suit.
    pub const fn suit(self) -> Suit {
        match self.0 {
            0..=8 => Suit::Characters,
            9..=17 => Suit::Dots,
            18..=26 => Suit::Bamboo,
            27..=33 => Suit::Honors,
            _ => Suit::Flowers,
        }
    }

    /// The rank within the suit, 1-based (honors: 1 East … 7 Red; flowers 1–8).
    pub const fn rank(self) -> u8 {
        self.0 - self.suit().base() + 1
    }

    /// A suit tile (characters, dots or bamboo).
    pub const fn is_suited(self) -> bool {
        self.0 < 27
    }

    /// A wind or dragon.
    pub const fn is_honor(self) -> bool {
        self.0 >= 27 && self.0 < 34
    }

    /// East, South, West or North.
    pub const fn is_wind(self) -> bool {
        self.0 >= 27 && self.0 < 31
    }

    /// White, Green or Red dragon.
    pub const fn is_dragon(self) -> bool {
        self.0 >= 31 && self.0 < 34
    }

    /// A flower or season tile.
    pub const fn is_flower(self) -> bool {
        self.0 >= 34
    }

    /// A suit 1 or 9.
    pub const fn is_terminal(self) -> bool {
        self.is_suited() && (self.rank() == 1 || self.rank() == 9)
    }

    /// A terminal or an honor (幺九).
    pub const fn is_terminal_or_honor(self) -> bool {
        self.is_terminal() || self.is_honor()
    }

    /// The next tile of the same suit (suit tiles only), e.g. 4m → 5m.
    pub const fn next_in_suit(self) -> Option<Tile> {
        if self.is_suited() && self.rank() < 9 {
            Some(Tile(self.0 + 1))
        } else {
            None
        }
    }

    /// The tile offset by `delta` ranks within the same suit, if it exists.
    pub const fn offset(self, delta: i8) -> Option<Tile> {
        if !self.is_suited() {
            return None;
        }
        let r = self.rank() as i8 + delta;
        if r < 1 || r > 9 {
            None
        } else {
            Some(Tile((self.0 as i8 + delta) as u8))
        }
    }

    /// Chinese name, e.g. 五万, 东风, 白板, 春.
    pub fn name_zh(self) -> &'static str {
        const SUITED: [[&str; 9]; 3] = [
            [
                "一万", "二万", "三万", "四万", "五万", "六万", "七万", "八万", "九万",
            ],
            [
                "一饼", "二饼", "三饼", "四饼", "五饼", "六饼", "七饼", "八饼", "九饼",
            ],
            [
                "一条", "二条", "三条", "四条", "五条", "六条", "七条", "八条", "九条",
            ],
        ];
        const HONORS: [&str; 7] = ["东风", "南风", "西风", "北风", "白板", "发财", "红中"];
        const FLOWER_NAMES: [&str; 8] = ["春", "夏", "秋", "冬", "梅", "兰", "竹", "菊"];
        let r = self.rank() as usize - 1;
        match self.suit() {
            Suit::Characters => SUITED[0][r],
            Suit::Dots => SUITED[1][r],
            Suit::Bamboo => SUITED[2][r],
            Suit::Honors => HONORS[r],
            Suit::Flowers => FLOWER_NAMES[r],
        }
    }

    /// The name players say at the table: 五万 and 五饼 as [`Tile::name_zh`], but an honor
    /// by its one character (东 南 西 北 白 发 中); a flower as [`Tile::name_zh`].
    pub fn short_name_zh(self) -> &'static str {
        const HONORS: [&str; 7] = ["东", "南", "西", "北", "白", "发", "中"];
        match self.suit() {
            Suit::Honors => HONORS[self.rank() as usize - 1],
            _ => self.name_zh(),
        }
    }

    /// English name, e.g. "5 of Characters", "East Wind", "White Dragon", "Spring".
    pub fn name_en(self) -> String {
        const HONORS: [&str; 7] = [
            "East Wind",
            "South Wind",
            "West Wind",
            "North Wind",
            "White Dragon",
            "Green Dragon",
            "Red Dragon",
        ];
        const FLOWER_NAMES: [&str; 8] = [
            "Spring",
            "Summer",
            "Autumn",
            "Winter",
            "Plum",
            "Orchid",
            "Bamboo Flower",
            "Chrysanthemum",
        ];
        let r = self.rank() as usize;
        match self.suit() {
            // "5 of Characters": reads as one tile, where "1 Characters" does not.
            Suit::Characters => format!("{r} of Characters"),
            Suit::Dots => format!("{r} of Dots"),
            Suit::Bamboo => format!("{r} of Bamboo"),
            Suit::Honors => HONORS[r - 1].to_string(),
            Suit::Flowers => FLOWER_NAMES[r - 1].to_string(),
        }
    }

    /// Every playing tile kind, in notation order.
    pub fn all_kinds() -> impl Iterator<Item = Tile> {
        (0..KINDS as u8).map(Tile)
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank(), self.suit().letter())
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Exactly one tile in its two-character notation (`5m`, `7z`, `1f`): a digit and a suit
/// letter, nothing else — no spaces, no second tile.
impl std::str::FromStr for Tile {
    type Err = TileError;
    fn from_str(s: &str) -> Result<Tile, TileError> {
        match s.as_bytes() {
            [] => Err(TileError::Empty),
            &[d, l] if d.is_ascii_digit() => match Suit::from_letter(l as char) {
                Some(suit) => Tile::new(suit, d - b'0').ok_or(TileError::NoSuchTile {
                    digit: d as char,
                    suit: l as char,
                    pos: 0,
                }),
                None => Err(TileError::not_one_tile(s)),
            },
            _ => Err(TileError::not_one_tile(s)),
        }
    }
}

impl Serialize for Tile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Strict, as [`FromStr`](std::str::FromStr): exactly one tile, e.g. `"5m"`, no spaces.
impl<'de> Deserialize<'de> for Tile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Tile, D::Error> {
        struct TileVisitor;
        impl serde::de::Visitor<'_> for TileVisitor {
            type Value = Tile;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("one tile in notation, e.g. \"5m\"")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Tile, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(TileVisitor)
    }
}

/// Why a piece of tile notation was rejected. Positions count characters from 0.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    #[error("empty tile string")]
    Empty,
    #[error("unexpected character '{ch}' at position {pos} (expected a digit or one of m p s z f)")]
    BadChar { ch: char, pos: usize },
    #[error("suit letter '{ch}' at position {pos} has no digits before it")]
    SuitWithoutDigits { ch: char, pos: usize },
    #[error("digits at the end of the string have no suit letter (position {pos})")]
    MissingSuit { pos: usize },
    #[error("'{digit}{suit}' at position {pos} is not a tile")]
    NoSuchTile { digit: char, suit: char, pos: usize },
    #[error("a fifth copy of {tile} at position {pos}")]
    FifthCopy { tile: Tile, pos: usize },
    #[error("flower {tile} appears twice (position {pos})")]
    FlowerTwice { tile: Tile, pos: usize },
    #[error("flower {tile} at position {pos} cannot be part of a hand")]
    FlowerInHand { tile: Tile, pos: usize },
    #[error("expected exactly one tile (a digit and a suit letter, e.g. 5m), got '{0}'")]
    NotOneTile(String),
    #[error("more than {MAX_TILES} tiles (position {pos}): no hand or meld list holds that many")]
    TooManyTiles { pos: usize },
}

impl TileError {
    /// [`TileError::NotOneTile`] quoting at most the first 16 characters of `s`.
    fn not_one_tile(s: &str) -> TileError {
        let mut quoted: String = s.chars().take(16).collect();
        if quoted.len() < s.len() {
            quoted.push('…');
        }
        TileError::NotOneTile(quoted)
    }
}

/// The most tiles notation may list: every copy of every kind and every flower
/// (4 × 34 + 8). Parsing stops with [`TileError::TooManyTiles`] past it.
pub const MAX_TILES: usize = 4 * KINDS + FLOWERS;

/// Parses notation into tiles in the order written. Spaces between groups are allowed.
/// Rejects a fifth copy of a kind and a second copy of a flower.
///
/// Memory is bounded by the tiles, not the input: at most [`MAX_TILES`] tiles are kept
/// and pending digits are not copied, so a huge line costs one pass and no allocation
/// beyond the answer.
pub fn parse_tiles(s: &str) -> Result<Vec<Tile>, TileError> {
    parse(s, true)
}

/// Parses notation for a concealed hand: like [`parse_tiles`], but a flower is an error.
pub fn parse_hand_tiles(s: &str) -> Result<Vec<Tile>, TileError> {
    parse(s, false)
}

fn parse(s: &str, flowers: bool) -> Result<Vec<Tile>, TileError> {
    let mut out: Vec<Tile> = Vec::new();
    let mut counts = [0u8; KINDS + FLOWERS];
    // The pending digits are the ASCII run s[run_start..] up to the current character: only
    // where it starts (byte offset and character position) and how long it is are kept.
    let mut run_start = 0usize;
    let mut run_pos = 0usize;
    let mut run_len = 0usize;
    for (pos, (byte, ch)) in s.char_indices().enumerate() {
        if ch.is_ascii_digit() {
            if run_len == 0 {
                run_start = byte;
                run_pos = pos;
            }
            if out.len() + run_len >= MAX_TILES {
                return Err(TileError::TooManyTiles { pos });
            }
            run_len += 1;
        } else if let Some(suit) = Suit::from_letter(ch) {
            if run_len == 0 {
                return Err(TileError::SuitWithoutDigits { ch, pos });
            }
            let digits = &s.as_bytes()[run_start..run_start + run_len];
            for (k, &digit) in digits.iter().enumerate() {
                let dpos = run_pos + k;
                let tile = Tile::new(suit, digit - b'0').ok_or(TileError::NoSuchTile {
                    digit: digit as char,
                    suit: ch,
                    pos: dpos,
                })?;
                if tile.is_flower() && !flowers {
                    return Err(TileError::FlowerInHand { tile, pos: dpos });
                }
                let c = &mut counts[tile.index()];
                *c += 1;
                if tile.is_flower() && *c > 1 {
                    return Err(TileError::FlowerTwice { tile, pos: dpos });
                }
                if *c > 4 {
                    return Err(TileError::FifthCopy { tile, pos: dpos });
                }
                out.push(tile);
            }
            run_len = 0;
        } else if ch.is_whitespace() && run_len == 0 {
            continue;
        } else {
            return Err(TileError::BadChar { ch, pos });
        }
    }
    if run_len > 0 {
        return Err(TileError::MissingSuit { pos: run_pos });
    }
    if out.is_empty() {
        return Err(TileError::Empty);
    }
    Ok(out)
}

/// Writes tiles in notation, in the order given, grouping runs of one suit: `[1m,2m,5z]` → `12m5z`.
pub fn to_notation(tiles: &[Tile]) -> String {
    let mut s = String::with_capacity(tiles.len() * 2);
    for (i, t) in tiles.iter().enumerate() {
        s.push((b'0' + t.rank()) as char);
        let last_of_run = tiles.get(i + 1).is_none_or(|n| n.suit() != t.suit());
        if last_of_run {
            s.push(t.suit().letter());
        }
    }
    s
}

/// Bit `i` set when byte `i` of `x` is not zero: a byte's top bit is set when it is not zero,
/// and one multiplication gathers the eight top bits (no carries: the products land on
/// distinct bits).
#[inline(always)]
pub(crate) fn nonzero_bytes(x: u64) -> u64 {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let nonzero = (((x & LOW) + LOW) | x) & HIGH;
    (nonzero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The kinds held at least once, bit `i` for kind `i`: four words of eight counts, then the
/// last two kinds.
#[inline]
pub(crate) fn held_mask(c: &[u8; KINDS]) -> u64 {
    let word = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().unwrap_or([0; 8]));
    nonzero_bytes(word(0))
        | nonzero_bytes(word(8)) << 8
        | nonzero_bytes(word(16)) << 16
        | nonzero_bytes(word(24)) << 24
        | u64::from(c[32] > 0) << 32
        | u64::from(c[33] > 0) << 33
}

/// Counts per playing tile kind: the representation every analysis works on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileCounts(pub [u8; KINDS]);

impl Default for TileCounts {
    fn default() -> TileCounts {
        TileCounts::new()
    }
}

impl TileCounts {
    /// No tiles.
    pub const fn new() -> TileCounts {
        TileCounts([0; KINDS])
    }

    /// Counts of the given tiles (flowers are ignored: they are never part of a hand).
    pub fn from_tiles(tiles: &[Tile]) -> TileCounts {
        let mut c = TileCounts::new();
        for t in tiles {
            if !t.is_flower() {
                c.0[t.index()] += 1;
            }
        }
        c
    }

    /// Parses notation straight into counts (flowers are an error).
    pub fn parse(s: &str) -> Result<TileCounts, TileError> {
        Ok(TileCounts::from_tiles(&parse_hand_tiles(s)?))
    }

    /// Copies of `t` held.
    #[inline]
    pub fn get(&self, t: Tile) -> u8 {
        self.0[t.index()]
    }

    /// Adds one copy of `t`.
    #[inline]
    pub fn add(&mut self, t: Tile) {
        self.0[t.index()] += 1;
    }

    /// Removes one copy of `t`; false (and nothing changes) when there is none.
    #[inline]
    pub fn remove(&mut self, t: Tile) -> bool {
        let c = &mut self.0[t.index()];
        if *c == 0 {
            false
        } else {
            *c -= 1;
            true
        }
    }

    /// Total number of tiles.
    #[inline]
    pub fn total(&self) -> usize {
        // The views, the invariants and every win check ask for this: the counts are summed
        // eight at a time in 16-bit lanes (exact for any counts: 34 × 255 fits 16 bits)
        // rather than widened one by one.
        const LOW_BYTES: u64 = 0x00ff_00ff_00ff_00ff;
        let c = &self.0;
        let mut lanes = 0u64;
        for chunk in c[..32].chunks_exact(8) {
            let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            lanes += (w & LOW_BYTES) + ((w >> 8) & LOW_BYTES);
        }
        // Multiplying by 0x0001… adds the four lanes into the top one (no carries: each
        // partial sum is below 2^16).
        let words = (lanes.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize;
        words + usize::from(c[32]) + usize::from(c[33])
    }

    /// The tiles, sorted, one entry per copy.
    pub fn tiles(&self) -> Vec<Tile> {
        let mut v = Vec::with_capacity(self.total());
        self.extend_tiles(&mut v);
        v
    }

    /// Appends the tiles, sorted, to `v`.
    pub fn extend_tiles(&self, v: &mut Vec<Tile>) {
        for (i, &c) in self.0.iter().enumerate() {
            for _ in 0..c {
                v.push(Tile(i as u8));
            }
        }
    }

    /// Kinds held at least once, in notation order.
    pub fn kinds(&self) -> impl Iterator<Item = Tile> + '_ {
        // The set bits of the held mask: a step per kind held (a turn's discards, every
        // kong check), not per kind of the set.
        let mut held = held_mask(&self.0);
        std::iter::from_fn(move || {
            (held != 0).then(|| {
                let i = held.trailing_zeros();
                held &= held - 1;
                Tile(i as u8)
            })
        })
    }

    /// The first kind with more than four copies, if any.
    pub fn over_four(&self) -> Option<Tile> {
        self.0.iter().position(|&c| c > 4).map(|i| Tile(i as u8))
    }
}

impl fmt::Debug for TileCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TileCounts({})", to_notation(&self.tiles()))
    }
}

/// A set of tile kinds as a 34-bit mask: useful tiles, waits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct TileSet(pub u64);

impl TileSet {
    pub const EMPTY: TileSet = TileSet(0);

    #[inline]
    pub fn insert(&mut self, t: Tile) {
        self.0 |= 1 << t.index();
    }

    #[inline]
    pub fn contains(&self, t: Tile) -> bool {
        self.0 & (1 << t.index()) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    /// The kinds in notation order.
    pub fn iter(&self) -> impl Iterator<Item = Tile> + '_ {
        // One step per member (lowest bit first), not one per kind: hot in the bots.
        let mut bits = self.0 & ((1u64 << KINDS) - 1);
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(Tile(i))
        })
    }

    /// The kinds in notation, each once (`""` when empty).
    pub fn to_notation(&self) -> String {
        to_notation(&self.iter().collect::<Vec<_>>())
    }
}

/// Serialized in notation, each kind once (e.g. `"47m1p"`).
impl Serialize for TileSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_notation())
    }
}

impl std::ops::BitOr for TileSet {
    type Output = TileSet;
    fn bitor(self, rhs: TileSet) -> TileSet {
        TileSet(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for TileSet {
    fn bitor_assign(&mut self, rhs: TileSet) {
        self.0 |= rhs.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        let tiles = parse_tiles("123m456p789s1122z").unwrap();
        assert_eq!(tiles.len(), 13);
        assert_eq!(to_notation(&tiles), "123m456p789s1122z");
        assert_eq!(parse_tiles("5z").unwrap()[0], Tile::WHITE);
        assert_eq!(parse_tiles("1f").unwrap()[0].name_zh(), "春");
    }

    #[test]
    fn every_tile_round_trips_and_has_names() {
        for i in 0..(KINDS + FLOWERS) as u8 {
            let t = Tile::from_index(i).unwrap();
            assert_eq!(t.to_string().parse::<Tile>().unwrap(), t);
            assert!(!t.name_zh().is_empty());
            assert!(!t.name_en().is_empty());
        }
        assert_eq!(Tile::from_index(42), None);
        assert_eq!(Tile::kind(4).name_zh(), "五万");
        assert_eq!(Tile::RED.short_name_zh(), "中");
        assert_eq!(Tile::kind(13).short_name_zh(), "五饼");
        assert_eq!(Tile::RED.name_en(), "Red Dragon");
    }

    #[test]
    fn errors_name_the_character_and_position() {
        assert_eq!(parse_tiles(""), Err(TileError::Empty));
        assert_eq!(
            parse_tiles("12x"),
            Err(TileError::BadChar { ch: 'x', pos: 2 })
        );
        assert_eq!(
            parse_tiles("m12"),
            Err(TileError::SuitWithoutDigits { ch: 'm', pos: 0 })
        );
        assert_eq!(parse_tiles("12m34"), Err(TileError::MissingSuit { pos: 3 }));
        assert_eq!(
            parse_tiles("8z"),
            Err(TileError::NoSuchTile {
                digit: '8',
                suit: 'z',
                pos: 0
            })
        );
        assert!(matches!(
            parse_tiles("11111m"),
            Err(TileError::FifthCopy { pos: 4, .. })
        ));
        assert!(matches!(
            parse_hand_tiles("123m1f"),
            Err(TileError::FlowerInHand { pos: 4, .. })
        ));
        assert!(parse_tiles("0m").is_err());
        let msg = parse_tiles("12q").unwrap_err().to_string();
        assert!(msg.contains("'q'") && msg.contains('2'), "{msg}");
    }

    #[test]
    fn one_tile_is_exactly_a_digit_and_a_suit_letter() {
        assert_eq!("4z".parse::<Tile>(), Ok(Tile::NORTH));
        assert_eq!("8f".parse::<Tile>().unwrap().name_en(), "Chrysanthemum");
        for bad in [
            " 4z", "4z ", "4 z", "44z", "4z4z", "4", "z", "4Z", "z4", "４z", "\u{0}4z",
        ] {
            assert!(
                matches!(bad.parse::<Tile>(), Err(TileError::NotOneTile(_))),
                "{bad:?}: {:?}",
                bad.parse::<Tile>()
            );
        }
        assert_eq!("".parse::<Tile>(), Err(TileError::Empty));
        assert!(matches!(
            "8z".parse::<Tile>(),
            Err(TileError::NoSuchTile { digit: '8', .. })
        ));
        assert!(matches!(
            "0m".parse::<Tile>(),
            Err(TileError::NoSuchTile { .. })
        ));
        // The error quotes a bounded prefix of a long input, not all of it.
        let long = "1m".repeat(10_000);
        let msg = long.parse::<Tile>().unwrap_err().to_string();
        assert!(msg.len() < 120, "{msg}");
    }

    #[test]
    fn json_tiles_are_strict() {
        assert_eq!(
            serde_json::from_str::<Tile>(r#""4z""#).unwrap(),
            Tile::NORTH
        );
        for bad in [r#"" 4z""#, r#""4z ""#, r#""44z""#, r#""""#, "4", "null"] {
            assert!(serde_json::from_str::<Tile>(bad).is_err(), "{bad}");
        }
        let e = serde_json::from_str::<Tile>(r#"" 4z""#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("exactly one tile"), "{e}");
        let tiles: Vec<Tile> = serde_json::from_str(r#"["1m","7z","3f"]"#).unwrap();
        assert_eq!(to_notation(&tiles), "1m7z3f");
    }

    #[test]
    fn every_tile_at_once_parses_and_one_more_digit_is_too_many() {
        let all = "111122223333444455556666777788889999m".to_string()
            + "111122223333444455556666777788889999p"
            + "111122223333444455556666777788889999s"
            + "1111222233334444555566667777z12345678f";
        let tiles = parse_tiles(&all).unwrap();
        assert_eq!(tiles.len(), MAX_TILES);
        assert_eq!(parse_tiles(&to_notation(&tiles)).unwrap(), tiles);
        // A 145th digit is refused where it stands, before its suit letter is seen.
        let over = all.replace("12345678f", "123456781f");
        assert_eq!(
            parse_tiles(&over),
            Err(TileError::TooManyTiles {
                pos: over.len() - 2
            })
        );
    }

    #[test]
    fn a_huge_input_stops_early_in_constant_memory() {
        // 10 MB of digits: refused at the 145th, without reading (or reserving for) the rest.
        let digits = "1".repeat(10 << 20);
        let t = std::time::Instant::now();
        assert_eq!(
            parse_tiles(&digits),
            Err(TileError::TooManyTiles { pos: MAX_TILES })
        );
        assert_eq!(
            parse_hand_tiles(&digits),
            Err(TileError::TooManyTiles { pos: MAX_TILES })
        );
        assert!(matches!(
            TileCounts::parse(&digits),
            Err(TileError::TooManyTiles { .. })
        ));
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        // A valid-looking line made huge: the fifth copy stops it at once.
        let repeated = "123m".repeat(1 << 20);
        assert!(matches!(
            parse_tiles(&repeated),
            Err(TileError::FifthCopy { pos: 16, .. })
        ));
        // A valid hand padded with 10 MB of spaces: one pass, and the answer's capacity
        // comes from its tiles, not from the input's length.
        let padded = format!("123m{}456p", " ".repeat(10 << 20));
        let tiles = parse_tiles(&padded).unwrap();
        assert_eq!(tiles.len(), 6);
        assert!(tiles.capacity() <= MAX_TILES, "{}", tiles.capacity());
        let many_digits = format!("{}m", "1".repeat(MAX_TILES + 1));
        assert_eq!(
            parse_tiles(&many_digits),
            Err(TileError::TooManyTiles { pos: MAX_TILES })
        );
    }

    #[test]
    fn counts_and_sets() {
        let c = TileCounts::parse("1123m77z").unwrap();
        assert_eq!(c.get(Tile::kind(0)), 2);
        assert_eq!(c.total(), 6);
        assert_eq!(to_notation(&c.tiles()), "1123m77z");
        let mut s = TileSet::EMPTY;
        s.insert(Tile::RED);
        s.insert(Tile::kind(3));
        assert_eq!(s.to_notation(), "4m7z");
    }

    #[test]
    fn total_is_exact_for_any_counts() {
        // The lane sums must not carry: every kind at 255 is the worst case.
        let mut c = TileCounts([255; KINDS]);
        assert_eq!(c.total(), 255 * KINDS);
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1000 {
            for x in &mut c.0 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                *x = (rng >> 56) as u8;
            }
            let plain: usize = c.0.iter().map(|&x| usize::from(x)).sum();
            assert_eq!(c.total(), plain);
        }
    }

    #[test]
    fn held_mask_marks_every_kind_held() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1000 {
            let mut c = TileCounts::new();
            for x in &mut c.0 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                // Mostly empty kinds, and now and then a count with only its top bit set.
                *x = match rng >> 60 {
                    0..=9 => 0,
                    10 => 128,
                    n => (n - 10) as u8,
                };
            }
            let plain = (0..KINDS).fold(0u64, |m, i| m | u64::from(c.0[i] > 0) << i);
            assert_eq!(held_mask(&c.0), plain, "{c:?}");
            let listed: Vec<usize> = c.kinds().map(Tile::index).collect();
            let held: Vec<usize> = (0..KINDS).filter(|&i| c.0[i] > 0).collect();
            assert_eq!(listed, held);
        }
    }

    #[test]
    fn tile_predicates() {
        let t = |s: &str| s.parse::<Tile>().unwrap();
        assert!(t("1m").is_terminal() && t("9s").is_terminal() && !t("5p").is_terminal());
        assert!(t("1z").is_wind() && t("5z").is_dragon() && t("7z").is_honor());
        assert_eq!(t("3s").offset(2), Some(t("5s")));
        assert_eq!(t("8s").offset(2), None);
        assert_eq!(t("9m").next_in_suit(), None);
    }
}
