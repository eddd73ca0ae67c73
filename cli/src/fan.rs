//! `tongcheng fan`: Chinese Official fan breakdowns of hands given as JSON lines on stdin.
//! With `--rules hangzhou` (or `hangzhou-mil`) it scores Hangzhou wins instead, with
//! `--rules tongcheng-dianpao` or `tongcheng-paofeng` Tongcheng wins. The scoring
//! of a line lives in [`tongcheng_core::score::fan_json`]; this is the streaming and the flags.
//!
//! One JSON line out per line in, in order: `{"total","valid","fans":[{"id","name","en",
//! "points","count"}...]}` with fans in id order, or `{"error": "..."}` — the run goes on
//! after an error and never panics. Blank lines are skipped (no output line), so a trailing
//! newline or spacing between batches is harmless. Output is buffered and flushed whenever the
//! input has nothing more waiting, so both a 100,000-line pipe and a line-by-line conversation
//! work. A line longer than [`fan_json::MAX_LINE_BYTES`] gets an error without being stored.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

use tongcheng_core::rules::RuleSet;
use tongcheng_core::score::fan_json::{self, FanRules};
use tongcheng_core::score::mcr::McrOptions;

#[derive(clap::Args)]
#[command(after_long_help = fan_json::INPUT_SCHEMA)]
pub struct Args {
    /// Score one melded plus one concealed kong as the 5-point 明暗杠 (later drafts,
    /// pymahjonggb) instead of 明杠 + 暗杠.
    #[arg(long)]
    mixed_kong_5: bool,
    /// Do not score 杠上开花 beside 妙手回春 when the last wall tile is a kong's replacement.
    #[arg(long)]
    kong_flower_no_last_tile: bool,
    /// The minimum a win must reach without flowers.
    #[arg(long, value_name = "POINTS", default_value_t = 8)]
    min_points: u32,
    /// Rule set preset: guobiao (Chinese Official), hangzhou, hangzhou-mil,
    /// tongcheng-dianpao (alias tongcheng) or tongcheng-paofeng.
    #[arg(long, default_value = "guobiao")]
    rules: String,
    /// Hangzhou doubling table: score 4个白板 (all four 白 held, or the rest discarded as
    /// 财飘; give them as `wilds_discarded`) ×2 instead of 爆头 for four held.
    #[arg(long)]
    four_whites: bool,
}

pub fn run(args: Args) -> io::Result<()> {
    let mut rules = RuleSet::preset(&args.rules).ok_or_else(|| {
        io::Error::other(format!(
            "unknown rules '{}' (known: {})",
            args.rules,
            RuleSet::preset_names().join(", ")
        ))
    })?;
    if let tongcheng_core::rules::Scoring::Hangzhou(h) = &mut rules.scoring {
        h.four_whites_bonus = args.four_whites;
    } else if args.four_whites {
        return Err(io::Error::other("--four-whites needs Hangzhou rules"));
    }
    let family = match (FanRules::tongcheng(&rules), FanRules::hangzhou(rules)) {
        (Some(t), _) => t,
        (_, Some(h)) => h,
        _ => FanRules::guobiao(McrOptions {
            mixed_kong_5: args.mixed_kong_5,
            kong_flower_with_last_tile_draw: !args.kong_flower_no_last_tile,
            min_points: args.min_points,
        }),
    };
    let mut input = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        // At most one byte past the limit is read: a longer line is skipped, not stored.
        if (&mut input)
            .take(fan_json::MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)?
            == 0
        {
            break;
        }
        let too_long = line.len() > fan_json::MAX_LINE_BYTES && line.last() != Some(&b'\n');
        if too_long {
            skip_line(&mut input)?;
        }
        let answer = match std::str::from_utf8(&line) {
            _ if too_long => Some(fan_json::error_line(&format!(
                "the line is longer than {} bytes",
                fan_json::MAX_LINE_BYTES
            ))),
            Ok(s) if s.trim().is_empty() => None,
            Ok(s) => Some(fan_json::score_line(s.trim(), &family)),
            Err(_) => Some(fan_json::error_line("the line is not valid UTF-8")),
        };
        if let Some(a) = answer {
            out.write_all(a.as_bytes())?;
            out.write_all(b"\n")?;
        }
        // Nothing more is waiting: whoever feeds us may be waiting for this answer.
        if input.buffer().is_empty() {
            out.flush()?;
        }
    }
    out.flush()
}

/// Consumes the rest of the current line, newline included, a buffer at a time.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            input.consume(i + 1);
            return Ok(());
        }
        let n = buf.len();
        input.consume(n);
    }
}
