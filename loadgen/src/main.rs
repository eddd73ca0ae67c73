//! `tongcheng-loadgen`: many players on loopback against a server, as phones would be: each
//! logs in with its own device key, queues, sits at the table the queue made, plays every
//! decision with a bot's choice after a human-like pause, says ready after each hand, and
//! queues again when its match ends, until the play time is over. Prints one JSON report.
//!
//! The players are built on `tongcheng-client` (its login, typed bodies, queue and seat
//! stream), so a load run speaks exactly what phones speak; the server binary carries no
//! load code.

#![forbid(unsafe_code)]

mod args;
mod attack;
mod player;
mod report;
mod run;
mod server;

use clap::Parser;

/// Many players on loopback: log in, queue, play at a human pace; prints one JSON report
/// (players, tables, actions per second, action-to-event latency, errors, server memory).
#[derive(Parser, Debug)]
#[command(name = "tongcheng-loadgen", version)]
struct Cli {
    #[command(flatten)]
    args: args::Args,
}

fn main() {
    let cli = Cli::parse();
    let result = run::run(&cli.args).and_then(|r| {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
        Ok(())
    });
    if let Err(e) = result {
        eprintln!("tongcheng-loadgen: {e}");
        std::process::exit(1);
    }
}
