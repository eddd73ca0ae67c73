//! Seats for outside Botzone programs in the arena (`simulate --seats botzone:CMD,…`): the
//! table's events become the judge's requests, the program's answers become actions.
//!
//! Each decision runs CMD (through `sh -c`) with the whole history of the hand, as Botzone
//! does; a program that answers with `>>>BOTZONE_REQUEST_KEEP_RUNNING<<<` is kept running and
//! sent each next request alone. Turns where this seat has nothing to decide are answered
//! `PASS` on its behalf (a kept program is sent them and must answer). A program that answers
//! late, answers what is not legal, cannot be read or dies is reported, and its seat plays
//! the decision's timeout action, so the match always finishes.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tongcheng_core::game::{Action, Decision, DecisionKind, Event, TableMeld};
use tongcheng_core::hand::{KongKind, MeldKind};
use tongcheng_core::seat::{Seat, Wind};
use tongcheng_core::tile::Tile;

use super::KEEP_RUNNING;
use super::wire::{Request, Response};

/// How the program reads its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// One JSON line `{"requests":[…],"responses":[…]}`, answered `{"response":"…"}`.
    Json,
    /// The turn count, then requests and responses a line each; answered with a line.
    Simple,
}

/// What went wrong with a program, counted.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub decisions: u64,
    pub illegal: u64,
    pub unreadable: u64,
    pub late: u64,
    pub crashed: u64,
    /// The first few problems in words.
    pub examples: Vec<String>,
}

impl Report {
    fn note(&mut self, what: String) {
        if self.examples.len() < 5 {
            self.examples.push(what);
        }
    }

    pub fn json(&self) -> Value {
        json!({
            "decisions": self.decisions,
            "illegal": self.illegal,
            "unreadable": self.unreadable,
            "late": self.late,
            "crashed": self.crashed,
            "examples": self.examples,
        })
    }
}

/// A program kept running between turns.
struct Kept {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Kept {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One seat played by an outside program, for one hand at a time.
pub struct BotzoneSeat {
    cmd: String,
    form: Form,
    limit: Duration,
    seat: Seat,
    dealer: Seat,
    pub(super) requests: Vec<String>,
    pub(super) responses: Vec<String>,
    /// The discard this program named with its chow or pung, played when the claim is granted.
    pending_out: Option<Tile>,
    /// A chow or pung just made, waiting for its discard to become one request.
    claimed: Option<(Seat, TableMeld)>,
    dealt: usize,
    dealer_fourteenth: Option<Tile>,
    kept: Option<Kept>,
    pub report: Report,
}

impl std::fmt::Debug for BotzoneSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotzoneSeat")
            .field("cmd", &self.cmd)
            .field("seat", &self.seat)
            .finish_non_exhaustive()
    }
}

impl BotzoneSeat {
    pub fn new(cmd: &str, form: Form, limit: Duration) -> BotzoneSeat {
        BotzoneSeat {
            cmd: cmd.to_string(),
            form,
            limit,
            seat: Seat(0),
            dealer: Seat(0),
            requests: Vec::new(),
            responses: Vec::new(),
            pending_out: None,
            claimed: None,
            dealt: 0,
            dealer_fourteenth: None,
            kept: None,
            report: Report::default(),
        }
    }

    /// Botzone numbers players by seat wind: the dealer is 0.
    fn id(&self, s: Seat) -> u8 {
        (s.0 + 4 - self.dealer.0) % 4
    }

    /// A new hand: this program sits in `seat`.
    pub fn new_hand(&mut self, seat: Seat, dealer: Seat, prevalent: Wind) {
        self.kept = None;
        self.seat = seat;
        self.dealer = dealer;
        self.requests.clear();
        self.responses.clear();
        self.pending_out = None;
        self.claimed = None;
        self.dealt = 0;
        self.dealer_fourteenth = None;
        let me = self.id(seat);
        self.push(Request::Start {
            me,
            quan: prevalent.index() as u8,
        });
    }

    /// Turns the table's events (as this seat sees them) into the judge's requests.
    pub fn feed(&mut self, events: &[Event]) {
        for e in events {
            match e {
                Event::Dealt { seat, tiles } => {
                    if *seat == self.seat
                        && let Some(t) = tiles
                    {
                        let mut mine = t.clone();
                        if mine.len() == 14 {
                            self.dealer_fourteenth = mine.pop();
                        }
                        self.push(Request::Deal {
                            flower_counts: [0; 4],
                            tiles: mine,
                            flowers: Vec::new(),
                        });
                    }
                    self.dealt += 1;
                    if self.dealt == 4 {
                        // The dealer's fourteenth tile is the first draw of the hand.
                        let r = match self.dealer_fourteenth {
                            Some(t) => Request::Draw(t),
                            None => Request::OtherDraw { p: 0 },
                        };
                        self.push(r);
                    }
                }
                Event::Drew { seat, tile, .. } => {
                    let r = match tile {
                        Some(t) if *seat == self.seat => Request::Draw(*t),
                        _ => Request::OtherDraw { p: self.id(*seat) },
                    };
                    self.push(r);
                }
                // Botzone has no face-down discard; the arena refuses 暗牌 rules with outside
                // programs, so a hidden tile never reaches here (skipped if it did).
                Event::Discarded { tile: None, .. } => {}
                Event::Discarded {
                    seat,
                    tile: Some(tile),
                    ..
                } => {
                    let p = self.id(*seat);
                    let r = match self.claimed.take() {
                        Some((s, m)) if s == *seat && m.kind == MeldKind::Chow => {
                            let middle = m.tile.and_then(|t| t.offset(1)).unwrap_or(*tile);
                            Request::Chow {
                                p,
                                middle,
                                out: *tile,
                            }
                        }
                        Some((s, _)) if s == *seat => Request::Pung { p, out: *tile },
                        _ => Request::Play { p, tile: *tile },
                    };
                    self.push(r);
                }
                Event::Claimed { seat, meld, .. } => {
                    if matches!(meld.kind, MeldKind::Kong(_)) {
                        self.push(Request::Kong { p: self.id(*seat) });
                    } else {
                        self.claimed = Some((*seat, *meld));
                    }
                }
                Event::Kong { seat, meld } => {
                    // An added kong was announced as BUGANG when it was being added.
                    if meld.kind != MeldKind::Kong(KongKind::Added) {
                        self.push(Request::Kong { p: self.id(*seat) });
                    }
                }
                Event::AddingKong { seat, tile } => self.push(Request::AddedKong {
                    p: self.id(*seat),
                    tile: *tile,
                }),
                Event::DiceRolled { .. }
                | Event::Flower { .. }
                | Event::Won { .. }
                | Event::DrawGame => {}
            }
        }
    }

    /// Appends a request; the one before it, if nobody asked this seat about it, is answered
    /// `PASS` (by a kept program itself).
    fn push(&mut self, r: Request) {
        if self.requests.len() > self.responses.len() {
            let answer = match self.kept.is_some() {
                true => self.ask_kept().unwrap_or_else(|e| {
                    self.report.crashed += 1;
                    self.report.note(e);
                    "PASS".to_string()
                }),
                false => "PASS".to_string(),
            };
            self.responses.push(answer);
        }
        self.requests.push(r.text());
        self.pending_out = None;
    }

    /// The action for this seat's decision `d`.
    pub fn decide(&mut self, d: &Decision) -> Action {
        if d.kind == DecisionKind::Turn
            && let Some(out) = self.pending_out.take()
        {
            // The discard named with the claim just granted.
            return self.legal_or_default(d, Action::Discard(out), "the discard after a claim");
        }
        self.report.decisions += 1;
        let answer = match self.run() {
            Ok(a) => a,
            Err(e) => {
                self.report.note(e);
                self.responses.push("PASS".into());
                return d.on_timeout;
            }
        };
        self.responses.push(answer.clone());
        let r = match Response::parse(&answer) {
            Ok(r) => r,
            Err(e) => {
                self.report.unreadable += 1;
                self.report.note(e);
                return d.on_timeout;
            }
        };
        let action = match (d.kind, r) {
            (_, Response::Win) => Some(Action::Win),
            (_, Response::Pass) => Some(Action::Pass),
            (DecisionKind::Turn, Response::Play(t)) => Some(Action::Discard(t)),
            (DecisionKind::Turn, Response::ConcealedKong(t)) => Some(Action::ConcealedKong(t)),
            (DecisionKind::Turn, Response::AddedKong(t)) => Some(Action::AddedKong(t)),
            (DecisionKind::Claim { .. }, Response::Kong) => Some(Action::Kong),
            (DecisionKind::Claim { .. }, Response::Pung(out)) => {
                self.pending_out = Some(out);
                Some(Action::Pung)
            }
            (DecisionKind::Claim { .. }, Response::Chow { middle, out }) => {
                self.pending_out = Some(out);
                middle.offset(-1).map(Action::Chow)
            }
            _ => None,
        };
        match action {
            Some(a) => self.legal_or_default(d, a, &answer),
            None => {
                self.report.illegal += 1;
                self.report.note(format!(
                    "'{answer}' does not answer a {:?} decision",
                    d.kind
                ));
                self.pending_out = None;
                d.on_timeout
            }
        }
    }

    fn legal_or_default(&mut self, d: &Decision, a: Action, what: &str) -> Action {
        if d.legal.contains(&a) {
            return a;
        }
        self.report.illegal += 1;
        self.report.note(format!(
            "'{what}' ({a:?}) is not legal now; played {:?}",
            d.on_timeout
        ));
        self.pending_out = None;
        d.on_timeout
    }

    /// Asks the program about the last request: a kept program is sent it alone, otherwise
    /// a new run gets the whole history.
    fn run(&mut self) -> Result<String, String> {
        if self.kept.is_some() {
            return self.ask_kept().inspect_err(|_| {
                self.report.crashed += 1;
            });
        }
        let input = match self.form {
            Form::Json => {
                json!({ "requests": self.requests, "responses": self.responses }).to_string()
            }
            Form::Simple => {
                let mut s = format!("{}\n", self.requests.len());
                for (i, r) in self.requests.iter().enumerate() {
                    s.push_str(r);
                    s.push('\n');
                    if let Some(a) = self.responses.get(i) {
                        s.push_str(a);
                        s.push('\n');
                    }
                }
                s.trim_end().to_string()
            }
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                self.report.crashed += 1;
                format!("cannot start '{}': {e}", self.cmd)
            })?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            loop {
                let mut l = String::new();
                // A line past the cap or an end of output ends the program's answers.
                match super::read_line_capped(&mut out, &mut l) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if tx
                    .send(l.trim_end_matches(['\r', '\n']).to_string())
                    .is_err()
                {
                    break;
                }
            }
        });
        // A program that exits without reading its input is its own problem, reported below.
        let _ = writeln!(stdin, "{input}");
        let _ = stdin.flush();
        let mut kept = Kept {
            child,
            stdin,
            lines: rx,
        };
        let (answer, keep) = self.read_turn(&mut kept)?;
        if keep {
            self.kept = Some(kept);
        }
        Ok(answer)
    }

    fn ask_kept(&mut self) -> Result<String, String> {
        let Some(mut kept) = self.kept.take() else {
            return Err("no program is running".into());
        };
        let last = self.requests.last().cloned().unwrap_or_default();
        let line = match self.form {
            Form::Json => Value::String(last).to_string(),
            Form::Simple => last,
        };
        writeln!(kept.stdin, "{line}")
            .and_then(|()| kept.stdin.flush())
            .map_err(|e| format!("the kept program stopped reading: {e}"))?;
        let (answer, keep) = self.read_turn(&mut kept)?;
        if keep {
            self.kept = Some(kept);
        }
        Ok(answer)
    }

    /// Reads one turn's output: the answer (first line), then up to the keep-running mark or
    /// the end of output.
    fn read_turn(&mut self, kept: &mut Kept) -> Result<(String, bool), String> {
        let deadline = Instant::now() + self.limit;
        let mut answer: Option<String> = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match kept.lines.recv_timeout(left) {
                Ok(l) if l.trim() == KEEP_RUNNING => {
                    let a = answer.ok_or("the program kept running without an answer")?;
                    return Ok((a, true));
                }
                Ok(l) => {
                    if answer.is_none() && !l.trim().is_empty() {
                        answer = Some(match self.form {
                            Form::Json => serde_json::from_str::<Value>(&l)
                                .ok()
                                .and_then(|v| v.get("response")?.as_str().map(str::to_string))
                                .unwrap_or(l),
                            Form::Simple => l.trim().to_string(),
                        });
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let _ = kept.child.wait();
                    return answer.map(|a| (a, false)).ok_or_else(|| {
                        self.report.crashed += 1;
                        format!("'{}' ended without an answer", self.cmd)
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.report.late += 1;
                    let _ = kept.child.kill();
                    return Err(format!(
                        "'{}' did not answer within {} ms",
                        self.cmd,
                        self.limit.as_millis()
                    ));
                }
            }
        }
    }
}
