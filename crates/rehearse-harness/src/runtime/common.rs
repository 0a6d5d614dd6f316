//! What both runtimes share: the ids that tie a trial's broker and driver together, the
//! runtime errors, driver-output lines, free ports and the scope of a sweep. Names no runtime's
//! machinery (no testcontainers, no processes).

use std::path::{Path, PathBuf};

/// Where a trial's Kafka broker and Spark driver run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RuntimeKind {
    /// Containers from the local images `rehearse/spark:<v>` and `rehearse/kafka:<v>`
    /// (testcontainers; needs a Docker engine); Spark runs `--master local[2]`.
    #[default]
    Docker,
    /// Host processes: the same Spark distribution and Kafka broker installed under the cache,
    /// run with the host's Java and Python (no Docker engine needed).
    Local,
    /// A Spark standalone cluster of the target version in containers of the same image
    /// (`rehearse/spark:<v>`): one master and [`Cluster::workers`] workers on the trial's
    /// network, the driver in client mode in the Spark container (`cluster.rs`).
    Standalone(Cluster),
    /// An existing cluster rehearse did not start (`--master URL`): the driver in client mode
    /// in the Spark container on the host's network, Kafka advertised at an address the cluster
    /// reaches, the sandbox at its host path (a directory the cluster mounts at the same path).
    Master(&'static ExternalCluster),
    /// A standalone cluster in containers that a suite started for the cells of one Spark
    /// version (`rehearse matrix --runtime standalone`): the driver of each cell in its own
    /// container on the suite's network, the cell's sandbox at its host path (every worker
    /// mounts the suite's sandbox directory at the same path), executors of
    /// [`SharedCluster::executor_memory_mb`] and one core each.
    SharedStandalone(&'static SharedCluster),
}

/// A standalone cluster the cells of a suite share ([`RuntimeKind::SharedStandalone`]): its
/// master, shape and the directory its workers mount. Held for the whole process
/// ([`SharedCluster::leak`]) so [`RuntimeKind`] stays `Copy`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SharedCluster {
    /// `spark://<master container>:7077` on the suite's network.
    pub master: String,
    /// Its workers.
    pub shape: Cluster,
    /// The directory every worker mounts at the same path, under which the cells' sandboxes are
    /// created.
    pub sandboxes: PathBuf,
}

impl SharedCluster {
    /// This setting for the rest of the process (one small allocation per cluster).
    pub fn leak(self) -> &'static SharedCluster {
        Box::leak(Box::new(self))
    }

    /// Each cell's one executor: one core and this much heap, MiB — a worker's memory split
    /// over its cores, but at least 512 MiB (Spark refuses an executor under 450 MiB:
    /// `UnifiedMemoryManager.getMaxMemory`, 1.5 × 300 MiB reserved).
    pub fn executor_memory_mb(&self) -> u32 {
        (self.shape.memory_mb / u32::from(self.shape.cores.max(1))).max(512)
    }

    /// Cells one worker holds at once: its cores, or fewer when its memory holds fewer
    /// executors of [`SharedCluster::executor_memory_mb`].
    pub fn slots_per_worker(&self) -> u32 {
        let by_memory = self.shape.memory_mb / self.executor_memory_mb();
        by_memory.min(u32::from(self.shape.cores)).max(1)
    }

    /// Cells the whole cluster holds at once.
    pub fn slots(&self) -> usize {
        (self.slots_per_worker() * u32::from(self.shape.workers)) as usize
    }

    /// The memory cap of one worker container, MiB: its executors' heap plus Spark's default
    /// `spark.executor.memoryOverhead` (max(384 MiB, 10 %)) for each, plus the worker daemon
    /// (256 MiB) — never under [`Cluster::container_memory_mb`].
    pub fn worker_container_mb(&self) -> u64 {
        let heap = u64::from(self.executor_memory_mb());
        let overhead = (heap / 10).max(384);
        let per_slot = heap + overhead;
        (u64::from(self.slots_per_worker()) * per_slot + 256).max(self.shape.container_memory_mb())
    }
}

/// An existing cluster to submit to (`--master URL`): Spark's own `spark://`, `k8s://`, `yarn`.
/// Held for the whole process ([`ExternalCluster::leak`]) so [`RuntimeKind`] stays `Copy`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExternalCluster {
    /// `--master`, as spark-submit takes it (client mode).
    pub master: String,
    /// The address the cluster reaches this machine at: the driver's `spark.driver.host` and
    /// the sandbox Kafka's advertised listener.
    pub advertised_host: String,
}

impl ExternalCluster {
    /// This setting for the rest of the process (one small allocation per command).
    pub fn leak(self) -> &'static ExternalCluster {
        Box::leak(Box::new(self))
    }
}

/// The address other machines most likely reach this one at: the local address of a UDP socket
/// "connected" to a documentation address (no packet is sent), else `127.0.0.1`.
pub fn default_advertised_host() -> String {
    std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| {
            s.connect("192.0.2.1:9")?;
            s.local_addr()
        })
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|_| "127.0.0.1".into())
}

/// The shape of a standalone cluster (`--runtime standalone`): how many workers, and what
/// each offers to executors (`Worker --cores --memory`, Spark's `deploy/worker/WorkerArguments`).
/// One executor runs per worker with all of its cores and memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cluster {
    /// Worker containers (≥ 1).
    pub workers: u16,
    /// Cores each worker offers (`spark.executor.cores` of its one executor).
    pub cores: u16,
    /// Memory each worker offers, MiB (`spark.executor.memory` of its one executor). The
    /// container is capped at this plus [`Cluster::DAEMON_AND_OVERHEAD_MB`].
    pub memory_mb: u32,
}

impl Default for Cluster {
    /// One worker with 2 cores and 1 GiB: the same parallelism as `local[2]`, the fewest JVMs.
    fn default() -> Self {
        Cluster {
            workers: 1,
            cores: 2,
            memory_mb: 1024,
        }
    }
}

impl Cluster {
    /// What a worker container holds beyond its executor's heap: the worker daemon
    /// (`SPARK_DAEMON_MEMORY`, 256 MiB here) and the executor's off-heap memory (Spark's
    /// `spark.executor.memoryOverhead` default: max(384 MiB, 10 %); RocksDB's native memory is
    /// counted there), MiB.
    pub const DAEMON_AND_OVERHEAD_MB: u32 = 1024;

    /// The memory cap of one worker container, MiB.
    pub fn container_memory_mb(&self) -> u64 {
        u64::from(self.memory_mb) + u64::from(Self::DAEMON_AND_OVERHEAD_MB)
    }
}

impl RuntimeKind {
    /// `docker`, `local` or `standalone`, as the `--runtime` flag spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeKind::Docker => "docker",
            RuntimeKind::Local => "local",
            RuntimeKind::Standalone(_) | RuntimeKind::SharedStandalone(_) => "standalone",
            RuntimeKind::Master(_) => "master",
        }
    }

    /// Where a generation of the source checkpoint runs: here, except on an existing cluster
    /// (`--master`), which cannot see the generation's private work directory: there it runs
    /// in containers (`local[2]`), and on a suite's shared cluster, whose cells restart the
    /// checkpoint a suite generated in containers.
    pub fn for_generation(self) -> RuntimeKind {
        match self {
            RuntimeKind::Master(_) | RuntimeKind::SharedStandalone(_) => RuntimeKind::Docker,
            other => other,
        }
    }

    /// Whether it runs in containers (needs the images and a Docker engine).
    pub fn uses_docker(self) -> bool {
        !matches!(self, RuntimeKind::Local)
    }

    /// The path at which the job sees the sandbox whose host path is `sandbox`: the container
    /// mount point ([`crate::spark::SANDBOX_MOUNT`]) in containers (the driver's and every
    /// worker's), the host path itself locally and on an existing cluster (which mounts the
    /// shared directory at the same path) and on a suite's shared cluster (whose workers mount
    /// the suite's sandbox directory at the same path).
    pub fn job_sandbox(self, sandbox: &Path) -> PathBuf {
        match self {
            RuntimeKind::Docker | RuntimeKind::Standalone(_) => {
                PathBuf::from(crate::spark::SANDBOX_MOUNT)
            }
            RuntimeKind::Local | RuntimeKind::Master(_) | RuntimeKind::SharedStandalone(_) => {
                sandbox.to_path_buf()
            }
        }
    }
}

/// How a trial's broker or driver stands when the trial asks ([`crate::runtime::KafkaBroker::state`],
/// [`crate::runtime::SparkDriver::state`]): from `docker inspect` (`State.Running`,
/// `State.ExitCode`, `State.OOMKilled`) on Docker, from the process group locally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartState {
    /// Still running.
    Running,
    /// It ended: its exit code (128 + N for signal N) and whether the kernel's OOM killer
    /// killed a process of it (Docker's `State.OOMKilled`; never set locally).
    Exited {
        /// The container's or process's exit code, if known.
        code: Option<i64>,
        /// `State.OOMKilled`.
        oom_killed: bool,
    },
    /// The container is gone (removed by someone else) or the Docker engine does not answer:
    /// Docker's words.
    Unreachable(String),
}

/// Why a broker or a driver could not be started, watched or removed: one variant per Docker
/// operation, and one per step of the local runtime.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The image is not in the local store.
    #[error("image {image} is not in the local Docker store\n(hint: rehearse images build --spark <version> --kafka <version>)")]
    ImageMissing {
        /// The tag.
        image: String,
    },
    /// A container started but never logged the line that says it is ready, within its
    /// startup timeout.
    #[error("the {role} container from {image} started but never said it was ready: {message}\n(hint: its log tells why — run it by hand, e.g. `docker run --rm {image} …`, or rerun with --verbose; a slow machine may need fewer parallel jobs)")]
    NotReady {
        /// `kafka`, `spark master`, `spark worker`…
        role: &'static str,
        /// The tag.
        image: String,
        /// The runtime's message.
        message: String,
    },
    /// Starting a container failed (engine down, name clash, port taken…).
    #[error("failed to start the {role} container from {image}: {message}\n(hint: is dockerd running? `docker info`; scripts/setup-docker.sh starts one)")]
    Start {
        /// `kafka` or `spark`.
        role: &'static str,
        /// The tag.
        image: String,
        /// Docker's answer.
        message: String,
    },
    /// Stopping or removing a container failed.
    #[error("failed to stop or remove container {id}: {message}")]
    Stop {
        /// Container id.
        id: String,
        /// Docker's answer.
        message: String,
    },
    /// No free local port for the Kafka listener the host uses.
    #[error("no free local TCP port for the sandbox Kafka: {0}")]
    NoPort(#[source] std::io::Error),
    /// The Docker engine could not be reached for a sweep.
    #[error("cannot talk to the Docker engine: {0}\n(hint: start dockerd, or run scripts/setup-docker.sh)")]
    Engine(String),
    /// Local runtime: no usable `java` (`$JAVA_HOME/bin/java`, else `java` on PATH).
    #[error("the local runtime needs Java and found none: {detail}\n(hint: install a JRE (apt-get install openjdk-17-jre-headless) or set JAVA_HOME; or use --runtime docker)")]
    JavaMissing {
        /// What failed.
        detail: String,
    },
    /// Local runtime: no usable Python for PySpark (`$PYSPARK_PYTHON`, else `python3`).
    #[error("the local runtime needs Python for PySpark and found none: {detail}\n(hint: install python3 or set PYSPARK_PYTHON; or use --runtime docker)")]
    PythonMissing {
        /// What failed.
        detail: String,
    },
    /// Local runtime: this host's Java or Python cannot run the Spark version.
    #[error("Spark {version} cannot run on the local runtime of this host: {reason}\n(hint: use the docker runtime (--runtime docker), whose images carry a suitable Java and Python; or {fix})")]
    LocalUnsupported {
        /// The Spark version.
        version: String,
        /// Why not.
        reason: String,
        /// What the user can change on the host.
        fix: String,
    },
    /// Local runtime: installing Spark or Kafka (PyPI, Maven Central) failed; the cause says
    /// what and how to fix it.
    #[error("cannot install {what} for the local runtime")]
    Install {
        /// `spark 3.5.3` or `kafka 3.9.1`.
        what: String,
        /// The recipe's error (not published, registry unreachable, tool missing…).
        #[source]
        source: crate::images::ImageError,
    },
    /// Local runtime: a process could not be started.
    #[error("cannot start the local {role} process {program}")]
    Spawn {
        /// `kafka` or `spark`.
        role: &'static str,
        /// The program.
        program: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Local runtime: the broker could not bind its ports (another process took one between
    /// rehearse choosing it and Kafka binding it).
    #[error("the local Kafka broker could not bind its ports ({ports}): address already in use\n{tail}\n(hint: run the rehearsal again; it picks new free ports)")]
    PortTaken {
        /// The ports tried.
        ports: String,
        /// The last lines of the broker log.
        tail: String,
    },
    /// Local runtime: a process exited (or never listened) before it was ready.
    #[error("the local {role} process exited with code {code} before it was ready (log {log}):\n{tail}\n(hint: the log above says why; --runtime docker runs the same parts in containers)")]
    ProcessExited {
        /// `kafka` or `spark`.
        role: &'static str,
        /// Its exit code (-1: still running but not ready in time).
        code: i64,
        /// Its log file.
        log: std::path::PathBuf,
        /// The last lines of it.
        tail: String,
    },
    /// Local runtime: the job would see the sandbox at a path with whitespace, which Spark's
    /// event-log URI and the driver's Java options cannot carry.
    #[error("the local runtime cannot run a job in {path}: the path contains whitespace\n(hint: give --report-dir a directory without spaces, or use --runtime docker, where the job sees /sandbox)")]
    SandboxPath {
        /// The sandbox.
        path: std::path::PathBuf,
    },
    /// Local runtime: a file operation failed.
    #[error("local runtime: cannot {action}")]
    LocalIo {
        /// What was being done.
        action: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// A runtime error is the environment's (Docker, host processes, ports).
impl rehearse_base::HasErrorKind for RuntimeError {
    fn error_kind(&self) -> rehearse_base::ErrorKind {
        match self {
            // The directory the user gave (--report-dir, or TMPDIR): their input to change.
            RuntimeError::SandboxPath { .. } => rehearse_base::ErrorKind::BadInput,
            _ => rehearse_base::ErrorKind::Environment,
        }
    }
}

/// Names that tie a trial's broker and driver together (container and network names, labels,
/// pid files).
#[derive(Debug, Clone)]
pub struct TrialIds {
    /// Short unique id (also in container and network names).
    pub trial: String,
    /// Scenario name, as a label.
    pub scenario: String,
    /// The Docker network the trial's containers join: its own (`rehearse-<trial>`), or a
    /// suite's network shared with one Kafka broker ([`TrialIds::joining`]). Unused by the
    /// local runtime.
    pub network: String,
    /// Where the trial's Kafka and Spark run (default: Docker).
    pub runtime: RuntimeKind,
}

impl TrialIds {
    /// A new id for a trial of `scenario`.
    pub fn new(scenario: &str) -> TrialIds {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        // A counter as well as the clock: trials started at once (`run --jobs`) in one
        // process must never share container or network names.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = format!("{:x}{:x}{n:x}", std::process::id(), nanos & 0xffff_ffff);
        TrialIds {
            network: format!("rehearse-{id}"),
            trial: id,
            scenario: scenario.to_string(),
            runtime: RuntimeKind::default(),
        }
    }

    /// The same ids on `runtime`.
    #[must_use]
    pub fn with_runtime(self, runtime: RuntimeKind) -> TrialIds {
        TrialIds { runtime, ..self }
    }

    /// A new id for a trial of `scenario` whose containers join `network` (a suite's network,
    /// where one Kafka broker serves every trial).
    pub fn joining(scenario: &str, network: &str) -> TrialIds {
        TrialIds {
            network: network.to_string(),
            ..TrialIds::new(scenario)
        }
    }
}

/// A free TCP port on 127.0.0.1 (bound, read, released).
pub fn free_port() -> Result<u16, RuntimeError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(RuntimeError::NoPort)?;
    let port = listener.local_addr().map_err(RuntimeError::NoPort)?.port();
    Ok(port)
}

/// Which stream a driver-log line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// spark-submit's stdout (PySpark prints Python tracebacks here).
    Stdout,
    /// stderr (log4j's console appender).
    Stderr,
}

/// One line of driver output.
#[derive(Debug, Clone)]
pub struct LogLine {
    /// Where it came from.
    pub stream: Stream,
    /// The text, without the newline (invalid UTF-8 replaced).
    pub text: String,
}

/// Longest driver line handed on (bytes); a longer one is cut into pieces of this size, so a
/// stream without line endings cannot exhaust memory.
const MAX_DRIVER_LINE: usize = 1 << 20;

/// Splits a driver stream into lines. Shared by the container and the host-process runtimes.
///
/// A line ends at `\n`, `\r\n` or a lone `\r` — as `rehearse classify` reads a log file
/// (`verdict/input.rs`): Spark's console progress bar (`spark.ui.showConsoleProgress`,
/// ConsoleProgressBar) redraws itself with `\r`, and the log line after it must be seen by the
/// watcher as a line of its own.
#[derive(Debug, Default)]
pub(super) struct LineReader {
    buf: Vec<u8>,
    /// The previous line ended at a `\r`: a `\n` right after it ends nothing more.
    after_cr: bool,
}

impl LineReader {
    /// The next line without its ending, invalid UTF-8 replaced; `None` at the end of the
    /// stream or on a read error. Returns at a `\r` without waiting for what follows it.
    pub(super) async fn next_line<R: tokio::io::AsyncBufRead + Unpin>(
        &mut self,
        reader: &mut R,
    ) -> Option<String> {
        use tokio::io::AsyncBufReadExt as _;
        self.buf.clear();
        loop {
            let available = match reader.fill_buf().await {
                Ok(bytes) => bytes,
                Err(_) => return None,
            };
            if available.is_empty() {
                self.after_cr = false;
                return (!self.buf.is_empty())
                    .then(|| String::from_utf8_lossy(&self.buf).into_owned());
            }
            if std::mem::take(&mut self.after_cr) && available[0] == b'\n' {
                reader.consume(1);
                continue;
            }
            let room = MAX_DRIVER_LINE - self.buf.len();
            let window = &available[..available.len().min(room)];
            match window.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.after_cr = window[end] == b'\r';
                    self.buf.extend_from_slice(&window[..end]);
                    reader.consume(end + 1);
                    return Some(String::from_utf8_lossy(&self.buf).into_owned());
                }
                None => {
                    let n = window.len();
                    self.buf.extend_from_slice(window);
                    reader.consume(n);
                    if self.buf.len() >= MAX_DRIVER_LINE {
                        return Some(String::from_utf8_lossy(&self.buf).into_owned());
                    }
                }
            }
        }
    }
}

/// The start time of process `pid`: field 22 of `/proc/<pid>/stat` (clock ticks since boot,
/// proc(5)). With the pid it names one process: a pid reused by another process has another
/// start time. `None` when no such process is visible.
pub fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state …`: comm may hold spaces and parentheses, so split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process recorded as `pid` (started at `start`, when recorded) still runs: the
/// pid is alive and, when a start time was recorded, has that start time — a recycled pid is
/// another process.
pub fn still_runs(pid: u32, start: Option<u64>) -> bool {
    match start {
        Some(start) => process_start(pid) == Some(start),
        None => std::path::Path::new("/proc").join(pid.to_string()).exists(),
    }
}

/// The marker file in a sandbox naming the rehearse process that made it
/// ([`mark_sandbox`]), so `rehearse gc` can tell a sandbox left by a killed rehearsal
/// ([`left_sandboxes`]) from one in use or kept.
pub const SANDBOX_OWNER: &str = ".rehearse-owner";

/// Writes [`SANDBOX_OWNER`] into `sandbox`: this process's pid and start time, and whether the
/// sandbox is kept on purpose (`--keep`: never offered for removal).
///
/// Also records the sandbox's path in the registry ([`registered_sandboxes`]), so `rehearse gc`
/// finds it wherever it is: under `--report-dir`, or a remote source staged there
/// (`rehearse-source-…`), not only in the temp dir.
pub fn mark_sandbox(sandbox: &std::path::Path, keep: bool) -> std::io::Result<()> {
    let me = std::process::id();
    let start = process_start(me).map(|s| s.to_string()).unwrap_or_default();
    std::fs::write(
        sandbox.join(SANDBOX_OWNER),
        format!("owner={me}\nowner_start={start}\nkeep={keep}\n"),
    )?;
    register(sandbox)
}

/// The registry of marked sandboxes: `<temp dir>/rehearse-procs-<uid>/sandboxes/`, one file per
/// sandbox, named as the sandbox directory, holding its absolute path. Private to the user (the
/// pid-file directory is 0700).
fn registry() -> PathBuf {
    run_dir().join("sandboxes")
}

/// Records `sandbox` in the [`registry`], and forgets entries whose directory is gone (removed
/// at the end of its trial), so the registry stays as small as the set of live and left
/// sandboxes.
fn register(sandbox: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = registry();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let path = std::path::absolute(sandbox)?;
    let Some(name) = path.file_name() else {
        return Ok(());
    };
    prune_registry(&dir);
    std::fs::write(dir.join(name), path.as_os_str().as_encoded_bytes())
}

/// Removes the registry entries whose sandbox directory no longer exists.
fn prune_registry(dir: &std::path::Path) {
    use std::os::unix::ffi::OsStringExt;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let gone = std::fs::read(entry.path())
            .map(|p| !PathBuf::from(std::ffi::OsString::from_vec(p)).exists())
            .unwrap_or(true);
        if gone {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Sandboxes recorded in the registry by [`mark_sandbox`] — in the temp dir, under a
/// `--report-dir`, or a remote source staged there — that killed rehearsals left
/// ([`left_sandboxes`]'s checks: a `rehearse-*` directory of this user, not a link, with a
/// marker whose process is gone and that is not kept). Entries of sandboxes already removed
/// are forgotten.
pub fn registered_sandboxes() -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let dir = registry();
    prune_registry(&dir);
    let uid = rustix::process::getuid().as_raw();
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path()).ok())
        .map(|p| PathBuf::from(std::ffi::OsString::from_vec(p)))
        .filter(|p| is_left(p, uid))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Sandboxes (`rehearse-*` directories with a [`SANDBOX_OWNER`] marker, directly under `base`)
/// whose rehearse process is gone — SIGKILLed, or the machine's OOM killer — and that were not
/// kept on purpose. Only directories of this user, never through a link.
pub fn left_sandboxes(base: &std::path::Path) -> Vec<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_left(p, uid))
        .collect();
    out.sort();
    out
}

/// Whether `p` is a sandbox a killed rehearsal left: a `rehearse-*` directory of user `uid`
/// (not a link) with a [`SANDBOX_OWNER`] marker whose process is gone, not kept on purpose.
fn is_left(p: &std::path::Path, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let named = p
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("rehearse-"));
    if !named || !std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir() && m.uid() == uid) {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(p.join(SANDBOX_OWNER)) else {
        return false;
    };
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
            .map(str::to_string)
    };
    let Some(owner) = field("owner").and_then(|o| o.parse().ok()) else {
        return false;
    };
    let start = field("owner_start").and_then(|s| s.parse().ok());
    field("keep").as_deref() != Some("true") && !still_runs(owner, start)
}

/// Which leftovers [`gc`](super::gc) removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcScope {
    /// Containers and local processes started by this process (Ctrl-C during a run).
    ThisProcess,
    /// Containers and local processes whose rehearse process is gone (`rehearse gc`): live
    /// rehearsals elsewhere on this host are left alone.
    Orphans,
}

/// Where pid files of running local processes are: `$TMPDIR/rehearse-procs-<uid>/`, one file
/// `<pgid>.pid` per process group, holding `owner=<rehearse pid>`, `trial=<id>`,
/// `role=<kafka|spark>` and, for Kafka, `dir=<its temporary data directory>`. Under the temp dir
/// rather than the cache: pids mean nothing after a reboot, and `rehearse gc` must find them
/// whatever cache a rehearsal was given.
pub fn run_dir() -> PathBuf {
    let uid = rustix::process::getuid().as_raw();
    std::env::temp_dir().join(format!("rehearse-procs-{uid}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gc_offers_sandboxes_of_killed_rehearsals_only() {
        let base = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let start = process_start(me).unwrap();
        let sandbox = |name: &str, marker: Option<String>| {
            let p = base.path().join(name);
            std::fs::create_dir(&p).unwrap();
            if let Some(m) = marker {
                std::fs::write(p.join(SANDBOX_OWNER), m).unwrap();
            }
            p
        };
        // SIGKILLed: its owner pid is gone, or was recycled by another process.
        let killed = sandbox(
            "rehearse-demo-4.0.1-a",
            Some(format!(
                "owner={me}\nowner_start={}\nkeep=false\n",
                start + 1
            )),
        );
        sandbox(
            "rehearse-demo-4.0.1-running",
            Some(format!("owner={me}\nowner_start={start}\nkeep=false\n")),
        );
        sandbox(
            "rehearse-demo-4.0.1-kept",
            Some(format!(
                "owner={me}\nowner_start={}\nkeep=true\n",
                start + 1
            )),
        );
        sandbox("rehearse-no-marker", None);
        sandbox(
            "other-dir",
            Some(format!(
                "owner={me}\nowner_start={}\nkeep=false\n",
                start + 1
            )),
        );
        assert_eq!(left_sandboxes(base.path()), vec![killed]);
        // The marker this process writes says it runs.
        let fresh = sandbox("rehearse-fresh", None);
        mark_sandbox(&fresh, false).unwrap();
        assert_eq!(left_sandboxes(base.path()).len(), 1);
    }

    #[test]
    fn the_job_sees_the_sandbox_where_the_runtime_puts_it() {
        let host = Path::new("/tmp/rehearse-x");
        assert_eq!(
            RuntimeKind::Docker.job_sandbox(host),
            PathBuf::from("/sandbox")
        );
        assert_eq!(RuntimeKind::Local.job_sandbox(host), host);
        assert_eq!(RuntimeKind::default(), RuntimeKind::Docker);
        assert_eq!(RuntimeKind::Local.as_str(), "local");
    }

    #[tokio::test]
    async fn lines_lose_their_endings_and_the_last_needs_none() {
        let mut reader: &[u8] = b"one\r\ntwo\n\xff three";
        let mut lines = LineReader::default();
        assert_eq!(lines.next_line(&mut reader).await.as_deref(), Some("one"));
        assert_eq!(lines.next_line(&mut reader).await.as_deref(), Some("two"));
        assert_eq!(
            lines.next_line(&mut reader).await.as_deref(),
            Some("\u{fffd} three")
        );
        assert_eq!(lines.next_line(&mut reader).await, None);
    }

    /// Issue 14's CR class, live: a lone `\r` (Spark's console progress bar, CR-only output)
    /// ends a line; `\r\n` is one ending, also across reads; a blank line stays a line.
    #[tokio::test]
    async fn a_lone_carriage_return_ends_a_driver_line() {
        let text = b"[Stage 3:>   (0 + 2) / 2]\r          \r26/11/30 INFO MicroBatchExecution: Resuming at batch 4\r\n\na\rb\r";
        let mut reader: &[u8] = text;
        let mut lines = LineReader::default();
        let mut got = Vec::new();
        while let Some(line) = lines.next_line(&mut reader).await {
            got.push(line);
        }
        assert_eq!(
            got,
            [
                "[Stage 3:>   (0 + 2) / 2]",
                "          ",
                "26/11/30 INFO MicroBatchExecution: Resuming at batch 4",
                "",
                "a",
                "b"
            ]
        );
        // One byte per read: the `\n` of a `\r\n` arrives alone and ends nothing more.
        let slow = tokio::io::BufReader::with_capacity(1, &text[..]);
        tokio::pin!(slow);
        let mut lines = LineReader::default();
        let mut again = Vec::new();
        while let Some(line) = lines.next_line(&mut slow).await {
            again.push(line);
        }
        assert_eq!(again, got);
    }

    /// A stream without line endings is handed on in pieces of at most 1 MiB.
    #[tokio::test]
    async fn a_line_without_end_is_cut_not_buffered_whole() {
        let text = vec![b'x'; MAX_DRIVER_LINE * 2 + 5];
        let mut reader: &[u8] = &text;
        let mut lines = LineReader::default();
        let mut sizes = Vec::new();
        while let Some(line) = lines.next_line(&mut reader).await {
            sizes.push(line.len());
        }
        assert_eq!(sizes, [MAX_DRIVER_LINE, MAX_DRIVER_LINE, 5]);
    }

    #[test]
    fn free_port_is_nonzero() {
        assert!(free_port().unwrap() > 0);
    }
}
