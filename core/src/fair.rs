//! Provably fair walls: commit, contribute, reveal.
//!
//! Before a hand the server picks a secret seed and publishes its commitment (SHA-256 of it,
//! domain-separated). Each person at the table sends a random contribution without seeing the
//! others'. The wall's seed is SHA-256 over the server seed and the four contributions in seat
//! order (a seat with no contribution — a bot, or a person who sent none in time — counts as
//! 32 zero bytes). After the hand the server reveals its seed and the contributions; anyone can
//! then check the commitment, re-derive the wall seed and replay the hand.
//!
//! Why nobody can choose the wall: the server is bound to its seed before it sees any
//! contribution, and a player does not know the server seed when choosing theirs, so no one
//! party can steer the hash. Bots contribute nothing, so the server cannot grind bot
//! contributions after seeing the people's.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use crate::hex::hex;
use crate::wall::Seed;

const COMMIT_DOMAIN: &[u8] = b"tongcheng wall commitment v1\n";
const WALL_DOMAIN: &[u8] = b"tongcheng wall seed v1\n";

/// 32 bytes written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Bytes32(pub [u8; 32]);

impl Bytes32 {
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    pub fn from_hex(s: &str) -> Result<Bytes32, String> {
        Seed::from_hex(s).map(|s| Bytes32(s.0))
    }
}

impl Serialize for Bytes32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Bytes32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes32, D::Error> {
        let s = String::deserialize(d)?;
        Bytes32::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

/// The server's commitment to its secret seed.
pub type Commitment = Bytes32;
/// A player's random contribution to a wall.
pub type Contribution = Bytes32;

/// The commitment to `server_seed`.
pub fn commit(server_seed: &Seed) -> Commitment {
    let mut h = Sha256::new();
    h.update(COMMIT_DOMAIN);
    h.update(server_seed.0);
    Bytes32(h.finalize().into())
}

/// The wall seed from the server's seed and each seat's contribution (`None`: zeros).
pub fn wall_seed(server_seed: &Seed, contributions: &[Option<Contribution>; 4]) -> Seed {
    let mut h = Sha256::new();
    h.update(WALL_DOMAIN);
    h.update(server_seed.0);
    for c in contributions {
        h.update(c.unwrap_or_default().0);
    }
    Seed(h.finalize().into())
}

/// What a record keeps so anyone can check its wall: the commitment sent before the deal,
/// the contributions by seat, and the seed revealed after the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairWall {
    pub commitment: Commitment,
    /// By seat of that hand; `None` where nobody contributed (bots, silence).
    pub contributions: [Option<Contribution>; 4],
    /// The server's seed, revealed after the hand.
    pub reveal: Seed,
}

/// Why a wall is not the one promised.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FairnessError {
    #[error("the revealed seed does not match the commitment sent before the deal")]
    Commitment,
    #[error("the wall was not dealt from the seed the reveal and the contributions give")]
    WallSeed,
    #[error("our contribution is not the one the server used")]
    Contribution,
    #[error("the hand does not replay from its seed: {0}")]
    Replay(String),
    #[error("event {index} of the hand differs from what this seat was shown")]
    EventShown { index: usize },
}

impl FairWall {
    /// Makes the proof for a hand: the server's side.
    pub fn new(server_seed: Seed, contributions: [Option<Contribution>; 4]) -> FairWall {
        FairWall {
            commitment: commit(&server_seed),
            contributions,
            reveal: server_seed,
        }
    }

    /// The wall seed this proof stands for.
    pub fn wall_seed(&self) -> Seed {
        wall_seed(&self.reveal, &self.contributions)
    }

    /// The commitment matches the reveal and `dealt` is the seed they give.
    pub fn check(&self, dealt: &Seed) -> Result<(), FairnessError> {
        if commit(&self.reveal) != self.commitment {
            return Err(FairnessError::Commitment);
        }
        if self.wall_seed() != *dealt {
            return Err(FairnessError::WallSeed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitment_binds_the_seed() {
        let s = Seed::from_u64(1);
        assert_eq!(commit(&s), commit(&s));
        assert_ne!(commit(&s), commit(&Seed::from_u64(2)));
    }

    #[test]
    fn every_contribution_changes_the_wall() {
        let s = Seed::from_u64(9);
        let base = [None, Some(Bytes32([1; 32])), None, None];
        let w = wall_seed(&s, &base);
        for seat in 0..4 {
            let mut c = base;
            c[seat] = Some(Bytes32([7; 32]));
            assert_ne!(wall_seed(&s, &c), w, "seat {seat}");
        }
        // Seat order matters: the same bytes at another seat give another wall.
        let moved = [Some(Bytes32([1; 32])), None, None, None];
        assert_ne!(wall_seed(&s, &moved), w);
    }

    #[test]
    fn check_catches_a_lie() {
        let f = FairWall::new(
            Seed::from_u64(3),
            [Some(Bytes32([5; 32])), None, None, None],
        );
        let dealt = f.wall_seed();
        assert_eq!(f.check(&dealt), Ok(()));
        let mut lie = f.clone();
        lie.reveal = Seed::from_u64(4);
        assert_eq!(lie.check(&dealt), Err(FairnessError::Commitment));
        let mut swapped = f.clone();
        swapped.contributions[1] = Some(Bytes32([6; 32]));
        assert_eq!(swapped.check(&dealt), Err(FairnessError::WallSeed));
    }

    #[test]
    fn hex_round_trip_and_bad_hex() {
        let b = Bytes32([0xab; 32]);
        let j = serde_json::to_string(&b).unwrap();
        assert_eq!(serde_json::from_str::<Bytes32>(&j).unwrap(), b);
        assert!(serde_json::from_str::<Bytes32>("\"abc\"").is_err());
    }
}
