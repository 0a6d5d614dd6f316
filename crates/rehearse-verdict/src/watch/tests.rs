use super::*;
use serde_json::json;

const START: &str = "26/11/30 13:10:15.454 INFO MicroBatchExecution: Starting q [id = 347f, runId = f932]. Use file:/c to store the query checkpoint.";
const RESUMING: &str = "26/11/30 13:10:15.945 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {KafkaV2[Subscribe[t]]: {\"t\":{\"0\":42}}} and available offsets {KafkaV2[Subscribe[t]]: {\"t\":{\"0\":50}}}";
const VERSION_WARN: &str = "26/11/30 13:09:06.682 WARN OffsetSeqMetadata: Conf 'spark.sql.streaming.stateStore.encodingFormat' was not found in the offset log, using default value 'unsaferow'";

fn ctx() -> TrialContext {
    TrialContext {
        query_id: Some("347f".into()),
        last_committed_batch: Some(BatchId(3)),
        pending_batch: None,
        committed_offsets: vec![Some(json!({"t":{"0":42}}))],
        operator_ids: vec![0],
        require_input_rows: false,
        require_paths: false,
        nothing_fresh: false,
        checkpoint_watermark_ms: None,
        job: None,
    }
}

/// A pretty progress report as `ProgressReporter` (4.0) prints it.
fn progress(logger: &str, batch: u64, start: &str) -> String {
    format!(
        "26/11/30 13:09:12.149 INFO {logger}: Streaming query made progress: {{\n  \"id\" : \"347f\",\n  \"runId\" : \"f932\",\n  \"batchId\" : {batch},\n  \"numInputRows\" : 8,\n  \"durationMs\" : {{\n    \"addBatch\" : 900\n  }},\n  \"stateOperators\" : [ ],\n  \"sources\" : [ {{\n    \"description\" : \"KafkaV2[Subscribe[t]]\",\n    \"startOffset\" : {start},\n    \"endOffset\" : {{\n      \"t\" : {{\n        \"0\" : 50\n      }}\n    }},\n    \"numInputRows\" : 8\n  }} ],\n  \"sink\" : {{\n    \"description\" : \"console\"\n  }}\n}}"
    )
}

fn run(log: &str, ctx: TrialContext, ended: Ended) -> Classification {
    let mut w = Watcher::new(ctx);
    for l in log.lines() {
        w.push_line(l);
    }
    w.finish(ended)
}

const STATE_FAILURE: &str = "26/11/30 13:13:34.338 ERROR MicroBatchExecution: Query q [id = 347f, runId = f932] terminated with error
org.apache.spark.sql.execution.streaming.state.StateStoreKeySchemaNotCompatible: [STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE] Provided key schema does not match existing state key schema. SQLSTATE: XXKST
\tat org.apache.spark.sql.execution.streaming.state.StateSchemaCompatibilityChecker.check(StateSchemaCompatibilityChecker.scala:1)
26/11/30 13:13:34.339 INFO MicroBatchExecution: Async log purge executor pool for query q [id = 347f, runId = f932] has been shutdown";

#[test]
fn resuming_line_then_failure_is_never_resumed() {
    let log = format!("{START}\n{RESUMING}\n{STATE_FAILURE}");
    for ended in [
        Ended::Exited(Some(1)),
        Ended::EndOfInput,
        Ended::TimedOut(60),
    ] {
        let c = run(&log, ctx(), ended);
        assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
        assert_eq!(c.resuming_at, Some(BatchId(4)));
        assert_eq!(
            c.error_class.as_deref(),
            Some("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE")
        );
    }
    // Even with nothing after "Resuming" and a clean exit: not resumed.
    let c = run(
        &format!("{START}\n{RESUMING}"),
        ctx(),
        Ended::Exited(Some(0)),
    );
    assert_ne!(c.verdict, Verdict::Resumed);
    let c = run(
        &format!("{START}\n{RESUMING}"),
        TrialContext::default(),
        Ended::EndOfInput,
    );
    assert_ne!(c.verdict, Verdict::Resumed);
}

#[test]
fn no_progress_at_all_is_never_resumed() {
    for ended in [
        Ended::Exited(Some(0)),
        Ended::Exited(None),
        Ended::TimedOut(300),
        Ended::EndOfInput,
    ] {
        for ctx in [ctx(), TrialContext::default()] {
            let c = run(&format!("{START}\n{VERSION_WARN}"), ctx, ended);
            assert_ne!(c.verdict, Verdict::Resumed, "{ended:?}");
        }
    }
    assert_eq!(
        run(START, ctx(), Ended::TimedOut(300)).verdict,
        Verdict::Timeout
    );
    assert_eq!(
        run("", ctx(), Ended::Exited(Some(127))).verdict,
        Verdict::EnvironmentError
    );
}

#[test]
fn a_plain_version_change_is_never_plan_change() {
    let warns = "26/11/30 13:09:06.682 WARN OffsetSeqMetadata: Conf 'spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan' was not found in the offset log, using default value 'true'
26/11/30 13:09:07.702 WARN StateMetadataPartitionReader: Failed to find operator metadata for path=file:/c with exception=java.io.FileNotFoundException: File file:/c/state/0/_metadata/metadata does not exist
26/11/30 13:09:07.733 WARN IncrementalExecution: Error reading metadata path for stateful operator. This may due to no prior committed batch, or previously run on lower versions: File file:/c/state/0/_metadata/metadata does not exist
26/11/30 13:09:11.070 WARN HDFSBackedStateStoreProvider: The state for version 4 doesn't exist in loadedMaps. Reading snapshot file and delta files if needed...Note that this is normal for the first batch of starting query.";
    let resumed = format!(
        "{START}\n{VERSION_WARN}\n{warns}\n{RESUMING}\n{}",
        progress(
            "ProgressReporter",
            4,
            "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }"
        )
    );
    let c = run(&resumed, ctx(), Ended::Exited(Some(0)));
    assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    // Without any progress, the warnings alone decide nothing, and never plan-change.
    for ended in [
        Ended::Exited(Some(0)),
        Ended::Exited(Some(1)),
        Ended::EndOfInput,
    ] {
        let c = run(
            &format!("{START}\n{VERSION_WARN}\n{warns}\n{RESUMING}"),
            ctx(),
            ended,
        );
        assert_ne!(c.verdict, Verdict::PlanChange, "{c:?}");
        assert_ne!(c.verdict, Verdict::Resumed, "{c:?}");
    }
}

/// `progress` with another batch id and row count (an empty re-run reads 0 rows).
fn progress_rows(batch: u64, start: &str, rows: u64) -> String {
    progress("MicroBatchExecution", batch, start).replace(
        "\"numInputRows\" : 8",
        &format!("\"numInputRows\" : {rows}"),
    )
}

#[test]
fn a_live_trial_waits_for_a_batch_that_reads_rows_before_resumed() {
    let strict = TrialContext {
        require_input_rows: true,
        ..ctx()
    };
    let empty_rerun = progress_rows(4, "{\"t\":{\"0\":42}}", 0);
    let data = progress_rows(5, "{\"t\":{\"0\":42}}", 5);
    // The empty re-run alone decides nothing live ...
    let mut w = Watcher::new(strict.clone());
    let mut early = None;
    for l in format!("{START}\n{empty_rerun}").lines() {
        early = early.or(w.push_line(l));
    }
    assert!(early.is_none(), "{early:?}");
    // ... a batch that reads rows then proves it, citing both batches ...
    for l in data.lines() {
        early = early.or(w.push_line(l));
    }
    let c = early.expect("resumed once rows were read");
    assert_eq!(c.verdict, Verdict::Resumed);
    assert_eq!(c.first_batch_after_restart, Some(BatchId(4)));
    assert_eq!(c.start_offsets_match, Some(true));
    assert!(
        c.evidence.iter().any(|e| e.contains("batch 5 read 5 rows")),
        "{c:?}"
    );
    // ... a failure after the empty re-run is the failure ...
    let c = run(
        &format!("{START}\n{empty_rerun}\n{STATE_FAILURE}"),
        strict.clone(),
        Ended::Exited(Some(1)),
    );
    assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
    // ... and no such batch before the end is not resumed.
    let c = run(
        &format!("{START}\n{empty_rerun}"),
        strict,
        Ended::TimedOut(60),
    );
    assert_eq!(c.verdict, Verdict::Timeout, "{c:?}");
    assert_eq!(c.rule, "resumed-without-reading-rows");
    // classify of a finished log (no fresh-record promise): the re-run proves.
    let c = run(&format!("{START}\n{empty_rerun}"), ctx(), Ended::EndOfInput);
    assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
}

/// A one-line progress report of a windowed aggregation: state rows, watermark, sink rows.
fn windowed(batch: u64, rows: u64, state: (i64, i64, i64), wm: &str, sink: i64) -> String {
    let p = json!({
        "id": "347f", "runId": "f932", "batchId": batch, "numInputRows": rows,
        "durationMs": {"addBatch": 10},
        "eventTime": {"watermark": wm},
        "stateOperators": [{"numRowsTotal": state.0, "numRowsUpdated": state.1, "numRowsRemoved": state.2}],
        "sources": [{"startOffset": {"t": {"0": 42}}, "numInputRows": rows}],
        "sink": {"description": "KafkaSink", "numOutputRows": sink}
    });
    format!("26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {p}")
}

fn live_paths_ctx() -> TrialContext {
    TrialContext {
        require_input_rows: true,
        require_paths: true,
        nothing_fresh: false,
        checkpoint_watermark_ms: rehearse_base::text::parse_utc_millis("2024-01-01T00:00:30.000Z"),
        ..ctx()
    }
}

#[test]
fn a_live_trial_is_resumed_only_once_every_path_of_the_query_ran() {
    // Batch 4 resumes and reads rows: state loaded and updated, but no window closed yet.
    let first = windowed(4, 5, (6, 2, 0), "2024-01-01T00:00:30.000Z", 0);
    // Batch 5 (the no-data batch once the watermark moved): windows evicted and written.
    let closed = windowed(5, 0, (2, 0, 4), "2024-01-01T00:00:50.000Z", 4);
    let mut w = Watcher::new(live_paths_ctx());
    assert!(w.push_line(START).is_none());
    assert_eq!(w.waiting_for(), None, "nothing proved yet");
    assert!(
        w.push_line(&first).is_none(),
        "not resumed before a window closed"
    );
    // While waiting, the watcher says for what (the trial shows it as a progress line).
    assert_eq!(
        w.waiting_for(),
        Some(vec![
            "watermark-advanced".to_string(),
            "state-evicted".to_string(),
            "sink-wrote".to_string()
        ])
    );
    let c = w.push_line(&closed).expect("resumed once every path ran");
    assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    assert_eq!(w.waiting_for(), None, "nothing to wait for once certain");
    let e = c.exercised.as_ref().expect("paths recorded");
    assert!(e.all_ran(), "{e:?}");
    assert!(
        c.evidence
            .iter()
            .any(|l| l.contains("state-evicted: batch 5: numRowsRemoved 4")),
        "{:?}",
        c.evidence
    );
    // The trial ends before a window closed: resume-unproven, naming the paths.
    for ended in [Ended::TimedOut(240), Ended::Exited(Some(0))] {
        let c = run(
            &format!(
                "{START}
{first}"
            ),
            live_paths_ctx(),
            ended,
        );
        assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
        assert_eq!(c.rule, "resume-unproven");
        assert!(
            c.remedy
                .ends_with("Paths not run: watermark-advanced, state-evicted, sink-wrote."),
            "{}",
            c.remedy
        );
        assert!(
            c.evidence.iter().any(|l| l.contains("no window closed")),
            "{c:?}"
        );
        assert_eq!(c.start_offsets_match, Some(true));
    }
    // The sink failing once the first window closes is the failure, never resumed.
    let c = run(
        &format!(
            "{START}
{first}
{STATE_FAILURE}"
        ),
        live_paths_ctx(),
        Ended::Exited(Some(1)),
    );
    assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
    // classify of a finished log: the paths are evidence, the first batch proves.
    let c = run(
        &format!(
            "{START}
{first}"
        ),
        ctx(),
        Ended::EndOfInput,
    );
    assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    assert!(!c.exercised.expect("recorded").all_ran());
}

/// New-user pass, session 7: a first batch that did not prove state-loaded (it updated every
/// row the store holds) left the trial waiting out its timeout for a path no later batch can
/// prove. The next report ends it as resume-unproven.
#[test]
fn a_first_batch_that_did_not_prove_state_loaded_ends_the_wait_at_the_next_report() {
    let first = windowed(4, 5, (2, 2, 0), "2024-01-01T00:00:30.000Z", 0);
    let next = windowed(5, 5, (2, 2, 0), "2024-01-01T00:00:40.000Z", 2);
    let mut w = Watcher::new(live_paths_ctx());
    assert!(w.push_line(START).is_none());
    assert!(w.push_line(&first).is_none(), "waits: paths not run yet");
    let c = w.push_line(&next).expect("ends at the next report");
    assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
    assert!(
        c.evidence
            .iter()
            .any(|l| l.contains("cannot be told from an empty store")),
        "{:?}",
        c.evidence
    );
}

#[test]
fn a_stateless_query_is_resumed_once_its_sink_wrote() {
    let stateless = |batch: u64, sink: i64| {
        let p = json!({
            "id": "347f", "runId": "f932", "batchId": batch, "numInputRows": 3,
            "durationMs": {"addBatch": 10}, "stateOperators": [],
            "sources": [{"startOffset": {"t": {"0": 42}}, "numInputRows": 3}],
            "sink": {"description": "KafkaSink", "numOutputRows": sink}
        });
        format!(
            "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {p}"
        )
    };
    let ctx = TrialContext {
        operator_ids: vec![],
        require_input_rows: true,
        require_paths: true,
        nothing_fresh: false,
        ..ctx()
    };
    let mut w = Watcher::new(ctx.clone());
    w.push_line(START);
    let c = w
        .push_line(&stateless(4, 3))
        .expect("every path ran at once");
    assert_eq!(c.verdict, Verdict::Resumed);
    let e = c.exercised.expect("recorded");
    assert_eq!(e.state_loaded, None);
    assert_eq!(e.state_evicted, None);
    // A filter that drops every fresh record: the sink never wrote, not resumed.
    let c = run(
        &format!(
            "{START}
{}",
            stateless(4, 0)
        ),
        ctx,
        Ended::TimedOut(60),
    );
    assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
    assert!(
        c.remedy.ends_with("Paths not run: sink-wrote."),
        "{}",
        c.remedy
    );
}

#[test]
fn batch_zero_after_committed_batches_is_started_fresh() {
    let log = format!(
        "{START}\n26/11/30 13:10:15.945 INFO MicroBatchExecution: Starting new streaming query.\n{}",
        progress("MicroBatchExecution", 0, "null")
    );
    let mut w = Watcher::new(ctx());
    let mut early = None;
    for l in log.lines() {
        early = early.or(w.push_line(l));
    }
    let c = early.expect("batch 0 after committed batches is certain at once");
    assert_eq!(c.verdict, Verdict::StartedFresh);
    assert_eq!(c.rule, "batch-ids-restarted");
}

#[test]
fn right_batch_id_with_wrong_start_offsets_is_not_resumed() {
    let log = format!(
        "{START}\n{}",
        progress(
            "runtime.ProgressReporter",
            4,
            "{\n      \"t\" : {\n        \"0\" : 0\n      }\n    }"
        )
    );
    let c = run(&log, ctx(), Ended::Exited(Some(0)));
    assert_eq!(c.verdict, Verdict::StartedFresh, "{c:?}");
    assert_eq!(c.start_offsets_match, Some(false));
    assert_eq!(c.rule, "start-offsets-differ");
}

#[test]
fn progress_is_proof_whatever_logger_prints_it() {
    for logger in [
        "MicroBatchExecution",
        "ProgressReporter",
        "runtime.ProgressReporter",
    ] {
        let log = format!(
            "{START}\n{RESUMING}\n{}",
            progress(
                logger,
                4,
                "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }"
            )
        );
        let mut w = Watcher::new(ctx());
        let decided = log
            .lines()
            .find_map(|l| w.push_line(l))
            .expect("certain on the progress line");
        assert_eq!(decided.verdict, Verdict::Resumed, "{logger}");
        assert_eq!(decided.start_offsets_match, Some(true));
        assert_eq!(decided.first_batch_after_restart, Some(BatchId(4)));
    }
}

#[test]
fn progress_printing_offsets_as_json_strings_is_read_too() {
    let log = format!(
        "{START}\n{}",
        progress("ProgressReporter", 4, "\"{\\\"t\\\":{\\\"0\\\":42}}\"")
    );
    assert_eq!(
        run(&log, ctx(), Ended::EndOfInput).verdict,
        Verdict::Resumed
    );
}

#[test]
fn progress_of_another_query_is_not_proof() {
    let other = progress(
        "ProgressReporter",
        4,
        "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }",
    )
    .replace("347f", "9999");
    let c = run(
        &format!("{START}\n{RESUMING}\n{other}"),
        ctx(),
        Ended::Exited(Some(0)),
    );
    assert_ne!(c.verdict, Verdict::Resumed, "{c:?}");
}

#[test]
fn resume_line_of_one_query_is_not_proof_for_another() {
    // No checkpoint given: only Spark's own resume line ties a batch to the checkpoint,
    // and it must be the resume line of the query that made the progress.
    let other_start = START
        .replace("347f", "9999")
        .replace("Starting q ", "Starting other ");
    let other = progress(
        "ProgressReporter",
        4,
        "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }",
    )
    .replace("347f", "9999");
    let log = format!("{START}\n{RESUMING}\n{other_start}\n{other}");
    let c = run(&log, TrialContext::default(), Ended::Exited(Some(0)));
    assert_ne!(c.verdict, Verdict::Resumed, "{c:?}");
    // Its own resume line makes it continuity proof (offsets unchecked).
    let log = format!("{other_start}\n{}\n{other}", RESUMING);
    let c = run(&log, TrialContext::default(), Ended::Exited(Some(0)));
    assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
    assert_eq!(c.start_offsets_match, None);
}

#[test]
fn failing_or_ending_before_the_query_started_gives_one_rule_and_remedy() {
    let spark = "26/11/30 13:09:01.000 INFO SparkContext: Running Spark version 4.0.1";
    let died = "Exception in thread \"main\" java.lang.IllegalArgumentException: bad option\n\tat org.example.Job.main(Job.java:1)";
    let failed = run(&format!("{spark}\n{died}"), ctx(), Ended::Exited(Some(1)));
    let ended = run(spark, ctx(), Ended::Exited(Some(0)));
    for c in [&failed, &ended] {
        assert_eq!(c.verdict, Verdict::EnvironmentError, "{c:?}");
        assert_eq!(c.rule, "failed-before-query-start");
        assert!(
            c.remedy
                .starts_with("The driver ended before the streaming query started"),
            "{}",
            c.remedy
        );
    }
}

#[test]
fn a_warn_with_a_stack_trace_is_not_failure_text() {
    let log = format!(
        "{START}\n26/11/30 13:10:18.793 WARN TaskSetManager: Lost task 0.0 in stage 1.0 (TID 1): retrying\njava.lang.IllegalStateException: Error reading delta file file:/c/state/0/0/2.delta of HDFSStateStoreProvider[id = (op=0,part=0),dir = file:/c/state/0/0]: file:/c/state/0/0/2.delta does not exist\n\tat org.apache.spark.Foo.bar(Foo.scala:1)"
    );
    let c = run(&log, ctx(), Ended::Exited(Some(0)));
    // No failure was logged and no batch completed: no outcome, not a failure (issue 14).
    assert_eq!(c.verdict, Verdict::NoOutcome, "{c:?}");
    assert_eq!(c.rule, "no-batch-after-restart");
}

#[test]
fn a_finished_log_with_no_batch_and_no_failure_is_no_outcome() {
    // A real driver start, the query's start and Spark's resume line, then the end.
    let log = format!(
        "26/11/30 13:10:14.001 INFO SparkContext: Running Spark version 3.5.3\n{START}\n26/11/30 13:10:15.945 INFO MicroBatchExecution: Resuming at batch 4 with committed offsets {{}} and available offsets {{}}"
    );
    for ended in [Ended::EndOfInput, Ended::Exited(Some(0))] {
        let c = run(&log, ctx(), ended);
        assert_eq!(c.verdict, Verdict::NoOutcome, "{c:?}");
        assert!(c.remedy.contains("no failure was logged"), "{}", c.remedy);
        assert!(!c.excerpt);
    }
}

#[test]
fn idle_trigger_report_is_not_proof() {
    let idle = "26/11/30 13:09:12.149 INFO MicroBatchExecution: Streaming query made progress: {\n  \"id\" : \"347f\",\n  \"batchId\" : 4,\n  \"numInputRows\" : 0,\n  \"durationMs\" : {\n    \"latestOffset\" : 3,\n    \"triggerExecution\" : 3\n  },\n  \"stateOperators\" : [ ],\n  \"sources\" : [ {\n    \"startOffset\" : {\"t\":{\"0\":42}},\n    \"endOffset\" : {\"t\":{\"0\":42}},\n    \"numInputRows\" : 0\n  } ]\n}";
    let c = run(
        &format!("{START}\n{RESUMING}\n{idle}"),
        ctx(),
        Ended::TimedOut(120),
    );
    assert_eq!(c.verdict, Verdict::Timeout, "{c:?}");
}

#[test]
fn termination_is_certain_once_its_exception_block_ends() {
    let mut w = Watcher::new(ctx());
    let lines: Vec<&str> = STATE_FAILURE.lines().collect();
    for l in &lines[..lines.len() - 1] {
        assert!(
            w.push_line(l).is_none(),
            "not before the Caused-by chain ended: {l}"
        );
    }
    let c = w
        .push_line(lines[lines.len() - 1])
        .expect("certain at the next record");
    assert_eq!(c.verdict, Verdict::StateStoreError);
    assert!(w.push_line("anything").is_none(), "announced once");
}

#[test]
fn structured_json_layout_is_read_like_the_pattern_layout() {
    let lines = [
        r#"{"ts":"2026-11-30T13:10:15.454Z","level":"INFO","msg":"Starting q [id = 347f, runId = f932]. Use file:/c to store the query checkpoint.","context":{},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#,
        r#"{"ts":"2026-11-30T13:10:15.945Z","level":"INFO","msg":"Resuming at batch 4 with committed offsets {}","context":{},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#,
        r#"{"ts":"2026-11-30T13:10:16.000Z","level":"ERROR","msg":"Query q [id = 347f, runId = f932] terminated with error","context":{},"exception":{"class":"java.lang.IllegalStateException","msg":"Failed to read log file file:/c/commits/3. Incomplete log file in the offset commit log","stacktrace":"java.lang.IllegalStateException: Failed to read log file file:/c/commits/3. Incomplete log file in the offset commit log\n\tat org.apache.spark.sql.execution.streaming.checkpointing.CommitLog.deserialize(CommitLog.scala:61)"},"logger":"org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution"}"#,
    ];
    let c = run(&lines.join("\n"), ctx(), Ended::Exited(Some(1)));
    assert_eq!(c.verdict, Verdict::OffsetLogError, "{c:?}");
    assert_eq!(c.rule, "log-file-incomplete");
    let p = format!(
        r#"{{"ts":"2026-11-30T13:10:17.000Z","level":"INFO","msg":{},"context":{{}},"logger":"org.apache.spark.sql.execution.streaming.runtime.ProgressReporter"}}"#,
        serde_json::to_string(&format!(
            "Streaming query made progress: {}",
            progress("X", 4, "{\"t\":{\"0\":42}}")
                .split_once("progress: ")
                .unwrap()
                .1
        ))
        .unwrap()
    );
    let c = run(&format!("{}\n{p}", lines[0]), ctx(), Ended::EndOfInput);
    assert_eq!(c.verdict, Verdict::Resumed, "{c:?}");
}

#[test]
fn pyspark_traceback_alone_is_classified_through_its_wrappers() {
    let log = "Traceback (most recent call last):
  File \"/job.py\", line 57, in <module>
q.awaitTermination()
pyspark.errors.exceptions.captured.StreamingQueryException: [STREAM_FAILED] Query [id = 347f, runId = f932] terminated with exception: Job aborted due to stage failure: Task 0 in stage 1.0 failed 1 times, most recent failure: Lost task 0.0 in stage 1.0 (TID 1) (host executor driver): java.lang.IllegalStateException: Error reading delta file file:/c/state/0/0/2.delta of HDFSStateStoreProvider[id = (op=0,part=0),dir = file:/c/state/0/0]: file:/c/state/0/0/2.delta does not exist";
    let c = run(log, ctx(), Ended::Exited(Some(1)));
    assert_eq!(c.verdict, Verdict::StateStoreError, "{c:?}");
    assert_eq!(c.rule, "state-delta-file-missing");
    assert!(c.remedy.contains("startingOffsets"), "{}", c.remedy);
    // The same text for an operator the checkpoint does not have: the query changed.
    let c = run(
        &log.replace("state/0/0/2.delta", "state/1/0/1.delta")
            .replace("op=0", "op=1"),
        ctx(),
        Ended::Exited(Some(1)),
    );
    assert_eq!(c.verdict, Verdict::PlanChange, "{c:?}");
    assert_eq!(c.rule, "state-operator-not-in-checkpoint");
}

#[test]
fn event_log_failure_uses_error_class_only_as_a_hint() {
    let mut w = Watcher::new(ctx());
    let ev = r#"{"Event":"org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent","id":"347f","runId":"f932","exception":"org.apache.spark.SparkException: opaque","errorClassOnException":"CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"}"#;
    let c = w.push_event(ev).expect("a terminated event is certain");
    assert_eq!(c.verdict, Verdict::StateStoreError);
    assert!(
        c.evidence
            .iter()
            .any(|e| e.contains("errorClassOnException")),
        "{c:?}"
    );
}

#[test]
fn evidence_lines_are_clipped() {
    let long = STATE_FAILURE.replace("SQLSTATE: XXKST", &"x".repeat(5000));
    let c = run(&long, ctx(), Ended::Exited(Some(1)));
    assert!(c
        .evidence
        .iter()
        .all(|e| e.len() <= crate::evidence::EVIDENCE_LINE_MAX + 3));
}

/// A live trial waiting for paths ends as soon as the query goes idle (an idle trigger report:
/// every seeded record read, no batch left to run), not after the whole timeout; a no-data
/// batch (it has `addBatch`) is no idle report, and without paths pending idling decides
/// nothing.
#[test]
fn a_live_trial_waiting_for_paths_ends_once_the_query_is_idle() {
    let first = windowed(4, 5, (6, 2, 0), "2024-01-01T00:00:30.000Z", 0);
    let idle = format!(
        "26/11/30 13:09:22.149 INFO MicroBatchExecution: Streaming query made progress: {}",
        json!({
            "id": "347f", "runId": "f932", "batchId": 5, "numInputRows": 0,
            "durationMs": {"latestOffset": 3, "triggerExecution": 3},
            "eventTime": {"watermark": "2024-01-01T00:00:30.000Z"},
            "stateOperators": [{"numRowsTotal": 6, "numRowsUpdated": 0, "numRowsRemoved": 0}],
            "sources": [{"startOffset": {"t": {"0": 47}}, "endOffset": {"t": {"0": 47}}, "numInputRows": 0}],
            "sink": {"description": "KafkaSink", "numOutputRows": 0}
        })
    );
    let no_data_batch = windowed(5, 0, (6, 0, 0), "2024-01-01T00:00:30.000Z", 0);
    let mut w = Watcher::new(live_paths_ctx());
    w.push_line(START);
    assert!(w.push_line(&first).is_none());
    assert!(
        w.push_line(&no_data_batch).is_none(),
        "a no-data batch ran: not idle"
    );
    // One idle signal is remembered, the next ends the watch (issue 25 §8: a late no-data
    // batch must still be seen).
    assert!(w.push_line(&idle).is_none(), "the first idle signal waits");
    let c = w
        .push_line(&idle)
        .expect("decided at the second idle report");
    assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
    assert!(
        c.evidence.iter().any(|l| l.contains("the query went idle")),
        "{:?}",
        c.evidence
    );
    assert!(
        c.remedy.contains("Paths not run: watermark-advanced"),
        "{}",
        c.remedy
    );
    // Idle before any proof decides nothing (the trial waits for a batch as before).
    let mut w = Watcher::new(live_paths_ctx());
    w.push_line(START);
    assert!(w.push_line(&idle).is_none());
    // Spark 3.5+ posts no idle report but logs a line (measured, 3.5.3): the same end.
    let line = "26/12/02 00:20:48 INFO MicroBatchExecution: Streaming query has been idle and waiting for new data more than 10000 ms.";
    let mut w = Watcher::new(live_paths_ctx());
    w.push_line(START);
    assert!(w.push_line(line).is_none(), "no proof yet: nothing to end");
    assert!(w.push_line(&first).is_none());
    assert!(w.push_line(line).is_none(), "the first idle line waits");
    let c = w.push_line(line).expect("decided at the second idle line");
    assert_eq!(c.verdict, Verdict::ResumeUnproven, "{c:?}");
    assert!(
        c.evidence
            .iter()
            .any(|l| l.contains("has been idle and waiting")),
        "{:?}",
        c.evidence
    );
    // Another query in the driver: its idleness is not ours.
    let other = "26/11/30 13:10:15.500 INFO MicroBatchExecution: Starting q2 [id = 9a0b, runId = 7777]. Use file:/d to store the query checkpoint.";
    let mut w = Watcher::new(live_paths_ctx());
    w.push_line(START);
    w.push_line(other);
    w.push_line(&first);
    assert!(w.push_line(line).is_none());
    assert!(w.push_line(line).is_none());
}

/// Issue 25 §8: the same scenario gave `resume-unproven` once and `resumed` twice. Between one
/// idle signal and the next, a batch that ran (the no-data batch evicting state, its report
/// late) resets the count and is judged: the verdict no longer depends on which came first.
#[test]
fn a_batch_between_two_idle_signals_is_still_seen() {
    let first = windowed(4, 5, (6, 2, 0), "2024-01-01T00:00:30.000Z", 0);
    let line = "26/12/02 00:20:48 INFO MicroBatchExecution: Streaming query has been idle and waiting for new data more than 10000 ms.";
    let evicting = windowed(5, 0, (4, 0, 2), "2024-01-01T00:01:30.000Z", 2);
    let mut w = Watcher::new(live_paths_ctx());
    w.push_line(START);
    assert!(w.push_line(&first).is_none());
    assert!(w.push_line(line).is_none());
    let c = w
        .push_line(&evicting)
        .or_else(|| w.push_line(line))
        .or_else(|| w.push_line(line))
        .expect("a verdict");
    assert_eq!(
        c.verdict,
        Verdict::Resumed,
        "the eviction batch counted: {c:?}"
    );
}

/// Issue 25 §8: stdout and stderr are merged line by line, so a console sink's table can land
/// inside a progress report's pretty-printed JSON; the report was lost (its JSON broken) and a
/// path it proved was never seen. Every interleaving of the foreign lines gives one verdict.
#[test]
fn a_console_table_inside_a_progress_report_leaves_the_report_whole() {
    let report = windowed(4, 5, (6, 2, 0), "2024-01-01T00:00:30.000Z", 0);
    let pretty: Vec<String> = {
        let (head, json) = report.split_once("progress: ").expect("a progress line");
        let v: serde_json::Value = serde_json::from_str(json).expect("json");
        let body = serde_json::to_string_pretty(&v).expect("pretty");
        let mut lines: Vec<String> = body.lines().map(str::to_owned).collect();
        lines[0] = format!("{head}progress: {}", lines[0]);
        lines
    };
    let table = [
        "-------------------------------------------",
        "Batch: 4",
        "+------+-----+",
        "|  user|count|",
        "+------+-----+",
        "",
    ];
    let verdict = |at: Option<usize>| {
        let mut w = Watcher::new(ctx());
        w.push_line(START);
        w.push_line(RESUMING);
        for (i, l) in pretty.iter().enumerate() {
            if Some(i) == at {
                for t in table {
                    w.push_line(t);
                }
            }
            w.push_line(l);
        }
        let c = w.finish(Ended::Exited(Some(0)));
        (c.verdict, c.first_batch_after_restart)
    };
    let clean = verdict(None);
    assert_eq!(
        clean.1.map(|b| b.to_string()),
        Some("4".into()),
        "{clean:?}"
    );
    for at in 1..pretty.len() {
        assert_eq!(
            verdict(Some(at)),
            clean,
            "table inserted before JSON line {at}"
        );
    }
}

#[test]
fn a_rocksdb_load_line_of_this_run_proves_the_state_was_read() {
    // The first batch (4) updated every row its store holds: only the store's load line
    // (4.x form, naming the run) can prove the checkpoint's state was read. A line of another
    // run proves nothing.
    let first = r#"26/11/30 13:10:20.000 INFO ProgressReporter: Streaming query made progress: {"id":"347f","runId":"f932","batchId":4,"numInputRows":2,"durationMs":{"addBatch":900},"stateOperators":[{"numRowsTotal":2,"numRowsUpdated":2,"numRowsRemoved":0,"customMetrics":{"rocksdbFilesCopied":1}}],"sources":[{"description":"KafkaV2[Subscribe[t]]","startOffset":{"t":{"0":42}},"endOffset":{"t":{"0":44}},"numInputRows":2}],"sink":{"description":"console"}}"#;
    let load = |run: &str| {
        format!("26/11/30 13:10:16.000 INFO RocksDBFileManager StateStoreProviderId[ storeId=StateStoreId[ operatorId=0, partitionId=1, storeName=default ], queryRunId={run} ]: Loading checkpoint files for version 4 checkpointUniqueId: ")
    };
    let loaded = |log: String| {
        let mut w = Watcher::new(ctx());
        for l in log.lines() {
            w.push_line(l);
        }
        w.exercised()
            .and_then(|e| e.state_loaded)
            .expect("a batch with state")
    };
    let ours = loaded(format!("{START}\n{RESUMING}\n{}\n{first}", load("f932")));
    assert!(ours.ran, "{ours:?}");
    assert!(ours.evidence.contains("queryRunId=f932"), "{ours:?}");
    let theirs = loaded(format!("{START}\n{RESUMING}\n{}\n{first}", load("0aa1")));
    assert!(!theirs.ran, "{theirs:?}");
}

#[test]
fn so_far_is_what_the_log_proved_up_to_now_and_leaves_the_watch_going() {
    // A resume proved whose paths have not all run (require_paths): not certain yet, but the
    // batch and its paths are what a trial keeps if its broker dies now (trial/parts.rs).
    let c = TrialContext {
        require_input_rows: true,
        require_paths: true,
        nothing_fresh: false,
        ..ctx()
    };
    let first = r#"26/11/30 13:10:20.000 INFO ProgressReporter: Streaming query made progress: {"id":"347f","runId":"f932","batchId":4,"numInputRows":2,"durationMs":{"addBatch":900},"stateOperators":[{"numRowsTotal":5,"numRowsUpdated":2,"numRowsRemoved":0}],"eventTime":{"watermark":"1970-01-01T00:00:00.000Z"},"sources":[{"description":"KafkaV2[Subscribe[t]]","startOffset":{"t":{"0":42}},"endOffset":{"t":{"0":44}},"numInputRows":2}],"sink":{"description":"console"}}"#;
    let mut w = Watcher::new(c);
    for l in [START, RESUMING] {
        assert!(w.push_line(l).is_none());
    }
    assert_eq!(w.progress_reports(), 0);
    assert!(w.push_line(first).is_none(), "paths still to run");
    assert_eq!((w.progress_reports(), w.batches_seen()), (1, 1));
    let so_far = w.so_far();
    assert_eq!(
        so_far.first_batch_after_restart,
        Some(BatchId(4)),
        "{so_far:?}"
    );
    let loaded = so_far
        .exercised
        .as_ref()
        .and_then(|e| e.state_loaded.clone())
        .expect("state-loaded");
    assert!(loaded.ran, "{loaded:?}");
    assert_ne!(
        so_far.verdict,
        Verdict::Resumed,
        "never resumed from a part of the proof"
    );
    // The watch itself is untouched: still waiting, no verdict.
    assert!(w.verdict().is_none());
    assert!(w.waiting_for().is_some());
}

/// Breaker pass, session 7: with nothing fresh seeded a re-run of the pending batch gave
/// `resumed` although no path of the query ran. A verdict rule now (`nothing-fresh-seeded`),
/// applied by the watcher when the trial says so; moved from trial/run.rs (session 8).
#[test]
fn a_resume_with_nothing_fresh_seeded_is_unproven() {
    let first = progress(
        "ProgressReporter",
        4,
        "{\n      \"t\" : {\n        \"0\" : 42\n      }\n    }",
    );
    let log = format!("{START}\n{RESUMING}\n{first}");
    let nothing_fresh = TrialContext {
        nothing_fresh: true,
        ..ctx()
    };
    let c = run(&log, nothing_fresh.clone(), Ended::Exited(Some(0)));
    assert_eq!(
        (c.verdict, c.rule.as_str()),
        (Verdict::ResumeUnproven, "resume-unproven"),
        "{c:?}"
    );
    assert!(
        c.evidence.iter().any(|l| l.contains("no fresh records")),
        "{c:?}"
    );
    assert_eq!(
        c.start_offsets_match,
        Some(true),
        "the offsets proof is kept"
    );
    assert_eq!(c.remedy, BuiltinRule::NothingFreshSeeded.remedy());
    // Fresh records seeded (a finished log), or another verdict: unchanged.
    assert_eq!(
        run(&log, ctx(), Ended::Exited(Some(0))).verdict,
        Verdict::Resumed
    );
    let failed = run(
        &format!("{START}\n{RESUMING}\n{STATE_FAILURE}"),
        nothing_fresh,
        Ended::Exited(Some(1)),
    );
    assert_eq!(failed.verdict, Verdict::StateStoreError, "{failed:?}");
}
