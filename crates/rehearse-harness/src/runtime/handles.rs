//! The runtime a trial uses, chosen by a value ([`RuntimeKind`]) carried in [`TrialIds`]: the
//! Kafka broker and the Spark driver of a trial behind one interface, whether they run in
//! containers (`docker`) or as host processes (`local`). Callers never branch on the runtime;
//! only where the job sees the sandbox differs ([`RuntimeKind::job_sandbox`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::mpsc;

use std::collections::BTreeMap;

use super::cluster::{self, StandaloneCluster};
use super::common::{Cluster, SharedCluster};
use super::common::{GcScope, LogLine, PartState, RuntimeError, RuntimeKind, TrialIds};
use super::containers::{self, DockerKafka, DockerSpark, DriverPlace};
use super::local::{self, LocalKafka, LocalSpark};

enum KafkaInner {
    Docker(Box<DockerKafka>),
    Local(Box<LocalKafka>),
}

/// A running Kafka broker of a trial (or of a suite): a container on the trial network, or a
/// host process on the local runtime. Remove it with [`KafkaBroker::remove`]; dropping it
/// removes it too (safety net).
pub struct KafkaBroker {
    inner: KafkaInner,
    /// Bootstrap servers for the host (rdkafka seeding): `127.0.0.1:<port>`.
    pub host_bootstrap: String,
    /// Bootstrap servers for the Spark job: `<container name>:9092` on the trial network
    /// (Docker), the same as `host_bootstrap` locally.
    pub internal_bootstrap: String,
}

impl KafkaBroker {
    /// The runtime it runs on.
    pub fn runtime(&self) -> RuntimeKind {
        match self.inner {
            // A standalone trial's broker is the Docker one (only Spark runs differently).
            KafkaInner::Docker(_) => RuntimeKind::Docker,
            KafkaInner::Local(_) => RuntimeKind::Local,
        }
    }

    /// Whether the broker still runs, or how it ended (a trial stops watching a restart whose
    /// broker died: it no longer tests the checkpoint).
    pub async fn state(&self) -> PartState {
        match &self.inner {
            KafkaInner::Docker(k) => k.state().await,
            KafkaInner::Local(k) => match k.exit_code() {
                None => PartState::Running,
                code => PartState::Exited {
                    code,
                    oom_killed: false,
                },
            },
        }
    }

    /// What to call it in evidence: the container name, or `local Kafka at <bootstrap>`.
    pub fn describe(&self) -> String {
        match &self.inner {
            KafkaInner::Docker(k) => format!("container {}", k.name()),
            KafkaInner::Local(_) => format!("local Kafka process at {}", self.host_bootstrap),
        }
    }

    /// Stops and removes the broker (container, or process group and its data directory).
    pub async fn remove(self) -> Result<(), RuntimeError> {
        match self.inner {
            KafkaInner::Docker(k) => k.remove().await,
            KafkaInner::Local(k) => {
                k.remove().await;
                Ok(())
            }
        }
    }
}

/// Starts Kafka `version` on `ids.runtime`: the image `rehearse/kafka:<version>` on the trial
/// network, or the broker installed under the cache (installed on first use) on free
/// 127.0.0.1 ports. Returns once it runs; the caller waits for a real metadata answer
/// (`kafka::wait_ready`).
pub async fn start_kafka(ids: &TrialIds, version: &str) -> Result<KafkaBroker, RuntimeError> {
    match ids.runtime {
        RuntimeKind::Docker
        | RuntimeKind::Standalone(_)
        | RuntimeKind::SharedStandalone(_)
        | RuntimeKind::Master(_) => {
            let advertised = match ids.runtime {
                RuntimeKind::Master(c) => Some(c.advertised_host.as_str()),
                _ => None,
            };
            let image = crate::images::KafkaImage::rehearse(version);
            let k = containers::start_kafka(ids, &image, advertised).await?;
            Ok(KafkaBroker {
                host_bootstrap: k.host_bootstrap.clone(),
                internal_bootstrap: k.internal_bootstrap.clone(),
                inner: KafkaInner::Docker(Box::new(k)),
            })
        }
        RuntimeKind::Local => {
            let k = local::start_kafka(ids, version).await?;
            Ok(KafkaBroker {
                host_bootstrap: k.bootstrap.clone(),
                internal_bootstrap: k.bootstrap.clone(),
                inner: KafkaInner::Local(Box::new(k)),
            })
        }
    }
}

enum SparkInner {
    Docker(Box<DockerSpark>),
    Local(Box<LocalSpark>),
    /// The driver container and the standalone cluster it submitted to.
    Cluster(Box<DockerSpark>, Box<StandaloneCluster>),
}

/// A running Spark driver (spark-submit) of a trial: a container with the sandbox mounted at
/// `/sandbox`, or a host process in the sandbox on the local runtime.
pub struct SparkDriver {
    inner: SparkInner,
    description: String,
}

impl SparkDriver {
    /// What runs it, for progress lines: the image tag, or `local Spark <v> (<SPARK_HOME>)`.
    pub fn describe(&self) -> &str {
        &self.description
    }

    /// Streams stdout and stderr line by line into a channel, in arrival order per stream.
    /// The channel closes when both streams end (the driver exited or was removed). Call it
    /// once: on the local runtime a second call gets a closed channel.
    pub fn lines(&self) -> mpsc::Receiver<LogLine> {
        match &self.inner {
            SparkInner::Docker(s) | SparkInner::Cluster(s, _) => s.lines(),
            SparkInner::Local(s) => s.lines(),
        }
    }

    /// The exit code once the driver has exited (killed by signal N: 128 + N), `None` while it
    /// runs.
    pub async fn exit_code(&self) -> Option<i64> {
        match &self.inner {
            SparkInner::Docker(s) | SparkInner::Cluster(s, _) => s.exit_code().await,
            SparkInner::Local(s) => s.exit_code(),
        }
    }

    /// Whether the driver still runs, or how it ended: its exit code and, on Docker, whether
    /// the kernel's OOM killer killed it under its memory cap (`State.OOMKilled`).
    pub async fn state(&self) -> PartState {
        match &self.inner {
            SparkInner::Docker(s) | SparkInner::Cluster(s, _) => s.state().await,
            SparkInner::Local(s) => match s.exit_code() {
                None => PartState::Running,
                code => PartState::Exited {
                    code,
                    oom_killed: false,
                },
            },
        }
    }

    /// Sends SIGTERM (then SIGKILL after `grace`) so Spark's shutdown hooks run. Locally the
    /// signals go to the driver's whole process group.
    pub async fn stop(&self, grace: Duration) -> Result<(), RuntimeError> {
        match &self.inner {
            SparkInner::Docker(s) | SparkInner::Cluster(s, _) => s.stop(grace).await,
            SparkInner::Local(s) => {
                s.stop(grace).await;
                Ok(())
            }
        }
    }

    /// Stops and removes the driver (container, or what is left of the process group), and
    /// its standalone cluster (workers, then master) if it has one.
    pub async fn remove(self) -> Result<(), RuntimeError> {
        match self.inner {
            SparkInner::Docker(s) => s.remove().await,
            SparkInner::Cluster(s, c) => {
                let driver = s.remove().await;
                let cluster = c.remove().await;
                driver.and(cluster)
            }
            SparkInner::Local(s) => {
                s.remove().await;
                Ok(())
            }
        }
    }
}

/// Starts Spark `version` on `ids.runtime` running `cmd` (a `spark-submit` argv whose paths
/// point into [`RuntimeKind::job_sandbox`]):
/// - Docker: the image `rehearse/spark:<version>` with `sandbox` bind-mounted at `/sandbox`,
///   running as the sandbox owner's uid:gid; `memory_mb` caps the container's memory (MiB).
/// - Standalone: first a master and the workers of the cluster (`cluster.rs`) on the trial
///   network, every worker with `sandbox` at `/sandbox`, then the driver as on Docker; `cmd`
///   must submit to [`spark_master`]'s URL with its conf.
/// - Local: the distribution under the cache (installed on first use; refused when the host's
///   Java or Python cannot run `version`), in `sandbox` as working directory; `memory_mb` is
///   not applied (no cgroup).
pub async fn start_spark(
    ids: &TrialIds,
    version: &str,
    sandbox: &Path,
    cmd: Vec<String>,
    memory_mb: Option<u64>,
) -> Result<SparkDriver, RuntimeError> {
    match ids.runtime {
        RuntimeKind::Docker => {
            let image = crate::images::SparkImage::rehearse(version);
            let s =
                containers::start_spark(ids, &image, sandbox, cmd, memory_mb, DriverPlace::Trial)
                    .await?;
            Ok(SparkDriver {
                inner: SparkInner::Docker(Box::new(s)),
                description: image.to_string(),
            })
        }
        RuntimeKind::Master(c) => {
            let image = crate::images::SparkImage::rehearse(version);
            let s = containers::start_spark(
                ids,
                &image,
                sandbox,
                cmd,
                memory_mb,
                DriverPlace::HostNetwork,
            )
            .await?;
            Ok(SparkDriver {
                inner: SparkInner::Docker(Box::new(s)),
                description: format!("{image}, client mode on {}", c.master),
            })
        }
        RuntimeKind::Standalone(shape) => {
            let image = crate::images::SparkImage::rehearse(version);
            let c = cluster::start_cluster(ids, &image, sandbox, &shape).await?;
            let s = match containers::start_spark(
                ids,
                &image,
                sandbox,
                cmd,
                memory_mb,
                DriverPlace::Trial,
            )
            .await
            {
                Ok(s) => s,
                Err(e) => {
                    let _ = c.remove().await;
                    return Err(e);
                }
            };
            Ok(SparkDriver {
                inner: SparkInner::Cluster(Box::new(s), Box::new(c)),
                description: format!(
                    "{image}, standalone cluster: 1 master, {} worker(s) of {} core(s) and {} MiB",
                    shape.workers, shape.cores, shape.memory_mb
                ),
            })
        }
        RuntimeKind::SharedStandalone(c) => {
            let image = crate::images::SparkImage::rehearse(version);
            let place = DriverPlace::TrialAtHostPath;
            let s = containers::start_spark(ids, &image, sandbox, cmd, memory_mb, place).await?;
            Ok(SparkDriver {
                inner: SparkInner::Docker(Box::new(s)),
                description: format!(
                    "{image}, client mode on the suite's standalone cluster {} (1 executor of 1 core and {} MiB)",
                    c.master,
                    c.executor_memory_mb()
                ),
            })
        }
        RuntimeKind::Local => {
            let s = local::start_spark(ids, version, sandbox, cmd).await?;
            Ok(SparkDriver {
                description: s.description.clone(),
                inner: SparkInner::Local(Box::new(s)),
            })
        }
    }
}

/// The `--master` a trial's spark-submit gives on `ids.runtime`, and the conf the harness adds
/// for it: `local[2]` and nothing on Docker and locally; the trial's standalone master and
/// [`cluster::cluster_conf`] on a standalone cluster; the user's master and the advertised
/// address as `spark.driver.host` on an existing cluster.
pub fn spark_master(ids: &TrialIds) -> (String, BTreeMap<String, String>) {
    match ids.runtime {
        RuntimeKind::Docker | RuntimeKind::Local => ("local[2]".into(), BTreeMap::new()),
        RuntimeKind::Standalone(shape) => {
            (cluster::master_url(ids), cluster::cluster_conf(ids, &shape))
        }
        RuntimeKind::SharedStandalone(c) => (c.master.clone(), cluster::shared_conf(ids, c)),
        RuntimeKind::Master(c) => (
            c.master.clone(),
            BTreeMap::from([
                ("spark.driver.host".to_string(), c.advertised_host.clone()),
                (
                    "spark.driver.bindAddress".to_string(),
                    "0.0.0.0".to_string(),
                ),
            ]),
        ),
    }
}

/// A standalone cluster in containers that a suite's cells of one Spark version share
/// (`rehearse matrix --runtime standalone`): [`SharedCluster`] is what a cell's trial needs to
/// submit to it ([`RuntimeKind::SharedStandalone`]). Remove it with
/// [`SuiteCluster::remove`]; dropping it removes the containers too (safety net).
pub struct SuiteCluster {
    cluster: StandaloneCluster,
    /// Its master, shape and the directory every worker mounts.
    pub shared: &'static SharedCluster,
}

impl SuiteCluster {
    /// Removes the workers, then the master.
    pub async fn remove(self) -> Result<(), RuntimeError> {
        self.cluster.remove().await
    }
}

/// Starts Spark `version`'s cluster of `shape` for the cells of a suite (`suite` names its
/// network and labels): one master and the workers from `rehearse/spark:<version>`, every
/// worker with `sandboxes` (where the cells' sandboxes are created) mounted at the same path.
/// Returns once every worker registered with the master.
pub async fn start_suite_cluster(
    suite: &TrialIds,
    version: &str,
    shape: Cluster,
    sandboxes: &Path,
) -> Result<SuiteCluster, RuntimeError> {
    let ids = TrialIds {
        trial: format!("{}-{}", suite.trial, version.replace(['.', '+'], "-")),
        ..suite.clone()
    };
    let shared = SharedCluster {
        master: cluster::master_url(&ids),
        shape,
        sandboxes: sandboxes.to_path_buf(),
    }
    .leak();
    let image = crate::images::SparkImage::rehearse(version);
    let cluster = cluster::start_shared(&ids, &image, shared).await?;
    Ok(SuiteCluster { cluster, shared })
}

/// Checks the host and installs what the local runtime needs for these Spark versions and this
/// Kafka version, before any trial starts (blocking; progress one line per step). Fails on the
/// first version the host's Java or Python cannot run, or on the first failed install.
pub fn prepare_local(
    spark_versions: &[String],
    kafka_version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), RuntimeError> {
    for v in spark_versions {
        local::check_host(v)?;
    }
    local::ensure_kafka(kafka_version, progress)?;
    for v in spark_versions {
        local::ensure_spark(v, progress)?;
    }
    Ok(())
}

/// Removes rehearse's leftovers in `scope`: local process groups (and their Kafka data), then
/// containers and empty `rehearse-*` networks. A host with no Docker engine at all (no socket)
/// has no containers to remove: that is not an error. Returns one line per leftover: what was
/// removed (`removed …`), or what was skipped and why (`skipped …`).
pub async fn gc(scope: GcScope) -> Result<Vec<String>, RuntimeError> {
    let mut removed = local::gc(scope == GcScope::ThisProcess);
    match containers::gc(scope).await {
        Ok(more) => removed.extend(more.into_iter().map(|m| format!("removed {m}"))),
        Err(e) => {
            // DOCKER_HOST unset: the default socket; a unix:// one: that socket; tcp: an engine.
            let socket = match std::env::var("DOCKER_HOST") {
                Ok(host) => host.strip_prefix("unix://").map(PathBuf::from),
                Err(_) => Some(PathBuf::from("/var/run/docker.sock")),
            };
            let no_engine = socket.is_some_and(|s| !s.exists());
            if !no_engine {
                return Err(e);
            }
        }
    }
    Ok(removed)
}
