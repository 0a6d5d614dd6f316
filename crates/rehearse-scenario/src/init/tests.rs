use super::*;
use rehearse_checkpoint::WriterVersion;

fn writer(min: Option<&str>, max: Option<&str>) -> WriterVersion {
    WriterVersion {
        min: min.map(|m| SparkVersion::parse(m).unwrap()),
        max: max.map(str::to_string),
        or_pre_release: None,
        evidence: Vec::new(),
    }
}

/// The newest patch of a line, from the table (never written out, so a new patch in the
/// table does not break the test).
fn last(line: (u32, u32)) -> SparkVersion {
    SparkLine::all()
        .iter()
        .find(|l| l.line == line)
        .unwrap()
        .last
        .clone()
}

#[test]
fn default_targets_are_the_writers_highest_line_and_the_next() {
    let d = default_targets(&writer(Some("3.2.1"), Some("3.5.x")));
    assert_eq!(d.targets, vec![last((3, 5)), last((4, 0))]);
    assert!(
        d.why.contains("(3.5.x)") && d.why.contains("next line"),
        "{}",
        d.why
    );
    let d = default_targets(&writer(Some("4.0.0"), Some("4.1.x")));
    assert_eq!(d.targets, vec![last((4, 1)), last((4, 2))]);
    // A patch bound ("3.2.0", below 3.2.1) names its line.
    let d = default_targets(&writer(None, Some("3.2.0")));
    assert_eq!(d.targets, vec![last((3, 2)), last((3, 3))]);
    // Open-ended: the lowest version decides.
    let d = default_targets(&writer(Some("4.2.0"), None));
    assert_eq!(d.targets, vec![last((4, 2)), last((4, 3))]);
    assert!(d.why.contains(">= 4.2.0"), "{}", d.why);
    // Older than the table: its first lines, said so.
    let d = default_targets(&writer(Some("2.2.0"), Some("2.3.x")));
    assert_eq!(d.targets, vec![last((3, 0)), last((3, 1))]);
    assert!(d.why.contains("first lines"), "{}", d.why);
    // A pre-release of 4.0.0: the 4.0 line itself.
    let d = default_targets(&writer(Some("4.0.0-preview"), Some("4.0.0-preview")));
    assert_eq!(d.targets, vec![last((4, 0)), last((4, 1))]);
}

#[test]
fn the_newest_line_gets_its_newest_patch_only() {
    let newest = SparkLine::all().last().unwrap();
    let (a, b) = newest.line;
    let d = default_targets(&writer(Some(&format!("{a}.{b}.0")), None));
    assert_eq!(d.targets, vec![newest.last.clone()]);
    assert!(d.why.contains("newest line"), "{}", d.why);
    // A writer above the table (a conf key the marker table does not know yet).
    let d = default_targets(&writer(Some(&format!("{a}.{}.0", b + 1)), None));
    assert_eq!(d.targets, vec![newest.last.clone()]);
    assert!(d.why.contains("newest line"), "{}", d.why);
}

#[test]
fn an_unknown_writer_gets_the_newest_lines() {
    let d = default_targets(&writer(None, None));
    let lines = SparkLine::all();
    assert_eq!(
        d.targets,
        vec![
            lines[lines.len() - 2].last.clone(),
            lines[lines.len() - 1].last.clone()
        ]
    );
    assert!(d.why.contains("unknown"), "{}", d.why);
    // "below 1.6.0" (a bound under every line) falls back to the lowest version.
    let d = default_targets(&writer(None, Some("below 1.6.0")));
    assert!(d.why.contains("unknown"), "{}", d.why);
}

#[test]
fn toml_strings_hold_any_text_on_one_line() {
    for s in [
        "plain",
        "quote \" and back\\slash",
        "new\nline\r\ttab\u{7f}\u{1b}[31m",
        "ünïcödé → ok",
        "",
    ] {
        let q = toml_string(s);
        assert!(!q.contains('\n') && !q.contains('\r'), "{q}");
        let doc: toml::Table = toml::from_str(&format!("k = {q}")).unwrap();
        assert_eq!(doc["k"].as_str(), Some(s));
    }
    assert_eq!(comment_safe("a\nb\r\x1b[31mc"), "a bc");
}

#[test]
fn job_files_are_checked_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("job.py");
    let jar = dir.path().join("app.JAR");
    let txt = dir.path().join("job.txt");
    for f in [&py, &jar, &txt] {
        std::fs::write(f, "x").unwrap();
    }
    assert_eq!(job_kind(&py, None).unwrap(), JobKind::Python);
    assert_eq!(
        job_kind(&jar, Some("com.example.Orders$")).unwrap(),
        JobKind::Jar
    );
    let err = |p: &Path, c: Option<&str>| job_kind(p, c).unwrap_err();
    assert!(matches!(err(&txt, None), InitError::JobKind { .. }));
    assert!(matches!(err(&jar, None), InitError::NoMainClass { .. }));
    assert!(matches!(
        err(&py, Some("a.B")),
        InitError::MainClassForPython { .. }
    ));
    for bad in ["", "a..B", "1a.B", "a.B;rm", "a b"] {
        assert!(
            matches!(err(&jar, Some(bad)), InitError::BadMainClass { .. }),
            "{bad:?}"
        );
    }
    assert!(matches!(
        err(&dir.path().join("missing.py"), None),
        InitError::JobMissing { .. }
    ));
    assert!(matches!(
        err(dir.path(), None),
        InitError::JobNotAFile { .. }
    ));
}

/// Issue 26 §7: `name = "checkpoint"` came from the checkpoint directory's own name.
#[test]
fn the_default_name_says_which_checkpoint_not_that_it_is_one() {
    assert_eq!(
        default_name(&["orders", "checkpoint"], Some("windowed_avg")),
        "windowed_avg"
    );
    assert_eq!(
        default_name(&["orders", "checkpoint"], Some("main")),
        "orders"
    );
    assert_eq!(
        default_name(&["jobs", "orders-agg"], Some("main")),
        "orders-agg"
    );
    assert_eq!(
        default_name(&["tmp", "_checkpoints"], Some("job")),
        "scenario"
    );
    assert_eq!(default_name(&["checkpoint"], None), "scenario");
    assert_eq!(default_name(&["orders", "chk"], None), "orders");
    assert_eq!(default_name(&["x", "0001"], Some("dedup")), "dedup");
}

fn kafka_inspection(topics: &[&str]) -> Inspection {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path();
    std::fs::create_dir_all(ck.join("offsets")).unwrap();
    std::fs::create_dir_all(ck.join("commits")).unwrap();
    std::fs::write(
        ck.join("metadata"),
        "{\"id\":\"5d0e3f5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f\"}",
    )
    .unwrap();
    let offsets: Vec<String> = topics
        .iter()
        .map(|t| format!("{{\"{t}\":{{\"0\":5,\"1\":5}}}}"))
        .collect();
    std::fs::write(
        ck.join("offsets/0"),
        format!(
            "v1\n{{\"batchWatermarkMs\":0,\"batchTimestampMs\":1,\"conf\":{{}}}}\n{}",
            offsets.join("\n")
        ),
    )
    .unwrap();
    std::fs::write(ck.join("commits/0"), "v1\n{\"nextBatchWatermarkMs\":0}").unwrap();
    rehearse_checkpoint::inspect(ck).unwrap()
}

fn spec_with(args: JobArgs) -> InitSpec {
    InitSpec {
        checkpoint: "ck".into(),
        job: InitJob::Python {
            file: "job.py".into(),
        },
        targets: Vec::new(),
        name: "n".into(),
        job_args: args,
        job_records: JobRecords::default(),
    }
}

fn args_of(text: &str) -> Vec<String> {
    let file: crate::ScenarioFile = toml::from_str(text).unwrap();
    file.job.args
}

/// Issue 26 §7: two topics wrote `--topic` twice (argparse keeps the last); the example join
/// jobs take `--left-topic` and `--right-topic`, which their source names.
#[test]
fn two_topics_go_to_the_jobs_own_topic_flags_or_one_list() {
    let i = kafka_inspection(&["clicks", "impressions"]);
    let fallback = args_of(&scenario_text(&i, &spec_with(JobArgs::default())));
    assert_eq!(
        fallback.iter().filter(|a| *a == "--topic").count(),
        1,
        "{fallback:?}"
    );
    assert!(
        fallback.contains(&"{topic.clicks},{topic.impressions}".to_string()),
        "{fallback:?}"
    );

    let join = read_job_args(&[
        "args = parse_args(__doc__, topics=(\"--left-topic\", \"--right-topic\"))",
        "def parse_args(d, topics=(\"--topic\",)):\n    p.add_argument(\"--checkpoint\")\n    p.add_argument(\"--bootstrap-servers\")\n    p.add_argument(\"--output\")\n    p.add_argument(\"--trigger-seconds\")\n",
    ]);
    let text = scenario_text(&i, &spec_with(join));
    let args = args_of(&text);
    assert_eq!(
        args,
        [
            "--left-topic",
            "{topic.clicks}",
            "--right-topic",
            "{topic.impressions}",
            "--checkpoint",
            "{checkpoint}",
            "--bootstrap-servers",
            "{bootstrap_servers}",
            "--output",
            "{output}"
        ]
    );
    assert!(
        text.contains("The job also takes --topic, --trigger-seconds:"),
        "{text}"
    );
    assert!(
        text.contains("CHECK: the topics are given to --left-topic, --right-topic"),
        "{text}"
    );
}

#[test]
fn a_job_reading_sys_argv_gets_its_positions() {
    let i = kafka_inspection(&["events"]);
    let a = read_job_args(&["brokers = sys.argv[1]\ntopic = sys.argv[2]\nwindow = sys.argv[3]\ncheckpoint = sys.argv[4]\n"]);
    let args = args_of(&scenario_text(&i, &spec_with(a)));
    assert_eq!(
        args,
        ["{bootstrap_servers}", "{topic.events}", "", "{checkpoint}"]
    );
}

/// Issue 26 §7: the written template is a record the job parses, and loads back.
#[test]
fn the_template_follows_the_jobs_schema_and_loads_back() {
    let i = kafka_inspection(&["words"]);
    let job = "schema = StructType([StructField(\"word\", StringType()), StructField(\"event_time\", StringType())])\nts = to_timestamp(col(\"j.event_time\"), \"yyyy-MM-dd HH:mm:ss\")\n";
    let spec = InitSpec {
        job_records: read_job_records(&[job]),
        ..spec_with(JobArgs::default())
    };
    let text = scenario_text(&i, &spec);
    let file: crate::ScenarioFile = toml::from_str(&text).unwrap();
    let template = file.topics[0].template.clone().unwrap();
    assert_eq!(
        template,
        "{\"word\":\"word-{n}\",\"event_time\":\"{timestamp:yyyy-MM-dd HH:mm:ss}\"}"
    );
    crate::placeholders::check_template(&template).unwrap();
    // Without a schema in the source: the generic template, as before.
    let text = scenario_text(&i, &spec_with(JobArgs::default()));
    let file: crate::ScenarioFile = toml::from_str(&text).unwrap();
    assert_eq!(
        file.topics[0].template.as_deref(),
        Some("{\"n\":{n},\"partition\":{partition}}")
    );
}
