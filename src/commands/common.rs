//! What the commands share: a checkpoint argument inspected (a path or a store's URL), an error
//! said once, stdout written (a closed pipe is no failure; a full disk names stdout), the
//! outputs checked before anything runs, `--master` and `--conf`, load warnings said.

use std::io;
use std::path::{Path, PathBuf};

use rehearse::exit::{ErrorKind, HasErrorKind, Outcome};
use rehearse::userfile::{self, Existing};

use super::Failure;

/// Says each load warning of a scenario or suite on stderr, as the line the library made
/// (`warning: <scenario>: <what>`, already sanitized).
pub fn say_warnings(warnings: &[String]) {
    for line in warnings {
        use std::io::Write as _;
        let _ = writeln!(io::stderr(), "{line}");
    }
}

/// Why a checkpoint given on the command line could not be inspected.
pub enum LocationError {
    /// The URL does not parse, or the store cannot be configured from the environment.
    Store(rehearse::store::StoreError),
    /// Listing or inspecting failed.
    Checkpoint(rehearse::checkpoint::CheckpointError),
}

/// Says why a checkpoint could not be inspected, once, and returns the outcome: bad input, or
/// environment when a store says so. (`inspect` and `init` share it.)
pub fn location_failed(err: LocationError) -> Outcome {
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
pub fn inspect_location(
    checkpoint: &std::path::Path,
) -> Result<rehearse::checkpoint::Inspection, LocationError> {
    let Some(text) = rehearse::store::CheckpointLocation::url_arg(checkpoint) else {
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

/// Prints a bad-input error once — the message, its direct cause, and the hint when there is
/// one — and returns [`Outcome::BadInput`].
pub fn bad_input(err: &dyn std::error::Error, hint: Option<&str>) -> Outcome {
    let cause = err.source().map(|c| format!(": {c}")).unwrap_or_default();
    let hint = hint.map(|h| format!("\n  hint: {h}")).unwrap_or_default();
    say!("error: {err}{cause}{hint}");
    Outcome::BadInput
}

/// Writes a document to stdout (then flushes it); a closed pipe (`rehearse inspect … | head`)
/// is not a failure, any other error is a [`StdoutError`] naming stdout (exit 4).
pub fn write_stdout(
    write: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>,
) -> Result<(), Failure> {
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
pub struct StdoutError(#[source] pub io::Error);

impl HasErrorKind for StdoutError {
    fn error_kind(&self) -> ErrorKind {
        ErrorKind::Environment
    }
}

/// `--master URL`: an existing cluster, checked before anything starts. Client mode only; the
/// sandbox must be where the cluster reads it (`--report-dir` on a shared directory).
/// (`rehearse matrix --master` too.)
fn external_cluster(
    master: &str,
    report_dir: Option<&Path>,
    advertised_host: Option<&str>,
) -> anyhow::Result<rehearse::runtime::RuntimeKind> {
    let known = ["spark://", "k8s://", "yarn", "mesos://"];
    if !known.iter().any(|p| master.starts_with(p)) || master.contains(char::is_whitespace) {
        anyhow::bail!(
            "--master {master}: give a cluster manager URL spark-submit takes in client mode \
             (spark://HOST:PORT, k8s://https://HOST:PORT, yarn); for a cluster in containers \
             use --runtime standalone"
        );
    }
    if report_dir.is_none() {
        anyhow::bail!(
            "--master {master} needs --report-dir DIR on a directory every node of the cluster \
             mounts at the same path: the executors read and write the sandbox copy of the \
             checkpoint there (an object-store or HDFS sandbox is not supported yet)"
        );
    }
    if let Some(host) = advertised_host {
        // It becomes spark.driver.host and the Kafka listener's host: a name or an address.
        let plain = |c: char| c.is_ascii_alphanumeric() || ".-_:[]".contains(c);
        if host.is_empty() || !host.chars().all(plain) {
            anyhow::bail!(
                "--advertised-host {host:?}: give a host name or an IP address the cluster's \
                 nodes reach this machine at (e.g. 10.0.0.5 or driver.example.com)"
            );
        }
    }
    let advertised_host = advertised_host
        .map(str::to_string)
        .unwrap_or_else(rehearse::runtime::default_advertised_host);
    Ok(rehearse::runtime::RuntimeKind::Master(
        rehearse::runtime::ExternalCluster {
            master: master.to_string(),
            advertised_host,
        }
        .leak(),
    ))
}

/// The runtime the placement flags ask for: `--master` (an existing cluster, checked here),
/// else `--runtime` and the cluster's shape, with `file` the scenario's or suite's `[cluster]`
/// ([`ClusterArgs::runtime`](crate::cli::ClusterArgs::runtime)). (`run` and `matrix`.)
pub fn runtime_kind(
    placement: &crate::cli::PlacementArgs,
    report_dir: Option<&Path>,
    file: Option<rehearse::scenario::ClusterShape>,
) -> anyhow::Result<rehearse::runtime::RuntimeKind> {
    match &placement.master {
        Some(master) => external_cluster(master, report_dir, placement.advertised_host.as_deref()),
        None => placement.cluster.runtime(placement.runtime, file),
    }
}

/// Checks, before anything runs, where a command will write: the sandbox directory
/// (`--report-dir`: a directory, or creatable — its first existing ancestor a directory), each
/// report file (`--junit` …: not a directory, in a directory that exists) and the cache roots
/// (`$REHEARSE_CACHE` …: not a file). Otherwise these were found only after every trial ran —
/// or a finished generation was thrown away.
pub fn check_outputs(
    report_dir: Option<&Path>,
    files: &[(&str, &Option<PathBuf>)],
) -> anyhow::Result<()> {
    if let Some(dir) = report_dir {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!(
                "--report-dir {} is not a directory: sandboxes are created inside it\n  hint: name a directory (it is created if missing), or leave --report-dir out to use the temp dir",
                dir.display()
            );
        }
        if let Some(blocker) = dir.ancestors().find(|a| a.exists()).filter(|a| !a.is_dir()) {
            anyhow::bail!(
                "--report-dir {} cannot be created: {} is a file\n  hint: name a directory (it is created if missing)",
                dir.display(),
                blocker.display()
            );
        }
    }
    // Two reports to one file: the second written would silently replace the first (breaker
    // pass: `matrix merge --markdown m.md --html m.md` left only the HTML). Compared as the
    // directory (links resolved) and the name.
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for (flag, path) in files {
        let Some(path) = path else { continue };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let key = std::fs::canonicalize(dir)
            .unwrap_or_else(|_| dir.to_path_buf())
            .join(path.file_name().unwrap_or_default());
        if let Some((other, _)) = seen.iter().find(|(_, k)| *k == key) {
            anyhow::bail!(
                "{flag} {} is also {other}'s file: the second report would replace the first\n  hint: give each report its own file",
                path.display()
            );
        }
        seen.push((flag, key));
    }
    for (flag, path) in files {
        let Some(path) = path else { continue };
        // The output rule's own check (a directory, FIFO, socket or device refused; a link is
        // replaced, not followed), here before anything runs and again when written.
        userfile::check_writable(path, flag, Existing::Replace)?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            anyhow::bail!(
                "{flag} {}: the directory {} does not exist, so the report could be written only after every trial, and would fail then\n  hint: create it first (mkdir -p {}), or write the file elsewhere",
                path.display(),
                parent.display(),
                parent.display()
            );
        }
    }
    rehearse::cache::check_roots().map_err(|m| anyhow::anyhow!(m))?;
    Ok(())
}
