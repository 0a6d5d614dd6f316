//! Reports read back as a consumer would: the `rehearse.run/v1` JSON into types defined here
//! (never the emitting ones), the JUnit XML through quick-junit's deserializer. Snapshots of each
//! writer live next to the writers (`src/report/snapshots/`); these tests check the contracts.

use std::path::PathBuf;

use quick_junit::{NonSuccessKind, TestCaseStatus};
use rehearse::exit::Outcome;
use rehearse::report::{
    outcome, write, CopyReport, Format, OutputCount, RunReport, SeedingSummary, TerminalStyle,
    TrialReport, RUN_SCHEMA,
};
use rehearse::verdict::{BatchId, Verdict};
use serde::Deserialize;

/// The document as a consumer reads it. `deny_unknown_fields`: a key added to the schema must be
/// added here too, on purpose.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Run {
    schema: String,
    scenario: String,
    source_checkpoint: String,
    source_version: Option<String>,
    passed: bool,
    exit_code: i32,
    trials: Vec<Trial>,
    remote_source: Option<RemoteSource>,
}

/// `remote_source` of a run whose source was a URL (null otherwise).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RemoteSource {
    url: String,
    staged_at: String,
    files: u64,
    bytes: u64,
    source_files: u64,
    source_bytes: u64,
    working_set: bool,
    why_full: Option<String>,
    compared: String,
    unchanged: Option<bool>,
    changes: Vec<String>,
    verify_error: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Trial {
    target_version: String,
    verdict: String,
    expected_verdict: Option<String>,
    passed: bool,
    rule: String,
    evidence: Vec<String>,
    last_committed_batch: Option<u64>,
    first_batch_after_restart: Option<u64>,
    start_offsets_match: Option<bool>,
    seconds_to_verdict: f64,
    source_untouched: bool,
    remedy: String,
    starting_offsets: Option<String>,
    seeding: Seeding,
    output: Vec<Output>,
    sandbox: Option<String>,
    notes: Vec<String>,
    warnings: Vec<WarningDoc>,
    copy: Copy,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WarningDoc {
    code: String,
    message: String,
    evidence: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Copy {
    files: u64,
    bytes: u64,
    source_files: u64,
    source_bytes: u64,
    working_set: bool,
    why_full: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Output {
    topic: String,
    records_after_restart: u64,
    sample: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Seeding {
    filler_records: u64,
    fresh_records: u64,
    topics: Vec<Topic>,
    rebased: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Topic {
    name: String,
    partitions: u32,
}

const STARTING_OFFSETS: &str = r#"{"orders":{"0":52,"1":49}}"#;

pub(crate) fn trial(target: &str, verdict: Verdict, expected: Option<Verdict>) -> TrialReport {
    let resumed = verdict == Verdict::Resumed;
    TrialReport {
        target_version: target.to_owned(),
        verdict,
        expected_verdict: expected,
        rule: if resumed {
            "progress-after-restart"
        } else {
            "state-schema-not-compatible"
        }
        .to_owned(),
        evidence: if resumed {
            vec!["QueryProgressEvent batchId=8 numInputRows=20".to_owned()]
        } else {
            vec![
                "ERROR StateSchemaCompatibilityChecker: Provided schema doesn't match".to_owned(),
                "\tat org.apache.spark.sql.execution.streaming.state.StateStore$.get(StateStore.scala:500) <&>".to_owned(),
            ]
        },
        last_committed_batch: Some(BatchId(7)),
        first_batch_after_restart: resumed.then_some(BatchId(8)),
        start_offsets_match: resumed.then_some(true),
        seconds_to_verdict: 12.3456,
        source_untouched: true,
        remedy: "Start on a fresh checkpoint from the offsets below.".to_owned(),
        starting_offsets: Some(STARTING_OFFSETS.to_owned()),
        seeding: SeedingSummary {
            filler_records: 101,
            fresh_records: 20,
            topics: vec![("orders".to_owned(), 2)],
            rebased: false,
            mirrored: None,
            below_base: Vec::new(),
        },
        output: vec![OutputCount {
            topic: "orders-out".to_owned(),
            records_after_restart: if resumed { 3 } else { 0 },
            sample: if resumed {
                vec!["p0@8 key=k value=v".to_owned()]
            } else {
                vec![]
            },
        }],
        sandbox: (!resumed).then(|| PathBuf::from("/tmp/rehearse-sandbox-kept")),
        logs: None,
        notes: vec![],
        warnings: vec![],
        copy: CopyReport {
            files: 12,
            bytes: 4096,
            source_files: 40,
            source_bytes: 65536,
            working_set: true,
            why_full: None,
        },
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
    }
}

pub(crate) fn report(trials: Vec<TrialReport>) -> RunReport {
    RunReport {
        schema: RUN_SCHEMA,
        scenario: "orders-dedup".to_owned(),
        source_checkpoint: PathBuf::from("/data/checkpoints/orders"),
        source_version: Some("3.5.3".to_owned()),
        trials,
        deny_warnings: false,
        control: None,
        remote_source: None,
    }
}

pub(crate) fn render(format: Format, report: &RunReport) -> String {
    let mut out = Vec::new();
    write(format, report, &mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("every format is UTF-8")
}

#[test]
fn json_document_reads_back_into_consumer_types() {
    let mut resumed_with_warning = trial("4.0.1", Verdict::Resumed, None);
    resumed_with_warning.warnings = vec![rehearse::verdict::Warning {
        code: "watermark-removed".to_owned(),
        message: "no watermark after the restart".to_owned(),
        evidence: vec!["batch 8 reports no eventTime.watermark".to_owned()],
    }];
    let report = report(vec![
        resumed_with_warning,
        trial("3.3.4", Verdict::StateStoreError, None),
    ]);
    let json = render(Format::Json, &report);
    let run: Run = serde_json::from_str(&json).expect("the document matches the consumer types");

    assert_eq!(run.schema, "rehearse.run/v1");
    assert_eq!(run.scenario, "orders-dedup");
    assert_eq!(run.source_checkpoint, "/data/checkpoints/orders");
    assert_eq!(run.source_version.as_deref(), Some("3.5.3"));
    assert!(!run.passed);
    assert_eq!(
        run.exit_code,
        Outcome::Verdict(Verdict::StateStoreError).code()
    );
    assert_eq!(run.exit_code, outcome(&report).code());
    assert!(run.remote_source.is_none(), "a local source has none");

    // A remote source: where it came from and what the end check found.
    let mut remote = report.clone();
    remote.source_checkpoint = PathBuf::from("s3://prod/orders");
    remote.remote_source = Some(rehearse::report::RemoteSourceReport {
        url: "s3://prod/orders".into(),
        staged_at: PathBuf::from("/tmp/rehearse-source-orders-x/checkpoint"),
        staged: rehearse::report::CopyReport {
            files: 40,
            bytes: 5010,
            source_files: 40,
            source_bytes: 5010,
            working_set: true,
            why_full: None,
        },
        compared: "size and ETag".into(),
        unchanged: Some(true),
        changes: vec![],
        verify_error: None,
    });
    let back: Run = serde_json::from_str(&render(Format::Json, &remote)).unwrap();
    let r = back.remote_source.expect("remote_source");
    assert_eq!(
        (r.url.as_str(), r.unchanged, r.files),
        ("s3://prod/orders", Some(true), 40)
    );
    assert!(r.working_set && r.why_full.is_none());
    assert_eq!(back.source_checkpoint, "s3://prod/orders");
    let text = render(
        Format::Terminal(rehearse::report::TerminalStyle { color: false }),
        &remote,
    );
    assert!(
        text.contains("remote source s3://prod/orders") && text.contains("unchanged at the end"),
        "{text}"
    );
    let copy = &run.trials[0].copy;
    assert_eq!(
        (copy.files, copy.bytes, copy.source_files, copy.source_bytes),
        (12, 4096, 40, 65536)
    );
    assert!(copy.working_set && copy.why_full.is_none());

    let [resumed, failed] = &run.trials[..] else {
        panic!("two trials expected, got {}", run.trials.len());
    };
    assert_eq!(resumed.target_version, "4.0.1");
    assert_eq!(resumed.verdict, "resumed");
    assert!(resumed.passed);
    assert_eq!(resumed.last_committed_batch, Some(7));
    assert_eq!(resumed.first_batch_after_restart, Some(8));
    assert_eq!(resumed.start_offsets_match, Some(true));
    assert_eq!(resumed.sandbox, None);
    assert_eq!(resumed.output[0].records_after_restart, 3);
    assert_eq!(resumed.output[0].sample, ["p0@8 key=k value=v"]);

    assert_eq!(failed.verdict, "state-store-error");
    assert_eq!(failed.expected_verdict, None);
    assert!(!failed.passed);
    assert_eq!(failed.rule, "state-schema-not-compatible");
    assert_eq!(failed.evidence.len(), 2);
    assert!(
        failed.evidence[1].starts_with("\tat org.apache.spark"),
        "evidence is verbatim"
    );
    assert_eq!(failed.first_batch_after_restart, None);
    assert_eq!(failed.start_offsets_match, None);
    assert_eq!(failed.seconds_to_verdict, 12.346, "rounded to milliseconds");
    assert!(failed.source_untouched);
    assert_eq!(
        failed.remedy,
        "Start on a fresh checkpoint from the offsets below."
    );
    assert_eq!(failed.starting_offsets.as_deref(), Some(STARTING_OFFSETS));
    let offsets: serde_json::Value = serde_json::from_str(STARTING_OFFSETS).expect("valid JSON");
    assert_eq!(offsets["orders"]["1"], 49, "startingOffsets is itself JSON");
    assert_eq!(failed.seeding.filler_records, 101);
    assert_eq!(failed.seeding.fresh_records, 20);
    assert_eq!(failed.seeding.topics[0].name, "orders");
    assert_eq!(failed.seeding.topics[0].partitions, 2);
    assert!(!failed.seeding.rebased);
    assert_eq!(failed.output[0].topic, "orders-out");
    assert_eq!(failed.output[0].records_after_restart, 0);
    assert!(failed.output[0].sample.is_empty());
    assert_eq!(
        failed.sandbox.as_deref(),
        Some("/tmp/rehearse-sandbox-kept")
    );
    assert!(failed.notes.is_empty());
    assert!(failed.warnings.is_empty());
    let [w] = &resumed.warnings[..] else {
        panic!("one warning expected: {:?}", resumed.warnings);
    };
    assert_eq!(w.code, "watermark-removed");
    assert!(!w.message.is_empty());
    assert_eq!(w.evidence, ["batch 8 reports no eventTime.watermark"]);
}

#[test]
fn json_every_verdict_name_is_spelled_as_verdict_name() {
    let trials = Verdict::ALL
        .into_iter()
        .map(|v| trial(v.name(), v, Some(v)))
        .collect();
    let run: Run = serde_json::from_str(&render(Format::Json, &report(trials)))
        .expect("the document matches the consumer types");
    for (trial, verdict) in run.trials.iter().zip(Verdict::ALL) {
        assert_eq!(Verdict::from_name(&trial.verdict), Some(verdict));
        assert_eq!(trial.expected_verdict.as_deref(), Some(verdict.name()));
        assert!(trial.passed, "expected verdict met");
    }
    assert!(run.passed);
    assert_eq!(run.exit_code, 0);
}

#[test]
fn junit_reads_back_with_the_documented_mapping() {
    let mut environment = trial("4.1.0", Verdict::EnvironmentError, None);
    environment.evidence = vec!["Failed to find data source: kafka".to_owned()];
    let report = report(vec![
        trial("4.0.1", Verdict::Resumed, None),
        trial(
            "3.3.4",
            Verdict::StateStoreError,
            Some(Verdict::StateStoreError),
        ),
        trial("3.5.1", Verdict::StateStoreError, Some(Verdict::Resumed)),
        environment,
    ]);
    let xml = render(Format::Junit, &report);
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("well-formed JUnit XML");

    assert_eq!(junit.tests, 4);
    assert_eq!(junit.failures, 1);
    assert_eq!(junit.errors, 1);
    let [suite] = &junit.test_suites[..] else {
        panic!("one suite per scenario");
    };
    assert_eq!(suite.name.as_str(), "orders-dedup");
    let names: Vec<&str> = suite.test_cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["spark-4.0.1", "spark-3.3.4", "spark-3.5.1", "spark-4.1.0"]
    );
    for case in &suite.test_cases {
        assert_eq!(
            case.classname.as_ref().map(|c| c.as_str()),
            Some("orders-dedup")
        );
        assert!(case.time.is_some());
        let out = case
            .system_out
            .as_ref()
            .expect("every testcase has system-out");
        assert!(out.as_str().contains("verdict: "), "{out:?}");
    }

    assert!(matches!(
        suite.test_cases[0].status,
        TestCaseStatus::Success { .. }
    ));
    assert!(
        matches!(suite.test_cases[1].status, TestCaseStatus::Success { .. }),
        "an expected failure that happened passes"
    );
    let TestCaseStatus::NonSuccess {
        kind,
        message,
        ty,
        description,
        ..
    } = &suite.test_cases[2].status
    else {
        panic!("expected resumed, got state-store-error: a failure");
    };
    assert_eq!(*kind, NonSuccessKind::Failure);
    assert_eq!(ty.as_ref().map(|t| t.as_str()), Some("state-store-error"));
    let message = message.as_ref().expect("a message").as_str();
    assert!(message.contains("state-schema-not-compatible"), "{message}");
    assert!(message.contains("Start on a fresh checkpoint"), "{message}");
    assert!(message.starts_with("expected resumed"), "{message}");
    let description = description.as_ref().expect("startingOffsets").as_str();
    assert!(description.contains(STARTING_OFFSETS), "{description}");
    let out = suite.test_cases[2]
        .system_out
        .as_ref()
        .expect("system-out")
        .as_str();
    assert!(out.contains("    at org.apache.spark.sql.execution.streaming.state.StateStore$.get(StateStore.scala:500) <&>"), "{out}");
    assert!(
        out.contains("sandbox (kept): /tmp/rehearse-sandbox-kept"),
        "{out}"
    );

    let TestCaseStatus::NonSuccess { kind, ty, .. } = &suite.test_cases[3].status else {
        panic!("environment-error did not pass");
    };
    assert_eq!(
        *kind,
        NonSuccessKind::Error,
        "the harness could not test the restart"
    );
    assert_eq!(ty.as_ref().map(|t| t.as_str()), Some("environment-error"));
}

#[test]
fn markdown_has_no_escape_codes_and_terminal_plain_has_none_either() {
    let mut failing = trial("3.3.4", Verdict::StateStoreError, None);
    failing
        .evidence
        .push("\x1b[31mERROR\x1b[0m coloured log line".to_owned());
    let report = report(vec![trial("4.0.1", Verdict::Resumed, None), failing]);

    let markdown = render(Format::Markdown, &report);
    assert!(!markdown.contains('\x1b'));
    assert!(
        markdown.starts_with("## rehearse: orders-dedup\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| 3.3.4 | **FAIL** | `state-store-error` |"),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!("```json\n{STARTING_OFFSETS}\n```")),
        "{markdown}"
    );

    let plain = render(Format::Terminal(TerminalStyle { color: false }), &report);
    assert!(!plain.contains('\x1b'));
    assert!(
        plain.contains("FAIL spark-3.3.4: state-store-error"),
        "{plain}"
    );
    let colored = render(Format::Terminal(TerminalStyle { color: true }), &report);
    assert!(colored.contains("\x1b["), "colour on means escape codes");
}
