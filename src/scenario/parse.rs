//! Reading a scenario file: [`Scenario::load`] parses the TOML into a
//! [`ScenarioFile`], then validates it one table at a time (`[checkpoint]`,
//! `[job]`, `targets`, `[[topics]]`, `[expect]`, `kafka_version`, the job's placeholders) and
//! resolves paths relative to the scenario file — before any container starts. The first
//! mistake found is the error, in that order; each names its key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::dependencies::Dependencies;
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
use crate::checkpoint::Inspection;
use crate::store::CheckpointLocation;
use crate::userfile;
use crate::verdict::Verdict;
use crate::versions::{KafkaVersion, SparkVersion};

/// A Spark version as written (`3.5.3`, no pre-release suffix: [`SparkVersion::release`], the
/// rule in `src/versions.rs`): the syntax `min_spark` and merged reports take.
pub fn check_version(v: &str) -> Result<(), String> {
    SparkVersion::release(v).map(|_| ())
}

/// A Spark release rehearse can run, as targets, sources, `checkpoint.generate.spark` and
/// `--target` take it ([`SparkVersion::known_release`]: plainly written, its line and patch in
/// `src/versions/spark-lines.toml`). Checked at load so that no image build or PyPI download
/// starts for a version that does not exist.
pub fn check_release(v: &str) -> Result<(), String> {
    SparkVersion::known_release(v).map(|_| ())
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
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = userfile::read_text(path, "scenario", userfile::MAX_CONFIG_BYTES)?;
        Scenario::parse(&text, path)
    }

    /// Validates scenario text; `path` resolves relative paths and names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
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
        check_targets(&file.targets).map_err(invalid)?;
        check_timeout(
            file.timeout_seconds,
            &format!("the default of {DEFAULT_TIMEOUT_SECONDS}"),
        )
        .map_err(invalid)?;
        let topics = topics(&file.topics, &dir).map_err(invalid)?;
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
                eprintln!(
                    "warning: {}: [job.per_target.{:?}] matches none of the targets ({}): it applies to no trial",
                    path.display(),
                    o.key,
                    file.targets.join(", ")
                );
            }
        }
        for what in checkpoint_unnamed(&file.job) {
            // A warning, not a refusal: a job may find its checkpoint another way (its own
            // conf file, an environment variable), but most that lack it are a slip.
            eprintln!(
                "warning: {}: {what} never names {{checkpoint}}: unless the job finds the sandbox copy another way, the restart starts a new query on a new checkpoint and the trial can only end started-fresh, at the timeout (pass it, e.g. args = [\"--checkpoint\", \"{{checkpoint}}\"])",
                path.display()
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
            targets: file.targets.clone(),
            timeout_seconds: file.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS),
            expect,
            kafka_version: file
                .kafka_version
                .clone()
                .unwrap_or_else(|| DEFAULT_KAFKA_VERSION.to_string()),
            rebase_threshold: file.rebase_threshold.unwrap_or(DEFAULT_REBASE_THRESHOLD),
            deny_warnings: file.deny_warnings,
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
            CheckpointSource::Generate { spark, .. } => Some(spark.as_str()),
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
            check_release(&g.spark).map_err(|m| format!("checkpoint.generate.spark: {m}"))?;
            if g.batches == 0 {
                return Err("checkpoint.generate.batches must be at least 1".into());
            }
            if g.records_per_batch == Some(0) {
                return Err("checkpoint.generate.records_per_batch = 0 would commit batches with no data: give at least 1 (default 5), or leave it out".into());
            }
            Ok(CheckpointSource::Generate {
                spark: g.spark.clone(),
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
    let Some(text) = p.to_str().filter(|t| t.contains("://")) else {
        return Ok(CheckpointSource::Path(dir.resolve(p)));
    };
    match CheckpointLocation::parse(text) {
        Ok(CheckpointLocation::Local { path }) => Ok(CheckpointSource::Path(path)),
        Ok(location) => Ok(CheckpointSource::Remote(location)),
        Err(e) => Err(format!("checkpoint.path: {e}")),
    }
}

/// `[job]`: a PySpark `file` (`.py`), or a `jar` (`.jar`) with its `main_class`; the file must
/// be a regular file (spark-submit decides by the extension how to run it).
fn job(spec: &JobSpec, dir: &Relative) -> Result<Job, String> {
    let job = match (&spec.file, &spec.jar, &spec.main_class) {
        (Some(f), None, None) => Job::Python {
            file: dir.resolve(f),
        },
        (None, Some(j), Some(m)) => Job::Jar {
            jar: dir.resolve(j),
            main_class: m.clone(),
        },
        (None, Some(_), None) => return Err("[job] jar needs `main_class`".into()),
        _ => return Err("[job] needs either `file` (PySpark) or `jar` with `main_class`".into()),
    };
    let job_path = match &job {
        Job::Python { file } => file,
        Job::Jar { jar, .. } => jar,
    };
    let (key, ext, other) = match &job {
        Job::Python { .. } => ("file", "py", "a jar goes in `jar` with `main_class`"),
        Job::Jar { .. } => ("jar", "jar", "a PySpark file goes in `file`"),
    };
    if job_path.extension().and_then(|e| e.to_str()) != Some(ext) {
        return Err(format!(
            "[job] {key} = {}: spark-submit runs a .{ext} file here and decides by the extension; rename the file to end in .{ext} ({other})",
            job_path.display()
        ));
    }
    placeholders::check_versions(&job_path.to_string_lossy(), &format!("[job] {key}"))?;
    Ok(job)
}

/// `[job.per_target."KEY"]`: each key a release or a pattern ([`TargetPattern`]), each entry's
/// keys consistent; paths resolved, their existence checked per target by
/// [`Scenario::check_artifacts`].
/// Which argument lists a restart would run without `{checkpoint}`: `[job] args` with
/// `restart_args` (appended on the restart), and each `[job.per_target]` entry that replaces
/// either. Empty when every restart names it.
fn checkpoint_unnamed(job: &JobSpec) -> Vec<String> {
    let names = |lists: &[&[String]]| {
        lists
            .iter()
            .any(|l| l.iter().any(|a| a.contains("{checkpoint}")))
    };
    let mut unnamed = Vec::new();
    if !names(&[&job.args, &job.restart_args]) {
        unnamed.push("[job] args (with restart_args)".to_string());
    }
    for (key, o) in &job.per_target {
        if o.args.is_none() && o.restart_args.is_none() {
            continue;
        }
        let args = o.args.as_deref().unwrap_or(&job.args);
        let restart = o.restart_args.as_deref().unwrap_or(&job.restart_args);
        if !names(&[args, restart]) {
            unnamed.push(format!("[job.per_target.{key:?}] args (with restart_args)"));
        }
    }
    unnamed
}

fn per_target(
    specs: &BTreeMap<String, JobOverrideSpec>,
    base: &Job,
    dir: &Relative,
) -> Result<Vec<JobOverride>, String> {
    let mut out = Vec::new();
    for (key, spec) in specs {
        // A jar entry over a PySpark base has no main class to inherit: the trial would start
        // Kafka and Spark and fail there.
        if matches!(base, Job::Python { .. })
            && spec.file.is_none()
            && spec.jar.is_some()
            && spec.main_class.is_none()
        {
            return Err(format!(
                "[job.per_target.{key:?}] jar needs main_class: the base [job] is a PySpark file, so there is no main class to inherit; add main_class = \"…\" to this entry"
            ));
        }
        let o = JobOverride {
            key: key.clone(),
            pattern: TargetPattern::parse(key)?,
            jar: spec.jar.as_deref().map(|p| dir.resolve(p)),
            file: spec.file.as_deref().map(|p| dir.resolve(p)),
            main_class: spec.main_class.clone(),
            args: spec.args.clone(),
            restart_args: spec.restart_args.clone(),
        };
        check_entry(&o)?;
        out.push(o);
    }
    Ok(out)
}

/// `[job]` `packages`, `jars`, `py_files` and `requirements`: coordinates well formed for every
/// Spark version the scenario runs (targets and the generating version), files regular with the
/// extension spark-submit expects, `requirements` only for a PySpark job.
fn dependencies(
    spec: &JobSpec,
    job: &Job,
    checkpoint: &CheckpointSource,
    targets: &[String],
    dir: &Relative,
) -> Result<Dependencies, String> {
    let mut versions: Vec<&str> = targets.iter().map(String::as_str).collect();
    if let CheckpointSource::Generate { spark, .. } = checkpoint {
        versions.push(spark);
    }
    super::dependencies::check_packages(&spec.packages, &versions)?;
    // Each path, `{spark}`/`{scala}` filled for every version, is a regular file with the
    // extension spark-submit expects, and no two share a file name (they share `deps/`).
    let files = |key: &str, paths: &[PathBuf], exts: &[&str]| -> Result<Vec<PathBuf>, String> {
        let what = format!("[job] {key}");
        let written: Vec<PathBuf> = paths.iter().map(|p| dir.resolve(p)).collect();
        for p in &written {
            super::placeholders::check_versions(&p.to_string_lossy(), &what)?;
        }
        for v in &versions {
            let filled = super::dependencies::fill_paths(&written, v);
            for (i, path) in filled.iter().enumerate() {
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                if !exts.contains(&ext) {
                    return Err(format!(
                        "{what}: {} does not end in {}: spark-submit passes only such files with --{}; name the file itself",
                        path.display(),
                        exts.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" or "),
                        key.replace('_', "-")
                    ));
                }
                let for_version = if filled[i] == written[i] {
                    String::new()
                } else {
                    format!(" (for Spark {v})")
                };
                userfile::check_regular(path, &format!("{what}{for_version}"), u64::MAX)
                    .map_err(|e| e.to_string())?;
                let name = super::dependencies::file_name(path);
                if filled[..i]
                    .iter()
                    .any(|o| super::dependencies::file_name(o) == name)
                {
                    return Err(format!(
                        "{what}: two files are named {name:?}: they would overwrite each other in the sandbox; rename one"
                    ));
                }
            }
        }
        Ok(written)
    };
    let jars = files("jars", &spec.jars, &["jar"])?;
    let py_files = files("py_files", &spec.py_files, &["py", "zip", "egg"])?;
    if !py_files.is_empty() && !matches!(job, Job::Python { .. }) {
        return Err("[job] py_files is for a PySpark job (`file`); a jar job's own dependencies go in `jars` or `packages`".into());
    }
    let requirements = match &spec.requirements {
        None => None,
        Some(_) if !matches!(job, Job::Python { .. }) => {
            return Err("[job] requirements is for a PySpark job (`file`): its packages are installed for the image's Python; a jar job's dependencies go in `jars` or `packages`".into())
        }
        Some(r) => {
            // `{spark}`/`{scala}` are filled per Spark version, as in `jars` and `py_files`;
            // each filled file is read and its lines checked.
            let path = dir.resolve(r);
            super::placeholders::check_versions(&path.to_string_lossy(), "[job] requirements")?;
            for v in &versions {
                let filled = super::dependencies::fill_paths(std::slice::from_ref(&path), v)
                    .pop()
                    .unwrap_or_else(|| path.clone());
                let what = if filled == path {
                    "[job] requirements".to_string()
                } else {
                    format!(
                        "[job] requirements ({} with {{spark}}/{{scala}} filled for Spark {v})",
                        path.display()
                    )
                };
                let bytes = userfile::read_bytes(&filled, &what, userfile::MAX_CONFIG_BYTES)
                    .map_err(|e| e.to_string())?;
                super::dependencies::check_requirements(&filled, &String::from_utf8_lossy(&bytes))?;
            }
            Some(path)
        }
    };
    Ok(Dependencies {
        packages: spec.packages.clone(),
        jars,
        py_files,
        requirements,
    })
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

/// `targets`: at least one, each a Spark release.
fn check_targets(targets: &[String]) -> Result<(), String> {
    if targets.is_empty() {
        return Err(
            "`targets` is empty: name at least one Spark version, e.g. targets = [\"4.0.1\"]"
                .into(),
        );
    }
    for (i, t) in targets.iter().enumerate() {
        check_release(t).map_err(|m| format!("targets: {m}"))?;
        if targets[..i].contains(t) {
            return Err(format!(
                "targets names {t:?} twice: each target is rehearsed once; remove the repeat"
            ));
        }
    }
    Ok(())
}

/// `[[topics]]`, in file order.
fn topics(specs: &[TopicSpec], dir: &Relative) -> Result<Vec<Topic>, String> {
    for (i, t) in specs.iter().enumerate() {
        if specs[..i].iter().any(|o| o.name == t.name) {
            return Err(format!(
                "[[topics]] names {:?} twice: give each topic one entry",
                t.name
            ));
        }
    }
    specs.iter().map(|t| topic(t, dir)).collect()
}

/// A valid Kafka topic name: letters, digits, `.`, `_`, `-` (Kafka's `Topic.validate`).
fn check_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.contains(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
    {
        return Err(format!(
            "topic name {name:?} is not a valid Kafka topic name"
        ));
    }
    Ok(())
}

/// One `[[topics]]` entry: a valid Kafka topic name and where its record values come from.
fn topic(t: &TopicSpec, dir: &Relative) -> Result<Topic, String> {
    check_topic_name(&t.name)?;
    if t.time_step_ms
        .is_some_and(|s| s > i64::MAX as u64 / 1_000_000_000)
    {
        return Err(format!(
            "topic {}: time_step_ms is too large
(hint: a step of seconds or minutes, e.g. 1000)",
            t.name
        ));
    }
    if t.partitions == Some(0) {
        return Err(format!(
            "topic {}: partitions = 0: a Kafka topic has at least 1 partition; give the count the job's topic has, or leave it out (default 2; a checkpoint's own count wins)",
            t.name
        ));
    }
    Ok(Topic {
        name: t.name.clone(),
        partitions: t.partitions.unwrap_or(2),
        records: records(t, dir)?,
        fresh_records: t.fresh_records.unwrap_or(DEFAULT_FRESH_RECORDS),
        fill_to_checkpoint: t.fill_to_checkpoint.unwrap_or(true),
        time_step_ms: t.time_step_ms.unwrap_or(DEFAULT_TIME_STEP_MS),
        kafka_timestamp: t.kafka_timestamp.unwrap_or(false),
    })
}

/// A topic's `template`, `sample_file` (read now, one value per non-empty line) or
/// `records_file` (read and checked whole now; `partition`s checked against `partitions` when
/// the scenario gives it); none gives a JSON template with `n` and `partition`.
fn records(t: &TopicSpec, dir: &Relative) -> Result<RecordSource, String> {
    let given = [
        t.template.is_some(),
        t.sample_file.is_some(),
        t.records_file.is_some(),
    ];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(format!(
            "topic {}: give one of `template`, `sample_file` or `records_file`, not several",
            t.name
        ));
    }
    if let Some(f) = &t.records_file {
        let f = dir.resolve(f);
        let file =
            RecordsFile::read(&f, t.partitions).map_err(|m| format!("topic {}: {m}", t.name))?;
        return Ok(RecordSource::File(std::sync::Arc::new(file)));
    }
    match (&t.template, &t.sample_file) {
        (Some(tpl), None) => Ok(RecordSource::Template(tpl.clone())),
        (None, Some(f)) => {
            let f = dir.resolve(f);
            let text = userfile::read_text(&f, "sample_file", userfile::MAX_SAMPLE_BYTES)
                .map_err(|e| format!("topic {}: {e}", t.name))?;
            let lines: Vec<String> = text
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            if lines.is_empty() {
                return Err(format!(
                    "topic {}: sample_file {} has no lines",
                    t.name,
                    f.display()
                ));
            }
            Ok(RecordSource::Samples(lines))
        }
        (None, None) => Ok(RecordSource::Template(
            "{\"n\":{n},\"partition\":{partition}}".into(),
        )),
        (Some(_), Some(_)) => Err(format!(
            "topic {}: give `template` or `sample_file`, not both",
            t.name
        )),
    }
}

/// `[[output_topics]]`, in file order: valid names, none twice, none also an input topic
/// (the job would read its own output, and seeding would fill it).
fn output_topics(specs: &[OutputTopicSpec], inputs: &[Topic]) -> Result<Vec<OutputTopic>, String> {
    let mut out: Vec<OutputTopic> = Vec::new();
    for t in specs {
        check_topic_name(&t.name).map_err(|m| format!("[[output_topics]]: {m}"))?;
        if out.iter().any(|o| o.name == t.name) {
            return Err(format!(
                "output topic {:?} is declared twice in [[output_topics]]\n(hint: keep one entry per topic)",
                t.name
            ));
        }
        if inputs.iter().any(|i| i.name == t.name) {
            return Err(format!(
                "topic {:?} is both in [[topics]] (read, seeded) and in [[output_topics]] (written, created empty)\n(hint: a job that reads its own output needs it under [[topics]] only; otherwise remove it there)",
                t.name
            ));
        }
        if t.partitions == Some(0) {
            return Err(format!(
                "output topic {:?}: partitions must be at least 1",
                t.name
            ));
        }
        let mut config = BTreeMap::new();
        for (key, value) in &t.config {
            if key.is_empty()
                || key.contains(|c: char| !(c.is_ascii_alphanumeric() || ".-_".contains(c)))
            {
                return Err(format!("output topic {:?}: config key {key:?} is not a Kafka topic config name (e.g. \"cleanup.policy\")", t.name));
            }
            let text = match value {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(format!(
                        "output topic {:?}: config {key:?} = {other} is not a string, integer or boolean",
                        t.name
                    ))
                }
            };
            config.insert(key.clone(), text);
        }
        out.push(OutputTopic {
            name: t.name.clone(),
            partitions: t.partitions.unwrap_or(1),
            config,
        });
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
        }
    }
    for (key, o) in &job.per_target {
        for arg in o.args.iter().chain(&o.restart_args).flatten() {
            placeholders::check(arg, &names)
                .map_err(|m| format!("[job.per_target.{key:?}] args: {m}"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{fill, Placeholders};

    fn write_job(dir: &Path) {
        std::fs::write(dir.join("job.py"), "print(1)").unwrap();
    }

    #[test]
    fn parses_a_generated_scenario_with_expectations() {
        let dir = tempfile::tempdir().unwrap();
        write_job(dir.path());
        let text = r#"
name = "demo"
targets = ["4.0.1", "3.3.4"]
[checkpoint.generate]
spark = "3.5.3"
batches = 3
[job]
file = "job.py"
args = ["--checkpoint", "{checkpoint}", "--topic", "{topic.events}"]
[[topics]]
name = "events"
partitions = 2
template = "u{n}"
[expect]
"4.0.1" = "resumed"
"#;
        let s = Scenario::parse(text, &dir.path().join("demo.toml")).unwrap();
        assert_eq!(s.name, "demo");
        assert_eq!(s.expect.get("4.0.1"), Some(&Verdict::Resumed));
        assert!(matches!(
            s.checkpoint,
            CheckpointSource::Generate { batches: 3, .. }
        ));
        let p = Placeholders {
            checkpoint: "/c".into(),
            bootstrap_servers: "k:9092".into(),
            output: "/o".into(),
        };
        assert_eq!(
            fill("{topic.events}-{checkpoint}", &p, &s.topics).unwrap(),
            "events-/c"
        );
        assert!(fill("{topic.nope}", &p, &s.topics).is_err());
        assert_eq!(s.topics[0].records.value(1, 7), "u7");
    }

    #[test]
    fn checkpoint_paths_may_be_urls_and_relative_paths_still_resolve() {
        let dir = tempfile::tempdir().unwrap();
        write_job(dir.path());
        std::fs::create_dir_all(dir.path().join("ckpt/offsets")).unwrap();
        let path = dir.path().join("s.toml");
        let load = |p: &str| {
            Scenario::parse(
                &format!(
                    "targets = [\"4.0.1\"]\n[checkpoint]\npath = \"{p}\"\n[job]\nfile = \"job.py\"\n"
                ),
                &path,
            )
            .map(|s| s.checkpoint)
        };
        assert_eq!(
            load("ckpt").unwrap(),
            CheckpointSource::Path(dir.path().join("ckpt"))
        );
        let abs = dir.path().join("ckpt");
        assert_eq!(
            load(&format!("file://{}", abs.display())).unwrap(),
            CheckpointSource::Path(abs)
        );
        assert_eq!(
            load("s3://prod-checkpoints/orders").unwrap(),
            CheckpointSource::Remote(CheckpointLocation::S3 {
                bucket: "prod-checkpoints".into(),
                prefix: "orders".into()
            })
        );
        assert!(matches!(
            load("hdfs://nn:8020/ckpt/orders").unwrap(),
            CheckpointSource::Remote(CheckpointLocation::Hdfs { .. })
        ));
        // A bad URL names the key and never echoes a query string (where SAS tokens hide).
        let err = load("s3://bkt/p?X-Amz-Signature=sekrit")
            .unwrap_err()
            .to_string();
        assert!(err.contains("checkpoint.path"), "{err}");
        assert!(!err.contains("sekrit"), "{err}");
        let err = load("ftp://host/ckpt").unwrap_err().to_string();
        assert!(err.contains("ftp://") && err.contains("s3://"), "{err}");
    }

    #[test]
    fn rejects_bad_scenarios_with_the_key_named() {
        let dir = tempfile::tempdir().unwrap();
        write_job(dir.path());
        std::fs::create_dir_all(dir.path().join("x/offsets")).unwrap();
        let path = dir.path().join("s.toml");
        let cases = [
            // Found by the breaker: these passed load and failed minutes later, or with exit 4.
            ("targets = [\"3.5\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "not a Spark version"),
            ("targets = [\"4.0.1\"]\nkafka_version = \"3.9;rm\"\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "kafka_version"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\nargs = [\"{topic.evnets}\"]\n", "evnets"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"nope\"\n[job]\nfile = \"job.py\"\n", "checkpoint.path"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"x\"\n", "rename the file to end in .py"),
            ("targets = []\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "targets"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\n[job]\nfile = \"job.py\"\n", "exactly one"),
            ("targets = [\"4.0.1\"]\nbogus = 1\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "bogus"),
            ("targets = [\"4.0;rm\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "not a Spark version"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"missing.py\"\n", "does not exist"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n[expect]\n\"4.0.1\" = \"fine\"\n", "not a verdict"),
        ];
        for (text, needle) in cases {
            let err = Scenario::parse(text, &path).unwrap_err().to_string();
            assert!(err.contains(needle), "{needle:?} not in {err:?}");
        }
    }

    const BASE: &str = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 2\n[job]\nfile = \"job.py\"\n";

    #[test]
    fn output_topics_are_placeholders_with_partitions_and_configs() {
        let dir = tempfile::tempdir().unwrap();
        write_job(dir.path());
        std::fs::write(
            dir.path().join("r.jsonl"),
            "{\"key\":\"k\",\"value_base64\":\"AAE=\",\"headers\":{\"h\":\"x\"},\"timestamp_ms\":1}\n",
        )
        .unwrap();
        let text = format!(
            "{BASE}args = [\"{{topic.in}}\", \"{{topic.out}}\"]\n[[topics]]\nname = \"in\"\nrecords_file = \"r.jsonl\"\ntime_step_ms = 250\nkafka_timestamp = true\n[[output_topics]]\nname = \"out\"\npartitions = 3\nconfig = {{ \"cleanup.policy\" = \"compact\", \"retention.ms\" = 60000 }}\n"
        );
        let s = Scenario::parse(&text, &dir.path().join("s.toml")).unwrap();
        assert_eq!(s.output_topics.len(), 1);
        let out = &s.output_topics[0];
        assert_eq!((out.name.as_str(), out.partitions), ("out", 3));
        assert_eq!(
            out.config.get("retention.ms").map(String::as_str),
            Some("60000")
        );
        assert_eq!(s.topic_names(), ["in", "out"]);
        assert_eq!(
            (s.topics[0].time_step_ms, s.topics[0].kafka_timestamp),
            (250, true)
        );
        let RecordSource::File(f) = &s.topics[0].records else {
            panic!("not a records file: {:?}", s.topics[0].records)
        };
        assert_eq!(f.records[0].value.as_deref(), Some(&[0u8, 1][..]));
        // Without [[output_topics]], {topic.out} is unknown.
        let text = format!("{BASE}args = [\"{{topic.out}}\"]\n");
        let err = Scenario::parse(&text, &dir.path().join("s.toml")).unwrap_err();
        assert!(err.to_string().contains("[[output_topics]]"), "{err}");
    }

    #[test]
    fn bad_output_topics_and_records_files_are_refused_at_load() {
        let dir = tempfile::tempdir().unwrap();
        write_job(dir.path());
        std::fs::write(
            dir.path().join("bad.jsonl"),
            "{\"value\":\"a\"}\n{\"value_base64\":\"%%\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("p.jsonl"),
            "{\"value\":\"a\",\"partition\":3}\n",
        )
        .unwrap();
        let path = dir.path().join("s.toml");
        let cases = [
            (
                "[[topics]]\nname = \"a\"\n[[output_topics]]\nname = \"a\"\n",
                "both in [[topics]]",
            ),
            (
                "[[output_topics]]\nname = \"o\"\n[[output_topics]]\nname = \"o\"\n",
                "declared twice",
            ),
            (
                "[[output_topics]]\nname = \"o/x\"\n",
                "not a valid Kafka topic name",
            ),
            (
                "[[output_topics]]\nname = \"o\"\npartitions = 0\n",
                "at least 1",
            ),
            (
                "[[output_topics]]\nname = \"o\"\nconfig = { \"a b\" = \"x\" }\n",
                "not a Kafka topic config name",
            ),
            (
                "[[output_topics]]\nname = \"o\"\nconfig = { \"x\" = [1] }\n",
                "not a string, integer or boolean",
            ),
            (
                "[[output_topics]]\nname = \"o\"\nfresh_records = 1\n",
                "fresh_records",
            ),
            (
                "[[topics]]\nname = \"a\"\nrecords_file = \"bad.jsonl\"\n",
                "bad.jsonl:2: `value_base64` is not valid base64",
            ),
            (
                "[[topics]]\nname = \"a\"\npartitions = 2\nrecords_file = \"p.jsonl\"\n",
                "p.jsonl:1: `partition` = 3 is out of range",
            ),
            (
                "[[topics]]\nname = \"a\"\nrecords_file = \"missing.jsonl\"\n",
                "missing.jsonl",
            ),
            (
                "[[topics]]\nname = \"a\"\nrecords_file = \"p.jsonl\"\ntemplate = \"x\"\n",
                "not several",
            ),
        ];
        for (tail, needle) in cases {
            let err = Scenario::parse(&format!("{BASE}{tail}"), &path).unwrap_err();
            assert!(
                matches!(
                    err,
                    ScenarioError::Invalid { .. } | ScenarioError::Parse { .. }
                ),
                "{err}"
            );
            assert!(err.to_string().contains(needle), "{needle:?} not in {err}");
        }
    }

    #[test]
    fn the_kafka_out_example_loads_with_its_records_file() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/kafka-out/orders.toml");
        let s = Scenario::load(&path).unwrap();
        assert_eq!(s.output_topics[0].name, "orders-enriched");
        let RecordSource::File(f) = &s.topics[0].records else {
            panic!("not a records file")
        };
        assert_eq!(f.records.len(), 48);
        assert!(f
            .records
            .iter()
            .all(|r| r.key.is_some() && r.timestamp_ms.is_some()));
    }
}

#[cfg(test)]
mod load_time_refusals {
    //! Issue 15: inputs that passed load and failed minutes later — after image builds, a PyPI
    //! download or containers — or were silently changed. Each is refused by `Scenario::parse`
    //! with the key and the fix.
    use super::*;

    /// A scenario directory: `job.py`, `job.jar`, `job.txt`, a checkpoint `ck/` (with
    /// `offsets/`), an empty directory `empty/`, a plain file `plain`.
    fn dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in ["job.py", "job.txt", "plain"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        std::fs::write(dir.path().join("job.jar"), "PK\x03\x04").unwrap();
        std::fs::create_dir_all(dir.path().join("ck/offsets")).unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        dir
    }

    /// A scenario with `extra` at top level, the checkpoint `ck`, `job.py` and topic `events`.
    fn scenario(extra: &str) -> String {
        format!(
            "targets = [\"4.0.1\"]\n{extra}\n[checkpoint]\npath = \"ck\"\n[job]\nfile = \"job.py\"\nargs = [\"{{topic.events}}\"]\n[[topics]]\nname = \"events\"\n"
        )
    }

    fn refused(text: &str, needles: &[&str]) {
        let dir = dir();
        let path = dir.path().join("s.toml");
        let err = match Scenario::parse(text, &path) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        };
        for n in needles {
            assert!(err.contains(n), "{n:?} not in {err:?} for\n{text}");
        }
        assert!(err.contains("s.toml"), "the file is not named: {err}");
    }

    #[test]
    fn placeholder_typos_in_any_job_argument_are_refused() {
        let s = scenario("").replace("{topic.events}", "{outptu}");
        refused(&s, &["[job] args", "{outptu}", "did you mean {output}"]);
        let s = scenario("").replace("args = [", "restart_args = [\"{checkpint}\"]\nargs = [");
        refused(&s, &["{checkpint}", "did you mean {checkpoint}"]);
        let s = scenario("").replace("{topic.events}", "{bootstrap_server}");
        refused(&s, &["did you mean {bootstrap_servers}"]);
    }

    /// Breaker pass: placeholders written almost right passed load and reached the job as
    /// literal text (`{{checkpoint}}` as `{/sandbox/checkpoint}`). Each names file, key, fix.
    #[test]
    fn placeholders_with_spaces_doubled_braces_or_no_close_are_refused() {
        for (bad, key, fix) in [
            (
                "{ checkpoint }",
                "[job] args",
                "write {checkpoint}, without spaces",
            ),
            ("{{checkpoint}}", "[job] args", "doubled braces"),
            (
                "{checkpoint",
                "[job] args",
                "never closes it: write {checkpoint}",
            ),
        ] {
            refused(&scenario("").replace("{topic.events}", bad), &[key, fix]);
            let s =
                scenario("").replace("args = [", &format!("restart_args = [\"{bad}\"]\nargs = ["));
            refused(&s, &["[job] restart_args", fix]);
        }
    }

    #[test]
    fn timeouts_of_zero_or_beyond_a_day_are_refused() {
        refused(
            &scenario("timeout_seconds = 0"),
            &["timeout_seconds = 0", "e.g. 300"],
        );
        refused(
            &scenario("timeout_seconds = 18446744073709551615"),
            &["timeout_seconds = 18446744073709551615", "limit of 86400"],
        );
        refused(&scenario("timeout_seconds = 86401"), &["limit"]);
        let dir = dir();
        Scenario::parse(
            &scenario("timeout_seconds = 86400"),
            &dir.path().join("s.toml"),
        )
        .unwrap();
    }

    #[test]
    fn a_checkpoint_path_that_holds_no_checkpoint_is_refused() {
        refused(
            &scenario("").replace("path = \"ck\"", "path = \"/\""),
            &[
                "checkpoint.path /",
                "holds no checkpoint",
                "checkpointLocation",
            ],
        );
        refused(
            &scenario("").replace("path = \"ck\"", "path = \"empty\""),
            &["empty directory"],
        );
        refused(
            &scenario("").replace("path = \"ck\"", "path = \"plain\""),
            &["not a directory"],
        );
    }

    #[test]
    fn versions_rehearse_cannot_run_are_refused() {
        for (v, needle) in [
            ("03.5.3", "write it 3.5.3"),
            ("4.9.9", "not a release rehearse knows"),
            ("9.9.9", "not a release rehearse knows"),
            ("2.4.8", "not supported"),
        ] {
            refused(
                &scenario("").replace("\"4.0.1\"", &format!("{v:?}")),
                &["targets", needle],
            );
        }
        refused(
            &scenario("").replace("\"4.0.1\"]", "\"4.0.1\", \"4.0.1\"]"),
            &["targets names \"4.0.1\" twice"],
        );
        let generate = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"9.9.9\"\nbatches = 1\n[job]\nfile = \"job.py\"\n";
        refused(generate, &["checkpoint.generate.spark", "9.9.9"]);
    }

    #[test]
    fn kafka_version_2_8_names_the_key_the_file_and_the_oldest_broker() {
        refused(
            &scenario("kafka_version = \"2.8.0\""),
            &["kafka_version", "Kafka 2.8.0", "3.x"],
        );
    }

    #[test]
    fn an_expectation_for_a_version_that_is_not_a_target_is_refused() {
        refused(
            &format!("{}[expect]\n\"3.5.3\" = \"resumed\"\n", scenario("")),
            &["expect.\"3.5.3\"", "not one of `targets`"],
        );
    }

    #[test]
    fn duplicate_topics_and_zero_counts_are_refused_not_rounded_up() {
        refused(
            &format!("{}[[topics]]\nname = \"events\"\n", scenario("")),
            &["\"events\" twice"],
        );
        refused(
            &scenario("").replace("name = \"events\"", "name = \"events\"\npartitions = 0"),
            &["partitions = 0"],
        );
        let generate = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\nrecords_per_batch = 0\n[job]\nfile = \"job.py\"\n";
        refused(generate, &["records_per_batch = 0"]);
    }

    #[test]
    fn a_restart_that_never_names_the_checkpoint_is_found() {
        let job = |text: &str| -> JobSpec {
            let file: ScenarioFile = toml::from_str(&format!(
                "targets = [\"4.0.1\"]\n[checkpoint]\npath = \"c\"\n{text}"
            ))
            .unwrap();
            file.job
        };
        let named = job("[job]\nfile = \"j.py\"\nargs = [\"--cp={checkpoint}\"]\n");
        assert!(checkpoint_unnamed(&named).is_empty());
        let in_restart = job("[job]\nfile = \"j.py\"\nrestart_args = [\"{checkpoint}\"]\n");
        assert!(checkpoint_unnamed(&in_restart).is_empty());
        let never = job("[job]\nfile = \"j.py\"\nargs = [\"--out\", \"{output}\"]\n");
        assert_eq!(
            checkpoint_unnamed(&never),
            ["[job] args (with restart_args)"]
        );
        // An entry replacing args without it; one that only changes the jar inherits the base.
        let entry = job("[job]\nfile = \"j.py\"\nargs = [\"{checkpoint}\"]\n\
             [job.per_target.\"4.*\"]\nargs = [\"--x\"]\n\
             [job.per_target.\"4.0.1\"]\nfile = \"k.py\"\n");
        assert_eq!(
            checkpoint_unnamed(&entry),
            ["[job.per_target.\"4.*\"] args (with restart_args)"]
        );
    }

    #[test]
    fn a_job_that_is_neither_py_nor_jar_is_refused() {
        refused(
            &scenario("").replace("job.py", "job.txt"),
            &["[job] file", "end in .py"],
        );
        refused(
            &scenario("").replace("file = \"job.py\"", "jar = \"job.py\"\nmain_class = \"A\""),
            &["[job] jar", "end in .jar"],
        );
        let dir = dir();
        let jar =
            scenario("").replace("file = \"job.py\"", "jar = \"job.jar\"\nmain_class = \"A\"");
        Scenario::parse(&jar, &dir.path().join("s.toml")).unwrap();
    }

    #[test]
    fn a_fifo_as_scenario_sample_file_or_job_is_refused_without_blocking() {
        let dir = dir();
        let fifo = dir.path().join("fifo.toml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Scenario::load(&fifo).unwrap_err().to_string();
        assert!(e.contains("FIFO") && e.contains("fifo.toml"), "{e}");
        let s = scenario("").replace(
            "name = \"events\"",
            "name = \"events\"\nsample_file = \"fifo.toml\"",
        );
        let e = Scenario::parse(&s, &dir.path().join("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sample_file") && e.contains("FIFO"), "{e}");
        let e = Scenario::load(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("character device"), "{e}");
    }

    #[test]
    fn a_topic_the_checkpoint_does_not_read_is_refused() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/checkpoints/3.5.3/kafka-agg");
        let inspection = crate::checkpoint::inspect(&fixture).unwrap();
        let dir = dir();
        let path = dir.path().join("s.toml");
        let s = Scenario::parse(&scenario(""), &path).unwrap();
        s.check_topics_named(&inspection).unwrap();
        let typo = scenario("").replace("events", "evnets");
        let e = Scenario::parse(&typo, &path)
            .unwrap()
            .check_topics_named(&inspection)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"evnets\"") && e.contains("names events") && e.contains("s.toml"),
            "{e}"
        );
        // A checkpoint that names no Kafka topic (a rate source) checks nothing.
        let rate = crate::checkpoint::inspect(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/checkpoints/3.5.3/rate-agg"),
        )
        .unwrap();
        Scenario::parse(&typo, &path)
            .unwrap()
            .check_topics_named(&rate)
            .unwrap();
    }

    #[test]
    fn a_checkpoint_holding_a_fifo_is_refused_for_a_rehearsal() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/checkpoints/3.5.3/kafka-agg");
        let copy = tempfile::tempdir().unwrap();
        for e in walkdir::WalkDir::new(&fixture) {
            let e = e.unwrap();
            let to = copy.path().join(e.path().strip_prefix(&fixture).unwrap());
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(e.path(), &to).unwrap();
            }
        }
        let dir = dir();
        let s = Scenario::parse(&scenario(""), &dir.path().join("s.toml")).unwrap();
        s.check_regular_files(&crate::checkpoint::inspect(copy.path()).unwrap())
            .unwrap();
        let fifo = copy.path().join("offsets/stray");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = s
            .check_regular_files(&crate::checkpoint::inspect(copy.path()).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("offsets/stray") && e.contains("FIFO"), "{e}");
    }

    #[test]
    fn a_utf16_scenario_gets_the_save_as_utf8_hint() {
        let dir = dir();
        let path = dir.path().join("s.toml");
        let bytes: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(scenario("").encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        std::fs::write(&path, bytes).unwrap();
        let e = Scenario::load(&path).unwrap_err().to_string();
        assert!(
            e.contains("UTF-16") && e.contains("save it as UTF-8"),
            "{e}"
        );
    }
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
