//! `tongcheng tournament`: a tournament played through by bots on this machine
//! (`simulate`, each round written out as it is published), the fairness check of a
//! published round (`verify`, of files or of a server's tournament), and the server's
//! tournaments (`list`, `create`, `join`, `standings`: [`crate::tournament_net`]).

use std::io::{Error, Result};
use std::path::PathBuf;

use serde_json::json;
use tongcheng_core::bot::Level;
use tongcheng_core::tournament::simulate::{RoundRecord, simulate};
use tongcheng_core::tournament::{EntrantId, Format, TournamentConfig};

use crate::net_cmd::ServerArgs;
use crate::tournament_net::{self as net, CreateArgs};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Play a tournament of bot entrants; prints one JSON line with the standings' top and
    /// writes each round (commitment, secret, contributions, every table's hands) to --out.
    Simulate(SimulateArgs),
    /// Check published rounds: the secret is the one committed to and every table's walls
    /// come from the round's seed and replay; one JSON line each. The arguments are round
    /// files, or with --server tournament ids (every finished round is fetched).
    Verify {
        #[arg(required = true, value_name = "FILE|ID")]
        what: Vec<String>,
        /// The server the tournaments are on, e.g. http://127.0.0.1:8080.
        #[arg(long, value_name = "URL")]
        server: Option<String>,
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// The server's tournaments taking entrants or in play (one JSON line each).
    List {
        /// A 亲友赛's code.
        #[arg(long)]
        code: Option<String>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Make a tournament: a 亲友赛 for friends (its code in the answer), or with
    /// --admin-token a public one of any size.
    Create {
        #[command(flatten)]
        args: CreateArgs,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Sign up and play every round you are seated in, at the terminal (moves as lines, as
    /// `tongcheng play --online`).
    Join {
        id: String,
        /// A 亲友赛's code.
        #[arg(long)]
        code: Option<String>,
        #[arg(long)]
        ascii: bool,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// A page of the standings, with your own place.
    Standings {
        id: String,
        #[arg(long, default_value_t = 0)]
        offset: u32,
        #[arg(long, default_value_t = 20)]
        limit: u32,
        #[command(flatten)]
        server: ServerArgs,
    },
}

#[derive(clap::Args)]
pub struct SimulateArgs {
    #[arg(long, default_value_t = 64)]
    pub entrants: u64,
    /// swiss or elimination (打立出局, halving the field down to a final table).
    #[arg(long, default_value = "swiss")]
    pub format: String,
    /// Swiss rounds.
    #[arg(long, default_value_t = 4)]
    pub rounds: u8,
    /// 复式: every table of a round plays the same walls.
    #[arg(long)]
    pub duplicate: bool,
    #[arg(long, default_value = "guobiao")]
    pub rules: String,
    /// Hands in each round's match.
    #[arg(long, default_value_t = 4)]
    pub hands: u8,
    /// The bots' level (easy, normal, hard).
    #[arg(long, default_value = "easy")]
    pub level: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write round-N.json (none: not written).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Standings lines in the summary.
    #[arg(long, default_value_t = 8)]
    pub top: usize,
}

pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Simulate(args) => run_simulate(args),
        Command::Verify { what, server, db } => match server {
            None => run_verify(&what.iter().map(PathBuf::from).collect::<Vec<_>>()),
            Some(server) => {
                let server = ServerArgs { server, db };
                what.into_iter().try_for_each(|id| net::verify(&server, id))
            }
        },
        Command::List { code, server } => net::list(&server, code),
        Command::Create { args, server } => net::create(&server, args),
        Command::Join {
            id,
            code,
            ascii,
            server,
        } => net::join(&server, id, code, ascii),
        Command::Standings {
            id,
            offset,
            limit,
            server,
        } => net::standings(&server, id, offset, limit),
    }
}

fn run_simulate(a: SimulateArgs) -> Result<()> {
    let format = match a.format.as_str() {
        "swiss" => Format::Swiss { rounds: a.rounds },
        "elimination" => Format::halving(a.entrants as usize),
        other => {
            return Err(Error::other(format!(
                "no format '{other}' (swiss, elimination)"
            )));
        }
    };
    let level: Level = a
        .level
        .parse()
        .map_err(|_| Error::other(format!("no bot level '{}'", a.level)))?;
    let config = TournamentConfig {
        rules: a.rules,
        format,
        duplicate: a.duplicate,
        hands_per_match: a.hands,
        table_points: [4, 2, 1, 0],
        bots_allowed: true,
    };
    let entrants: Vec<EntrantId> = (1..=a.entrants).collect();
    let started = std::time::Instant::now();
    let sim = simulate(&config, &entrants, level, a.seed, |_, _| false)
        .map_err(|e| Error::other(e.to_string()))?;
    let secs = started.elapsed().as_secs_f64();
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)?;
        for r in &sim.rounds {
            let path = dir.join(format!("round-{}.json", r.round));
            std::fs::write(path, serde_json::to_vec(r)?)?;
        }
    }
    let top: Vec<_> = sim
        .standings
        .ranked()
        .into_iter()
        .take(a.top)
        .enumerate()
        .map(|(i, s)| {
            json!({"rank": i + 1, "entrant": s.entrant, "table_points": s.table_points,
                   "score": s.score, "matches": s.matches, "out_after": s.out_after})
        })
        .collect();
    let tables: usize = sim.rounds.iter().map(|r| r.tables.len()).sum();
    let hands: usize = sim
        .rounds
        .iter()
        .flat_map(|r| &r.tables)
        .map(Vec::len)
        .sum();
    println!(
        "{}",
        json!({"entrants": a.entrants, "rounds": sim.rounds.len(), "tables": tables,
               "hands": hands, "secs": secs, "standings": top})
    );
    Ok(())
}

fn run_verify(files: &[PathBuf]) -> Result<()> {
    let mut failed = 0;
    for f in files {
        let line = match std::fs::read(f)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<RoundRecord>(&b).map_err(|e| e.to_string()))
        {
            Err(e) => json!({"file": f, "verified": false, "error": format!("unreadable: {e}")}),
            Ok(r) => {
                let hands: usize = r.tables.iter().map(Vec::len).sum();
                match r.verify() {
                    Ok(()) => json!({"file": f, "round": r.round, "tables": r.tables.len(),
                                     "hands": hands, "verified": true}),
                    Err(e) => json!({"file": f, "round": r.round, "verified": false,
                                     "error": e.to_string()}),
                }
            }
        };
        if line["verified"] != true {
            failed += 1;
        }
        println!("{line}");
    }
    if failed > 0 {
        return Err(Error::other(format!("{failed} round(s) do not verify")));
    }
    Ok(())
}
