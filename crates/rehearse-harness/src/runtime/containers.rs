//! Kafka and Spark containers of a trial (the `docker` runtime) and their log streams; with
//! `cluster.rs` (a standalone cluster's master and workers) the only files that name
//! testcontainers. What both runtimes share is in `common.rs`.

use std::path::Path;
use std::time::Duration;

use testcontainers::core::{ContainerPort, Mount};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, ImageExt};

use crate::images::{KafkaImage, SparkImage};
use tokio::sync::mpsc;

use super::common::{
    free_port, GcScope, LineReader, LogLine, PartState, RuntimeError, Stream, TrialIds,
};

/// Label on every container rehearse starts (value `true`).
pub const LABEL_MANAGED: &str = "org.rehearse.managed";
/// Label holding the trial id.
pub const LABEL_TRIAL: &str = "org.rehearse.trial";
/// Label holding the pid of the rehearse process that started the container.
pub const LABEL_PID: &str = "org.rehearse.pid";

/// Kafka container port for containers on the trial network (docker/README.md contract).
const KAFKA_INTERNAL_PORT: u16 = 9092;

/// The labels of every container of the trial `ids` (what `rehearse gc` matches).
pub(super) fn labels(ids: &TrialIds) -> [(String, String); 4] {
    [
        (LABEL_MANAGED.to_string(), "true".to_string()),
        (LABEL_PID.to_string(), std::process::id().to_string()),
        (LABEL_TRIAL.to_string(), ids.trial.clone()),
        ("org.rehearse.scenario".to_string(), ids.scenario.clone()),
    ]
}

pub(super) fn start_error(
    role: &'static str,
    image: &dyn std::fmt::Display,
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
    } else if message.contains("startup timeout") {
        // The engine answered and the container ran, but its readiness line never came: not
        // a dockerd problem (new-user pass, session 8: a 3.3.4 master logging on stdout).
        RuntimeError::NotReady {
            role,
            image: image.to_string(),
            message,
        }
    } else {
        RuntimeError::Start {
            role,
            image: image.to_string(),
            message,
        }
    }
}

/// `docker inspect` of container `id`: running, exited (code, `State.OOMKilled`), or why the
/// engine could not say (container gone, engine down).
async fn inspect_state(id: &str) -> PartState {
    let docker = match testcontainers::bollard::Docker::connect_with_local_defaults() {
        Ok(d) => d,
        Err(e) => return PartState::Unreachable(e.to_string()),
    };
    match docker
        .inspect_container(
            id,
            None::<testcontainers::bollard::query_parameters::InspectContainerOptions>,
        )
        .await
    {
        Ok(c) => {
            let state = c.state.unwrap_or_default();
            if state.running == Some(true) {
                PartState::Running
            } else {
                PartState::Exited {
                    code: state.exit_code,
                    oom_killed: state.oom_killed == Some(true),
                }
            }
        }
        Err(e) => PartState::Unreachable(e.to_string()),
    }
}

/// A running Kafka broker on the trial network.
pub(crate) struct DockerKafka {
    container: ContainerAsync<KafkaImage>,
    /// Bootstrap servers for the host (rdkafka seeding): `127.0.0.1:<port>`.
    pub host_bootstrap: String,
    /// Bootstrap servers for containers on the trial network: `<container name>:9092`.
    pub internal_bootstrap: String,
}

impl DockerKafka {
    /// Whether the container still runs, as `docker inspect` says.
    pub async fn state(&self) -> PartState {
        inspect_state(self.container.id()).await
    }

    /// The container's name.
    pub fn name(&self) -> String {
        self.internal_bootstrap
            .split(':')
            .next()
            .unwrap_or_default()
            .to_string()
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

/// Starts `image` (`rehearse/kafka:<v>`) on the trial network. Returns once the container
/// runs; the caller waits for a real metadata answer (`kafka::wait_ready`).
///
/// With `advertised` (an existing cluster's run, `--master`), the external listener (published
/// on every interface of the host) is advertised at `<advertised>:<port>` instead of
/// `127.0.0.1:<port>`, through `KAFKA_EXTRA_PROPERTIES` (a later `advertised.listeners` line
/// wins in Java's `Properties`; docker/kafka-start.sh appends it), and the job's bootstrap is
/// that address.
pub(crate) async fn start_kafka(
    ids: &TrialIds,
    image: &KafkaImage,
    advertised: Option<&str>,
) -> Result<DockerKafka, RuntimeError> {
    let port = free_port()?;
    let name = format!("rehearse-kafka-{}", ids.trial);
    let mut request = image
        .clone()
        .with_network(ids.network.clone())
        .with_container_name(&name)
        .with_labels(labels(ids))
        .with_env_var("KAFKA_INTERNAL_HOST", &name)
        .with_env_var("KAFKA_EXTERNAL_PORT", port.to_string());
    if let Some(host) = advertised {
        request = request.with_env_var(
            "KAFKA_EXTRA_PROPERTIES",
            format!(
                "advertised.listeners=INTERNAL://{name}:{KAFKA_INTERNAL_PORT},EXTERNAL://{host}:{port}"
            ),
        );
    }
    let container = request
        .with_mapped_port(port, ContainerPort::Tcp(port))
        .with_startup_timeout(Duration::from_secs(120))
        .start()
        .await
        .map_err(|e| start_error("kafka", image, e))?;
    Ok(DockerKafka {
        container,
        host_bootstrap: format!("127.0.0.1:{port}"),
        internal_bootstrap: match advertised {
            Some(host) => format!("{host}:{port}"),
            None => format!("{name}:{KAFKA_INTERNAL_PORT}"),
        },
    })
}

/// A running Spark driver (spark-submit) with the sandbox mounted at `/sandbox`.
pub(crate) struct DockerSpark {
    container: ContainerAsync<SparkImage>,
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
                let mut lines = LineReader::default();
                while let Some(text) = lines.next_line(&mut reader).await {
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

    /// Whether the container still runs, how it ended (exit code, `State.OOMKilled`).
    pub async fn state(&self) -> PartState {
        inspect_state(self.container.id()).await
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

/// Where a Spark driver container runs and sees its sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DriverPlace {
    /// On the trial's network, the sandbox at `/sandbox` (local[2], a trial's own cluster).
    Trial,
    /// On the host's network, the sandbox at its host path (an existing cluster, `--master`).
    HostNetwork,
    /// On the trial's (suite's) network, the sandbox at its host path (a suite's shared
    /// cluster, whose workers mount the suite's sandbox directory at the same path).
    TrialAtHostPath,
}

/// Starts `image` (`rehearse/spark:<v>`) running `cmd`, with `sandbox` bind-mounted at
/// `/sandbox` and the container running as the sandbox owner's uid:gid, so every file the job
/// writes stays removable by the user. `memory_mb` caps the container's memory (MiB; Docker
/// `--memory`), so parallel trials of a suite stay within the machine's budget.
///
/// `place` ([`DriverPlace`]): on an existing cluster (`--master`) the driver joins the host's
/// network (executors elsewhere connect back to it at the advertised address) and sees the
/// sandbox at its host path, where the cluster mounts it too; on a suite's shared cluster it
/// stays on the suite's network but sees the sandbox at its host path, as the workers do.
pub(crate) async fn start_spark(
    ids: &TrialIds,
    image: &SparkImage,
    sandbox: &Path,
    cmd: Vec<String>,
    memory_mb: Option<u64>,
    place: DriverPlace,
) -> Result<DockerSpark, RuntimeError> {
    let owner = sandbox_owner(sandbox);
    let host_path = sandbox.to_string_lossy().into_owned();
    let (network, mount_at) = match place {
        DriverPlace::Trial => (ids.network.clone(), crate::spark::SANDBOX_MOUNT.to_string()),
        DriverPlace::HostNetwork => ("host".to_string(), host_path),
        DriverPlace::TrialAtHostPath => (ids.network.clone(), host_path),
    };
    let container = image
        .clone()
        .with_network(network)
        .with_container_name(driver_name(ids))
        .with_labels(labels(ids))
        .with_mount(Mount::bind_mount(sandbox.to_string_lossy(), mount_at))
        .with_user(owner)
        .with_cmd(cmd)
        .with_host_config_modifier(move |host| {
            if let Some(mb) = memory_mb {
                host.memory = Some((mb * 1024 * 1024) as i64);
                // No swap on top: the cap is what the driver gets (Docker's default allows as
                // much swap again where the host has swap).
                host.memory_swap = host.memory;
            }
        })
        .with_startup_timeout(Duration::from_secs(60))
        .start()
        .await
        .map_err(|e| start_error("spark", image, e))?;
    Ok(DockerSpark { container })
}

/// The `uid:gid` owning `sandbox` (`0:0` when it cannot be read): the user the Spark
/// containers run as, so every file the job writes stays removable by the user.
pub(super) fn sandbox_owner(sandbox: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(sandbox)
        .map(|m| format!("{}:{}", m.uid(), m.gid()))
        .unwrap_or_else(|_| "0:0".into())
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

/// The driver's container name of trial `ids` (`start_spark` names it so; a standalone cluster's `spark.driver.host`).
pub fn driver_name(ids: &TrialIds) -> String {
    format!("rehearse-spark-{}", ids.trial)
}
