//! A tournament played through by the core's bots, every table on the table host: the
//! rules' own check (tests, `tongcheng tournament simulate`), and what each round publishes
//! when it ends ([`RoundRecord`]), which `tongcheng tournament verify` checks.

use serde::{Deserialize, Serialize};

use super::fair::{
    RoundProof, check_rules, round_commitment, round_seed, table_seed, verify_round,
};
use super::{
    EntrantId, Seating, Standings, TableResult, TournamentConfig, TournamentError, seat_round,
};
use crate::bot::Level;
use crate::fair::{Commitment, Contribution};
use crate::game::Match;
use crate::record::HandRecord;
use crate::rules::RuleSet;
use crate::table::{Clock, Deal, Player, Table, TableConfig};
use crate::wall::Seed;

/// A finished round as published: its commitment and secret, the contributions, and every
/// table's players and hands. Anyone checks it with [`RoundRecord::verify`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundRecord {
    /// 1-based.
    pub round: u32,
    pub commitment: Commitment,
    pub secret: Seed,
    pub contributions: Vec<(EntrantId, Contribution)>,
    pub duplicate: bool,
    /// The rules every table played.
    pub rules: RuleSet,
    /// Each table's player slots (`None`: a bot).
    pub seating: Vec<[Option<EntrantId>; 4]>,
    pub byes: Vec<EntrantId>,
    /// Each table's hands, in order.
    pub tables: Vec<Vec<HandRecord>>,
}

impl RoundRecord {
    /// The secret matches the commitment and every table's walls come from the round's seed.
    pub fn verify(&self) -> Result<(), TournamentError> {
        if self.tables.len() != self.seating.len() {
            return Err(TournamentError::Unfair(format!(
                "{} tables seated, {} played",
                self.seating.len(),
                self.tables.len()
            )));
        }
        verify_round(&RoundProof {
            commitment: self.commitment,
            secret: self.secret,
            contributions: &self.contributions,
            duplicate: self.duplicate,
            rules: &self.rules,
            tables: &self.tables,
        })
    }
}

impl RoundRecord {
    /// Each table's match scores by player slot, replayed from its hands' records (the
    /// walls dealt again from the round's seed, every move applied): what the standings are
    /// recomputed from. `None` for a table whose records do not replay.
    pub fn table_results(&self) -> Option<Vec<TableResult>> {
        check_rules(&self.rules).ok()?;
        let seed = round_seed(&self.secret, &self.contributions);
        self.tables
            .iter()
            .zip(&self.seating)
            .enumerate()
            .map(|(t, (hands, players))| {
                let mut m = Match::new(self.rules.clone(), table_seed(&seed, self.duplicate, t));
                for (i, r) in hands.iter().enumerate() {
                    if i > 0 && !m.next_hand() {
                        return None;
                    }
                    if m.game().setup() != &r.setup {
                        return None;
                    }
                    for a in &r.actions {
                        m.apply(a.seat, a.action).ok()?;
                    }
                }
                // The last hand booked.
                m.next_hand();
                m.is_finished().then(|| TableResult {
                    players: *players,
                    scores: m.scores(),
                })
            })
            .collect()
    }
}

/// The standings recomputed from the published rounds alone.
pub fn recompute(
    config: &TournamentConfig,
    entrants: &[EntrantId],
    rounds: &[RoundRecord],
) -> Result<Standings, TournamentError> {
    let mut standings = Standings::new(entrants);
    for r in rounds {
        let results = r.table_results().ok_or_else(|| {
            TournamentError::Unfair(format!("round {}: a table does not replay", r.round))
        })?;
        standings.add_round(config, &results, &r.byes);
        let next = config.field_after(entrants.len(), r.round as usize);
        let survivors: Vec<EntrantId> = standings.order().into_iter().take(next).collect();
        standings.cut_to(&survivors);
    }
    Ok(standings)
}

/// A tournament played through.
#[derive(Debug)]
pub struct Simulation {
    pub standings: Standings,
    pub rounds: Vec<RoundRecord>,
}

/// Plays `config` with `entrants` as bots of `level`; `seed` makes the draw, the secrets and
/// the contributions. `conflict` says who may not meet.
pub fn simulate(
    config: &TournamentConfig,
    entrants: &[EntrantId],
    level: Level,
    seed: u64,
    conflict: impl Fn(EntrantId, EntrantId) -> bool,
) -> Result<Simulation, TournamentError> {
    config.check(entrants.len())?;
    let rules = config.table_rules()?;
    let master = Seed::from_u64(seed);
    let mut standings = Standings::new(entrants);
    let mut rounds = Vec::new();
    for round in 0..config.rounds() {
        let order = if round == 0 {
            draw(entrants, &master)
        } else {
            standings.order()
        };
        let Seating { tables, byes } = seat_round(&order, round, config.bots_allowed, &conflict);
        // The round's walls: committed before any contribution, revealed after the round.
        let secret = master.derive(1_000 + round as u64);
        let commitment = round_commitment(&secret);
        let contributions: Vec<(EntrantId, Contribution)> = order
            .iter()
            .map(|&e| {
                (
                    e,
                    crate::fair::Bytes32(master.derive(e ^ ((round as u64) << 40)).0),
                )
            })
            .collect();
        let round_seed = round_seed(&secret, &contributions);
        let mut results = Vec::new();
        let mut hands = Vec::new();
        for (t, players) in tables.iter().enumerate() {
            let match_seed = table_seed(&round_seed, config.duplicate, t);
            let (records, scores) =
                play_table(&rules, match_seed, level, seed ^ (round * 4096 + t) as u64);
            results.push(TableResult {
                players: *players,
                scores,
            });
            hands.push(records);
        }
        standings.add_round(config, &results, &byes);
        let next = config.field_after(entrants.len(), round + 1);
        let survivors: Vec<EntrantId> = standings.order().into_iter().take(next).collect();
        standings.cut_to(&survivors);
        rounds.push(RoundRecord {
            round: round as u32 + 1,
            commitment,
            secret,
            contributions,
            duplicate: config.duplicate,
            rules: rules.clone(),
            seating: tables,
            byes,
            tables: hands,
        });
    }
    Ok(Simulation { standings, rounds })
}

/// Round 1's order: the entrants shuffled by the seed (Fisher–Yates over its ChaCha20 words).
pub fn draw(entrants: &[EntrantId], master: &Seed) -> Vec<EntrantId> {
    let mut order = entrants.to_vec();
    for i in (1..order.len()).rev() {
        let word = master.derive(i as u64).0;
        let r = u64::from_le_bytes(word[..8].try_into().unwrap_or([0; 8]));
        order.swap(i, (r % (i as u64 + 1)) as usize);
    }
    order
}

/// One table's match, bots in every seat: its hands' records and the match scores by slot.
pub fn play_table(
    rules: &RuleSet,
    seed: Seed,
    level: Level,
    bot_seed: u64,
) -> (Vec<HandRecord>, [i32; 4]) {
    let config = TableConfig {
        deal: Deal::Match {
            rules: rules.clone(),
            seed,
        },
        players: [Player::Bot(level); 4],
        bot_seed,
        clock: Clock::Off,
    };
    let mut records = Vec::new();
    let Ok(mut t) = Table::try_new(config) else {
        return (records, [0; 4]);
    };
    loop {
        t.run(0);
        records.extend(t.record());
        if !t.next_hand() {
            break;
        }
    }
    (records, t.match_state().scores())
}
