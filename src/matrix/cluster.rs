//! A suite's standalone clusters (`rehearse matrix --runtime standalone`, or a suite's
//! `[cluster]` table): one cluster per target Spark version (a cluster runs one Spark version),
//! started when that version's first cell runs and shared by every cell of that version, each
//! cell's driver submitting one executor of one core ([`crate::runtime::SharedCluster`]). A
//! version's cells run at most [`SharedCluster::slots`] at once (its workers' cores within their
//! memory); the cluster is removed after its last cell, and whatever is left at the end of the
//! suite. Every container carries the suite's labels, so Ctrl-C and `rehearse gc` sweep them.
//!
//! The cells' sandboxes are created under one directory every worker mounts at the same path:
//! `--report-dir`, or a directory of the suite under the system temp dir, removed at the end
//! (kept with `--keep`; marked like a sandbox, so `rehearse gc --sandboxes` removes it after a
//! killed run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{Mutex, OnceCell, OwnedSemaphorePermit, Semaphore};

use crate::runtime::{self, Cluster, RuntimeKind, SharedCluster, SuiteCluster, TrialIds};

/// The clusters of one suite run, by target Spark version.
pub(super) struct SuiteClusters {
    suite: TrialIds,
    shape: Cluster,
    sandboxes: PathBuf,
    /// The suite's own sandbox directory, when `--report-dir` was not given.
    temp: std::sync::Mutex<Option<tempfile::TempDir>>,
    versions: BTreeMap<String, Arc<VersionCluster>>,
}

/// One version's cluster: started once, its cells' slots, and the cells still to run on it.
struct VersionCluster {
    started: OnceCell<Result<&'static SharedCluster, String>>,
    cluster: Mutex<Option<SuiteCluster>>,
    slots: Arc<Semaphore>,
    remaining: AtomicUsize,
}

/// A cell's place on its version's cluster: the runtime its trial runs on, held until the cell
/// finished.
pub(super) struct Place {
    /// [`RuntimeKind::SharedStandalone`] of the version's cluster, or why it could not start.
    pub runtime: Result<RuntimeKind, String>,
    _slot: Option<OwnedSemaphorePermit>,
}

impl SuiteClusters {
    /// The clusters of a suite whose cells run `cells_per_version` (target version → cells),
    /// each of `shape`, on `suite`'s network; sandboxes under `report_dir`, or under a new
    /// directory in the system temp dir.
    pub fn new(
        suite: &TrialIds,
        shape: Cluster,
        report_dir: Option<&Path>,
        cells_per_version: BTreeMap<String, usize>,
    ) -> std::io::Result<SuiteClusters> {
        let (sandboxes, temp) = match report_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                (dir.canonicalize()?, None)
            }
            None => {
                let dir = tempfile::Builder::new()
                    .prefix(&format!("rehearse-suite-{}-", suite.trial))
                    .tempdir()?;
                // Names this process, so `rehearse gc --sandboxes` removes it after a SIGKILL.
                let _ = runtime::mark_sandbox(dir.path(), false);
                (dir.path().canonicalize()?, Some(dir))
            }
        };
        let slots = SharedCluster {
            master: String::new(),
            shape,
            sandboxes: sandboxes.clone(),
        }
        .slots();
        let versions = cells_per_version
            .into_iter()
            .map(|(v, n)| {
                let c = VersionCluster {
                    started: OnceCell::new(),
                    cluster: Mutex::new(None),
                    slots: Arc::new(Semaphore::new(slots)),
                    remaining: AtomicUsize::new(n),
                };
                (v, Arc::new(c))
            })
            .collect();
        Ok(SuiteClusters {
            suite: suite.clone(),
            shape,
            sandboxes,
            temp: std::sync::Mutex::new(temp),
            versions,
        })
    }

    /// Where the cells' sandboxes go (every worker mounts it at the same path).
    pub fn sandboxes(&self) -> &Path {
        &self.sandboxes
    }

    /// Waits for a slot on `version`'s cluster, starting the cluster on its first use.
    pub async fn place(&self, version: &str) -> Place {
        let Some(vc) = self.versions.get(version) else {
            // Every cell's version was counted in `new`: this is a harness bug, said as such.
            return Place {
                runtime: Err(format!(
                    "no standalone cluster was planned for Spark {version}"
                )),
                _slot: None,
            };
        };
        // The slots are never closed: an error cannot happen, and would only lift the bound.
        let slot = vc.slots.clone().acquire_owned().await.ok();
        let started = vc
            .started
            .get_or_init(|| async {
                let started =
                    runtime::start_suite_cluster(&self.suite, version, self.shape, &self.sandboxes)
                        .await;
                match started {
                    Ok(c) => {
                        let shared = c.shared;
                        *vc.cluster.lock().await = Some(c);
                        Ok(shared)
                    }
                    Err(e) => Err(format!(
                        "cannot start the suite's standalone cluster for Spark {version}: {e}"
                    )),
                }
            })
            .await;
        Place {
            runtime: started.clone().map(RuntimeKind::SharedStandalone),
            _slot: slot,
        }
    }

    /// A cell of `version` finished: the last one removes that version's cluster.
    pub async fn cell_done(&self, version: &str) {
        let Some(vc) = self.versions.get(version) else {
            return;
        };
        if vc.remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
            if let Some(c) = vc.cluster.lock().await.take() {
                let _ = c.remove().await;
            }
        }
    }

    /// Removes every cluster still running (cells that never ran, a failed group), and the
    /// suite's sandbox directory unless `keep`.
    pub async fn remove(&self, keep: bool) {
        for vc in self.versions.values() {
            if let Some(c) = vc.cluster.lock().await.take() {
                let _ = c.remove().await;
            }
        }
        let temp = self.temp.lock().map(|mut t| t.take()).unwrap_or_default();
        if let (Some(dir), true) = (temp, keep) {
            let _ = runtime::mark_sandbox(dir.path(), true);
            let _ = dir.keep();
        }
    }
}
