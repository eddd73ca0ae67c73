//! Scripted play: moves read as plain lines, the table printed as plain text.
//!
//! For tests, bug reports and playing over a pipe. The output depends only on the seed, the
//! level and the input (no clock, no timing), so a transcript can be compared byte for byte.
//! When the input runs out every remaining decision of the human is taken exactly as on a
//! timeout, so `tongcheng play --seed 5 </dev/null` plays a whole match by itself.

use std::io::{self, BufRead, Write};

use tongcheng_core::game::Decision;
use tongcheng_core::hint::hint;
use tongcheng_core::rules::MAX_PIAO;
use tongcheng_core::seat::Seat;
use tongcheng_core::table::Clock;

use super::Setup;
use super::command::{Command, HELP, action_text, parse, resolve};
use super::store::{Kept, KeptMatch, Store, describe_unfinished, load_unfinished};
use super::table::{Step, Table};
use super::text::{
    event_line, final_block, hint_block, result_block, standings_line, table_block, wrap_text,
};
use super::tiles::TileFace;

/// Lines of input, counted, read as bytes so that invalid UTF-8 is a bad line, not an error.
struct Input {
    reader: Box<dyn BufRead>,
    line_no: usize,
    ended: bool,
}

impl Input {
    fn next_line(&mut self) -> io::Result<Option<String>> {
        if self.ended {
            return Ok(None);
        }
        let mut buf = Vec::new();
        if self.reader.read_until(b'\n', &mut buf)? == 0 {
            self.ended = true;
            return Ok(None);
        }
        self.line_no += 1;
        Ok(Some(String::from_utf8_lossy(&buf).trim().to_string()))
    }
}

fn other(e: impl ToString) -> io::Error {
    io::Error::other(e.to_string())
}

fn print(out: &mut dyn Write, lines: &[String]) -> io::Result<()> {
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// Picks the match to play: the saved one with `--resume`, otherwise a new one (a saved
/// match is then only mentioned, never touched).
fn open_table(
    setup: &Setup,
    store: &mut Store,
    kept: &mut KeptMatch,
    out: &mut dyn Write,
) -> io::Result<Table> {
    let path = &setup.unfinished;
    let saved = load_unfinished(path);
    let fresh = || Table::new(setup.rules.clone(), setup.seed, setup.level);
    Ok(match (saved, setup.resume) {
        (Ok(Some(u)), true) => {
            let mut t = Table::resume(&u).map_err(|e| {
                other(format!(
                    "the unfinished match in {} cannot be resumed ({e}); it was left untouched",
                    path.display()
                ))
            })?;
            store.adopt_match(u.match_id);
            // The save stays until the match ends: it is rewritten after every hand.
            kept.adopt();
            writeln!(
                out,
                "resuming the unfinished match saved in {}:",
                path.display()
            )?;
            writeln!(out, "  {}", describe_unfinished(&u))?;
            // Saved by an earlier version's full-screen game with its clock: lines are read
            // without one.
            t.set_clock(Clock::Off);
            t
        }
        (Ok(Some(u)), false) => {
            writeln!(
                out,
                "an unfinished match ({}) is saved in {}; it is left untouched (--resume continues it)",
                describe_unfinished(&u),
                path.display()
            )?;
            fresh()
        }
        (Ok(None), true) => {
            writeln!(
                out,
                "no unfinished match in {}: starting a new match",
                path.display()
            )?;
            fresh()
        }
        (Ok(None), false) => fresh(),
        (Err(e), true) => return Err(other(format!("{e}; it was left untouched"))),
        (Err(e), false) => {
            writeln!(out, "note: {e}; it is left untouched")?;
            fresh()
        }
    })
}

/// Plays a match reading moves from `input`, printing to `out`.
pub fn run(
    setup: Setup,
    mut store: Store,
    input: Box<dyn BufRead>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut kept = KeptMatch::new(setup.unfinished.clone());
    let mut table = open_table(&setup, &mut store, &mut kept, out)?;
    writeln!(
        out,
        "tongcheng play: {} rules, {} bots, seed {}",
        table.rules().name,
        table.level().name(),
        table.seed()
    )?;
    if setup.seed_from_clock && table.seed() == setup.seed {
        writeln!(
            out,
            "(the seed was picked from the clock: --seed {} plays this match again)",
            table.seed()
        )?;
    }
    writeln!(out, "history: {}", store.path().display())?;
    let mut input = Input {
        reader: input,
        line_no: 0,
        ended: false,
    };
    if table.is_over() {
        return finish(&table, &mut store, &mut kept, out);
    }
    hand_header(&table, out)?;
    ask_piao(&mut table, &mut input, out)?;
    let mut printed = 0;
    loop {
        printed = print_events(&table, printed, out)?;
        // No clock: the output depends only on the seed, the level and the input.
        match table.advance(0).map_err(other)? {
            Step::Moved { .. } => {}
            Step::TimedOut { action, .. } => {
                writeln!(out, "time is up: auto-played {}", action_text(action))?
            }
            Step::Human(d) => {
                if !ask(&mut table, &d, &mut input, &setup, &store, &mut kept, out)? {
                    return Ok(());
                }
            }
            Step::HandOver => {
                let r = table
                    .game()
                    .result()
                    .cloned()
                    .ok_or_else(|| other("the hand has no result"))?;
                print(out, &result_block(&table, &r, TileFace::Notation))?;
                match store.save_hand(&table) {
                    Ok(id) => writeln!(out, "saved to the history as hand {}", id.0)?,
                    Err(e) => writeln!(
                        out,
                        "warning: this hand could not be saved to the history: {e}"
                    )?,
                }
                let label = format!("standings after hand {}", table.hand_label());
                let more = table.next_hand();
                print(out, &standings_line(&table, &label))?;
                if !more {
                    return finish(&table, &mut store, &mut kept, out);
                }
                if let Err(e) = kept.keep(&table, store.match_id()) {
                    writeln!(out, "warning: the match could not be kept: {e}")?;
                }
                printed = 0;
                hand_header(&table, out)?;
                ask_piao(&mut table, &mut input, out)?;
            }
        }
    }
}

fn hand_header(t: &Table, out: &mut dyn Write) -> io::Result<()> {
    let v = t.view();
    writeln!(
        out,
        "\n== hand {}: {} deals, prevalent wind {} ({}) ==",
        t.hand_label(),
        super::text::who(t, v.dealer),
        v.prevalent.name_zh(),
        v.prevalent
    )
}

/// 飘 chosen each hand: the stake for this hand, a number on its own line (an empty line or
/// the end of input stakes 0).
fn ask_piao(t: &mut Table, input: &mut Input, out: &mut dyn Write) -> io::Result<()> {
    if !t.piao_open() {
        return Ok(());
    }
    loop {
        if input.ended {
            return Ok(());
        }
        write!(out, "piao (飘) for this hand, 0-{MAX_PIAO} (Enter: 0)> ")?;
        out.flush()?;
        let Some(line) = input.next_line()? else {
            return Ok(());
        };
        writeln!(out, "{line}")?;
        let n = if line.is_empty() {
            Ok(0)
        } else {
            line.parse::<u8>()
                .map_err(|_| format!("'{line}' is not a stake: a number 0-{MAX_PIAO}"))
        };
        match n.and_then(|n| t.choose_piao(n).map(|()| n)) {
            Ok(n) => {
                let all = t.piao_chosen();
                let stakes: Vec<String> = Seat::ALL
                    .into_iter()
                    .map(|s| format!("{} {}", super::text::who(t, s), all[s.index()]))
                    .collect();
                writeln!(out, "piao {n}; everyone: {}", stakes.join(", "))?;
                return Ok(());
            }
            Err(e) => writeln!(out, "error: line {}: {e}", input.line_no)?,
        }
    }
}

fn print_events(t: &Table, from: usize, out: &mut dyn Write) -> io::Result<usize> {
    let events = t.game().events();
    let me = t.human_seat();
    for e in &events[from.min(events.len())..] {
        if let Some(l) = event_line(t, &e.for_seat(me), TileFace::Notation) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(events.len())
}

fn finish(
    t: &Table,
    store: &mut Store,
    kept: &mut KeptMatch,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out)?;
    print(out, &final_block(t))?;
    if let Err(e) = kept.keep(t, store.match_id()) {
        writeln!(out, "warning: {e}")?;
    }
    if let Err(e) = store.finish_match(t) {
        writeln!(
            out,
            "warning: the match could not be closed in the history: {e}"
        )?;
    }
    out.flush()
}

/// Asks the human's decision until a legal move is given. Returns false when the player quit.
fn ask(
    t: &mut Table,
    d: &Decision,
    input: &mut Input,
    setup: &Setup,
    store: &Store,
    kept: &mut KeptMatch,
    out: &mut dyn Write,
) -> io::Result<bool> {
    if !input.ended {
        print(out, &table_block(t, &t.view()))?;
    }
    loop {
        if input.ended {
            let a = d.on_timeout;
            t.apply_human(a, 0).map_err(other)?;
            writeln!(out, "auto-play: {}", action_text(a))?;
            return Ok(true);
        }
        write!(out, "> ")?;
        out.flush()?;
        let Some(line) = input.next_line()? else {
            writeln!(
                out,
                "(end of input: the remaining decisions are auto-played, as on a timeout)"
            )?;
            continue;
        };
        writeln!(out, "{line}")?;
        let n = input.line_no;
        let cmd = match parse(&line) {
            Ok(None) => continue,
            Ok(Some(c)) => c,
            Err(e) => {
                print(out, &wrap_text(&format!("error: line {n}: "), &e))?;
                continue;
            }
        };
        match cmd {
            Command::Hint => match hint(&t.view()) {
                Some(h) => print(out, &hint_block(&h, super::text::WIDTH))?,
                None => writeln!(out, "no hint: nothing to decide")?,
            },
            Command::Table => print(out, &table_block(t, &t.view()))?,
            Command::Help => print(out, &wrap_text("", HELP))?,
            Command::Quit => {
                quit(t, setup, store, kept, out)?;
                return Ok(false);
            }
            cmd => {
                match resolve(cmd, d).and_then(|a| t.apply_human(a, 0).map_err(|e| e.to_string())) {
                    Ok(()) => return Ok(true),
                    Err(e) => print(out, &wrap_text(&format!("error: line {n}: "), &e))?,
                }
            }
        }
    }
}

/// Keeps the match for `--resume`, unless another match's save is there: that one is never
/// overwritten.
fn quit(
    t: &Table,
    setup: &Setup,
    store: &Store,
    kept: &mut KeptMatch,
    out: &mut dyn Write,
) -> io::Result<()> {
    let path = kept.path().display().to_string();
    match kept.keep(t, store.match_id()).map_err(other)? {
        Kept::NothingToSave => writeln!(out, "quit before the first move: nothing to save")?,
        Kept::OtherMatchThere => writeln!(
            out,
            "quit: another unfinished match is saved in {path} and was left untouched; this one is not saved"
        )?,
        Kept::Saved => writeln!(
            out,
            "quit: the match is saved in {path}; `{}` continues it",
            setup.resume_command
        )?,
        Kept::Closed => {}
    }
    out.flush()
}
