//! The debug trace (`--verbose`, `RUST_LOG`) on stderr, its secrets masked, and whether an
//! environment flag such as `CI` is on.

use std::io::{self, IsTerminal as _, Write as _};

/// Which debug trace to write, from `--verbose` and `RUST_LOG` (an `EnvFilter` directive), or
/// `None` for no trace at all.
///
/// | `RUST_LOG`      | `--verbose` | trace                                            |
/// |-----------------|-------------|--------------------------------------------------|
/// | set, not empty  | any         | as `RUST_LOG` says (other crates' too)           |
/// | unset or empty  | yes         | `rehearse=debug`: rehearse's own steps only      |
/// | unset or empty  | no          | none                                             |
pub fn trace_filter(verbose: bool, rust_log: Option<&str>) -> Option<String> {
    match rust_log.map(str::trim) {
        Some(directives) if !directives.is_empty() => Some(directives.to_owned()),
        _ if verbose => Some("rehearse=debug".to_owned()),
        _ => None,
    }
}

/// Installs the trace subscriber: plain lines on stderr (stdout carries the report), coloured
/// only on a terminal without `NO_COLOR`. A filter that does not parse is said once and the
/// trace falls back to `rehearse=debug`.
pub fn init_trace(filter: Option<String>) {
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

/// Whether an environment flag such as `CI` is on: set to anything but empty, `0` or `false`.
pub fn is_set(value: &str) -> bool {
    let v = value.trim();
    !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
