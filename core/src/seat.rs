//! Seats and winds.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::tile::Tile;

/// A wind: seat wind (门风) or prevalent wind (圈风). In JSON: `"E" "S" "W" "N"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Wind {
    #[serde(rename = "E")]
    East,
    #[serde(rename = "S")]
    South,
    #[serde(rename = "W")]
    West,
    #[serde(rename = "N")]
    North,
}

impl Wind {
    /// All four, in turn order.
    pub const ALL: [Wind; 4] = [Wind::East, Wind::South, Wind::West, Wind::North];

    /// 0 East … 3 North.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The wind with index `i % 4`.
    pub const fn from_index(i: usize) -> Wind {
        Wind::ALL[i % 4]
    }

    /// The wind tile (1z–4z).
    pub const fn tile(self) -> Tile {
        Tile::kind(27 + self as usize)
    }

    /// The next wind in turn order.
    pub const fn next(self) -> Wind {
        Wind::from_index(self as usize + 1)
    }

    /// Chinese name: 东 南 西 北.
    pub const fn name_zh(self) -> &'static str {
        ["东", "南", "西", "北"][self as usize]
    }

    /// One letter, as in JSON.
    pub const fn letter(self) -> char {
        ['E', 'S', 'W', 'N'][self as usize]
    }
}

impl fmt::Display for Wind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl std::str::FromStr for Wind {
    type Err = String;
    fn from_str(s: &str) -> Result<Wind, String> {
        match s {
            "E" | "e" | "east" | "East" => Ok(Wind::East),
            "S" | "s" | "south" | "South" => Ok(Wind::South),
            "W" | "w" | "west" | "West" => Ok(Wind::West),
            "N" | "n" | "north" | "North" => Ok(Wind::North),
            _ => Err(format!("'{s}' is not a wind (expected E, S, W or N)")),
        }
    }
}

/// A place at the table, 0–3 in turn order. Seat 0 sits East in the first hand of a match.
///
/// In JSON a plain number; deserializing checks it: a seat above 3 is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Seat, D::Error> {
        // Read a wide number so that 300 gets the same message as 7, not a u8 range error.
        let n = u64::deserialize(d)?;
        Seat::checked(n).map_err(serde::de::Error::custom)
    }
}

/// A seat number that is no seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("seat {0} does not exist (seats are 0–3)")]
pub struct NoSuchSeat(pub u64);

impl Seat {
    /// The seat numbered `n`, if there is one (0–3).
    pub fn checked(n: impl Into<u64>) -> Result<Seat, NoSuchSeat> {
        let n = n.into();
        if n < 4 {
            Ok(Seat(n as u8))
        } else {
            Err(NoSuchSeat(n))
        }
    }
}

impl Seat {
    /// All four seats in turn order.
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next seat in turn order (下家).
    pub const fn next(self) -> Seat {
        Seat((self.0 + 1) % 4)
    }

    /// The seat `n` places after this one in turn order.
    pub const fn after(self, n: u8) -> Seat {
        Seat((self.0 + n) % 4)
    }

    /// How many places after `other` this seat sits (0–3).
    pub const fn distance_from(self, other: Seat) -> u8 {
        (self.0 + 4 - other.0) % 4
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_deserialize_checked_as_plain_numbers() {
        for n in 0..4u8 {
            let s: Seat = serde_json::from_str(&n.to_string()).unwrap();
            assert_eq!(s, Seat(n));
            assert_eq!(serde_json::to_string(&s).unwrap(), n.to_string());
        }
        for bad in ["4", "7", "255", "300", "18446744073709551615"] {
            let e = serde_json::from_str::<Seat>(bad).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("seat {bad} does not exist (seats are 0–3)")),
                "{e}"
            );
        }
        for bad in ["-1", "1.5", "\"1\"", "null"] {
            assert!(serde_json::from_str::<Seat>(bad).is_err(), "{bad}");
        }
        let v: Vec<Seat> = serde_json::from_str("[3,0]").unwrap();
        assert_eq!(v, [Seat(3), Seat(0)]);
        assert_eq!(Seat::checked(3u8), Ok(Seat(3)));
        assert_eq!(
            Seat::checked(9u8).unwrap_err().to_string(),
            "seat 9 does not exist (seats are 0–3)"
        );
    }
}
