//! A round's walls, fixed before the round and checkable after it.
//!
//! When a round is announced the server picks a secret and publishes its commitment; the
//! entrants then send contributions (32 random bytes each, before any wall exists). The
//! round's seed is SHA-256 over the secret and the contributions in entrant order; each
//! table's match seed derives from it — the same for every table in a duplicate round — and
//! each hand's wall from the match seed as in any match ([`crate::game::Match`]). The secret
//! is revealed when the round ends: [`verify_round`] then checks every table's hands.
//!
//! Nobody can choose a table's walls: the server is bound to its secret before it sees a
//! contribution, and an entrant does not know the secret when choosing his.

use sha2::{Digest, Sha256};

use super::{EntrantId, TournamentError};
use crate::fair::Bytes32;
use crate::fair::{Commitment, Contribution};
use crate::record::{HandRecord, Verifier};
use crate::rules::RuleSet;
use crate::wall::Seed;

const COMMIT_DOMAIN: &[u8] = b"tongcheng tournament round commitment v1\n";
const ROUND_DOMAIN: &[u8] = b"tongcheng tournament round seed v1\n";

/// The commitment to a round's secret, published when the round is announced.
pub fn round_commitment(secret: &Seed) -> Commitment {
    let mut h = Sha256::new();
    h.update(COMMIT_DOMAIN);
    h.update(secret.0);
    Bytes32(h.finalize().into())
}

/// The round's seed from its secret and the entrants' contributions (in entrant order,
/// whatever order they are given in; an entrant who sent none is left out).
pub fn round_seed(secret: &Seed, contributions: &[(EntrantId, Contribution)]) -> Seed {
    let mut sorted: Vec<&(EntrantId, Contribution)> = contributions.iter().collect();
    sorted.sort_by_key(|(id, _)| *id);
    let mut h = Sha256::new();
    h.update(ROUND_DOMAIN);
    h.update(secret.0);
    for (id, c) in sorted {
        h.update(id.to_le_bytes());
        h.update(c.0);
    }
    Seed(h.finalize().into())
}

/// The match seed of table `table` (0-based) of a round: one for all tables when duplicate.
pub fn table_seed(round_seed: &Seed, duplicate: bool, table: usize) -> Seed {
    round_seed.derive(if duplicate { 0 } else { table as u64 + 1 })
}

/// Rules from outside (a published round): a preset over some match length, nothing else.
pub fn check_rules(rules: &RuleSet) -> Result<(), TournamentError> {
    let hands = u16::from(rules.rounds) * u16::from(rules.hands_per_round);
    let preset = RuleSet::preset(&rules.name)
        .filter(|_| (1..=255).contains(&hands))
        .map(|p| p.with_hands(hands as u8));
    if preset.as_ref() != Some(rules) {
        return Err(TournamentError::Unfair(format!(
            "the rules are not the {} preset over {hands} hands",
            rules.name
        )));
    }
    Ok(())
}

/// A round as the server publishes it once it ends.
#[derive(Clone, Debug)]
pub struct RoundProof<'a> {
    pub commitment: Commitment,
    pub secret: Seed,
    pub contributions: &'a [(EntrantId, Contribution)],
    pub duplicate: bool,
    /// The rules every table played (the preset for the tournament's match length).
    pub rules: &'a RuleSet,
    /// Each table's hands, in order (a table index is its place in this list).
    pub tables: &'a [Vec<HandRecord>],
}

/// Checks a finished round: the secret is the one committed to, every hand of every table
/// was dealt from the seed the secret and the contributions give, and replays to its record.
pub fn verify_round(proof: &RoundProof) -> Result<(), TournamentError> {
    if round_commitment(&proof.secret) != proof.commitment {
        return Err(TournamentError::Unfair(
            "the revealed secret is not the one committed to".into(),
        ));
    }
    check_rules(proof.rules)?;
    let seed = round_seed(&proof.secret, proof.contributions);
    let verifier = Verifier::any_preset().announced(proof.rules.clone());
    for (t, hands) in proof.tables.iter().enumerate() {
        let match_seed = table_seed(&seed, proof.duplicate, t);
        for (h, r) in hands.iter().enumerate() {
            if r.setup.seed != match_seed.derive(h as u64) {
                return Err(TournamentError::Unfair(format!(
                    "table {} hand {}: not dealt from the round's seed",
                    t + 1,
                    h + 1
                )));
            }
            verifier.verify(r).map_err(|e| {
                TournamentError::Unfair(format!("table {} hand {}: {e}", t + 1, h + 1))
            })?;
        }
    }
    Ok(())
}
