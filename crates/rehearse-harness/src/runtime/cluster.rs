//! A Spark standalone cluster of a trial (`--runtime standalone`): one master and N workers in
//! containers of the target's image `rehearse/spark:<v>` on the trial's network, the sandbox
//! mounted at `/sandbox` in every worker (executors read and write the checkpoint copy at the
//! path the driver gives them), each container labelled like the driver and the broker so the
//! Ctrl-C sweep and `rehearse gc` remove them. The driver itself is the ordinary Spark container
//! (`containers.rs`), submitting in client mode to [`master_url`] with [`cluster_conf`].
//!
//! Spark facts used (the same in 3.0–4.x):
//! - `org.apache.spark.deploy.master.Master --host H --port P` and
//!   `org.apache.spark.deploy.worker.Worker --host H --cores C --memory M --work-dir D URL`
//!   (`deploy/master/MasterArguments.scala`, `deploy/worker/WorkerArguments.scala`), started
//!   through `spark-class`, which sizes daemons by `SPARK_DAEMON_MEMORY`.
//! - The master logs `I have been elected leader! New state: ALIVE` (`Master.scala`) and a
//!   worker `Successfully registered with master` (`Worker.scala`): the readiness markers, on
//!   stderr through the default log4j profile of 3.5+ (also inside the JSON lines of 4.x), on
//!   stdout on 3.3.4 (new-user pass, session 8: a 3.3.4 master was never seen ready): waited
//!   for on either stream.
//! - Executors reach the driver at `spark.driver.host`; each worker's executor gets the
//!   worker's `--host` as its host, which the event log's `SparkListenerExecutorAdded` names.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use testcontainers::core::Mount;
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, ImageExt};

use super::common::{Cluster, RuntimeError, SharedCluster, TrialIds};
use super::containers::{driver_name, labels, sandbox_owner, start_error};
use crate::images::SparkImage;

/// The standalone master's RPC port on the trial network (Spark's default, 7077).
const MASTER_PORT: u16 = 7077;

/// Label naming a container's part in a cluster (`master`, `worker`), besides the trial labels.
pub const LABEL_ROLE: &str = "org.rehearse.role";

/// The master's container name of trial `ids`.
pub fn master_name(ids: &TrialIds) -> String {
    format!("rehearse-master-{}", ids.trial)
}

/// Worker `i`'s (1-based) container name of trial `ids`; also its Spark host, so the event log
/// names the executor's worker by it.
pub fn worker_name(ids: &TrialIds, i: u16) -> String {
    format!("rehearse-worker-{i}-{}", ids.trial)
}

/// The `--master` of a trial's spark-submit on its standalone cluster.
pub fn master_url(ids: &TrialIds) -> String {
    format!("spark://{}:{MASTER_PORT}", master_name(ids))
}

/// The conf a driver on the cluster needs (the harness's; it wins over the user's):
/// executors reach the driver by its container name; one executor per worker with all of its
/// cores and memory; the first batch waits until every worker's executor registered (at most
/// 120 s), so a restart is judged on the cluster it was asked for.
pub fn cluster_conf(ids: &TrialIds, cluster: &Cluster) -> BTreeMap<String, String> {
    let total = u32::from(cluster.workers) * u32::from(cluster.cores);
    BTreeMap::from([
        ("spark.driver.host".into(), driver_name(ids)),
        ("spark.driver.bindAddress".into(), "0.0.0.0".into()),
        ("spark.executor.cores".into(), cluster.cores.to_string()),
        (
            "spark.executor.memory".into(),
            format!("{}m", cluster.memory_mb),
        ),
        ("spark.cores.max".into(), total.to_string()),
        (
            "spark.scheduler.minRegisteredResourcesRatio".into(),
            "1.0".into(),
        ),
        (
            "spark.scheduler.maxRegisteredResourcesWaitingTime".into(),
            "120s".into(),
        ),
    ])
}

/// The conf a cell's driver on a suite's shared cluster needs (the harness's; it wins over the
/// user's): executors reach the driver by its container name; the cell gets one executor of
/// one core and [`SharedCluster::executor_memory_mb`] (`spark.cores.max = 1`), so cells of the
/// same version run side by side on the workers' cores; the first batch waits until that
/// executor registered (at most 120 s).
pub fn shared_conf(ids: &TrialIds, shared: &SharedCluster) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("spark.driver.host".into(), driver_name(ids)),
        ("spark.driver.bindAddress".into(), "0.0.0.0".into()),
        ("spark.executor.cores".into(), "1".into()),
        (
            "spark.executor.memory".into(),
            format!("{}m", shared.executor_memory_mb()),
        ),
        ("spark.cores.max".into(), "1".into()),
        (
            "spark.scheduler.minRegisteredResourcesRatio".into(),
            "1.0".into(),
        ),
        (
            "spark.scheduler.maxRegisteredResourcesWaitingTime".into(),
            "120s".into(),
        ),
    ])
}

/// A running standalone cluster: the master and its workers. Remove it with
/// [`StandaloneCluster::remove`]; dropping it removes the containers too (safety net).
pub(crate) struct StandaloneCluster {
    master: ContainerAsync<SparkImage>,
    workers: Vec<ContainerAsync<SparkImage>>,
}

impl StandaloneCluster {
    /// Removes the workers, then the master.
    pub async fn remove(self) -> Result<(), RuntimeError> {
        let mut first_error = None;
        for c in self.workers.into_iter().chain([self.master]) {
            let id = c.id().to_string();
            if let Err(e) = c.rm().await {
                first_error.get_or_insert(RuntimeError::Stop {
                    id,
                    message: e.to_string(),
                });
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Starts the master of `image`, then `cluster.workers` workers (at once), on `ids.network`;
/// returns once every worker registered with the master. Workers run as the sandbox owner's
/// uid:gid with `sandbox` at `/sandbox`, so the state files their executors write stay the
/// user's; each is capped at [`Cluster::container_memory_mb`].
pub(crate) async fn start_cluster(
    ids: &TrialIds,
    image: &SparkImage,
    sandbox: &Path,
    cluster: &Cluster,
) -> Result<StandaloneCluster, RuntimeError> {
    let cap = cluster.container_memory_mb();
    start(
        ids,
        image,
        (sandbox, crate::spark::SANDBOX_MOUNT),
        cluster,
        cap,
    )
    .await
}

/// Starts the cluster a suite's cells of one Spark version share (`rehearse matrix --runtime
/// standalone`) on `ids.network`, as [`start_cluster`] does, with `shared.sandboxes` mounted
/// at the same path in every worker (each cell's sandbox is created under it, and its driver
/// mounts the sandbox at its host path) and each worker capped at
/// [`SharedCluster::worker_container_mb`]. Its master is [`master_url`] of `ids`, which
/// `shared.master` must name.
pub(crate) async fn start_shared(
    ids: &TrialIds,
    image: &SparkImage,
    shared: &SharedCluster,
) -> Result<StandaloneCluster, RuntimeError> {
    let at = shared.sandboxes.to_string_lossy().into_owned();
    let cap = shared.worker_container_mb();
    start(ids, image, (&shared.sandboxes, &at), &shared.shape, cap).await
}

async fn start(
    ids: &TrialIds,
    image: &SparkImage,
    (sandbox, mount_at): (&Path, &str),
    cluster: &Cluster,
    cap_mb: u64,
) -> Result<StandaloneCluster, RuntimeError> {
    let master = image
        .ready_when("I have been elected leader")
        .with_network(ids.network.clone())
        .with_container_name(master_name(ids))
        .with_labels(labels(ids))
        .with_label(LABEL_ROLE, "master")
        .with_env_var("SPARK_DAEMON_MEMORY", "256m")
        .with_cmd([
            "spark-class".to_string(),
            "org.apache.spark.deploy.master.Master".into(),
            "--host".into(),
            master_name(ids),
            "--port".into(),
            MASTER_PORT.to_string(),
            "--webui-port".into(),
            "8080".into(),
        ])
        .with_host_config_modifier(|host| host.memory = Some(512 * 1024 * 1024))
        .with_startup_timeout(Duration::from_secs(120))
        .start()
        .await
        .map_err(|e| start_error("spark master", image, e))?;
    let owner = sandbox_owner(sandbox);
    let cap = (cap_mb * 1024 * 1024) as i64;
    let workers = (1..=cluster.workers).map(|i| {
        image
            .ready_when("Successfully registered with master")
            .with_network(ids.network.clone())
            .with_container_name(worker_name(ids, i))
            .with_labels(labels(ids))
            .with_label(LABEL_ROLE, "worker")
            .with_mount(Mount::bind_mount(sandbox.to_string_lossy(), mount_at))
            .with_user(owner.clone())
            .with_env_var("SPARK_DAEMON_MEMORY", "256m")
            .with_cmd([
                "spark-class".to_string(),
                "org.apache.spark.deploy.worker.Worker".into(),
                "--host".into(),
                worker_name(ids, i),
                "--cores".into(),
                cluster.cores.to_string(),
                "--memory".into(),
                format!("{}m", cluster.memory_mb),
                "--work-dir".into(),
                "/tmp/rehearse-work".into(),
                master_url(ids),
            ])
            .with_host_config_modifier(move |host| host.memory = Some(cap))
            .with_startup_timeout(Duration::from_secs(120))
            .start()
    });
    let mut started = Vec::new();
    let mut failed = None;
    for result in futures::future::join_all(workers).await {
        match result {
            Ok(c) => started.push(c),
            Err(e) => {
                failed.get_or_insert(start_error("spark worker", image, e));
            }
        }
    }
    let cluster = StandaloneCluster {
        master,
        workers: started,
    };
    match failed {
        Some(e) => {
            let _ = cluster.remove().await;
            Err(e)
        }
        None => Ok(cluster),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_reaches_the_master_by_name_and_executors_reach_the_driver() {
        let ids = TrialIds::new("s");
        let c = Cluster {
            workers: 2,
            cores: 1,
            memory_mb: 768,
        };
        assert_eq!(
            master_url(&ids),
            format!("spark://rehearse-master-{}:7077", ids.trial)
        );
        let conf = cluster_conf(&ids, &c);
        assert_eq!(conf["spark.driver.host"], driver_name(&ids));
        assert_eq!(conf["spark.cores.max"], "2");
        assert_eq!(conf["spark.executor.memory"], "768m");
        assert_eq!(c.container_memory_mb(), 768 + 1024);
        assert_ne!(worker_name(&ids, 1), worker_name(&ids, 2));
    }

    #[test]
    fn a_shared_cluster_runs_one_single_core_executor_per_cell_within_worker_memory() {
        let shared = |workers, cores, memory_mb| SharedCluster {
            master: "spark://m:7077".into(),
            shape: Cluster {
                workers,
                cores,
                memory_mb,
            },
            sandboxes: "/tmp/x".into(),
        };
        // The default shape: 1 worker × 2 cores × 1 GiB → 2 cells of 512 MiB.
        let one = shared(1, 2, 1024);
        assert_eq!(one.executor_memory_mb(), 512);
        assert_eq!(one.slots(), 2);
        assert_eq!(one.worker_container_mb(), 2 * (512 + 384) + 256);
        // Memory, not cores, bounds it: 4 cores but 1 GiB → 2 executors of 512 MiB.
        let tight = shared(2, 4, 1024);
        assert_eq!(tight.executor_memory_mb(), 512);
        assert_eq!(tight.slots_per_worker(), 2);
        assert_eq!(tight.slots(), 4);
        // Never under the one-cluster-per-trial cap.
        let big = shared(1, 1, 4096);
        assert_eq!(big.slots(), 1);
        assert_eq!(big.worker_container_mb(), 4096 + 1024);
        let ids = TrialIds::new("s");
        let conf = shared_conf(&ids, &one);
        assert_eq!(conf["spark.cores.max"], "1");
        assert_eq!(conf["spark.executor.memory"], "512m");
        assert_eq!(conf["spark.driver.host"], driver_name(&ids));
    }
}
