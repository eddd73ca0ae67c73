//! One ranked hand replayed: at each decision of a person, what the bot in that seat would
//! have done, counted for every ordered pair of the people's seats.

use std::collections::HashMap;
use std::sync::LazyLock;

use tongcheng_core::Seat;
use tongcheng_core::bot::{Bot, LevelBot};
use tongcheng_core::game::{Action, DecisionKind, Game};
use tongcheng_core::record::{HandRecord, Verifier};
use tongcheng_core::tile::Tile;

use super::{BOT_LEVEL, SLACK};

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
    pub(super) fn add(&mut self, o: &PairCounts) {
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
pub(super) fn winners_on(game: &Game, seat: Seat, tile: Tile) -> [bool; 4] {
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
