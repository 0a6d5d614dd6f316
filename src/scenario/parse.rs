//! Reading a scenario file: [`Scenario::load`] parses the TOML into a
//! [`ScenarioFile`], then validates it one table at a time (`[checkpoint]`,
//! `[job]`, `targets`, `[[topics]]`, `[expect]`, `kafka_version`, the job's placeholders) and
//! resolves paths relative to the scenario file — before any container starts. The first
//! mistake found is the error, in that order; each names its key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::file::{CheckpointSpec, JobSpec, OutputTopicSpec, ScenarioFile, TopicSpec};
use super::model::{
    CheckpointSource, Job, OutputTopic, RecordSource, Scenario, ScenarioError, Topic,
    DEFAULT_FRESH_RECORDS, DEFAULT_KAFKA_VERSION, DEFAULT_REBASE_THRESHOLD,
    DEFAULT_TIMEOUT_SECONDS, DEFAULT_TIME_STEP_MS,
};
use super::placeholders::{fill_topics, Placeholders};
use super::records::RecordsFile;
use crate::store::CheckpointLocation;
use crate::verdict::Verdict;
use crate::versions::{KafkaVersion, SparkVersion};

/// A Spark release as scenario and suite files and `--target` take it: `3.5.3`, no
/// pre-release suffix ([`SparkVersion::release`], the rule in `src/versions.rs`).
pub fn check_version(v: &str) -> Result<(), String> {
    SparkVersion::release(v).map(|_| ())
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
        let dir = Relative::to(path);
        let checkpoint = checkpoint(&file.checkpoint, &dir).map_err(invalid)?;
        let job = job(&file.job, &dir).map_err(invalid)?;
        check_checkpoint_dir(&checkpoint).map_err(invalid)?;
        check_targets(&file.targets).map_err(invalid)?;
        let topics = topics(&file.topics, &dir).map_err(invalid)?;
        let output_topics = output_topics(&file.output_topics, &topics).map_err(invalid)?;
        let expect = expectations(&file.expect).map_err(invalid)?;
        if let Some(k) = &file.kafka_version {
            KafkaVersion::release(k).map_err(|m| invalid(format!("kafka_version: {m}")))?;
        }
        check_placeholders(&file.job, &checkpoint, &topics, &output_topics).map_err(invalid)?;
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
            output_topics,
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
            check_version(&g.spark).map_err(|m| format!("checkpoint.generate.spark: {m}"))?;
            if g.batches == 0 {
                return Err("checkpoint.generate.batches must be at least 1".into());
            }
            Ok(CheckpointSource::Generate {
                spark: g.spark.clone(),
                batches: g.batches,
                records_per_batch: g.records_per_batch.unwrap_or(5).max(1),
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

/// `[job]`: a PySpark `file`, or a `jar` with its `main_class`; the file must exist.
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
    if !job_path.is_file() {
        return Err(format!(
            "job file {} does not exist or is not a file",
            job_path.display()
        ));
    }
    Ok(job)
}

/// `checkpoint.path` must be a directory.
fn check_checkpoint_dir(checkpoint: &CheckpointSource) -> Result<(), String> {
    match checkpoint {
        CheckpointSource::Path(p) if !p.is_dir() => Err(format!(
            "checkpoint.path {} is not a directory\n(hint: give the query's checkpointLocation, copied locally)",
            p.display()
        )),
        _ => Ok(()),
    }
}

/// `targets`: at least one, each a Spark release.
fn check_targets(targets: &[String]) -> Result<(), String> {
    if targets.is_empty() {
        return Err(
            "`targets` is empty: name at least one Spark version, e.g. targets = [\"4.0.1\"]"
                .into(),
        );
    }
    for t in targets {
        check_version(t).map_err(|m| format!("targets: {m}"))?;
    }
    Ok(())
}

/// `[[topics]]`, in file order.
fn topics(specs: &[TopicSpec], dir: &Relative) -> Result<Vec<Topic>, String> {
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
    Ok(Topic {
        name: t.name.clone(),
        partitions: t.partitions.unwrap_or(2).max(1),
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
            let text = std::fs::read_to_string(&f)
                .map_err(|e| format!("topic {}: sample_file {}: {e}", t.name, f.display()))?;
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

/// `[expect]`: each value a verdict name.
fn expectations(expect: &BTreeMap<String, String>) -> Result<BTreeMap<String, Verdict>, String> {
    let mut out = BTreeMap::new();
    for (target, name) in expect {
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
    let probe = Placeholders {
        checkpoint: String::new(),
        bootstrap_servers: String::new(),
        output: String::new(),
    };
    let generate_args = match checkpoint {
        CheckpointSource::Generate { extra_args, .. } => extra_args.as_slice(),
        CheckpointSource::Path(_) | CheckpointSource::Remote(_) => &[],
    };
    for arg in job
        .args
        .iter()
        .chain(&job.restart_args)
        .chain(generate_args)
    {
        fill_topics(arg, &probe, &names).map_err(|m| format!("[job] args: {m}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::fill;

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
        std::fs::create_dir(dir.path().join("ckpt")).unwrap();
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
        let err = load("s3://b/p?X-Amz-Signature=sekrit")
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
