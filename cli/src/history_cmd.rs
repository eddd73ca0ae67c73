//! `tongcheng history` and `tongcheng replay`: the local hand history on the desktop.
//!
//! `history` lists recent hands (or matches) with the player's statistics; `replay` steps
//! through one stored hand, event by event, from one seat's view or with every hand open,
//! and ends with the result and whether the record verifies. Plain text, one line per thing,
//! so both work in a pipe (`tongcheng replay 12 | less`); a closed pipe ends them quietly.
//!
//! The history lives in `$XDG_DATA_HOME/tongcheng/history.db`, or
//! `$HOME/.local/share/tongcheng/history.db`, unless `--db` says otherwise.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::play::text::display_width;
use serde_json::json;
use tongcheng_core::describe::{self, CivilTime};
use tongcheng_core::game::{Event, Game, TableMeld};
use tongcheng_core::hand::{KongKind, Meld, MeldKind};
use tongcheng_core::history::{
    HandEntry, HandId, HistoryError, HistoryStats, HistoryStore, MatchEntry,
};
use tongcheng_core::record::{self, HandRecord};
use tongcheng_core::seat::Seat;
use tongcheng_core::tile::{Tile, to_notation};

#[derive(clap::Args)]
pub struct HistoryArgs {
    /// The history database (default: $XDG_DATA_HOME/tongcheng/history.db or
    /// ~/.local/share/tongcheng/history.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Which page of the list, newest first.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub page: u32,
    /// Entries per page.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub limit: u32,
    /// List matches instead of hands.
    #[arg(long)]
    pub matches: bool,
    /// One JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The id of the hand (as `tongcheng history` lists it).
    #[arg(value_name = "ID")]
    pub id: i64,
    /// The history database (default as for `tongcheng history`).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Watch from this seat (0–3); default: the seat the player had in that hand.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3), conflicts_with = "open")]
    pub seat: Option<u8>,
    /// Show every hand and every draw.
    #[arg(long)]
    pub open: bool,
    /// Pause after every move, showing the hand then: Enter goes on one move, a number goes
    /// on that many, `q` skips to the result. Reads the keys from stdin.
    #[arg(long)]
    pub step: bool,
}

/// Where the history lives when `--db` is not given: `$XDG_DATA_HOME/tongcheng/history.db`
/// (an absolute `XDG_DATA_HOME` only, as the XDG spec says), else
/// `$HOME/.local/share/tongcheng/history.db`.
pub fn default_db_path() -> io::Result<PathBuf> {
    let dir = tongcheng_core::dirs::data_dir("tongcheng").ok_or_else(|| {
        io::Error::other(
            "no place for the history: neither $XDG_DATA_HOME nor $HOME is set (pass --db PATH)",
        )
    })?;
    Ok(dir.join("history.db"))
}

pub fn db_path(given: Option<PathBuf>) -> io::Result<PathBuf> {
    given.map_or_else(default_db_path, Ok)
}

/// A history error as the command line reports it.
fn failed(path: &Path, e: HistoryError) -> io::Error {
    let hint = if e.is_unusable_file() && !matches!(e, HistoryError::Newer { .. }) {
        " (move it aside to start a new history)"
    } else {
        ""
    };
    io::Error::other(format!("history {}: {e}{hint}", path.display()))
}

/// Ends quietly when the reader of a pipe went away (`| head`).
fn quiet_on_closed_pipe(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

pub fn run_history(args: HistoryArgs) -> io::Result<()> {
    let path = db_path(args.db.clone())?;
    // Listing never creates a history: a missing file reads as an empty one.
    let store = if path.exists() {
        HistoryStore::open(&path)
    } else {
        HistoryStore::open_in_memory()
    }
    .map_err(|e| failed(&path, e))?;
    let out = io::stdout().lock();
    let mut out = BufWriter::new(out);
    quiet_on_closed_pipe(write_history(&mut out, &store, &path, &args).and_then(|()| out.flush()))
}

fn write_history(
    out: &mut impl Write,
    store: &HistoryStore,
    path: &Path,
    args: &HistoryArgs,
) -> io::Result<()> {
    let err = |e| failed(path, e);
    let offset = (args.page - 1).saturating_mul(args.limit);
    let stats = store.stats().map_err(err)?;
    // One block of statistics per rule set when there are several: fan figures only mean
    // something within one way of scoring.
    let rules = store.rules_played().map_err(err)?;
    let by_rules: Vec<HistoryStats> = if rules.len() > 1 {
        rules
            .iter()
            .map(|r| store.stats_for(Some(r)))
            .collect::<Result<_, _>>()
            .map_err(err)?
    } else {
        Vec::new()
    };
    if args.matches {
        let total = store.count_matches().map_err(err)?;
        let matches = store.list_matches(offset, args.limit).map_err(err)?;
        if args.json {
            let doc = json!({
                "db": path.display().to_string(), "page": args.page, "limit": args.limit, "total_matches": total,
                "matches": matches, "stats": stats, "stats_by_rules": by_rules,
            });
            return writeln!(out, "{doc}");
        }
        write_heading(out, path, "matches", total, args)?;
        write_matches(out, &matches)?;
    } else {
        let total = store.count_hands().map_err(err)?;
        let hands = store.list_hands(offset, args.limit).map_err(err)?;
        if args.json {
            let doc = json!({
                "db": path.display().to_string(), "page": args.page, "limit": args.limit, "total_hands": total,
                "hands": hands, "stats": stats, "stats_by_rules": by_rules,
            });
            return writeln!(out, "{doc}");
        }
        write_heading(out, path, "hands", total, args)?;
        write_hands(out, &hands)?;
    }
    writeln!(out)?;
    write_stats(out, &stats)?;
    for s in &by_rules {
        writeln!(out)?;
        write_stats(out, s)?;
    }
    Ok(())
}

fn write_heading(
    out: &mut impl Write,
    path: &Path,
    what: &str,
    total: u64,
    args: &HistoryArgs,
) -> io::Result<()> {
    let pages = total.div_ceil(args.limit as u64).max(1);
    if !path.exists() {
        return writeln!(out, "No history yet at {}.", path.display());
    }
    writeln!(
        out,
        "History {}: {total} {what}, page {} of {pages}",
        path.display(),
        args.page
    )?;
    if total > 0 && args.page as u64 > pages {
        writeln!(out, "(no {what} on this page)")?;
    }
    Ok(())
}

/// Rows laid out in columns as wide as their widest cell (counting CJK as two columns), so
/// a long result or rule-set name pushes its column out instead of breaking the table. The
/// last column is left ragged.
fn columns(rows: &[Vec<String>], right: &[bool]) -> Vec<String> {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| display_width(s))
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|r| {
            let mut line = String::new();
            for (c, cell) in r.iter().enumerate() {
                if c > 0 {
                    line.push_str("  ");
                }
                let pad = " ".repeat(widths[c].saturating_sub(display_width(cell)));
                let last = c + 1 == r.len();
                if right.get(c).copied().unwrap_or(false) {
                    line.push_str(&pad);
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    if !last {
                        line.push_str(&pad);
                    }
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

fn write_hands(out: &mut impl Write, hands: &[HandEntry]) -> io::Result<()> {
    if hands.is_empty() {
        return Ok(());
    }
    let mut rows = vec![
        [
            "id",
            "date (UTC)",
            "rules",
            "seat",
            "result",
            "points",
            "fans",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for h in hands {
        let fans = h
            .fans
            .iter()
            .map(|f| format!("{} {}", f.name, fan_points(f.points, f.count)))
            .collect::<Vec<_>>()
            .join(", ");
        rows.push(vec![
            h.id.0.to_string(),
            date(h.played_at),
            h.rules.clone(),
            seat(h.seat),
            outcome(h),
            signed(h.points as i64),
            fans,
        ]);
    }
    for line in columns(&rows, &[true, false, false, false, false, true, false]) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The hand's outcome from the player's side.
fn outcome(h: &HandEntry) -> String {
    let total = h
        .fan_total
        .map(|t| format!(", {t} fan"))
        .unwrap_or_default();
    let how = if h.self_drawn { " self-drawn" } else { "" };
    match h.winner {
        None => "draw".into(),
        Some(_) if h.won => format!("won{how}{total}"),
        Some(w) if h.dealt_in => format!("dealt in to {}{total}", seat(w)),
        Some(w) => format!("{} won{how}{total}", seat(w)),
    }
}

fn write_matches(out: &mut impl Write, matches: &[MatchEntry]) -> io::Result<()> {
    if matches.is_empty() {
        return Ok(());
    }
    let mut rows = vec![
        [
            "id",
            "started (UTC)",
            "rules",
            "seat",
            "hands",
            "wins",
            "points",
            "final scores",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for m in matches {
        let scores = match m.final_scores {
            Some(s) => s
                .iter()
                .enumerate()
                .map(|(p, v)| {
                    let you = if p == m.seat.index() { " (you)" } else { "" };
                    format!("P{p} {}{you}", signed(*v as i64))
                })
                .collect::<Vec<_>>()
                .join(", "),
            None => "unfinished".into(),
        };
        rows.push(vec![
            m.id.0.to_string(),
            date(m.started_at),
            m.rules.clone(),
            seat(m.seat),
            m.hands.to_string(),
            m.wins.to_string(),
            signed(m.points),
            scores,
        ]);
    }
    for line in columns(&rows, &[true, false, false, false, true, true, true, false]) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn write_stats(out: &mut impl Write, s: &HistoryStats) -> io::Result<()> {
    let pct = |r: f64| format!("{:.1}%", 100.0 * r);
    match &s.rules {
        Some(r) => writeln!(out, "Statistics over {} {r} hands:", s.hands)?,
        None => writeln!(out, "Statistics over {} hands:", s.hands)?,
    }
    writeln!(
        out,
        "  wins          {:>6}  ({} of hands)",
        s.wins,
        pct(s.win_rate)
    )?;
    writeln!(
        out,
        "  deal-ins      {:>6}  ({} of hands)",
        s.deal_ins,
        pct(s.deal_in_rate)
    )?;
    writeln!(
        out,
        "  self-drawn    {:>6}  ({} of wins)",
        s.self_drawn_wins,
        pct(s.self_draw_rate)
    )?;
    writeln!(out, "  draws         {:>6}", s.draws)?;
    if let Some(avg) = s.average_win_fan {
        writeln!(out, "  average win   {avg:>6.1}  fan")?;
    }
    if let Some(b) = s.biggest {
        writeln!(out, "  biggest win   {:>6}  fan (hand {})", b.total, b.id.0)?;
    }
    writeln!(out, "  total points  {:>6}", signed(s.total_points))?;
    if !s.top_fans.is_empty() {
        writeln!(out, "  most frequent fans in your wins:")?;
        for f in &s.top_fans {
            writeln!(
                out,
                "    {} {} ({}): in {}, counted {}",
                f.name,
                f.en,
                plural(f.points as u64, "point"),
                plural(f.wins, "win"),
                plural(f.times, "time")
            )?;
        }
    }
    Ok(())
}

pub fn run_replay(args: ReplayArgs) -> io::Result<()> {
    let path = db_path(args.db.clone())?;
    if !path.exists() {
        return Err(io::Error::other(format!(
            "no history at {}",
            path.display()
        )));
    }
    let store = HistoryStore::open(&path).map_err(|e| failed(&path, e))?;
    let id = HandId(args.id);
    let entry = store.get_hand(id).map_err(|e| failed(&path, e))?;
    let record = store.get_record(id).map_err(|e| failed(&path, e))?;
    let view = if args.open {
        View::Open
    } else {
        View::Seat(args.seat.map_or(entry.seat, Seat))
    };
    let out = io::stdout().lock();
    let mut out = BufWriter::new(out);
    let mut keys = args.step.then(|| io::stdin().lock());
    let stepper = keys.as_mut().map(|k| k as &mut dyn io::BufRead);
    let verified = match write_replay(&mut out, &entry, &record, view, stepper)
        .and_then(|v| out.flush().map(|()| v))
    {
        Ok(v) => v,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        Err(e) => return Err(e),
    };
    match verified {
        Ok(()) => Ok(()),
        Err(e) => Err(io::Error::other(format!(
            "hand {} does not verify: {e}",
            args.id
        ))),
    }
}

/// Whose eyes the replay uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Seat(Seat),
    Open,
}

impl View {
    fn event(self, e: &Event) -> Event {
        match self {
            View::Seat(s) => e.for_seat(s),
            View::Open => e.clone(),
        }
    }
}

/// Writes the replay; the outer result is the output's, the inner one the verification's.
/// With `keys`, it pauses after every move until a line is read (see [`Stepper`]).
fn write_replay(
    out: &mut impl Write,
    entry: &HandEntry,
    record: &HandRecord,
    view: View,
    keys: Option<&mut dyn io::BufRead>,
) -> io::Result<Result<(), String>> {
    let mut stepper = keys.map(|k| Stepper {
        keys: k,
        skip: 0,
        echo: !io::stdin().is_terminal(),
    });
    let setup = &record.setup;
    let whose = match view {
        View::Seat(s) if s == entry.seat => format!("{}'s view (your seat)", seat(s)),
        View::Seat(s) => format!("{}'s view (you sat in {})", seat(s), seat(entry.seat)),
        View::Open => format!("all hands open (you sat in {})", seat(entry.seat)),
    };
    writeln!(
        out,
        "Hand {} played {} UTC: rules {} (v{}), {} deals, {} round; {whose}",
        entry.id.0,
        date(entry.played_at),
        setup.rules.name,
        setup.rules.version,
        seat(setup.dealer),
        setup.prevalent.name_zh(),
    )?;
    writeln!(out, "seed {}", setup.seed.to_hex())?;
    // Step through the actions, printing what the viewer sees after each.
    let mut game = Game::new(setup.clone());
    let mut shown = 0;
    let mut refused = None;
    shown = write_new_events(out, &game, shown, view, record)?;
    write_hands_now(out, &game, view)?;
    for (i, a) in record.actions.iter().enumerate() {
        if game.is_finished() {
            refused = Some(format!("action {i} comes after the end of the hand"));
            break;
        }
        if let Err(e) = game.apply(a.seat, a.action) {
            refused = Some(format!(
                "action {i} ({}: {:?}) is refused: {e}",
                seat(a.seat),
                a.action
            ));
            break;
        }
        shown = write_new_events(out, &game, shown, view, record)?;
        if let Some(st) = stepper.as_mut()
            && !game.is_finished()
        {
            write_hands_now(out, &game, view)?;
            if !st.pause(out, i + 1, record.actions.len())? {
                stepper = None;
            }
        }
    }
    if let Some(r) = &refused {
        writeln!(out, "the replay stops: {r}")?;
    }
    writeln!(out)?;
    write_result(out, record, entry)?;
    // The full check: every event and the result must come out as recorded.
    let verified = record::replay(record).map(drop).map_err(|e| e.to_string());
    match &verified {
        Ok(()) => writeln!(
            out,
            "verified: the record replays to the same events and result"
        )?,
        Err(e) => writeln!(out, "NOT VERIFIED: {e}")?,
    }
    Ok(verified)
}

/// Stepping through a replay: waits for a line after each move.
struct Stepper<'a> {
    keys: &'a mut dyn io::BufRead,
    /// Moves still to go before the next pause (a number typed at the prompt).
    skip: usize,
    /// Keys come from a pipe, not a terminal: end the prompt's line ourselves.
    echo: bool,
}

impl Stepper<'_> {
    /// Pauses after move `done` of `total`; `false` when stepping ends (`q` or end of input),
    /// after which the replay runs to the result without pausing.
    fn pause(&mut self, out: &mut impl Write, done: usize, total: usize) -> io::Result<bool> {
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(true);
        }
        write!(
            out,
            "-- move {done} of {total} · [Enter] next · N: N moves on · q: to the result -- "
        )?;
        out.flush()?;
        let mut line = String::new();
        if self.keys.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(false);
        }
        if self.echo {
            writeln!(out)?;
        }
        let line = line.trim();
        if line.eq_ignore_ascii_case("q") {
            return Ok(false);
        }
        if let Ok(n) = line.parse::<usize>() {
            self.skip = n.saturating_sub(1);
        }
        Ok(true)
    }
}

fn write_new_events(
    out: &mut impl Write,
    game: &Game,
    shown: usize,
    view: View,
    record: &HandRecord,
) -> io::Result<usize> {
    let events = game.events();
    for e in &events[shown.min(events.len())..] {
        writeln!(out, "{}", describe(&view.event(e), record))?;
    }
    Ok(events.len())
}

/// The concealed hands the viewer may see, after the deal.
fn write_hands_now(out: &mut impl Write, game: &Game, view: View) -> io::Result<()> {
    let seats: Vec<Seat> = match view {
        View::Seat(s) => vec![s],
        View::Open => Seat::ALL.to_vec(),
    };
    for s in seats {
        let v = game.view(s);
        let drawn = v.drawn.map(|t| format!(" + {t}")).unwrap_or_default();
        writeln!(out, "{} holds {}{drawn}", seat(s), to_notation(&v.hand))?;
    }
    Ok(())
}

fn write_result(out: &mut impl Write, record: &HandRecord, entry: &HandEntry) -> io::Result<()> {
    let r = &record.result;
    match r.winner {
        Some(w) => {
            let how = match r.discarder {
                Some(d) => format!("on {}'s discard", seat(d)),
                None => "self-drawn".into(),
            };
            let total = r.score.as_ref().map_or(0, |s| s.total);
            writeln!(out, "Result: {} wins {how}, {total} fan", seat(w))?;
        }
        None => writeln!(out, "Result: drawn hand (荒牌)")?,
    }
    let deltas: Vec<String> = Seat::ALL
        .iter()
        .map(|&s| {
            let you = if s == entry.seat { " (you)" } else { "" };
            format!("{} {}{you}", seat(s), signed(r.deltas[s.index()] as i64))
        })
        .collect();
    writeln!(out, "points: {}", deltas.join(", "))?;
    for s in Seat::ALL {
        let i = s.index();
        let mut hand = r.hands[i].clone();
        hand.sort();
        let mut flowers = r.flowers[i].clone();
        flowers.sort();
        let mut line = format!("{} shows {}", seat(s), to_notation(&hand));
        for m in &r.melds[i] {
            line.push_str(&format!(" [{}]", meld_text(m)));
        }
        if !flowers.is_empty() {
            line.push_str(&format!(" flowers {}", to_notation(&flowers)));
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn meld_text(m: &Meld) -> String {
    let kind = match m.kind {
        MeldKind::Kong(KongKind::Concealed) => " concealed",
        _ => "",
    };
    format!("{}{kind}", m.notation())
}

/// One event as a line of text, tiles in notation: the core's words for it
/// ([`describe::event_text`]), and after a win the fans it scored.
fn describe(e: &Event, record: &HandRecord) -> String {
    let who = |s: Seat| seat(s);
    let tile = |t: Tile| t.to_string();
    let meld = |m: &TableMeld| match describe::meld_tiles(m) {
        t if t.is_empty() => "????".to_string(),
        t => to_notation(&t),
    };
    let words = describe::Words {
        viewer: None,
        who: &who,
        name: &who,
        tile: &tile,
        meld: &meld,
    };
    let line = describe::event_text(e, &words);
    let Event::Won { seat: s, .. } = e else {
        return line;
    };
    let fans: Vec<String> = record
        .result
        .score
        .as_ref()
        .filter(|_| record.result.winner == Some(*s))
        .map(|sc| {
            sc.fans
                .iter()
                .map(|f| format!("{} {} {}", f.name(), f.en(), fan_points(f.points, f.count)))
                .collect()
        })
        .unwrap_or_default();
    if fans.is_empty() {
        line
    } else {
        format!("{line}: {}", fans.join(", "))
    }
}

/// A fan's points: `16`, or `1×4` for a fan counted four times.
fn fan_points(points: u32, count: u32) -> String {
    if count > 1 {
        format!("{points}×{count}")
    } else {
        points.to_string()
    }
}

/// `1 win`, `2 wins`.
fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn seat(s: Seat) -> String {
    format!("S{}", s.0)
}

fn signed(v: i64) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// Unix seconds as `YYYY-MM-DD HH:MM` in UTC.
fn date(unix: i64) -> String {
    CivilTime::of(unix, 0).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_core::bot::play_simple_hand;
    use tongcheng_core::game::HandSetup;
    use tongcheng_core::rules::RuleSet;
    use tongcheng_core::seat::Wind;
    use tongcheng_core::wall::Seed;

    fn play(seed: u64) -> HandRecord {
        play_under(RuleSet::guobiao(), seed)
    }

    fn play_under(rules: RuleSet, seed: u64) -> HandRecord {
        let g = play_simple_hand(
            HandSetup {
                rules,
                seed: Seed::from_u64(seed),
                dealer: Seat((seed % 4) as u8),
                prevalent: Wind::East,
                dealer_level: 0,
            },
            seed,
        );
        HandRecord::of(&g).unwrap()
    }

    /// A win and a drawn hand.
    fn a_win_and_a_draw() -> (HandRecord, HandRecord) {
        let mut win = None;
        let mut draw = None;
        for seed in 0.. {
            let r = play(seed);
            match r.result.winner {
                Some(_) if win.is_none() => win = Some(r),
                None if draw.is_none() => draw = Some(r),
                _ => {}
            }
            if let (Some(w), Some(d)) = (&win, &draw) {
                return (w.clone(), d.clone());
            }
        }
        unreachable!()
    }

    fn text(f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut v = Vec::new();
        f(&mut v).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(date(0), "1970-01-01 00:00");
        assert_eq!(date(951_782_400), "2000-02-29 00:00");
        assert_eq!(date(1_700_000_000), "2023-11-14 22:13");
        assert_eq!(date(-1), "1969-12-31 23:59");
    }

    #[test]
    fn history_lists_hands_and_statistics() {
        let (win, draw) = a_win_and_a_draw();
        let mut h = HistoryStore::open_in_memory().unwrap();
        let w = win.result.winner.unwrap();
        let win_id = h.add_hand(&win, w, 1_700_000_000, None).unwrap();
        h.add_hand(&draw, Seat(1), 1_700_000_100, None).unwrap();
        let args = HistoryArgs {
            db: None,
            page: 1,
            limit: 20,
            matches: false,
            json: false,
        };
        // An in-memory store stands for a file at a path that exists.
        let here = std::env::current_dir().unwrap();
        let out = text(|o| write_history(o, &h, &here, &args));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].contains("2 hands, page 1 of 1"), "{out}");
        assert!(lines[2].contains("draw"), "newest first:\n{out}");
        assert!(
            lines[3].trim_start().starts_with(&format!("{} ", win_id.0)),
            "{out}"
        );
        assert!(lines[3].contains("won"), "{out}");
        let first_fan = &win.result.score.as_ref().unwrap().fans[0].name();
        assert!(lines[3].contains(*first_fan), "{out}");
        assert!(out.contains("Statistics over 2 hands"), "{out}");
        assert!(
            out.contains("wins               1  (50.0% of hands)"),
            "{out}"
        );
        // JSON: one document with the same content.
        let json_args = HistoryArgs {
            json: true,
            db: None,
            ..args
        };
        let out = text(|o| write_history(o, &h, &here, &json_args));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["total_hands"], 2);
        assert_eq!(v["hands"][1]["id"], win_id.0);
        assert_eq!(v["stats"]["wins"], 1);
        assert_eq!(v["stats_by_rules"], serde_json::json!([]));
        // With a second rule set, statistics per rule set follow the whole history's.
        let hz = (0..)
            .map(|seed| play_under(RuleSet::hangzhou(), seed))
            .find(|r| r.result.winner.is_some())
            .unwrap();
        h.add_hand(&hz, hz.result.winner.unwrap(), 1_700_000_200, None)
            .unwrap();
        let out = text(|o| write_history(o, &h, &here, &args));
        assert!(out.contains("Statistics over 3 hands:"), "{out}");
        assert!(out.contains("Statistics over 2 guobiao hands:"), "{out}");
        assert!(out.contains("Statistics over 1 hangzhou hands:"), "{out}");
        let v: serde_json::Value =
            serde_json::from_str(&text(|o| write_history(o, &h, &here, &json_args))).unwrap();
        assert_eq!(v["stats_by_rules"][0]["rules"], "guobiao");
        assert_eq!(v["stats_by_rules"][1]["hands"], 1);
        assert_eq!(v["stats_by_rules"][1]["scorer"], "hangzhou");
        // Matches.
        let m = h.start_match("guobiao", Seat(0), 1_700_000_000).unwrap();
        h.finish_match(m, [3, -1, -1, -1], 1_700_001_000).unwrap();
        let match_args = HistoryArgs {
            json: false,
            matches: true,
            ..json_args
        };
        let out = text(|o| write_history(o, &h, &here, &match_args));
        assert!(
            out.contains("1 matches") && out.contains("P0 +3 (you)"),
            "{out}"
        );
    }

    #[test]
    fn replay_prints_every_event_and_verifies() {
        let (win, _) = a_win_and_a_draw();
        let w = win.result.winner.unwrap();
        let mut h = HistoryStore::open_in_memory().unwrap();
        let id = h.add_hand(&win, w, 1_700_000_000, None).unwrap();
        let entry = h.get_hand(id).unwrap();
        let other = w.next();
        let mut verified = None;
        let out = text(|o| {
            verified = Some(write_replay(o, &entry, &win, View::Seat(other), None)?);
            Ok(())
        });
        assert_eq!(verified, Some(Ok(())));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].contains(&format!("S{}'s view", other.0)), "{out}");
        // The viewer sees its own deal and draws, not others'.
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("S{} is dealt ", other.0)) && l.contains("tiles)"))
        );
        assert!(
            lines.iter().any(|l| *l == format!("S{} is dealt", w.0)),
            "{out}"
        );
        assert!(
            lines.iter().any(|l| *l == format!("S{} draws", w.0)),
            "{out}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("S{} draws ", other.0)))
        );
        let won = lines.iter().find(|l| l.contains(" wins on ")).unwrap();
        let score = win.result.score.as_ref().unwrap();
        assert!(won.contains(&describe::points(score.total)), "{won}");
        assert!(won.contains(score.fans[0].en()), "{won}");
        assert!(out.contains("verified: the record replays"), "{out}");
        // Every event of the record has its line.
        let events = lines
            .iter()
            .filter(|l| l.starts_with('S') || l.starts_with("the wall"))
            .count();
        assert!(
            events >= win.events.len(),
            "{events} lines for {} events",
            win.events.len()
        );
        // Open: every draw shows its tile but a flower's (its own line names it).
        let out = text(|o| write_replay(o, &entry, &win, View::Open, None).map(drop));
        let flower_draws = win
            .events
            .iter()
            .filter(|e| matches!(e, Event::Drew { tile: Some(t), .. } if t.is_flower()))
            .count();
        assert_eq!(
            out.lines().filter(|l| l.ends_with(" draws")).count(),
            flower_draws,
            "{out}"
        );
        assert!(!out.lines().any(|l| l.ends_with(" is dealt")), "{out}");
        assert!(out.contains("all hands open"));
    }

    #[test]
    fn replay_steps_move_by_move() {
        let (win, _) = a_win_and_a_draw();
        let w = win.result.winner.unwrap();
        let mut h = HistoryStore::open_in_memory().unwrap();
        let id = h.add_hand(&win, w, 1_700_000_000, None).unwrap();
        let entry = h.get_hand(id).unwrap();
        let moves = win.actions.len();
        let prompts = |keys: &str| {
            let mut k = io::Cursor::new(keys.as_bytes().to_vec());
            let out =
                text(|o| write_replay(o, &entry, &win, View::Seat(w), Some(&mut k)).map(drop));
            (out.matches("-- move ").count(), out)
        };
        // Enter, Enter, then "5" at move 3: pauses after moves 1, 2, 3 and 8 (input ends
        // there, and the rest plays through).
        let (n, out) = prompts("\n\n5\n");
        assert_eq!(n, 4, "{out}");
        assert!(out.contains(&format!("-- move 8 of {moves}")), "{out}");
        assert!(!out.contains(&format!("-- move 4 of {moves}")), "{out}");
        assert!(out.contains("verified: the record replays"), "{out}");
        // q goes straight to the result; the hand is shown at each pause.
        let (n, out) = prompts("q\n");
        assert_eq!(n, 1, "{out}");
        assert!(out.contains(" holds "), "{out}");
        assert!(out.contains("Result: "), "{out}");
    }

    #[test]
    fn columns_stay_in_line_with_long_cells() {
        let rows = vec![
            vec![
                "id".to_string(),
                "result".into(),
                "points".into(),
                "fans".into(),
            ],
            vec![
                "1".into(),
                "dealt in to S2, 88 fan".into(),
                "-88".into(),
                "大四喜 88".into(),
            ],
            vec!["12".into(), "won".into(), "+8".into(), "x".into()],
        ];
        let lines = columns(&rows, &[true, false, true, false]);
        let at = |l: &str, pat: &str| display_width(&l[..l.find(pat).unwrap()]);
        assert_eq!(at(&lines[0], "fans"), at(&lines[1], "大四喜"));
        assert_eq!(at(&lines[1], "大四喜"), at(&lines[2], "x"));
        assert_eq!(lines[2], "12  won                         +8  x");
    }

    #[test]
    fn a_tampered_record_is_reported_not_verified() {
        let (win, _) = a_win_and_a_draw();
        let mut forged = win.clone();
        let w = forged.result.winner.unwrap().index();
        forged.result.deltas[w] += 8;
        forged.result.deltas[(w + 1) % 4] -= 8;
        let mut h = HistoryStore::open_in_memory().unwrap();
        let id = h.add_hand(&win, Seat(0), 0, None).unwrap();
        let entry = h.get_hand(id).unwrap();
        let mut verified = None;
        let out = text(|o| {
            verified = Some(write_replay(o, &entry, &forged, View::Seat(Seat(0)), None)?);
            Ok(())
        });
        assert!(matches!(verified, Some(Err(_))));
        assert!(
            out.lines().last().unwrap().starts_with("NOT VERIFIED"),
            "{out}"
        );
        // Actions that the engine refuses stop the stepping, with a line saying why.
        let mut broken = win.clone();
        broken.actions.truncate(3);
        broken.actions.push(broken.actions[0]);
        let out = text(|o| write_replay(o, &entry, &broken, View::Open, None).map(drop));
        assert!(out.contains("the replay stops"), "{out}");
        assert!(out.contains("NOT VERIFIED"), "{out}");
    }

    #[test]
    fn errors_from_the_store_name_the_file() {
        let dir =
            std::env::temp_dir().join(format!("tongcheng-cli-history-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("garbage.db");
        std::fs::write(&path, vec![7u8; 5000]).unwrap();
        let e = run_history(HistoryArgs {
            db: Some(path.clone()),
            page: 1,
            limit: 5,
            matches: false,
            json: false,
        })
        .unwrap_err();
        assert!(
            e.to_string().contains("garbage.db") && e.to_string().contains("move it aside"),
            "{e}"
        );
        let e = run_replay(ReplayArgs {
            id: 1,
            db: Some(dir.join("missing.db")),
            seat: None,
            open: false,
            step: false,
        })
        .unwrap_err();
        assert!(e.to_string().contains("no history at"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 5000]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
