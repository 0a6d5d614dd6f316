//! The `local` runtime: the Kafka broker and the Spark driver of a trial as host processes, for
//! machines without a Docker engine. Same parts as the images (docker/local-install.sh runs the
//! recipes' own download and resolve functions), installed once per version under
//! `<cache>/local/{spark,kafka}-<version>/` (`cache::local()`), run with the host's `java`
//! (or `$JAVA_HOME/bin/java`) and `python3` (or `$PYSPARK_PYTHON`).
//!
//! Every process runs in a process group of its own: stopping sends SIGTERM to the group, then
//! SIGKILL after the grace period; dropping a handle kills the group (safety net). Each running
//! group has a pid file under [`run_dir`] naming the rehearse process that owns it, so
//! `rehearse gc` can kill what an interrupted rehearsal left.
//!
//! Not done here: memory caps (a container's `--memory` has no host-process equivalent; the
//! driver's JVM takes its default heap), network isolation (the broker listens on 127.0.0.1).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::common::{free_port, LineReader, LogLine, RuntimeError, Stream, TrialIds};
use crate::versions::{SparkLine, SparkVersion};

/// Environment variable set on every local process: the trial id. `gc` checks it in
/// `/proc/<pid>/environ` before killing, so a reused pid is never killed.
const TRIAL_ENV: &str = "REHEARSE_TRIAL";

/// How long a local broker may take to listen on its port.
const KAFKA_LISTEN_TIMEOUT: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------------------------
// Host tools and version support

pub use crate::versions::ToolVersion;

/// Whether Spark `spark` (`(major, minor)`) runs on Java `java` and Python `python` on the local
/// runtime; `Err` holds the reason and the fix, one sentence each. The limits are the
/// `java_min`, `java_max`, `python_min` and `python_max` columns of the Spark line's row in
/// `src/versions/spark-lines.toml` (3.0 – 3.2: Java ≤ 11; 3.0 – 3.3: Python ≤ 3.10; 4.x: Java
/// ≥ 17, Python ≥ 3.9); a line older than the table (Spark 2.x) has none.
pub fn local_support(
    spark: (u32, u32),
    java: ToolVersion,
    python: ToolVersion,
) -> Result<(), (String, String)> {
    SparkLine::of_line(spark).map_or(Ok(()), |line| line.host_support(java, python))
}

/// The major version in the output of `java -version` (`version "17.0.15"` → 17,
/// `version "1.8.0_392"` → 8).
pub fn parse_java_version(output: &str) -> Option<u32> {
    let start = output.find("version \"")? + "version \"".len();
    let rest = &output[start..];
    let text = &rest[..rest.find('"')?];
    let mut parts = text.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

/// The Java the local runtime runs: `$JAVA_HOME/bin/java`, else `java` on PATH.
fn java_program() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join("bin/java"))
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// The Python PySpark runs: `$PYSPARK_PYTHON`, else `python3`.
fn python_program() -> PathBuf {
    std::env::var_os("PYSPARK_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The host's Java major version.
pub fn java_version() -> Result<u32, RuntimeError> {
    let java = java_program();
    let out = std::process::Command::new(&java)
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| RuntimeError::JavaMissing {
            detail: format!("cannot run {}: {e}", java.display()),
        })?;
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    parse_java_version(&text).ok_or_else(|| RuntimeError::JavaMissing {
        detail: format!(
            "{} -version printed no version: {}",
            java.display(),
            text.lines().next().unwrap_or("")
        ),
    })
}

/// The host's PySpark Python version `(major, minor)`.
pub fn python_version() -> Result<ToolVersion, RuntimeError> {
    let python = python_program();
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import sys; print(sys.version_info[0], sys.version_info[1])",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| RuntimeError::PythonMissing {
            detail: format!("cannot run {}: {e}", python.display()),
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace().map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) if out.status.success() => Ok((a, b)),
        _ => Err(RuntimeError::PythonMissing {
            detail: format!("{} did not report its version", python.display()),
        }),
    }
}

/// Checks that this host can run Spark `version` on the local runtime (Java and Python present
/// and suitable). Cheap: two short process runs.
pub fn check_host(version: &str) -> Result<(), RuntimeError> {
    let spark = SparkVersion::parse(version).map_err(|_| RuntimeError::LocalUnsupported {
        version: version.to_string(),
        reason: "not a Spark version".into(),
        fix: "give a release such as 3.5.3".into(),
    })?;
    let java = java_version()?;
    let python = python_version()?;
    let support = match SparkLine::of(&spark) {
        Some(line) => line.host_support((java, 0), python),
        None => Ok(()),
    };
    support.map_err(|(reason, fix)| RuntimeError::LocalUnsupported {
        version: version.to_string(),
        reason,
        fix,
    })
}

// ---------------------------------------------------------------------------------------------
// Installation

/// Where local installations live: `<cache>/local` ([`crate::cache::local`]).
pub fn install_root() -> PathBuf {
    crate::cache::local()
}

/// What is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Spark,
    Kafka,
}

impl Part {
    fn as_str(self) -> &'static str {
        match self {
            Part::Spark => "spark",
            Part::Kafka => "kafka",
        }
    }
}

/// Installs Spark `version` for the local runtime unless it is there, and returns its
/// SPARK_HOME (`<cache>/local/spark-<version>/spark`). Blocking (the first time: the pyspark
/// download, up to 450 MB, unless an image build cached it, and a Maven resolution).
pub fn ensure_spark(
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, RuntimeError> {
    Ok(ensure(Part::Spark, version, progress)?.join("spark"))
}

/// Installs the Kafka broker `version` for the local runtime unless it is there, and returns
/// its home (`<cache>/local/kafka-<version>`, holding `libs/`, `config/` and `start.sh`).
pub fn ensure_kafka(
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, RuntimeError> {
    ensure(Part::Kafka, version, progress)
}

fn ensure(
    part: Part,
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, RuntimeError> {
    let v = crate::images::recipe_version(version).map_err(|source| RuntimeError::Install {
        what: format!("{} {version}", part.as_str()),
        source,
    })?;
    let root = install_root();
    let dir = root.join(format!("{}-{v}", part.as_str()));
    if dir.join("complete").exists() {
        return Ok(dir);
    }
    let io = |action: String| move |source| RuntimeError::LocalIo { action, source };
    std::fs::create_dir_all(&root).map_err(io(format!("create {}", root.display())))?;
    let lock_path = root.join(format!("{}-{v}.lock", part.as_str()));
    let lock =
        std::fs::File::create(&lock_path).map_err(io(format!("create {}", lock_path.display())))?;
    flock(&lock).map_err(io(format!("lock {}", lock_path.display())))?;
    if dir.join("complete").exists() {
        return Ok(dir);
    }
    progress(&format!(
        "installing {} {v} for the local runtime into {}",
        part.as_str(),
        dir.display()
    ));
    let partial = root.join(format!("{}-{v}.partial", part.as_str()));
    let _ = std::fs::remove_dir_all(&partial);
    let _ = std::fs::remove_dir_all(&dir);
    crate::images::run_local_install(part.as_str(), v, &partial, progress).map_err(|source| {
        RuntimeError::Install {
            what: format!("{} {v}", part.as_str()),
            source,
        }
    })?;
    std::fs::write(partial.join("complete"), format!("{} {v}\n", part.as_str()))
        .map_err(io(format!("write {}", partial.join("complete").display())))?;
    std::fs::rename(&partial, &dir).map_err(io(format!(
        "rename {} to {}",
        partial.display(),
        dir.display()
    )))?;
    Ok(dir)
}

/// An exclusive lock held until `file` is closed (two rehearse processes installing the same
/// version wait for each other).
fn flock(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a valid open descriptor has no memory effects.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

// ---------------------------------------------------------------------------------------------
// Processes

/// Where pid files of running local processes are: `$TMPDIR/rehearse-procs-<uid>/`, one file
/// `<pgid>.pid` per process group, holding `owner=<rehearse pid>`, `trial=<id>`,
/// `role=<kafka|spark>` and, for Kafka, `dir=<its temporary data directory>`. Under the temp dir
/// rather than the cache: pids mean nothing after a reboot, and `rehearse gc` must find them
/// whatever cache a rehearsal was given.
pub fn run_dir() -> PathBuf {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("rehearse-procs-{uid}"))
}

/// A process group started by the local runtime.
struct Group {
    child: Mutex<tokio::process::Child>,
    pgid: i32,
    pidfile: PathBuf,
    /// Set once the group was seen empty: from then on its id may belong to someone else, so
    /// it is never signalled again.
    gone: std::sync::atomic::AtomicBool,
}

impl Group {
    /// Spawns `cmd` in a new process group, with the trial id in its environment, and writes
    /// its pid file.
    fn spawn(
        mut cmd: std::process::Command,
        ids: &TrialIds,
        role: &'static str,
        extra: &str,
    ) -> Result<Group, RuntimeError> {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0)
            .env(TRIAL_ENV, &ids.trial)
            .stdin(Stdio::null());
        let program = cmd.get_program().to_string_lossy().into_owned();
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.kill_on_drop(false);
        let child = cmd.spawn().map_err(|source| RuntimeError::Spawn {
            role,
            program,
            source,
        })?;
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        let dir = run_dir();
        let pidfile = dir.join(format!("{pgid}.pid"));
        if std::fs::create_dir(&dir).is_ok() {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        let me = std::process::id();
        let start = |pid: u32| {
            super::common::process_start(pid)
                .map(|s| s.to_string())
                .unwrap_or_default()
        };
        let _ = std::fs::write(
            &pidfile,
            format!(
                "owner={me}\nowner_start={}\nstart={}\ntrial={}\nrole={role}\n{extra}",
                start(me),
                start(u32::try_from(pgid).unwrap_or(0)),
                ids.trial
            ),
        );
        Ok(Group {
            child: Mutex::new(child),
            pgid,
            pidfile,
            gone: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The exit status as a container would report it (signal N → 128 + N), `None` while it runs.
    fn exit_code(&self) -> Option<i64> {
        use std::os::unix::process::ExitStatusExt;
        let mut child = self.child.lock().ok()?;
        match child.try_wait() {
            Ok(Some(status)) => status
                .code()
                .map(i64::from)
                .or_else(|| status.signal().map(|s| 128 + i64::from(s))),
            _ => None,
        }
    }

    /// Sends `signal` to the group (0: only checks it still has members); false once it has
    /// none.
    fn signal(&self, signal: i32) -> bool {
        use std::sync::atomic::Ordering;
        if self.pgid <= 0 || self.gone.load(Ordering::Relaxed) {
            return false;
        }
        // SAFETY: kill has no memory effects; a negative pid addresses our own group.
        let sent = unsafe { libc::kill(-self.pgid, signal) } == 0;
        if !sent {
            self.gone.store(true, Ordering::Relaxed);
        }
        sent
    }

    /// SIGTERM to the group, SIGKILL after `grace` if the leader has not exited.
    async fn stop(&self, grace: Duration) {
        if self.exit_code().is_none() {
            self.signal(libc::SIGTERM);
            let deadline = Instant::now() + grace;
            while self.exit_code().is_none() && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        // Children of the leader (the Python driver) may outlive it: the group goes either way,
        // and is waited for (at most 2 s), so what it wrote can be removed next.
        self.signal(libc::SIGKILL);
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            let _ = self.exit_code(); // reaps the leader, which counts as a member until then
            if !self.signal(0) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
        if let Ok(mut child) = self.child.lock() {
            let _ = child.start_kill();
            let _ = child.try_wait();
        }
        let _ = std::fs::remove_file(&self.pidfile);
    }
}

/// A Kafka broker running as a host process: KRaft single node, listening on 127.0.0.1 only,
/// its data and log in a temporary directory removed with it.
pub(crate) struct LocalKafka {
    group: Group,
    dir: tempfile::TempDir,
    /// `127.0.0.1:<port>`, for the host and for local Spark alike.
    pub bootstrap: String,
}

impl LocalKafka {
    /// The exit code once the broker has exited (signal N → 128 + N), `None` while it runs.
    pub fn exit_code(&self) -> Option<i64> {
        self.group.exit_code()
    }

    /// Stops the broker (SIGTERM, SIGKILL after 10 s) and removes its data.
    pub async fn remove(self) {
        self.group.stop(Duration::from_secs(10)).await;
        drop(self.group);
        let _ = self.dir.close();
    }
}

/// Starts Kafka `version` (installed on first use) on free 127.0.0.1 ports. Returns once the
/// broker listens on its client port; the caller waits for a real metadata answer
/// (`kafka::wait_ready`).
pub(crate) async fn start_kafka(ids: &TrialIds, version: &str) -> Result<LocalKafka, RuntimeError> {
    let v = version.to_string();
    let home = tokio::task::spawn_blocking(move || ensure_kafka(&v, &mut |_| {}))
        .await
        .map_err(|e| RuntimeError::LocalIo {
            action: "install Kafka".into(),
            source: std::io::Error::other(e.to_string()),
        })??;
    // Check Java before anything else: the broker's own error would be an unreadable exit.
    java_version()?;
    let (kafka, ports) = spawn_kafka(ids, &home)?;
    wait_listening(kafka, ports).await
}

/// The three ports of a local broker: clients, inter-broker, controller.
#[derive(Debug, Clone, Copy)]
struct KafkaPorts {
    external: u16,
    internal: u16,
    controller: u16,
}

/// Spawns the broker installed at `home` on free ports, its data, config and log (`kafka.log`)
/// in a new temporary directory.
fn spawn_kafka(ids: &TrialIds, home: &Path) -> Result<(LocalKafka, KafkaPorts), RuntimeError> {
    let dir = tempfile::Builder::new()
        .prefix("rehearse-kafka-")
        .tempdir()
        .map_err(|source| RuntimeError::LocalIo {
            action: "create a temporary directory for Kafka".into(),
            source,
        })?;
    let ports = KafkaPorts {
        external: free_port()?,
        internal: free_port()?,
        controller: free_port()?,
    };
    // The marker `rehearse gc` checks before it deletes this directory.
    let _ = std::fs::write(dir.path().join(KAFKA_DIR_MARKER), &ids.trial);
    let log_path = dir.path().join("kafka.log");
    let log = std::fs::File::create(&log_path).map_err(|source| RuntimeError::LocalIo {
        action: format!("create {}", log_path.display()),
        source,
    })?;
    let log_err = log.try_clone().map_err(|source| RuntimeError::LocalIo {
        action: format!("open {}", log_path.display()),
        source,
    })?;
    let mut cmd = std::process::Command::new("sh");
    cmd.arg(home.join("start.sh"))
        .env("KAFKA_HOME", home)
        .env("KAFKA_INTERNAL_HOST", "127.0.0.1")
        .env("KAFKA_LISTEN_HOST", "127.0.0.1")
        .env("KAFKA_EXTERNAL_PORT", ports.external.to_string())
        .env("KAFKA_INTERNAL_PORT", ports.internal.to_string())
        .env("KAFKA_CONTROLLER_PORT", ports.controller.to_string())
        .env("KAFKA_DATA_DIR", dir.path().join("data"))
        .env("KAFKA_CONFIG_DIR", dir.path().join("config"))
        .current_dir(dir.path())
        .stdout(log)
        .stderr(log_err);
    let group = Group::spawn(
        cmd,
        ids,
        "kafka",
        &format!("dir={}\n", dir.path().display()),
    )?;
    let kafka = LocalKafka {
        group,
        dir,
        bootstrap: format!("127.0.0.1:{}", ports.external),
    };
    Ok((kafka, ports))
}

/// Waits until `kafka` accepts connections on its client port (at most
/// [`KAFKA_LISTEN_TIMEOUT`]); removes it and says why from its log if it exits or never
/// listens.
async fn wait_listening(kafka: LocalKafka, ports: KafkaPorts) -> Result<LocalKafka, RuntimeError> {
    let log_path = kafka.dir.path().join("kafka.log");
    let started = Instant::now();
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", ports.external))
            .await
            .is_ok()
        {
            return Ok(kafka);
        }
        if let Some(code) = kafka.group.exit_code() {
            let tail = tail_lines(&log_path, 20);
            let err = if tail.contains("Address already in use") {
                RuntimeError::PortTaken {
                    ports: format!(
                        "{}, {}, {}",
                        ports.external, ports.internal, ports.controller
                    ),
                    tail,
                }
            } else {
                RuntimeError::ProcessExited {
                    role: "kafka",
                    code,
                    log: log_path.clone(),
                    tail,
                }
            };
            kafka.remove().await;
            return Err(err);
        }
        if started.elapsed() > KAFKA_LISTEN_TIMEOUT {
            let tail = tail_lines(&log_path, 20);
            kafka.remove().await;
            return Err(RuntimeError::ProcessExited {
                role: "kafka",
                code: -1,
                log: log_path,
                tail: format!(
                    "not listening after {} s\n{tail}",
                    KAFKA_LISTEN_TIMEOUT.as_secs()
                ),
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn tail_lines(path: &Path, n: usize) -> String {
    let Ok(f) = std::fs::File::open(path) else {
        return String::new();
    };
    let lines: Vec<String> = std::io::BufReader::new(f)
        .lines()
        .map_while(Result::ok)
        .collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A Spark driver (spark-submit) running as a host process in the sandbox.
pub(crate) struct LocalSpark {
    group: Group,
    lines: Mutex<Option<mpsc::UnboundedReceiver<LogLine>>>,
    /// `local Spark <version> (<SPARK_HOME>)`.
    pub description: String,
}

impl LocalSpark {
    /// The driver's stdout and stderr, line by line. The first call gets the stream (from the
    /// start); later calls get a channel that is already closed.
    pub fn lines(&self) -> mpsc::Receiver<LogLine> {
        let (tx, rx) = mpsc::channel(4096);
        let taken = self.lines.lock().ok().and_then(|mut l| l.take());
        if let Some(mut from) = taken {
            tokio::spawn(async move {
                while let Some(line) = from.recv().await {
                    if tx.send(line).await.is_err() {
                        break;
                    }
                }
            });
        }
        rx
    }

    /// The exit code once spark-submit has exited (signal N → 128 + N), `None` while it runs.
    pub fn exit_code(&self) -> Option<i64> {
        self.group.exit_code()
    }

    /// SIGTERM to the process group (Spark's shutdown hooks run), SIGKILL after `grace`.
    pub async fn stop(&self, grace: Duration) {
        self.group.stop(grace).await;
    }

    /// Kills what is left of the process group and forgets it.
    pub async fn remove(self) {
        self.group.stop(Duration::ZERO).await;
    }
}

/// Starts Spark `version` (installed on first use) running `cmd` (a `spark-submit` argv) with
/// the sandbox as working directory, `$SPARK_HOME/bin` first on PATH and `conf/` of the sandbox
/// as SPARK_CONF_DIR. Refuses versions the host's Java or Python cannot run.
pub(crate) async fn start_spark(
    ids: &TrialIds,
    version: &str,
    sandbox: &Path,
    cmd: Vec<String>,
) -> Result<LocalSpark, RuntimeError> {
    if sandbox.to_string_lossy().contains(char::is_whitespace) {
        return Err(RuntimeError::SandboxPath {
            path: sandbox.to_path_buf(),
        });
    }
    let v = version.to_string();
    let spark_home = tokio::task::spawn_blocking(move || {
        check_host(&v)?;
        ensure_spark(&v, &mut |_| {})
    })
    .await
    .map_err(|e| RuntimeError::LocalIo {
        action: "install Spark".into(),
        source: std::io::Error::other(e.to_string()),
    })??;
    let Some((program, args)) = cmd.split_first() else {
        return Err(RuntimeError::Spawn {
            role: "spark",
            program: String::new(),
            source: std::io::Error::other("empty command"),
        });
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![spark_home.join("bin")];
    paths.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(paths).map_err(|e| RuntimeError::LocalIo {
        action: "build PATH".into(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .env("PATH", path)
        .env("SPARK_HOME", &spark_home)
        .env("SPARK_CONF_DIR", sandbox.join("conf"))
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("PYSPARK_PYTHON", python_program())
        .current_dir(sandbox)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let group = Group::spawn(command, ids, "spark", "")?;
    let (tx, rx) = mpsc::unbounded_channel();
    {
        let mut child = group.child.lock().map_err(|_| RuntimeError::LocalIo {
            action: "read the driver's output".into(),
            source: std::io::Error::other("poisoned lock"),
        })?;
        if let Some(out) = child.stdout.take() {
            forward(out, Stream::Stdout, tx.clone());
        }
        if let Some(err) = child.stderr.take() {
            forward(err, Stream::Stderr, tx);
        }
    }
    Ok(LocalSpark {
        group,
        lines: Mutex::new(Some(rx)),
        description: format!("local Spark {version} ({})", spark_home.display()),
    })
}

fn forward<R>(reader: R, stream: Stream, tx: mpsc::UnboundedSender<LogLine>)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(reader);
        let mut lines = LineReader::default();
        while let Some(text) = lines.next_line(&mut reader).await {
            if tx.send(LogLine { stream, text }).is_err() {
                break;
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// gc

/// The file in a local broker's data directory holding its trial id: `rehearse gc` deletes a
/// directory a pid file names only when it holds this marker with the pid file's trial.
const KAFKA_DIR_MARKER: &str = ".rehearse-trial";

/// One pid file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PidFile {
    owner: u32,
    /// The owner's start time ([`process_start`](super::common::process_start)), when recorded.
    owner_start: Option<u64>,
    /// The group leader's start time, when recorded.
    start: Option<u64>,
    trial: String,
    role: String,
    dir: Option<PathBuf>,
}

fn parse_pid_file(text: &str) -> Option<PidFile> {
    let mut owner = None;
    let mut owner_start = None;
    let mut start = None;
    let mut trial = None;
    let mut role = String::new();
    let mut dir = None;
    for line in text.lines() {
        match line.split_once('=') {
            Some(("owner", v)) => owner = v.parse().ok(),
            Some(("owner_start", v)) => owner_start = v.parse().ok(),
            Some(("start", v)) => start = v.parse().ok(),
            Some(("trial", v)) => trial = Some(v.to_string()),
            Some(("role", v)) => role = v.to_string(),
            Some(("dir", v)) => dir = Some(PathBuf::from(v)),
            _ => {}
        }
    }
    Some(PidFile {
        owner: owner?,
        owner_start,
        start,
        trial: trial?,
        role,
        dir,
    })
}

/// Whether process `pid` runs with `REHEARSE_TRIAL=<trial>` in its environment.
fn runs_trial(pid: i32, trial: &str) -> bool {
    let want = format!("{TRIAL_ENV}={trial}");
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|env| env.split(|b| *b == 0).any(|kv| kv == want.as_bytes()))
        .unwrap_or(false)
}

/// Whether `dir`, named by a pid file of `trial`, is a broker data directory rehearse created
/// for that trial: directly under the temp dir, named `rehearse-kafka-*`, a directory (not a
/// link) of this user, holding [`KAFKA_DIR_MARKER`] with the trial id. A stale or planted pid
/// file naming any other directory gets nothing deleted.
fn our_kafka_dir(dir: &Path, trial: &str) -> Result<(), &'static str> {
    use std::os::unix::fs::MetadataExt;
    let tmp = std::env::temp_dir();
    let tmp = tmp.canonicalize().unwrap_or(tmp);
    let parent_ok = dir
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .is_some_and(|p| p == tmp);
    let name_ok = dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("rehearse-kafka-"));
    if !parent_ok || !name_ok {
        return Err("not a rehearse-kafka-* directory of the temp dir");
    }
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() && m.uid() == uid => {}
        Ok(_) => return Err("not a directory of this user"),
        Err(_) => return Err("already gone"),
    }
    match std::fs::read_to_string(dir.join(KAFKA_DIR_MARKER)) {
        Ok(t) if t == trial => Ok(()),
        _ => Err("it holds no marker of the trial"),
    }
}

/// Kills the local process groups in scope (`this_process`: owned by this rehearse process;
/// else: owned by rehearse processes that are gone) and removes their Kafka data. Trusts no pid
/// file blindly: the run dir must be this user's and not writable by others; an owner counts
/// as running only with its recorded start time (a recycled pid is another process); a group is
/// killed only when its leader has the trial's `REHEARSE_TRIAL` marker and recorded start time;
/// a data directory is deleted only when [`our_kafka_dir`] says rehearse made it. Returns one
/// line per group: what was removed, or what was skipped and why.
pub(crate) fn gc(this_process: bool) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let me = std::process::id();
    let mut lines = Vec::new();
    let dir = run_dir();
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() && m.uid() == uid && m.mode() & 0o022 == 0 => {}
        Ok(_) => {
            lines.push(format!(
                "skipped {}: not a directory of this user closed to others, so its pid files cannot be trusted (remove it by hand)",
                dir.display()
            ));
            return lines;
        }
        Err(_) => return lines,
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return lines;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(pgid) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".pid"))
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Some(pid_file) = std::fs::symlink_metadata(&path)
            .ok()
            .filter(|m| m.is_file() && m.uid() == uid)
            .and_then(|_| std::fs::read_to_string(&path).ok())
            .and_then(|t| parse_pid_file(&t))
        else {
            continue;
        };
        let owner_alive = super::common::still_runs(pid_file.owner, pid_file.owner_start);
        let wanted = if this_process {
            pid_file.owner == me
        } else {
            pid_file.owner == me || !owner_alive
        };
        if !wanted {
            continue;
        }
        let what = format!(
            "local {} process group {pgid} (trial {})",
            pid_file.role, pid_file.trial
        );
        let leader = u32::try_from(pgid).unwrap_or(0);
        let ours = pgid > 0
            && runs_trial(pgid, &pid_file.trial)
            && pid_file
                .start
                .is_none_or(|s| super::common::process_start(leader) == Some(s));
        if ours {
            // SAFETY: kill has no memory effects; the group leader carries the trial's marker
            // and recorded start time (checked above).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
            lines.push(format!("removed {what}"));
        } else if Path::new("/proc").join(pgid.to_string()).exists() {
            lines.push(format!(
                "skipped killing {what}: pid {pgid} now belongs to another process (no REHEARSE_TRIAL={} marker or another start time); its pid file is removed",
                pid_file.trial
            ));
        } else {
            lines.push(format!("removed the pid file of {what} (it had ended)"));
        }
        if let Some(data) = &pid_file.dir {
            match our_kafka_dir(data, &pid_file.trial) {
                Ok(()) => {
                    let _ = std::fs::remove_dir_all(data);
                    lines.push(format!("removed Kafka data {}", data.display()));
                }
                Err("already gone") => {}
                Err(why) => lines.push(format!(
                    "skipped deleting {} named by the pid file of {what}: {why}",
                    data.display()
                )),
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_versions_parse_old_and_new_styles() {
        assert_eq!(
            parse_java_version("openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime"),
            Some(17)
        );
        assert_eq!(parse_java_version("java version \"1.8.0_392\""), Some(8));
        assert_eq!(
            parse_java_version("openjdk version \"21\" 2023-09-19"),
            Some(21)
        );
        assert_eq!(
            parse_java_version("openjdk version \"11.0.2-ea\""),
            Some(11)
        );
        assert_eq!(parse_java_version("no java here"), None);
    }

    #[test]
    fn local_support_follows_the_table() {
        let java17 = (17, 0);
        let py311 = (3, 11);
        assert!(local_support((3, 5), java17, py311).is_ok());
        assert!(local_support((4, 0), java17, py311).is_ok());
        assert!(local_support((3, 4), (11, 0), (3, 9)).is_ok());
        assert!(local_support((3, 2), (11, 0), (3, 9)).is_ok());
        let (reason, fix) = local_support((3, 2), java17, (3, 9)).unwrap_err();
        assert!(
            reason.contains("Java 17") && fix.contains("JAVA_HOME"),
            "{reason} {fix}"
        );
        let (reason, fix) = local_support((3, 3), java17, py311).unwrap_err();
        assert!(
            reason.contains("3.11") && fix.contains("PYSPARK_PYTHON"),
            "{reason} {fix}"
        );
        assert!(local_support((3, 3), java17, (3, 10)).is_ok());
        assert!(local_support((4, 0), (11, 0), py311).is_err());
        assert!(local_support((4, 0), java17, (3, 8)).is_err());
    }

    #[test]
    fn pid_files_round_trip_and_reject_garbage() {
        let p =
            parse_pid_file("owner=42\ntrial=abc\nrole=kafka\ndir=/tmp/rehearse-kafka-x\n").unwrap();
        assert_eq!(p.owner, 42);
        assert_eq!(p.trial, "abc");
        assert_eq!(p.role, "kafka");
        assert_eq!(p.dir, Some(PathBuf::from("/tmp/rehearse-kafka-x")));
        assert_eq!(parse_pid_file("owner=x\ntrial=abc\n"), None);
        assert_eq!(parse_pid_file("trial=abc\n"), None);
    }

    #[test]
    fn gc_deletes_only_kafka_dirs_rehearse_made_for_the_trial() {
        let planted = tempfile::tempdir().unwrap();
        let outside = planted.path().join("rehearse-kafka-precious");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join(KAFKA_DIR_MARKER), "t1").unwrap();
        assert!(
            our_kafka_dir(&outside, "t1").is_err(),
            "outside the temp dir"
        );
        let ours = tempfile::Builder::new()
            .prefix("rehearse-kafka-")
            .tempdir()
            .unwrap();
        assert_eq!(
            our_kafka_dir(ours.path(), "t1"),
            Err("it holds no marker of the trial")
        );
        std::fs::write(ours.path().join(KAFKA_DIR_MARKER), "t2").unwrap();
        assert!(our_kafka_dir(ours.path(), "t1").is_err(), "another trial's");
        std::fs::write(ours.path().join(KAFKA_DIR_MARKER), "t1").unwrap();
        assert_eq!(our_kafka_dir(ours.path(), "t1"), Ok(()));
        let other = tempfile::Builder::new().prefix("other-").tempdir().unwrap();
        std::fs::write(other.path().join(KAFKA_DIR_MARKER), "t1").unwrap();
        assert!(
            our_kafka_dir(other.path(), "t1").is_err(),
            "not rehearse-kafka-*"
        );
    }

    #[test]
    fn a_recycled_owner_pid_is_not_the_owner() {
        use super::super::common::{process_start, still_runs};
        let me = std::process::id();
        let start = process_start(me).expect("our own start time");
        assert!(still_runs(me, Some(start)));
        assert!(
            !still_runs(me, Some(start + 1)),
            "same pid, other start: recycled"
        );
        let p = parse_pid_file(&format!(
            "owner={me}\nowner_start={}\nstart=7\ntrial=t\nrole=kafka\n",
            start + 1
        ))
        .unwrap();
        assert_eq!(p.start, Some(7));
        assert!(!still_runs(p.owner, p.owner_start));
    }

    #[test]
    fn a_reused_pid_without_the_trial_marker_is_not_ours() {
        assert!(!runs_trial(std::process::id() as i32, "no-such-trial"));
    }
}
