use super::*;
use crate::{fill, Placeholders};

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
        starting_offsets: None,
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
        ("targets = [\"3.5\"]\n[checkpoint]\npath = \"x\"\n[job]\nfile = \"job.py\"\n", "is a Spark line, not a release"),
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/kafka-out/orders.toml");
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

/// Kafka refuses `.` and `..` as topic names (`Topic.validate`); capture's `<topic>.jsonl`
/// names come from a checkpoint, so a topic from one is checked by this rule (issue 25 §1):
/// a path or `..` never names a file.
#[test]
fn topic_names_are_kafkas_never_a_path() {
    for bad in ["", ".", "..", "../x", "a/b", "a\\b", "a b"] {
        assert!(super::check_topic_name(bad).is_err(), "{bad:?}");
    }
    for good in ["orders", "a.b-c_d", "..."] {
        assert!(super::check_topic_name(good).is_ok(), "{good:?}");
    }
}

/// Issue 26 §5: a job whose code sets `.master(...)` overrides the `--master` rehearse passes;
/// load warns, naming the file, the line and the text.
#[test]
fn a_master_set_in_the_jobs_code_is_a_load_warning_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("job.py"),
        "from pyspark.sql import SparkSession\nspark = SparkSession.builder \\\n    .master(\"spark://spark-master:7077\") \\\n    .getOrCreate()\n",
    )
    .unwrap();
    let text = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 2\n[job]\nfile = \"job.py\"\nargs = [\"{checkpoint}\"]\n[[topics]]\nname = \"events\"\n";
    let s = Scenario::parse(text, &dir.path().join("s.toml")).unwrap();
    let warnings = s
        .check_job_dirs(Some(&SparkVersion::parse("3.5.3").unwrap()), &s.targets)
        .unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    assert!(w.contains("job.py:3"), "{w}");
    assert!(w.contains(".master(\"spark://spark-master:7077\")"), "{w}");
    assert!(
        w.contains("remove it and let spark-submit choose the master"),
        "{w}"
    );
    // Without the call: no warning.
    std::fs::write(dir.path().join("job.py"), "print(1)\n").unwrap();
    assert!(s
        .check_job_dirs(Some(&SparkVersion::parse("3.5.3").unwrap()), &s.targets)
        .unwrap()
        .is_empty());
}

/// Issue 26 §3: the job's packages travel with it, so a job directory whose packages are over
/// the bound is refused at load, naming the directory, not half-way through a sandbox copy.
#[test]
fn a_job_directory_over_the_bound_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    write_job(dir.path());
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("__init__.py"), "").unwrap();
    for i in 0..=crate::job_dir::MAX_JOB_DIR_FILES {
        std::fs::write(data.join(format!("part-{i}.json")), "{}").unwrap();
    }
    let text = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 2\n[job]\nfile = \"job.py\"\nargs = [\"{checkpoint}\"]\n[[topics]]\nname = \"events\"\n";
    let e = Scenario::parse(text, &dir.path().join("s.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("ships over 2000 files"), "{e}");
    assert!(e.contains(&dir.path().display().to_string()), "{e}");
}

/// Issue 26 §7: keys that act on nothing beside the others are load warnings, one per key.
#[test]
fn topic_keys_that_act_on_nothing_are_named() {
    let spec = |extra: &str| -> TopicSpec {
        toml::from_str(&format!("name = \"events\"\n{extra}")).unwrap()
    };
    let w = unused_topic_keys(&spec(
        "records_file = \"r.jsonl\"\ntime_step_ms = 500\nkafka_timestamp = true",
    ));
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("`time_step_ms` is unused beside `records_file`"),
        "{}",
        w[0]
    );
    assert!(
        w[1].contains("`kafka_timestamp` is unused beside `records_file`"),
        "{}",
        w[1]
    );
    let w = unused_topic_keys(&spec("template = \"{\\\"n\\\":{n}}\"\ntime_step_ms = 500"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("no event-time placeholder"), "{}", w[0]);
    // Used: the template's event time, or the Kafka timestamp it asks for.
    for used in [
        "template = \"{timestamp:yyyy-MM-dd HH:mm:ss}\"\ntime_step_ms = 500",
        "template = \"{n}\"\ntime_step_ms = 500\nkafka_timestamp = true",
        "records_file = \"r.jsonl\"",
        "template = \"{timestamp_ms}\"\nkafka_timestamp = true",
    ] {
        assert!(unused_topic_keys(&spec(used)).is_empty(), "{used}");
    }
}

/// The library never prints: load warnings come back as the lines the binary prints, found
/// before an error too.
#[test]
fn load_warnings_are_returned_as_lines_even_before_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("job.py"), "print(1)\n").unwrap();
    let path = dir.path().join("s.toml");
    let text = "targets = [\"4.0.1\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 2\n[job]\nfile = \"job.py\"\n[[topics]]\nname = \"events\"\n";
    let mut warnings = Vec::new();
    Scenario::parse_with(text, &path, &mut warnings).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!("warning: {}: ", path.display()))
            && warnings[0].contains("never names {checkpoint}"),
        "{warnings:?}"
    );
    let mut warnings = Vec::new();
    let bad = format!("{text}[cluster]\nworkers = 0\n");
    assert!(Scenario::parse_with(&bad, &path, &mut warnings).is_err());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}
