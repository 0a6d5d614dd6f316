//! The `rehearse` binary: parse the command line, run the command (`commands/`), exit.
//!
//! The exit code comes from one table, `rehearse::exit` (src/exit.rs): a command returns an
//! [`Outcome`], or a `commands::Failure` whose kind picks bad input, environment or a failed
//! generation. `--verbose` or `RUST_LOG` turn on a debug trace of what the harness did, on
//! stderr (`trace.rs`). This is the only place the process exits.
#![forbid(unsafe_code)]

/// One message line on stderr, its secrets masked ([`rehearse::text::mask`]): an error may quote
/// a scenario line, a URL or a setting the user gave. A closed stderr (`rehearse … 2>&1 | head`)
/// is ignored: a message is not worth a panic, which would exit 70 ("a bug") and skip the
/// cleanup of containers and processes. Every module of the binary writes to stderr through it.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        // sanitize = mask + no terminal escapes: an error quotes paths and names from the
        // user's files and listings, which may hold ESC sequences (breaker pass, session 13).
        let _ = writeln!(std::io::stderr(), "{}", rehearse::text::sanitize(&line));
    }};
}

mod cli;
mod commands;
mod progress_render;
mod trace;

use std::io::{self, IsTerminal as _, Write as _};

use clap::Parser;
use rehearse::exit::Outcome;

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
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        // clap's own message and exit code (2 for usage, 0 for --help), naming the environment
        // variable when the bad value came from one.
        Err(err) => {
            let argv: Vec<_> = std::env::args_os().collect();
            cli::name_the_environment(err, &argv, |var| std::env::var_os(var)).exit()
        }
    };
    let trace = trace::trace_filter(cli.verbose, std::env::var("RUST_LOG").ok().as_deref());
    // Decided once: bars only on a terminal, without NO_COLOR or CI, and with no trace to tear.
    let progress = rehearse::report::progress_style(
        io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        std::env::var("CI").is_ok_and(|v| trace::is_set(&v)),
        trace.is_some(),
    );
    trace::init_trace(trace);
    let code = match commands::exec(cli.command, progress) {
        Ok(outcome) => {
            tracing::debug!(?outcome, code = outcome.code(), "exiting");
            outcome.code()
        }
        Err(failure) => {
            // Said once: the message and its causes.
            say!("error: {:#}", failure.error);
            tracing::debug!(kind = ?failure.kind, "the command stopped on an error");
            let outcome = failure.outcome();
            tracing::debug!(?outcome, code = outcome.code(), "exiting");
            failure.process_exit_code()
        }
    };
    // The only exit of a command (a panic's is in the hook above).
    std::process::exit(code);
}
