//! Rule sets: every rule choice is a field, and each playable rule set is a preset.
//!
//! The engine never branches on a rule set's name: it reads these fields. Records carry the
//! whole `RuleSet` (name, version and fields), so a hand always replays under the rules it
//! was played with.

use serde::{Deserialize, Serialize};

// The scorers own their options; a rule set composes them (one source of truth for each).
pub use crate::score::hangzhou::{HangzhouScoring, HangzhouTable};
use crate::score::mcr::McrOptions;
pub use crate::score::tongcheng::TongchengTable;

/// How the deal moves between hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DealerRule {
    /// 庄家不连庄: the deal passes to the next seat after every hand (Chinese Official rules).
    AlwaysPass,
    /// The dealer keeps the deal on his own win or a draw; otherwise the winner deals next.
    WinnerDeals,
    /// Tongcheng: the winner deals next; with several winners on one discard (一炮多响) the
    /// discarder does; after a drawn hand the seat that drew the wall's last tile does.
    WinnerOrLastDraw,
}

/// Which scorer prices a win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// Chinese Official fan table ([`crate::score::mcr`]), with `min_points`.
    #[default]
    Mcr,
    /// Hangzhou doubling or fan-sum table ([`crate::score::hangzhou`]).
    Hangzhou(HangzhouScoring),
    /// Tongcheng hand values or point counts ([`crate::score::tongcheng`]).
    Tongcheng(TongchengTable),
}

/// The wild tile (财神).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WildRule {
    /// No wilds.
    #[default]
    None,
    /// 白板财神: the four 白 are wild every hand.
    FixedWhite,
    /// 翻财神: a tile turned up from the tail after the deal is out of play and its face is
    /// wild (three copies); 白 plays as that face.
    Flipped,
    /// 桐城跑风: a tile turned up from the front after the deal is out of play and the *next*
    /// face is wild (all four; suits 9→1, 东→南→西→北→东, 中→发→白→中); 中 plays the wild's
    /// face, 发 is the flower (with a 中 indicator the wild is 发, 中 the flower and nothing
    /// stands in; with a 白 indicator the wild is 中 and nothing stands in). Wilds are never
    /// discarded.
    FlippedNext,
}

/// 一碰到底 or 碰一对: how many pungs one hand may claim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PungLimit {
    /// 一碰到底: any number.
    #[default]
    Unlimited,
    /// 碰一对: one pung per hand (a pung later grown into a kong still counts).
    OnePerHand,
}

/// 飘分: an extra stake on a hand; between the winner and each payer both players' 飘 are
/// added to the payment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Piao {
    /// No 飘.
    #[default]
    None,
    /// 定飘: every player's 飘 is this fixed amount.
    Fixed(u8),
    /// 飘 chosen by each seat before every hand, per seat (0 until chosen). A match's rules
    /// start at zeros and each hand's setup carries that hand's choices (see
    /// [`crate::game::Match::choose_piao`]), so a record replays and verifies with them.
    Chosen([u8; 4]),
}

/// 跑风 announced or private.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paofeng {
    /// 明跑: a seat in 跑风 is announced, and while anyone is, nobody may pung.
    #[default]
    Open,
    /// 暗跑: private; pungs stay allowed.
    Hidden,
}

/// Who may win on a discard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiscardWins {
    /// Anyone, on anyone's discard.
    #[default]
    Any,
    /// Self-draw only (自摸胡).
    Never,
    /// 庄三放炮: from the dealer's level 3 on, between the dealer and a non-dealer only; never
    /// on a wild, never with a 爆头 hand, never while a wild lock is on.
    DealerLevel3,
}

/// Taking three sets from one player (三摊).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Takings {
    /// No rule.
    #[default]
    Free,
    /// 承包 / 反承包: the player the winner took three sets from pays the whole win; the player
    /// who took three sets from the winner pays twice the whole win.
    Liability { count_pungs: bool },
    /// The third taking from the same player is not offered.
    LimitTwo { count_pungs: bool },
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn one() -> u8 {
    1
}

fn is_one(n: &u8) -> bool {
    *n == 1
}

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// Decision time limits, in seconds. The engine only states them; hosts enforce them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeLimits {
    /// The dealer's first discard.
    pub first_discard_secs: u32,
    /// Every later discard, including after a claim.
    pub discard_secs: u32,
    /// Deciding whether to claim a discard (or rob a kong).
    pub claim_secs: u32,
    /// Bank time (时间银行): seconds each player may spend over the limits above in a whole
    /// match, used only once a decision's own limit has run out. 0 (the presets): none.
    /// Left out of the JSON when 0, so existing rule sets, records and their ids are unchanged.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub bank_secs: u32,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// A complete description of the rules of a hand and a match.
///
/// Unknown fields are an error when read: a field this build does not know could change the
/// game, so a record carrying one cannot be replayed faithfully.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    /// The preset's name, e.g. `guobiao`.
    pub name: String,
    /// Bumped whenever a preset's fields change, so old records stay explainable.
    pub version: u32,
    /// Play with the eight flowers (144 tiles) or without (136).
    pub flowers: bool,
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
    /// Chinese Official scoring options, the minimum (起和分) among them.
    pub mcr: McrOptions,
    // The fields below were added with the Hangzhou rules; their defaults are the Chinese
    // Official behaviour, so older records read back unchanged (and are written unchanged).
    /// Which scorer prices a win.
    #[serde(default, skip_serializing_if = "is_default")]
    pub scoring: Scoring,
    /// The wild tile, if any.
    #[serde(default, skip_serializing_if = "is_default")]
    pub wild: WildRule,
    /// 财飘 lock: after a seat discards a wild, the other three may only draw and discard (no
    /// claims, no discard wins) until that seat draws again.
    #[serde(default, skip_serializing_if = "is_default")]
    pub wild_lock: bool,
    /// Tiles at the end of the wall that are never drawn (the hand is drawn when only these
    /// remain).
    #[serde(default, skip_serializing_if = "is_default")]
    pub dead_wall: u8,
    /// Fewest undrawn tiles for a kong to be declared.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub kong_min_wall: u8,
    /// 抢杠和: others may win on a tile added to a pung.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub rob_kong: bool,
    /// Who may win on a discard.
    #[serde(default, skip_serializing_if = "is_default")]
    pub discard_wins: DiscardWins,
    /// 漏胡: after passing a discard win, no win on that tile until one's own next draw.
    #[serde(default, skip_serializing_if = "is_default")]
    pub missed_win_lock: bool,
    /// 有财必拷响: a hand holding a wild may only win as 爆头.
    #[serde(default, skip_serializing_if = "is_default")]
    pub must_baotou_with_wild: bool,
    /// 十风: first ten discards all honors, no meld → may win on a later draw.
    #[serde(default, skip_serializing_if = "is_default")]
    pub ten_honors: bool,
    /// Taking three sets from one player.
    #[serde(default, skip_serializing_if = "is_default")]
    pub takings: Takings,
    /// Dealer levels (老庄): a new dealer's level (0: no levels) …
    #[serde(default, skip_serializing_if = "is_default")]
    pub dealer_start_level: u8,
    /// … and the cap (三老庄封顶). The dealer multiplier is 2^level.
    #[serde(default, skip_serializing_if = "is_default")]
    pub dealer_max_level: u8,
    /// 笃老 by dice: a new dealer rolls two dice and starts at level 3 (capped by the maximum)
    /// on doubles or a sum above 9, else at `dealer_start_level` (MJHZ).
    #[serde(default, skip_serializing_if = "is_default")]
    pub dealer_start_dice: bool,
    /// Wilds limit the win (a hall's rule text, HZCFG): holding two wilds a hand may only
    /// self-draw; holding three it may only win as 爆头.
    #[serde(default, skip_serializing_if = "is_default")]
    pub wild_count_limits: bool,
    // The fields below were added with the Tongcheng rules; their defaults are the behaviour
    // of the rule sets before them, so older records read back (and are written) unchanged.
    /// Chows may be claimed (the Tongcheng games have none).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub chows: bool,
    /// How many pungs a hand may claim (碰一对 / 一碰到底).
    #[serde(default, skip_serializing_if = "is_default")]
    pub pung_limit: PungLimit,
    /// 一炮多响: every seat that can win on a discard (or a robbed kong) wins, each paid by
    /// the discarder; otherwise the first seat after the discarder takes it (截和).
    #[serde(default, skip_serializing_if = "is_default")]
    pub multiple_winners: bool,
    /// 漏胡 widened: a passed discard win bars *every* discard win (not only that tile) until
    /// one's own next draw. Only with `missed_win_lock`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub missed_win_lock_all: bool,
    /// 过碰: passing a pung bars pungs of that tile until one's own next turn.
    #[serde(default, skip_serializing_if = "is_default")]
    pub missed_pung_lock: bool,
    /// 补花 with 发: the four 发 are flowers, played by discarding one — it is set aside and
    /// replaced from the wall, +1 point to its owner's win; a hand holding one cannot win.
    /// (Under `WildRule::FlippedNext` the flower is the tile the indicator names.)
    #[serde(default, skip_serializing_if = "is_default")]
    pub green_flowers: bool,
    /// Kong money paid on the spot (桐城): concealed 2 from each other seat, added 1 from each
    /// (none from a seat that chose pung over an offered exposed kong of that tile), exposed
    /// 3 from the discarder; kept when the hand is drawn, lost by a robbed kong.
    #[serde(default, skip_serializing_if = "is_default")]
    pub kong_payments: bool,
    /// 飘分.
    #[serde(default, skip_serializing_if = "is_default")]
    pub piao: Piao,
    /// 明跑 / 暗跑 (only with `WildRule::FlippedNext`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub paofeng: Paofeng,
    /// 暗牌: discards and kongs lie face down, so nobody claims or wins on a discard.
    #[serde(default, skip_serializing_if = "is_default")]
    pub blind_discards: bool,
}

impl RuleSet {
    /// 国标: the Chinese Official rules, as the seed's rules text gives them for Tongcheng
    /// Mahjong: 144 tiles, 8-point minimum, 4 rounds of 4 hands, no dealer continuation.
    pub fn guobiao() -> RuleSet {
        RuleSet {
            name: "guobiao".into(),
            version: 1,
            flowers: true,
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
                bank_secs: 0,
            },
            mcr: McrOptions::default(),
            scoring: Scoring::Mcr,
            wild: WildRule::None,
            wild_lock: false,
            dead_wall: 0,
            kong_min_wall: 1,
            rob_kong: true,
            discard_wins: DiscardWins::Any,
            missed_win_lock: false,
            must_baotou_with_wild: false,
            ten_honors: false,
            takings: Takings::Free,
            dealer_start_level: 0,
            dealer_max_level: 0,
            dealer_start_dice: false,
            wild_count_limits: false,
            chows: true,
            pung_limit: PungLimit::Unlimited,
            multiple_winners: false,
            missed_win_lock_all: false,
            missed_pung_lock: false,
            green_flowers: false,
            kong_payments: false,
            piao: Piao::None,
            paofeng: Paofeng::Open,
            blind_discards: false,
        }
    }

    /// Botzone's 国标麻将 (Chinese Standard Mahjong), where most public MCR bots are built and
    /// ranked: the Chinese Official rules played as one hand, with no flowers in the wall
    /// (136 tiles), so `tongcheng botzone` and the arena's Botzone seats play what its judge
    /// plays.
    pub fn botzone() -> RuleSet {
        RuleSet {
            name: "botzone".into(),
            version: 1,
            flowers: false,
            rounds: 1,
            hands_per_round: 1,
            ..RuleSet::guobiao()
        }
    }

    /// 杭州麻将, house rules (regional-rules §3.1): 136 tiles, the four 白 wild, self-draw
    /// only, the doubling table without a cap, dealer levels ×2/×4/×8, 承包 / 反承包.
    /// Variants are the fields: `wild: Flipped`, `discard_wins: DealerLevel3` (庄三放炮),
    /// `must_baotou_with_wild` (有财必拷响), `rob_kong`, the cap, `dealer_start_level`
    /// (笃二 / 笃三老庄), `takings` and `ten_honors`.
    pub fn hangzhou() -> RuleSet {
        RuleSet {
            name: "hangzhou".into(),
            version: 1,
            flowers: false,
            dealer: DealerRule::WinnerDeals,
            rounds: 4,
            hands_per_round: 4,
            seat_rotation: false,
            chow_from_left_only: true,
            last_discard_win_only: false,
            time: TimeLimits {
                first_discard_secs: 30,
                discard_secs: 15,
                claim_secs: 5,
                bank_secs: 0,
            },
            mcr: McrOptions::default(),
            scoring: Scoring::Hangzhou(HangzhouScoring {
                table: HangzhouTable::Doubling,
                cap: 0,
                no_wild_bonus: false,
                clean_seven_pairs_bonus: false,
                kong_chain_stacks: true,
                chain_mixes_kong_and_piao: true,
                four_whites_bonus: false,
            }),
            wild: WildRule::FixedWhite,
            wild_lock: true,
            dead_wall: 20,
            kong_min_wall: 22,
            rob_kong: false,
            discard_wins: DiscardWins::Never,
            missed_win_lock: true,
            must_baotou_with_wild: false,
            ten_honors: false,
            takings: Takings::Liability { count_pungs: false },
            dealer_start_level: 1,
            dealer_max_level: 3,
            dealer_start_dice: false,
            wild_count_limits: false,
            ..RuleSet::guobiao()
        }
    }

    /// 杭州麻将 MIL 2025 competition rules (regional-rules §3.2): as [`RuleSet::hangzhou`] but
    /// the fan sum capped at 4 fans, 无财神 +1, 十风, one 杠开 however many kongs, and chi-only
    /// liability.
    pub fn hangzhou_mil() -> RuleSet {
        RuleSet {
            name: "hangzhou-mil".into(),
            scoring: Scoring::Hangzhou(HangzhouScoring {
                table: HangzhouTable::FanSum,
                cap: 4,
                no_wild_bonus: true,
                clean_seven_pairs_bonus: false,
                kong_chain_stacks: false,
                chain_mixes_kong_and_piao: false,
                four_whites_bonus: false,
            }),
            ten_honors: true,
            ..RuleSet::hangzhou()
        }
    }

    /// 桐城点炮麻将 (regional-rules §2.2, §3.3): 136 tiles, no wild, no chow, discard wins by
    /// anyone with several winners on one discard (一炮多响), 抢杠胡, 漏胡 until one's next
    /// draw and 过碰 until one's next turn, hand values 1/2/4/8/16 (3 for a robbed kong),
    /// self-draw paid double by each, kong money on the spot, no dealer bonus. Variants are
    /// the fields: `green_flowers` (补花 with 发), `pung_limit` (碰一对), `discard_wins:
    /// Never` (self-draw only), `piao` (飘分) and `blind_discards` (暗牌).
    pub fn tongcheng_dianpao() -> RuleSet {
        RuleSet {
            name: "tongcheng-dianpao".into(),
            version: 1,
            flowers: false,
            dealer: DealerRule::WinnerOrLastDraw,
            last_discard_win_only: false,
            time: TimeLimits {
                first_discard_secs: 30,
                discard_secs: 15,
                claim_secs: 5,
                bank_secs: 0,
            },
            scoring: Scoring::Tongcheng(TongchengTable::Dianpao),
            rob_kong: true,
            discard_wins: DiscardWins::Any,
            missed_win_lock: true,
            missed_win_lock_all: true,
            missed_pung_lock: true,
            chows: false,
            multiple_winners: true,
            kong_payments: true,
            ..RuleSet::guobiao()
        }
    }

    /// 桐城跑风麻将 (regional-rules §2.3, §3.4; most likely what locals call plain 桐城麻将):
    /// a tile turned up from the front makes the next face wild, 中 stands in for that face,
    /// 发 is the flower, self-draw only, no chow, 跑风 (a wild holding a half-pair: any draw
    /// wins) announced (明跑, no pungs while anyone is 跑风) and paid +2, the irregular wins
    /// 全九幺 and 十三烂; each loser pays 1 + flowers + kongs (+2 for 跑风).
    pub fn tongcheng_paofeng() -> RuleSet {
        RuleSet {
            name: "tongcheng-paofeng".into(),
            scoring: Scoring::Tongcheng(TongchengTable::Paofeng),
            wild: WildRule::FlippedNext,
            discard_wins: DiscardWins::Never,
            rob_kong: false,
            missed_win_lock: false,
            missed_win_lock_all: false,
            multiple_winners: false,
            kong_payments: false,
            green_flowers: true,
            paofeng: Paofeng::Open,
            ..RuleSet::tongcheng_dianpao()
        }
    }

    /// These rules for a match of `hands` hands: whole rounds of four when they fit (the
    /// winds go round), else one round of `hands`.
    pub fn with_hands(mut self, hands: u8) -> RuleSet {
        let h = hands.max(1);
        (self.rounds, self.hands_per_round) = if h.is_multiple_of(4) {
            (h / 4, 4)
        } else {
            (1, h)
        };
        self
    }

    /// These rules with 飘 chosen by each seat before every hand; `None` where the rules have
    /// no 飘 (only Tongcheng scoring has it). Named apart (`…-piao`): no longer the preset, so
    /// its hands are never taken for the preset's.
    pub fn with_piao_each_hand(mut self) -> Option<RuleSet> {
        self.tongcheng_table()?;
        if !matches!(self.piao, Piao::Chosen(_)) {
            self.name = format!("{}-piao", self.name);
            self.piao = Piao::Chosen([0; 4]);
        }
        Some(self)
    }

    /// The Tongcheng table, when this rule set scores the Tongcheng way.
    pub fn tongcheng_table(&self) -> Option<TongchengTable> {
        match self.scoring {
            Scoring::Tongcheng(t) => Some(t),
            _ => None,
        }
    }

    /// The Hangzhou scoring options, when this rule set scores the Hangzhou way.
    pub fn hangzhou_scoring(&self) -> Option<&HangzhouScoring> {
        match &self.scoring {
            Scoring::Hangzhou(h) => Some(h),
            Scoring::Mcr | Scoring::Tongcheng(_) => None,
        }
    }

    /// A preset by name; a Tongcheng one with `-piao` (`tongcheng-dianpao-piao`) has 飘
    /// chosen before every hand.
    pub fn preset(name: &str) -> Option<RuleSet> {
        match name {
            "guobiao" | "mcr" => Some(RuleSet::guobiao()),
            "botzone" => Some(RuleSet::botzone()),
            "hangzhou" => Some(RuleSet::hangzhou()),
            "hangzhou-mil" | "hangzhou_mil" | "hangzhou_mil2025" => Some(RuleSet::hangzhou_mil()),
            "tongcheng-dianpao" | "tongcheng_dianpao" | "tongcheng" => {
                Some(RuleSet::tongcheng_dianpao())
            }
            "tongcheng-paofeng" | "tongcheng_paofeng" => Some(RuleSet::tongcheng_paofeng()),
            // A Tongcheng preset with 飘 chosen before every hand (`with_piao_each_hand`).
            _ => name
                .strip_suffix("-piao")
                .filter(|base| !base.ends_with("-piao"))
                .and_then(RuleSet::preset)
                .and_then(RuleSet::with_piao_each_hand),
        }
    }

    /// Names of the presets this build offers.
    pub fn preset_names() -> &'static [&'static str] {
        &[
            "guobiao",
            "hangzhou",
            "hangzhou-mil",
            "botzone",
            "tongcheng-dianpao",
            "tongcheng-paofeng",
        ]
    }

    /// Tiles in the wall.
    pub fn tile_count(&self) -> usize {
        if self.flowers { 144 } else { 136 }
    }

    /// Checks that the fields make a game the engine can play: every rule set read from
    /// outside (a record, a saved match, a request) passes here before a hand is dealt.
    pub fn validate(&self) -> Result<(), RulesError> {
        let bad = |what: String| Err(RulesError(what));
        if self.name.is_empty() || self.name.len() > MAX_NAME {
            return bad(format!("a rule set's name has 1–{MAX_NAME} bytes"));
        }
        if self.flowers && self.wild == WildRule::Flipped {
            // The tile turned up for 翻财神 could be a flower, which is never a face.
            return bad("a flipped wild (翻财神) is played without flowers".into());
        }
        let paofeng = self.tongcheng_table() == Some(TongchengTable::Paofeng);
        if matches!(self.wild, WildRule::FixedWhite | WildRule::Flipped)
            && self.hangzhou_scoring().is_none()
        {
            return bad("Hangzhou wild tiles need the Hangzhou scorer".into());
        }
        if (self.wild == WildRule::FlippedNext) != paofeng {
            return bad("the 跑风 wild (flipped_next) and the 跑风 scorer go together".into());
        }
        if paofeng && (self.flowers || self.discard_wins != DiscardWins::Never) {
            return bad("跑风 is played without flower tiles and wins on self-draw only".into());
        }
        if self.tongcheng_table().is_some() && self.discard_wins == DiscardWins::DealerLevel3 {
            return bad("庄三放炮 is a Hangzhou rule".into());
        }
        if let Piao::Fixed(n) = self.piao
            && n > MAX_PIAO
        {
            return bad(format!("fixed 飘 {n} (at most {MAX_PIAO})"));
        }
        if let Piao::Chosen(p) = self.piao
            && p.iter().any(|&n| n > MAX_PIAO)
        {
            return bad(format!("chosen 飘 {p:?} (each at most {MAX_PIAO})"));
        }
        if !(1..=4).contains(&self.rounds) {
            return bad(format!(
                "rounds {} (1–4, one per prevalent wind)",
                self.rounds
            ));
        }
        if !(1..=MAX_HANDS_PER_ROUND).contains(&self.hands_per_round) {
            return bad(format!(
                "hands_per_round {} (1–{MAX_HANDS_PER_ROUND})",
                self.hands_per_round
            ));
        }
        if self.dead_wall > MAX_DEAD_WALL {
            return bad(format!(
                "dead_wall {} (at most {MAX_DEAD_WALL})",
                self.dead_wall
            ));
        }
        if usize::from(self.kong_min_wall) > self.tile_count() {
            return bad(format!(
                "kong_min_wall {} is more than the wall",
                self.kong_min_wall
            ));
        }
        if self.dealer_max_level > MAX_DEALER_LEVEL
            || self.dealer_start_level > self.dealer_max_level
        {
            return bad(format!(
                "dealer levels start {} / max {} (0 ≤ start ≤ max ≤ {MAX_DEALER_LEVEL})",
                self.dealer_start_level, self.dealer_max_level
            ));
        }
        let t = &self.time;
        for (what, secs) in [
            ("first_discard_secs", t.first_discard_secs),
            ("discard_secs", t.discard_secs),
            ("claim_secs", t.claim_secs),
        ] {
            if !(1..=MAX_DECISION_SECS).contains(&secs) {
                return bad(format!("time.{what} {secs} (1–{MAX_DECISION_SECS} s)"));
            }
        }
        if t.bank_secs > MAX_DECISION_SECS {
            return bad(format!(
                "time.bank_secs {} (0–{MAX_DECISION_SECS} s)",
                t.bank_secs
            ));
        }
        Ok(())
    }
}

/// Largest 飘.
pub const MAX_PIAO: u8 = 10;
/// Longest rule set name.
const MAX_NAME: usize = 64;
/// Most deals per round.
const MAX_HANDS_PER_ROUND: u8 = 16;
/// Most never-drawn tiles: the wall must still deal every hand with room to play.
const MAX_DEAD_WALL: u8 = 40;
/// Highest dealer level: the dealer multiplier is 2^level.
pub const MAX_DEALER_LEVEL: u8 = 6;
/// Longest decision time limit (an hour).
const MAX_DECISION_SECS: u32 = 3600;

/// Why a rule set cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unplayable rules: {0}")]
pub struct RulesError(pub String);

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
        // The fields added later are not written for guobiao, so its records are unchanged.
        assert!(!json.contains("scoring") && !json.contains("dead_wall"));
    }

    #[test]
    fn old_records_without_the_new_fields_read_as_guobiao() {
        let json = serde_json::to_string(&RuleSet::guobiao()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let back: RuleSet = serde_json::from_value(v).unwrap();
        assert_eq!(back, RuleSet::guobiao());
        assert!(back.rob_kong && back.kong_min_wall == 1);
    }

    #[test]
    fn presets_are_valid_and_bad_combinations_are_not() {
        for name in RuleSet::preset_names() {
            RuleSet::preset(name).unwrap().validate().unwrap();
        }
        let flipped_with_flowers = RuleSet {
            flowers: true,
            wild: WildRule::Flipped,
            ..RuleSet::hangzhou()
        };
        let e = flipped_with_flowers.validate().unwrap_err();
        assert!(e.to_string().contains("flipped wild"), "{e}");
        let mut r = RuleSet::hangzhou();
        r.dealer_max_level = 255;
        assert!(
            r.validate()
                .unwrap_err()
                .to_string()
                .contains("dealer levels")
        );
        let mut r = RuleSet::guobiao();
        r.time.claim_secs = 0;
        assert!(r.validate().unwrap_err().to_string().contains("claim_secs"));
        let mut r = RuleSet::guobiao();
        r.dead_wall = 200;
        assert!(r.validate().is_err());
        let mut r = RuleSet::guobiao();
        r.wild = WildRule::FixedWhite;
        assert!(r.validate().is_err());
    }

    #[test]
    fn unknown_fields_are_refused() {
        let mut v = serde_json::to_value(RuleSet::guobiao()).unwrap();
        v["min_point"] = 0.into();
        let e = serde_json::from_value::<RuleSet>(v).unwrap_err();
        assert!(e.to_string().contains("min_point"), "{e}");
    }

    #[test]
    fn hangzhou_presets_round_trip() {
        for name in ["hangzhou", "hangzhou-mil"] {
            let r = RuleSet::preset(name).unwrap();
            assert_eq!(r.tile_count(), 136);
            assert_eq!(r.wild, WildRule::FixedWhite);
            let json = serde_json::to_string(&r).unwrap();
            let back: RuleSet = serde_json::from_str(&json).unwrap();
            assert_eq!(back, r);
            assert!(RuleSet::preset_names().contains(&r.name.as_str()));
        }
        assert_eq!(RuleSet::hangzhou_mil().hangzhou_scoring().unwrap().cap, 4);
    }

    #[test]
    fn a_tongcheng_preset_named_with_piao_chooses_it_each_hand_and_no_other_does() {
        let r = RuleSet::preset("tongcheng-paofeng-piao").unwrap();
        assert_eq!(r.name, "tongcheng-paofeng-piao");
        assert_eq!(r.piao, Piao::Chosen([0; 4]));
        assert_eq!(
            Some(r),
            RuleSet::tongcheng_paofeng().with_piao_each_hand(),
            "the same rules as with_piao_each_hand"
        );
        for name in ["guobiao-piao", "tongcheng-dianpao-piao-piao", "-piao"] {
            assert!(RuleSet::preset(name).is_none(), "{name}");
        }
    }

    #[test]
    fn tongcheng_presets_round_trip_and_refuse_bad_combinations() {
        for name in ["tongcheng-dianpao", "tongcheng-paofeng"] {
            let r = RuleSet::preset(name).unwrap();
            assert_eq!(r.name, name);
            assert_eq!(r.tile_count(), 136);
            assert!(!r.chows);
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<RuleSet>(&json).unwrap(), r);
            r.validate().unwrap();
        }
        assert_eq!(
            RuleSet::preset("tongcheng").unwrap(),
            RuleSet::tongcheng_dianpao()
        );
        let dp = RuleSet::tongcheng_dianpao();
        assert!(dp.multiple_winners && dp.kong_payments && dp.missed_pung_lock);
        assert_eq!(dp.discard_wins, DiscardWins::Any);
        assert_eq!(dp.dealer, DealerRule::WinnerOrLastDraw);
        let pf = RuleSet::tongcheng_paofeng();
        assert_eq!(pf.wild, WildRule::FlippedNext);
        assert_eq!(pf.discard_wins, DiscardWins::Never);
        // The 跑风 wild needs the 跑风 scorer and self-draw only; 飘 is bounded.
        let bad = [
            RuleSet {
                wild: WildRule::FlippedNext,
                ..RuleSet::tongcheng_dianpao()
            },
            RuleSet {
                wild: WildRule::None,
                ..RuleSet::tongcheng_paofeng()
            },
            RuleSet {
                discard_wins: DiscardWins::Any,
                ..RuleSet::tongcheng_paofeng()
            },
            RuleSet {
                piao: Piao::Fixed(200),
                ..RuleSet::tongcheng_dianpao()
            },
            RuleSet {
                piao: Piao::Chosen([0, 11, 0, 0]),
                ..RuleSet::tongcheng_dianpao()
            },
            RuleSet {
                discard_wins: DiscardWins::DealerLevel3,
                ..RuleSet::tongcheng_dianpao()
            },
        ];
        for r in bad {
            assert!(r.validate().is_err(), "{r:?}");
        }
        // The Tongcheng fields are not written for the older presets.
        let json = serde_json::to_string(&RuleSet::hangzhou()).unwrap();
        for field in [
            "chows",
            "pung_limit",
            "multiple_winners",
            "kong_payments",
            "piao",
        ] {
            assert!(!json.contains(&format!("\"{field}\":")), "{field}");
        }
    }
}
