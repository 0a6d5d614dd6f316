//! The `rehearse` binary: parse the command line, call the library, print, exit.

mod cli;
mod images_cmd;

use clap::Parser;

use cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            rehearse::exit::BAD_INPUT
        }
    };
    std::process::exit(code);
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Inspect(args) => {
            let inspection = rehearse::checkpoint::inspect(&args.checkpoint)?;
            println!("{}", serde_json::to_string_pretty(&inspection)?);
            Ok(rehearse::exit::SUCCESS)
        }
        Command::Images(cmd) => images_cmd::run(cmd),
        Command::Run(_) | Command::Classify(_) | Command::Gc => {
            anyhow::bail!("not built yet")
        }
    }
}
