//! `tongcheng play --online`: a seat at a table the server hosts, moves as lines.
//!
//! Kept apart from the offline line game: the online session is the client crate's
//! ([`OnlineSession`]), the server owns the table and the clock. Moves use the scripted
//! game's words (`discard 5m`, `pung`, `pass`, `win`, `hint`, ...). When stdin ends every
//! remaining decision is answered with its timeout action at once, so a pipe from
//! `/dev/null` plays a whole match. Every finished hand is checked for fairness (printed),
//! and saved to the local history like an offline hand, so `tongcheng history` shows it and
//! `tongcheng sync` finds it already on the server.

use std::io::{self, BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

use tongcheng_client::{ClientError, OnlineOptions, OnlineSession, OnlineUpdate};
use tongcheng_core::game::{Action, Decision, DecisionKind, Event};
use tongcheng_core::history::HistoryStore;
use tongcheng_core::protocol::ErrorCode;
use tongcheng_core::record::rule_differences;
use tongcheng_core::rules::{MAX_PIAO, RuleSet};
use tongcheng_core::seat::Seat;

use super::Args;
use super::command::{Command, HELP, action_text, legal_text, parse, resolve};
use super::text::{hint_block, tiles_text};
use super::tiles::TileFace;
use crate::net_cmd::play_session;
use tongcheng_core::clock::unix_secs;

fn other(e: impl ToString) -> io::Error {
    io::Error::other(e.to_string())
}

pub fn run(args: Args) -> io::Result<()> {
    let server = args
        .server
        .clone()
        .ok_or_else(|| other("--online needs --server URL"))?;
    let options = OnlineOptions {
        table: args.table.clone(),
        people: Some(args.people),
        rules: Some(args.rules.clone().unwrap_or_else(|| "guobiao".into())),
        capture_frames: false,
    };
    let (db, token) = play_session(&server, args.db.clone(), false)?;
    let session = match OnlineSession::connect(&server, &token, options.clone()) {
        // A saved session the server no longer takes: log in again, once.
        Err(ClientError::Network(m)) if m.contains("401") => {
            let (_, token) = play_session(&server, args.db.clone(), true)?;
            OnlineSession::connect(&server, &token, options)
        }
        r => r,
    }
    .map_err(other)?;
    let mut history = HistoryStore::open(&db).map_err(other)?;
    let face = TileFace::choose(args.ascii);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // Lines are read on their own thread, so the table goes on while nobody types.
    let (line_tx, lines) = mpsc::channel::<Option<String>>();
    std::thread::spawn(move || {
        let stdin = io::stdin();
        for line in stdin.lock().lines() {
            if line_tx.send(line.ok()).is_err() {
                return;
            }
        }
        let _ = line_tx.send(None);
    });
    let mut input_ended = false;
    let mut match_id = None;
    let mut me: Option<Seat> = None;
    let mut unfair = 0;
    loop {
        // Typed lines first: a move for the pending decision, or a question.
        while let Ok(line) = lines.try_recv() {
            match line {
                None => input_ended = true,
                Some(l) => command(&session, &l, face, &mut out)?,
            }
        }
        if input_ended && let Some((_, d)) = session.decision() {
            let _ = session.act(d.on_timeout);
        }
        let Some(u) = session.next_update(Duration::from_millis(50)) else {
            continue;
        };
        match u {
            OnlineUpdate::Joined {
                table,
                player,
                players,
                resumed,
                rules,
            } => {
                // What this table changes of its preset (a private room's hands and time
                // limits): the player sees what every hand will be checked against.
                if !resumed && let Some(preset) = RuleSet::preset(&rules.name) {
                    let changes = rule_differences(&preset, &rules);
                    if !changes.is_empty() {
                        writeln!(
                            out,
                            "this table plays {} with its own settings: {}",
                            rules.name,
                            changes.join("; ")
                        )?;
                    }
                }
                let names: Vec<String> = players
                    .iter()
                    .map(|p| format!("{}{}", p.name, if p.person { "" } else { " (bot)" }))
                    .collect();
                writeln!(
                    out,
                    "{} table {table} as player {player}: {}",
                    if resumed { "back at" } else { "at" },
                    names.join(", ")
                )?;
            }
            OnlineUpdate::Committed { hand } => {
                writeln!(out, "hand {}: the wall is committed", hand + 1)?;
            }
            OnlineUpdate::Event { event, .. } => {
                if let Some(l) = event_text(&event, me, face) {
                    writeln!(out, "{l}")?;
                }
            }
            OnlineUpdate::Decision { decision, .. } => {
                if let Some(v) = session.table() {
                    me = Some(v.seat);
                    let drawn = v.drawn.map(|t| format!(" + {}", tiles_text(&[t], face)));
                    writeln!(
                        out,
                        "your hand: {}{}",
                        tiles_text(&v.hand, face),
                        drawn.unwrap_or_default()
                    )?;
                }
                writeln!(out, "{}", prompt(&decision, session.time_left()))?;
            }
            OnlineUpdate::AutoPlay { on } => writeln!(
                out,
                "{}",
                if on {
                    "auto-play (托管): your seat plays by itself until you move again"
                } else {
                    "auto-play off"
                }
            )?,
            OnlineUpdate::Players { players } => {
                let names: Vec<String> = players
                    .iter()
                    .map(|p| format!("{}{}", p.name, if p.person { "" } else { " (bot)" }))
                    .collect();
                writeln!(out, "at the table now: {}", names.join(", "))?;
            }
            OnlineUpdate::PiaoAsked { hand } => writeln!(
                out,
                "hand {}: your 飘? type a stake 0–{MAX_PIAO} (none in time: 0)",
                hand + 1
            )?,
            OnlineUpdate::Piao { stakes, .. } => {
                let line: Vec<String> = Seat::ALL
                    .iter()
                    .map(|s| format!("{s} {}", stakes[s.index()]))
                    .collect();
                writeln!(out, "飘: {}", line.join(", "))?;
            }
            OnlineUpdate::HandEnd {
                hand,
                record,
                seat,
                fair,
            } => {
                let r = &record.result;
                let winner = match r.winner {
                    Some(w) if w == seat => "you win".to_string(),
                    Some(w) => format!("{w} wins"),
                    None => "a draw (荒牌)".into(),
                };
                writeln!(
                    out,
                    "hand {} over: {winner}; your score {:+}",
                    hand + 1,
                    r.deltas[seat.index()]
                )?;
                match (&fair, session.round()) {
                    (Ok(()), None) => writeln!(
                        out,
                        "  fair wall: the reveal matches the commitment, our contribution was used, \
                         and the hand replays to what we saw"
                    )?,
                    (Ok(()), Some(r)) => writeln!(
                        out,
                        "  hand checked: it replays to what we saw; its wall is checked against \
                         round {}'s commitment when the round ends (tongcheng tournament verify {} --server URL)",
                        r.round, r.tournament
                    )?,
                    (Err(e), _) => {
                        unfair += 1;
                        writeln!(out, "  WARNING: this hand's wall does NOT verify: {e}")?;
                    }
                }
                if match_id.is_none() {
                    match_id = Some(
                        history
                            .start_match(&record.setup.rules.name, seat, unix_secs())
                            .map_err(other)?,
                    );
                }
                if let Err(e) = history.add_hand(&record, seat, unix_secs(), match_id) {
                    writeln!(out, "  (not saved to the history: {e})")?;
                }
            }
            OnlineUpdate::MatchEnd { scores } => {
                let player = session.player().unwrap_or(0) as usize;
                writeln!(
                    out,
                    "match over: scores by player {scores:?} (you are player {player}); \
                     {unfair} unfair hand(s)"
                )?;
                if let Some(id) = match_id {
                    history
                        .finish_match(id, scores, unix_secs())
                        .map_err(other)?;
                }
                return if unfair == 0 {
                    Ok(())
                } else {
                    Err(other(format!("{unfair} hand(s) did not verify")))
                };
            }
            OnlineUpdate::Error { code, message } => {
                writeln!(out, "server: {message} ({code:?})")?;
                if code == ErrorCode::Replaced {
                    // Playing on elsewhere: taking the seat back would only start a tug of war.
                    return Err(other("this seat is being played from another connection"));
                }
            }
            // Asked for only by tournament entrants on the socket (the CLI asks over HTTP).
            OnlineUpdate::NextTable(_) => {}
            OnlineUpdate::Disconnected { reason } => {
                writeln!(out, "connection lost ({reason}); reconnecting")?;
                std::thread::sleep(Duration::from_millis(500));
                session
                    .reconnect()
                    .map_err(|e| other(format!("cannot reconnect: {e}")))?;
            }
        }
        out.flush()?;
    }
}

fn prompt(d: &Decision, left: Option<Duration>) -> String {
    let what = match d.kind {
        DecisionKind::Turn => "your turn".to_string(),
        DecisionKind::Claim { tile } => format!("{tile} discarded"),
        DecisionKind::RobKong { tile } => format!("a kong of {tile}"),
    };
    let time = left.map_or(String::new(), |t| format!(" [{} s]", t.as_secs()));
    format!("{what}{time}: {}", legal_text(d))
}

/// One typed line: a move, a hint, or help.
fn command(
    session: &OnlineSession,
    line: &str,
    face: TileFace,
    out: &mut dyn Write,
) -> io::Result<()> {
    // A number while 飘 is asked: the stake.
    if let Ok(stake) = line.trim().parse::<u8>()
        && session.piao(stake).map_err(other)?
    {
        return writeln!(out, "you: 飘 {stake}");
    }
    let cmd = match parse(line) {
        Ok(Some(c)) => c,
        Ok(None) => return Ok(()),
        Err(e) => return writeln!(out, "{e}"),
    };
    match cmd {
        Command::Help | Command::Quit => writeln!(out, "{HELP}"),
        Command::Hint => match session.hint() {
            Some(h) => {
                for l in hint_block(&h, 80) {
                    writeln!(out, "{l}")?;
                }
                Ok(())
            }
            None => writeln!(out, "no hint now"),
        },
        Command::Table => match session.table() {
            Some(v) => writeln!(out, "your hand: {}", tiles_text(&v.hand, face)),
            None => writeln!(out, "no hand is being played"),
        },
        c => {
            let Some((_, d)) = session.decision() else {
                return writeln!(out, "nothing to decide now");
            };
            match resolve(c, &d).and_then(|a: Action| {
                session.act(a).map_err(|e| e.to_string())?;
                Ok(a)
            }) {
                Ok(a) => writeln!(out, "you: {}", action_text(a)),
                Err(e) => writeln!(out, "{e}"),
            }
        }
    }
}

/// An event as one line (another seat's hidden tiles never reach here: the server sends
/// only what this seat may see).
fn event_text(e: &Event, me: Option<Seat>, face: TileFace) -> Option<String> {
    let who = |s: &Seat| {
        if Some(*s) == me {
            "you".to_string()
        } else {
            s.to_string()
        }
    };
    Some(match e {
        Event::Discarded {
            seat,
            tile: Some(tile),
            ..
        } => {
            format!("{} discard {}", who(seat), tiles_text(&[*tile], face))
        }
        Event::Discarded { seat, .. } => format!("{} discard a tile face down", who(seat)),
        Event::Claimed { seat, from, meld } => {
            format!("{} claim {:?} from {}", who(seat), meld.kind, who(from))
        }
        Event::Kong { seat, .. } => format!("{} kong", who(seat)),
        Event::Flower { seat, tile } => {
            format!("{} flower {}", who(seat), tiles_text(&[*tile], face))
        }
        Event::Won {
            seat, tile, total, ..
        } => format!(
            "{} win on {} ({total} points)",
            who(seat),
            tiles_text(&[*tile], face)
        ),
        Event::DrawGame => "the wall is empty".into(),
        _ => return None,
    })
}
