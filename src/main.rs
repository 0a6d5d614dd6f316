//! The `rehearse` binary: parse the command line, call the library, print, exit.
//!
//! The exit code comes from one table, `rehearse::exit` (src/exit.rs): a command returns an
//! [`Outcome`], or an error whose kind ([`HasErrorKind`]) picks bad input or environment.
//! `--verbose` or `RUST_LOG` turn on a debug trace of what the harness did, on stderr.

/// `eprintln!` that ignores a closed stderr (`rehearse … 2>&1 | head`): a message is not worth
/// a panic, which would exit 70 ("a bug") and skip the cleanup of containers and processes.
/// Every module of the binary writes to stderr through it.
/// One message line on stderr, its secrets masked ([`rehearse::text::mask`]): an error may quote
/// a scenario line, a URL or a setting the user gave.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        // sanitize = mask + no terminal escapes: an error quotes paths and names from the
        // user's files and listings, which may hold ESC sequences (breaker pass, session 13).
        let _ = writeln!(std::io::stderr(), "{}", rehearse::text::sanitize(&line));
    }};
}

#[path = "commands/capture.rs"]
mod capture_command;
mod cli;
#[path = "commands/images.rs"]
mod images_cmd;
#[path = "commands/init.rs"]
mod init_command;
#[path = "commands/matrix.rs"]
mod matrix_command;
mod progress_render;
#[path = "commands/run.rs"]
mod run_command;

use std::io::{self, IsTerminal as _, Write as _};

use clap::Parser;
use rehearse::exit::{ErrorKind, HasErrorKind, Outcome};
use rehearse::report::ProgressMode;

use cli::{ClassifyArgs, Cli, Command, InspectArgs};

fn main() {
    // A panic is a bug in rehearse: say so and exit with the documented code, not Rust's 101.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        // Never `eprintln!` here: with stderr closed it would panic inside the hook and abort,
        // leaving containers and host processes behind.
        let _ = writeln!(
            io::stderr(),
            "error: this is a bug in rehearse; please report it with the command and input above"
        );
        // `exit` runs no destructor: remove what this process started (containers, the local
        // runtime's processes) as Ctrl-C does, on a thread of its own (the panicking one may be
        // a runtime worker), at most a minute. A panic after Kafka started left it running
        // until `rehearse gc` (issue 25 §4).
        let _ = std::thread::spawn(|| {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                rt.block_on(async {
                    let sweep = rehearse::rehearsal::sweep_after_interrupt();
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(60), sweep).await;
                });
            }
        })
        .join();
        std::process::exit(Outcome::Internal.code());
    }));
    let cli = Cli::parse();
    let trace = trace_filter(cli.verbose, std::env::var("RUST_LOG").ok().as_deref());
    // Decided once: bars only on a terminal, without NO_COLOR or CI, and with no trace to tear.
    let progress = rehearse::report::progress_style(
        io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        std::env::var("CI").is_ok_and(|v| is_set(&v)),
        trace.is_some(),
    );
    init_trace(trace);
    let outcome = match run(cli.command, progress) {
        Ok(outcome) => outcome,
        Err(err) => {
            say!("error: {err:#}");
            let kind = error_kind(&err);
            tracing::debug!(?kind, "the command stopped on an error");
            Outcome::from(kind)
        }
    };
    tracing::debug!(?outcome, code = outcome.code(), "exiting");
    std::process::exit(outcome.code());
}

/// Which debug trace to write, from `--verbose` and `RUST_LOG` (an `EnvFilter` directive), or
/// `None` for no trace at all.
///
/// | `RUST_LOG`      | `--verbose` | trace                                            |
/// |-----------------|-------------|--------------------------------------------------|
/// | set, not empty  | any         | as `RUST_LOG` says (other crates' too)           |
/// | unset or empty  | yes         | `rehearse=debug`: rehearse's own steps only      |
/// | unset or empty  | no          | none                                             |
fn trace_filter(verbose: bool, rust_log: Option<&str>) -> Option<String> {
    match rust_log.map(str::trim) {
        Some(directives) if !directives.is_empty() => Some(directives.to_owned()),
        _ if verbose => Some("rehearse=debug".to_owned()),
        _ => None,
    }
}

/// Installs the trace subscriber: plain lines on stderr (stdout carries the report), coloured
/// only on a terminal without `NO_COLOR`. A filter that does not parse is said once and the
/// trace falls back to `rehearse=debug`.
fn init_trace(filter: Option<String>) {
    let Some(directives) = filter else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&directives).unwrap_or_else(|err| {
        let _ = writeln!(
            io::stderr(),
            "warning: RUST_LOG={directives:?} is not a trace filter ({err}); tracing rehearse=debug"
        );
        tracing_subscriber::EnvFilter::new("rehearse=debug")
    });
    // The cloud credential loaders (reqsign, under opendal) print the credentials they load at
    // debug level (`StaticCredentialProvider { secret_access_key: "…" }`, seen with
    // RUST_LOG=trace): never more than their warnings, whatever RUST_LOG says.
    let filter = match "reqsign=warn".parse() {
        Ok(cap) => filter.add_directive(cap),
        Err(_) => filter,
    };
    let ansi = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LossyStderr)
        .with_ansi(ansi)
        .init();
}

/// Standard error for the trace, ignoring a closed stderr (`rehearse --verbose … 2>&1 | head`):
/// a trace line is not worth a panic (exit 70). Every secret value of the environment (the
/// variables [`StoreEnv::secrets`](rehearse::store::StoreEnv::secrets) names: keys, secrets,
/// tokens, passwords, connection strings) and signature-like URL parameters are masked in each
/// line, whichever crate traced it.
struct LossyStderr;

impl io::Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        static REDACTOR: std::sync::OnceLock<rehearse::store::Redactor> =
            std::sync::OnceLock::new();
        let redactor = REDACTOR.get_or_init(|| {
            rehearse::store::Redactor::new(rehearse::store::StoreEnv::from_process().secrets())
        });
        let line = redactor.redact(&String::from_utf8_lossy(buf));
        let _ = io::stderr().write_all(line.as_bytes());
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = io::stderr().flush();
        Ok(())
    }
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
                .or_else(|| reported::<rehearse::kafka::MirrorError>(cause))
                .or_else(|| reported::<rehearse::images::ImageError>(cause))
                .or_else(|| reported::<rehearse::rehearsal::RehearsalError>(cause))
                .or_else(|| reported::<rehearse::matrix::MatrixError>(cause))
                .or_else(|| reported::<StdoutError>(cause))
        })
        .unwrap_or(ErrorKind::BadInput)
}

/// Whether an environment flag such as `CI` is on: set to anything but empty, `0` or `false`.
fn is_set(value: &str) -> bool {
    let v = value.trim();
    !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
}

fn run(command: Command, progress: ProgressMode) -> anyhow::Result<Outcome> {
    tracing::debug!(?command, ?progress, "command line parsed");
    match command {
        Command::Inspect(args) => inspect(args),
        Command::Init(args) => init_command::run(args),
        Command::Run(args) => run_command::run(args, progress),
        Command::Matrix(args) => matrix_command::run(args, progress),
        Command::Gc(args) => run_command::gc(args),
        Command::Classify(args) => classify(args),
        Command::Capture(args) => capture_command::run(args),
        Command::Images(cmd) => images_cmd::run(cmd),
    }
}

/// `rehearse inspect`: the checkpoint as text or JSON on stdout; findings of error severity
/// decide the outcome.
fn inspect(args: InspectArgs) -> anyhow::Result<Outcome> {
    let inspection = match inspect_location(&args.checkpoint) {
        Ok(inspection) => inspection,
        Err(err) => return Ok(location_failed(err)),
    };
    tracing::debug!(
        path = %inspection.path.display(),
        latest_batch = ?inspection.latest_batch,
        has_errors = inspection.has_errors(),
        "checkpoint inspected"
    );
    write_stdout(|out| {
        if args.json {
            write_json(out, &rehearse::checkpoint::to_json(&inspection))
        } else {
            rehearse::checkpoint::write_text(&inspection, out)
        }
    })?;
    Ok(if inspection.has_errors() {
        Outcome::Findings
    } else {
        Outcome::Success
    })
}

/// Why a checkpoint given on the command line could not be inspected.
enum LocationError {
    /// The URL does not parse, or the store cannot be configured from the environment.
    Store(rehearse::store::StoreError),
    /// Listing or inspecting failed.
    Checkpoint(rehearse::checkpoint::CheckpointError),
}

/// Says why a checkpoint could not be inspected, once, and returns the outcome: bad input, or
/// environment when a store says so. (`inspect` and `init` share it.)
fn location_failed(err: LocationError) -> Outcome {
    match err {
        // A store's message carries its own `(hint: …)`.
        LocationError::Checkpoint(rehearse::checkpoint::CheckpointError::Store(err))
        | LocationError::Store(err) => {
            say!("error: {err}");
            Outcome::from(err.error_kind())
        }
        LocationError::Checkpoint(err) => bad_input(&err, Some(err.hint())),
    }
}

/// Inspects a checkpoint given as a path or a URL: a plain path (no `://`) as it always was, a
/// URL through a read-only store client configured from this process's environment.
fn inspect_location(
    checkpoint: &std::path::Path,
) -> Result<rehearse::checkpoint::Inspection, LocationError> {
    let Some(text) = checkpoint.to_str().filter(|t| t.contains("://")) else {
        return rehearse::checkpoint::inspect(checkpoint).map_err(LocationError::Checkpoint);
    };
    let location =
        rehearse::store::CheckpointLocation::parse(text).map_err(LocationError::Store)?;
    if let rehearse::store::CheckpointLocation::Local { path } = &location {
        return rehearse::checkpoint::inspect(path).map_err(LocationError::Checkpoint);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            LocationError::Store(rehearse::store::StoreError::Io {
                operation: "start the runtime for",
                path: text.to_string(),
                source: e,
            })
        })?;
    runtime.block_on(async {
        let env = rehearse::store::StoreEnv::from_process();
        let store = rehearse::store::CheckpointStore::open(location, &env)
            .await
            .map_err(LocationError::Store)?;
        rehearse::checkpoint::inspect_store(&store)
            .await
            .map_err(LocationError::Checkpoint)
    })
}

/// `rehearse classify`: the verdict of a driver log (with the checkpoint as it was before the
/// restart, when given) as text or JSON on stdout; the verdict decides the outcome.
fn classify(args: ClassifyArgs) -> anyhow::Result<Outcome> {
    let ctx = match &args.checkpoint {
        Some(dir) => match rehearse::checkpoint::inspect(dir) {
            Ok(inspection) => rehearse::verdict::TrialContext::from_inspection(&inspection),
            Err(err) => return Ok(bad_input(&err, Some(err.hint()))),
        },
        None => rehearse::verdict::TrialContext::default(),
    };
    let c =
        match rehearse::verdict::classify_files(&args.driver_log, args.event_log.as_deref(), ctx) {
            Ok(c) => c,
            Err(err) => return Ok(bad_input(&err, err.hint())),
        };
    tracing::debug!(verdict = %c.verdict, rule = %c.rule, "log classified");
    write_stdout(|out| {
        if args.json {
            write_json(out, &c)
        } else {
            rehearse::verdict::write_text(&c, out)
        }
    })?;
    Ok(Outcome::Verdict(c.verdict))
}

/// Prints a bad-input error once — the message, its direct cause, and the hint when there is
/// one — and returns [`Outcome::BadInput`].
fn bad_input(err: &dyn std::error::Error, hint: Option<&str>) -> Outcome {
    let cause = err.source().map(|c| format!(": {c}")).unwrap_or_default();
    let hint = hint.map(|h| format!("\n  hint: {h}")).unwrap_or_default();
    say!("error: {err}{cause}{hint}");
    Outcome::BadInput
}

/// Writes a document to stdout (then flushes it); a closed pipe (`rehearse inspect … | head`)
/// is not a failure, any other error is a [`StdoutError`] naming stdout (exit 4).
fn write_stdout(
    write: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>,
) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    match write(&mut out).and_then(|()| io::Write::flush(&mut out)) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(StdoutError(e).into()),
        Ok(()) => Ok(()),
    }
}

/// Writing the output to stdout failed: a redirect to a full disk (`> /dev/full`), a file
/// system gone read-only. The environment's fault (exit 4); it said only "No space left on
/// device", exit 3, naming neither stdout nor the fix.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the output to stdout: {0}\n  hint: stdout is redirected to a file or device that cannot take it (a full disk?): free space there, or redirect it elsewhere")]
pub(crate) struct StdoutError(#[source] pub(crate) io::Error);

impl HasErrorKind for StdoutError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::Environment
    }
}

/// `value` as pretty JSON, newline-terminated, its secrets masked
/// ([`rehearse::text::write_json`]).
fn write_json(out: &mut impl io::Write, value: &impl serde::Serialize) -> io::Result<()> {
    rehearse::text::write_json(out, value)
}

#[cfg(test)]
mod tests {
    use anyhow::Context as _;
    use rehearse::trial::TrialError;

    use super::*;

    #[test]
    fn errors_map_to_the_kind_their_type_reports() {
        let generation = anyhow::Error::new(TrialError::Generation {
            spark: "3.5.3".into(),
            reason: "the job exited".into(),
            cause: Box::new(rehearse::trial::GenerationCause {
                verdict: "environment-error".into(),
                rule: "failed-before-query-start".into(),
                lines: Vec::new(),
                remedy: String::new(),
            }),
            log: "driver.log".into(),
            work: "work".into(),
        });
        assert_eq!(error_kind(&generation), ErrorKind::GenerationFailed);
        let environment = anyhow::Error::new(TrialError::Baseline {
            spark: "3.5.3".into(),
            reason: "no progress".into(),
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

    #[test]
    fn ci_is_on_unless_empty_zero_or_false() {
        for on in ["true", "1", "yes", "True"] {
            assert!(is_set(on), "{on}");
        }
        for off in ["", " ", "0", "false", "FALSE"] {
            assert!(!is_set(off), "{off:?}");
        }
    }

    #[test]
    fn the_trace_is_off_unless_asked_for() {
        assert_eq!(trace_filter(false, None), None);
        assert_eq!(trace_filter(false, Some("  ")), None);
        assert_eq!(trace_filter(true, None).as_deref(), Some("rehearse=debug"));
        assert_eq!(
            trace_filter(true, Some("")).as_deref(),
            Some("rehearse=debug")
        );
        assert_eq!(
            trace_filter(false, Some("rehearse=trace,rdkafka=info")).as_deref(),
            Some("rehearse=trace,rdkafka=info")
        );
        assert_eq!(trace_filter(true, Some("warn")).as_deref(), Some("warn"));
    }
}
