//! A remote source checkpoint for `rehearse run` (`[checkpoint] path = "s3://…"`): inspected by
//! URL ([`crate::checkpoint::inspect_store`]), staged once into a local directory under the
//! sandboxes' parent (`--report-dir`, else the system temp dir) that every trial then copies
//! from as from a local source, and listed again at the end of the run to prove that it did not
//! change. Read-only: the store client has no write, delete, rename or tag operation.
//!
//! The copy goes through the sandbox's copy engine ([`copy_checkpoint_for`]: the restart's
//! working set, streamed and hashed) and the end check through [`verify_source`] (a second
//! listing: size and ETag, version id and MD5 where reported).

use std::path::{Path, PathBuf};

use super::{RehearsalError, RehearsalEvent, SourceCheckpoint};
use crate::report::{CopyReport, RemoteSourceReport};
use crate::scenario::Scenario;
use crate::store::{CheckpointLocation, CheckpointStore, StoreEnv};
use crate::trial::TrialSettings;

use crate::sandbox::{copy_checkpoint_for, verify_source, CopyOptions, CopySummary};

/// A remote source staged into a local directory, with what the end check needs.
#[derive(Debug)]
pub(crate) struct StagedSource {
    /// The staged copy (its `path`) and the inspection made by URL.
    pub source: SourceCheckpoint,
    store: CheckpointStore,
    copy: CopySummary,
    /// Removed on drop unless kept.
    dir: Option<tempfile::TempDir>,
    staged_at: PathBuf,
}

/// A remote source inspected by URL, not yet staged: what [`stage`] copies. Inspecting is
/// cheap (one listing, the small files read); staging copies the working set, so the scenario's
/// checks against the inspection and the job's dependencies come in between (cheapest first).
#[derive(Debug)]
pub(crate) struct InspectedSource {
    store: CheckpointStore,
    /// What inspecting it by URL found.
    pub inspection: crate::checkpoint::Inspection,
}

/// Inspects `location` by URL.
///
/// # Errors
/// The store's errors (bad input or environment, with the URL and the fix), a location that is
/// no checkpoint.
pub(crate) async fn inspect(
    location: &CheckpointLocation,
) -> Result<InspectedSource, RehearsalError> {
    let store = CheckpointStore::open(location.clone(), &StoreEnv::from_process()).await?;
    let inspection = match crate::checkpoint::inspect_store(&store).await {
        Ok(inspection) => inspection,
        Err(crate::checkpoint::CheckpointError::Store(e)) => return Err(e.into()),
        Err(e) => {
            return Err(RehearsalError::RemoteNotACheckpoint {
                message: e.to_string(),
                hint: e.hint(),
            })
        }
    };
    Ok(InspectedSource { store, inspection })
}

/// Stages an inspected remote source: the files a restart on the scenario's targets reads (or
/// everything, when that cannot be told), streamed into
/// `<parent>/rehearse-source-<name>-XXXX/checkpoint`.
///
/// # Errors
/// A staging directory that cannot be written, a copy that fails (the store's errors).
pub(crate) async fn stage(
    inspected: InspectedSource,
    scenario: &Scenario,
    settings: &TrialSettings,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<StagedSource, RehearsalError> {
    let InspectedSource { store, inspection } = inspected;
    let url = store.location().to_string();
    on_event(RehearsalEvent::RemoteSourceStaging { url: url.clone() });
    let parent = settings
        .report_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir);
    let write_error = |path: &Path, source: std::io::Error| {
        RehearsalError::Trial(
            crate::sandbox::SandboxError::Write {
                path: path.to_path_buf(),
                source,
            }
            .into(),
        )
    };
    std::fs::create_dir_all(&parent).map_err(|e| write_error(&parent, e))?;
    let dir = tempfile::Builder::new()
        .prefix(&format!("rehearse-source-{}-", sanitize(&scenario.name)))
        .tempdir_in(&parent)
        .map_err(|e| write_error(&parent, e))?;
    let staged_at = dir.path().join("checkpoint");
    std::fs::create_dir(&staged_at).map_err(|e| write_error(&staged_at, e))?;
    // Names this process, so `rehearse gc` can offer the staged copy if it is killed.
    let _ = crate::runtime::mark_sandbox(dir.path(), settings.keep);
    let targets = &scenario.targets;
    // Only what a restart on these targets reads (or everything, with the reason, when that
    // cannot be told for certain), streamed and hashed, several objects in flight.
    let options = CopyOptions {
        full_copy: settings.full_copy,
        parallel: 0,
    };
    let copy = copy_checkpoint_for(&store, &inspection, targets, &staged_at, &options)
        .await
        .map_err(|e| RehearsalError::Trial(e.into()))?;
    tracing::debug!(url = %url, staged = %staged_at.display(), files = copy.files, bytes = copy.bytes, "remote source staged");
    on_event(RehearsalEvent::RemoteSourceStaged {
        url,
        path: staged_at.clone(),
        files: copy.files,
        bytes: copy.bytes,
    });
    Ok(StagedSource {
        source: SourceCheckpoint {
            path: staged_at.clone(),
            generated_by: None,
            inspection,
        },
        store,
        copy,
        dir: Some(dir),
        staged_at,
    })
}

impl StagedSource {
    /// The URL it came from.
    pub(crate) fn url(&self) -> String {
        self.store.location().to_string()
    }

    /// Lists the source again and compares it with the listing taken when staging; removes the
    /// staged copy unless `keep`.
    pub(crate) async fn finish(mut self, keep: bool) -> RemoteSourceReport {
        let (unchanged, changes, verify_error) = match verify_source(&self.store, &self.copy).await
        {
            Ok(changes) => (Some(changes.is_empty()), changes, None),
            Err(e) => (None, Vec::new(), Some(e.to_string())),
        };
        tracing::debug!(url = %self.url(), ?unchanged, changes = changes.len(), "remote source listed again");
        if keep {
            if let Some(dir) = self.dir.take() {
                let _ = dir.keep();
            }
        }
        let compared = match self.store.location() {
            CheckpointLocation::Hdfs { .. } => {
                "size and modification time of every file (WebHDFS lists no checksum)"
            }
            _ => "size and ETag of every object, and version id and MD5 where the server reports them",
        };
        RemoteSourceReport {
            url: self.url(),
            staged_at: self.staged_at.clone(),
            staged: CopyReport::from(&self.copy),
            compared: compared.to_string(),
            unchanged,
            changes,
            verify_error,
        }
    }
}

/// `name` with anything but ASCII letters, digits, `-` and `_` replaced, for a directory name.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect()
}
