//! `tongcheng fan`: placeholder until the scorer lands.

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> std::io::Result<()> {
    Err(std::io::Error::other("the fan calculator is not built yet"))
}
