//! Botzone's words for Chinese Standard Mahjong (国标麻将): tile names, the judge's requests
//! and a bot's responses, parsed and printed. Pure text, no I/O.
//!
//! Tiles: `W1`–`W9` characters (万), `B1`–`B9` dots (饼), `T1`–`T9` bamboo (条), `F1`–`F4` the
//! winds East to North, `J1`–`J3` the dragons 中 发 白, `H1`–`H8` flowers.
//!
//! Requests (one per turn, to every player): `0 id quan`; `1 h0 h1 h2 h3 <13 tiles> <flowers>`;
//! `2 T` (you drew T); `3 p BUHUA T`; `3 p DRAW`; `3 p PLAY T`; `3 p PENG T` (claimed the last
//! discard, then played T); `3 p CHI M T` (a chow whose middle tile is M, then played T);
//! `3 p GANG` (a kong: concealed if p just drew, else on the last discard); `3 p BUGANG T`.
//! Responses: `PASS`, `PLAY T`, `GANG T` (concealed), `BUGANG T`, `HU`, `PENG T`, `CHI M T`,
//! `GANG` (on a discard).

use tongcheng_core::tile::Tile;

/// A tile in Botzone's spelling, e.g. `W5`, `F1`, `J1` (中).
pub fn tile_name(t: Tile) -> String {
    let n = t.to_string();
    let (rank, suit) = n.split_at(1);
    let r: u8 = rank.parse().unwrap_or(0);
    match suit {
        "m" => format!("W{r}"),
        "p" => format!("B{r}"),
        "s" => format!("T{r}"),
        "f" => format!("H{r}"),
        // 1–4 winds; 5 白 6 发 7 中 in our notation, J1 中 J2 发 J3 白 in Botzone's.
        _ if r <= 4 => format!("F{r}"),
        _ => format!("J{}", 8 - r),
    }
}

/// Reads a tile in Botzone's spelling.
pub fn parse_tile(s: &str) -> Result<Tile, String> {
    let bad = || format!("'{s}' is not a Botzone tile (W1–W9, B1–B9, T1–T9, F1–F4, J1–J3, H1–H8)");
    let mut chars = s.chars();
    let (Some(kind), Some(d), None) = (chars.next(), chars.next(), chars.next()) else {
        return Err(bad());
    };
    let r = d.to_digit(10).ok_or_else(bad)? as u8;
    let notation = match (kind, r) {
        ('W', 1..=9) => format!("{r}m"),
        ('B', 1..=9) => format!("{r}p"),
        ('T', 1..=9) => format!("{r}s"),
        ('F', 1..=4) => format!("{r}z"),
        ('J', 1..=3) => format!("{}z", 8 - r),
        ('H', 1..=8) => format!("{r}f"),
        _ => return Err(bad()),
    };
    notation.parse().map_err(|_| bad())
}

/// One request of the judge, as this bot reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Turn 0: your seat (门风, 0 = East, the dealer) and the round wind.
    Start {
        me: u8,
        quan: u8,
    },
    /// Turn 1: your 13 tiles; flowers drawn by each player and the flowers themselves.
    Deal {
        flower_counts: [u8; 4],
        tiles: Vec<Tile>,
        flowers: Vec<Tile>,
    },
    /// You drew this tile.
    Draw(Tile),
    /// Player `p` set aside a flower and draws again.
    Flower {
        p: u8,
        tile: Tile,
    },
    /// Another player drew.
    OtherDraw {
        p: u8,
    },
    Play {
        p: u8,
        tile: Tile,
    },
    Pung {
        p: u8,
        out: Tile,
    },
    Chow {
        p: u8,
        middle: Tile,
        out: Tile,
    },
    Kong {
        p: u8,
    },
    AddedKong {
        p: u8,
        tile: Tile,
    },
}

fn seat(s: &str) -> Result<u8, String> {
    match s.parse::<u8>() {
        Ok(n) if n < 4 => Ok(n),
        _ => Err(format!("'{s}' is not a player id (0–3)")),
    }
}

impl Request {
    pub fn parse(line: &str) -> Result<Request, String> {
        let w: Vec<&str> = line.split_whitespace().collect();
        let shape = || format!("'{line}' is not a Botzone mahjong request");
        let tile = |i: usize| w.get(i).ok_or_else(shape).and_then(|s| parse_tile(s));
        let exactly = |n: usize, r: Request| if w.len() == n { Ok(r) } else { Err(shape()) };
        match w.first().copied() {
            Some("0") if w.len() == 3 => Ok(Request::Start {
                me: seat(w[1])?,
                quan: seat(w[2])?,
            }),
            Some("1") if w.len() >= 5 => {
                let mut flower_counts = [0u8; 4];
                for (i, c) in flower_counts.iter_mut().enumerate() {
                    *c = w[1 + i]
                        .parse::<u8>()
                        .ok()
                        .filter(|&n| n <= 8)
                        .ok_or_else(shape)?;
                }
                let rest: Vec<Tile> = w[5..]
                    .iter()
                    .map(|s| parse_tile(s))
                    .collect::<Result<_, _>>()?;
                let total_flowers: usize = flower_counts.iter().map(|&c| c as usize).sum();
                if rest.len() != 13 + total_flowers {
                    return Err(format!(
                        "'{line}': 13 tiles and {total_flowers} flowers expected, {} tiles given",
                        rest.len()
                    ));
                }
                let (tiles, flowers) = rest.split_at(13);
                if tiles.iter().any(|t| t.is_flower()) || flowers.iter().any(|t| !t.is_flower()) {
                    return Err(format!("'{line}': flowers and tiles are mixed up"));
                }
                Ok(Request::Deal {
                    flower_counts,
                    tiles: tiles.to_vec(),
                    flowers: flowers.to_vec(),
                })
            }
            Some("2") => exactly(2, Request::Draw(tile(1)?)),
            Some("3") if w.len() >= 3 => {
                let p = seat(w[1])?;
                match w[2] {
                    "BUHUA" => exactly(4, Request::Flower { p, tile: tile(3)? }),
                    "DRAW" => exactly(3, Request::OtherDraw { p }),
                    "PLAY" => exactly(4, Request::Play { p, tile: tile(3)? }),
                    "PENG" => exactly(4, Request::Pung { p, out: tile(3)? }),
                    "CHI" => exactly(
                        5,
                        Request::Chow {
                            p,
                            middle: tile(3)?,
                            out: tile(4)?,
                        },
                    ),
                    "GANG" => exactly(3, Request::Kong { p }),
                    "BUGANG" => exactly(4, Request::AddedKong { p, tile: tile(3)? }),
                    _ => Err(shape()),
                }
            }
            _ => Err(shape()),
        }
    }

    /// The request in the judge's words.
    pub fn text(&self) -> String {
        match self {
            Request::Start { me, quan } => format!("0 {me} {quan}"),
            Request::Deal {
                flower_counts,
                tiles,
                flowers,
            } => {
                let mut w: Vec<String> = flower_counts.iter().map(u8::to_string).collect();
                w.extend(tiles.iter().chain(flowers).map(|&t| tile_name(t)));
                format!("1 {}", w.join(" "))
            }
            Request::Draw(t) => format!("2 {}", tile_name(*t)),
            Request::Flower { p, tile } => format!("3 {p} BUHUA {}", tile_name(*tile)),
            Request::OtherDraw { p } => format!("3 {p} DRAW"),
            Request::Play { p, tile } => format!("3 {p} PLAY {}", tile_name(*tile)),
            Request::Pung { p, out } => format!("3 {p} PENG {}", tile_name(*out)),
            Request::Chow { p, middle, out } => {
                format!("3 {p} CHI {} {}", tile_name(*middle), tile_name(*out))
            }
            Request::Kong { p } => format!("3 {p} GANG"),
            Request::AddedKong { p, tile } => format!("3 {p} BUGANG {}", tile_name(*tile)),
        }
    }
}

/// A bot's answer to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    Pass,
    Play(Tile),
    /// A concealed kong of this tile on your own turn.
    ConcealedKong(Tile),
    AddedKong(Tile),
    Win,
    /// Pung the last discard, then play this tile.
    Pung(Tile),
    /// Chow the last discard into the run with this middle tile, then play the second tile.
    Chow {
        middle: Tile,
        out: Tile,
    },
    /// Kong the last discard.
    Kong,
}

impl Response {
    pub fn parse(line: &str) -> Result<Response, String> {
        let w: Vec<&str> = line.split_whitespace().collect();
        let shape = || format!("'{line}' is not a Botzone mahjong response");
        let tile = |i: usize| w.get(i).ok_or_else(shape).and_then(|s| parse_tile(s));
        let r = match (w.first().copied(), w.len()) {
            (Some("PASS"), 1) => Response::Pass,
            (Some("HU"), 1) => Response::Win,
            (Some("GANG"), 1) => Response::Kong,
            (Some("PLAY"), 2) => Response::Play(tile(1)?),
            (Some("GANG"), 2) => Response::ConcealedKong(tile(1)?),
            (Some("BUGANG"), 2) => Response::AddedKong(tile(1)?),
            (Some("PENG"), 2) => Response::Pung(tile(1)?),
            (Some("CHI"), 3) => Response::Chow {
                middle: tile(1)?,
                out: tile(2)?,
            },
            _ => return Err(shape()),
        };
        Ok(r)
    }

    pub fn text(&self) -> String {
        match self {
            Response::Pass => "PASS".into(),
            Response::Win => "HU".into(),
            Response::Kong => "GANG".into(),
            Response::Play(t) => format!("PLAY {}", tile_name(*t)),
            Response::ConcealedKong(t) => format!("GANG {}", tile_name(*t)),
            Response::AddedKong(t) => format!("BUGANG {}", tile_name(*t)),
            Response::Pung(t) => format!("PENG {}", tile_name(*t)),
            Response::Chow { middle, out } => {
                format!("CHI {} {}", tile_name(*middle), tile_name(*out))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tile_round_trips_through_botzone_names() {
        for t in Tile::all_kinds() {
            assert_eq!(parse_tile(&tile_name(t)), Ok(t), "{t}");
        }
        assert_eq!(tile_name("7z".parse().unwrap()), "J1", "J1 is 中");
        assert_eq!(tile_name("5z".parse().unwrap()), "J3", "J3 is 白");
        assert_eq!(tile_name("2z".parse().unwrap()), "F2");
        assert_eq!(tile_name("3f".parse().unwrap()), "H3");
        for bad in ["", "W0", "W10", "F5", "J4", "H9", "X1", "w1", "W", "T1 "] {
            assert!(parse_tile(bad).is_err(), "{bad}");
        }
    }

    /// The examples of the protocol's request table, read and printed back.
    #[test]
    fn the_protocols_requests_parse_and_print_back() {
        for line in [
            "0 1 2",
            "2 T6",
            "3 2 BUHUA H7",
            "3 2 DRAW",
            "3 2 PLAY T1",
            "3 2 PENG W1",
            "3 2 CHI T2 W3",
            "3 2 GANG",
            "3 2 BUGANG T6",
            "1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2",
            "1 1 0 0 1 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2 H1 H4",
        ] {
            let r = Request::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(r.text(), line);
        }
        for bad in [
            "",
            "0 4 0",
            "0 1",
            "1 0 0 0 0 W1",
            "1 1 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2",
            "2",
            "2 T6 T7",
            "3 5 DRAW",
            "3 1 DANCE",
            "3 1 CHI T2",
            "9 9 9",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad}");
        }
    }

    /// The examples of the protocol's response table.
    #[test]
    fn the_protocols_responses_parse_and_print_back() {
        for line in [
            "PASS",
            "PLAY T6",
            "GANG T6",
            "BUGANG T6",
            "HU",
            "PENG T6",
            "CHI T2 T5",
            "GANG",
        ] {
            let r = Response::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(r.text(), line);
        }
        for bad in ["", "pass", "PLAY", "PLAY X9", "CHI T2", "HU T1", "PENG"] {
            assert!(Response::parse(bad).is_err(), "{bad}");
        }
    }
}
