//! Hint reasons in both languages. Every sentence is built once as a [`Words`]: the English
//! and the 简体中文 side by side at the same site, so a sentence and its translation never
//! drift. The Chinese says what a player at the table says: 听牌, 一向听, 有效牌 N 张, 番,
//! 安全牌, 点炮, 自摸, 碰 吃 杠, 补花, 财神, 跑风; tiles by the names players say (五万, 东).

use crate::tile::Tile;

/// One text in English and in 简体中文.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words {
    pub en: String,
    pub zh: String,
}

impl Words {
    pub fn new(en: impl Into<String>, zh: impl Into<String>) -> Words {
        Words {
            en: en.into(),
            zh: zh.into(),
        }
    }
}

/// Whether `s` reads as Chinese: not empty, and no ASCII letter once the tile notation is
/// taken out (every run of digits 1–9 followed by one of `m p s z`, e.g. "3p6p", "47m1p").
pub fn reads_as_chinese(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if ('1'..='9').contains(&c) {
            let mut j = i;
            while j < chars.len() && ('1'..='9').contains(&chars[j]) {
                j += 1;
            }
            // A run of digits followed by a suit letter is notation: skip it with the letter.
            i = if j < chars.len() && matches!(chars[j], 'm' | 'p' | 's' | 'z') {
                j + 1
            } else {
                j
            };
            continue;
        }
        if c.is_ascii_alphabetic() {
            return false;
        }
        i += 1;
    }
    !s.trim().is_empty()
}

/// A tile by name: "5 of Dots" / 五饼.
pub(super) fn tile(t: Tile) -> Words {
    Words::new(t.name_en(), t.short_name_zh())
}

/// Chinese Official points: "8 points" / "8 番".
pub(super) fn points(n: u32) -> Words {
    Words::new(crate::describe::points(n), format!("{n} 番"))
}

/// Steps from ready: "2 steps" / 两向听.
pub(super) fn steps(s: i8) -> Words {
    let en = if s == 1 {
        "1 step".to_string()
    } else {
        format!("{s} steps")
    };
    const NUMBERS: [&str; 8] = ["一", "两", "三", "四", "五", "六", "七", "八"];
    let zh = match usize::try_from(s) {
        Ok(n @ 1..=8) => format!("{}向听", NUMBERS[n - 1]),
        _ => format!("{s} 向听"),
    };
    Words::new(en, zh)
}

/// Ready or the steps from it: "ready" / 听牌.
pub(super) fn steps_or_ready(s: i8) -> Words {
    if s <= 0 {
        Words::new("ready", "听牌")
    } else {
        steps(s)
    }
}

/// How far a fan target is: "in hand", "2 tiles short" / 已成, 差 2 张.
pub(super) fn tiles_short(n: u32) -> Words {
    match n {
        0 => Words::new("in hand", "已成"),
        1 => Words::new("1 tile short", "差 1 张"),
        n => Words::new(format!("{n} tiles short"), format!("差 {n} 张")),
    }
}

/// The Chinese part of a "中文 English" fan or target name ("清一色 Full Flush" → 清一色).
pub(super) fn zh_name(name: &str) -> &str {
    name.split(' ').next().unwrap_or(name)
}

/// "tile" or "tiles" after a count.
pub(super) fn tiles_en(n: u32) -> &'static str {
    if n == 1 { "tile" } else { "tiles" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_reads_as_chinese_and_english_does_not() {
        assert!(reads_as_chinese(
            "打五饼：一向听，有效牌 12 张（3p6p），做清一色"
        ));
        assert!(reads_as_chinese("听 47m1p（剩 5 张）"));
        assert!(!reads_as_chinese("Discard 5 of Dots: 1 step from ready"));
        assert!(!reads_as_chinese("打五饼：12 live"));
        assert!(!reads_as_chinese("做清一色 Full Flush"));
        assert!(!reads_as_chinese(""));
        assert!(!reads_as_chinese("3p x"));
    }

    #[test]
    fn steps_and_tiles_in_players_words() {
        assert_eq!(steps(1).zh, "一向听");
        assert_eq!(steps(2).zh, "两向听");
        assert_eq!(steps_or_ready(0).zh, "听牌");
        assert_eq!(steps_or_ready(2).en, "2 steps");
        assert_eq!(points(8).zh, "8 番");
        assert_eq!(points(1).en, "1 point");
        assert_eq!(tile(Tile::RED).zh, "中");
        assert_eq!(tile("5p".parse().unwrap()).zh, "五饼");
        assert_eq!(zh_name("清一色 Full Flush"), "清一色");
        assert_eq!(
            super::super::reasons::chow_zh("3p".parse().unwrap()),
            "吃三四五饼"
        );
    }

    /// Every text of a hint as (English, 中文) pairs: the reason, and each discard's reason
    /// and comparison with the next one down.
    fn pairs(h: &super::super::Hint) -> Vec<(String, String)> {
        use super::super::Hint;
        let mut out = vec![(h.reason().en, h.reason().zh)];
        if let Hint::Turn { discards, .. } = h {
            for d in discards {
                out.push((d.reason.clone(), d.reason_zh.clone()));
                assert_eq!(d.versus.is_some(), d.versus_zh.is_some(), "{:?}", d.versus);
                if let (Some(en), Some(zh)) = (&d.versus, &d.versus_zh) {
                    out.push((en.clone(), zh.clone()));
                }
            }
        }
        out
    }

    /// Bots play hands under each preset; at every decision of every seat the hint's texts
    /// all have a Chinese version that reads as Chinese (no ASCII letter outside the tile
    /// notation), beside an English one that does not.
    #[test]
    fn every_hint_text_reads_in_chinese_and_in_english() {
        use crate::bot::{Bot, Level, LevelBot};
        use crate::game::{Game, HandSetup};
        use crate::rules::RuleSet;
        use crate::seat::{Seat, Wind};
        use crate::wall::Seed;
        let presets = [
            RuleSet::guobiao(),
            RuleSet::hangzhou(),
            RuleSet::tongcheng_dianpao(),
            RuleSet::tongcheng_paofeng(),
        ];
        for rules in presets {
            let (mut hints, mut texts) = (0, 0);
            let mut seed = 0u64;
            while hints < 250 && seed < 40 {
                let mut g = Game::new(HandSetup {
                    rules: rules.clone(),
                    seed: Seed::from_u64(seed),
                    dealer: Seat((seed % 4) as u8),
                    prevalent: Wind::East,
                    dealer_level: 0,
                });
                let mut bots: [LevelBot; 4] =
                    std::array::from_fn(|i| LevelBot::new(Level::Normal, seed * 4 + i as u64));
                while !g.is_finished() {
                    for s in g.pending_seats() {
                        let v = g.view(s);
                        if let Some(h) = super::super::hint(&v) {
                            hints += 1;
                            for (en, zh) in pairs(&h) {
                                texts += 1;
                                assert!(!en.is_empty() && !reads_as_chinese(&en), "{en}");
                                assert!(reads_as_chinese(&zh), "{}: {zh} / {en}", rules.name);
                                if texts % 97 == 0 {
                                    println!("{}\n  {en}\n  {zh}", rules.name);
                                }
                            }
                        }
                        let a = bots[s.index()].choose(&v);
                        g.apply(s, a).unwrap();
                    }
                }
                seed += 1;
            }
            println!("{}: {hints} hints, {texts} texts", rules.name);
            assert!(hints >= 250, "{}: {hints} hints", rules.name);
        }
    }
}
