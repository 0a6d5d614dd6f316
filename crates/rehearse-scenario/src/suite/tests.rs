use super::*;

fn suite(text: &str) -> Result<Suite, SuiteError> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("job.py"), "").unwrap();
    std::fs::write(
        dir.path().join("agg.toml"),
        "targets = [\"3.5.3\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 2\n[job]\nfile = \"job.py\"\nargs = [\"--topic\", \"{topic.events}\", \"--out\", \"{topic.out}\"]\n[[topics]]\nname = \"events\"\n[[output_topics]]\nname = \"out\"\n",
    )
    .unwrap();
    let s = Suite::parse(text, &dir.path().join("suite.toml"));
    drop(dir);
    s
}

const BASIC: &str = "name = \"s\"\nsources = [\"3.5.3\", \"4.0.1\"]\nproviders = [\"hdfs\", \"rocksdb\"]\n[[shapes]]\nscenario = \"agg.toml\"\n";

#[test]
fn deny_warnings_is_read_and_off_by_default() {
    assert!(!suite(BASIC).unwrap().deny_warnings);
    let s = suite(&BASIC.replacen("[[shapes]]", "deny_warnings = true\n[[shapes]]", 1)).unwrap();
    assert!(s.deny_warnings);
}

#[test]
fn cells_cover_shapes_providers_sources_and_targets_in_file_order() {
    let s = suite(BASIC).unwrap();
    let ids: Vec<String> = s.cells().iter().map(CellKey::id).collect();
    assert_eq!(
        ids,
        [
            "agg/hdfs/3.5.3->3.5.3",
            "agg/hdfs/3.5.3->4.0.1",
            "agg/hdfs/4.0.1->3.5.3",
            "agg/hdfs/4.0.1->4.0.1",
            "agg/rocksdb/3.5.3->3.5.3",
            "agg/rocksdb/3.5.3->4.0.1",
            "agg/rocksdb/4.0.1->3.5.3",
            "agg/rocksdb/4.0.1->4.0.1",
        ]
    );
}

#[test]
fn shards_split_groups_without_overlap_and_cover_all() {
    let s = suite(BASIC).unwrap();
    let all = s.groups(None).len();
    assert_eq!(all, 4);
    let mut seen = 0;
    for i in 1..=3 {
        seen += s.groups(Some(Shard { index: i, count: 3 })).len();
    }
    assert_eq!(seen, all);
    assert_eq!(
        s.groups(Some(Shard { index: 1, count: 3 }))[1].provider,
        "rocksdb"
    );
    assert!("0/2".parse::<Shard>().is_err());
    assert!("3/2".parse::<Shard>().is_err());
    assert!("x".parse::<Shard>().is_err());
    assert_eq!(
        "2/2".parse::<Shard>().unwrap(),
        Shard { index: 2, count: 2 }
    );
}

#[test]
fn first_matching_expectation_wins_and_the_default_is_resumed() {
    let text = format!(
        "{BASIC}[[expect]]\nsource = \"4.0.1\"\ntarget = \"3.5.3\"\nprovider = \"rocksdb\"\nverdict = \"state-store-error\"\n[[expect]]\ntarget = \"3.5.3\"\nverdict = \"offset-log-error\"\n"
    );
    let s = suite(&text).unwrap();
    let key = |p: &str, src: &str, t: &str| CellKey {
        shape: "agg".into(),
        provider: p.into(),
        source: v(src),
        target: v(t),
    };
    assert_eq!(
        s.expected(&key("rocksdb", "4.0.1", "3.5.3")).0,
        Verdict::StateStoreError
    );
    assert_eq!(
        s.expected(&key("hdfs", "4.0.1", "3.5.3")).0,
        Verdict::OffsetLogError
    );
    assert_eq!(
        s.expected(&key("hdfs", "3.5.3", "4.0.1")).0,
        Verdict::Resumed
    );
}

#[test]
fn group_scenarios_rename_topics_apart_and_set_the_provider() {
    let s = suite(BASIC).unwrap();
    let groups = s.groups(None);
    let rocks = s.group_scenario(&groups[3]);
    assert_eq!(rocks.topics[0].name, "s.agg.rocksdb.4.0.1.events");
    assert_eq!(rocks.output_topics[0].name, "s.agg.rocksdb.4.0.1.out");
    assert_eq!(
        rocks.args,
        [
            "--topic",
            "{topic.s.agg.rocksdb.4.0.1.events}",
            "--out",
            "{topic.s.agg.rocksdb.4.0.1.out}"
        ]
    );
    assert_eq!(
        rocks.conf.get(PROVIDER_CONF).map(String::as_str),
        Some("org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
    );
    assert!(
        matches!(&rocks.checkpoint, CheckpointSource::Generate { spark, .. } if spark.as_str() == "4.0.1")
    );
    let hdfs = s.group_scenario(&groups[0]);
    assert!(!hdfs.conf.contains_key(PROVIDER_CONF));
    assert_ne!(hdfs.topics[0].name, rocks.topics[0].name);
}

#[test]
fn a_suite_checks_and_runs_the_job_of_each_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app_2.12-3.5.3.jar"), "PK\x03\x04").unwrap();
    std::fs::write(
        dir.path().join("jar.toml"),
        "targets = [\"3.5.3\"]\n[checkpoint.generate]\nspark = \"3.5.3\"\nbatches = 1\n[job]\njar = \"app_{scala}-{spark}.jar\"\nmain_class = \"A\"\n",
    )
    .unwrap();
    let text = "sources = [\"3.5.3\", \"4.0.1\"]\n[[shapes]]\nscenario = \"jar.toml\"\n";
    let e = Suite::parse(text, &dir.path().join("suite.toml")).unwrap_err();
    for needle in [
        "shape jar",
        "app_2.13-4.0.1.jar",
        "does not exist",
        "Spark 4.0.1",
    ] {
        assert!(e.to_string().contains(needle), "{needle}: {e}");
    }
    std::fs::write(dir.path().join("app_2.13-4.0.1.jar"), "PK\x03\x04").unwrap();
    let s = Suite::parse(text, &dir.path().join("suite.toml")).unwrap();
    let groups = s.groups(None);
    let four = s.group_scenario(&groups[1]);
    let name = |j: crate::ResolvedJob| {
        j.artifact()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    assert_eq!(name(four.generation_job("4.0.1")), "app_2.13-4.0.1.jar");
    assert_eq!(name(four.job_for("3.5.3")), "app_2.12-3.5.3.jar");
    assert_eq!(name(four.job_for("4.0.1")), "app_2.13-4.0.1.jar");
}

#[test]
fn old_versions_make_cells_not_applicable() {
    let text = "sources = [\"3.1.3\", \"3.5.3\"]\nproviders = [\"rocksdb\"]\n[[shapes]]\nscenario = \"agg.toml\"\nmin_spark = \"3.4.0\"\n";
    let s = suite(text).unwrap();
    let cells = s.cells();
    assert!(s.not_applicable(&cells[0]).unwrap().contains("3.4.0"));
    assert!(s.not_applicable(&cells[3]).is_none());
    assert!(v("3.9.1") < v("3.10.0"));
}

#[test]
fn mistakes_name_the_key() {
    let e = suite("sources = []\n[[shapes]]\nscenario = \"agg.toml\"\n").unwrap_err();
    assert!(e.to_string().contains("`sources` is empty"), "{e}");
    let e = suite("sources = [\"3.5\"]\n[[shapes]]\nscenario = \"agg.toml\"\n").unwrap_err();
    assert!(e.to_string().contains("sources"), "{e}");
    let e = suite(&format!("{BASIC}[[expect]]\nverdict = \"fine\"\n")).unwrap_err();
    assert!(e.to_string().contains("not a verdict"), "{e}");
    let e = suite(&format!(
        "{BASIC}[[expect]]\ntarget = \"9.9.9\"\nverdict = \"resumed\"\n"
    ))
    .unwrap_err();
    assert!(e.to_string().contains("not in the suite"), "{e}");
    let e = suite(
        "sources = [\"3.5.3\"]\nproviders = [\"memory\"]\n[[shapes]]\nscenario = \"agg.toml\"\n",
    )
    .unwrap_err();
    assert!(e.to_string().contains("not known"), "{e}");
    let e = suite("sources = [\"3.5.3\"]\n[[shapes]]\nscenario = \"missing.toml\"\n").unwrap_err();
    assert!(e.to_string().contains("missing.toml"), "{e}");
    let e =
        suite("sources = [\"3.5.3\"]\ntimeout_seconds = 0\n[[shapes]]\nscenario = \"agg.toml\"\n")
            .unwrap_err();
    assert!(e.to_string().contains("timeout_seconds"), "{e}");
    let e = suite("sources = [\"3.5.3\"]\nshape = 1\n").unwrap_err();
    assert!(e.to_string().contains("shape"), "{e}");
}
#[test]
fn topic_names_too_long_for_kafka_or_colliding_are_refused_before_any_container() {
    let long = "a".repeat(230);
    let e = suite(&format!("name = \"{long}\"\n{}", &BASIC[10..])).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("249") && msg.contains("shorten"), "{msg}");
    // 221 + ".agg.rocksdb.4.0.1.out.4_0_1" (28, the output topic of a trial on 4.0.1) =
    // 249: the longest that Kafka takes.
    let fits = "a".repeat(221);
    suite(&format!("name = \"{fits}\"\n{}", &BASIC[10..])).unwrap();
    let e = suite(&format!("name = \"{}\"\n{}", "a".repeat(222), &BASIC[10..])).unwrap_err();
    assert!(
        e.to_string().contains(".out.3_5_3\" is 250 characters"),
        "{e}"
    );
    let e = suite(&format!(
        "{BASIC}name = \"x_y\"\n[[shapes]]\nscenario = \"agg.toml\"\nname = \"x.y\"\n"
    ))
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("share Kafka topic") && msg.contains("x.y"),
        "{msg}"
    );
}

#[test]
fn versions_compare_numerically_even_when_a_part_overflows_an_integer() {
    // What `Suite::not_applicable` compares with: `SparkVersion`'s order.
    assert!(v("3.5.3") < v("99999999999999999999.0.0"));
    assert!(v("99999999999999999999.0.0") >= v("3.4.0"));
    assert!(v("3.4.0") < v("3.10.0"));
    assert!(v("3.05.0") >= v("3.5.0") && v("3.5.0") >= v("3.05.0"));
}

#[test]
fn a_suite_that_cannot_be_read_says_why_once() {
    let dir = tempfile::tempdir().unwrap();
    let e = anyhow::Error::from(Suite::load(dir.path()).unwrap_err());
    let msg = format!("{e:#}");
    assert_eq!(msg.matches("is a directory").count(), 1, "{msg}");
    let e = anyhow::Error::from(
        suite("sources = [\"3.5.3\"]\n[[shapes]]\nscenario = \"missing.toml\"\n").unwrap_err(),
    );
    let msg = format!("{e:#}");
    assert_eq!(msg.matches("does not exist").count(), 1, "{msg}");
}

#[test]
fn suite_refusals_of_issue_15() {
    let e = suite("sources = [\"3.5.3\"]\ntimeout_seconds = 18446744073709551615\n[[shapes]]\nscenario = \"agg.toml\"\n").unwrap_err();
    assert!(e.to_string().contains("limit of 86400"), "{e}");
    for (v, needle) in [
        ("9.9.9", "not a release"),
        ("2.4.8", "not supported"),
        ("03.5.3", "write it 3.5.3"),
    ] {
        let e = suite(&format!(
            "sources = [\"{v}\"]\n[[shapes]]\nscenario = \"agg.toml\"\n"
        ))
        .unwrap_err();
        assert!(e.to_string().contains(needle), "{v}: {e}");
        let e = suite(&format!(
            "sources = [\"3.5.3\"]\ntargets = [\"{v}\"]\n[[shapes]]\nscenario = \"agg.toml\"\n"
        ))
        .unwrap_err();
        assert!(
            e.to_string().contains("targets") && e.to_string().contains(needle),
            "{v}: {e}"
        );
    }
    let e = suite("sources = [\"3.5.3\", \"3.5.3\"]\n[[shapes]]\nscenario = \"agg.toml\"\n")
        .unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("suite.toml");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let e = Suite::load(&fifo).unwrap_err();
    assert!(e.to_string().contains("FIFO"), "{e}");
}

/// A Spark version from a test's text.
fn v(text: &str) -> SparkVersion {
    SparkVersion::parse(text).unwrap()
}
