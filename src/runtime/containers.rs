//! Kafka and Spark containers of a trial (the `docker` runtime), their log streams, and the
//! names and errors both runtimes share.

use std::path::Path;
use std::time::Duration;

use testcontainers::core::{ContainerPort, Mount};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, GenericImage, ImageExt};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

/// Label on every container rehearse starts (value `true`).
pub const LABEL_MANAGED: &str = "org.rehearse.managed";
/// Label holding the trial id.
pub const LABEL_TRIAL: &str = "org.rehearse.trial";
/// Label holding the pid of the rehearse process that started the container.
pub const LABEL_PID: &str = "org.rehearse.pid";

/// Kafka container port for containers on the trial network (docker/README.md contract).
const KAFKA_INTERNAL_PORT: u16 = 9092;

/// Why a container could not be started or watched. One variant per Docker operation.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The image is not in the local store.
    #[error("image {image} is not in the local Docker store\n(hint: rehearse images build --spark <version> --kafka <version>)")]
    ImageMissing {
        /// The tag.
        image: String,
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

/// Names that tie a trial's containers together.
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
    pub runtime: super::RuntimeKind,
}

impl TrialIds {
    /// A new id for a trial of `scenario`.
    pub fn new(scenario: &str) -> TrialIds {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let id = format!("{:x}{:x}", std::process::id(), nanos & 0xffff_ffff);
        TrialIds {
            network: format!("rehearse-{id}"),
            trial: id,
            scenario: scenario.to_string(),
            runtime: super::RuntimeKind::default(),
        }
    }

    /// The same ids on `runtime`.
    #[must_use]
    pub fn with_runtime(self, runtime: super::RuntimeKind) -> TrialIds {
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

    fn labels(&self) -> [(String, String); 4] {
        [
            (LABEL_MANAGED.to_string(), "true".to_string()),
            (LABEL_PID.to_string(), std::process::id().to_string()),
            (LABEL_TRIAL.to_string(), self.trial.clone()),
            ("org.rehearse.scenario".to_string(), self.scenario.clone()),
        ]
    }
}

/// A free TCP port on 127.0.0.1 (bound, read, released).
pub fn free_port() -> Result<u16, RuntimeError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(RuntimeError::NoPort)?;
    let port = listener.local_addr().map_err(RuntimeError::NoPort)?.port();
    Ok(port)
}

fn split_tag(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (image, "latest"),
    }
}

fn start_error(
    role: &'static str,
    image: &str,
    e: testcontainers::TestcontainersError,
) -> RuntimeError {
    let message = e.to_string();
    if message.contains("No such image")
        || message.contains("failed to pull")
        || message.contains("pull access denied")
    {
        RuntimeError::ImageMissing {
            image: image.to_string(),
        }
    } else {
        RuntimeError::Start {
            role,
            image: image.to_string(),
            message,
        }
    }
}

/// A running Kafka broker on the trial network.
pub(crate) struct DockerKafka {
    container: ContainerAsync<GenericImage>,
    /// Bootstrap servers for the host (rdkafka seeding): `127.0.0.1:<port>`.
    pub host_bootstrap: String,
    /// Bootstrap servers for containers on the trial network: `<container name>:9092`.
    pub internal_bootstrap: String,
}

impl DockerKafka {
    /// Stops and removes the container.
    pub async fn remove(self) -> Result<(), RuntimeError> {
        let id = self.container.id().to_string();
        self.container.rm().await.map_err(|e| RuntimeError::Stop {
            id,
            message: e.to_string(),
        })
    }
}

/// Starts `image` (a `rehearse/kafka:<v>` tag) on the trial network. Returns once the container
/// runs; the caller waits for a real metadata answer (`kafka::wait_ready`).
pub(crate) async fn start_kafka(ids: &TrialIds, image: &str) -> Result<DockerKafka, RuntimeError> {
    let port = free_port()?;
    let name = format!("rehearse-kafka-{}", ids.trial);
    let (repo, tag) = split_tag(image);
    let container = GenericImage::new(repo, tag)
        .with_network(ids.network.clone())
        .with_container_name(&name)
        .with_labels(ids.labels())
        .with_env_var("KAFKA_INTERNAL_HOST", &name)
        .with_env_var("KAFKA_EXTERNAL_PORT", port.to_string())
        .with_mapped_port(port, ContainerPort::Tcp(port))
        .with_startup_timeout(Duration::from_secs(120))
        .start()
        .await
        .map_err(|e| start_error("kafka", image, e))?;
    Ok(DockerKafka {
        container,
        host_bootstrap: format!("127.0.0.1:{port}"),
        internal_bootstrap: format!("{name}:{KAFKA_INTERNAL_PORT}"),
    })
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

/// A running Spark driver (spark-submit) with the sandbox mounted at `/sandbox`.
pub(crate) struct DockerSpark {
    container: ContainerAsync<GenericImage>,
}

/// The next line of a driver stream without its line ending (`\n`, `\r\n`), invalid UTF-8
/// replaced; `None` at the end of the stream or on a read error. Shared by the container and
/// the host-process runtimes.
pub(super) async fn next_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
) -> Option<String> {
    buf.clear();
    match reader.read_until(b'\n', buf).await {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                buf.pop();
            }
            Some(String::from_utf8_lossy(buf).into_owned())
        }
    }
}

impl DockerSpark {
    /// Streams stdout and stderr line by line into a channel, in arrival order per stream.
    /// The channel closes when both streams end (the container exited or was removed).
    pub fn lines(&self) -> mpsc::Receiver<LogLine> {
        let (tx, rx) = mpsc::channel(4096);
        for (stream, reader) in [
            (Stream::Stdout, self.container.stdout(true)),
            (Stream::Stderr, self.container.stderr(true)),
        ] {
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut reader = reader;
                let mut buf = Vec::new();
                while let Some(text) = next_line(&mut reader, &mut buf).await {
                    if tx.send(LogLine { stream, text }).await.is_err() {
                        break;
                    }
                }
            });
        }
        rx
    }

    /// The exit code once the container has exited, `None` while it runs.
    pub async fn exit_code(&self) -> Option<i64> {
        match self.container.is_running().await {
            Ok(false) => self.container.exit_code().await.ok().flatten(),
            _ => None,
        }
    }

    /// Sends SIGTERM (then SIGKILL after `grace`) so Spark's shutdown hooks run.
    pub async fn stop(&self, grace: Duration) -> Result<(), RuntimeError> {
        self.container
            .stop_with_timeout(Some(grace.as_secs() as i32))
            .await
            .map_err(|e| RuntimeError::Stop {
                id: self.container.id().to_string(),
                message: e.to_string(),
            })
    }

    /// Stops and removes the container.
    pub async fn remove(self) -> Result<(), RuntimeError> {
        let id = self.container.id().to_string();
        self.container.rm().await.map_err(|e| RuntimeError::Stop {
            id,
            message: e.to_string(),
        })
    }
}

/// Starts `image` (a `rehearse/spark:<v>` tag) running `cmd`, with `sandbox` bind-mounted at
/// `/sandbox` and the container running as the sandbox owner's uid:gid, so every file the job
/// writes stays removable by the user. `memory_mb` caps the container's memory (MiB; Docker
/// `--memory`), so parallel trials of a suite stay within the machine's budget.
pub(crate) async fn start_spark(
    ids: &TrialIds,
    image: &str,
    sandbox: &Path,
    cmd: Vec<String>,
    memory_mb: Option<u64>,
) -> Result<DockerSpark, RuntimeError> {
    use std::os::unix::fs::MetadataExt;
    let (repo, tag) = split_tag(image);
    let owner = std::fs::metadata(sandbox)
        .map(|m| format!("{}:{}", m.uid(), m.gid()))
        .unwrap_or_else(|_| "0:0".into());
    let container = GenericImage::new(repo, tag)
        .with_network(ids.network.clone())
        .with_container_name(format!("rehearse-spark-{}", ids.trial))
        .with_labels(ids.labels())
        .with_mount(Mount::bind_mount(
            sandbox.to_string_lossy(),
            crate::spark::SANDBOX_MOUNT,
        ))
        .with_user(owner)
        .with_cmd(cmd)
        .with_host_config_modifier(move |host| {
            if let Some(mb) = memory_mb {
                host.memory = Some((mb * 1024 * 1024) as i64);
            }
        })
        .with_startup_timeout(Duration::from_secs(60))
        .start()
        .await
        .map_err(|e| start_error("spark", image, e))?;
    Ok(DockerSpark { container })
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

/// Removes rehearse containers in `scope`, then every network named `rehearse-*` with no
/// containers left. Returns what was removed.
pub(crate) async fn gc(scope: GcScope) -> Result<Vec<String>, RuntimeError> {
    use std::collections::HashMap;
    use testcontainers::bollard::query_parameters::{
        ListContainersOptionsBuilder, ListNetworksOptions, RemoveContainerOptionsBuilder,
    };
    let docker = testcontainers::bollard::Docker::connect_with_local_defaults()
        .map_err(|e| RuntimeError::Engine(e.to_string()))?;
    let mut removed = Vec::new();
    let filters: HashMap<String, Vec<String>> =
        HashMap::from([("label".to_string(), vec![format!("{LABEL_MANAGED}=true")])]);
    let list = docker
        .list_containers(Some(
            ListContainersOptionsBuilder::default()
                .all(true)
                .filters(&filters)
                .build(),
        ))
        .await
        .map_err(|e| RuntimeError::Engine(e.to_string()))?;
    let me = std::process::id().to_string();
    for c in list {
        let pid = c.labels.as_ref().and_then(|l| l.get(LABEL_PID)).cloned();
        let wanted = match scope {
            GcScope::ThisProcess => pid.as_deref() == Some(me.as_str()),
            GcScope::Orphans => {
                !pid.is_some_and(|p| p != me && Path::new("/proc").join(&p).exists())
            }
        };
        if let (true, Some(id)) = (wanted, c.id) {
            docker
                .remove_container(
                    &id,
                    Some(RemoveContainerOptionsBuilder::default().force(true).build()),
                )
                .await
                .map_err(|e| RuntimeError::Stop {
                    id: id.clone(),
                    message: e.to_string(),
                })?;
            removed.push(format!(
                "container {}",
                c.names.unwrap_or_default().join(",")
            ));
        }
    }
    let networks = docker
        .list_networks(None::<ListNetworksOptions>)
        .await
        .map_err(|e| RuntimeError::Engine(e.to_string()))?;
    for n in networks {
        if let Some(name) = n.name.filter(|n| n.starts_with("rehearse-")) {
            // Removing a network that still has containers fails: live trials keep theirs.
            if docker.remove_network(&name).await.is_ok() {
                removed.push(format!("network {name}"));
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_tags_split_at_the_last_colon() {
        assert_eq!(
            split_tag("rehearse/spark:3.5.3"),
            ("rehearse/spark", "3.5.3")
        );
        assert_eq!(
            split_tag("localhost:5000/spark"),
            ("localhost:5000/spark", "latest")
        );
    }

    #[tokio::test]
    async fn lines_lose_their_endings_and_the_last_needs_none() {
        let mut reader: &[u8] = b"one\r\ntwo\n\xff three";
        let mut buf = Vec::new();
        assert_eq!(
            next_line(&mut reader, &mut buf).await.as_deref(),
            Some("one")
        );
        assert_eq!(
            next_line(&mut reader, &mut buf).await.as_deref(),
            Some("two")
        );
        assert_eq!(
            next_line(&mut reader, &mut buf).await.as_deref(),
            Some("\u{fffd} three")
        );
        assert_eq!(next_line(&mut reader, &mut buf).await, None);
    }

    #[test]
    fn free_port_is_nonzero() {
        assert!(free_port().unwrap() > 0);
    }
}
