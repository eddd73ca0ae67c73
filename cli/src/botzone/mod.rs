//! `tongcheng botzone`: our bot as a Botzone bot program, and the arena's seats for outside
//! Botzone programs ([`bridge`]).
//!
//! Botzone (botzone.org.cn) runs a bot once per turn with the whole history of the hand —
//! the judge's requests and the bot's own responses — as one JSON line
//! (`{"requests":[…],"responses":[…]}`, answered with `{"response":"…"}`) or in the simple
//! form (a line with the turn number n, then the 2n−1 lines of requests and responses
//! interleaved, answered with one line). A bot that prints
//! `>>>BOTZONE_REQUEST_KEEP_RUNNING<<<` after its answer stays running and is sent only the
//! next request. The words of the requests and responses are in [`wire`].

pub mod bridge;
pub mod rebuild;
pub mod wire;

use std::io::{self, BufRead, Read, Write};

use serde_json::{Value, json};
use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Action, DecisionKind, Game};
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::Seat;

use bridge::Form;
use rebuild::rebuild;
use wire::{Request, Response};

/// The longest line read from a judge or a program: a whole hand's history in JSON is a few
/// kilobytes, so a line past this is not one, and is refused before it is held in memory.
pub const MAX_LINE: u64 = 1 << 20;

/// `read_line` with [`MAX_LINE`]: a longer line is an error, not an allocation.
pub fn read_line_capped(input: &mut impl BufRead, line: &mut String) -> io::Result<usize> {
    let n = input.by_ref().take(MAX_LINE).read_line(line)?;
    if n as u64 == MAX_LINE && !line.ends_with('\n') {
        return Err(io::Error::other(format!(
            "a line longer than {MAX_LINE} bytes"
        )));
    }
    Ok(n)
}

/// What a bot prints to stay running between turns.
pub const KEEP_RUNNING: &str = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<";

#[derive(clap::Args)]
pub struct Args {
    /// Bot strength: easy, normal or hard.
    #[arg(long, default_value = "hard")]
    pub level: Level,
    /// Rule set preset: `botzone` (Botzone's game: Chinese Official, one hand, no flowers).
    #[arg(long, default_value = "botzone")]
    pub rules: String,
    /// Stay running after each answer (Botzone's keep-running mode): the judge then sends
    /// only the next request.
    #[arg(long)]
    pub keep_running: bool,
}

/// The history of one hand as this bot has it: the requests, and its answers to all but the
/// last.
#[derive(Default, Debug)]
pub struct History {
    pub requests: Vec<String>,
    pub responses: Vec<String>,
}

pub fn run(args: Args) -> io::Result<()> {
    let rules = RuleSet::preset(&args.rules).ok_or_else(|| {
        io::Error::other(format!(
            "unknown rule set '{}' (known: {})",
            args.rules,
            RuleSet::preset_names().join(", ")
        ))
    })?;
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let Some((mut history, form)) = read_history(&mut input)? else {
        return Ok(());
    };
    let mut bot = LevelBot::new(args.level, 0);
    loop {
        let answer = answer(&rules, &history, &mut bot);
        match form {
            Form::Json => writeln!(out, "{}", json!({ "response": answer.text() }))?,
            Form::Simple => writeln!(out, "{}", answer.text())?,
        }
        if !args.keep_running {
            return out.flush();
        }
        writeln!(out, "{KEEP_RUNNING}")?;
        out.flush()?;
        // Next turn: just the new request (a full history is taken too).
        let mut line = String::new();
        if read_line_capped(&mut input, &mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::String(r)) => {
                history.responses.push(answer.text());
                history.requests.push(r);
            }
            Ok(v @ Value::Object(_)) => {
                history = history_from_json(&v).map_err(io::Error::other)?
            }
            _ => {
                history.responses.push(answer.text());
                history.requests.push(line.to_string());
            }
        }
    }
}

/// Reads one turn's input in either form; `None` at the end of input.
fn read_history(input: &mut impl BufRead) -> io::Result<Option<(History, Form)>> {
    let mut first = String::new();
    loop {
        first.clear();
        if read_line_capped(input, &mut first)? == 0 {
            return Ok(None);
        }
        if !first.trim().is_empty() {
            break;
        }
    }
    let first = first.trim();
    if first.starts_with('{') {
        let v: Value = serde_json::from_str(first)
            .map_err(|e| io::Error::other(format!("the input is not JSON: {e}")))?;
        return Ok(Some((
            history_from_json(&v).map_err(io::Error::other)?,
            Form::Json,
        )));
    }
    let n: usize = first
        .parse()
        .ok()
        .filter(|&n| (1..=1000).contains(&n))
        .ok_or_else(|| io::Error::other(format!("'{first}' is neither JSON nor a turn count")))?;
    let mut lines = Vec::with_capacity(2 * n - 1);
    for _ in 0..2 * n - 1 {
        let mut l = String::new();
        if read_line_capped(input, &mut l)? == 0 {
            return Err(io::Error::other("the input ended before all its turns"));
        }
        lines.push(l.trim().to_string());
    }
    let mut h = History::default();
    for (i, l) in lines.into_iter().enumerate() {
        if i % 2 == 0 {
            h.requests.push(l);
        } else {
            h.responses.push(l);
        }
    }
    Ok(Some((h, Form::Simple)))
}

fn history_from_json(v: &Value) -> Result<History, String> {
    let strings = |key: &str| -> Result<Vec<String>, String> {
        v.get(key)
            .and_then(Value::as_array)
            .ok_or(format!("the input has no \"{key}\" list"))?
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or(format!("\"{key}\" holds a non-string"))
            })
            .collect()
    };
    let h = History {
        requests: strings("requests")?,
        responses: strings("responses").unwrap_or_default(),
    };
    if h.requests.is_empty() || h.responses.len() + 1 != h.requests.len() {
        return Err(format!(
            "{} requests and {} responses: one more request than responses expected",
            h.requests.len(),
            h.responses.len()
        ));
    }
    Ok(h)
}

/// The answer to the last request of `h`. Anything this bot cannot make sense of is answered
/// `PASS` (the judge's safe answer), never a crash.
pub fn answer(rules: &RuleSet, h: &History, bot: &mut LevelBot) -> Response {
    match try_answer(rules, h, bot) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tongcheng botzone: {e}; answering PASS");
            Response::Pass
        }
    }
}

fn try_answer(rules: &RuleSet, h: &History, bot: &mut LevelBot) -> Result<Response, String> {
    let requests: Vec<Request> = h
        .requests
        .iter()
        .map(|r| Request::parse(r))
        .collect::<Result<_, _>>()?;
    let responses: Vec<Option<Response>> = h
        .responses
        .iter()
        .map(|r| Response::parse(r).ok())
        .collect();
    if requests.len() < 3 {
        // Seat and deal: nothing to decide yet.
        return Ok(Response::Pass);
    }
    let r = rebuild(rules, &requests, &responses)?;
    decide(&r.game, r.me, bot)
}

/// The bot's choice for `me`'s pending decision, in Botzone's words. A chow or pung is
/// answered with the discard that follows it, chosen on the hand as it would be after the
/// claim.
pub fn decide(game: &Game, me: Seat, bot: &mut LevelBot) -> Result<Response, String> {
    let view = game.view(me);
    let Some(d) = &view.decision else {
        return Ok(Response::Pass);
    };
    let a = bot.choose(&view);
    Ok(match (d.kind, a) {
        (_, Action::Win) => Response::Win,
        (DecisionKind::Turn, Action::Discard(t)) => Response::Play(t),
        (DecisionKind::Turn, Action::ConcealedKong(t)) => Response::ConcealedKong(t),
        (DecisionKind::Turn, Action::AddedKong(t)) => Response::AddedKong(t),
        (DecisionKind::Claim { .. }, Action::Kong) => Response::Kong,
        (DecisionKind::Claim { .. }, Action::Pung | Action::Chow(_)) => {
            let mut after = game.clone();
            for s in Seat::ALL {
                if after.is_pending(s) {
                    let act = if s == me { a } else { Action::Pass };
                    after.apply(s, act).map_err(|e| e.to_string())?;
                }
            }
            let v = after.view(me);
            let Some(turn) = &v.decision else {
                return Err("the claim left no turn to discard on".into());
            };
            let out = match bot.choose(&v) {
                Action::Discard(t) => t,
                // Botzone's claim answer must name a discard: the decision's own default.
                _ => match turn.on_timeout {
                    Action::Discard(t) => t,
                    other => return Err(format!("no discard after the claim ({other:?})")),
                },
            };
            match a {
                Action::Chow(low) => Response::Chow {
                    middle: low.offset(1).ok_or("a chow from 9")?,
                    out,
                },
                _ => Response::Pung(out),
            }
        }
        _ => Response::Pass,
    })
}

#[cfg(test)]
mod tests {
    use super::bridge::BotzoneSeat;
    use super::*;
    use std::time::Duration;
    use tongcheng_core::game::HandSetup;
    use tongcheng_core::seat::Wind;
    use tongcheng_core::wall::Seed;

    /// Whole hands among our bots: at every decision of the watched seat, the hand rebuilt
    /// from the judge's requests alone gives that seat exactly the view the table gave it —
    /// own tiles, everything shown, the wall's count and the legal actions.
    #[test]
    fn a_rebuilt_hand_gives_the_seat_the_views_the_table_gave() {
        let rules = RuleSet::botzone();
        let mut checked = 0;
        for seed in 0..12u64 {
            // Botzone numbers players from the dealer, as the rebuilt hand does; the arena
            // test plays every dealer through the bridge.
            let dealer = Seat(0);
            let mut game = Game::new(HandSetup {
                rules: rules.clone(),
                seed: Seed::from_u64(seed),
                dealer,
                prevalent: Wind::from_index((seed / 4 % 4) as usize),
                dealer_level: 0,
            });
            let me = Seat((seed % 4) as u8);
            let mut seat = BotzoneSeat::new("unused", Form::Json, Duration::from_secs(1));
            seat.new_hand(me, dealer, game.setup().prevalent);
            let mut bots: Vec<LevelBot> =
                (0..4).map(|_| LevelBot::new(Level::Hard, seed)).collect();
            let mut fed = 0;
            while !game.is_finished() {
                let s = Seat::ALL
                    .into_iter()
                    .find(|&s| game.is_pending(s))
                    .expect("someone decides");
                let events = game.events_for(me);
                seat.feed(&events[fed..]);
                fed = events.len();
                let view = game.view(s);
                if s == me && seat.requests.len() > 2 {
                    let requests: Vec<Request> = seat
                        .requests
                        .iter()
                        .map(|r| Request::parse(r).unwrap())
                        .collect();
                    let responses: Vec<Option<Response>> = seat
                        .responses
                        .iter()
                        .map(|r| Response::parse(r).ok())
                        .collect();
                    let rebuilt = rebuild(&rules, &requests, &responses)
                        .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{:?}", seat.requests));
                    assert_eq!(rebuilt.me, me);
                    let mut again = rebuilt.game.view(me);
                    // The seed is not the judge's to tell; everything else must agree.
                    again.rules = view.rules.clone();
                    assert_eq!(again, view, "seed {seed}, request {}", seat.requests.len());
                    checked += 1;
                }
                let a = bots[s.index()].choose(&view);
                if s == me && view.decision.is_some() && seat.requests.len() > seat.responses.len()
                {
                    // What this seat answered, in Botzone's words (a claim's discard is not
                    // needed to rebuild; a concealed kong's tile is).
                    let answer = match a {
                        Action::Discard(t) => Response::Play(t).text(),
                        Action::ConcealedKong(t) => Response::ConcealedKong(t).text(),
                        Action::AddedKong(t) => Response::AddedKong(t).text(),
                        Action::Win => "HU".into(),
                        Action::Kong => "GANG".into(),
                        _ => "PASS".into(),
                    };
                    if view
                        .decision
                        .as_ref()
                        .is_some_and(|d| d.kind == DecisionKind::Turn)
                        && seat.requests.len() == seat.responses.len() + 1
                    {
                        seat.responses.push(answer);
                    }
                }
                game.apply(s, a).unwrap();
            }
        }
        assert!(checked > 100, "only {checked} decisions checked");
    }

    #[test]
    fn both_input_forms_are_read() {
        let json = r#"{"requests":["0 0 0","1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2","2 J2"],"responses":["PASS","PASS"]}"#;
        let (h, form) = read_history(&mut json.as_bytes()).unwrap().unwrap();
        assert_eq!(form, Form::Json);
        assert_eq!(h.requests.len(), 3);
        let simple =
            "3\n0 0 0\nPASS\n1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2\nPASS\n2 J2\n";
        let (h2, form) = read_history(&mut simple.as_bytes()).unwrap().unwrap();
        assert_eq!(form, Form::Simple);
        assert_eq!(h2.requests, h.requests);
        assert_eq!(h2.responses, h.responses);
        // The dealer holding 1z 1z 6z 6z... draws 6z: it discards, and never the pair it
        // builds on. Whatever the choice, it is a legal PLAY of a held tile.
        let mut bot = LevelBot::new(Level::Hard, 0);
        match answer(&RuleSet::botzone(), &h, &mut bot) {
            Response::Play(t) => assert!(
                [
                    "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "7z", "6z"
                ]
                .contains(&t.to_string().as_str()),
                "{t}"
            ),
            other => panic!("{other:?}"),
        }
        for bad in ["{", "{\"requests\":3}", "0\n", "x\n", "2\n0 0 0\n"] {
            assert!(read_history(&mut bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_line_past_the_cap_is_refused() {
        let long = format!("{{\"requests\":[\"{}\"]}}\n", "x".repeat(MAX_LINE as usize));
        let e = read_history(&mut long.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("longer than"), "{e}");
        let mut line = String::new();
        assert_eq!(
            read_line_capped(&mut "PASS\n".as_bytes(), &mut line).unwrap(),
            5
        );
    }

    #[test]
    fn nonsense_is_answered_pass() {
        let mut bot = LevelBot::new(Level::Hard, 0);
        for requests in [
            vec![
                "0 0 0",
                "1 0 0 0 0 W1 W1 W1 W1 W1 B6 T7 T8 T9 F1 F1 J1 J2",
                "2 J2",
            ],
            vec![
                "0 0 0",
                "1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2",
                "3 2 PLAY W9",
            ],
            vec!["3 2 PLAY W9"],
            vec![
                "0 1 0",
                "1 0 0 0 0 W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J1 J2",
                "2 J2",
            ],
        ] {
            let h = History {
                requests: requests.iter().map(|s| s.to_string()).collect(),
                responses: vec!["PASS".into(); requests.len() - 1],
            };
            assert_eq!(
                answer(&RuleSet::botzone(), &h, &mut bot),
                Response::Pass,
                "{requests:?}"
            );
        }
    }

    /// Histories from real hands, cut anywhere and mangled (tokens replaced, requests dropped,
    /// doubled or swapped): every one gets an answer, none a panic.
    #[test]
    fn mangled_histories_never_panic() {
        let rules = RuleSet::botzone();
        let mut transcripts: Vec<Vec<String>> = Vec::new();
        for seed in 0..4u64 {
            let mut game = Game::new(HandSetup {
                rules: rules.clone(),
                seed: Seed::from_u64(seed),
                dealer: Seat(0),
                prevalent: Wind::East,
                dealer_level: 0,
            });
            let me = Seat((seed % 4) as u8);
            let mut seat = BotzoneSeat::new("unused", Form::Json, Duration::from_secs(1));
            seat.new_hand(me, Seat(0), Wind::East);
            let mut bots: Vec<LevelBot> =
                (0..4).map(|_| LevelBot::new(Level::Normal, seed)).collect();
            while !game.is_finished() {
                let s = Seat::ALL.into_iter().find(|&s| game.is_pending(s)).unwrap();
                let a = bots[s.index()].choose(&game.view(s));
                game.apply(s, a).unwrap();
            }
            seat.feed(&game.events_for(me));
            transcripts.push(seat.requests.clone());
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n.max(1) as u64) as usize
        };
        let words = [
            "W1", "W9", "B5", "T3", "F4", "J1", "J3", "H1", "H8", "X9", "0", "1", "2", "3", "4",
            "9", "PLAY", "PENG", "CHI", "GANG", "BUGANG", "DRAW", "BUHUA", "", "W0",
        ];
        let mut bot = LevelBot::new(Level::Hard, 0);
        for _ in 0..3000 {
            let t = &transcripts[next(transcripts.len())];
            let mut reqs: Vec<String> = t[..1 + next(t.len())].to_vec();
            for _ in 0..1 + next(3) {
                let i = next(reqs.len());
                match next(4) {
                    0 => {
                        let mut w: Vec<String> = reqs[i].split(' ').map(str::to_string).collect();
                        let j = next(w.len());
                        w[j] = words[next(words.len())].to_string();
                        reqs[i] = w.join(" ");
                    }
                    1 if reqs.len() > 1 => {
                        reqs.remove(i);
                    }
                    2 => reqs.insert(i, reqs[i].clone()),
                    _ => {
                        let j = next(reqs.len());
                        reqs.swap(i, j);
                    }
                }
            }
            let h = History {
                responses: (1..reqs.len())
                    .map(|_| {
                        ["PASS", "PLAY W1", "GANG J1", "GANG H2", "HU", "x"][next(6)].to_string()
                    })
                    .collect(),
                requests: reqs,
            };
            let _ = answer(&rules, &h, &mut bot);
        }
    }
}
