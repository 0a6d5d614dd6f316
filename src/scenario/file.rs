//! Scenario files (TOML): the checkpoint, the job, Kafka topics, targets and expectations.
//!
//! Parsed in two passes, like nextest's config: [`ScenarioFile`] mirrors the TOML exactly
//! (`deny_unknown_fields`, no untagged or flattened types, so errors name the key), then
//! [`Scenario::load`] validates it and resolves paths relative to the scenario file — before any
//! container starts. The format is documented for users in `scenarios/README.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::verdict::Verdict;
use crate::versions::{KafkaVersion, SparkVersion};

/// Default seconds a trial may take from `spark-submit` to a verdict.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 300;
/// Default fresh records produced per partition after the checkpointed offsets.
pub const DEFAULT_FRESH_RECORDS: u64 = 10;
/// Above this many filler records in one partition, offsets are rebased in the sandbox copy
/// instead of produced.
pub const DEFAULT_REBASE_THRESHOLD: u64 = 2_000_000;
pub use crate::versions::DEFAULT_KAFKA_VERSION;

/// The TOML document, field for field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Scenario name for reports (default: the file stem).
    pub name: Option<String>,
    /// Where the source checkpoint comes from.
    pub checkpoint: CheckpointSpec,
    /// The streaming job to restart.
    pub job: JobSpec,
    /// Kafka topics the job reads.
    #[serde(default)]
    pub topics: Vec<TopicSpec>,
    /// Target Spark versions.
    pub targets: Vec<String>,
    /// Seconds per trial from submit to verdict.
    pub timeout_seconds: Option<u64>,
    /// Expected verdict per target version (regression suites): `"4.0.1" = "resumed"`.
    #[serde(default)]
    pub expect: BTreeMap<String, String>,
    /// Kafka broker version of the sandbox (default: [`DEFAULT_KAFKA_VERSION`]).
    pub kafka_version: Option<String>,
    /// Above this many filler records in one partition, rebase offsets in the sandbox copy
    /// instead of producing them (default [`DEFAULT_REBASE_THRESHOLD`]).
    pub rebase_threshold: Option<u64>,
}

/// `[checkpoint]`: exactly one of `path` or `generate`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSpec {
    /// An existing checkpoint directory (relative to the scenario file). Never written to.
    pub path: Option<PathBuf>,
    /// Write the source checkpoint with real Spark first.
    pub generate: Option<GenerateSpec>,
}

/// `[checkpoint.generate]`: run the job on `spark` until `batches` data batches committed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateSpec {
    /// Spark version that writes the checkpoint (the source version).
    pub spark: String,
    /// Number of micro-batches with data to commit.
    pub batches: u32,
    /// Records produced per partition for each batch (default 5).
    pub records_per_batch: Option<u64>,
    /// Extra job arguments used only while generating (appended to `job.args`).
    #[serde(default)]
    pub extra_args: Vec<String>,
}

/// `[job]`: a PySpark file, or a jar and main class.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    /// A PySpark file (relative to the scenario file).
    pub file: Option<PathBuf>,
    /// A jar (relative to the scenario file); needs `main_class`.
    pub jar: Option<PathBuf>,
    /// Main class of the jar.
    pub main_class: Option<String>,
    /// Arguments; `{checkpoint}`, `{bootstrap_servers}`, `{output}` and `{topic.NAME}` are filled
    /// by the harness.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra arguments used only on the restart (e.g. a changed query); appended to `args`.
    #[serde(default)]
    pub restart_args: Vec<String>,
    /// Spark conf passed as `--conf key=value`.
    #[serde(default)]
    pub conf: BTreeMap<String, String>,
}

/// `[[topics]]`: one Kafka topic.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    /// Topic name, as in the checkpoint's offset log.
    pub name: String,
    /// Partitions when the checkpoint names none for this topic (generation); otherwise the
    /// checkpoint's count wins.
    pub partitions: Option<u32>,
    /// Record value template: `{n}` record number in its partition, `{partition}`.
    pub template: Option<String>,
    /// A file of sample record values, one per line, used round-robin instead of `template`.
    pub sample_file: Option<PathBuf>,
    /// Fresh records per partition after the checkpointed offsets (new work for the restart).
    pub fresh_records: Option<u64>,
    /// Fill each partition up to the checkpoint's offsets (default true). `false` leaves Kafka
    /// short of them, as when retention deleted data the checkpoint points at.
    pub fill_to_checkpoint: Option<bool>,
}

/// Where the source checkpoint comes from, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointSource {
    /// An existing directory.
    Path(PathBuf),
    /// Generate with real Spark.
    Generate {
        /// Source Spark version.
        spark: String,
        /// Data batches to commit.
        batches: u32,
        /// Records per partition per batch.
        records_per_batch: u64,
        /// Extra args while generating.
        extra_args: Vec<String>,
    },
}

/// The job, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// A PySpark file.
    Python {
        /// Absolute path of the file.
        file: PathBuf,
    },
    /// A jar with its main class.
    Jar {
        /// Absolute path of the jar.
        jar: PathBuf,
        /// Main class.
        main_class: String,
    },
}

/// A topic, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// Name.
    pub name: String,
    /// Partitions for generation (default 2).
    pub partitions: u32,
    /// Record values.
    pub records: RecordSource,
    /// Fresh records per partition.
    pub fresh_records: u64,
    /// Whether to fill partitions up to the checkpoint's offsets.
    pub fill_to_checkpoint: bool,
}

/// Where record values come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordSource {
    /// A template with `{n}` and `{partition}`.
    Template(String),
    /// Sample values, used round-robin.
    Samples(Vec<String>),
}

impl RecordSource {
    /// The value of record `n` in `partition`.
    pub fn value(&self, partition: u32, n: u64) -> String {
        match self {
            RecordSource::Template(t) => t
                .replace("{n}", &n.to_string())
                .replace("{partition}", &partition.to_string()),
            RecordSource::Samples(s) => s[(n as usize) % s.len()].clone(),
        }
    }
}

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Name for reports.
    pub name: String,
    /// The scenario file.
    pub file: PathBuf,
    /// Source checkpoint.
    pub checkpoint: CheckpointSource,
    /// The job.
    pub job: Job,
    /// Job arguments (placeholders unfilled).
    pub args: Vec<String>,
    /// Restart-only arguments.
    pub restart_args: Vec<String>,
    /// Spark conf.
    pub conf: BTreeMap<String, String>,
    /// Topics.
    pub topics: Vec<Topic>,
    /// Target versions.
    pub targets: Vec<String>,
    /// Trial timeout in seconds.
    pub timeout_seconds: u64,
    /// Expected verdicts per target.
    pub expect: BTreeMap<String, Verdict>,
    /// Kafka broker version.
    pub kafka_version: String,
    /// Filler records per partition above which offsets are rebased.
    pub rebase_threshold: u64,
}

/// Why a scenario file was rejected. Messages name the file and the key.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown/mistyped keys.
    #[error(
        "scenario {path} is not valid: {message}\n(hint: see scenarios/README.md for the format)"
    )]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message, which names the key and line.
        message: String,
    },
    /// A value is wrong.
    #[error("scenario {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_path_buf(),
            source,
        })?;
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
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base
        };
        let resolve = |p: &Path| {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };

        let checkpoint = match (&file.checkpoint.path, &file.checkpoint.generate) {
            (Some(p), None) => CheckpointSource::Path(resolve(p)),
            (None, Some(g)) => {
                check_version(&g.spark)
                    .map_err(|m| invalid(format!("checkpoint.generate.spark: {m}")))?;
                if g.batches == 0 {
                    return Err(invalid(
                        "checkpoint.generate.batches must be at least 1".into(),
                    ));
                }
                CheckpointSource::Generate {
                    spark: g.spark.clone(),
                    batches: g.batches,
                    records_per_batch: g.records_per_batch.unwrap_or(5).max(1),
                    extra_args: g.extra_args.clone(),
                }
            }
            _ => {
                return Err(invalid(
                    "[checkpoint] needs exactly one of `path` or `generate`".into(),
                ))
            }
        };
        let job = match (&file.job.file, &file.job.jar, &file.job.main_class) {
            (Some(f), None, None) => Job::Python { file: resolve(f) },
            (None, Some(j), Some(m)) => Job::Jar {
                jar: resolve(j),
                main_class: m.clone(),
            },
            (None, Some(_), None) => return Err(invalid("[job] jar needs `main_class`".into())),
            _ => {
                return Err(invalid(
                    "[job] needs either `file` (PySpark) or `jar` with `main_class`".into(),
                ))
            }
        };
        let job_path = match &job {
            Job::Python { file } => file,
            Job::Jar { jar, .. } => jar,
        };
        if !job_path.is_file() {
            return Err(invalid(format!(
                "job file {} does not exist or is not a file",
                job_path.display()
            )));
        }
        if let CheckpointSource::Path(p) = &checkpoint {
            if !p.is_dir() {
                return Err(invalid(format!(
                    "checkpoint.path {} is not a directory\n(hint: give the query's checkpointLocation, copied locally)",
                    p.display()
                )));
            }
        }
        if file.targets.is_empty() {
            return Err(invalid(
                "`targets` is empty: name at least one Spark version, e.g. targets = [\"4.0.1\"]"
                    .into(),
            ));
        }
        for t in &file.targets {
            check_version(t).map_err(|m| invalid(format!("targets: {m}")))?;
        }
        let mut topics = Vec::new();
        for t in &file.topics {
            if t.name.is_empty()
                || t.name
                    .contains(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
            {
                return Err(invalid(format!(
                    "topic name {:?} is not a valid Kafka topic name",
                    t.name
                )));
            }
            let records = match (&t.template, &t.sample_file) {
                (Some(tpl), None) => RecordSource::Template(tpl.clone()),
                (None, Some(f)) => {
                    let f = resolve(f);
                    let text = std::fs::read_to_string(&f).map_err(|e| {
                        invalid(format!(
                            "topic {}: sample_file {}: {e}",
                            t.name,
                            f.display()
                        ))
                    })?;
                    let lines: Vec<String> = text
                        .lines()
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect();
                    if lines.is_empty() {
                        return Err(invalid(format!(
                            "topic {}: sample_file {} has no lines",
                            t.name,
                            f.display()
                        )));
                    }
                    RecordSource::Samples(lines)
                }
                (None, None) => {
                    RecordSource::Template("{\"n\":{n},\"partition\":{partition}}".into())
                }
                (Some(_), Some(_)) => {
                    return Err(invalid(format!(
                        "topic {}: give `template` or `sample_file`, not both",
                        t.name
                    )))
                }
            };
            topics.push(Topic {
                name: t.name.clone(),
                partitions: t.partitions.unwrap_or(2).max(1),
                records,
                fresh_records: t.fresh_records.unwrap_or(DEFAULT_FRESH_RECORDS),
                fill_to_checkpoint: t.fill_to_checkpoint.unwrap_or(true),
            });
        }
        let mut expect = BTreeMap::new();
        for (target, name) in &file.expect {
            let v = Verdict::from_name(name).ok_or_else(|| {
                let names: Vec<_> = Verdict::ALL.iter().map(|v| v.name()).collect();
                invalid(format!(
                    "expect.\"{target}\" = {name:?} is not a verdict; one of {}",
                    names.join(", ")
                ))
            })?;
            expect.insert(target.clone(), v);
        }
        if let Some(k) = &file.kafka_version {
            KafkaVersion::release(k).map_err(|m| invalid(format!("kafka_version: {m}")))?;
        }
        // Every placeholder must resolve now, before any container starts.
        let probe = Placeholders {
            checkpoint: String::new(),
            bootstrap_servers: String::new(),
            output: String::new(),
        };
        let generate_args = match &checkpoint {
            CheckpointSource::Generate { extra_args, .. } => extra_args.as_slice(),
            CheckpointSource::Path(_) => &[],
        };
        for arg in file
            .job
            .args
            .iter()
            .chain(&file.job.restart_args)
            .chain(generate_args)
        {
            fill(arg, &probe, &topics).map_err(|m| invalid(format!("[job] args: {m}")))?;
        }
        let name = file.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario".into())
        });
        Ok(Scenario {
            name,
            file: path.to_path_buf(),
            checkpoint,
            job,
            args: file.job.args.clone(),
            restart_args: file.job.restart_args.clone(),
            conf: file.job.conf.clone(),
            topics,
            targets: file.targets.clone(),
            timeout_seconds: file.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS),
            expect,
            kafka_version: file
                .kafka_version
                .clone()
                .unwrap_or_else(|| DEFAULT_KAFKA_VERSION.to_string()),
            rebase_threshold: file.rebase_threshold.unwrap_or(DEFAULT_REBASE_THRESHOLD),
        })
    }

    /// The topic spec named `name`, if the scenario has one.
    pub fn topic(&self, name: &str) -> Option<&Topic> {
        self.topics.iter().find(|t| t.name == name)
    }
}

/// A Spark release as scenario and suite files and `--target` take it: `3.5.3`, no
/// pre-release suffix ([`SparkVersion::release`], the rule in `src/versions.rs`).
pub fn check_version(v: &str) -> Result<(), String> {
    SparkVersion::release(v).map(|_| ())
}

/// Values the harness fills into job arguments.
#[derive(Debug, Clone)]
pub struct Placeholders {
    /// `{checkpoint}`: the checkpoint path as the job sees it.
    pub checkpoint: String,
    /// `{bootstrap_servers}`: Kafka as the job sees it.
    pub bootstrap_servers: String,
    /// `{output}`: the sink directory as the job sees it.
    pub output: String,
}

/// Fills `{checkpoint}`, `{bootstrap_servers}`, `{output}` and `{topic.NAME}` in `arg`.
/// An unknown `{topic.NAME}` is an error naming it.
pub fn fill(arg: &str, p: &Placeholders, topics: &[Topic]) -> Result<String, String> {
    let mut out = arg
        .replace("{checkpoint}", &p.checkpoint)
        .replace("{bootstrap_servers}", &p.bootstrap_servers)
        .replace("{output}", &p.output);
    while let Some(start) = out.find("{topic.") {
        let end = out[start..]
            .find('}')
            .map(|e| start + e)
            .ok_or_else(|| format!("unclosed placeholder in {arg:?}"))?;
        let name = &out[start + 7..end];
        let topic = topics
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("{arg:?} names topic {name:?}, which is not in [[topics]]"))?;
        out = format!("{}{}{}", &out[..start], topic.name, &out[end + 1..]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn rejects_bad_scenarios_with_the_key_named() {
        let dir = tempfile::tempdir().unwrap();
        write_job(dir.path());
        std::fs::create_dir(dir.path().join("x")).unwrap();
        let path = dir.path().join("s.toml");
        let cases = [
            // Found by the breaker: these passed load and failed minutes later, or with exit 4.
            ("targets = [\"3.5\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "not a Spark version"),
            ("targets = [\"4.0.1\"]\nkafka_version = \"3.9;rm\"\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "kafka_version"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\nargs = [\"{topic.evnets}\"]\n", "evnets"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"nope\"\n[job]\nfile = \"job.py\"\n", "checkpoint.path"),
            ("targets = [\"4.0.1\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"x\"\n", "not a file"),
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
}
