//! Rebuilding the hand a Botzone bot has seen, so that our engine — not a second copy of the
//! rules — gives the bot its view and its legal actions.
//!
//! The bot knows its own tiles and everything shown; the rest (other hands, the wall) it never
//! sees. A wall is made up that agrees with all of it: every tile another player showed is
//! put where that player must have held it (a discard right after a draw was that draw; tiles
//! for a claim, or played after one, were in the dealt hand; a concealed kong is four tiles
//! nobody has seen), and the unseen rest fills the gaps. The engine then replays the history
//! on that wall, and the bot's seat sees exactly what it saw at the judge's table.

use tongcheng_core::game::{Action, DecisionKind, Game, HandSetup};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::tile::Tile;
use tongcheng_core::wall::{Seed, Wall};

use super::wire::{Request, Response};

/// The seat and the rebuilt hand, positioned at the last request.
#[derive(Debug)]
pub struct Rebuilt {
    pub me: Seat,
    pub game: Game,
}

/// Where each dealt tile lies in the wall: three rounds of four tiles per seat from the
/// dealer (seat 0, East), then one each — the engine's deal order.
fn deal_slots() -> [Vec<usize>; 4] {
    let mut slots: [Vec<usize>; 4] = Default::default();
    let mut pos = 0;
    for round in 0..4 {
        let n = if round < 3 { 4 } else { 1 };
        for s in &mut slots {
            for _ in 0..n {
                s.push(pos);
                pos += 1;
            }
        }
    }
    slots
}

const DEALT: usize = 52;

/// Rebuilds the hand from the judge's requests and this bot's own responses (one per request
/// but the last; `None` for one that could not be read).
pub fn rebuild(
    rules: &RuleSet,
    requests: &[Request],
    responses: &[Option<Response>],
) -> Result<Rebuilt, String> {
    if rules.flowers {
        return Err(format!(
            "the {} rules have flowers; Botzone games here are played without (--rules botzone)",
            rules.name
        ));
    }
    let (me, quan) = match requests.first() {
        Some(Request::Start { me, quan }) => (*me, *quan),
        _ => return Err("the first request must be '0 id quan'".into()),
    };
    let my_tiles = match requests.get(1) {
        None => Vec::new(),
        Some(Request::Deal {
            flower_counts,
            tiles,
            ..
        }) => {
            if flower_counts.iter().any(|&c| c > 0) {
                return Err("flowers were dealt; Botzone games here are played without".into());
            }
            tiles.clone()
        }
        Some(r) => {
            return Err(format!(
                "the second request must be the deal, not '{}'",
                r.text()
            ));
        }
    };
    // Flowers never come up in a game without them; a request naming one is not from it.
    for (i, r) in requests.iter().enumerate() {
        let named: Vec<Tile> = match r {
            Request::Draw(t)
            | Request::Play { tile: t, .. }
            | Request::AddedKong { tile: t, .. } => {
                vec![*t]
            }
            Request::Pung { out, .. } => vec![*out],
            Request::Chow { middle, out, .. } => vec![*middle, *out],
            Request::Flower { tile, .. } => vec![*tile],
            _ => Vec::new(),
        };
        if let Some(f) = named.iter().find(|t| t.is_flower()) {
            return Err(format!("request {i} ('{}') names the flower {f}", r.text()));
        }
    }
    let plan = Plan::make(me, &my_tiles, requests)?;
    let setup = HandSetup {
        rules: rules.clone(),
        seed: Seed::from_u64(0),
        dealer: Seat(0),
        prevalent: Wind::from_index(quan as usize),
        dealer_level: 0,
    };
    let mut game = Game::with_wall_order(setup, plan.order)?;
    if requests.len() >= 2 {
        replay(&mut game, me, requests, responses, &plan.kongs)?;
    }
    Ok(Rebuilt { me: Seat(me), game })
}

/// The made-up wall, and the kind chosen for each concealed kong of another player (by the
/// index of its request).
struct Plan {
    order: Vec<Tile>,
    kongs: Vec<(usize, Tile)>,
}

impl Plan {
    fn make(me: u8, my_tiles: &[Tile], requests: &[Request]) -> Result<Plan, String> {
        let total = Wall::full_set(false).len();
        let mut slots: Vec<Option<Tile>> = vec![None; total];
        let deal = deal_slots();
        if !my_tiles.is_empty() {
            for (&slot, &t) in deal[me as usize].iter().zip(my_tiles) {
                slots[slot] = Some(t);
            }
        }
        let mut front = DEALT;
        let mut back = total;
        let mut needs: [Vec<Tile>; 4] = Default::default();
        let mut unexplained_draw: [Option<usize>; 4] = [None; 4];
        let mut from_back = [false; 4];
        let mut drew_last: Option<u8> = None;
        let mut open_discard: Option<Tile> = None;
        let mut hidden_kongs: Vec<(usize, u8, usize)> = Vec::new();
        let mut take = |p: u8, from_back: &mut [bool; 4]| -> Result<usize, String> {
            if front >= back {
                return Err("more draws than the wall holds".into());
            }
            Ok(if std::mem::take(&mut from_back[p as usize]) {
                back -= 1;
                back
            } else {
                front += 1;
                front - 1
            })
        };
        for (i, r) in requests.iter().enumerate().skip(2) {
            let at = |e: String| format!("request {i} ('{}'): {e}", r.text());
            match *r {
                Request::Draw(t) => {
                    let slot = take(me, &mut from_back).map_err(at)?;
                    slots[slot] = Some(t);
                    drew_last = Some(me);
                    open_discard = None;
                }
                Request::OtherDraw { p } => {
                    if p == me {
                        return Err(at("your own draw comes as '2 T'".into()));
                    }
                    let slot = take(p, &mut from_back).map_err(at)?;
                    unexplained_draw[p as usize] = Some(slot);
                    drew_last = Some(p);
                    open_discard = None;
                }
                Request::Play { p, tile } => {
                    if p != me {
                        // A discard right after a draw is taken to be that draw.
                        match unexplained_draw[p as usize].take() {
                            Some(slot) => slots[slot] = Some(tile),
                            None => needs[p as usize].push(tile),
                        }
                    }
                    open_discard = Some(tile);
                    drew_last = None;
                }
                Request::Pung { p, out } => {
                    let t = open_discard
                        .take()
                        .ok_or_else(|| at("a pung with no discard to claim".into()))?;
                    if p != me {
                        needs[p as usize].extend([t, t, out]);
                    }
                    open_discard = Some(out);
                    drew_last = None;
                }
                Request::Chow { p, middle, out } => {
                    let t = open_discard
                        .take()
                        .ok_or_else(|| at("a chow with no discard to claim".into()))?;
                    let run: Vec<Tile> = [-1i8, 0, 1]
                        .iter()
                        .filter_map(|&d| middle.offset(d))
                        .collect();
                    if run.len() != 3 || !run.contains(&t) {
                        return Err(at(format!("no run around {middle} holds the discard {t}")));
                    }
                    if p != me {
                        let mut used = false;
                        for x in run {
                            if x == t && !used {
                                used = true;
                            } else {
                                needs[p as usize].push(x);
                            }
                        }
                        needs[p as usize].push(out);
                    }
                    open_discard = Some(out);
                    drew_last = None;
                }
                Request::Kong { p } => {
                    if drew_last == Some(p) {
                        if p != me {
                            let slot = unexplained_draw[p as usize]
                                .take()
                                .ok_or_else(|| at("a concealed kong without a draw".into()))?;
                            hidden_kongs.push((i, p, slot));
                        }
                    } else {
                        let t = open_discard
                            .take()
                            .ok_or_else(|| at("a kong with no discard to claim".into()))?;
                        if p != me {
                            needs[p as usize].extend([t, t, t]);
                        }
                    }
                    from_back[p as usize] = true;
                    drew_last = None;
                    open_discard = None;
                }
                Request::AddedKong { p, tile } => {
                    if p != me {
                        match unexplained_draw[p as usize].take() {
                            Some(slot) => slots[slot] = Some(tile),
                            None => needs[p as usize].push(tile),
                        }
                    }
                    from_back[p as usize] = true;
                    drew_last = None;
                    open_discard = None;
                }
                Request::Flower { .. } => {
                    return Err(at("flowers are not played here (--rules botzone)".into()));
                }
                Request::Start { .. } | Request::Deal { .. } => {
                    return Err(at("only the first two requests start and deal".into()));
                }
            }
        }
        // What is accounted for so far, kind by kind.
        let mut count = [0u8; 34];
        let add = |t: Tile, count: &mut [u8; 34]| -> Result<(), String> {
            let c = &mut count[t.index()];
            *c += 1;
            if *c > 4 {
                return Err(format!("the history shows more than four {t}"));
            }
            Ok(())
        };
        for t in slots.iter().flatten().chain(needs.iter().flatten()) {
            add(*t, &mut count)?;
        }
        // Another player's concealed kong: four of a kind nobody has seen.
        let mut kongs = Vec::new();
        for (i, p, slot) in hidden_kongs {
            let k = Tile::all_kinds()
                .find(|k| count[k.index()] == 0)
                .ok_or("no kind is left unseen for a concealed kong")?;
            for _ in 0..4 {
                add(k, &mut count)?;
            }
            slots[slot] = Some(k);
            needs[p as usize].extend([k, k, k]);
            kongs.push((i, k));
        }
        for p in 0..4u8 {
            if p == me {
                continue;
            }
            let need = &needs[p as usize];
            if need.len() > 13 {
                return Err(format!(
                    "player {p} showed {} tiles from the dealt hand, more than 13",
                    need.len()
                ));
            }
            for (&slot, &t) in deal[p as usize].iter().zip(need) {
                slots[slot] = Some(t);
            }
        }
        // The unseen rest fills every gap, in notation order.
        let mut rest = Tile::all_kinds().flat_map(|k| {
            let left = 4 - count[k.index()];
            std::iter::repeat_n(k, left as usize)
        });
        let order: Vec<Tile> = slots
            .into_iter()
            .map(|s| s.or_else(|| rest.next()))
            .collect::<Option<Vec<Tile>>>()
            .ok_or("the history accounts for more tiles than the wall holds")?;
        Ok(Plan { order, kongs })
    }
}

/// Answers the open claim window: `claimer` takes the discard with `claim`, everyone else
/// passes.
fn close_window(game: &mut Game, claimer: Option<(Seat, Action)>) -> Result<(), String> {
    for s in Seat::ALL {
        if !game.is_pending(s)
            || game
                .decision(s)
                .is_some_and(|d| matches!(d.kind, DecisionKind::Turn))
        {
            continue;
        }
        let a = match claimer {
            Some((c, a)) if c == s => a,
            _ => Action::Pass,
        };
        game.apply(s, a).map_err(|e| e.to_string())?;
    }
    if let Some((c, _)) = claimer
        && game
            .decision(c)
            .is_none_or(|d| !matches!(d.kind, DecisionKind::Turn))
        && !game.is_finished()
    {
        // A kong draws and is a turn too; anything else means the claim did not take.
        return Err(format!("{c}'s claim was not granted"));
    }
    Ok(())
}

fn replay(
    game: &mut Game,
    me: u8,
    requests: &[Request],
    responses: &[Option<Response>],
    kongs: &[(usize, Tile)],
) -> Result<(), String> {
    let turn = |game: &Game, p: u8| {
        game.decision(Seat(p))
            .is_some_and(|d| matches!(d.kind, DecisionKind::Turn))
    };
    for (i, r) in requests.iter().enumerate().skip(2) {
        let at = |e: String| format!("request {i} ('{}') does not follow: {e}", r.text());
        match *r {
            Request::Draw(_) | Request::OtherDraw { .. } => {
                close_window(game, None).map_err(at)?;
                let p = match *r {
                    Request::OtherDraw { p } => p,
                    _ => me,
                };
                if !turn(game, p) {
                    return Err(at(format!("it is not player {p}'s turn")));
                }
            }
            Request::Play { p, tile } => {
                close_window(game, None).map_err(at)?;
                game.apply(Seat(p), Action::Discard(tile))
                    .map_err(|e| at(e.to_string()))?;
            }
            Request::Pung { p, out } => {
                close_window(game, Some((Seat(p), Action::Pung))).map_err(at)?;
                game.apply(Seat(p), Action::Discard(out))
                    .map_err(|e| at(e.to_string()))?;
            }
            Request::Chow { p, middle, out } => {
                let low = middle
                    .offset(-1)
                    .ok_or_else(|| at(format!("{middle} is no chow's middle")))?;
                close_window(game, Some((Seat(p), Action::Chow(low)))).map_err(at)?;
                game.apply(Seat(p), Action::Discard(out))
                    .map_err(|e| at(e.to_string()))?;
            }
            Request::Kong { p } if turn(game, p) => {
                let k = if p == me {
                    match responses.get(i - 1) {
                        Some(Some(Response::ConcealedKong(k))) => *k,
                        _ => {
                            return Err(at(
                                "your concealed kong's tile is not in your answer".into()
                            ));
                        }
                    }
                } else {
                    kongs
                        .iter()
                        .find(|(j, _)| *j == i)
                        .map(|(_, k)| *k)
                        .ok_or_else(|| at("no kind was set aside for this kong".into()))?
                };
                game.apply(Seat(p), Action::ConcealedKong(k))
                    .map_err(|e| at(e.to_string()))?;
            }
            Request::Kong { p } => {
                close_window(game, Some((Seat(p), Action::Kong))).map_err(at)?;
            }
            Request::AddedKong { p, tile } => {
                game.apply(Seat(p), Action::AddedKong(tile))
                    .map_err(|e| at(e.to_string()))?;
            }
            Request::Start { .. } | Request::Deal { .. } | Request::Flower { .. } => {
                return Err(at("out of place".into()));
            }
        }
    }
    Ok(())
}
