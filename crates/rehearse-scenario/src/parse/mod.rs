//! Reading a scenario file: [`Scenario::load`] parses the TOML into a
//! [`ScenarioFile`], then validates it one table at a time (`[checkpoint]`,
//! `[job]`, `targets`, `[[topics]]`, `[expect]`, `kafka_version`, the job's placeholders) and
//! resolves paths relative to the scenario file — before any container starts. The first
//! mistake found is the error, in that order; each names its key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::file::{
    CheckpointSpec, JobOverrideSpec, JobSpec, OutputTopicSpec, ScenarioFile, TopicSpec,
};
use super::job::{check_entry, JobOverride, TargetPattern};
use super::model::{
    CheckpointSource, Job, OutputTopic, RecordSource, Scenario, ScenarioError, Topic,
    DEFAULT_FRESH_RECORDS, DEFAULT_KAFKA_VERSION, DEFAULT_REBASE_THRESHOLD,
    DEFAULT_TIMEOUT_SECONDS, DEFAULT_TIME_STEP_MS,
};
use super::placeholders;
use super::records::RecordsFile;
use rehearse_base::userfile;
use rehearse_base::versions::{KafkaVersion, SparkVersion};
use rehearse_checkpoint::Inspection;
use rehearse_store::CheckpointLocation;
use rehearse_verdict::Verdict;

mod job_table;

/// A load warning as the line the binary prints on stderr: `warning: <scenario>: <what>`,
/// sanitized (masked, no terminal escapes: it quotes names from the job's directory and the
/// user's files). The library never prints: [`Scenario::load_with`] hands these back.
fn load_warning(warnings: &mut Vec<String>, path: &Path, what: &str) {
    let line = format!("warning: {}: {what}", path.display());
    warnings.push(rehearse_base::text::sanitize(&line).into_owned());
}

#[cfg(test)]
mod refusals;
#[cfg(test)]
mod tests;
mod topics;

use job_table::{checkpoint_unnamed, dependencies, job, per_target};
pub use topics::check_topic_name;
use topics::{output_topics, topics, unused_topic_keys};

/// A Spark version as written (`3.5.3`, no pre-release suffix: [`SparkVersion::release`], the
/// rule in `crates/rehearse-base/src/versions.rs`): the syntax `min_spark` and merged reports take.
pub fn check_version(v: &str) -> Result<(), String> {
    SparkVersion::release(v).map(|_| ())
}

/// A Spark release rehearse can run, as targets, sources, `checkpoint.generate.spark` and
/// `--target` take it ([`SparkVersion::known_release`]: plainly written, its line and patch in
/// `crates/rehearse-base/src/versions/spark-lines.toml`). Checked at load so that no image build or PyPI download
/// starts for a version that does not exist.
pub fn check_release(v: &str) -> Result<(), String> {
    SparkVersion::known_release(v).map(|_| ())
}

/// Longest scenario `name`: it labels containers (`org.rehearse.scenario`) and heads reports.
pub const MAX_NAME_CHARS: usize = 128;

/// A scenario's `name` (or `rehearse init --name`): not empty or blank, no control characters,
/// at most [`MAX_NAME_CHARS`]. An empty name passed `init` and headed every report with nothing
/// (breaker pass, issue 25 §6).
pub fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err(format!(
            "the scenario name {name:?} is empty\n(hint: give the name reports show, e.g. \"orders-upgrade\", or leave it out)"
        ));
    }
    if name.chars().any(char::is_control) || name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the scenario name {name:?} has control characters or is over {MAX_NAME_CHARS} characters\n(hint: give a short name reports show, e.g. \"orders-upgrade\")"
        ));
    }
    Ok(())
}

/// A Spark conf entry of `[job.conf]` or `--conf KEY=VALUE`, checked at load: rehearse runs the
/// driver itself in client mode — it reads the driver's log for the verdict and the sandbox
/// checkpoint from the driver's side — so `spark.submit.deployMode` other than `client` is
/// refused (with `cluster` the driver would run where rehearse cannot watch it, and the
/// restart be judged on spark-submit's own log; breaker pass, issue 25 §6). `spark.master` is
/// refused too: rehearse gives spark-submit `--master` itself (the runtime's `local[N]`, the
/// standalone cluster's URL, or `--master URL`), and spark-submit's flag wins over the conf
/// (SparkSubmitArguments: `master` before `sparkProperties("spark.master")`), so the setting
/// was dropped without a word (issue 25 §7).
pub fn check_conf(key: &str, value: &str) -> Result<(), String> {
    if key.trim().is_empty() {
        return Err(format!(
            "the Spark conf entry {key:?} = {value:?} has no key: give KEY=VALUE, e.g. spark.executor.instances=2"
        ));
    }
    if key.trim() == "spark.master" {
        return Err(format!(
            "spark.master = {}: rehearse sets the master of every restart itself (local[2] in its container or on this host, the standalone cluster's spark://…), so this setting would be ignored\n(hint: drop it; to run the restarts on your own cluster give --master URL (client mode), or --runtime standalone for a cluster in containers)",
            rehearse_base::text::quoted(value)
        ));
    }
    if key.trim() == "spark.submit.deployMode" && value.trim() != "client" {
        return Err(format!(
            "spark.submit.deployMode = {value:?}: rehearse runs the restarted driver in client mode (it reads the driver's log and the sandbox checkpoint), so only \"client\" is taken\n(hint: drop the setting; to run on your cluster use --master URL, which submits in client mode)"
        ));
    }
    Ok(())
}

/// Most seconds a trial may be given (`timeout_seconds`): one day. A restart that has not
/// resumed in a day will not, and a larger value (up to `u64::MAX`) would overflow the
/// trial's clock with containers running.
pub const MAX_TIMEOUT_SECONDS: u64 = 86_400;

/// `timeout_seconds` of a scenario or suite: 1 to [`MAX_TIMEOUT_SECONDS`]; `what` says what
/// leaving it out means.
pub fn check_timeout(seconds: Option<u64>, when_left_out: &str) -> Result<(), String> {
    match seconds {
        Some(0) => Err(format!(
            "`timeout_seconds = 0` would time out every trial at once: give the seconds per trial from submit to verdict (e.g. 300), or leave it out to use {when_left_out}"
        )),
        Some(s) if s > MAX_TIMEOUT_SECONDS => Err(format!(
            "`timeout_seconds = {s}` is over rehearse's limit of {MAX_TIMEOUT_SECONDS} (one day) per trial: give the seconds per trial from submit to verdict (e.g. 300), or leave it out to use {when_left_out}"
        )),
        _ => Ok(()),
    }
}

impl Scenario {
    /// Reads and validates a scenario file; its load warnings are dropped ([`Scenario::load_with`]
    /// keeps them for the user).
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::load_with(path, &mut Vec::new())
    }

    /// Reads and validates a scenario file, adding to `warnings` each load warning found (the
    /// line to print, `warning: <scenario>: <what>`), the ones found before an error too.
    pub fn load_with(path: &Path, warnings: &mut Vec<String>) -> Result<Scenario, ScenarioError> {
        let text = userfile::read_text(path, "scenario", userfile::MAX_CONFIG_BYTES)?;
        Scenario::parse_with(&text, path, warnings)
    }

    /// Validates scenario text; `path` resolves relative paths and names the file in errors.
    /// Load warnings are dropped ([`Scenario::parse_with`] keeps them).
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::parse_with(text, path, &mut Vec::new())
    }

    /// Validates scenario text, as [`Scenario::parse`], adding each load warning to `warnings`.
    pub fn parse_with(
        text: &str,
        path: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<Scenario, ScenarioError> {
        let file: ScenarioFile = toml::from_str(text).map_err(|e| ScenarioError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let invalid = |message: String| ScenarioError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let dir = Relative::to(path);
        let checkpoint = checkpoint(&file.checkpoint, &dir).map_err(invalid)?;
        let job = job(&file.job, &dir).map_err(invalid)?;
        check_checkpoint_dir(&checkpoint).map_err(invalid)?;
        let targets = check_targets(&file.targets).map_err(invalid)?;
        if let Some(name) = &file.name {
            check_name(name).map_err(|m| invalid(format!("`name`: {m}")))?;
        }
        for (key, value) in &file.job.conf {
            check_conf(key, value).map_err(|m| invalid(format!("[job.conf]: {m}")))?;
        }
        check_timeout(
            file.timeout_seconds,
            &format!("the default of {DEFAULT_TIMEOUT_SECONDS}"),
        )
        .map_err(invalid)?;
        let topics = topics(&file.topics, &dir).map_err(invalid)?;
        for warning in file.topics.iter().flat_map(unused_topic_keys) {
            // A warning, not a refusal: the key is harmless, but the user meant it to act.
            load_warning(warnings, path, &warning.to_string());
        }
        let output_topics = output_topics(&file.output_topics, &topics).map_err(invalid)?;
        let expect = expectations(&file.expect, &file.targets).map_err(invalid)?;
        if let Some(k) = &file.kafka_version {
            KafkaVersion::release(k).map_err(|m| invalid(format!("kafka_version: {m}")))?;
        }
        check_placeholders(&file.job, &checkpoint, &topics, &output_topics).map_err(invalid)?;
        let per_target = per_target(&file.job.per_target, &job, &dir).map_err(invalid)?;
        for o in &per_target {
            if !file.targets.iter().any(|t| o.pattern.matches(t)) {
                // A warning, not a refusal: `--target` narrows the targets of a shared file.
                load_warning(
                    warnings,
                    path,
                    &format!(
                        "[job.per_target.{:?}] matches none of the targets ({}): it applies to no trial",
                        o.key,
                        file.targets.join(", ")
                    ),
                );
            }
        }
        for what in checkpoint_unnamed(&file.job) {
            // A warning, not a refusal: a job may find its checkpoint another way (its own
            // conf file, an environment variable), but most that lack it are a slip.
            load_warning(
                warnings,
                path,
                &format!(
                    "{what} never names {{checkpoint}}: unless the job finds the sandbox copy another way, the restart starts a new query on a new checkpoint and the trial can only end started-fresh, at the timeout (pass it, e.g. args = [\"--checkpoint\", \"{{checkpoint}}\"])"
                ),
            );
        }
        let dependencies =
            dependencies(&file.job, &job, &checkpoint, &file.targets, &dir).map_err(invalid)?;
        let name = file.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario".into())
        });
        let scenario = Scenario {
            name,
            file: path.to_path_buf(),
            checkpoint,
            job,
            args: file.job.args.clone(),
            restart_args: file.job.restart_args.clone(),
            conf: file.job.conf.clone(),
            per_target,
            per_target_generates: false,
            dependencies,
            topics,
            output_topics,
            targets: targets.clone(),
            timeout_seconds: file.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS),
            expect,
            kafka_version: file
                .kafka_version
                .clone()
                .unwrap_or_else(|| DEFAULT_KAFKA_VERSION.to_string()),
            rebase_threshold: file.rebase_threshold.unwrap_or(DEFAULT_REBASE_THRESHOLD),
            deny_warnings: file.deny_warnings,
            parity: super::parity::parity_settings(&file, &targets).map_err(invalid)?,
            cluster: file
                .cluster
                .as_ref()
                .map(|c| cluster_shape(c).map_err(|m| invalid(format!("[cluster] {m}"))))
                .transpose()?,
            mirror: file
                .kafka
                .as_ref()
                .and_then(|k| k.mirror.as_ref())
                .map(|m| {
                    super::mirror_config(
                        &m.bootstrap_servers,
                        m.properties.as_deref(),
                        m.history,
                        m.fresh,
                        &dir.base,
                    )
                    .map_err(invalid)
                })
                .transpose()?,
        };
        let generate = match &scenario.checkpoint {
            CheckpointSource::Generate { spark, .. } => Some(spark),
            CheckpointSource::Path(_) | CheckpointSource::Remote(_) => None,
        };
        if generate.is_some() && scenario.mirror.is_some() {
            return Err(invalid(
                "[kafka.mirror] copies the records at a production checkpoint's offsets, but [checkpoint.generate] writes a checkpoint against the sandbox broker\n(hint: give the production checkpoint as [checkpoint] path, or drop [kafka.mirror])".into(),
            ));
        }
        scenario
            .check_artifacts(generate, &scenario.targets)
            .map_err(invalid)?;
        for warning in scenario
            .check_job_dirs(generate, &scenario.targets)
            .map_err(invalid)?
        {
            load_warning(warnings, path, &warning.to_string());
        }
        let mut scenario = scenario;
        scenario
            .check_fresh()
            .map_err(|m| invalid(format!("fresh: {m}")))?;
        Ok(scenario)
    }
}

impl Scenario {
    /// Checks `[[topics]]` against the source checkpoint: when its offset log names Kafka
    /// topics (`{"topic":{"partition":offset}}`, KafkaSourceOffset.scala), every scenario topic
    /// must be one of them — a misspelt topic would be created and seeded, and the job would
    /// read another. Called on a given checkpoint before any image is built; a generated one is
    /// written by the scenario's own job. A checkpoint that names no Kafka topic (a file or rate
    /// source, no batch yet) checks nothing.
    pub fn check_topics_named(&self, inspection: &Inspection) -> Result<(), ScenarioError> {
        let named: std::collections::BTreeSet<&str> = inspection
            .sources
            .iter()
            .filter_map(|s| s.kafka.as_ref())
            .flat_map(|k| k.keys().map(String::as_str))
            .collect();
        if named.is_empty() {
            return Ok(());
        }
        for t in &self.topics {
            if !named.contains(t.name.as_str()) {
                let list: Vec<&str> = named.iter().copied().collect();
                return Err(ScenarioError::Invalid {
                    path: self.file.clone(),
                    message: format!(
                        "[[topics]] names {:?}, which the checkpoint {} does not read: its offset log names {}; fix the topic name (it must be the topic the job subscribes to), or remove the entry",
                        t.name,
                        inspection.path.display(),
                        list.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Scenario {
    /// Refuses a given source checkpoint that holds FIFOs, sockets or devices (inspect's
    /// `not-a-regular-file` findings): the sandbox copy cannot hold them, so a trial would
    /// restart something other than the source. Called before any image is built.
    pub fn check_regular_files(&self, inspection: &Inspection) -> Result<(), ScenarioError> {
        let special: Vec<&str> = inspection
            .findings
            .iter()
            .filter(|f| f.code == "not-a-regular-file")
            .filter_map(|f| f.file.as_deref())
            .collect();
        if special.is_empty() {
            return Ok(());
        }
        Err(ScenarioError::Invalid {
            path: self.file.clone(),
            message: format!(
                "the checkpoint {} holds {} (a FIFO, socket or device): {}; a rehearsal restarts a copy, which cannot hold them, so it would not restart this checkpoint\n(hint: remove them, or replace them with the real files from a backup; `rehearse inspect` says what each one is)",
                inspection.path.display(),
                if special.len() == 1 {
                    "an entry that is not a regular file".to_string()
                } else {
                    format!("{} entries that are not regular files", special.len())
                },
                special.join(", ")
            ),
        })
    }
}

/// Resolves the paths a scenario names against the scenario file's directory.
struct Relative {
    base: PathBuf,
}

impl Relative {
    fn to(scenario: &Path) -> Relative {
        let base = scenario.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base
        };
        Relative { base }
    }

    fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        }
    }
}

/// `[checkpoint]`: exactly one of `path` or `generate` (whose Spark version and batch count are
/// checked here; the path's existence after the job's).
fn checkpoint(spec: &CheckpointSpec, dir: &Relative) -> Result<CheckpointSource, String> {
    match (&spec.path, &spec.generate) {
        (Some(p), None) => checkpoint_path(p, dir),
        (None, Some(g)) => {
            let spark = SparkVersion::known_release(&g.spark)
                .map_err(|m| format!("checkpoint.generate.spark: {m}"))?;
            if g.batches == 0 {
                return Err("checkpoint.generate.batches must be at least 1".into());
            }
            if g.records_per_batch == Some(0) {
                return Err("checkpoint.generate.records_per_batch = 0 would commit batches with no data: give at least 1 (default 5), or leave it out".into());
            }
            Ok(CheckpointSource::Generate {
                spark,
                batches: g.batches,
                records_per_batch: g.records_per_batch.unwrap_or(5),
                extra_args: g.extra_args.clone(),
            })
        }
        _ => Err("[checkpoint] needs exactly one of `path` or `generate`".into()),
    }
}

/// `checkpoint.path`: a URL with a known scheme is a remote location (`file://` a local one);
/// anything else is a local path, relative to the scenario file's directory.
fn checkpoint_path(p: &Path, dir: &Relative) -> Result<CheckpointSource, String> {
    let Some(text) = CheckpointLocation::url_arg(p) else {
        return Ok(CheckpointSource::Path(dir.resolve(p)));
    };
    match CheckpointLocation::parse(text) {
        Ok(CheckpointLocation::Local { path }) => Ok(CheckpointSource::Path(path)),
        Ok(location) => Ok(CheckpointSource::Remote(location)),
        Err(e) => Err(format!("checkpoint.path: {e}")),
    }
}

/// What a Structured Streaming checkpoint directory holds once its query ran: the query id
/// (`metadata`, StreamMetadata.scala), the offset and commit logs (`offsets/`, `commits/`,
/// MicroBatchExecution.scala), source metadata (`sources/`) and state (`state/`).
const CHECKPOINT_ENTRIES: &[&str] = &["metadata", "offsets", "commits", "sources", "state"];

/// `checkpoint.path` must be a directory that holds a checkpoint: at least one of
/// [`CHECKPOINT_ENTRIES`]. An empty directory, `/` or a parent of the checkpoint is refused
/// here, before any image is built.
fn check_checkpoint_dir(checkpoint: &CheckpointSource) -> Result<(), String> {
    let CheckpointSource::Path(p) = checkpoint else {
        return Ok(());
    };
    if !p.is_dir() {
        return Err(format!(
            "checkpoint.path {} is not a directory\n(hint: give the query's checkpointLocation, copied locally)",
            p.display()
        ));
    }
    if CHECKPOINT_ENTRIES
        .iter()
        .any(|e| std::fs::symlink_metadata(p.join(e)).is_ok())
    {
        return Ok(());
    }
    let empty = std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_none());
    Err(format!(
        "checkpoint.path {} {}: a Structured Streaming checkpoint holds offsets/, commits/ and metadata\n(hint: give the query's checkpointLocation itself — the directory with offsets/ in it — copied locally)",
        p.display(),
        if empty { "is an empty directory" } else { "holds no checkpoint (no offsets/, commits/, metadata, sources/ or state/)" }
    ))
}

/// `targets`: at least one, each a Spark release, none twice; parsed, in file order.
fn check_targets(targets: &[String]) -> Result<Vec<SparkVersion>, String> {
    if targets.is_empty() {
        return Err(
            "`targets` is empty: name at least one Spark version, e.g. targets = [\"4.0.1\"]"
                .into(),
        );
    }
    let mut out = Vec::with_capacity(targets.len());
    for (i, t) in targets.iter().enumerate() {
        out.push(SparkVersion::known_release(t).map_err(|m| format!("targets: {m}"))?);
        if targets[..i].contains(t) {
            return Err(format!(
                "targets names {t:?} twice: each target is rehearsed once; remove the repeat"
            ));
        }
    }
    Ok(out)
}

/// `[expect]`: each key one of `targets`, each value a verdict name.
fn expectations(
    expect: &BTreeMap<String, String>,
    targets: &[String],
) -> Result<BTreeMap<String, Verdict>, String> {
    let mut out = BTreeMap::new();
    for (target, name) in expect {
        if !targets.contains(target) {
            return Err(format!(
                "expect.\"{target}\": {target:?} is not one of `targets` ({}), so the expectation would never be checked; add it to `targets` or fix the version",
                targets.join(", ")
            ));
        }
        let v = Verdict::from_name(name).ok_or_else(|| {
            let names: Vec<_> = Verdict::ALL.iter().map(|v| v.name()).collect();
            format!(
                "expect.\"{target}\" = {name:?} is not a verdict; one of {}",
                names.join(", ")
            )
        })?;
        out.insert(target.clone(), v);
    }
    Ok(out)
}

/// Every placeholder in the job's `args`, `restart_args` and the generation's `extra_args`
/// must resolve now, before any container starts.
fn check_placeholders(
    job: &JobSpec,
    checkpoint: &CheckpointSource,
    topics: &[Topic],
    outputs: &[OutputTopic],
) -> Result<(), String> {
    let names: Vec<&str> = topics
        .iter()
        .map(|t| t.name.as_str())
        .chain(outputs.iter().map(|t| t.name.as_str()))
        .collect();
    let inputs: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    let generate_args = match checkpoint {
        CheckpointSource::Generate { extra_args, .. } => extra_args.as_slice(),
        CheckpointSource::Path(_) | CheckpointSource::Remote(_) => &[],
    };
    for (key, args) in [
        ("[job] args", job.args.as_slice()),
        ("[job] restart_args", job.restart_args.as_slice()),
        ("[checkpoint.generate] extra_args", generate_args),
    ] {
        for arg in args {
            placeholders::check(arg, &names).map_err(|m| format!("{key}: {m}"))?;
            placeholders::check_starting_offsets_topics(arg, &inputs)
                .map_err(|m| format!("{key}: {m}"))?;
        }
    }
    for (key, o) in &job.per_target {
        for arg in o.args.iter().chain(&o.restart_args).flatten() {
            placeholders::check(arg, &names)
                .map_err(|m| format!("[job.per_target.{key:?}] args: {m}"))?;
            placeholders::check_starting_offsets_topics(arg, &inputs)
                .map_err(|m| format!("[job.per_target.{key:?}] args: {m}"))?;
        }
    }
    Ok(())
}

/// The checked shape of a `[cluster]` table (a scenario's or a suite's): defaults filled,
/// workers 1..=16, cores 1..=64, memory at least 512 MiB. The message names the key.
pub fn cluster_shape(spec: &super::file::ClusterSpec) -> Result<super::ClusterShape, String> {
    use super::model::{MAX_WORKERS, MIN_WORKER_MEMORY_MB};
    let d = super::ClusterShape::default();
    let shape = super::ClusterShape {
        workers: spec.workers.unwrap_or(d.workers),
        cores: spec.cores.unwrap_or(d.cores),
        memory_mb: spec.memory_mb.unwrap_or(d.memory_mb),
    };
    if !(1..=MAX_WORKERS).contains(&shape.workers) {
        return Err(format!(
            "workers = {}: give 1 to {MAX_WORKERS} workers",
            shape.workers
        ));
    }
    if !(1..=64).contains(&shape.cores) {
        return Err(format!(
            "cores = {}: give 1 to 64 cores per worker",
            shape.cores
        ));
    }
    if shape.memory_mb < MIN_WORKER_MEMORY_MB {
        return Err(format!(
            "memory_mb = {}: give at least {MIN_WORKER_MEMORY_MB} MiB per worker (Spark refuses an executor with less)",
            shape.memory_mb
        ));
    }
    Ok(shape)
}
