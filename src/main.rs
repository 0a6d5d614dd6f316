//! The `rehearse` binary: parse the command line, call the library, print, exit.

mod cli;
mod images_cmd;
mod matrix_command;
mod run_command;

use clap::Parser;

use cli::{Cli, Command};

fn main() {
    // A panic is a bug in rehearse: say so and exit with the documented code, not Rust's 101.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        // Never `eprintln!` here: with stderr closed it would panic inside the hook and abort,
        // leaving containers and host processes behind.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "error: this is a bug in rehearse; please report it with the command and input above"
        );
        std::process::exit(rehearse::exit::INTERNAL);
    }));
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            run_command::exit_code_for(&err)
        }
    };
    std::process::exit(code);
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Inspect(args) => {
            use std::io::Write as _;
            let inspection = match rehearse::checkpoint::inspect(&args.checkpoint) {
                Ok(inspection) => inspection,
                Err(err) => {
                    let cause = std::error::Error::source(&err)
                        .map(|c| format!(": {c}"))
                        .unwrap_or_default();
                    eprintln!("error: {err}{cause}\n  hint: {}", err.hint());
                    return Ok(rehearse::exit::BAD_INPUT);
                }
            };
            let mut out = std::io::stdout().lock();
            let written = if args.json {
                serde_json::to_writer_pretty(&mut out, &rehearse::checkpoint::to_json(&inspection))
                    .map_err(std::io::Error::from)
                    .and_then(|()| writeln!(out))
            } else {
                rehearse::checkpoint::write_text(&inspection, &mut out)
            };
            match written {
                // `rehearse inspect … | head` is not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other?,
            }
            Ok(if inspection.has_errors() {
                rehearse::exit::FINDINGS
            } else {
                rehearse::exit::SUCCESS
            })
        }
        Command::Run(args) => run_command::run(args),
        Command::Matrix(args) => matrix_command::run(args),
        Command::Gc => run_command::gc(),
        Command::Classify(args) => {
            use std::io::Write as _;
            let ctx = match &args.checkpoint {
                Some(dir) => match rehearse::checkpoint::inspect(dir) {
                    Ok(inspection) => rehearse::verdict::TrialContext::from_inspection(&inspection),
                    Err(err) => {
                        let cause = std::error::Error::source(&err)
                            .map(|c| format!(": {c}"))
                            .unwrap_or_default();
                        eprintln!("error: {err}{cause}\n  hint: {}", err.hint());
                        return Ok(rehearse::exit::BAD_INPUT);
                    }
                },
                None => rehearse::verdict::TrialContext::default(),
            };
            let c = match rehearse::verdict::classify_files(
                &args.driver_log,
                args.event_log.as_deref(),
                ctx,
            ) {
                Ok(c) => c,
                Err(err) => {
                    let cause = std::error::Error::source(&err)
                        .map(|c| format!(": {c}"))
                        .unwrap_or_default();
                    let hint = err
                        .hint()
                        .map(|h| format!("\n  hint: {h}"))
                        .unwrap_or_default();
                    eprintln!("error: {err}{cause}{hint}");
                    return Ok(rehearse::exit::BAD_INPUT);
                }
            };
            let mut out = std::io::stdout().lock();
            let written = if args.json {
                serde_json::to_writer_pretty(&mut out, &c)
                    .map_err(std::io::Error::from)
                    .and_then(|()| writeln!(out))
            } else {
                rehearse::verdict::write_text(&c, &mut out)
            };
            match written {
                // `rehearse classify … | head` is not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other?,
            }
            Ok(c.verdict.exit_code())
        }
        Command::Images(cmd) => images_cmd::run(cmd),
    }
}
