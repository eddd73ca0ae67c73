//! `tongcheng`: the desktop face of the Tongcheng Mahjong core.

#![forbid(unsafe_code)]

mod arena;
mod botzone;
mod face;
mod fan;
mod history_cmd;
mod net_cmd;
mod play;
mod shanten;
mod simulate;
mod tournament;
mod tournament_net;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tongcheng",
    version,
    about = "Tongcheng Mahjong (桐城麻将) on the desktop"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Shanten of hands read one per line from stdin (13 tiles in notation); one JSON line each.
    Shanten(shanten::Args),
    /// Chinese Official fan breakdown of hands given as JSON lines on stdin; one JSON line each.
    Fan(fan::Args),
    /// Play many hands (simple players, or the bot arena with --seats) and print one JSON
    /// summary line.
    Simulate(simulate::Args),
    /// The app in the terminal (the phones' app model); a match named by options (--seed,
    /// --rules, --script …) is played as lines.
    Play(play::Args),
    /// List recent hands and your statistics from the local history.
    History(history_cmd::HistoryArgs),
    /// Print a recorded hand move by move from one seat's view (or all hands open) and
    /// verify it; `--step` pauses after every move.
    Replay(history_cmd::ReplayArgs),
    /// Log in to a server with this device's key (an account is made on first login);
    /// prints one JSON line.
    Login(net_cmd::ServerArgs),
    /// Upload finished hands and pull those of the account's other devices; prints one JSON
    /// line: {"uploaded","already","rejected":[{"id","reason"}],"pulled"}.
    Sync(net_cmd::ServerArgs),
    /// Print a code for another device to join this account, or join with `link CODE`.
    Link(net_cmd::LinkArgs),
    /// List the account's devices, or revoke one with --revoke ID.
    Devices(net_cmd::DevicesArgs),
    /// Our bot as a Botzone bot program (国标麻将): reads the judge's requests on stdin
    /// (JSON or simple form), answers PASS / PLAY / CHI / PENG / GANG / BUGANG / HU.
    Botzone(botzone::Args),
    /// 比赛: a tournament of bots played through on this machine (`simulate`), or the
    /// fairness check of published rounds (`verify FILE…`).
    #[command(subcommand)]
    Tournament(tournament::Command),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Shanten(args) => shanten::run(args),
        Command::Fan(args) => fan::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Play(args) => play::run(args),
        Command::History(args) => history_cmd::run_history(args),
        Command::Replay(args) => history_cmd::run_replay(args),
        Command::Login(args) => net_cmd::run_login(args),
        Command::Sync(args) => net_cmd::run_sync(args),
        Command::Link(args) => net_cmd::run_link(args),
        Command::Devices(args) => net_cmd::run_devices(args),
        Command::Botzone(args) => botzone::run(args),
        Command::Tournament(command) => tournament::run(command),
    };
    if let Err(e) = result {
        // `tongcheng shanten … | head`: the reader has all it wanted; not an error.
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return;
        }
        eprintln!("tongcheng: {e}");
        std::process::exit(1);
    }
}
