//! The engine under random rule sets and random play. The input is a stream of choices: a
//! preset with some fields changed (in range and out of it), a setup, who plays each seat,
//! then one action after another — mostly one the engine offers, sometimes a made-up one (any
//! tile, any seat) that must be refused with the game unchanged unless it happens to be legal.
//! When the input runs out, a generator seeded from it goes on choosing, so every valid hand
//! is played to its end. Then:
//!
//! - invalid rules or setups are refused by `Table::try_new`;
//! - after every action the engine's invariants hold (every tile accounted for: 136/144) and
//!   the decisions agree with the legal actions;
//! - a finished hand's record survives a JSON round trip and `Verifier::verify` (custom rules
//!   allowed) replays it to the same events and result;
//! - a table saved as JSON resumes to the same state.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_core::bot::Level;
use tongcheng_core::game::{Action, Game, HandSetup};
use tongcheng_core::record::{HandRecord, RecordId, ReplayError, Verifier};
use tongcheng_core::rules::{
    DealerRule, DiscardWins, HangzhouScoring, HangzhouTable, RuleSet, Scoring, Takings, WildRule,
};
use tongcheng_core::table::{Clock, Deal, Player, SavedTable, Step, Table, TableConfig};
use tongcheng_core::wall::Seed;
use tongcheng_core::{Seat, Tile, Wind};

/// Choices from the input, then from a xorshift generator seeded by the input.
struct Choices<'a> {
    data: &'a [u8],
    pos: usize,
    rng: u64,
}

impl<'a> Choices<'a> {
    fn new(data: &'a [u8]) -> Choices<'a> {
        // FNV-1a over the input: a different tail for every input.
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for &b in data {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Choices {
            data,
            pos: 0,
            rng: h | 1,
        }
    }

    fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn byte(&mut self) -> u8 {
        if let Some(&b) = self.data.get(self.pos) {
            self.pos += 1;
            return b;
        }
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 24) as u8
    }

    /// 0..n (n ≥ 1).
    fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            usize::from(self.byte()) % n
        } else {
            (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n
        }
    }

    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// True with probability `k`/256.
    fn chance(&mut self, k: u8) -> bool {
        self.byte() < k
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | u64::from(self.u32()) << 32
    }

    /// Mostly lo..=hi, now and then any byte.
    fn small(&mut self, lo: u8, hi: u8) -> u8 {
        if self.chance(24) {
            self.byte()
        } else {
            lo + self.below(usize::from(hi - lo) + 1) as u8
        }
    }

    /// Mostly lo..=hi, now and then any u32.
    fn wide(&mut self, lo: u32, hi: u32) -> u32 {
        if self.chance(24) {
            self.u32()
        } else {
            lo + (self.u32() % (hi - lo + 1))
        }
    }
}

/// Changes one field of `r`.
fn mutate(r: &mut RuleSet, c: &mut Choices) {
    match c.below(28) {
        0 => r.flowers = c.flag(),
        1 => {
            r.dealer = if c.flag() {
                DealerRule::AlwaysPass
            } else {
                DealerRule::WinnerDeals
            }
        }
        2 => r.rounds = c.small(1, 4),
        3 => r.hands_per_round = c.small(1, 4),
        4 => r.seat_rotation = c.flag(),
        5 => r.chow_from_left_only = c.flag(),
        6 => r.last_discard_win_only = c.flag(),
        7 => {
            let secs = c.wide(1, 60);
            match c.below(3) {
                0 => r.time.first_discard_secs = secs,
                1 => r.time.discard_secs = secs,
                _ => r.time.claim_secs = secs,
            }
        }
        8 => r.mcr.mixed_kong_5 = c.flag(),
        9 => r.mcr.kong_flower_with_last_tile_draw = c.flag(),
        10 => r.mcr.min_points = c.wide(0, 16),
        11 => {
            r.scoring = if c.chance(64) {
                Scoring::Mcr
            } else {
                Scoring::Hangzhou(HangzhouScoring {
                    table: if c.flag() {
                        HangzhouTable::Doubling
                    } else {
                        HangzhouTable::FanSum
                    },
                    cap: c.wide(0, 8),
                    no_wild_bonus: c.flag(),
                    clean_seven_pairs_bonus: c.flag(),
                    kong_chain_stacks: c.flag(),
                    chain_mixes_kong_and_piao: c.flag(),
                    four_whites_bonus: c.flag(),
                })
            }
        }
        12 => {
            r.wild = [WildRule::None, WildRule::FixedWhite, WildRule::Flipped][c.below(3)];
            // A flipped wild is played without flowers: mostly keep the rules playable.
            if r.wild == WildRule::Flipped && !c.chance(32) {
                r.flowers = false;
            }
        }
        13 => r.wild_lock = c.flag(),
        14 => r.dead_wall = c.small(0, 40),
        15 => r.kong_min_wall = c.small(0, 60),
        16 => r.rob_kong = c.flag(),
        17 => {
            r.discard_wins = [
                DiscardWins::Any,
                DiscardWins::Never,
                DiscardWins::DealerLevel3,
            ][c.below(3)]
        }
        18 => r.missed_win_lock = c.flag(),
        19 => r.must_baotou_with_wild = c.flag(),
        20 => r.ten_honors = c.flag(),
        21 => {
            let count_pungs = c.flag();
            r.takings = match c.below(3) {
                0 => Takings::Free,
                1 => Takings::Liability { count_pungs },
                _ => Takings::LimitTwo { count_pungs },
            }
        }
        22 => r.dealer_start_level = c.small(0, 6),
        23 => r.dealer_max_level = c.small(0, 6),
        24 => r.dealer_start_dice = c.flag(),
        25 => r.wild_count_limits = c.flag(),
        26 => {
            if let Scoring::Hangzhou(h) = &mut r.scoring {
                h.four_whites_bonus = c.flag();
            }
        }
        _ => r.version = c.small(0, 2).into(),
    }
}

fn rules(c: &mut Choices) -> RuleSet {
    let preset = match c.below(3) {
        0 => RuleSet::guobiao(),
        1 => RuleSet::hangzhou(),
        _ => RuleSet::hangzhou_mil(),
    };
    let mut r = preset.clone();
    for _ in 0..c.below(8) {
        mutate(&mut r, c);
    }
    // Changed rules mostly get a name of their own; now and then they keep the preset's (a
    // verifier must then refuse them), or get a strange one.
    match c.below(16) {
        0 => r.name = ["", "mcr", "hangzhou", "hangzhou_mil"][c.below(4)].into(),
        1 => r.name = "x".repeat(c.below(80)),
        2 | 3 => {}
        _ if r != preset => r.name = format!("custom-{}", c.byte()),
        _ => {}
    }
    r
}

fn raw_action(c: &mut Choices) -> Action {
    let t = Tile::from_index(c.below(42) as u8).expect("in range");
    match c.below(8) {
        0 => Action::Discard(t),
        1 => Action::Chow(t),
        2 => Action::Pung,
        3 => Action::Kong,
        4 => Action::ConcealedKong(t),
        5 => Action::AddedKong(t),
        6 => Action::Win,
        _ => Action::Pass,
    }
}

/// The engine's invariants, and decisions that agree with the legal actions.
fn check(g: &Game) {
    if let Err(e) = g.check_invariants() {
        panic!("invariant broken after {} actions: {e}", g.actions().len());
    }
    if g.is_finished() {
        assert!(g.result().is_some(), "finished without a result");
        assert!(g.pending_seats().is_empty());
        return;
    }
    assert!(
        !g.pending_seats().is_empty(),
        "nobody to act in a hand not over"
    );
    for s in Seat::ALL {
        match g.decision(s) {
            Some(d) => {
                assert!(g.is_pending(s), "{s} has a decision but is not pending");
                assert!(!d.legal.is_empty());
                assert!(
                    d.legal.contains(&d.on_timeout),
                    "timeout {:?}",
                    d.on_timeout
                );
            }
            None => assert!(!g.is_pending(s), "{s} is pending without a decision"),
        }
    }
}

/// A made-up action: accepted exactly when it is among the legal ones; refused without a trace.
fn try_raw(g: &mut Game, c: &mut Choices) {
    let seat = if c.chance(16) {
        Seat(c.byte())
    } else {
        Seat(c.below(4) as u8)
    };
    let a = raw_action(c);
    let legal = seat.0 < 4 && g.legal_actions(seat).contains(&a);
    let before = format!("{g:?}");
    match g.apply(seat, a) {
        Ok(()) => assert!(legal, "{a:?} by {seat} was accepted but not offered"),
        Err(e) => {
            assert!(!legal, "{a:?} by {seat} was offered but refused: {e}");
            assert_eq!(
                before,
                format!("{g:?}"),
                "refusing {a:?} ({e}) changed the game"
            );
        }
    }
}

/// The record of a finished hand: JSON round trip, then a replay that gives the same hand.
fn check_record(g: &Game) {
    let rec = HandRecord::of(g).expect("a finished hand has a record");
    assert_eq!(rec.result.deltas.iter().sum::<i32>(), 0);
    let json = rec.to_json();
    let back = HandRecord::from_json(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(back, rec, "the record changed through JSON");
    let verifier = Verifier::any_preset().allow_custom();
    let name = &rec.setup.rules.name;
    match RuleSet::preset(name) {
        Some(p) if p == rec.setup.rules => {
            replayed_alike(g, verifier.verify(&back));
        }
        Some(_) => {
            // Named after a preset without its fields (or by an alias): refused by name…
            let e = verifier
                .verify(&back)
                .expect_err("a preset's name on other rules");
            assert!(
                matches!(
                    e,
                    ReplayError::RulesDiffer { .. } | ReplayError::RulesNotAccepted { .. }
                ),
                "{e}"
            );
            // … and accepted as custom rules.
            let mut custom = back.clone();
            custom.setup.rules.name = "custom".into();
            custom.id = RecordId::of(&custom.setup, &custom.actions);
            replayed_alike(g, verifier.verify(&custom));
        }
        None => replayed_alike(g, verifier.verify(&back)),
    }
}

fn replayed_alike(g: &Game, replay: Result<Game, ReplayError>) {
    let r = replay.unwrap_or_else(|e| panic!("a played hand does not verify: {e}"));
    assert_eq!(r.events(), g.events(), "the replay's events differ");
    assert_eq!(r.result(), g.result(), "the replay's result differs");
    assert_eq!(r.actions(), g.actions());
}

const MAX_ACTIONS: usize = 5000;

fn play_game(setup: HandSetup, c: &mut Choices) {
    let mut g = Game::new(setup);
    let mut steps = 0;
    while !g.is_finished() {
        check(&g);
        steps += 1;
        assert!(steps < MAX_ACTIONS, "the hand does not end");
        if c.chance(24) {
            try_raw(&mut g, c);
            continue;
        }
        let pending = g.pending_seats();
        let seat = pending[c.below(pending.len())];
        let legal = g.legal_actions(seat);
        let a = legal[c.below(legal.len())];
        if let Err(e) = g.apply(seat, a) {
            panic!("{a:?} by {seat} was offered but refused: {e}");
        }
    }
    check(&g);
    check_record(&g);
}

fn player(c: &mut Choices) -> Player {
    // The level bots think for a while: few of them.
    match c.below(16) {
        0..=6 => Player::Local,
        7 => Player::Remote,
        8..=14 => Player::Random,
        _ => Player::Bot(Level::ALL[c.below(3)]),
    }
}

fn play_table(config: TableConfig, c: &mut Choices) {
    let mut t = Table::try_new(config).expect("valid rules and setup");
    let mut now = 0u64;
    let mut steps = 0;
    let mut hands = 0;
    loop {
        check(t.game());
        steps += 1;
        assert!(steps < 4 * MAX_ACTIONS, "the table does not move on");
        match t.step(now) {
            Step::Acted { .. } => {}
            Step::HandOver => {
                check_record(t.game());
                assert_eq!(t.record(), HandRecord::of(t.game()));
                hands += 1;
                steps = 0;
                if hands >= 3 || (c.exhausted() && hands >= 2) || !t.next_hand() {
                    break;
                }
            }
            Step::Waiting { deadline_ms } => {
                if let Some(d) = deadline_ms.filter(|_| c.chance(16)) {
                    now = d;
                    continue;
                }
                if c.chance(24) {
                    let p = c.below(4);
                    let seat = t.seat_of(p);
                    let a = raw_action(c);
                    let legal =
                        t.player(p).is_person() && t.game().legal_actions(seat).contains(&a);
                    let before = format!("{:?}", t.game());
                    match t.act(p, a, now) {
                        Ok(_) => assert!(legal, "{a:?} by player {p} accepted, not offered"),
                        Err(e) => {
                            assert!(!legal, "{a:?} by player {p} offered but refused: {e}");
                            assert_eq!(before, format!("{:?}", t.game()), "{a:?} ({e})");
                        }
                    }
                    continue;
                }
                if c.chance(32) {
                    // The host's side of the clock: 托管 asked for or taken back, a person
                    // away or back, the clock stopped or started.
                    let p = c.below(4);
                    match c.below(3) {
                        0 => {
                            t.set_auto_play(p, c.flag());
                        }
                        1 => t.set_away(p, c.flag()),
                        _ if t.clock_paused() => t.resume_clock(now),
                        _ => t.pause_clock(now),
                    }
                    continue;
                }
                let people: Vec<usize> = (0..4)
                    .filter(|&p| t.player(p).is_person() && t.game().is_pending(t.seat_of(p)))
                    .collect();
                assert!(!people.is_empty(), "waiting for nobody");
                let p = people[c.below(people.len())];
                let d = t.decision(p).expect("a pending person has a decision");
                let a = d.legal[c.below(d.legal.len())];
                if let Err(e) = t.act(p, a, now) {
                    panic!("{a:?} by player {p} was offered but refused: {e}");
                }
            }
        }
    }
    // Saved as JSON, the table comes back as it was.
    let saved = t.saved();
    let json = saved.to_json();
    let back = SavedTable::from_json(&json).expect("a saved table reads back");
    assert_eq!(back, saved);
    let mut r =
        Table::resume(&back).unwrap_or_else(|e| panic!("a saved table does not resume: {e}"));
    assert_eq!(format!("{:?}", r.game()), format!("{:?}", t.game()));
    assert_eq!(r.record(), t.record());
    // A match's last hand saved before it was booked comes back booked (the save cannot tell
    // it from a match that is over): once both move on they agree.
    if t.game().is_finished() {
        assert_eq!(r.next_hand(), t.next_hand());
        assert_eq!(format!("{:?}", r.game()), format!("{:?}", t.game()));
    }
    assert_eq!(r.match_state().scores(), t.match_state().scores());
    assert_eq!(r.match_state().history(), t.match_state().history());
    assert_eq!(r.is_over(), t.is_over());
    assert_eq!(r.saved(), t.saved());
}

fuzz_target!(|data: &[u8]| {
    let mut c = Choices::new(data);
    let rules = rules(&mut c);
    let valid = rules.validate().is_ok();
    let max = rules.dealer_max_level;
    let setup = HandSetup {
        rules,
        seed: Seed::from_u64(c.u64()),
        dealer: Seat(c.below(4) as u8),
        prevalent: Wind::from_index(c.below(4)),
        dealer_level: if c.chance(16) {
            c.byte()
        } else {
            c.below(usize::from(max.min(6)) + 1) as u8
        },
    };
    // What a host reads from outside comes through JSON.
    let json = serde_json::to_string(&setup).expect("a setup serializes");
    let back: HandSetup = serde_json::from_str(&json).expect("a setup reads back");
    assert_eq!(back, setup);
    let mode = c.below(4);
    let deal = if mode == 3 {
        Deal::Match {
            rules: setup.rules.clone(),
            seed: setup.seed,
        }
    } else {
        Deal::Hand(setup.clone())
    };
    let config = TableConfig {
        deal,
        players: std::array::from_fn(|_| player(&mut c)),
        bot_seed: c.u64(),
        clock: Clock::ALL[c.below(3)],
    };
    let level_ok = mode == 3 || setup.dealer_level <= max;
    if !valid || !level_ok {
        assert!(
            Table::try_new(config).is_err(),
            "unplayable rules or setup taken"
        );
        return;
    }
    if mode < 2 {
        play_game(setup, &mut c);
    } else {
        play_table(config, &mut c);
    }
});
