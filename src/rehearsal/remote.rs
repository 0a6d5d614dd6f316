//! A remote source checkpoint for `rehearse run` (`[checkpoint] path = "s3://…"`): inspected by
//! URL ([`crate::checkpoint::inspect_store`]), staged once into a local directory under the
//! sandboxes' parent (`--report-dir`, else the system temp dir) that every trial then copies
//! from as from a local source, and listed again at the end of the run to prove that it did not
//! change. Read-only: the store client has no write, delete, rename or tag operation.
//!
//! The copy goes through [`copy_checkpoint_for`] and the end check through [`verify_source`]
//! (the copy engine's signatures, issue 11 §2–3).

use std::path::{Path, PathBuf};

use super::{RehearsalError, RehearsalEvent, SourceCheckpoint};
use crate::report::RemoteSourceReport;
use crate::scenario::Scenario;
use crate::store::{CheckpointLocation, CheckpointStore, StoreEnv};
use crate::trial::TrialSettings;

use copy::{copy_checkpoint_for, verify_source, CopyOptions, CopySummary};

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

/// Inspects `location` by URL and stages it: the files a restart on the scenario's targets
/// reads (or everything, when that cannot be told), streamed into
/// `<parent>/rehearse-source-<name>-XXXX/checkpoint`.
///
/// # Errors
/// The store's errors (bad input or environment, with the URL and the fix), a location that is
/// no checkpoint, a staging directory that cannot be written.
pub(crate) async fn stage(
    location: &CheckpointLocation,
    scenario: &Scenario,
    settings: &TrialSettings,
    on_event: &mut (dyn FnMut(RehearsalEvent) + Send),
) -> Result<StagedSource, RehearsalError> {
    let url = location.to_string();
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
    let targets: Vec<crate::versions::SparkVersion> = scenario
        .targets
        .iter()
        .filter_map(|t| crate::versions::SparkVersion::parse(t).ok())
        .collect();
    let options = CopyOptions {
        full_copy: true,
        parallel: 0,
    };
    let copy = copy_checkpoint_for(&store, &inspection, &targets, &staged_at, &options).await?;
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
            files: self.copy.files,
            bytes: self.copy.bytes,
            source_files: self.copy.source_files,
            source_bytes: self.copy.source_bytes,
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

/// Until the copy engine of issue 11 §2–3 lands in `sandbox`: the same signatures, copying every
/// object (streamed, one at a time) and comparing listings at the end.
mod copy {
    use std::collections::BTreeMap;
    use std::path::{Component, Path};

    use futures::StreamExt;
    use tokio::io::AsyncWriteExt;

    use super::RehearsalError;
    use crate::checkpoint::Inspection;
    use crate::sandbox::SandboxError;
    use crate::store::{CheckpointStore, ObjectInfo};
    use crate::versions::SparkVersion;

    /// How a checkpoint is copied (the stub copies everything, one object at a time).
    #[derive(Debug, Clone, Default)]
    #[allow(dead_code)]
    pub struct CopyOptions {
        /// Copy every file.
        pub full_copy: bool,
        /// Files in flight (0: the default).
        pub parallel: usize,
    }

    /// What a copy did, and what the end check needs.
    #[derive(Debug, Clone, Default)]
    pub struct CopySummary {
        pub files: u64,
        pub bytes: u64,
        pub source_files: u64,
        pub source_bytes: u64,
        /// The source listing at copy time.
        pub listing: Vec<ObjectInfo>,
    }

    /// Streams every object of `source` into `dest`.
    pub async fn copy_checkpoint_for(
        source: &CheckpointStore,
        _inspection: &Inspection,
        _targets: &[SparkVersion],
        dest: &Path,
        _options: &CopyOptions,
    ) -> Result<CopySummary, RehearsalError> {
        let listing = source.list().await?;
        let mut summary = CopySummary {
            source_files: listing.len() as u64,
            source_bytes: listing.iter().map(|o| o.size).sum(),
            ..CopySummary::default()
        };
        let write = |path: &Path, e: std::io::Error| {
            RehearsalError::Trial(
                SandboxError::Write {
                    path: path.to_path_buf(),
                    source: e,
                }
                .into(),
            )
        };
        for object in &listing {
            // An object key is text from the server: it may never lead out of `dest`.
            let rel = Path::new(&object.path);
            if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                return Err(write(
                    &dest.join(rel),
                    std::io::Error::other("an object key with `..` or a root: not copied"),
                ));
            }
            let path = dest.join(rel);
            if let Some(parent) = path.parent() {
                tokio::fs::create_dir_all(parent)
                    .await
                    .map_err(|e| write(parent, e))?;
            }
            let mut file = tokio::fs::File::create(&path)
                .await
                .map_err(|e| write(&path, e))?;
            let mut stream = source.read(&object.path).await?;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk?;
                file.write_all(&chunk).await.map_err(|e| write(&path, e))?;
                summary.bytes += chunk.len() as u64;
            }
            file.flush().await.map_err(|e| write(&path, e))?;
            summary.files += 1;
        }
        summary.listing = listing;
        Ok(summary)
    }

    /// Lists `source` again and names what changed since `copied.listing`.
    pub async fn verify_source(
        source: &CheckpointStore,
        copied: &CopySummary,
    ) -> Result<Vec<String>, RehearsalError> {
        let now = match source.list().await {
            Ok(now) => now,
            Err(crate::store::StoreError::NothingThere { .. }) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        Ok(compare_listings(&copied.listing, &now))
    }

    /// Removed, changed (size, and each change marker both listings report; the modification
    /// time only where there is no ETag or MD5, as on HDFS), added.
    fn compare_listings(before: &[ObjectInfo], now: &[ObjectInfo]) -> Vec<String> {
        let now_by: BTreeMap<&str, &ObjectInfo> =
            now.iter().map(|f| (f.path.as_str(), f)).collect();
        let before_by: BTreeMap<&str, &ObjectInfo> =
            before.iter().map(|f| (f.path.as_str(), f)).collect();
        let differs =
            |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(a), Some(b)) if a != b);
        let mut changes = Vec::new();
        for (path, b) in &before_by {
            match now_by.get(path) {
                None => changes.push(format!("removed {path}")),
                Some(n) => {
                    let no_checksum = b.etag.is_none() && b.content_md5.is_none();
                    if b.size != n.size
                        || differs(&b.etag, &n.etag)
                        || differs(&b.version, &n.version)
                        || differs(&b.content_md5, &n.content_md5)
                        || (no_checksum && b.last_modified != n.last_modified)
                    {
                        changes.push(format!("changed {path}"));
                    }
                }
            }
        }
        for path in now_by.keys() {
            if !before_by.contains_key(path) {
                changes.push(format!("added {path}"));
            }
        }
        changes
    }
}
