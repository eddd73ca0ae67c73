//! How a tile looks on screen: a Unicode mahjong glyph (U+1F000 block) or its notation, and a
//! colour per suit so the suits tell apart at a glance.

use tongcheng_core::tile::{Suit, Tile};

/// Whether tiles are drawn as glyphs or as notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileFace {
    /// 🀇 🀙 🀐 🀀 … — only when the terminal speaks UTF-8.
    Glyph,
    /// `1m 1p 1s 1z` — always readable, and what scripts type.
    Notation,
}

impl TileFace {
    /// Glyphs unless `--ascii`, and only when the locale says UTF-8: a terminal that does not
    /// decode UTF-8 would show garbage instead of tiles.
    pub fn choose(force_ascii: bool) -> TileFace {
        if force_ascii {
            return TileFace::Notation;
        }
        if locale_is_utf8(|k| std::env::var(k).ok()) {
            TileFace::Glyph
        } else {
            TileFace::Notation
        }
    }

    /// The tile as text: one glyph, or the two characters of its notation.
    pub fn text(self, t: Tile) -> String {
        match self {
            TileFace::Glyph => glyph(t).to_string(),
            TileFace::Notation => t.to_string(),
        }
    }
}

/// Text for a terminal that shows ASCII only (`--ascii`, or a locale that is not UTF-8):
/// Chinese names are dropped where an English one stands beside them ("混一色 Half Flush"),
/// the few that stand alone are translated (the winds, 财神), and typographic marks become
/// their ASCII look-alikes. Text that is ASCII already is returned as it is.
pub fn ascii_words(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    const ALONE: [(&str, &str); 10] = [
        ("财神", "wild"),
        ("白", "White"),
        ("发", "Green"),
        ("中", "Red"),
        ("庄", "dealer"),
        ("东", "East"),
        ("南", "South"),
        ("西", "West"),
        ("北", "North"),
        ("荒牌", "drawn"),
    ];
    let is_cjk = |c: char| matches!(c as u32, 0x2E80..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFF60);
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if is_cjk(c) {
            let end = rest.find(|c: char| !is_cjk(c)).unwrap_or(rest.len());
            let run = &rest[..end];
            rest = &rest[end..];
            // A run with an English name beside it ("混一色 Half Flush", "drawn hand (荒牌)")
            // is dropped; a run standing alone is translated when we know it.
            let english_follows =
                rest.starts_with(' ') && rest[1..].starts_with(|c: char| c.is_ascii_uppercase());
            let in_parens = out.ends_with('(') && rest.starts_with(')');
            let known = ALONE.iter().find(|(zh, _)| *zh == run).map(|(_, en)| *en);
            match known {
                Some(en) if !english_follows && !in_parens => out.push_str(en),
                _ => {
                    if in_parens {
                        out.pop();
                        rest = &rest[1..];
                        if out.ends_with(' ') {
                            out.pop();
                        }
                    } else if english_follows {
                        rest = &rest[1..];
                    }
                }
            }
            continue;
        }
        let mapped = match c {
            '—' | '–' | '−' | '─' => "-",
            '│' => "|",
            '★' => "*",
            '▶' => ">",
            '·' => "|",
            '×' => "x",
            '→' => "->",
            '←' => "<-",
            '↑' => "^",
            '↓' => "v",
            '…' => "...",
            '≥' => ">=",
            '≤' => "<=",
            '⏱' => "time",
            '“' | '”' => "\"",
            '‘' | '’' => "'",
            '✓' => "ok",
            c if c.is_ascii() => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
                continue;
            }
            _ => "?",
        };
        out.push_str(mapped);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The locale decides the way the C library does: the first of LC_ALL, LC_CTYPE and LANG that
/// is set and non-empty.
pub fn locale_is_utf8(var: impl Fn(&str) -> Option<String>) -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|k| var(k).filter(|v| !v.is_empty()))
        .next()
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("utf-8") || v.contains("utf8")
        })
}

/// The Unicode mahjong tile for `t` (shared with the phone shells).
pub use tongcheng_core::describe::glyph;

/// Which colour family a tile belongs to (the terminal face maps it to a colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hue {
    Red,
    Blue,
    Green,
    Plain,
    Magenta,
}

/// Characters red, dots blue, bamboo green, winds plain, dragons in their own colour
/// (中 red, 发 green, 白 plain), flowers magenta.
pub fn hue(t: Tile) -> Hue {
    match t.suit() {
        Suit::Characters => Hue::Red,
        Suit::Dots => Hue::Blue,
        Suit::Bamboo => Hue::Green,
        Suit::Honors if t == Tile::RED => Hue::Red,
        Suit::Honors if t == Tile::GREEN => Hue::Green,
        Suit::Honors => Hue::Plain,
        Suit::Flowers => Hue::Magenta,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_words_keep_the_english_and_drop_the_rest() {
        assert_eq!(ascii_words("plain text"), "plain text");
        assert_eq!(
            ascii_words("混一色 Half Flush, 8 points"),
            "Half Flush, 8 points"
        );
        assert_eq!(
            ascii_words("the wall is exhausted — a drawn hand (荒牌), no payments"),
            "the wall is exhausted - a drawn hand, no payments"
        );
        assert_eq!(ascii_words("东 round · 财神 5m"), "East round | wild 5m");
        assert_eq!(ascii_words("⏱ 12s"), "time 12s");
        for s in [
            "杠上开花 Out with Replacement Tile",
            "Hand 3/16 南 round, 西 deals",
            "未知",
            "(混)",
        ] {
            assert!(ascii_words(s).is_ascii(), "{s}");
        }
    }

    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }

    #[test]
    fn glyphs_follow_the_unicode_block() {
        assert_eq!(glyph(t("1m")), '🀇');
        assert_eq!(glyph(t("9m")), '🀏');
        assert_eq!(glyph(t("1p")), '🀙');
        assert_eq!(glyph(t("9p")), '🀡');
        assert_eq!(glyph(t("1s")), '🀐');
        assert_eq!(glyph(t("9s")), '🀘');
        assert_eq!(glyph(t("1z")), '🀀');
        assert_eq!(glyph(t("4z")), '🀃');
        assert_eq!(glyph(t("5z")), '🀆');
        assert_eq!(glyph(t("6z")), '🀅');
        assert_eq!(glyph(t("7z")), '🀄');
        assert_eq!(glyph(t("1f")), '🀦');
        assert_eq!(glyph(t("4f")), '🀩');
        assert_eq!(glyph(t("5f")), '🀢');
        assert_eq!(glyph(t("8f")), '🀥');
    }

    #[test]
    fn utf8_only_when_the_locale_says_so() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(locale_is_utf8(env(&[("LANG", "en_US.UTF-8")])));
        assert!(locale_is_utf8(env(&[
            ("LC_ALL", "zh_CN.utf8"),
            ("LANG", "C")
        ])));
        assert!(!locale_is_utf8(env(&[
            ("LC_ALL", "C"),
            ("LANG", "en_US.UTF-8")
        ])));
        assert!(locale_is_utf8(env(&[
            ("LC_ALL", ""),
            ("LANG", "en_US.UTF-8")
        ])));
        assert!(!locale_is_utf8(env(&[])));
    }
}
