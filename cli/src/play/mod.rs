//! `tongcheng play`: plain, it is the app ([`crate::face`]: the phones' app model drawn in the
//! terminal). A match named on the command line (`--seed`, `--script`, `--rules`, `--level`,
//! `--resume`, `--piao-each-hand`) is played as lines ([`scripted`]) on the engine's
//! table, reproducibly: what tests, pipes and bug reports use; `--online` sits at a server's
//! table the same way.

mod command;
mod online;
mod scripted;
mod store;
mod table;
pub(crate) mod text;
pub(crate) mod tiles;

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

use tongcheng_core::bot::Level;
use tongcheng_core::rules::RuleSet;

use store::{Store, unfinished_path};
use tongcheng_core::clock::unix_nanos;

#[derive(clap::Args)]
pub struct Args {
    /// Rule set preset [default: guobiao].
    #[arg(long)]
    pub rules: Option<String>,
    /// Bot strength: easy, normal or hard [default: normal].
    #[arg(long)]
    pub level: Option<Level>,
    /// Seed of the match (walls and bots); picked from the clock and printed when absent.
    #[arg(long)]
    pub seed: Option<u64>,
    /// History database [default: $XDG_DATA_HOME/tongcheng/history.db, or
    /// ~/.local/share/tongcheng/history.db].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Read moves from FILE (one a line) instead of playing the app.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Continue the match saved on quit (`<db>.unfinished.json`).
    #[arg(long)]
    pub resume: bool,
    /// Show tiles as notation (5m, 7z) and every word in ASCII, instead of Unicode mahjong
    /// glyphs and Chinese names.
    #[arg(long)]
    pub ascii: bool,
    /// Play online at a table the server hosts (moves as lines; see `online`).
    #[arg(long, requires = "server")]
    pub online: bool,
    /// Milliseconds each move against bots stays in view in the app (default half a second).
    #[arg(long, hide = true)]
    pub pace_ms: Option<u32>,
    /// The server: the app signs in to it (快速匹配, 好友房, 同步 …); `--online` plays at
    /// its table. E.g. http://127.0.0.1:8080.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The online table to sit at (made when new); without it, a table of one's own.
    #[arg(long, value_name = "ID")]
    pub table: Option<String>,
    /// People a new online table waits for (1–4); bots take the other seats.
    #[arg(long, default_value_t = 1)]
    pub people: u8,
    /// 飘 chosen each hand (the Tongcheng games): before every hand you stake 0–10, asked in
    /// the game or read as a line in a script; the bots stake by a simple rule.
    #[arg(long)]
    pub piao_each_hand: bool,
}

/// Everything a front end needs to start.
pub struct Setup {
    pub rules: RuleSet,
    pub seed: u64,
    /// The seed was not given: say which one was picked, so the match can be replayed.
    pub seed_from_clock: bool,
    pub level: Level,
    pub unfinished: PathBuf,
    pub resume: bool,
    /// The command that continues a match saved on quit (with this `--db`, if one was given).
    pub resume_command: String,
}

/// Sits at an existing online table (a tournament round's) and plays its match at the
/// terminal, as `tongcheng play --online --table ID` does.
pub fn play_online_table(
    server: &str,
    table: &str,
    db: Option<PathBuf>,
    ascii: bool,
) -> io::Result<()> {
    online::run(Args {
        rules: None,
        level: None,
        seed: None,
        db,
        script: None,
        resume: false,
        ascii,
        online: true,
        pace_ms: None,
        server: Some(server.into()),
        table: Some(table.into()),
        people: 1,
        piao_each_hand: false,
    })
}

pub fn run(args: Args) -> io::Result<()> {
    if args.online {
        return online::run(args);
    }
    let named = args.seed.is_some()
        || args.script.is_some()
        || args.rules.is_some()
        || args.level.is_some()
        || args.resume
        || args.piao_each_hand;
    if !named {
        return crate::face::run(crate::face::Options {
            db: crate::history_cmd::db_path(args.db)?,
            server: args.server,
            ascii: args.ascii,
            pace_ms: args.pace_ms,
        });
    }
    let rules_name = args.rules.as_deref().unwrap_or("guobiao");
    let mut rules = RuleSet::preset(rules_name).ok_or_else(|| {
        io::Error::other(format!(
            "unknown rule set '{}' (known: {})",
            rules_name,
            RuleSet::preset_names().join(", ")
        ))
    })?;
    if args.piao_each_hand {
        let name = rules.name.clone();
        rules = rules.with_piao_each_hand().ok_or_else(|| {
            io::Error::other(format!(
                "--piao-each-hand is a Tongcheng rule; the {name} rules have no 飘"
            ))
        })?;
    }
    let resume_command = match &args.db {
        Some(p) => format!("tongcheng play --resume --db {}", p.display()),
        None => "tongcheng play --resume".to_string(),
    };
    let db = match args.db {
        Some(p) => p,
        None => crate::history_cmd::default_db_path()?,
    };
    // The script first: a missing one must not leave a new history file behind.
    let script = match &args.script {
        Some(f) => Some(std::fs::File::open(f).map_err(|e| {
            io::Error::other(format!("cannot read the script {}: {e}", f.display()))
        })?),
        None => None,
    };
    let store = Store::open(&db).map_err(io::Error::other)?;
    let (seed, seed_from_clock) = match args.seed {
        Some(s) => (s, false),
        None => (clock_seed(), true),
    };
    let setup = Setup {
        rules,
        seed,
        seed_from_clock,
        level: args.level.unwrap_or(Level::Normal),
        unfinished: unfinished_path(&db),
        resume: args.resume,
        resume_command,
    };
    let input: Box<dyn BufRead> = match script {
        Some(f) => Box::new(BufReader::new(f)),
        None => Box::new(io::stdin().lock()),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.ascii {
        let mut out = AsciiLines {
            inner: out,
            line: Vec::new(),
        };
        scripted::run(setup, store, input, &mut out)?;
        return out.flush();
    }
    scripted::run(setup, store, input, &mut out)?;
    out.flush()
}

/// A writer that passes every line through [`tiles::ascii_words`] (`play --ascii` in a pipe).
struct AsciiLines<W: Write> {
    inner: W,
    line: Vec<u8>,
}

impl<W: Write> AsciiLines<W> {
    fn emit(&mut self) -> io::Result<()> {
        let text = String::from_utf8_lossy(&self.line);
        self.inner.write_all(tiles::ascii_words(&text).as_bytes())?;
        self.line.clear();
        Ok(())
    }
}

impl<W: Write> Write for AsciiLines<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            self.line.push(b);
            if b == b'\n' {
                self.emit()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.emit()?;
        self.inner.flush()
    }
}

/// A seed from the clock, for a match without `--seed`: nine digits, short enough to type
/// back after it is printed.
fn clock_seed() -> u64 {
    let nanos = unix_nanos();
    let (secs, subsec) = (
        (nanos / 1_000_000_000) as u64,
        (nanos % 1_000_000_000) as u64,
    );
    (secs.wrapping_mul(1_000_003) ^ subsec) % 1_000_000_000
}
