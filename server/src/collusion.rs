//! The collusion report over ranked history.
//!
//! Colluders at one table help each other in ways that leave traces in the records: one
//! feeds the other the tiles he wins on, passes claims that would have helped himself when
//! the tile is his partner's, and the partner wins on his discards far more often than on
//! the others'. Each ranked hand is replayed through the core's engine, and at every
//! decision of a person the bot of [`BOT_LEVEL`] is asked what it would have done from that
//! seat's view (it sees nothing more than the player did): that is the expectation an honest
//! player is measured against. The analysis is pure (records in, report out) and
//! deterministic (the bot's seed comes from the record's id), so the same history always
//! gives the same report.
//!
//! For each ordered pair (A, B) of accounts that shared at least `min_hands` ranked hands:
//!
//! - **feeds**: A's discards that B could have won on, against what the bot in A's seat
//!   predicts. Per discard, the chance that an honest player hands B a winning tile is
//!   `(1 − SLACK)·[the bot's discard lets B win] + SLACK·(share of A's discardable kinds that
//!   let B win)`: mostly the bot's choice, with some room for a person who plays differently
//!   but not towards B. Observed minus expected, over the Poisson-binomial spread, is a
//!   z-score.
//! - **passed_claims**: claims on B's discards that the bot in A's seat would have taken (a
//!   win, a pung, a kong or a chow) and A passed, against A's own rate of passing such claims
//!   on everyone else's discards (so a cautious player is compared with himself).
//! - **wins_on_discards**: B's wins on a discard that were A's discards, against an even
//!   share (one in three: three others discard).
//!
//! A measure flags the pair when its z-score reaches [`Thresholds::z`] and the observed count
//! reaches [`Thresholds::min_observed`] (a z-score on two events means little). `deal_ins`
//! (A's discards B actually won on) is reported alongside; seen from B it is the same count
//! as B's wins on A's discards.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

pub use tongcheng_api::admin::{Measure, MeasureName, PairReport, Report, Thresholds};
use tongcheng_core::Seat;
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Action, DecisionKind, Game};
use tongcheng_core::record::{HandRecord, Verifier};
use tongcheng_core::tile::Tile;

/// The bots whose play is the expectation: the level the server seats at ranked tables.
pub const BOT_LEVEL: Level = Level::Normal;

/// How far an honest person may stray from the bot's discard (see the module's notes).
pub const SLACK: f64 = 0.25;

/// The share of B's discard wins expected from any one of the three other seats.
pub const EVEN_SHARE: f64 = 1.0 / 3.0;

/// The lowest pass rate a player's own habit is taken to be: a player who never passed a
/// helpful claim on others is not flagged for passing one on B.
pub const PASS_RATE_FLOOR: f64 = 0.05;

/// A spread below this (few trials, near-certain expectations) is taken as this, so a
/// single surprise cannot make a huge z-score.
pub const MIN_VARIANCE: f64 = 1.0;

/// One ranked hand as the report reads it: the account in each of the record's seats
/// (`None` for a bot) and the record.
#[derive(Clone, Debug)]
pub struct RankedRecord {
    pub accounts: [Option<i64>; 4],
    pub record: HandRecord,
}

/// One measure: `observed` of `trials` against `expected` with its `variance`.
fn measure(trials: u32, observed: u32, expected: f64, variance: f64, t: &Thresholds) -> Measure {
    let z = z_score(f64::from(observed), expected, variance);
    Measure {
        trials,
        observed,
        expected: round3(expected),
        z: round3(z),
        flagged: z >= t.z && observed >= t.min_observed,
    }
}

/// The highest z-score of a pair's measures (the report's order).
fn top_z(p: &PairReport) -> f64 {
    p.feeds.z.max(p.passed_claims.z).max(p.wins_on_discards.z)
}

/// `(observed − 0.5 − expected) / √variance`: one-sided, with a continuity correction, the
/// variance floored at [`MIN_VARIANCE`].
pub fn z_score(observed: f64, expected: f64, variance: f64) -> f64 {
    (observed - 0.5 - expected) / variance.max(MIN_VARIANCE).sqrt()
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Counts for one ordered pair of seats (or accounts), summed over hands.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairCounts {
    pub hands: u32,
    /// A's discards, and those B could have won on.
    pub discards: u32,
    pub feeds: u32,
    /// Σ p and Σ p(1 − p) of the honest chance of a feed per discard.
    pub feeds_expected: f64,
    pub feeds_variance: f64,
    pub deal_ins: u32,
    /// Claim windows on B's discards where the bot in A's seat would have claimed, and
    /// those A passed.
    pub helpful_windows: u32,
    pub helpful_passed: u32,
    /// B's wins on any discard in these hands, and those on A's.
    pub partner_discard_wins: u32,
    pub partner_wins_on_account: u32,
}

impl PairCounts {
    fn add(&mut self, o: &PairCounts) {
        self.hands += o.hands;
        self.discards += o.discards;
        self.feeds += o.feeds;
        self.feeds_expected += o.feeds_expected;
        self.feeds_variance += o.feeds_variance;
        self.deal_ins += o.deal_ins;
        self.helpful_windows += o.helpful_windows;
        self.helpful_passed += o.helpful_passed;
        self.partner_discard_wins += o.partner_discard_wins;
        self.partner_wins_on_account += o.partner_wins_on_account;
    }
}

/// A hand's counts by ordered pair of seats (`[a][b]`, a ≠ b), for the seats of `people`.
pub type HandCounts = [[PairCounts; 4]; 4];

/// A deterministic bot seed from the record's id.
fn seed_of(record: &HandRecord) -> u64 {
    let id = record.id.as_str();
    u64::from_str_radix(id.get(..16).unwrap_or("0"), 16).unwrap_or(0)
}

/// Which seats could win on `tile` if `seat` discarded it now (a copy of the game is played
/// one step on).
fn winners_on(game: &Game, seat: Seat, tile: Tile) -> [bool; 4] {
    let mut g = game.clone();
    if g.apply(seat, Action::Discard(tile)).is_err() {
        return [false; 4];
    }
    std::array::from_fn(|b| {
        b != seat.index() && g.legal_actions(Seat(b as u8)).contains(&Action::Win)
    })
}

/// Replays one hand and counts, for every ordered pair of the seats in `people`, what the
/// report measures. An error names why the record does not replay.
pub fn analyze_hand(record: &HandRecord, people: [bool; 4]) -> Result<HandCounts, String> {
    // Verified first, as an upload would be: the stored text is trusted no further than
    // that (a damaged row is refused here rather than replayed), and the result used below
    // is the replay's.
    static VERIFIER: LazyLock<Verifier> = LazyLock::new(|| Verifier::any_preset().allow_custom());
    let replayed = VERIFIER.verify(record).map_err(|e| e.to_string())?;
    let Some(result) = replayed.result() else {
        return Err("the hand is not over".into());
    };
    let mut counts: HandCounts = Default::default();
    let mut game = Game::new(record.setup.clone());
    let seed = seed_of(record);
    let mut bots: [LevelBot; 4] =
        std::array::from_fn(|s| LevelBot::new(BOT_LEVEL, seed ^ (s as u64 + 1)));
    let pair = |a: usize, b: usize| a != b && people[a] && people[b];
    for (i, a) in record.actions.iter().enumerate() {
        let s = a.seat.index();
        if s < 4 && people[s] && (0..4).any(|b| pair(s, b)) && game.is_pending(a.seat) {
            let view = game.view(a.seat);
            if let Some(d) = &view.decision {
                match (d.kind, a.action) {
                    (DecisionKind::Turn, Action::Discard(tile)) => {
                        let bot = bots[s].choose(&view);
                        let mut cache: HashMap<Tile, [bool; 4]> = HashMap::new();
                        let mut wins = |t: Tile| {
                            *cache
                                .entry(t)
                                .or_insert_with(|| winners_on(&game, a.seat, t))
                        };
                        let mut kinds: Vec<Tile> = d
                            .legal
                            .iter()
                            .filter_map(|x| match x {
                                Action::Discard(t) => Some(*t),
                                _ => None,
                            })
                            .collect();
                        kinds.sort();
                        kinds.dedup();
                        let actual = wins(tile);
                        let by_bot = match bot {
                            Action::Discard(t) => wins(t),
                            _ => [false; 4],
                        };
                        let each: Vec<[bool; 4]> = kinds.iter().map(|&t| wins(t)).collect();
                        for b in (0..4).filter(|&b| pair(s, b)) {
                            let share = if each.is_empty() {
                                0.0
                            } else {
                                each.iter().filter(|w| w[b]).count() as f64 / each.len() as f64
                            };
                            let bot_p = if by_bot[b] { 1.0 } else { 0.0 };
                            let p = (1.0 - SLACK) * bot_p + SLACK * share;
                            let c = &mut counts[s][b];
                            c.discards += 1;
                            c.feeds += u32::from(actual[b]);
                            c.feeds_expected += p;
                            c.feeds_variance += p * (1.0 - p);
                        }
                    }
                    (DecisionKind::Claim { .. }, action) => {
                        if let Some((discarder, _)) = view.claim {
                            let bot = bots[s].choose(&view);
                            let helpful = matches!(
                                bot,
                                Action::Win | Action::Pung | Action::Kong | Action::Chow(_)
                            );
                            let d = discarder.index();
                            // Windows on everyone's discards count (bots' too): they are the
                            // player's own habit the pair is compared with.
                            if helpful && d < 4 && d != s {
                                let c = &mut counts[s][d];
                                c.helpful_windows += 1;
                                c.helpful_passed += u32::from(action == Action::Pass);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        game.apply(a.seat, a.action)
            .map_err(|e| format!("action {i} does not replay: {e}"))?;
    }
    if let (Some(d), false) = (result.discarder, result.self_drawn) {
        for w in result.all_winners() {
            let (w, d) = (w.index(), d.index());
            if w >= 4 || d >= 4 || w == d {
                continue;
            }
            for a in (0..4).filter(|&a| a != w) {
                counts[a][w].partner_discard_wins += 1;
            }
            counts[d][w].partner_wins_on_account += 1;
            counts[d][w].deal_ins += 1;
        }
    }
    for (a, row) in counts.iter_mut().enumerate() {
        for (b, c) in row.iter_mut().enumerate() {
            if pair(a, b) {
                c.hands = 1;
            }
        }
    }
    Ok(counts)
}

/// Sums per ordered pair of accounts (and per account, its claim windows on anyone).
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub hands: u32,
    pub unreadable: u32,
    pub pairs: BTreeMap<(i64, i64), PairCounts>,
    /// Per account: helpful claim windows on anyone's discards, and those passed.
    pub windows: BTreeMap<i64, (u32, u32)>,
}

impl Tally {
    /// Adds one hand; a record that does not replay is counted as unreadable.
    pub fn add(&mut self, hand: &RankedRecord) {
        let people = hand.accounts.map(|a| a.is_some());
        let counts = match analyze_hand(&hand.record, people) {
            Ok(c) => c,
            Err(_) => {
                self.unreadable += 1;
                return;
            }
        };
        self.hands += 1;
        for (a, row) in counts.iter().enumerate() {
            let Some(acc_a) = hand.accounts[a] else {
                continue;
            };
            for (b, c) in row.iter().enumerate() {
                let w = self.windows.entry(acc_a).or_default();
                w.0 += c.helpful_windows;
                w.1 += c.helpful_passed;
                let Some(acc_b) = hand.accounts[b] else {
                    continue;
                };
                // One account in two seats (never at a ranked table) is no pair.
                if a == b || acc_a == acc_b {
                    continue;
                }
                self.pairs.entry((acc_a, acc_b)).or_default().add(c);
            }
        }
    }

    /// The report from the counts so far.
    pub fn report(&self, t: &Thresholds) -> Report {
        let mut pairs: Vec<PairReport> = self
            .pairs
            .iter()
            .filter(|(_, c)| c.hands >= t.min_hands)
            .map(|(&(a, b), c)| {
                let (all_windows, all_passed) = self.windows.get(&a).copied().unwrap_or((0, 0));
                pair_report(a, b, c, all_windows, all_passed, t)
            })
            .collect();
        pairs.sort_by(|x, y| {
            y.flagged()
                .cmp(&x.flagged())
                .then(top_z(y).total_cmp(&top_z(x)))
                .then((x.account, x.partner).cmp(&(y.account, y.partner)))
        });
        Report {
            hands: self.hands,
            unreadable: self.unreadable,
            thresholds: *t,
            bot_level: BOT_LEVEL.name().to_string(),
            pairs,
        }
    }
}

/// The measures of one pair from its counts and the account's claim windows on anyone
/// (`all_windows`, of which `all_passed` were passed).
pub fn pair_report(
    account: i64,
    partner: i64,
    c: &PairCounts,
    all_windows: u32,
    all_passed: u32,
    t: &Thresholds,
) -> PairReport {
    let feeds = measure(c.discards, c.feeds, c.feeds_expected, c.feeds_variance, t);
    // The account's own habit on everyone but the partner, smoothed towards one half so a
    // handful of windows says little, and floored.
    let other_windows = all_windows.saturating_sub(c.helpful_windows);
    let other_passed = all_passed.saturating_sub(c.helpful_passed);
    let rate = ((f64::from(other_passed) + 1.0) / (f64::from(other_windows) + 2.0))
        .clamp(PASS_RATE_FLOOR, 1.0);
    let n = f64::from(c.helpful_windows);
    let passed_claims = measure(
        c.helpful_windows,
        c.helpful_passed,
        n * rate,
        n * rate * (1.0 - rate),
        t,
    );
    let m = f64::from(c.partner_discard_wins);
    let wins_on_discards = measure(
        c.partner_discard_wins,
        c.partner_wins_on_account,
        m * EVEN_SHARE,
        m * EVEN_SHARE * (1.0 - EVEN_SHARE),
        t,
    );
    let mut flagged_by = Vec::new();
    for (name, m) in [
        (MeasureName::Feeds, &feeds),
        (MeasureName::PassedClaims, &passed_claims),
        (MeasureName::WinsOnDiscards, &wins_on_discards),
    ] {
        if m.flagged {
            flagged_by.push(name);
        }
    }
    PairReport {
        account,
        partner,
        hands: c.hands,
        deal_ins: c.deal_ins,
        feeds,
        passed_claims,
        wins_on_discards,
        flagged_by,
    }
}

/// The report over `hands`.
pub fn report<'a>(hands: impl IntoIterator<Item = &'a RankedRecord>, t: &Thresholds) -> Report {
    let mut tally = Tally::default();
    for h in hands {
        tally.add(h);
    }
    tally.report(t)
}

/// Ranked hands read per store call.
const PAGE: u32 = 500;

/// The report over the ranked hands of `rules` in the store played at or after `since` (unix
/// seconds), read page by page (the analysis keeps counts, not records). Runs on a blocking
/// thread: it replays every hand, a few milliseconds each.
pub fn from_store(
    store: &dyn crate::store::Store,
    rules: &str,
    since: i64,
    t: &Thresholds,
) -> crate::store::Result<Report> {
    let mut tally = Tally::default();
    let mut after = 0;
    loop {
        let page = store.ranked_hands(rules, after, PAGE)?;
        let Some(&(last, _)) = page.last() else {
            break;
        };
        after = last;
        for (_, h) in page.into_iter().filter(|(_, h)| h.played_at >= since) {
            match HandRecord::from_json(&h.json) {
                Ok(record) => tally.add(&RankedRecord {
                    accounts: h.accounts,
                    record,
                }),
                Err(_) => tally.unreadable += 1,
            }
        }
    }
    Ok(tally.report(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_core::Wind;
    use tongcheng_core::game::HandSetup;
    use tongcheng_core::rules::RuleSet;
    use tongcheng_core::wall::Seed;

    fn counts(f: impl FnOnce(&mut PairCounts)) -> PairCounts {
        let mut c = PairCounts {
            hands: 40,
            ..PairCounts::default()
        };
        f(&mut c);
        c
    }

    #[test]
    fn the_z_score_is_one_sided_with_a_continuity_correction_and_a_variance_floor() {
        assert!((z_score(10.0, 2.0, 4.0) - 3.75).abs() < 1e-9);
        // A near-certain expectation cannot make one surprise huge.
        assert!((z_score(2.0, 0.0, 0.01) - 1.5).abs() < 1e-9);
        assert!(z_score(1.0, 5.0, 4.0) < 0.0);
    }

    #[test]
    fn feeding_far_above_the_bots_expectation_flags_and_honest_play_does_not() {
        let t = Thresholds::default();
        // 300 discards; the bot would have fed 3 (variance ~2.9); 15 fed: flagged.
        let feeder = counts(|c| {
            (c.discards, c.feeds, c.feeds_expected, c.feeds_variance) = (300, 15, 3.0, 2.9)
        });
        let r = pair_report(1, 2, &feeder, 0, 0, &t);
        assert!(r.feeds.flagged && r.feeds.z > 6.0, "{r:?}");
        assert_eq!(r.flagged_by, [MeasureName::Feeds]);
        // As often as the bot: not flagged.
        let honest = counts(|c| {
            (c.discards, c.feeds, c.feeds_expected, c.feeds_variance) = (300, 4, 3.0, 2.9)
        });
        let r = pair_report(1, 2, &honest, 0, 0, &t);
        assert!(!r.feeds.flagged && r.flagged_by.is_empty(), "{r:?}");
        // Far out but on too few events: not flagged.
        let few = Thresholds {
            z: 1.0,
            ..Thresholds::default()
        };
        let rare = counts(|c| {
            (c.discards, c.feeds, c.feeds_expected, c.feeds_variance) = (300, 3, 0.1, 0.1)
        });
        let r = pair_report(1, 2, &rare, 0, 0, &few);
        assert!(r.feeds.z >= 1.0 && !r.feeds.flagged, "{r:?}");
    }

    #[test]
    fn passing_helpful_claims_only_on_the_partner_flags_but_a_cautious_habit_does_not() {
        let t = Thresholds::default();
        // Passed 8 of 8 helpful claims on the partner, 1 of 30 on everyone else.
        let soft = counts(|c| (c.helpful_windows, c.helpful_passed) = (8, 8));
        let r = pair_report(1, 2, &soft, 38, 9, &t);
        assert!(r.passed_claims.flagged, "{r:?}");
        assert_eq!(r.flagged_by, [MeasureName::PassedClaims]);
        // A player who passes half of them on everyone passes half on the partner too.
        let cautious = counts(|c| (c.helpful_windows, c.helpful_passed) = (8, 4));
        let r = pair_report(1, 2, &cautious, 38, 19, &t);
        assert!(!r.passed_claims.flagged, "{r:?}");
        // No habit known yet: compared with one half, not flagged on 4 of 4.
        let new = counts(|c| (c.helpful_windows, c.helpful_passed) = (4, 4));
        assert!(!pair_report(1, 2, &new, 4, 4, &t).passed_claims.flagged);
    }

    #[test]
    fn winning_mostly_on_one_players_discards_flags() {
        let t = Thresholds::default();
        let fed = counts(|c| (c.partner_discard_wins, c.partner_wins_on_account) = (12, 11));
        let r = pair_report(1, 2, &fed, 0, 0, &t);
        assert!(r.wins_on_discards.flagged, "{r:?}");
        assert_eq!(r.wins_on_discards.expected, 4.0);
        let even = counts(|c| (c.partner_discard_wins, c.partner_wins_on_account) = (12, 5));
        assert!(!pair_report(1, 2, &even, 0, 0, &t).wins_on_discards.flagged);
        // Six of six is unlikely (1 in 729) but not enough on its own at this threshold.
        let six = counts(|c| (c.partner_discard_wins, c.partner_wins_on_account) = (6, 6));
        let r = pair_report(1, 2, &six, 0, 0, &t);
        assert!(
            r.wins_on_discards.z > 3.0 && !r.wins_on_discards.flagged,
            "{r:?}"
        );
    }

    #[test]
    fn the_report_leaves_out_pairs_that_rarely_met_and_lists_flagged_pairs_first() {
        let mut tally = Tally::default();
        let met = |hands| PairCounts {
            hands,
            ..PairCounts::default()
        };
        tally.pairs.insert((1, 2), met(30));
        tally.pairs.insert((2, 1), met(30));
        tally.pairs.insert((1, 3), met(5));
        tally.pairs.insert(
            (3, 2),
            PairCounts {
                partner_discard_wins: 12,
                partner_wins_on_account: 11,
                ..met(30)
            },
        );
        let r = tally.report(&Thresholds::default());
        let order: Vec<(i64, i64)> = r.pairs.iter().map(|p| (p.account, p.partner)).collect();
        assert_eq!(order, [(3, 2), (1, 2), (2, 1)]);
        assert_eq!(r.flagged().count(), 1);
        let all = tally.report(&Thresholds {
            min_hands: 1,
            ..Thresholds::default()
        });
        assert_eq!(all.pairs.len(), 4);
    }

    /// Rules where any complete hand wins: many wins, so a short test sees enough of them.
    fn easy_rules() -> RuleSet {
        let mut r = RuleSet::guobiao();
        r.name = "collusion-test".into();
        r.mcr.min_points = 0;
        r
    }

    /// How the scripted colluders at seats (a, b) play; everyone else is a Normal bot.
    #[derive(Clone, Copy)]
    enum Script {
        Honest,
        /// `a` discards whatever `b` can win on, and `b` always wins when he may.
        Feed(usize, usize),
        /// `a` passes every claim on `b`'s discards (soft play), wins included.
        Soft(usize, usize),
    }

    fn play(i: u64, script: Script) -> HandRecord {
        let setup = HandSetup {
            rules: easy_rules(),
            seed: Seed::from_u64(1000 + i),
            dealer: Seat((i % 4) as u8),
            prevalent: Wind::East,
            dealer_level: 0,
        };
        let mut g = Game::new(setup);
        let mut bots: [LevelBot; 4] =
            std::array::from_fn(|s| LevelBot::new(BOT_LEVEL, i * 7 + s as u64));
        while !g.is_finished() {
            let seat = g.pending_seats()[0];
            let s = seat.index();
            let view = g.view(seat);
            let legal = view.decision.as_ref().unwrap().legal.clone();
            let mut a = bots[s].choose(&view);
            match script {
                Script::Honest => {}
                Script::Feed(f, p) => {
                    if s == f
                        && let Some(&fed) = legal.iter().find(|x| match x {
                            Action::Discard(t) => winners_on(&g, seat, *t)[p],
                            _ => false,
                        })
                    {
                        a = fed;
                    }
                    if s == p && legal.contains(&Action::Win) {
                        a = Action::Win;
                    }
                }
                Script::Soft(f, p) => {
                    if s == f
                        && view.claim.is_some_and(|(d, _)| d.index() == p)
                        && legal.contains(&Action::Pass)
                    {
                        a = Action::Pass;
                    }
                }
            }
            g.apply(seat, a).unwrap();
        }
        HandRecord::of(&g).unwrap()
    }

    #[test]
    fn a_scripted_feeder_is_flagged_and_honest_bots_are_not() {
        let people = [Some(11), Some(12), Some(13), Some(14)];
        let t = Thresholds::default();
        let honest: Vec<RankedRecord> = (0..60)
            .map(|i| RankedRecord {
                accounts: people,
                record: play(i, Script::Honest),
            })
            .collect();
        let r = report(&honest, &t);
        assert_eq!((r.hands, r.unreadable, r.pairs.len()), (60, 0, 12));
        assert_eq!(r.flagged().count(), 0, "{:#?}", r.pairs);
        // Bots play exactly as the expectation: what they fed is what was expected of them
        // (up to the slack).
        for p in &r.pairs {
            assert!(
                p.feeds.observed as f64 <= p.feeds.expected * 2.0 + 3.0,
                "{p:?}"
            );
        }
        // Seat 0's account feeds seat 1's.
        let colluding: Vec<RankedRecord> = (0..60)
            .map(|i| RankedRecord {
                accounts: people,
                record: play(i, Script::Feed(0, 1)),
            })
            .collect();
        let r = report(&colluding, &t);
        let flagged: Vec<(i64, i64)> = r.flagged().map(|p| (p.account, p.partner)).collect();
        assert_eq!(flagged, [(11, 12)], "{:#?}", r.pairs);
        let pair = &r.pairs[0];
        assert!(pair.flagged_by.contains(&MeasureName::Feeds), "{pair:?}");
        assert!(pair.deal_ins >= 4, "{pair:?}");
        // Bots' seats are no accounts: a hand with one person has no pair.
        let alone = RankedRecord {
            accounts: [Some(11), None, None, None],
            record: play(0, Script::Honest),
        };
        let r = report([&alone], &Thresholds { min_hands: 1, ..t });
        assert_eq!((r.hands, r.pairs.len()), (1, 0));
    }

    #[test]
    fn a_player_who_never_claims_on_one_partners_discards_is_flagged() {
        let people = [Some(21), Some(22), Some(23), Some(24)];
        // Seat 2's account lets seat 3's discards go, however much they would help him.
        let hands: Vec<RankedRecord> = (0..60)
            .map(|i| RankedRecord {
                accounts: people,
                record: play(i, Script::Soft(2, 3)),
            })
            .collect();
        let r = report(&hands, &Thresholds::default());
        let flagged: Vec<(i64, i64)> = r.flagged().map(|p| (p.account, p.partner)).collect();
        assert_eq!(flagged, [(23, 24)], "{:#?}", r.pairs);
        let soft = &r.pairs[0];
        assert_eq!(soft.flagged_by, [MeasureName::PassedClaims]);
        assert_eq!(soft.passed_claims.observed, soft.passed_claims.trials);
    }

    #[test]
    fn a_record_that_does_not_replay_is_counted_and_left_out() {
        let mut bad = play(1, Script::Honest);
        bad.actions.truncate(3);
        let hands = [RankedRecord {
            accounts: [Some(1), Some(2), None, None],
            record: bad,
        }];
        let r = report(&hands, &Thresholds::default());
        assert_eq!((r.hands, r.unreadable), (0, 1));
    }
}
