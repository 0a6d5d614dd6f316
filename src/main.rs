//! The `rehearse` binary: parse the command line, call the library, print, exit.

mod cli;
mod images_cmd;
mod matrix_command;
mod run_command;

use clap::Parser;
use rehearse::exit::{ErrorKind, HasErrorKind, Outcome};

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
        std::process::exit(Outcome::Internal.code());
    }));
    let cli = Cli::parse();
    let outcome = match run(cli) {
        Ok(outcome) => outcome,
        Err(err) => {
            eprintln!("error: {err:#}");
            Outcome::from(error_kind(&err))
        }
    };
    std::process::exit(outcome.code());
}

/// The kind of the outermost error in `err`'s cause chain whose type reports one
/// ([`HasErrorKind`]); bad input when none does. The types listed here are the library's
/// errors that know their kind; a new one goes in this list.
fn error_kind(err: &anyhow::Error) -> ErrorKind {
    fn reported<E: HasErrorKind + std::error::Error + 'static>(
        cause: &(dyn std::error::Error + 'static),
    ) -> Option<ErrorKind> {
        cause.downcast_ref::<E>().map(HasErrorKind::error_kind)
    }
    err.chain()
        .find_map(|cause| {
            reported::<rehearse::trial::TrialError>(cause)
                .or_else(|| reported::<rehearse::runtime::RuntimeError>(cause))
                .or_else(|| reported::<rehearse::kafka::KafkaError>(cause))
                .or_else(|| reported::<rehearse::images::ImageError>(cause))
        })
        .unwrap_or(ErrorKind::BadInput)
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
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
                    return Ok(Outcome::BadInput);
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
                Outcome::Findings
            } else {
                Outcome::Success
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
                        return Ok(Outcome::BadInput);
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
                    return Ok(Outcome::BadInput);
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
            Ok(Outcome::Verdict(c.verdict))
        }
        Command::Images(cmd) => images_cmd::run(cmd),
    }
}

#[cfg(test)]
mod tests {
    use anyhow::Context as _;
    use rehearse::trial::TrialError;

    use super::*;

    #[test]
    fn errors_map_to_the_kind_their_type_reports() {
        let environment = anyhow::Error::new(TrialError::Generation {
            spark: "3.5.3".into(),
            reason: "the job exited".into(),
            log: "driver.log".into(),
            tail: String::new(),
        });
        assert_eq!(error_kind(&environment), ErrorKind::Environment);
        let bad_input = anyhow::Error::new(TrialError::Args {
            scenario: "s.toml".into(),
            message: "no such topic".into(),
        });
        assert_eq!(error_kind(&bad_input), ErrorKind::BadInput);
        let docker = Err::<(), _>(rehearse::images::ImageError::NoDocker {
            detail: "connection refused".into(),
        })
        .context("preparing the runtime")
        .unwrap_err();
        assert_eq!(
            error_kind(&docker),
            ErrorKind::Environment,
            "found under a context"
        );
        assert_eq!(error_kind(&anyhow::anyhow!("no kind")), ErrorKind::BadInput);
    }
}
