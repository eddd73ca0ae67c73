//! Players that decide by themselves. A bot sees only its seat's view — the type system makes
//! anything else impossible: [`Bot::choose`] receives a [`SeatView`] and nothing more — and is
//! deterministic given its own seed, so a game with bots replays exactly.
//!
//! Three levels:
//! - **easy** plays towards a win by shanten alone, claims greedily, never defends;
//! - **normal** discards by shanten and then by live useful tiles (copies not yet seen),
//!   claims only when the claim brings it closer and the hand keeps some value;
//! - **hard** plans for a hand that can reach the 8-point minimum (flushes, straights, mixed
//!   triple chows, all pungs, seven pairs, knitted hands …), checks that its waits actually
//!   pay, weighs value against speed, and defends when it is far from winning and someone
//!   looks ready.

pub mod eval;
pub mod knowledge;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::game::{Action, Decision, DecisionKind, SeatView};
use crate::hand::{KongKind, Meld, MeldKind};
use crate::shanten::{after_each_discard, shanten_number};
use crate::tile::{Tile, TileCounts};
use eval::{Progress, danger, progress, valid_waits, value};
use knowledge::Knowledge;

/// Chooses one of the legal actions of a pending decision.
pub trait Bot: Send {
    /// `view.decision` is present whenever the host asks.
    fn choose(&mut self, view: &SeatView) -> Action;

    /// The choice from the pending decision alone, for bots that need no table (the host
    /// then skips building a view); `None` asks for [`Bot::choose`].
    fn choose_fast(&mut self, _decision: &Decision) -> Option<Action> {
        None
    }

    /// A new hand begins: the host hands over this hand's seed, so every hand's choices
    /// depend on the table's seed, the hand and the seat alone.
    fn new_hand(&mut self, _seed: u64) {}
}

/// The simplest player: wins whenever it may, otherwise picks a random legal action. Used by
/// `tongcheng simulate` to exercise every corner of the engine.
#[derive(Clone, Debug)]
pub struct SimplePlayer {
    rng: ChaCha8Rng,
}

impl SimplePlayer {
    pub fn new(seed: u64) -> SimplePlayer {
        SimplePlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The choice among `legal` (non-empty): a win if offered, else a random action.
    pub fn pick(&mut self, legal: &[Action]) -> Action {
        if legal.contains(&Action::Win) {
            return Action::Win;
        }
        legal[(self.rng.next_u32() as usize) % legal.len()]
    }
}

/// Plays a whole hand with four simple players on a [`crate::table::Table`] whose bot seed
/// is `player_seed`: the tests' and benchmarks' source of real records.
pub fn play_simple_hand(setup: crate::game::HandSetup, player_seed: u64) -> crate::game::Game {
    use crate::table::{Clock, Deal, Player, Step, Table, TableConfig};
    let mut t = Table::new(TableConfig {
        deal: Deal::Hand(setup),
        players: [Player::Random; 4],
        bot_seed: player_seed,
        clock: Clock::Off,
    });
    while t.step(0) != Step::HandOver {}
    t.into_game()
}

/// `n` finished hands under `rules`, played by [`play_simple_hand`] from `seed` (dealers and
/// winds in turn): the records the server's tests and bench upload and verify.
///
/// # Panics
/// Never in practice: a hand played to its end always makes a record.
pub fn simple_hand_records(
    rules: &crate::rules::RuleSet,
    n: usize,
    seed: u64,
) -> Vec<crate::record::HandRecord> {
    use crate::seat::{Seat, Wind};
    let base = crate::wall::Seed::from_u64(seed);
    (0..n as u64)
        .map(|i| {
            let setup = crate::game::HandSetup {
                rules: rules.clone(),
                seed: base.derive(i),
                dealer: Seat((i % 4) as u8),
                prevalent: Wind::from_index((i / 4 % 4) as usize),
                dealer_level: 0,
            };
            crate::record::HandRecord::of(&play_simple_hand(setup, seed ^ i))
                .expect("a hand played to its end makes a record")
        })
        .collect()
}

impl Bot for SimplePlayer {
    fn choose(&mut self, view: &SeatView) -> Action {
        match &view.decision {
            Some(d) => self.pick(&d.legal),
            None => Action::Pass,
        }
    }

    fn choose_fast(&mut self, decision: &Decision) -> Option<Action> {
        Some(self.pick(&decision.legal))
    }

    fn new_hand(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// A bot's strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Easy,
    Normal,
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Normal, Level::Hard];

    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        match s {
            "easy" => Ok(Level::Easy),
            "normal" => Ok(Level::Normal),
            "hard" => Ok(Level::Hard),
            _ => Err(format!("'{s}' is not a bot level (easy, normal, hard)")),
        }
    }
}

/// A bot of one level.
#[derive(Clone, Debug)]
pub struct LevelBot {
    level: Level,
    rng: ChaCha8Rng,
}

impl LevelBot {
    pub fn new(level: Level, seed: u64) -> LevelBot {
        LevelBot {
            level,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    pub fn level(&self) -> Level {
        self.level
    }
}

impl Bot for LevelBot {
    fn new_hand(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    fn choose(&mut self, view: &SeatView) -> Action {
        let Some(d) = &view.decision else {
            return Action::Pass;
        };
        if d.legal.contains(&Action::Win) {
            if self.level == Level::Hard && self_draw_is_worth_more(view) {
                return Action::Pass;
            }
            if self.level != Level::Easy
                && let Some(piao) = piao_instead_of_winning(view, &d.legal)
            {
                return piao;
            }
            return Action::Win;
        }
        if d.legal.len() == 1 {
            return d.legal[0];
        }
        // 补花: a flower tile (发 in the Tongcheng games) is dead weight that blocks the win;
        // setting it aside draws a replacement, and it pays +1.
        if let Some(f) = view.flower_tile
            && d.kind == DecisionKind::Turn
            && d.legal.contains(&Action::Discard(f))
        {
            return Action::Discard(f);
        }
        // Kong money (桐城): a kong is paid on the spot, 3 to 6 points where a win pays 1 or
        // 2, and kept even in a drawn hand: take every kong on offer.
        if view.rules.kong_payments
            && self.level != Level::Easy
            && let Some(a) = d.legal.iter().find(|a| {
                matches!(
                    a,
                    Action::ConcealedKong(_) | Action::AddedKong(_) | Action::Kong
                )
            })
        {
            return *a;
        }
        // Tongcheng claims without wilds: every win pays, so a pung is taken whenever it
        // brings the hand closer (no fan minimum to protect).
        if let (None, DecisionKind::Claim { tile }, Some(_)) =
            (view.wild, d.kind, view.rules.tongcheng_table())
            && self.level != Level::Easy
        {
            let k = Knowledge::from_view(view);
            // The hard bot also takes a pung that keeps the distance where kong money is
            // paid: the fourth tile later makes an added kong (+3).
            let eager = self.level == Level::Hard && view.rules.kong_payments;
            return closer_claim(&k, tile, &d.legal, eager);
        }
        // Wild rules (Hangzhou): keep the wilds, judge discards by shanten with wilds.
        if let (Some(wild), DecisionKind::Turn) = (view.wild, d.kind) {
            let k = Knowledge::from_view(view);
            return self.wild_turn(&k, &d.legal, wild);
        }
        // Under wild rules a claim is judged with the wilds as jokers.
        if let (Some(wild), DecisionKind::Claim { tile }) = (view.wild, d.kind)
            && self.level != Level::Easy
        {
            let k = Knowledge::from_view(view);
            // 翻财神's 白 plays the face in chows; 跑风 has no chow (its 中 counts as itself).
            let white_as = (view.stand_in == Some(Tile::WHITE))
                .then_some(view.wild_indicator)
                .flatten();
            return wild_claim(&k, tile, &d.legal, wild, white_as);
        }
        // Most claim windows are decided by the hand alone: a tile that would not help even
        // as a draw is passed without reading the rest of the table (kongs aside).
        if let DecisionKind::Claim { tile } = d.kind
            && self.level != Level::Easy
            && !d.legal.contains(&Action::Kong)
        {
            let hand = TileCounts::from_tiles(&view.hand);
            let melds = view
                .seats
                .iter()
                .find(|s| s.seat == view.seat)
                .map_or(0, |s| s.melds.len());
            let mut with = hand;
            with.add(tile);
            if shanten_number(&with, melds) >= shanten_number(&hand, melds) {
                return Action::Pass;
            }
        }
        let k = Knowledge::from_view(view);
        match d.kind {
            DecisionKind::Turn => self.turn(&k, &d.legal),
            DecisionKind::Claim { tile } => self.claim(&k, tile, &d.legal),
            DecisionKind::RobKong { .. } => Action::Pass,
        }
    }
}

/// One candidate discard, judged.
#[derive(Clone, Debug)]
pub struct DiscardJudgement {
    pub tile: Tile,
    pub progress: Progress,
    /// Live copies of waits that reach the minimum (ready hands only).
    pub valid_waits: Option<u32>,
    pub value: f32,
    pub danger: f32,
    pub score: f32,
}

/// The hard bot's weights: speed (per live useful tile, capped), value, defence when far
/// (shanten ≥ 2) and when one step away, and the value a claim must keep. Tuned in the arena
/// (`tongcheng simulate --seats hard,normal,normal,normal --duplicate`): a larger speed cap
/// or weight makes the bot chase fast hands that cannot reach 8 points and lose.
const HARD_WEIGHTS: [f32; 6] = [0.35, 30.0, 6.0, 3.0, 1.0, 7.5];

/// How much a likely self-draw (its chance times its six-fold price) must be worth, in
/// discard wins, before the hard bot lets a discard win go (桐城点炮).
const SELF_DRAW_PASS: f32 = 2.2;

/// How many live useful tiles a discard's danger (times the strongest threat) outweighs in
/// the hard bot's fast play (桐城).
const DEFENCE: f32 = 12.0;

fn tuning() -> [f32; 6] {
    HARD_WEIGHTS
}

/// Judges every discard of a 14-tile turn the way the hard bot does, best first.
pub fn judge_discards(k: &Knowledge, legal: &[Action]) -> Vec<DiscardJudgement> {
    let melds = k.melds.len();
    let mut out: Vec<DiscardJudgement> = Vec::new();
    let mut which = 0u64;
    for a in legal {
        if let Action::Discard(t) = *a {
            which |= 1 << t.index();
        }
    }
    // Discards two or more steps behind the best are not scored: no useful tiles needed.
    let each = eval::progress_after_each_discard(k, &k.hand, melds, which, 1);
    for a in legal {
        let Action::Discard(t) = *a else { continue };
        out.push(DiscardJudgement {
            tile: t,
            progress: each[t.index()],
            valid_waits: None,
            value: 0.0,
            danger: danger(k, t),
            score: 0.0,
        });
    }
    let best = out.iter().map(|j| j.progress.shanten).min().unwrap_or(8);
    // Own distance sets the mood: far from winning and facing a threat, safety first.
    let max_threat = k
        .opponents
        .iter()
        .map(|o| eval::threat(k, o))
        .fold(0.0f32, f32::max);
    let w = tuning();
    let defend = if best >= 2 {
        max_threat * w[3]
    } else if best == 1 {
        max_threat * w[4]
    } else {
        0.3 * max_threat
    };
    for j in &mut out {
        let mut c = k.hand;
        c.remove(j.tile);
        let s = j.progress.shanten;
        if s > best + 1 {
            j.score = -1000.0 - s as f32;
            continue;
        }
        j.value = value(k, &c, &k.melds);
        let mut speed = j.progress.live as f32;
        let mut step = s as f32;
        if s == 0 {
            let (valid, _all, best_pts) = valid_waits(k, &c, &k.melds, j.progress.useful);
            j.valid_waits = Some(valid);
            if valid == 0 {
                // Ready but unable to reach the minimum: as good as one step further.
                step = 1.0;
                speed = 0.0;
            } else {
                speed = valid as f32 * 1.5;
                j.value = j.value.max(best_pts as f32);
            }
        }
        if s == 1 && best == 1 {
            // One step from ready: count the draws that lead to a ready hand whose waits pay,
            // weighted by how many paying tiles that ready hand would wait on.
            let (good, paying) = paying_draws(k, &c);
            speed = good as f32 * 0.8 + (paying as f32).min(40.0) * 0.05;
            if good == 0 {
                step += 0.5;
            }
        }
        let worth = if j.value >= 8.0 { 1.0 } else { j.value / 8.0 };
        j.score = -12.0 * step + w[0] * speed.min(w[1]) + w[2] * worth - 6.0 * defend * j.danger;
    }
    // Equal scores (speed is capped, so two discards far from ready often tie): the one
    // with more live useful tiles first, then notation order.
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.progress.live.cmp(&a.progress.live))
            .then(a.tile.cmp(&b.tile))
    });
    out
}

/// For a hand one step from ready (`c`, 13 tiles): the live draws after which some discard
/// leaves a ready hand with paying waits, and the paying live tiles summed over those draws.
fn paying_draws(k: &Knowledge, c: &TileCounts) -> (u32, u32) {
    let melds = k.melds.len();
    let p = progress(k, c, melds);
    let mut good = 0u32;
    let mut paying = 0u32;
    for t in p.useful.iter() {
        let live = k.live(t) as u32;
        if live == 0 {
            continue;
        }
        let mut with = *c;
        with.add(t);
        let mut best_valid = 0u32;
        let each = eval::progress_after_each_discard(k, &with, melds, u64::MAX, 0);
        for d in with.kinds() {
            if each[d.index()].shanten != 0 {
                continue;
            }
            let mut r = with;
            r.remove(d);
            let (valid, _, _) = valid_waits(k, &r, &k.melds, each[d.index()].useful);
            best_valid = best_valid.max(valid);
        }
        if best_valid > 0 {
            good += live;
            paying += live * best_valid;
        }
    }
    (good, paying)
}

/// 自摸双倍 (桐城点炮): a discard win is paid once by the discarder, a self-draw twice by each
/// of the three others — six times as much. With live winning tiles and draws left, letting
/// a discard go (the 漏胡 lock bars discard wins until the next own draw) for the likely
/// self-draw pays more; the chance is discounted for the others winning first.
fn self_draw_is_worth_more(view: &SeatView) -> bool {
    let Some(d) = &view.decision else {
        return false;
    };
    if !matches!(d.kind, DecisionKind::Claim { .. })
        || view.rules.tongcheng_table() != Some(crate::rules::TongchengTable::Dianpao)
        || view.wild.is_some()
    {
        return false;
    }
    let k = Knowledge::from_view(view);
    let melds = k.melds.len();
    let complete = |c: &TileCounts| {
        crate::score::hangzhou::standard_complete(c, 0, melds)
            || crate::score::hangzhou::seven_pairs_complete(c, 0, melds)
    };
    let (mut live, mut unseen) = (0u32, 0u32);
    for t in Tile::all_kinds() {
        let n = u32::from(k.live(t));
        unseen += n;
        let mut with = k.hand;
        with.add(t);
        if with.get(t) <= 4 && Some(t) != view.flower_tile && complete(&with) {
            live += n;
        }
    }
    if live == 0 || unseen == 0 {
        return false;
    }
    let draws = (view.wall_remaining / 4) as i32;
    let miss = (1.0 - live as f32 / unseen as f32).powi(draws);
    (1.0 - miss) * 0.6 * 6.0 > SELF_DRAW_PASS
}

/// 飘 chosen each hand (桐城): the stake a bot adds before the hand, by a simple rule — 1
/// when its dealt hand is three steps or fewer from ready over the game's shapes (wilds as
/// jokers), else 0. A stake raises what the bot wins and what it pays alike, so it is put
/// only on a hand that starts near a win.
pub fn piao_choice(view: &SeatView) -> u8 {
    let k = Knowledge::from_view(view);
    let melds = k.melds.len();
    let distance = match view.wild {
        Some(w) => wild_distance(&k, &k.hand, w, melds).map_or(8, |s| s.shanten),
        None => k.best(&k.hand, melds).map_or(8, |s| s.shanten),
    };
    u8::from(distance <= 3)
}

/// 财飘: holding a win that is 爆头 with a spare wild, a wild discard keeps the 爆头 wait and
/// doubles the next win, so with tiles to spare the bot throws the wild instead of winning.
fn piao_instead_of_winning(view: &SeatView, legal: &[Action]) -> Option<Action> {
    // 财飘 is a Hangzhou element; other wild games pay nothing for it.
    view.rules.hangzhou_scoring()?;
    let wild = view.wild?;
    let drawn = view.drawn?;
    let piao = Action::Discard(wild);
    if !legal.contains(&piao) || view.wall_remaining < 40 {
        return None;
    }
    let mut hand = TileCounts::from_tiles(&view.hand);
    hand.add(drawn);
    if hand.get(wild) < 2 {
        return None;
    }
    let melds = view
        .seats
        .iter()
        .find(|s| s.seat == view.seat)
        .map_or(0, |s| s.melds.len());
    let white_as = view.wild_indicator.filter(|&t| t != Tile::WHITE);
    hand.remove(wild);
    crate::score::hangzhou::is_baotou_state(&hand, melds, Some(wild), white_as).then_some(piao)
}

impl LevelBot {
    /// A turn under wild rules: never discard a wild while another discard is legal; the
    /// fewest steps to a win with the wilds as jokers first, then (normal) the loosest tile or
    /// (hard) the most live useful tiles; easy picks at random among the fastest.
    fn wild_turn(&mut self, k: &Knowledge, legal: &[Action], wild: Tile) -> Action {
        let melds = k.melds.len();
        if self.level != Level::Easy
            && let Some(a) = legal
                .iter()
                .find(|a| matches!(a, Action::ConcealedKong(_) | Action::AddedKong(_)))
        {
            return *a;
        }
        let mut best: Vec<(i8, i32, Tile)> = Vec::new();
        for a in legal {
            let Action::Discard(t) = *a else { continue };
            if t == wild
                && legal
                    .iter()
                    .any(|x| matches!(x, Action::Discard(o) if *o != wild))
            {
                continue;
            }
            let mut c = k.hand;
            c.remove(t);
            let (s, useful) = match wild_distance(k, &c, wild, melds) {
                Some(w) => {
                    let shape = match w.seven_pairs {
                        Some(p) if p.shanten < w.regular.shanten => p,
                        _ => w.regular,
                    };
                    (w.shanten, shape.useful)
                }
                None => (8, crate::tile::TileSet::EMPTY),
            };
            let tie = match self.level {
                Level::Hard => useful.iter().map(|u| k.live(u) as i32).sum::<i32>(),
                Level::Normal => isolation(&k.hand, t),
                Level::Easy => 0,
            };
            best.push((s, tie, t));
        }
        let Some(&(s0, _, _)) = best.iter().min_by_key(|b| b.0) else {
            return legal[0];
        };
        best.retain(|b| b.0 == s0);
        let top = best.iter().map(|b| b.1).max().unwrap_or(0);
        best.retain(|b| b.1 == top);
        let i = (self.rng.next_u32() as usize) % best.len();
        Action::Discard(best[i].2)
    }

    fn turn(&mut self, k: &Knowledge, legal: &[Action]) -> Action {
        let melds = k.melds.len();
        match self.level {
            Level::Easy => {
                if let Some(a) = legal
                    .iter()
                    .find(|a| matches!(a, Action::ConcealedKong(_) | Action::AddedKong(_)))
                {
                    return *a;
                }
                let mut best = Vec::new();
                let mut best_s = i8::MAX;
                let after = k.after_each_discard(&k.hand, melds);
                for a in legal {
                    let Action::Discard(t) = *a else { continue };
                    let s = after[t.index()];
                    if s < best_s {
                        best_s = s;
                        best.clear();
                    }
                    if s == best_s {
                        best.push(*a);
                    }
                }
                best[(self.rng.next_u32() as usize) % best.len()]
            }
            Level::Normal => self.fast_turn(k, legal, 0.0),
            // Where fans do not pay (桐城) the hard bot plays the normal bot's fastest hand,
            // steering its discard away from danger when someone threatens.
            Level::Hard if !k.fans_pay => {
                let threat = k
                    .opponents
                    .iter()
                    .map(|o| eval::threat(k, o))
                    .fold(0.0f32, f32::max);
                self.fast_turn(k, legal, threat)
            }
            Level::Hard => {
                let judged = judge_discards(k, legal);
                let best = &judged[0];
                if let Some(kong) = self.worthwhile_kong(k, legal, best.progress.shanten) {
                    return kong;
                }
                Action::Discard(best.tile)
            }
        }
    }

    /// The fewest steps to a win first, then the most live useful tiles less `threat` times
    /// the tile's danger, then the loosest tile; a kong that does not set the hand back.
    fn fast_turn(&mut self, k: &Knowledge, legal: &[Action], threat: f32) -> Action {
        let melds = k.melds.len();
        {
            {
                // Fewest steps first, then the most live useful tiles, then the loosest tile.
                let mut discards = 0u64;
                for a in legal {
                    if let Action::Discard(t) = *a {
                        discards |= 1 << t.index();
                    }
                }
                let each = k
                    .best_after_each_discard(&k.hand, melds, discards, 0)
                    .expect("a turn holds 14 tiles counting melds as 3");
                let best_s = each
                    .iter()
                    .map(|e| e.shanten)
                    .min()
                    .expect("a turn offers a discard");
                let mut best: Option<(f32, i32, Tile)> = None;
                for a in legal {
                    let Action::Discard(t) = *a else { continue };
                    if each[t.index()].shanten != best_s {
                        continue;
                    }
                    let mut live = eval::live_count(k, each[t.index()].useful) as f32;
                    if threat > 0.0 {
                        live -= DEFENCE * threat * danger(k, t);
                    }
                    let key = (live, isolation(&k.hand, t), t);
                    if best.is_none_or(|b| (key.0, key.1) > (b.0, b.1)) {
                        best = Some(key);
                    }
                }
                let discard = Action::Discard(best.expect("at least one best discard").2);
                if let Some(kong) = self.worthwhile_kong(k, legal, best_s) {
                    return kong;
                }
                discard
            }
        }
    }

    /// A kong that does not set the hand back: declare it (a free draw and points).
    fn worthwhile_kong(&self, k: &Knowledge, legal: &[Action], best_shanten: i8) -> Option<Action> {
        for a in legal {
            let (t, n) = match *a {
                Action::ConcealedKong(t) => (t, 4),
                Action::AddedKong(t) => (t, 1),
                _ => continue,
            };
            let mut c = k.hand;
            c.0[t.index()] -= n;
            let melds = if n == 4 {
                k.melds.len() + 1
            } else {
                k.melds.len()
            };
            if k.shanten(&c, melds) <= best_shanten {
                return Some(*a);
            }
        }
        None
    }

    fn claim(&mut self, k: &Knowledge, tile: Tile, legal: &[Action]) -> Action {
        let claims: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|a| *a != Action::Pass)
            .collect();
        if claims.is_empty() {
            return Action::Pass;
        }
        if self.level == Level::Easy {
            // Greedy: the biggest claim on offer.
            return *claims
                .iter()
                .find(|a| **a == Action::Kong)
                .or_else(|| claims.iter().find(|a| **a == Action::Pung))
                .unwrap_or(&claims[0]);
        }
        let melds = k.melds.len();
        let now = shanten_number(&k.hand, melds);
        // A claim fixes how the tile is used, so it can only advance the hand if drawing the
        // same tile would: when it would not, only a kong (which draws again) is worth a look.
        let mut with = k.hand;
        with.add(tile);
        let tile_helps = shanten_number(&with, melds) < now;
        let claims: Vec<Action> = claims
            .into_iter()
            .filter(|a| tile_helps || *a == Action::Kong)
            .collect();
        let mut now_value: Option<f32> = None;
        let mut best: Option<(f32, Action)> = None;
        for a in claims {
            let Some((after, new_melds)) = after_claim(k, tile, a, None) else {
                continue;
            };
            // Shanten after the claim and its best discard (a kong draws instead).
            let (s, discards): (i8, Vec<Tile>) = if a == Action::Kong {
                (shanten_number(&after, new_melds.len()), Vec::new())
            } else {
                let mut best_s = i8::MAX;
                let mut ds = Vec::new();
                let each = after_each_discard(&after, new_melds.len());
                for d in after.kinds() {
                    let s = each[d.index()];
                    if s < best_s {
                        best_s = s;
                        ds.clear();
                    }
                    if s == best_s {
                        ds.push(d);
                    }
                }
                (best_s, ds)
            };
            let advances = s < now || (a == Action::Kong && s <= now);
            if !advances {
                continue;
            }
            // Only a claim that advances is worth judging for value.
            let v = if discards.is_empty() {
                value(k, &after, &new_melds)
            } else {
                discards
                    .iter()
                    .map(|&d| {
                        let mut c = after;
                        c.remove(d);
                        value(k, &c, &new_melds)
                    })
                    .fold(0.0f32, f32::max)
            };
            let threshold = match self.level {
                Level::Normal => 5.0,
                _ => tuning()[5],
            };
            let keeps_value = v >= threshold
                || (self.level == Level::Normal
                    && v >= *now_value.get_or_insert_with(|| value(k, &k.hand, &k.melds)));
            if keeps_value {
                let score = v - 3.0 * s as f32;
                if best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((score, a));
                }
            }
        }
        best.map_or(Action::Pass, |b| b.1)
    }
}

/// A pung or kong that brings the hand closer to a win (a kong: no further away), else a
/// pass: for rules where every win pays the same whatever its fans.
fn closer_claim(k: &Knowledge, tile: Tile, legal: &[Action], eager: bool) -> Action {
    let now = k.shanten(&k.hand, k.melds.len());
    for a in [Action::Kong, Action::Pung] {
        if !legal.contains(&a) {
            continue;
        }
        let Some((after, melds)) = after_claim(k, tile, a, None) else {
            continue;
        };
        let s = if a == Action::Kong {
            k.shanten(&after, melds.len())
        } else {
            let each = k.after_each_discard(&after, melds.len());
            after
                .kinds()
                .map(|d| each[d.index()])
                .min()
                .unwrap_or(i8::MAX)
        };
        if s < now || ((a == Action::Kong || eager) && s <= now) {
            return a;
        }
    }
    Action::Pass
}

/// A claim under wild rules (Hangzhou). With the wilds as jokers the hand's distance is the
/// wild-aware shanten (standard shape or seven pairs), so a claim is taken only when it brings
/// the hand closer than it is now — which also weighs the seven pairs (×2) a meld gives up —
/// and a kong when it keeps the distance (a free draw and a 杠开 chance). There is no point
/// minimum to protect: every Hangzhou win pays.
/// The shanten of `c` with `melds` declared, the wilds as jokers and the stand-in (白 under
/// 翻财神, 中 under 跑风) counted as the face it plays: what the bots rank wild turns and
/// claims by, and what the hints report. `None` for an impossible hand.
pub fn wild_distance(
    k: &Knowledge,
    c: &TileCounts,
    wild: Tile,
    melds: usize,
) -> Option<crate::shanten::WildShanten> {
    let (real, wilds) = k.split_wilds(c, wild);
    crate::shanten::analyze_wild(&real, wilds, wild, melds).ok()
}

fn wild_claim(
    k: &Knowledge,
    tile: Tile,
    legal: &[Action],
    wild: Tile,
    white_as: Option<Tile>,
) -> Action {
    let distance = |c: &TileCounts, melds: usize| -> i8 {
        wild_distance(k, c, wild, melds).map_or(8, |w| w.shanten)
    };
    let now = distance(&k.hand, k.melds.len());
    let mut best: Option<(i8, u8, Action)> = None;
    for &a in legal {
        let rank = match a {
            Action::Kong => 0,
            Action::Pung => 1,
            Action::Chow(_) => 2,
            _ => continue,
        };
        let Some((after, melds)) = after_claim(k, tile, a, white_as) else {
            continue;
        };
        // A kong draws next; a chow or pung must discard first, and never a wild (a hand the
        // claim completes is not a win: Hangzhou wins are drawn).
        let s = if a == Action::Kong {
            distance(&after, melds.len())
        } else {
            after
                .kinds()
                .filter(|&d| d != wild)
                .map(|d| {
                    let mut c = after;
                    c.remove(d);
                    distance(&c, melds.len())
                })
                .min()
                .unwrap_or(8)
        };
        let advances = s < now || (a == Action::Kong && s <= now);
        if advances && best.is_none_or(|b| (s, rank) < (b.0, b.1)) {
            best = Some((s, rank, a));
        }
    }
    best.map_or(Action::Pass, |b| b.2)
}

/// The concealed hand and melds after claiming `tile` with `a`. Under 翻财神 (`white_as`) a
/// 白 plays the wild's face in a chow, held or discarded.
pub(crate) fn after_claim(
    k: &Knowledge,
    tile: Tile,
    a: Action,
    white_as: Option<Tile>,
) -> Option<(TileCounts, Vec<Meld>)> {
    let mut c = k.hand;
    let mut melds = k.melds.clone();
    match a {
        Action::Pung => {
            c.0[tile.index()] = c.0[tile.index()].checked_sub(2)?;
            melds.push(Meld::pung(tile, Some(tile), None).ok()?);
        }
        Action::Kong => {
            c.0[tile.index()] = c.0[tile.index()].checked_sub(3)?;
            melds.push(Meld::kong(tile, KongKind::Exposed, None).ok()?);
        }
        Action::Chow(low) => {
            let value = match white_as {
                Some(face) if tile == Tile::WHITE => face,
                _ => tile,
            };
            let mut whites = u8::from(value != tile);
            for d in 0..3 {
                let t = low.offset(d)?;
                if t == value {
                    continue;
                }
                if Some(t) == white_as {
                    // The face itself is wild: only a 白 plays it in a meld.
                    if !c.remove(Tile::WHITE) {
                        return None;
                    }
                    whites += 1;
                } else if !c.remove(t) {
                    return None;
                }
            }
            let mut m = Meld::chow(low, Some(value), None).ok()?;
            m.whites = whites;
            melds.push(m);
        }
        _ => return None,
    }
    debug_assert!(
        melds
            .iter()
            .all(|m| m.kind != MeldKind::Kong(KongKind::Concealed) || m.claimed.is_none())
    );
    Some((c, melds))
}

/// How loosely `t` sits in the hand: higher for lone honors and terminals (discard first).
fn isolation(hand: &TileCounts, t: Tile) -> i32 {
    let mut neighbours = hand.get(t) as i32 - 1;
    if t.is_suited() {
        for d in [-2i8, -1, 1, 2] {
            if let Some(n) = t.offset(d) {
                neighbours += hand.get(n) as i32;
            }
        }
    }
    let edge = if t.is_honor() {
        2
    } else if t.is_terminal() {
        1
    } else {
        0
    };
    edge - 2 * neighbours
}
