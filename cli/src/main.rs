//! `tongcheng`: the desktop face of the Tongcheng Mahjong core.

mod fan;
mod shanten;

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
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Shanten(args) => shanten::run(args),
        Command::Fan(args) => fan::run(args),
    };
    if let Err(e) = result {
        eprintln!("tongcheng: {e}");
        std::process::exit(1);
    }
}
