//! Rule sets: every rule choice is a field, and each playable rule set is a preset.
//!
//! The engine never branches on a rule set's name: it reads these fields. Records carry the
//! whole `RuleSet` (name, version and fields), so a hand always replays under the rules it
//! was played with.

use serde::{Deserialize, Serialize};

use crate::score::mcr::McrOptions;

/// How the deal moves between hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DealerRule {
    /// 庄家不连庄: the deal passes to the next seat after every hand (Chinese Official rules).
    AlwaysPass,
    /// The dealer keeps the deal on his own win or a draw; otherwise the winner deals next.
    WinnerDeals,
}

/// Decision time limits, in seconds. The engine only states them; hosts enforce them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeLimits {
    /// The dealer's first discard.
    pub first_discard_secs: u32,
    /// Every later discard, including after a claim.
    pub discard_secs: u32,
    /// Deciding whether to claim a discard (or rob a kong).
    pub claim_secs: u32,
}

/// A complete description of the rules of a hand and a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSet {
    /// The preset's name, e.g. `guobiao`.
    pub name: String,
    /// Bumped whenever a preset's fields change, so old records stay explainable.
    pub version: u32,
    /// Play with the eight flowers (144 tiles) or without (136).
    pub flowers: bool,
    /// Minimum fan points, flowers excluded, for a legal win (起和分).
    pub min_points: u32,
    /// How the deal moves.
    pub dealer: DealerRule,
    /// Rounds in a match (one per prevalent wind).
    pub rounds: u8,
    /// Deals per round: the dealer moves this many times before the prevalent wind changes.
    pub hands_per_round: u8,
    /// 轮转: players change seats between rounds, so each sits East in turn.
    pub seat_rotation: bool,
    /// Chows only from the player on the left (上家); pungs and kongs from anyone.
    pub chow_from_left_only: bool,
    /// On the discard after the wall's last tile only a win may be claimed (海底捞月).
    pub last_discard_win_only: bool,
    pub time: TimeLimits,
    /// Chinese Official scoring options.
    pub mcr: McrOptions,
}

impl RuleSet {
    /// 国标: the Chinese Official rules, as the seed's rules text gives them for Tongcheng
    /// Mahjong: 144 tiles, 8-point minimum, 4 rounds of 4 hands, no dealer continuation.
    pub fn guobiao() -> RuleSet {
        RuleSet {
            name: "guobiao".into(),
            version: 1,
            flowers: true,
            min_points: 8,
            dealer: DealerRule::AlwaysPass,
            rounds: 4,
            hands_per_round: 4,
            seat_rotation: false,
            chow_from_left_only: true,
            last_discard_win_only: true,
            time: TimeLimits {
                first_discard_secs: 30,
                discard_secs: 15,
                claim_secs: 3,
            },
            mcr: McrOptions::default(),
        }
    }

    /// A preset by name.
    pub fn preset(name: &str) -> Option<RuleSet> {
        match name {
            "guobiao" | "mcr" => Some(RuleSet::guobiao()),
            _ => None,
        }
    }

    /// Names of the presets this build offers.
    pub fn preset_names() -> &'static [&'static str] {
        &["guobiao"]
    }

    /// Tiles in the wall.
    pub fn tile_count(&self) -> usize {
        if self.flowers { 144 } else { 136 }
    }
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet::guobiao()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guobiao_is_the_default_and_serializes() {
        let r = RuleSet::default();
        assert_eq!(r.name, "guobiao");
        assert_eq!(r.tile_count(), 144);
        let json = serde_json::to_string(&r).unwrap();
        let back: RuleSet = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        assert!(RuleSet::preset("nope").is_none());
    }
}
