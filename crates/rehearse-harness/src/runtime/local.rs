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

use super::common::{free_port, run_dir, LineReader, LogLine, RuntimeError, Stream, TrialIds};
use rehearse_base::versions::{SparkLine, SparkVersion};

/// Environment variable set on every local process: the trial id. `gc` checks it in
/// `/proc/<pid>/environ` before killing, so a reused pid is never killed.
const TRIAL_ENV: &str = "REHEARSE_TRIAL";

/// How long a local broker may take to listen on its port.
const KAFKA_LISTEN_TIMEOUT: Duration = Duration::from_secs(120);

mod host;
pub use host::*;

// ---------------------------------------------------------------------------------------------
// Processes

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
        // kill(-pgid, signal) (rustix's safe wrapper): the group, never one process; signal 0
        // only checks it still has members.
        let sent = match (rustix::process::Pid::from_raw(self.pgid), signal) {
            (Some(group), 0) => rustix::process::test_kill_process_group(group).is_ok(),
            (Some(group), signal) => rustix::process::Signal::from_named_raw(signal)
                .is_some_and(|s| rustix::process::kill_process_group(group, s).is_ok()),
            (None, _) => false,
        };
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

/// A sandbox (or the directory sandboxes are made in) the local runtime can run a job in: no
/// whitespace in its path, which Spark's event-log URI and the driver's Java options cannot
/// carry. `rehearse run` checks the report directory before anything starts; a trial checks its
/// sandbox again when it starts Spark.
///
/// # Errors
/// [`RuntimeError::SandboxPath`] (bad input: the fix is another `--report-dir`).
pub fn check_sandbox_path(sandbox: &Path) -> Result<(), RuntimeError> {
    if sandbox.to_string_lossy().contains(char::is_whitespace) {
        return Err(RuntimeError::SandboxPath {
            path: sandbox.to_path_buf(),
        });
    }
    Ok(())
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
    check_sandbox_path(sandbox)?;
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
    let uid = rustix::process::getuid().as_raw();
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
    let uid = rustix::process::getuid().as_raw();
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
            // The group leader carries the trial's marker and recorded start time (checked
            // above): SIGKILL to the whole group.
            if let Some(group) = rustix::process::Pid::from_raw(pgid) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
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
mod tests;
