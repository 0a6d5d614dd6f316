//! Fixed reports every writer's snapshot tests render, and the redaction applied to output that
//! carries machine-dependent values (temp paths, measured durations). Test-only.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Instant;

use regex::Regex;

use super::model::{CopyReport, OutputCount, RunReport, SeedingSummary, TrialReport, RUN_SCHEMA};
use crate::verdict::{BatchId, Verdict};

/// `report` rendered in `format`, as text (every run writer writes UTF-8).
pub(crate) fn render(format: super::Format, report: &RunReport) -> String {
    let mut out = Vec::new();
    super::write(format, report, &mut out).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("a report is UTF-8")
}

/// The snapshot tests of a run writer, in its `tests` module: every [`fixtures`] report
/// (snapshot named after the fixture) and the [`live`] one, [`redact`]ed
/// (`snapshot_live_values_redacted`). The module must have `test_helpers` and a
/// `render(&RunReport) -> String` in scope. A macro so that insta names and places the
/// snapshots after the calling module and file, as each writer's own tests did.
macro_rules! writer_snapshot_tests {
    () => {
        #[test]
        fn snapshots() {
            for (name, report) in test_helpers::fixtures() {
                insta::assert_snapshot!(name, render(&report));
            }
        }

        #[test]
        fn snapshot_live_values_redacted() {
            let (report, sandbox) = test_helpers::live();
            insta::assert_snapshot!(test_helpers::redact(&render(&report), &sandbox));
        }
    };
}
pub(crate) use writer_snapshot_tests;

/// The fixture set, by snapshot name: each writer renders every one of them.
pub(crate) fn fixtures() -> Vec<(&'static str, RunReport)> {
    vec![
        ("resumed", resumed()),
        ("state_store_error", state_store_error()),
        ("mixed_with_expected", mixed_with_expected()),
        ("empty_evidence", empty_evidence()),
        ("resumed_with_warning", resumed_with_warning()),
    ]
}

const STARTING_OFFSETS: &str = r#"{"events":{"0":1200,"1":1187,"2":1210,"3":1195}}"#;

fn seeding() -> SeedingSummary {
    SeedingSummary {
        filler_records: 4792,
        fresh_records: 200,
        topics: vec![("events".to_owned(), 4)],
        rebased: false,
        mirrored: None,
        below_base: Vec::new(),
    }
}

/// A working-set copy of a checkpoint with 100 retained versions.
fn working_set_copy() -> CopyReport {
    CopyReport {
        files: 38,
        bytes: 1_258_291,
        source_files: 1_360,
        source_bytes: 104_857_600,
        working_set: true,
        why_full: None,
    }
}

/// A full copy, and why.
fn full_copy() -> CopyReport {
    CopyReport {
        files: 1_360,
        bytes: 104_857_600,
        source_files: 1_360,
        source_bytes: 104_857_600,
        working_set: false,
        why_full: Some("--full-copy was given".to_owned()),
    }
}

fn report(trials: Vec<TrialReport>) -> RunReport {
    RunReport {
        schema: RUN_SCHEMA,
        scenario: "windowed-counts".to_owned(),
        source_checkpoint: PathBuf::from("/data/prod/checkpoints/windowed-counts"),
        source_version: Some("3.5.3".to_owned()),
        trials,
        deny_warnings: false,
        control: None,
        remote_source: None,
    }
}

/// A trial on 4.0.1 that resumed, with the progress line that proves it.
fn resumed_trial() -> TrialReport {
    TrialReport {
        target_version: "4.0.1".to_owned(),
        verdict: Verdict::Resumed,
        expected_verdict: None,
        rule: "progress-after-restart".to_owned(),
        evidence: vec![
            "26/11/30 13:12:03.411 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {KafkaV2[Subscribe[events]]: {\"events\":{\"0\":1200,\"1\":1187,\"2\":1210,\"3\":1195}}}".to_owned(),
            "QueryProgressEvent batchId=4 startOffset={\"events\":{\"0\":1200,\"1\":1187,\"2\":1210,\"3\":1195}} numInputRows=200".to_owned(),
        ],
        last_committed_batch: Some(BatchId(3)),
        first_batch_after_restart: Some(BatchId(4)),
        start_offsets_match: Some(true),
        seconds_to_verdict: 41.27,
        source_untouched: true,
        remedy: "None needed: the query resumed from the checkpoint.".to_owned(),
        starting_offsets: Some(STARTING_OFFSETS.to_owned()),
        seeding: seeding(),
        output: vec![OutputCount {
            topic: "orders-out".to_owned(),
            records_after_restart: 2,
            sample: vec![
                "p0@41 key=user-1 value={\"user\":\"user-1\",\"count\":3} headers=[trace=t-17]".to_owned(),
                "p0@42 key=base64:AAE= value=null".to_owned(),
            ],
        }],
        sandbox: None,
        logs: None,
        notes: vec![],
        warnings: vec![],
        copy: working_set_copy(),
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
    }
}

/// One target, resumed.
pub(crate) fn resumed() -> RunReport {
    report(vec![resumed_trial()])
}

/// One target, resumed, with a parity against a 3.5.3 control of `status` (one differing row
/// each side when it differs): what `trial::parity::compare` makes of those rows (its test
/// `the_report_fixtures_are_what_compare_makes` checks it).
pub(crate) fn resumed_with_parity(status: crate::report::ParityStatus) -> RunReport {
    use crate::report::{Parity, ParityStatus};
    let compared = || {
        vec![
            "file sink output/data: 1 rows (target), 1 (control), 2 files named by _spark_metadata"
                .to_owned(),
        ]
    };
    let parity = match status {
        ParityStatus::Same => Parity {
            status: ParityStatus::Same,
            reason: None,
            compared: compared(),
            ..Parity::not_checked("3.5.3", "")
        },
        ParityStatus::Differs => Parity {
            status: ParityStatus::Differs,
            reason: None,
            rows_only_in_target: 1,
            rows_only_in_control: 1,
            examples_only_in_target: vec![
                r#"file sink output/data: {"count":2,"user":"a"}"#.to_owned()
            ],
            examples_only_in_control: vec![
                r#"file sink output/data: {"count":1,"user":"a"}"#.to_owned()
            ],
            compared: compared(),
            volatile_columns: vec!["processed_at".to_owned()],
            ..Parity::not_checked("3.5.3", "")
        },
        ParityStatus::NotChecked => {
            Parity::not_checked("3.5.3", "the control did not resume (verdict timeout)")
        }
    };
    report(vec![TrialReport {
        parity: Some(parity),
        ..resumed_trial()
    }])
}

/// One target, resumed, with a removed watermark flagged (issue 13's silent change).
pub(crate) fn resumed_with_warning() -> RunReport {
    report(vec![TrialReport {
        warnings: vec![crate::verdict::Warning {
            code: "watermark-removed".to_owned(),
            message: "The checkpoint's query had an event-time watermark, but the restarted query reports none: its state is no longer evicted.".to_owned(),
            evidence: vec!["the checkpoint's watermark is 1704067224000 ms (2024-01-01T00:00:24.000Z); batch 4 after the restart reports no eventTime.watermark".to_owned()],
        }],
        ..resumed_trial()
    }])
}

/// A grouping key added to the job, restarted on the same version: the state store's schema no
/// longer matches. The sandbox was kept (`--keep`) and offsets were rebased.
fn state_store_trial() -> TrialReport {
    TrialReport {
        target_version: "3.5.3".to_owned(),
        verdict: Verdict::StateStoreError,
        expected_verdict: None,
        rule: "state-schema-not-compatible".to_owned(),
        evidence: vec![
            "26/11/30 13:10:15.945 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {KafkaV2[Subscribe[events]]: {\"events\":{\"0\":1200}}}".to_owned(),
            "26/11/30 13:10:18.750 ERROR StateSchemaCompatibilityChecker: Provided schema doesn't match to the schema for existing state! Please note that Spark allow difference of field name: check count of fields and data type of each field.".to_owned(),
            "org.apache.spark.sql.execution.streaming.state.StateSchemaNotCompatible: Provided schema doesn't match to the schema for existing state!\n\tat org.apache.spark.sql.execution.streaming.state.StateSchemaCompatibilityChecker.check(StateSchemaCompatibilityChecker.scala:60)".to_owned(),
        ],
        last_committed_batch: Some(BatchId(3)),
        first_batch_after_restart: None,
        start_offsets_match: None,
        seconds_to_verdict: 18.04,
        source_untouched: true,
        remedy: "The stateful operator's key or value schema changed: restore the old grouping, or start on a fresh checkpoint from the offsets below.".to_owned(),
        starting_offsets: Some(STARTING_OFFSETS.to_owned()),
        seeding: SeedingSummary { rebased: true, ..seeding() },
        output: vec![],
        sandbox: Some(PathBuf::from("/tmp/rehearse-sandbox-3.5.3-fixed")),
        logs: None,
        notes: vec!["Kafka offsets were rebased by 1,000,000 per partition in the sandbox copy; batch-to-batch differences are kept.".to_owned()],
        warnings: vec![],
        copy: full_copy(),
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
    }
}

/// One target, state-store-error, with evidence.
pub(crate) fn state_store_error() -> RunReport {
    report(vec![state_store_trial()])
}

/// A regression suite row: one resumed, one expected failure that happened (passes), one that
/// was expected to resume but hit the offset log, one environment error with no expectation.
pub(crate) fn mixed_with_expected() -> RunReport {
    let expected_state_error = TrialReport {
        target_version: "3.3.4".to_owned(),
        expected_verdict: Some(Verdict::StateStoreError),
        seconds_to_verdict: 22.5,
        sandbox: None,
        notes: vec![],
        copy: working_set_copy(),
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
        seeding: seeding(),
        output: vec![],
        ..state_store_trial()
    };
    let offset_log = TrialReport {
        target_version: "3.5.1".to_owned(),
        verdict: Verdict::OffsetLogError,
        expected_verdict: Some(Verdict::Resumed),
        rule: "offset-log-version-unsupported".to_owned(),
        evidence: vec![
            "java.lang.IllegalStateException: UnsupportedLogVersion: maximum supported log version is v1, but encountered v99. The log file was produced by a newer version of Spark and cannot be read by this version. Please upgrade.".to_owned(),
        ],
        last_committed_batch: Some(BatchId(3)),
        first_batch_after_restart: None,
        start_offsets_match: None,
        seconds_to_verdict: 7.93,
        source_untouched: true,
        remedy: "The offset log was written by a newer Spark: restart on that version, or start on a fresh checkpoint from the offsets below.".to_owned(),
        starting_offsets: Some(STARTING_OFFSETS.to_owned()),
        seeding: seeding(),
        output: vec![],
        sandbox: None,
        logs: None,
        notes: vec![],
        warnings: vec![],
        copy: working_set_copy(),
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
    };
    let environment = TrialReport {
        target_version: "4.1.0".to_owned(),
        verdict: Verdict::EnvironmentError,
        expected_verdict: None,
        rule: "connector-jar-missing".to_owned(),
        evidence: vec![
            "org.apache.spark.sql.AnalysisException: Failed to find data source: kafka. Please deploy the application as per the deployment section of Structured Streaming + Kafka Integration Guide.".to_owned(),
        ],
        last_committed_batch: Some(BatchId(3)),
        first_batch_after_restart: None,
        start_offsets_match: None,
        seconds_to_verdict: 2.1,
        source_untouched: true,
        remedy: "The image lacks spark-sql-kafka for 4.1.0 (hint: rehearse images build --spark 4.1.0).".to_owned(),
        starting_offsets: Some(STARTING_OFFSETS.to_owned()),
        seeding: SeedingSummary::default(),
        output: vec![],
        sandbox: None,
        logs: None,
        notes: vec![],
        warnings: vec![],
        copy: working_set_copy(),
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
    };
    report(vec![
        resumed_trial(),
        expected_state_error,
        offset_log,
        environment,
    ])
}

/// A timeout with no evidence at all, no source version, no offsets to offer — and a source
/// checkpoint that changed during the trial (the production query was still writing to it).
pub(crate) fn empty_evidence() -> RunReport {
    let trial = TrialReport {
        target_version: "4.0.1".to_owned(),
        verdict: Verdict::Timeout,
        expected_verdict: None,
        rule: "timeout".to_owned(),
        evidence: vec![],
        last_committed_batch: None,
        first_batch_after_restart: None,
        start_offsets_match: None,
        seconds_to_verdict: 600.0,
        source_untouched: false,
        remedy: "No outcome within 600 s: raise `timeout` in the scenario, or keep the sandbox (--keep) and read the driver log.".to_owned(),
        starting_offsets: None,
        seeding: SeedingSummary::default(),
        output: vec![],
        sandbox: None,
        logs: None,
        notes: vec![],
        warnings: vec![],
        copy: working_set_copy(),
        job: None,
        dependencies: None,
        executors: None,
        exercised: None,
        parity: None,
        fresh: None,
    };
    RunReport {
        source_version: None,
        ..report(vec![trial])
    }
}

/// A report carrying machine-dependent values: a real temp directory as the kept sandbox and a
/// measured duration. Its rendering must go through [`redact`] before a snapshot.
pub(crate) fn live() -> (RunReport, PathBuf) {
    let started = Instant::now();
    let sandbox = std::env::temp_dir().join(format!("rehearse-sandbox-{}", std::process::id()));
    let trial = TrialReport {
        seconds_to_verdict: started.elapsed().as_secs_f64() + 12.0,
        sandbox: Some(sandbox.clone()),
        ..resumed_trial()
    };
    (report(vec![trial]), sandbox)
}

/// Replaces the machine-dependent parts of a rendering with placeholders: the given sandbox path
/// and every duration as each writer spells it (`12.3s`, `12.3 s`, `time="12.345"`,
/// `"seconds_to_verdict": 12.345`). Version numbers (`4.0.1`, `version="1.0"`) are left alone.
pub(crate) fn redact(text: &str, sandbox: &Path) -> String {
    static DURATIONS: LazyLock<[(Regex, &str); 3]> = LazyLock::new(|| {
        let regex = |pattern| Regex::new(pattern).expect("the pattern is a valid regex");
        [
            (
                regex(r#""seconds_to_verdict": [0-9.]+"#),
                r#""seconds_to_verdict": "[DURATION]""#,
            ),
            (regex(r#"\btime="[0-9.]+""#), r#"time="[DURATION]""#),
            (regex(r"\b\d+\.\d+( ?s)\b"), "[DURATION]$1"),
        ]
    });
    let mut text = text.replace(&sandbox.display().to_string(), "[SANDBOX]");
    for (regex, placeholder) in DURATIONS.iter() {
        text = regex.replace_all(&text, *placeholder).into_owned();
    }
    text
}

/// [`resumed`] whose target also ran its remedy on a new empty checkpoint (`--fresh`): it ran,
/// its start has `status`, and its parity is `parity` (if any).
pub(crate) fn resumed_with_fresh(
    ran: bool,
    status: crate::report::StartStatus,
    parity: Option<crate::report::ParityStatus>,
) -> RunReport {
    let mut report = resumed();
    let parity = parity.and_then(|p| resumed_with_parity(p).trials[0].parity.clone());
    report.trials[0].fresh = Some(Box::new(crate::report::FreshReport {
        ran,
        verdict: if ran {
            Verdict::StartedFresh
        } else {
            Verdict::StateStoreError
        },
        rule: "new-query-started".into(),
        evidence: vec!["Starting new streaming query.".into()],
        start: crate::report::StartProof {
            status,
            expected: r#"{"events":{"0":4,"1":4}}"#.into(),
            found: Some(r#"{"events":{"0":4,"1":4}}"#.into()),
            evidence: vec![r#"sources/0/0 line 2: {"events":{"0":4,"1":4}}"#.into()],
            reason: (status != crate::report::StartStatus::Proven).then(|| "other offsets".into()),
        },
        parity,
        stopped_early: None,
        seconds_to_verdict: 30.0,
        source_untouched: true,
        sandbox: None,
        notes: Vec::new(),
    }));
    report
}
